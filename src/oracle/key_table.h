#pragma once
// KeyTable: the oracle's per-key state for one limit, with idle keys freed so that memory follows
// the keys that are active, not every key ever seen. A key is freed only when its state is as good
// as a new one (the caller's `idle` predicate), so freeing never changes a metric or a verdict.
// Sweeps are amortized and deterministic: one runs, over the whole table, when at least
// `period_us` of true time has passed since the last one AND the table has been looked up at least
// max(kMinLookups, size after the last sweep) times since; a sweep therefore costs O(1) per lookup.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <unordered_map>

#include "core/time.h"

namespace rlsim {

template <typename State>
class KeyTable {
 public:
  static constexpr std::uint64_t kMinLookups = 1024;

  // The state of `key`, created by `make()` when the key is new (or was freed).
  template <typename Make>
  State& get(std::uint64_t key, Make make) {
    ++lookups_since_sweep_;
    auto it = states_.find(key);
    if (it == states_.end()) it = states_.emplace(key, make()).first;
    return it->second;
  }

  // Frees every key whose state is idle at `now_us` when a sweep is due (see above). `now_us`
  // must not go backwards; `idle(state, now_us)` must only be true for states equivalent to new.
  template <typename Idle>
  void maybe_sweep(TimeUs now_us, DurationUs period_us, Idle idle) {
    if (lookups_since_sweep_ < std::max<std::uint64_t>(kMinLookups, size_after_sweep_)) return;
    if (last_sweep_us_ != kNever && now_us - last_sweep_us_ < period_us) return;
    for (auto it = states_.begin(); it != states_.end();) {
      it = idle(it->second, now_us) ? states_.erase(it) : std::next(it);
    }
    // Give back the bucket array too when most keys left.
    if (states_.bucket_count() > 4 * (states_.size() + 16)) states_.rehash(0);
    size_after_sweep_ = states_.size();
    lookups_since_sweep_ = 0;
    last_sweep_us_ = now_us;
  }

  std::size_t size() const { return states_.size(); }

 private:
  static constexpr TimeUs kNever = std::numeric_limits<TimeUs>::min();
  std::unordered_map<std::uint64_t, State> states_;
  std::uint64_t lookups_since_sweep_ = 0;
  std::size_t size_after_sweep_ = 0;
  TimeUs last_sweep_us_ = kNever;
};

}  // namespace rlsim
