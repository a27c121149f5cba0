#pragma once
// One line of a request log as every reader hands it on: its time and the few fields a replay
// uses (docs/replay.md). Readers (one file per format) turn text into LogLines and know nothing
// of where the text came from; the world turns LogLines into requests.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rlsim {

// The fields a replay reads from each line, in this order. kUser, kIp and kEndpoint become the
// request's key fields, kInstance pins it to an instance, kVerdict carries production's verdict
// (an HTTP status, Envoy's response flags).
enum class LogSlot : std::size_t { kUser, kIp, kEndpoint, kInstance, kVerdict };
inline constexpr std::size_t kLogSlotCount = 5;
// The scenario's names of the slots (`replay.fields.<name>`).
inline constexpr std::array<const char*, kLogSlotCount> kLogSlotNames = {"user", "ip", "endpoint",
                                                                         "instance", "verdict"};

enum class LogFormat { kCsv, kJsonLines, kNginx, kEnvoy, kHaproxy };

// What a reader is asked to read: the format and, per slot, the name of the log field it comes
// from ("" when the slot is not read). A required slot missing from the format (a CSV header, an
// nginx log_format) is an error when the reader starts; a missing optional one is left empty.
struct LogFormatSpec {
  LogFormat format = LogFormat::kCsv;
  std::string log_format;  // nginx: the log_format string; haproxy: empty (the HTTP log format)
  std::string time_field;  // the field holding the time (csv, jsonl, envoy)
  std::array<std::string, kLogSlotCount> fields;
  std::array<bool, kLogSlotCount> required{};
};

// One well-formed line. The views point into the reader's own buffers and stay valid until the
// reader's next call.
struct LogLine {
  std::uint64_t line_number = 0;  // 1-based, counting every line of the stream (header included)
  std::int64_t time_us = 0;       // the log's time in microseconds (Unix time, or the log's scale)
  bool whole_second = false;      // the time has one-second resolution (the replay spreads it)
  std::array<std::string_view, kLogSlotCount> values;

  std::string_view value(LogSlot slot) const { return values[static_cast<std::size_t>(slot)]; }
};

// A malformed line, as the report shows it.
struct BadLine {
  std::uint64_t line_number = 0;
  std::string reason;
};

// Parses the lines of one format. Each format's file implements it; make_line_parser
// (log_reader.h) picks one.
class LineParser {
 public:
  virtual ~LineParser() = default;
  // Reads the header line, for formats that have one (CSV); returns "" when it fits the spec,
  // otherwise why not. Called once, on the first line, only when has_header().
  virtual bool has_header() const { return false; }
  virtual std::string read_header(std::string_view line) {
    (void)line;
    return "";
  }
  // Parses one line (without its newline) into `out` (all but line_number). Returns false and
  // sets `why` (a short phrase) when the line is malformed.
  virtual bool parse(std::string_view line, LogLine& out, std::string& why) = 0;
};

// Whether a verdict field's value says production denied the request: the value, or one of its
// comma-separated parts (Envoy's "UO,RL"), equals one of `denied`.
bool logged_denied(std::string_view value, const std::vector<std::string>& denied);

}  // namespace rlsim
