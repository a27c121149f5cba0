#include "core/simulator.h"

#include <utility>

namespace rlsim {
namespace {

class ResumeTarget final : public EventTarget {
 public:
  void on_event(std::uint64_t arg) override {
    // The event argument carries the coroutine frame address (Simulator::resume_at).
    std::coroutine_handle<>::from_address(
        reinterpret_cast<void*>(arg))  // NOLINT(performance-no-int-to-ptr)
        .resume();
  }
};
ResumeTarget resume_target;

}  // namespace

void Simulator::resume_at(TimeUs at, std::coroutine_handle<> handle) {
  schedule(at, &resume_target, reinterpret_cast<std::uint64_t>(handle.address()));
}

std::uint64_t Simulator::run_until(TimeUs until) {
  std::uint64_t fired = 0;
  while (!heap_.empty() && heap_.front().time_us <= until) {
    if (heap_.size() > peak_pending_) peak_pending_ = heap_.size();
    const Event event = heap_.front();
    heap_.front() = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0);
    RLSIM_CHECK(event.time_us >= now_us_);
    now_us_ = event.time_us;
    event.target->on_event(event.arg);
    ++fired;
  }
  if (until > now_us_) now_us_ = until;
  return fired;
}

void Simulator::sift_up(std::size_t index) {
  Event moving = heap_[index];
  while (index > 0) {
    const std::size_t parent = (index - 1) / 2;
    if (!moving.before(heap_[parent])) break;
    heap_[index] = heap_[parent];
    index = parent;
  }
  heap_[index] = moving;
}

void Simulator::sift_down(std::size_t index) {
  const std::size_t size = heap_.size();
  Event moving = heap_[index];
  while (true) {
    std::size_t child = 2 * index + 1;
    if (child >= size) break;
    if (child + 1 < size && heap_[child + 1].before(heap_[child])) ++child;
    if (!heap_[child].before(moving)) break;
    heap_[index] = heap_[child];
    index = child;
  }
  heap_[index] = moving;
}

}  // namespace rlsim
