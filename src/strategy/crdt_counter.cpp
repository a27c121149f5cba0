// crdt_counter: a fixed-window count per key kept as a G-counter with one slot per region
// (strategy/g_counter.h). Each region decides on its own replica at once (no round trip to another
// region): admitted while the merged count of the window is below the limit, and then it
// increments its own slot. Every increment ships the region's counter to every other region, where
// it arrives `replication_delay` later and is merged. Until then the other regions do not see it,
// so a user whose requests land in several regions can get up to limit x regions in a window when
// the delay is long, and close to the limit when it is short (docs/regions.md).
#include <deque>
#include <unordered_map>

#include "strategy/g_counter.h"
#include "strategy/registry.h"

namespace rlsim {
namespace {

struct CrdtCounterParams {
  DurationUs replication_delay_us = kUsPerS;  // an increment's trip to the other regions
};

CrdtCounterParams parse_crdt_counter_params(const ParamReader& params) {
  return CrdtCounterParams{params.duration_us("replication_delay")};
}

class CrdtCounter final : public Strategy, public EventTarget {
 public:
  explicit CrdtCounter(StrategyEnv env)
      : env_(std::move(env)),
        delay_us_(parse_crdt_counter_params(ParamReader(env_.params)).replication_delay_us),
        // A replica per region (one without regions).
        replicas_(env_.deployment != nullptr ? env_.deployment->region_count() : 1) {}

  Task<Decision> decide(Request request, const Instance& instance) override {
    const std::uint32_t region = instance.region;
    Replica& replica = replicas_[region];
    const TimeUs local_us = instance.local_unix_us(env_.sim.now());
    sweep(replica, local_us);
    // Check every limit on the merged view, then count the admission in each.
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      const auto it = replica.counters.find(key_of(i, request, local_us));
      if (it != replica.counters.end() && it->second.value() >= env_.limits[i].limit)
        co_return Decision{false, static_cast<int>(i), false};
    }
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      const Key key = key_of(i, request, local_us);
      GCounter& counter = replica.counters[key];
      counter.increment(region);
      for (std::uint32_t other = 0; other < replicas_.size(); ++other) {
        if (other == region) continue;
        messages_.push_back(Message{other, key, counter});
        env_.sim.schedule(env_.sim.now() + delay_us_, this);
        ++sent_;
      }
    }
    co_return Decision{};
  }

  // A replication message arrives (messages share one delay, so they arrive in the order sent).
  void on_event(std::uint64_t) override {
    Message& message = messages_.front();
    replicas_[message.region].counters[message.key].merge(message.counter);
    messages_.pop_front();
  }

  void write_metrics(nlohmann::ordered_json& out) const override {
    out["replication_delay_us"] = delay_us_;
    out["replication_messages"] = sent_;
  }

 private:
  struct Key {
    std::uint64_t id = 0;     // limit index and the request's key for that limit
    std::int64_t window = 0;  // aligned window on the deciding instance's clock
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& key) const {
      return static_cast<std::size_t>(
          mix64(key.id ^ mix64(static_cast<std::uint64_t>(key.window))));
    }
  };
  struct Replica {
    std::unordered_map<Key, GCounter, KeyHash> counters;
    std::size_t sweep_at = 1024;  // sweep when the map reaches this size
  };
  struct Message {
    std::uint32_t region;
    Key key;
    GCounter counter;
  };

  Key key_of(std::size_t limit_index, const Request& request, TimeUs local_us) const {
    const Limit& limit = env_.limits[limit_index];
    return Key{
        (static_cast<std::uint64_t>(limit_index) << 48) ^ Catalog::key_id(request, limit.key),
        local_us / limit.window_us};
  }

  // Windows older than the previous one are never read again: drop them, amortized.
  void sweep(Replica& replica, TimeUs local_us) {
    if (replica.counters.size() < replica.sweep_at) return;
    std::erase_if(replica.counters, [&](const auto& entry) {
      const Limit& limit = env_.limits[entry.first.id >> 48];
      return entry.first.window < local_us / limit.window_us - 1;
    });
    replica.sweep_at = std::max<std::size_t>(1024, 2 * replica.counters.size());
  }

  StrategyEnv env_;
  DurationUs delay_us_;
  std::vector<Replica> replicas_;  // by region
  std::deque<Message> messages_;   // in flight, in send order
  std::uint64_t sent_ = 0;
};

StrategyInfo crdt_counter_info() {
  return StrategyInfo{
      "crdt_counter",
      "a G-counter per key and window with one slot per region, replicated asynchronously; "
      "decisions on the merged view",
      "Each region keeps a replica of a grow-only counter (G-counter) per key and aligned window "
      "(window from the instance's clock), one slot per region. A region decides on its own "
      "replica at once, with no round trip: admitted while the merged count (the sum of the "
      "slots) is below the limit, and then it increments its own slot and ships its counter to "
      "every other region, where it is merged (the larger value of each slot) replication_delay "
      "later. Merging is idempotent, commutative and monotonic, so replicas converge whatever "
      "the delivery order. Until a region hears of the others' admissions it admits on its own "
      "count: the overshoot grows with the replication delay, from about the limit (delay near "
      "0) to limit x regions (a delay as long as the window). The replicas live in the "
      "simulator's memory (as a CRDT store's local replica would); no Redis command is sent.",
      {ParamSpec{"replication_delay",
                 ParamType::kDuration,
                 "1s",
                 "how long an increment takes to reach the other regions",
                 {},
                 false}},
      Algorithm::kFixedWindow,
      construct<CrdtCounter>,
      nullptr,
      nullptr};
}

const StrategyRegistration kCrdtCounterRegistration(150, crdt_counter_info);

}  // namespace

}  // namespace rlsim
