#pragma once
// One client request as the world produces it, and what a strategy decided about it. Keys are small
// integers so that limiters and the oracle can index by them; world/catalog.h turns them back into
// the strings real code would use.
#include <cstddef>
#include <cstdint>

#include "core/time.h"

namespace rlsim {

struct Request {
  std::uint64_t id = 0;        // unique within a run, in arrival order per traffic group
  TimeUs arrival_us = 0;       // true time the request reaches the load balancer
  std::uint32_t user = 0;      // global user id (groups get consecutive ranges)
  std::uint32_t ip = 0;        // global client IP id
  std::uint32_t endpoint = 0;  // index into the catalog's endpoint names
  std::uint32_t group = 0;     // traffic group index
  std::uint32_t region = 0;    // the region whose load balancer it reaches (docs/regions.md)
  // 0: the client's first send; n: its n-th retry after a denial (world/retry.h). A retry's id is
  // its first send's id with the attempt in bits 48 and up.
  std::uint32_t attempt = 0;
  // The instance (start order) it must go to, bypassing the load balancer while that instance
  // runs (traffic[].instance, a replayed log's instance field); kAnyInstance: the balancer picks.
  std::uint32_t instance = kAnyInstance;
  // A replayed request: what production's limiter decided, as the log says (docs/replay.md).
  enum class Logged : std::uint8_t { kUnknown, kAdmitted, kDenied };
  Logged logged = Logged::kUnknown;

  static constexpr std::uint32_t kAnyInstance = UINT32_MAX;
};

// What a strategy decided about one request.
struct Decision {
  bool allowed = true;
  int denied_by = -1;  // index of the limit that denied, when !allowed
  bool error = false;  // a Redis call failed or timed out while deciding
  // The count the strategy read for the first limit's key (e.g. a sharded total from MGET), or -1
  // when it read none; the oracle compares it with the true count to measure staleness.
  std::int64_t observed_count = -1;
  // The strategy's own count for the first limit's key before this request, where it has one for
  // free and observed_count is -1 (INCR's reply minus one, an in-memory counter); -1 otherwise.
  // Only the decision trace shows it (app/trace.h): staleness compares observed_count alone, so
  // the reports of the strategies that fill this one stay as they were (docs/metrics.md).
  std::int64_t counted_before = -1;
  // The resilience policy decided instead of Redis (after a failed call, or with the circuit
  // breaker open): strategy/resilience.h sets it.
  bool fallback = false;

  // The count the strategy saw for the first limit's key before this request: observed_count,
  // else counted_before; -1 when it has neither. The decision trace and the near-limit alert
  // series show this one.
  std::int64_t count_seen() const { return observed_count >= 0 ? observed_count : counted_before; }

  // Denies the request for limit `index` unless an earlier limit already did: denied_by names the
  // first limit that said no, in limit order.
  void deny_for(std::size_t index) {
    if (!allowed) return;
    allowed = false;
    denied_by = static_cast<int>(index);
  }

  // Limit `index` judged on a counter: over `limit` denies; a counter that could not be read
  // (`read_failed`) denies unless the strategy fails open.
  void judge_count(std::size_t index, bool read_failed, std::int64_t count, std::int64_t limit,
                   bool fail_open) {
    if (read_failed ? !fail_open : count > limit) deny_for(index);
  }
};

}  // namespace rlsim
