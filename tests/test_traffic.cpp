#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>

#include "scenario/load.h"
#include "world/traffic.h"

namespace rlsim_test_traffic {

using namespace rlsim;

namespace {

struct Collector final : RequestSink {
  std::vector<Request> requests;
  void on_request(const Request& r) override { requests.push_back(r); }
};

std::vector<Request> generate(const std::string& group_json, const std::string& duration = "10s",
                              std::uint64_t seed = 1) {
  const Scenario s = parse_scenario(fmt::format(R"({{"name": "t", "seed": {}, "duration": "{}",
      "limits": [{{"name": "l", "key": "user", "limit": 1, "window": "1s"}}], "instances": {{"count": 1}},
      "traffic": [{}], "strategies": ["in_memory"]}})",
                                                seed, duration, group_json),
                                    "t.json");
  Simulator sim;
  Catalog catalog(s);
  Collector sink;
  TrafficSource source(sim, s.traffic[0], 0, catalog, s.seed, sink);
  source.start();
  sim.run_until(s.duration_us);
  return sink.requests;
}

}  // namespace

TEST_CASE("constant arrivals are evenly spaced and users take turns") {
  const auto requests =
      generate(R"({"name": "g", "users": 2, "rate": "5/s", "arrival": "constant"})");
  REQUIRE(requests.size() == 100);
  CHECK(requests[1].arrival_us - requests[0].arrival_us == 100'000);
  CHECK(requests[0].user == 0);
  CHECK(requests[1].user == 1);
  CHECK(requests[2].user == 0);
}

TEST_CASE("poisson arrivals match the rate and are reproducible") {
  const auto a = generate(R"({"name": "g", "users": 10, "rate": "100/s"})", "100s");
  // Expect 100000 requests; 5 standard deviations is about 1600.
  CHECK(std::abs(static_cast<double>(a.size()) - 100000.0) < 1600.0);
  const auto b = generate(R"({"name": "g", "users": 10, "rate": "100/s"})", "100s");
  REQUIRE(a.size() == b.size());
  CHECK(a.back().arrival_us == b.back().arrival_us);
  const auto c = generate(R"({"name": "g", "users": 10, "rate": "100/s"})", "100s", 2);
  CHECK(c.back().arrival_us != a.back().arrival_us);
}

TEST_CASE("a ramp moves the rate from rate to ramp_to") {
  const auto requests = generate(
      R"({"name": "g", "rate": "100/s", "ramp_to": "300/s", "arrival": "poisson"})", "100s");
  std::size_t first_half = 0;
  for (const auto& r : requests) first_half += r.arrival_us < 50 * kUsPerS;
  // Expected 7500 in the first half (100 -> 200/s) and 12500 in the second.
  CHECK(std::abs(static_cast<double>(first_half) - 7500.0) < 450.0);
  CHECK(std::abs(static_cast<double>(requests.size() - first_half) - 12500.0) < 560.0);
}

TEST_CASE("bursts arrive together from one user") {
  const auto requests =
      generate(R"({"name": "g", "users": 3, "rate": "50/s", "arrival": "burst", "burst_size": 5})");
  REQUIRE(requests.size() % 5 == 0);
  REQUIRE(requests.size() > 100);
  for (std::size_t i = 0; i < requests.size(); i += 5) {
    for (std::size_t j = 1; j < 5; ++j) {
      CHECK(requests[i + j].arrival_us == requests[i].arrival_us);
      CHECK(requests[i + j].user == requests[i].user);
    }
  }
}

TEST_CASE("start, end, IPs and endpoints are honoured") {
  const auto requests =
      generate(R"({"name": "g", "users": 4, "ips": 2, "rate": "10/s", "start": "2s", "end": "4s",
                                     "endpoints": ["/a", "/b"]})");
  REQUIRE_FALSE(requests.empty());
  bool saw[2] = {false, false};
  for (const auto& r : requests) {
    CHECK(r.arrival_us >= 2 * kUsPerS);
    CHECK(r.arrival_us < 4 * kUsPerS);
    CHECK(r.ip == r.user % 2);
    REQUIRE(r.endpoint < 2);
    saw[r.endpoint] = true;
  }
  CHECK(saw[0]);
  CHECK(saw[1]);
}

}  // namespace rlsim_test_traffic
