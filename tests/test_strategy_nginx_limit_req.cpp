// nginx_limit_req (nginx's limit_req module, strategy/nginx_limit_req.cpp) on small traffic
// computed by hand with the C source's integer arithmetic (ngx_http_limit_req_module.c): excess
// in milli-requests, drained by rate * ms / 1000, rejected above burst * 1000.
#include <catch2/catch.hpp>

#include "strategy_harness.h"

namespace rlsim_test_strategy_nginx_limit_req {

using namespace rlsim;
using rlsim::testing::StrategyHarness;

namespace {

const char* kLimit10PerSecond =
    R"({"name": "per_user", "key": "user", "limit": 10, "window": "1s"})";

constexpr TimeUs ms(std::int64_t value) { return value * kUsPerMs; }

}  // namespace

TEST_CASE("nginx_limit_req: without burst one request per 1/rate, to the millisecond") {
  // 10r/s is 10000 milli-requests a second. 0: a new node, excess 0. 50: 0 - 500 + 1000 = 500 >
  // 0, rejected. 99: 0 - 990 + 1000 = 10, rejected. 100: 0, admitted. 199: 10, rejected. 200: 0.
  StrategyHarness h(kLimit10PerSecond, R"({"name": "nginx_limit_req", "rate": "10r/s"})");
  for (int at : {0, 50, 99, 100, 199, 200}) h.request(ms(at));
  CHECK(h.pattern() == "100101");
}

TEST_CASE("nginx_limit_req: burst with nodelay admits burst + 1 at once, never waiting") {
  // burst=2: excess 0, 1000, 2000 pass; 3000 > 2000 is rejected (and changes nothing). At 100 ms
  // 2000 - 1000 + 1000 = 2000 passes; at 150 ms 2000 - 500 + 1000 = 2500 does not.
  StrategyHarness h(kLimit10PerSecond,
                    R"({"name": "nginx_limit_req", "rate": "10r/s", "burst": 2, "nodelay": true})");
  for (int i = 0; i < 5; ++i) h.request(0);
  h.request(ms(100));
  h.request(ms(150));
  CHECK(h.pattern() == "1110010");
  const std::vector<TimeUs> decided = h.decided_at();
  CHECK(decided[2] == 0);
  CHECK(decided[5] == ms(100));
}

TEST_CASE("nginx_limit_req: without nodelay a burst waits excess / rate, after delay=N") {
  // burst=3, no delay parameter: excess 0, 1000, 2000, 3000 wait 0, 100, 200, 300 ms.
  StrategyHarness plain(kLimit10PerSecond,
                        R"({"name": "nginx_limit_req", "rate": "10r/s", "burst": 3})");
  for (int i = 0; i < 4; ++i) plain.request(0);
  CHECK(plain.pattern() == "1111");
  CHECK(plain.decided_at() == std::vector<TimeUs>{0, ms(100), ms(200), ms(300)});
  CHECK(plain.metrics()["delayed_requests"] == 3);
  // delay=1: the first 1000 of excess do not wait: (2000 - 1000) * 1000 / 10000 = 100 ms.
  StrategyHarness delayed(
      kLimit10PerSecond, R"({"name": "nginx_limit_req", "rate": "10r/s", "burst": 3, "delay": 1})");
  for (int i = 0; i < 4; ++i) delayed.request(0);
  CHECK(delayed.pattern() == "1111");
  CHECK(delayed.decided_at() == std::vector<TimeUs>{0, 0, ms(100), ms(200)});
}

TEST_CASE("nginx_limit_req: r/m rates are truncated milli-requests (1r/m is one per 62.5 s)") {
  // ctx->rate = 1 * 1000 / 60 = 16. At 60 s: 0 - 16 * 60000 / 1000 + 1000 = 40 > 0, rejected;
  // 62499 ms: 1000 - 999.98 truncated to 999 drained, 1 left, rejected; 62500 ms: admitted.
  StrategyHarness h(kLimit10PerSecond, R"({"name": "nginx_limit_req", "rate": "1r/m"})");
  for (int at : {0, 60000, 62499, 62500}) h.request(ms(at));
  CHECK(h.pattern() == "1001");
}

TEST_CASE("nginx_limit_req: each nginx has its own zone, so two instances admit twice") {
  StrategyHarness h(kLimit10PerSecond, R"({"name": "nginx_limit_req", "rate": "10r/s"})", {0, 0});
  h.request(0, 0, 0);
  h.request(0, 0, 1);
  h.request(ms(50), 0, 0);
  h.request(ms(50), 0, 1);
  h.stop(ms(60), 1);
  CHECK(h.pattern() == "1100");
}

TEST_CASE("nginx_limit_req: the default rate is the limit per window; parameters are checked") {
  // No rate: 10 per 1 s is 10000 milli-requests a second, as 10r/s.
  StrategyHarness h(kLimit10PerSecond, R"({"name": "nginx_limit_req"})");
  for (int at : {0, 99, 100}) h.request(ms(at));
  CHECK(h.pattern() == "101");
  const StrategyInfo* nginx = find_strategy("nginx_limit_req");
  REQUIRE(nginx != nullptr);
  std::string field, error;
  CHECK_FALSE(resolve_params(*nginx, nlohmann::json{{"rate", "10r/h"}}, field, error));
  CHECK(field == "rate");
  CHECK_FALSE(
      resolve_params(*nginx, nlohmann::json{{"delay", 2}, {"nodelay", true}}, field, error));
  CHECK(field == "delay");
  const auto given =
      resolve_params(*nginx, nlohmann::json{{"rate", "30r/m"}, {"burst", 4}}, field, error);
  REQUIRE(given);
  const Limit limit{"l", LimitKey::kUser, 100, kUsPerMin};
  CHECK(nginx->bucket_shape(ParamReader(*given), limit).capacity == 5);
  CHECK(nginx->bucket_shape(ParamReader(*given), limit).refill_per_s == 0.5);
}

}  // namespace rlsim_test_strategy_nginx_limit_req
