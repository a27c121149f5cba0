#include "report/shadow_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/check.h"
#include "report/rounding.h"

namespace rlsim {
namespace {

using ordered_json = nlohmann::ordered_json;

std::int64_t worst_excess(const OracleTotals& totals) {
  std::int64_t excess = 0;
  for (const auto& limit : totals.limits) excess = std::max(excess, limit.excess);
  return excess;
}

double share(std::int64_t part, std::int64_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

// Adds one traffic group's requests to `out`: those both runs decided, compared one by one.
void compare_group(const RequestDecisions& shadow, const RequestDecisions& enforcing,
                   std::size_t group, ShadowAgreement& out) {
  if (group >= shadow.decided.size() || group >= enforcing.decided.size()) return;
  const auto& decided_a = shadow.decided[group];
  const auto& decided_b = enforcing.decided[group];
  const std::size_t count = std::min(decided_a.size(), decided_b.size());
  for (std::size_t i = 0; i < count; ++i) {
    if (!decided_a[i] || !decided_b[i]) continue;
    const bool shadow_admits = shadow.admitted[group][i];
    const bool enforcing_admits = enforcing.admitted[group][i];
    ++out.compared;
    if (shadow_admits == enforcing_admits) ++out.agreed;
    if (!shadow_admits && !enforcing_admits) ++out.both_denied;
    if (!shadow_admits && enforcing_admits) ++out.only_shadow_denied;
    if (shadow_admits && !enforcing_admits) ++out.only_enforcing_denied;
  }
}

}  // namespace

std::optional<ShadowAgreement> shadow_agreement(const StrategyResult& shadow,
                                                const RunResult& run) {
  if (!shadow.shadow || shadow.shadow->partner.empty() || !shadow.decisions) return std::nullopt;
  const auto partner =
      std::find_if(run.strategies.begin(), run.strategies.end(),
                   [&](const StrategyResult& s) { return s.label == shadow.shadow->partner; });
  if (partner == run.strategies.end() || !partner->decisions) return std::nullopt;
  ShadowAgreement out;
  out.label = partner->label;
  out.denied = partner->totals.denied;
  if (partner->retries) out.retries = partner->retries->sent;
  const std::size_t groups = shadow.decisions->decided.size();
  for (std::size_t group = 0; group < groups; ++group)
    compare_group(*shadow.decisions, *partner->decisions, group, out);
  return out;
}

ordered_json shadow_json(const StrategyResult& shadow, const RunResult& run) {
  RLSIM_CHECK(shadow.shadow.has_value());
  const ShadowResult& s = *shadow.shadow;
  ordered_json out;
  out["would_deny"] = s.would_deny;
  out["would_deny_rate"] = round8(share(s.would_deny, shadow.totals.offered));
  out["would_deny_rightly"] = s.would_deny_rightly;
  out["would_deny_wrongly"] = s.would_deny_wrongly;
  out["excess_unlimited"] = worst_excess(shadow.totals);
  if (const auto agreement = shadow_agreement(shadow, run)) {
    out["enforcing"] = {{"label", agreement->label},
                        {"denied", agreement->denied},
                        {"compared", agreement->compared},
                        {"agreement", round8(agreement->agreement())},
                        {"both_denied", agreement->both_denied},
                        {"only_shadow_denied", agreement->only_shadow_denied},
                        {"only_enforcing_denied", agreement->only_enforcing_denied}};
    if (agreement->retries) out["enforcing"]["retries"] = *agreement->retries;
  }
  return out;
}

std::string shadow_notes(const RunResult& run) {
  std::string out;
  for (const StrategyResult& strategy : run.strategies) {
    if (!strategy.shadow) continue;
    const ShadowResult& s = *strategy.shadow;
    out += fmt::format(
        "shadow {}: would deny {} of {} ({:.2f}%; {} rightly, {} wrongly by the ideal limiter), "
        "all admitted: excess with the limiter off {}",
        strategy.label, s.would_deny, strategy.totals.offered,
        100 * share(s.would_deny, strategy.totals.offered), s.would_deny_rightly,
        s.would_deny_wrongly, worst_excess(strategy.totals));
    if (const auto a = shadow_agreement(strategy, run)) {
      out += fmt::format(
          "; against {}: same decision for {:.2f}% of {} requests, would deny {} vs {} denied "
          "({} both, {} only shadow, {} only enforcing)",
          a->label, 100 * a->agreement(), a->compared, s.would_deny, a->denied, a->both_denied,
          a->only_shadow_denied, a->only_enforcing_denied);
      if (a->retries)
        out += fmt::format(
            " over first sends; {}'s clients also sent {} retries the dry run never saw", a->label,
            *a->retries);
    }
    out += "\n";
  }
  return out;
}

}  // namespace rlsim
