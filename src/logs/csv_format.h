#pragma once
// CSV request logs (docs/replay.md#csv): a header line naming the columns, then one request per
// line; fields separated by commas, a field in double quotes may hold commas and "" for a quote.
#include <memory>
#include <string>

#include "logs/log_line.h"

namespace rlsim {

// The parser for `spec` (format kCsv); the header is checked against it when the reader starts.
std::unique_ptr<LineParser> make_csv_parser(const LogFormatSpec& spec, std::string& error);

}  // namespace rlsim
