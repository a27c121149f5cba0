#pragma once
// Drives one strategy directly, without the oracle: requests at chosen true times on chosen
// instances, decisions collected in request order, and the mock store open for inspection. For
// hand-computed decision tests of the strategies.
#include <fmt/format.h>

#include <deque>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/run.h"
#include "redis/mock_store.h"
#include "scenario/load.h"

namespace rlsim::testing {

class StrategyHarness final : public EventTarget {
 public:
  // `limits` is the JSON text of the scenario's limits array's elements, `strategy` a strategy
  // entry. The round trip is `rtt_us` (fixed), the client timeout `timeout_us`; the server takes
  // no time per command. Instance i's clock runs `clock_offsets_us[i]` ahead of true time.
  // `store`, when given, executes the commands instead of the harness's MockStore (a wrapper that
  // hands back made-up replies).
  StrategyHarness(const std::string& limits, const std::string& strategy,
                  std::vector<DurationUs> clock_offsets_us = {0}, DurationUs rtt_us = 1000,
                  DurationUs timeout_us = 50'000, const std::string& scenario_dir = ".",
                  DataStore* store = nullptr)
      : scenario_(parse_scenario(
            fmt::format(
                R"({{"name": "t", "duration": "1h", "limits": [{}], "instances": {{"count": 1}},
              "traffic": [{{"name": "u", "users": 100, "rate": "1/s", "ips": 10, "endpoints": ["/a", "/b"]}}],
              "strategies": [{}]}})",
                limits, strategy),
            "t.json")),
        catalog_(scenario_),
        server_(sim_, store != nullptr ? *store : store_,
                RedisTiming{rtt_us, rtt_us, 0, timeout_us}, Rng(1, "network")) {
    std::string field, error;
    const StrategyInfo* info = find_strategy(scenario_.strategies[0].name);
    auto params = resolve_params(*info, scenario_.strategies[0].params, field, error, scenario_dir);
    if (!params) throw std::runtime_error(field + ": " + error);
    strategy_ = info->make(StrategyEnv{sim_, server_, scenario_.limits, catalog_, *params,
                                       Rng(1, "strategy"), scenario_dir, 1});
    for (std::size_t i = 0; i < clock_offsets_us.size(); ++i) {
      Instance instance;
      instance.id = static_cast<std::uint32_t>(i);
      instance.clock_offset_us = clock_offsets_us[i];
      instance.active = true;
      instances_.push_back(instance);
    }
    for (const auto& instance : instances_) strategy_->on_instance_start(instance);
  }

  // Queues a request from `user` arriving at true time `at_us` on instance `instance`.
  void request(TimeUs at_us, std::uint32_t user = 0, std::uint32_t instance = 0,
               std::uint32_t ip = 0, std::uint32_t endpoint = 0) {
    Request r;
    r.id = requests_.size();
    r.arrival_us = at_us;
    r.user = user;
    r.ip = ip;
    r.endpoint = endpoint;
    requests_.push_back(Pending{r, instance, {}, false, false});
  }

  // Runs every queued request (and everything they wait for); returns their decisions in
  // request order.
  std::vector<Decision> run() {
    for (std::size_t i = 0; i < requests_.size(); ++i) {
      if (!requests_[i].started) sim_.schedule(requests_[i].request.arrival_us, this, i);
      requests_[i].started = true;
    }
    sim_.run_until(std::numeric_limits<TimeUs>::max());
    std::vector<Decision> decisions;
    for (const Pending& p : requests_) {
      if (!p.done) throw std::runtime_error("a request was never decided");
      decisions.push_back(p.decision);
    }
    return decisions;
  }

  // Admitted (1) or denied (0) per request, as a string: "1101".
  std::string pattern() {
    std::string out;
    for (const Decision& d : run()) out += d.allowed ? '1' : '0';
    return out;
  }

  void on_event(std::uint64_t index) override {
    Pending& p = requests_[index];
    strategy_->decide(p.request, instances_[p.instance])
        .start_detached(
            [](void* context, Decision&& decision) {
              auto* pending = static_cast<Pending*>(context);
              pending->decision = decision;
              pending->done = true;
            },
            &p);
  }

  Strategy& strategy() { return *strategy_; }
  MockStore& store() { return store_; }
  const RedisStats& stats() const { return server_.stats(); }
  TimeUs now() const { return sim_.now(); }

 private:
  struct Pending {
    Request request;
    std::uint32_t instance = 0;
    Decision decision;
    bool started = false;
    bool done = false;
  };

  Scenario scenario_;
  Simulator sim_;
  MockStore store_;
  Catalog catalog_;
  RedisServer server_;
  std::unique_ptr<Strategy> strategy_;
  std::vector<Instance> instances_;
  std::deque<Pending> requests_;  // stable addresses: decisions are written through pointers
};

}  // namespace rlsim::testing
