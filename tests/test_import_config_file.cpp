// import/config_file.cpp: configuration files read through the scenario files' guards (regular
// files only, bounded size, nesting and node count, aliases counted) with errors at their line and
// column.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "import/config_file.h"
#include "scenario/error.h"

namespace rlsim_test_import_config_file {

using namespace rlsim;

namespace {

std::string error_of(const std::string& text) {
  try {
    parse_config_text(text, "c.yml");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("config files: a YAML syntax error names its line and column") {
  CHECK(error_of("a: 1\nb: [1, 2\n") == "c.yml:3:1: syntax error: end of sequence flow not found");
  CHECK(error_of("") == "c.yml: the file holds no configuration (empty)");
  CHECK(error_of("{\"a\": [1, 2]}") == "(accepted)");  // JSON is YAML
}

TEST_CASE("config files: nesting, node count and aliases are bounded") {
  CHECK(error_of(std::string(64, '[') + std::string(64, ']')) == "(accepted)");
  CHECK(error_of(std::string(65, '[') + std::string(65, ']')) ==
        "c.yml:1:65: maps and lists nested deeper than 64 levels");
  // Each level refers to the one before ten times: 10^6 nodes reached from a short text.
  std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'g'; ++c) {
    laughs += fmt::format("{}: &{} [", c, c);
    for (int i = 0; i < 10; ++i)
      laughs += fmt::format("{}*{}", i == 0 ? "" : ", ", static_cast<char>(c - 1));
    laughs += "]\n";
  }
  CHECK_THAT(error_of(laughs), Catch::EndsWith("more than 100000 values in one file"));
}

TEST_CASE("config files: only regular files are read") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("rlsim-import-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string fifo = (dir / "fifo.yml").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(read_config_file(fifo),
                    fifo + ": cannot read the file: a named pipe (FIFO), not a regular file");
  CHECK_THROWS_WITH(read_config_file(dir.string()),
                    dir.string() + ": cannot read the file: a directory, not a regular file");
  CHECK_THROWS_WITH(read_config_file((dir / "missing.yml").string()),
                    Catch::EndsWith("cannot read the file: no such file"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("config files: typed fields refuse other types at the value's position") {
  const ConfigFile file = parse_config_text("a: x\nb: [1]\nc: 7\nd: yes\n", "c.yml");
  CHECK_THROWS_WITH(number_field(file, file.root, "a"),
                    "c.yml:1:4: a: expected a number, got \"x\"");
  CHECK_THROWS_WITH(string_field(file, file.root, "b"),
                    "c.yml:2:4: b: expected a string, got a list");
  CHECK(integer_field(file, file.root, "c") == 7);
  CHECK(bool_field(file, file.root, "d") == true);
  CHECK_FALSE(number_field(file, file.root, "missing").has_value());
}

}  // namespace rlsim_test_import_config_file
