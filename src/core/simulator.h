#pragma once
// The discrete-event scheduler: a binary heap of events keyed by (time, sequence). Events with the
// same time fire in the order they were scheduled, so a run is a pure function of its inputs.
// Invariant: virtual time never runs backwards (asserted on every pop).
#include <coroutine>
#include <cstdint>
#include <vector>

#include "core/check.h"
#include "core/time.h"

namespace rlsim {

// Something that can be woken by the simulator. `arg` is whatever the scheduler passed along.
class EventTarget {
 public:
  virtual void on_event(std::uint64_t arg) = 0;

 protected:
  ~EventTarget() = default;
};

class Simulator {
 public:
  TimeUs now() const { return now_us_; }

  // Schedules target->on_event(arg) at `at`. REQUIRES: at >= now().
  void schedule(TimeUs at, EventTarget* target, std::uint64_t arg = 0) {
    RLSIM_CHECK(at >= now_us_);
    heap_.push_back(Event{at, next_seq_++, target, arg});
    sift_up(heap_.size() - 1);
  }

  // Resumes a suspended coroutine at `at`.
  void resume_at(TimeUs at, std::coroutine_handle<> handle);

  // Runs events until the queue is empty or the next event is after `until`. Returns the number of
  // events fired. Time is left at the last fired event (or `until` if it is later).
  std::uint64_t run_until(TimeUs until);

  std::size_t pending() const { return heap_.size(); }
  std::size_t peak_pending() const { return peak_pending_; }

 private:
  struct Event {
    TimeUs time_us;
    std::uint64_t seq;
    EventTarget* target;
    std::uint64_t arg;
    bool before(const Event& other) const {
      return time_us != other.time_us ? time_us < other.time_us : seq < other.seq;
    }
  };
  void sift_up(std::size_t index);
  void sift_down(std::size_t index);

  TimeUs now_us_ = 0;
  std::uint64_t next_seq_ = 0;
  std::size_t peak_pending_ = 0;
  std::vector<Event> heap_;
};

}  // namespace rlsim
