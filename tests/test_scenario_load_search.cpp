// scenario/load_search.h: the scenario's `search` block is read as PATH=SPEC texts for the search,
// and a block of the wrong shape fails with its path.
#include <catch2/catch.hpp>

#include "scenario/error.h"
#include "scenario/load.h"

namespace rlsim_test_scenario_load_search {

using namespace rlsim;
using Catch::Contains;

namespace {

std::string with_search(const std::string& block) {
  return R"({"name": "s", "duration": "1s",
    "limits": [{"name": "l", "key": "user", "limit": 5, "window": "1s"}],
    "instances": {"count": 2}, "traffic": [{"name": "a", "users": 1, "rate": "5/s"}],
    "strategies": ["in_memory"], "search": )" +
         block + "}";
}

}  // namespace

TEST_CASE("the search block: vary's fields as PATH=SPEC, and paced") {
  const Scenario s = parse_scenario(
      with_search(R"({"vary": {"instances.count": "2..8", "load_balancer.policy": "random|sticky"},
                      "paced": true})"),
      "s.json");
  CHECK(s.search.paced);
  // nlohmann::json keeps an object's fields sorted by name.
  CHECK(s.search.vary ==
        std::vector<std::string>{"instances.count=2..8", "load_balancer.policy=random|sticky"});
  CHECK(parse_scenario(with_search("{}"), "s.json").search.vary.empty());
}

TEST_CASE("a search block of the wrong shape fails with its path") {
  CHECK_THROWS_WITH(parse_scenario(with_search(R"({"vary": ["a=1..2"]})"), "s.json"),
                    Contains("search.vary: expected an object"));
  CHECK_THROWS_WITH(parse_scenario(with_search(R"({"vary": {"instances.count": 5}})"), "s.json"),
                    Contains("search.vary.instances.count: expected \"LO..HI\""));
  CHECK_THROWS_WITH(parse_scenario(with_search(R"({"budget": 5})"), "s.json"),
                    Contains("search.budget: unknown field"));
  CHECK_THROWS_WITH(parse_scenario(with_search(R"({"paced": "yes"})"), "s.json"),
                    Contains("search.paced: expected true or false"));
}

}  // namespace rlsim_test_scenario_load_search
