#include "app/faults.h"

#include <algorithm>
#include <cmath>

#include "app/cluster_run.h"
#include "report/rounding.h"
#include "strategy/resilience.h"

namespace rlsim {

namespace {

DownMode down_mode(FaultMode mode) {
  return mode == FaultMode::kBlackhole ? DownMode::kBlackhole : DownMode::kRefuse;
}

// The worse of two reachabilities: a black hole makes every call wait its full timeout.
DownMode worse(DownMode a, DownMode b) {
  const auto rank = [](DownMode m) {
    return m == DownMode::kBlackhole ? 2 : m == DownMode::kRefuse;
  };
  return rank(a) >= rank(b) ? a : b;
}

// At most this many points in the ops/s series (the bucket grows with the run).
constexpr DurationUs kMaxSeriesPoints = 600;

}  // namespace

RedisConditions compose_conditions(const std::vector<const FaultSpec*>& active) {
  RedisConditions conditions;
  for (const FaultSpec* fault : active) {
    switch (fault->type) {
      case FaultType::kRedisDown:
        conditions.down = worse(conditions.down, down_mode(fault->mode));
        break;
      case FaultType::kPartition:
        if (fault->all_instances) conditions.down = worse(conditions.down, down_mode(fault->mode));
        break;
      case FaultType::kRedisLatency:
        conditions.rtt_multiplier *= fault->rtt_multiplier;
        conditions.added_rtt_us += fault->added_rtt_us;
        conditions.rtt_jitter_us += fault->rtt_jitter_us;
        break;
      // None of these sets a condition: redis_slow is a schedule set once (slow_periods), since
      // a call's service, computed as it joins the queue, may outlast the fault; crashes are
      // events; clocks are functions of time (world/clock.h).
      case FaultType::kRedisSlow:
      case FaultType::kInstanceCrash:
      case FaultType::kClockOffset:
      case FaultType::kClockDrift:
      case FaultType::kClockJump:
        break;
    }
  }
  return conditions;
}

RedisConditions compose_conditions(const std::vector<const FaultSpec*>& active,
                                   std::int32_t region) {
  std::vector<const FaultSpec*> hitting;
  for (const FaultSpec* fault : active)
    if (fault->region < 0 || fault->region == region) hitting.push_back(fault);
  return compose_conditions(hitting);
}

bool fault_hits_node(const FaultSpec& fault, int node) {
  return fault.nodes.empty() ||
         std::find(fault.nodes.begin(), fault.nodes.end(), node) != fault.nodes.end();
}

void apply_to_cluster(const std::vector<const FaultSpec*>& active, RedisCluster& cluster) {
  for (int n = 0; n < cluster.node_count(); ++n) {
    std::vector<const FaultSpec*> hitting;
    for (const FaultSpec* fault : active)
      if (fault_hits_node(*fault, n)) hitting.push_back(fault);
    cluster.node(n).set_conditions(compose_conditions(hitting));
  }
}

std::vector<SlowPeriod> slow_periods(const std::vector<FaultSpec>& faults,
                                     const std::function<bool(const FaultSpec&)>& hits) {
  std::vector<const FaultSpec*> slow;
  std::vector<TimeUs> bounds_us;
  for (const FaultSpec& fault : faults) {
    if (fault.type != FaultType::kRedisSlow || !hits(fault)) continue;
    slow.push_back(&fault);
    bounds_us.push_back(fault.at_us);
    bounds_us.push_back(fault.at_us + fault.for_us);
  }
  std::sort(bounds_us.begin(), bounds_us.end());
  bounds_us.erase(std::unique(bounds_us.begin(), bounds_us.end()), bounds_us.end());
  std::vector<SlowPeriod> periods;
  for (std::size_t i = 0; i + 1 < bounds_us.size(); ++i) {
    double multiplier = 1.0;
    for (const FaultSpec* fault : slow)
      if (fault->at_us <= bounds_us[i] && bounds_us[i] < fault->at_us + fault->for_us)
        multiplier *= fault->service_multiplier;
    if (multiplier == 1.0) continue;
    if (!periods.empty() && periods.back().until_us == bounds_us[i] &&
        periods.back().multiplier == multiplier)
      periods.back().until_us = bounds_us[i + 1];
    else
      periods.push_back({bounds_us[i], bounds_us[i + 1], multiplier});
  }
  return periods;
}

FaultSchedule::FaultSchedule(const Scenario& scenario, Simulator& sim, Deployment& deployment,
                             InstancePool& pool, Strategy& strategy, const Oracle& oracle,
                             std::vector<std::pair<TimeUs, int>>& instance_counts)
    : scenario_(scenario),
      sim_(sim),
      server_(deployment.front()),
      cluster_(deployment.cluster()),
      pool_(pool),
      strategy_(strategy),
      oracle_(oracle),
      instance_counts_(instance_counts),
      active_(scenario.faults.size(), false),
      windows_(scenario.faults.size()),
      stopped_(scenario.faults.size(), 0),
      resilient_(strategy.resilience()) {
  for (std::uint32_t r = 0; r < deployment.region_count(); ++r)
    servers_.push_back(&deployment.region_server(r));
}

void FaultSchedule::start() {
  for (std::size_t r = 0; r < servers_.size(); ++r) {
    servers_[r]->set_pool_size(scenario_.redis.pool_size);
    // Without regions the one server is region 0, and every fault has region -1 (all).
    const auto region = static_cast<std::int32_t>(r);
    servers_[r]->set_slow_periods(slow_periods(scenario_.faults, [region](const FaultSpec& f) {
      return f.region < 0 || f.region == region;
    }));
  }
  const DurationUs bucket_s = std::max<DurationUs>(
      1, (scenario_.duration_us / kUsPerS + kMaxSeriesPoints - 1) / kMaxSeriesPoints);
  server_.node_stats().set_bucket_us(bucket_s * kUsPerS);
  if (cluster_ != nullptr) {
    for (int n = 0; n < cluster_->node_count(); ++n) {
      cluster_->node(n).set_pool_size(scenario_.redis.pool_size);
      cluster_->node(n).set_slow_periods(slow_periods(
          scenario_.faults, [n](const FaultSpec& fault) { return fault_hits_node(fault, n); }));
      cluster_->node(n).node_stats().set_bucket_us(bucket_s * kUsPerS);
    }
  }
  const DurationUs after_us = scenario_.limits.front().window_us;
  for (std::size_t i = 0; i < scenario_.faults.size(); ++i) {
    const FaultSpec& fault = scenario_.faults[i];
    sim_.schedule(fault.at_us, this, i * 4 + kBegin);
    sim_.schedule(fault.at_us + fault.for_us, this, i * 4 + kEnd);
    sim_.schedule(fault.at_us + fault.for_us + after_us, this, i * 4 + kAfter);
  }
}

FaultSchedule::Snapshot FaultSchedule::snapshot() const {
  const OracleTotals& totals = oracle_.totals();
  Snapshot s;
  s.offered = totals.offered;
  s.allowed = totals.allowed;
  s.denied = totals.denied;
  s.errors = totals.errors;
  for (const LimitMetrics& limit : totals.limits) {
    s.excess += limit.excess;
    s.false_denials += limit.false_denials;
  }
  s.waited_full_timeout = waited_full_timeout_;
  if (resilient_ != nullptr) s.fallback_decisions = resilient_->fallback_decisions();
  return s;
}

void FaultSchedule::on_event(std::uint64_t arg) {
  const std::size_t index = arg / 4;
  const FaultSpec& fault = scenario_.faults[index];
  Window& window = windows_[index];
  switch (static_cast<Phase>(arg % 4)) {
    case kBegin:
      window.at_begin = snapshot();
      active_[index] = true;
      recovering_.clear();  // a new fault: what follows is no longer recovery from the others
      if (fault.type == FaultType::kInstanceCrash) crash(fault, index);
      apply();
      break;
    case kEnd:
      window.at_end = snapshot();
      window.ended = true;
      active_[index] = false;
      recovering_.push_back(index);
      if (fault.type == FaultType::kInstanceCrash && fault.restarts) restart(index);
      apply();
      break;
    case kAfter:
      window.at_after = snapshot();
      window.after_taken = true;
      break;
  }
}

void FaultSchedule::apply() {
  std::vector<const FaultSpec*> active;
  for (std::size_t i = 0; i < active_.size(); ++i)
    if (active_[i]) active.push_back(&scenario_.faults[i]);
  // Without regions the one server is region 0, and every fault has region -1 (all).
  for (std::size_t r = 0; r < servers_.size(); ++r)
    servers_[r]->set_conditions(compose_conditions(active, static_cast<std::int32_t>(r)));
  if (cluster_ != nullptr) apply_to_cluster(active, *cluster_);
  // Partitions of listed instances: each instance any partition ever listed is set again.
  for (const FaultSpec* fault : active) {
    if (fault->type != FaultType::kPartition || fault->all_instances) continue;
    for (std::uint32_t id : fault->instances)
      if (std::find(cut_off_.begin(), cut_off_.end(), id) == cut_off_.end()) cut_off_.push_back(id);
  }
  for (std::uint32_t id : cut_off_) {
    DownMode mode = DownMode::kUp;
    for (const FaultSpec* fault : active) {
      if (fault->type == FaultType::kPartition && !fault->all_instances &&
          std::find(fault->instances.begin(), fault->instances.end(), id) != fault->instances.end())
        mode = worse(mode, down_mode(fault->mode));
    }
    server_.set_client_down(id, mode);
    if (cluster_ != nullptr)  // a partition cuts the instance off from every node
      for (int n = 0; n < cluster_->node_count(); ++n) cluster_->node(n).set_client_down(id, mode);
  }
}

void FaultSchedule::crash(const FaultSpec& fault, std::size_t index) {
  std::vector<std::uint32_t> targets;
  if (fault.all_instances) {
    for (std::uint32_t id = 0; id < pool_.started_count(); ++id)
      if (pool_.get(id).active) targets.push_back(id);
  } else {
    targets = fault.instances;
  }
  for (std::uint32_t id : targets) {
    if (id >= pool_.started_count() || !pool_.stop(id, strategy_)) continue;  // not running
    if (crashed_.size() <= id) crashed_.resize(id + 1, false);
    crashed_[id] = true;
    ++stopped_[index];
  }
  if (stopped_[index] > 0) instance_counts_.emplace_back(sim_.now(), pool_.active_count());
}

void FaultSchedule::restart(std::size_t index) {
  // The crashed processes come back as new instances: fresh ids, empty local state.
  if (stopped_[index] == 0) return;
  pool_.scale_to(pool_.active_count() + stopped_[index], sim_.now(), strategy_);
  instance_counts_.emplace_back(sim_.now(), pool_.active_count());
}

void FaultSchedule::on_decided(const DecidedRequest& decided) {
  const Request& request = decided.request;
  const TimeUs decided_us = decided.decided_us;
  if (decided_us - request.arrival_us >= scenario_.redis.timeout_us) ++waited_full_timeout_;
  if (resilient_ != nullptr && resilient_->fallback_decisions() > fallback_seen_) {
    const auto bucket = static_cast<std::size_t>(decided_us / server_.node_stats().bucket_us());
    if (bucket < NodeStats::kMaxBuckets) {  // as the ops/s series: memory stays bounded
      if (fallback_per_bucket_.size() <= bucket) fallback_per_bucket_.resize(bucket + 1, 0);
      fallback_per_bucket_[bucket] += resilient_->fallback_decisions() - fallback_seen_;
    }
    fallback_seen_ = resilient_->fallback_decisions();
  }
  if (recovering_.empty()) return;
  std::int64_t excess = 0;
  for (const LimitMetrics& limit : oracle_.totals().limits) excess += limit.excess;
  if (excess > excess_seen_) {
    for (std::size_t index : recovering_) windows_[index].last_excess_us = decided_us;
  }
  excess_seen_ = excess;
}

RedisSideResult FaultSchedule::report(TimeUs end_us) const {
  RedisSideResult out;
  out.waited_full_timeout = waited_full_timeout_;
  const RedisStats& stats = server_.stats();
  const NodeStats& node = server_.node_stats();
  if (stats.round_trips + stats.refused + stats.lost > 0)
    out.redis_node = node_result(stats, node, scenario_.redis.pool_size, end_us);
  if (cluster_ != nullptr) add_cluster_result(*cluster_, scenario_.redis.pool_size, end_us, out);
  if (resilient_ != nullptr) {
    ResilienceResult& resilience = out.resilience.emplace(resilient_->report(end_us));
    const double bucket_s = to_seconds(node.bucket_us());
    // As many buckets as the ops/s series: no fallback after the last one reads as 0, not absent.
    std::vector<std::int64_t> counts = fallback_per_bucket_;
    counts.resize(std::max(counts.size(), node.ops_per_bucket().size()), 0);
    BucketSeries<double>& per_s = resilience.fallback_series.emplace();
    per_s.bucket_s = bucket_s;
    for (std::int64_t count : counts)
      per_s.values.push_back(round4(static_cast<double>(count) / bucket_s));
  }
  if (scenario_.faults.empty()) return out;
  const auto delta = [](const Snapshot& from, const Snapshot& to) {
    return FaultWindowResult::Counts{to.offered - from.offered,
                                     to.allowed - from.allowed,
                                     to.denied - from.denied,
                                     to.errors - from.errors,
                                     to.excess - from.excess,
                                     to.false_denials - from.false_denials,
                                     to.waited_full_timeout - from.waited_full_timeout,
                                     to.fallback_decisions - from.fallback_decisions};
  };
  const Snapshot now = snapshot();
  std::vector<FaultWindowResult>& faults = out.faults.emplace();
  for (std::size_t i = 0; i < scenario_.faults.size(); ++i) {
    const FaultSpec& fault = scenario_.faults[i];
    const Window& window = windows_[i];
    const Snapshot& end = window.ended ? window.at_end : now;
    const Snapshot& after = window.after_taken ? window.at_after : now;
    const TimeUs end_of_fault_us = fault.at_us + fault.for_us;
    faults.push_back(FaultWindowResult{
        to_string(fault.type), to_seconds(fault.at_us), to_seconds(fault.for_us),
        delta(window.at_begin, end), delta(end, after),
        window.last_excess_us < 0 ? 0.0 : to_seconds(window.last_excess_us - end_of_fault_us)});
  }
  return out;
}

}  // namespace rlsim
