#include "engine/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>

#include "core/simulator.h"
#include "engine/clock_report.h"
#include "engine/cluster_run.h"
#include "engine/faults.h"
#include "engine/region_run.h"
#include "engine/run_error.h"
#include "engine/shadow.h"
#include "engine/stop.h"
#include "engine/store_source.h"
#include "engine/strategy_timeout.h"
#include "oracle/alert_series.h"
#include "oracle/oracle.h"
#include "oracle/verdict_watch.h"
#include "report/alerts.h"
#include "world/autoscaler.h"
#include "world/deployment.h"
#include "world/instances.h"
#include "world/replay_source.h"
#include "world/retry.h"
#include "world/traffic.h"

namespace rlsim {

namespace {

// Relative paths in strategy parameters (a custom_lua script) start at the scenario's folder.
std::string scenario_dir_of(const Scenario& scenario) {
  if (scenario.file.empty()) return ".";
  const std::filesystem::path parent = std::filesystem::path(scenario.file).parent_path();
  return parent.empty() ? "." : parent.string();
}

// "Redis at redis://host:port lost during strategy X at virtual time 2.000 s: Connection refused".
std::string redis_lost_text(const BackendReport& backend, const std::string& label) {
  const std::string server =
      backend.cluster ? "Redis Cluster at " + backend.cluster->seeds : "Redis at " + backend.url;
  return fmt::format("{} lost during strategy {} at virtual time {:.3f} s: {}", server, label,
                     to_seconds(backend.lost_at_us), backend.lost);
}

// Pairs each shadow entry with the first enforcing entry of the same strategy and parameters (the
// defaults filled in, so that spelling a default out changes nothing), both ways.
void pair_shadow_strategies(std::vector<ResolvedStrategy>& resolved) {
  for (ResolvedStrategy& shadow : resolved) {
    if (shadow.mode != StrategyMode::kShadow) continue;
    for (ResolvedStrategy& enforcing : resolved) {
      if (enforcing.mode != StrategyMode::kEnforce || enforcing.info != shadow.info ||
          enforcing.params != shadow.params)
        continue;
      shadow.partner = enforcing.label;
      if (enforcing.partner.empty()) enforcing.partner = shadow.label;
      break;
    }
  }
}

}  // namespace

StrategyResult redis_lost_before(const ResolvedStrategy& strategy, const RunError& error) {
  if (error.kind != RunErrorKind::kRedisUnavailable) throw error;
  StrategyResult lost;
  lost.label = strategy.label;
  lost.name = strategy.info->name;
  lost.redis_lost =
      fmt::format("Redis lost before strategy {} could start: {}", strategy.label, error.what());
  return lost;
}

std::vector<ResolvedStrategy> resolve_strategies(const Scenario& scenario,
                                                 const std::string& file) {
  std::vector<ResolvedStrategy> resolved;
  for (const StrategySpec& spec : scenario.strategies) {
    const StrategyInfo* info = find_strategy(spec.name);
    if (info == nullptr) {
      const std::string names = strategy_names();
      const std::string path = spec.params.empty() && spec.label == spec.name
                                   ? spec.json_path
                                   : spec.json_path + ".name";
      throw ScenarioError(scenario_error_message(
          file, path,
          fmt::format("unknown strategy \"{}\" (expected one of: {})", spec.name, names)));
    }
    nlohmann::json given = spec.params;
    StrategyTimeout timeout = resolve_strategy_timeout(scenario, spec, *info, file, given);
    ResolvedStrategy entry{info, spec.label,         nlohmann::json(),       spec.mode,
                           "",   timeout.timeout_us, std::move(timeout.from)};
    std::string field, error;
    auto params = resolve_params(*info, given, field, error, scenario_dir_of(scenario));
    if (params && info->check_limits &&
        !info->check_limits(ParamReader(*params), scenario.limits, field, error))
      params.reset();
    if (!params)
      throw ScenarioError(scenario_error_message(file, spec.json_path + "." + field, error));
    entry.params = std::move(*params);
    resolved.push_back(std::move(entry));
  }
  pair_shadow_strategies(resolved);
  return resolved;
}

// Not in an anonymous namespace: StrategySession (run.h) holds one.

class StrategyRun final : public RequestSink, public EventTarget {
 public:
  StrategyRun(const Scenario& scenario, const ResolvedStrategy& strategy, std::uint64_t seed)
      : StrategyRun(scenario_with_strategy_timeout(scenario, strategy.redis_timeout_us), scenario,
                    strategy, seed) {}
  // `own`: the scenario with the strategy's Redis client timeout (engine/strategy_timeout.h), or
  // null when it is `given`'s; the run keeps it and runs on it.
  StrategyRun(std::unique_ptr<Scenario>&& own, const Scenario& given,
              const ResolvedStrategy& strategy, std::uint64_t seed)
      : StrategyRun(own ? *own : given, strategy, seed, std::move(own)) {}
  StrategyRun(const Scenario& scenario, const ResolvedStrategy& strategy, std::uint64_t seed,
              std::unique_ptr<Scenario>&& own)
      : own_scenario_(std::move(own)),
        scenario_(scenario),
        catalog_(scenario),
        deployment_(
            scenario, sim_, make_front_store(scenario),
            [&](DataStore& store) { return make_cluster(scenario, store, seed, sim_); }, seed),
        pool_(scenario.instances, scenario.balancer, seed),
        strategy_(strategy.info->make(StrategyEnv{sim_, deployment_.front(), scenario.limits,
                                                  catalog_, strategy.params, Rng(seed, "strategy"),
                                                  scenario_dir_of(scenario),
                                                  scenario.instances.count, &deployment_})),
        oracle_(scenario.limits, strategy.info->algorithm, bucket_shapes(scenario, strategy)),
        clock_watch_(scenario.instances.clock, scenario.limits.size()),
        regions_(scenario, strategy.info->algorithm, bucket_shapes(scenario, strategy)),
        digest_(result_.digest_checkpoints),
        clock_attribution_(clock_watch_, oracle_, pool_),
        faults_(scenario, sim_, deployment_, pool_, *strategy_, oracle_, result_.instance_counts),
        // In this order: the clock watch and the fault windows read what the oracle just counted.
        observers_{&digest_, &oracle_, &regions_, &clock_attribution_, &faults_},
        shadow_(strategy.mode == StrategyMode::kShadow) {
    if (shadow_ || !strategy.partner.empty()) {
      shadow_watch_.emplace(scenario.limits, strategy.info->algorithm,
                            bucket_shapes(scenario, strategy), shadow_, strategy.partner);
      observers_.push_back(&*shadow_watch_);
    }
    RLSIM_CHECK(observers_.size() <= kMaxObservers);
    // Only a scenario with alert rules records their series, after the oracle (it reads the
    // excess the oracle just counted).
    if (!scenario.alerts.empty()) {
      alert_watch_.emplace(scenario, oracle_);
      observers_.push_back(&*alert_watch_);
    }
    clock_watch_.attach_nodes(deployment_.front(), deployment_.cluster(),
                              deployment_.region_servers(), scenario.regions);
    result_.label = strategy.label;
    result_.name = strategy.info->name;
    result_.per_instance_limit = strategy.info->per_instance_limit;
    if (strategy.redis_timeout_us)
      result_.redis_timeout = {*strategy.redis_timeout_us, strategy.redis_timeout_from};
    for (std::uint32_t i = 0; i < scenario.traffic.size(); ++i) {
      // A replay group reads its log through the opener the front end gave (docs/replay.md).
      if (scenario.traffic[i].replay) {
        replays_.push_back(std::make_unique<ReplaySource>(sim_, scenario.traffic[i], i, catalog_,
                                                          seed, *this, scenario.open_log));
        continue;
      }
      sources_.push_back(
          std::make_unique<TrafficSource>(sim_, scenario.traffic[i], i, catalog_, seed, *this));
    }
    if (!replays_.empty()) observers_.push_back(&verdicts_);
    // Only a scenario with retrying clients has them: the others schedule nothing more.
    if (RetryClients::wanted(scenario.traffic))
      retries_.emplace(sim_, scenario.traffic, seed, scenario.duration_us, *this);
    if (scenario.instances.autoscale.enabled)
      autoscaler_.emplace(scenario.instances.autoscale, sim_, pool_, *strategy_,
                          scenario.duration_us, result_.instance_counts);
  }

  void start() {
    pool_.scale_to(scenario_.instances.count, 0, *strategy_);
    result_.instance_counts.emplace_back(0, pool_.active_count());
    const auto& schedule = scenario_.instances.schedule;
    for (std::size_t i = 0; i < schedule.size(); ++i) sim_.schedule(schedule[i].at_us, this, i);
    faults_.start();
    if (autoscaler_) autoscaler_->start();
    for (auto& source : sources_) source->start();
    for (auto& replay : replays_) replay->start();
  }

  // Fires the events up to `until_us` (at most the scenario's end). Between two calls no event
  // runs and nothing is scheduled, so running in steps gives the same run as one call.
  void advance_to(TimeUs until_us) { sim_.run_until(std::min(until_us, scenario_.duration_us)); }

  TimeUs now() const { return sim_.now(); }
  const OracleTotals& live_totals() const { return oracle_.totals(); }
  const Oracle& oracle() const { return oracle_; }
  int active_instances() const { return pool_.active_count(); }
  const std::string& label() const { return result_.label; }
  // As Deployment::totals counts them: the front (or the cluster's nodes) and the other regions'.
  StrategySession::RedisCalls redis_calls() const {
    StrategySession::RedisCalls out;
    const auto add = [&out](const RedisStats& stats) {
      out.calls += stats.round_trips + stats.refused + stats.lost;
      out.timeouts += stats.timeouts;
    };
    const RedisCluster* cluster = deployment_.cluster();
    add(cluster != nullptr ? cluster->total_stats() : deployment_.front().stats());
    for (const RedisServer* server : deployment_.region_servers())
      if (server != &deployment_.front()) add(server->stats());
    return out;
  }
  void write_live_state(nlohmann::ordered_json& out) const { strategy_->write_live_state(out); }
  const HpaDecision* last_autoscale() const {
    if (!autoscaler_ || autoscaler_->decisions().empty()) return nullptr;
    return &autoscaler_->decisions().back();
  }

  StrategyResult run() {
    sim_.run_until(scenario_.duration_us);
    // Traffic ends with the scenario; let requests still waiting on Redis finish.
    sim_.run_until(std::numeric_limits<TimeUs>::max());
    return result(scenario_.duration_us);
  }

  // Stops the traffic at the current virtual time (requests arriving later are not sent), decides
  // the requests in flight, and returns the result so far: that of the same scenario cut at this
  // time, when nothing is scheduled after it but traffic (engine/stop.h).
  StrategyResult stop() {
    stopped_at_us_ = sim_.now();
    result_.stopped_at_us = stopped_at_us_;
    if (retries_) retries_->stop_after(stopped_at_us_);
    // Every Redis call ends by its deadline, so this ends. Other events due in the meantime
    // fire too (arrivals, dropped above; autoscaling steps and faults, which a scenario cut at
    // this time would not have), but none later than the step in which the last call ends.
    constexpr DurationUs kDrainStepUs = 1000;
    while (storage_.size() > free_.size() || deployment_.in_flight() > 0)
      sim_.run_until(sim_.now() + kDrainStepUs);
    return result(stopped_at_us_);
  }

  StrategyResult result(TimeUs end_us) {
    RLSIM_CHECK(deployment_.in_flight() == 0);
    if (!strategy_->fatal_error().empty())
      throw RunError(fmt::format("{}: {}", result_.label, strategy_->fatal_error()),
                     RunErrorKind::kScript);
    oracle_.close_series();
    result_.totals = oracle_.totals();
    strategy_->write_metrics(result_.strategy_metrics);
    result_.decision_digest = digest_.digest();
    const DeploymentTotals redis = deployment_.totals();
    result_.redis_commands = redis.commands;
    result_.redis_round_trips = redis.round_trips;
    result_.redis_timeouts = redis.timeouts;
    result_.redis_keys_at_end = redis.keys;
    result_.backend = deployment_.store().backend_report();
    if (const auto& backend = result_.backend) {
      if (!backend->stopped.empty())  // a runaway script (real/real_store.cpp)
        throw RunError(fmt::format("{}: {}", result_.label, backend->stopped),
                       RunErrorKind::kScript);
      if (!backend->lost.empty()) result_.redis_lost = redis_lost_text(*backend, result_.label);
    }
    result_.clock = clock_watch_.report(pool_, end_us);
    result_.regions = regions_.report();
    result_.redis_side = faults_.report(end_us);
    if (shadow_watch_) {
      result_.shadow = shadow_watch_->report();
      result_.decisions = shadow_watch_->decisions();
    }
    if (alert_watch_) {
      result_.alert_series = alert_watch_->series();
      evaluate_alerts(scenario_, result_);  // once: every renderer reads these timelines
    }
    if (retries_) result_.retries = retries_->result();
    if (!replays_.empty()) result_.replay = replay_result();
    if (autoscaler_) result_.autoscale = autoscaler_->decisions();
    return std::move(result_);
  }

  void on_request(const Request& request) override {
    // After a fatal script error the run's numbers are void: stop deciding, let the queue drain.
    // A loaded scenario's traffic ends by its duration; one cut shorter afterwards (conformance
    // --max-duration) still has arrivals later, which the cut scenario does not have.
    if (!strategy_->fatal_error().empty() || request.arrival_us > stopped_at_us_ ||
        request.arrival_us >= scenario_.duration_us)
      return;
    Pending* pending = allocate();
    pending->request = request;
    pending->arrival_marks = 0;
    for (std::size_t i = 0; i < observers_.size(); ++i)
      if (observers_[i]->on_arrival(request)) pending->arrival_marks |= std::uint64_t{1} << i;
    if (pool_.active_count() == 0) {  // every instance crashed: the request fails at once
      pending->instance = nullptr;
      pending->run = this;
      decided(pending, Decision{false, 0, true, -1});
      return;
    }
    pending->instance = &pool_.route(request);
    pending->run = this;
    ++pending->instance->inflight;
    if (autoscaler_) autoscaler_->on_routed(pending->instance->id, sim_.now());
    // The decision's Redis calls are made on this instance's connections (pool, partitions).
    deployment_.set_current_client(pending->instance->id);
    strategy_->decide(request, *pending->instance).start_detached(&StrategyRun::decided, pending);
  }

  // Autoscaling steps.
  void on_event(std::uint64_t step) override {
    const int count = scenario_.instances.schedule[step].count;
    if (count == pool_.active_count()) return;
    pool_.scale_to(count, sim_.now(), *strategy_);
    result_.instance_counts.emplace_back(sim_.now(), count);
  }

 private:
  struct Pending {
    Request request;
    Instance* instance = nullptr;
    StrategyRun* run = nullptr;
    std::uint64_t arrival_marks = 0;  // bit i: what observers_[i]->on_arrival returned
  };
  static constexpr std::size_t kMaxObservers = 64;  // one bit each in Pending::arrival_marks

  // The embedded cluster (redis.cluster), the simulated nodes of a real one (redis.cluster_url),
  // or none.
  static std::unique_ptr<RedisCluster> make_cluster(const Scenario& scenario, DataStore& store,
                                                    std::uint64_t seed, Simulator& sim) {
    const RedisTiming timing = redis_timing(scenario.redis);
    if (scenario.redis.cluster_url.empty())
      return make_embedded_cluster(scenario, sim, timing, seed);
    return store_source().make_real_cluster_nodes(store, sim, timing, seed);
  }

  static std::vector<BucketShape> bucket_shapes(const Scenario& scenario,
                                                const ResolvedStrategy& strategy) {
    std::vector<BucketShape> shapes;
    if (!strategy.info->bucket_shape) return shapes;
    for (const Limit& limit : scenario.limits)
      shapes.push_back(strategy.info->bucket_shape(ParamReader(strategy.params), limit));
    return shapes;
  }

  static void decided(void* context, Decision&& decision) {
    auto* pending = static_cast<Pending*>(context);
    StrategyRun& run = *pending->run;
    const TimeUs now_us = run.sim_.now();
    // A request in flight on an instance that crashed fails, whatever the strategy decided (as
    // one that found no instance running did, in on_request).
    // A decision the resilience policy made stays counted as its fallback (as the policy counts
    // it).
    const bool lost = pending->instance == nullptr || run.faults_.crashed(*pending->instance);
    if (lost) decision = Decision{false, 0, true, -1, -1, decision.fallback};
    const int instance_id =
        pending->instance != nullptr ? static_cast<int>(pending->instance->id) : -1;
    Outcome outcome{decision, instance_id, lost};
    // Shadow mode: the strategy decided (and called Redis) as usual; the run admits the request
    // and keeps what it would have done. A request lost with its instance fails all the same.
    if (run.shadow_ && !lost && !outcome.allowed) {
      outcome.would_deny = true;
      outcome.would_deny_by = outcome.denied_by;
      outcome.allowed = true;
      outcome.denied_by = -1;
    }
    const int active = run.pool_.active_count();
    for (std::size_t i = 0; i < run.observers_.size(); ++i) {
      const bool mark = ((pending->arrival_marks >> i) & 1u) != 0;
      run.observers_[i]->on_decided({pending->request, outcome, now_us, active, mark});
    }
    if (run.retries_) run.retries_->on_decided(pending->request, outcome.allowed, now_us);
    if (run.autoscaler_ && !lost)
      run.autoscaler_->on_decided(pending->instance->id, outcome.allowed, now_us);
    if (pending->instance != nullptr) --pending->instance->inflight;
    run.free_.push_back(pending);
  }

  // What the replay groups read, and production's verdicts beside this strategy's. Throws
  // RunError (bad input) when a log could not be read or had too many malformed lines.
  ReplayResult replay_result() const {
    ReplayResult out;
    for (const auto& replay : replays_) {
      if (!replay->failure().empty())
        throw RunError(
            fmt::format("traffic group {}: {}", replay->result().group, replay->failure()),
            RunErrorKind::kBadInput);
      out.groups.push_back(replay->result());
    }
    out.verdicts = verdicts_.agreement();
    return out;
  }

  Pending* allocate() {
    if (free_.empty()) {
      storage_.emplace_back();
      return &storage_.back();
    }
    Pending* pending = free_.back();
    free_.pop_back();
    return pending;
  }

  std::unique_ptr<Scenario> own_scenario_;  // see the constructor; scenario_ may refer to it
  const Scenario& scenario_;
  Simulator sim_;
  Catalog catalog_;
  Deployment deployment_;  // every Redis node: the embedded Redis or a real one, a cluster, regions
  InstancePool pool_;
  std::unique_ptr<Strategy> strategy_;
  Oracle oracle_;
  ClockWatch clock_watch_;
  RegionRun regions_;
  std::vector<std::unique_ptr<TrafficSource>> sources_;
  std::deque<Pending> storage_;  // bounded by the most requests in flight at once
  std::vector<Pending*> free_;
  StrategyResult result_;
  TimeUs stopped_at_us_ = std::numeric_limits<TimeUs>::max();  // stop(): no arrival after it
  DecisionDigest digest_;
  ClockAttribution clock_attribution_;
  FaultSchedule faults_;                   // it refers to the members above
  std::optional<AlertWatch> alert_watch_;  // when the scenario has alerts
  // Every measurement of the run, told of each arrival and decision in this order.
  std::vector<DecisionObserver*> observers_;
  bool shadow_ = false;                      // "mode": "shadow": every request is admitted
  std::optional<ShadowWatch> shadow_watch_;  // a shadow run, or the enforcing run paired with one
  std::optional<RetryClients> retries_;      // when some traffic group has `retry`
  std::optional<Autoscaler> autoscaler_;     // when the scenario has instances.autoscale
  std::vector<std::unique_ptr<ReplaySource>> replays_;  // the traffic[].replay groups
  VerdictWatch verdicts_;  // an observer when the scenario replays a log

 public:
  void set_trace(std::vector<DecisionRecord>* trace) { digest_.set_trace(trace); }
  void add_observer(DecisionObserver& observer) {
    RLSIM_CHECK(observers_.size() < kMaxObservers);
    observers_.push_back(&observer);
  }
};

StrategyResult run_strategy(const Scenario& scenario, const ResolvedStrategy& strategy,
                            std::uint64_t seed, std::vector<DecisionRecord>* trace) {
  StrategySession session(scenario, strategy, seed);
  session.set_trace(trace);
  return finish_interruptible(session, scenario.duration_us);
}

StrategySession::StrategySession(const Scenario& scenario, const ResolvedStrategy& strategy,
                                 std::uint64_t seed)
    : run_(std::make_unique<StrategyRun>(scenario, strategy, seed)) {
  run_->start();
}
StrategySession::~StrategySession() = default;
void StrategySession::advance_to(TimeUs until_us) { run_->advance_to(until_us); }
TimeUs StrategySession::now_us() const { return run_->now(); }
const OracleTotals& StrategySession::totals() const { return run_->live_totals(); }
const Oracle& StrategySession::oracle() const { return run_->oracle(); }
int StrategySession::active_instances() const { return run_->active_instances(); }
const std::string& StrategySession::label() const { return run_->label(); }
StrategySession::RedisCalls StrategySession::redis_calls() const { return run_->redis_calls(); }
void StrategySession::write_live_state(nlohmann::ordered_json& out) const {
  run_->write_live_state(out);
}
const HpaDecision* StrategySession::last_autoscale() const { return run_->last_autoscale(); }
void StrategySession::set_trace(std::vector<DecisionRecord>* trace) { run_->set_trace(trace); }
void StrategySession::add_observer(DecisionObserver& observer) { run_->add_observer(observer); }
StrategyResult StrategySession::finish() { return run_->run(); }
StrategyResult StrategySession::stop() { return run_->stop(); }

}  // namespace rlsim
