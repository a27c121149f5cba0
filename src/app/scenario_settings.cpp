#include "app/scenario_settings.h"

#include <fmt/format.h>

#include "core/file_text.h"
#include "engine/commands.h"
#include "scenario/error.h"
#include "scenario/load.h"
#include "scenario/load_replay.h"

namespace rlsim {

using nlohmann::ordered_json;

SweepParameter parse_set(const std::string& text) {
  const auto equals = text.find('=');
  if (equals == std::string::npos || equals == 0)
    throw ScenarioError(
        fmt::format("--set {}: expected PATH=V1,V2,... (e.g. instances.count=2,5)", text));
  SweepParameter parameter;
  parameter.path = text.substr(0, equals);
  if (!parse_metric_path(parameter.path))
    throw ScenarioError(
        fmt::format("--set {}: \"{}\" is not a path (field names separated by '.', indexes as [N])",
                    text, parameter.path));
  const std::string list = text.substr(equals + 1);
  std::size_t from = 0;
  while (true) {
    const auto comma = list.find(',', from);
    const std::string item =
        list.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    if (item.empty())
      throw ScenarioError(fmt::format("--set {}: an empty value in the list", text));
    ordered_json value = ordered_json::parse(item, nullptr, false);
    if (value.is_discarded() || value.is_object() || value.is_array()) value = item;
    parameter.values.push_back(std::move(value));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  return parameter;
}

std::vector<SweepParameter> parse_sets(const std::vector<std::string>& sets) {
  std::vector<SweepParameter> parameters;
  for (const auto& text : sets) {
    parameters.push_back(parse_set(text));
    for (const auto& earlier : parameters)
      if (&earlier != &parameters.back() && earlier.path == parameters.back().path)
        throw ScenarioError(fmt::format("--set {}: this path is given twice", earlier.path));
  }
  return parameters;
}

std::string setting_value_text(const ordered_json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::string setting_text(const ScenarioSetting& setting) {
  return setting.path + "=" + setting_value_text(setting.value);
}

Scenario scenario_with_settings(const ordered_json& document, const std::string& path,
                                const std::vector<ScenarioSetting>& settings) {
  ordered_json changed = document;
  std::vector<std::string> texts;
  std::string joined;
  for (const ScenarioSetting& setting : settings) {
    apply_setting(changed, setting.path, setting.value);
    texts.push_back(setting_text(setting));
    joined += (joined.empty() ? "" : " ") + texts.back();
  }
  // Messages name the file and the settings that made the variant ("x.json with --set ...").
  Scenario scenario = parse_scenario(changed.dump(), path + " with --set " + joined);
  scenario.file = path;                           // scripts resolve from the scenario's folder
  scenario.open_log = scenario_log_opener(path);  // so do replayed logs
  scenario.settings = std::move(texts);
  return scenario;
}

std::vector<ScenarioSetting> parse_settings(const std::vector<std::string>& sets) {
  std::vector<ScenarioSetting> settings;
  for (const SweepParameter& parameter : parse_sets(sets)) {
    if (parameter.values.size() != 1)
      throw ScenarioError(
          fmt::format("--set {}: {} values; give one (rlsim sweep runs a list of values)",
                      parameter.path, parameter.values.size()));
    settings.push_back({parameter.path, parameter.values.front()});
  }
  return settings;
}

Scenario load_scenario_with(const std::string& path, const std::vector<ScenarioSetting>& settings) {
  Scenario scenario = load_scenario(path);
  if (settings.empty()) return scenario;
  // The same text again, as JSON in its own key order (load_scenario checked it); comments are
  // allowed as in load_scenario, and dropped.
  const ordered_json document = ordered_json::parse(
      read_regular_file(path, kMaxScenarioFileBytes).text, nullptr, true, /*ignore_comments=*/true);
  return scenario_with_settings(document, path, settings);
}

std::string settings_options(const Scenario& scenario) {
  std::string out;
  for (const auto& setting : scenario.settings) out += " --set " + shell_quote(setting);
  return out;
}

}  // namespace rlsim
