// import/limitador.cpp: Limitador limits files in the shape of limitador-server/examples/
// limits.yaml, imported into limitador_cached scenarios; conditions, other namespaces and
// variables of another key kind are reported.
#include <catch2/catch.hpp>

#include "import_util.h"

namespace rlsim_test_import_limitador {

using namespace rlsim;
using namespace rlsim::testing;

TEST_CASE("limitador import: per-user limits, a condition reported, the cache flags") {
  const Imported imported =
      import_files({read_config_file(RLSIM_SOURCE_DIR "/scenarios/import/limitador-limits.yaml")},
                   "", {{"flush-period", "500"}, {"batch-size", "10"}});
  CHECK(imported.format == "limitador");
  CHECK(imported.strategy == "limitador_cached");
  REQUIRE(imported.limits.size() == 2);
  CHECK(imported.limits[0].name == "per_user");
  CHECK(imported.limits[0].key == "user");
  CHECK(imported.limits[0].limit == 50);
  CHECK(imported.limits[0].window_us == 10 * kUsPerS);
  CHECK(imported.limits[1].limit == 5);
  CHECK(imported.limits[1].window_us == kUsPerMin);
  CHECK(imported_param(imported, "flush_period") == "500ms");
  CHECK(imported_param(imported, "batch_size") == 10);
  REQUIRE(imported.warnings.size() == 1);
  CHECK_THAT(imported.warnings[0],
             Catch::Contains("condition `descriptors[0]['req.method'] == 'POST'` not modelled"));
  // One instance: its cache sees every admission, so each of its windows (started by a
  // counter's first hit, 60 s long) admits at most 5 per user: in the 3 minutes of the default
  // traffic at most 3 windows, 15 per user. The oracle's aligned minutes can straddle two of them.
  const RunResult result = run_text(imported_scenario(imported, {{"instances", {{"count", 1}}}}));
  CHECK(result.strategies[0].totals.allowed <= 10 * 15);
  CHECK(result.strategies[0].totals.limits[1].max_in_window <= 2 * 5);
  CHECK(result.strategies[0].totals.denied > 0);
}

TEST_CASE("limitador import: namespaces, variables and fields the model cannot take") {
  const Imported imported = import_text(R"(- namespace: ns1
  max_value: 100
  seconds: 60
  variables: ["descriptors[0]['x-forwarded-for']", "descriptors[0].user_id"]
- namespace: ns2
  max_value: 5
  seconds: 1
- namespace: ns1
  max_value: 1000
  seconds: 3600
  variables: []
- namespace: ns1
  max_value: 10
  seconds: 172800
  when: []
)",
                                        "limits.yaml");
  REQUIRE(imported.limits.size() == 2);
  CHECK(imported.limits[0].key == "ip");
  CHECK(imported.limits[1].key == "global");
  CHECK(imported.limits[1].name == "limit_2");
  CHECK(imported.warnings.size() == 4);
  CHECK(warnings_with(imported, "variable descriptors[0].user_id (user) not part of the key") == 1);
  CHECK(warnings_with(imported, "5 per 1s in namespace ns2: not imported") == 1);
  CHECK(warnings_with(imported, "when: not modelled") == 1);
  CHECK(warnings_with(imported, "10 per 172800s in namespace ns1: not imported") == 1);
  CHECK_THROWS_WITH(import_text("- namespace: a\n  seconds: 1\n", "limits.yaml", "limitador"),
                    "limits.yaml:1:3: a limit needs namespace, max_value and seconds");
  CHECK_THROWS_WITH(import_text("- {namespace: a, max_value: 1, seconds: 1}\n", "limits.yaml", "",
                                {{"flush-period", "soon"}}),
                    "--setting flush-period: expected an integer from 1 to 3600000, got \"soon\"");
}

}  // namespace rlsim_test_import_limitador
