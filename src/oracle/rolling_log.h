#pragma once
// RollingLog: one key's events (admissions) in the half-open interval (now - window, now], for the
// exact sliding log and the rolling-window metrics. Memory is bounded per key, whatever the
// number of events:
//   1. The times of the most recent kExactEvents events are kept exactly (a ring that grows on
//      demand and shrinks when it empties). While fewer than kExactEvents events lie inside the
//      window, count() is exact.
//   2. When more than kExactEvents events fall inside one window, the log also counts events in
//      sub-intervals of ceil(window / kBuckets) microseconds, aligned on multiples of that width,
//      until the window holds fewer than kExactEvents again. Meanwhile count() is an estimate that
//      may overstate (never understate) by the events of the oldest sub-interval that lie at or
//      before now - window, i.e. by at most the events in one sub-interval of about window / 1024.
//   3. at_least(n) is exact whenever n <= kExactEvents (the n-th most recent event is in the ring).
// The bound per key is about 8 * (kExactEvents + kBuckets + 1) bytes = 40 KiB, reached only by a
// key with more than kExactEvents events in one window. Times must never go backwards.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "core/check.h"
#include "core/time.h"

namespace rlsim {

class RollingLog {
 public:
  static constexpr std::size_t kExactEvents = 4096;
  static constexpr std::int64_t kBuckets = 1024;

  // Records an event at `at_us` and returns count(at_us, window_us) including it.
  // REQUIRES: at_us >= the time of every earlier call.
  std::int64_t add(TimeUs at_us, DurationUs window_us);
  // Events in (now - window, now]: exact while fewer than kExactEvents, else an overestimate (2.).
  // REQUIRES: now_us >= the time of every earlier call.
  std::int64_t count(TimeUs now_us, DurationUs window_us);
  // Whether (now - window, now] holds at least n events; exact for n <= kExactEvents.
  bool at_least(std::int64_t n, TimeUs now_us, DurationUs window_us);
  // True when the window ending now holds no event: the log is then as good as a new one.
  bool empty(TimeUs now_us, DurationUs window_us) { return count(now_us, window_us) == 0; }
  // False while the log counts in sub-intervals (2.); for tests and documentation.
  bool exact() const { return buckets_ == nullptr; }

 private:
  struct Buckets {
    DurationUs width_us = 1;
    std::int64_t low_index = 0;  // the oldest sub-interval still counted
    std::int64_t total = 0;      // events in sub-intervals low_index .. low_index + kBuckets
    std::vector<std::int64_t> counts = std::vector<std::int64_t>(kBuckets + 1, 0);
    void add(TimeUs at_us);
    void drop_before(std::int64_t index);
  };
  // Drops events at or before now - window (inline: on the hot path nothing is dropped).
  void trim(TimeUs now_us, DurationUs window_us) {
    RLSIM_CHECK(window_us > 0 && now_us >= last_us_);
    last_us_ = now_us;
    if ((size_ > 0 && ring_[head_] <= now_us - window_us) || buckets_ != nullptr)
      drop_old(now_us, window_us);
  }
  void drop_old(TimeUs now_us, DurationUs window_us);
  void push(TimeUs at_us);
  void resize_ring(std::size_t capacity);
  // The ring's capacity is 0 or a power of two, so a mask replaces the modulo.
  std::size_t wrap(std::size_t i) const { return i & (ring_.size() - 1); }
  TimeUs at(std::size_t i) const { return ring_[wrap(head_ + i)]; }

  std::vector<TimeUs> ring_;  // ring_[wrap(head_ + i)] for i < size_, oldest first
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  std::unique_ptr<Buckets> buckets_;  // only while the window holds kExactEvents or more events
  TimeUs last_us_ = std::numeric_limits<TimeUs>::min();  // times never go backwards
};

}  // namespace rlsim
