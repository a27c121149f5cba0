#include "scenario/json_text.h"

#include <fmt/format.h>

#include <cctype>
#include <vector>

#include "scenario/error.h"

namespace rlsim {
namespace {

using nlohmann::json;

enum class SaxStop { kNone, kDepth, kValues };

// "line:column" (1-based, in bytes) of the byte at 1-based position `position`.
std::string line_column(const std::string& text, std::size_t position) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < text.size() && i + 1 < position; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return fmt::format("{}:{}", line, column);
}

// Builds the DOM from nlohmann's SAX events, as its own DOM parser does, and in the same pass
// rejects a repeated key (nlohmann would keep the last value silently: {"limit": 5, "limit":
// 500}), stops at the depth and value bounds, and keeps the JSON path of the value being parsed
// for messages. Its stack is bounded by kMaxJsonDepth, its DOM by kMaxJsonValues.
class ScenarioSax {
 public:
  explicit ScenarioSax(const std::string& file) : file_(file) {}

  bool null() { return add(nullptr) != nullptr; }
  bool boolean(bool value) { return add(value) != nullptr; }
  bool number_integer(json::number_integer_t value) { return add(value) != nullptr; }
  bool number_unsigned(json::number_unsigned_t value) { return add(value) != nullptr; }
  bool number_float(json::number_float_t value, const json::string_t& /*text*/) {
    return add(value) != nullptr;
  }
  bool string(json::string_t& value) { return add(std::move(value)) != nullptr; }
  bool binary(json::binary_t& /*value*/) { return false; }  // never produced from JSON text
  bool start_object(std::size_t /*size*/) { return open(json::value_t::object); }
  bool start_array(std::size_t /*size*/) { return open(json::value_t::array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(json::string_t& name) {
    Frame& frame = frames_.back();
    frame.key = name;
    if (frame.container->contains(name))
      throw ScenarioError(scenario_error_message(
          file_, path(), "duplicate field (a JSON object must not repeat a key)"));
    return true;
  }

  bool parse_error(std::size_t position, const std::string& token,
                   const nlohmann::detail::exception& error) {
    error_position_ = position;
    error_token_ = token;
    error_id_ = error.id;
    error_text_ = error.what();
    error_path_ = path();
    return false;
  }

  json& root() { return root_; }
  SaxStop limit() const { return limit_; }
  std::size_t error_position() const { return error_position_; }
  const std::string& error_token() const { return error_token_; }
  int error_id() const { return error_id_; }
  const std::string& error_text() const { return error_text_; }
  const std::string& error_path() const { return error_path_; }

 private:
  struct Frame {
    json* container = nullptr;
    std::string key;  // objects: the key of the member being parsed
  };

  // Places a value in the container being parsed (or as the root); nullptr past kMaxJsonValues.
  template <typename Value>
  json* add(Value&& value) {
    if (++values_ > kMaxJsonValues) {
      limit_ = SaxStop::kValues;
      return nullptr;
    }
    if (frames_.empty()) {
      root_ = json(std::forward<Value>(value));
      return &root_;
    }
    Frame& top = frames_.back();
    if (top.container->is_array()) {
      top.container->push_back(json(std::forward<Value>(value)));
      return &top.container->back();
    }
    return &((*top.container)[top.key] = json(std::forward<Value>(value)));
  }

  bool open(json::value_t type) {
    if (frames_.size() >= kMaxJsonDepth) {
      limit_ = SaxStop::kDepth;
      return false;
    }
    json* container = add(type);
    if (container == nullptr) return false;
    frames_.push_back(Frame{container, {}});
    return true;
  }

  bool close() {
    frames_.pop_back();
    return true;
  }

  // The path of the value being parsed, in the loader's notation: limits[0].limit. An array's
  // element is the one being added (its size), or for an enclosing array the one still open.
  std::string path() const {
    std::string out;
    for (std::size_t i = 0; i < frames_.size(); ++i) {
      const json& container = *frames_[i].container;
      if (container.is_array()) {
        const bool open_child = i + 1 < frames_.size();
        out += fmt::format("[{}]", container.size() - (open_child ? 1 : 0));
      } else {
        out += (out.empty() ? "" : ".") + frames_[i].key;
      }
    }
    return out;
  }

  const std::string& file_;
  json root_;
  std::vector<Frame> frames_;
  std::size_t values_ = 0;
  SaxStop limit_ = SaxStop::kNone;
  std::size_t error_position_ = 0;
  std::string error_token_;
  int error_id_ = 0;
  std::string error_text_;
  std::string error_path_;
};

// The byte offset (0-based) where ScenarioSax stopped at `limit`: the bracket that opened one
// level too many, or the start of value kMaxJsonValues + 1. The SAX events carry no position,
// so this reads the text again up to that point, which parsed without error, counting as the
// parser does: strings, comments, and keys (not values) after '{' and ',' inside an object.
std::size_t limit_offset(const std::string& text, SaxStop limit) {
  std::vector<bool> in_object;  // one entry per open container, at most kMaxJsonDepth + 1
  bool expect_key = false;
  std::size_t values = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '/' && i + 1 < text.size() && (text[i + 1] == '/' || text[i + 1] == '*')) {
      const bool line = text[i + 1] == '/';
      const std::size_t end = text.find(line ? "\n" : "*/", i + 2);
      if (end == std::string::npos) break;
      i = end + (line ? 0 : 1);
    } else if (c == ':') {
      expect_key = false;
    } else if (c == ',') {
      expect_key = !in_object.empty() && in_object.back();
    } else if (c == '}' || c == ']') {
      if (!in_object.empty()) in_object.pop_back();
      expect_key = false;
    } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      const std::size_t start = i;
      if (c == '"') {
        for (++i; i < text.size() && text[i] != '"'; ++i) i += text[i] == '\\' ? 1 : 0;
        if (expect_key) continue;
      } else if (c != '{' && c != '[') {
        while (i + 1 < text.size() &&
               (std::isalnum(static_cast<unsigned char>(text[i + 1])) || text[i + 1] == '+' ||
                text[i + 1] == '-' || text[i + 1] == '.'))
          ++i;
      }
      if (++values > kMaxJsonValues && limit == SaxStop::kValues) return start;
      if (c == '{' || c == '[') {
        in_object.push_back(c == '{');
        expect_key = c == '{';
        if (in_object.size() > kMaxJsonDepth) {
          if (limit == SaxStop::kDepth) return start;
          break;
        }
      }
    }
  }
  return text.size();
}

// nlohmann's message without its "[json.exception.parse_error.N] parse error at line L, column
// C: " prefix: the position is given as line:column already.
std::string error_detail(const std::string& what) {
  const auto colon = what.find(": ");
  if (colon != std::string::npos) return what.substr(colon + 2);
  const auto bracket = what.find("] ");
  return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

}  // namespace

json parse_scenario_json(const std::string& text, const std::string& file) {
  ScenarioSax sax(file);
  if (json::sax_parse(text, &sax, json::input_format_t::json, true, /*ignore_comments=*/true))
    return std::move(sax.root());
  if (sax.limit() != SaxStop::kNone) {
    const std::size_t offset = limit_offset(text, sax.limit());
    const std::string where = fmt::format("{}:{}", file, line_column(text, offset + 1));
    if (sax.limit() == SaxStop::kDepth)
      throw ScenarioError(
          fmt::format("{}: arrays and objects nested deeper than {} levels", where, kMaxJsonDepth));
    throw ScenarioError(
        fmt::format("{}: more than {} values (numbers, strings, arrays, objects...) in one file",
                    where, kMaxJsonValues));
  }
  if (sax.error_id() == 406) {
    // A number beyond a double's range ("1e400"): nlohmann reports it as out_of_range.406 once
    // the number is read, so its first byte is the token's length back from there.
    const std::size_t start = sax.error_position() + 1 - sax.error_token().size();
    const std::string where = fmt::format("{}:{}", file, line_column(text, start));
    throw ScenarioError(scenario_error_message(
        where, sax.error_path(),
        fmt::format("number out of range (beyond a double's 1.8e308): {}", sax.error_token())));
  }
  throw ScenarioError(fmt::format("{}:{}: syntax error: {}", file,
                                  line_column(text, sax.error_position()),
                                  error_detail(sax.error_text())));
}

}  // namespace rlsim
