#include "report/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "core/terminal_text.h"
#include "report/alerts.h"
#include "report/autoscale_report.h"
#include "report/fault_report.h"
#include "report/overshoot_cap.h"
#include "report/partial.h"
#include "report/replay_report.h"
#include "report/result_json.h"
#include "report/rounding.h"
#include "report/shadow_report.h"
#include "report/sparkline.h"

namespace rlsim {
namespace {

using ordered_json = nlohmann::ordered_json;

// A strategy's headline numbers: the worst over its limits (the report contract).
struct Worst {
  double overshoot = 0;
  double rolling_overshoot = 0;
  std::int64_t excess = 0;
  std::int64_t false_denials = 0;
  const LimitMetrics* sliding_log = nullptr;  // the limit with the largest sliding-log error rate
};

Worst worst_over_limits(const OracleTotals& totals) {
  Worst worst;
  for (const auto& limit : totals.limits) {
    worst.overshoot = std::max(worst.overshoot, limit.overshoot);
    worst.rolling_overshoot = std::max(worst.rolling_overshoot, limit.rolling_overshoot);
    worst.excess = std::max(worst.excess, limit.excess);
    worst.false_denials = std::max(worst.false_denials, limit.false_denials);
    if (worst.sliding_log == nullptr ||
        limit.sliding_log_error_rate > worst.sliding_log->sliding_log_error_rate)
      worst.sliding_log = &limit;
  }
  return worst;
}

ordered_json sliding_log_json(const LimitMetrics* limit) {
  if (limit == nullptr) return {{"wrongly_allowed", 0}, {"wrongly_denied", 0}, {"error_rate", 0.0}};
  return {{"wrongly_allowed", limit->wrongly_allowed},
          {"wrongly_denied", limit->wrongly_denied},
          {"error_rate", round8(limit->sliding_log_error_rate)}};
}

ordered_json limit_json(const LimitMetrics& limit) {
  ordered_json out;
  out["name"] = limit.name;
  out["limit"] = limit.limit;
  out["denied"] = limit.denied;
  out["overshoot"] = round4(limit.overshoot);
  out["rolling_overshoot"] = round4(limit.rolling_overshoot);
  out["excess"] = limit.excess;
  out["false_denials"] = limit.false_denials;
  out["max_admitted_per_window"] = limit.max_in_window;
  out["max_admitted_per_rolling_window"] = limit.max_in_rolling;
  out["sliding_log_error"] = sliding_log_json(&limit);
  return out;
}

ordered_json strategy_json(const StrategyResult& result, const Scenario& scenario) {
  const OracleTotals& totals = result.totals;
  ordered_json out;
  out["label"] = result.label;
  out["name"] = result.name;
  out["ideal"] = to_string(totals.ideal_algorithm);
  out["offered"] = totals.offered;
  out["allowed"] = totals.allowed;
  out["denied"] = totals.denied;
  out["errors"] = totals.errors;
  const Worst worst = worst_over_limits(totals);
  out["overshoot"] = round4(worst.overshoot);
  out["rolling_overshoot"] = round4(worst.rolling_overshoot);
  out["excess"] = worst.excess;
  out["false_denials"] = worst.false_denials;
  out["sliding_log_error"] = sliding_log_json(worst.sliding_log);
  if (const auto cap = overshoot_cap(scenario, result))
    out["overshoot_cap"] = overshoot_cap_json(*cap);
  if (totals.staleness.samples > 0) {
    out["staleness"] = {{"samples", totals.staleness.samples},
                        {"mean", round4(totals.staleness.mean_abs_error())},
                        {"max", totals.staleness.max_abs_error}};
  }
  ordered_json limits = ordered_json::array();
  for (const auto& limit : totals.limits) limits.push_back(limit_json(limit));
  out["limits"] = limits;
  out["redis_commands"] = result.redis_commands;
  out["redis_round_trips"] = result.redis_round_trips;
  out["redis_commands_per_request"] = round4(per_request(result.redis_commands, totals.offered));
  out["redis_round_trips_per_request"] =
      round4(per_request(result.redis_round_trips, totals.offered));
  out["redis_timeouts"] = result.redis_timeouts;
  if (result.redis_timeout)
    out["redis_timeout"] = {
        {"ms", static_cast<double>(result.redis_timeout->timeout_us) / kUsPerMs},
        {"from", result.redis_timeout->from}};
  out["redis_keys_at_end"] = result.redis_keys_at_end;
  out["latency_us"] = {{"p50", totals.latency_us.quantile(0.5)},
                       {"p99", totals.latency_us.quantile(0.99)},
                       {"max", totals.latency_us.max()}};
  if (result.retries) out["retries"] = retries_json(*result.retries);
  if (result.autoscale) out["autoscale"] = autoscale_json(result, scenario);
  if (result.replay) out["replay"] = replay_json(*result.replay);
  out["strategy_metrics"] = result.strategy_metrics;
  if (result.redis_side) {
    const ordered_json redis_side = redis_side_json(*result.redis_side);
    for (const auto& [key, value] : redis_side.items()) out[key] = value;
  }
  if (!scenario.alerts.empty()) out["alerts"] = alerts_json(scenario, result);
  if (result.clock) out["clock"] = clock_json(*result.clock);
  if (result.regions) out["regions"] = regions_json(*result.regions);
  if (result.backend) out["backend"] = backend_json(*result.backend);
  ordered_json windows = ordered_json::array();
  for (const auto& point : totals.series) {
    windows.push_back({{"start_s", to_seconds(point.start_us)},
                       {"offered", point.offered},
                       {"admitted", point.admitted},
                       {"denied", point.denied},
                       {"max_per_key", point.max_per_key},
                       {"instances", point.instances},
                       {"admitted_by_instance", point.admitted_by_instance},
                       {"latency_us",
                        {{"p50", point.latency_p50_us},
                         {"p99", point.latency_p99_us},
                         {"max", point.latency_max_us}}}});
  }
  ordered_json instances = ordered_json::array();
  for (const auto& [at_us, count] : result.instance_counts)
    instances.push_back({{"at_s", to_seconds(at_us)}, {"count", count}});
  const Limit& first = scenario.limits.front();
  out["series"] = {{"limit", first.name},
                   {"window_s", to_seconds(first.window_us)},
                   {"windows", windows},
                   {"truncated", totals.series_truncated},
                   {"instances", instances}};
  // The same decisions give the same digest, whichever build made them (the CLI, the page).
  out["decision_digest"] = fmt::format("{:016x}", result.decision_digest);
  return out;
}

// "key=value, key=value" for a strategy's own metrics: strings bare, everything else as JSON.
std::string metrics_text(const ordered_json& metrics) {
  std::string out;
  for (const auto& [key, value] : metrics.items()) {
    if (!out.empty()) out += ", ";
    out +=
        key + "=" + (value.is_string() ? escape_controls(value.get<std::string>()) : value.dump());
  }
  return out;
}

// Where the decision trace went, and whether it is complete.
std::string trace_note(const TraceSummary& trace) {
  const std::string sample =
      trace.sample_every == 1
          ? "every decision"
          : fmt::format("1 in {} decisions, and every error, fallback and false denial",
                        trace.sample_every);
  std::string out = fmt::format("trace: {} lines of {} decisions ({}) written to {}\n", trace.lines,
                                trace.decisions, sample, trace.path);
  if (!trace.stopped.empty())
    out += fmt::format(
        "trace: INCOMPLETE: {}; nothing written from {} at {:.6f} s on (the report is complete)\n",
        trace.stopped, trace.stopped_label, to_seconds(trace.stopped_at_us));
  return out;
}

// The clock attribution: its excess is summed over the limits (docs/metrics.md#clock), so with
// several limits the line adds them up from the figures report.json has per limit; the table's
// excess column is the worst limit's.
std::string clock_line(const StrategyResult& strategy) {
  const ClockResult& clock = *strategy.clock;
  const auto& limits = strategy.totals.limits;
  std::string per_limit;
  for (std::size_t i = 0; limits.size() > 1 && i < limits.size(); ++i)
    per_limit += fmt::format("{}{} {}", i == 0 ? " (" : " + ", limits[i].name, limits[i].excess);
  if (!per_limit.empty()) per_limit += ")";
  return fmt::format("{}: a clock off by > {} at {} of the {} admissions beyond {}{}\n",
                     strategy.label, format_duration(clock.attribution_threshold_us),
                     clock.excess_while_off, clock.excess,
                     limits.size() > 1 ? "a limit" : "the limit", per_limit);
}

// Lines under the table: each strategy's own metrics, the staleness of counts it read, its
// clock attribution, regions, retrying clients and real backend.
std::string notes_table(const RunResult& result) {
  std::string out;
  for (const auto& strategy : result.strategies) {
    if (strategy.strategy_metrics.is_object() && !strategy.strategy_metrics.empty())
      out += fmt::format("{}: {}\n", strategy.label, metrics_text(strategy.strategy_metrics));
    if (strategy.clock) out += clock_line(strategy);
    if (strategy.regions) {
      std::string line;
      for (const RegionResult& region : *strategy.regions) {
        // The overshoot as the JSON report writes it (1.0, not 1).
        line += fmt::format("{}{} allowed={} overshoot={} p50_us={} p99_us={}",
                            line.empty() ? "" : "; ", region.name, region.allowed,
                            ordered_json(region.overshoot).dump(), region.latency_us.p50,
                            region.latency_us.p99);
      }
      out += fmt::format("{}: regions: {}\n", strategy.label, line);
    }
    if (strategy.replay)
      out += replay_text(strategy.label, *strategy.replay, &strategy == &result.strategies.front());
    if (const auto& r = strategy.retries) {
      out += fmt::format(
          "{}: retrying clients: {} first sends denied; {} retries sent, {} admitted; {} gave up, "
          "{} cut by the end\n",
          strategy.label, r->first_denied, r->sent, r->admitted, r->gave_up, r->cut);
    }
    if (strategy.backend)
      out += fmt::format("{}: backend: {}\n", strategy.label,
                         metrics_text(backend_json(*strategy.backend)));
    const Staleness& staleness = strategy.totals.staleness;
    if (staleness.samples > 0) {
      out += fmt::format("{}: staleness of the count it read: mean={:.2f}, max={}, samples={}\n",
                         strategy.label, round4(staleness.mean_abs_error()),
                         staleness.max_abs_error, staleness.samples);
    }
  }
  return out.empty() ? out : "\n" + out;
}

// The lines after a strategy's own: the Redis side and fault windows, the shadow comparison and
// the alerts.
std::string event_notes(const RunResult& result) {
  std::string out = fault_notes(result);
  if (const std::string autoscale = autoscale_notes(result); !autoscale.empty())
    out += "\n" + autoscale;
  if (const std::string shadow = shadow_notes(result); !shadow.empty()) out += "\n" + shadow;
  return out + alert_notes(result);
}

ordered_json partial_json(const RunPartial& partial) {
  ordered_json out;
  out["reason"] = partial.reason;
  if (partial.stopped_at_s) out["stopped_at_s"] = *partial.stopped_at_s;
  if (partial.cut.size() == 1) out["strategy"] = partial.cut.front();
  if (partial.cut.size() > 1) out["strategies"] = partial.cut;
  out["not_run"] = partial.not_run;
  return out;
}

// Where to break `line` so that its first part has at most `columns` - 2 code points (room for
// " …"): after its last ", " or "; " there, or after its last "," (inside a JSON value) when that
// keeps more, or at the width. The bytes of the first part, its separator's comma kept.
std::size_t break_at(const std::string& line, std::size_t columns) {
  std::size_t keep = 0;  // bytes of the longest prefix of columns - 2 code points
  for (std::size_t points = 0; keep < line.size(); ++keep) {
    const bool starts = (static_cast<unsigned char>(line[keep]) & 0xC0) != 0x80;
    if (starts && ++points > columns - 2) break;
  }
  std::size_t at = std::string::npos;
  for (const char* separator : {", ", "; "}) {
    const std::size_t found = line.rfind(separator, keep - 2);
    if (found != std::string::npos && (at == std::string::npos || found > at)) at = found;
  }
  const std::size_t comma = line.rfind(',', keep - 1);
  if (comma != std::string::npos && (at == std::string::npos || at < keep / 2)) at = comma;
  return at == std::string::npos ? keep : at + 1;
}

// Each line of `text` within `columns` code points: broken after a separator (break_at) into up
// to `continuations` more lines indented by two spaces, and what still does not fit cut and
// ended with " …"; `cut` counts the lines that were cut.
std::string fit_lines(const std::string& text, std::size_t columns, std::size_t continuations,
                      std::size_t& cut) {
  std::string out;
  std::size_t from = 0;
  while (from < text.size()) {
    const std::size_t end = std::min(text.find('\n', from), text.size());
    std::string line = text.substr(from, end - from);
    from = end + 1;
    for (std::size_t more = 0; text_columns(line) > columns; ++more) {
      const std::size_t at = break_at(line, columns);
      if (more == continuations) {
        ++cut;
        line = line.substr(0, at) + " \u2026";
        break;
      }
      const std::size_t rest = line.find_first_not_of(' ', at);
      out += line.substr(0, at) + "\n";
      line = rest == std::string::npos ? "" : "  " + line.substr(rest);
    }
    out += line + "\n";
  }
  return out;
}

// The terminal `rlsim run` writes for: a projector's 120 columns (tests/run-width.sh).
constexpr std::size_t kTableColumns = 120;

using Paint = std::function<std::string(const std::string&, const char*)>;

// The table's rows: one per strategy, each figure formatted from the value its JSON report holds
// (strategy_json), so that the table, the verdict lines and report.json agree. 118 columns with
// labels up to 22 characters; denied and the p50 latency are in report.md.
std::string strategy_rows(const RunResult& result, const Paint& paint) {
  const std::size_t label_width = label_column_width(result);
  std::string out =
      fmt::format("{:<{}} {:>8} {:>8} {:>7} {:>9} {:>8} {:>8} {:>8} {:>8} {:>7} {:>6} {:>8}\n",
                  "strategy", label_width, "offered", "allowed", "errors", "overshoot", "rolling",
                  "excess", "false_dn", "slog_err", "cmd/req", "rt/req", "p99_us");
  for (const auto& strategy : result.strategies) {
    const ordered_json j = strategy_json(strategy, *result.scenario);
    const double overshoot = j["overshoot"].get<double>();
    const std::string overshoot_text = fmt::format("{:>9}", format_ratio(overshoot));
    out +=
        fmt::format("{:<{}} {:>8} {:>8} {:>7} {} {:>8} {:>8} {:>8} {:>7.3f}% {:>7} {:>6} {:>8}\n",
                    strategy.label, label_width, j["offered"].get<std::int64_t>(),
                    j["allowed"].get<std::int64_t>(), j["errors"].get<std::int64_t>(),
                    paint(overshoot_text, holds_limit(overshoot) ? "32" : "31"),
                    format_ratio(j["rolling_overshoot"].get<double>()),
                    j["excess"].get<std::int64_t>(), j["false_denials"].get<std::int64_t>(),
                    j["sliding_log_error"]["error_rate"].get<double>() * 100,
                    format_per_request(j["redis_commands_per_request"].get<double>()),
                    format_per_request(j["redis_round_trips_per_request"].get<double>()),
                    j["latency_us"]["p99"].get<std::int64_t>());
  }
  return out;
}

// A per-window view of the first limit: what one key actually got, against the limit, for each
// strategy whose windows all fit in 120 columns (longer series are in the report files).
std::string window_rows(const RunResult& result, const Paint& paint) {
  constexpr std::size_t kColumns = kTableColumns;
  const std::string admitted_head = "  admitted  ";
  const Limit& first = result.scenario->limits.front();
  std::string out;
  for (const auto& strategy : result.strategies) {
    const auto& series = strategy.totals.series;
    std::size_t cell = 4;  // a space and at least three digits
    for (const auto& point : series)
      cell = std::max({cell, fmt::formatted_size(" {}", point.max_per_key),
                       fmt::formatted_size(" {}", point.instances)});
    if (series.empty() || admitted_head.size() + series.size() * cell > kColumns) continue;
    out += fmt::format("\n{}: most admitted for one {} per {} window (limit {}), and instances\n",
                       strategy.label, to_string(first.key), format_duration(first.window_us),
                       first.limit);
    std::string admitted_row = admitted_head;
    std::string instance_row = "  instances ";
    for (const auto& point : series) {
      const std::string text = fmt::format("{:>{}}", point.max_per_key, cell);
      admitted_row += point.max_per_key > first.limit ? paint(text, "31") : text;
      instance_row += fmt::format("{:>{}}", point.instances, cell);
    }
    out.append(admitted_row).append("\n").append(instance_row).append("\n");
  }
  return out;
}

}  // namespace

std::string detail_notes(const RunResult& result) {
  return notes_table(result) + event_notes(result);
}

ordered_json report_json(const RunResult& result) {
  const Scenario& scenario = *result.scenario;
  ordered_json out;
  out["scenario"] = scenario.name;
  // The fields changed with --set, as given: a rerun with the same options gives this report.
  if (!scenario.settings.empty()) out["set"] = scenario.settings;
  out["seed"] = result.seed;
  out["duration_s"] = to_seconds(scenario.duration_us);
  if (result.partial) out["partial"] = partial_json(*result.partial);
  ordered_json limits = ordered_json::array();
  for (const auto& limit : scenario.limits) {
    limits.push_back({{"name", limit.name},
                      {"key", to_string(limit.key)},
                      {"limit", limit.limit},
                      {"window_s", to_seconds(limit.window_us)}});
  }
  out["limits"] = limits;
  ordered_json strategies = ordered_json::array();
  for (const auto& strategy : result.strategies) {
    strategies.push_back(strategy_json(strategy, scenario));
    if (strategy.shadow) strategies.back()["shadow"] = shadow_json(strategy, result);
  }
  out["strategies"] = strategies;
  return out;
}

std::string report_table(const RunResult& result, bool color) {
  const Scenario& scenario = *result.scenario;
  const Paint paint = [color](const std::string& text, const char* code) {
    return color ? fmt::format("\033[{}m{}\033[0m", code, text) : text;
  };
  std::string out;
  std::string title = fmt::format("rlsim: {}", scenario.name);
  for (const auto& setting : scenario.settings) title += " --set " + setting;
  out += paint(escape_controls(title), "1") + "\n";
  if (result.partial) out += paint(partial_notice(result), "1;33") + "\n";
  out += wrap_words(escape_controls(scenario.description), kTableColumns);
  for (const auto& limit : scenario.limits) {
    out += fmt::format("limit {}: {} per {} per {}\n", limit.name, limit.limit,
                       format_duration(limit.window_us), to_string(limit.key));
  }
  out += "\n" + strategy_rows(result, paint);
  if (scenario.limits.size() > 1)
    out +=
        "overshoot, rolling, excess, false_dn, slog_err: the worst limit's (each limit's in "
        "report.json)\n";
  // Why an overshoot is below the instance count, right under the figure it explains.
  for (const auto& strategy : result.strategies)
    if (const auto cap = overshoot_cap(scenario, strategy)) out += cap->reason + "\n";
  out += strategy_lines(result, color);
  // The notes in full are report.md's "Details"; here each line fits the terminal.
  std::size_t cut = 0;
  // A long line wraps onto up to two more (a strategy's counters, the 5 ms ALERT, a fault's
  // next window stay on screen); what is longer still is cut.
  out += fit_lines(detail_notes(result), kTableColumns, 2, cut);
  if (result.trace) out += trace_note(*result.trace);
  if (cut > 0)
    out += fmt::format("({} line{} cut at {} columns: in full in report.md, \"Details\")\n", cut,
                       cut == 1 ? "" : "s", kTableColumns);
  out += window_rows(result, paint);
  return out;
}

}  // namespace rlsim
