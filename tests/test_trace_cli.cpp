// `rlsim run --trace` end to end: the report files are byte-identical with and without a trace,
// the trace is read by jq (docs/metrics.md's examples), the cap's message, and the exit codes of
// a file that cannot be opened and of bad options.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_dir.h"

namespace rlsim_test_trace_cli {

using Catch::Contains;
using rlsim::testing::CliDir;
using rlsim::testing::read_text_file;
namespace fs = std::filesystem;

namespace {

// Four users at 40/s against 20 per second; Redis silent from 2 s to 3 s (errors, fallbacks).
const char* const kScenario = R"({
  "name": "traced", "seed": 9, "duration": "5s",
  "limits": [{"name": "per_user", "key": "user", "limit": 20, "window": "1s"}],
  "instances": {"count": 3},
  "traffic": [{"name": "g", "users": 4, "rate": "40/s"}],
  "redis": {"rtt": {"p50": "0.5ms", "p99": "2ms"}, "timeout": "20ms"},
  "faults": [{"type": "redis_down", "mode": "blackhole", "at": "2s", "for": "1s"}],
  "strategies": [
    {"name": "redis_fixed_window", "label": "open", "on_error": "fail_open"},
    {"name": "redis_fixed_window", "label": "local", "on_error": "local_fallback"},
    "in_memory"
  ]
})";

std::size_t lines_in(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

TEST_CASE("trace_cli: the report files are the same with and without --trace") {
  CliDir dir("trace-same", kScenario);
  REQUIRE(dir.rlsim("run s.json --out plain") == 0);
  REQUIRE(dir.rlsim("run s.json --out traced --trace t.jsonl --trace-sample 3") == 0);
  CHECK_THAT(dir.out(), Contains("trace: ") && Contains(" written to t.jsonl"));
  CHECK(dir.err().empty());
  for (const char* file : {"report.json", "report.md", "report.html"}) {
    INFO(file);
    CHECK(read_text_file(dir.path / "plain" / file) == read_text_file(dir.path / "traced" / file));
  }
  // --check-determinism runs each strategy again without the trace and compares.
  REQUIRE(dir.rlsim("run s.json --out again --trace t2.jsonl --trace-sample 3 "
                    "--check-determinism") == 0);
  CHECK_THAT(dir.out(), Contains("determinism: ok"));
  CHECK(read_text_file(dir.path / "t.jsonl") == read_text_file(dir.path / "t2.jsonl"));
  CHECK(read_text_file(dir.path / "plain" / "report.json") ==
        read_text_file(dir.path / "again" / "report.json"));
}

TEST_CASE("trace_cli: jq reads every line; denials per instance and errors by kind") {
  CliDir dir("trace-jq", kScenario);
  REQUIRE(dir.rlsim("run s.json --out r --trace t.jsonl") == 0);
  const std::string trace = read_text_file(dir.path / "t.jsonl");
  const nlohmann::json report = nlohmann::json::parse(read_text_file(dir.path / "r/report.json"));
  std::int64_t offered = 0;
  for (const auto& strategy : report["strategies"]) offered += strategy["offered"].get<int>();
  CHECK(lines_in(trace) == static_cast<std::size_t>(offered));

  // jq parses the whole file (a line it cannot parse fails the command).
  REQUIRE(dir.shell("jq -c . t.jsonl | wc -l") == 0);
  CHECK(std::stoll(dir.out()) == offered);
  // docs/metrics.md: denials per instance, summed, are the strategy's denials.
  REQUIRE(dir.shell("jq -s 'map(select(.strategy == \"open\" and (.allowed | not))) | "
                    "group_by(.instance) | map(length) | add' t.jsonl") == 0);
  CHECK(std::stoll(dir.out()) == report["strategies"][0]["denied"].get<std::int64_t>());
  REQUIRE(dir.shell("jq -r 'select(.error != null) | \"\\(.strategy) \\(.error)\"' t.jsonl | "
                    "sort | uniq -c") == 0);
  std::istringstream counts(dir.out());
  std::int64_t open_errors = 0;
  std::string count, label, kind;
  while (counts >> count >> label >> kind)
    if (label == "open" && kind == "redis") open_errors = std::stoll(count);
  CHECK(open_errors == report["strategies"][0]["errors"].get<std::int64_t>());
  CHECK(open_errors > 10);
}

TEST_CASE("trace_cli: the size cap stops the trace, not the run") {
  // About 1,000 decisions a second for 20 s: some 5 MB of trace against a 1 MB cap.
  CliDir dir("trace-cap", R"({
    "name": "big", "seed": 1, "duration": "20s",
    "limits": [{"name": "per_user", "key": "user", "limit": 100, "window": "1s"}],
    "instances": {"count": 2},
    "traffic": [{"name": "g", "users": 10, "rate": "100/s"}],
    "strategies": ["in_memory"]
  })");
  REQUIRE(dir.rlsim("run s.json --out r --trace t.jsonl --trace-max-mb 1") == 0);
  CHECK_THAT(dir.err(), Contains("rlsim: trace t.jsonl: reached its size cap of 1 MB "
                                 "(--trace-max-mb)") &&
                            Contains("(the run and its report go on)"));
  CHECK_THAT(dir.out(), Contains("trace: INCOMPLETE: reached its size cap of 1 MB"));
  const auto size = fs::file_size(dir.path / "t.jsonl");
  CHECK(size <= 1'000'000);
  CHECK(size > 990'000);
  const std::string trace = read_text_file(dir.path / "t.jsonl");
  CHECK(trace.back() == '\n');
  CHECK(fs::exists(dir.path / "r/report.json"));
}

TEST_CASE("trace_cli: a trace file that cannot be opened exits 3 before the run") {
  CliDir dir("trace-bad", kScenario);
  CHECK(dir.rlsim("run s.json --out r --trace no/such/dir/t.jsonl") == 3);
  CHECK(dir.err() ==
        "rlsim: cannot open the trace file no/such/dir/t.jsonl: No such file or directory\n");
  CHECK_FALSE(fs::exists(dir.path / "r"));
  CHECK(dir.rlsim("run s.json --out r --trace .") == 3);
  CHECK_THAT(dir.err(), Contains("Is a directory"));
}

TEST_CASE("trace_cli: the trace options are checked") {
  CliDir dir("trace-options", kScenario);
  CHECK(dir.rlsim("run s.json --trace-sample 5") == 2);
  CHECK_THAT(dir.err(), Contains("--trace-sample requires --trace"));
  CHECK(dir.rlsim("run s.json --trace t.jsonl --trace-sample 0") == 2);
  CHECK(dir.rlsim("run s.json --trace t.jsonl --trace-max-mb 0") == 2);
  CHECK(dir.rlsim("run s.json --trace t.jsonl --seeds 3") == 2);
  CHECK(dir.rlsim("run s.json --trace t.jsonl --live") == 2);
}

}  // namespace rlsim_test_trace_cli
