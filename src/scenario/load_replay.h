#pragma once
// A traffic group's `replay` and `instance` (docs/replay.md, docs/scenario-format.md#replay), and
// the check of each replay's log through the opener the front end gave. Kept apart from load.cpp,
// which calls these.
#include "scenario/model.h"

namespace rlsim {

class ObjectReader;

// Reads `replay` (absent: a synthetic group) and `instance` of the group `group_reader` reads
// (which rejects unknown fields afterwards). Call after the synthetic fields were read: a replay
// group refuses them.
void read_traffic_replay(ObjectReader& group_reader, TrafficGroup& group);

// Opens every replay group's log with scenario.open_log and reads its header (CSV), so that a
// missing file, a file of the wrong kind or a header without the named columns is a
// ScenarioError naming `file` and the group's path, before any run starts.
void check_replay_logs(const Scenario& scenario, const std::string& file);

// A LogOpener for regular files, names relative to the folder of the scenario file at
// `scenario_path`: what the command line uses (core/file_text.h: a named pipe or a device is
// refused without blocking).
LogOpener scenario_log_opener(const std::string& scenario_path);

}  // namespace rlsim
