#include <catch2/catch.hpp>
#include <vector>

#include "core/simulator.h"

namespace rlsim_test_simulator {

using namespace rlsim;

namespace {
struct Recorder final : EventTarget {
  Simulator* sim = nullptr;
  std::vector<std::pair<TimeUs, std::uint64_t>> fired;
  void on_event(std::uint64_t arg) override { fired.emplace_back(sim->now(), arg); }
};
}  // namespace

TEST_CASE("events fire in time order, ties in scheduling order") {
  Simulator sim;
  Recorder recorder;
  recorder.sim = &sim;
  sim.schedule(30, &recorder, 1);
  sim.schedule(10, &recorder, 2);
  sim.schedule(30, &recorder, 3);
  sim.schedule(10, &recorder, 4);
  sim.schedule(20, &recorder, 5);
  CHECK(sim.run_until(100) == 5);
  const std::vector<std::pair<TimeUs, std::uint64_t>> expected{
      {10, 2}, {10, 4}, {20, 5}, {30, 1}, {30, 3}};
  CHECK(recorder.fired == expected);
  CHECK(sim.now() == 100);
}

TEST_CASE("run_until stops before later events and keeps them") {
  Simulator sim;
  Recorder recorder;
  recorder.sim = &sim;
  sim.schedule(5, &recorder, 1);
  sim.schedule(50, &recorder, 2);
  CHECK(sim.run_until(10) == 1);
  CHECK(sim.pending() == 1);
  CHECK(sim.run_until(50) == 1);
  CHECK(recorder.fired.back() == std::make_pair(TimeUs{50}, std::uint64_t{2}));
}

TEST_CASE("many random events come out sorted") {
  Simulator sim;
  Recorder recorder;
  recorder.sim = &sim;
  std::uint64_t x = 12345;
  for (int i = 0; i < 5000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    sim.schedule(static_cast<TimeUs>(x >> 44), &recorder, static_cast<std::uint64_t>(i));
  }
  sim.run_until(1LL << 40);
  REQUIRE(recorder.fired.size() == 5000);
  for (std::size_t i = 1; i < recorder.fired.size(); ++i) {
    REQUIRE(recorder.fired[i - 1].first <= recorder.fired[i].first);
    if (recorder.fired[i - 1].first == recorder.fired[i].first)
      REQUIRE(recorder.fired[i - 1].second < recorder.fired[i].second);
  }
}

}  // namespace rlsim_test_simulator
