#include "app/json_file.h"

#include <fmt/format.h>

#include "core/file_text.h"
#include "scenario/error.h"

namespace rlsim {

nlohmann::ordered_json read_json_file(const std::string& path, std::size_t max_bytes,
                                      const std::string& what) {
  const FileText file = read_regular_file(path, max_bytes);
  if (!file.error.empty())
    throw ScenarioError(fmt::format("{}: {}: cannot read the file: {}", what, path, file.error));
  // The parser calls back at every value with its depth: stopping at the bound keeps 16 MiB of
  // '[' from becoming gigabytes of nested arrays.
  const auto bounded = [](int depth, nlohmann::ordered_json::parse_event_t,
                          nlohmann::ordered_json&) {
    if (static_cast<std::size_t>(depth) > kMaxJsonFileDepth)
      throw std::length_error("nested more than " + std::to_string(kMaxJsonFileDepth) + " deep");
    return true;
  };
  try {
    return nlohmann::ordered_json::parse(file.text, bounded);
  } catch (const nlohmann::ordered_json::parse_error& error) {
    throw ScenarioError(fmt::format("{}: {}: not JSON: {}", what, path, error.what()));
  } catch (const std::length_error& error) {
    throw ScenarioError(fmt::format("{}: {}: {}", what, path, error.what()));
  }
}

}  // namespace rlsim
