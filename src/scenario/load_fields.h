#pragma once
// Small field readers for the loader parts that live outside load.cpp (load_clocks.cpp,
// load_regions.cpp): the same messages as load.cpp's ObjectReader, "<file>: <path>: <what>".
#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

#include "scenario/load.h"

namespace rlsim::load_fields {

using nlohmann::json;

[[noreturn]] inline void fail(const std::string& file, const std::string& path,
                              const std::string& message) {
  throw ScenarioError(scenario_error_message(file, path, message));
}

// Rejects any field of `object` not in `known`; requires an object.
inline void check_fields(const json& object, const std::string& path, const std::string& file,
                         std::initializer_list<const char*> known) {
  if (!object.is_object()) fail(file, path, "expected an object");
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (std::none_of(known.begin(), known.end(), [&](const char* k) { return it.key() == k; })) {
      std::string names;
      for (const char* k : known) names += (names.empty() ? "" : ", ") + std::string(k);
      fail(file, path + "." + it.key(), fmt::format("unknown field (expected one of: {})", names));
    }
  }
}

inline DurationUs duration(const json& value, const std::string& path, const std::string& file,
                           DurationUs min_us, DurationUs max_us, bool allow_negative) {
  const auto parsed =
      value.is_string() ? parse_duration(value.get<std::string>(), allow_negative) : std::nullopt;
  if (!parsed) {
    fail(file, path,
         fmt::format("expected a duration such as \"50ms\", \"1.5s\"{}, got {}",
                     allow_negative ? " (may be negative)" : "", value.dump()));
  }
  if (*parsed < min_us || *parsed > max_us) {
    fail(file, path,
         fmt::format("expected a duration from {} to {}, got {}", format_duration(min_us),
                     format_duration(max_us), value.dump()));
  }
  return *parsed;
}

inline const json& required(const json& object, const char* key, const std::string& path,
                            const std::string& file) {
  const auto it = object.find(key);
  if (it == object.end()) fail(file, path + "." + key, "required field is missing");
  return *it;
}

}  // namespace rlsim::load_fields
