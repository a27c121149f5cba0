// import/haproxy.cpp: HAProxy stick-table rate limits in the shape of HAProxy's documentation (a
// table storing http_req_rate, a track-sc rule, a deny above a threshold, a peers section),
// imported into haproxy_stick_table scenarios.
#include <catch2/catch.hpp>

#include "import_util.h"
#include "scenario/error.h"

namespace rlsim_test_import_haproxy {

using namespace rlsim;
using namespace rlsim::testing;

TEST_CASE("haproxy import: the documented table, track and deny rule, with peers") {
  const Imported imported =
      import_files({read_config_file(RLSIM_SOURCE_DIR "/scenarios/import/haproxy.cfg")}, "", {});
  CHECK(imported.format == "haproxy");
  CHECK(imported.strategy == "haproxy_stick_table");
  REQUIRE(imported.limits.size() == 1);
  CHECK(imported.limits[0].key == "ip");
  CHECK(imported.limits[0].limit == 20);
  CHECK(imported.limits[0].window_us == 10 * kUsPerS);
  CHECK(imported_param(imported, "peers") == true);
  CHECK(imported.warnings.empty());
  // One instance, one address at 10/s for a minute: the sliding-period rate denies above 20 per
  // 10 s, and denied requests count too, so far fewer than 10/s get through.
  const RunResult result = run_text(imported_scenario(
      imported, {{"instances", {{"count", 1}}},
                 {"traffic", {{{"name", "c"}, {"users", 1}, {"rate", "10/s"}}}}}));
  CHECK(result.strategies[0].totals.allowed >= 20);
  CHECK(result.strategies[0].totals.allowed <= 6 * 21);
}

TEST_CASE("haproxy import: ge thresholds, header keys, no peers, and incomplete rules") {
  const Imported imported = import_text(R"(frontend api
    stick-table type string len 64 size 1m expire 1m store http_req_rate(1m)
    http-request track-sc1 req.hdr(X-API-Key)
    http-request deny deny_status 429 if { sc1_http_req_rate ge 100 }
)",
                                        "api.cfg");
  REQUIRE(imported.limits.size() == 1);
  CHECK(imported.limits[0].key == "user");
  CHECK(imported.limits[0].limit == 99);
  CHECK(imported.limits[0].window_us == kUsPerMin);
  CHECK(imported_param(imported, "peers") == false);
  CHECK_NOTHROW(imported_scenario(imported));
  for (const char* bad : {"frontend f\n  stick-table type ip size 1k store gpc0\n"
                          "  http-request track-sc0 src\n",
                          "frontend f\n  stick-table type ip size 1k store http_req_rate(10s)\n"
                          "  http-request track-sc0 src\n",
                          "frontend f\n  stick-table type ip store http_req_rate(10x)\n"
                          "  http-request deny if { sc_http_req_rate(0) gt 5 }\n"}) {
    INFO(bad);
    CHECK_THROWS_AS(import_text(bad, "bad.cfg", "haproxy"), ScenarioError);
  }
}

}  // namespace rlsim_test_import_haproxy
