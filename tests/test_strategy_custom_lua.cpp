// custom_lua: the user's script file, templates for KEYS and ARGV, the allow_if rule, and how its
// failures are handled (checked before the run, Redis errors, fatal script errors).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "strategy_harness.h"

namespace rlsim_test_strategy_custom_lua {

using namespace rlsim;
using rlsim::testing::StrategyHarness;

namespace {

const char* kLimit3PerSecond = R"({"name": "per_user", "key": "user", "limit": 3, "window": "1s"})";
const std::string kScenarios = std::string(RLSIM_SOURCE_DIR) + "/scenarios";

constexpr TimeUs ms(std::int64_t value) { return value * kUsPerMs; }
constexpr TimeUs unix_at(TimeUs at_us) { return kEpochUnixUs + at_us; }

// A folder with one script file in it, removed at the end of the test.
class ScriptDir {
 public:
  explicit ScriptDir(const std::string& text)
      : dir_(std::filesystem::temp_directory_path() /
             ("rlsim-custom-lua-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "s.lua") << text;
  }
  ~ScriptDir() { std::filesystem::remove_all(dir_); }
  std::string path() const { return dir_.string(); }

 private:
  std::filesystem::path dir_;
};

// Resolves custom_lua parameters given as JSON text, relative to `dir`; returns "" when they are
// valid, otherwise "<field>: <error>".
std::string check(const std::string& params, const std::string& dir = kScenarios) {
  std::string field, error;
  auto resolved = resolve_params(*find_strategy("custom_lua"), nlohmann::json::parse(params), field,
                                 error, dir);
  return resolved ? "" : field + ": " + error;
}

}  // namespace

TEST_CASE("custom_lua: the example fixed window script, keys and args from templates") {
  StrategyHarness h(kLimit3PerSecond, R"({"name": "custom_lua",
      "script": "scripts/fixed_window.lua", "keys": ["${prefix}${key}:${window}"],
      "args": ["${limit}", "${window_ms}"], "allow_if": "reply == 1"})",
                    {0, 0}, 1000, 50'000, kScenarios);
  for (int i = 0; i < 15; ++i) h.request(ms(100 * i), 0, i % 2);
  // The same decisions as redis_fixed_window_lua (test_strategy_windows.cpp).
  CHECK(h.pattern() == "111000000011100");
  CHECK(h.stats().round_trips == 16);  // one NOSCRIPT + EVAL
  CHECK(to_display(h.store().run({"GET", "rl:user:0:1750032001"}, unix_at(ms(1500)))) == "\"5\"");
  CHECK(h.strategy().fatal_error().empty());
}

TEST_CASE("custom_lua: the example token bucket script, an array reply, hash-tagged keys") {
  // Capacity 2, 10 tokens per second, now in milliseconds: the same decisions as
  // redis_token_bucket on these arrivals (test_strategy_buckets.cpp).
  StrategyHarness h(kLimit3PerSecond, R"({"name": "custom_lua",
      "script": "scripts/token_bucket.lua",
      "keys": ["rl:{user:${user}}:tokens", "rl:{user:${user}}:ts"],
      "args": ["10", "2", "${now_ms}", "${cost}"], "allow_if": "reply[1] == 1"})",
                    {0}, 1000, 50'000, kScenarios);
  for (int at : {0, 0, 0, 100, 100, 350, 360, 370}) h.request(ms(at), 7);
  CHECK(h.pattern() == "11010110");
  CHECK(to_display(h.store().run({"GET", "rl:{user:7}:ts"}, unix_at(ms(400)))) ==
        "\"1750032000370\"");
}

TEST_CASE("custom_lua: templates expand every request field") {
  // The script returns its KEYS and ARGV joined, so the test sees what was sent.
  ScriptDir dir(
      "redis.call('SET', 'seen', table.concat(KEYS, ' ') .. ' | ' .. table.concat(ARGV, ' '))\n"
      "return 1\n");
  StrategyHarness h(R"({"name": "per_ip", "key": "ip", "limit": 7, "window": "250ms"})",
                    R"({"name": "custom_lua", "script": "s.lua",
          "keys": ["${prefix}${key}", "u${user}-${ip}-${endpoint}"],
          "args": ["${limit}", "${window_ms}", "${window_us}", "${window}", "${now_s}",
                   "${now_ms}", "${now_us}", "${cost}", "${instance}", "${request_id}", "$$x"]})",
                    {0, ms(2)}, 1000, 50'000, dir.path());
  h.request(ms(1), 0, 0);
  h.request(ms(1300), 5, 1, 3, 1);
  CHECK(h.pattern() == "11");
  // Request 1: user 5, ip id 3 (10.0.0.4), endpoint /b, instance 1 whose clock is 2 ms ahead:
  // local time 1302 ms after the epoch, window 5 of 250 ms.
  CHECK(to_display(h.store().run({"GET", "seen"}, unix_at(ms(1400)))) ==
        "\"rl:ip:10.0.0.4 u5-10.0.0.4-/b | 7 250 250000 7000128005 1750032001 1750032001302 "
        "1750032001302000 1 1 1 $x\"");
}

namespace {
// "1" or "0": the decision on one request for a script and an allow_if rule (JSON-escaped), or
// "fatal: " and the error that stopped the run.
std::string decide(const std::string& script, const std::string& rule) {
  ScriptDir dir(script);
  StrategyHarness h(kLimit3PerSecond,
                    fmt::format(R"({{"name": "custom_lua", "script": "s.lua", "keys": ["k"],
                                    "allow_if": "{}"}})",
                                rule),
                    {0}, 1000, 50'000, dir.path());
  h.request(0);
  const std::string pattern = h.pattern();
  return h.strategy().fatal_error().empty() ? pattern : "fatal: " + h.strategy().fatal_error();
}
}  // namespace

TEST_CASE("custom_lua: allow_if reads integers, numeric strings, nil as 0, and array elements") {
  CHECK(decide("return 1", "reply == 1") == "1");
  CHECK(decide("return 0", "reply == 1") == "0");
  CHECK(decide("return 5", "reply > 3") == "1");
  CHECK(decide("return -2", "reply>=-2") == "1");
  CHECK(decide("return '12'", "reply <= 12") == "1");
  CHECK(decide("return false", "reply == 0") == "1");  // false -> nil reply -> 0
  CHECK(decide("return true", "reply == 1") == "1");
  CHECK(decide("return {0, 99}", "reply[1] == 0") == "1");
  CHECK(decide("return {0, 99}", "reply[2] != 99") == "0");
  const std::string fatal = decide("return {1, 'x'}", "reply[3] == 1");
  CAPTURE(fatal);
  CHECK(fatal.find("fatal: script ") == 0);
  CHECK(fatal.find("s.lua: reply [(integer) 1, \"x\"] does not fit allow_if \"reply[3] == 1\"") !=
        std::string::npos);
  CHECK(decide("return 'yes'", "reply == 1").find("does not fit allow_if") != std::string::npos);
}

TEST_CASE("custom_lua: allow_if compares with nil and strings, for slot-style limiters") {
  // A concurrency limiter that answers the slot it took, or nil when every slot is taken.
  CHECK(decide("return 'slot1'", "reply != nil") == "1");
  CHECK(decide("return false", "reply != nil") == "0");
  CHECK(decide("return nil", "reply == nil") == "1");
  CHECK(decide("return 0", "reply != nil") == "1");  // 0 is not nil
  CHECK(decide("return {1, 'x'}", "reply != nil") == "1");
  CHECK(decide("return {1}", "reply[2] == nil") == "1");  // past the end: nil, as in Lua
  CHECK(decide("return {1, false}", "reply[2]==nil") == "1");
  CHECK(decide("return 'OK'", R"(reply == \"OK\")") == "1");
  CHECK(decide("return redis.status_reply('OK')", R"(reply == \"OK\")") == "1");
  CHECK(decide("return 'slot2'", R"(reply != \"slot1\")") == "1");
  CHECK(decide("return 12", R"(reply == \"12\")") == "1");            // an integer by its digits
  CHECK(decide("return false", R"(reply == \"\")") == "0");           // nil equals no string
  CHECK(decide("return 7", "reply[1] != nil").find("fatal: ") == 0);  // not an array
  CHECK(decide("return {'a'}", R"(reply == \"a\")").find("does not fit allow_if") !=
        std::string::npos);
}

TEST_CASE(
    "custom_lua: Redis's Lua libraries decide as on Redis; one the embedded Lua lacks stops") {
  // A script that guards a library with pcall takes the branch Redis takes: cjson is there.
  CHECK(decide("local ok, v = pcall(cjson.decode, '{\"n\": 1}') if ok then return v.n end "
               "return 0",
               "reply == 1") == "1");
  CHECK(decide("return bit.band(7, 2)", "reply == 2") == "1");
  CHECK(decide("return struct.unpack('>I2', struct.pack('>I2', 1))", "reply == 1") == "1");
  // A global Redis has and the embedded Lua lacks stops the run with the reason, whether or not
  // the read is caught.
  for (const char* script :
       {"return __redis__err__handler",
        "local ok = pcall(function() return __redis__err__handler end) if ok then return 1 end "
        "return 0"}) {
    INFO(script);
    const std::string fatal = decide(script, "reply == 1");
    CHECK(fatal.find("fatal: script ") == 0);
    CHECK(fatal.find(" used __redis__err__handler, which Redis has and the embedded Redis does "
                     "not") != std::string::npos);
  }
}

TEST_CASE("custom_lua: a script is a regular Lua file in the scenario's folder, checked first") {
  ScriptDir dir("return 1");
  const std::filesystem::path folder = dir.path();
  const std::string outside = " is outside the scenario's folder ";
  // Above the folder, by a relative path or an absolute one: refused, the file is never read.
  std::filesystem::create_directories(folder / "sub");
  CHECK(check(R"({"script": "../s.lua", "keys": []})", (folder / "sub").string()).find(outside) !=
        std::string::npos);
  CHECK(check(R"({"script": "/etc/passwd.lua", "keys": []})", dir.path()).find(outside) !=
        std::string::npos);
  // A symbolic link, even to a script beside it: refused (it could be re-pointed anywhere).
  std::filesystem::create_symlink("s.lua", folder / "link.lua");
  CHECK(check(R"({"script": "link.lua", "keys": []})", dir.path()) ==
        "script: script file " + dir.path() +
            "/link.lua is a symbolic link (a script must be a regular file in the scenario's "
            "folder: copy it there)");
  // A folder below is fine; so is the file itself by an absolute path.
  std::filesystem::copy_file(folder / "s.lua", folder / "sub" / "t.lua");
  CHECK(check(R"({"script": "sub/t.lua", "keys": []})", dir.path()) == "");
  CHECK(check(fmt::format(R"({{"script": "{}/s.lua", "keys": []}})", dir.path()), dir.path()) ==
        "");
  // Not Lua at all (a public key file named .lua): refused before any server could see it.
  std::ofstream(folder / "key.lua") << "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB user@host\n";
  CHECK(check(R"({"script": "key.lua", "keys": []})", dir.path())
            .find("script: script file " + dir.path() + "/key.lua is not valid Lua: ") == 0);
}

TEST_CASE("custom_lua: an error reply is a Redis error, on_error decides") {
  ScriptDir dir("return redis.error_reply('LIMITER down')");
  for (const char* on_error : {"allow", "deny"}) {
    StrategyHarness h(kLimit3PerSecond,
                      fmt::format(R"({{"name": "custom_lua", "script": "s.lua", "keys": ["k"],
                                      "on_error": "{}"}})",
                                  on_error),
                      {0}, 1000, 50'000, dir.path());
    h.request(0);
    const auto decisions = h.run();
    CHECK(decisions[0].error);
    CHECK(decisions[0].allowed == (std::string(on_error) == "allow"));
    CHECK(h.strategy().fatal_error().empty());
  }
}

TEST_CASE("custom_lua: a compile error is refused before the run, naming the file") {
  ScriptDir dir("return +");
  CHECK(check(R"({"script": "s.lua", "keys": []})", dir.path()) ==
        "script: script file " + dir.path() +
            "/s.lua is not valid Lua: ERR Error compiling script (new function): user_script:1: "
            "unexpected symbol near '+'");
}

TEST_CASE("custom_lua: an endless loop stops the run, naming the file") {
  {
    ScriptDir dir("while true do end");
    StrategyHarness h(kLimit3PerSecond, R"({"name": "custom_lua", "script": "s.lua", "keys": []})",
                      {0}, 1000, 50'000, dir.path());
    h.request(0);
    h.request(ms(10));
    const auto decisions = h.run();
    CHECK_FALSE(decisions[0].allowed);
    const std::string& error = h.strategy().fatal_error();
    CHECK(error.find("script " + dir.path() + "/s.lua: ERR ") == 0);
    // After the failure no more calls: 2 round trips (EVALSHA, EVAL) for the first request only.
    CHECK(h.stats().round_trips == 2);
  }
}

TEST_CASE("custom_lua: parameters are checked before the run, with the JSON path") {
  CHECK(check(R"({"script": "scripts/fixed_window.lua", "keys": ["k"]})") == "");
  CHECK(check(R"({"keys": ["k"]})") ==
        "script: missing parameter script for custom_lua (the Lua file, relative to the scenario "
        "file)");
  CHECK(check(R"({"script": "scripts/fixed_window.lua"})").find("keys: missing parameter") == 0);
  CHECK(check(R"({"script": "scripts/nope.lua", "keys": []})") ==
        "script: cannot read script file " + kScenarios + "/scripts/nope.lua: no such file");
  CHECK(check(R"({"script": "scripts", "keys": []})") ==
        "script: cannot read script file " + kScenarios +
            "/scripts: a directory, not a regular file");
  CHECK(check(R"({"script": "/dev/zero", "keys": []})") ==
        "script: script file /dev/zero is outside the scenario's folder " + kScenarios +
            " (a script is read only from the scenario's folder or below it: copy it there)");
  CHECK(check(R"({"script": "overshoot-10x.json", "keys": []})") ==
        "script: script file " + kScenarios +
            "/overshoot-10x.json is not a .lua file (its name must end in .lua)");
  CHECK(check(R"({"script": 3, "keys": []})") ==
        "script: expected a file name (relative to the scenario file), got 3");
  CHECK(check(R"({"script": "scripts/fixed_window.lua", "keys": ["ok", "${usr}"]})")
            .find("keys[1]: unknown field ${usr} in template \"${usr}\" (expected one of: "
                  "${user}, ${ip},") == 0);
  CHECK(check(R"({"script": "scripts/fixed_window.lua", "keys": [], "args": ["a", 5]})") ==
        "args[1]: expected a template string such as \"rl:${user}\", got 5");
  CHECK(check(R"({"script": "scripts/fixed_window.lua", "keys": ["$x"]})") ==
        "keys[0]: bad template \"$x\": a $ starts ${field} (or write $$ for a $)");
  CHECK(check(R"({"script": "scripts/fixed_window.lua", "keys": "k"})") ==
        "keys: expected an array of strings, got \"k\"");
  for (const char* rule : {"reply = 1", "reply[0] == 1", "reply == one", "result == 1",
                           "reply == 1 and more", "reply[1 == 1", "reply > nil",
                           R"(reply <= \"a\")", R"(reply == \"open)", "reply == nill"}) {
    INFO(rule);
    CHECK(check(fmt::format(R"({{"script": "scripts/fixed_window.lua", "keys": [],
                                "allow_if": "{}"}})",
                            rule))
              .find("allow_if: bad rule") == 0);
  }
  ScriptDir empty("");
  CHECK(check(R"({"script": "s.lua", "keys": []})", empty.path()) ==
        "script: script file " + empty.path() + "/s.lua is empty");
}

}  // namespace rlsim_test_strategy_custom_lua
