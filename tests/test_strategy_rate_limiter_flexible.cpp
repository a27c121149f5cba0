// rate_limiter_flexible (RateLimiterRedis of rate-limiter-flexible,
// strategy/rate_limiter_flexible.cpp) on small traffic computed by hand: the window from a key's
// first consume, every consume counted, the sub-second duration that never expires, blockDuration,
// the in-memory block both ways, the insurance limiter per process and its counts never copied
// back; the options' checks; and the headline numbers of scenarios/rate-limiter-flexible.json.
#include <catch2/catch.hpp>
#include <limits>

#include "engine/expect.h"
#include "engine/run.h"
#include "report/report.h"
#include "scenario/error.h"
#include "scenario/load.h"
#include "strategy_harness.h"
#include "test_util.h"

namespace rlsim_test_strategy_rate_limiter_flexible {

using namespace rlsim;
using rlsim::testing::StrategyHarness;

namespace {

const char* kLimit3PerSecond = R"({"name": "per_user", "key": "user", "limit": 3, "window": "1s"})";
const char* kLimit2PerSecond = R"({"name": "per_user", "key": "user", "limit": 2, "window": "1s"})";
const std::string kKey = "rlflx:user:0";

constexpr TimeUs ms(std::int64_t value) { return value * kUsPerMs; }

// A Redis that answers with errors while its clock is before `until_us`, and then works.
class DownUntilStore final : public DataStore {
 public:
  explicit DownUntilStore(TimeUs until_us) : until_us_(until_us) {}
  void execute(std::span<const Command> commands, TimeUs now_us,
               std::vector<Reply>& replies) override {
    if (now_us >= until_us_) return inner.execute(commands, now_us, replies);
    for (std::size_t i = 0; i < commands.size(); ++i) replies.push_back(Reply::error("ERR down"));
  }
  std::size_t key_count() const override { return inner.key_count(); }
  void lose_data() override { inner.lose_data(); }
  MockStore inner;

 private:
  TimeUs until_us_;
};

std::string rlf(const std::string& params) {
  return R"({"name": "rate_limiter_flexible")" + (params.empty() ? "" : ", " + params) + "}";
}

}  // namespace

TEST_CASE("rate_limiter_flexible: the window starts at the key's first consume, not aligned") {
  // Redis's clock decides, not the process's: a process clock 2 s ahead changes nothing.
  for (const DurationUs offset_us : {DurationUs{0}, 2 * kUsPerS}) {
    StrategyHarness h(kLimit3PerSecond, rlf(""), {offset_us});
    for (int at : {500, 510, 520}) h.request(ms(at));
    h.request(ms(1100));  // an aligned window would start afresh at 1000: here 4 > 3
    h.request(ms(1600));  // the key expired about 1501 ms: a new window
    CHECK(h.pattern() == "11101");
    CHECK(h.get(kKey) == "\"1\"");
    CHECK(h.redis({"TTL", kKey}) == "(integer) 1");
  }
}

TEST_CASE("rate_limiter_flexible: every consume counts, rejected ones too") {
  StrategyHarness h(kLimit3PerSecond, rlf(""));
  for (int at : {0, 2, 4, 6, 8}) h.request(ms(at));
  CHECK(h.pattern() == "11100");
  CHECK(h.get(kKey) == "\"5\"");
  CHECK(h.run().back().observed_count == 4);  // the count before the fifth consume
  // The product's script, by its SHA1 (computed with node from lib/RateLimiterRedis.js).
  CHECK(h.redis({"SCRIPT", "EXISTS", "a1de965f42e177aa339706bd580f049065eca79a"}) ==
        "[(integer) 1]");
}

TEST_CASE("rate_limiter_flexible: a duration under one second never expires in Redis") {
  const char* limit = R"({"name": "per_user", "key": "user", "limit": 2, "window": "500ms"})";
  StrategyHarness h(limit, rlf(""));
  for (int at : {0, 10, 20, 2000}) h.request(ms(at));
  CHECK(h.pattern() == "1100");  // Math.floor(0.5) = 0: INCRBY + PTTL, no EX
  CHECK(h.redis({"PTTL", kKey}) == "(integer) -1");
  CHECK(h.get(kKey) == "\"4\"");
}

TEST_CASE("rate_limiter_flexible: blockDuration SETs the key at the first consume over points") {
  StrategyHarness h(kLimit2PerSecond, rlf(R"("blockDuration": "3s")"));
  for (int at : {0, 10, 20}) h.request(ms(at));  // the third: SET key 3 EX 3
  h.request(ms(1500));                           // still blocked, although the window was 1 s
  h.request(ms(3100));                           // the block expired near 3022 ms
  CHECK(h.pattern() == "11001");
  CHECK(h.metrics().at("redis_blocks") == 1);  // the consume at 1500 (count 4) blocks no more
}

TEST_CASE("rate_limiter_flexible: inMemoryBlockOnConsumed alone blocks until the window ends") {
  StrategyHarness h(kLimit3PerSecond, rlf(R"("inMemoryBlockOnConsumed": 3)"), {0, 0});
  // The third consume sees 3 >= 3: admitted, and instance 0 blocks the key for the key's PTTL.
  for (int at : {0, 10, 20, 30, 40}) h.request(ms(at), 0, 0);
  h.request(ms(50), 0, 1);    // instance 1 has not seen it: Redis counts 4, rejects, blocks
  h.request(ms(1200), 0, 0);  // the block (until about 1002 ms) and the Redis window are over
  CHECK(h.pattern() == "1110001");
  CHECK(h.metrics().at("in_memory_rejected") == 2);  // 30 and 40 ms: Redis never asked
  CHECK(h.metrics().at("in_memory_blocks") == 2);
  CHECK(h.get(kKey) == "\"1\"");
}

TEST_CASE("rate_limiter_flexible: inMemoryBlockDuration outlasts the Redis window") {
  StrategyHarness h(kLimit3PerSecond,
                    rlf(R"("inMemoryBlockOnConsumed": 4, "inMemoryBlockDuration": "2s")"));
  for (int at : {0, 10, 20, 30}) h.request(ms(at));  // the fourth: 4 > 3 and 4 >= 4: 2 s
  h.request(ms(40));
  h.request(ms(1500));  // Redis would admit (its window ended near 1002 ms): the process rejects
  h.request(ms(2100));
  CHECK(h.pattern() == "1110001");
  CHECK(h.metrics().at("in_memory_rejected") == 2);
  CHECK(h.get(kKey) == "\"1\"");
}

TEST_CASE(
    "rate_limiter_flexible: without insurance a store error rejects, with it each process "
    "admits insurancePoints") {
  DownUntilStore failing(std::numeric_limits<TimeUs>::max());  // every command fails
  StrategyHarness bare(kLimit3PerSecond, rlf(""), {0, 0}, 1000, 50'000, ".", &failing);
  StrategyHarness insured(kLimit3PerSecond,
                          rlf(R"("insuranceLimiter": true, "insurancePoints": 2)"), {0, 0}, 1000,
                          50'000, ".", &failing);
  for (StrategyHarness* h : {&bare, &insured}) {
    for (std::uint32_t instance : {0u, 1u})
      for (int at : {0, 1, 2}) h->request(ms(at), 0, instance);
    h->request(ms(1500), 0, 0);  // the insurance window (duration, 1 s) started at 0: a new one
  }
  CHECK(bare.pattern() == "0000000");
  CHECK(insured.pattern() == "1101101");
  for (const Decision& d : insured.run()) CHECK(d.error);
  CHECK(insured.metrics().at("insurance_consumes") == 7);
  CHECK(insured.metrics().at("insurance_rejected") == 2);
  CHECK(insured.metrics().at("store_errors") == 7);
}

TEST_CASE("rate_limiter_flexible: the insurance counts are not copied back to Redis") {
  DownUntilStore store(kEpochUnixUs + ms(100));
  const char* limit = R"({"name": "per_user", "key": "user", "limit": 3, "window": "10s"})";
  StrategyHarness h(limit, rlf(R"("insuranceLimiter": true)"), {0}, 1000, 50'000, ".", &store);
  for (int at : {0, 10, 20, 30}) h.request(ms(at));       // insurance: 3 of 4
  for (int at : {200, 210, 220, 230}) h.request(ms(at));  // Redis starts from 0: 3 more
  CHECK(h.pattern() == "11101110");
  CHECK(to_display(store.inner.run({"GET", kKey}, kEpochUnixUs + ms(300))) == "\"4\"");
}

TEST_CASE(
    "rate_limiter_flexible: several limits are consumed in turn, a rejection stops the "
    "chain") {
  const std::string limits = std::string(kLimit2PerSecond) +
                             R"(, {"name": "per_ip", "key": "ip", "limit": 10, "window": "1s"})";
  StrategyHarness h(limits, rlf(""));
  for (int at : {0, 10, 20}) h.request(ms(at));
  CHECK(h.pattern() == "110");
  CHECK(h.run().back().denied_by == 0);
  CHECK(h.get(kKey) == "\"3\"");
  CHECK(h.get("rlflx:ip:10.0.0.1") == "\"2\"");  // the third request never reached per_ip
}

TEST_CASE("rate_limiter_flexible parameters: defaults and the product's checks") {
  const StrategyInfo* info = find_strategy("rate_limiter_flexible");
  REQUIRE(info != nullptr);
  std::string field, error;
  const auto defaults = resolve_params(*info, nlohmann::json::object(), field, error);
  REQUIRE(defaults);
  CHECK((*defaults)["points"].is_null());
  CHECK((*defaults)["duration"].is_null());
  CHECK((*defaults)["blockDuration"] == "0s");
  CHECK((*defaults)["inMemoryBlockOnConsumed"] == 0);
  CHECK((*defaults)["insuranceLimiter"] == false);
  CHECK((*defaults)["keyPrefix"] == "rlflx");

  CHECK_FALSE(
      resolve_params(*info, nlohmann::json{{"inMemoryBlockDuration", "10s"}}, field, error));
  CHECK(field == "inMemoryBlockDuration");
  CHECK(error == "inMemoryBlockOnConsumed option must be set up");
  CHECK_FALSE(resolve_params(*info, nlohmann::json{{"insurancePoints", 10}}, field, error));
  CHECK(field == "insurancePoints");
  CHECK(error == "only with \"insuranceLimiter\": true");

  // Without points, the limit is the points: checked when the limiter is built.
  StrategyHarness h(kLimit3PerSecond, rlf(R"("inMemoryBlockOnConsumed": 2)"));
  CHECK(h.strategy().fatal_error() ==
        "limit per_user: inMemoryBlockOnConsumed option must be greater or equal \"points\" "
        "option (points 3, inMemoryBlockOnConsumed 2)");
}

TEST_CASE(
    "rate_limiter_flexible: what the constructor refuses, validate refuses, naming the limit") {
  const auto validate_error = [](const std::string& params) {
    const Scenario scenario = parse_scenario(
        R"({"name": "s", "duration": "2s", "instances": {"count": 1},
            "limits": [{"name": "per_user", "key": "user", "limit": 3, "window": "1s"}],
            "traffic": [{"name": "t", "users": 1, "rate": "1/s"}],
            "strategies": [{"name": "rate_limiter_flexible", )" +
            params + "}]}",
        "s.json");
    try {
      resolve_strategies(scenario, "s.json");
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(validate_error(R"("inMemoryBlockOnConsumed": 2)") ==
        "s.json: strategies[0].inMemoryBlockOnConsumed: limit per_user: inMemoryBlockOnConsumed "
        "option must be greater or equal \"points\" option (points 3, inMemoryBlockOnConsumed 2)");
  CHECK(validate_error(R"("points": 10, "inMemoryBlockOnConsumed": 5)") ==
        "s.json: strategies[0].inMemoryBlockOnConsumed: inMemoryBlockOnConsumed option must be "
        "greater or equal \"points\" option (points 10, inMemoryBlockOnConsumed 5)");
  CHECK(validate_error(R"("inMemoryBlockOnConsumed": 3)").empty());
}

TEST_CASE(
    "rate_limiter_flexible scenario: floating windows, insurance per process, the in-memory "
    "block") {
  const Scenario scenario =
      load_scenario(std::string(RLSIM_SOURCE_DIR) + "/scenarios/rate-limiter-flexible.json");
  const nlohmann::ordered_json report = report_json(rlsim::testing::run_text(scenario));
  const auto metric = [&](const std::string& label, const std::string& path) {
    std::string error;
    const auto value = lookup_metric(*find_strategy_report(report, label), path, error);
    INFO(label << " " << path << ": " << error);
    REQUIRE(value);
    return *value;
  };
  // The late users' window began at 0:50: none of their 1:00-1:10 requests pass, where the
  // aligned window starts afresh at 1:00 (5 steady users x 100 + 5 late users x 100).
  CHECK(metric("redis", "series.windows[1].admitted") == 500);
  CHECK(metric("aligned_reference", "series.windows[1].admitted") == 1000);
  // Every rejected consume is counted: a user's key reaches about 1200 a minute.
  CHECK(metric("redis", "staleness.max") > 900);
  // Redis refusing connections for 20 s: no insurance rejects them all; with insurance each of
  // the 10 processes admits insurancePoints (10) per steady user: 5 x 10 x 10.
  CHECK(metric("redis", "faults[0].during.allowed") == 0);
  CHECK(metric("insured", "faults[0].during.allowed") == 500);
  CHECK(metric("insured", "overshoot") == 2.0);
  // The in-memory block: a tenth of the Redis calls, and the outage unseen by blocked keys.
  CHECK(metric("in_memory_block", "redis_round_trips_per_request") < 0.2);
  CHECK(metric("redis", "redis_round_trips_per_request") > 0.9);
  CHECK(metric("in_memory_block", "faults[0].during.errors") == 0);
}

}  // namespace rlsim_test_strategy_rate_limiter_flexible
