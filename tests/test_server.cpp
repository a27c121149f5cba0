#include <catch2/catch.hpp>

#include "core/task.h"
#include "redis/mock_store.h"
#include "redis/server.h"

namespace rlsim_test_server {

using namespace rlsim;

namespace {

struct Outcome {
  std::vector<Reply> replies;
  TimeUs done_us = -1;
};

Task<int> one_call(RedisServer& server, Simulator& sim, Command command, Outcome& outcome) {
  auto replies = co_await server.call(std::move(command));
  outcome.replies.assign(std::make_move_iterator(replies.begin()),
                         std::make_move_iterator(replies.end()));
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

// ---- Fault conditions and the connection pool --------------------------------------------------

namespace {

// Starts one INCR on behalf of `client` at the current virtual time.
void start_incr(RedisServer& server, Simulator& sim, ClientId client, Outcome& outcome) {
  server.set_current_client(client);
  one_call(server, sim, {"INCR", "k"}, outcome).start_detached(&ignore, nullptr);
}

}  // namespace

TEST_CASE("a refusing server answers at once with an error and runs nothing") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, fixed(1000, 5, 50'000), Rng(1, "network"));
  RedisConditions down;
  down.down = DownMode::kRefuse;
  server.set_conditions(down);
  Outcome outcome;
  start_incr(server, sim, 0, outcome);
  sim.run_until(1'000'000);
  REQUIRE(outcome.replies.size() == 1);
  CHECK(outcome.replies[0].is_error());
  CHECK_FALSE(outcome.replies[0].timed_out);
  CHECK(outcome.done_us == 0);
  CHECK(server.stats().refused == 1);
  CHECK(server.stats().round_trips == 0);
  CHECK(to_display(store.run({"GET", "k"}, kEpochUnixUs + 2'000'000)) == "(nil)");
}

TEST_CASE("a black hole makes the client wait out its timeout, and nothing runs") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, fixed(1000, 5, 50'000), Rng(1, "network"));
  RedisConditions down;
  down.down = DownMode::kBlackhole;
  server.set_conditions(down);
  Outcome outcome;
  start_incr(server, sim, 0, outcome);
  sim.run_until(1'000'000);
  REQUIRE(outcome.replies.size() == 1);
  CHECK(outcome.replies[0].timed_out);
  CHECK(outcome.done_us == 50'000);
  CHECK(server.stats().lost == 1);
  CHECK(server.stats().timeouts == 1);
  // Healed: the next call goes through, and the lost INCR never ran.
  server.set_conditions(RedisConditions{});
  Outcome after;
  start_incr(server, sim, 0, after);
  sim.run_until(2'000'000);
  CHECK(after.replies[0].integer == 1);
}

TEST_CASE("a request on the wire when the server dies is lost") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, fixed(1000, 5, 50'000), Rng(1, "network"));
  Outcome outcome;
  start_incr(server, sim, 0, outcome);
  sim.run_until(200);  // the request arrives at 500
  RedisConditions down;
  down.down = DownMode::kRefuse;
  server.set_conditions(down);
  sim.run_until(1'000'000);
  CHECK(outcome.replies[0].timed_out);
  CHECK(outcome.done_us == 50'000);
  CHECK(server.stats().lost == 1);
}

TEST_CASE("a partition cuts off only the listed clients") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, fixed(1000, 5, 50'000), Rng(1, "network"));
  server.set_client_down(1, DownMode::kBlackhole);
  Outcome cut, fine;
  start_incr(server, sim, 1, cut);
  start_incr(server, sim, 0, fine);
  sim.run_until(1'000'000);
  CHECK(cut.replies[0].timed_out);
  CHECK(fine.replies[0].integer == 1);
  CHECK(fine.done_us == 1005);
  server.set_client_down(1, DownMode::kUp);
  Outcome healed;
  start_incr(server, sim, 1, healed);
  sim.run_until(2'000'000);
  CHECK(healed.replies[0].integer == 2);
}

TEST_CASE("added latency, a multiplier and a slower server stretch a call") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, fixed(1000, 10, 50'000), Rng(1, "network"));
  RedisConditions slow;
  slow.rtt_multiplier = 2.0;  // 2000
  slow.added_rtt_us = 5000;   // 7000
  server.set_conditions(slow);
  server.set_slow_periods({{0, 1'000'000, 3.0}});  // 30
  Outcome outcome;
  start_incr(server, sim, 0, outcome);
  sim.run_until(1'000'000);
  CHECK(outcome.done_us == 7030);
}

TEST_CASE("jitter stays within its bound and is drawn from the seeded stream") {
  const auto latencies = [](std::uint64_t seed) {
    Simulator sim;
    MockStore store;
    RedisServer server(sim, store, fixed(1000, 0, 50'000), Rng(seed, "network"));
    RedisConditions jitter;
    jitter.rtt_jitter_us = 400;
    server.set_conditions(jitter);
    std::vector<TimeUs> done;
    for (int i = 0; i < 50; ++i) {
      Outcome outcome;
      const TimeUs start = sim.now();
      start_incr(server, sim, 0, outcome);
      sim.run_until(start + 10'000);
      done.push_back(outcome.done_us - start);
    }
    return done;
  };
  const auto first = latencies(1);
  CHECK(first == latencies(1));
  CHECK(first != latencies(2));
  for (const TimeUs latency : first) {
    CHECK(latency >= 1000);
    CHECK(latency <= 1400);
  }
  CHECK(*std::max_element(first.begin(), first.end()) >
        *std::min_element(first.begin(), first.end()));
}

TEST_CASE("an exhausted pool makes calls wait for a connection, FIFO, per client") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, fixed(1000, 0, 50'000), Rng(1, "network"));
  server.set_pool_size(1);
  Outcome a, b, c, other;
  start_incr(server, sim, 0, a);
  start_incr(server, sim, 0, b);
  start_incr(server, sim, 0, c);
  start_incr(server, sim, 1, other);  // another instance has its own pool
  sim.run_until(1'000'000);
  CHECK(a.done_us == 1000);
  CHECK(b.done_us == 2000);
  CHECK(c.done_us == 3000);
  CHECK(other.done_us == 1000);
  CHECK(a.replies[0].integer == 1);
  CHECK(c.replies[0].integer == 4);
  CHECK(server.stats().pool_waits == 2);
  CHECK(server.stats().pool_wait_total_us == 1000 + 2000);
  CHECK(server.stats().max_pool_wait_us == 2000);
  CHECK(server.in_flight() == 0);
}

TEST_CASE(
    "a call keeps the round trip of the moment it was sent (docs/faults.md#timing-semantics)") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, fixed(1000, 10, 50'000), Rng(1, "network"));
  // Sent at 0 on a healthy network; a 5 ms latency fault starts at 200 us, while it is on the wire.
  Outcome before;
  start_incr(server, sim, 0, before);
  sim.run_until(200);
  RedisConditions slow;
  slow.added_rtt_us = 5000;
  server.set_conditions(slow);
  // Sent during the fault; the fault ends at 3000 us, before its reply.
  Outcome during;
  start_incr(server, sim, 0, during);
  sim.run_until(3000);
  server.set_conditions(RedisConditions{});
  sim.run_until(1'000'000);
  CHECK(before.done_us == 1010);
  CHECK(during.done_us == 200 + 6000 + 10);
  CHECK(during.replies[0].integer == 2);
}

TEST_CASE("a slow period slows the work done inside it, whenever the call was sent") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, fixed(1000, 10, 50'000), Rng(1, "network"));
  // x100 from 200 us: the call sent at 0 reaches the server at 500 us, inside the period: 1 ms of
  // service instead of 10 us.
  server.set_slow_periods({{200, 1'000'000, 100}});
  Outcome sent_before;
  start_incr(server, sim, 0, sent_before);
  sim.run_until(2'000'000);
  CHECK(sent_before.done_us == 500 + 1000 + 500);
}

TEST_CASE("a slow period ends mid-call: the rest of the call runs at full speed") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, fixed(1000, 10, 50'000), Rng(1, "network"));
  // x100 until 505 us: the call starting at 500 does 5 / 100 = 0.05 us of its 10 us of work in
  // the period, the other 9.95 us after it: service ends at ceil(514.95) = 515.
  server.set_slow_periods({{0, 505, 100}});
  Outcome outcome;
  start_incr(server, sim, 0, outcome);
  sim.run_until(1'000'000);
  CHECK(outcome.done_us == 515 + 500);
}

TEST_CASE("calls queued during a slow period run at full speed once it is over") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, fixed(1000, 10, 50'000), Rng(1, "network"));
  // x100 until 1000 us (a fork): three calls reach the server at 500 us. The first does 5 us of
  // work by 1000 and the other 5 us after it (1005); the two queued behind it take their 10 us
  // each at full speed (1015, 1025), not 1 ms each.
  server.set_slow_periods({{0, 1000, 100}});
  Outcome first, second, third;
  start_incr(server, sim, 0, first);
  start_incr(server, sim, 1, second);
  start_incr(server, sim, 2, third);
  sim.run_until(1'000'000);
  CHECK(first.done_us == 1005 + 500);
  CHECK(second.done_us == 1015 + 500);
  CHECK(third.done_us == 1025 + 500);
  CHECK(third.replies[0].integer == 3);
  // The thread was busy from 500 to 1025 us.
  CHECK(server.node_stats().busy_us() == 525);
}

TEST_CASE("a call spanning two slow periods is paced by each") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, fixed(1000, 100, 50'000), Rng(1, "network"));
  // Starting at 500 us with 100 us of work: x10 until 600 (10 us of work), full speed until 650
  // (50 us), x4 from 650 (the last 40 us take 160): the service ends at 810.
  server.set_slow_periods({{0, 600, 10}, {650, 10'000, 4}});
  Outcome outcome;
  start_incr(server, sim, 0, outcome);
  sim.run_until(1'000'000);
  CHECK(outcome.done_us == 810 + 500);
}

namespace {

// Sends `words` through an argv taken from `spares`, then gives the finished call's argv back.
Task<int> call_with_spare(RedisServer& server, SpareCommands& spares,
                          std::vector<std::string> words, Outcome& outcome) {
  Command argv = spares.take(words.size());
  for (std::size_t i = 0; i < words.size(); ++i) argv[i].assign(words[i]);
  RedisCall call = server.call(std::move(argv));
  outcome.replies.push_back(std::move((co_await call).front()));
  spares.give_back(call);
  co_return 0;
}

}  // namespace

TEST_CASE("argvs refilled from spares carry only the new words") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, fixed(1000, 5, 50'000), Rng(1, "network"));
  SpareCommands spares;
  Outcome outcome;
  // Each call starts after the previous one finished, so each reuses a handed-back argv: longer
  // keys and a three-word command come before shorter ones.
  const std::vector<std::vector<std::string>> calls = {
      {"SET", "a-rather-long-key-name-beyond-sso", "seventeen"},
      {"INCR", "counter-with-a-long-name"},
      {"INCR", "k"},
      {"EXPIRE", "k", "60"},
      {"GET", "k"},
      {"TTL", "k"}};
  for (std::size_t i = 0; i < calls.size(); ++i) {
    call_with_spare(server, spares, calls[i], outcome).start_detached(&ignore, nullptr);
    sim.run_until(static_cast<TimeUs>(i + 1) * 10'000);
  }
  REQUIRE(outcome.replies.size() == calls.size());
  CHECK(outcome.replies[0].text == "OK");
  CHECK(outcome.replies[1].integer == 1);
  CHECK(outcome.replies[2].integer == 1);
  CHECK(outcome.replies[3].integer == 1);
  CHECK(outcome.replies[4].text == "1");
  CHECK(outcome.replies[5].integer == 60);
  CHECK(server.node_stats().commandstats() ==
        std::vector<std::pair<std::string, std::uint64_t>>{
            {"EXPIRE", 1}, {"GET", 1}, {"INCR", 2}, {"SET", 1}, {"TTL", 1}});
}

TEST_CASE("a pipeline refilled from a finished one sends only the new commands") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, fixed(1000, 5, 50'000), Rng(1, "network"));
  SpareCommands spares;
  std::vector<std::vector<Reply>> replies;
  auto send = [&](std::vector<std::vector<std::string>> commands) {
    PipelineBuilder builder(spares.take_pipeline(), commands.size());
    for (const auto& words : commands) {
      Command& argv = builder.next(words.size());
      for (std::size_t i = 0; i < words.size(); ++i) argv[i].assign(words[i]);
    }
    [](RedisServer& redis, SpareCommands& pool, std::vector<Command> pipeline,
       std::vector<std::vector<Reply>>& out) -> Task<int> {
      RedisPipeline call = redis.pipeline(std::move(pipeline));
      out.push_back(co_await call);
      pool.give_back(call);
      co_return 0;
    }(server, spares, builder.finish(), replies)
                                                    .start_detached(&ignore, nullptr);
    sim.run_until(sim.now() + 10'000);
  };
  send({{"SET", "a-key-longer-than-sso-a", "1", "NX"},
        {"SET", "b", "2"},
        {"INCR", "c"},
        {"INCR", "c"}});
  send({{"INCR", "c"}, {"GET", "b"}});  // fewer and shorter commands in the same buffers
  send({{"MGET", "a-key-longer-than-sso-a", "b", "c"}});
  REQUIRE(replies.size() == 3);
  CHECK(replies[0].size() == 4);
  REQUIRE(replies[1].size() == 2);
  CHECK(replies[1][0].integer == 3);
  CHECK(replies[1][1].text == "2");
  REQUIRE(replies[2].size() == 1);
  REQUIRE(replies[2][0].elements.size() == 3);
  CHECK(replies[2][0].elements[0].text == "1");
  CHECK(replies[2][0].elements[2].text == "3");
}

}  // namespace rlsim_test_server
