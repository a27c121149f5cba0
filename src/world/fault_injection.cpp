#include "world/fault_injection.h"

#include <algorithm>
#include <array>

#include "core/check.h"

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

void compose_down(const FaultSpec& fault, RedisConditions& conditions) {
  conditions.down = worse(conditions.down, down_mode(fault.mode));
}

// A partition of every instance cuts the node off for all; one of listed instances cuts only
// them off (cuts_instances_off), which is no condition of the node.
void compose_partition(const FaultSpec& fault, RedisConditions& conditions) {
  if (fault.all_instances) compose_down(fault, conditions);
}

void compose_latency(const FaultSpec& fault, RedisConditions& conditions) {
  conditions.rtt_multiplier *= fault.rtt_multiplier;
  conditions.added_rtt_us += fault.added_rtt_us;
  conditions.rtt_jitter_us += fault.rtt_jitter_us;
}

// The table of fault effects: one row per type, in FaultType's order.
constexpr std::array<FaultEffectRow, 11> kFaultEffects = {{
    {FaultType::kRedisDown, compose_down, false, false, false, false, false, false},
    {FaultType::kRedisLatency, compose_latency, false, false, false, false, false, false},
    {FaultType::kRedisSlow, nullptr, true, false, false, false, false, false},
    {FaultType::kPartition, compose_partition, false, true, false, false, false, false},
    {FaultType::kInstanceCrash, nullptr, false, false, true, false, false, false},
    {FaultType::kClockOffset, nullptr, false, false, false, false, false, false},
    {FaultType::kClockDrift, nullptr, false, false, false, false, false, false},
    {FaultType::kClockJump, nullptr, false, false, false, false, false, false},
    {FaultType::kRedisRestart, compose_down, false, false, false, true, false, false},
    {FaultType::kPeerPartition, nullptr, false, false, false, false, true, false},
    {FaultType::kRedisFailover, compose_down, false, false, false, false, false, true},
}};

}  // namespace

const FaultEffectRow& fault_effect(FaultType type) {
  const auto index = static_cast<std::size_t>(type);
  RLSIM_CHECK(index < kFaultEffects.size() && kFaultEffects[index].type == type);
  return kFaultEffects[index];
}

RedisConditions compose_conditions(const std::vector<const FaultSpec*>& active) {
  RedisConditions conditions;
  for (const FaultSpec* fault : active) {
    if (const auto compose = fault_effect(fault->type).compose) compose(*fault, conditions);
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

std::optional<DurationUs> failover_replication_lag(const Scenario& scenario, int node) {
  for (const FaultSpec& fault : scenario.faults)
    if (fault_effect(fault.type).fails_over && fault_hits_node(fault, node))
      return fault.replication_lag_us;
  return std::nullopt;
}

std::vector<SlowPeriod> slow_periods(const std::vector<FaultSpec>& faults,
                                     const std::function<bool(const FaultSpec&)>& hits) {
  std::vector<const FaultSpec*> slow;
  std::vector<TimeUs> bounds_us;
  for (const FaultSpec& fault : faults) {
    if (!fault_effect(fault.type).slows_service || !hits(fault)) continue;
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

FaultInjector::FaultInjector(const Scenario& scenario, Deployment& deployment, InstancePool& pool,
                             InstanceObserver& observer)
    : scenario_(scenario),
      server_(deployment.front()),
      cluster_(deployment.cluster()),
      peer_links_(deployment.peer_links()),
      pool_(pool),
      observer_(observer),
      active_(scenario.faults.size(), false),
      stopped_(scenario.faults.size(), 0),
      failover_losses_(scenario.faults.size()) {
  for (std::uint32_t r = 0; r < deployment.region_count(); ++r)
    servers_.push_back(&deployment.region_server(r));
}

void FaultInjector::prepare() {
  for (std::size_t r = 0; r < servers_.size(); ++r) {
    servers_[r]->set_pool_size(scenario_.redis.pool_size);
    // Without regions the one server is region 0, and every fault has region -1 (all).
    const auto region = static_cast<std::int32_t>(r);
    servers_[r]->set_slow_periods(slow_periods(scenario_.faults, [region](const FaultSpec& f) {
      return f.region < 0 || f.region == region;
    }));
  }
  if (cluster_ == nullptr) return;
  for (int n = 0; n < cluster_->node_count(); ++n) {
    cluster_->node(n).set_pool_size(scenario_.redis.pool_size);
    cluster_->node(n).set_slow_periods(slow_periods(
        scenario_.faults, [n](const FaultSpec& fault) { return fault_hits_node(fault, n); }));
  }
}

bool FaultInjector::begin(std::size_t index) {
  const FaultSpec& fault = scenario_.faults[index];
  active_[index] = true;
  const bool crashed = fault_effect(fault.type).crashes_instances && crash(fault, index);
  if (fault_effect(fault.type).loses_data) lose_data(fault);
  if (fault_effect(fault.type).fails_over) fail_over(fault, index);
  apply();
  return crashed;
}

void FaultInjector::fail_over(const FaultSpec& fault, std::size_t index) {
  // The loader allows it on the embedded Redis (one server, no regions) or embedded cluster only.
  FailoverLoss& total = failover_losses_[index].emplace();
  const auto add = [&total](const std::optional<FailoverLoss>& loss) {
    RLSIM_CHECK(loss.has_value());
    total.writes += loss->writes;
    total.increments += loss->increments;
    total.commands += loss->commands;
  };
  if (cluster_ == nullptr) {
    add(server_.fail_over());
    return;
  }
  for (int n = 0; n < cluster_->node_count(); ++n)
    if (fault_hits_node(fault, n)) add(cluster_->node(n).fail_over());
}

void FaultInjector::lose_data(const FaultSpec& fault) {
  // With a cluster its nodes hold the data; the front server's store may be the whole real
  // cluster (make_real_cluster_nodes), which a restart of some nodes must not empty.
  if (cluster_ != nullptr) {
    for (int n = 0; n < cluster_->node_count(); ++n)
      if (fault_hits_node(fault, n)) cluster_->node(n).lose_data();
    return;
  }
  for (std::size_t r = 0; r < servers_.size(); ++r)
    if (fault.region < 0 || fault.region == static_cast<std::int32_t>(r)) servers_[r]->lose_data();
}

bool FaultInjector::end(std::size_t index, TimeUs now_us) {
  const FaultSpec& fault = scenario_.faults[index];
  active_[index] = false;
  const bool restarted =
      fault_effect(fault.type).crashes_instances && fault.restarts && restart(index, now_us);
  apply();
  return restarted;
}

void FaultInjector::apply() {
  std::vector<const FaultSpec*> active;
  for (std::size_t i = 0; i < active_.size(); ++i)
    if (active_[i]) active.push_back(&scenario_.faults[i]);
  // Without regions the one server is region 0, and every fault has region -1 (all).
  for (std::size_t r = 0; r < servers_.size(); ++r)
    servers_[r]->set_conditions(compose_conditions(active, static_cast<std::int32_t>(r)));
  if (cluster_ != nullptr) {
    for (int n = 0; n < cluster_->node_count(); ++n) {
      std::vector<const FaultSpec*> hitting;
      for (const FaultSpec* fault : active)
        if (fault_hits_node(*fault, n)) hitting.push_back(fault);
      cluster_->node(n).set_conditions(compose_conditions(hitting));
    }
  }
  std::vector<const FaultSpec*> peer_partitions;
  for (const FaultSpec* fault : active)
    if (fault_effect(fault->type).cuts_peer_links) peer_partitions.push_back(fault);
  peer_links_.set_partitions(peer_partitions);
  // Partitions of listed instances: each instance any partition ever listed is set again.
  const auto cuts_off = [](const FaultSpec& fault) {
    return fault_effect(fault.type).cuts_instances_off && !fault.all_instances;
  };
  for (const FaultSpec* fault : active) {
    if (!cuts_off(*fault)) continue;
    for (std::uint32_t id : fault->instances)
      if (std::find(cut_off_.begin(), cut_off_.end(), id) == cut_off_.end()) cut_off_.push_back(id);
  }
  for (std::uint32_t id : cut_off_) {
    DownMode mode = DownMode::kUp;
    for (const FaultSpec* fault : active) {
      if (cuts_off(*fault) &&
          std::find(fault->instances.begin(), fault->instances.end(), id) != fault->instances.end())
        mode = worse(mode, down_mode(fault->mode));
    }
    server_.set_client_down(id, mode);
    if (cluster_ != nullptr)  // a partition cuts the instance off from every node
      for (int n = 0; n < cluster_->node_count(); ++n) cluster_->node(n).set_client_down(id, mode);
  }
}

bool FaultInjector::crash(const FaultSpec& fault, std::size_t index) {
  std::vector<std::uint32_t> targets;
  if (fault.all_instances) {
    for (std::uint32_t id = 0; id < pool_.started_count(); ++id)
      if (pool_.get(id).active) targets.push_back(id);
  } else {
    targets = fault.instances;
  }
  for (std::uint32_t id : targets) {
    if (id >= pool_.started_count() || !pool_.stop(id, observer_)) continue;  // not running
    if (crashed_.size() <= id) crashed_.resize(id + 1, false);
    crashed_[id] = true;
    ++stopped_[index];
  }
  return stopped_[index] > 0;
}

bool FaultInjector::restart(std::size_t index, TimeUs now_us) {
  // The crashed processes come back as new instances: fresh ids, empty local state.
  if (stopped_[index] == 0) return false;
  pool_.scale_to(pool_.active_count() + stopped_[index], now_us, observer_);
  return true;
}

}  // namespace rlsim
