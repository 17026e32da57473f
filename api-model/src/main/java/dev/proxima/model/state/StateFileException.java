package dev.proxima.model.state;

/** A state file that cannot be read; the message names the document and field at fault. */
public final class StateFileException extends Exception {
  public StateFileException(String message, Throwable cause) {
    super(message, cause);
  }
}
