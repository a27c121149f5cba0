#pragma once
// RollingLog: one key's events (admissions) in the half-open interval (now - window, now], for the
// exact sliding log and the rolling-window metrics. Exact at any rate: it keeps the time of every
// event still inside the window, oldest first, in a ring (a deque of times), and drops events from
// the front as they leave the window. Each event is pushed once and popped once, so the cost is
// amortized O(1) per event, and at_least(n) reads the n-th newest time directly.
// Memory follows the events inside one window, never the run's length: the ring's capacity is 0 or
// a power of two, grows by doubling when full and shrinks to a quarter when it is eight times
// larger than what it holds. So it is at most 8 * bit_ceil(E) bytes, under 16 bytes per event,
// where E is the most events the key ever had in one window (docs/metrics.md, "Memory"), and a key
// with few events holds a ring of 2 or 4 times. Times must never go backwards.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/check.h"
#include "core/time.h"

namespace rlsim {

class RollingLog {
 public:
  // Records an event at `at_us` and returns count(at_us, window_us) including it.
  // REQUIRES: at_us >= the time of every earlier call.
  std::int64_t add(TimeUs at_us, DurationUs window_us);
  // Events in (now - window, now], exactly.
  // REQUIRES: now_us >= the time of every earlier call.
  std::int64_t count(TimeUs now_us, DurationUs window_us) {
    trim(now_us, window_us);
    return static_cast<std::int64_t>(size_);
  }
  // Whether (now - window, now] holds at least n events.
  bool at_least(std::int64_t n, TimeUs now_us, DurationUs window_us) {
    return n <= count(now_us, window_us);
  }
  // True when the window ending now holds no event: the log is then as good as a new one.
  bool empty(TimeUs now_us, DurationUs window_us) { return count(now_us, window_us) == 0; }
  // Times the ring can hold without growing (its memory is 8 bytes each); for tests.
  std::size_t capacity() const { return ring_.size(); }

 private:
  // Drops events at or before now - window (inline: on the hot path nothing is dropped).
  void trim(TimeUs now_us, DurationUs window_us) {
    RLSIM_CHECK(window_us > 0 && now_us >= last_us_);
    last_us_ = now_us;
    if (size_ > 0 && ring_[head_] <= now_us - window_us) drop_old(now_us - window_us);
  }
  void drop_old(TimeUs oldest_out_us);
  void resize_ring(std::size_t capacity);
  // The ring's capacity is 0 or a power of two, so a mask replaces the modulo.
  std::size_t wrap(std::size_t i) const { return i & (ring_.size() - 1); }
  TimeUs at(std::size_t i) const { return ring_[wrap(head_ + i)]; }

  std::vector<TimeUs> ring_;  // ring_[wrap(head_ + i)] for i < size_, oldest first
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  TimeUs last_us_ = std::numeric_limits<TimeUs>::min();  // times never go backwards
};

}  // namespace rlsim
