// local_budget: the lesson's LocalBudgetRateLimiter. Each instance claims a batch of tokens from
// the Redis counter with one Lua script (INCRBY the batch; when the total passes the limit, DECRBY
// the excess and grant only the remainder) and spends them without asking Redis again. The local
// side, shared with token_reservation, is BatchBudget in token_reservation.cpp.
#include <fmt/format.h>

#include "strategy/hybrid.h"
#include "strategy/registry.h"
#include "strategy/reply_check.h"
#include "strategy/script.h"

namespace rlsim {

namespace {

// The lesson's claim script, with the TTL passed in ARGV[3] (in ms, two windows) where the lesson
// wrote EXPIRE 120 for its 60 s window. KEYS[1] = counter, ARGV = batch, limit, ttl_ms.
constexpr const char* kClaimScript = R"(local current = redis.call('INCRBY', KEYS[1], ARGV[1])
if current > tonumber(ARGV[2]) then
    local excess = current - tonumber(ARGV[2])
    local granted = tonumber(ARGV[1]) - excess
    if granted < 0 then granted = 0 end
    redis.call('DECRBY', KEYS[1], excess)
    return granted
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return tonumber(ARGV[1])
)";

class LocalBudget final : public hybrid::BatchBudget {
 public:
  explicit LocalBudget(StrategyEnv env)
      : BatchBudget(std::move(env)), script_("local_budget claim", kClaimScript) {}

  void write_metrics(nlohmann::ordered_json& out) const override {
    BatchBudget::write_metrics(out);
    out["script_reloads"] = reloads_;
  }

 protected:
  Task<Claim> claim(std::string key, const Limit& limit) override {
    std::vector<std::string> keys_and_args = arguments(std::move(key), limit);
    const Reply reply = co_await script_.run(env_.redis, keys_and_args, 1, reloads_);
    if (reply.is_error() && is_fatal_script_error(reply))
      fail(fmt::format("{}: {}", script_.name(), reply.text));
    // The built-in script returns an integer from 0 to batch: anything else came from a
    // misbehaving server (the script is ours, exit 4 is for the user's), a failed claim that
    // the failure policy decides on.
    if (!is_integer(reply) || reply.integer < 0 || reply.integer > params_.batch)
      co_return Claim{0, true};
    co_return Claim{reply.integer, false};
  }

 private:
  std::vector<std::string> arguments(std::string key, const Limit& limit) const {
    std::vector<std::string> out;
    out.push_back(std::move(key));
    out.push_back(std::to_string(params_.batch));
    out.push_back(std::to_string(limit.limit));
    out.push_back(std::to_string(2 * limit.window_us / kUsPerMs));
    return out;
  }

  Script script_;
  std::uint64_t reloads_ = 0;
};

StrategyInfo local_budget_info() {
  return {
      "local_budget",
      "each instance claims a batch of tokens with one Lua call (INCRBY, DECRBY the excess) and "
      "spends them locally",
      "The lesson's local hybrid budget: each instance claims batch tokens per limit and key from "
      "the counter rl:<kind>:<value>:<window> with one EVALSHA of the lesson's script (INCRBY key "
      "batch; if the total passes the limit, DECRBY the excess and return only the remainder; "
      "otherwise PEXPIRE key <2 windows> and return batch), then admits requests from its local "
      "tokens without asking Redis. When they run out it claims again; one claim at a time per "
      "instance and key, later requests wait for it. A claim that grants nothing marks the key "
      "exhausted on that instance until the window changes, so denied requests cost no Redis call. "
      "With reset_on_window (the default) unspent tokens are dropped when the window changes; "
      "without it they are carried into the new window and traffic passes the limit. Global 1000 "
      "req/s over 10 instances with batch 100 needs about 10 claims per second instead of one call "
      "per request. The costs: tokens claimed but unused when their window ends or the instance "
      "stops are wasted (and requests are denied while other instances hold them), and the Lua "
      "script is one more thing to deploy (token_reservation does without). Keep batch x "
      "instances well below the limit: with a per-user limit of 100 and batch 100 the first "
      "instance a user reaches takes the whole window and the other instances deny that user.",
      hybrid::batch_budget_params(),
      Algorithm::kFixedWindow,
      construct<LocalBudget>,
      nullptr,
      nullptr};
}

const StrategyRegistration kLocalBudgetRegistration(110, local_budget_info);

}  // namespace

}  // namespace rlsim
