// End to end: the rlsim binary as a user runs it.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace fs = std::filesystem;

namespace {

struct Outcome {
  int status = -1;
  std::string out;
};

// Runs rlsim with `args` (shell syntax); stdout captured, stderr merged when `merge_stderr`.
Outcome rlsim(const std::string& args, bool merge_stderr = false) {
  const std::string command = std::string("NO_COLOR=1 ") + RLSIM_BINARY + " " + args +
                              (merge_stderr ? " 2>&1" : " 2>/dev/null");
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  Outcome outcome;
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) outcome.out.append(buffer, n);
  const int raw = ::pclose(pipe);
  outcome.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return outcome;
}

fs::path temp_dir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("rlsim-cli-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::string kScenarios = std::string(RLSIM_SOURCE_DIR) + "/scenarios/";

}  // namespace

TEST_CASE("validate accepts the shipped scenarios") {
  for (const char* name : {"overshoot-10x.json", "autoscale.json"}) {
    INFO(name);
    CHECK(rlsim("validate " + kScenarios + name).status == 0);
  }
}

TEST_CASE("bad input exits 2 with one line naming the file and path") {
  const fs::path dir = temp_dir("bad");
  std::ofstream(dir / "bad.json")
      << R"({"name": "b", "duration": "1m", "limits": [{"name": "l", "limit": "x", "window": "1m"}],
    "instances": {"count": 1}, "traffic": [{"name": "g", "rate": "1/s"}], "strategies": ["in_memory"]})";
  const auto bad = rlsim("run " + (dir / "bad.json").string(), true);
  CHECK(bad.status == 2);
  CHECK(bad.out == "rlsim: " + (dir / "bad.json").string() +
                       ": limits[0].limit: expected an integer, got a string\n");
  CHECK(rlsim("run /nonexistent.json").status == 2);
  CHECK(rlsim("frobnicate").status == 2);
  CHECK(rlsim("run").status == 2);
  CHECK(rlsim("explain nothing").status == 2);
  CHECK(rlsim("run " + kScenarios + "overshoot-10x.json --strategy nope --out " + dir.string())
            .status == 2);
}

TEST_CASE("list and explain come from the registry") {
  const auto list = rlsim("list");
  CHECK(list.status == 0);
  CHECK(list.out.find("in_memory") != std::string::npos);
  CHECK(list.out.find("redis_fixed_window") != std::string::npos);
  const auto explain = rlsim("explain redis_fixed_window");
  CHECK(explain.out.find("INCR") != std::string::npos);
  CHECK(explain.out.find("EXPIRE") != std::string::npos);
}

TEST_CASE("run writes the report, prints the seed and how to reproduce") {
  const fs::path dir = temp_dir("run");
  const auto run = rlsim("run " + kScenarios + "overshoot-10x.json --out " + (dir / "a").string());
  CHECK(run.status == 0);
  CHECK(run.out.find("seed 42; reproduce with: rlsim run") != std::string::npos);
  CHECK(run.out.find('\033') == std::string::npos);
  const auto json_run =
      rlsim("run " + kScenarios + "overshoot-10x.json --json --out " + (dir / "b").string());
  CHECK(json_run.status == 0);
  const auto report = nlohmann::json::parse(json_run.out);
  CHECK(report["scenario"] == "overshoot-10x");
  CHECK(json_run.out == read(dir / "b" / "report.json"));
  CHECK(read(dir / "a" / "report.json") == read(dir / "b" / "report.json"));
  const auto one = nlohmann::json::parse(
      rlsim("run " + kScenarios + "overshoot-10x.json --json --strategy in_memory --seed 5 --out " +
            (dir / "c").string())
          .out);
  CHECK(one["strategies"].size() == 1);
  CHECK(one["seed"] == 5);
  std::ofstream(dir / "file") << "x";
  CHECK(rlsim("run " + kScenarios + "overshoot-10x.json --out " + (dir / "file" / "sub").string())
            .status == 3);
}
