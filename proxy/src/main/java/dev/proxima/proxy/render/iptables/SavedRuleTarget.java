package dev.proxima.proxy.render.iptables;

import java.util.ArrayList;
import java.util.List;

/**
 * The chain an {@code iptables-save} rule line jumps or goes to, read from its words as iptables
 * quotes them, so that a quoted comment that contains {@code -j NAME} is not taken for a target.
 * Pure.
 */
final class SavedRuleTarget {
  private SavedRuleTarget() {}

  private record Word(String text, boolean quoted) {}

  /** The word after the last unquoted {@code -j} or {@code -g}, or null when there is none. */
  static String of(String line) {
    var words = words(line);
    String target = null;
    for (int i = 0; i + 1 < words.size(); i++) {
      var word = words.get(i);
      if (!word.quoted() && (word.text().equals("-j") || word.text().equals("-g"))) {
        target = words.get(i + 1).text();
      }
    }
    return target;
  }

  /** Splits at unquoted blanks; inside double quotes a backslash escapes the next character. */
  private static List<Word> words(String line) {
    var words = new ArrayList<Word>();
    var text = new StringBuilder();
    boolean inQuotes = false;
    boolean quoted = false;
    boolean inWord = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (inQuotes) {
        if (c == '\\' && i + 1 < line.length()) {
          text.append(line.charAt(++i));
        } else if (c == '"') {
          inQuotes = false;
        } else {
          text.append(c);
        }
      } else if (c == '"') {
        inQuotes = true;
        quoted = true;
        inWord = true;
      } else if (c == ' ' || c == '\t') {
        if (inWord) {
          words.add(new Word(text.toString(), quoted));
          text.setLength(0);
          quoted = false;
          inWord = false;
        }
      } else {
        text.append(c);
        inWord = true;
      }
    }
    if (inWord) {
      words.add(new Word(text.toString(), quoted));
    }
    return words;
  }
}
