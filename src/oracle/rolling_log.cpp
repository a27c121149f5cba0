#include "oracle/rolling_log.h"

#include <algorithm>
#include <bit>

#include "core/check.h"

namespace rlsim {
namespace {

// floor(a / b) for b > 0, also for negative a (times before the epoch in tests).
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

std::size_t slot_of(std::int64_t index) {
  constexpr std::int64_t kSlots = RollingLog::kBuckets + 1;
  return static_cast<std::size_t>(((index % kSlots) + kSlots) % kSlots);
}

constexpr std::size_t kMinRing = 2;

}  // namespace

void RollingLog::Buckets::add(TimeUs at_us) {
  const std::int64_t index = floor_div(at_us, width_us);
  RLSIM_CHECK(index >= low_index && index <= low_index + kBuckets);
  ++counts[slot_of(index)];
  ++total;
}

void RollingLog::Buckets::drop_before(std::int64_t index) {
  if (index <= low_index) return;
  if (index - low_index > kBuckets) {
    std::fill(counts.begin(), counts.end(), 0);
    total = 0;
  } else {
    for (std::int64_t i = low_index; i < index; ++i) {
      total -= counts[slot_of(i)];
      counts[slot_of(i)] = 0;
    }
  }
  low_index = index;
}

void RollingLog::resize_ring(std::size_t capacity) {
  RLSIM_CHECK(capacity >= size_ && std::has_single_bit(capacity));
  std::vector<TimeUs> ring(capacity);
  for (std::size_t i = 0; i < size_; ++i) ring[i] = at(i);
  ring_ = std::move(ring);
  head_ = 0;
}

void RollingLog::drop_old(TimeUs now_us, DurationUs window_us) {
  while (size_ > 0 && at(0) <= now_us - window_us) {
    head_ = wrap(head_ + 1);
    --size_;
  }
  // A ring eight times larger than what it holds gives memory back, shrinking to a quarter (the gap
  // between growing and shrinking keeps the cost amortized O(1) per event).
  if (ring_.size() > 4 * kMinRing && size_ * 8 <= ring_.size())
    resize_ring(std::max(kMinRing, std::bit_ceil(size_ * 2)));
  if (buckets_ == nullptr) return;
  if (size_ < kExactEvents) {
    buckets_.reset();  // the ring holds every event in the window again: exact
  } else {
    buckets_->drop_before(floor_div(now_us - window_us + 1, buckets_->width_us));
  }
}

void RollingLog::push(TimeUs at_us) {
  if (size_ == ring_.size()) {
    if (ring_.size() < kExactEvents) {
      resize_ring(std::min(kExactEvents, std::max(kMinRing, size_ * 2)));
    } else {  // full: the oldest event leaves the ring (the sub-intervals still count it)
      head_ = wrap(head_ + 1);
      --size_;
    }
  }
  ring_[wrap(head_ + size_)] = at_us;
  ++size_;
}

std::int64_t RollingLog::add(TimeUs at_us, DurationUs window_us) {
  trim(at_us, window_us);
  if (size_ == kExactEvents && buckets_ == nullptr) {
    // The window is about to hold more events than the ring: from now on count in sub-intervals
    // as well. The ring holds every event of the window, so the counts start complete.
    buckets_ = std::make_unique<Buckets>();
    buckets_->width_us = std::max<DurationUs>(1, (window_us + kBuckets - 1) / kBuckets);
    buckets_->low_index = floor_div(at_us - window_us + 1, buckets_->width_us);
    for (std::size_t i = 0; i < size_; ++i) buckets_->add(at(i));
  }
  if (buckets_ != nullptr) buckets_->add(at_us);
  push(at_us);
  const auto exact_count = static_cast<std::int64_t>(size_);
  return buckets_ == nullptr ? exact_count : std::max(exact_count, buckets_->total);
}

std::int64_t RollingLog::count(TimeUs now_us, DurationUs window_us) {
  trim(now_us, window_us);
  const auto exact_count = static_cast<std::int64_t>(size_);
  return buckets_ == nullptr ? exact_count : std::max(exact_count, buckets_->total);
}

bool RollingLog::at_least(std::int64_t n, TimeUs now_us, DurationUs window_us) {
  trim(now_us, window_us);
  if (n <= static_cast<std::int64_t>(size_)) return true;
  return buckets_ != nullptr && buckets_->total >= n;
}

}  // namespace rlsim
