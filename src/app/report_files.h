#pragma once
// Writes a run's report files into one folder: report.json (the contract), report.html (one
// self-contained page), report.md with its charts as SVG files beside it (chart-<id>.svg).
#include <filesystem>
#include <optional>
#include <string>

#include "report/report.h"

namespace rlsim {

// Where a run's (or sweep's) files go: `out_dir` when given, else reports/<scenario_name><suffix>.
// The name comes from the scenario file; the loader allows only names that are one plain path
// component (scenario/reader.h: valid_name), and this checks it again, so that no scenario can
// make rlsim write outside reports/ (a name "..", "a/b" or "/etc").
std::filesystem::path report_dir(const std::string& out_dir, const std::string& scenario_name,
                                 const std::string& suffix);

// Writes `text` to `path` (replacing it); an error message naming the file, or nullopt.
std::optional<std::string> write_file(const std::filesystem::path& path, const std::string& text);

// Writes every report file into `dir` (created if missing). `reproduce` is the command line shown
// in the HTML and Markdown reports. Returns an error message naming the file that could not be
// written, or nullopt on success.
std::optional<std::string> write_report_files(const RunResult& result,
                                              const std::filesystem::path& dir,
                                              const std::string& reproduce);

}  // namespace rlsim
