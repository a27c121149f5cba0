#pragma once
// The top-level wiring: the only place that knows every layer. One strategy run builds a fresh
// world (simulator, mock Redis, instances, traffic) from the scenario, so each strategy sees the
// same traffic and no strategy can change another one's numbers.
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/decision_digest.h"
#include "engine/run_error.h"
#include "report/report.h"
#include "scenario/load.h"
#include "strategy/registry.h"
#include "world/hpa.h"

namespace rlsim {

// A strategy entry checked against the registry.
struct ResolvedStrategy {
  const StrategyInfo* info = nullptr;
  std::string label;
  nlohmann::json params;
  StrategyMode mode = StrategyMode::kEnforce;  // kShadow: admit every request, count would-denials
  // A shadow entry: the label of the first enforcing entry with the same name and parameters
  // ("" when there is none). An entry with a partner records each request's decision, so that the
  // report can compare the two runs request by request (report/shadow_report.h).
  std::string partner;
  // The entry's Redis client timeout when it is not the scenario's redis.timeout: its `timeout`
  // or its product's default (engine/strategy_timeout.h), and where it comes from.
  std::optional<DurationUs> redis_timeout_us = std::nullopt;
  std::string redis_timeout_from = "";
};

// Checks every strategy entry (name known, parameters valid). Throws ScenarioError naming the
// file and JSON path.
std::vector<ResolvedStrategy> resolve_strategies(const Scenario& scenario, const std::string& file);

// Simulates one strategy on the scenario with `seed`; appends every decision to `trace` when
// given. Throws RunError.
StrategyResult run_strategy(const Scenario& scenario, const ResolvedStrategy& strategy,
                            std::uint64_t seed, std::vector<DecisionRecord>* trace = nullptr);

// The stand-in result of `strategy` when the real Redis could not be used as it was to start
// (`error` of kind kRedisUnavailable) after other strategies finished: marked redis_lost, so
// that `rlsim run` reports those and marks this one and the rest as not run (mark_partial).
// Rethrows any other error.
StrategyResult redis_lost_before(const ResolvedStrategy& strategy, const RunError& error);

class StrategyRun;
class Oracle;

// One strategy's run, driven in steps of virtual time (live mode, progress display): the app
// layer decides when to advance, the simulation never reads the wall clock. Advancing in steps
// changes nothing: advance_to(t1), advance_to(t2), ..., finish() gives exactly run_strategy's
// result.
class StrategySession {
 public:
  StrategySession(const Scenario& scenario, const ResolvedStrategy& strategy, std::uint64_t seed);
  ~StrategySession();
  StrategySession(const StrategySession&) = delete;
  StrategySession& operator=(const StrategySession&) = delete;

  // Fires every event up to `until_us` (capped at the scenario's duration).
  void advance_to(TimeUs until_us);
  TimeUs now_us() const;
  // The oracle's numbers so far (the open window's latency quantiles are filled at the end).
  const OracleTotals& totals() const;
  // The run's oracle, for an added observer that asks it about the decision it just counted.
  const Oracle& oracle() const;
  int active_instances() const;
  const std::string& label() const;
  // For the live view: every Redis node's calls so far, the strategy's lesson counters
  // (Strategy::write_live_state), and the autoscaler's latest decision (null without
  // instances.autoscale or before its first sync).
  struct RedisCalls {
    std::uint64_t calls = 0;  // answered, refused, or dropped on the way (a node down)
    std::uint64_t timeouts = 0;
  };
  RedisCalls redis_calls() const;
  void write_live_state(nlohmann::ordered_json& out) const;
  const HpaDecision* last_autoscale() const;
  // Records every decision into `trace` (owned by the caller) from now on; nullptr stops it.
  void set_trace(std::vector<DecisionRecord>* trace);
  // Adds a measurement (it outlives the session): told of every request from now on, after the
  // run's own observers (so the oracle's totals already count the decision it is told of).
  void add_observer(DecisionObserver& observer);
  // Runs to the end (the scenario's duration, then the requests still in flight). Call once.
  // Throws RunError.
  StrategyResult finish();
  // Instead of finish(): stops the traffic at now_us() (later arrivals are not sent), decides the
  // requests in flight and returns the result so far, with stopped_at_us set. Call once.
  StrategyResult stop();

 private:
  std::unique_ptr<StrategyRun> run_;
};

}  // namespace rlsim
