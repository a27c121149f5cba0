// `rlsim run` and `rlsim validate` on replay scenarios, as a user runs them: malformed lines
// reported with their line numbers on the terminal and in report.json, a missing log or a bad
// header refused before the run (exit 2), too many malformed lines stopping the run (exit 2).
#include <catch2/catch.hpp>
#include <fstream>

#include "cli_dir.h"

namespace rlsim_test_replay_cli {

using rlsim::testing::CliDir;
using rlsim::testing::read_text_file;

namespace {

std::string scenario_with(const std::string& replay) {
  return R"({"name": "replay-cli", "duration": "10s",
    "limits": [{"name": "l", "key": "user", "limit": 2, "window": "1s"}],
    "instances": {"count": 2},
    "traffic": [{"name": "log", "replay": )" +
         replay + R"(}],
    "strategies": ["in_memory"]})";
}

const char* kLog = "time,key,status\n1.0,a,200\n1.1,a,200\n1.2,a,429\nlate,a,200\n1.3\n2.0,b,200\n";

}  // namespace

TEST_CASE("cli: malformed log lines are reported with their line numbers") {
  CliDir dir("replay-bad", scenario_with(R"({"file": "logs/a.csv"})"));
  std::filesystem::create_directories(dir.path / "logs");
  std::ofstream(dir.path / "logs" / "a.csv") << kLog;
  REQUIRE(dir.rlsim("run s.json --out out") == 0);
  // The note wraps at 120 columns (every line rlsim prints fits a projector).
  CHECK(dir.out().find("replay log: 7 lines of logs/a.csv, 4 requests sent (end of log);\n"
                       "  2 malformed lines skipped (line 5: the time \"late\" is neither seconds "
                       "nor an ISO 8601 date-time;\n  line 6: expected 3 fields, got 1)") !=
        std::string::npos);
  CHECK(dir.out().find("in_memory: production's verdicts: 3 of 4 agree (75.00%)") !=
        std::string::npos);
  const std::string report = read_text_file(dir.path / "out" / "report.json");
  CHECK(report.find(R"("bad_lines": 2,)") != std::string::npos);
  CHECK(report.find(R"("line": 5,)") != std::string::npos);
  CHECK(report.find(R"("line": 6,)") != std::string::npos);
}

TEST_CASE("cli: a missing log is refused before the run, naming the file") {
  CliDir dir("replay-missing", scenario_with(R"({"file": "nowhere.csv"})"));
  CHECK(dir.rlsim("validate s.json") == 2);
  CHECK(dir.err() ==
        "rlsim: s.json: traffic[0].replay.file: cannot read the log \"nowhere.csv\": no such "
        "file\n");
  CHECK(dir.rlsim("run s.json") == 2);
  CHECK(dir.err().find("no such file") != std::string::npos);
}

TEST_CASE("cli: a directory or a header without the key column is refused") {
  CliDir dir("replay-header", scenario_with(R"({"file": "a.csv"})"));
  std::ofstream(dir.path / "a.csv") << "when,who\n1,a\n";
  CHECK(dir.rlsim("validate s.json") == 2);
  CHECK(dir.err().find("traffic[0].replay.file: the log \"a.csv\": line 1 (the header): no column "
                       "\"time\", \"key\" in the header") != std::string::npos);
  std::filesystem::create_directories(dir.path / "d");
  std::ofstream(dir.path / "s.json") << scenario_with(R"({"file": "d"})");
  CHECK(dir.rlsim("validate s.json") == 2);
  CHECK(dir.err().find("a directory, not a regular file") != std::string::npos);
}

TEST_CASE("cli: more malformed lines than max_bad_lines stop the run with exit code 2") {
  CliDir dir("replay-max", scenario_with(R"({"file": "a.csv", "max_bad_lines": 1})"));
  std::ofstream(dir.path / "a.csv") << kLog;
  CHECK(dir.rlsim("run s.json --out out") == 2);
  CHECK(dir.err().find("traffic group log: more than 1 malformed lines (max_bad_lines); the "
                       "first: line 5:") != std::string::npos);
}

TEST_CASE("cli: a sweep over a replay setting reads the log beside the scenario") {
  CliDir dir("replay-sweep", scenario_with(R"({"file": "logs/a.csv"})"));
  std::filesystem::create_directories(dir.path / "logs");
  std::ofstream(dir.path / "logs" / "a.csv") << kLog;
  CHECK(dir.rlsim("sweep s.json --set traffic[0].replay.speedup=1,2 --metric offered --out out") ==
        0);
  CHECK(dir.err().find("cannot read") == std::string::npos);
  const std::string sweep = read_text_file(dir.path / "out" / "sweep.json");
  // Both points sent the log's four well-formed lines.
  CHECK(sweep.find(R"("mean": 4.0,)") != std::string::npos);
  CHECK(sweep.find("cannot read") == std::string::npos);
}

}  // namespace rlsim_test_replay_cli
