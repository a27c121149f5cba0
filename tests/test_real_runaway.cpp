// A runaway script on a real Redis (docs/real-redis.md#runaway-scripts): a user's script that
// never returns is stopped with SCRIPT KILL and the run exits 4, as the embedded run of the same
// script does, leaving the server answering; a call answered BUSY (another client's runaway
// script) stops the run the same way; a script that has written cannot be killed, and the
// message says that only SHUTDOWN NOSAVE stops it (which rlsim does not send). Against the test
// command's redis-server (RLSIM_REDIS_PORT), and a private one for the unkillable script.
#include <hiredis/hiredis.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "app/exit_codes.h"
#include "cli_dir.h"
#include "engine/run.h"
#include "private_redis.h"
#include "real_redis_env.h"
#include "redis_direct.h"
#include "scenario/load.h"

namespace rlsim_test_real_runaway {

using namespace rlsim;
using Catch::Matchers::Contains;
using rlsim::testing::CliDir;

namespace {

std::string url_of(int port) { return "redis://127.0.0.1:" + std::to_string(port); }

// The test's own connection to the server, outside any run.
struct FreeContext {
  void operator()(redisContext* context) const { redisFree(context); }
};
using Direct = std::unique_ptr<redisContext, FreeContext>;

Direct connect_to(int port) {
  Direct direct(redisConnect("127.0.0.1", port));
  REQUIRE(direct != nullptr);
  REQUIRE(direct->err == 0);
  return direct;
}

// The server answers SCRIPT KILL (and BUSY) only once a script has run for its
// busy-reply-threshold (5 s by default): 100 ms keeps the tests fast. Restored afterwards.
class LowBusyThreshold {
 public:
  explicit LowBusyThreshold(const Direct& direct) : direct_(direct) {
    const std::string pair =
        direct_command(direct_.get(), {"CONFIG", "GET", "busy-reply-threshold"});
    REQUIRE(pair.find(',') != std::string::npos);
    saved_ = pair.substr(pair.find(',') + 1);
    REQUIRE(direct_command(direct_.get(), {"CONFIG", "SET", "busy-reply-threshold", "100"}) ==
            "OK");
  }
  ~LowBusyThreshold() {
    direct_command(direct_.get(), {"CONFIG", "SET", "busy-reply-threshold", saved_});
  }
  LowBusyThreshold(const LowBusyThreshold&) = delete;
  LowBusyThreshold& operator=(const LowBusyThreshold&) = delete;

 private:
  const Direct& direct_;
  std::string saved_;
};

// One instance, one user, a request every 500 ms, through custom_lua with script.lua.
const char* const kScriptScenario = R"({"name": "runaway", "seed": 1, "duration": "10s",
  "limits": [{"name": "per_user", "key": "user", "limit": 100, "window": "1m"}],
  "instances": {"count": 1},
  "traffic": [{"name": "t", "users": 1, "rate": "2/s", "arrival": "constant"}],
  "redis": {"rtt": "0.5ms", "timeout": "50ms"},
  "strategies": [{"name": "custom_lua", "label": "looping", "script": "script.lua",
                  "keys": ["${prefix}${key}"], "args": [], "allow_if": "reply == 1"}]})";

struct CliRun {
  int code = -1;
  double wall_s = 0;
};

// `rlsim run s.json --redis url` in `dir`, waiting 500 ms for a reply before acting.
CliRun run_real(const CliDir& dir, const std::string& url) {
  const auto start = std::chrono::steady_clock::now();
  CliRun out;
  out.code = dir.shell("RLSIM_REDIS_IO_TIMEOUT_MS=500 NO_COLOR=1 timeout -s KILL 120 '" RLSIM_BINARY
                       "' run s.json --out r --redis " +
                       url);
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace

TEST_CASE("a script that never returns: SCRIPT KILL, exit 4 as embedded, the server answers") {
  const int port = rlsim::testing::real_redis_port();
  if (port == 0) return;
  const Direct direct = connect_to(port);
  const LowBusyThreshold low(direct);
  const CliDir dir("runaway", kScriptScenario);
  std::ofstream(dir.path / "script.lua") << "while true do end\n";

  // The embedded Redis stops it at its instruction budget.
  const int embedded = dir.rlsim("run s.json --out e");
  INFO(dir.err());
  REQUIRE(embedded == exit_code::kScriptError);
  CHECK_THAT(dir.err(), Contains("script ./script.lua") && Contains("instruction budget"));

  const CliRun real = run_real(dir, url_of(port));
  INFO(dir.err());
  CHECK(real.code == embedded);
  CHECK(real.wall_s < 60);
  CHECK_THAT(dir.err(), Contains("looping: script ./script.lua") &&
                            Contains("ran for more than 500 ms on Redis at " + url_of(port)) &&
                            Contains("rlsim stopped it with SCRIPT KILL"));
  // The server is free again: it answers, and runs scripts.
  CHECK(direct_command(direct.get(), {"PING"}) == "PONG");
  CHECK(direct_command(direct.get(), {"EVAL", "return 7", "0"}) == "7");
  // The run deleted its keys (the script was killed before it wrote any).
  CHECK(direct_command(direct.get(),
                       {"EVAL", "return #redis.call('KEYS', ARGV[1])", "0", "rlsim:*"}) == "0");
}

TEST_CASE("a call answered BUSY: the running script is killed, the run stops with exit 4") {
  const int port = rlsim::testing::real_redis_port();
  if (port == 0) return;
  const Direct direct = connect_to(port);
  const LowBusyThreshold low(direct);
  Scenario scenario = parse_scenario(R"({"name": "busy", "seed": 2, "duration": "20s",
    "limits": [{"name": "per_user", "key": "user", "limit": 100, "window": "1m"}],
    "instances": {"count": 2},
    "traffic": [{"name": "t", "users": 3, "rate": "20/s", "arrival": "poisson"}],
    "redis": {"rtt": "0.5ms", "timeout": "50ms"},
    "strategies": ["redis_fixed_window"]})",
                                     "busy.json");
  scenario.redis.url = url_of(port);
  const auto strategies = resolve_strategies(scenario, "busy.json");
  StrategySession session(scenario, strategies.front(), scenario.seed);
  session.advance_to(scenario.duration_us / 2);

  // Another client's script that never returns, sent without waiting for its reply; once it has
  // run past the threshold the server answers BUSY to the run's next INCR.
  const Direct other = connect_to(port);
  append_argv(other.get(), {"EVAL", "while true do end", "0"});
  for (int done = 0; done == 0;) REQUIRE(redisBufferWrite(other.get(), &done) == REDIS_OK);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));

  try {
    session.finish();
    FAIL("the run went on while the server answered BUSY");
  } catch (const RunError& e) {
    CHECK(exit_code_of(e) == exit_code::kScriptError);
    CHECK_THAT(e.what(),
               Contains("redis_fixed_window: Redis at " + url_of(port) + " answered BUSY") &&
                   Contains("rlsim stopped it with SCRIPT KILL"));
  }
  // The other client's script was the one killed.
  void* raw = nullptr;
  REQUIRE(redisGetReply(other.get(), &raw) == REDIS_OK);
  auto* killed = static_cast<redisReply*>(raw);
  REQUIRE(killed->type == REDIS_REPLY_ERROR);
  CHECK_THAT(std::string(killed->str, killed->len), Contains("Script killed by user"));
  freeReplyObject(killed);
  CHECK(direct_command(direct.get(), {"PING"}) == "PONG");
}

TEST_CASE(
    "a runaway script that has written: UNKILLABLE, exit 4, SHUTDOWN NOSAVE left to the user") {
  if (rlsim::testing::real_redis_port() == 0) return;  // redis-server is installed
  rlsim::testing::PrivateRedis server;
  const Direct direct = connect_to(server.port());
  REQUIRE(direct_command(direct.get(), {"CONFIG", "SET", "busy-reply-threshold", "100"}) == "OK");
  const CliDir dir("unkillable", kScriptScenario);
  std::ofstream(dir.path / "script.lua") << "redis.call('SET', KEYS[1], 'x')\nwhile true do end\n";

  const CliRun real = run_real(dir, server.url());
  INFO(dir.err());
  CHECK(real.code == exit_code::kScriptError);
  CHECK(real.wall_s < 60);
  CHECK_THAT(dir.err(), Contains("looping: script ./script.lua") && Contains("has written") &&
                            Contains("UNKILLABLE") && Contains("SHUTDOWN NOSAVE") &&
                            Contains("rlsim does not send it"));
  // rlsim left the server running, still stuck on the script.
  CHECK_THAT(direct_command(direct.get(), {"PING"}), Contains("BUSY"));
  CHECK(direct_command(direct.get(), {"SCRIPT", "KILL"}).starts_with("UNKILLABLE"));
}  // the private server is killed here

}  // namespace rlsim_test_real_runaway
