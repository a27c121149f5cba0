#pragma once
// The screen of `rlsim run --live` (docs/cli.md#live-mode): what a room watching the run should
// see. A banner while a fault of the scenario is active; per strategy, the current window of the
// first limit (a bar of the most admitted for one key on a scale fixed for the whole run, that
// key's admissions per instance, the window's errors, timeouts, fallbacks, p99 added latency and
// Redis calls per request), the strategy's own lesson counters and the autoscaler's choice. Pure
// functions of the sessions' state, so the same state gives the same screen.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/histogram.h"
#include "engine/run.h"
#include "oracle/observer.h"

namespace rlsim {

// "2m13.4s", "45.0s", "1h2m3.0s": virtual time as the live view and the progress line show it.
std::string live_clock_text(TimeUs us);

// Counts one strategy run's decisions in the current window of the scenario's first limit (by
// decision time, as the oracle's series). Add it to its session (StrategySession::add_observer);
// it reads the session's Redis counters when a window starts, and must outlive nothing else.
class LiveWindowWatch final : public DecisionObserver {
 public:
  struct KeyCounts {
    std::int64_t admitted = 0;
    std::vector<std::int64_t> by_instance;  // admitted, indexed by instance id
  };
  struct Window {
    std::int64_t index = -1;  // aligned window index (oracle.h's aligned_window) of Unix time
    std::int64_t decisions = 0, admitted = 0, errors = 0, fallbacks = 0, lost = 0;
    std::uint64_t calls_at_start = 0, timeouts_at_start = 0;  // the session's Redis counts
    Histogram latency_us;            // added latency (decision time - arrival time)
    std::uint64_t top_key = 0;       // the key admitted most so far (the first to reach it)
    std::int64_t top_admitted = -1;  // -1: none admitted yet
    std::unordered_map<std::uint64_t, KeyCounts> keys;
  };

  LiveWindowWatch(const Scenario& scenario, const StrategySession& session);
  void on_decided(const DecidedRequest& decided) override;
  // The window being counted (possibly one before the current time's, when no decision fell in
  // the current one yet).
  const Window& window() const { return window_; }
  const StrategySession& session() const { return session_; }

 private:
  const Limit& limit_;
  const StrategySession& session_;
  Window window_;
};

// How the screen is drawn: its size, the pacing shown in the title, and the keys' state.
struct LiveScreen {
  int columns = 120;
  int rows = 35;
  double speed = 1;
  bool paused = false;
  bool hidden = false;  // the predict-then-reveal key: figures hidden until pressed again
  bool color = false;
};

// The top of the bars, fixed for the whole run: at least 1.25 x the first limit, else the most
// one key may be offered in a window (the traffic's peak rates; the limit times the most
// instances the run can have when a group replays a log), rounded up to 1, 2, 2.5 or 5 x 10^k.
std::int64_t live_bar_scale(const Scenario& scenario);

// One line per fault of the scenario active at virtual time `now_us` ("Redis down (black hole:
// ...) from 3m to 3m20s, 10.0s left"): a timed fault during [at, at + for), a lasting clock fault
// for one window of the first limit after it.
std::vector<std::string> live_banner(const Scenario& scenario, TimeUs now_us);

// The screen, at most `screen.rows` lines (without a final newline) of at most `screen.columns`
// columns: when it does not fit, the least needed rows go first (per-instance figures, the
// autoscaler and lesson lines, blank lines), and a line too long is cut, never wrapped.
std::string live_dashboard(const Scenario& scenario,
                           const std::vector<const LiveWindowWatch*>& strategies,
                           const LiveScreen& screen);

}  // namespace rlsim
