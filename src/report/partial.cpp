#include "report/partial.h"

#include <fmt/format.h>

namespace rlsim {

std::string partial_notice(const RunResult& result) {
  if (!result.partial) return "";
  const RunPartial& partial = *result.partial;
  const auto joined = [](const std::vector<std::string>& labels) {
    std::string out;
    for (const std::string& label : labels) out += (out.empty() ? "" : ", ") + label;
    return out;
  };
  if (partial.redis_lost)  // every strategy reported ran to the end; none was cut
    return fmt::format(
        "PARTIAL REPORT: {}; not run: {}; the strategies shown ran to the end, expectations were "
        "not evaluated",
        partial.reason, joined(partial.not_run));
  std::string out = fmt::format("PARTIAL REPORT: stopped by {}", partial.reason);
  // Unset when no strategy was cut, only some not started (`rlsim run --seeds`).
  if (partial.stopped_at_s)
    out += fmt::format(" at virtual time {:.1f} s of {:.1f} s", *partial.stopped_at_s,
                       static_cast<double>(result.scenario->duration_us) / kUsPerS);
  if (!partial.cut.empty()) out += fmt::format(" during {}", joined(partial.cut));
  if (!partial.not_run.empty()) out += fmt::format("; not run: {}", joined(partial.not_run));
  return out + "; the figures cover the traffic up to that time, expectations were not evaluated";
}

}  // namespace rlsim
