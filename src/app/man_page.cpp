#include "app/man_page.h"

#include <fmt/format.h>

#include <memory>
#include <vector>

#include "app/cli.h"
#include "core/check.h"

namespace rlsim {

std::string roff_escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      if ((c == '.' || c == '\'') && (out.empty() || out.back() == '\n')) out += "\\&";
      out += c;
    }
  }
  return out;
}

namespace {

// The formatter that prints `--help`, so that both texts come from one place.
const CLI::Formatter& help_formatter(const CLI::App& app) {
  const auto formatter = std::dynamic_pointer_cast<CLI::Formatter>(app.get_formatter());
  RLSIM_CHECK(formatter != nullptr);
  return *formatter;
}

// "Usage: rlsim run [OPTIONS] scenario\n..." -> "[OPTIONS] scenario" (after the command's name).
std::string usage_tail(const CLI::App& app, const std::string& name) {
  std::string usage = help_formatter(app).make_usage(&app, name);
  const std::string prefix = "Usage: " + name;
  RLSIM_CHECK(usage.rfind(prefix, 0) == 0);
  usage.erase(0, prefix.size());
  while (!usage.empty() && (usage.back() == '\n' || usage.back() == ' ')) usage.pop_back();
  if (!usage.empty() && usage.front() == ' ') usage.erase(0, 1);
  return usage;
}

// The visible options of `app` as help lists them: positionals first, then the others.
std::vector<const CLI::Option*> listed_options(const CLI::App& app) {
  std::vector<const CLI::Option*> out;
  for (const bool positional : {true, false}) {
    for (const CLI::Option* option : app.get_options()) {
      if (option->get_positional() == positional && !option->get_group().empty())
        out.push_back(option);
    }
  }
  return out;
}

// One option as a tagged paragraph: its names in bold ("-h, --help"), what it takes as help shows
// it ("UINT:UINT in [1 - 10000] Excludes: --live"), then its description.
std::string option_item(const CLI::App& app, const CLI::Option& option) {
  const CLI::Formatter& formatter = help_formatter(app);
  std::string names;
  for (const std::string& name :
       CLI::detail::split(formatter.make_option_name(&option, option.get_positional()), ',')) {
    names += fmt::format("{}\\fB{}\\fR", names.empty() ? "" : ", ", roff_escape(name));
  }
  return fmt::format(".TP\n{}{}\n{}\n", names, roff_escape(formatter.make_option_opts(&option)),
                     roff_escape(formatter.make_option_desc(&option)));
}

std::string subcommand_section(const CLI::App& command) {
  const std::string name = "rlsim " + command.get_name();
  std::string out = fmt::format(".SS \"{}\"\n{}\n.PP\n\\fB{}\\fR {}\n", roff_escape(name),
                                roff_escape(command.get_description()), roff_escape(name),
                                roff_escape(usage_tail(command, name)));
  for (const CLI::Option* option : listed_options(command)) out += option_item(command, *option);
  return out;
}

// The part of the page that has no --help counterpart: where an installation puts its files.
const char* kFilesSection = R"(.SH FILES
.TP
.I /usr/share/rlsim/scenarios/
The bundled scenarios (JSON), with the Lua scripts that custom\-script.json runs in
.IR scripts/ ;
a report goes to
.I reports/<scenario name>/
under the current directory, or to
.BR \-\-out .
.TP
.I /usr/share/doc/rlsim/
README.md and docs/.
.TP
.I /usr/share/bash\-completion/completions/rlsim
Completion of subcommands, options and scenario files in bash (also: rlsim completion bash).
.PP
The paths are those of the Debian package; cmake \-\-install puts the same files under its
prefix (share/rlsim, share/doc/rlsim, share/man/man1, share/bash\-completion/completions).
)";

}  // namespace

std::string man_page(const CLI::App& app) {
  // Not app.get_name(): after parsing that is the path the program was started with.
  const std::string name = "rlsim";
  std::string description = app.get_description();
  if (description.rfind(name + ": ", 0) == 0) description.erase(0, name.size() + 2);
  // .nh and .ad l: no hyphenation and a ragged right edge, so options and paths print whole.
  std::string out =
      fmt::format(".TH RLSIM 1 \"\" \"rlsim {}\" \"User Commands\"\n.nh\n.ad l\n", rlsim_version());
  out += fmt::format(".SH NAME\n{} \\- {}\n.SH SYNOPSIS\n", name, roff_escape(description));
  const auto commands = app.get_subcommands([](const CLI::App*) { return true; });
  for (const CLI::App* command : commands) {
    const std::string full = name + " " + command->get_name();
    out += fmt::format("\\fB{}\\fR {}\n.br\n", roff_escape(full),
                       roff_escape(usage_tail(*command, full)));
  }
  out += fmt::format(
      ".SH DESCRIPTION\n\\fBrlsim\\fR is {}. Exactly one subcommand is required. Each subcommand's "
      "section below "
      "is the text of its \\fB\\-\\-help\\fR: the same usage, options and descriptions.\n",
      roff_escape(description));
  out += ".SH OPTIONS\n";
  for (const CLI::Option* option : listed_options(app)) out += option_item(app, *option);
  out += ".SH SUBCOMMANDS\n";
  for (const CLI::App* command : commands) out += subcommand_section(*command);
  out += ".SH EXIT STATUS\n";
  for (const ExitCodeDoc& doc : exit_code_docs())
    out += fmt::format(".TP\n.B {}\n{}\n", doc.code, roff_escape(doc.meaning));
  out += kFilesSection;
  out += fmt::format(
      ".SH SEE ALSO\nThe documentation: README.md and docs/ ({}), installed in "
      "/usr/share/doc/rlsim/.\n",
      roff_escape(docs_list()));
  return out;
}

}  // namespace rlsim
