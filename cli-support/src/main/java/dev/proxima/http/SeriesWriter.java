package dev.proxima.http;

import java.io.IOException;
import java.io.Writer;

/**
 * Writes metric families one series at a time in the Prometheus text format (0.0.4) or OpenMetrics
 * 1.0, as client_java's writers would write them: HELP and TYPE lines in each format's order, label
 * values escaped, integer sample values. It holds nothing between series, so a family of any size
 * costs the same few objects.
 */
public final class SeriesWriter {
  /** The text formats a scrape can ask for. */
  public enum Format {
    TEXT,
    OPENMETRICS
  }

  private final Writer out;
  private final Format format;

  public SeriesWriter(Writer out, Format format) {
    this.out = out;
    this.format = format;
  }

  public Format format() {
    return format;
  }

  /** Starts a counter family; its samples are named {@code name + "_total"}. */
  public void counter(String name, String help) throws IOException {
    family(name, "counter", help);
  }

  /** Starts a gauge family; its samples are named {@code name}. */
  public void gauge(String name, String help) throws IOException {
    family(name, "gauge", help);
  }

  /**
   * Starts an untyped family whose samples are named {@code name} as given, {@code _total} or not:
   * for a name upstream gives a series that client_java's rules do not allow.
   */
  public void unknown(String name, String help) throws IOException {
    family(name, format == Format.TEXT ? "untyped" : "unknown", help);
  }

  private void family(String name, String type, String help) throws IOException {
    // The text format names a counter's family by its sample name, OpenMetrics by the bare name.
    var familyName = format == Format.TEXT && type.equals("counter") ? name + "_total" : name;
    if (format == Format.OPENMETRICS) {
      out.write("# TYPE ");
      out.write(familyName);
      out.write(' ');
      out.write(type);
      out.write('\n');
    }
    out.write("# HELP ");
    out.write(familyName);
    out.write(' ');
    writeHelp(help);
    out.write('\n');
    if (format == Format.TEXT) {
      out.write("# TYPE ");
      out.write(familyName);
      out.write(' ');
      out.write(type);
      out.write('\n');
    }
  }

  /**
   * One sample.
   *
   * @param name the sample's name ({@code _total} included for a counter)
   * @param labels label names and values, alternating; names must be valid label names
   */
  public void sample(String name, long value, String... labels) throws IOException {
    out.write(name);
    if (labels.length > 0) {
      out.write('{');
      for (int i = 0; i + 1 < labels.length; i += 2) {
        if (i > 0) {
          out.write(',');
        }
        out.write(labels[i]);
        out.write("=\"");
        writeLabelValue(labels[i + 1]);
        out.write('"');
      }
      out.write('}');
    }
    out.write(' ');
    writeLong(value);
    out.write('\n');
  }

  private final char[] digits = new char[20];

  /** Digits without a String per sample. */
  private void writeLong(long value) throws IOException {
    if (value == Long.MIN_VALUE) {
      out.write(Long.toString(value));
      return;
    }
    long rest = Math.abs(value);
    int at = digits.length;
    do {
      digits[--at] = (char) ('0' + rest % 10);
      rest /= 10;
    } while (rest > 0);
    if (value < 0) {
      out.write('-');
    }
    out.write(digits, at, digits.length - at);
  }

  /** Backslash, double quote and newline escaped, as both formats require in label values. */
  private void writeLabelValue(String value) throws IOException {
    int from = 0;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      String escaped =
          switch (c) {
            case '\\' -> "\\\\";
            case '"' -> "\\\"";
            case '\n' -> "\\n";
            default -> null;
          };
      if (escaped != null) {
        out.write(value, from, i - from);
        out.write(escaped);
        from = i + 1;
      }
    }
    out.write(value, from, value.length() - from);
  }

  /** Backslash and newline escaped (and in OpenMetrics the double quote too). */
  private void writeHelp(String help) throws IOException {
    for (int i = 0; i < help.length(); i++) {
      char c = help.charAt(i);
      if (c == '\\') {
        out.write("\\\\");
      } else if (c == '\n') {
        out.write("\\n");
      } else if (c == '"' && format == Format.OPENMETRICS) {
        out.write("\\\"");
      } else {
        out.write(c);
      }
    }
  }
}
