// Retrying clients (traffic[].retry, world/retry.h): the delay before each retry and the chain of
// retries of one denied request (sent, admitted, given up, cut by the end), computed by hand. Their
// effect on a run and on shadow mode's comparison is in test_shadow.cpp.
#include <catch2/catch.hpp>
#include <limits>

#include "world/retry.h"

namespace rlsim_test_retry {

using namespace rlsim;

namespace {

// Collects what the retrying clients send.
struct Collect final : RequestSink {
  std::vector<Request> requests;
  void on_request(const Request& request) override { requests.push_back(request); }
};

TrafficGroup retrying_group(DurationUs after_us, int max, double backoff, double jitter) {
  TrafficGroup group;
  group.retry = RetrySpec{after_us, max, backoff, jitter};
  return group;
}

Request first_send(std::uint64_t sequence, TimeUs arrival_us) {
  Request request;
  request.id = sequence;
  request.arrival_us = arrival_us;
  request.user = 7;
  request.endpoint = 2;
  return request;
}

}  // namespace

TEST_CASE("the delay grows by backoff per retry, jitter scales it within [1 - j, 1 + j]") {
  const RetrySpec plain{kUsPerS, 3, 2.0, 0.0};
  CHECK(retry_delay_us(plain, 1, 0.3) == 1'000'000);
  CHECK(retry_delay_us(plain, 2, 0.9) == 2'000'000);
  CHECK(retry_delay_us(plain, 3, 0.0) == 4'000'000);
  const RetrySpec fixed{250 * kUsPerMs, 2, 1.0, 0.0};
  CHECK(retry_delay_us(fixed, 2, 0.5) == 250'000);
  const RetrySpec jittered{kUsPerS, 3, 2.0, 0.1};
  CHECK(retry_delay_us(jittered, 1, 0.0) == 900'000);     // 1 s x 0.9
  CHECK(retry_delay_us(jittered, 1, 0.5) == 1'000'000);   // the middle of the range
  CHECK(retry_delay_us(jittered, 1, 0.75) == 1'050'000);  // 1 s x 1.05
  CHECK(retry_delay_us(jittered, 3, 0.25) == 3'800'000);  // 4 s x 0.95
}

TEST_CASE("a retry's id keeps its first send's id and carries the attempt") {
  const std::uint64_t first = (std::uint64_t{3} << 40) | 12345;
  CHECK(retry_request_id(first, 1) == (first | (std::uint64_t{1} << 48)));
  CHECK(retry_request_id(first, 10) >> 48 == 10);
  CHECK((retry_request_id(first, 10) & ((std::uint64_t{1} << 48) - 1)) == first);
}

TEST_CASE("a denied request is sent again after 1 s, 2 s, 4 s and then given up") {
  Simulator sim;
  Collect sink;
  const std::vector<TrafficGroup> groups{retrying_group(kUsPerS, 3, 2.0, 0.0)};
  RetryClients retries(sim, groups, 1, 60 * kUsPerS, sink);
  retries.on_decided(first_send(5, 0), false, 1000);  // denied at 1 ms
  std::vector<TimeUs> expected_us{1'001'000, 3'001'500, 7'002'000};
  for (std::size_t i = 0; i < expected_us.size(); ++i) {
    sim.run_until(expected_us[i] - 1);
    REQUIRE(sink.requests.size() == i);
    sim.run_until(expected_us[i]);
    REQUIRE(sink.requests.size() == i + 1);
    const Request& retry = sink.requests.back();
    CHECK(retry.arrival_us == expected_us[i]);
    CHECK(retry.attempt == i + 1);
    CHECK(retry.id == retry_request_id(5, static_cast<std::uint32_t>(i + 1)));
    CHECK(retry.user == 7);
    CHECK(retry.endpoint == 2);
    // Each retry is denied 500 us after it arrives.
    retries.on_decided(retry, false, retry.arrival_us + 500);
  }
  sim.run_until(std::numeric_limits<TimeUs>::max());
  CHECK(sink.requests.size() == 3);  // max 3: the third denial ends the chain
  const RetryResult& r = retries.result();
  CHECK(r.first_denied == 1);
  CHECK(r.sent == 3);
  CHECK(r.admitted == 0);
  CHECK(r.gave_up == 1);
  CHECK(r.cut == 0);
}

TEST_CASE("an admitted request is not retried, and an admitted retry ends its chain") {
  Simulator sim;
  Collect sink;
  const std::vector<TrafficGroup> groups{retrying_group(kUsPerS, 3, 2.0, 0.0)};
  RetryClients retries(sim, groups, 1, 60 * kUsPerS, sink);
  retries.on_decided(first_send(1, 0), true, 500);
  sim.run_until(10 * kUsPerS);
  CHECK(sink.requests.empty());
  retries.on_decided(first_send(2, 10 * kUsPerS), false, 10 * kUsPerS + 500);
  sim.run_until(20 * kUsPerS);
  REQUIRE(sink.requests.size() == 1);
  CHECK(sink.requests[0].arrival_us == 11 * kUsPerS + 500);
  retries.on_decided(sink.requests[0], true, 20 * kUsPerS);
  sim.run_until(std::numeric_limits<TimeUs>::max());
  CHECK(sink.requests.size() == 1);
  const RetryResult& r = retries.result();
  CHECK(r.first_denied == 1);
  CHECK(r.sent == 1);
  CHECK(r.admitted == 1);
  CHECK(r.gave_up == 0);
}

TEST_CASE(
    "a retry due at or after the end of the run is cut, and groups without retry retry "
    "nothing") {
  Simulator sim;
  Collect sink;
  std::vector<TrafficGroup> groups{retrying_group(kUsPerS, 3, 2.0, 0.0), TrafficGroup{}};
  CHECK(RetryClients::wanted(groups));
  RetryClients retries(sim, groups, 1, 2 * kUsPerS, sink);
  retries.on_decided(first_send(1, 0), false, kUsPerS);  // due at exactly 2 s: the end
  Request other = first_send(2, 0);
  other.group = 1;
  retries.on_decided(other, false, 0);
  sim.run_until(std::numeric_limits<TimeUs>::max());
  CHECK(sink.requests.empty());
  CHECK(retries.result().cut == 1);
  CHECK(retries.result().first_denied == 1);
  CHECK_FALSE(RetryClients::wanted({TrafficGroup{}}));
}

TEST_CASE("a stopped run counts the retries due after the stop as cut, once") {
  Simulator sim;
  Collect sink;
  const std::vector<TrafficGroup> groups{retrying_group(kUsPerS, 3, 2.0, 0.0)};
  RetryClients retries(sim, groups, 1, 60 * kUsPerS, sink);
  retries.on_decided(first_send(1, 0), false, 0);  // its retry is due at 1 s
  sim.run_until(kUsPerS / 2);
  retries.stop_after(kUsPerS / 2);
  CHECK(retries.result().cut == 1);  // still waiting
  sim.run_until(std::numeric_limits<TimeUs>::max());
  CHECK(sink.requests.empty());
  CHECK(retries.result().cut == 1);  // fired, not sent
}

}  // namespace rlsim_test_retry
