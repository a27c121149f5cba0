#pragma once
// `rlsim recommend` (docs/cli.md#recommend): limits recommended from a replayed log's own traffic.
// One pass over the log counts each key's requests per window of the limit (windows aligned on
// log time); from those counts, for a candidate limit L, how many keys ever go over L in a window
// and how many requests would be over it. Memory: one entry per distinct key and a histogram of
// window counts, never the log.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/time.h"

namespace rlsim {

// What a candidate limit would deny in the counted traffic.
struct LimitCandidate {
  std::int64_t limit = 0;
  std::int64_t keys_over = 0;        // keys with a window of more than `limit` requests
  std::int64_t requests_over = 0;    // requests beyond `limit` in their key's window
  std::int64_t heavy_keys_over = 0;  // of keys_over, those among the heaviest (top 1%, at least 1)
};

class KeyRateCounter {
 public:
  explicit KeyRateCounter(DurationUs window_us) : window_us_(window_us) {}
  // One request of `key` at log time `time_us`. A request earlier than its key's current window
  // (logs are written when requests end) counts in the current window.
  void add(const std::string& key, std::int64_t time_us);
  // Closes every key's open window. Call once, after the last add().
  void finish();

  std::int64_t requests() const { return requests_; }
  std::int64_t keys() const { return static_cast<std::int64_t>(keys_.size()); }
  // The nearest-rank `percentile` (0 to 100) of the keys' peak window counts.
  std::int64_t peak_percentile(double percentile) const;
  LimitCandidate candidate(std::int64_t limit) const;
  // keys_over and requests_over of candidate(limit) alone, without walking the keys.
  std::pair<std::int64_t, std::int64_t> over(std::int64_t limit) const;
  // Candidates at the peaks' 50th, 90th, 99th percentile and maximum, and `current` (the
  // scenario's limit), each once, ascending.
  std::vector<std::int64_t> candidate_limits(std::int64_t current) const;

 private:
  struct KeyState {
    std::int64_t window = INT64_MIN;
    std::int64_t count = 0;
    std::int64_t peak = 0;
    std::int64_t total = 0;
  };
  void close(KeyState& state);

  DurationUs window_us_;
  std::unordered_map<std::string, KeyState> keys_;
  std::vector<std::int64_t> window_counts_;  // [c]: closed windows with c requests
  std::vector<std::int64_t> sorted_peaks_;   // filled by finish()
  std::int64_t heavy_total_floor_ = 0;       // a key with this many requests or more is heavy
  std::int64_t requests_ = 0;
};

}  // namespace rlsim
