#pragma once
// The path syntax of `--set PATH=VALUE` on a scenario's JSON document (docs/cli.md): below the
// command line so that a front end that changes a scenario field by path (`rlsim search`'s goal
// seeking, src/search/) shares it; app/scenario_settings.h parses the options around it.
#include <nlohmann/json.hpp>
#include <string>

namespace rlsim {

// Sets the field at `path` ("instances.count", "strategies[1].batch", "redis.rtt.p50") of the
// scenario document to `value`, creating missing object fields; a strategy given as a bare name
// ("local_budget") becomes {"name": "local_budget"} first. Throws ScenarioError naming the path.
void apply_setting(nlohmann::ordered_json& scenario, const std::string& path,
                   const nlohmann::ordered_json& value);

}  // namespace rlsim
