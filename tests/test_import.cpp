// import/import.cpp: the dispatcher: formats detected from content, one product per import, and
// the messages for a format that cannot be told or is unknown.
#include <catch2/catch.hpp>

#include "import_util.h"

namespace rlsim_test_import {

using namespace rlsim;
using namespace rlsim::testing;

TEST_CASE("import: each bundled configuration's format is detected from its content") {
  const std::string dir = RLSIM_SOURCE_DIR "/scenarios/import/";
  CHECK(detect_format(read_config_file(dir + "kong.yml")) == "kong");
  CHECK(detect_format(read_config_file(dir + "envoy-ratelimit.yaml")) == "envoy_ratelimit");
  CHECK(detect_format(read_config_file(dir + "envoy-local.yaml")) == "envoy_local");
  CHECK(detect_format(read_config_file(dir + "limitador-limits.yaml")) == "limitador");
  CHECK(detect_format(parse_config_text("{\"_format_version\": \"3.0\"}", "kong.json")) == "kong");
  CHECK(detect_format(parse_config_text("a: 1\n", "x.yml")).empty());
}

TEST_CASE("import: one product at a time, a format given or told from the content") {
  const std::string dir = RLSIM_SOURCE_DIR "/scenarios/import/";
  CHECK_THROWS_WITH(import_files({read_config_file(dir + "kong.yml"),
                                  read_config_file(dir + "limitador-limits.yaml")},
                                 "", {}),
                    Catch::EndsWith("limitador-limits.yaml: a limitador configuration, while " +
                                    dir + "kong.yml is kong: import one product at a time"));
  CHECK_THROWS_WITH(import_text("a: 1\n", "x.yml"),
                    "x.yml: cannot tell the configuration's format; give --format (kong, "
                    "envoy_ratelimit, envoy_local, limitador, nginx, haproxy)");
  CHECK_THROWS_WITH(import_text("a: 1\n", "x.yml", "traefik"),
                    "--format: unknown format \"traefik\" (expected one of: kong, envoy_ratelimit, "
                    "envoy_local, limitador, nginx, haproxy)");
  CHECK_THROWS_WITH(import_text("_format_version: \"3.0\"\n", "k.yml", "", {{"X", "1"}}),
                    "--setting X: the kong format takes no settings");
  // Two files of one product: envoyproxy/ratelimit loads every file of its config folder.
  const Imported two = import_files(
      {parse_config_text("domain: d\ndescriptors:\n  - key: user_id\n    rate_limit: {unit: "
                         "minute, requests_per_unit: 10}\n",
                         "a.yaml"),
       parse_config_text("domain: d\ndescriptors:\n  - key: remote_address\n    rate_limit: "
                         "{unit: second, requests_per_unit: 5}\n",
                         "b.yaml")},
      "", {});
  REQUIRE(two.limits.size() == 2);
  CHECK(two.files == std::vector<std::string>{"a.yaml", "b.yaml"});
}

}  // namespace rlsim_test_import
