#pragma once
// JSON Lines request logs (docs/replay.md#json-lines): one JSON object per line, its members
// named by the replay's fields. Envoy's JSON access log is read by the same parser with Envoy's
// field names as the defaults (docs/replay.md#envoy).
#include <memory>
#include <string>

#include "logs/log_line.h"

namespace rlsim {

// The parser for `spec` (format kJsonLines or kEnvoy).
std::unique_ptr<LineParser> make_jsonl_parser(const LogFormatSpec& spec, std::string& error);

}  // namespace rlsim
