package dev.proxima.controller.hints.auto;

/**
 * How many endpoints one zone should get: upstream's {@code allocation}.
 *
 * @param minimum the fewest endpoints that keep the zone within the overload threshold
 * @param maximum the most the zone may hold while every other zone still gets its minimum
 * @param desired the zone's CPU share of the ready endpoints, raised to {@code minimum}
 */
public record Allocation(int minimum, int maximum, double desired) {}
