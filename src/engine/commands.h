#pragma once
// Helpers shared by the commands (run, check, sweep, conformance).
#include <cstdint>
#include <string>
#include <vector>

#include "engine/run.h"

namespace rlsim {

// `text` quoted for a POSIX shell when it holds anything but safe characters, so that printed
// commands can be pasted back.
std::string shell_quote(const std::string& text);

// The strategies whose labels are in `labels`, in the order given; all of `strategies` when
// `labels` is empty. Throws ScenarioError for a label the scenario does not have or a label given
// twice (running a strategy twice under one label would make two report entries with one name).
std::vector<ResolvedStrategy> select_strategies(const std::vector<ResolvedStrategy>& strategies,
                                                const std::vector<std::string>& labels,
                                                const std::string& file);

// Runs one strategy; with `twice`, runs it a second time and compares the decision digests and
// the strategy's JSON report byte for byte. `divergence` is set to "" when they agree, else to a
// sentence naming the first difference (see first_divergence). Throws RunError like run_strategy.
StrategyResult run_strategy_checked(const Scenario& scenario, const ResolvedStrategy& strategy,
                                    std::uint64_t seed, bool twice, std::string& divergence);

// Where two runs of one strategy first differ: the first digest checkpoint interval whose digest
// differs ("decisions 8192..12287, virtual time 61.2 s .. 67.0 s"), the decision count, or, when
// every decision agrees, the first report field that differs. "" when they are identical.
std::string first_divergence(const Scenario& scenario, const StrategyResult& a,
                             const StrategyResult& b);

// Fills result.partial when one of its strategies was stopped early (Ctrl-C, app/interrupt.h) or
// one of `planned` did not run: the reason, the virtual time of the (first) cut, the strategy that
// was cut ("strategy"; or "strategies" when several were, as in live mode and with --seeds) and
// the labels of `planned` that did not run. A strategy during which the real Redis was lost
// (StrategyResult::redis_lost) is removed from the results and counted as not run, and the loss
// is the reason. Leaves it null otherwise.
void mark_partial(RunResult& result, const std::vector<ResolvedStrategy>& planned);

// One strategy's object of the JSON report, as report_json renders it.
nlohmann::ordered_json strategy_report(const Scenario& scenario, std::uint64_t seed,
                                       const StrategyResult& result);

}  // namespace rlsim
