// core/terminal_text: control characters made visible, and text fitted to a terminal's width.
#include <catch2/catch.hpp>
#include <string>

#include "core/terminal_text.h"

namespace rlsim_test_terminal_text {

using namespace rlsim;

TEST_CASE("escape_controls makes control characters visible and keeps UTF-8") {
  CHECK(escape_controls("a\x1b[31mb\n") == "a\\x1b[31mb\\x0a");
  CHECK(escape_controls("\xc2\x9b"
                        "2J") == "\\xc2\\x9b2J");
  CHECK(escape_controls("caf\xc3\xa9 \xe2\x96\x88") == "caf\xc3\xa9 \xe2\x96\x88");
}

TEST_CASE("escape_controls_in_document keeps line breaks and tabs, escapes the rest") {
  CHECK(escape_controls_in_document("a\nb\tc\x1b[2J\x07") == "a\nb\tc\\x1b[2J\\x07");
  CHECK(escape_controls_in_document(std::string("x\0y", 3)) == "x\\x00y");
}

TEST_CASE("text_columns counts code points, not bytes") {
  CHECK(text_columns("") == 0);
  CHECK(text_columns("abc") == 3);
  CHECK(text_columns("\xe2\x96\x81\xe2\x96\x88x") == 3);  // two sparkline blocks and an x
}

TEST_CASE("wrap_words breaks at spaces into lines of at most the width") {
  CHECK(wrap_words("", 10).empty());
  CHECK(wrap_words("one two three", 20) == "one two three\n");
  CHECK(wrap_words("one two three", 7) == "one two\nthree\n");
  CHECK(wrap_words("one two three", 8) == "one two\nthree\n");
  // A word longer than the width gets a line of its own; repeated spaces do not make empty words.
  CHECK(wrap_words("a verylongword b", 5) == "a\nverylongword\nb\n");
  CHECK(wrap_words("a  b", 10) == "a b\n");
  // Widths in code points: three blocks fit in 3 columns.
  CHECK(wrap_words("\xe2\x96\x81\xe2\x96\x81\xe2\x96\x81 x", 3) ==
        "\xe2\x96\x81\xe2\x96\x81\xe2\x96\x81\nx\n");
  for (std::size_t width : {1u, 5u, 40u, 120u}) {
    const std::string text =
        "Redis goes silent (a black hole: no reply until the 100 ms client timeout) for 20 s at "
        "3:00 of a 5 min run, at the start of a one-minute window.";
    const std::string wrapped = wrap_words(text, width);
    std::size_t from = 0;
    while (from < wrapped.size()) {
      const std::size_t end = wrapped.find('\n', from);
      const std::string line = wrapped.substr(from, end - from);
      INFO(width << ": " << line);
      CHECK((text_columns(line) <= width || line.find(' ') == std::string::npos));
      from = end + 1;
    }
  }
}

}  // namespace rlsim_test_terminal_text
