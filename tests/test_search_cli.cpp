// `rlsim search` on the command line (app/cmd_search.cpp): its user errors are one line and exit
// 2, a search writes the shrunk scenario that `rlsim check` passes (the CTest search_check does it
// on the bundled search scenario), a goal nobody can meet exits 1.
#include <catch2/catch.hpp>

#include "cli_dir.h"

namespace rlsim_test_search_cli {

using Catch::Contains;
using rlsim::testing::CliDir;

namespace {

const char* const kScenario = R"({
  "name": "cli-search", "seed": 2, "duration": "2s",
  "limits": [{"name": "per_user", "key": "user", "limit": 5, "window": "1s"}],
  "instances": {"count": 3},
  "traffic": [{"name": "a", "users": 1, "rate": "20/s"}],
  "redis": {"rtt": {"p50": "0.5ms", "p99": "0.5ms"}},
  "strategies": ["in_memory", "redis_fixed_window"]
})";

}  // namespace

TEST_CASE("search's user errors exit 2 with one line") {
  const CliDir dir("search-errors", kScenario);
  CHECK(dir.rlsim("search s.json --strategy in_memory") == 2);
  CHECK_THAT(dir.err(), Contains("one of --maximize METRIC and --minimize METRIC"));
  CHECK(dir.rlsim("search s.json --strategy in_memory --maximize overshoot --budget soon") == 2);
  CHECK_THAT(dir.err(), Contains("--budget soon"));
  CHECK(dir.rlsim("search s.json --strategy nope --maximize overshoot") == 2);
  CHECK_THAT(dir.err(), Contains("no strategy with this label"));
  CHECK(dir.rlsim("search s.json --strategy in_memory --maximize no.such") == 2);
  CHECK_THAT(dir.err(), Contains("no.such"));
  CHECK(dir.rlsim("search s.json --strategy in_memory --goal 'overshoot<=1'") == 2);
  CHECK_THAT(dir.err(), Contains("--over"));
}

TEST_CASE("a search writes a scenario check passes; an unreachable goal exits 1") {
  const CliDir dir("search-run", kScenario);
  REQUIRE(dir.rlsim(
              "search s.json --strategy in_memory --maximize overshoot --budget 50 --out f") == 0);
  CHECK_THAT(dir.out(), Contains("in_memory overshoot: max 3"));
  CHECK_THAT(dir.out(), Contains("found/bound 1.000"));
  CHECK(dir.rlsim("check f/scenario.json") == 0);
  CHECK(dir.rlsim("search s.json --strategy in_memory --goal 'overshoot<=0.5' "
                  "--over 'limits[0].limit=5..6' --budget 20 --out g") == 1);
  CHECK_THAT(dir.out(), Contains("not met"));
}

}  // namespace rlsim_test_search_cli
