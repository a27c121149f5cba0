#pragma once
// What one Redis node did, as `INFO commandstats`, `redis-cli --hotkeys` and a latency monitor
// would show it: calls per command name, the keys with the most operations, busy time, the queue
// in front of the single thread, the latency of each call as its client saw it, and operations
// per time bucket. Deterministic: nothing here depends on hash-map iteration order.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/histogram.h"
#include "core/time.h"
#include "redis/cluster_slots.h"
#include "redis/reply.h"

namespace rlsim {

class NodeStats {
 public:
  // Hot keys are tracked with the Space-Saving algorithm in this many counters (few, since each
  // new key scans them all): any key with more than total_ops / kHotKeySlots operations is among
  // them, and each count overstates by at most the smallest count (bounded memory whatever the
  // keyspace).
  static constexpr std::size_t kHotKeySlots = 16;
  static constexpr std::size_t kMaxBuckets = 100'000;

  NodeStats();

  // Operations per bucket of this many microseconds of true time (set before the run).
  void set_bucket_us(DurationUs bucket_us) { bucket_us_ = bucket_us; }
  DurationUs bucket_us() const { return bucket_us_; }
  // The end of the run's traffic (the scenario's duration, set before the run): busy time after it
  // is the backlog draining, reported apart from the utilization over the run.
  void set_run_end_us(TimeUs run_end_us) { run_end_us_ = run_end_us; }

  // One call's commands started service at `start_us`, took `busy_us` of the server's time, and
  // found `commands_ahead` commands queued in front of them.
  void on_execute(const std::vector<Command>& commands, TimeUs start_us, DurationUs busy_us,
                  std::int64_t commands_ahead);
  // A call finished at its client (reply, timeout or refusal) `latency_us` after it was submitted
  // (a wait for a pooled connection included).
  void on_call_done(DurationUs latency_us) { call_latency_us_->record(latency_us); }

  // (command name, calls), sorted by name.
  std::vector<std::pair<std::string, std::uint64_t>> commandstats() const;
  // Up to `n` (key, operations) with the most operations, most first (ties by key).
  std::vector<std::pair<std::string, std::uint64_t>> hot_keys(std::size_t n) const;
  // How much a tracked key's count may overstate its operations: the count it inherited when it
  // took over another key's counter (0 for a key counted from its first operation, or untracked).
  // count - overcount is a guaranteed lower bound.
  std::uint64_t hot_key_overcount(const std::string& key) const;
  DurationUs busy_us() const { return busy_us_; }
  // Server time spent executing before the run's end (at most the run's span: one thread).
  DurationUs busy_in_run_us() const { return busy_in_run_us_; }
  // When the last execution finished (0 before any): past the run's end, the time the backlog
  // took to drain.
  TimeUs free_at_us() const { return free_at_us_; }
  const Histogram& queue_length() const { return *queue_length_; }
  const Histogram& call_latency_us() const { return *call_latency_us_; }
  // Commands started per bucket, from time 0; later buckets beyond kMaxBuckets are dropped.
  const std::vector<std::uint64_t>& ops_per_bucket() const { return ops_per_bucket_; }
  // Server time spent executing per bucket (a call's busy time split across the buckets it
  // spans), for utilization over time; same buckets as ops_per_bucket.
  const std::vector<DurationUs>& busy_per_bucket() const { return busy_per_bucket_; }
  // The longest queue (commands ahead of a starting call) seen in each bucket.
  const std::vector<std::int64_t>& max_queue_per_bucket() const { return max_queue_per_bucket_; }

 private:
  struct CommandCount {
    std::string name;
    std::uint64_t calls = 0;
    KeyRule rule = KeyRule::kFirst;
  };
  void count_key(const std::string& key);

  std::vector<CommandCount> commands_;  // few names: a linear search
  std::vector<std::pair<std::string, std::uint64_t>> key_slots_;
  std::vector<std::size_t> key_hashes_;        // std::hash of each slot's key
  std::vector<std::uint64_t> key_overcounts_;  // each slot's count inherited at its takeover
  DurationUs busy_us_ = 0;
  DurationUs busy_in_run_us_ = 0;
  TimeUs free_at_us_ = 0;
  TimeUs run_end_us_ = std::numeric_limits<TimeUs>::max();
  std::unique_ptr<Histogram> queue_length_;  // ~224 KiB each: kept off the stack
  std::unique_ptr<Histogram> call_latency_us_;
  DurationUs bucket_us_ = kUsPerS;
  std::vector<std::uint64_t> ops_per_bucket_;
  std::vector<DurationUs> busy_per_bucket_;
  std::vector<std::int64_t> max_queue_per_bucket_;
};

}  // namespace rlsim
