#pragma once
// Reading and validating scenario files. Every user mistake becomes a ScenarioError naming the
// file, the JSON path and what was expected; nothing is silently defaulted.
#include <optional>
#include <string>
#include <vector>

#include "scenario/error.h"
#include "scenario/model.h"

namespace rlsim {

// One step of a metric path (`expect[].metric`, docs/scenario-format.md#expect): a field name (on
// an array: the element whose "name" field equals it) or an array index.
struct MetricStep {
  std::string name;
  std::size_t index = 0;
  bool is_index = false;
};

// Splits "limits[0].excess" or "limits.per_user.excess" into steps: names from [A-Za-z0-9_-]
// separated by '.', each followed by any number of [N]. nullopt when malformed.
std::optional<std::vector<MetricStep>> parse_metric_path(const std::string& path);

// The largest scenario file load_scenario reads.
inline constexpr std::size_t kMaxScenarioFileBytes = 16 * 1024 * 1024;

// Parses and validates scenario text (JSON with comments: scenario/json_text.h). `file` is used
// only in messages. Throws ScenarioError.
Scenario parse_scenario(const std::string& text, const std::string& file);

// Reads `path` and parses it. Throws ScenarioError (also when the file cannot be read, is not a
// regular file or is larger than kMaxScenarioFileBytes).
Scenario load_scenario(const std::string& path);

}  // namespace rlsim
