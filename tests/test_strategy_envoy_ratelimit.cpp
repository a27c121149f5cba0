// envoy_ratelimit (Envoy's global rate limit filter and the envoyproxy/ratelimit service,
// strategy/envoy_ratelimit.cpp) on small traffic computed by hand: the fixed window counting
// rejected requests, the RPC's timeout and failure_mode_deny, the local over-limit cache,
// stop_cache_key_increment_when_overlimit, whose clock keys the window, the parameters, and the
// headline numbers of scenarios/envoy-ratelimit.json.
#include <catch2/catch.hpp>

#include "engine/run.h"
#include "strategy_harness.h"
#include "test_util.h"

namespace rlsim_test_strategy_envoy_ratelimit {

using namespace rlsim;
using rlsim::testing::StrategyHarness;

namespace {

const char* kLimit2PerSecond = R"({"name": "per_user", "key": "user", "limit": 2, "window": "1s"})";
const char* kLimit3PerSecond = R"({"name": "per_user", "key": "user", "limit": 3, "window": "1s"})";
const char* kLimit10PerSecond =
    R"({"name": "per_user", "key": "user", "limit": 10, "window": "1s"})";
// A user limit and a global one, for the rejected requests that use up the other limit.
const char* kUserAndGlobal =
    R"({"name": "per_user", "key": "user", "limit": 2, "window": "1s"},
       {"name": "all", "key": "global", "limit": 4, "window": "1s"})";

constexpr TimeUs ms(std::int64_t value) { return value * kUsPerMs; }
constexpr std::int64_t kEpochS = kEpochUnixUs / kUsPerS;
// The service's key of `limit` for `value` in the second starting `offset_s` after the epoch.
std::string key(const std::string& limit, const std::string& value, std::int64_t offset_s = 0) {
  return "rlsim_" + limit + "_" + value + "_" + std::to_string(kEpochS + offset_s);
}

// A Redis that answers until `fails_from_us` (its own clock, Unix us) and then errors.
class OutageStore final : public DataStore {
 public:
  explicit OutageStore(TimeUs fails_from_us) : fails_from_us_(fails_from_us) {}
  void execute(std::span<const Command> commands, TimeUs now_us,
               std::vector<Reply>& replies) override {
    if (now_us < fails_from_us_) return inner.execute(commands, now_us, replies);
    for (std::size_t i = 0; i < commands.size(); ++i) replies.push_back(Reply::error("ERR down"));
  }
  std::size_t key_count() const override { return inner.key_count(); }
  void lose_data() override { inner.lose_data(); }
  MockStore inner;

 private:
  TimeUs fails_from_us_;
};

std::string error_of(const nlohmann::json& given) {
  std::string field, error;
  const StrategyInfo* info = find_strategy("envoy_ratelimit");
  REQUIRE(info != nullptr);
  return resolve_params(*info, given, field, error) ? "" : field + ": " + error;
}

}  // namespace

TEST_CASE("envoy_ratelimit: INCRBY + EXPIRE per request, rejected requests counted") {
  StrategyHarness h(kLimit3PerSecond,
                    R"({"name": "envoy_ratelimit", "expiration_jitter_max": "0s"})");
  for (int at : {0, 2, 4, 6, 8}) h.request(ms(at));
  CHECK(h.pattern() == "11100");
  CHECK(h.get(key("per_user", "0")) == "\"5\"");                   // the two rejected ones too
  CHECK(h.redis({"TTL", key("per_user", "0")}) == "(integer) 1");  // the unit, no jitter
  CHECK(h.stats().round_trips == 5);                               // one pipeline each
  CHECK(h.stats().commands == 10);
  // Decided after the RPC's round trip (1 ms) and the service's Redis round trip (1 ms).
  CHECK(h.decided_at()[0] == ms(2));
  const auto metrics = h.metrics();
  CHECK(metrics.at("ok") == 3);
  CHECK(metrics.at("total_hits") == 5);
  CHECK(metrics.at("within_limit") == 3);
  CHECK(metrics.at("over_limit") == 2);
  CHECK(metrics.at("error") == 0);
  for (const Decision& d : h.run()) CHECK_FALSE(d.error);
  CHECK(h.run()[4].observed_count == 4);  // the count before the request, rejected ones included
}

TEST_CASE("envoy_ratelimit: the window is the unit's, keyed on the service's clock") {
  StrategyHarness h(kLimit2PerSecond, R"({"name": "envoy_ratelimit"})");
  for (int at : {0, 1, 2, 998}) h.request(ms(at));  // the 4th reaches the service at 998.5 ms
  h.request(ms(999));   // reaches the service at 999.5 ms: still the first second
  h.request(ms(1000));  // the next second's key
  CHECK(h.pattern() == "110001");
  CHECK(h.get(key("per_user", "0", 1)) == "\"1\"");
  // EXPIRE: the unit plus a jitter below EXPIRATION_JITTER_MAX_SECONDS (300 s by default).
  const std::string ttl = h.redis({"TTL", key("per_user", "0", 1)});
  const std::int64_t ttl_s = std::stoll(ttl.substr(ttl.find(' ') + 1));
  CHECK(ttl_s >= 1);
  CHECK(ttl_s <= 300);
}

TEST_CASE("envoy_ratelimit: a Redis stall: every request waits the 20 ms timeout") {
  // The service's Redis answers after 100 ms (within its own 10 s timeout): too late for Envoy.
  const std::string limits = kLimit3PerSecond;
  StrategyHarness open(limits, R"({"name": "envoy_ratelimit"})", {0}, ms(100), 10 * kUsPerS);
  StrategyHarness deny(limits, R"({"name": "envoy_ratelimit", "failure_mode_deny": true})", {0},
                       ms(100), 10 * kUsPerS);
  for (int at : {0, 1, 2, 3, 4}) {
    open.request(ms(at));
    deny.request(ms(at));
  }
  CHECK(open.pattern() == "11111");  // failure_mode_deny false: all pass, the limit too
  CHECK(deny.pattern() == "00000");
  CHECK(open.decided_at() == std::vector<TimeUs>{ms(20), ms(21), ms(22), ms(23), ms(24)});
  for (const Decision& d : open.run()) CHECK(d.error);
  CHECK(open.metrics().at("rpc_timeouts") == 5);
  CHECK(open.metrics().at("failure_mode_allowed") == 5);
  CHECK(deny.metrics().at("failure_mode_allowed") == 0);
  CHECK(deny.metrics().at("error") == 5);
  // The service's pipelines still ran when Redis answered: the key holds all five.
  CHECK(open.get(key("per_user", "0")) == "\"5\"");
  // An RPC answered in time is not an error: 9 ms of Redis, 1 ms of hop.
  StrategyHarness slow(limits, R"({"name": "envoy_ratelimit"})", {0}, ms(9), 10 * kUsPerS);
  slow.request(0);
  CHECK(slow.pattern() == "1");
  CHECK(slow.decided_at()[0] == ms(10));
  CHECK(slow.metrics().at("error") == 0);
}

TEST_CASE("envoy_ratelimit: a Redis error fails the RPC at once; failure_mode_deny decides") {
  OutageStore store(0);  // every command fails
  StrategyHarness h(kLimit3PerSecond, R"({"name": "envoy_ratelimit"})", {0}, 1000, 50'000, ".",
                    &store);
  for (int at : {0, 1, 2, 3}) h.request(ms(at));
  CHECK(h.pattern() == "1111");
  CHECK(h.decided_at()[0] == ms(2));  // not the timeout: the service answered an error
  CHECK(h.metrics().at("redis_error") == 4);
  CHECK(h.metrics().at("failure_mode_allowed") == 4);
  CHECK(h.metrics().at("rpc_timeouts") == 0);
}

TEST_CASE("envoy_ratelimit: the local cache answers keys over the limit without Redis") {
  // Redis fails from 500 ms on: keys already over the limit are still denied, from the cache.
  OutageStore store(kEpochUnixUs + ms(500));
  StrategyHarness h(kLimit2PerSecond,
                    R"({"name": "envoy_ratelimit", "local_cache_size_in_bytes": 1048576})", {0},
                    1000, 50'000, ".", &store);
  for (int at : {0, 10, 20, 30, 40}) h.request(ms(at), 0);  // user 0: 1, 2, over, cached, cached
  h.request(ms(600), 0);                                    // Redis down, user 0 in the cache
  h.request(ms(600), 1);                                    // Redis down, user 1 is not: passes
  h.request(ms(1500), 0);  // the next second's key is not in the cache: Redis down, passes
  CHECK(h.pattern() == "11000011");
  CHECK(h.run()[2].observed_count == 2);  // the third went over: 3 after it
  const auto metrics = h.metrics();
  CHECK(metrics.at("over_limit") == 4);
  CHECK(metrics.at("over_limit_with_local_cache") == 3);
  CHECK(metrics.at("served_from_local_cache") == 3);
  CHECK(metrics.at("redis_error") == 2);
  CHECK(metrics.at("local_cache_evictions") == 0);
  CHECK(h.stats().round_trips == 5);   // 3 + the two failed ones
  CHECK(h.decided_at()[3] == ms(31));  // the RPC's round trip only
}

TEST_CASE("envoy_ratelimit: each replica of the service learns the over-limit keys itself") {
  StrategyHarness h(kLimit2PerSecond,
                    R"({"name": "envoy_ratelimit", "local_cache_size_in_bytes": 1,
                        "service_replicas": 2})");
  for (int at : {0, 10, 20, 30, 40, 50}) h.request(ms(at));  // replicas 0, 1, 0, 1, 0, 1
  CHECK(h.pattern() == "110000");
  // Replica 0 learns at the 3rd request (count 3), replica 1 at the 4th (count 4).
  CHECK(h.get(key("per_user", "0")) == "\"4\"");
  CHECK(h.metrics().at("served_from_local_cache") == 2);
}

TEST_CASE("envoy_ratelimit: rejected requests use up the other limits of the request (#185)") {
  // User 0 sends four, two over its own limit; all four count against the global 4.
  StrategyHarness counted(kUserAndGlobal, R"({"name": "envoy_ratelimit"})");
  StrategyHarness stopped(
      kUserAndGlobal,
      R"({"name": "envoy_ratelimit", "stop_cache_key_increment_when_overlimit": true})");
  for (StrategyHarness* h : {&counted, &stopped}) {
    for (int at : {0, 10, 20, 30}) h->request(ms(at), 0);
    h->request(ms(40), 1);
    h->request(ms(50), 2);
  }
  CHECK(counted.pattern() == "110000");  // users 1 and 2 denied by the global limit
  CHECK(counted.run()[4].denied_by == 1);
  CHECK(counted.get(key("all", "all")) == "\"6\"");
  // With the flag only the key about to go over is incremented: user 0's key still is.
  CHECK(stopped.pattern() == "110011");
  CHECK(stopped.get(key("all", "all")) == "\"4\"");
  CHECK(stopped.get(key("per_user", "0")) == "\"4\"");
  CHECK(stopped.stats().round_trips == 12);  // a GET pipeline before each INCRBY pipeline
}

TEST_CASE("envoy_ratelimit: near_limit counts requests within the limit above the ratio") {
  StrategyHarness deflt(kLimit10PerSecond, R"({"name": "envoy_ratelimit"})");
  StrategyHarness half(kLimit10PerSecond,
                       R"({"name": "envoy_ratelimit", "near_limit_ratio": 0.5})");
  for (int i = 0; i < 12; ++i) {
    deflt.request(ms(i));
    half.request(ms(i));
  }
  CHECK(deflt.pattern() == "111111111100");
  CHECK(deflt.metrics().at("near_limit") == 2);  // counts 9 and 10 exceed floor(10 x 0.8)
  CHECK(half.pattern() == "111111111100");       // the ratio changes no decision
  CHECK(half.metrics().at("near_limit") == 5);   // counts 6 to 10 exceed 5
  CHECK(half.metrics().at("over_limit") == 2);
}

TEST_CASE("envoy_ratelimit: a separate service ignores instance skew; a sidecar does not") {
  // Instance 1's clock is 1.5 s ahead.
  const char* separate = R"({"name": "envoy_ratelimit"})";
  const char* sidecar = R"({"name": "envoy_ratelimit", "service_deployment": "sidecar"})";
  StrategyHarness apart(kLimit3PerSecond, separate, {0, ms(1500)});
  StrategyHarness beside(kLimit3PerSecond, sidecar, {0, ms(1500)});
  for (StrategyHarness* h : {&apart, &beside})
    for (int i = 0; i < 6; ++i) h->request(ms(i), 0, static_cast<std::uint32_t>(i % 2));
  CHECK(apart.pattern() == "111000");   // one key, the service's second
  CHECK(beside.pattern() == "111111");  // instance 1 counts in the next second's key
  CHECK(beside.get(key("per_user", "0", 1)) == "\"3\"");
}

TEST_CASE("envoy_ratelimit: each sidecar has its own local cache") {
  StrategyHarness h(kLimit2PerSecond,
                    R"({"name": "envoy_ratelimit", "service_deployment": "sidecar",
                        "local_cache_size_in_bytes": 1})",
                    {0, 0});
  for (int at : {0, 10, 20, 30}) h.request(ms(at), 0, 0);  // 1, 2, over, cached
  for (int at : {40, 50}) h.request(ms(at), 0, 1);         // the other sidecar asks: 4, cached
  CHECK(h.pattern() == "110000");
  CHECK(h.get(key("per_user", "0")) == "\"4\"");
  CHECK(h.metrics().at("served_from_local_cache") == 2);  // at 30 ms and at 50 ms
}

TEST_CASE("envoy_ratelimit parameters: the products' defaults and the checks") {
  const StrategyInfo* info = find_strategy("envoy_ratelimit");
  REQUIRE(info != nullptr);
  std::string field, error;
  const auto defaults = resolve_params(*info, nlohmann::json::object(), field, error);
  REQUIRE(defaults);
  CHECK(defaults->at("timeout") == "20ms");
  CHECK(defaults->at("failure_mode_deny") == false);
  CHECK(defaults->at("local_cache_size_in_bytes") == 0);
  CHECK(defaults->at("near_limit_ratio") == 0.8);
  CHECK(defaults->at("expiration_jitter_max") == "300s");
  CHECK(defaults->at("stop_cache_key_increment_when_overlimit") == false);
  CHECK(defaults->at("service_deployment") == "separate");
  CHECK(error_of({{"timeout", "0ms"}}) ==
        "timeout: expected a positive duration (Envoy's default is 20ms)");
  CHECK(error_of({{"near_limit_ratio", 1.5}}) ==
        "near_limit_ratio: expected a ratio from 0 to 1, got 1.5");
  CHECK(error_of({{"expiration_jitter_max", "1500ms"}}) ==
        "expiration_jitter_max: expected whole seconds (EXPIRATION_JITTER_MAX_SECONDS)");
  CHECK(error_of({{"service_deployment", "sidecar"}, {"service_replicas", 3}}) ==
        "service_replicas: a sidecar deployment runs one service per instance (leave "
        "service_replicas at 1)");
  CHECK(error_of({{"service_replicas", 1001}}) ==
        "service_replicas: expected at most 1000, got 1001");
  CHECK(error_of({{"domain", ""}}) == "domain: expected a non-empty domain (Envoy requires one)");
  CHECK(error_of({{"near_limit_ratio", 0}}).empty());
}

TEST_CASE("envoy-ratelimit scenario: the stall, the rejected requests counted, the local cache") {
  const Scenario scenario =
      load_scenario(std::string(RLSIM_SOURCE_DIR) + "/scenarios/envoy-ratelimit.json");
  const RunResult run = rlsim::testing::run_text(scenario);
  const auto& deflt = rlsim::testing::by_label(run, "default");
  const auto& deny = rlsim::testing::by_label(run, "failure_mode_deny");
  const auto& stop = rlsim::testing::by_label(run, "stop_increment");
  const auto& cached = rlsim::testing::by_label(run, "local_cache");
  // The stall: 1774 requests, each waiting the 20 ms timeout; all pass, or all are denied.
  CHECK(deflt.strategy_metrics.at("rpc_timeouts") == 1774);
  CHECK(deflt.strategy_metrics.at("failure_mode_allowed") == 1774);
  CHECK(deflt.totals.latency_us.quantile(0.99) >= 20'000);
  CHECK(deny.strategy_metrics.at("failure_mode_allowed") == 0);
  CHECK(deflt.totals.allowed - deny.totals.allowed == 1774);
  // Rejected requests counted on the global key deny the well-behaved users; the flag does not.
  CHECK(deflt.totals.limits[1].false_denials == 1970);
  CHECK(stop.totals.limits[1].false_denials == 0);
  CHECK(stop.redis_round_trips == 2 * deflt.redis_round_trips);
  // The local cache: 10,947 RPCs without Redis, and only the uncached keys' requests pass the
  // stall.
  CHECK(cached.strategy_metrics.at("served_from_local_cache") == 10947);
  CHECK(cached.strategy_metrics.at("failure_mode_allowed") == 277);
  CHECK(cached.redis_round_trips * 2 < deflt.redis_round_trips);
}

}  // namespace rlsim_test_strategy_envoy_ratelimit
