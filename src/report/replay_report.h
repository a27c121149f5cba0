#pragma once
// The replay sections of the report (docs/replay.md, docs/metrics.md#replay): what each replay
// group read of its log, malformed lines with their line numbers, and production's verdicts beside
// the strategy's.
#include <nlohmann/json.hpp>
#include <string>

#include "world/results.h"

namespace rlsim {

// The strategy's "replay" object: {"groups": [...], "verdicts": {...}}.
nlohmann::ordered_json replay_json(const ReplayResult& replay);

// Terminal lines: what the groups read (`with_groups`: once per run, the same for every strategy)
// and the verdicts' agreement for strategy `label`.
std::string replay_text(const std::string& label, const ReplayResult& replay, bool with_groups);

}  // namespace rlsim
