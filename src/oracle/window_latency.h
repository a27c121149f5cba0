#pragma once
// The latency quantiles of one series window (a few hundred samples to millions), with memory
// fixed at about 4 KiB however many samples: values below 64 us are exact, larger ones fall in
// 16 log-linear sub-buckets per power of two, so a reported quantile is at least the true sample
// and at most 1/16 above it. Only the window in progress is held; clearing touches only the
// buckets the window used, so closing a window costs no more than filling it.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

namespace rlsim {

class WindowLatency {
 public:
  void record(std::int64_t value_us) {
    const int bucket = bucket_of(value_us < 0 ? 0 : value_us);
    ++counts_[static_cast<std::size_t>(bucket)];
    ++count_;
    lowest_ = std::min(lowest_, bucket);
    highest_ = std::max(highest_, bucket);
    max_ = std::max(max_, value_us);
  }

  // The sample of rank ceil(q * count), rounded up to its bucket's largest value and capped at
  // the maximum. 0 when empty. REQUIRES: 0 < q <= 1.
  std::int64_t quantile(double q) const {
    if (count_ == 0) return 0;
    auto rank = static_cast<std::uint64_t>(q * static_cast<double>(count_));
    if (static_cast<double>(rank) < q * static_cast<double>(count_)) ++rank;
    rank = std::clamp<std::uint64_t>(rank, 1, count_);
    std::uint64_t seen = 0;
    for (int b = lowest_; b <= highest_; ++b) {
      seen += counts_[static_cast<std::size_t>(b)];
      if (seen >= rank) return std::min(upper_bound_of(b), max_);
    }
    return max_;
  }
  std::int64_t max() const { return max_; }
  std::uint64_t count() const { return count_; }

  void clear() {
    if (count_ > 0)
      std::fill(counts_.begin() + lowest_, counts_.begin() + highest_ + 1, std::uint32_t{0});
    count_ = 0;
    max_ = 0;
    lowest_ = kBuckets;
    highest_ = -1;
  }

 private:
  static constexpr int kExact = 64;    // values below are exact
  static constexpr int kSubBits = 4;   // 16 sub-buckets per octave
  static constexpr int kOctaves = 58;  // 2^6 .. 2^63
  static constexpr int kBuckets = kExact + kOctaves * (1 << kSubBits);

  static int bucket_of(std::int64_t value) {
    if (value < kExact) return static_cast<int>(value);
    const auto v = static_cast<std::uint64_t>(value);
    const int octave = 63 - std::countl_zero(v);  // >= 6
    const auto sub = static_cast<int>((v >> (octave - kSubBits)) & ((1u << kSubBits) - 1));
    return kExact + (octave - 6) * (1 << kSubBits) + sub;
  }
  static std::int64_t upper_bound_of(int bucket) {
    if (bucket < kExact) return bucket;
    const int octave = 6 + (bucket - kExact) / (1 << kSubBits);
    const int sub = (bucket - kExact) % (1 << kSubBits);
    const std::uint64_t width = std::uint64_t{1} << (octave - kSubBits);
    const std::uint64_t low =
        (std::uint64_t{1} << octave) + static_cast<std::uint64_t>(sub) * width;
    return static_cast<std::int64_t>(low + width - 1);
  }

  std::array<std::uint32_t, kBuckets> counts_{};
  std::uint64_t count_ = 0;
  std::int64_t max_ = 0;
  int lowest_ = kBuckets;
  int highest_ = -1;
};

}  // namespace rlsim
