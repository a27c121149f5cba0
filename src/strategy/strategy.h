#pragma once
// The strategy interface. A strategy decides one request at a time as a coroutine: it may send
// commands, pipelines and scripts to Redis and co_await each reply in virtual time (every call has
// the client timeout), so its code reads like the lesson's. Strategies see the instance clock,
// never true time.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "core/simulator.h"
#include "core/task.h"
#include "redis/server.h"
#include "scenario/model.h"
#include "world/catalog.h"
#include "world/deployment.h"
#include "world/instances.h"
#include "world/request.h"

namespace rlsim {

// What a strategy may use. All references outlive the strategy.
struct StrategyEnv {
  Simulator& sim;
  RedisServer& redis;
  const std::vector<Limit>& limits;
  const Catalog& catalog;
  nlohmann::json params;      // resolved (strategy/params.h), read only through ParamReader
  Rng rng;                    // the strategy's own random stream (e.g. which shard to INCR)
  std::string scenario_dir;   // folder of the scenario file: relative paths in params start here
  int initial_instances = 1;  // the scenario's instance count at time 0
  // Every Redis node of the run (regions: Deployment::region_server); null in unit tests that
  // build a strategy on one server, which is then every region's Redis.
  Deployment* deployment = nullptr;
};

class ResilientStrategy;

class Strategy : public InstanceObserver {
 public:
  virtual ~Strategy() = default;
  // Decides `request`, which arrived at `instance` (the instance outlives the task).
  virtual Task<Decision> decide(Request request, const Instance& instance) = 0;
  void on_instance_start(const Instance&) override {}
  void on_instance_stop(const Instance&) override {}
  // Called once after the run's last decision: strategy-specific counters (e.g. tokens claimed and
  // wasted) added to the report under "strategy_metrics". Values must be deterministic.
  virtual void write_metrics(nlohmann::ordered_json& out) const { (void)out; }
  // The lesson's counters at this moment of the run, for the live view (`rlsim run --live`), as
  // short names with integer values (tokens held, breakers open); none by default. Never part of
  // a report, so a strategy may show what its report folds in at the end.
  virtual void write_live_state(nlohmann::ordered_json& out) const { (void)out; }
  // The resilience decorator (strategy/resilience.h) when this strategy is one, else null: the
  // run's fault windows count its fallback decisions and report its policy.
  virtual const ResilientStrategy* resilience() const { return nullptr; }
  // Non-empty when a user-caused failure makes the rest of the run meaningless (a script that does
  // not compile or exceeds its instruction budget). The run stops and rlsim exits with
  // exit_code::kScriptError, printing this message (which names the script).
  const std::string& fatal_error() const { return fatal_error_; }

 protected:
  void fail(std::string message) {
    if (fatal_error_.empty()) fatal_error_ = std::move(message);
  }

 private:
  std::string fatal_error_;
};

// argv from its words. Called outside coroutine bodies: GCC 12 mishandles braced initializer
// lists in coroutines.
template <typename... Args>
Command command(Args&&... args) {
  Command argv;
  argv.reserve(sizeof...(args));
  (argv.emplace_back(std::forward<Args>(args)), ...);
  return argv;
}

// "rl:<kind>:" per limit, as in the lesson ("rl:user:", "rl:ip:", "rl:ep:", "rl:global:"); when
// two limits share a kind, the limit's name replaces the kind so their keys stay apart.
std::vector<std::string> redis_key_prefixes(const std::vector<Limit>& limits);

}  // namespace rlsim
