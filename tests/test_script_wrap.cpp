// The text RealStore sends for a script (redis/script_wrap.h): which prelude, and which calls are
// renamed. That the wrapped scripts behave as Redis does (replies, error texts with line numbers)
// is checked against a real server by the conformance corpus (tests/test_real_store.cpp).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <string>

#include "redis/script_wrap.h"
#include "redis/time_commands.h"
#include "strategy/script.h"

namespace rlsim_test_script_wrap {

using namespace rlsim;

namespace {

// The script's part of the wrapped text (after the prelude, which is on the first line).
std::string body_of(const WrappedScript& wrapped) {
  const std::size_t at = wrapped.text.rfind(" end ", wrapped.text.find('\n'));
  REQUIRE(at != std::string::npos);
  return wrapped.text.substr(at + 5);
}

long lines(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

std::string lower_case(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

TEST_CASE("script wrap: a script that reads no clock gets the sweep alone") {
  const WrappedScript w = wrap_script("local n = redis.call('INCR', KEYS[1])\nreturn n");
  CHECK(w.how == ScriptWrap::kSweep);
  CHECK(w.text == std::string(kSweepPrelude) + "local n = redis.call('INCR', KEYS[1])\nreturn n");
}

TEST_CASE("script wrap: only the clock commands of the fixed-window script are renamed") {
  const WrappedScript w = wrap_script(kFixedWindowLuaScript);
  REQUIRE(w.how == ScriptWrap::kRewritten);
  const std::string body = body_of(w);
  CHECK(body.find("redis.call('INCR', KEYS[1])") != std::string::npos);
  CHECK(body.find("__rlX(1,'PEXPIRE', KEYS[1], ARGV[1])") != std::string::npos);
  CHECK(body.find("redis.call('PEXPIRE'") == std::string::npos);
  // Same lines, so error messages name the script's own line numbers.
  CHECK(lines(w.text) == lines(kFixedWindowLuaScript));
}

TEST_CASE("script wrap: renamed calls never become tail calls, pcall does not raise") {
  const WrappedScript w = wrap_script(
      "local function f(k)\n  return redis.call('PTTL', k)\nend\n"
      "local r = redis.pcall(\"expire\", KEYS[1], 10)\n"
      "return redis.call('TTL', KEYS[1])");
  REQUIRE(w.how == ScriptWrap::kRewritten);
  const std::string body = body_of(w);
  CHECK(body.find("return (__rlX(1,'PTTL', k))\n") != std::string::npos);
  CHECK(body.find("local r = __rlX(0,\"expire\", KEYS[1], 10)") != std::string::npos);
  CHECK(body.find("return (__rlX(1,'TTL', KEYS[1]))") != std::string::npos);
}

TEST_CASE("script wrap: comments and strings are left alone") {
  const WrappedScript w = wrap_script(
      "-- redis.call('EXPIRE', k, 1) in a comment\n"
      "--[[ redis.call(cmd) ]] local s = \"redis.call(x) ttl\" .. [[redis.call(y)]]\n"
      "redis.call('SET', KEYS[1], s, 'PX', 10)\nreturn redis.sha1hex(s)");
  REQUIRE(w.how == ScriptWrap::kRewritten);
  const std::string body = body_of(w);
  CHECK(body.find("-- redis.call('EXPIRE', k, 1) in a comment") != std::string::npos);
  CHECK(body.find("\"redis.call(x) ttl\" .. [[redis.call(y)]]") != std::string::npos);
  CHECK(body.find("__rlX(1,'SET', KEYS[1], s, 'PX', 10)") != std::string::npos);
  CHECK(body.find("return redis.sha1hex(s)") != std::string::npos);
}

TEST_CASE("script wrap: any other use of redis, or a script that does not compile, is shadowed") {
  for (const char* text : {
           "local call = redis.call\ncall('PEXPIRE', KEYS[1], 10)",  // an alias
           "local r = redis\nr.call('PEXPIRE', KEYS[1], 10)",        // redis as a value
           "local c = 'PEXPIRE'\nredis.call(c, KEYS[1], 10)",        // a computed name
           "local c = 'PEX' .. 'PIRE'\nredis.call(c, KEYS[1], 10)",  // a name built at run time
           "return redis.call(ARGV[1], KEYS[1])",                    // a name from ARGV
           "redis.call('EXPIRE', KEYS[1], 10)\nredis.pcall = nil",   // an assignment
           "local redis = {}\nreturn redis.call('TTL', KEYS[1])",    // a local named redis
           "if x redis.call('EXPIRE', KEYS[1], 10) end",             // does not compile
           "redis.call('EXPIRE', KEYS[1], 10) return 's",            // does not tokenize
       }) {
    INFO(text);
    const WrappedScript w = wrap_script(text);
    CHECK(w.how == ScriptWrap::kShadowed);
    CHECK(w.text.ends_with(text));
  }
}

TEST_CASE("script wrap: a clock word that names no clock command costs nothing") {
  const WrappedScript w = wrap_script("local time_left = redis.call('GET', KEYS[1])\nreturn 1");
  CHECK(w.how == ScriptWrap::kSweep);
}

TEST_CASE("script wrap: a shebang line stays first") {
  const WrappedScript w = wrap_script("#!lua flags=no-writes\nreturn redis.call('TIME')");
  REQUIRE(w.how == ScriptWrap::kRewritten);
  CHECK(w.text.starts_with("#!lua flags=no-writes\n" + std::string(kSweepPrelude)));
  CHECK(w.text.ends_with("return (__rlX(1,'TIME'))"));
  CHECK(lines(w.text) == 1);  // the prelude and the script share line 2
}

TEST_CASE("script wrap: every TTL- or time-bearing command of the table is renamed") {
  for (const TimeCommand& row : time_commands()) {
    const std::string name(row.name);
    INFO(name);
    const std::string script = "local r = redis.call('" + name + "', KEYS[1])\nreturn r";
    const WrappedScript w = wrap_script(script);
    if (row.use == TimeUse::kNotMapped) {
      // Sent as written: nothing to map (the row says why).
      CHECK(body_of(w).find("redis.call('" + name + "'") != std::string::npos);
      CHECK_FALSE(row.note.empty());
      continue;
    }
    CHECK(script_needs_clock(script));
    REQUIRE(w.how == ScriptWrap::kRewritten);
    CHECK(body_of(w).find("__rlX(1,'" + name + "', KEYS[1])") != std::string::npos);
    // And the translating function knows the name (its classification comes from the table).
    CHECK(w.text.find("c=='" + name + "'") != std::string::npos);
    // Lower case too: Redis matches command names in any case.
    CHECK(wrap_script("return redis.pcall('" + lower_case(name) + "', KEYS[1])").how ==
          ScriptWrap::kRewritten);
  }
  CHECK(find_time_command("setex")->use == TimeUse::kSetexArg);
  CHECK(find_time_command("INCR") == nullptr);
  CHECK(maps_time("getex"));
  CHECK_FALSE(maps_time("blpop"));
}

}  // namespace rlsim_test_script_wrap
