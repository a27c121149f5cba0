#include "logs/nginx_format.h"

#include <fmt/format.h>

#include <cctype>
#include <optional>
#include <vector>

#include "logs/log_time.h"

namespace rlsim {
namespace {

// Parts of $request ("GET /search?q=1 HTTP/1.1") a field may name when the format does not
// carry them itself.
enum class RequestPart { kNone, kMethod, kRequestUri, kUri, kProtocol };

RequestPart request_part(std::string_view name) {
  if (name == "request_method") return RequestPart::kMethod;
  if (name == "request_uri") return RequestPart::kRequestUri;
  if (name == "uri") return RequestPart::kUri;
  if (name == "server_protocol") return RequestPart::kProtocol;
  return RequestPart::kNone;
}

enum class TimeKind { kMsec, kTimeLocal, kIso8601, kAcceptDate };

struct Segment {
  std::string literal;  // the text before the variable (may be empty for the first)
  std::string name;     // the variable; empty for trailing text
};

// Splits a log_format into (literal, variable) pairs; "" on success, else what is wrong.
std::string compile(std::string_view format, std::vector<Segment>& segments) {
  Segment current;
  for (std::size_t i = 0; i < format.size();) {
    if (format[i] != '$') {
      current.literal += format[i++];
      continue;
    }
    std::size_t begin = i + 1, end = begin;
    const bool braced = begin < format.size() && format[begin] == '{';
    if (braced) ++begin, ++end;
    while (end < format.size() &&
           (std::isalnum(static_cast<unsigned char>(format[end])) != 0 || format[end] == '_'))
      ++end;
    if (end == begin) return fmt::format("a '$' at offset {} names no variable", i);
    if (braced && (end >= format.size() || format[end] != '}'))
      return fmt::format("\"${{\" at offset {} is not closed", i);
    if (!segments.empty() && current.literal.empty() && !segments.back().name.empty())
      return fmt::format("${} follows ${} with no text between them",
                         format.substr(begin, end - begin), segments.back().name);
    current.name = std::string(format.substr(begin, end - begin));
    segments.push_back(std::move(current));
    current = Segment{};
    i = end + (braced ? 1 : 0);
  }
  if (!current.literal.empty()) segments.push_back(std::move(current));
  if (segments.empty() || (segments.size() == 1 && segments[0].name.empty()))
    return "it has no variables";
  return "";
}

// A literal as messages quote it: in double quotes, its own quotes and backslashes escaped.
std::string quote_literal(std::string_view literal) {
  std::string out = "\"";
  for (const char c : literal) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

class TemplateParser final : public LineParser {
 public:
  bool init(const LogFormatSpec& spec, std::string& error) {
    haproxy_ = spec.format == LogFormat::kHaproxy;
    error = compile(haproxy_ ? kHaproxyHttpLog : std::string_view(spec.log_format), segments_);
    if (!error.empty()) return false;
    values_.resize(segments_.size());
    const auto index_of = [&](std::string_view name) -> int {
      for (std::size_t i = 0; i < segments_.size(); ++i)
        if (segments_[i].name == name) return static_cast<int>(i);
      return -1;
    };
    constexpr std::pair<const char*, TimeKind> kTimes[] = {{"msec", TimeKind::kMsec},
                                                           {"accept_date", TimeKind::kAcceptDate},
                                                           {"time_iso8601", TimeKind::kIso8601},
                                                           {"time_local", TimeKind::kTimeLocal}};
    for (const auto& [name, kind] : kTimes) {
      if (time_index_ < 0 && (time_index_ = index_of(name)) >= 0) time_kind_ = kind;
    }
    if (time_index_ < 0) {
      error = "it has no time variable ($msec, $time_local or $time_iso8601)";
      return false;
    }
    request_index_ = index_of("request");
    for (std::size_t slot = 0; slot < kLogSlotCount; ++slot) {
      const std::string& name = spec.fields[slot];
      if (name.empty()) continue;
      slot_index_[slot] = index_of(name);
      if (slot_index_[slot] < 0 && request_index_ >= 0) slot_part_[slot] = request_part(name);
      if (slot_index_[slot] < 0 && slot_part_[slot] == RequestPart::kNone && spec.required[slot]) {
        error = fmt::format("it has no ${} for the {} field", name, kLogSlotNames[slot]);
        return false;
      }
    }
    return true;
  }

  bool parse(std::string_view line, LogLine& out, std::string& why) override {
    if (haproxy_) skip_syslog_header(line);
    if (!match(line, why)) return false;
    if (!read_time(out, why)) return false;
    for (std::size_t slot = 0; slot < kLogSlotCount; ++slot) {
      if (slot_index_[slot] >= 0) {
        out.values[slot] = values_[static_cast<std::size_t>(slot_index_[slot])];
      } else {
        out.values[slot] =
            slot_part_[slot] == RequestPart::kNone
                ? std::string_view()
                : part_of(values_[static_cast<std::size_t>(request_index_)], slot_part_[slot]);
      }
    }
    return true;
  }

 private:
  // "Dec  6 01:02:03 host haproxy[123]: " before HAProxy's own fields, when the line has one.
  static void skip_syslog_header(std::string_view& line) {
    const std::size_t tag = line.find("]: ");
    if (tag != std::string_view::npos && tag < line.find(" [")) line.remove_prefix(tag + 3);
  }

  bool match(std::string_view line, std::string& why) {
    std::size_t at = 0;
    for (std::size_t i = 0; i < segments_.size(); ++i) {
      const Segment& segment = segments_[i];
      if (line.compare(at, segment.literal.size(), segment.literal) != 0) {
        why = fmt::format("expected {} at column {}", quote_literal(segment.literal), at + 1);
        return false;
      }
      at += segment.literal.size();
      if (segment.name.empty()) break;
      std::size_t end = line.size();
      if (i + 1 < segments_.size()) {
        end = line.find(segments_[i + 1].literal, at);
        if (end == std::string_view::npos) {
          why =
              fmt::format("no {} after ${}", quote_literal(segments_[i + 1].literal), segment.name);
          return false;
        }
      }
      values_[i] = line.substr(at, end - at);
      at = end;
    }
    if (at != line.size()) {
      why = fmt::format("unexpected text at column {}", at + 1);
      return false;
    }
    return true;
  }

  bool read_time(LogLine& out, std::string& why) {
    const std::string_view text = values_[static_cast<std::size_t>(time_index_)];
    std::optional<std::int64_t> time_us;
    out.whole_second = false;
    switch (time_kind_) {
      case TimeKind::kMsec:
        time_us = parse_seconds_us(text);
        break;
      case TimeKind::kAcceptDate:
        time_us = parse_clf_time_us(text);
        break;
      case TimeKind::kTimeLocal:
        time_us = parse_clf_time_us(text);
        out.whole_second = true;
        break;
      case TimeKind::kIso8601:
        time_us = parse_iso8601_us(text, &out.whole_second);
        break;
    }
    if (!time_us) {
      why = fmt::format("${} \"{}\" is not a time",
                        segments_[static_cast<std::size_t>(time_index_)].name, text.substr(0, 40));
      return false;
    }
    out.time_us = *time_us;
    return true;
  }

  static std::string_view part_of(std::string_view request, RequestPart part) {
    const std::size_t first = request.find(' ');
    const std::string_view method = request.substr(0, first);
    if (part == RequestPart::kMethod) return method;
    if (first == std::string_view::npos) return {};
    std::string_view rest = request.substr(first + 1);
    const std::size_t second = rest.find(' ');
    const std::string_view uri = rest.substr(0, second);
    if (part == RequestPart::kRequestUri) return uri;
    if (part == RequestPart::kUri) return uri.substr(0, uri.find('?'));
    return second == std::string_view::npos ? std::string_view() : rest.substr(second + 1);
  }

  bool haproxy_ = false;
  std::vector<Segment> segments_;
  std::vector<std::string_view> values_;  // per segment, into the current line
  int time_index_ = -1;
  TimeKind time_kind_ = TimeKind::kMsec;
  int request_index_ = -1;
  std::array<int, kLogSlotCount> slot_index_{-1, -1, -1, -1, -1};
  std::array<RequestPart, kLogSlotCount> slot_part_{};
};

}  // namespace

std::unique_ptr<LineParser> make_nginx_parser(const LogFormatSpec& spec, std::string& error) {
  auto parser = std::make_unique<TemplateParser>();
  if (!parser->init(spec, error)) return nullptr;
  return parser;
}

}  // namespace rlsim
