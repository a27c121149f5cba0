// The oracle on hand-computed timelines: limit 2 per 10 s, one key.
#include <catch2/catch.hpp>

#include "oracle/oracle.h"

using namespace rlsim;

namespace {
Request at(double seconds) {
  Request r;
  r.arrival_us = static_cast<TimeUs>(seconds * kUsPerS);
  return r;
}
}  // namespace

TEST_CASE("overshoot, rolling overshoot and excess on aligned windows of true time") {
  const std::vector<Limit> limits{{"l", LimitKey::kUser, 2, 10 * kUsPerS}};
  Oracle oracle(limits, Algorithm::kFixedWindow);
  // Admitted at 1, 2, 3 s (window [0, 10)) and 11, 12, 12.5 s (window [10, 20)).
  for (double t : {1.0, 2.0, 3.0, 11.0, 12.0, 12.5})
    oracle.on_decision(at(t), Outcome{true, -1, false}, true, at(t).arrival_us, 1);
  const auto& m = oracle.totals().limits[0];
  CHECK(m.max_in_window == 3);
  CHECK(m.overshoot == Approx(1.5));
  CHECK(m.excess == 2);
  // (2.5 s, 12.5 s] holds 3, 11, 12 and 12.5.
  CHECK(m.max_in_rolling == 4);
  CHECK(m.rolling_overshoot == Approx(2.0));
  CHECK(oracle.totals().allowed == 6);
  REQUIRE(oracle.totals().series.size() == 2);
  CHECK(oracle.totals().series[0].admitted == 3);
  CHECK(oracle.totals().series[1].start_us == 10 * kUsPerS);
}

TEST_CASE("the rolling window is half open: an admission exactly one window earlier is out") {
  const std::vector<Limit> limits{{"l", LimitKey::kUser, 2, 10 * kUsPerS}};
  Oracle oracle(limits, Algorithm::kFixedWindow);
  for (double t : {5.0, 15.0})
    oracle.on_decision(at(t), Outcome{true, -1, false}, true, at(t).arrival_us, 1);
  CHECK(oracle.totals().limits[0].max_in_rolling == 1);
}

TEST_CASE("the ideal limiter admits exactly the limit per aligned window") {
  const std::vector<Limit> limits{{"l", LimitKey::kUser, 2, 10 * kUsPerS}};
  Oracle oracle(limits, Algorithm::kFixedWindow);
  CHECK(oracle.ideal_admits(at(1)));
  CHECK(oracle.ideal_admits(at(2)));
  CHECK_FALSE(oracle.ideal_admits(at(3)));
  CHECK(oracle.ideal_admits(at(10)));
}

TEST_CASE("false denials count denials the ideal limiter would have admitted") {
  const std::vector<Limit> limits{{"a", LimitKey::kUser, 2, 10 * kUsPerS},
                                  {"b", LimitKey::kIp, 5, 10 * kUsPerS}};
  Oracle oracle(limits, Algorithm::kFixedWindow);
  oracle.on_decision(at(1), Outcome{false, 1, false}, true, at(1).arrival_us, 1);
  oracle.on_decision(at(2), Outcome{false, 1, true}, false, at(2).arrival_us + 700, 1);
  const auto& totals = oracle.totals();
  CHECK(totals.denied == 2);
  CHECK(totals.errors == 1);
  CHECK(totals.limits[0].false_denials == 0);
  CHECK(totals.limits[1].false_denials == 1);
  CHECK(totals.limits[1].denied == 2);
  CHECK(totals.latency_us.max() == 700);
}

TEST_CASE("keys are counted apart") {
  const std::vector<Limit> limits{{"l", LimitKey::kUser, 1, 10 * kUsPerS}};
  Oracle oracle(limits, Algorithm::kFixedWindow);
  for (std::uint32_t user = 0; user < 5; ++user) {
    Request r = at(1);
    r.user = user;
    oracle.on_decision(r, Outcome{true, -1, false}, true, r.arrival_us, 1);
  }
  CHECK(oracle.totals().limits[0].overshoot == Approx(1.0));
  CHECK(oracle.totals().limits[0].excess == 0);
  CHECK(oracle.totals().series[0].admitted == 5);
  CHECK(oracle.totals().series[0].max_per_key == 1);
}
