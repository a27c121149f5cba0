#pragma once
// The shadow block of a shadow run (`"mode": "shadow"`): its would-be denials, and its agreement
// with the enforcing run of the same strategy in the same report, request by request. Pure
// functions of the results (docs/metrics.md, "Shadow mode").
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "report/results.h"

namespace rlsim {

// A shadow run against its enforcing partner, over the first sends both decided (a retry is a
// request of one run only: counted in `retries`, not compared).
struct ShadowAgreement {
  std::string label;                       // the enforcing run
  std::int64_t denied = 0;                 // its real denials
  std::int64_t compared = 0;               // requests both runs decided
  std::int64_t agreed = 0;                 // ... with the same decision
  std::int64_t both_denied = 0;            // the shadow would deny and the enforcing run denied
  std::int64_t only_shadow_denied = 0;     // the shadow would deny, the enforcing run admitted
  std::int64_t only_enforcing_denied = 0;  // the enforcing run denied, the shadow would admit
  // Retries the enforcing run's clients sent (not compared); unset when no group retries.
  std::optional<std::int64_t> retries;
  double agreement() const {
    return compared == 0 ? 1.0 : static_cast<double>(agreed) / static_cast<double>(compared);
  }
};

// Unset unless `shadow` is a shadow run whose partner is among `run`'s strategies.
std::optional<ShadowAgreement> shadow_agreement(const StrategyResult& shadow, const RunResult& run);

// The strategy's "shadow" object. REQUIRES: shadow.shadow is set.
nlohmann::ordered_json shadow_json(const StrategyResult& shadow, const RunResult& run);

// One line per shadow run for the table, the page and the Markdown ("" when there is none).
std::string shadow_notes(const RunResult& run);

}  // namespace rlsim
