#pragma once
// Bash completion for rlsim, generated from the command line itself (app/cli.h): the subcommands
// and each one's options come from the same CLI11 app as `--help`, so they cannot drift. What an
// argument's value completes to (scenario files, directories, strategy names) is the one thing
// the app does not say; completion_rules() adds it by option name, and a test checks that every
// rule still names an option of the app.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace rlsim {

enum class CompletionKind {
  kScenarioFiles,  // *.json files, and directories to descend into
  kFiles,          // any file
  kDirectories,
  kStrategyNames,  // the registry's names (rlsim list)
  kWords,          // the fixed words of the rule
};

struct CompletionRule {
  const char* subcommand;  // a subcommand's name, or "*" for every subcommand
  const char* argument;    // an option's long name ("--out") or a positional's name ("scenario")
  CompletionKind kind;
  const char* words = "";  // for kWords, separated by spaces
};

// What each argument's value completes to; an option that takes a value and has no rule
// completes to nothing (a seed, a label, a URL).
const std::vector<CompletionRule>& completion_rules();

// The rule for `argument` (a long option name or a positional's name) of `subcommand`, or null.
const CompletionRule* find_completion_rule(const std::string& subcommand,
                                           const std::string& argument);

// The bash script: a completion function for `rlsim` registered with `complete -F`. Sourcing it
// needs no bash-completion package; installed in share/bash-completion/completions/ it is loaded
// on the first <TAB> after `rlsim`.
std::string bash_completion(const CLI::App& app);

}  // namespace rlsim
