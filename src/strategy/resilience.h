#pragma once
// Resilience policies for any Redis strategy: one Strategy decorator around the strategy's own
// decisions, never a copy per strategy (docs/resilience.md). Set per strategy entry:
//   "on_error": "fail_open" | "fail_closed" | "local_fallback"  ("allow" / "deny" are aliases of
//               the first two), what a decision does when a Redis call failed or timed out;
//   "divisor":  local_fallback's local limit is limit / divisor per window (default: the
//               scenario's initial instance count), counted per instance as in the lesson;
//   "breaker":  false, or {failures, window, cooldown, probes}: a circuit breaker per instance
//               that stops calling Redis after `failures` failed decisions within `window`.
#include <array>
#include <deque>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "strategy/breaker_spec.h"
#include "strategy/error_policy.h"
#include "strategy/strategy.h"
#include "world/results.h"

namespace rlsim {

class ParamReader;
struct StrategyInfo;

struct ResilienceSpec {
  ErrorPolicy policy = ErrorPolicy::kFailOpen;
  int divisor = 1;
  BreakerSpec breaker;
};

// The policy of a strategy entry's resolved parameters (on_error, divisor, breaker), with
// divisor 0 (the default) replaced by `initial_instances`.
ResilienceSpec resilience_spec(const ParamReader& params, int initial_instances);

// The circuit breaker's state machine, one per instance (docs/resilience.md#circuit-breaker):
// closed -> open after `failures` failures within `window`; open -> half-open after `cooldown`
// (at exactly opened + cooldown, whenever the next request comes); half-open lets `probes`
// decisions call Redis: one failure re-opens it, `probes` successes close it. Other requests in
// open and half-open go straight to the fallback. Results of calls admitted in an earlier state
// are ignored (each transition starts a new generation).
class CircuitBreaker {
 public:
  enum class State { kClosed = 0, kOpen = 1, kHalfOpen = 2 };
  enum class Admit { kCall, kProbe, kReject };
  struct Ticket {
    Admit admit = Admit::kCall;
    std::uint64_t generation = 0;
  };
  struct Transition {
    TimeUs at_us;
    State from, to;
  };

  CircuitBreaker(const BreakerSpec& spec, TimeUs now_us);

  // Whether a decision starting now calls Redis (kCall, kProbe) or goes to the fallback.
  Ticket admit(TimeUs now_us);
  // The outcome of a decision admitted with `ticket`: `failed` when a Redis call failed.
  void on_result(const Ticket& ticket, bool failed, TimeUs now_us);

  State state() const { return state_; }
  // Time spent in each state from construction to `now_us` (the current state counts from its
  // start to `now_us`, or nothing if it began later: the run's requests drain after its end).
  std::array<DurationUs, 3> time_in_states(TimeUs now_us) const;
  // Transitions since the last call, oldest first (the caller keeps the timeline).
  std::vector<Transition> take_transitions() { return std::exchange(transitions_, {}); }

 private:
  void move_to(State to, TimeUs at_us);

  BreakerSpec spec_;
  State state_ = State::kClosed;
  TimeUs since_us_;
  std::uint64_t generation_ = 0;
  std::deque<TimeUs> failures_;  // failure times within the window, at most `failures`
  int probes_sent_ = 0;
  int probes_passed_ = 0;
  std::array<DurationUs, 3> time_us_{};
  std::vector<Transition> transitions_;
};
const char* to_string(CircuitBreaker::State state);

// Adds the resilience parameters to a strategy that takes `on_error` (divisor and breaker after
// it) and wraps its factory and its check. Used by the registry for every Redis strategy.
void add_resilience(StrategyInfo& info);

class ResilientStrategy final : public Strategy {
 public:
  ResilientStrategy(StrategyEnv env, std::unique_ptr<Strategy> inner, ResilienceSpec spec);

  Task<Decision> decide(Request request, const Instance& instance) override;
  void on_instance_start(const Instance& instance) override;
  void on_instance_stop(const Instance& instance) override;
  void write_metrics(nlohmann::ordered_json& out) const override;
  // The wrapped strategy's, then fallback_decisions and, with a breaker, breakers_open and
  // breakers_half_open (instances whose breaker is in that state now).
  void write_live_state(nlohmann::ordered_json& out) const override;
  const ResilientStrategy* resilience() const override { return this; }

  const ResilienceSpec& spec() const { return spec_; }
  // Decisions the policy made instead of Redis: after a failed call, or with the breaker open.
  std::int64_t fallback_decisions() const { return fallback_decisions_; }
  // What the policy did (the report's "resilience", docs/resilience.md#report); breakers still
  // running are counted up to `end_us`, the end of the run's traffic.
  ResilienceResult report(TimeUs end_us) const;

  static constexpr std::size_t kMaxTimeline = 1000;

 private:
  struct LocalCounter {
    std::int64_t window = -1;
    std::int64_t count = 0;
  };
  struct PerInstance {
    std::unique_ptr<CircuitBreaker> breaker;
    std::vector<std::unordered_map<std::uint64_t, LocalCounter>> counters;  // per limit
    std::uint64_t epoch = 0;  // which start of this instance id the state belongs to
  };

  // The policy's own decision, without Redis.
  Decision fallback(const Request& request, const Instance& instance, PerInstance& state,
                    bool error);
  // Moves `breaker`'s new transitions into the timeline.
  void drain(std::uint32_t id, CircuitBreaker& breaker);

  StrategyEnv env_;
  std::unique_ptr<Strategy> inner_;
  ResilienceSpec spec_;
  std::vector<PerInstance> instances_;  // by instance id
  std::uint64_t next_epoch_ = 0;
  std::int64_t decisions_ = 0;
  std::int64_t error_decisions_ = 0;
  std::int64_t fallback_decisions_ = 0;
  std::int64_t fallback_denied_ = 0;
  std::int64_t short_circuited_ = 0;
  // Time in each state of the breakers of stopped instances, folded in when they stop.
  std::array<DurationUs, 3> retired_time_us_{};
  std::int64_t transitions_ = 0;
  std::int64_t opened_ = 0;
  struct TimelineEntry {
    TimeUs at_us;
    std::uint32_t instance;
    CircuitBreaker::State from, to;
  };
  std::vector<TimelineEntry> timeline_;  // the first kMaxTimeline transitions
};

}  // namespace rlsim
