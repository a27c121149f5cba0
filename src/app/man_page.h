#pragma once
// rlsim(1), the manual page, rendered in roff from the command line itself (app/cli.h): every
// subcommand with its usage line, summary and options, each option with the same name, type,
// constraints and description as its `--help` line (CLI11's own formatter makes both), and the
// exit codes of the help footer. Nothing in it is written twice, so it cannot drift from --help.
#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

namespace rlsim {

// The manual page of `app` (the root command line), ready for `man -l -`.
std::string man_page(const CLI::App& app);

// `text` safe as roff body text: backslashes and hyphens escaped (so options print as typed), and
// a leading control character (. or ') neutralised.
std::string roff_escape(std::string_view text);

}  // namespace rlsim
