#pragma once
// Reading and validating scenario files. Every user mistake becomes a ScenarioError naming the
// file, the JSON path and what was expected; nothing is silently defaulted.
#include <stdexcept>
#include <string>

#include "scenario/model.h"

namespace rlsim {

class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Builds the one-line message "<file>: <json path>: <what was expected>".
std::string scenario_error_message(const std::string& file, const std::string& json_path,
                                   const std::string& message);

// Parses and validates scenario text. `file` is used only in messages. Throws ScenarioError.
Scenario parse_scenario(const std::string& text, const std::string& file);

// Reads `path` and parses it. Throws ScenarioError (also when the file cannot be read).
Scenario load_scenario(const std::string& path);

}  // namespace rlsim
