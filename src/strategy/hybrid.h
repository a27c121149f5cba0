#pragma once
// The lesson's answers to latency and hot keys (sections 3 to 5): pipelining several limits
// (multi_limit), a sharded global counter (sharded_global), and the local hybrid that claims
// batches of tokens from Redis (local_budget with the Lua claim, token_reservation without Lua).
// Each file declares its strategy; this header holds the small pieces the four files share.
#include <coroutine>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "strategy/clock_source.h"
#include "strategy/params.h"

namespace rlsim {

namespace hybrid {

// The window number of `limit` as the lesson computes it: int(now // window), here
// floor(Unix ms / window ms); window_of takes now from the instance's clock (time.time()).
inline std::int64_t window_at(const Limit& limit, TimeUs now_unix_us) {
  return now_unix_us / kUsPerMs / (limit.window_us / kUsPerMs);
}
inline std::int64_t window_of(const Limit& limit, const Instance& instance, TimeUs true_now_us) {
  return window_at(limit, instance.local_unix_us(true_now_us));
}

// "rl:user:42:<window>": the limit's prefix (redis_key_prefixes), the key's text, the window.
// assign_ forms write into an existing string or argv (of the right word count), reusing its
// buffers on the per-request path.
void assign_counter_key(std::string& key, const std::string& prefix, const Catalog& catalog,
                        const Request& request, const Limit& limit, std::int64_t window);
std::string counter_key(const std::string& prefix, const Catalog& catalog, const Request& request,
                        const Limit& limit, std::int64_t window);

// EXPIRE key <two windows in s>, or PEXPIRE key <two windows in ms> when the window is not a whole
// number of seconds: a counter outlives its window by one window, as the lesson's 120 s for 60 s.
inline constexpr std::size_t kExpireWords = 3;
void assign_expire_two_windows(Command& argv, const std::string& key, const Limit& limit);
Command expire_two_windows(const std::string& key, const Limit& limit);

// The parameters both batch strategies take (batch_budget_params), typed.
struct BatchBudgetParams {
  std::int64_t batch = 100;     // tokens claimed at a time, per limit and key
  bool reset_on_window = true;  // unspent tokens dropped (wasted) when the window changes
  RedisCallParams call;         // on_error, clock, clock_refresh
};
BatchBudgetParams parse_batch_budget_params(const ParamReader& params);

// local_budget and token_reservation: each instance holds, per limit and key, tokens claimed from
// a Redis counter in batches and spends them locally; only the claim differs. A request takes one
// token of every limit; when an instance has none left it claims `batch` more (one claim at a time
// per instance and key: later requests wait for it, like the lesson's asyncio.Lock). A claim that
// grants nothing marks the key exhausted on that instance until the window changes, so that
// denied requests cost no Redis call.
class BatchBudget : public Strategy {
 public:
  explicit BatchBudget(StrategyEnv env);

  Task<Decision> decide(Request request, const Instance& instance) override;
  void on_instance_start(const Instance& instance) override;
  void on_instance_stop(const Instance& instance) override;
  // claims, claims_empty, tokens_claimed, tokens_used, tokens_wasted, tokens_carried_over.
  void write_metrics(nlohmann::ordered_json& out) const override;
  // tokens_held (claimed, not yet spent, over every instance), tokens_wasted (dropped at a window
  // change so far), claims.
  void write_live_state(nlohmann::ordered_json& out) const override;

 protected:
  struct Claim {
    std::int64_t granted = 0;  // tokens this instance may spend, 0 to batch
    bool error = false;        // a Redis call failed or timed out
  };
  // Asks Redis for `params_.batch` tokens of `limit` from the counter `key` and returns how many
  // were granted. One Redis round trip or more; counted in claims by the caller.
  virtual Task<Claim> claim(std::string key, const Limit& limit) = 0;

  StrategyEnv env_;
  const BatchBudgetParams params_;

 private:
  struct KeyBudget {
    std::int64_t window = -1;            // the window these tokens belong to
    std::int64_t tokens = 0;             // claimed and not yet spent
    std::int64_t exhausted_window = -1;  // Redis granted nothing in this window
    bool claiming = false;               // a claim is in flight; waiters are parked below
    std::vector<std::coroutine_handle<>> waiters;
  };
  using PerKey = std::unordered_map<std::uint64_t, KeyBudget>;
  struct Taken {
    std::size_t limit_index;
    std::uint64_t key_id;
    std::int64_t window;
  };
  // Parks the deciding coroutine until the claim in flight for its key finishes.
  struct WaitForClaim {
    std::vector<std::coroutine_handle<>>& waiters;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> handle) { waiters.push_back(handle); }
    void await_resume() const noexcept {}
  };

  KeyBudget& budget(const Instance& instance, std::size_t limit_index, std::uint64_t key_id) {
    return budgets_[instance.id][limit_index][key_id];
  }
  // Moves `budget` to `window`: drops (wastes) old tokens when reset_on_window, else carries them.
  void roll_window(KeyBudget& budget, std::int64_t window);
  // Tokens claimed and not yet spent, over every instance, limit and key.
  std::int64_t tokens_held() const;
  // Gives back tokens taken for a request that a later limit denied.
  void refund(const Instance& instance, const Taken* taken, std::size_t count);

  const std::vector<std::string> prefixes_;
  ClockSource clock_;                         // where the window's "now" comes from
  std::vector<std::vector<PerKey>> budgets_;  // [instance id][limit index]
  std::int64_t claims_ = 0;
  std::int64_t claims_empty_ = 0;
  std::int64_t tokens_claimed_ = 0;
  std::int64_t tokens_used_ = 0;
  std::int64_t tokens_wasted_ = 0;
  std::int64_t tokens_carried_over_ = 0;
};

// The parameters both batch strategies take: batch, reset_on_window, on_error, clock,
// clock_refresh.
std::vector<ParamSpec> batch_budget_params();

}  // namespace hybrid
}  // namespace rlsim
