package dev.proxima.http;

import java.util.List;
import java.util.function.Function;

/**
 * What a handler may read of a request: its method, path, raw query and headers.
 *
 * @param query the raw query string, or null when there is none
 * @param headers all values of a header, by case-insensitive name; empty when absent
 */
public record ProbeRequest(
    String method, String path, String query, Function<String, List<String>> headers) {}
