// haproxy_stick_table (HAProxy's stick table with http_req_rate, strategy/haproxy_stick_table.cpp)
// on small traffic computed by hand with freq_ctr's arithmetic (include/haproxy/freq_ctr.h,
// src/freq_ctr.c): rate = (previous * ms left + current * period) / period, every request
// counted, and peers that overwrite.
#include <catch2/catch.hpp>

#include "strategy_harness.h"

namespace rlsim_test_strategy_haproxy_stick_table {

using namespace rlsim;
using rlsim::testing::StrategyHarness;

namespace {

const char* kLimit2PerSecond = R"({"name": "per_user", "key": "user", "limit": 2, "window": "1s"})";

constexpr TimeUs ms(std::int64_t value) { return value * kUsPerMs; }

}  // namespace

TEST_CASE("haproxy_stick_table: the previous period weighs in, and denied requests count") {
  // http_req_rate(1s), deny if gt 2. 0: a new entry starts its period, rate 1. 100: 2. 200: 3,
  // denied. 1000: the period rotates (previous 3, current 1): (3 * 1000 + 1 * 1000) / 1000 = 4,
  // denied: the client that kept sending stays denied. 1500: (3 * 500 + 2 * 1000) / 1000 = 3.
  // 1900: (3 * 100 + 3 * 1000) / 1000 = 3. 2999: rotates again (tick 2000, previous 3): (3 * 1 +
  // 1 * 1000) / 1000 = 1. 3000: rotates (tick 3000, previous 1): (1 * 1000 + 1 * 1000) / 1000 = 2.
  StrategyHarness h(kLimit2PerSecond, R"({"name": "haproxy_stick_table"})");
  for (int at : {0, 100, 200, 1000, 1500, 1900, 2999, 3000}) h.request(ms(at));
  CHECK(h.pattern() == "11000011");
}

TEST_CASE("haproxy_stick_table: the threshold and period are HAProxy's own parameters") {
  // http_req_rate(10s) and gt 3 against a limit of 2 per second: the request counts itself, so
  // gt 3 admits 3 per period; at 10000 ms the period rotates with the 6 requests of the first
  // (denied ones included) as previous: (6 * 10000 + 1 * 10000) / 10000 = 7 > 3.
  StrategyHarness h(kLimit2PerSecond, R"({"name": "haproxy_stick_table",
                    "http_req_rate": "10s", "sc_http_req_rate_gt": 3})");
  for (int at : {0, 1000, 2000, 3000, 4000, 5000, 10000}) h.request(ms(at));
  CHECK(h.pattern() == "1110000");
}

TEST_CASE("haproxy_stick_table: one table per HAProxy without peers") {
  StrategyHarness h(kLimit2PerSecond, R"({"name": "haproxy_stick_table"})", {0, 0});
  for (int at : {0, 10, 20}) h.request(ms(at), 0, 0);
  for (int at : {0, 10, 20}) h.request(ms(at), 0, 1);
  CHECK(h.pattern() == "110110");
}

TEST_CASE("haproxy_stick_table: peers push the entry and the receiver overwrites it") {
  // peers_delay 5 ms. 0 on instance 0: rate 1 (pushed, arrives at 5). 1 on instance 1: its own
  // new entry, rate 1 (arrives at instance 0 at 6). 5: instance 1 takes instance 0's count 1;
  // 6: instance 0 takes instance 1's 1: two requests, counted once. 10 on 0: 2. 11 on 1: its
  // entry still says 1 (the update of 10 lands at 15): 2. 16: instance 0 takes 2; 20 on 0: 3,
  // denied. Without the overwrite (counts adding up) 11 would already be the 4th request.
  StrategyHarness h(kLimit2PerSecond,
                    R"({"name": "haproxy_stick_table", "peers": true, "peers_delay": "5ms"})",
                    {0, 0});
  h.request(ms(0), 0, 0);
  h.request(ms(1), 0, 1);
  h.request(ms(10), 0, 0);
  h.request(ms(11), 0, 1);
  h.request(ms(20), 0, 0);
  CHECK(h.pattern() == "11110");
  CHECK(h.metrics()["peer_updates_applied"] == 5);
}

}  // namespace rlsim_test_strategy_haproxy_stick_table
