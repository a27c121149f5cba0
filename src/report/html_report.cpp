#include "report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "core/terminal_text.h"
#include "report/alerts.h"
#include "report/autoscale_report.h"
#include "report/chart_windows.h"
#include "report/fault_report.h"
#include "report/overshoot_cap.h"
#include "report/partial.h"
#include "report/report.h"
#include "report/rounding.h"
#include "report/shadow_report.h"
#include "report/state_charts.h"

namespace rlsim {
namespace {

// Time axes in minutes for runs of two minutes or more, else in seconds.
struct TimeAxis {
  double divisor_us;
  const char* unit;
};

TimeAxis time_axis(const Scenario& scenario) {
  return scenario.duration_us >= 2 * kUsPerMin ? TimeAxis{1.0 * kUsPerMin, "minutes"}
                                               : TimeAxis{1.0 * kUsPerS, "seconds"};
}

double worst_overshoot(const StrategyResult& strategy) {
  double worst = 0;
  for (const auto& limit : strategy.totals.limits) worst = std::max(worst, limit.overshoot);
  return worst;
}

std::int64_t worst_excess(const StrategyResult& strategy) {
  std::int64_t worst = 0;
  for (const auto& limit : strategy.totals.limits) worst = std::max(worst, limit.excess);
  return worst;
}

std::int64_t worst_false_denials(const StrategyResult& strategy) {
  std::int64_t worst = 0;
  for (const auto& limit : strategy.totals.limits) worst = std::max(worst, limit.false_denials);
  return worst;
}

// The worst limit's share of decisions an exact sliding log would have made differently, in %.
double worst_sliding_log_error_percent(const StrategyResult& strategy) {
  double worst = 0;
  for (const auto& limit : strategy.totals.limits)
    worst = std::max(worst, limit.sliding_log_error_rate);
  return worst * 100.0;
}

// The most admitted for one key in each window, drawn as a step from the window's start.
ChartSeries admitted_series(const RunResult& result, const StrategyResult& strategy,
                            const TimeAxis& axis, const std::string& color) {
  ChartSeries series{strategy.label, color, {}, true, false};
  series.end_x = static_cast<double>(chart_end_us(result)) / axis.divisor_us;
  for (const auto& point : strategy.totals.series) {
    if (!charted_window(result, point.start_us)) continue;
    series.points.emplace_back(static_cast<double>(point.start_us) / axis.divisor_us,
                               static_cast<double>(point.max_per_key));
  }
  return series;
}

// The summary table has 15 columns: at 1280 px (body 1200 px) it fits with its headings wrapped
// (every bundled scenario's, measured in Chromium: tests/browser/html_report.sh); in a narrower
// window it scrolls inside .table-wrap instead of widening the page.
const char* kStyle = R"(body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
margin:0 auto;max-width:1200px;padding:1rem 1.25rem 3rem;color:#1a1a1a;line-height:1.45;font-size:18px}
h1{font-size:1.9rem;margin-bottom:.2rem}h2{font-size:1.4rem;margin-top:2.2rem;border-bottom:2px solid #ddd}
code,.mono{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em;background:#f3f3f3;padding:.1em .3em;border-radius:3px}
.table-wrap{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.85rem}
th,td{padding:.3rem .4rem;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}
th,td:nth-child(2){white-space:normal}th{vertical-align:bottom}
th:first-child,td:first-child{text-align:left}thead th{background:#f3f3f3}
table.wrap th,table.wrap td{white-space:normal;text-align:left;overflow-wrap:anywhere}
.over{color:#b00020;font-weight:bold}.holds{color:#006b3c;font-weight:bold}
svg.chart{width:100%;height:auto;max-width:1000px;display:block;margin:1rem 0}
.meta{color:#444}.limits li{margin:.1rem 0}pre{white-space:pre-wrap;overflow-wrap:anywhere}
)";

}  // namespace

std::vector<Chart> report_charts(const RunResult& result) {
  const Scenario& scenario = *result.scenario;
  const TimeAxis axis = time_axis(scenario);
  const double x_max = static_cast<double>(scenario.duration_us) / axis.divisor_us;
  const Limit& first = scenario.limits.front();
  std::vector<Chart> charts;

  Chart overview;
  overview.id = "admitted";
  overview.title = fmt::format("Most admitted for one {} per {} window, against the limit of {}",
                               to_string(first.key), format_duration(first.window_us), first.limit);
  overview.x_label = fmt::format("time ({})", axis.unit);
  overview.y_label = "admitted per window";
  overview.x_max = x_max;
  overview.bands = fault_bands(scenario, axis.divisor_us);
  if (auto band = partial_window_band(result, axis.divisor_us)) overview.bands.push_back(*band);
  const auto& palette = chart_palette();
  for (std::size_t i = 0; i < result.strategies.size(); ++i) {
    overview.series.push_back(
        admitted_series(result, result.strategies[i], axis, palette[i % palette.size()]));
  }
  ChartSeries limit_line{
      fmt::format("limit ({})", first.limit),
      "#555555",
      {{0.0, static_cast<double>(first.limit)}, {x_max, static_cast<double>(first.limit)}},
      false,
      true};
  limit_line.shared = true;
  overview.series.push_back(std::move(limit_line));
  charts.push_back(std::move(overview));

  if (!result.strategies.empty()) {
    Chart instances;
    instances.id = "instances";
    instances.title = "Active app instances";
    instances.x_label = fmt::format("time ({})", axis.unit);
    instances.y_label = "instances";
    instances.x_max = x_max;
    instances.bands = fault_bands(scenario, axis.divisor_us);
    // With an autoscaler each strategy's run scales on its own traffic: one line each.
    const std::size_t lines =
        scenario.instances.autoscale.enabled ? result.strategies.size() : std::size_t{1};
    for (std::size_t i = 0; i < lines; ++i) {
      const StrategyResult& strategy = result.strategies[i];
      ChartSeries series{lines == 1 ? "instances" : strategy.label,
                         lines == 1 ? palette[2] : palette[i % palette.size()],
                         {},
                         true,
                         false};
      for (const auto& [at_us, count] : strategy.instance_counts)
        series.points.emplace_back(static_cast<double>(at_us) / axis.divisor_us, count);
      instances.series.push_back(std::move(series));
    }
    charts.push_back(std::move(instances));
  }
  append_detail_charts(result, axis.divisor_us, axis.unit, charts);
  append_state_charts(result, axis.divisor_us, axis.unit, charts);
  // More lines than a chart tells apart: the same chart for a few strategies at a time.
  std::vector<Chart> legible;
  for (Chart& chart : charts) {
    std::vector<Chart> parts = small_multiples(std::move(chart));
    std::move(parts.begin(), parts.end(), std::back_inserter(legible));
  }
  return legible;
}

std::string report_html(const RunResult& result, const std::string& reproduce) {
  const Scenario& scenario = *result.scenario;
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n";
  out += fmt::format("<title>rlsim: {}</title>\n<style>{}</style>\n</head>\n<body>\n",
                     xml_escape(scenario.name), kStyle);
  out += fmt::format("<h1>rlsim: {}</h1>\n", xml_escape(scenario.name));
  if (result.partial)
    out += fmt::format("<p id=\"partial\" class=\"over\"><b>{}</b></p>\n",
                       xml_escape(partial_notice(result)));
  if (!scenario.description.empty())
    out += fmt::format("<p id=\"description\">{}</p>\n", xml_escape(scenario.description));
  out += "<ul class=\"limits\">\n";
  for (const auto& limit : scenario.limits) {
    out += fmt::format("<li>limit <b>{}</b>: {} per {} per {}</li>\n", xml_escape(limit.name),
                       limit.limit, format_duration(limit.window_us), to_string(limit.key));
  }
  out += "</ul>\n";
  out += fmt::format(
      "<p class=\"meta\">seed {} &#183; {} simulated &#183; reproduce with "
      "<code id=\"reproduce\">{}</code></p>\n",
      result.seed, format_duration(scenario.duration_us), xml_escape(reproduce));

  out += "<h2>Summary</h2>\n<div class=\"table-wrap\"><table id=\"summary\">\n<thead><tr>";
  for (const char* heading :
       {"strategy", "verdict", "offered", "allowed", "denied", "errors", "overshoot", "rolling",
        "excess", "false denials", "Redis cmd/req", "round trips/req", "latency p50 &#181;s",
        "latency p99 &#181;s", "sliding-log error"}) {
    out += fmt::format("<th>{}</th>", heading);
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& strategy : result.strategies) {
    const OracleTotals& totals = strategy.totals;
    const double overshoot = worst_overshoot(strategy);
    double rolling = 0;
    for (const auto& limit : totals.limits) rolling = std::max(rolling, limit.rolling_overshoot);
    out += fmt::format(
        "<tr><td>{}</td><td class=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td class=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2f}</td>"
        "<td>{:.2f}</td><td>{}</td><td>{}</td><td>{:.3f}%</td></tr>\n",
        xml_escape(strategy.label), overshoot > 1.0001 ? "over" : "holds", verdict(overshoot),
        totals.offered, totals.allowed, totals.denied, totals.errors,
        overshoot > 1.0001 ? "over" : "holds", format_ratio(overshoot), format_ratio(rolling),
        worst_excess(strategy), worst_false_denials(strategy),
        per_request(strategy.redis_commands, totals.offered),
        per_request(strategy.redis_round_trips, totals.offered), totals.latency_us.quantile(0.5),
        totals.latency_us.quantile(0.99), worst_sliding_log_error_percent(strategy));
  }
  out += "</tbody>\n</table></div>\n";
  out +=
      "<p class=\"meta\">overshoot: the most admitted for one key in one aligned window, divided "
      "by "
      "the limit (measured on true time); rolling: the same over any interval of one window; "
      "excess: admitted beyond the limit in all; false denials: denied although an ideal limiter "
      "of the same algorithm would have admitted. Definitions: docs/metrics.md.</p>\n";
  if (const std::string shadow = shadow_notes(result); !shadow.empty())
    out += fmt::format("<pre id=\"shadow\">{}</pre>\n", xml_escape(shadow));
  out += alert_html(result);
  out += autoscale_html(result);

  out += "<h2>Over time</h2>\n";
  for (const auto& chart : report_charts(result)) out += render_svg(chart);

  out += "</body>\n</html>\n";
  return out;
}

std::string report_markdown(const RunResult& result, const std::string& reproduce,
                            const std::vector<std::string>& chart_files) {
  const Scenario& scenario = *result.scenario;
  std::string out = fmt::format("# rlsim: {}\n\n", scenario.name);
  if (result.partial) out += fmt::format("**{}**\n\n", partial_notice(result));
  if (!scenario.description.empty())
    out += escape_controls_in_document(scenario.description) + "\n\n";
  for (const auto& limit : scenario.limits) {
    out += fmt::format("- limit **{}**: {} per {} per {}\n", limit.name, limit.limit,
                       format_duration(limit.window_us), to_string(limit.key));
  }
  out += fmt::format("\nseed {}; {} simulated; reproduce with `{}`\n\n## Summary\n\n", result.seed,
                     format_duration(scenario.duration_us), reproduce);
  out +=
      "| strategy | verdict | offered | allowed | denied | errors | overshoot | rolling | excess | "
      "false denials | Redis cmd/req | round trips/req | p50 us | p99 us | sliding-log error |\n"
      "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n";
  for (const auto& strategy : result.strategies) {
    const OracleTotals& totals = strategy.totals;
    double rolling = 0;
    for (const auto& limit : totals.limits) rolling = std::max(rolling, limit.rolling_overshoot);
    // A '|' inside a label would split the cell.
    std::string label = strategy.label;
    for (std::size_t at = label.find('|'); at != std::string::npos; at = label.find('|', at + 2))
      label.replace(at, 1, "\\|");
    out += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2f} | {:.2f} | {} | {} | {:.3f}% "
        "|\n",
        label, verdict(worst_overshoot(strategy)), totals.offered, totals.allowed, totals.denied,
        totals.errors, format_ratio(worst_overshoot(strategy)), format_ratio(rolling),
        worst_excess(strategy), worst_false_denials(strategy),
        per_request(strategy.redis_commands, totals.offered),
        per_request(strategy.redis_round_trips, totals.offered), totals.latency_us.quantile(0.5),
        totals.latency_us.quantile(0.99), worst_sliding_log_error_percent(strategy));
  }
  for (const auto& strategy : result.strategies)
    if (const auto cap = overshoot_cap(scenario, strategy)) out += "\n" + cap->reason + "\n";
  out += "\nDefinitions of every metric: docs/metrics.md in the rlsim repository.\n\n";
  // What `rlsim run` prints under its table (the shadow comparison among it), without cutting
  // the long lines.
  std::string details = detail_notes(result);
  details.erase(0, details.find_first_not_of('\n'));
  if (!details.empty()) out += "## Details\n\n```\n" + details + "```\n\n";
  out += alert_markdown(result);
  out += "## Over time\n\n";
  const std::vector<Chart> charts = report_charts(result);
  for (std::size_t i = 0; i < charts.size() && i < chart_files.size(); ++i)
    out += fmt::format("![{}]({})\n\n", charts[i].title, chart_files[i]);
  return out;
}

}  // namespace rlsim
