#include "oracle/verdict_watch.h"

namespace rlsim {

void VerdictWatch::on_decided(const DecidedRequest& decided) {
  const Request& request = decided.request;
  if (request.logged == Request::Logged::kUnknown || request.attempt > 0) return;
  const bool denied = !decided.outcome.allowed || decided.outcome.would_deny;
  const bool logged_denied = request.logged == Request::Logged::kDenied;
  ++counts_.compared;
  if (denied == logged_denied) {
    ++(denied ? counts_.agree_denied : counts_.agree_admitted);
  } else {
    ++(logged_denied ? counts_.logged_denied_but_admitted : counts_.logged_admitted_but_denied);
  }
}

std::optional<VerdictAgreement> VerdictWatch::agreement() const {
  if (counts_.compared == 0) return std::nullopt;
  return counts_;
}

}  // namespace rlsim
