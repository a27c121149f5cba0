#include "report/partial.h"

#include <fmt/format.h>

namespace rlsim {

std::string partial_notice(const RunResult& result) {
  const auto& partial = result.partial;
  if (!partial.is_object()) return "";
  std::string out = fmt::format(
      "PARTIAL REPORT: stopped by {} at virtual time {:.1f} s of {:.1f} s",
      partial.value("reason", std::string("an interrupt")), partial.value("stopped_at_s", 0.0),
      static_cast<double>(result.scenario->duration_us) / kUsPerS);
  if (partial.contains("strategy"))
    out += fmt::format(" during {}", partial["strategy"].get<std::string>());
  std::string not_run;
  for (const auto& label : partial.value("not_run", nlohmann::ordered_json::array()))
    not_run += (not_run.empty() ? "" : ", ") + label.get<std::string>();
  if (!not_run.empty()) out += fmt::format("; not run: {}", not_run);
  return out + "; the figures cover the traffic up to that time, expectations were not evaluated";
}

}  // namespace rlsim
