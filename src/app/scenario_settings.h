#pragma once
// `--set PATH=...`: a scenario file with some fields changed on the command line. `rlsim sweep`
// takes a list of values per path (its grid, app/sweep.h); run, check and validate take one value
// each, with the same syntax and path checks.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/model.h"
#include "scenario/setting_path.h"

namespace rlsim {

// One --set: a JSON path into the scenario file and the values it takes, in order.
struct SweepParameter {
  std::string path;
  std::vector<nlohmann::ordered_json> values;
};

// Parses "instances.count=2,5,10". Values are JSON where they parse as JSON (numbers, true,
// false, null, "quoted"), else strings ("10ms"). Throws ScenarioError ("--set X: ...").
SweepParameter parse_set(const std::string& text);

// Parses every --set (parse_set), each path given once. Throws ScenarioError naming the option.
std::vector<SweepParameter> parse_sets(const std::vector<std::string>& sets);

// One changed field: a JSON path into the scenario file and its new value.
struct ScenarioSetting {
  std::string path;              // "instances.count"
  nlohmann::ordered_json value;  // 25
};

// A value as --set takes it: a string bare ("10ms"), anything else as its JSON ("25", "[]").
std::string setting_value_text(const nlohmann::ordered_json& value);

// "instances.count=25": one setting as --set takes it.
std::string setting_text(const ScenarioSetting& setting);

// The scenario `document` (the JSON of the file at `path`) with `settings` applied in order,
// parsed and checked as load_scenario checks a file; messages name "PATH with --set ...". The
// scenario keeps `path` as its file (scripts resolve from its folder) and lists the settings in
// Scenario::settings. Throws ScenarioError.
Scenario scenario_with_settings(const nlohmann::ordered_json& document, const std::string& path,
                                const std::vector<ScenarioSetting>& settings);

// run, check and validate's --set options: sweep's syntax, one value each (a list is sweep's),
// each path once. Throws ScenarioError naming the option.
std::vector<ScenarioSetting> parse_settings(const std::vector<std::string>& sets);

// The file at `path` with `settings` applied; exactly load_scenario(path) when there are none.
// The file's own errors come first, as load_scenario words them. Throws ScenarioError.
Scenario load_scenario_with(const std::string& path, const std::vector<ScenarioSetting>& settings);

// " --set 'a=1' --set b=2": the scenario's settings as options to paste into a command ("" when
// it has none).
std::string settings_options(const Scenario& scenario);

}  // namespace rlsim
