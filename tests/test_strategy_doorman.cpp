// doorman (YouTube's Doorman, strategy/doorman.cpp) on small traffic computed by hand: the
// server's algorithms on a lease store seeded by hand, the rate limiter's releases (the
// front-loaded leftover, the timer re-armed by every waiter), the outage behaviours (keep, zero,
// safe capacity), learning mode after the lease store is lost, the parameter checks, and the
// headline numbers of scenarios/doorman.json.
#include <catch2/catch.hpp>

#include "engine/run.h"
#include "scenario/load.h"
#include "strategy_harness.h"

namespace rlsim_test_strategy_doorman {

using namespace rlsim;
using rlsim::testing::StrategyHarness;

namespace {

// Capacities of 20, 10 and 75 requests per second (Doorman's capacity is the limit per window).
const char* kGlobal20 = R"({"name": "global", "key": "global", "limit": 20, "window": "1s"})";
const char* kGlobal10 = R"({"name": "global", "key": "global", "limit": 10, "window": "1s"})";
const char* kGlobal75 = R"({"name": "global", "key": "global", "limit": 75, "window": "1s"})";
const std::string kLeases = "{doorman}:global:all";

constexpr TimeUs ms(std::int64_t value) { return value * kUsPerMs; }

// The harness's round trip is 1 ms and the first call meets NOSCRIPT: a client's first lease
// arrives 2 ms after its first request.
constexpr TimeUs kFirstLeaseUs = ms(2);

// A Redis that answers with errors from `down_us` to `up_us` (Unix time on the server), and
// forgets everything (a restart) at the first call from `lose_us` on.
class FaultyStore final : public DataStore {
 public:
  FaultyStore(TimeUs down_us, TimeUs up_us, TimeUs lose_us)
      : down_us_(down_us), up_us_(up_us), lose_us_(lose_us) {}
  void execute(std::span<const Command> commands, TimeUs now_us,
               std::vector<Reply>& replies) override {
    last_now_us = now_us;
    if (now_us >= lose_us_ && !lost_) {
      lost_ = true;
      inner.lose_data();
    }
    if (now_us < down_us_ || now_us >= up_us_) return inner.execute(commands, now_us, replies);
    for (std::size_t i = 0; i < commands.size(); ++i) replies.push_back(Reply::error("ERR down"));
  }
  std::size_t key_count() const override { return inner.key_count(); }
  void lose_data() override { inner.lose_data(); }
  std::string hget(const std::string& field) {
    return to_display(inner.run({"HGET", kLeases, field}, last_now_us));
  }
  MockStore inner;
  TimeUs last_now_us = kEpochUnixUs;

 private:
  TimeUs down_us_, up_us_, lose_us_;
  bool lost_ = false;
};

std::string entry(const std::string& params) {
  nlohmann::json json = nlohmann::json::parse(params);
  json["name"] = "doorman";
  return json.dump();
}

// The lease instance 0 gets when two other clients hold leases already: instance-8 wants 2 and
// has 2, instance-9 wants 30 and has 5 (capacity 20, so 13 are not leased).
std::string lease_next_to_two(const char* algorithm) {
  StrategyHarness h(kGlobal20, entry(fmt::format(R"({{"algorithm": "{}"}})", algorithm)));
  h.redis({"HSET", kLeases, "instance-8", "2 2 1 9000000000000000"});
  h.redis({"HSET", kLeases, "instance-9", "5 30 1 9000000000000000"});
  h.request(0);  // a new resource: wants the whole capacity, 20
  h.run();
  const std::string value = h.redis({"HGET", kLeases, "instance-0"});
  return value.substr(0, value.find(" 1 "));  // "has wants"
}

}  // namespace

TEST_CASE("doorman algorithms: each divides the capacity as algorithm.go does") {
  // FAIR_SHARE: equal share 20/3; instance-8 leaves 20/3 - 2 to the 2 clients that want more,
  // 7/3 each; 20 >= 20/3 + 7/3 = 9, and instance-9 (30) leaves nothing for a second round: 9.
  CHECK(lease_next_to_two("FAIR_SHARE") == "\"9 20");
  // PROPORTIONAL_SHARE: the stored wants (32) exceed 20, so 20/3 plus its need over it (40/3) in
  // proportion of the spare (14/3) to the others' need (70/3): 20/3 + 40/3 * 0.2 = 28/3.
  CHECK(lease_next_to_two("PROPORTIONAL_SHARE") == "\"9.3333333333333339 20");
  CHECK(lease_next_to_two("STATIC") == "\"20 20");        // min(capacity, wants)
  CHECK(lease_next_to_two("NO_ALGORITHM") == "\"20 20");  // wants
}

TEST_CASE("doorman: a new client gets nothing while the others hold the whole capacity") {
  StrategyHarness h(kGlobal20, entry(R"({"qps_timer": "periodic"})"), {0, 0});
  h.request(0, 0, 0);
  h.request(ms(10), 0, 1);
  CHECK(h.pattern() == "10");
  // Instance 0 asked 20 of 20 and got it; instance 1 is owed 10 but none is left unleased.
  CHECK(h.redis({"HGET", kLeases, "instance-0"}).starts_with("\"20 20 1 "));
  CHECK(h.redis({"HGET", kLeases, "instance-1"}).starts_with("\"0 20 1 "));
  // 20 per second: 20 subintervals of 50 ms, one release each, the first 50 ms after the lease.
  CHECK(h.decided_at()[0] == kFirstLeaseUs + ms(50));
  CHECK(h.decided_at()[1] == ms(10) + kUsPerS);  // blocked at capacity 0: refused after max_wait
}

TEST_CASE("doorman qps limiter: the leftover of the second goes out in the first release") {
  // 75 per second: 50 subintervals of int(1000 / 75) = 13 ms, 1 each, and the leftover 25 as
  // 25 / 1 + 1 = 26 more in the first release: 27 at once.
  StrategyHarness h(kGlobal75, entry(R"({"qps_timer": "periodic"})"));
  for (int i = 0; i < 30; ++i) h.request(0);
  CHECK(h.pattern() == std::string(30, '1'));
  const std::vector<TimeUs> at = h.decided_at();
  for (int i = 0; i < 27; ++i) CHECK(at[i] == kFirstLeaseUs + ms(13));
  CHECK(at[27] == kFirstLeaseUs + ms(26));
  CHECK(at[28] == kFirstLeaseUs + ms(39));
  CHECK(at[29] == kFirstLeaseUs + ms(52));
}

TEST_CASE("doorman qps limiter: every waiting request re-arms the release timer") {
  // 10 per second: one release every 100 ms. Requests every 50 ms for a second (max_wait 10 s).
  StrategyHarness restarted(kGlobal10, entry(R"({"max_wait": "10s"})"));
  StrategyHarness periodic(kGlobal10, entry(R"({"max_wait": "10s", "qps_timer": "periodic"})"));
  for (int i = 0; i < 20; ++i) {
    restarted.request(ms(50 * i));
    periodic.request(ms(50 * i));
  }
  CHECK(restarted.pattern() == std::string(20, '1'));
  CHECK(periodic.pattern() == std::string(20, '1'));
  for (int i = 0; i < 20; ++i) {
    INFO(i);
    // periodic: every 100 ms from the lease; restarted: nothing until 100 ms after the last
    // request (950 ms), then every 100 ms.
    CHECK(periodic.decided_at()[i] == kFirstLeaseUs + ms(100) * (i + 1));
    CHECK(restarted.decided_at()[i] == ms(1050) + ms(100) * i);
  }
}

TEST_CASE("doorman outage: the Go client keeps its lease; zero and safe_capacity drop it") {
  // Leases of 2 s refreshed every 1 s; Redis fails from 0.5 s to 10 s. Requests every 100 ms
  // for 3 s at 10 per second (one release every 100 ms from the lease at 2 ms).
  const auto run = [](const std::string& params) {
    FaultyStore store(kEpochUnixUs + ms(500), kEpochUnixUs + 10 * kUsPerS,
                      kEpochUnixUs + kUsPerHour);
    StrategyHarness h(
        kGlobal10,
        entry(R"({"qps_timer": "periodic", "lease_length": "2s", "refresh_interval": "1s",
                  "minimum_refresh_interval": "1s", )" +
              params + "}"),
        {0}, 1000, 50'000, ".", &store);
    for (int i = 0; i < 30; ++i) h.request(ms(100 * i));
    const std::string pattern = h.pattern();  // runs the simulation
    return std::make_pair(pattern, h.metrics());
  };
  // The lease expires at second 2 of the server's clock (granted at 2 ms, 2 s long, whole
  // seconds). Refreshes fail at 1.003 s and, 1 s later, at 2.004 s: then it is dropped. By then
  // the releases at 0.102 ... 2.002 s have freed the requests of 0 ... 1.9 s.
  const auto [keep, keep_metrics] = run(R"("on_expiry": "keep")");
  CHECK(keep == std::string(30, '1'));
  CHECK(keep_metrics.at("lease_expiries") == 0);
  CHECK(keep_metrics.at("expired_lease_decisions") == 9);  // 2.1 ... 2.9 s, past second 2
  const auto [zero, zero_metrics] = run(R"("on_expiry": "zero")");
  CHECK(zero == std::string(20, '1') + std::string(10, '0'));
  CHECK(zero_metrics.at("lease_expiries") == 1);
  CHECK(zero_metrics.at("safe_capacity_decisions") == 9);  // 2.1 ... 2.9 s
  // safe_capacity -1 (no limit): later requests pass at once; the one already waiting at 2.0 s
  // is never released (the Go limiter does not free its waiters when it becomes unlimited).
  const auto [safe, safe_metrics] = run(R"("on_expiry": "safe_capacity", "safe_capacity": "-1")");
  CHECK(safe == std::string(20, '1') + "0" + std::string(9, '1'));
}

TEST_CASE("doorman learning mode: after the lease store is lost, holdings are echoed back") {
  // The store is lost at 1 s. Instance 0's refresh at 5.002 s says it has 20 and wants 2 / 5.002
  // s (its two requests since it added the resource): in learning mode it keeps 20, and instance
  // 1, new at 5.1 s, gets 0. Without learning mode FAIR_SHARE gives instance 0 what it wants and
  // instance 1 the rest, 20 - 2 / 5.002.
  for (const bool learning : {true, false}) {
    INFO(learning);
    FaultyStore store(0, 0, kEpochUnixUs + kUsPerS);
    StrategyHarness h(
        kGlobal20,
        entry(learning ? R"({"qps_timer": "periodic"})"
                       : R"({"qps_timer": "periodic", "learning_mode_duration": "0s"})"),
        {0, 0}, 1000, 50'000, ".", &store);
    h.request(0, 0, 0);
    h.request(5 * kUsPerS, 0, 0);
    h.request(5 * kUsPerS + ms(100), 0, 1);
    h.run();
    CHECK(store.hget("instance-0").starts_with(learning ? "\"20 0.39984" : "\"0.39984"));
    CHECK(store.hget("instance-1").starts_with(learning ? "\"0 20 " : "\"19.60015"));
    CHECK(h.metrics().at("learning_mode_grants") == (learning ? 2 : 0));
  }
}

TEST_CASE("doorman parameters: Doorman's defaults and its configuration checks") {
  const StrategyInfo* doorman = find_strategy("doorman");
  REQUIRE(doorman != nullptr);
  std::string field, error;
  const auto defaults = resolve_params(*doorman, nlohmann::json::object(), field, error);
  REQUIRE(defaults);
  CHECK((*defaults)["algorithm"] == "FAIR_SHARE");
  CHECK((*defaults)["lease_length"] == "300s");
  CHECK((*defaults)["refresh_interval"] == "5s");
  CHECK((*defaults)["on_expiry"] == "keep");
  CHECK((*defaults)["qps_timer"] == "restarted");
  CHECK_FALSE(resolve_params(
      *doorman, nlohmann::json{{"lease_length", "5s"}, {"refresh_interval", "10s"}}, field, error));
  CHECK(field == "lease_length");
  CHECK(error == "Lease length must be larger than the refresh interval (Doorman)");
  CHECK_FALSE(
      resolve_params(*doorman, nlohmann::json{{"refresh_interval", "1500ms"}}, field, error));
  CHECK(field == "refresh_interval");
  CHECK(error == "expected whole seconds, at least 1s (Doorman's int64 seconds), got 1500000 us");
  CHECK_FALSE(resolve_params(*doorman, nlohmann::json{{"safe_capacity", "lots"}}, field, error));
  CHECK(field == "safe_capacity");
  CHECK(error == R"(expected "-1" (no limit), "0" (stop) or a rate such as "2/s", got "lots")");
  CHECK(resolve_params(*doorman, nlohmann::json{{"safe_capacity", "2/s"}}, field, error));
}

TEST_CASE("doorman scenario: leases follow the autoscaling, outlive a short outage, and learn") {
  const Scenario scenario = load_scenario(RLSIM_SOURCE_DIR "/scenarios/doorman.json");
  std::vector<StrategyResult> results;
  for (const auto& strategy : resolve_strategies(scenario, "doorman.json"))
    results.push_back(run_strategy(scenario, strategy, scenario.seed));
  const auto by = [&](const std::string& label) -> const StrategyResult& {
    for (const auto& r : results)
      if (r.label == label) return r;
    FAIL(label);
    return results.front();
  };
  const StrategyResult& periodic = by("periodic");
  // 20 per second, never more: 1200 in each full minute with 8 instances.
  for (int minute : {2, 3, 4}) CHECK(periodic.totals.series[minute].max_per_key == 1200);
  // 5:00 - 9:00: learning mode keeps the shares of 8 (2.5/s) on the 4 instances left: 600.
  for (int minute : {5, 6, 7, 8}) CHECK(periodic.totals.series[minute].max_per_key == 600);
  CHECK(periodic.totals.series[9].max_per_key > 1100);
  // The restarted timer: almost nothing (at most a fifth of the capacity in any minute).
  for (const auto& window : by("doorman").totals.series) CHECK(window.max_per_key < 240);
  CHECK(by("lease_20s_zero").strategy_metrics["lease_expiries"] == 8);
  CHECK(by("lease_20s_safe").strategy_metrics["lease_expiries"] == 8);
  CHECK(by("lease_20s_zero").totals.allowed < by("lease_20s_safe").totals.allowed);
}

}  // namespace rlsim_test_strategy_doorman
