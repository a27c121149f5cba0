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
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      const Limit& limit = env_.limits[i];
      const std::int64_t window = local_ms / (limit.window_us / kUsPerMs);
      Counter& counter = per_limit[i][Catalog::key_id(request, limit.key)];
      if (counter.window != window) counter = Counter{window, 0};
      if (counter.count >= limit.limit) return Decision{false, static_cast<int>(i), false};
      hits[i] = &counter;
    }
    for (std::size_t i = 0; i < env_.limits.size(); ++i) ++hits[i]->count;
    return Decision{};
  }

  StrategyEnv env_;
  std::vector<std::vector<PerKey>> counters_;  // [instance id][limit index]
};

}  // namespace

std::unique_ptr<Strategy> make_in_memory(StrategyEnv env) {
  return std::make_unique<InMemory>(std::move(env));
}

}  // namespace rlsim
