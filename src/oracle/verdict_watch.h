#pragma once
// Production's verdicts beside a strategy's (docs/replay.md#verdicts): for every replayed request
// whose log line says what production's limiter did (a 429, Envoy's RL flag), whether the
// strategy decided the same. An observer: it never influences a decision.
#include "oracle/observer.h"
#include "world/results.h"

namespace rlsim {

class VerdictWatch final : public DecisionObserver {
 public:
  // Counts first sends with a logged verdict; a shadow run's would-be denial counts as its
  // decision, and a request lost with its instance as denied (the client got an error).
  void on_decided(const DecidedRequest& decided) override;
  // The counts so far; nullopt when no request carried a verdict.
  std::optional<VerdictAgreement> agreement() const;

 private:
  VerdictAgreement counts_;
};

}  // namespace rlsim
