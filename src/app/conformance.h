#pragma once
// `rlsim conformance --redis URL`: proves that the embedded Redis behaves like a real one
// (docs/real-redis.md). First a corpus of commands and scripts, error cases included, runs on both
// at the same virtual times and the replies are compared one by one; then every given scenario
// runs on both backends and each strategy's decision digest must be identical.
#include <cstdint>
#include <string>
#include <vector>

#include "core/time.h"
#include "redis/reply.h"

namespace rlsim {

struct ConformanceOptions {
  std::string redis_url;
  std::string redis_cluster;  // or a Redis Cluster's nodes, "host:port[,...]"
  std::vector<std::string> scenario_paths;
  DurationUs max_duration_us = 0;  // 0: whole scenarios; else each is cut to this long
  bool verbose = false;            // print every corpus reply, not only differences
};

// One corpus step: `command` at virtual time kEpochUnixUs + at_ms.
struct ConformanceStep {
  std::int64_t at_ms = 0;
  Command command;
};

// The corpus (steps in time order), for the command and for tests.
const std::vector<ConformanceStep>& conformance_corpus();

// `reply` to `command` as the corpus compares it: SMEMBERS, HKEYS and HVALS sorted (Redis's order
// follows the encoding, the embedded Redis sorts), anything else as it is.
Reply canonical_reply(const Command& command, Reply reply);

// Exit codes: 0 no difference, 1 a difference, 5 the server cannot be reached, 2 bad input.
int command_conformance(const ConformanceOptions& options);

}  // namespace rlsim
