// The real Redis backend (RealStore) against the redis-server the test command starts
// (tests/run-all.sh sets RLSIM_REDIS_PORT): pipelining, the virtual clock, isolation of the run's
// keys, credentials, connection failures, and the same decisions as the embedded Redis.
#include <hiredis/hiredis.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "app/conformance.h"
#include "app/exit_codes.h"
#include "engine/commands.h"
#include "engine/run.h"
#include "real/backend.h"
#include "real/real_store.h"
#include "real_redis_env.h"
#include "redis/mock_store.h"
#include "redis/time_commands.h"
#include "redis_direct.h"

namespace rlsim_test_real_store {

using namespace rlsim;

namespace {

// The server's port, or 0 when the test is skipped (tests/real_redis_env.h).
int real_port() { return rlsim::testing::real_redis_port(); }

std::string url_of(int port) { return "redis://127.0.0.1:" + std::to_string(port); }

RealStoreOptions options_of(int port) {
  std::string error;
  const auto url = parse_redis_url(url_of(port), error);
  REQUIRE(url);
  return RealStoreOptions{*url, false};
}

// A plain hiredis connection: the test's own view of the server, outside any run.
struct Direct {
  redisContext* context;
  explicit Direct(int port) : context(redisConnect("127.0.0.1", port)) {
    REQUIRE(context != nullptr);
    REQUIRE(context->err == 0);
  }
  ~Direct() { redisFree(context); }
  std::string run(const std::vector<std::string>& argv) { return direct_command(context, argv); }
  // Every key on the server with its type and value, as text.
  std::map<std::string, std::string> snapshot() {
    std::map<std::string, std::string> out;
    std::string cursor = "0";
    do {
      auto* reply =
          static_cast<redisReply*>(redisCommand(context, "SCAN %s COUNT 1000", cursor.c_str()));
      REQUIRE(reply != nullptr);
      cursor.assign(reply->element[0]->str, reply->element[0]->len);
      for (std::size_t i = 0; i < reply->element[1]->elements; ++i)
        out[std::string(reply->element[1]->element[i]->str, reply->element[1]->element[i]->len)];
      freeReplyObject(reply);
    } while (cursor != "0");
    for (auto& [key, value] : out) {
      const std::string type = run({"TYPE", key});
      if (type == "string") value = "string:" + run({"GET", key});
      if (type == "hash") value = "hash:" + run({"HGETALL", key});
      if (type == "zset") value = "zset:" + run({"ZRANGE", key, "0", "-1", "WITHSCORES"});
      if (type == "list") value = "list:" + run({"LRANGE", key, "0", "-1"});
      if (type == "set") value = "set:" + run({"SMEMBERS", key});
      value += run({"PTTL", key}) == "-1" ? " no-ttl" : " ttl";
    }
    return out;
  }
};

// Runs the rlsim binary; returns its exit code and stderr.
int run_cli(const std::string& arguments, std::string& err) {
  const std::string path = "/tmp/rlsim-test-real-" + std::to_string(::getpid()) + ".err";
  const int status =
      std::system((std::string(RLSIM_BINARY) + " " + arguments + " >/dev/null 2>" + path).c_str());
  err.clear();
  if (FILE* f = std::fopen(path.c_str(), "r")) {
    char buffer[4096];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) err.append(buffer, n);
    std::fclose(f);
  }
  std::remove(path.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

const std::string kScenarios = std::string(RLSIM_SOURCE_DIR) + "/scenarios/";

}  // namespace

TEST_CASE("real store: calls are pipelined, collected in any order, abandoned ones skipped") {
  const int port = real_port();
  if (port == 0) return;
  RealStore store(options_of(port));
  const TimeUs t = kEpochUnixUs;
  const Command incr = {"INCR", "n"};
  const auto a = store.submit(std::span<const Command>(&incr, 1), t);
  const auto b = store.submit(std::span<const Command>(&incr, 1), t + 1);
  const std::vector<Command> pair = {{"INCR", "n"}, {"GET", "n"}};
  const auto c = store.submit(pair, t + 2);
  const auto d = store.submit(std::span<const Command>(&incr, 1), t + 3);
  std::vector<Reply> replies;
  store.collect(c, replies);  // the third call first: the first two are read on the way
  REQUIRE(replies.size() == 2);
  CHECK(replies[0] == Reply::from_integer(3));
  CHECK(replies[1] == Reply::bulk("3"));
  store.abandon(b);  // already read: dropped
  replies.clear();
  store.collect(a, replies);
  CHECK(replies == std::vector<Reply>{Reply::from_integer(1)});
  store.abandon(d);  // not yet read: its reply is read and dropped later
  CHECK(store.run({"GET", "n"}, t + 4) == Reply::bulk("4"));
  CHECK(store.backend_errors() == 0);
}

TEST_CASE("real store: keys carry the run's prefix and TTLs follow the virtual clock") {
  const int port = real_port();
  if (port == 0) return;
  Direct direct(port);
  RealStore store(options_of(port));
  const std::string& prefix = store.key_prefix();
  REQUIRE(prefix.starts_with("rlsim:"));
  const TimeUs t = kEpochUnixUs;
  CHECK(store.run({"SET", "k", "v", "PX", "1000"}, t) == Reply::status("OK"));
  CHECK(direct.run({"GET", prefix + "k"}) == "v");
  CHECK(direct.run({"GET", "k"}).empty());
  // On the server the key lives for a day or more of wall time, whatever the virtual TTL.
  CHECK(std::stoll(direct.run({"PTTL", prefix + "k"})) > 86'000'000);
  CHECK(store.run({"PTTL", "k"}, t + 250 * kUsPerMs) == Reply::from_integer(750));
  // Alive through the millisecond it expires in, as in Redis (db.c keyIsExpired: now > when).
  CHECK(store.run({"GET", "k"}, t + 1000 * kUsPerMs + 999) == Reply::bulk("v"));
  CHECK(store.run({"PTTL", "k"}, t + 1000 * kUsPerMs + 999) == Reply::from_integer(0));
  CHECK(store.run({"GET", "k"}, t + 1001 * kUsPerMs) == Reply::nil());
  CHECK(direct.run({"EXISTS", prefix + "k"}) == "0");
  // Scripts see their KEYS prefixed, their own ARGV, and TIME on the virtual clock.
  const Reply time = store.run(
      {"EVAL", "return {KEYS[1], #ARGV, redis.call('TIME')[1]}", "1", "x", "a"}, t + 5 * kUsPerS);
  CHECK(time == Reply::array({Reply::bulk(prefix + "x"), Reply::from_integer(1),
                              Reply::bulk(std::to_string(kEpochUnixUs / kUsPerS + 5))}));
  CHECK(store.run({"TIME"}, t + 7 * kUsPerS + 3) ==
        Reply::array({Reply::bulk(std::to_string(kEpochUnixUs / kUsPerS + 7)), Reply::bulk("3")}));
  // Commands the embedded Redis lacks are refused locally, never sent.
  CHECK(
      store.run({"FLUSHALL"}, t + 8 * kUsPerS).text.starts_with("ERR unknown command 'FLUSHALL'"));
}

TEST_CASE("real store: lose_data forgets the run's keys and scripts, not the server's others") {
  const int port = real_port();
  if (port == 0) return;
  Direct direct(port);
  direct.run({"SET", "app:untouched", "1"});
  RealStore store(options_of(port));
  const TimeUs t = kEpochUnixUs;
  CHECK(store.run({"INCR", "a"}, t) == Reply::from_integer(1));
  const Reply sha = store.run({"SCRIPT", "LOAD", "return 7"}, t);
  REQUIRE(sha.type == Reply::Type::kBulk);
  store.lose_data();
  CHECK(store.key_count() == 0);
  CHECK(store.run({"EVALSHA", sha.text, "0"}, t).text.starts_with("NOSCRIPT"));
  CHECK(store.run({"INCR", "a"}, t) == Reply::from_integer(1));
  CHECK(direct.run({"GET", "app:untouched"}) == "1");
  direct.run({"DEL", "app:untouched"});
}

TEST_CASE("real store: a run touches only its own keys and deletes them at the end") {
  const int port = real_port();
  if (port == 0) return;
  Direct direct(port);
  // Foreign keys of several types, one of them under a different rlsim prefix.
  direct.run({"SET", "app:string", "keep me"});
  direct.run({"SET", "app:ttl", "expiring", "EX", "3600"});
  direct.run({"HSET", "app:hash", "f", "1", "g", "2"});
  direct.run({"ZADD", "app:zset", "1", "a", "2", "b"});
  direct.run({"RPUSH", "app:list", "x", "y"});
  direct.run({"SADD", "app:set", "m"});
  direct.run({"SET", "rlsim:someoneelse:rl:user:1:0", "7"});
  // Keys the strategies would write, without a prefix: must not be touched either.
  direct.run({"SET", "rl:user:1:29166667", "41"});
  const auto before = direct.snapshot();
  Scenario scenario = load_scenario(kScenarios + "token-bucket-vs-gcra.json");
  scenario.duration_us = 60 * kUsPerS;
  scenario.redis.url = url_of(port);
  for (const ResolvedStrategy& strategy : resolve_strategies(scenario, "token-bucket-vs-gcra")) {
    const StrategyResult result = run_strategy(scenario, strategy, scenario.seed);
    CHECK(result.totals.errors == 0);
    REQUIRE(result.backend);
    CHECK(result.backend->failure.empty());
  }
  CHECK(direct.snapshot() == before);
  for (const char* key : {"app:string", "app:ttl", "app:hash", "app:zset", "app:list", "app:set",
                          "rlsim:someoneelse:rl:user:1:0", "rl:user:1:29166667"})
    direct.run({"DEL", key});
}

TEST_CASE("real store: --keep-keys leaves the run's keys on the server") {
  const int port = real_port();
  if (port == 0) return;
  Direct direct(port);
  std::string prefix;
  {
    RealStoreOptions options = options_of(port);
    options.keep_keys = true;
    RealStore store(options);
    prefix = store.key_prefix();
    store.run({"INCR", "kept"}, kEpochUnixUs);
  }
  CHECK(direct.run({"GET", prefix + "kept"}) == "1");
  direct.run({"DEL", prefix + "kept"});
  {
    RealStore store(options_of(port));
    prefix = store.key_prefix();
    store.run({"INCR", "gone"}, kEpochUnixUs);
    CHECK(store.key_count() == 1);
  }
  CHECK(direct.run({"EXISTS", prefix + "gone"}) == "0");
}

TEST_CASE("real store: a lost connection fails calls with an error, then reconnects") {
  const int port = real_port();
  if (port == 0) return;
  Direct direct(port);
  RealStore store(options_of(port));
  const TimeUs t = kEpochUnixUs;
  CHECK(store.run({"INCR", "c"}, t) == Reply::from_integer(1));
  const Command incr = {"INCR", "c"};
  const auto pending = store.submit(std::span<const Command>(&incr, 1), t + 1);
  // Cut every other client (the store's connection) from the server.
  CHECK(std::stoi(direct.run({"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"})) >= 1);
  std::vector<Reply> replies;
  store.collect(pending, replies);
  REQUIRE(replies.size() == 1);
  CHECK(replies[0].is_error());
  CHECK(replies[0].text.starts_with("CONNREFUSED rlsim: the real Redis connection failed"));
  CHECK(store.backend_errors() == 1);
  CHECK_FALSE(store.backend_failure().empty());
  // The next call reconnects (backoff of one call) and the run's keys are still there.
  CHECK(store.run({"INCR", "c"}, t + 2) == Reply::from_integer(2));
  CHECK(store.reconnects() == 1);
}

TEST_CASE("real store: same decisions and report as the embedded Redis") {
  const int port = real_port();
  if (port == 0) return;
  Scenario scenario = load_scenario(kScenarios + "boundary-burst.json");
  scenario.duration_us = 2 * 60 * kUsPerS;
  Scenario real = scenario;
  real.redis.url = url_of(port);
  for (const ResolvedStrategy& strategy : resolve_strategies(scenario, "boundary-burst")) {
    const StrategyResult m = run_strategy(scenario, strategy, scenario.seed);
    StrategyResult r = run_strategy(real, strategy, scenario.seed);
    INFO(strategy.label);
    CHECK(r.decision_digest == m.decision_digest);
    CHECK(r.redis_keys_at_end == m.redis_keys_at_end);
    REQUIRE(r.backend);
    CHECK(r.backend->url == url_of(port));
    r.backend.reset();
    CHECK(strategy_report(scenario, 1, r).dump() == strategy_report(scenario, 1, m).dump());
  }
}

TEST_CASE("real store: the conformance corpus gives the same replies on both") {
  const int port = real_port();
  if (port == 0) return;
  RealStore real(options_of(port));
  MockStore mock;
  for (const ConformanceStep& step : conformance_corpus()) {
    const TimeUs now_us = kEpochUnixUs + step.at_ms * kUsPerMs;
    INFO(step.command.front() << " at +" << step.at_ms << " ms");
    CHECK(to_display(canonical_reply(step.command, real.run(step.command, now_us))) ==
          to_display(canonical_reply(step.command, mock.run(step.command, now_us))));
  }
}

TEST_CASE("real store: unreachable server, bad credentials, bad URL") {
  const int port = real_port();
  if (port == 0) return;
  const std::string scenario = kScenarios + "overshoot-10x.json";
  std::string err;
  CHECK(run_cli("run " + scenario + " --redis redis://127.0.0.1:1", err) ==
        exit_code::kRedisUnavailable);
  CHECK(err.find("cannot use Redis at redis://127.0.0.1:1") != std::string::npos);
  CHECK(std::count(err.begin(), err.end(), '\n') == 1);
  // A password the server does not accept: exit 5, and the password is never printed.
  CHECK(run_cli("run " + scenario +
                    " --redis redis://someone:s3cretpw@127.0.0.1:" + std::to_string(port),
                err) == exit_code::kRedisUnavailable);
  CHECK(err.find("s3cretpw") == std::string::npos);
  CHECK(err.find("someone") == std::string::npos);
  CHECK(run_cli("run " + scenario + " --redis http://127.0.0.1:" + std::to_string(port), err) ==
        exit_code::kBadInput);
  CHECK(run_cli("conformance --redis redis://127.0.0.1:1", err) == exit_code::kRedisUnavailable);
  std::string error;
  const auto url = parse_redis_url("redis://u:p%40ss@h:7/3", error);
  REQUIRE(url);
  CHECK(url->user == "u");
  CHECK(url->password == "p@ss");
  CHECK(url->db == 3);
  CHECK(url->display() == "redis://h:7/3");
  CHECK_FALSE(parse_redis_url("redis://h", error));
  CHECK_FALSE(parse_redis_url("redis://h:0", error));
}

TEST_CASE("real store: conformance names the first request decided differently") {
  const int port = real_port();
  if (port == 0) return;
  // A script that reads a key it was not given in KEYS sees the real server's keyspace, which
  // the embedded Redis does not have: the decisions differ from the first request on.
  Direct direct(port);
  direct.run({"SET", "rlsim-conformance-probe", "1"});
  const std::string dir = "/tmp/rlsim-test-real-conf-" + std::to_string(::getpid());
  std::system(("mkdir -p " + dir).c_str());
  {
    std::FILE* script = std::fopen((dir + "/probe.lua").c_str(), "w");
    REQUIRE(script != nullptr);
    std::fputs(
        "if redis.call('EXISTS', 'rlsim-conformance-probe') == 1 then return 0 end\nreturn 1\n",
        script);
    std::fclose(script);
    std::FILE* scenario = std::fopen((dir + "/probe.json").c_str(), "w");
    REQUIRE(scenario != nullptr);
    std::fputs(R"({"name": "probe", "seed": 3, "duration": "10s",
      "limits": [{"name": "per_user", "key": "user", "limit": 100, "window": "1m"}],
      "instances": {"count": 2},
      "traffic": [{"name": "steady", "users": 2, "rate": "60/m"}],
      "strategies": [{"name": "custom_lua", "label": "probe", "script": "probe.lua",
                      "keys": ["${prefix}${key}"], "args": [], "allow_if": "reply == 1"}]})",
               scenario);
    std::fclose(scenario);
  }
  const std::string out = dir + "/out.txt";
  const int status = std::system((std::string(RLSIM_BINARY) + " conformance --redis " +
                                  url_of(port) + " " + dir + "/probe.json >" + out + " 2>&1")
                                     .c_str());
  std::string text;
  if (std::FILE* f = std::fopen(out.c_str(), "r")) {
    char buffer[4096];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
    std::fclose(f);
  }
  INFO(text);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == exit_code::kCheckFailed);
  CHECK(text.find("replies: 373 commands, 0 differences") != std::string::npos);
  CHECK(text.find("DIFFERENT " + dir + "/probe.json probe") != std::string::npos);
  CHECK(text.find("decision #1 first differs: embedded request") != std::string::npos);
  CHECK(text.find("allowed, real request") != std::string::npos);
  CHECK(text.find("conformance: FAILED, 1 differences") != std::string::npos);
  direct.run({"DEL", "rlsim-conformance-probe"});
  std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("real store: issue 21's SETEX repro admits 9 of 10 on both backends") {
  const int port = real_port();
  if (port == 0) return;
  RealStore real(options_of(port));
  MockStore mock;
  const std::string repro =
      "local v = redis.call('GET', KEYS[1]); redis.call('SETEX', KEYS[1], ARGV[1], 'x'); "
      "if v then return 1 end return 0";
  int real_admitted = 0, mock_admitted = 0;
  for (int i = 0; i < 10; ++i) {
    const Command call = {"EVAL", repro, "1", "repro", "10"};
    const TimeUs at = kEpochUnixUs + i * kUsPerS;
    real_admitted += real.run(call, at) == Reply::from_integer(1);
    mock_admitted += mock.run(call, at) == Reply::from_integer(1);
  }
  CHECK(real_admitted == 9);
  CHECK(mock_admitted == 9);
}

TEST_CASE("real store: each TTL- or time-bearing command of the table behaves as on the mock") {
  const int port = real_port();
  if (port == 0) return;
  // A script per mapped row (time_commands()): a row added without a script here fails below.
  const std::map<std::string, std::string> scripts = {
      {"EXPIRE", "redis.call('SET', KEYS[1], 'v') return redis.call('EXPIRE', KEYS[1], 30)"},
      {"PEXPIRE", "redis.call('SET', KEYS[1], 'v') return redis.call('PEXPIRE', KEYS[1], 1500)"},
      {"EXPIREAT",
       "redis.call('SET', KEYS[1], 'v') return redis.call('EXPIREAT', KEYS[1], ARGV[1])"},
      {"PEXPIREAT",
       "redis.call('SET', KEYS[1], 'v') return redis.call('PEXPIREAT', KEYS[1], ARGV[2])"},
      {"SETEX", "return redis.call('SETEX', KEYS[1], 20, 'v')"},
      {"PSETEX", "return redis.call('PSETEX', KEYS[1], 2500, 'v')"},
      {"SET", "return redis.call('SET', KEYS[1], 'v', 'EXAT', ARGV[1])"},
      {"GETEX", "redis.call('SET', KEYS[1], 'v') return redis.call('GETEX', KEYS[1], 'PX', 1500)"},
      {"TTL", "redis.call('SET', KEYS[1], 'v', 'PX', 2600) return redis.call('TTL', KEYS[1])"},
      {"PTTL", "redis.call('SET', KEYS[1], 'v', 'EX', 3) return redis.call('PTTL', KEYS[1])"},
      {"EXPIRETIME",
       "redis.call('SET', KEYS[1], 'v', 'PX', 2600) return redis.call('EXPIRETIME', KEYS[1])"},
      {"PEXPIRETIME",
       "redis.call('SET', KEYS[1], 'v', 'PX', 2600) return redis.call('PEXPIRETIME', KEYS[1])"},
      {"TIME", "return redis.call('TIME')"},
  };
  RealStore real(options_of(port));
  MockStore mock;
  TimeUs t0 = kEpochUnixUs + 123'456;  // not on a whole millisecond
  int key = 0;
  for (const TimeCommand& row : time_commands()) {
    const std::string name(row.name);
    INFO(name);
    if (row.use == TimeUse::kNotMapped) continue;
    t0 += 100 * kUsPerS;  // each row after the previous one's probes: time only moves forward
    const std::string at_s = std::to_string(t0 / kUsPerS + 40);
    const std::string at_ms = std::to_string(t0 / kUsPerMs + 4'000);
    if (row.use == TimeUse::kWallClock) {
      // Refused in real mode (the server's wall clock has no virtual meaning); the mock lacks
      // them, so there the run stops too.
      const std::string call =
          row.subcommand.empty()
              ? "return redis.call('" + name + "')"
              : "return redis.call('" + name + "', '" + std::string(row.subcommand) + "', KEYS[1])";
      const Reply r = real.run({"EVAL", call, "1", "w"}, t0);
      CHECK(r.text.starts_with("ERR rlsim: script called " + name));
      CHECK(mock.run({"EVAL", call, "1", "w"}, t0).text.starts_with("ERR rlsim: script "));
      continue;
    }
    if (row.use == TimeUse::kRestoreTtl) continue;  // below: the mock has no DUMP / RESTORE
    const auto it = scripts.find(name);
    REQUIRE(it != scripts.end());
    const std::string k = "t" + std::to_string(key++);
    const Command call = {"EVAL", it->second, "1", k, at_s, at_ms};
    CHECK(to_display(real.run(call, t0)) == to_display(mock.run(call, t0)));
    // The key then lives, and dies, on the virtual clock on both.
    for (const TimeUs later :
         {1'000'000, 1'499'999, 1'500'000, 2'600'000, 20'000'000, 40'000'000}) {
      const Command probe = {"EVAL",
                             "return {redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1]), "
                             "redis.call('PEXPIRETIME', KEYS[1])}",
                             "1", k};
      INFO("+" << later << " us");
      CHECK(to_display(real.run(probe, t0 + later)) == to_display(mock.run(probe, t0 + later)));
    }
  }
  t0 += 100 * kUsPerS;
  // RESTORE's TTL on the virtual clock (real Redis only): relative and ABSTTL.
  RealStore restore(options_of(port));
  restore.run({"SET", "src", "payload"}, t0);
  Direct direct(port);
  const std::string dump_script = "return redis.call('DUMP', KEYS[1])";
  const Reply dumped = restore.run({"EVAL", dump_script, "1", "src"}, t0);
  REQUIRE(dumped.type == Reply::Type::kBulk);
  const std::string restore_script =
      "redis.call('RESTORE', KEYS[1], ARGV[1], ARGV[2]) return redis.call('PTTL', KEYS[1])";
  CHECK(restore.run({"EVAL", restore_script, "1", "r1", "5000", dumped.text}, t0) ==
        Reply::from_integer(5000));
  const std::string restore_abs =
      "redis.call('RESTORE', KEYS[1], ARGV[1], ARGV[2], 'ABSTTL') return redis.call('PTTL', "
      "KEYS[1])";
  CHECK(restore.run(
            {"EVAL", restore_abs, "1", "r2", std::to_string(t0 / kUsPerMs + 7'000), dumped.text},
            t0) == Reply::from_integer(7000));
  // Alive through the millisecond its TTL ends in, as in Redis.
  CHECK(restore.run({"GET", "r1"}, t0 + 5 * kUsPerS) == Reply::bulk("payload"));
  CHECK(restore.run({"GET", "r1"}, t0 + 5 * kUsPerS + kUsPerMs) == Reply::nil());
  CHECK(restore.run({"GET", "r2"}, t0 + 5 * kUsPerS + kUsPerMs) == Reply::bulk("payload"));
}

TEST_CASE("real store: plain SETEX, PSETEX, GETEX, EXPIRETIME and MSET on the virtual clock") {
  const int port = real_port();
  if (port == 0) return;
  Direct direct(port);
  RealStore store(options_of(port));
  const std::string& prefix = store.key_prefix();
  const TimeUs t = kEpochUnixUs;
  CHECK(store.run({"SETEX", "a", "2", "v"}, t) == Reply::status("OK"));
  CHECK(std::stoll(direct.run({"PTTL", prefix + "a"})) > 86'000'000);
  CHECK(store.run({"PSETEX", "b", "1500", "v"}, t) == Reply::status("OK"));
  CHECK(store.run({"GETEX", "b", "PX", "100", "PX", "700"}, t) == Reply::bulk("v"));
  CHECK(store.run({"PTTL", "b"}, t) == Reply::from_integer(700));
  CHECK(store.run({"PEXPIRETIME", "a"}, t) == Reply::from_integer(t / kUsPerMs + 2000));
  CHECK(store.run({"EXPIRETIME", "a"}, t) == Reply::from_integer(t / kUsPerS + 2));
  CHECK(store.run({"GET", "b"}, t + 700 * kUsPerMs) == Reply::bulk("v"));  // its last ms
  CHECK(store.run({"GET", "b"}, t + 701 * kUsPerMs) == Reply::nil());
  CHECK(store.run({"GET", "a"}, t + 2 * kUsPerS + kUsPerMs) == Reply::nil());
  CHECK(store.run({"MSET", "m1", "1", "m2", "2"}, t + 2 * kUsPerS + kUsPerMs) ==
        Reply::status("OK"));
  CHECK(direct.run({"GET", prefix + "m2"}) == "2");
  CHECK(direct.run({"EXISTS", "m1", "m2"}) == "0");  // only the prefixed keys
}

}  // namespace rlsim_test_real_store
