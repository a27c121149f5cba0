#include <catch2/catch.hpp>

#include "core/simulator.h"
#include "core/task.h"

namespace rlsim_test_task {

using namespace rlsim;

namespace {

struct Sleep {
  Simulator& sim;
  DurationUs delay_us;
  bool await_ready() const { return false; }
  void await_suspend(std::coroutine_handle<> h) { sim.resume_at(sim.now() + delay_us, h); }
  void await_resume() {}
};

Task<int> immediate(int value) { co_return value * 2; }

Task<int> sleepy(Simulator& sim, int value) {
  co_await Sleep{sim, 10};
  const int doubled = co_await immediate(value);
  co_await Sleep{sim, 5};
  co_return doubled + 1;
}

struct Result {
  int value = -1;
  TimeUs at_us = -1;
  Simulator* sim = nullptr;
};

void record(void* context, int&& value) {
  auto* result = static_cast<Result*>(context);
  result->value = value;
  result->at_us = result->sim->now();
}

}  // namespace

TEST_CASE("a task that never suspends completes inside start_detached") {
  Simulator sim;
  Result result{-1, -1, &sim};
  immediate(21).start_detached(&record, &result);
  CHECK(result.value == 42);
  CHECK(result.at_us == 0);
}

TEST_CASE("a task resumes in virtual time and awaits nested tasks") {
  Simulator sim;
  Result result{-1, -1, &sim};
  sleepy(sim, 4).start_detached(&record, &result);
  CHECK(result.value == -1);
  sim.run_until(100);
  CHECK(result.value == 9);
  CHECK(result.at_us == 15);
}

}  // namespace rlsim_test_task
