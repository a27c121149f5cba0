#pragma once
// Reading a request log from text in the reader tests (test_log_reader, test_csv_format,
// test_jsonl_format, test_nginx_format): every well-formed line as owned strings.
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "logs/log_reader.h"

namespace rlsim::testing {

struct ReadLine {
  std::uint64_t line_number = 0;
  std::int64_t time_us = 0;
  bool whole_second = false;
  std::array<std::string, kLogSlotCount> values;
  const std::string& value(LogSlot slot) const { return values[static_cast<std::size_t>(slot)]; }
};

struct ReadLog {
  std::string spec_error;  // make_line_parser's error ("" when the spec is good)
  std::string failure;     // the reader's failure()
  std::vector<ReadLine> lines;
  std::uint64_t bad_lines = 0;
  std::vector<BadLine> bad_examples;
};

inline ReadLog read_log(const LogFormatSpec& spec, const std::string& text,
                        std::int64_t max_bad_lines = -1) {
  ReadLog out;
  auto parser = make_line_parser(spec, out.spec_error);
  if (parser == nullptr) return out;
  LogReader reader(std::make_unique<std::istringstream>(text), std::move(parser), max_bad_lines);
  if (reader.start()) {
    LogLine line;
    while (reader.next(line)) {
      ReadLine copy{line.line_number, line.time_us, line.whole_second, {}};
      for (std::size_t i = 0; i < kLogSlotCount; ++i) copy.values[i] = std::string(line.values[i]);
      out.lines.push_back(copy);
    }
  }
  out.failure = reader.failure();
  out.bad_lines = reader.bad_lines();
  out.bad_examples = reader.bad_examples();
  return out;
}

// A spec with the fields the CSV and JSON Lines formats read by default.
inline LogFormatSpec keyed_spec(LogFormat format) {
  LogFormatSpec spec;
  spec.format = format;
  spec.time_field = "time";
  spec.fields = {"key", "ip", "endpoint", "instance", "status"};
  spec.required = {true, false, false, false, false};
  return spec;
}

}  // namespace rlsim::testing
