#include "app/report_files.h"

#include <fmt/format.h>

#include <fstream>

#include "core/check.h"
#include "report/html_report.h"

namespace rlsim {

std::filesystem::path report_dir(const std::string& out_dir, const std::string& scenario_name,
                                 const std::string& suffix) {
  if (!out_dir.empty()) return out_dir;
  const std::filesystem::path name(scenario_name + suffix);
  RLSIM_CHECK(!scenario_name.empty() && scenario_name.front() != '.' && name.filename() == name &&
              name.is_relative());
  return std::filesystem::path("reports") / name;
}

std::optional<std::string> write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out || !(out << text) || !out.flush())
    return fmt::format("cannot write {}: write failed", path.string());
  return std::nullopt;
}

std::optional<std::string> write_report_files(const RunResult& result,
                                              const std::filesystem::path& dir,
                                              const std::string& reproduce) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return fmt::format("cannot create {}: {}", dir.string(), ec.message());
  if (auto error = write_file(dir / "report.json", report_json(result).dump(2) + "\n"))
    return error;
  if (auto error = write_file(dir / "report.html", report_html(result, reproduce))) return error;
  std::vector<std::string> chart_files;
  for (const Chart& chart : report_charts(result)) {
    chart_files.push_back(fmt::format("chart-{}.svg", chart.id));
    if (auto error = write_file(dir / chart_files.back(),
                                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + render_svg(chart)))
      return error;
  }
  return write_file(dir / "report.md", report_markdown(result, reproduce, chart_files));
}

}  // namespace rlsim
