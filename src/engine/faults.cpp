#include "engine/faults.h"

#include <algorithm>
#include <cmath>

#include "engine/cluster_run.h"
#include "engine/run_error.h"
#include "engine/store_source.h"
#include "redis/replicated_store.h"
#include "report/rounding.h"
#include "strategy/resilience.h"

namespace rlsim {

namespace {

// At most this many points in the ops/s series (the bucket grows with the run).
constexpr DurationUs kMaxSeriesPoints = 600;

// A redis_failover's phases and losses for the report; nullopt for the other faults (and for one
// that has not started: the run stopped before it).
std::optional<FaultWindowResult::Failover> failover_result(
    const FaultSpec& fault, const std::optional<FailoverLoss>& loss) {
  if (fault.type != FaultType::kRedisFailover || !loss) return std::nullopt;
  FaultWindowResult::Failover out;
  out.replication_lag_ms = static_cast<double>(fault.replication_lag_us) / kUsPerMs;
  out.detected_s = to_seconds(fault.at_us + fault.down_after_us);
  out.promoted_s = to_seconds(fault.at_us + fault.down_after_us + fault.promotion_us);
  out.clients_back_s = to_seconds(fault.at_us + fault.for_us);
  out.lost_writes = loss->writes;
  out.lost_increments = loss->increments;
  out.lost_commands = loss->commands;
  return out;
}

}  // namespace

std::unique_ptr<DataStore> make_front_store(const Scenario& scenario) {
  const auto lag_us = failover_replication_lag(scenario, 0);
  // Any node's failover, not only node 0's: a real cluster's node 1 has no replica rlsim drives.
  const bool fails_over =
      std::any_of(scenario.faults.begin(), scenario.faults.end(),
                  [](const FaultSpec& fault) { return fault.type == FaultType::kRedisFailover; });
  if (fails_over && (!scenario.redis.url.empty() || !scenario.redis.cluster_url.empty()))
    throw RunError(
        "redis_failover is embedded-only: it needs a replica rlsim drives, run it without --redis",
        RunErrorKind::kBadInput);
  if (lag_us && scenario.redis.cluster_nodes == 0)
    return std::make_unique<ReplicatedStore>(*lag_us);
  return store_source().make_store(scenario);
}

FaultSchedule::FaultSchedule(const Scenario& scenario, Simulator& sim, Deployment& deployment,
                             InstancePool& pool, Strategy& strategy, const Oracle& oracle,
                             std::vector<std::pair<TimeUs, int>>& instance_counts)
    : scenario_(scenario),
      sim_(sim),
      server_(deployment.front()),
      cluster_(deployment.cluster()),
      pool_(pool),
      oracle_(oracle),
      instance_counts_(instance_counts),
      injector_(scenario, deployment, pool, strategy),
      windows_(scenario.faults.size()),
      resilient_(strategy.resilience()) {}

void FaultSchedule::start() {
  injector_.prepare();
  const DurationUs bucket_s = std::max<DurationUs>(
      1, (scenario_.duration_us / kUsPerS + kMaxSeriesPoints - 1) / kMaxSeriesPoints);
  server_.node_stats().set_bucket_us(bucket_s * kUsPerS);
  server_.node_stats().set_run_end_us(scenario_.duration_us);
  if (cluster_ != nullptr) {
    for (int n = 0; n < cluster_->node_count(); ++n) {
      cluster_->node(n).node_stats().set_bucket_us(bucket_s * kUsPerS);
      cluster_->node(n).node_stats().set_run_end_us(scenario_.duration_us);
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
  Window& window = windows_[index];
  bool instances_changed = false;
  switch (static_cast<Phase>(arg % 4)) {
    case kBegin:
      window.at_begin = snapshot();
      recovering_.clear();  // a new fault: what follows is no longer recovery from the others
      instances_changed = injector_.begin(index);
      break;
    case kEnd:
      window.at_end = snapshot();
      window.ended = true;
      recovering_.push_back(index);
      instances_changed = injector_.end(index, sim_.now());
      break;
    case kAfter:
      window.at_after = snapshot();
      window.after_taken = true;
      break;
  }
  if (instances_changed) instance_counts_.emplace_back(sim_.now(), pool_.active_count());
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
        window.last_excess_us < 0 ? 0.0 : to_seconds(window.last_excess_us - end_of_fault_us),
        failover_result(fault, injector_.failover_loss(i))});
  }
  return out;
}

}  // namespace rlsim
