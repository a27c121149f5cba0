#pragma once
// Text from a scenario file (a description, a value quoted in an error message) shown on a
// terminal: a file must not be able to move the cursor, recolour the screen, set the window title
// or write to the clipboard through escape sequences.
#include <cstddef>
#include <string>
#include <string_view>

namespace rlsim {

// `text` with every control character written as a visible escape: the C0 controls (newline,
// tab and ESC included) and DEL as \xNN, and the C1 controls U+0080..U+009F (CSI, OSC in their
// 8-bit form, two bytes in UTF-8) as \xc2\xNN. Every other byte is kept, so printable UTF-8 is
// unchanged. Every string a command prints from a scenario goes through this.
std::string escape_controls(std::string_view text);

// As escape_controls, but newlines and tabs are kept: text for a document (Markdown, HTML, SVG)
// whose line breaks are the author's, where NUL, ESC or BEL would only corrupt the file or, in
// a Markdown file later printed with `cat`, reach a terminal.
std::string escape_controls_in_document(std::string_view text);

// An error message as the command line prints it: control characters escaped as escape_controls
// does, except the newlines between its lines, and every line longer than `max_columns` cut in
// the middle ("...[N characters cut]..."), so a 16 MiB value quoted in a message cannot flood the
// terminal while the message's start (the file, the field) and end (what is allowed) stay.
std::string clip_message(std::string_view text, std::size_t max_columns = 1000);

// How many columns `text` takes: its UTF-8 code points (every byte but a continuation byte).
std::size_t text_columns(std::string_view text);

// `text` broken at spaces into lines of at most `columns` code points, each ending in '\n' (a
// word longer than that gets a line of its own): a scenario's description on a 120-column
// terminal.
std::string wrap_words(std::string_view text, std::size_t columns);

}  // namespace rlsim
