// The resilience wrapper: the circuit breaker's state machine on hand-made failure sequences, the
// policies' decisions, parameter validation.
#include <catch2/catch.hpp>

#include "strategy/registry.h"
#include "strategy/resilience.h"

using namespace rlsim;
using State = CircuitBreaker::State;
using Admit = CircuitBreaker::Admit;

namespace {

BreakerSpec spec(int failures, DurationUs window_us, DurationUs cooldown_us, int probes) {
  BreakerSpec b;
  b.enabled = true;
  b.failures = failures;
  b.window_us = window_us;
  b.cooldown_us = cooldown_us;
  b.probes = probes;
  return b;
}

// One decision that calls Redis at `at_us` and finishes at once with `failed`.
Admit step(CircuitBreaker& breaker, TimeUs at_us, bool failed) {
  const auto ticket = breaker.admit(at_us);
  breaker.on_result(ticket, failed, at_us);
  return ticket.admit;
}

}  // namespace

TEST_CASE("breaker: opens after K failures within the window, not K spread wider") {
  CircuitBreaker breaker(spec(3, 1000, 5000, 1), 0);
  step(breaker, 0, true);
  step(breaker, 600, true);
  step(breaker, 1100, true);  // the failure at 0 left the window (0 <= 1100 - 1000)
  CHECK(breaker.state() == State::kClosed);
  step(breaker, 1500, false);  // successes do not reset the count
  CHECK(breaker.state() == State::kClosed);
  step(breaker, 1550, true);  // 600, 1100, 1550 within 1000 us
  CHECK(breaker.state() == State::kOpen);
}

TEST_CASE("breaker: open rejects until the cool-down, half-open probes close or re-open it") {
  CircuitBreaker breaker(spec(1, 1000, 5000, 2), 0);
  step(breaker, 100, true);
  REQUIRE(breaker.state() == State::kOpen);
  CHECK(breaker.admit(5099).admit == Admit::kReject);
  // At 5100 the cool-down is over: two probes, then rejects while they are in flight.
  const auto probe1 = breaker.admit(5100);
  CHECK(probe1.admit == Admit::kProbe);
  CHECK(breaker.state() == State::kHalfOpen);
  const auto probe2 = breaker.admit(5200);
  CHECK(probe2.admit == Admit::kProbe);
  CHECK(breaker.admit(5300).admit == Admit::kReject);
  breaker.on_result(probe1, false, 5400);
  CHECK(breaker.state() == State::kHalfOpen);
  breaker.on_result(probe2, false, 5500);
  CHECK(breaker.state() == State::kClosed);
  // A probe failure re-opens it, and the cool-down starts again from that failure.
  step(breaker, 6000, true);
  REQUIRE(breaker.state() == State::kOpen);
  const auto probe = breaker.admit(11000);
  REQUIRE(probe.admit == Admit::kProbe);
  breaker.on_result(probe, true, 11050);
  CHECK(breaker.state() == State::kOpen);
  CHECK(breaker.admit(16049).admit == Admit::kReject);
  CHECK(breaker.admit(16050).admit == Admit::kProbe);

  const auto transitions = breaker.take_transitions();
  std::vector<std::pair<TimeUs, State>> seen;
  for (const auto& t : transitions) seen.emplace_back(t.at_us, t.to);
  CHECK(seen == std::vector<std::pair<TimeUs, State>>{{100, State::kOpen},
                                                      {5100, State::kHalfOpen},
                                                      {5500, State::kClosed},
                                                      {6000, State::kOpen},
                                                      {11000, State::kHalfOpen},
                                                      {11050, State::kOpen},
                                                      {16050, State::kHalfOpen}});
  CHECK(breaker.take_transitions().empty());
  // closed 0-100 and 5500-6000; open 100-5100, 6000-11000, 11050-16050; half-open the rest.
  const auto times = breaker.time_in_states(17000);
  CHECK(times[0] == 100 + 500);
  CHECK(times[1] == 5000 + 5000 + 5000);
  CHECK(times[2] == 400 + 50 + 950);
}

TEST_CASE("breaker: results of calls admitted before a transition are ignored") {
  CircuitBreaker breaker(spec(2, 10'000, 1000, 1), 0);
  const auto slow = breaker.admit(0);  // a call still in flight when the breaker opens
  step(breaker, 10, true);
  step(breaker, 20, true);
  REQUIRE(breaker.state() == State::kOpen);
  const auto probe = breaker.admit(1020);
  breaker.on_result(probe, false, 1030);
  REQUIRE(breaker.state() == State::kClosed);
  breaker.on_result(slow, true, 1040);  // from the earlier closed period: not counted
  step(breaker, 1050, true);
  CHECK(breaker.state() == State::kClosed);
  step(breaker, 1060, true);
  CHECK(breaker.state() == State::kOpen);
}
