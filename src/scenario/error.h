#pragma once
// The loader's one error type and its message form, apart from load.h so that the loader's
// sections (reader.h, load_clocks.cpp, faults.cpp, ...) can throw it without including the loader.
#include <stdexcept>
#include <string>

#include "core/terminal_text.h"

namespace rlsim {

// A mistake in the user's input (a scenario file, a command-line value), with a message naming
// where it is and what was expected. The message quotes what the user wrote, so its control
// characters are escaped here, once for every message (core/terminal_text.h): it is printed on
// a terminal and must stay one line.
class ScenarioError : public std::runtime_error {
 public:
  explicit ScenarioError(const std::string& message)
      : std::runtime_error(escape_controls(message)) {}
};

// Builds the one-line message "<file>: <json path>: <what was expected>" ("<file>: <what>" when
// the path is empty, for the whole file).
std::string scenario_error_message(const std::string& file, const std::string& json_path,
                                   const std::string& message);

}  // namespace rlsim
