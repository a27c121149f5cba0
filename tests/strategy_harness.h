#pragma once
// The world builder of the strategy tests: one strategy from the registry, driven directly without
// the oracle. Requests at chosen true times on chosen instances (which can be stopped), decisions
// collected in request order with the time each was decided, and the mock store, the server's
// counters and the strategy's metrics open for inspection. For hand-computed decision tests.
#include <fmt/format.h>

#include <deque>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "redis/mock_store.h"
#include "scenario/load.h"
#include "strategy/registry.h"

namespace rlsim::testing {

// A store on which every command fails, as a Redis that answers with errors: for the failure
// behaviour of a strategy (pass it as the harness's `store`).
class FailingStore final : public DataStore {
 public:
  void execute(std::span<const Command> commands, TimeUs, std::vector<Reply>& replies) override {
    for (std::size_t i = 0; i < commands.size(); ++i) replies.push_back(Reply::error("ERR down"));
  }
  std::size_t key_count() const override { return 0; }
  void lose_data() override {}
};

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
      instances_.emplace_back();
      instances_.back().id = static_cast<std::uint32_t>(i);
      instances_.back().clock_offset_us = clock_offsets_us[i];
      instances_.back().active = true;
      strategy_->on_instance_start(instances_.back());
    }
  }
  // The registered strategy `info` with `params`, a JSON object of its parameters.
  StrategyHarness(const StrategyInfo& info, const std::string& limits, const std::string& params,
                  std::vector<DurationUs> clock_offsets_us = {0}, DurationUs rtt_us = 1000,
                  DurationUs timeout_us = 50'000)
      : StrategyHarness(limits, entry_of(info.name, params), std::move(clock_offsets_us), rtt_us,
                        timeout_us) {}

  // Queues a request from `user` arriving at true time `at_us` on instance `instance`.
  void request(TimeUs at_us, std::uint32_t user = 0, std::uint32_t instance = 0,
               std::uint32_t ip = 0, std::uint32_t endpoint = 0) {
    Pending pending;
    pending.request.id = requests_.size();
    pending.request.arrival_us = at_us;
    pending.request.user = user;
    pending.request.ip = ip;
    pending.request.endpoint = endpoint;
    pending.instance = instance;
    pending.harness = this;
    requests_.push_back(pending);
    sim_.schedule(at_us, this, requests_.size() - 1);
  }
  // Stops `instance` at true time `at_us` (its local state is lost).
  void stop(TimeUs at_us, std::uint32_t instance) {
    sim_.schedule(at_us, this, kStopFlag | instance);
  }

  // Runs everything queued (and everything it waits for); returns all decisions so far in request
  // order.
  std::vector<Decision> run() {
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
  // When each request was decided, in true microseconds.
  std::vector<TimeUs> decided_at() const {
    std::vector<TimeUs> times;
    for (const Pending& p : requests_) times.push_back(p.decided_us);
    return times;
  }
  nlohmann::ordered_json metrics() const {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    strategy_->write_metrics(out);
    return out;
  }
  // Runs `command` on the harness's store at the time of the last command the server ran; the
  // reply as redis-cli shows it.
  std::string redis(const Command& command) {
    return to_display(store_.inner.run(command, store_.last_now_us));
  }
  std::string get(const std::string& key) { return redis({"GET", key}); }

  void on_event(std::uint64_t arg) override {
    if ((arg & kStopFlag) != 0) {
      Instance& instance = instances_[arg & ~kStopFlag];
      instance.active = false;
      strategy_->on_instance_stop(instance);
      return;
    }
    Pending& p = requests_[arg];
    strategy_->decide(p.request, instances_[p.instance])
        .start_detached(
            [](void* context, Decision&& decision) {
              auto* pending = static_cast<Pending*>(context);
              pending->decision = decision;
              pending->done = true;
              pending->decided_us = pending->harness->sim_.now();
            },
            &p);
  }

  Strategy& strategy() { return *strategy_; }
  MockStore& store() { return store_.inner; }
  const RedisStats& stats() const { return server_.stats(); }
  TimeUs now() const { return sim_.now(); }

 private:
  static constexpr std::uint64_t kStopFlag = 1ULL << 62;
  struct Pending {
    Request request;
    std::uint32_t instance = 0;
    Decision decision;
    bool done = false;
    TimeUs decided_us = -1;
    StrategyHarness* harness = nullptr;
  };

  // The mock store, remembering when it last ran a command: run_until(max) leaves the simulator's
  // clock at the far end, and the store's clock must not run backwards.
  struct TimedStore final : DataStore {
    MockStore inner;
    TimeUs last_now_us = kEpochUnixUs;
    void execute(std::span<const Command> commands, TimeUs server_now_us,
                 std::vector<Reply>& replies) override {
      last_now_us = server_now_us;
      inner.execute(commands, server_now_us, replies);
    }
    std::size_t key_count() const override { return inner.key_count(); }
    void lose_data() override { inner.lose_data(); }
  };

  // {"name": "<name>", <the fields of params>}: a strategy entry.
  static std::string entry_of(const std::string& name, const std::string& params) {
    nlohmann::json entry = nlohmann::json::parse(params);
    entry["name"] = name;
    return entry.dump();
  }

  Scenario scenario_;
  Simulator sim_;
  TimedStore store_;
  Catalog catalog_;
  RedisServer server_;
  std::unique_ptr<Strategy> strategy_;
  std::deque<Instance> instances_;  // stable addresses: strategies keep references while deciding
  std::deque<Pending> requests_;    // stable addresses: decisions are written through pointers
};

}  // namespace rlsim::testing
