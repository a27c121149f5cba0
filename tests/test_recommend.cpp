// rlsim recommend's counting (app/recommend.h): per-key peaks per log-aligned window and what a
// candidate limit would deny, on a few requests counted by hand; and the command itself.
#include <catch2/catch.hpp>

#include "app/recommend.h"
#include "cli_dir.h"

namespace rlsim_test_recommend {

using namespace rlsim;

namespace {

constexpr std::int64_t s(double seconds) { return static_cast<std::int64_t>(seconds * 1e6); }

}  // namespace

TEST_CASE("recommend: peaks per window, and the keys and requests over a candidate") {
  KeyRateCounter counter(kUsPerS);
  // a: 3 requests in second 10, 1 in second 11. b: 5 in second 10. c: 1 in second 12.
  for (double t : {10.0, 10.2, 10.9, 11.5}) counter.add("a", s(t));
  for (int i = 0; i < 5; ++i) counter.add("b", s(10.1 + i * 0.1));
  counter.add("c", s(12.0));
  // A line logged late (earlier than a's current window) counts in the current window.
  counter.add("a", s(10.95));
  counter.finish();
  CHECK(counter.requests() == 11);
  CHECK(counter.keys() == 3);
  // Peaks: a 3 (second 10; second 11 has 2 with the late line), b 5, c 1.
  CHECK(counter.peak_percentile(50) == 3);
  CHECK(counter.peak_percentile(100) == 5);
  CHECK(counter.peak_percentile(0) == 1);
  // Limit 2: a's second 10 (3 -> 1 over) and b (5 -> 3 over); a's second 11 has 2, not over.
  const LimitCandidate two = counter.candidate(2);
  CHECK(two.keys_over == 2);
  CHECK(two.requests_over == 4);
  // The heaviest key (top 1%, at least one): a, with 5 requests as b; both count as heavy.
  CHECK(two.heavy_keys_over == 2);
  const LimitCandidate four = counter.candidate(4);
  CHECK(four.keys_over == 1);
  CHECK(four.requests_over == 1);
  CHECK(counter.candidate(5).keys_over == 0);
  CHECK(counter.candidate_limits(10) == std::vector<std::int64_t>{3, 5, 10});
}

TEST_CASE("recommend: the command on a bundled replay, and without a replay group") {
  const std::string scenarios = std::string(RLSIM_SOURCE_DIR) + "/scenarios/";
  const rlsim::testing::CliDir dir("recommend", "{}");
  // replay-nginx's log: 122 keys, peaks p50 2, p99 25, max 59 (the scraper).
  REQUIRE(dir.rlsim("recommend '" + scenarios + "replay-nginx.json'") == 0);
  CHECK_THAT(dir.out(), Catch::Contains("2871 requests, 122 keys, 2 malformed lines"));
  CHECK_THAT(dir.out(), Catch::Contains("peak requests per window per key: p50 2, p90 3, p99 25, "
                                        "max 59"));
  CHECK_THAT(dir.out(), Catch::Contains("recommended: 25 per 1s"));
  // Each strategy run at each candidate, as `rlsim run --set 'limits[0].limit=L'` runs it: three
  // in_memory instances admit up to 3x a small limit, the shared counter holds it.
  CHECK_THAT(dir.out(), Catch::Contains("what each strategy does at each limit"));
  CHECK_THAT(dir.out(),
             Catch::Contains("       2  in_memory                      1936      3.00x"));
  CHECK_THAT(dir.out(),
             Catch::Contains("      25  in_memory                      2871      2.36x"));
  CHECK_THAT(dir.out(),
             Catch::Contains("          redis_fixed_window             2432      1.00x"));
  CHECK(dir.rlsim("recommend '" + scenarios + "replay-nginx.json' --percentile 90") == 0);
  CHECK_THAT(dir.out(), Catch::Contains("recommended: 3 per 1s"));
  REQUIRE(dir.rlsim("recommend '" + scenarios + "replay-nginx.json' --chart over.svg") == 0);
  CHECK_THAT(rlsim::testing::read_text_file(dir.path / "over.svg"),
             Catch::Contains("recommended 25"));
  CHECK(dir.rlsim("recommend '" + scenarios + "replay-nginx.json' --chart no/such/dir.svg") == 3);
  CHECK(dir.rlsim("recommend '" + scenarios + "overshoot-10x.json'") == 2);
  CHECK_THAT(dir.err(), Catch::Contains("recommend needs a traffic group with replay"));
}

}  // namespace rlsim_test_recommend
