#pragma once
// Shadow mode (`"mode": "shadow"` on a strategy entry): the run admits every request whatever the
// strategy decided (engine/run.cpp marks such a decision Outcome::would_deny), and this observer
// counts the would-be denials against an ideal limiter of its own, and records each request's
// decision when the report compares the run with its enforcing partner (docs/metrics.md, "Shadow
// mode").
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "oracle/ideal.h"
#include "oracle/observer.h"
#include "report/results.h"

namespace rlsim {

class ShadowWatch final : public DecisionObserver {
 public:
  // `shadow`: count would-be denials (the ideal limiter runs only then); `partner`: the label of
  // the run to compare with ("" records no per-request decisions). `limits` must outlive it.
  ShadowWatch(const std::vector<Limit>& limits, Algorithm ideal_algorithm,
              const std::vector<BucketShape>& buckets, bool shadow, const std::string& partner);

  bool on_arrival(const Request& request) override;
  void on_decided(const DecidedRequest& decided) override;

  // The shadow block (unset unless `shadow`).
  std::optional<ShadowResult> report() const;
  // Each request's decision (null unless there is a partner).
  std::shared_ptr<const RequestDecisions> decisions() const { return decisions_; }

 private:
  std::optional<IdealLimiter> ideal_;  // set in a shadow run
  ShadowResult result_;
  std::shared_ptr<RequestDecisions> decisions_;
};

}  // namespace rlsim
