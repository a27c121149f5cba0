#pragma once
// Watching a run as it happens (`rlsim run --live`, docs/cli.md#live-mode), and a progress line on
// stderr for long ordinary runs. Both drive StrategySession (engine/run.h) in steps of virtual
// time; only this layer looks at the wall clock, and only to decide when to take the next step, so
// the results (and the report files) are exactly those of an ordinary run.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/run.h"

namespace rlsim {

struct LiveOptions {
  double speed = 1.0;     // virtual seconds per wall-clock second
  bool dashboard = true;  // redraw a terminal dashboard; false: plain progress lines on stdout
  bool color = true;
  // Read p (pause), s (to the end of the window), h (hide/reveal the figures), + / - (speed), q
  // (skip to the end) from stdin.
  bool keys = true;
  TimeUs pause_at_us = -1;  // --pause-at: run to this virtual time at once, then pause (-1: no)
};

constexpr double kMaxLiveSpeed = 1e9;

// Runs every strategy in lockstep, paced so that virtual time advances `speed` times as fast as
// wall time, showing the dashboard (or progress lines); returns each strategy's result.
std::vector<StrategyResult> run_live(const Scenario& scenario,
                                     const std::vector<ResolvedStrategy>& strategies,
                                     std::uint64_t seed, const LiveOptions& options);

// Runs the strategies one after the other as fast as possible, redrawing one progress line on
// stderr (meant for a terminal) as virtual time passes; clears it at the end.
std::vector<StrategyResult> run_with_progress(const Scenario& scenario,
                                              const std::vector<ResolvedStrategy>& strategies,
                                              std::uint64_t seed);

// Plain lines for the same state (no terminal, or NO_COLOR): the virtual time, then one line per
// strategy, so that each fits 120 columns.
std::string live_progress_line(const Scenario& scenario,
                               const std::vector<const StrategySession*>& sessions);

}  // namespace rlsim
