// import/nginx.cpp: nginx limit_req configurations in the shape of nginx's documentation
// (ngx_http_limit_req_module: limit_req_zone in http, limit_req in a location), imported into
// nginx_limit_req scenarios whose N instances admit N x the zone's rate.
#include <catch2/catch.hpp>

#include "import_util.h"
#include "scenario/error.h"

namespace rlsim_test_import_nginx {

using namespace rlsim;
using namespace rlsim::testing;

TEST_CASE("nginx import: the documented zone and limit_req, one zone per nginx instance") {
  const Imported imported =
      import_files({read_config_file(RLSIM_SOURCE_DIR "/scenarios/import/nginx.conf")}, "", {});
  CHECK(imported.format == "nginx");
  CHECK(imported.strategy == "nginx_limit_req");
  REQUIRE(imported.limits.size() == 1);
  CHECK(imported.limits[0].name == "one");
  CHECK(imported.limits[0].key == "ip");
  CHECK(imported.limits[0].limit == 1);
  CHECK(imported.limits[0].window_us == kUsPerS);
  CHECK(imported_param(imported, "burst") == 5);
  CHECK(imported_param(imported, "nodelay") == true);
  // limit_req_status is not modelled; the location's scope cannot be: both reported.
  CHECK(warnings_with(imported, "limit_req_status: not modelled") == 1);
  CHECK(warnings_with(imported, "applies to location /search/ only") == 1);
  // Two nginx, one address sending 10/s: each nginx admits its first burst + 1 at once, then
  // 1/s; the two together about 2/s per address after that (nginx's N x).
  const RunResult result = run_text(
      imported_scenario(imported, {{"instances", {{"count", 2}}},
                                   {"traffic", {{{"name", "c"}, {"users", 1}, {"rate", "10/s"}}}},
                                   {"duration", "20s"}}));
  const std::int64_t allowed = result.strategies[0].totals.allowed;
  CHECK(allowed >= 2 * (5 + 1) + 2 * 18);
  CHECK(allowed <= 2 * (5 + 1) + 2 * 20 + 2);
}

TEST_CASE("nginx import: rates per minute, several zones, and what nginx refuses") {
  const Imported imported = import_text(R"(http {
  limit_req_zone $http_x_api_key zone=per_key:10m rate=30r/m;
  limit_req_zone $server_name zone=per_server:10m rate=100r/s;
  limit_req_zone $geo zone=odd:1m rate=1r/s;
  server {
    limit_req zone=per_key burst=10 delay=4;
    limit_req zone=per_server burst=20;
  }
})",
                                        "site.conf");
  REQUIRE(imported.limits.size() == 2);
  CHECK(imported.limits[0].key == "user");
  CHECK(imported.limits[0].limit == 30);
  CHECK(imported.limits[0].window_us == kUsPerMin);
  CHECK(imported.limits[1].key == "global");
  CHECK(imported_param(imported, "delay") == 4);
  CHECK(warnings_with(imported, "key $geo: says no client address") == 1);
  CHECK(warnings_with(imported, "burst, nodelay and delay differ") == 1);
  CHECK_NOTHROW(imported_scenario(imported));
  for (const char* bad : {"http { limit_req_zone $a zone=z:1m rate=5r/h; limit_req zone=z; }",
                          "http { limit_req zone=missing; }", "http { limit_req_zone $a; }",
                          "http { limit_req_zone $a zone=z:1m rate=1r/s; limit_req zone=z bogus; }",
                          "http { limit_req_zone $a zone=z:1m rate=1r/s; limit_req zone=z;"}) {
    INFO(bad);
    CHECK_THROWS_AS(import_text(bad, "bad.conf", "nginx"), ScenarioError);
  }
}

}  // namespace rlsim_test_import_nginx
