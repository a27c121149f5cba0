#include "scenario/setting_path.h"

#include <fmt/format.h>

#include "scenario/error.h"
#include "scenario/load.h"

namespace rlsim {

using nlohmann::ordered_json;

namespace {

std::string type_name(const ordered_json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return fmt::format("an array of {} entries", value.size());
  if (value.is_string()) return "a string";
  return "a " + std::string(value.type_name());
}

}  // namespace

void apply_setting(ordered_json& scenario, const std::string& path, const ordered_json& value) {
  const auto steps = parse_metric_path(path);
  if (!steps) throw ScenarioError(fmt::format("--set {}: not a path", path));
  ordered_json* node = &scenario;
  std::string walked;
  for (std::size_t i = 0; i < steps->size(); ++i) {
    const MetricStep& step = (*steps)[i];
    const bool last = i + 1 == steps->size();
    const std::string where = walked.empty() ? "the scenario" : walked;
    if (step.is_index) {
      if (!node->is_array())
        throw ScenarioError(
            fmt::format("--set {}: {} is {}, not an array", path, where, type_name(*node)));
      if (step.index >= node->size())
        throw ScenarioError(fmt::format("--set {}: {} has {} entries, no [{}]", path, where,
                                        node->size(), step.index));
      node = &(*node)[step.index];
      walked += fmt::format("[{}]", step.index);
    } else {
      // A strategy entry may be a bare name; a field set on it needs the object form.
      if (node->is_string() && walked.rfind("strategies[", 0) == 0 &&
          walked.find('.') == std::string::npos)
        *node = ordered_json{{"name", node->get<std::string>()}};
      if (!node->is_object())
        throw ScenarioError(
            fmt::format("--set {}: {} is {}, not an object", path, where, type_name(*node)));
      if (!last && !node->contains(step.name)) (*node)[step.name] = ordered_json::object();
      node = &(*node)[step.name];
      walked += (walked.empty() ? "" : ".") + step.name;
    }
  }
  *node = value;
}

}  // namespace rlsim
