package dev.proxima.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import net.logstash.logback.decorate.JsonFactoryDecorator;

/**
 * Durations and instants in JSON log lines as the text format shows them ({@code PT1.5S}, {@code
 * 2026-11-24T06:00:00Z}) instead of Jackson's bare seconds, which read as plain numbers. Named by
 * logback.xml.
 */
public final class ReadableTimes implements JsonFactoryDecorator {
  @Override
  public JsonFactory decorate(JsonFactory factory) {
    if (factory.getCodec() instanceof ObjectMapper mapper) {
      mapper.disable(
          SerializationFeature.WRITE_DATES_AS_TIMESTAMPS,
          SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS);
    }
    return factory;
  }
}
