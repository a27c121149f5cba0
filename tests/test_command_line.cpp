// The command line rendered three ways (src/app/cli.cpp, man_page.cpp, completion.cpp): the help
// footer's exit codes, the manual page (every subcommand, option and exit code of --help, valid
// roff) and the bash completion (every subcommand and option; run in bash on real words).
#include <catch2/catch.hpp>
#include <set>
#include <sstream>
#include <string>

#include "app/cli.h"
#include "app/completion.h"
#include "app/man_page.h"
#include "app/subcommand.h"
#include "cli_dir.h"

namespace rlsim_test_command_line {

using Catch::Contains;
using rlsim::testing::CliDir;

namespace {

// The section of the manual page between `heading` and the next heading of the same level.
std::string section(const std::string& page, const std::string& heading, const char* level) {
  const auto begin = page.find(heading);
  REQUIRE(begin != std::string::npos);
  const auto end = page.find(std::string("\n") + level + " ", begin + heading.size());
  return page.substr(begin, end == std::string::npos ? std::string::npos : end + 1 - begin);
}

std::string escaped_name(const std::string& name) { return rlsim::roff_escape(name); }

}  // namespace

TEST_CASE("the help footer lists every exit code as the docs quote it") {
  const rlsim::CommandLine line = rlsim::build_command_line();
  // The sentence docs/cli.md and README.md quote; the codes come from app/exit_codes.h.
  CHECK(line.app->get_footer().rfind(
            "Exit codes: 0 success, 1 internal error (check: a check failed), 2 bad input "
            "(scenario, strategy or command line), 3 report not writable, 4 Lua script error, 5 "
            "Redis unreachable (--redis, --redis-cluster), 130 interrupted (run, sweep: partial "
            "report written).\nDocs: docs/ (",
            0) == 0);
  CHECK(line.commands.size() == rlsim::subcommands().size());
}

TEST_CASE("roff_escape keeps options typable and text out of the control lines") {
  CHECK(rlsim::roff_escape("--seed N") == "\\-\\-seed N");
  CHECK(rlsim::roff_escape("a\\b") == "a\\eb");
  CHECK(rlsim::roff_escape(".hidden\n'quoted' and.dot") == "\\&.hidden\n\\&'quoted' and.dot");
}

TEST_CASE("the manual page has every subcommand, option and exit code of --help") {
  const rlsim::CommandLine line = rlsim::build_command_line();
  const std::string page = rlsim::man_page(*line.app);
  CHECK(page.rfind(".TH RLSIM 1 \"\" \"rlsim " + std::string(rlsim::rlsim_version()), 0) == 0);
  for (const auto& [command, run] : line.commands) {
    INFO(command->get_name());
    const std::string text = section(page, ".SS \"rlsim " + command->get_name() + "\"", ".SS");
    CHECK_THAT(text, Contains(escaped_name(command->get_description())));
    for (const CLI::Option* option : command->get_options()) {
      CHECK_THAT(text, Contains(escaped_name(option->get_description())));
      for (const std::string& name : option->get_lnames())
        CHECK_THAT(text, Contains("\\fB" + escaped_name("--" + name) + "\\fR"));
    }
  }
  const std::string exits = section(page, ".SH EXIT STATUS", ".SH");
  for (const rlsim::ExitCodeDoc& doc : rlsim::exit_code_docs())
    CHECK_THAT(exits, Contains(".B " + std::to_string(doc.code) + "\n" + escaped_name(doc.meaning) +
                               "\n"));
  // Valid roff: every control line is one of the few macros the page uses.
  const std::set<std::string> macros{".TH", ".SH", ".SS", ".TP", ".PP", ".B",
                                     ".I",  ".BR", ".IR", ".br", ".nh", ".ad"};
  std::istringstream lines(page);
  for (std::string text; std::getline(lines, text);) {
    if (text.empty() || text[0] != '.') continue;
    INFO(text);
    CHECK(macros.count(text.substr(0, text.find(' '))) == 1);
  }
}

TEST_CASE("every completion rule names an argument of its subcommand") {
  const rlsim::CommandLine line = rlsim::build_command_line();
  for (const rlsim::CompletionRule& rule : rlsim::completion_rules()) {
    INFO(rule.subcommand << " " << rule.argument);
    int found = 0;
    for (const auto& [command, run] : line.commands) {
      if (std::string(rule.subcommand) != "*" && command->get_name() != rule.subcommand) continue;
      for (const CLI::Option* option : command->get_options()) {
        const std::string name =
            option->get_positional() ? option->get_name() : "--" + option->get_lnames().front();
        if (name == rule.argument) ++found;
      }
    }
    CHECK(found > 0);
  }
}

TEST_CASE("the bash completion completes subcommands, options, scenarios and strategies") {
  const CliDir dir("completion", "{}");
  REQUIRE(dir.rlsim("completion bash > rlsim.bash") == 0);
  std::filesystem::create_directory(dir.path / "sub");
  // COMPREPLY for the words given, the last being completed, one per line, sorted.
  const auto complete = [&dir](const std::string& words) {
    const std::string command = "bash -c 'source ./rlsim.bash; COMP_WORDS=(" + words +
                                "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _rlsim; printf "
                                "\"%s\\n\" \"${COMPREPLY[@]}\"' | LC_ALL=C sort";
    REQUIRE(dir.shell(command) == 0);
    return dir.out();
  };
  CHECK(complete("rlsim ru") == "run\n");
  CHECK(complete("rlsim co") == "completion\nconformance\n");
  CHECK(complete("rlsim --ver") == "--version\n");
  CHECK(complete("rlsim run --se") == "--seed\n--seeds\n--set\n");
  CHECK(complete("rlsim run --seed 4 s") == "s.json\nsub\n");
  CHECK(complete("rlsim run --json s") == "s.json\nsub\n");  // a flag takes no value
  CHECK(complete("rlsim check s.json --junit \"\"") == ".err\n.out\nrlsim.bash\ns.json\nsub\n");
  CHECK(complete("rlsim run s.json --out s") == "sub\n");
  CHECK(complete("rlsim run s.json --out = s") == "sub\n");
  CHECK(complete("rlsim run s.json --seed \"\"") == "\n");
  CHECK(complete("rlsim explain redis_g") == "redis_gcra\n");
  CHECK(complete("rlsim bench --strategy in_") == "in_memory\n");
  CHECK(complete("rlsim completion \"\"") == "bash\n");
  CHECK(complete("rlsim list -") == "--help\n-h\n");
  CHECK(complete("rlsim list \"\"") == "\n");  // no arguments to offer
}

}  // namespace rlsim_test_command_line
