#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "real/backend.h"

// The tests' runs reach a real Redis as the command line's do (engine/store_source.h).
int main(int argc, char* argv[]) {
  rlsim::install_real_backend();
  return Catch::Session().run(argc, argv);
}
