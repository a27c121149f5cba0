// The oracle on hand-computed timelines: limit 2 per 10 s, one key.
#include <algorithm>
#include <catch2/catch.hpp>

#include "oracle/oracle.h"
#include "oracle/rolling_log.h"

namespace rlsim_test_oracle {

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

// ---- The ideal limiter, one algorithm at a time: limit 3 per 1 s, one key ----

namespace {
std::vector<bool> ideal_verdicts(Algorithm algorithm, const std::vector<Limit>& limits,
                                 const std::vector<double>& times_s,
                                 std::vector<BucketShape> buckets = {}) {
  // Before each request, 1500 one-off users arrive at the same time, so that the limiter frees
  // idle keys between the requests (a sweep needs 1024 lookups); freeing must change nothing.
  Oracle oracle(limits, algorithm, std::move(buckets));
  std::vector<bool> verdicts;
  std::uint32_t next_user = 1000;
  for (double t : times_s) {
    for (int n = 0; n < 1500; ++n) {
      Request other = at(t);
      other.user = next_user++;
      oracle.ideal_admits(other);
    }
    verdicts.push_back(oracle.ideal_admits(at(t)));
  }
  return verdicts;
}
const std::vector<Limit> kThreePerSecond{{"l", LimitKey::kUser, 3, kUsPerS}};
}  // namespace

TEST_CASE("ideal sliding log: at most 3 admissions in any half-open second") {
  // 0.6: 0, 0.2, 0.4 are inside. 1.0: 0.0 is out (half open), 2 inside. 1.1: 0.2, 0.4, 1.0.
  // 1.2: 0.4, 1.0. 1.3: 0.4, 1.0, 1.2. 1.4: 1.0, 1.2. Denied requests never count.
  const std::vector<double> times{0.0, 0.2, 0.4, 0.6, 1.0, 1.1, 1.2, 1.3, 1.4};
  const std::vector<bool> expected{true, true, true, false, true, false, true, false, true};
  CHECK(ideal_verdicts(Algorithm::kSlidingLog, kThreePerSecond, times) == expected);
}

TEST_CASE("ideal sliding counter: previous window weighted by overlap plus current") {
  // Window 0 = [0, 1): 0.1, 0.2, 0.3 admitted (cur 0, 1, 2), 0.5 denied (cur 3).
  // Window 1: 1.0: 3 x 1.0 + 0 = 3 -> deny. 1.2: 3 x 0.8 + 0 = 2.4 -> admit.
  // 1.4: 3 x 0.6 + 1 = 2.8 -> admit. 1.5: 1.5 + 2 = 3.5 -> deny. 1.9: 0.3 + 2 = 2.3 -> admit.
  // 1.95: 0.15 + 3 -> deny. Window 2: prev 3 (1.2, 1.4, 1.9) x 0.5 = 1.5: 2.5 -> 1.5 + 0 admit,
  // 2.5 -> 1.5 + 1 admit, 2.5 -> 1.5 + 2 deny. Window 3: 3.1: prev 2 x 0.9 = 1.8 -> admit.
  // Window 5: 5.0: prev 0 (window 4 is empty) -> admit.
  const std::vector<double> times{0.1, 0.2,  0.3, 0.5, 1.0, 1.2, 1.4, 1.5,
                                  1.9, 1.95, 2.5, 2.5, 2.5, 3.1, 5.0};
  const std::vector<bool> expected{true, true,  true, false, false, true, true, false,
                                   true, false, true, true,  false, true, true};
  CHECK(ideal_verdicts(Algorithm::kSlidingCounter, kThreePerSecond, times) == expected);
}

TEST_CASE("ideal token bucket and GCRA: capacity 3, one token per second") {
  // Token bucket, starting full: 0, 0, 0 take the 3 tokens; 0 (4th) finds 0; 0.5 finds 0.5;
  // 1.0 finds 1.0 -> admit (0 left); 1.5 finds 0.5; 3.0 finds 2.0 -> admit twice, then 0 -> deny;
  // 10.0 finds a full bucket.
  // GCRA: T = 1 s, tau = 2 s. TAT 1, 2, 3 after the first three; 0: 3 > 0 + 2 -> deny;
  // 0.5: 3 > 2.5; 1.0: 3 <= 3 -> admit, TAT 4; 1.5: 4 > 3.5; 3.0: 4 <= 5, TAT 5; 3.0: 5 <= 5,
  // TAT 6; 3.0: 6 > 5 -> deny; 10.0: admit.
  const std::vector<double> times{0, 0, 0, 0, 0.5, 1.0, 1.5, 3.0, 3.0, 3.0, 10.0};
  const std::vector<bool> expected{true,  true, true, false, false, true,
                                   false, true, true, false, true};
  const std::vector<BucketShape> shape{{3, 1}};
  CHECK(ideal_verdicts(Algorithm::kTokenBucket, kThreePerSecond, times, shape) == expected);
  CHECK(ideal_verdicts(Algorithm::kGcra, kThreePerSecond, times, shape) == expected);
}

TEST_CASE("ideal token bucket and GCRA default to a bucket of L refilled at L per window") {
  // 3 per second: capacity 3, one token every 1/3 s (GCRA: T = 333,333,333 ns, rounded).
  // After three at 0, the next token is there at 1/3 s: 0.3 is too early, 0.34 is not.
  const std::vector<double> times{0, 0, 0, 0.3, 0.34, 0.5};
  const std::vector<bool> expected{true, true, true, false, true, false};
  CHECK(ideal_verdicts(Algorithm::kTokenBucket, kThreePerSecond, times) == expected);
  CHECK(ideal_verdicts(Algorithm::kGcra, kThreePerSecond, times) == expected);
}

TEST_CASE("every ideal limiter keys limits on user, ip, endpoint and global") {
  // Per 10 s: user 2, ip 3, endpoint 4, global 5. Requests 0.1 s apart from 1.0 s, then 12 s.
  const std::vector<Limit> limits{{"u", LimitKey::kUser, 2, 10 * kUsPerS},
                                  {"i", LimitKey::kIp, 3, 10 * kUsPerS},
                                  {"e", LimitKey::kEndpoint, 4, 10 * kUsPerS},
                                  {"g", LimitKey::kGlobal, 5, 10 * kUsPerS}};
  struct Row {
    std::uint32_t user, ip, endpoint;
    bool admitted;  // why, in the comment
  };
  const std::vector<Row> rows{
      {1, 1, 1, true},   // counts u1 1, ip1 1, e1 1, global 1
      {1, 1, 1, true},   // u1 2, ip1 2, e1 2, global 2
      {1, 2, 2, false},  // user 1 is full (nothing counted)
      {2, 1, 1, true},   // u2 1, ip1 3, e1 3, global 3
      {3, 1, 2, false},  // ip 1 is full
      {3, 2, 1, true},   // u3 1, ip2 1, e1 4, global 4
      {4, 3, 1, false},  // endpoint 1 is full
      {4, 3, 2, true},   // global 5
      {5, 4, 3, false},  // global is full
  };
  for (Algorithm algorithm :
       {Algorithm::kFixedWindow, Algorithm::kSlidingLog, Algorithm::kSlidingCounter,
        Algorithm::kTokenBucket, Algorithm::kGcra}) {
    INFO(to_string(algorithm));
    Oracle oracle(limits, algorithm);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      Request r = at(1.0 + 0.1 * static_cast<double>(i));
      r.user = rows[i].user;
      r.ip = rows[i].ip;
      r.endpoint = rows[i].endpoint;
      INFO(i);
      CHECK(oracle.ideal_admits(r) == rows[i].admitted);
    }
    // At 12 s every limit has room again: a new fixed window; the sliding log's (2, 12] is empty;
    // the sliding counter weighs the previous window by 0.8 (user 2 x 0.8 = 1.6 < 2, global
    // 5 x 0.8 = 4 < 5); buckets refilled for 10 s.
    Request later = at(12.0);
    later.user = 1;
    later.ip = 1;
    later.endpoint = 1;
    CHECK(oracle.ideal_admits(later));
  }
}

// ---- Accuracy metrics ----

TEST_CASE("sliding log error: decisions compared with an exact log of the strategy's admissions") {
  // Limit 2 per 10 s. Allowed at 1, 2 (fine) and 3 (wrong: 1 and 2 are in (-7, 3]); denied at 4
  // (right: 3 in the log); allowed at 11.5 (wrong: (1.5, 11.5] holds 2 and 3); denied at 12.5
  // (right: 3 and 11.5); denied at 13.5 (wrong: (3.5, 13.5] holds only 11.5).
  const std::vector<Limit> limits{{"l", LimitKey::kUser, 2, 10 * kUsPerS}};
  Oracle oracle(limits, Algorithm::kFixedWindow);
  const std::vector<std::pair<double, bool>> decisions{
      {1, true}, {2, true}, {3, true}, {4, false}, {11.5, true}, {12.5, false}, {13.5, false}};
  for (const auto& [t, allowed] : decisions)
    oracle.on_decision(at(t), Outcome{allowed, allowed ? -1 : 0, false}, true, at(t).arrival_us, 1);
  const auto& m = oracle.totals().limits[0];
  CHECK(m.wrongly_allowed == 2);
  CHECK(m.wrongly_denied == 1);
  CHECK(m.sliding_log_error_rate == Approx(3.0 / 7.0));
}

TEST_CASE("sliding log error checks every limit on an admission and the denying one on a denial") {
  const std::vector<Limit> limits{{"user", LimitKey::kUser, 1, 10 * kUsPerS},
                                  {"ip", LimitKey::kIp, 5, 10 * kUsPerS}};
  Oracle oracle(limits, Algorithm::kFixedWindow);
  Request a = at(1), b = at(2);
  b.user = 1;  // another user on the same ip
  oracle.on_decision(a, Outcome{true, -1, false}, true, a.arrival_us, 1);
  oracle.on_decision(a, Outcome{true, -1, false}, true, at(1.5).arrival_us, 1);  // user over
  oracle.on_decision(b, Outcome{false, 1, false}, true, b.arrival_us, 1);        // ip had 2 < 5
  const auto& totals = oracle.totals();
  CHECK(totals.limits[0].wrongly_allowed == 1);
  CHECK(totals.limits[0].wrongly_denied == 0);
  CHECK(totals.limits[1].wrongly_allowed == 0);
  CHECK(totals.limits[1].wrongly_denied == 1);
  CHECK(totals.limits[0].sliding_log_error_rate == Approx(1.0 / 3.0));
}

TEST_CASE("staleness: the observed count against the true count of the current window") {
  const std::vector<Limit> limits{{"l", LimitKey::kGlobal, 100, 10 * kUsPerS}};
  Oracle oracle(limits, Algorithm::kFixedWindow);
  for (double t : {1.0, 2.0, 3.0})
    oracle.on_decision(at(t), Outcome{true, -1, false}, true, at(t).arrival_us, 1);
  CHECK(oracle.totals().staleness.samples == 0);
  // At 4 s the true count (before this decision) is 3, the strategy read 1: error 2.
  oracle.on_decision(at(4), Outcome{true, -1, false, 1}, true, at(4).arrival_us, 1);
  // At 5 s the true count is 4, read 4: error 0.
  oracle.on_decision(at(5), Outcome{false, 0, false, 4}, true, at(5).arrival_us, 1);
  // At 11 s a new window: the true count is 0, read 2 (an old total): error 2.
  oracle.on_decision(at(11), Outcome{true, -1, false, 2}, true, at(11).arrival_us, 1);
  const Staleness& s = oracle.totals().staleness;
  CHECK(s.samples == 3);
  CHECK(s.total_abs_error == 4);
  CHECK(s.max_abs_error == 2);
  CHECK(s.mean_abs_error() == Approx(4.0 / 3.0));
}

TEST_CASE("the series counts every decision and keeps empty windows") {
  const std::vector<Limit> limits{{"l", LimitKey::kUser, 2, 10 * kUsPerS}};
  Oracle oracle(limits, Algorithm::kFixedWindow);
  oracle.on_decision(at(1), Outcome{true, -1, false}, true, at(1).arrival_us, 1);
  oracle.on_decision(at(5), Outcome{false, 0, false}, false, at(5).arrival_us, 4);
  oracle.on_decision(at(25), Outcome{false, 0, false}, false, at(25).arrival_us, 3);
  const auto& series = oracle.totals().series;
  REQUIRE(series.size() == 3);
  CHECK(series[0].offered == 2);
  CHECK(series[0].admitted == 1);
  CHECK(series[0].denied == 1);
  CHECK(series[0].max_per_key == 1);
  CHECK(series[0].instances == 4);  // seen at the denial
  CHECK(series[1].start_us == 10 * kUsPerS);
  CHECK(series[1].offered == 0);
  CHECK(series[1].instances == 0);
  CHECK(series[2].offered == 1);
  CHECK(series[2].denied == 1);
  CHECK(series[2].admitted == 0);
  CHECK(series[2].instances == 3);
}

TEST_CASE("the series counts errors, excess per limit and latency buckets per window") {
  // Limit "a": 2 per 100 s per user; limit "b": 1 per 100 s per ip (every request has ip 0).
  const std::vector<Limit> limits{{"a", LimitKey::kUser, 2, 100 * kUsPerS},
                                  {"b", LimitKey::kIp, 1, 100 * kUsPerS}};
  Oracle oracle(limits, Algorithm::kFixedWindow);
  const auto decide = [&](double t, bool allowed, bool error, DurationUs latency_us) {
    oracle.on_decision(at(t), Outcome{allowed, allowed ? -1 : 0, error}, true,
                       at(t).arrival_us + latency_us, 1);
  };
  // Window [0, 100 s): admitted at 1 s after 100 us (the first bucket, its bound included) and at
  // 2 s after 5 ms (the 5 ms bucket); denied by "a" at 3 s after 101 us; admitted at 4 s after a
  // 20 s error (above every bound), decided at 24 s.
  decide(1, true, false, 100);
  decide(2, true, false, 5'000);
  decide(3, false, false, 101);
  decide(4, true, true, 20 * kUsPerS);
  // Window [300 s, 400 s): one admission, within both limits; the windows between stay empty.
  decide(331, true, false, 0);
  const auto& series = oracle.totals().series;
  REQUIRE(series.size() == 4);
  CHECK(series[0].errors == 1);
  // "a" admits 2: the third admission is one beyond; "b" admits 1: the second and third are.
  CHECK(series[0].excess_by_limit == std::vector<std::int64_t>{1, 2});
  std::array<std::uint32_t, kSeriesLatencyBoundsUs.size() + 1> buckets{};
  buckets[0] = 1;   // 100 us
  buckets[1] = 1;   // 101 us: above 100, at most 250
  buckets[5] = 1;   // 5 ms
  buckets[16] = 1;  // 20 s: above 10 s
  CHECK(series[0].latency_buckets == buckets);
  CHECK(series[0].latency_sum_us == 100 + 5'000 + 101 + 20 * kUsPerS);
  CHECK(series[1].excess_by_limit.empty());  // no decision in it
  CHECK(series[1].latency_sum_us == 0);
  CHECK(series[3].errors == 0);
  CHECK(series[3].excess_by_limit == std::vector<std::int64_t>{0, 0});
  CHECK(series[3].latency_buckets[0] == 1);
  // The windows' excess adds up to each limit's total.
  CHECK(oracle.totals().limits[0].excess == 1);
  CHECK(oracle.totals().limits[1].excess == 2);
}

TEST_CASE("the oracle records which ideal algorithm it ran") {
  const std::vector<Limit> limits{{"l", LimitKey::kUser, 2, 10 * kUsPerS}};
  CHECK(Oracle(limits, Algorithm::kGcra).totals().ideal_algorithm == Algorithm::kGcra);
}

// ---- Bounded memory ----

TEST_CASE("idle keys are freed: memory follows the active keys, not every key ever seen") {
  // 100,000 users, each sending one request, 10 ms apart, window 1 s: about 100 keys are active
  // at any time.
  const std::vector<Limit> limits{{"u", LimitKey::kUser, 5, kUsPerS},
                                  {"e", LimitKey::kEndpoint, 1000, kUsPerS}};
  for (Algorithm algorithm :
       {Algorithm::kFixedWindow, Algorithm::kSlidingLog, Algorithm::kSlidingCounter,
        Algorithm::kTokenBucket, Algorithm::kGcra}) {
    INFO(to_string(algorithm));
    Oracle oracle(limits, algorithm);
    std::size_t most_keys = 0;
    for (std::uint32_t user = 0; user < 100'000; ++user) {
      Request r;
      r.arrival_us = static_cast<TimeUs>(user) * 10 * kUsPerMs;
      r.user = user;
      r.endpoint = user % 3;
      CHECK(oracle.ideal_admits(r));
      oracle.on_decision(r, Outcome{true, -1, false}, true, r.arrival_us, 1);
      most_keys = std::max(most_keys, oracle.keys_held());
    }
    // A sweep runs after max(1024, keys) lookups and one window: at most a few thousand keys.
    CHECK(most_keys < 6000);
    CHECK(oracle.totals().limits[0].max_in_rolling == 1);
    CHECK(oracle.totals().limits[1].excess == 0);
  }
}

TEST_CASE("a rolling log is exact above the old 4096-event threshold and gives memory back") {
  const DurationUs window_us = kUsPerS;
  RollingLog log;
  // 10,000 events at 1, 2, ..., 10,000 us: all inside (10,000 - 1 s, 10,000].
  for (TimeUs t = 1; t <= 10'000; ++t) CHECK(log.add(t, window_us) == t);
  CHECK(log.count(10'000, window_us) == 10'000);
  CHECK(log.capacity() == 16'384);  // a power of two under twice the events held
  // At 1,005,000 us the window (5,000, 1,005,000] holds 5,001 .. 10,000: exactly 5,000 events.
  CHECK(log.count(1'005'000, window_us) == 5'000);
  CHECK(log.at_least(5'000, 1'005'000, window_us));
  CHECK_FALSE(log.at_least(5'001, 1'005'000, window_us));
  // At 1,008,900 us: (8,900, 10,000] holds 1,100 events; the ring held 8 times as much and
  // shrank to a quarter.
  CHECK(log.count(1'008'900, window_us) == 1'100);
  CHECK(log.capacity() == 4'096);
  CHECK(log.empty(1'010'000, window_us));
  CHECK(log.capacity() <= 4);  // a quiet key costs a few bytes again
}

TEST_CASE("a rolling log counts the half-open interval exactly") {
  RollingLog log;
  for (TimeUs t : {100, 200, 200, 300}) log.add(t, 100);
  CHECK(log.count(300, 100) == 1);  // (200, 300]
  CHECK(log.count(399, 100) == 1);
  CHECK(log.count(400, 100) == 0);
}

TEST_CASE("rolling overshoot stays exact beyond the limit while under 4096 in a window") {
  // Limit 10 per second, 3000 admissions of one key within 0.3 s.
  const std::vector<Limit> limits{{"l", LimitKey::kUser, 10, kUsPerS}};
  Oracle oracle(limits, Algorithm::kFixedWindow);
  for (int i = 0; i < 3000; ++i) {
    Request r;
    r.arrival_us = 100 * i;
    oracle.on_decision(r, Outcome{true, -1, false}, false, r.arrival_us, 1);
  }
  CHECK(oracle.totals().limits[0].max_in_rolling == 3000);
  CHECK(oracle.totals().limits[0].wrongly_allowed == 2990);
}

TEST_CASE("freeing idle keys never changes a verdict or a metric") {
  // One busy user at 10 requests/s against 5 per second, 1000 requests: alone, its tables see
  // fewer than 1024 lookups and never sweep. With 20 one-off users after each of its requests,
  // sweeps run often; the busy user's verdicts and metrics must not change. By hand, the ideal
  // fixed window, sliding log and sliding counter admit 5 per second (500). The token bucket (5
  // tokens, 0.5 more every 0.1 s) admits 0.05 .. 0.85 (9: 5, 4.5, 4, ... 1 tokens), then every
  // other request (495); GCRA (T = 0.2 s, tau = 0.8 s) the same.
  const std::vector<Limit> limits{{"u", LimitKey::kUser, 5, kUsPerS}};
  const std::vector<std::pair<Algorithm, int>> expected_admitted{{Algorithm::kFixedWindow, 500},
                                                                 {Algorithm::kSlidingLog, 500},
                                                                 {Algorithm::kSlidingCounter, 500},
                                                                 {Algorithm::kTokenBucket, 504},
                                                                 {Algorithm::kGcra, 504}};
  for (const auto& [algorithm, admitted] : expected_admitted) {
    INFO(to_string(algorithm));
    Oracle quiet(limits, algorithm), noisy(limits, algorithm);
    std::vector<bool> quiet_verdicts, noisy_verdicts;
    std::uint32_t next_user = 1;
    for (int i = 0; i < 1000; ++i) {
      Request busy;
      busy.arrival_us = 50 * kUsPerMs + i * 100 * kUsPerMs;
      const bool quiet_verdict = quiet.ideal_admits(busy);
      const bool noisy_verdict = noisy.ideal_admits(busy);
      quiet_verdicts.push_back(quiet_verdict);
      noisy_verdicts.push_back(noisy_verdict);
      // The strategy: the ideal verdict, but every 7th request let through anyway.
      const bool allowed = quiet_verdict || i % 7 == 0;
      const Outcome outcome{allowed, allowed ? -1 : 0, false};
      quiet.on_decision(busy, outcome, quiet_verdict, busy.arrival_us, 1);
      noisy.on_decision(busy, outcome, noisy_verdict, busy.arrival_us, 1);
      for (int n = 0; n < 20; ++n) {
        Request other = busy;
        other.user = next_user++;
        noisy.on_decision(other, Outcome{true, -1, false}, noisy.ideal_admits(other),
                          other.arrival_us, 1);
      }
    }
    CHECK(noisy_verdicts == quiet_verdicts);
    CHECK(std::count(quiet_verdicts.begin(), quiet_verdicts.end(), true) == admitted);
    const auto& q = quiet.totals().limits[0];
    const auto& n = noisy.totals().limits[0];
    CHECK(n.max_in_window == q.max_in_window);
    CHECK(n.max_in_rolling == q.max_in_rolling);
    CHECK(n.excess == q.excess);
    CHECK(n.wrongly_allowed == q.wrongly_allowed);
    CHECK(n.wrongly_denied == q.wrongly_denied);
    CHECK(n.false_denials == q.false_denials);
    CHECK(noisy.keys_held() < 4000);
  }
}

TEST_CASE("the worked example of docs/metrics.md") {
  // Limit 2 per 10 s; (arrival, decision, allowed, ideal verdict at arrival).
  const std::vector<Limit> limits{{"l", LimitKey::kUser, 2, 10 * kUsPerS}};
  Oracle oracle(limits, Algorithm::kFixedWindow);
  struct Row {
    double arrival_s, decided_s;
    bool allowed, ideal;
  };
  const std::vector<Row> rows{{1.0, 1.0, true, true},    {8.0, 8.0, true, true},
                              {9.0, 9.0, true, false},   {9.999, 10.001, true, false},
                              {10.5, 10.5, false, true}, {11.0, 11.0, true, true},
                              {19.0, 19.0, false, false}};
  for (const Row& row : rows) {
    const Request r = at(row.arrival_s);
    CHECK(oracle.ideal_admits(r) == row.ideal);
    oracle.on_decision(r, Outcome{row.allowed, row.allowed ? -1 : 0, false}, row.ideal,
                       at(row.decided_s).arrival_us, 1);
  }
  const OracleTotals& totals = oracle.totals();
  const LimitMetrics& m = totals.limits[0];
  CHECK(m.overshoot == Approx(1.5));
  CHECK(m.excess == 1);
  CHECK(m.max_in_rolling == 4);
  CHECK(m.false_denials == 1);
  CHECK(m.wrongly_allowed == 3);
  CHECK(m.wrongly_denied == 0);
  CHECK(m.sliding_log_error_rate == Approx(3.0 / 7.0));
  CHECK(totals.latency_us.quantile(0.5) == 0);
  CHECK(totals.latency_us.quantile(0.99) == 2000);
  REQUIRE(totals.series.size() == 2);
  CHECK(totals.series[0].offered == 3);
  CHECK(totals.series[0].admitted == 3);
  CHECK(totals.series[1].offered == 4);
  CHECK(totals.series[1].admitted == 2);
  CHECK(totals.series[1].denied == 2);
  CHECK(totals.series[1].max_per_key == 2);
}

TEST_CASE("the ideal sliding log above 4096 per window denies at most one sub-interval early") {
  // Limit 5000 per second, a request every 100 us for 2 s. Exactly: 5000 admitted in [0, 0.5 s),
  // none until 1.0 s, then each admission of the first second leaves the log at +1 s and makes
  // room: 5000 more in [1.0 s, 1.5 s). Above 4096 the log counts in sub-intervals of 977 us
  // (about 10 requests), so it may deny up to about 10 requests early, never admit one too many.
  const std::vector<Limit> limits{{"l", LimitKey::kGlobal, 5000, kUsPerS}};
  Oracle oracle(limits, Algorithm::kSlidingLog);
  std::int64_t first_second = 0, second_second = 0;
  for (TimeUs t = 0; t < 2 * kUsPerS; t += 100) {
    Request r;
    r.arrival_us = t;
    if (oracle.ideal_admits(r)) ++(t < kUsPerS ? first_second : second_second);
  }
  CHECK(first_second == 5000);
  CHECK(second_second <= 5000);
  CHECK(second_second >= 5000 - 10);
}

TEST_CASE("rolling overshoot is exact above 4096 admissions in a window: evenly spaced") {
  // Limit 5000 per second, one key admitted every 200 us for 2 s: every interval (t - 1 s, t]
  // holds exactly 5000 admissions, so the rolling maximum is the limit and no admission found
  // 5000 already in its window.
  const std::vector<Limit> limits{{"l", LimitKey::kUser, 5000, kUsPerS}};
  Oracle oracle(limits, Algorithm::kSlidingLog);
  for (int i = 0; i < 10'000; ++i) {
    Request r;
    r.arrival_us = 200 * static_cast<TimeUs>(i);
    oracle.on_decision(r, Outcome{true, -1, false}, true, r.arrival_us, 1);
  }
  const LimitMetrics& metrics = oracle.totals().limits[0];
  CHECK(metrics.max_in_rolling == 5000);
  CHECK(metrics.rolling_overshoot == 1.0);
  CHECK(metrics.wrongly_allowed == 0);
}

TEST_CASE("rolling overshoot is exact above 4096 admissions in a window: two bursts") {
  // Limit 5000 per second. Burst A: 4500 admissions at 100,000 + i us; burst B: 4500 at
  // 1,095,000 + i us; burst C: 4500 at 2,200,000 + i us (i = 0 .. 4499). The interval ending at
  // B's last admission, (99,499, 1,099,499], holds all of A and B: 9000, and no interval holds
  // more (C is more than 1 s after B). B's i-th admission found 4500 + i before it in its window:
  // 5000 or more for i >= 500, so 4000 are wrongly allowed.
  const std::vector<Limit> limits{{"l", LimitKey::kUser, 5000, kUsPerS}};
  Oracle oracle(limits, Algorithm::kSlidingLog);
  for (const TimeUs start_us : {100'000, 1'095'000, 2'200'000}) {
    for (TimeUs i = 0; i < 4500; ++i) {
      Request r;
      r.arrival_us = start_us + i;
      oracle.on_decision(r, Outcome{true, -1, false}, true, r.arrival_us, 1);
    }
  }
  const LimitMetrics& metrics = oracle.totals().limits[0];
  CHECK(metrics.max_in_rolling == 9000);
  CHECK(metrics.rolling_overshoot == 1.8);
  CHECK(metrics.wrongly_allowed == 4000);
}

TEST_CASE(
    "rolling maximum with over 100,000 admissions in one window matches a brute-force count") {
  // 250,000 admissions of one key with pseudo-random gaps of 0 .. 99 us (a fixed LCG), about
  // 12.4 s in all, against a 10 s window (about 200,000 admissions per window) and a limit of
  // 150,000. The brute force counts each admission's window by binary search in the sorted times.
  const DurationUs window_us = 10 * kUsPerS;
  const std::int64_t limit = 150'000;
  const std::vector<Limit> limits{{"l", LimitKey::kUser, limit, window_us}};
  Oracle oracle(limits, Algorithm::kFixedWindow);
  std::vector<TimeUs> times;
  std::uint64_t state = 12345;
  TimeUs t = 0;
  for (int i = 0; i < 250'000; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    t += static_cast<TimeUs>((state >> 33) % 100);
    times.push_back(t);
    Request r;
    r.arrival_us = t;
    oracle.on_decision(r, Outcome{true, -1, false}, true, r.arrival_us, 1);
  }
  std::int64_t brute_max = 0, brute_wrongly_allowed = 0;
  for (std::size_t i = 0; i < times.size(); ++i) {
    // (times[i] - window, times[i]] holds the admissions after the last one at or before its start
    // and up to i (later ones at the same time are not yet admitted).
    const auto first = std::upper_bound(times.begin(), times.end(), times[i] - window_us);
    const auto in_window =
        static_cast<std::int64_t>(times.begin() + static_cast<std::ptrdiff_t>(i) - first) + 1;
    brute_max = std::max(brute_max, in_window);
    if (in_window - 1 >= limit) ++brute_wrongly_allowed;
  }
  const LimitMetrics& metrics = oracle.totals().limits[0];
  CHECK(brute_max > 100'000);
  CHECK(metrics.max_in_rolling == brute_max);
  CHECK(metrics.rolling_overshoot == static_cast<double>(brute_max) / static_cast<double>(limit));
  CHECK(metrics.wrongly_allowed == brute_wrongly_allowed);
}

}  // namespace rlsim_test_oracle
