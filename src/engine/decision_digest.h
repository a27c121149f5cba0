#pragma once
// The decision stream's fingerprint (--check-determinism, rlsim conformance): a digest over every
// decision in decision order, checkpoints of it, and optionally the decisions themselves.
#include <cstdint>
#include <vector>

#include "oracle/observer.h"
#include "report/report.h"

namespace rlsim {

// One decision, in decision order, for naming the first request two runs decide differently.
struct DecisionRecord {
  std::uint64_t request_id = 0;
  TimeUs time_us = 0;
  bool allowed = false;
  bool error = false;
  int denied_by = -1;
  bool operator==(const DecisionRecord&) const = default;
};

class DecisionDigest final : public DecisionObserver {
 public:
  // Appends a checkpoint to `checkpoints` every StrategyResult::kDigestInterval decisions.
  explicit DecisionDigest(std::vector<StrategyResult::DigestCheckpoint>& checkpoints)
      : checkpoints_(checkpoints) {}

  void on_decided(const DecidedRequest& decided) override;
  // StrategyResult::decision_digest: FNV-1a-style over (request id, decision time, allowed,
  // error, denied_by).
  std::uint64_t digest() const { return digest_; }
  // Records every decision into `trace` (owned by the caller) from now on; nullptr stops it.
  void set_trace(std::vector<DecisionRecord>* trace) { trace_ = trace; }

 private:
  void mix(std::uint64_t word);

  std::vector<StrategyResult::DigestCheckpoint>& checkpoints_;
  std::vector<DecisionRecord>* trace_ = nullptr;
  std::uint64_t digest_ = 0xcbf29ce484222325ULL;
  std::uint64_t decisions_ = 0;
};

}  // namespace rlsim
