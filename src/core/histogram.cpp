#include "core/histogram.h"

#include <bit>
#include <cmath>

#include "core/check.h"

namespace rlsim {

int Histogram::bucket_of(std::int64_t value) {
  if (value < kExactLimit) return static_cast<int>(value);
  const auto v = static_cast<std::uint64_t>(value);
  const int octave = 63 - std::countl_zero(v);  // >= 10
  const int sub = static_cast<int>((v >> (octave - kSubBits)) & ((1u << kSubBits) - 1));
  return kExactLimit + (octave - 10) * (1 << kSubBits) + sub;
}

std::int64_t Histogram::upper_bound_of(int bucket) {
  if (bucket < kExactLimit) return bucket;
  const int octave = (bucket - kExactLimit) / (1 << kSubBits) + 10;
  return lower_bound_of(bucket) + (std::int64_t{1} << (octave - kSubBits)) - 1;
}

std::int64_t Histogram::lower_bound_of(int bucket) {
  if (bucket < kExactLimit) return bucket;
  const int rel = bucket - kExactLimit;
  const int octave = rel / (1 << kSubBits) + 10;
  const int sub = rel % (1 << kSubBits);
  return static_cast<std::int64_t>((std::uint64_t{1} << octave) |
                                   (static_cast<std::uint64_t>(sub) << (octave - kSubBits)));
}

void Histogram::record(std::int64_t value) {
  RLSIM_CHECK(value >= 0);
  ++counts_[static_cast<std::size_t>(bucket_of(value))];
  ++count_;
  if (value > max_) max_ = value;
}

std::int64_t Histogram::quantile(double q) const {
  RLSIM_CHECK(q > 0 && q <= 1);
  if (count_ == 0) return 0;
  const auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
  std::uint64_t seen = 0;
  for (int b = 0; b < kBuckets; ++b) {
    seen += counts_[static_cast<std::size_t>(b)];
    if (seen >= rank) {
      // The bucket's largest value never understates the sample; the maximum caps it because
      // no sample lies above the maximum.
      const std::int64_t high = upper_bound_of(b);
      return high < max_ ? high : max_;
    }
  }
  return max_;
}

}  // namespace rlsim
