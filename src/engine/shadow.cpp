#include "engine/shadow.h"

#include "core/check.h"

namespace rlsim {

ShadowWatch::ShadowWatch(const std::vector<Limit>& limits, Algorithm ideal_algorithm,
                         const std::vector<BucketShape>& buckets, bool shadow,
                         const std::string& partner) {
  if (shadow) ideal_.emplace(limits, ideal_algorithm, buckets);
  result_.partner = partner;
  if (!partner.empty()) decisions_ = std::make_shared<RequestDecisions>();
}

bool ShadowWatch::on_arrival(const Request& request) {
  return ideal_ && ideal_->admits(request, kEpochUnixUs + request.arrival_us);
}

void ShadowWatch::on_decided(const DecidedRequest& decided) {
  const Outcome& outcome = decided.outcome;
  if (outcome.would_deny) {
    ++result_.would_deny;
    // The ideal limiter's verdict at arrival, as the oracle judges a false denial.
    ++(decided.arrival_mark ? result_.would_deny_wrongly : result_.would_deny_rightly);
  }
  // Compared over first sends only: a retry exists in one run and not in the other.
  if (!decisions_ || decided.request.attempt > 0) return;
  // Request::id is the traffic group in the high bits and the sequence number in the low 40.
  const auto group = static_cast<std::size_t>(decided.request.id >> 40);
  const auto sequence =
      static_cast<std::size_t>(decided.request.id & ((std::uint64_t{1} << 40) - 1));
  if (decisions_->decided.size() <= group) {
    decisions_->decided.resize(group + 1);
    decisions_->admitted.resize(group + 1);
  }
  auto& decided_bits = decisions_->decided[group];
  auto& admitted_bits = decisions_->admitted[group];
  if (decided_bits.size() <= sequence) {
    decided_bits.resize(sequence + 1);
    admitted_bits.resize(sequence + 1);
  }
  RLSIM_CHECK(!decided_bits[sequence]);
  decided_bits[sequence] = true;
  admitted_bits[sequence] = outcome.allowed && !outcome.would_deny;
}

std::optional<ShadowResult> ShadowWatch::report() const {
  if (!ideal_) return std::nullopt;
  return result_;
}

}  // namespace rlsim
