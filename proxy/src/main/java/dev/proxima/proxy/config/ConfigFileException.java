package dev.proxima.proxy.config;

/** A configuration file that cannot be used; the message names the file and the problem. */
public final class ConfigFileException extends Exception {
  public ConfigFileException(String message) {
    super(message);
  }
}
