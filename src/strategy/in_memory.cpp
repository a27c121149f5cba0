// in_memory: the lesson's process-local fixed window (local_fallback_allow). Correct on one
// instance; behind N instances each one admits the full limit.
#include <unordered_map>

#include "strategy/registry.h"

namespace rlsim {
namespace {

class InMemory final : public Strategy {
 public:
  explicit InMemory(StrategyEnv env) : env_(std::move(env)) {}

  Task<Decision> decide(Request request, const Instance& instance) override {
    co_return decide_now(request, instance);
  }

  void on_instance_start(const Instance& instance) override {
    if (counters_.size() <= instance.id) counters_.resize(instance.id + 1);
    counters_[instance.id].assign(env_.limits.size(), {});
  }
  void on_instance_stop(const Instance& instance) override {
    counters_[instance.id] = {};  // the process is gone, and its memory with it
  }

 private:
  struct Counter {
    std::int64_t window = -1;
    std::int64_t count = 0;
  };
  using PerKey = std::unordered_map<std::uint64_t, Counter>;

  Decision decide_now(const Request& request, const Instance& instance) {
    const TimeUs local_ms = instance.local_unix_us(env_.sim.now()) / kUsPerMs;
    auto& per_limit = counters_[instance.id];
    Counter* hits[ScenarioBounds::kMaxLimits];
    Decision decision;
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      const Limit& limit = env_.limits[i];
      const std::int64_t window = local_ms / (limit.window_us / kUsPerMs);
      Counter& counter = per_limit[i][Catalog::key_id(request, limit.key)];
      if (counter.window != window) counter = Counter{window, 0};
      if (i == 0) decision.counted_before = counter.count;
      if (counter.count >= limit.limit) {
        decision.deny_for(i);
        return decision;
      }
      hits[i] = &counter;
    }
    for (std::size_t i = 0; i < env_.limits.size(); ++i) ++hits[i]->count;
    return decision;
  }

  StrategyEnv env_;
  std::vector<std::vector<PerKey>> counters_;  // [instance id][limit index]
};

StrategyInfo declare_in_memory() {
  StrategyInfo info{
      "in_memory",
      "per-instance fixed-window counter in process memory (the anti-pattern: N instances admit N "
      "x limit)",
      "Each instance keeps its own counter per key and window in a local dictionary, exactly like "
      "the lesson's local_fallback_allow(): the window is int(time.time() // window) on the "
      "instance's own clock, a request is allowed while the local count is below the limit, and "
      "nothing is shared. It sends no Redis commands and adds no latency. Its trade-off is the "
      "lesson's first point: behind a load balancer with N instances each one allows the full "
      "limit, so a user gets up to N x limit (10 instances x 100/min = 1000/min), and with "
      "autoscaling the effective limit moves with the instance count. A new instance starts with "
      "empty counters.",
      {},
      Algorithm::kFixedWindow,
      construct<InMemory>,
      nullptr,
      nullptr};
  info.per_instance_limit = true;
  return info;
}

const StrategyRegistration kInMemoryRegistration(10, declare_in_memory);

}  // namespace

}  // namespace rlsim
