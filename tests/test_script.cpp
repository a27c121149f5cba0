// The Script helper: EVALSHA first, EVAL with the text after NOSCRIPT (two honest round trips),
// which errors stop a run, and hash-tagged key prefixes.
#include <hiredis/hiredis.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>

#include "core/sha1.h"
#include "real/redis_wire.h"
#include "real_redis_env.h"
#include "redis/mock_store.h"
#include "strategy/registry.h"
#include "strategy/script.h"

namespace rlsim_test_script {

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

TEST_CASE("compile errors and the mock's script limits are fatal, other errors are not") {
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

namespace {

// Runs `redis-cli -p <port> <argv...>` and returns its output without the trailing newline
// (redis-cli prints raw replies when its output is not a terminal).
std::string redis_cli(const std::string& port, const Command& argv) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::dup2(fds[1], 1);
    ::close(fds[0]);
    ::close(fds[1]);
    std::vector<const char*> args = {"redis-cli", "-p", port.c_str()};
    for (const auto& arg : argv) args.push_back(arg.c_str());
    args.push_back(nullptr);
    ::execvp("redis-cli", const_cast<char* const*>(args.data()));
    ::_exit(127);
  }
  ::close(fds[1]);
  std::string out;
  char buffer[4096];
  for (ssize_t got; (got = ::read(fds[0], buffer, sizeof(buffer))) > 0;)
    out.append(buffer, static_cast<std::size_t>(got));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// Sends `argv` and then PERSIST of each of `keys` in one pipeline on one connection, so the
// server runs them back to back: the real server expires keys on its wall clock, and some TTLs
// set here are ~100 ms (GCRA's PX is the time to the TAT), which a loaded machine (or ASan) can
// spend between two separate redis-cli processes. No script reads a TTL, so dropping it changes
// no reply. Returns the first reply as redis-cli prints it raw.
std::string run_then_persist(const std::string& port, const Command& argv,
                             const std::vector<std::string>& keys) {
  redisContext* context = redisConnect("127.0.0.1", std::stoi(port));
  REQUIRE(context != nullptr);
  REQUIRE(context->err == 0);
  append_argv(context, argv);
  for (const auto& key : keys) append_argv(context, {"PERSIST", key});
  std::string out;
  for (std::size_t i = 0; i <= keys.size(); ++i) {
    void* raw_reply = nullptr;
    REQUIRE(redisGetReply(context, &raw_reply) == REDIS_OK);
    auto* reply = static_cast<redisReply*>(raw_reply);
    if (i == 0) {
      if (reply->type == REDIS_REPLY_INTEGER) {
        out = std::to_string(reply->integer);
      } else if (reply->type != REDIS_REPLY_NIL) {
        out.assign(reply->str, reply->len);
      }
    }
    freeReplyObject(reply);
  }
  redisFree(context);
  return out;
}

// A reply as redis-cli prints it raw: integers and strings bare, nil as "".
std::string raw(const Reply& reply) {
  if (reply.type == Reply::Type::kInteger) return std::to_string(reply.integer);
  if (reply.type == Reply::Type::kNil) return "";
  return reply.text;
}

}  // namespace

TEST_CASE("the built-in scripts decide the same on the mock and on a real Redis") {
  const int port_number = rlsim::testing::real_redis_port();
  if (port_number == 0) return;
  const std::string port = std::to_string(port_number);
  MockStore store;
  const std::string ns = "rlsim-test-script:" + std::to_string(::getpid()) + ":";
  const TimeUs e = kEpochUnixUs;
  // Each call: the script, KEYS, ARGV (times as the strategies send them), the same calls as the
  // hand-computed decision tests. The mock runs at the script's "now" so that its clock agrees.
  struct Call {
    const char* script;
    std::vector<std::string> keys;
    std::vector<std::string> args;
  };
  std::vector<Call> calls;
  for (int at_ms : {0, 100, 200, 300, 999, 1000, 1100, 1150, 1201}) {
    const std::string now = std::to_string(e + at_ms * kUsPerMs);
    calls.push_back({kSlidingLogScript,
                     {ns + "log"},
                     {now, "1000000", "3", now + "-0-" + std::to_string(at_ms), "60000"}});
  }
  for (int at_ms : {100, 200, 300, 400, 500, 1250, 1300, 1500, 1750, 1800, 1900, 2000, 2500}) {
    const TimeUs now = e + at_ms * kUsPerMs;
    const std::int64_t window = now / kUsPerS;
    calls.push_back(
        {kSlidingCounterScript,
         {ns + "{c}:" + std::to_string(window - 1), ns + "{c}:" + std::to_string(window)},
         {"1000000", std::to_string(now - window * kUsPerS), "4", "60000"}});
  }
  for (int at_ms : {0, 0, 0, 100, 100, 350, 360, 370}) {
    const std::string now = std::to_string(e + at_ms * kUsPerMs);
    calls.push_back({kTokenBucketScript, {ns + "bucket"}, {"2", "10", now, "60000"}});
    calls.push_back({kGcraScript, {ns + "tat"}, {now, "100000", "100000"}});
    // GCRA with a fractional interval (3 per second): TAT is written with 17 digits.
    calls.push_back({kGcraScript, {ns + "tat3"}, {now, "333333.3333333333", "333333.3333333333"}});
  }
  for (int i = 0; i < 4; ++i) calls.push_back({kFixedWindowLuaScript, {ns + "fixed"}, {"60000"}});
  std::string mock_replies, real_replies;
  for (const Call& call : calls) {
    Command argv = {"EVAL", call.script, std::to_string(call.keys.size())};
    argv.insert(argv.end(), call.keys.begin(), call.keys.end());
    argv.insert(argv.end(), call.args.begin(), call.args.end());
    mock_replies += raw(store.run(argv, e + 3 * kUsPerS)) + " ";
    real_replies += run_then_persist(port, argv, call.keys) + " ";
  }
  CHECK(mock_replies == real_replies);
  // The hand-computed patterns of test_strategy_*.cpp, on both.
  CHECK(mock_replies.starts_with("1 1 1 0 0 1 1 0 1 1 1 1 1 0 1 1 0 1 1 0 0 1 "));
  for (const char* key : {"tat", "tat3", "bucket"}) {
    const Command get = std::string(key) == "bucket" ? Command{"HGET", ns + key, "tokens"}
                                                     : Command{"GET", ns + key};
    CHECK(raw(store.run(get, e + 3 * kUsPerS)) == redis_cli(port, get));
  }
  redis_cli(port, {"DEL", ns + "log", ns + "bucket", ns + "tat", ns + "tat3", ns + "fixed"});
  for (int w = 1750032000; w <= 1750032003; ++w)
    redis_cli(port, {"DEL", ns + "{c}:" + std::to_string(w)});
}

}  // namespace rlsim_test_script
