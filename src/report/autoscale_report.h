#pragma once
// What `instances.autoscale` decided in each strategy's run (docs/autoscaling.md): the JSON
// report's `autoscale` object and the report's note lines, one per strategy with every sync that
// changed the replica count, its metric, target and reason.
#include <nlohmann/json.hpp>
#include <string>

#include "report/results.h"

namespace rlsim {

// The strategy's `autoscale` object: the settings it ran with, the most replicas it chose and
// the most instances running at once, and every sync's decision.
nlohmann::ordered_json autoscale_json(const StrategyResult& result, const Scenario& scenario);

// One line per strategy run with an autoscaler ("" without one).
std::string autoscale_notes(const RunResult& result);

// The HTML report's "Autoscaler" section: a table of the syncs that changed the replica count,
// per strategy ("" without an autoscaler).
std::string autoscale_html(const RunResult& result);

}  // namespace rlsim
