#include "world/autoscaler.h"

#include <algorithm>

#include "core/check.h"

namespace rlsim {

namespace {
constexpr std::uint64_t kSyncEvent = 0;
}  // namespace

Autoscaler::Autoscaler(const AutoscaleSpec& spec, Simulator& sim, InstancePool& pool,
                       InstanceObserver& observer, TimeUs end_us,
                       std::vector<std::pair<TimeUs, int>>& instance_counts)
    : spec_(spec),
      sim_(sim),
      pool_(pool),
      observer_(observer),
      end_us_(end_us),
      instance_counts_(instance_counts),
      hpa_(spec) {
  RLSIM_CHECK(spec.enabled && spec.sync_period_us > 0 && spec.metric_window_us >= kUsPerS);
}

void Autoscaler::start() {
  if (spec_.sync_period_us <= end_us_) sim_.schedule(spec_.sync_period_us, this, kSyncEvent);
}

Autoscaler::Bucket& Autoscaler::bucket(std::uint32_t id, TimeUs now_us) {
  std::deque<Bucket>& window = windows_[id];
  const std::int64_t second = now_us / kUsPerS;
  if (window.empty() || window.back().second != second) window.push_back(Bucket{second});
  const std::int64_t window_s = spec_.metric_window_us / kUsPerS;
  while (window.front().second < second - window_s) window.pop_front();
  return window.back();
}

void Autoscaler::on_routed(std::uint32_t id, TimeUs now_us) { ++bucket(id, now_us).offered; }

void Autoscaler::on_decided(std::uint32_t id, bool allowed, TimeUs now_us) {
  // A request decided after its instance stopped no longer counts: that pod has no metrics.
  if (!pool_.get(id).active) return;
  Bucket& b = bucket(id, now_us);
  ++(allowed ? b.admitted : b.denied);
}

void Autoscaler::on_event(std::uint64_t arg) {
  if (arg == kSyncEvent) {
    sync();
    const TimeUs next_us = sim_.now() + spec_.sync_period_us;
    if (next_us <= end_us_) sim_.schedule(next_us, this, kSyncEvent);
    return;
  }
  instance_ready(arg);
}

// Each running instance's metric over the seconds [now - window, now): its requests divided by
// the part of the window it was running (an instance started within the window reports its rate
// since it started; one started this very moment has no metric yet).
HpaInput Autoscaler::measure(TimeUs now_us) {
  HpaInput input;
  input.current_replicas = pool_.active_count() + starting();
  input.unready_pods = starting();
  const std::int64_t now_s = now_us / kUsPerS;
  const std::int64_t window_s = spec_.metric_window_us / kUsPerS;
  for (auto it = windows_.begin(); it != windows_.end();)
    it = pool_.get(it->first).active ? std::next(it) : windows_.erase(it);
  for (const std::uint32_t id : pool_.active_ids()) {
    const DurationUs running_us =
        std::min(spec_.metric_window_us, now_us - pool_.get(id).started_us);
    if (running_us <= 0) {
      ++input.missing_pods;
      continue;
    }
    Bucket sum;
    if (const auto found = windows_.find(id); found != windows_.end()) {
      for (const Bucket& b : found->second) {
        if (b.second < now_s - window_s || b.second >= now_s) continue;
        sum.offered += b.offered;
        sum.admitted += b.admitted;
        sum.denied += b.denied;
      }
    }
    const double running_s = to_seconds(running_us);
    double value = 0;
    switch (spec_.metric) {
      case AutoscaleMetric::kOfferedPerS:
        value = static_cast<double>(sum.offered) / running_s;
        break;
      case AutoscaleMetric::kAdmittedPerS:
        value = static_cast<double>(sum.admitted) / running_s;
        break;
      case AutoscaleMetric::kCpu: {
        // CPU microseconds per microsecond running, in millicores.
        const double cpu_us = static_cast<double>(sum.admitted * spec_.cpu_per_admitted_us +
                                                  sum.denied * spec_.cpu_per_denied_us);
        value = cpu_us / static_cast<double>(running_us) * 1000;
        break;
      }
    }
    input.pod_metrics.push_back(value);
  }
  return input;
}

void Autoscaler::sync() {
  const HpaInput input = measure(sim_.now());
  decisions_.push_back(hpa_.evaluate(sim_.now(), input));
  scale(decisions_.back().desired);
}

// Starts or removes instances until running + starting = desired.
void Autoscaler::scale(int desired) {
  int current = pool_.active_count() + starting();
  const int running_before = pool_.active_count();
  while (current < desired) {
    const TimeUs ready_at_us = sim_.now() + spec_.start_up_delay_us;
    starting_.push_back(Starting{next_ticket_++, ready_at_us});
    ++current;
    // One that would be ready after the end never takes traffic: it stays starting.
    if (ready_at_us <= end_us_) sim_.schedule(ready_at_us, this, starting_.back().ticket);
  }
  while (current > desired && !starting_.empty()) {  // the newest starting ones first
    starting_.pop_back();
    --current;
  }
  if (current > desired)
    pool_.scale_to(pool_.active_count() - (current - desired), sim_.now(), observer_);
  if (pool_.active_count() != running_before) record_count();
}

void Autoscaler::instance_ready(std::uint64_t ticket) {
  const auto it = std::find_if(starting_.begin(), starting_.end(),
                               [&](const Starting& s) { return s.ticket == ticket; });
  if (it == starting_.end()) return;  // removed by a scale-down while it was starting
  starting_.erase(it);
  pool_.scale_to(pool_.active_count() + 1, sim_.now(), observer_);
  record_count();
}

// Instances ready at the same instant are one change in the series.
void Autoscaler::record_count() {
  if (!instance_counts_.empty() && instance_counts_.back().first == sim_.now())
    instance_counts_.back().second = pool_.active_count();
  else
    instance_counts_.emplace_back(sim_.now(), pool_.active_count());
}

}  // namespace rlsim
