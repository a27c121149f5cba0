#include <catch2/catch.hpp>

#include "core/task.h"
#include "redis/mock_store.h"
#include "redis/server.h"

using namespace rlsim;

namespace {

struct Outcome {
  std::vector<Reply> replies;
  TimeUs done_us = -1;
};

Task<int> one_call(RedisServer& server, Simulator& sim, Command command, Outcome& outcome) {
  outcome.replies = co_await server.call(std::move(command));
  outcome.done_us = sim.now();
  co_return 0;
}

Task<int> pipelined(RedisServer& server, Simulator& sim, std::vector<Command> commands,
                    Outcome& outcome) {
  outcome.replies = co_await server.pipeline(std::move(commands));
  outcome.done_us = sim.now();
  co_return 0;
}

void ignore(void*, int&&) {}

RedisTiming fixed(DurationUs rtt_us, DurationUs service_us, DurationUs timeout_us) {
  return RedisTiming{rtt_us, rtt_us, service_us, timeout_us};
}

}  // namespace

TEST_CASE("a call takes one round trip plus service time") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, fixed(1000, 5, 50'000), Rng(1, "network"));
  Outcome outcome;
  one_call(server, sim, {"INCR", "k"}, outcome).start_detached(&ignore, nullptr);
  sim.run_until(1'000'000);
  REQUIRE(outcome.replies.size() == 1);
  CHECK(outcome.replies[0].integer == 1);
  CHECK(outcome.done_us == 1005);
  CHECK(server.stats().round_trips == 1);
  CHECK(server.stats().commands == 1);
}

TEST_CASE("a pipeline is one round trip and pays service time per command") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, fixed(1000, 5, 50'000), Rng(1, "network"));
  Outcome outcome;
  pipelined(server, sim, {{"INCR", "a"}, {"INCR", "a"}, {"EXPIRE", "a", "60"}}, outcome)
      .start_detached(&ignore, nullptr);
  sim.run_until(1'000'000);
  REQUIRE(outcome.replies.size() == 3);
  CHECK(outcome.replies[1].integer == 2);
  CHECK(outcome.replies[2].integer == 1);
  CHECK(outcome.done_us == 1015);
  CHECK(server.stats().round_trips == 1);
  CHECK(server.stats().commands == 3);
}

TEST_CASE("the single-threaded server queues FIFO") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, fixed(100, 1000, 50'000), Rng(1, "network"));
  std::vector<Outcome> outcomes(3);
  for (auto& outcome : outcomes)
    one_call(server, sim, {"INCR", "k"}, outcome).start_detached(&ignore, nullptr);
  sim.run_until(1'000'000);
  CHECK(outcomes[0].done_us == 1100);
  CHECK(outcomes[1].done_us == 2100);
  CHECK(outcomes[2].done_us == 3100);
  CHECK(outcomes[2].replies[0].integer == 3);
  CHECK(server.stats().max_queue_wait_us == 2000);
}

TEST_CASE("a timed-out call still runs on the server") {
  Simulator sim;
  MockStore store;
  // Service takes 10 ms, the client waits 5 ms.
  RedisServer server(sim, store, fixed(100, 10'000, 5'000), Rng(1, "network"));
  Outcome outcome;
  one_call(server, sim, {"INCR", "k"}, outcome).start_detached(&ignore, nullptr);
  sim.run_until(1'000'000);
  REQUIRE(outcome.replies.size() == 1);
  CHECK(outcome.replies[0].timed_out);
  CHECK(outcome.done_us == 5'000);
  CHECK(server.stats().timeouts == 1);
  CHECK(to_display(store.run({"GET", "k"}, kEpochUnixUs + 1'000'000)) == "\"1\"");
}

TEST_CASE("a network leg longer than the timeout times out at the deadline") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, fixed(20'000, 5, 5'000), Rng(1, "network"));
  Outcome outcome;
  one_call(server, sim, {"INCR", "k"}, outcome).start_detached(&ignore, nullptr);
  sim.run_until(1'000'000);
  CHECK(outcome.replies[0].timed_out);
  CHECK(outcome.done_us == 5'000);
  CHECK(server.in_flight() == 0);
  CHECK(to_display(store.run({"GET", "k"}, kEpochUnixUs + 1'000'000)) == "\"1\"");
}

TEST_CASE("sampled round trips follow p50 and p99") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, RedisTiming{500, 2000, 0, 1'000'000}, Rng(3, "network"));
  std::vector<Outcome> outcomes(4000);
  for (auto& outcome : outcomes)
    one_call(server, sim, {"PING"}, outcome).start_detached(&ignore, nullptr);
  sim.run_until(10'000'000);
  std::vector<TimeUs> rtts;
  for (const auto& outcome : outcomes) rtts.push_back(outcome.done_us);
  std::sort(rtts.begin(), rtts.end());
  CHECK(rtts[2000] == Approx(500).epsilon(0.06));
  CHECK(rtts[3960] == Approx(2000).epsilon(0.15));
}
