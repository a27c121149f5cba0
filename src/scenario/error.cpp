#include "scenario/error.h"

#include <fmt/format.h>

namespace rlsim {

std::string scenario_error_message(const std::string& file, const std::string& json_path,
                                   const std::string& message) {
  return json_path.empty() ? fmt::format("{}: {}", file, message)
                           : fmt::format("{}: {}: {}", file, json_path, message);
}

}  // namespace rlsim
