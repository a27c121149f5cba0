#include "app/output_paths.h"

#include <fmt/format.h>

#include <filesystem>

#include "scenario/error.h"

namespace rlsim {
namespace {

// The path as the file system resolves it: symbolic links followed, `.` and `..` removed, for a
// file that exists or not.
std::filesystem::path resolved(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(absolute, ec);
  return ec ? absolute.lexically_normal() : canonical;
}

}  // namespace

void check_output_paths(const std::vector<NamedPath>& inputs,
                        const std::vector<NamedPath>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& out = outputs[i];
    if (out.path.empty()) continue;
    const std::filesystem::path target = resolved(out.path);
    for (const NamedPath& in : inputs)
      if (!in.path.empty() && resolved(in.path) == target)
        throw ScenarioError(fmt::format("{} {} is {} {}: rlsim would overwrite a file it reads",
                                        out.role, out.path, in.role, in.path));
    for (std::size_t j = 0; j < i; ++j)
      if (!outputs[j].path.empty() && resolved(outputs[j].path) == target)
        throw ScenarioError(
            fmt::format("{} {} and {} {} are one file: one would overwrite the "
                        "other",
                        outputs[j].role, outputs[j].path, out.role, out.path));
  }
}

std::string non_empty_file_name(const std::string& value) {
  return value.empty() ? "expected a file name, got an empty one" : "";
}

}  // namespace rlsim
