#include "report/fault_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>

#include "report/sparkline.h"

namespace rlsim {

namespace {

using ordered_json = nlohmann::ordered_json;

// The lesson's alert: page someone when the rate check's p99 passes 5 ms.
constexpr std::int64_t kRateCheckAlertUs = 5000;
constexpr std::size_t kSparkWidth = 40;
constexpr std::size_t kCommandsShown = 5;
constexpr std::size_t kHotKeysShown = 3;

// Two lines per Redis node: load, rate-check latency (flagged past the 5 ms alert), errors by kind
// and pool waits; then ops/s over time, commands by type (INFO commandstats) and the hottest keys.
std::string node_lines(const std::string& label, const ordered_json& node) {
  const ordered_json& errors = node["errors"];
  const std::int64_t p99_us = node["call_latency_us"]["p99"].get<std::int64_t>();
  std::string out = fmt::format(
      "{}: redis: utilization {:.2f}, queue p99 {} cmds, rate-check p50/p99 {}/{} us{}, "
      "errors: timeouts {}, refused {}, lost {}, error replies {}; pool waits {}\n",
      label, node["utilization"].get<double>(), node["queue_length_p99"].get<std::int64_t>(),
      node["call_latency_us"]["p50"].get<std::int64_t>(), p99_us,
      p99_us > kRateCheckAlertUs ? " (ALERT: p99 above the lesson's 5 ms)" : "",
      errors["timeouts"].get<std::uint64_t>(), errors["refused"].get<std::uint64_t>(),
      errors["lost"].get<std::uint64_t>(), errors["error_replies"].get<std::uint64_t>(),
      node["pool"]["waits"].get<std::uint64_t>());
  const ordered_json& ops = node["ops_per_s"];
  const std::vector<double> values = ops["values"].get<std::vector<double>>();
  const double peak = values.empty() ? 0 : *std::max_element(values.begin(), values.end());
  out += fmt::format("{}: redis ops/s {} (peak {:.0f}, {} s buckets)", label,
                     sparkline(values, peak, kSparkWidth), peak, ops["bucket_s"].get<double>());
  // Commands by type, most executed first (ties by name, as commandstats is sorted by name).
  std::vector<std::pair<std::string, std::uint64_t>> commands;
  for (const auto& [name, calls] : node["commandstats"].items())
    commands.emplace_back(name, calls.get<std::uint64_t>());
  std::stable_sort(commands.begin(), commands.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (std::size_t i = 0; i < std::min(commands.size(), kCommandsShown); ++i)
    text += fmt::format("{}{} {}", i == 0 ? "" : ", ", commands[i].first, commands[i].second);
  if (commands.size() > kCommandsShown)
    text += fmt::format(", {} more", commands.size() - kCommandsShown);
  if (!text.empty()) out += "; commands: " + text;
  text.clear();
  const ordered_json& hot_keys = node["hot_keys"];
  for (std::size_t i = 0; i < std::min(hot_keys.size(), kHotKeysShown); ++i) {
    // A key that took over another's counter may be counted high: say what is certain.
    const auto key_ops = hot_keys[i]["ops"].get<std::uint64_t>();
    const auto ops_min = hot_keys[i].value("ops_min", key_ops);
    text +=
        fmt::format("{}{} ({} ops{})", i == 0 ? "" : ", ", hot_keys[i]["key"].get<std::string>(),
                    key_ops, ops_min < key_ops ? fmt::format(", at least {}", ops_min) : "");
  }
  if (!text.empty()) out += "; hot keys: " + text;
  return out + "\n";
}

// How many instances' breakers were not closed (open or half-open) over the run, the most in each
// of kSparkWidth equal slices of the scenario's duration, from the breaker's timeline.
std::vector<double> breakers_not_closed(const ordered_json& timeline, TimeUs duration_us) {
  std::vector<double> cells(kSparkWidth, 0);
  std::set<std::int64_t> not_closed;
  std::size_t next = 0;
  for (std::size_t c = 0; c < kSparkWidth; ++c) {
    const double end_s = static_cast<double>(duration_us) * static_cast<double>(c + 1) /
                         static_cast<double>(kSparkWidth) / kUsPerS;
    auto peak = static_cast<double>(not_closed.size());
    for (; next < timeline.size() && timeline[next]["at_s"].get<double>() < end_s; ++next) {
      const auto id = timeline[next]["instance"].get<std::int64_t>();
      if (timeline[next]["to"] == "closed") {
        not_closed.erase(id);
      } else {
        not_closed.insert(id);
      }
      peak = std::max(peak, static_cast<double>(not_closed.size()));
    }
    cells[c] = peak;
  }
  return cells;
}

std::string resilience_lines(const std::string& label, const ordered_json& r, TimeUs duration_us) {
  std::string line = fmt::format(
      "{}: on_error {}: fallback decisions {} ({:.2f}%), denied by the policy {}", label,
      r["policy"].get<std::string>(), r["fallback_decisions"].get<std::int64_t>(),
      r["fallback_rate"].get<double>() * 100, r["fallback_denied"].get<std::int64_t>());
  const ordered_json& breaker = r["breaker"];
  if (breaker.is_null()) return line + "\n";
  const ordered_json& time = breaker["time_s"];
  line += fmt::format(
      "; breaker transitions {} (opened {}x), short-circuited {}, instance-seconds "
      "closed/open/half-open {:.1f}/{:.1f}/{:.1f}\n",
      breaker["transitions"].get<std::int64_t>(), breaker["opened"].get<std::int64_t>(),
      r["short_circuited"].get<std::int64_t>(), time["closed"].get<double>(),
      time["open"].get<double>(), time["half_open"].get<double>());
  const ordered_json& timeline = breaker["timeline"];
  if (timeline.empty()) return line;
  const std::vector<double> cells = breakers_not_closed(timeline, duration_us);
  const double peak = *std::max_element(cells.begin(), cells.end());
  line += fmt::format(
      "{}: breaker timeline: instances not closed {} (peak {:.0f}); first transition {:.2f}s "
      "{}->{}, last {:.2f}s {}->{}{}\n",
      label, sparkline(cells, peak, kSparkWidth), peak, timeline.front()["at_s"].get<double>(),
      timeline.front()["from"].get<std::string>(), timeline.front()["to"].get<std::string>(),
      timeline.back()["at_s"].get<double>(), timeline.back()["from"].get<std::string>(),
      timeline.back()["to"].get<std::string>(),
      breaker["timeline_truncated"].get<bool>() ? " (timeline truncated)" : "");
  return line;
}

std::string fault_line(const std::string& label, const ordered_json& fault) {
  const ordered_json& during = fault["during"];
  const ordered_json& after = fault["after"];
  return fmt::format(
      "{}: {} at {}s for {}s: during: allowed {}/{}, excess {}, false denials {}, waited a full "
      "timeout {}; next window: excess {}, false denials {}; back within the limit {:.2f}s "
      "after\n",
      label, fault["type"].get<std::string>(), fault["at_s"].get<double>(),
      fault["for_s"].get<double>(), during["allowed"].get<std::int64_t>(),
      during["offered"].get<std::int64_t>(), during["excess"].get<std::int64_t>(),
      during["false_denials"].get<std::int64_t>(),
      during["waited_full_timeout"].get<std::int64_t>(), after["excess"].get<std::int64_t>(),
      after["false_denials"].get<std::int64_t>(), fault["recovery_s"].get<double>());
}

}  // namespace

std::vector<ChartBand> fault_bands(const Scenario& scenario, double divisor_us) {
  std::vector<ChartBand> bands;
  for (const FaultSpec& fault : scenario.faults) {
    bands.push_back(ChartBand{static_cast<double>(fault.at_us) / divisor_us,
                              static_cast<double>(fault.at_us + fault.for_us) / divisor_us,
                              to_string(fault.type)});
  }
  // Clock faults happen at an instant (a jump, or the start of an offset or a drift): a thin mark.
  for (const ClockFault& fault : scenario.instances.clock.faults) {
    const double at = static_cast<double>(fault.at_us) / divisor_us;
    bands.push_back(ChartBand{at, at, to_string(fault.type)});
  }
  return bands;
}

std::string fault_notes(const RunResult& result) {
  std::string out;
  for (const auto& strategy : result.strategies) {
    const ordered_json& extra = strategy.extra_fields;
    if (extra.contains("redis_node")) out += node_lines(strategy.label, extra["redis_node"]);
    if (extra.contains("redis_nodes")) {  // an embedded cluster: one line per node
      for (const auto& node : extra["redis_nodes"])
        out += node_lines(fmt::format("{} node {}", strategy.label, node["node"].get<int>()), node);
      const auto& cluster = extra["redis_cluster"];
      out += fmt::format(
          "{}: cluster: CROSSSLOT errors {}, peak node utilization {:.2f}, ops imbalance per "
          "second {:.2f} (1 = even)\n",
          strategy.label, cluster["crossslot_errors"].get<std::uint64_t>(),
          cluster["peak_utilization"].get<double>(), cluster["bucket_ops_imbalance"].get<double>());
    }
    if (extra.contains("redis_node") || extra.contains("redis_nodes")) {
      out += fmt::format("{}: requests that waited a full Redis timeout ({} ms): {}\n",
                         strategy.label, result.scenario->redis.timeout_us / kUsPerMs,
                         extra["waited_full_timeout"].get<std::int64_t>());
    }
    if (extra.contains("resilience"))
      out += resilience_lines(strategy.label, extra["resilience"], result.scenario->duration_us);
    if (extra.contains("faults"))
      for (const auto& fault : extra["faults"]) out += fault_line(strategy.label, fault);
  }
  return out.empty() ? out : "\n" + out;
}

}  // namespace rlsim
