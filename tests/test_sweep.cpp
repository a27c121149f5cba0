// Sweeps and multi-seed runs: the grid (--set's parsing and application are
// test_scenario_settings.cpp's), seed summaries, results independent of the thread count, and the
// `sweep` and `run --seeds` commands end to end.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "app/seeds.h"
#include "app/sweep.h"
#include "cli_dir.h"
#include "oracle/window_latency.h"
#include "report/sparkline.h"
#include "test_util.h"

namespace rlsim_test_sweep {

namespace fs = std::filesystem;
using Catch::Contains;
using nlohmann::ordered_json;
using namespace rlsim;
using rlsim::testing::CliDir;
using rlsim::testing::read_text_file;

namespace {

const char* const kScenario = R"({
  "name": "sweepy",
  "seed": 3,
  "duration": "4s",
  "limits": [{"name": "per_user", "key": "user", "limit": 20, "window": "1s"}],
  "instances": {"count": 3},
  "load_balancer": {"policy": "random"},
  "traffic": [{"name": "g", "users": 2, "rate": "60/s"}],
  "redis": {"rtt": {"p50": "0.5ms", "p99": "2ms"}, "timeout": "20ms"},
  "strategies": ["in_memory", "redis_fixed_window"]
})";

}  // namespace

TEST_CASE("the grid is every combination, the first parameter slowest") {
  const auto grid = sweep_grid({parse_set("a=1,2"), parse_set("b=x,y,z")});
  REQUIRE(grid.size() == 6);
  CHECK(grid[0] == std::vector<std::size_t>{0, 0});
  CHECK(grid[2] == std::vector<std::size_t>{0, 2});
  CHECK(grid[3] == std::vector<std::size_t>{1, 0});
}

TEST_CASE("seed summaries: mean in seed order, nearest-rank p5 and p95, every numeric metric") {
  std::vector<ordered_json> reports;
  for (int i = 1; i <= 20; ++i)
    reports.push_back({{"label", "x"}, {"overshoot", i}, {"latency_us", {{"p99", 2 * i}}}});
  const auto summaries = summarize_metrics(reports);
  REQUIRE(summaries.size() == 2);
  CHECK(summaries[0].path == "overshoot");
  CHECK(summaries[0].mean == Approx(10.5));
  CHECK(summaries[0].p5 == 1);    // rank ceil(0.05 * 20) = 1
  CHECK(summaries[0].p95 == 19);  // rank ceil(0.95 * 20) = 19
  CHECK(summaries[1].path == "latency_us.p99");
  CHECK(summaries[1].max == 40);
  CHECK(nearest_rank({}, 0.5) == 0);
  CHECK(format_spread(summaries[0]) == "10.5 [1 .. 19]");
}

TEST_CASE("grid runs give the same reports on one thread and on several") {
  const Scenario scenario = parse_scenario(kScenario, "s.json");
  const auto strategies = resolve_strategies(scenario, "s.json");
  std::vector<GridJob> jobs;
  for (const auto& strategy : strategies)
    for (std::uint64_t seed = 1; seed <= 4; ++seed)
      jobs.push_back({&scenario, &strategy, seed, false});
  const auto one = run_grid(jobs, 1, false);
  const auto two = run_grid(jobs, 2, false);
  const auto four = run_grid(jobs, 4, true);
  REQUIRE(one.size() == jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    CHECK(one[i].report.dump() == two[i].report.dump());
    CHECK(one[i].report.dump() == four[i].report.dump());
    CHECK(four[i].divergence.empty());
  }
  // Different seeds do give different numbers: the comparison above can fail.
  CHECK(one[4].report.dump() != one[5].report.dump());
}

TEST_CASE("window latency quantiles are exact below 64 us and at most 1/16 above beyond") {
  WindowLatency w;
  CHECK(w.quantile(0.5) == 0);
  for (int v = 1; v <= 50; ++v) w.record(v);
  CHECK(w.quantile(0.5) == 25);
  CHECK(w.quantile(1.0) == 50);
  w.clear();
  for (int i = 0; i < 99; ++i) w.record(1000);
  w.record(100000);
  CHECK(w.quantile(0.5) >= 1000);
  CHECK(w.quantile(0.5) <= 1000 + 1000 / 16);
  CHECK(w.quantile(1.0) == 100000);
  CHECK(w.max() == 100000);
  w.clear();
  CHECK(w.count() == 0);
  w.record(7);
  CHECK(w.quantile(0.99) == 7);
}

TEST_CASE("sparkline: one block per value, scaled to the top, grouped when too many") {
  CHECK(sparkline({}, 10, 5).empty());
  CHECK(sparkline({0, 5, 10}, 10, 10) == "\u2581\u2585\u2588");
  CHECK(sparkline({10, 10, 0, 0}, 10, 2) == "\u2588\u2581");
}

TEST_CASE("the report series carries per-window latency and per-instance admissions") {
  const Scenario scenario = parse_scenario(kScenario, "s.json");
  const RunResult result = testing::run_text(scenario);
  const auto& redis = testing::by_label(result, "redis_fixed_window").totals.series;
  REQUIRE(redis.size() == 4);
  for (const auto& point : redis) {
    CHECK(point.latency_p50_us >= 300);  // RTT p50 0.5 ms, sampled
    CHECK(point.latency_p99_us >= point.latency_p50_us);
    CHECK(point.latency_max_us >= point.latency_p99_us);
    std::int64_t sum = 0;
    for (auto n : point.admitted_by_instance) sum += n;
    CHECK(sum == point.admitted);
    CHECK(point.admitted_by_instance.size() <= 3);
  }
  const auto& memory = testing::by_label(result, "in_memory").totals.series;
  CHECK(memory.back().latency_p99_us == 0);
}

TEST_CASE("rlsim sweep writes the table, JSON, Markdown, HTML and charts, the same on any -j") {
  CliDir dir("sweep", kScenario);
  REQUIRE(
      dir.rlsim("sweep s.json --set instances.count=1,2,4 --metric overshoot --jobs 1 --out one") ==
      0);
  CHECK_THAT(dir.out() + dir.err(), Contains("3 grid points x 2 strategies x 1 seed(s) = 6 runs"));
  REQUIRE(
      dir.rlsim("sweep s.json --set instances.count=1,2,4 --metric overshoot --jobs 2 --out two") ==
      0);
  const std::string a = read_text_file(dir.path / "one" / "sweep.json");
  CHECK(a == read_text_file(dir.path / "two" / "sweep.json"));
  CHECK(read_text_file(dir.path / "one" / "chart-sweep-overshoot.svg") ==
        read_text_file(dir.path / "two" / "chart-sweep-overshoot.svg"));
  const auto json = ordered_json::parse(a);
  REQUIRE(json["points"].size() == 3);
  // In-memory counters: the overshoot follows the instance count.
  const auto overshoot = [&](std::size_t point) {
    return json["points"][point]["strategies"][0]["metrics"]["overshoot"]["mean"].get<double>();
  };
  CHECK(overshoot(0) < overshoot(1));
  CHECK(overshoot(1) < overshoot(2));
  CHECK(fs::exists(dir.path / "one" / "sweep.md"));
  CHECK_THAT(read_text_file(dir.path / "one" / "sweep.html"),
             Contains("id=\"chart-sweep-overshoot\""));
}

TEST_CASE("a sweep over values that are not numbers labels its x axis with the values") {
  CliDir dir("sweep-labels", kScenario);
  REQUIRE(dir.rlsim("sweep s.json --set redis.rtt=1ms,5ms,20ms --metric latency_us.p99 --out o") ==
          0);
  const std::string svg = read_text_file(dir.path / "o" / "chart-sweep-latency_us-p99.svg");
  // Each value at its position, labelled with itself; no "position in the list".
  for (const char* value : {">1ms</text>", ">5ms</text>", ">20ms</text>"})
    CHECK_THAT(svg, Contains(value));
  CHECK(svg.find("position") == std::string::npos);
  CHECK_THAT(svg, Contains(">redis.rtt</text>"));
}

TEST_CASE("rlsim sweep rejects bad settings and metrics with exit 2") {
  CliDir dir("sweep", kScenario);
  CHECK(dir.rlsim("sweep s.json --set instances.count=0") == 2);
  CHECK_THAT(dir.out() + dir.err(), Contains("s.json with --set instances.count=0"));
  CHECK(dir.rlsim("sweep s.json --set strategies[4].x=1") == 2);
  CHECK_THAT(dir.out() + dir.err(), Contains("no [4]"));
  CHECK(dir.rlsim("sweep s.json --set instances.count=2 --metric nope") == 2);
  CHECK_THAT(dir.out() + dir.err(), Contains("--metric nope"));
  CHECK(dir.rlsim("sweep s.json") == 2);
  // A report folder that cannot be created (s.json is a file): exit 3.
  CHECK(dir.rlsim("sweep s.json --set instances.count=2 --out s.json/x") == 3);
  CHECK_THAT(dir.err(), Contains("cannot write the sweep report"));
}

TEST_CASE("rlsim run --seeds writes seeds.json beside an unchanged report") {
  CliDir dir("sweep", kScenario);
  REQUIRE(dir.rlsim("run s.json --out plain") == 0);
  std::string out;
  REQUIRE(dir.rlsim("run s.json --seeds 5 --out many") == 0);
  CHECK_THAT(dir.out() + dir.err(), Contains("over 5 seeds (3..7)"));
  CHECK(read_text_file(dir.path / "plain" / "report.json") ==
        read_text_file(dir.path / "many" / "report.json"));
  CHECK(read_text_file(dir.path / "plain" / "report.html") ==
        read_text_file(dir.path / "many" / "report.html"));
  const auto seeds = ordered_json::parse(read_text_file(dir.path / "many" / "seeds.json"));
  CHECK(seeds["seeds"] == ordered_json({3, 4, 5, 6, 7}));
  const auto& allowed = seeds["strategies"][1]["metrics"]["offered"];  // Poisson: varies
  CHECK(allowed["runs"] == 5);
  CHECK(allowed["p5"].get<double>() <= allowed["mean"].get<double>());
  CHECK(allowed["mean"].get<double>() <= allowed["p95"].get<double>());
  CHECK(allowed["min"].get<double>() < allowed["max"].get<double>());
  CHECK(fs::exists(dir.path / "many" / "seeds.md"));
}

namespace {

// The files a sweep writes, compared between two report folders.
void check_same_sweep_files(const fs::path& a, const fs::path& b) {
  for (const char* file : {"sweep.json", "sweep.md", "sweep.html", "chart-sweep-overshoot.svg",
                           "chart-sweep-excess.svg"}) {
    INFO(file);
    REQUIRE(fs::exists(a / file));
    CHECK(read_text_file(a / file) == read_text_file(b / file));
  }
}

const char* const kShardSweep =
    "sweep s.json --set instances.count=1,3 --set traffic[0].users=1,2 --seeds 3 --metric "
    "overshoot --metric excess";

}  // namespace

TEST_CASE("rlsim sweep --shard K/N and rlsim merge write the one-process sweep byte for byte") {
  CliDir dir("shard", kScenario);
  REQUIRE(dir.rlsim(std::string(kShardSweep) + " --out whole") == 0);
  const std::string whole_table = dir.out();
  // 4 points x 2 strategies x 3 seeds = 24 runs over 5 shards (uneven: 5, 5, 5, 5, 4).
  for (int k = 1; k <= 5; ++k) {
    REQUIRE(dir.rlsim(std::string(kShardSweep) + " --out parts --shard " + std::to_string(k) +
                      "/5") == 0);
    CHECK_THAT(dir.out(), Contains(fmt::format("shard {}/5: {} of 24 runs", k, k == 5 ? 4 : 5)));
  }
  CHECK_FALSE(fs::exists(dir.path / "parts" / "sweep.json"));  // a shard writes no report
  REQUIRE(dir.rlsim("merge parts --out merged") == 0);
  check_same_sweep_files(dir.path / "whole", dir.path / "merged");
  // The printed table too, but for the report folder's name.
  std::string merged_table = dir.out();
  const auto at = merged_table.find("merged/sweep.json");
  REQUIRE(at != std::string::npos);
  merged_table.replace(at, 6, "whole");
  CHECK(merged_table == whole_table);
  // Files given one by one, in any order, merge the same.
  std::string files;
  for (int k = 5; k >= 1; --k) files += fmt::format(" parts/sweep-shard-{}-of-5.json", k);
  REQUIRE(dir.rlsim("merge" + files + " --out by-file") == 0);
  check_same_sweep_files(dir.path / "whole", dir.path / "by-file");
}

TEST_CASE("rlsim merge refuses missing, repeated and foreign shards with exit 2") {
  CliDir dir("shard", kScenario);
  for (const char* k : {"1", "2", "3"})
    REQUIRE(dir.rlsim(std::string(kShardSweep) + " --out parts --shard " + k + "/3") == 0);
  CHECK(dir.rlsim("merge parts/sweep-shard-1-of-3.json parts/sweep-shard-3-of-3.json") == 2);
  CHECK_THAT(dir.err(), Contains("shards 2 of 3 are missing"));
  CHECK(dir.rlsim("merge parts parts/sweep-shard-2-of-3.json") == 2);
  CHECK_THAT(dir.err(), Contains("shard 2/3 is given twice"));
  // Another seed count is another sweep.
  REQUIRE(dir.rlsim("sweep s.json --set instances.count=1,3 --set traffic[0].users=1,2 --seeds 2 "
                    "--metric overshoot --metric excess --out other --shard 2/3") == 0);
  CHECK(dir.rlsim("merge parts/sweep-shard-1-of-3.json other/sweep-shard-2-of-3.json "
                  "parts/sweep-shard-3-of-3.json") == 2);
  CHECK_THAT(dir.err(), Contains("is a shard of another sweep"));
  CHECK(dir.rlsim("merge s.json") == 2);
  CHECK_THAT(dir.err(), Contains("is not a shard file"));
  CHECK(dir.rlsim("merge nowhere.json") == 2);
  CHECK_THAT(dir.err(), Contains("merge: nowhere.json: cannot read the file: no such file"));
  for (const char* bad : {"0/3", "4/3", "3", "a/b", "1/0", "-1/3", "1/10001"}) {
    INFO(bad);
    CHECK(dir.rlsim(std::string(kShardSweep) + " --shard " + bad) == 2);
    CHECK_THAT(dir.err(), Contains("--shard"));
  }
}

TEST_CASE("rlsim merge reads shards with the guards of scenario files and checks every field") {
  CliDir dir("shard-guards", kScenario);
  for (const char* k : {"1", "2"})
    REQUIRE(dir.rlsim(std::string(kShardSweep) + " --out parts --shard " + k + "/2") == 0);
  const ordered_json good =
      ordered_json::parse(read_text_file(dir.path / "parts" / "sweep-shard-1-of-2.json"));
  // Not a regular file: a named pipe is refused at once instead of waiting for a writer.
  REQUIRE(dir.shell("mkfifo pipe.json") == 0);
  CHECK(dir.rlsim("merge pipe.json parts/sweep-shard-2-of-2.json") == 2);
  CHECK_THAT(dir.err(), Contains("merge: pipe.json: cannot read the file: a named pipe (FIFO)"));
  // 1 MiB of '[': refused at depth 65 instead of building a million nested arrays.
  std::ofstream(dir.path / "deep.json") << std::string(1 << 20, '[');
  CHECK(dir.rlsim("merge deep.json") == 2);
  CHECK_THAT(dir.err(), Contains("merge: deep.json: nested more than 64 deep"));
  // Fields out of range name the field (exit 2), never an abort, a bad_alloc or a huge number.
  const struct {
    const char* field;
    ordered_json value;
    const char* message;
  } cases[] = {
      {"shards", 0, "shards: expected a whole number from 1 to 10000"},
      {"shards", 1e12, "shards: expected a whole number from 1 to 10000"},
      {"runs", -3, "runs: expected a whole number from 1 to 100000"},
      {"shard", 3, "shard: expected a whole number from 1 to 2"},
      {"scenario", "..", "scenario: expected a scenario name"},
      {"reproduce", "rlsim \x1b[2J", "reproduce: expected a command line without control"},
      {"labels", ordered_json::array({ordered_json::array({"a\nb"})}), "labels: expected arrays"},
      {"outcomes", ordered_json::array({{{"job", -3}, {"state", "complete"}, {"report", 0}}}),
       "outcomes: expected objects with a job from 0 to"},
  };
  for (const auto& c : cases) {
    INFO(c.field);
    ordered_json bad = good;
    bad[c.field] = c.value;
    std::ofstream(dir.path / "bad.json") << bad.dump();
    CHECK(dir.rlsim("merge bad.json parts/sweep-shard-2-of-2.json") == 2);
    CHECK_THAT(dir.err(), Contains(std::string("merge: bad.json: ") + c.message));
  }
  // The same run twice in one shard is named as such.
  ordered_json twice = good;
  twice["outcomes"].push_back(twice["outcomes"][0]);
  std::ofstream(dir.path / "twice.json") << twice.dump();
  CHECK(dir.rlsim("merge twice.json parts/sweep-shard-2-of-2.json") == 2);
  CHECK_THAT(dir.err(), Contains("twice.json: run 0 is given twice"));
}

}  // namespace rlsim_test_sweep
