#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "real/backend.h"

// The tests' runs reach a real Redis as the command line's do (engine/store_source.h).
int main(int argc, char* argv[]) {
  rlsim::install_real_backend();
  // The tests build their scenarios in code: their redis.url is the test's own command line.
  rlsim::allow_scenario_redis(true);
  return Catch::Session().run(argc, argv);
}
