#pragma once
// `rlsim bench`: simulated requests per wall-clock second and peak memory, per strategy. It reads
// the wall clock, but only around whole simulation runs, never inside one.
#include <cstdint>
#include <string>
#include <vector>

namespace rlsim {

struct BenchOptions {
  std::int64_t requests = 1'000'000;
  std::vector<std::string> strategies;
  bool scale = false;  // 10,000 instances and 1M users instead of 10 and 1000
  // --print-scenario: print the scenario each named strategy's measured run simulates, one JSON
  // document per line, instead of measuring (so another build of the engine, the page's, can be
  // timed on the same workload: tests/web/bench.js).
  bool print_scenario = false;
};

int command_bench(const BenchOptions& options);

}  // namespace rlsim
