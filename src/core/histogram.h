#pragma once
// A streaming histogram of non-negative integers (latencies in microseconds). Memory is fixed
// (about 224 KiB) whatever the number of samples: values below 1024 are kept exactly, larger ones
// in 512 log-linear sub-buckets per power of two (relative error below 0.2%). Max is exact.
// Quantiles never understate: a reported quantile is at least the true sample value and exceeds it
// by less than one bucket width (below 1/512 of the value).
#include <array>
#include <cstdint>

namespace rlsim {

class Histogram {
 public:
  void record(std::int64_t value);
  // The sample of rank ceil(q * count), rounded up to the largest value of its bucket and capped
  // at the recorded maximum: exact below 1024, otherwise at most 1/512 above the sample.
  // REQUIRES: 0 < q <= 1. Returns 0 when empty.
  std::int64_t quantile(double q) const;
  std::int64_t max() const { return max_; }
  std::uint64_t count() const { return count_; }

 private:
  static constexpr int kExactLimit = 1024;  // values below are exact
  static constexpr int kSubBits = 9;        // 512 sub-buckets per octave above kExactLimit
  static constexpr int kOctaves = 54;       // up to 2^63
  static constexpr int kBuckets = kExactLimit + kOctaves * (1 << kSubBits);
  static int bucket_of(std::int64_t value);
  static std::int64_t lower_bound_of(int bucket);  // the bucket's smallest value
  static std::int64_t upper_bound_of(int bucket);  // the bucket's largest value

  std::array<std::uint64_t, kBuckets> counts_{};
  std::uint64_t count_ = 0;
  std::int64_t max_ = 0;
};

}  // namespace rlsim
