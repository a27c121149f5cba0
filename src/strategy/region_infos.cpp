// Registry entries of the multi-region strategies (docs/regions.md).
#include "strategy/clock_source.h"
#include "strategy/registry.h"

namespace rlsim {

StrategyInfo region_local_info() {
  return StrategyInfo{
      "region_local",
      "each region counts on its own Redis (fixed window): fast, but up to limit x regions",
      "The fixed-window counter of redis_fixed_window (INCR rl:<kind>:<value>:<window>, EXPIRE on "
      "the first hit, window from the instance's clock), sent to the Redis of the instance's own "
      "region (clock redis_time: TIME of that Redis). Every decision costs one round trip inside "
      "the region, so no request pays a cross-region round trip; but the regions do not share "
      "counts, so a user whose requests "
      "land in several regions (travel, a geo-DNS failover: the traffic group's roaming) gets the "
      "limit in each: up to limit x regions per window. Without regions in the scenario it is "
      "redis_fixed_window.",
      {on_error_param(), clock_param(), clock_refresh_param()},
      Algorithm::kFixedWindow,
      make_region_local,
      nullptr,
      nullptr};
}

StrategyInfo global_redis_info() {
  return StrategyInfo{
      "global_redis",
      "one Redis in the home region counts for everyone: exact, but other regions pay the "
      "cross-region round trip",
      "The fixed-window counter of redis_fixed_window, always sent to the Redis of the home region "
      "(regions.home). One counter for the whole world holds the limit across regions, as one "
      "Redis holds it across instances; the price is latency: an instance in another region adds "
      "the round trip between the regions (regions.rtt, e.g. 80-150 ms) to every decision, and the "
      "client timeout must exceed it. The report's regions[] shows the latency per region. "
      "Without regions in the scenario it is redis_fixed_window.",
      {on_error_param(), clock_param(), clock_refresh_param()},
      Algorithm::kFixedWindow,
      make_global_redis,
      nullptr,
      nullptr};
}

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
                 "duration",
                 "1s",
                 "how long an increment takes to reach the other regions",
                 {},
                 false}},
      Algorithm::kFixedWindow,
      make_crdt_counter,
      nullptr,
      nullptr};
}

}  // namespace rlsim
