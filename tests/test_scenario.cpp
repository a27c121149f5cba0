// Scenario validation (scenario/load.cpp and resolve_strategies in engine/run.cpp): a valid file
// gets the documented defaults (docs/scenario-format.md), and every bad input is rejected with one
// line naming the file, the exact JSON path and what was expected.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/run.h"
#include "scenario/load.h"

namespace rlsim_test_scenario {

using namespace rlsim;
using Catch::Contains;
using Catch::StartsWith;
using nlohmann::json;

namespace {

// The smallest scenario the format allows, plus one strategy object so that paths inside
// strategies[1] can be mutated.
json minimal() {
  return json::parse(R"({
    "name": "t",
    "duration": "1m",
    "limits": [{"name": "per_user", "limit": 100, "window": "1m"}],
    "instances": {"count": 2},
    "traffic": [{"name": "g", "rate": "10/s"}],
    "strategies": ["in_memory", {"name": "redis_fixed_window"}]
  })");
}

Scenario parse(const json& j) { return parse_scenario(j.dump(), "f.json"); }

// The message of the ScenarioError that parsing plus strategy resolution throws, or "(accepted)".
// Any other exception type escapes and fails the test: bad input must become a ScenarioError.
std::string error_of(const std::string& text) {
  try {
    const Scenario s = parse_scenario(text, "f.json");
    resolve_strategies(s, "f.json");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(accepted)";
}
std::string error_of(const json& j) { return error_of(j.dump()); }

// `minimal()` with the value at a JSON pointer replaced (or added).
json with(const char* pointer, const json& value) {
  json j = minimal();
  j[json::json_pointer(pointer)] = value;
  return j;
}

// `minimal()` with the value at a JSON pointer removed.
json without(const char* pointer) {
  json j = minimal();
  const json::json_pointer p(pointer);
  json& parent = j[p.parent_pointer()];
  if (parent.is_array()) {
    parent.erase(static_cast<std::size_t>(std::stoul(p.back())));
  } else {
    parent.erase(p.back());
  }
  return j;
}

struct BadCase {
  json scenario;
  std::string expected;   // a prefix of the message: "f.json: <path>: <what was expected>"
  std::string also = "";  // another substring the message must contain ("" for none)
};

void check_rejected(const std::vector<BadCase>& cases) {
  for (const auto& c : cases) {
    INFO("scenario: " << c.scenario.dump());
    const std::string message = error_of(c.scenario);
    CHECK_THAT(message, StartsWith(c.expected));
    if (!c.also.empty()) CHECK_THAT(message, Contains(c.also));
    CHECK(message.find('\n') == std::string::npos);  // one line
  }
}

json limit_object(int i) {
  return {{"name", "l" + std::to_string(i)}, {"limit", 1}, {"window", "1s"}};
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Valid input and defaults
// ---------------------------------------------------------------------------------------------

TEST_CASE("a minimal scenario parses with the documented defaults") {
  const Scenario s = parse(minimal());
  CHECK(s.name == "t");
  CHECK(s.description.empty());
  CHECK(s.seed == 1);
  CHECK(s.duration_us == kUsPerMin);

  REQUIRE(s.limits.size() == 1);
  CHECK(s.limits[0].name == "per_user");
  CHECK(s.limits[0].key == LimitKey::kUser);
  CHECK(s.limits[0].limit == 100);
  CHECK(s.limits[0].window_us == kUsPerMin);

  CHECK(s.instances.count == 2);
  CHECK(s.instances.schedule.empty());
  CHECK(s.instances.clock_offsets.empty());
  CHECK(s.instances.clock_spread_us == 0);
  CHECK(s.balancer == BalancerPolicy::kRoundRobin);

  REQUIRE(s.traffic.size() == 1);
  const TrafficGroup& g = s.traffic[0];
  CHECK(g.name == "g");
  CHECK(g.users == 1);
  CHECK(g.rate_per_s == Approx(10.0));
  CHECK(g.ramp_to_per_s == Approx(10.0));  // no ramp: ramp_to equals rate
  CHECK(g.arrival == Arrival::kPoisson);
  CHECK(g.burst_size == 10);
  CHECK(g.start_us == 0);
  CHECK(g.end_us == kUsPerMin);  // end defaults to the scenario's duration
  CHECK(g.ips == 1);             // ips defaults to users
  CHECK(g.endpoints == std::vector<std::string>{"/api"});

  CHECK(s.redis.rtt.p50_us == 500);
  CHECK(s.redis.rtt.p99_us == 500);
  CHECK(s.redis.service_time_us == 5);
  CHECK(s.redis.timeout_us == 50 * kUsPerMs);

  REQUIRE(s.strategies.size() == 2);
  CHECK(s.strategies[0].name == "in_memory");
  CHECK(s.strategies[0].label == "in_memory");
  CHECK(s.strategies[0].params == json::object());
  CHECK(s.strategies[0].json_path == "strategies[0]");
  CHECK(s.strategies[1].name == "redis_fixed_window");
  CHECK(s.strategies[1].label == "redis_fixed_window");  // label defaults to the name
  CHECK(s.strategies[1].params == json::object());
  CHECK(s.strategies[1].json_path == "strategies[1]");

  CHECK(error_of(minimal()) == "(accepted)");
}

TEST_CASE("resolve_strategies fills in parameter defaults and keeps given ones") {
  const Scenario s = parse(minimal());
  const auto resolved = resolve_strategies(s, "f.json");
  REQUIRE(resolved.size() == 2);
  REQUIRE(resolved[0].info != nullptr);
  CHECK(resolved[0].info->name == "in_memory");
  CHECK(resolved[0].label == "in_memory");
  CHECK(resolved[0].params == json::object());
  REQUIRE(resolved[1].info != nullptr);
  CHECK(resolved[1].info->name == "redis_fixed_window");
  CHECK(resolved[1].params == json{{"on_error", "fail_open"},
                                   {"clock", "local"},
                                   {"clock_refresh", "1s"},
                                   {"divisor", 0},
                                   {"breaker", false}});

  json j = minimal();
  j["strategies"][1] = {{"name", "redis_fixed_window"}, {"label", "closed"}, {"on_error", "deny"}};
  const Scenario s2 = parse(j);
  CHECK(s2.strategies[1].label == "closed");
  CHECK(s2.strategies[1].params == json{{"on_error", "deny"}});
  const auto resolved2 = resolve_strategies(s2, "f.json");
  CHECK(resolved2[1].label == "closed");
  CHECK(resolved2[1].params == json{{"on_error", "deny"},
                                    {"clock", "local"},
                                    {"clock_refresh", "1s"},
                                    {"divisor", 0},
                                    {"breaker", false}});
}

TEST_CASE("every optional field is read when given") {
  const Scenario s = parse(json::parse(R"({
    "name": "full-1.x", "description": "d", "seed": 18446744073709551615, "duration": "10m",
    "limits": [{"name": "a", "key": "user", "limit": 1, "window": "1s"},
               {"name": "b", "key": "ip", "limit": 2, "window": "2s"},
               {"name": "c", "key": "endpoint", "limit": 3, "window": "3s"},
               {"name": "d", "key": "global", "limit": 1000000000, "window": "24h"}],
    "instances": {"count": 3, "schedule": [{"at": "0s", "count": 4}, {"at": "10m", "count": 1}],
                  "clock": {"offsets": ["-2ms", "3ms", "0us"], "spread": "1.5ms"}},
    "load_balancer": {"policy": "sticky"},
    "traffic": [{"name": "g", "users": 10, "rate": "1/s", "ramp_to": "2/s", "arrival": "burst",
                 "burst_size": 7, "start": "1m", "end": "2m", "ips": 3,
                 "endpoints": ["/a", "/b"]}],
    "redis": {"rtt": {"p50": "0.5ms", "p99": "2ms"}, "service_time": "250us", "timeout": "2ms"},
    "strategies": ["in_memory"]
  })"));
  CHECK(s.name == "full-1.x");
  CHECK(s.description == "d");
  CHECK(s.seed == 18446744073709551615ULL);
  REQUIRE(s.limits.size() == 4);
  CHECK(s.limits[1].key == LimitKey::kIp);
  CHECK(s.limits[2].key == LimitKey::kEndpoint);
  CHECK(s.limits[3].key == LimitKey::kGlobal);
  CHECK(s.limits[3].limit == 1'000'000'000);
  CHECK(s.limits[3].window_us == 24 * kUsPerHour);
  REQUIRE(s.instances.schedule.size() == 2);
  CHECK(s.instances.schedule[0].at_us == 0);
  CHECK(s.instances.schedule[0].count == 4);
  CHECK(s.instances.schedule[1].at_us == 10 * kUsPerMin);
  CHECK(s.instances.schedule[1].count == 1);
  CHECK(s.instances.clock_offsets == std::vector<DurationUs>{-2000, 3000, 0});
  CHECK(s.instances.clock_spread_us == 1500);
  CHECK(s.balancer == BalancerPolicy::kSticky);
  const TrafficGroup& g = s.traffic[0];
  CHECK(g.users == 10);
  CHECK(g.rate_per_s == Approx(1.0));
  CHECK(g.ramp_to_per_s == Approx(2.0));
  CHECK(g.arrival == Arrival::kBurst);
  CHECK(g.burst_size == 7);
  CHECK(g.start_us == kUsPerMin);
  CHECK(g.end_us == 2 * kUsPerMin);
  CHECK(g.ips == 3);
  CHECK(g.endpoints == std::vector<std::string>{"/a", "/b"});
  CHECK(s.redis.rtt.p50_us == 500);
  CHECK(s.redis.rtt.p99_us == 2000);
  CHECK(s.redis.service_time_us == 250);
  CHECK(s.redis.timeout_us == 2000);
}

TEST_CASE("every load balancer policy and arrival parses") {
  const std::pair<const char*, BalancerPolicy> policies[] = {
      {"round_robin", BalancerPolicy::kRoundRobin},
      {"random", BalancerPolicy::kRandom},
      {"least_inflight", BalancerPolicy::kLeastInflight},
      {"sticky", BalancerPolicy::kSticky}};
  for (const auto& [name, policy] : policies) {
    INFO(name);
    CHECK(parse(with("/load_balancer", {{"policy", name}})).balancer == policy);
    CHECK(std::string(to_string(policy)) == name);
  }
  CHECK(parse(with("/load_balancer", json::object())).balancer == BalancerPolicy::kRoundRobin);

  const std::pair<const char*, Arrival> arrivals[] = {
      {"poisson", Arrival::kPoisson}, {"constant", Arrival::kConstant}, {"burst", Arrival::kBurst}};
  for (const auto& [name, arrival] : arrivals) {
    INFO(name);
    CHECK(parse(with("/traffic/0/arrival", name)).traffic[0].arrival == arrival);
    CHECK(std::string(to_string(arrival)) == name);
  }
}

TEST_CASE("durations parse in every documented unit") {
  // "250us", "2ms", "1.5s", "1m", "1h", each in a field that allows it.
  CHECK(parse(with("/redis", {{"service_time", "250us"}})).redis.service_time_us == 250);
  CHECK(parse(with("/redis", {{"timeout", "2ms"}})).redis.timeout_us == 2 * kUsPerMs);
  CHECK(parse(with("/traffic/0/start", "1.5s")).traffic[0].start_us == 1'500'000);
  CHECK(parse(with("/limits/0/window", "1m")).limits[0].window_us == kUsPerMin);
  CHECK(parse(with("/duration", "1h")).duration_us == kUsPerHour);
  CHECK(parse(with("/duration", "1.5s")).duration_us == 1'500'000);
  CHECK(parse(with("/duration", "2ms")).duration_us == 2 * kUsPerMs);
  CHECK(parse(with("/duration", "90s")).duration_us == 90 * kUsPerS);
  CHECK(parse(with("/duration", "24h")).duration_us == 24 * kUsPerHour);
  CHECK(parse(with("/redis", {{"rtt", "0.5ms"}})).redis.rtt.p50_us == 500);
  CHECK(parse(with("/redis", {{"rtt", "0.5ms"}})).redis.rtt.p99_us == 500);
  CHECK(parse(with("/limits/0/window", "1.5s")).limits[0].window_us == 1'500'000);
}

TEST_CASE("malformed durations are rejected with the accepted forms") {
  for (const char* text : {"", "1", "1.5", "ms", "1 s", "1sec", "1d", "1S", "s1", "1.2.3s", "1..5s",
                           "+1s", "0.1us", "1e3ms", " 1s", "1s "}) {
    INFO('"' << text << '"');
    const std::string message = error_of(with("/duration", text));
    CHECK_THAT(message, StartsWith("f.json: duration: expected a duration such as \"250us\", "
                                   "\"2ms\", \"1.5s\", \"1m\", \"1h\""));
    CHECK_THAT(message, Contains(std::string("got \"") + text + "\""));
  }
}

TEST_CASE("traffic rates and ramps parse per second, minute and hour") {
  CHECK(parse(with("/traffic/0/rate", "10/s")).traffic[0].rate_per_s == Approx(10.0));
  CHECK(parse(with("/traffic/0/rate", "120/m")).traffic[0].rate_per_s == Approx(2.0));
  CHECK(parse(with("/traffic/0/rate", "7200/h")).traffic[0].rate_per_s == Approx(2.0));
  CHECK(parse(with("/traffic/0/rate", "1.5/s")).traffic[0].rate_per_s == Approx(1.5));
  CHECK(parse(with("/traffic/0/rate", "1/h")).traffic[0].rate_per_s == Approx(1.0 / 3600));
  const Scenario ramp = parse(with("/traffic/0/ramp_to", "30/m"));
  CHECK(ramp.traffic[0].rate_per_s == Approx(10.0));
  CHECK(ramp.traffic[0].ramp_to_per_s == Approx(0.5));
}

TEST_CASE("malformed rates are rejected with the accepted forms") {
  for (const char* text : {"10", "10/d", "/s", "ten/s", "10 /s", "10/ s", "10/sec", "10/S", "",
                           "1e999/s", "nan/s", "inf/s", "1e3/s", "1E3/m", "2.5e1/h", "0x10/s"}) {
    INFO('"' << text << '"');
    const std::string message = error_of(with("/traffic/0/rate", text));
    CHECK_THAT(message, StartsWith("f.json: traffic[0].rate: expected a rate such as \"100/s\", "
                                   "\"2000/m\", \"50/h\""));
  }
  CHECK_THAT(error_of(with("/traffic/0/rate", 10)),
             StartsWith("f.json: traffic[0].rate: expected a rate string such as \"100/s\"") &&
                 Contains("got an integer"));
}

// ---------------------------------------------------------------------------------------------
// Syntax errors
// ---------------------------------------------------------------------------------------------

TEST_CASE("a syntax error names the file, line and column") {
  // A missing comma at the end of line 2: the parser notices on line 3.
  const std::string missing_comma = "{\n  \"name\": \"t\"\n  \"duration\": \"1m\"\n}";
  const std::string message = error_of(missing_comma);
  CHECK_THAT(message, StartsWith("f.json:3:"));
  CHECK_THAT(message, Catch::Matches(R"(f\.json:3:[0-9]+: syntax error: .*)"));
  CHECK_THAT(message, Contains("expected '}'"));
  CHECK(message.find('\n') == std::string::npos);

  CHECK_THAT(error_of(std::string("")), StartsWith("f.json:1:1: syntax error: "));
  CHECK_THAT(error_of(std::string("{\"a\": 1,\n}")), StartsWith("f.json:2:1: syntax error: "));
  CHECK_THAT(error_of(std::string("x")), StartsWith("f.json:1:1: syntax error: "));
  REQUIRE_THROWS_AS(parse_scenario("{", "f.json"), ScenarioError);
  REQUIRE_THROWS_WITH(parse_scenario("[1, 2,,]", "dir/g.json"), StartsWith("dir/g.json:1:"));
}

TEST_CASE("a number beyond double's range is rejected with its line, column and path") {
  // Found by tests/fuzz: nlohmann reports these as out_of_range, not parse_error, and without a
  // position; the message now has both, like a syntax error.
  CHECK(error_of(std::string("{\"seed\": 1e999}")) ==
        "f.json:1:10: seed: number out of range (beyond a double's 1.8e308): 1e999");
  CHECK(error_of(std::string("33333333333333333333334.3333E3337EEEE")) ==
        "f.json:1:1: number out of range (beyond a double's 1.8e308): "
        "33333333333333333333334.3333E3337");
  CHECK(error_of(std::string("{\"limits\": [{\"name\": \"l\"},\n  {\"limit\": -1e400}]}")) ==
        "f.json:2:13: limits[1].limit: number out of range (beyond a double's 1.8e308): -1e400");
  CHECK(error_of(std::string("{\"x\": [[1], [2, 3e900]]}")) ==
        "f.json:1:17: x[1][1]: number out of range (beyond a double's 1.8e308): 3e900");
}

TEST_CASE("nesting deeper than the bound stops parsing with the line and column") {
  // 32 levels are accepted by the parser (the loader then rejects the value's type).
  const std::string ok = "{\"x\": " + std::string(31, '[') + std::string(31, ']') + "}";
  CHECK_THAT(error_of(ok), StartsWith("f.json: name: required field is missing"));
  const std::string deep = "{\"x\":\n " + std::string(31, '[') + "{\"y\": [";
  CHECK(error_of(deep) == "f.json:2:33: arrays and objects nested deeper than 32 levels");
  // 16 MiB of '[' (1.44 GB of memory before the bound) ends at the 33rd.
  CHECK(error_of(std::string(16 * 1024 * 1024, '[')) ==
        "f.json:1:33: arrays and objects nested deeper than 32 levels");
  // Brackets inside strings and comments do not count.
  const std::string quoted = "{\"x\": \"" + std::string(100, '[') + "\", // [[[[\n \"y\": 1}";
  CHECK_THAT(error_of(quoted), StartsWith("f.json: name: required field is missing"));
}

TEST_CASE("the number of JSON values in a file is bounded, with the position of the first extra") {
  // 100,000 values in all: the object, the array and 99,998 numbers.
  std::string text = "{\"x\": [0";
  for (int i = 1; i < 99'998; ++i) text += ",0";
  CHECK_THAT(error_of(text + "]}"), StartsWith("f.json: name: required field is missing"));
  // One more: its first byte is at column 8 + 2 * 99,998.
  CHECK(error_of(text + ",\"s\"]}") ==
        "f.json:1:" + std::to_string(8 + 2 * 99'998) +
            ": more than 100000 values (numbers, strings, arrays, objects...) in one file");
  // Keys are not values; a key that looks like a value is not counted.
  std::string keys = "{";
  for (int i = 0; i < 60'000; ++i) keys += (i ? ",\"" : "\"") + std::to_string(i) + "\": 0";
  CHECK_THAT(error_of(keys + "}"), StartsWith("f.json: name: required field is missing"));
}

TEST_CASE("comments are allowed, and positions after them stay exact") {
  const std::string body = minimal().dump(2);
  CHECK(error_of("// a line comment\n" + body) == "(accepted)");
  CHECK(error_of("/* a block\n   comment */ " + body + " // trailing\n/* and a block */") ==
        "(accepted)");
  // Inside the object, between fields and values; a comment holding quotes and braces.
  std::string inside = body;
  inside.insert(1, "\n  // \"name\": \"not this\" }\n  /* { [ */");
  const Scenario s = parse_scenario(inside, "f.json");
  CHECK(s.name == "t");
  // "//" inside a string is text, not a comment: the name is then invalid.
  CHECK_THAT(error_of(with("/name", "a//b")), StartsWith("f.json: name: expected 1 to 64"));

  // Errors after a comment: the line and column of the byte where parsing stopped.
  CHECK_THAT(error_of(std::string("// line 1\n/* line 2\n line 3 */ {\"a\": x}")),
             StartsWith("f.json:3:18: syntax error: syntax error while parsing value - invalid "
                        "literal"));
  CHECK_THAT(error_of(std::string("{\"a\": /* c */ 1,\n  /* c */ ]")),
             StartsWith("f.json:2:11: syntax error: "));
  CHECK_THAT(error_of(std::string("{\"seed\": // c\n  1e999}")),
             StartsWith("f.json:2:3: seed: number out of range"));
  CHECK_THAT(error_of(std::string("{\"x\": // c\n" + std::string(40, '['))),
             StartsWith("f.json:2:32: arrays and objects nested deeper"));
  // Errors inside a comment: one left open (found at the end of the text), and a lone '/'.
  CHECK_THAT(error_of(std::string("{\n  /* open\n  \"name\": \"t\"}")),
             StartsWith("f.json:3:15: syntax error: "));
  CHECK_THAT(error_of(std::string("{\n  /* open\n  \"name\": \"t\"}")),
             Contains("missing closing '*/'"));
  CHECK_THAT(error_of(std::string("{\"a\": 1 / 2}")), StartsWith("f.json:1:"));
  CHECK_THAT(error_of(std::string("{\"a\": 1 / 2}")), Contains("invalid comment"));
}

TEST_CASE("a syntax error says what went wrong, without the JSON library's internal prefix") {
  // The detail after "syntax error: " should be nlohmann's description of the problem, not its
  // exception name and a second copy of the position, and not only the "last read" fragment.
  const std::string missing_comma = "{\n  \"name\": \"t\"\n  \"duration\": \"1m\"\n}";
  const std::string m1 = error_of(missing_comma);
  CHECK_THAT(m1, !Contains("[json.exception"));
  CHECK_THAT(m1, !Contains("parse error at line"));

  const std::string m2 = error_of(std::string("{\"a\": tru}"));  // a misspelt literal
  CHECK_THAT(m2, StartsWith("f.json:1:"));
  CHECK_THAT(m2, Contains("invalid literal"));

  const std::string m3 = error_of(std::string("{\"a\": 1} x"));  // trailing garbage
  CHECK_THAT(m3, StartsWith("f.json:1:"));
  CHECK_THAT(m3, Contains("expected end of input"));
  CHECK_THAT(m3, Contains("invalid literal"));
}

// ---------------------------------------------------------------------------------------------
// Wrong types
// ---------------------------------------------------------------------------------------------

TEST_CASE("a value of the wrong type names its path and the expected type") {
  check_rejected({
      {with("/limits/0/limit", "100"),
       "f.json: limits[0].limit: expected an integer, got a string"},
      {with("/limits/0/limit", 1.5), "f.json: limits[0].limit: expected an integer, got a number"},
      {with("/name", 5), "f.json: name: expected a string, got an integer"},
      {with("/description", json::array()), "f.json: description: expected a string, got an array"},
      {with("/duration", 60), "f.json: duration: expected a duration string such as \"250us\"",
       "got an integer"},
      {with("/limits", json::object()), "f.json: limits: expected an array, got an object"},
      {with("/limits/0", 5), "f.json: limits[0]: expected an object, got an integer"},
      {with("/limits/0/key", 1), "f.json: limits[0].key: expected a string, got an integer"},
      {with("/instances", json::array()), "f.json: instances: expected an object, got an array"},
      {with("/instances/count", "2"), "f.json: instances.count: expected an integer, got a string"},
      {with("/instances/schedule", json::object()),
       "f.json: instances.schedule: expected an array, got an object"},
      {with("/instances/clock", 5), "f.json: instances.clock: expected an object, got an integer"},
      {with("/load_balancer", "random"), "f.json: load_balancer: expected an object, got a string"},
      {with("/traffic", json::object()), "f.json: traffic: expected an array, got an object"},
      {with("/traffic/0/users", true),
       "f.json: traffic[0].users: expected an integer, got a boolean"},
      {with("/traffic/0/endpoints", json::array({5})),
       "f.json: traffic[0].endpoints[0]: expected a non-empty string"},
      {with("/redis", json::array()), "f.json: redis: expected an object, got an array"},
      {with("/strategies", "in_memory"), "f.json: strategies: expected an array, got a string"},
      {with("/strategies/0", 5),
       "f.json: strategies[0]: expected a strategy name or an object with \"name\", got an "
       "integer"},
      {with("/strategies/1/name", 5),
       "f.json: strategies[1].name: expected a string, got an integer"},
      {with("/strategies/1/label", json(nullptr)),
       "f.json: strategies[1].label: expected a string, got null"},
      {with("/seed", "1"), "f.json: seed: expected a non-negative integer, got a string"},
      {with("/seed", 1.5), "f.json: seed: expected a non-negative integer, got a number"},
      {with("/seed", -1), "f.json: seed: expected a non-negative integer"},
  });
  check_rejected({{json::array(), "f.json: expected an object, got an array"}});
}

// ---------------------------------------------------------------------------------------------
// Unknown and missing fields
// ---------------------------------------------------------------------------------------------

TEST_CASE("unknown fields are rejected at every level") {
  check_rejected({
      {with("/colour", "red"), "f.json: colour: unknown field (expected one of: ", "duration"},
      {with("/limits/0/windw", "1m"),
       "f.json: limits[0].windw: unknown field (expected one of: ", "window"},
      {with("/instances/colour", 1), "f.json: instances.colour: unknown field", "count"},
      {with("/instances/schedule", json::array({{{"at", "1s"}, {"count", 2}, {"cnt", 3}}})),
       "f.json: instances.schedule[0].cnt: unknown field"},
      {with("/instances/clock", {{"sprad", "1ms"}}), "f.json: instances.clock.sprad: unknown field",
       "spread"},
      {with("/load_balancer", {{"polcy", "random"}}), "f.json: load_balancer.polcy: unknown field",
       "policy"},
      {with("/traffic/0/rat", "1/s"), "f.json: traffic[0].rat: unknown field", "rate"},
      {with("/redis", {{"timout", "1ms"}}), "f.json: redis.timout: unknown field", "timeout"},
      {with("/redis", {{"rtt", {{"p50", "1ms"}, {"p99", "2ms"}, {"p90", "1ms"}}}}),
       "f.json: redis.rtt.p90: unknown field"},
  });
  // A misspelt required field: the missing real one is named.
  json j = minimal();
  j["limits"][0].erase("window");
  j["limits"][0]["windw"] = "1m";
  CHECK_THAT(error_of(j), StartsWith("f.json: limits[0].window: required field is missing"));
}

TEST_CASE("missing required fields are named by their path") {
  const std::pair<const char*, const char*> cases[] = {
      {"/name", "f.json: name: required field is missing"},
      {"/duration", "f.json: duration: required field is missing"},
      {"/limits", "f.json: limits: required field is missing"},
      {"/instances", "f.json: instances: required field is missing"},
      {"/traffic", "f.json: traffic: required field is missing"},
      {"/strategies", "f.json: strategies: required field is missing"},
      {"/limits/0/window", "f.json: limits[0].window: required field is missing"},
      {"/limits/0/name", "f.json: limits[0].name: required field is missing"},
      {"/limits/0/limit", "f.json: limits[0].limit: required field is missing"},
      {"/instances/count", "f.json: instances.count: required field is missing"},
      {"/traffic/0/name", "f.json: traffic[0].name: required field is missing"},
      {"/traffic/0/rate", "f.json: traffic[0].rate: required field is missing"},
      {"/strategies/1/name", "f.json: strategies[1].name: required field is missing"},
  };
  for (const auto& [pointer, expected] : cases) {
    INFO(pointer);
    CHECK(error_of(without(pointer)) == expected);
  }
  check_rejected({
      {with("/instances/schedule", json::array({{{"count", 2}}})),
       "f.json: instances.schedule[0].at: required field is missing"},
      {with("/instances/schedule", json::array({{{"at", "1s"}}})),
       "f.json: instances.schedule[0].count: required field is missing"},
      {with("/redis", {{"rtt", {{"p50", "1ms"}}}}),
       "f.json: redis.rtt.p99: required field is missing"},
  });
}

TEST_CASE("empty required arrays are rejected") {
  check_rejected({
      {with("/limits", json::array()), "f.json: limits: expected from 1 to 16 entries, got 0"},
      {with("/traffic", json::array()), "f.json: traffic: expected from 1 to 64 entries, got 0"},
      {with("/strategies", json::array()),
       "f.json: strategies: expected from 1 to 32 entries, got 0"},
      {with("/traffic/0/endpoints", json::array()),
       "f.json: traffic[0].endpoints: expected from 1 to 64 entries, got 0"},
      {with("/traffic/0/endpoints", json::array({""})),
       "f.json: traffic[0].endpoints[0]: expected a non-empty string"},
  });
}

// ---------------------------------------------------------------------------------------------
// Zero and negative values
// ---------------------------------------------------------------------------------------------

TEST_CASE("zero or negative durations, limits, rates and counts are rejected") {
  check_rejected({
      {with("/duration", "0s"),
       "f.json: duration: expected a duration from 1ms to 24h, got \"0s\""},
      {with("/duration", "0ms"), "f.json: duration: expected a duration from 1ms to 24h"},
      {with("/duration", "-1m"), "f.json: duration: expected a duration such as", "got \"-1m\""},
      {with("/limits/0/window", "0ms"), "f.json: limits[0].window: expected a duration from 1ms"},
      {with("/limits/0/window", "-1s"), "f.json: limits[0].window: expected a duration such as"},
      {with("/limits/0/limit", 0),
       "f.json: limits[0].limit: expected an integer from 1 to 1000000000, got 0"},
      {with("/limits/0/limit", -5),
       "f.json: limits[0].limit: expected an integer from 1 to 1000000000, got -5"},
      {with("/traffic/0/rate", "0/s"),
       "f.json: traffic[0].rate: expected a positive rate, got \"0/s\""},
      {with("/traffic/0/rate", "0/h"), "f.json: traffic[0].rate: expected a positive rate"},
      {with("/traffic/0/rate", "-5/s"), "f.json: traffic[0].rate: expected a positive rate"},
      {with("/traffic/0/ramp_to", "0/m"), "f.json: traffic[0].ramp_to: expected a positive rate"},
      {with("/instances/count", 0),
       "f.json: instances.count: expected an integer from 1 to 10000, got 0"},
      {with("/instances/count", -1),
       "f.json: instances.count: expected an integer from 1 to 10000, got -1"},
      {with("/instances/schedule", json::array({{{"at", "1s"}, {"count", 0}}})),
       "f.json: instances.schedule[0].count: expected an integer from 1 to 10000, got 0"},
      {with("/traffic/0/users", 0),
       "f.json: traffic[0].users: expected an integer from 1 to 1000000"},
      {with("/traffic/0/ips", 0), "f.json: traffic[0].ips: expected an integer from 1 to 1"},
      {with("/redis", {{"timeout", "0ms"}}), "f.json: redis.timeout: expected a duration from 1us"},
      {with("/traffic/0/start", "-1s"), "f.json: traffic[0].start: expected a duration such as"},
  });
}

// ---------------------------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------------------------

TEST_CASE("an unknown strategy is named with its index and the known names") {
  check_rejected({
      {with("/strategies/1", "token_magic"),
       "f.json: strategies[1]: unknown strategy \"token_magic\" (expected one of: in_memory, "
       "redis_fixed_window, redis_fixed_window_lua, "},
      {with("/strategies/1", {{"name", "token_magic"}}),
       "f.json: strategies[1]: unknown strategy \"token_magic\""},
      {with("/strategies/1", {{"name", "token_magic"}, {"label", "x"}}),
       "f.json: strategies[1].name: unknown strategy \"token_magic\""},
      {with("/strategies/0", "In_Memory"), "f.json: strategies[0]: unknown strategy \"In_Memory\""},
  });
}

TEST_CASE("unknown strategy parameters and bad parameter values are rejected") {
  check_rejected({
      {with("/strategies/1/colour", "red"),
       "f.json: strategies[1].colour: unknown parameter for redis_fixed_window (expected one of: "
       "on_error, clock, clock_refresh, divisor, breaker)"},
      {with("/strategies/0", {{"name", "in_memory"}, {"on_error", "deny"}}),
       "f.json: strategies[0].on_error: unknown parameter (in_memory takes no parameters)"},
      {with("/strategies/1/on_error", "maybe"),
       "f.json: strategies[1].on_error: expected one of \"fail_open\", \"fail_closed\", "
       "\"local_fallback\", \"allow\", \"deny\", got \"maybe\""},
      {with("/strategies/1/on_error", "Allow"),
       "f.json: strategies[1].on_error: expected one of \"fail_open\", \"fail_closed\", "
       "\"local_fallback\", \"allow\", \"deny\""},
      {with("/strategies/1/on_error", true),
       "f.json: strategies[1].on_error: expected one of \"fail_open\", \"fail_closed\", "
       "\"local_fallback\", \"allow\", \"deny\", got true"},
      {with("/strategies/1/label", "has space"),
       "f.json: strategies[1].label: expected 1 to 64 characters from [A-Za-z0-9_.-]"},
  });
  for (const char* value : {"allow", "deny"}) {
    INFO(value);
    CHECK(error_of(with("/strategies/1/on_error", value)) == "(accepted)");
  }
}

TEST_CASE("duplicate names and labels are rejected") {
  json two_limits = minimal();
  two_limits["limits"].push_back({{"name", "per_user"}, {"limit", 5}, {"window", "1s"}});
  json two_groups = minimal();
  two_groups["traffic"].push_back({{"name", "g"}, {"rate", "1/s"}});
  json same_label = minimal();
  same_label["strategies"] = {"in_memory",
                              {{"name", "redis_fixed_window"}, {"label", "in_memory"}}};
  check_rejected({
      {two_limits, "f.json: limits[1].name: duplicate limit name"},
      {two_groups, "f.json: traffic[1].name: duplicate traffic group name"},
      {with("/strategies/1", "in_memory"),
       "f.json: strategies[1]: duplicate strategy label \"in_memory\""},
      {same_label, "f.json: strategies[1]: duplicate strategy label \"in_memory\""},
  });
  // The same strategy twice is fine with distinct labels.
  json relabelled = minimal();
  relabelled["strategies"].push_back(
      {{"name", "redis_fixed_window"}, {"label", "closed"}, {"on_error", "deny"}});
  CHECK(error_of(relabelled) == "(accepted)");
}

// ---------------------------------------------------------------------------------------------
// Enumerations
// ---------------------------------------------------------------------------------------------

TEST_CASE("unknown enumeration values list the choices") {
  check_rejected({
      {with("/load_balancer", {{"policy", "fastest"}}),
       "f.json: load_balancer.policy: expected one of \"round_robin\", \"random\", "
       "\"least_inflight\", \"sticky\", got \"fastest\""},
      {with("/traffic/0/arrival", "uniform"),
       "f.json: traffic[0].arrival: expected one of \"poisson\", \"constant\", \"burst\", got "
       "\"uniform\""},
      {with("/limits/0/key", "tenant"),
       "f.json: limits[0].key: expected one of \"user\", \"ip\", \"endpoint\", \"global\", got "
       "\"tenant\""},
      {with("/traffic/0/burst_size", 5),
       "f.json: traffic[0].burst_size: only allowed with \"arrival\": \"burst\""},
  });
}

// ---------------------------------------------------------------------------------------------
// Documented bounds (ScenarioBounds)
// ---------------------------------------------------------------------------------------------

TEST_CASE("instance counts are bounded") {
  CHECK(error_of(with("/instances/count", ScenarioBounds::kMaxInstances)) == "(accepted)");
  check_rejected({
      {with("/instances/count", 10001),
       "f.json: instances.count: expected an integer from 1 to 10000"},
      {with("/instances/schedule", json::array({{{"at", "1s"}, {"count", 10001}}})),
       "f.json: instances.schedule[0].count: expected an integer from 1 to 10000"},
      {with("/instances/count", 18446744073709551615ULL),
       "f.json: instances.count: expected an integer from 1 to 10000"},
  });
}

TEST_CASE("an integer above its bound is named in the message, like one below it") {
  // Below the bound the message ends in ", got 0"; above it the value given should be named too.
  // (A positive integer in a file parses as unsigned, which takes a separate branch.)
  CHECK(error_of(with("/instances/count", 0)) ==
        "f.json: instances.count: expected an integer from 1 to 10000, got 0");
  CHECK(error_of(with("/instances/count", 10001)) ==
        "f.json: instances.count: expected an integer from 1 to 10000, got 10001");
  CHECK(error_of(with("/limits/0/limit", 1'000'000'001)) ==
        "f.json: limits[0].limit: expected an integer from 1 to 1000000000, got 1000000001");
}

TEST_CASE("the number of limits is bounded") {
  json sixteen = minimal();
  sixteen["limits"] = json::array();
  for (int i = 0; i < ScenarioBounds::kMaxLimits; ++i) sixteen["limits"].push_back(limit_object(i));
  CHECK(error_of(sixteen) == "(accepted)");
  json seventeen = sixteen;
  seventeen["limits"].push_back(limit_object(16));
  check_rejected({{seventeen, "f.json: limits: expected from 1 to 16 entries, got 17"}});
}

TEST_CASE("the other sizes are bounded") {
  json schedule = json::array();
  for (int i = 0; i <= ScenarioBounds::kMaxScheduleSteps; ++i)
    schedule.push_back({{"at", std::to_string(i + 1) + "ms"}, {"count", 1 + i % 2}});
  json schedule_ok = schedule;
  schedule_ok.erase(schedule_ok.size() - 1);
  CHECK(error_of(with("/instances/schedule", schedule_ok)) == "(accepted)");

  json groups = json::array();
  for (int i = 0; i <= ScenarioBounds::kMaxTrafficGroups; ++i)
    groups.push_back({{"name", "g" + std::to_string(i)}, {"rate", "1/s"}});
  json groups_ok = groups;
  groups_ok.erase(groups_ok.size() - 1);
  CHECK(error_of(with("/traffic", groups_ok)) == "(accepted)");

  json strategies = json::array();
  for (int i = 0; i <= ScenarioBounds::kMaxStrategies; ++i)
    strategies.push_back({{"name", "in_memory"}, {"label", "m" + std::to_string(i)}});
  json strategies_ok = strategies;
  strategies_ok.erase(strategies_ok.size() - 1);
  CHECK(error_of(with("/strategies", strategies_ok)) == "(accepted)");

  json endpoints = json::array();
  for (int i = 0; i <= ScenarioBounds::kMaxEndpointsPerGroup; ++i)
    endpoints.push_back("/e" + std::to_string(i));

  check_rejected({
      {with("/instances/schedule", schedule),
       "f.json: instances.schedule: expected from 0 to 1000 entries, got 1001"},
      {with("/traffic", groups), "f.json: traffic: expected from 1 to 64 entries, got 65"},
      {with("/strategies", strategies),
       "f.json: strategies: expected from 1 to 32 entries, got 33"},
      {with("/traffic/0/endpoints", endpoints),
       "f.json: traffic[0].endpoints: expected from 1 to 64 entries, got 65"},
      {with("/traffic/0/users", 1'000'001),
       "f.json: traffic[0].users: expected an integer from 1 to 1000000"},
      {with("/limits/0/limit", 1'000'000'001),
       "f.json: limits[0].limit: expected an integer from 1 to 1000000000"},
      {with("/duration", "25h"),
       "f.json: duration: expected a duration from 1ms to 24h, got \"25h\""},
      {with("/limits/0/window", "25h"),
       "f.json: limits[0].window: expected a duration from 1ms to 24h"},
      {with("/limits/0/window", "1500us"),
       "f.json: limits[0].window: expected a whole number of milliseconds"},
      {with("/redis", {{"timeout", "61s"}}),
       "f.json: redis.timeout: expected a duration from 1us to 1m"},
      {with("/redis", {{"service_time", "2s"}}),
       "f.json: redis.service_time: expected a duration from 0us to 1s"},
      {with("/instances/clock", {{"offsets", {"-61m"}}}),
       "f.json: instances.clock.offsets[0]: expected a duration from -1h to 1h"},
      {with("/name", std::string(65, 'a')), "f.json: name: expected 1 to 64 characters"},
      {with("/name", "a/b"), "f.json: name: expected 1 to 64 characters from [A-Za-z0-9_.-]"},
      {with("/traffic/0/ips", 2), "f.json: traffic[0].ips: expected an integer from 1 to 1"},
  });
  CHECK(error_of(with("/name", std::string(64, 'a'))) == "(accepted)");
}

TEST_CASE("rates are bounded per group") {
  json fast = minimal();
  fast["traffic"][0]["rate"] = "10000000/s";
  fast["traffic"][0]["end"] = "10s";  // 1e8 offered requests: under the total bound
  CHECK(error_of(fast) == "(accepted)");
  fast["traffic"][0]["rate"] = "10000001/s";
  check_rejected({{fast, "f.json: traffic[0].rate: expected a rate of at most 10000000/s"}});
}

TEST_CASE("the offered requests of all groups together are bounded") {
  // 1000 users x 1000/s x 200 s = exactly 200,000,000: allowed.
  json at_bound = minimal();
  at_bound["duration"] = "200s";
  at_bound["traffic"][0]["users"] = 1000;
  at_bound["traffic"][0]["rate"] = "1000/s";
  CHECK(error_of(at_bound) == "(accepted)");

  json over = minimal();  // 1000 users x 3400/s x 60 s = 204M
  over["traffic"][0]["users"] = 1000;
  over["traffic"][0]["rate"] = "3400/s";
  json ramp = minimal();  // 1000 users x 60 s x (1 + 7000) / 2 per s = 210M
  ramp["traffic"][0]["users"] = 1000;
  ramp["traffic"][0]["rate"] = "1/s";
  ramp["traffic"][0]["ramp_to"] = "7000/s";
  json summed = minimal();  // two groups of 120M each
  summed["traffic"] = {{{"name", "a"}, {"users", 1000}, {"rate", "2000/s"}},
                       {{"name", "b"}, {"users", 1000}, {"rate", "2000/s"}}};
  check_rejected({
      {over, "f.json: traffic: expected at most 200000000 offered requests in all", "204000000"},
      {ramp, "f.json: traffic: expected at most 200000000 offered requests in all"},
      {summed, "f.json: traffic: expected at most 200000000 offered requests in all", "240000000"},
  });
  // A short span makes a high rate acceptable.
  json short_span = over;
  short_span["traffic"][0]["end"] = "30s";
  CHECK(error_of(short_span) == "(accepted)");
}

// ---------------------------------------------------------------------------------------------
// Ordering
// ---------------------------------------------------------------------------------------------

TEST_CASE("schedule times must increase strictly and stay within the duration") {
  check_rejected({
      {with("/instances/schedule",
            json::parse(R"([{"at": "30s", "count": 3}, {"at": "10s", "count": 4}])")),
       "f.json: instances.schedule[1].at: expected schedule times in strictly increasing order"},
      {with("/instances/schedule",
            json::parse(R"([{"at": "10s", "count": 3}, {"at": "10s", "count": 4}])")),
       "f.json: instances.schedule[1].at: expected schedule times in strictly increasing order"},
      {with("/instances/schedule", json::parse(R"([{"at": "1s", "count": 3}, {"at": "2s",
             "count": 4}, {"at": "1500ms", "count": 5}])")),
       "f.json: instances.schedule[2].at: expected schedule times in strictly increasing order"},
      {with("/instances/schedule", json::parse(R"([{"at": "61s", "count": 3}])")),
       "f.json: instances.schedule[0].at: expected a duration from 0us to 1m, got \"61s\""},
  });
  CHECK(error_of(with("/instances/schedule",
                      json::parse(R"([{"at": "0s", "count": 3}, {"at": "1m", "count": 4}])"))) ==
        "(accepted)");
}

TEST_CASE("a traffic group must end after it starts") {
  json before = minimal();
  before["traffic"][0]["start"] = "30s";
  before["traffic"][0]["end"] = "10s";
  json equal = minimal();
  equal["traffic"][0]["start"] = "30s";
  equal["traffic"][0]["end"] = "30s";
  json start_at_end = minimal();
  start_at_end["traffic"][0]["start"] = "1m";
  check_rejected({
      {before, "f.json: traffic[0].end: expected end to be after start"},
      {equal, "f.json: traffic[0].end: expected end to be after start"},
      {start_at_end, "f.json: traffic[0].end: expected end to be after start"},
      {with("/traffic/0/end", "2m"), "f.json: traffic[0].end: expected a duration from 0us to 1m"},
      {with("/traffic/0/start", "2m"),
       "f.json: traffic[0].start: expected a duration from 0us to 1m"},
  });
}

TEST_CASE("redis timing is checked") {
  check_rejected({
      {with("/redis", {{"rtt", {{"p50", "2ms"}, {"p99", "1ms"}}}}),
       "f.json: redis.rtt.p99: expected p99 >= p50"},
      {with("/redis", {{"rtt", {{"p50", "0us"}, {"p99", "1ms"}}}}),
       "f.json: redis.rtt.p50: expected p50 > 0 when p99 > p50"},
      // A number is neither of the two accepted forms; the message names both.
      {with("/redis", {{"rtt", 5}}),
       "f.json: redis.rtt: expected a duration string such as \"0.5ms\" or an object "
       "{\"p50\": \"0.5ms\", \"p99\": \"2ms\"}, got an integer"},
      {with("/redis", {{"rtt", json::array()}}), "f.json: redis.rtt: expected a duration string",
       "got an array"},
  });
}

// ---------------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------------

TEST_CASE("the file name given is the one in every message") {
  REQUIRE_THROWS_WITH(parse_scenario(with("/limits/0/limit", "x").dump(), "some/dir/s.json"),
                      StartsWith("some/dir/s.json: limits[0].limit: "));
  REQUIRE_THROWS_AS(parse_scenario(with("/colour", 1).dump(), "f.json"), ScenarioError);
  const Scenario s = parse(with("/strategies/1", "token_magic"));
  REQUIRE_THROWS_WITH(resolve_strategies(s, "other.json"),
                      StartsWith("other.json: strategies[1]: unknown strategy"));
}

TEST_CASE("a missing file is a clear error") {
  REQUIRE_THROWS_AS(load_scenario("/nonexistent/x.json"), ScenarioError);
  REQUIRE_THROWS_WITH(load_scenario("/nonexistent/x.json"),
                      "/nonexistent/x.json: cannot read the file: no such file");
}

TEST_CASE("only a regular file of at most 16 MiB is read, and a named pipe does not block") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("rlsim-test-scenario-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string fifo = (dir / "pipe.json").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // No writer ever opens the pipe: a blocking open would hang here.
  CHECK_THROWS_WITH(load_scenario(fifo),
                    fifo + ": cannot read the file: a named pipe (FIFO), not a regular file");
  CHECK_THROWS_WITH(load_scenario(dir.string()),
                    dir.string() + ": cannot read the file: a directory, not a regular file");
  CHECK_THROWS_WITH(load_scenario("/dev/zero"),
                    "/dev/zero: cannot read the file: a device, not a regular file");
  const std::string big = (dir / "big.json").string();
  std::ofstream(big) << std::string(kMaxScenarioFileBytes + 1, ' ');
  CHECK_THROWS_WITH(load_scenario(big), big + ": cannot read the file: larger than 16 MiB");
  std::ofstream(big, std::ios::trunc) << "// commented\n" << minimal().dump();
  CHECK(load_scenario(big).name == "t");
  std::filesystem::remove_all(dir);
}

TEST_CASE("names share one character set: no '.', '..' or hidden names, nothing outside it") {
  for (const std::string name : {"a", "overshoot-10x", "v1.2_final", "_x", "-x", "A.b.c"}) {
    INFO(name);
    CHECK(error_of(with("/name", name)) == "(accepted)");
  }
  const std::string rule = "expected 1 to 64 characters from [A-Za-z0-9_.-], not starting with '.'";
  check_rejected({
      {with("/name", ".."), "f.json: name: " + rule + ", got \"..\""},
      {with("/name", "."), "f.json: name: " + rule},
      {with("/name", ".hidden"), "f.json: name: " + rule},
      {with("/name", "../x"), "f.json: name: " + rule},
      {with("/name", std::string("a\0b", 3)), "f.json: name: " + rule, "got \"a\\x00b\""},
      {with("/name", std::string(65, 'a')), "f.json: name: " + rule},
      {with("/limits/0/name", ".."), "f.json: limits[0].name: " + rule},
      {with("/traffic/0/name", "a b"), "f.json: traffic[0].name: " + rule},
      {with("/strategies/1/label", ".."), "f.json: strategies[1].label: " + rule},
  });
}

TEST_CASE("region names follow the name rule, and a traffic group's region is one") {
  const auto regions = [](const json& list, const json& home) {
    json j = with("/instances/count", 2);
    j["regions"] = {
        {"list", list},
        {"rtt", json::array({json::array({"0ms", "9ms"}), json::array({"9ms", "0ms"})})}};
    if (!home.is_null()) j["regions"]["home"] = home;
    return j;
  };
  const json eu_us = {{{"name", "eu"}, {"instances", 1}}, {{"name", "us"}, {"instances", 1}}};
  CHECK(error_of(regions(eu_us, "us")) == "(accepted)");
  const std::string rule = "expected 1 to 64 characters from [A-Za-z0-9_.-], not starting with '.'";
  json nul = eu_us;
  nul[1]["name"] = std::string("u\0s", 3);
  json escape = eu_us;
  escape[0]["name"] = "\x1b[31meu";
  json empty = eu_us;
  empty[0]["name"] = "";
  json number = eu_us;
  number[0]["name"] = 7;
  json traffic_empty = regions(eu_us, nullptr);
  traffic_empty["traffic"][0]["region"] = "";
  json traffic_nul = regions(eu_us, nullptr);
  traffic_nul["traffic"][0]["region"] = std::string("eu\0", 3);
  check_rejected({
      {regions(nul, nullptr), "f.json: regions.list[1].name: " + rule, "got \"u\\x00s\""},
      {regions(escape, nullptr), "f.json: regions.list[0].name: " + rule, "got \"\\x1b[31meu\""},
      {regions(empty, nullptr), "f.json: regions.list[0].name: " + rule},
      {regions(number, nullptr),
       "f.json: regions.list[0].name: expected a name (1 to 64 characters"},
      {regions(eu_us, ".."), "f.json: regions.home: " + rule},
      {traffic_empty, "f.json: traffic[0].region: " + rule},
      {traffic_nul, "f.json: traffic[0].region: " + rule},
  });
}

TEST_CASE("control characters in any message are escaped: one line, no terminal sequences") {
  const std::string message = error_of(with("/limits/0/window", "1s\x1b]0;title\x07\n"));
  CHECK(message.find('\x1b') == std::string::npos);
  CHECK(message.find('\n') == std::string::npos);
  CHECK_THAT(message, Contains("got \"1s\\x1b]0;title\\x07\\x0a\""));
  // An 8-bit CSI (U+009B, two bytes in UTF-8) too; other UTF-8 is kept.
  CHECK_THAT(error_of(with("/name",
                           "\xc2\x9b"
                           "2J\xc3\xa9")),
             Contains("got \"\\xc2\\x9b2J\xc3\xa9\""));
}

TEST_CASE("a duration finer than a microsecond is rejected, as scenario-format.md says") {
  check_rejected({
      {with("/duration", "1.0000005s"), "f.json: duration: expected a duration such as"},
      {with("/limits/0/window", "2.5us"), "f.json: limits[0].window: expected a duration"},
      {with("/duration", ".5s"), "f.json: duration: expected a duration such as"},
      {with("/duration", "1.s"), "f.json: duration: expected a duration such as"},
  });
  CHECK(parse(with("/duration", "0.5s")).duration_us == 500'000);
  CHECK(parse(with("/duration", "1.000001s")).duration_us == 1'000'001);
}

TEST_CASE("the shipped scenarios load and resolve") {
  for (const char* name : {"overshoot-10x.json", "autoscale.json"}) {
    INFO(name);
    const std::string path = std::string(RLSIM_SOURCE_DIR) + "/scenarios/" + name;
    Scenario s;
    REQUIRE_NOTHROW(s = load_scenario(path));
    CHECK_NOTHROW(resolve_strategies(s, path));
  }
}

// ---------------------------------------------------------------------------------------------
// Duplicate keys
// ---------------------------------------------------------------------------------------------

TEST_CASE("a key repeated inside one object is rejected with its path") {
  // nlohmann's parser would keep the last value silently: a limit of 500 where 5 was meant first.
  const std::string head = R"({"name": "t", "duration": "1m", )";
  const std::string tail =
      R"("instances": {"count": 2}, "traffic": [{"name": "g", "rate": "10/s"}],
         "strategies": ["in_memory"]})";
  CHECK(error_of(head + R"("limits": [{"name": "l", "limit": 5, "limit": 500, "window": "1m"}], )" +
                 tail) ==
        "f.json: limits[0].limit: duplicate field (a JSON object must not "
        "repeat a key)");
  CHECK_THAT(error_of(head + R"("limits": [{"name": "a", "limit": 1, "window": "1m"},
                              {"name": "b", "limit": 1, "window": "1m", "window": "2m"}], )" +
                      tail),
             StartsWith("f.json: limits[1].window: duplicate field"));
  // At the top level, and inside nested objects and arrays of arrays.
  CHECK_THAT(error_of(std::string(R"({"name": "t", "name": "u"})")),
             StartsWith("f.json: name: duplicate field"));
  CHECK_THAT(error_of(head + R"("limits": [{"name": "l", "limit": 5, "window": "1m"}],
                      "instances": {"count": 2, "clock": {"spread": "1ms", "spread": "2ms"}},
                      "traffic": [{"name": "g", "rate": "10/s"}], "strategies": ["in_memory"]})"),
             StartsWith("f.json: instances.clock.spread: duplicate field"));
  CHECK_THAT(error_of(std::string(R"({"x": [[1, 2], [3, {"a": 1, "b": 2, "a": 3}]]})")),
             StartsWith("f.json: x[1][1].a: duplicate field"));
  // The same key in two different objects is fine.
  CHECK(error_of(head + R"("limits": [{"name": "a", "limit": 5, "window": "1m"},
                                      {"name": "b", "limit": 5, "window": "1m"}], )" +
                 tail) == "(accepted)");
}

// ---------------------------------------------------------------------------------------------
// expect
// ---------------------------------------------------------------------------------------------

namespace {

json with_expect(const json& expectations) {
  json j = minimal();
  j["expect"] = expectations;
  return j;
}

}  // namespace

TEST_CASE("expect entries parse: bounds, equality with tolerance and comparisons") {
  const Scenario s = parse(with_expect(json::parse(R"([
    {"strategy": "in_memory", "metric": "overshoot", "min": 9},
    {"strategy": "redis_fixed_window", "metric": "latency_us.p99", "max": 3000.5},
    {"strategy": "in_memory", "metric": "limits[0].excess", "min": 1, "max": 2,
     "description": "why"},
    {"strategy": "in_memory", "metric": "limits.per_user.excess", "equals": 0, "tolerance": 0.5},
    {"metric": "excess", "less": ["redis_fixed_window", "in_memory"]},
    {"metric": "series.windows[3].max_per_key", "less_or_equal": ["in_memory", "redis_fixed_window"]}
  ])")));
  REQUIRE(s.expectations.size() == 6);
  const auto& e = s.expectations;
  CHECK(e[0].kind == Expectation::Kind::kBound);
  CHECK(e[0].strategy == "in_memory");
  CHECK(e[0].metric == "overshoot");
  CHECK(e[0].min == 9.0);
  CHECK(!e[0].max);
  CHECK(!e[0].equals);
  CHECK(e[0].json_path == "expect[0]");
  CHECK(e[1].max == 3000.5);
  CHECK(e[2].min == 1.0);
  CHECK(e[2].max == 2.0);
  CHECK(e[2].description == "why");
  CHECK(e[3].equals == 0.0);
  CHECK(e[3].tolerance == 0.5);
  CHECK(e[4].kind == Expectation::Kind::kLess);
  CHECK(e[4].left == "redis_fixed_window");
  CHECK(e[4].right == "in_memory");
  CHECK(e[4].strategy.empty());
  CHECK(e[5].kind == Expectation::Kind::kLessOrEqual);
  CHECK(e[5].json_path == "expect[5]");
  // No expect list: none.
  CHECK(parse(minimal()).expectations.empty());
  CHECK(parse(with_expect(json::array())).expectations.empty());
}

TEST_CASE("bad expect entries are rejected with their path") {
  const auto bound = [](const char* extra) {
    return with_expect(json::array({json::parse(
        std::string(R"({"strategy": "in_memory", "metric": "overshoot")") + extra + "}")}));
  };
  check_rejected({
      {with_expect(json::object()), "f.json: expect: expected an array, got an object"},
      {with_expect(json::array({1})), "f.json: expect[0]: expected an object, got an integer"},
      {bound(""), "f.json: expect[0]: expected \"min\", \"max\" or \"equals\""},
      {bound(R"(, "max": "1")"), "f.json: expect[0].max: expected a number, got a string"},
      {bound(R"(, "max": 1, "maxx": 2)"), "f.json: expect[0].maxx: unknown field"},
      {bound(R"(, "min": 2, "max": 1)"), "f.json: expect[0].max: expected max >= min"},
      {bound(R"(, "equals": 1, "max": 1)"),
       "f.json: expect[0].equals: not allowed together with \"min\" or \"max\""},
      {bound(R"(, "max": 1, "tolerance": 1)"),
       "f.json: expect[0].tolerance: only allowed with \"equals\""},
      {bound(R"(, "equals": 1, "tolerance": -1)"),
       "f.json: expect[0].tolerance: expected a number >= 0, got -1"},
      {with_expect(json::parse(R"([{"metric": "overshoot", "max": 1}])")),
       "f.json: expect[0].strategy: required field is missing"},
      {with_expect(json::parse(R"([{"strategy": "in_memory", "max": 1}])")),
       "f.json: expect[0].metric: required field is missing"},
      {with_expect(json::parse(R"([{"strategy": "in_memory", "metric": 5, "max": 1}])")),
       "f.json: expect[0].metric: expected a string, got an integer"},
      {with_expect(json::parse(R"([{"strategy": "in_mem", "metric": "excess", "max": 1}])")),
       "f.json: expect[0].strategy: no strategy labelled \"in_mem\" in this scenario (it has: "
       "in_memory, redis_fixed_window)"},
      {with_expect(json::parse(R"([{"metric": "excess", "less": ["in_memory"]}])")),
       "f.json: expect[0].less: expected from 2 to 2 entries, got 1"},
      {with_expect(json::parse(R"([{"metric": "excess", "less": ["in_memory", 3]}])")),
       "f.json: expect[0].less[1]: expected a strategy label, got an integer"},
      {with_expect(json::parse(R"([{"metric": "excess", "less": ["in_memory", "x"]}])")),
       "f.json: expect[0].less[1]: no strategy labelled \"x\""},
      {with_expect(json::parse(R"([{"metric": "excess", "less": ["in_memory", "in_memory"]}])")),
       "f.json: expect[0].less: expected two different strategy labels"},
      {with_expect(json::parse(
           R"([{"metric": "excess", "less": ["in_memory", "redis_fixed_window"], "max": 1}])")),
       "f.json: expect[0].max: not allowed with \"less\" (it compares two strategies)"},
      {with_expect(json::parse(R"([{"metric": "excess", "strategy": "in_memory",
                                   "less_or_equal": ["in_memory", "redis_fixed_window"]}])")),
       "f.json: expect[0].strategy: not allowed with \"less_or_equal\""},
      {with_expect(json::parse(R"([{"metric": "excess", "less": ["in_memory", "redis_fixed_window"],
                                   "less_or_equal": ["in_memory", "redis_fixed_window"]}])")),
       "f.json: expect[0].less_or_equal: expected either \"less\" or \"less_or_equal\""},
  });
  // The index of the bad entry is named.
  json two = with_expect(json::parse(R"([{"strategy": "in_memory", "metric": "excess", "max": 1},
                                         {"strategy": "in_memory", "metric": "excess"}])"));
  CHECK_THAT(error_of(two), StartsWith("f.json: expect[1]: expected \"min\""));
}

TEST_CASE("malformed metric paths are rejected at load time") {
  for (const char* path : {"", ".", "a.", ".a", "a..b", "a[", "a[]", "a[x]", "a[1", "[0]", "a b",
                           "a/b", "a[-1]", "a[1234567]", "limits.per.user.excess!"}) {
    INFO('"' << path << '"');
    const json j =
        with_expect(json::array({{{"strategy", "in_memory"}, {"metric", path}, {"max", 1}}}));
    CHECK_THAT(error_of(j), StartsWith("f.json: expect[0].metric: expected a report field path"));
  }
  CHECK_THAT(error_of(with_expect(json::array(
                 {{{"strategy", "in_memory"}, {"metric", std::string(257, 'a')}, {"max", 1}}}))),
             StartsWith("f.json: expect[0].metric: expected a report field path"));
  for (const char* path : {"overshoot", "latency_us.p99", "limits[0].excess", "a[1][2].b-c_d",
                           "limits.per_user.excess", "strategy_metrics.claims"}) {
    INFO('"' << path << '"');
    CHECK(error_of(with_expect(json::array(
              {{{"strategy", "in_memory"}, {"metric", path}, {"max", 1}}}))) == "(accepted)");
  }
}

TEST_CASE("parse_metric_path splits names and indices") {
  const auto steps = parse_metric_path("limits[0][12].per_user.excess");
  REQUIRE(steps);
  REQUIRE(steps->size() == 5);
  CHECK((*steps)[0].name == "limits");
  CHECK(!(*steps)[0].is_index);
  CHECK((*steps)[1].is_index);
  CHECK((*steps)[1].index == 0);
  CHECK((*steps)[2].is_index);
  CHECK((*steps)[2].index == 12);
  CHECK((*steps)[3].name == "per_user");
  CHECK((*steps)[4].name == "excess");
  CHECK(!parse_metric_path("a..b"));
}

TEST_CASE("the bound of expect entries is enforced") {
  json many = json::array();
  for (int i = 0; i < ScenarioBounds::kMaxExpectations + 1; ++i)
    many.push_back({{"strategy", "in_memory"}, {"metric", "excess"}, {"max", i}});
  CHECK_THAT(error_of(with_expect(many)),
             StartsWith("f.json: expect: expected from 0 to 256 entries, got 257"));
}

// ---------------------------------------------------------------------------------------------
// traffic[].retry (world/retry.h)
// ---------------------------------------------------------------------------------------------

TEST_CASE("a retry object is read with its defaults and its values") {
  CHECK_FALSE(parse(minimal()).traffic[0].retry.has_value());
  const Scenario defaults = parse(with("/traffic/0/retry", {{"after", "1s"}}));
  REQUIRE(defaults.traffic[0].retry.has_value());
  CHECK(defaults.traffic[0].retry->after_us == kUsPerS);
  CHECK(defaults.traffic[0].retry->max == 3);
  CHECK(defaults.traffic[0].retry->backoff == 2.0);
  CHECK(defaults.traffic[0].retry->jitter == 0.0);
  const Scenario given = parse(
      with("/traffic/0/retry", {{"after", "250ms"}, {"max", 10}, {"backoff", 1}, {"jitter", 0.5}}));
  CHECK(given.traffic[0].retry->after_us == 250 * kUsPerMs);
  CHECK(given.traffic[0].retry->max == 10);
  CHECK(given.traffic[0].retry->backoff == 1.0);
  CHECK(given.traffic[0].retry->jitter == 0.5);
}

TEST_CASE("bad retry values are rejected with their paths") {
  const auto retry = [](const json& value) { return with("/traffic/0/retry", value); };
  check_rejected({
      {retry("1s"), "f.json: traffic[0].retry: expected an object, got a string"},
      {retry(json::object()), "f.json: traffic[0].retry.after: required field is missing"},
      {retry({{"after", "0.5ms"}}),
       "f.json: traffic[0].retry.after: expected a duration from 1ms to 1m, got \"0.5ms\""},
      {retry({{"after", "2m"}}),
       "f.json: traffic[0].retry.after: expected a duration from 1ms to 1m, got \"2m\""},
      {retry({{"after", "1s"}, {"max", 0}}),
       "f.json: traffic[0].retry.max: expected an integer from 1 to 10, got 0"},
      {retry({{"after", "1s"}, {"max", 11}}),
       "f.json: traffic[0].retry.max: expected an integer from 1 to 10, got 11"},
      {retry({{"after", "1s"}, {"backoff", 0.5}}),
       "f.json: traffic[0].retry.backoff: expected a number from 1 to 10, got 0.5"},
      {retry({{"after", "1s"}, {"backoff", "2"}}),
       "f.json: traffic[0].retry.backoff: expected a number, got a string"},
      {retry({{"after", "1s"}, {"jitter", 1}}),
       "f.json: traffic[0].retry.jitter: expected a number from 0 to below 1, got 1"},
      {retry({{"after", "1s"}, {"jitter", -0.1}}),
       "f.json: traffic[0].retry.jitter: expected a number from 0 to below 1, got -0.1"},
      {retry({{"after", "1s"}, {"tries", 2}}),
       "f.json: traffic[0].retry.tries: unknown field (expected one of: "},
  });
}

TEST_CASE("a group with retry counts 1 + max times toward the offered-request bound") {
  // 200/s for 1 h from 100 users is 72,000,000 requests: accepted alone, over the bound of
  // 200,000,000 with up to 2 retries each (216,000,000).
  json j = minimal();
  j["duration"] = "1h";
  j["traffic"][0]["users"] = 100;
  j["traffic"][0]["rate"] = "200/s";
  CHECK(error_of(j) == "(accepted)");
  j["traffic"][0]["retry"] = {{"after", "1s"}, {"max", 2}};
  CHECK_THAT(error_of(j), StartsWith("f.json: traffic: expected at most 200000000 offered "
                                     "requests in all, the groups offer about 216000000"));
}

}  // namespace rlsim_test_scenario
