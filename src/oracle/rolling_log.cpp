#include "oracle/rolling_log.h"

#include <algorithm>
#include <bit>

#include "core/check.h"

namespace rlsim {
namespace {

constexpr std::size_t kMinRing = 2;

}  // namespace

void RollingLog::resize_ring(std::size_t capacity) {
  RLSIM_CHECK(capacity >= size_ && std::has_single_bit(capacity));
  std::vector<TimeUs> ring(capacity);
  for (std::size_t i = 0; i < size_; ++i) ring[i] = at(i);
  ring_ = std::move(ring);
  head_ = 0;
}

void RollingLog::drop_old(TimeUs oldest_out_us) {
  while (size_ > 0 && at(0) <= oldest_out_us) {
    head_ = wrap(head_ + 1);
    --size_;
  }
  // A ring eight times larger than what it holds gives memory back, shrinking to a quarter (the gap
  // between growing and shrinking keeps the cost amortized O(1) per event).
  if (ring_.size() > 4 * kMinRing && size_ * 8 <= ring_.size())
    resize_ring(std::max(kMinRing, std::bit_ceil(size_ * 2)));
}

std::int64_t RollingLog::add(TimeUs at_us, DurationUs window_us) {
  trim(at_us, window_us);
  if (size_ == ring_.size()) resize_ring(std::max(kMinRing, size_ * 2));
  ring_[wrap(head_ + size_)] = at_us;
  ++size_;
  return static_cast<std::int64_t>(size_);
}

}  // namespace rlsim
