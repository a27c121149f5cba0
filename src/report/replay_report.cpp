#include "report/replay_report.h"

#include <fmt/format.h>

#include "core/terminal_text.h"
#include "report/rounding.h"

namespace rlsim {

using nlohmann::ordered_json;

namespace {

ordered_json group_json(const ReplayGroupResult& group) {
  ordered_json examples = ordered_json::array();
  for (const BadLine& bad : group.bad_examples)
    examples.push_back({{"line", bad.line_number}, {"reason", bad.reason}});
  return {{"group", group.group},
          {"file", group.file},
          {"lines", group.lines},
          {"requests", group.requests},
          {"bad_lines", group.bad_lines},
          {"bad_line_examples", examples},
          {"before_window", group.before_window},
          {"reordered", group.reordered},
          {"spread_seconds", group.spread_seconds},
          {"origin_log_us", group.origin_log_us},
          {"ended_by", group.ended_by}};
}

double agreement_share(const VerdictAgreement& v) {
  return v.compared == 0 ? 0.0
                         : round4(static_cast<double>(v.agree_admitted + v.agree_denied) /
                                  static_cast<double>(v.compared));
}

}  // namespace

ordered_json replay_json(const ReplayResult& replay) {
  ordered_json groups = ordered_json::array();
  for (const auto& group : replay.groups) groups.push_back(group_json(group));
  ordered_json out = {{"groups", groups}};
  if (const auto& v = replay.verdicts) {
    out["verdicts"] = {{"compared", v->compared},
                       {"agree", v->agree_admitted + v->agree_denied},
                       {"agree_admitted", v->agree_admitted},
                       {"agree_denied", v->agree_denied},
                       {"logged_denied_but_admitted", v->logged_denied_but_admitted},
                       {"logged_admitted_but_denied", v->logged_admitted_but_denied},
                       {"agreement", agreement_share(*v)}};
  }
  return out;
}

std::string replay_text(const std::string& label, const ReplayResult& replay, bool with_groups) {
  std::string out;
  for (const auto& group : replay.groups) {
    if (!with_groups) break;
    out += fmt::format("replay {}: {} lines of {}, {} requests sent ({})", group.group, group.lines,
                       escape_controls(group.file), group.requests, group.ended_by);
    if (group.bad_lines > 0) {
      std::string examples;
      for (const BadLine& bad : group.bad_examples)
        examples += fmt::format("{}line {}: {}", examples.empty() ? "" : "; ", bad.line_number,
                                escape_controls(bad.reason));
      out += fmt::format("; {} malformed line{} skipped ({}{})", group.bad_lines,
                         group.bad_lines == 1 ? "" : "s", examples,
                         group.bad_lines > group.bad_examples.size() ? "; ..." : "");
    }
    out += '\n';
  }
  if (const auto& v = replay.verdicts) {
    out += fmt::format(
        "{}: production's verdicts: {} of {} agree ({:.2f}%); logged denied but admitted {}, "
        "logged admitted but denied {}\n",
        label, v->agree_admitted + v->agree_denied, v->compared, agreement_share(*v) * 100,
        v->logged_denied_but_admitted, v->logged_admitted_but_denied);
  }
  return out;
}

}  // namespace rlsim
