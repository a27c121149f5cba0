// search/dimension.h: --vary's syntax (numbers, integers, durations that may be negative, choices),
// the roles of instances.count and faults[K].at, the messages of a bad dimension, and reading a
// dimension's value from a scenario document.
#include <catch2/catch.hpp>

#include "scenario/error.h"
#include "search/dimension.h"

namespace rlsim_test_search_dimension {

using namespace rlsim;
using Catch::Contains;
using nlohmann::ordered_json;

TEST_CASE("a numeric dimension: integers, numbers, durations (negative ones too)") {
  const SearchDimension count = parse_dimension("--vary", "instances.count=2..20");
  CHECK(count.role == SearchDimension::Role::kInstances);
  CHECK(count.range.kind == GoalRange::Kind::kInteger);
  CHECK(count.where == "--vary instances.count=2..20");
  const SearchDimension offset =
      parse_dimension("--vary", "instances.clock.offsets[0]=-50ms..50ms");
  CHECK(offset.role == SearchDimension::Role::kField);
  CHECK(offset.range.lo == -50'000);
  CHECK(offset.range.hi == 50'000);
  CHECK(dimension_value_text(offset, -20'000) == "-20ms");
  const SearchDimension at = parse_dimension("search.vary", "faults[1].at=10s..50s");
  CHECK(at.role == SearchDimension::Role::kFaultStart);
  CHECK(at.fault == 1);
  CHECK(dimension_extremes(at) == std::vector<double>{10e6, 50e6});
  const SearchDimension rate = parse_dimension("--vary", "strategies[0].sync_rate=0.5..2");
  CHECK(rate.range.kind == GoalRange::Kind::kNumber);
}

TEST_CASE("an enumerated dimension: each choice a string, a number or a boolean") {
  const SearchDimension policy =
      parse_dimension("--vary", "load_balancer.policy=round_robin|random|least_inflight");
  REQUIRE(policy.choices.size() == 3);
  CHECK(routes_requests(policy));
  CHECK(dimension_value(policy, 1) == "random");
  CHECK(dimension_extremes(policy) == std::vector<double>{0, 1, 2});
  const SearchDimension batch = parse_dimension("--vary", "strategies[1].batch=5|10|20");
  CHECK(batch.choices[2] == 20);
  CHECK_FALSE(routes_requests(batch));
}

TEST_CASE("a bad dimension is one clear message naming where it came from") {
  CHECK_THROWS_WITH(parse_dimension("--vary", "instances.count=20..2"),
                    Contains("--vary instances.count=20..2: LO must be below HI"));
  CHECK_THROWS_WITH(parse_dimension("--vary", "faults[0].at=10s..50"),
                    Contains("LO and HI must both be numbers or both durations"));
  CHECK_THROWS_WITH(parse_dimension("--vary", "instances.count=1s..5s"),
                    Contains("instances.count takes integers"));
  CHECK_THROWS_WITH(parse_dimension("--vary", "faults[0].at=1..5"),
                    Contains("a fault's start takes durations"));
  CHECK_THROWS_WITH(parse_dimension("search.vary", "load_balancer.policy=random|"),
                    Contains("search.vary load_balancer.policy=random|: an empty choice"));
  CHECK_THROWS_WITH(parse_dimension("--vary", "a.b=x|x"), Contains("\"x\" is given twice"));
  CHECK_THROWS_WITH(parse_dimension("--vary", "faults[x].at=1s..2s"), Contains("not a path"));
  CHECK_THROWS_WITH(parse_dimension("--vary", "instances.count"), Contains("expected PATH=LO..HI"));
}

TEST_CASE("a dimension's value in a scenario document") {
  const auto document = ordered_json::parse(R"({"instances": {"count": 4},
      "load_balancer": {"policy": "random"}, "faults": [{"at": "3s"}],
      "strategies": [{"name": "kong", "sync_rate": "500ms"}]})");
  CHECK(document_value(parse_dimension("--vary", "instances.count=2..20"), document) == 4);
  CHECK(document_value(parse_dimension("--vary", "instances.count=5..20"), document) ==
        std::nullopt);  // outside the range
  CHECK(document_value(parse_dimension("--vary", "load_balancer.policy=round_robin|random"),
                       document) == 1);
  CHECK(document_value(parse_dimension("--vary", "strategies[0].sync_rate=20ms..1s"), document) ==
        500'000);
  CHECK(document_value(parse_dimension("--vary", "redis.timeout=1ms..1s"), document) ==
        std::nullopt);  // absent
}

}  // namespace rlsim_test_search_dimension
