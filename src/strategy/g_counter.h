#pragma once
// A grow-only counter (G-counter), the CRDT behind crdt_counter (docs/regions.md): one slot per
// region, each region increments only its own slot, and replicas merge by taking the larger value
// of every slot. Merge is idempotent, commutative and associative, and never makes a value
// smaller, so replicas that have seen the same increments agree whatever the order of delivery.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace rlsim {

class GCounter {
 public:
  GCounter() = default;
  explicit GCounter(std::size_t slots) : slots_(slots, 0) {}

  void increment(std::size_t slot, std::int64_t by = 1) {
    if (slots_.size() <= slot) slots_.resize(slot + 1, 0);
    slots_[slot] += by;
  }
  void merge(const GCounter& other) {
    if (slots_.size() < other.slots_.size()) slots_.resize(other.slots_.size(), 0);
    for (std::size_t i = 0; i < other.slots_.size(); ++i)
      slots_[i] = std::max(slots_[i], other.slots_[i]);
  }
  std::int64_t value() const { return std::accumulate(slots_.begin(), slots_.end(), 0LL); }
  std::int64_t slot(std::size_t i) const { return i < slots_.size() ? slots_[i] : 0; }
  // Equal as counters: the same value in every slot (missing slots are 0).
  bool operator==(const GCounter& other) const {
    const std::size_t n = std::max(slots_.size(), other.slots_.size());
    for (std::size_t i = 0; i < n; ++i) {
      if (slot(i) != other.slot(i)) return false;
    }
    return true;
  }

 private:
  std::vector<std::int64_t> slots_;
};

}  // namespace rlsim
