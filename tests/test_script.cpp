// The Script helper: EVALSHA first, EVAL with the text after NOSCRIPT (two honest round trips),
// which errors stop a run, and hash-tagged key prefixes.
#include <catch2/catch.hpp>

#include "core/sha1.h"
#include "redis/mock_store.h"
#include "strategy/registry.h"
#include "strategy/script.h"

using namespace rlsim;

namespace {

// Runs `script` once at the current virtual time and returns its reply.
Reply run_once(Simulator& sim, RedisServer& server, const Script& script,
               std::vector<std::string> keys_and_args, std::size_t numkeys,
               std::uint64_t& reloads) {
  Reply out = Reply::nil();
  script.run(server, std::move(keys_and_args), numkeys, reloads)
      .start_detached([](void* context, Reply&& reply) { *static_cast<Reply*>(context) = reply; },
                      &out);
  sim.run_until(sim.now() + kUsPerS);
  return out;
}

}  // namespace

TEST_CASE("a script is named by the SHA1 of its text, as Redis names it") {
  const Script script("t", "return 1");
  // redis-cli SCRIPT LOAD "return 1" prints this SHA.
  CHECK(script.sha() == "e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
  CHECK(script.sha() == sha1_hex("return 1"));
  CHECK(script.text() == "return 1");
  CHECK(script.name() == "t");
}

TEST_CASE("EVALSHA, then EVAL after NOSCRIPT, then EVALSHA from the server's cache") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, RedisTiming{1000, 1000, 0, 50'000}, Rng(1, "network"));
  const Script script("t", "return redis.call('INCRBY', KEYS[1], ARGV[1])");
  std::uint64_t reloads = 0;
  CHECK(to_display(run_once(sim, server, script, {"k", "5"}, 1, reloads)) == "(integer) 5");
  CHECK(reloads == 1);
  CHECK(server.stats().round_trips == 2);  // EVALSHA -> NOSCRIPT, then EVAL
  CHECK(to_display(run_once(sim, server, script, {"k", "2"}, 1, reloads)) == "(integer) 7");
  CHECK(reloads == 1);
  CHECK(server.stats().round_trips == 3);
  // The server forgets its scripts (SCRIPT FLUSH, a restart): the next call reloads again.
  store.run({"SCRIPT", "FLUSH"}, kEpochUnixUs + sim.now());
  CHECK(to_display(run_once(sim, server, script, {"k", "1"}, 1, reloads)) == "(integer) 8");
  CHECK(reloads == 2);
  CHECK(server.stats().round_trips == 5);
}

TEST_CASE("a timed-out EVALSHA is a timeout, not a reason to send EVAL") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, RedisTiming{5000, 5000, 0, 1000}, Rng(1, "network"));
  const Script script("t", "return 1");
  std::uint64_t reloads = 0;
  const Reply reply = run_once(sim, server, script, {}, 0, reloads);
  CHECK(reply.timed_out);
  CHECK(reloads == 0);
  CHECK(server.stats().round_trips == 1);
}

TEST_CASE("compile errors and the mock's script limits are fatal; other errors are not") {
  Simulator sim;
  MockStore store;
  RedisServer server(sim, store, RedisTiming{1000, 1000, 0, 50'000}, Rng(1, "network"));
  std::uint64_t reloads = 0;
  const Reply syntax = run_once(sim, server, Script("t", "return +"), {}, 0, reloads);
  CHECK(is_fatal_script_error(syntax));
  const Reply loop = run_once(sim, server, Script("t", "while true do end"), {}, 0, reloads);
  CHECK(is_fatal_script_error(loop));
  const Reply user_error =
      run_once(sim, server, Script("t", "return redis.error_reply('nope')"), {}, 0, reloads);
  CHECK(user_error.is_error());
  CHECK_FALSE(is_fatal_script_error(user_error));
  store.run({"SET", "s", "x"}, kEpochUnixUs + sim.now());
  const Reply wrongtype =
      run_once(sim, server, Script("t", "return redis.call('INCR', KEYS[1])"), {"s"}, 1, reloads);
  CHECK(wrongtype.is_error());
  CHECK_FALSE(is_fatal_script_error(wrongtype));
  CHECK_FALSE(is_fatal_script_error(Reply::timeout()));
  CHECK_FALSE(is_fatal_script_error(Reply::from_integer(1)));
}

TEST_CASE("hash-tagged prefixes put one user's keys in one cluster slot") {
  Scenario scenario;
  scenario.traffic.push_back(TrafficGroup{});
  scenario.traffic[0].endpoints = {"/search"};
  const Catalog catalog(scenario);
  Request request;
  request.user = 42;
  request.ip = 0;
  CHECK(hash_tagged_prefix("rl:user:", catalog, request, LimitKey::kUser) == "rl:{user:42}:");
  CHECK(hash_tagged_prefix("rl:ip:", catalog, request, LimitKey::kIp) == "rl:{ip:10.0.0.1}:");
  CHECK(hash_tagged_prefix("rl:ep:", catalog, request, LimitKey::kEndpoint) == "rl:{ep:/search}:");
}
