#pragma once
// Where the real-Redis tests find their servers. The test command (tests/run-all.sh) starts a
// redis-server and a 3-master cluster, exports RLSIM_REDIS_PORT and RLSIM_REDIS_CLUSTER, and sets
// RLSIM_REQUIRE_REAL_REDIS=1: there a missing server fails the test, so the suite cannot pass
// without having run these tests. Without RLSIM_REQUIRE_REAL_REDIS (a contributor's ctest with no
// Redis at hand) a missing server skips the test with a warning.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

namespace rlsim::testing {

// The value of the environment variable `name`; "" when it is unset or empty, after a WARN that
// the test is skipped, or a FAIL when RLSIM_REQUIRE_REAL_REDIS=1.
inline std::string real_redis_env(const char* name) {
  const char* value = std::getenv(name);
  if (value != nullptr && *value != '\0') return value;
  const char* required = std::getenv("RLSIM_REQUIRE_REAL_REDIS");
  if (required != nullptr && std::string(required) == "1") {
    FAIL(name << " is not set, and RLSIM_REQUIRE_REAL_REDIS=1 requires the real-Redis tests to "
                 "run: start the servers as tests/run-all.sh does");
  }
  WARN(name << " is not set: skipped (tests/run-all.sh starts the servers and sets it)");
  return "";
}

// The port of the test command's redis-server (RLSIM_REDIS_PORT), or 0 when the test is skipped.
// A value that is no port fails the test.
inline int real_redis_port() {
  const std::string text = real_redis_env("RLSIM_REDIS_PORT");
  if (text.empty()) return 0;
  const int port = std::atoi(text.c_str());
  if (port <= 0 || port > 65535 || std::to_string(port) != text)
    FAIL("RLSIM_REDIS_PORT=" << text << " is not a port number");
  return port;
}

// The seed list of the test command's cluster (RLSIM_REDIS_CLUSTER, "127.0.0.1:7101,..."), or ""
// when the test is skipped.
inline std::string real_cluster_seeds() { return real_redis_env("RLSIM_REDIS_CLUSTER"); }

}  // namespace rlsim::testing
