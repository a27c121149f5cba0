#include "engine/stop.h"

#include <algorithm>
#include <atomic>

namespace rlsim {
namespace {

std::atomic<bool> listening_flag{false};
std::atomic<bool> stop_flag{false};

// The virtual time between two looks at the stop flag: small enough that a dense run reacts within
// a fraction of a second of wall time, large enough that the extra steps cost nothing.
constexpr DurationUs kSliceUs = 100'000;

}  // namespace

void set_stop_listening(bool listening) {
  if (listening) stop_flag = false;
  listening_flag = listening;
}

bool watch_live() { return listening_flag; }

bool stop_requested() { return stop_flag.load(std::memory_order_relaxed); }
void request_stop() { stop_flag = true; }

bool step_interruptible(TimeUs from_us, TimeUs until_us, const std::function<void(TimeUs)>& step) {
  if (!watch_live()) {
    step(until_us);
    return true;
  }
  for (TimeUs step_us = from_us; step_us < until_us;) {
    if (stop_requested()) return false;
    step_us = std::min(until_us, step_us + kSliceUs);
    step(step_us);
  }
  return !stop_requested();
}

}  // namespace rlsim
