// End to end: the rlsim binary as a user runs it, in a fresh temporary directory. Checks exit
// codes (0 ok, 2 bad input, 3 report not writable), one-line error messages naming the file and
// JSON path, the report file, --json, --strategy, --seed, colour rules and determinism.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "strategy/registry.h"

namespace rlsim_test_cli {

namespace fs = std::filesystem;
using Catch::Contains;
using Catch::StartsWith;
using nlohmann::json;

namespace {

const std::string kBinary = RLSIM_BINARY;
const fs::path kScenarios = fs::path(RLSIM_SOURCE_DIR) / "scenarios";

std::string quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  REQUIRE(out.good());
}

std::size_t count_char(const std::string& text, char c) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), c));
}

// A unique directory under the system temp directory, removed when the test ends.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ = fs::temp_directory_path() / ("rlsim-test-cli-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(counter++) + "-" + std::to_string(stamp));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

struct Outcome {
  int status = -1;  // exit status, or -1 when rlsim did not exit normally
  std::string out;
  std::string err;
};

// Runs `command` (shell syntax) in `cwd` with stdout and stderr captured separately; stdout is
// not a terminal and stdin is /dev/null.
Outcome shell_in(const fs::path& cwd, const std::string& command) {
  static std::atomic<int> counter{0};
  const int n = counter++;
  const fs::path out = cwd / (".stdout-" + std::to_string(n));
  const fs::path err = cwd / (".stderr-" + std::to_string(n));
  const std::string full = "cd " + quote(cwd.string()) + " && { " + command + " ; } >" +
                           quote(out.string()) + " 2>" + quote(err.string()) + " </dev/null";
  const int raw = std::system(full.c_str());
  Outcome outcome;
  outcome.status = raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  outcome.out = read_file(out);
  outcome.err = read_file(err);
  fs::remove(out);
  fs::remove(err);
  return outcome;
}

// The shell command that runs `rlsim <args>` with NO_COLOR unset and `env` (assignments such as
// "NO_COLOR=1") in its environment.
std::string rlsim_command(const std::string& args, const std::string& env) {
  return "env -u NO_COLOR " + env + " " + quote(kBinary) + " " + args;
}

Outcome rlsim_in(const fs::path& cwd, const std::string& args, const std::string& env = "") {
  return shell_in(cwd, rlsim_command(args, env));
}

// A small scenario that runs in milliseconds: 5 s of simulated time, Poisson traffic, a random
// balancer and clock skew, so that a different seed gives different numbers.
const char* const kFastScenario = R"({
  "name": "fast",
  "seed": 9,
  "duration": "5s",
  "limits": [{"name": "per_user", "key": "user", "limit": 20, "window": "1s"}],
  "instances": {"count": 3, "schedule": [{"at": "2s", "count": 4}], "clock": {"spread": "5ms"}},
  "load_balancer": {"policy": "random"},
  "traffic": [{"name": "g", "users": 4, "rate": "40/s"}],
  "redis": {"rtt": {"p50": "0.5ms", "p99": "2ms"}, "timeout": "20ms"},
  "strategies": ["in_memory", "redis_fixed_window",
                 {"name": "redis_fixed_window", "label": "closed", "on_error": "deny"}]
})";

// A temp directory holding fast.json.
struct Workspace {
  TempDir dir;
  fs::path scenario = dir / "fast.json";
  Workspace() { write_file(scenario, kFastScenario); }
  Outcome rlsim(const std::string& args, const std::string& env = "NO_COLOR=1") const {
    return rlsim_in(dir.path(), args, env);
  }
};

std::vector<fs::path> shipped_scenarios() {
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(kScenarios)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json")
      paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

bool have_script() { return std::system("command -v script >/dev/null 2>&1") == 0; }

}  // namespace

// ---------------------------------------------------------------------------------------------
// validate
// ---------------------------------------------------------------------------------------------

TEST_CASE("validate accepts every shipped scenario") {
  const Workspace ws;
  const auto paths = shipped_scenarios();
  REQUIRE(!paths.empty());
  for (const auto& path : paths) {
    INFO(path.string());
    const auto outcome = ws.rlsim("validate " + quote(path.string()));
    CHECK(outcome.status == 0);
    CHECK_THAT(outcome.out, Contains("ok"));
    CHECK(outcome.err.empty());
  }
  const auto fast = ws.rlsim("validate fast.json");
  CHECK(fast.status == 0);
  CHECK_THAT(fast.out, StartsWith("fast.json: ok"));
}

TEST_CASE("bad scenarios exit 2 with one line on stderr naming the file and JSON path") {
  const Workspace ws;
  struct Bad {
    const char* file;
    std::string text;
    std::string expected;  // after "rlsim: <dir>/<file>"
  };
  const std::string strategies = R"("strategies": ["in_memory"])";
  const std::string head = R"({"name": "b", "duration": "5s", )";
  const std::string limits = R"("limits": [{"name": "l", "limit": 5, "window": "1s"}], )";
  const std::string rest =
      R"("instances": {"count": 1}, "traffic": [{"name": "g", "rate": "1/s"}], )";
  const std::vector<Bad> cases = {
      {"syntax.json", "{\n  \"name\": \"b\"\n  \"duration\": \"5s\"\n}", ":3:"},
      {"type.json",
       head + R"("limits": [{"name": "l", "limit": "5", "window": "1s"}], )" + rest + strategies +
           "}",
       ": limits[0].limit: expected an integer, got a string"},
      {"unknown.json",
       head + R"("limits": [{"name": "l", "limit": 5, "window": "1s", "windw": "1s"}], )" + rest +
           strategies + "}",
       ": limits[0].windw: unknown field"},
      {"missing.json", head + rest + strategies + "}", ": limits: required field is missing"},
      {"zero.json",
       head + limits + R"("instances": {"count": 0}, "traffic": [{"name": "g", "rate": "1/s"}], )" +
           strategies + "}",
       ": instances.count: expected an integer from 1 to 10000"},
      {"strategy.json", head + limits + rest + R"("strategies": ["in_memory", "token_magic"]})",
       ": strategies[1]: unknown strategy \"token_magic\""},
      {"param.json",
       head + limits + rest +
           R"("strategies": [{"name": "redis_fixed_window", "on_error": "maybe"}]})",
       ": strategies[0].on_error: expected one of \"fail_open\", \"fail_closed\", "
       "\"local_fallback\", \"allow\", \"deny\""},
  };
  for (const auto& c : cases) {
    const fs::path path = ws.dir / c.file;
    write_file(path, c.text);
    for (const std::string command : {"validate", "run"}) {
      INFO(command << " " << c.file);
      const fs::path out_dir = ws.dir / (std::string("out-") + c.file);
      const auto outcome = ws.rlsim(command + " " + quote(path.string()) +
                                    (command == "run" ? " --out " + quote(out_dir.string()) : ""));
      CHECK(outcome.status == 2);
      CHECK(outcome.out.empty());
      CHECK(count_char(outcome.err, '\n') == 1);
      CHECK_THAT(outcome.err, StartsWith("rlsim: " + path.string() + c.expected));
      CHECK(!fs::exists(out_dir / "report.json"));
    }
  }
}

TEST_CASE("redis_failover on a real Redis exits 2 before connecting: it is embedded-only") {
  const Workspace ws;
  // Port 1: nothing listens there, and rlsim must say why before it tries.
  const auto outcome = ws.rlsim("run " + quote((kScenarios / "redis-failover.json").string()) +
                                " --redis redis://127.0.0.1:1");
  CHECK(outcome.status == 2);
  CHECK_THAT(outcome.err, Contains("redis_failover is embedded-only"));
}

TEST_CASE("redis_failover on an embedded cluster's node 1 exits 2 with --redis-cluster") {
  // Before, only node 0's failover was refused: node 1's reached the fault injector, which found
  // no replica to promote (a check failure, exit 1).
  const Workspace ws;
  json scenario = json::parse(read_file(kScenarios / "redis-failover.json"));
  scenario["redis"]["cluster"] = {{"nodes", 3}};
  scenario["faults"] = json::array({scenario["faults"][0]});
  scenario["faults"][0]["nodes"] = {1};
  scenario.erase("expect");
  write_file(ws.dir / "node1.json", scenario.dump());
  REQUIRE(ws.rlsim("validate node1.json").status == 0);
  const auto outcome = ws.rlsim("run node1.json --redis-cluster 127.0.0.1:1");
  CHECK(outcome.status == 2);
  CHECK(count_char(outcome.err, '\n') == 1);
  CHECK_THAT(outcome.err, Contains("redis_failover is embedded-only"));
}

TEST_CASE("a nonexistent scenario file exits 2 naming the file") {
  const Workspace ws;
  for (const std::string command : {"validate", "run"}) {
    INFO(command);
    const auto outcome = ws.rlsim(command + " no-such-file.json");
    CHECK(outcome.status == 2);
    CHECK(outcome.out.empty());
    CHECK(outcome.err == "rlsim: no-such-file.json: cannot read the file: no such file\n");
  }
  // A directory is not a scenario file either.
  fs::create_directories(ws.dir / "adir");
  const auto dir = ws.rlsim("validate adir");
  CHECK(dir.status == 2);
  CHECK(dir.err == "rlsim: adir: cannot read the file: a directory, not a regular file\n");
}

TEST_CASE("command line mistakes exit 2") {
  const Workspace ws;
  for (const char* args : {"", "frobnicate", "run", "validate", "explain", "run fast.json --nope",
                           "run fast.json --seed abc", "run fast.json --seed 1.5",
                           "run fast.json --out", "list extra", "validate fast.json fast.json"}) {
    INFO("rlsim " << args);
    const auto outcome = ws.rlsim(args);
    CHECK(outcome.status == 2);
    CHECK(!outcome.err.empty());
  }
  CHECK(!fs::exists(ws.dir / "reports"));
}

TEST_CASE("run --seed rejects negative and out-of-range values like the scenario's seed field") {
  // The scenario file rejects "seed": -1 ("expected a non-negative integer"); the command line
  // documents --seed UINT. Neither a negative value nor one beyond 2^64-1 may silently become
  // another seed.
  const Workspace ws;
  for (const char* seed : {"-1", "-5", "18446744073709551616", "99999999999999999999"}) {
    INFO("--seed " << seed);
    const fs::path out = ws.dir / (std::string("seed") + seed);
    const auto outcome = ws.rlsim("run fast.json --json --seed " + std::string(seed) + " --out " +
                                  quote(out.string()));
    CHECK(outcome.status == 2);
    CHECK(!fs::exists(out / "report.json"));
  }
  // The largest seed is fine.
  const auto max = ws.rlsim("run fast.json --json --seed 18446744073709551615 --out max");
  REQUIRE(max.status == 0);
  CHECK(json::parse(max.out)["seed"] == 18446744073709551615ULL);
}

// ---------------------------------------------------------------------------------------------
// list and explain
// ---------------------------------------------------------------------------------------------

TEST_CASE("list names every strategy, one a line") {
  const Workspace ws;
  const auto outcome = ws.rlsim("list");
  CHECK(outcome.status == 0);
  CHECK(outcome.err.empty());
  CHECK_THAT(outcome.out, StartsWith("in_memory "));
  CHECK_THAT(outcome.out, Contains("\nredis_fixed_window "));
  // One line per registered strategy.
  CHECK(count_char(outcome.out, '\n') == rlsim::strategy_registry().size());
}

TEST_CASE("explain describes a strategy; an unknown name exits 2") {
  const Workspace ws;
  const auto explain = ws.rlsim("explain redis_fixed_window");
  CHECK(explain.status == 0);
  CHECK(explain.err.empty());
  CHECK_THAT(explain.out, StartsWith("redis_fixed_window: "));
  CHECK_THAT(explain.out, Contains("INCR"));
  CHECK_THAT(explain.out, Contains("EXPIRE"));
  CHECK_THAT(explain.out, Contains("on_error"));
  CHECK(ws.rlsim("explain in_memory").status == 0);

  const auto unknown = ws.rlsim("explain token_magic");
  CHECK(unknown.status == 2);
  CHECK(unknown.out.empty());
  CHECK(count_char(unknown.err, '\n') == 1);
  CHECK_THAT(unknown.err, Contains("token_magic"));
  CHECK_THAT(unknown.err, Contains("in_memory"));
}

// ---------------------------------------------------------------------------------------------
// run
// ---------------------------------------------------------------------------------------------

TEST_CASE("run writes DIR/report.json and prints the seed and how to reproduce") {
  const Workspace ws;
  const fs::path out = ws.dir / "out";
  const auto run = ws.rlsim("run fast.json --out " + quote(out.string()));
  REQUIRE(run.status == 0);
  CHECK(run.err.empty());
  REQUIRE(fs::is_regular_file(out / "report.json"));
  const json report = json::parse(read_file(out / "report.json"));
  CHECK(report["scenario"] == "fast");
  CHECK(report["seed"] == 9);
  REQUIRE(report["strategies"].size() == 3);
  CHECK(report["strategies"][0]["label"] == "in_memory");
  CHECK(report["strategies"][1]["label"] == "redis_fixed_window");
  CHECK(report["strategies"][2]["label"] == "closed");
  CHECK_THAT(run.out, Contains("seed 9"));
  CHECK_THAT(run.out, Contains("reproduce with"));
  CHECK_THAT(run.out, Contains("reproduce with: rlsim run fast.json --seed 9"));
  CHECK_THAT(run.out, Contains((out / "report.json").string()));

  // The printed command reproduces the report.
  const auto line_start = run.out.find("reproduce with: rlsim ");
  REQUIRE(line_start != std::string::npos);
  const auto args_start = line_start + std::string("reproduce with: rlsim ").size();
  const std::string args = run.out.substr(args_start, run.out.find('\n', args_start) - args_start);
  const fs::path again = ws.dir / "again";
  REQUIRE(ws.rlsim(args + " --out " + quote(again.string())).status == 0);
  CHECK(read_file(again / "report.json") == read_file(out / "report.json"));
}

TEST_CASE("the reproduce command is quoted for the shell") {
  const Workspace ws;
  write_file(ws.dir / "my scenario's.json", kFastScenario);
  const auto run = ws.rlsim("run \"my scenario's.json\" --strategy closed --seed 3 --out a");
  REQUIRE(run.status == 0);
  const std::string marker = "reproduce with: rlsim ";
  const auto start = run.out.find(marker);
  REQUIRE(start != std::string::npos);
  const auto args_start = start + marker.size();
  const std::string args = run.out.substr(args_start, run.out.find('\n', args_start) - args_start);
  CHECK_THAT(args, Contains("--strategy closed --seed 3"));
  REQUIRE(ws.rlsim(args + " --out b").status == 0);
  CHECK(read_file(ws.dir / "b" / "report.json") == read_file(ws.dir / "a" / "report.json"));
}

TEST_CASE("run without --out writes reports/<scenario name>/report.json") {
  const Workspace ws;
  const auto run = ws.rlsim("run fast.json");
  CHECK(run.status == 0);
  CHECK(fs::is_regular_file(ws.dir / "reports" / "fast" / "report.json"));
  CHECK_THAT(run.out, Contains("reports/fast/report.json"));
}

TEST_CASE("run --json prints exactly the JSON report that it writes") {
  const Workspace ws;
  const fs::path out = ws.dir / "out";
  const auto run = ws.rlsim("run fast.json --json --out " + quote(out.string()));
  REQUIRE(run.status == 0);
  CHECK(run.err.empty());
  json report;
  REQUIRE_NOTHROW(report = json::parse(run.out));
  CHECK(report.is_object());
  CHECK(report["scenario"] == "fast");
  CHECK(report["seed"] == 9);
  CHECK(run.out == read_file(out / "report.json"));
  // The same report as without --json.
  const fs::path plain = ws.dir / "plain";
  REQUIRE(ws.rlsim("run fast.json --out " + quote(plain.string())).status == 0);
  CHECK(read_file(plain / "report.json") == run.out);
}

TEST_CASE("output is free of escape codes when stdout is not a terminal or NO_COLOR is set") {
  const Workspace ws;
  const fs::path out = ws.dir / "out";
  for (const std::string env : {"", "NO_COLOR=1", "NO_COLOR=", "TERM=xterm-256color"}) {
    INFO("env: " << env);
    const std::vector<std::string> commands = {"run fast.json --out " + quote(out.string()),
                                               "list",
                                               "explain redis_fixed_window",
                                               "validate fast.json",
                                               "validate missing.json",
                                               "run fast.json --strategy nope"};
    for (const std::string& args : commands) {
      INFO("args: " << args);
      const auto outcome = ws.rlsim(args, env);
      CHECK(outcome.out.find('\x1b') == std::string::npos);
      CHECK(outcome.err.find('\x1b') == std::string::npos);
    }
  }
  if (!have_script()) {
    WARN("script(1) not found: the terminal cases are not checked");
    return;
  }
  // On a terminal (script(1) gives rlsim a pseudo-terminal): colour by default, none with
  // NO_COLOR.
  const auto on_tty = [&](const std::string& env) {
    const std::string run = rlsim_command("run fast.json --out " + quote(out.string()), env);
    return shell_in(ws.dir.path(), "script -qec " + quote(run) + " /dev/null");
  };
  const auto coloured = on_tty("");
  CHECK(coloured.status == 0);
  CHECK(coloured.out.find('\x1b') != std::string::npos);
  const auto plain = on_tty("NO_COLOR=1");
  CHECK(plain.status == 0);
  CHECK_THAT(plain.out, Contains("reproduce with"));
  CHECK(plain.out.find('\x1b') == std::string::npos);
}

TEST_CASE("run --strategy runs only the chosen labels") {
  const Workspace ws;
  const fs::path all = ws.dir / "all";
  REQUIRE(ws.rlsim("run fast.json --out " + quote(all.string())).status == 0);
  const json full = json::parse(read_file(all / "report.json"));

  const fs::path one = ws.dir / "one";
  const auto run = ws.rlsim("run fast.json --strategy in_memory --out " + quote(one.string()));
  REQUIRE(run.status == 0);
  CHECK_THAT(run.out,
             Contains("reproduce with: rlsim run fast.json --strategy in_memory --seed 9"));
  const json report = json::parse(read_file(one / "report.json"));
  REQUIRE(report["strategies"].size() == 1);
  CHECK(report["strategies"][0]["label"] == "in_memory");
  // Leaving strategies out changes nothing for the one that runs.
  CHECK(report["strategies"][0] == full["strategies"][0]);

  const fs::path two = ws.dir / "two";
  REQUIRE(ws.rlsim("run fast.json --strategy closed --strategy in_memory --json --out " +
                   quote(two.string()))
              .status == 0);
  const json pair = json::parse(read_file(two / "report.json"));
  REQUIRE(pair["strategies"].size() == 2);
  CHECK(pair["strategies"][0]["label"] == "closed");
  CHECK(pair["strategies"][0] == full["strategies"][2]);
  CHECK(pair["strategies"][1]["label"] == "in_memory");

  const fs::path none = ws.dir / "none";
  const auto unknown = ws.rlsim("run fast.json --strategy nope --out " + quote(none.string()));
  CHECK(unknown.status == 2);
  CHECK(unknown.out.empty());
  CHECK(count_char(unknown.err, '\n') == 1);
  CHECK_THAT(unknown.err, Contains("nope"));
  CHECK_THAT(unknown.err, Contains("in_memory"));
  CHECK(!fs::exists(none / "report.json"));
  // A strategy name that is not a label in this scenario is not accepted either.
  CHECK(ws.rlsim("run fast.json --strategy token_magic --out " + quote(none.string())).status == 2);
}

TEST_CASE("the same scenario twice gives byte-identical reports") {
  const Workspace ws;
  const fs::path a = ws.dir / "a", b = ws.dir / "b";
  REQUIRE(ws.rlsim("run fast.json --out " + quote(a.string())).status == 0);
  REQUIRE(ws.rlsim("run fast.json --out " + quote(b.string())).status == 0);
  const std::string first = read_file(a / "report.json");
  CHECK(!first.empty());
  CHECK(first == read_file(b / "report.json"));
  // Also when run from another directory and with --json.
  const TempDir elsewhere;
  const auto json_run = rlsim_in(
      elsewhere.path(),
      "run " + quote(ws.scenario.string()) + " --json --out " + quote((ws.dir / "c").string()),
      "NO_COLOR=1");
  REQUIRE(json_run.status == 0);
  CHECK(json_run.out == first);
}

TEST_CASE("run --seed overrides the scenario's seed") {
  const Workspace ws;
  const fs::path base = ws.dir / "base", five = ws.dir / "five", five_again = ws.dir / "five2";
  REQUIRE(ws.rlsim("run fast.json --out " + quote(base.string())).status == 0);
  const auto run = ws.rlsim("run fast.json --seed 5 --out " + quote(five.string()));
  REQUIRE(run.status == 0);
  CHECK_THAT(run.out, Contains("seed 5"));
  CHECK_THAT(run.out, Contains("--seed 5"));
  const json a = json::parse(read_file(base / "report.json"));
  const json b = json::parse(read_file(five / "report.json"));
  CHECK(a["seed"] == 9);
  CHECK(b["seed"] == 5);
  // Poisson traffic: another seed, other arrivals.
  CHECK(a["strategies"][0]["offered"] != b["strategies"][0]["offered"]);
  // The seed given explicitly equal to the scenario's changes nothing.
  REQUIRE(ws.rlsim("run fast.json --seed 9 --out " + quote(five_again.string())).status == 0);
  CHECK(read_file(five_again / "report.json") == read_file(base / "report.json"));
}

TEST_CASE("an unwritable report location exits 3") {
  const Workspace ws;
  write_file(ws.dir / "plainfile", "x");
  for (const std::string flags : {"", " --json"}) {
    INFO("flags: " << flags);
    const auto outcome = ws.rlsim("run fast.json" + flags + " --out " +
                                  quote((ws.dir / "plainfile" / "sub").string()));
    CHECK(outcome.status == 3);
    CHECK(outcome.out.empty());
    CHECK(count_char(outcome.err, '\n') == 1);
    CHECK_THAT(outcome.err, Contains("plainfile"));
  }
  // --out naming the regular file itself.
  CHECK(ws.rlsim("run fast.json --out " + quote((ws.dir / "plainfile").string())).status == 3);
  CHECK(read_file(ws.dir / "plainfile") == "x");
}

TEST_CASE("an output file may not be an input or another output: exit 2 naming both") {
  const Workspace ws;
  write_file(ws.dir / "fast.json", kFastScenario);
  const std::string scenario_text = kFastScenario;
  const struct {
    const char* command;
    const char* message;
  } cases[] = {
      {"run fast.json --trace fast.json", "--trace fast.json is the scenario fast.json"},
      {"run fast.json --metrics-out ./fast.json", "--metrics-out ./fast.json is the scenario"},
      {"run fast.json --trace t.jsonl --metrics-out t.jsonl",
       "--trace t.jsonl and --metrics-out t.jsonl are one file"},
      {"check fast.json --junit fast.json", "--junit fast.json is the scenario fast.json"},
  };
  for (const auto& c : cases) {
    INFO(c.command);
    const auto outcome = ws.rlsim(c.command);
    CHECK(outcome.status == 2);
    CHECK_THAT(outcome.err, Contains(c.message));
    CHECK(read_file(ws.dir / "fast.json") == scenario_text);
  }
  CHECK_FALSE(fs::exists(ws.dir / "t.jsonl"));
  for (const char* empty : {"run fast.json --trace ''", "run fast.json --metrics-out ''",
                            "check fast.json --junit ''"}) {
    INFO(empty);
    const auto outcome = ws.rlsim(empty);
    CHECK(outcome.status == 2);
    CHECK_THAT(outcome.err, Contains("expected a file name, got an empty one"));
  }
}

TEST_CASE("run --metrics-out writes the same OpenMetrics file twice, --metrics-epoch moves it") {
  const Workspace ws;
  const fs::path plain = ws.dir / "plain", a = ws.dir / "a", b = ws.dir / "b";
  REQUIRE(ws.rlsim("run fast.json --out " + quote(plain.string())).status == 0);
  const auto run = ws.rlsim("run fast.json --out " + quote(a.string()) + " --metrics-out a.om");
  REQUIRE(run.status == 0);
  REQUIRE(
      ws.rlsim("run fast.json --json --out " + quote(b.string()) + " --metrics-out b.om").status ==
      0);
  const std::string text = read_file(ws.dir / "a.om");
  CHECK(text == read_file(ws.dir / "b.om"));
  CHECK_THAT(text, StartsWith("# TYPE rlsim_decisions counter\n"));
  CHECK(text.substr(text.size() - 6) == "# EOF\n");
  // The first window starts at virtual time 0, written at the default epoch 2025-06-16T00:00:00Z.
  CHECK_THAT(text, Contains(R"(strategy="in_memory",outcome="allowed"} 0 1750032000)"));
  // The report is the same with and without the option.
  CHECK(read_file(a / "report.json") == read_file(plain / "report.json"));
  // 2026-01-01T00:00:00Z: every timestamp moves by the difference, nothing else changes.
  REQUIRE(ws.rlsim("run fast.json --out " + quote(b.string()) +
                   " --metrics-out c.om --metrics-epoch 1767225600")
              .status == 0);
  const std::string moved = read_file(ws.dir / "c.om");
  CHECK_THAT(moved, Contains(R"(strategy="in_memory",outcome="allowed"} 0 1767225600)"));
  CHECK(moved.find(" 17500") == std::string::npos);
  CHECK(count_char(moved, '\n') == count_char(text, '\n'));
}

TEST_CASE("a metrics file that cannot be written exits 3 before the run, bad epochs exit 2") {
  const Workspace ws;
  fs::create_directories(ws.dir / "adir");
  for (const std::string target : {"missing/m.om", "adir"}) {
    INFO("--metrics-out " << target);
    const auto outcome = ws.rlsim("run fast.json --out out --metrics-out " + target);
    CHECK(outcome.status == 3);
    CHECK(outcome.out.empty());
    CHECK(count_char(outcome.err, '\n') == 1);
    CHECK_THAT(outcome.err, StartsWith("rlsim: cannot write the metrics file: " + target));
    CHECK_FALSE(fs::exists(ws.dir / "out"));  // checked before the run: no report either
  }
  CHECK(ws.rlsim("run fast.json --out out --metrics-epoch 1767225600").status == 2);
  CHECK(ws.rlsim("run fast.json --out out --metrics-out m.om --metrics-epoch -1").status == 2);
  CHECK_FALSE(fs::exists(ws.dir / "m.om"));
}

// ---------------------------------------------------------------------------------------------
// check
// ---------------------------------------------------------------------------------------------

namespace {

// fast.json with an expect list: `holding` expectations that hold for every seed and, when
// `failing`, one that fails (redis_fixed_window's overshoot is 1, never 0.5 or less).
std::string fast_with_expect(bool failing) {
  json j = json::parse(kFastScenario);
  j["expect"] = json::parse(R"([
    {"strategy": "in_memory", "metric": "overshoot", "min": 1.5},
    {"strategy": "redis_fixed_window", "metric": "excess", "equals": 0},
    {"metric": "excess", "less": ["closed", "in_memory"]}
  ])");
  if (failing) {
    j["expect"].push_back({{"strategy", "redis_fixed_window"},
                           {"metric", "overshoot"},
                           {"max", 0.5},
                           {"description", "deliberately wrong"}});
  }
  return j.dump(2);
}

}  // namespace

TEST_CASE("check exits 0 when every expectation holds and prints a summary") {
  const Workspace ws;
  write_file(ws.dir / "good.json", fast_with_expect(false));
  const auto outcome = ws.rlsim("check good.json");
  CHECK(outcome.status == 0);
  CHECK(outcome.err.empty());
  CHECK(outcome.out ==
        "ok   fast (good.json), seed 9: 3 passed\n"
        "rlsim check: 1 scenario(s): 3 passed\n");
  // check writes no report.
  CHECK(!fs::exists(ws.dir / "reports"));
}

TEST_CASE("check exits 1 on a failed expectation, naming the value, the bound and the command") {
  const Workspace ws;
  write_file(ws.dir / "bad.json", fast_with_expect(true));
  const auto outcome = ws.rlsim("check bad.json");
  CHECK(outcome.status == 1);
  CHECK(outcome.err.empty());
  CHECK_THAT(outcome.out, StartsWith("FAIL fast (bad.json), seed 9: 1 failed, 3 passed\n"));
  CHECK_THAT(outcome.out, Contains("  FAIL expect[3] redis_fixed_window overshoot <= 0.5 (seed 9): "
                                   "redis_fixed_window overshoot is 1, expected <= 0.5\n"
                                   "       why: deliberately wrong\n"
                                   "       reproduce: rlsim check bad.json --seed 9 --strategy "
                                   "redis_fixed_window\n"));
  CHECK_THAT(outcome.out, Contains("rlsim check: 1 scenario(s): 1 failed, 3 passed\n"));

  // The printed command reproduces the failure, and only the expectations of that strategy run.
  const auto again = ws.rlsim("check bad.json --seed 9 --strategy redis_fixed_window");
  CHECK(again.status == 1);
  CHECK_THAT(again.out, StartsWith("FAIL fast (bad.json), seed 9: 1 failed, 1 passed, 2 skipped"));
  // Selecting only strategies whose expectations hold passes.
  CHECK(ws.rlsim("check bad.json --strategy in_memory").status == 0);
}

TEST_CASE("check exits 2 on bad input, before printing any result") {
  const Workspace ws;
  json unknown_metric = json::parse(fast_with_expect(true));
  unknown_metric["expect"][2]["metric"] = "limits.per_usr.excess";
  write_file(ws.dir / "metric.json", unknown_metric.dump());
  json unknown_label = json::parse(fast_with_expect(false));
  unknown_label["expect"][1]["strategy"] = "redis";
  write_file(ws.dir / "label.json", unknown_label.dump());
  write_file(ws.dir / "good.json", fast_with_expect(false));

  const auto metric = ws.rlsim("check good.json metric.json");
  CHECK(metric.status == 2);
  CHECK(metric.out.empty());
  CHECK(metric.err ==
        "rlsim: metric.json: expect[2].metric: \"limits.per_usr.excess\" is not a metric in the "
        "report of strategy \"closed\": limits has no entry named \"per_usr\" (names: "
        "per_user)\n");

  const auto label = ws.rlsim("check label.json");
  CHECK(label.status == 2);
  CHECK(label.out.empty());
  CHECK_THAT(label.err, StartsWith("rlsim: label.json: expect[1].strategy: no strategy labelled "
                                   "\"redis\" in this scenario"));

  for (const char* args :
       {"check", "check missing.json", "check good.json --seeds 0", "check good.json --seeds x",
        "check good.json --seed -1", "check good.json --strategy nope",
        "check good.json --strategy closed --strategy closed", "check good.json --baseline",
        "check good.json --baseline missing.json", "check good.json --baseline good.json",
        "check good.json --seed 18446744073709551615 --seeds 2", "check good.json --nope"}) {
    INFO("rlsim " << args);
    const auto outcome = ws.rlsim(args);
    CHECK(outcome.status == 2);
    CHECK(outcome.out.empty());
    CHECK(!outcome.err.empty());
  }
}

TEST_CASE("check --json prints a machine-readable result") {
  const Workspace ws;
  write_file(ws.dir / "bad.json", fast_with_expect(true));
  const auto outcome = ws.rlsim("check bad.json --json");
  CHECK(outcome.status == 1);
  json result;
  REQUIRE_NOTHROW(result = json::parse(outcome.out));
  CHECK(result["result"] == "failed");
  CHECK(result["passed"] == 3);
  CHECK(result["failed"] == 1);
  REQUIRE(result["scenarios"].size() == 1);
  const json& suite = result["scenarios"][0];
  CHECK(suite["file"] == "bad.json");
  CHECK(suite["scenario"] == "fast");
  CHECK(suite["seeds"] == json{9});
  REQUIRE(suite["cases"].size() == 4);
  const json& failed = suite["cases"][3];
  CHECK(failed["status"] == "failed");
  CHECK(failed["kind"] == "expectation");
  CHECK(failed["values"]["redis_fixed_window"] == 1.0);
  CHECK(failed["reproduce"] == "rlsim check bad.json --seed 9 --strategy redis_fixed_window");
}

TEST_CASE("check --seeds N checks every expectation for seeds s..s+N-1") {
  const Workspace ws;
  write_file(ws.dir / "bad.json", fast_with_expect(true));
  const auto outcome = ws.rlsim("check bad.json --seeds 3 --seed 100 --json");
  CHECK(outcome.status == 1);
  const json result = json::parse(outcome.out);
  CHECK(result["passed"] == 9);
  CHECK(result["failed"] == 3);
  const json& suite = result["scenarios"][0];
  CHECK(suite["seeds"] == json{100, 101, 102});
  REQUIRE(suite["cases"].size() == 12);
  for (std::size_t i = 0; i < 12; ++i) CHECK(suite["cases"][i]["seed"] == 100 + i / 4);
  CHECK(suite["cases"][7]["reproduce"] ==
        "rlsim check bad.json --seed 101 --strategy redis_fixed_window");
  // Without --seed, the scenario's seed is the first.
  const json plain = json::parse(ws.rlsim("check bad.json --seeds 2 --json").out);
  CHECK(plain["scenarios"][0]["seeds"] == json{9, 10});
  // Different seeds, different traffic: the measured values differ somewhere.
  CHECK(suite["cases"][0]["values"] != suite["cases"][4]["values"]);
}

TEST_CASE("check --junit writes one testcase per expectation and seed") {
  const Workspace ws;
  write_file(ws.dir / "bad.json", fast_with_expect(true));
  write_file(ws.dir / "good.json", fast_with_expect(false));
  const auto outcome = ws.rlsim("check good.json bad.json --seeds 2 --junit out.xml");
  CHECK(outcome.status == 1);
  const std::string xml = read_file(ws.dir / "out.xml");
  CHECK_THAT(xml, StartsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"rlsim "
                             "check\" tests=\"14\" failures=\"2\" skipped=\"0\" errors=\"0\">\n"));
  CHECK_THAT(xml, Contains("<testsuite name=\"fast\" tests=\"6\" failures=\"0\""));
  CHECK_THAT(xml, Contains("<testsuite name=\"fast\" tests=\"8\" failures=\"2\""));
  CHECK_THAT(xml, Contains("<property name=\"file\" value=\"bad.json\"/>"));
  CHECK_THAT(xml, Contains("name=\"expect[3] redis_fixed_window overshoot &lt;= 0.5 (seed 10)\""));
  CHECK_THAT(xml, Contains("<property name=\"seed\" value=\"10\"/>"));
  CHECK_THAT(xml, Contains("<failure type=\"expectation\" message=\"redis_fixed_window overshoot "
                           "is 1, expected &lt;= 0.5\">"));
  CHECK(std::count(xml.begin(), xml.end(), '\n') > 14);
  // The same run writes the same bytes.
  REQUIRE(ws.rlsim("check good.json bad.json --seeds 2 --junit again.xml").status == 1);
  CHECK(read_file(ws.dir / "again.xml") == xml);
  if (std::system("command -v xmllint >/dev/null 2>&1") == 0) {
    CHECK(ws.rlsim("check good.json --junit pass.xml").status == 0);
    CHECK(shell_in(ws.dir.path(), "xmllint --noout out.xml pass.xml").status == 0);
  } else {
    WARN("xmllint not found: well-formedness is checked in test_check only");
  }
  // An unwritable JUnit file exits 3.
  write_file(ws.dir / "plainfile", "x");
  const auto unwritable = ws.rlsim("check good.json --junit plainfile/x.xml");
  CHECK(unwritable.status == 3);
  CHECK_THAT(unwritable.err, Contains("plainfile/x.xml"));
}

// Every bundled scenario runs once here, under whatever build runs the tests (the suite's is ASan +
// UBSan, which found a read of an empty optional in doorman this way); tests/run-all.sh checks each
// scenario's determinism with the release program (`rlsim check --check-determinism`). Two cases,
// the scenarios at even and at odd places, so that CTest runs the halves side by side (under ASan
// this is the suite's longest test).
namespace {

void check_every_other_scenario(std::size_t first) {
  const Workspace ws;
  const auto scenarios = shipped_scenarios();
  std::string args = "check --json";
  std::size_t checked = 0;
  for (std::size_t index = first; index < scenarios.size(); index += 2) {
    args += " " + quote(scenarios[index].string());
    ++checked;
  }
  REQUIRE(checked >= 1);
  const auto outcome = ws.rlsim(args);
  INFO(outcome.out << outcome.err);
  CHECK(outcome.status == 0);
  const json result = json::parse(outcome.out);
  CHECK(result["result"] == "passed");
  CHECK(result["failed"] == 0);
  // Every bundled scenario carries expectations for its headline claim (issue 8).
  REQUIRE(result["scenarios"].size() == checked);
  for (const auto& suite : result["scenarios"]) {
    INFO(suite["file"].get<std::string>() << " needs an \"expect\" list");
    std::size_t expectations = 0;
    for (const auto& c : suite["cases"]) expectations += c["kind"] == "expectation";
    CHECK(expectations >= 1);
  }
}

}  // namespace

TEST_CASE("check passes on every bundled scenario at an even place, each with expectations",
          "[every_scenario_even]") {
  check_every_other_scenario(0);
}

TEST_CASE("check passes on every bundled scenario at an odd place, each with expectations",
          "[every_scenario_odd]") {
  check_every_other_scenario(1);
}

TEST_CASE("check --check-determinism adds one determinism case per strategy") {
  const Workspace ws;
  write_file(ws.dir / "good.json", fast_with_expect(false));
  const auto outcome = ws.rlsim("check --check-determinism --json good.json");
  INFO(outcome.out << outcome.err);
  CHECK(outcome.status == 0);
  const json result = json::parse(outcome.out);
  REQUIRE(result["scenarios"].size() == 1);
  std::size_t determinism = 0;
  for (const auto& c : result["scenarios"][0]["cases"]) determinism += c["kind"] == "determinism";
  CHECK(determinism == json::parse(kFastScenario)["strategies"].size());
  CHECK(result["passed"] == 3 + determinism);
}

TEST_CASE("check's --strategy and --baseline take one value each, so scenarios may follow") {
  const Workspace ws;
  write_file(ws.dir / "good.json", fast_with_expect(false));
  REQUIRE(ws.rlsim("run good.json --out base").status == 0);
  const auto outcome =
      ws.rlsim("check --strategy in_memory --baseline base/report.json good.json fast.json");
  CHECK(outcome.status == 0);
  CHECK_THAT(outcome.out, StartsWith("ok   fast (good.json), seed 9: 2 passed, 2 skipped\n"));
  CHECK_THAT(outcome.out, Contains("ok   fast (fast.json), seed 9: 1 passed\n"));
}

TEST_CASE("run --check-determinism runs twice and says so; --json stays pure JSON") {
  const Workspace ws;
  const auto outcome = ws.rlsim("run fast.json --check-determinism --out a");
  CHECK(outcome.status == 0);
  CHECK_THAT(outcome.out, Contains("determinism: ok"));
  const auto as_json = ws.rlsim("run fast.json --check-determinism --json --out b");
  CHECK(as_json.status == 0);
  CHECK(as_json.out == read_file(ws.dir / "a" / "report.json"));
}

TEST_CASE("run prints a one-line verdict of the scenario's expectations") {
  const Workspace ws;
  write_file(ws.dir / "bad.json", fast_with_expect(true));
  const auto outcome = ws.rlsim("run bad.json --out a");
  CHECK(outcome.status == 0);  // run reports; check judges
  CHECK_THAT(outcome.out,
             Contains("expectations: 3 hold, 1 fail (details: rlsim check bad.json --seed 9)\n"));
  const auto selected = ws.rlsim("run bad.json --strategy in_memory --out b");
  CHECK_THAT(selected.out, Contains("expectations: 1 hold, 0 fail"));
  // No expectations, no line.
  CHECK(ws.rlsim("run fast.json --out c").out.find("expectations:") == std::string::npos);
}

TEST_CASE("run --set changes a field, records it in the report and the commands that repeat it") {
  const Workspace ws;
  REQUIRE(ws.rlsim("run fast.json --strategy in_memory --out base").status == 0);
  const auto run = ws.rlsim(
      "run fast.json --strategy in_memory --set instances.count=1 --set "
      "'instances.schedule[0].count=1' --set 'redis.rtt=1ms' --out one");
  REQUIRE(run.status == 0);
  INFO(run.out);
  CHECK_THAT(run.out, StartsWith("rlsim: fast --set instances.count=1 --set "
                                 "instances.schedule[0].count=1 --set redis.rtt=1ms\n"));
  CHECK_THAT(run.out, Contains("reproduce with: rlsim run fast.json --set instances.count=1 --set "
                               "'instances.schedule[0].count=1' --set redis.rtt=1ms --strategy "
                               "in_memory --seed 9\n"));
  const json report = json::parse(read_file(ws.dir / "one" / "report.json"));
  CHECK(report["set"] ==
        json::array({"instances.count=1", "instances.schedule[0].count=1", "redis.rtt=1ms"}));
  // One instance: in_memory about at the limit (its clock is off by up to 5 ms, so a little
  // over); the unchanged file has 3, then 4 instances.
  CHECK(report["strategies"][0]["overshoot"].get<double>() < 1.2);
  const json base = json::parse(read_file(ws.dir / "base" / "report.json"));
  CHECK(!base.contains("set"));
  CHECK(base["strategies"][0]["overshoot"].get<double>() > 2.5);
  // The reproduce command gives the same report.
  REQUIRE(ws.rlsim("run fast.json --set instances.count=1 --set 'instances.schedule[0].count=1' "
                   "--set redis.rtt=1ms --strategy in_memory --seed 9 --out again")
              .status == 0);
  CHECK(read_file(ws.dir / "again" / "report.json") == read_file(ws.dir / "one" / "report.json"));
}

TEST_CASE("check and validate take --set too; bad settings exit 2 naming the path") {
  const Workspace ws;
  const auto valid = ws.rlsim("validate fast.json --set instances.count=7 --set duration=1m30s");
  CHECK(valid.status == 0);
  CHECK(valid.out ==
        "fast.json with --set instances.count=7 --set duration=1m30s: ok: scenario "
        "\"fast\", 1 limit(s), 1 traffic group(s), 3 strategy(ies)\n");
  write_file(ws.dir / "bad.json", fast_with_expect(true));
  const auto check = ws.rlsim("check bad.json --set instances.count=2");
  CHECK(check.status == 1);
  CHECK_THAT(check.out,
             Contains("reproduce: rlsim check bad.json --set instances.count=2 --seed 9"));
  struct Bad {
    std::string args;
    std::string message;
  };
  for (const Bad& bad : std::vector<Bad>{
           {"--set instances.count=0",
            "rlsim: fast.json with --set instances.count=0: instances.count: expected an integer "
            "from 1 to "},
           {"--set instances.count=2,5",
            "rlsim: --set instances.count: 2 values; give one (rlsim sweep runs a list of "
            "values)\n"},
           {"--set instances.count=2 --set instances.count=3",
            "rlsim: --set instances.count: this path is given twice\n"},
           {"--set 'limits[4].limit=3'",
            "rlsim: --set limits[4].limit: limits has 1 entries, no [4]\n"},
           {"--set name.x=1", "rlsim: --set name.x: name is a string, not an object\n"},
           {"--set 'a..b=1'", "rlsim: --set a..b=1: \"a..b\" is not a path"},
           {"--set duration=9m30",
            "rlsim: fast.json with --set duration=9m30: duration: expected a "
            "duration such as \"250us\""}}) {
    for (const std::string command : {"run", "check", "validate"}) {
      INFO(command << " " << bad.args);
      const auto outcome =
          ws.rlsim(command + " fast.json " + bad.args + (command == "run" ? " --out x" : ""));
      CHECK(outcome.status == 2);
      CHECK(outcome.out.empty());
      CHECK(count_char(outcome.err, '\n') == 1);
      CHECK_THAT(outcome.err, StartsWith(bad.message));
      CHECK(!fs::exists(ws.dir / "x"));
    }
  }
}

TEST_CASE("run --set instances.count=25 on overshoot-10x says why it is 20.45x, not 25x") {
  const Workspace ws;
  const auto run = ws.rlsim("run " + quote((kScenarios / "overshoot-10x.json").string()) +
                            " --set instances.count=25 --strategy in_memory --out o");
  REQUIRE(run.status == 0);
  INFO(run.out);
  const json report = json::parse(read_file(ws.dir / "o" / "report.json"));
  const json& in_memory = report["strategies"][0];
  CHECK(in_memory["overshoot"] == 20.45);
  const json& cap = in_memory["overshoot_cap"];
  CHECK(cap["instances"] == 25);
  CHECK(cap["instance_ceiling"] == 2500);
  CHECK(cap["offered_per_window"] == 2000);
  const std::string reason = cap["reason"].get<std::string>();
  CHECK(reason ==
        "in_memory: 20.45x, not 25x: 25 instances x 100 could admit 2500 per 1m window; the "
        "busiest user sends ~2000 (20x)");
  CHECK_THAT(run.out, Contains("\n" + reason + "\n"));
  // Ten instances reach their ceiling: nothing to explain.
  const auto ten = ws.rlsim("run " + quote((kScenarios / "overshoot-10x.json").string()) +
                            " --strategy in_memory --out t");
  REQUIRE(ten.status == 0);
  CHECK(!json::parse(read_file(ws.dir / "t" / "report.json"))["strategies"][0].contains(
      "overshoot_cap"));
  CHECK(ten.out.find("could admit") == std::string::npos);
}

TEST_CASE("run and check reject a --strategy label given twice") {
  const Workspace ws;
  for (const std::string command : {"run", "check"}) {
    const auto outcome = ws.rlsim(command + " fast.json --strategy closed --strategy closed");
    CHECK(outcome.status == 2);
    CHECK(outcome.err == "rlsim: --strategy closed: given twice\n");
  }
}

TEST_CASE("check --baseline passes against its own report and names each changed metric") {
  const Workspace ws;
  write_file(ws.dir / "good.json", fast_with_expect(false));
  REQUIRE(ws.rlsim("run good.json --out base").status == 0);
  const auto same = ws.rlsim("check good.json --baseline base/report.json");
  CHECK(same.status == 0);
  CHECK_THAT(same.out, Contains("ok   fast (good.json), seed 9: 6 passed"));

  json tampered = json::parse(read_file(ws.dir / "base" / "report.json"));
  const double overshoot = tampered["strategies"][1]["overshoot"].get<double>();
  tampered["strategies"][1]["overshoot"] = overshoot - 0.25;
  const std::int64_t allowed = tampered["strategies"][0]["allowed"].get<std::int64_t>();
  tampered["strategies"][0]["allowed"] = allowed + 100;
  write_file(ws.dir / "tampered.json", tampered.dump(2));
  const auto changed = ws.rlsim("check good.json --baseline tampered.json");
  CHECK(changed.status == 1);
  CHECK_THAT(changed.out,
             Contains("  FAIL baseline in_memory (seed 9): in_memory against tampered.json: 1 of"));
  CHECK_THAT(changed.out, Contains("       allowed: " + std::to_string(allowed + 100) + " -> " +
                                   std::to_string(allowed) + " (tolerance +-0.5% = +-"));
  CHECK_THAT(changed.out, Contains("       overshoot: 0.75 -> 1 (tolerance +-0.01)\n"));
  CHECK_THAT(changed.out, Contains("reproduce: rlsim check good.json --seed 9 --strategy "
                                   "redis_fixed_window --baseline tampered.json\n"));

  CHECK(overshoot == 1.0);  // the central counter holds the limit exactly
  // A baseline of another seed, or of a scenario not checked, is bad input.
  tampered["seed"] = 10;
  write_file(ws.dir / "seed10.json", tampered.dump());
  CHECK(ws.rlsim("check good.json --baseline seed10.json").status == 2);
  CHECK(ws.rlsim("check good.json --baseline seed10.json --seeds 2").status == 1);
  tampered["scenario"] = "other";
  write_file(ws.dir / "other.json", tampered.dump());
  const auto other = ws.rlsim("check good.json --baseline other.json");
  CHECK(other.status == 2);
  CHECK(other.err ==
        "rlsim: other.json: no scenario named \"other\" among the scenarios checked\n");
}

TEST_CASE("check --baseline reads its file with the guards of scenario files") {
  const Workspace ws;
  write_file(ws.dir / "good.json", kFastScenario);
  REQUIRE(shell_in(ws.dir.path(), "mkfifo pipe.json").status == 0);
  const auto pipe = ws.rlsim("check good.json --baseline pipe.json");
  CHECK(pipe.status == 2);
  CHECK_THAT(pipe.err, Contains("--baseline: pipe.json: cannot read the file: a named pipe"));
  write_file(ws.dir / "deep.json", std::string(1 << 20, '['));
  const auto deep = ws.rlsim("check good.json --baseline deep.json");
  CHECK(deep.status == 2);
  CHECK_THAT(deep.err, Contains("--baseline: deep.json: nested more than 64 deep"));
  const auto zero = ws.rlsim("check good.json --baseline /dev/zero");
  CHECK(zero.status == 2);
  CHECK_THAT(zero.err, Contains("a device, not a regular file"));
}

TEST_CASE("bench reports figures next to the bare loop, custom_lua included; bad names exit 2") {
  const Workspace ws;
  const auto bench = ws.rlsim("bench --requests 2000 --strategy in_memory");
  CHECK(bench.status == 0);
  CHECK_THAT(bench.out, Contains("(bare event loop)"));
  CHECK_THAT(bench.out, Contains("\nin_memory "));
  CHECK_THAT(bench.out, Contains("vs_bare"));
  const auto unknown = ws.rlsim("bench --requests 2000 --strategy token_magic");
  CHECK(unknown.status == 2);
  CHECK_THAT(unknown.err, Contains("unknown strategy \"token_magic\""));
  // custom_lua runs the bench's own fixed-window script: a row like any other strategy's.
  const auto custom = ws.rlsim("bench --requests 2000 --strategy custom_lua");
  CHECK(custom.status == 0);
  CHECK_THAT(custom.out, Contains("\ncustom_lua "));
  CHECK_THAT(custom.err, !Contains("failed"));
}

// ---------------------------------------------------------------------------------------------
// Hostile files (issue 21): a scenario someone hands you must not write outside reports/, drive
// the terminal, exhaust memory, block, or make rlsim read files that are not its input.
// ---------------------------------------------------------------------------------------------

namespace {

// kFastScenario with its top-level "name" and an added "description".
std::string fast_scenario_named(const std::string& name_json, const std::string& description_json) {
  json j = json::parse(kFastScenario);
  j["name"] = json::parse(name_json);
  j["description"] = json::parse(description_json);
  return j.dump();
}

// A custom_lua scenario whose script parameter is `script` (a JSON string).
std::string script_scenario(const std::string& script) {
  return R"({"name": "s", "duration": "2s",
    "limits": [{"name": "l", "limit": 5, "window": "1s"}],
    "instances": {"count": 1}, "traffic": [{"name": "g", "rate": "2/s"}],
    "strategies": [{"name": "custom_lua", "script": )" +
         script + R"(, "keys": ["k"]}]})";
}

}  // namespace

TEST_CASE("a scenario named .. or a path is rejected and writes nothing outside reports/") {
  const Workspace ws;
  for (const std::string name : {"..", ".", ".hidden", "a/b", "/tmp", "..%2f"}) {
    INFO(name);
    write_file(ws.dir / "dots.json", fast_scenario_named(json(name).dump(), "\"\""));
    const auto outcome = ws.rlsim("run dots.json");
    CHECK(outcome.status == 2);
    CHECK_THAT(outcome.err, StartsWith("rlsim: dots.json: name: expected 1 to 64 characters from "
                                       "[A-Za-z0-9_.-], not starting with '.', got"));
    CHECK(!fs::exists(ws.dir / "report.json"));
    CHECK(!fs::exists(ws.dir / "report.md"));
    CHECK(!fs::exists(ws.dir / "reports"));
  }
  // A name with dots inside is still fine, and its report goes under reports/.
  write_file(ws.dir / "ok.json", fast_scenario_named("\"v1.2-final_b\"", "\"\""));
  CHECK(ws.rlsim("run ok.json --strategy in_memory").status == 0);
  CHECK(fs::exists(ws.dir / "reports" / "v1.2-final_b" / "report.json"));
}

TEST_CASE("escape sequences in a scenario never reach the terminal raw") {
  const Workspace ws;
  // ESC [ 2J clears the screen, OSC 0 sets the window title, OSC 52 writes the clipboard, and
  // U+009B is CSI in its 8-bit form.
  const std::string hostile =
      R"("x\u001b[2J\u001b]0;pwned\u0007\u001b]52;c;aGk=\u0007\u009b31m\r")";
  write_file(ws.dir / "desc.json", fast_scenario_named("\"desc\"", hostile));
  const auto run = ws.rlsim("run desc.json --strategy in_memory");
  REQUIRE(run.status == 0);
  CHECK(run.out.find('\x1b') == std::string::npos);
  CHECK(run.out.find('\a') == std::string::npos);
  CHECK(run.out.find("\xc2\x9b") == std::string::npos);
  CHECK_THAT(run.out, Contains(R"(x\x1b[2J\x1b]0;pwned\x07\x1b]52;c;aGk=\x07\xc2\x9b31m\x0d)"));

  // The same text in a name is rejected, and the message quoting it is escaped too.
  write_file(ws.dir / "name.json", fast_scenario_named(hostile, "\"\""));
  const auto bad = ws.rlsim("validate name.json");
  CHECK(bad.status == 2);
  CHECK(bad.err.find('\x1b') == std::string::npos);
  CHECK(count_char(bad.err, '\n') == 1);
  CHECK_THAT(bad.err, Contains(R"(got "x\x1b[2J\x1b]0;pwned)"));

  // An expectation's description, printed by check when it fails.
  json j = json::parse(kFastScenario);
  j["expect"] = json::array({{{"strategy", "in_memory"},
                              {"metric", "overshoot"},
                              {"max", 0.001},
                              {"description", "why\u001b]0;t\u0007"}}});
  write_file(ws.dir / "expect.json", j.dump());
  const auto check = ws.rlsim("check expect.json");
  CHECK(check.status == 1);
  CHECK(check.out.find('\x1b') == std::string::npos);
  CHECK_THAT(check.out, Contains(R"(why\x1b]0;t\x07)"));
}

TEST_CASE("deeply nested JSON stops at the nesting bound in bounded memory") {
  const Workspace ws;
  // 16 MiB of '[' took 1.44 GB before exit 2; now the parser stops at level 33.
  write_file(ws.dir / "deep.json", std::string(16 * 1024 * 1024 - 1, '['));
  const auto deep = ws.rlsim("validate deep.json");
  CHECK(deep.status == 2);
  CHECK(deep.err == "rlsim: deep.json:1:33: arrays and objects nested deeper than 32 levels\n");
  // The peak memory of this one rlsim process, far below the old 1.44 GB. Measured with wait4 on
  // its own pid: getrusage(RUSAGE_CHILDREN) is the largest child of the whole test program, which
  // under ASan is the every-scenario `check` (1.26 GB). Reading a 16 MiB file needs 16 MiB; 400 MB
  // leaves room for a sanitizer build's overhead (250 MB measured).
  const pid_t pid = ::fork();
  REQUIRE(pid != -1);
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec; no Catch macros in the child.
    const int null_fd = ::open("/dev/null", O_WRONLY);
    if (::chdir(ws.dir.path().c_str()) != 0 || null_fd == -1 ||
        ::dup2(null_fd, STDERR_FILENO) == -1) {
      ::_exit(126);
    }
    ::execl(kBinary.c_str(), kBinary.c_str(), "validate", "deep.json", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  rusage usage{};
  REQUIRE(::wait4(pid, &status, 0, &usage) == pid);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 2));
  CHECK(usage.ru_maxrss < 400 * 1024);  // KiB
}

TEST_CASE("a number out of range is rejected with its line, column and path") {
  const Workspace ws;
  write_file(ws.dir / "big.json", "{\n  \"seed\": \"x\",\n  \"duration\": 1e400\n}");
  const auto outcome = ws.rlsim("validate big.json");
  CHECK(outcome.status == 2);
  CHECK(outcome.err ==
        "rlsim: big.json:3:15: duration: number out of range (beyond a double's 1.8e308): "
        "1e400\n");
}

TEST_CASE("a named pipe, a device or a directory is refused at once, as scenario or script") {
  const Workspace ws;
  REQUIRE(::mkfifo((ws.dir / "pipe.json").c_str(), 0600) == 0);
  REQUIRE(::mkfifo((ws.dir / "pipe.lua").c_str(), 0600) == 0);
  fs::create_directories(ws.dir / "dir.lua");
  // Before the fix, opening the FIFO blocked forever waiting for a writer (`timeout` exits 124).
  const auto pipe =
      shell_in(ws.dir.path(), "timeout 20 " + rlsim_command("validate pipe.json", ""));
  CHECK(pipe.status == 2);
  CHECK(pipe.err ==
        "rlsim: pipe.json: cannot read the file: a named pipe (FIFO), not a regular file\n");
  const auto zero = ws.rlsim("validate /dev/zero");
  CHECK(zero.err == "rlsim: /dev/zero: cannot read the file: a device, not a regular file\n");

  const struct {
    const char* script;
    std::string message;
  } scripts[] = {
      {"pipe.lua", "a named pipe (FIFO), not a regular file"},
      {"dir.lua", "a directory, not a regular file"},
      {"missing.lua", "no such file"},
  };
  for (const auto& c : scripts) {
    INFO(c.script);
    write_file(ws.dir / "script.json", script_scenario(json(c.script).dump()));
    const auto outcome =
        shell_in(ws.dir.path(), "timeout 20 " + rlsim_command("validate script.json", ""));
    CHECK(outcome.status == 2);
    // Relative to the scenario's folder, here the current one.
    const std::string path = c.script[0] == '/' ? c.script : "./" + std::string(c.script);
    CHECK(outcome.err == "rlsim: script.json: strategies[0].script: cannot read script file " +
                             path + ": " + c.message + "\n");
  }
}

TEST_CASE("a scenario alone never makes rlsim connect: redis.url needs --real-redis or --redis") {
  const Workspace ws;
  json j = json::parse(kFastScenario);
  j["redis"]["url"] = "redis://user:secret@127.0.0.1:1";
  write_file(ws.dir / "remote.json", j.dump());
  for (const char* command : {"run remote.json", "check remote.json", "run remote.json --json"}) {
    INFO(command);
    const auto refused = ws.rlsim(command);
    CHECK(refused.status == 2);
    CHECK_THAT(refused.err, Contains("remote.json: the scenario names a real Redis (redis.url "
                                     "redis://127.0.0.1:1); rlsim connects to a server only when "
                                     "the command line says so: add --real-redis"));
    CHECK(refused.err.find("secret") == std::string::npos);
  }
  // Opted in on the command line: rlsim tries the server (nothing listens on port 1).
  CHECK(ws.rlsim("run remote.json --real-redis").status == 5);
  j["redis"].erase("url");
  j["redis"]["cluster_url"] = "127.0.0.1:1";
  write_file(ws.dir / "cluster.json", j.dump());
  CHECK_THAT(ws.rlsim("run cluster.json").err,
             Contains("names a real Redis Cluster (redis.cluster_url 127.0.0.1:1)"));
}

TEST_CASE("a message quoting a huge value is cut in the middle, control characters escaped") {
  const Workspace ws;
  json j = json::parse(kFastScenario);
  j["limits"][0]["key"] = std::string(100000, 'k') + "\x1b[2J";
  write_file(ws.dir / "long.json", j.dump());
  const auto outcome = ws.rlsim("validate long.json");
  CHECK(outcome.status == 2);
  CHECK(outcome.err.size() < 1200);
  CHECK_THAT(outcome.err, Contains("characters cut]..."));
  CHECK(outcome.err.find('\x1b') == std::string::npos);
  CHECK_THAT(outcome.err, StartsWith("rlsim: long.json: limits[0].key: "));
}

TEST_CASE("a script must be a .lua file of at most 1 MiB: /etc/shadow is not read") {
  const Workspace ws;
  write_file(ws.dir / "script.json", script_scenario("\"/etc/shadow\""));
  const auto shadow = ws.rlsim("validate script.json");
  CHECK(shadow.status == 2);
  CHECK_THAT(shadow.err, Contains("strategies[0].script: "));
  CHECK_THAT(shadow.err, Contains("/etc/shadow"));
  CHECK(shadow.err.find("root:") == std::string::npos);

  write_file(ws.dir / "notes.txt", "return 1\n");
  write_file(ws.dir / "script.json", script_scenario("\"notes.txt\""));
  CHECK(ws.rlsim("validate script.json").err ==
        "rlsim: script.json: strategies[0].script: script file ./notes.txt is not a .lua file "
        "(its name must end in .lua)\n");

  write_file(ws.dir / "big.lua", std::string(1024 * 1024 + 1, '-'));
  write_file(ws.dir / "script.json", script_scenario("\"big.lua\""));
  CHECK(ws.rlsim("validate script.json").err ==
        "rlsim: script.json: strategies[0].script: cannot read script file ./big.lua: larger "
        "than 1 MiB\n");
}

TEST_CASE("scenario files may carry comments, for every command that reads them") {
  const Workspace ws;
  const std::string commented = std::string("// a class's annotated copy\n") + kFastScenario;
  std::string text = commented;
  text.insert(text.find("\"duration\""), "/* five seconds: \"}\" is fine in here */ ");
  write_file(ws.dir / "c.json", text);
  CHECK(ws.rlsim("validate c.json").status == 0);
  CHECK(ws.rlsim("run c.json --out out --strategy in_memory").status == 0);
  CHECK(ws.rlsim("check c.json").status == 0);
  const auto sweep = ws.rlsim("sweep c.json --set instances.count=1,2 --out sw");
  CHECK(sweep.status == 0);
  CHECK(fs::exists(ws.dir / "sw" / "sweep.json"));
  // The report is the one of the same scenario without comments.
  CHECK(ws.rlsim("run fast.json --out plain --strategy in_memory").status == 0);
  json with_comments = json::parse(read_file(ws.dir / "out" / "report.json"));
  json plain = json::parse(read_file(ws.dir / "plain" / "report.json"));
  CHECK(with_comments == plain);
}

// ---------------------------------------------------------------------------------------------
// ---------------------------------------------------------------------------------------------
// scripts on the embedded Redis
// ---------------------------------------------------------------------------------------------

TEST_CASE("a script calling a command the embedded Redis lacks exits 4 naming the command") {
  const Workspace ws;
  // OBJECT is a Redis 7.0 command the embedded Redis does not implement; pcall must not hide it.
  write_file(ws.dir / "s.lua",
             "local ok = redis.pcall('OBJECT', 'ENCODING', KEYS[1])\n"
             "return redis.call('INCR', KEYS[1])\n");
  json j = json::parse(kFastScenario);
  j["strategies"] = json::parse(R"([{"name": "custom_lua", "script": "s.lua", "keys": ["k"],
                                     "allow_if": "reply <= 20"}])");
  write_file(ws.dir / "lacking.json", j.dump(2));
  const auto outcome = ws.rlsim("run lacking.json");
  CHECK(outcome.status == 4);
  CHECK_THAT(outcome.err, Contains("called OBJECT, a Redis command the embedded Redis does not "
                                   "implement"));
  CHECK_THAT(outcome.err, Contains("docs/redis-mock.md"));
  CHECK_THAT(outcome.err, Contains("--redis"));
  CHECK_THAT(outcome.err, Contains("s.lua"));
  // A name that no Redis has is an ordinary error reply on both backends: the run goes on, and
  // the report shows the error's text.
  write_file(ws.dir / "s.lua", "return redis.call('NOPE', KEYS[1])\n");
  const auto unknown = ws.rlsim("run lacking.json --json");
  CHECK(unknown.status == 0);
  const json report = json::parse(unknown.out);
  const json& metrics = report["strategies"][0]["strategy_metrics"];
  CHECK(metrics["script_errors"].get<int>() > 0);
  REQUIRE(metrics["script_error_texts"].size() == 1);
  CHECK_THAT(metrics["script_error_texts"][0].get<std::string>(),
             StartsWith("ERR Unknown Redis command called from script"));
}

}  // namespace rlsim_test_cli
