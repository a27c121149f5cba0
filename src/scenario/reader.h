#pragma once
// ObjectReader: reads one JSON object of a scenario field by field, tracking the JSON path for
// messages and rejecting fields it was never asked about. Every section of the loader reads
// through it (scenario/load.cpp, load_clocks.cpp, load_regions.cpp, faults.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "core/time.h"
#include "scenario/error.h"

namespace rlsim {

inline const char* json_type_name(const nlohmann::json& value) {
  if (value.is_number_integer()) return "an integer";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  return "null";
}

// Names: the scenario's (also its report folder, reports/<name>/), the limits', the traffic
// groups', the strategy labels and the regions'. One character set for all of them, so that a name
// is a safe file name (never "." or "..", never a hidden file, never a path) and prints as it is in
// a terminal, HTML and SVG. The bundled scenarios' names all fit.
inline constexpr std::size_t kMaxNameLength = 64;
inline constexpr const char* kNameRule =
    "1 to 64 characters from [A-Za-z0-9_.-], not starting with '.'";

inline bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength || name.front() == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

// Reads one JSON object field by field, tracking the JSON path for messages, and rejects fields it
// was never asked about (a misspelt field must not become a silent default).
class ObjectReader {
 public:
  using json = nlohmann::json;

  ObjectReader(const json& object, std::string path, const std::string& file)
      : object_(object), path_(std::move(path)), file_(file) {
    if (!object_.is_object())
      fail(path_, fmt::format("expected an object, got {}", json_type_name(object_)));
  }

  // For an object whose fields are all named up front (`fields`, in the order messages list
  // them): a value that is no object, or a field not among `fields`, fails here, before any field
  // is read. The clock and region sections read this way (their messages say "expected an object"
  // and list the fields in this order).
  ObjectReader(const json& object, std::string path, const std::string& file,
               std::initializer_list<const char*> fields)
      : object_(object), path_(std::move(path)), file_(file), known_(fields.begin(), fields.end()) {
    if (!object_.is_object()) fail(path_, "expected an object");
    for (auto it = object_.begin(); it != object_.end(); ++it) {
      if (std::find(fields.begin(), fields.end(), it.key()) == fields.end()) {
        std::string names;
        for (const char* k : fields) names += (names.empty() ? "" : ", ") + std::string(k);
        fail(path_of(it.key()), fmt::format("unknown field (expected one of: {})", names));
      }
    }
  }

  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw ScenarioError(scenario_error_message(file_, path, message));
  }
  std::string path_of(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }
  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }

  const json* find(const std::string& key) {
    known_.insert(key);
    auto it = object_.find(key);
    return it == object_.end() ? nullptr : &*it;
  }
  const json& require(const std::string& key) {
    const json* value = find(key);
    if (value == nullptr) fail(path_of(key), "required field is missing");
    return *value;
  }

  std::string string_field(const std::string& key, const std::string* fallback) {
    const json* value = fallback ? find(key) : &require(key);
    if (value == nullptr) return *fallback;
    if (!value->is_string())
      fail(path_of(key), fmt::format("expected a string, got {}", json_type_name(*value)));
    return value->get<std::string>();
  }

  // A name (see valid_name) at `path`.
  const std::string& check_name(const std::string& name, const std::string& path) const {
    if (!valid_name(name)) fail(path, fmt::format("expected {}, got \"{}\"", kNameRule, name));
    return name;
  }
  // The field `key` as a name: a string that valid_name accepts.
  std::string name_field(const std::string& key, const std::string* fallback) {
    return check_name(string_field(key, fallback), path_of(key));
  }
  // As name_field for a field whose value is not necessarily a string (its type is named).
  std::string name_value(const json& value, const std::string& path) const {
    if (!value.is_string())
      fail(path, fmt::format("expected a name ({}), got {}", kNameRule, json_type_name(value)));
    return check_name(value.get<std::string>(), path);
  }

  std::int64_t int_field(const std::string& key, const std::int64_t* fallback, std::int64_t min,
                         std::int64_t max) {
    const json* value = fallback ? find(key) : &require(key);
    if (value == nullptr) return *fallback;
    return check_int(*value, path_of(key), min, max);
  }

  std::int64_t check_int(const json& value, const std::string& path, std::int64_t min,
                         std::int64_t max) const {
    if (!value.is_number_integer())
      fail(path, fmt::format("expected an integer, got {}", json_type_name(value)));
    if (value.is_number_unsigned() &&
        value.get<std::uint64_t>() > static_cast<std::uint64_t>(max)) {
      fail(path, fmt::format("expected an integer from {} to {}, got {}", min, max,
                             value.get<std::uint64_t>()));
    }
    const auto number = value.get<std::int64_t>();
    if (number < min || number > max)
      fail(path, fmt::format("expected an integer from {} to {}, got {}", min, max, number));
    return number;
  }

  DurationUs duration_field(const std::string& key, const DurationUs* fallback, DurationUs min_us,
                            DurationUs max_us, bool allow_negative = false) {
    const json* value = fallback ? find(key) : &require(key);
    if (value == nullptr) return *fallback;
    return check_duration(*value, path_of(key), min_us, max_us, allow_negative);
  }

  DurationUs check_duration(const json& value, const std::string& path, DurationUs min_us,
                            DurationUs max_us, bool allow_negative = false) const {
    if (!value.is_string()) {
      fail(path, fmt::format("expected a duration string such as {}, got {}", kDurationSpellings,
                             json_type_name(value)));
    }
    const auto text = value.get<std::string>();
    const auto parsed = parse_duration(text, allow_negative);
    if (!parsed) {
      fail(path, fmt::format("expected a duration such as {}{}, got \"{}\"", kDurationSpellings,
                             allow_negative ? " (may be negative)" : "", text));
    }
    return check_duration_range(*parsed, text, path, min_us, max_us);
  }

  // As check_duration, in the clock and region sections' wording: anything but a duration string
  // gets "expected a duration such as "50ms", "1.5s", got <the JSON value as written>".
  DurationUs check_brief_duration(const json& value, const std::string& path, DurationUs min_us,
                                  DurationUs max_us, bool allow_negative = false) const {
    const auto parsed =
        value.is_string() ? parse_duration(value.get<std::string>(), allow_negative) : std::nullopt;
    if (!parsed) {
      fail(path,
           fmt::format("expected a duration such as \"50ms\", \"1.5s\", \"1m30s\" (units h, m, "
                       "s, ms, us, largest first){}, got {}",
                       allow_negative ? " (may be negative)" : "", value.dump()));
    }
    return check_duration_range(*parsed, value.get<std::string>(), path, min_us, max_us);
  }
  // The field `key` (required) in that wording.
  DurationUs brief_duration_field(const std::string& key, DurationUs min_us, DurationUs max_us,
                                  bool allow_negative = false) {
    return check_brief_duration(require(key), path_of(key), min_us, max_us, allow_negative);
  }

  double rate_field(const std::string& key, bool required, double fallback) {
    const json* value = required ? &require(key) : find(key);
    if (value == nullptr) return fallback;
    const std::string path = path_of(key);
    if (!value->is_string())
      fail(path,
           fmt::format("expected a rate string such as \"100/s\", \"2000/m\", \"50/h\", got {}",
                       json_type_name(*value)));
    const auto text = value->get<std::string>();
    // Plain decimals only, like durations: "1e3/s" is rejected (core's parser would accept it).
    const auto number_end = text.find('/');
    const bool plain_decimal =
        text.substr(0, number_end).find_first_not_of("0123456789.-") == std::string::npos;
    const auto rate = plain_decimal ? parse_rate_per_s(text) : std::nullopt;
    if (!rate)
      fail(path, fmt::format("expected a rate such as \"100/s\", \"2000/m\", \"50/h\", got \"{}\"",
                             text));
    if (!(*rate > 0)) fail(path, fmt::format("expected a positive rate, got \"{}\"", text));
    if (*rate > 1e7)
      fail(path, fmt::format("expected a rate of at most 10000000/s, got \"{}\"", text));
    return *rate;
  }

  template <typename Enum, std::size_t N>
  Enum enum_field(const std::string& key, Enum fallback,
                  const std::pair<const char*, Enum> (&choices)[N]) {
    const std::string fallback_name = [&] {
      for (const auto& [name, e] : choices)
        if (e == fallback) return std::string(name);
      return std::string();
    }();
    const std::string text = string_field(key, &fallback_name);
    std::string names;
    for (const auto& [name, e] : choices) {
      if (text == name) return e;
      names += names.empty() ? "" : ", ";
      names += fmt::format("\"{}\"", name);
    }
    fail(path_of(key), fmt::format("expected one of {}, got \"{}\"", names, text));
  }

  const json& array_field(const std::string& key, bool required, std::size_t min_size,
                          std::size_t max_size) {
    static const json empty = json::array();
    const json* value = required ? &require(key) : find(key);
    if (value == nullptr) return empty;
    if (!value->is_array())
      fail(path_of(key), fmt::format("expected an array, got {}", json_type_name(*value)));
    if (value->size() < min_size || value->size() > max_size) {
      fail(path_of(key), fmt::format("expected from {} to {} entries, got {}", min_size, max_size,
                                     value->size()));
    }
    return *value;
  }

  // Rejects every field that no getter asked for. Call after reading all fields.
  void reject_unknown() const {
    for (auto it = object_.begin(); it != object_.end(); ++it) {
      if (!known_.count(it.key())) {
        std::string names;
        for (const auto& k : known_) names += (names.empty() ? "" : ", ") + k;
        fail(path_of(it.key()), fmt::format("unknown field (expected one of: {})", names));
      }
    }
  }

 private:
  DurationUs check_duration_range(DurationUs parsed_us, const std::string& text,
                                  const std::string& path, DurationUs min_us,
                                  DurationUs max_us) const {
    if (parsed_us < min_us || parsed_us > max_us) {
      fail(path, fmt::format("expected a duration from {} to {}, got \"{}\"",
                             format_duration(min_us), format_duration(max_us), text));
    }
    return parsed_us;
  }

  const json& object_;
  std::string path_;
  const std::string& file_;
  std::set<std::string> known_;
};

}  // namespace rlsim
