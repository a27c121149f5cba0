#pragma once
// The files a command writes must not be a file it reads, nor each other: `rlsim run s.json
// --trace s.json` would overwrite the scenario, `--trace t --metrics-out t` one output with the
// other. Checked before any work, on the paths as the file system resolves them (./a and a, a
// symbolic link and its target are one file).
#include <string>
#include <vector>

namespace rlsim {

// A file a command reads or writes, with the option that named it ("the scenario", "--trace").
struct NamedPath {
  std::string role;
  std::string path;  // empty: the option was not given, ignored
};

// Throws ScenarioError (exit 2) naming both options and the file when an output is one of the
// inputs or two outputs are one file.
void check_output_paths(const std::vector<NamedPath>& inputs,
                        const std::vector<NamedPath>& outputs);

// A CLI11 check for an option that names an output file: an empty name is refused (`--trace ""`
// would otherwise be taken for "not given" and write nothing without a word).
std::string non_empty_file_name(const std::string& value);

}  // namespace rlsim
