#include "logs/jsonl_format.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "logs/log_time.h"

namespace rlsim {
namespace {

using nlohmann::json;

class JsonLinesParser final : public LineParser {
 public:
  explicit JsonLinesParser(const LogFormatSpec& spec) : spec_(spec) {}

  bool parse(std::string_view line, LogLine& out, std::string& why) override {
    json object = json::parse(line, nullptr, false);
    if (object.is_discarded() || !object.is_object()) {
      why = object.is_discarded() ? "not valid JSON" : "not a JSON object";
      return false;
    }
    out.values = {};
    out.whole_second = false;
    const auto time = object.find(spec_.time_field);
    if (time == object.end()) {
      why = fmt::format("no member \"{}\"", spec_.time_field);
      return false;
    }
    std::optional<std::int64_t> time_us;
    if (time->is_number() && time->get<double>() >= 0) {
      time_us = parse_seconds_us(
          time->is_number_float() ? fmt::format("{:.6f}", time->get<double>()) : time->dump());
    } else if (time->is_string()) {
      time_us = parse_log_time_us(time->get_ref<const std::string&>());
    }
    if (!time_us) {
      why = fmt::format("\"{}\" is neither seconds nor an ISO 8601 date-time", spec_.time_field);
      return false;
    }
    out.time_us = *time_us;
    for (std::size_t slot = 0; slot < kLogSlotCount; ++slot) {
      if (spec_.fields[slot].empty()) continue;
      const auto member = object.find(spec_.fields[slot]);
      if (member == object.end() || member->is_null()) {
        if (!spec_.required[slot]) continue;
        why = fmt::format("no member \"{}\"", spec_.fields[slot]);
        return false;
      }
      if (member->is_object() || member->is_array()) {
        why = fmt::format("\"{}\" is not a string or a number", spec_.fields[slot]);
        return false;
      }
      values_[slot] = member->is_string() ? member->get<std::string>() : member->dump();
      out.values[slot] = values_[slot];
    }
    return true;
  }

 private:
  const LogFormatSpec spec_;
  std::array<std::string, kLogSlotCount> values_;
};

}  // namespace

std::unique_ptr<LineParser> make_jsonl_parser(const LogFormatSpec& spec, std::string& error) {
  error.clear();
  return std::make_unique<JsonLinesParser>(spec);
}

}  // namespace rlsim
