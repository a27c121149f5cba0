// The decision trace (app/trace.h): the fields of each line on a run computed by hand, the sample
// that keeps every error, fallback and false denial, byte-identical traces from one seed, the size
// cap, and a run whose figures do not change when it is traced.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/exit_codes.h"
#include "app/trace.h"
#include "cli_dir.h"
#include "engine/commands.h"
#include "scenario/load.h"

namespace rlsim_test_trace {

using namespace rlsim;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// One user, one request a second at 0 s, 1 s and 2 s, against 2 per 10 s; a fixed 1 ms round
// trip and no service time, so every latency is a whole number of round trips.
const char* const kThreeRequests = R"({
  "name": "three", "seed": 5, "duration": "3s",
  "limits": [{"name": "per_user", "key": "user", "limit": 2, "window": "10s"}],
  "instances": {"count": 1},
  "traffic": [{"name": "g", "users": 1, "rate": "1/s", "arrival": "constant"}],
  "redis": {"rtt": "1ms", "service_time": "0us", "timeout": "50ms"},
  "strategies": ["redis_fixed_window", "in_memory", "redis_sliding_log"]
})";

// Redis stops answering from 10 s to 15 s, at the start of a window: fail_closed denies what the
// ideal limiter admits (errors, false denials), the breaker and the local counter decide instead
// of Redis (fallbacks); instance 0 crashes at 12 s with requests waiting on Redis (errors of
// another kind).
const char* const kOutage = R"({
  "name": "outage", "seed": 11, "duration": "20s",
  "limits": [{"name": "per_user", "key": "user", "limit": 20, "window": "10s"}],
  "instances": {"count": 4},
  "traffic": [{"name": "g", "users": 5, "rate": "10/s"}],
  "redis": {"rtt": {"p50": "0.5ms", "p99": "2ms"}, "timeout": "500ms"},
  "faults": [{"type": "redis_down", "mode": "blackhole", "at": "10s", "for": "5s"},
             {"type": "instance_crash", "at": "12s", "instances": [0], "restart_after": "1s"}],
  "strategies": [
    {"name": "redis_fixed_window", "label": "closed", "on_error": "fail_closed"},
    {"name": "redis_fixed_window", "label": "fallback", "on_error": "local_fallback",
     "breaker": {"failures": 3, "window": "2s", "cooldown": "1s", "probes": 1}}
  ]
})";

fs::path temp_path(const std::string& name) {
  static int counter = 0;
  return fs::temp_directory_path() / ("rlsim-trace-" + std::to_string(::getpid()) + "-" +
                                      std::to_string(counter++) + "-" + name);
}

struct Traced {
  std::vector<StrategyResult> results;
  TraceSummary summary;
  std::string text;      // the file
  std::string messages;  // what the trace said on stderr
};

// Runs every strategy of `scenario_text` into one trace file, as rlsim run --trace does.
Traced run_traced(const char* scenario_text, std::uint64_t sample_every,
                  std::int64_t max_bytes = kDefaultTraceMaxMb * kBytesPerMb) {
  const Scenario scenario = parse_scenario(scenario_text, "s.json");
  const fs::path path = temp_path("t.jsonl");
  std::ostringstream messages;
  Traced out;
  {
    TraceFile file(TraceOptions{path.string(), sample_every, max_bytes}, messages);
    for (const ResolvedStrategy& strategy : resolve_strategies(scenario, "s.json")) {
      std::string divergence;
      out.results.push_back(
          run_strategy_traced(scenario, strategy, scenario.seed, false, file, divergence));
    }
    out.summary = file.close();
  }
  out.text = testing::read_text_file(path);
  out.messages = messages.str();
  fs::remove(path);
  return out;
}

std::vector<json> lines_of(const std::string& text) {
  std::vector<json> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  return lines;
}

std::vector<json> lines_for(const std::vector<json>& lines, const std::string& label) {
  std::vector<json> out;
  for (const json& line : lines)
    if (line["strategy"] == label) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("trace: each line of a run computed by hand") {
  const Traced traced = run_traced(kThreeRequests, 1);
  const std::vector<json> lines = lines_of(traced.text);
  REQUIRE(lines.size() == 9);
  CHECK(traced.summary.lines == 9);
  CHECK(traced.summary.decisions == 9);
  CHECK(traced.summary.bytes == static_cast<std::int64_t>(traced.text.size()));
  CHECK(traced.summary.stopped.empty());
  CHECK(traced.messages.empty());

  // redis_fixed_window: INCR + EXPIRE (two round trips) for the first request, INCR alone after.
  // The third INCR answers 3 > 2: denied, having seen 2, when the oracle had counted 2.
  const std::vector<json> fixed = lines_for(lines, "redis_fixed_window");
  REQUIRE(fixed.size() == 3);
  CHECK(traced.text.substr(0, traced.text.find('\n')) ==
        R"({"t_us":2000,"strategy":"redis_fixed_window","request":0,"instance":0,)"
        R"("limit":"per_user","key":"0","allowed":true,"denied_by":null,"observed_count":0,)"
        R"("true_count":0,"error":null,"fallback":false,"false_denial":false,"latency_us":2000,)"
        R"("sampled":true})");
  CHECK(fixed[1]["t_us"] == 1'001'000);
  CHECK(fixed[1]["latency_us"] == 1000);
  CHECK(fixed[1]["observed_count"] == 1);
  CHECK(fixed[1]["true_count"] == 1);
  CHECK(fixed[2]["t_us"] == 2'001'000);
  CHECK(fixed[2]["allowed"] == false);
  CHECK(fixed[2]["denied_by"] == "per_user");
  CHECK(fixed[2]["observed_count"] == 2);
  CHECK(fixed[2]["true_count"] == 2);
  CHECK(fixed[2]["false_denial"] == false);  // the ideal fixed window denies it too
  CHECK(fixed[2]["error"].is_null());

  // in_memory decides at once from its own counter.
  const std::vector<json> local = lines_for(lines, "in_memory");
  REQUIRE(local.size() == 3);
  CHECK(local[2]["t_us"] == 2'000'000);
  CHECK(local[2]["latency_us"] == 0);
  CHECK(local[2]["allowed"] == false);
  CHECK(local[2]["observed_count"] == 2);
  CHECK(local[2]["true_count"] == 2);

  // The sliding log's script answers 1 or 0: it reports no count.
  const std::vector<json> sliding = lines_for(lines, "redis_sliding_log");
  REQUIRE(sliding.size() == 3);
  CHECK(sliding[0]["observed_count"].is_null());
  CHECK(sliding[2]["allowed"] == false);
  CHECK(sliding[2]["true_count"] == 2);
  for (const json& line : lines) CHECK(line["sampled"] == true);
}

TEST_CASE("trace: a 1-in-N sample keeps every error, fallback and false denial") {
  const Traced all = run_traced(kOutage, 1);
  const Traced sampled = run_traced(kOutage, 1000);
  const std::vector<json> lines = lines_of(sampled.text);
  REQUIRE(all.results.size() == 2);
  for (const StrategyResult& result : sampled.results) {
    const std::vector<json> mine = lines_for(lines, result.label);
    std::int64_t errors = 0, fallbacks = 0, false_denials = 0, in_sample = 0;
    for (const json& line : mine) {
      const bool kept =
          !line["error"].is_null() || line["fallback"] == true || line["false_denial"] == true;
      if (line["sampled"] == false) CHECK(kept);
      CHECK(line["sampled"] ==
            TraceObserver::in_sample(11, 1000, line["request"].get<std::uint64_t>()));
      errors += !line["error"].is_null();
      fallbacks += line["fallback"] == true;
      false_denials += line["false_denial"] == true;
      in_sample += line["sampled"] == true;
    }
    INFO(result.label);
    CHECK(errors == result.totals.errors);
    CHECK(false_denials == result.totals.limits[0].false_denials);
    REQUIRE(result.redis_side);
    REQUIRE(result.redis_side->resilience);
    CHECK(fallbacks == result.redis_side->resilience->fallback_decisions);
    CHECK(in_sample <= 5);  // about 1000 decisions, 1 in 1000 of them
  }
  const auto crashed = std::count_if(lines.begin(), lines.end(), [](const json& line) {
    // Decided when the call it waited on ended: within the 500 ms timeout after the crash.
    return line["error"] == "instance_crashed" && line["instance"] == 0 &&
           line["t_us"] >= 12'000'000 && line["t_us"] <= 12'500'000;
  });
  CHECK(crashed > 0);
  // The outage made all three kinds, and the sample is much smaller than the whole.
  CHECK(sampled.results[0].totals.errors > 100);
  CHECK(sampled.results[0].totals.limits[0].false_denials > 50);
  CHECK(sampled.results[1].redis_side->resilience->fallback_decisions > 100);
  CHECK(sampled.summary.lines < all.summary.lines / 2);
  CHECK(sampled.summary.decisions == all.summary.decisions);
}

TEST_CASE("trace: the sample is the same requests for every strategy, about 1 in N") {
  const Traced traced = run_traced(kOutage, 10);
  std::set<std::uint64_t> first, second;
  for (const json& line : lines_of(traced.text)) {
    if (line["sampled"] != true) continue;
    (line["strategy"] == "closed" ? first : second).insert(line["request"].get<std::uint64_t>());
  }
  CHECK(first == second);
  const std::int64_t offered = traced.results[0].totals.offered;
  CHECK(static_cast<std::int64_t>(first.size()) > offered / 10 - offered / 30);
  CHECK(static_cast<std::int64_t>(first.size()) < offered / 10 + offered / 30);
}

TEST_CASE("trace: one seed and sample give a byte-identical trace, and the run is unchanged") {
  const Traced a = run_traced(kOutage, 7);
  const Traced b = run_traced(kOutage, 7);
  CHECK(a.text == b.text);
  CHECK(a.text.size() > 1000);
  const Scenario scenario = parse_scenario(kOutage, "s.json");
  const std::vector<ResolvedStrategy> strategies = resolve_strategies(scenario, "s.json");
  for (std::size_t i = 0; i < strategies.size(); ++i) {
    const StrategyResult plain = run_strategy(scenario, strategies[i], scenario.seed);
    CHECK(a.results[i].decision_digest == plain.decision_digest);
    CHECK(strategy_report(scenario, scenario.seed, a.results[i]).dump() ==
          strategy_report(scenario, scenario.seed, plain).dump());
  }
}

TEST_CASE("trace: the size cap stops writing at a whole line and says so; the run goes on") {
  const Traced whole = run_traced(kOutage, 1);
  const Traced capped = run_traced(kOutage, 1, 10'000);
  CHECK(capped.text.size() <= 10'000);
  CHECK(capped.text.size() > 9'000);  // lines are about 250 bytes
  CHECK(capped.text.back() == '\n');
  CHECK(whole.text.starts_with(capped.text));
  CHECK(capped.summary.lines == static_cast<std::int64_t>(lines_of(capped.text).size()));
  CHECK(capped.summary.stopped.find("size cap of 0.01 MB") != std::string::npos);
  CHECK(capped.summary.stopped_label == "closed");
  CHECK(capped.messages.find("rlsim: trace ") == 0);
  CHECK(capped.messages.find("reached its size cap") != std::string::npos);
  CHECK(std::count(capped.messages.begin(), capped.messages.end(), '\n') == 1);
  // Every decision was still counted, and both strategies ran to the end.
  CHECK(capped.summary.decisions == whole.summary.decisions);
  CHECK(capped.results[1].decision_digest == whole.results[1].decision_digest);
}

TEST_CASE("trace: a file that cannot be opened is a RunError with the output exit code") {
  std::ostringstream messages;
  const std::string path = (temp_path("missing-dir") / "t.jsonl").string();
  try {
    TraceFile file(TraceOptions{path, 1, kBytesPerMb}, messages);
    FAIL("opened " << path);
  } catch (const RunError& e) {
    CHECK(exit_code_of(e) == exit_code::kOutputError);
    CHECK(std::string(e.what()) ==
          "cannot open the trace file " + path + ": No such file or directory");
  }
}

TEST_CASE("trace: the error kinds and their names") {
  CHECK(std::string(to_string(TraceError::kRedis)) == "redis");
  CHECK(std::string(to_string(TraceError::kInstanceCrashed)) == "instance_crashed");
  CHECK(std::string(to_string(TraceError::kNoInstance)) == "no_instance");
  TraceLine line;
  line.key = "a\"b";
  line.error = TraceError::kInstanceCrashed;
  line.allowed = false;
  line.denied_by = 0;
  line.instance = -1;
  std::string text;
  TraceFormat("x\\y", {Limit{}}).append(line, text);
  const json parsed = json::parse(text);
  CHECK(parsed["key"] == "a\"b");
  CHECK(parsed["strategy"] == "x\\y");
  CHECK(parsed["error"] == "instance_crashed");
  CHECK(parsed["instance"].is_null());
  CHECK(text.back() == '\n');
}

}  // namespace rlsim_test_trace
