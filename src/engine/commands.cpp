#include "engine/commands.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace rlsim {

std::string shell_quote(const std::string& text) {
  if (!text.empty() &&
      text.find_first_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:") ==
          std::string::npos)
    return text;
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<ResolvedStrategy> select_strategies(const std::vector<ResolvedStrategy>& strategies,
                                                const std::vector<std::string>& labels,
                                                const std::string& file) {
  if (labels.empty()) return strategies;
  std::vector<ResolvedStrategy> chosen;
  std::set<std::string> seen;
  for (const auto& label : labels) {
    if (!seen.insert(label).second)
      throw ScenarioError(fmt::format("--strategy {}: given twice", label));
    auto it = std::find_if(strategies.begin(), strategies.end(),
                           [&](const auto& s) { return s.label == label; });
    if (it == strategies.end()) {
      std::string known;
      for (const auto& s : strategies) known += (known.empty() ? "" : ", ") + s.label;
      throw ScenarioError(fmt::format(
          "--strategy {}: no strategy with this label in {} (it has: {})", label, file, known));
    }
    chosen.push_back(*it);
  }
  return chosen;
}

void mark_partial(RunResult& result, const std::vector<ResolvedStrategy>& planned) {
  RunPartial partial;
  partial.reason = "SIGINT";
  // A strategy during which the real Redis was lost is not reported (its calls failed from then
  // on), nor are those after it, which never ran.
  for (const StrategyResult& s : result.strategies) {
    if (!s.redis_lost || partial.redis_lost) continue;
    partial.reason = *s.redis_lost;
    partial.redis_lost = true;
  }
  std::erase_if(result.strategies,
                [](const StrategyResult& s) { return s.redis_lost.has_value(); });
  for (const StrategyResult& s : result.strategies) {
    if (!s.stopped_at_us) continue;
    if (partial.cut.empty()) partial.stopped_at_s = static_cast<double>(*s.stopped_at_us) / kUsPerS;
    partial.cut.push_back(s.label);
  }
  for (const auto& strategy : planned) {
    const bool ran =
        std::any_of(result.strategies.begin(), result.strategies.end(),
                    [&](const StrategyResult& s) { return s.label == strategy.label; });
    if (!ran) partial.not_run.push_back(strategy.label);
  }
  if (partial.cut.empty() && partial.not_run.empty()) return;
  result.partial = std::move(partial);
}

nlohmann::ordered_json strategy_report(const Scenario& scenario, std::uint64_t seed,
                                       const StrategyResult& result) {
  RunResult run;
  run.scenario = &scenario;
  run.seed = seed;
  run.strategies.push_back(result);
  return report_json(run)["strategies"][0];
}

namespace {

// The path of the first value that differs between two JSON documents, with both values when
// they are short scalars ("" when equal).
std::string first_difference(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b,
                             const std::string& path) {
  if (a.type() != b.type()) return path.empty() ? "(the whole report)" : path;
  if (a.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      std::string child = path.empty() ? it.key() : path + "." + it.key();
      if (!b.contains(it.key())) return child;
      std::string diff = first_difference(it.value(), b[it.key()], child);
      if (!diff.empty()) return diff;
    }
    return a.size() == b.size() ? "" : path;
  }
  if (a.is_array()) {
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
      std::string diff = first_difference(a[i], b[i], fmt::format("{}[{}]", path, i));
      if (!diff.empty()) return diff;
    }
    return a.size() == b.size() ? "" : path;
  }
  if (a == b) return "";
  // Two scalars: name them too, so a reader sees how far apart the runs are.
  std::string va = a.dump(), vb = b.dump();
  if (va.size() > 80 || vb.size() > 80) return path;
  return fmt::format("{} (run 1: {}, run 2: {})", path, va, vb);
}

}  // namespace

std::string first_divergence(const Scenario& scenario, const StrategyResult& a,
                             const StrategyResult& b) {
  const auto& ca = a.digest_checkpoints;
  const auto& cb = b.digest_checkpoints;
  const std::size_t common = std::min(ca.size(), cb.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (ca[i].digest == cb[i].digest && ca[i].decisions == cb[i].decisions) continue;
    const std::uint64_t first = i == 0 ? 0 : ca[i - 1].decisions;
    const TimeUs from_us = i == 0 ? 0 : ca[i - 1].time_us;
    const TimeUs to_us = std::max(ca[i].time_us, cb[i].time_us);
    std::string text = fmt::format(
        "the decisions first differ in decisions {}..{}, virtual time {:.1f} s .. {:.1f} s", first,
        ca[i].decisions - 1, to_seconds(from_us), to_seconds(to_us));
    // Runs that reached the checkpoint at different times diverged in timing, not only outcome.
    if (ca[i].time_us != cb[i].time_us)
      text += fmt::format(" (run 1 reached it at {:.1f} s, run 2 at {:.1f} s)",
                          to_seconds(ca[i].time_us), to_seconds(cb[i].time_us));
    return text;
  }
  if (ca.size() != cb.size() || a.decision_digest != b.decision_digest) {
    const std::uint64_t first = common == 0 ? 0 : ca[common - 1].decisions;
    const TimeUs from_us = common == 0 ? 0 : ca[common - 1].time_us;
    return fmt::format(
        "the decisions first differ after decision {} (virtual time {:.1f} s): run 1 saw {} "
        "requests, run 2 {}",
        first, to_seconds(from_us), a.totals.offered, b.totals.offered);
  }
  const auto ra = strategy_report(scenario, 0, a);
  const auto rb = strategy_report(scenario, 0, b);
  if (ra.dump() == rb.dump()) return "";
  const std::string field = first_difference(ra, rb, "");
  if (field.empty()) return "the same decisions, but the reports differ byte for byte";
  return fmt::format("the same decisions, but the reports differ first at {}", field);
}

StrategyResult run_strategy_checked(const Scenario& scenario, const ResolvedStrategy& strategy,
                                    std::uint64_t seed, bool twice, std::string& divergence) {
  divergence.clear();
  StrategyResult first = run_strategy(scenario, strategy, seed);
  // A run stopped by SIGINT, or during which the real Redis was lost, is not compared.
  if (twice && !first.stopped_at_us && !first.redis_lost) {
    const StrategyResult second = run_strategy(scenario, strategy, seed);
    divergence = first_divergence(scenario, first, second);
  }
  return first;
}

}  // namespace rlsim
