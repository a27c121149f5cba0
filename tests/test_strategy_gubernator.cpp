// gubernator (Gubernator's GLOBAL behaviour, strategy/gubernator.cpp) on small traffic computed by
// hand: the token bucket that is a fixed window from the first hit, a non-owner deciding on its
// own window until the owner's broadcast overwrites it, the batch limit, ownership moving when the
// owner stops, the FNV-1 ring that puts similar keys on one peer; and on small full runs, a
// peer_partition dropping hits and broadcasts, and the scenario's headline numbers.
//
// The ring (SHA-1 of "instance-<id>:1051", 512 points each, FNV-1): with instances 0 and 1, or 0,
// 1 and 2, user 0's key "per_user_0" is owned by instance 1; with 0 and 2 left, by instance 2.
#include <catch2/catch.hpp>

#include "report/result_json.h"
#include "strategy_harness.h"
#include "test_util.h"

namespace rlsim_test_strategy_gubernator {

using namespace rlsim;
using rlsim::testing::StrategyHarness;

namespace {

const char* kLimit3PerSecond = R"({"name": "per_user", "key": "user", "limit": 3, "window": "1s"})";
const char* kLimit4PerSecond = R"({"name": "per_user", "key": "user", "limit": 4, "window": "1s"})";
const char* kLimit1PerSecond = R"({"name": "per_user", "key": "user", "limit": 1, "window": "1s"})";

constexpr TimeUs ms(std::int64_t value) { return value * kUsPerMs; }

}  // namespace

TEST_CASE("gubernator: the token bucket is a window from the first hit, ending after ExpireAt") {
  StrategyHarness h(kLimit3PerSecond, R"({"name": "gubernator"})");
  for (int at : {200, 300, 400, 500}) h.request(ms(at));
  // The item made at 200 ms expires at 1200 ms, and IsExpired is ExpireAt < now: 1200 is still
  // in it, 1201 starts a new window.
  h.request(ms(1200));
  h.request(ms(1201));
  CHECK(h.pattern() == "111001");
  CHECK(h.metrics().at("owner_decisions") == 6);
  CHECK(h.metrics().at("hits_sent") == 0);  // one peer owns every key
}

TEST_CASE("gubernator: a non-owner decides on its own window until the owner's broadcast") {
  StrategyHarness h(kLimit4PerSecond, R"({"name": "gubernator"})", {0, 0});
  // Instance 0 has no copy: a window of its own, 4 admitted, the fifth denied (hits queued: 5).
  for (int at : {0, 1, 2, 3, 4}) h.request(ms(at), 0, 0);
  h.request(ms(10), 0, 1);  // the owner's own window: admitted, 5 over the fleet
  // 100 ms: instance 0 sends 5 hits, applied at 100.5 ms with DRAIN_OVER_LIMIT (3 left -> 0).
  // 110 ms: the owner broadcasts remaining 0, reset at 1010 ms; instance 0's copy is overwritten.
  h.request(ms(120), 0, 0);
  h.request(ms(120), 0, 1);
  h.request(ms(1005), 0, 0);  // the broadcast copy holds until 1010
  h.request(ms(1011), 0, 0);  // expired: a new window of instance 0's own
  CHECK(h.pattern() == "1111010001");
  const auto metrics = h.metrics();
  CHECK(metrics.at("owner_decisions") == 2);
  CHECK(metrics.at("cached_decisions") == 8);
  CHECK(metrics.at("peer_new_windows") == 2);
  // Sends at 100 ms (5), 220 ms (1) and 1105 ms (2); all applied.
  CHECK(metrics.at("hits_sent") == 8);
  CHECK(metrics.at("hits_applied") == 8);
  CHECK(metrics.at("hits_lost") == 0);
  CHECK(metrics.at("hit_sends") == 3);
  // Broadcasts at 110, 220, 320.5 and 1205.5 ms, one message each (one other peer).
  CHECK(metrics.at("broadcasts") == 4);
  CHECK(metrics.at("broadcast_messages") == 4);
}

TEST_CASE("gubernator: global_batch_limit sends at once when that many keys are pending") {
  // Users 0 and 1 are both owned by instance 1. Instance 0 admits one each on windows of its own;
  // with a batch limit of 2 the hits leave at 1 ms and the owner has none left by 5 ms.
  for (const auto& [params, expected] :
       {std::pair{R"({"name": "gubernator"})", "111"}, std::pair{R"({"name": "gubernator",
                                                       "global_batch_limit": 2})",
                                                                 "110"}}) {
    StrategyHarness h(kLimit1PerSecond, params, {0, 0});
    h.request(0, 0, 0);
    h.request(ms(1), 1, 0);
    h.request(ms(5), 0, 1);
    CHECK(h.pattern() == expected);
  }
}

TEST_CASE("gubernator: when the owner stops, the next one goes on from its broadcast copy") {
  StrategyHarness h(kLimit4PerSecond, R"({"name": "gubernator"})", {0, 0, 0});
  h.request(0, 0, 1);  // the owner: remaining 3, broadcast at 100 ms to 0 and 2
  h.request(ms(1), 0, 1);
  h.request(ms(150), 0, 2);  // on the copy: 2 -> 1, the hit queued for instance 1
  h.stop(ms(200), 1);        // instance 2 owns the key now; the queued hit goes to itself
  h.request(ms(300), 0, 2);  // owner: its copy said 1, and its own hit came back at 250.5: 0
  h.request(ms(301), 0, 0);  // instance 0's copy still says 2: admitted
  CHECK(h.pattern() == "11101");
  const auto metrics = h.metrics();
  CHECK(metrics.at("ownership_changes") == 1);
  CHECK(metrics.at("hits_lost") == 0);
}

TEST_CASE("gubernator: hits a stopped instance had queued are lost") {
  StrategyHarness h(kLimit4PerSecond, R"({"name": "gubernator"})", {0, 0});
  for (int at : {0, 1, 2}) h.request(ms(at), 0, 0);
  h.stop(ms(50), 0);
  h.request(ms(60), 0, 1);  // the owner never heard of them: its own window, 3 left
  CHECK(h.pattern() == "1111");
  CHECK(h.metrics().at("hits_lost") == 3);
  CHECK(h.metrics().at("hits_sent") == 0);
}

TEST_CASE("gubernator: FNV-1 puts keys that differ in their last character on one peer") {
  // Ten users on instance 1, which owns them all with fnv1; fnv1a happens to pick instance 0 for
  // all of them on this two-peer ring (its last byte only moves the hash by 255 primes).
  for (const auto& [hash, owned] : {std::pair{"fnv1", 10}, std::pair{"fnv1a", 0}}) {
    StrategyHarness h(kLimit1PerSecond,
                      fmt::format(R"({{"name": "gubernator", "peer_picker_hash": "{}"}})", hash),
                      {0, 0});
    for (std::uint32_t user = 0; user < 10; ++user) h.request(ms(user), user, 1);
    h.run();
    CHECK(h.metrics().at("owner_decisions") == owned);
  }
}

TEST_CASE("gubernator parameters: Gubernator's defaults, and a round trip under the timeout") {
  const StrategyInfo* info = find_strategy("gubernator");
  REQUIRE(info != nullptr);
  std::string field, error;
  const auto defaults = resolve_params(*info, nlohmann::json::object(), field, error);
  REQUIRE(defaults);
  CHECK((*defaults)["global_sync_wait"] == "100ms");
  CHECK((*defaults)["global_batch_limit"] == 1000);
  CHECK((*defaults)["global_timeout"] == "500ms");
  CHECK((*defaults)["replicas"] == 512);
  CHECK((*defaults)["peer_picker_hash"] == "fnv1");
  CHECK_FALSE(resolve_params(*info, nlohmann::json{{"peer_rtt", "500ms"}}, field, error));
  CHECK(field == "peer_rtt");
  CHECK(error == "expected more than 0 and less than global_timeout (500000 us), got 500000 us");
  CHECK_FALSE(resolve_params(*info, nlohmann::json{{"peer_picker_hash", "md5"}}, field, error));
  CHECK(field == "peer_picker_hash");
}

namespace {

// Two instances, one user at 20 requests/s (constant), a limit of 10 per 2 s; instance 0 is cut
// off from instance 1 (the owner) during [4 s, 8 s).
Scenario partition_scenario(const std::string& faults) {
  return parse_scenario(
      R"({"name": "p", "duration": "12s", "seed": 1,
          "limits": [{"name": "per_user", "key": "user", "limit": 10, "window": "2s"}],
          "instances": {"count": 2},
          "traffic": [{"name": "u", "users": 1, "rate": "20/s", "arrival": "constant"}],
          "faults": [)" +
          faults + R"(],
          "strategies": [{"name": "gubernator"}]})",
      "p.json");
}

}  // namespace

TEST_CASE("gubernator: a peer partition drops the cut-off peer's hits and the broadcasts to it") {
  const Scenario cut = partition_scenario(
      R"({"type": "peer_partition", "at": "4s", "for": "4s", "instances": [0]})");
  const Scenario whole = partition_scenario("");
  const StrategyResult with_cut = rlsim::testing::run_text(cut).strategies.at(0);
  const StrategyResult without = rlsim::testing::run_text(whole).strategies.at(0);
  const auto& m = with_cut.strategy_metrics;
  CHECK(without.strategy_metrics.at("hits_lost") == 0);
  CHECK(without.strategy_metrics.at("broadcast_errors") == 0);
  // Instance 0 gets 10 requests a second: about 40 during the cut, all its hits lost.
  CHECK(m.at("hits_lost").get<int>() >= 35);
  CHECK(m.at("hits_lost").get<int>() <= 45);
  CHECK(m.at("hit_send_errors").get<int>() >= 4);
  CHECK(m.at("broadcast_errors").get<int>() >= 4);
  // Cut off, instance 0 counts a window of 10 of its own every 2 s on top of the owner's.
  CHECK(with_cut.totals.allowed >= without.totals.allowed + 15);
}

TEST_CASE("gubernator scenario: sync excess, an empty new owner, and a peer partition") {
  const Scenario scenario = load_scenario(RLSIM_SOURCE_DIR "/scenarios/gubernator.json");
  const RunResult run = rlsim::testing::run_text(scenario);
  const StrategyResult& global = rlsim::testing::by_label(run, "global");
  const StrategyResult& slow = rlsim::testing::by_label(run, "sync_1s");
  const auto per_minute = [](const StrategyResult& r) {
    std::vector<std::int64_t> most;
    for (const SeriesPoint& window : r.totals.series) most.push_back(window.max_per_key);
    return most;
  };
  const std::vector<std::int64_t> global_minutes = per_minute(global);
  REQUIRE(global_minutes.size() == 6);
  // 3 peers, 100 ms: the limit and the few the other peers admit before the next broadcast.
  CHECK(global_minutes[0] >= 100);
  CHECK(global_minutes[0] <= 110);
  CHECK(per_minute(slow)[0] > global_minutes[0]);  // a 1 s sync: more
  // 2:30, 3 -> 12: every key's new owner starts empty; 4:00, 12 -> 3: no burst.
  CHECK(global_minutes[2] >= 180);
  CHECK(global_minutes[4] <= 120);
  CHECK(global.strategy_metrics.at("ownership_changes") == 40);
  // 5:00, instance 0 cut off for 40 s: its keys counted by three peers, each on its own.
  CHECK(global_minutes[5] >= 250);
  CHECK(global.strategy_metrics.at("hits_lost").get<int>() >= 7000);
  CHECK(global.strategy_metrics.at("broadcast_errors").get<int>() >= 50);
}

}  // namespace rlsim_test_strategy_gubernator
