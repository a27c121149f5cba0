// The resilience wrapper: the circuit breaker's state machine on hand-made failure sequences, the
// policies' decisions, parameter validation.
#include <catch2/catch.hpp>

#include "strategy/registry.h"
#include "strategy/resilience.h"
#include "strategy_harness.h"

namespace rlsim_test_resilience {

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

namespace {

// Resolves `params` for redis_fixed_window through the registry (with the resilience parameters).
std::string resolve_error(const nlohmann::json& params) {
  std::string field, error;
  const auto resolved = resolve_params(*find_strategy("redis_fixed_window"), params, field, error);
  return resolved ? "" : field + ": " + error;
}

}  // namespace

TEST_CASE("resilience: every strategy with on_error takes divisor and breaker") {
  for (const auto& info : strategy_registry()) {
    bool on_error = false, divisor = false, breaker = false;
    for (const auto& p : info.params) {
      on_error |= p.name == "on_error";
      divisor |= p.name == "divisor";
      breaker |= p.name == "breaker";
    }
    INFO(info.name);
    CHECK(divisor == on_error);
    CHECK(breaker == on_error);
  }
}

TEST_CASE("resilience: on_error's names and old names parse to one policy") {
  CHECK(parse_error_policy("fail_open") == ErrorPolicy::kFailOpen);
  CHECK(parse_error_policy("allow") == ErrorPolicy::kFailOpen);
  CHECK(parse_error_policy("fail_closed") == ErrorPolicy::kFailClosed);
  CHECK(parse_error_policy("deny") == ErrorPolicy::kFailClosed);
  CHECK(parse_error_policy("local_fallback") == ErrorPolicy::kLocalFallback);
  CHECK_FALSE(parse_error_policy("open").has_value());
  // A strategy made without the decorator sees the text as given: fail_open must skip a failed
  // limit as allow does (before, only "allow" did, and "fail_open" failed closed).
  const auto policy_of = [](const char* text) {
    const nlohmann::json params = {{"on_error", text}};
    return ParamReader(params).error_policy();
  };
  CHECK(skips_failed_limit(policy_of("fail_open")));
  CHECK(skips_failed_limit(policy_of("local_fallback")));
  CHECK_FALSE(skips_failed_limit(policy_of("fail_closed")));
  CHECK_FALSE(skips_failed_limit(policy_of("deny")));
  for (const ErrorPolicy policy :
       {ErrorPolicy::kFailOpen, ErrorPolicy::kFailClosed, ErrorPolicy::kLocalFallback})
    CHECK(parse_error_policy(to_string(policy)) == policy);
}

TEST_CASE("resilience: every strategy fails open under fail_open and allow, closed otherwise") {
  // Every call times out (a 100 ms round trip, a 50 ms timeout). The decorator passes fail_open
  // and fail_closed decisions through as the strategy made them, so these are the strategy's own
  // reading of on_error: under fail_open (or allow) each failed limit is skipped, under
  // fail_closed (or deny) it denies. Four requests over a limit of 2, so that a strategy that
  // counted anything would deny some.
  const char* limit = R"({"name": "per_user", "key": "user", "limit": 2, "window": "1m"})";
  int strategies = 0;
  for (const StrategyInfo& info : strategy_registry()) {
    const bool takes_on_error =
        std::any_of(info.params.begin(), info.params.end(),
                    [](const ParamSpec& p) { return p.name == "on_error"; });
    if (!takes_on_error) continue;
    ++strategies;
    const std::string extra =
        info.name != "custom_lua" ? "" : R"(, "script": "scripts/fixed_window.lua",
                                       "keys": ["${prefix}${key}:${window}"],
                                       "args": ["${limit}", "${window_ms}"])";
    for (const char* policy : {"fail_open", "allow", "fail_closed", "deny"}) {
      const bool open = std::string(policy) == "fail_open" || std::string(policy) == "allow";
      INFO(info.name << ", on_error " << policy);
      rlsim::testing::StrategyHarness h(
          limit, fmt::format(R"({{"name": "{}", "on_error": "{}"{}}})", info.name, policy, extra),
          {0}, 100'000, 50'000, std::string(RLSIM_SOURCE_DIR) + "/scenarios");
      for (int i = 0; i < 4; ++i) h.request(i * 10'000);
      for (const Decision& d : h.run()) {
        CHECK(d.error);
        CHECK(d.allowed == open);
      }
      CHECK(h.strategy().fatal_error().empty());
    }
  }
  CHECK(strategies == 13);  // every Redis strategy, custom_lua included
}

TEST_CASE("resilience: parameters, aliases and their errors") {
  std::string field, error;
  const auto resolved =
      resolve_params(*find_strategy("redis_fixed_window"), nlohmann::json::object(), field, error);
  REQUIRE(resolved);
  const ResilienceSpec defaults = resilience_spec(ParamReader(*resolved), 7);
  CHECK(defaults.policy == ErrorPolicy::kFailOpen);
  CHECK(defaults.divisor == 7);  // the initial instance count
  CHECK_FALSE(defaults.breaker.enabled);

  const auto spec_of = [](const nlohmann::json& params) {
    std::string f, e;
    const auto given = resolve_params(*find_strategy("redis_fixed_window"), params, f, e);
    return resilience_spec(ParamReader(*given), 3);
  };
  CHECK(spec_of({{"on_error", "deny"}}).policy == ErrorPolicy::kFailClosed);
  CHECK(spec_of({{"on_error", "allow"}}).policy == ErrorPolicy::kFailOpen);
  CHECK(spec_of({{"on_error", "local_fallback"}, {"divisor", 4}}).divisor == 4);
  const ResilienceSpec with_breaker = spec_of({{"breaker", {{"failures", 3}, {"cooldown", "2s"}}}});
  CHECK(with_breaker.breaker.enabled);
  CHECK(with_breaker.breaker.failures == 3);
  CHECK(with_breaker.breaker.cooldown_us == 2 * kUsPerS);
  CHECK(with_breaker.breaker.window_us == 10 * kUsPerS);  // the default
  CHECK(with_breaker.breaker.probes == 1);

  CHECK(resolve_error({{"divisor", 0}}).find("divisor: expected a positive integer") == 0);
  CHECK(resolve_error({{"breaker", true}}) ==
        "breaker: expected false or an object such as {\"failures\": 5, \"cooldown\": \"5s\"}, "
        "got true");
  CHECK(resolve_error({{"breaker", {{"failures", 0}}}}) ==
        "breaker.failures: expected an integer from 1 to 1000000, got 0");
  CHECK(resolve_error({{"breaker", {{"window", "forever"}}}}) ==
        "breaker.window: expected a duration from 1ms to 1h such as \"10s\" or \"1m30s\", got "
        "\"forever\"");
  CHECK(resolve_error({{"breaker", {{"colour", 1}}}}) ==
        "breaker.colour: unknown field (expected one of: cooldown, failures, probes, window)");
}

}  // namespace rlsim_test_resilience
