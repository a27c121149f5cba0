#pragma once
// The strategy interface. A strategy decides one request at a time as a coroutine: it may send
// commands, pipelines and scripts to Redis and co_await each reply in virtual time (every call has
// the client timeout), so its code reads like the lesson's. Strategies see the instance clock,
// never true time.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/simulator.h"
#include "core/task.h"
#include "redis/server.h"
#include "scenario/model.h"
#include "world/catalog.h"
#include "world/instances.h"
#include "world/request.h"

namespace rlsim {

struct Decision {
  bool allowed = true;
  int denied_by = -1;  // index of the limit that denied, when !allowed
  bool error = false;  // a Redis call failed or timed out while deciding
};

// What a strategy may use. All references outlive the strategy.
struct StrategyEnv {
  Simulator& sim;
  RedisServer& redis;
  const std::vector<Limit>& limits;
  const Catalog& catalog;
  nlohmann::json params;  // validated against the registry, defaults filled in
};

class Strategy : public InstanceObserver {
 public:
  virtual ~Strategy() = default;
  // Decides `request`, which arrived at `instance` (the instance outlives the task).
  virtual Task<Decision> decide(Request request, const Instance& instance) = 0;
  void on_instance_start(const Instance&) override {}
  void on_instance_stop(const Instance&) override {}
};

// "rl:<kind>:" per limit, as in the lesson ("rl:user:", "rl:ip:", "rl:ep:", "rl:global:"); when
// two limits share a kind, the limit's name replaces the kind so their keys stay apart.
std::vector<std::string> redis_key_prefixes(const std::vector<Limit>& limits);

}  // namespace rlsim
