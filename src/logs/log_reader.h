#pragma once
// Reading a request log line by line from a stream it is handed (docs/replay.md): the reader
// knows nothing of where the bytes come from (a file the command line opened, an upload), holds
// one chunk of the stream and one line at a time (memory independent of the log's length), and
// counts malformed lines instead of stopping on them, keeping the first few with line numbers.
#include <cstdint>
#include <functional>
#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "logs/log_line.h"

namespace rlsim {

// Opens the named input of a replay for reading: the front end's choice of where bytes come from.
// Returns null and sets `error` (a phrase such as "no such file") when it cannot.
using LogOpener =
    std::function<std::unique_ptr<std::istream>(const std::string& name, std::string& error)>;

// The parser for `spec`'s format, or null with `error` set when the spec itself is wrong (an
// nginx log_format that does not parse, a required field the format does not have).
std::unique_ptr<LineParser> make_line_parser(const LogFormatSpec& spec, std::string& error);

class LogReader {
 public:
  static constexpr std::size_t kBadLineExamples = 5;       // kept with their line numbers
  static constexpr std::size_t kMaxLineBytes = 64 * 1024;  // a longer line is malformed

  // `max_bad_lines`: the reader fails once more lines than this were malformed (-1: never).
  LogReader(std::unique_ptr<std::istream> in, std::unique_ptr<LineParser> parser,
            std::int64_t max_bad_lines);
  // Reads the header when the format has one; false (and failure() set) when it does not fit.
  bool start();
  // The next well-formed line; false at the end of the stream or once failure() is set.
  bool next(LogLine& line);

  std::uint64_t lines() const { return line_number_; }  // lines read so far, header included
  std::uint64_t bad_lines() const { return bad_lines_; }
  const std::vector<BadLine>& bad_examples() const { return bad_examples_; }
  // Why reading stopped early ("" while it has not): a bad header, too many malformed lines, an
  // unreadable stream.
  const std::string& failure() const { return failure_; }

 private:
  bool next_text_line(std::string_view& line);  // false at the end of the stream
  bool refill();
  void count_bad(std::string reason);

  std::unique_ptr<std::istream> in_;
  std::unique_ptr<LineParser> parser_;
  std::int64_t max_bad_lines_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0, end_ = 0;  // the unread bytes of buffer_
  bool eof_ = false;
  std::string long_line_;  // a line that did not fit the buffer, gathered here
  std::uint64_t line_number_ = 0;
  std::uint64_t bad_lines_ = 0;
  std::vector<BadLine> bad_examples_;
  std::string failure_;
  std::string why_;
};

}  // namespace rlsim
