package dev.proxima.cli;

/** A kubeconfig that cannot be used; the message is one line naming the file and the problem. */
public final class KubeconfigException extends Exception {
  public KubeconfigException(String message) {
    super(message);
  }
}
