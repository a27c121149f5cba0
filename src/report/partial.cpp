#include "report/partial.h"

#include <fmt/format.h>

namespace rlsim {

std::string partial_notice(const RunResult& result) {
  const auto& partial = result.partial;
  if (!partial.is_object()) return "";
  // "a, b" from the array of labels at `key` ("" when absent).
  const auto labels = [&partial](const char* key) {
    std::string out;
    for (const auto& label : partial.value(key, nlohmann::ordered_json::array()))
      out += (out.empty() ? "" : ", ") + label.get<std::string>();
    return out;
  };
  std::string out = fmt::format("PARTIAL REPORT: stopped by {}",
                                partial.value("reason", std::string("an interrupt")));
  // Absent when no strategy was cut, only some not started (`rlsim run --seeds`).
  if (partial.contains("stopped_at_s"))
    out +=
        fmt::format(" at virtual time {:.1f} s of {:.1f} s", partial["stopped_at_s"].get<double>(),
                    static_cast<double>(result.scenario->duration_us) / kUsPerS);
  if (partial.contains("strategy"))
    out += fmt::format(" during {}", partial["strategy"].get<std::string>());
  if (const std::string cut = labels("strategies"); !cut.empty())
    out += fmt::format(" during {}", cut);
  if (const std::string not_run = labels("not_run"); !not_run.empty())
    out += fmt::format("; not run: {}", not_run);
  return out + "; the figures cover the traffic up to that time, expectations were not evaluated";
}

}  // namespace rlsim
