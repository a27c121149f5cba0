#include "engine/decision_digest.h"

namespace rlsim {

// FNV-1a over whole 64-bit words, with a fold of the high half so every bit of a word reaches the
// low bits of the digest.
void DecisionDigest::mix(std::uint64_t word) {
  digest_ ^= word;
  digest_ *= 0x100000001b3ULL;
  digest_ ^= digest_ >> 32;
}

void DecisionDigest::on_decided(const DecidedRequest& decided) {
  const Outcome& outcome = decided.outcome;
  mix(decided.request.id);
  mix(static_cast<std::uint64_t>(decided.decided_us));
  mix((outcome.allowed ? 1u : 0u) | (outcome.error ? 2u : 0u) |
      (static_cast<std::uint64_t>(outcome.denied_by + 1) << 2));
  // A shadow run admits everything: its would-be denials are its decisions (conformance compares
  // them). Mixed only when set, so an enforcing run's digest is what it always was.
  if (outcome.would_deny)
    mix(0x5ad0'0000'0000'0000ULL | static_cast<std::uint64_t>(outcome.would_deny_by + 1));
  if (trace_ != nullptr)
    trace_->push_back({decided.request.id, decided.decided_us, outcome.allowed, outcome.error,
                       outcome.denied_by});
  if (++decisions_ % StrategyResult::kDigestInterval == 0)
    checkpoints_.push_back({decisions_, decided.decided_us, digest_});
}

}  // namespace rlsim
