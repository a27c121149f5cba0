#include "app/recommend.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/check.h"

namespace rlsim {

void KeyRateCounter::add(const std::string& key, std::int64_t time_us) {
  RLSIM_CHECK(sorted_peaks_.empty());  // not after finish()
  const std::int64_t window =
      time_us >= 0 ? time_us / window_us_ : (time_us - window_us_ + 1) / window_us_;
  KeyState& state = keys_[key];
  if (window > state.window) {
    if (state.window != INT64_MIN) close(state);
    state.window = window;
    state.count = 0;
  }
  ++state.count;
  ++state.total;
  ++requests_;
}

void KeyRateCounter::close(KeyState& state) {
  const auto count = static_cast<std::size_t>(state.count);
  if (window_counts_.size() <= count) window_counts_.resize(count + 1, 0);
  ++window_counts_[count];
  state.peak = std::max(state.peak, state.count);
}

void KeyRateCounter::finish() {
  std::vector<std::int64_t> totals;
  for (auto& [key, state] : keys_) {
    close(state);
    state.count = 0;
    sorted_peaks_.push_back(state.peak);
    totals.push_back(state.total);
  }
  std::sort(sorted_peaks_.begin(), sorted_peaks_.end());
  // The heaviest keys: the top 1% by requests (at least one key).
  std::sort(totals.begin(), totals.end(), std::greater<>());
  const std::size_t heavy = std::max<std::size_t>(1, totals.size() / 100);
  heavy_total_floor_ = totals.empty() ? 0 : totals[heavy - 1];
}

std::int64_t KeyRateCounter::peak_percentile(double percentile) const {
  if (sorted_peaks_.empty()) return 0;
  const auto n = static_cast<double>(sorted_peaks_.size());
  const auto rank = static_cast<std::size_t>(std::ceil(percentile / 100 * n));
  return sorted_peaks_[std::clamp<std::size_t>(rank, 1, sorted_peaks_.size()) - 1];
}

std::pair<std::int64_t, std::int64_t> KeyRateCounter::over(std::int64_t limit) const {
  std::int64_t requests_over = 0;
  for (std::size_t c = static_cast<std::size_t>(std::max<std::int64_t>(limit, 0)) + 1;
       c < window_counts_.size(); ++c)
    requests_over += (static_cast<std::int64_t>(c) - limit) * window_counts_[c];
  const auto first_over = std::upper_bound(sorted_peaks_.begin(), sorted_peaks_.end(), limit);
  return {sorted_peaks_.end() - first_over, requests_over};
}

LimitCandidate KeyRateCounter::candidate(std::int64_t limit) const {
  LimitCandidate out;
  out.limit = limit;
  std::tie(out.keys_over, out.requests_over) = over(limit);
  for (const auto& [key, state] : keys_)
    if (state.peak > limit && state.total >= heavy_total_floor_) ++out.heavy_keys_over;
  return out;
}

std::vector<std::int64_t> KeyRateCounter::candidate_limits(std::int64_t current) const {
  std::vector<std::int64_t> limits = {peak_percentile(50), peak_percentile(90), peak_percentile(99),
                                      peak_percentile(100), current};
  std::sort(limits.begin(), limits.end());
  limits.erase(std::unique(limits.begin(), limits.end()), limits.end());
  return limits;
}

}  // namespace rlsim
