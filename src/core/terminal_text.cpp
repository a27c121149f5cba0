#include "core/terminal_text.h"

#include <fmt/format.h>

namespace rlsim {

namespace {

std::string escape_controls_keeping(std::string_view text, bool keep_line_breaks) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const bool c1 = byte == 0xc2 && i + 1 < text.size() &&
                    static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9f;
    const bool kept = keep_line_breaks && (byte == '\n' || byte == '\t');
    if (!kept && (byte < 0x20 || byte == 0x7f)) {
      out += fmt::format("\\x{:02x}", byte);
    } else if (c1) {
      out += fmt::format("\\xc2\\x{:02x}", static_cast<unsigned char>(text[++i]));
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

std::string escape_controls(std::string_view text) { return escape_controls_keeping(text, false); }

std::string escape_controls_in_document(std::string_view text) {
  return escape_controls_keeping(text, true);
}

namespace {

// The byte offset of the code point `columns` columns into `text` (its size if shorter).
std::size_t offset_of_column(std::string_view text, std::size_t columns) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (seen++ == columns) return i;
  }
  return text.size();
}

// One line of a message, escaped and cut in the middle when longer than `max_columns`.
std::string clip_line(std::string_view line, std::size_t max_columns) {
  std::string escaped = escape_controls(line);
  const std::size_t columns = text_columns(escaped);
  if (columns <= max_columns) return escaped;
  const std::size_t keep_head = max_columns * 3 / 5;
  const std::size_t keep_tail = max_columns - keep_head;
  const std::size_t head_end = offset_of_column(escaped, keep_head);
  const std::size_t tail_start = offset_of_column(escaped, columns - keep_tail);
  return fmt::format("{}...[{} characters cut]...{}", escaped.substr(0, head_end),
                     columns - keep_head - keep_tail, escaped.substr(tail_start));
}

}  // namespace

std::string clip_message(std::string_view text, std::size_t max_columns) {
  std::string out;
  std::size_t from = 0;
  while (true) {
    const std::size_t newline = text.find('\n', from);
    out += clip_line(text.substr(from, newline - from), max_columns);
    if (newline == std::string_view::npos) return out;
    out += '\n';
    from = newline + 1;
  }
}

std::size_t text_columns(std::string_view text) {
  std::size_t columns = 0;
  for (const char c : text) columns += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return columns;
}

std::string wrap_words(std::string_view text, std::size_t columns) {
  std::string out;
  std::string line;
  std::size_t from = 0;
  while (from <= text.size()) {
    std::size_t space = text.find(' ', from);
    if (space == std::string_view::npos) space = text.size();
    const std::string_view word = text.substr(from, space - from);
    if (!line.empty() && text_columns(line) + 1 + text_columns(word) > columns) {
      out += line + "\n";
      line.clear();
    }
    if (!word.empty()) {
      // Appended piece by piece: `" " + std::string(word)` trips GCC 12's -Wrestrict at -O3.
      if (!line.empty()) line += ' ';
      line.append(word);
    }
    from = space + 1;
  }
  if (!line.empty()) out += line + "\n";
  return out;
}

}  // namespace rlsim
