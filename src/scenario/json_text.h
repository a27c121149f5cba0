#pragma once
// Scenario text to JSON, before any field is read: standard JSON plus `//` and `/* */` comments,
// every key once per object, numbers within a double's range, and bounds on nesting and on the
// number of values, so that memory follows the file's size whatever the file holds.
#include <nlohmann/json.hpp>
#include <string>

namespace rlsim {

// The deepest nesting of arrays and objects a scenario may have (the bundled ones reach 4), and
// the most values (numbers, strings, booleans, nulls, arrays, objects; keys not counted) in one
// file (the largest bounded lists together hold under 40,000).
inline constexpr std::size_t kMaxJsonDepth = 32;
inline constexpr std::size_t kMaxJsonValues = 100'000;

// The JSON of scenario text, or a ScenarioError naming `file`: a syntax error, a value too deeply
// nested or one too many, and a number out of range at "<file>:<line>:<column>" (1-based, in
// bytes, comments counted), a repeated key at its JSON path.
nlohmann::json parse_scenario_json(const std::string& text, const std::string& file);

}  // namespace rlsim
