#include "report/fault_report.h"

#include <fmt/format.h>

namespace rlsim {

namespace {

using ordered_json = nlohmann::ordered_json;

std::string node_line(const std::string& label, const ordered_json& node) {
  const ordered_json& errors = node["errors"];
  std::string line = fmt::format(
      "{}: redis: utilization {:.2f}, queue p99 {} cmds, rate-check p50/p99 {}/{} us, "
      "timeouts {}, refused {}, pool waits {}",
      label, node["utilization"].get<double>(), node["queue_length_p99"].get<std::int64_t>(),
      node["call_latency_us"]["p50"].get<std::int64_t>(),
      node["call_latency_us"]["p99"].get<std::int64_t>(), errors["timeouts"].get<std::uint64_t>(),
      errors["refused"].get<std::uint64_t>(), node["pool"]["waits"].get<std::uint64_t>());
  if (!node["hot_keys"].empty()) {
    const ordered_json& hottest = node["hot_keys"].front();
    line += fmt::format(", hottest key {} ({} ops)", hottest["key"].get<std::string>(),
                        hottest["ops"].get<std::uint64_t>());
  }
  return line + "\n";
}

std::string resilience_line(const std::string& label, const ordered_json& r) {
  std::string line = fmt::format(
      "{}: on_error {}: fallback decisions {} ({:.2f}%), denied by the policy {}", label,
      r["policy"].get<std::string>(), r["fallback_decisions"].get<std::int64_t>(),
      r["fallback_rate"].get<double>() * 100, r["fallback_denied"].get<std::int64_t>());
  const ordered_json& breaker = r["breaker"];
  if (!breaker.is_null()) {
    const ordered_json& time = breaker["time_s"];
    line += fmt::format(
        "; breaker opened {}x, short-circuited {}, instance-seconds closed/open/half-open "
        "{:.1f}/{:.1f}/{:.1f}",
        breaker["opened"].get<std::int64_t>(), r["short_circuited"].get<std::int64_t>(),
        time["closed"].get<double>(), time["open"].get<double>(), time["half_open"].get<double>());
  }
  return line + "\n";
}

std::string fault_line(const std::string& label, const ordered_json& fault) {
  const ordered_json& during = fault["during"];
  const ordered_json& after = fault["after"];
  return fmt::format(
      "{}: {} at {}s for {}s: during: allowed {}/{}, excess {}, false denials {}, waited a full "
      "timeout {}; next window: excess {}; back within the limit {:.2f}s after\n",
      label, fault["type"].get<std::string>(), fault["at_s"].get<double>(),
      fault["for_s"].get<double>(), during["allowed"].get<std::int64_t>(),
      during["offered"].get<std::int64_t>(), during["excess"].get<std::int64_t>(),
      during["false_denials"].get<std::int64_t>(),
      during["waited_full_timeout"].get<std::int64_t>(), after["excess"].get<std::int64_t>(),
      fault["recovery_s"].get<double>());
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
    if (extra.contains("redis_node")) out += node_line(strategy.label, extra["redis_node"]);
    if (extra.contains("redis_nodes")) {  // an embedded cluster: one line per node
      for (const auto& node : extra["redis_nodes"])
        out += node_line(fmt::format("{} node {}", strategy.label, node["node"].get<int>()), node);
      const auto& cluster = extra["redis_cluster"];
      out += fmt::format(
          "{}: cluster: CROSSSLOT errors {}, peak node utilization {:.2f}, ops imbalance per "
          "second {:.2f} (1 = even)\n",
          strategy.label, cluster["crossslot_errors"].get<std::uint64_t>(),
          cluster["peak_utilization"].get<double>(), cluster["bucket_ops_imbalance"].get<double>());
    }
    if (extra.contains("resilience")) out += resilience_line(strategy.label, extra["resilience"]);
    if (extra.contains("faults"))
      for (const auto& fault : extra["faults"]) out += fault_line(strategy.label, fault);
  }
  return out.empty() ? out : "\n" + out;
}

}  // namespace rlsim
