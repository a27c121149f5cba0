// token_reservation: the lesson's variant of the local budget without Lua. The claim is two plain
// commands in two round trips:
//   new_total = INCRBY key batch                (pipelined with EXPIRE key <2 windows>)
//   if new_total > limit: DECRBY key (new_total - limit), grant batch - (new_total - limit)
// Between the two round trips other instances see the inflated total: they get fewer tokens or
// none, and the excess each one gives back can undo another instance's claim.
#include <algorithm>

#include "strategy/hybrid.h"
#include "strategy/registry.h"
#include "strategy/reply_check.h"

namespace rlsim {
namespace hybrid {

std::vector<ParamSpec> batch_budget_params() {
  return own_then_redis_call_params(
      {{"batch",
        ParamType::kInt,
        100,
        "tokens an instance claims from Redis at a time, per limit and key",
        {},
        false},
       {"reset_on_window",
        ParamType::kBool,
        true,
        "true: an instance drops its unspent tokens when the window changes (they count as "
        "wasted); false: it keeps spending them in the new window (the carried-over-tokens bug "
        "the lesson warns about)",
        {},
        false}});
}

BatchBudgetParams parse_batch_budget_params(const ParamReader& params) {
  return BatchBudgetParams{params.integer("batch"), params.boolean("reset_on_window"),
                           parse_redis_call_params(params)};
}

BatchBudget::BatchBudget(StrategyEnv env)
    : env_(std::move(env)),
      params_(parse_batch_budget_params(ParamReader(env_.params))),
      prefixes_(redis_key_prefixes(env_.limits)),
      clock_(params_.call.clock, env_.sim, env_.redis) {}

void BatchBudget::on_instance_start(const Instance& instance) {
  if (budgets_.size() <= instance.id) budgets_.resize(instance.id + 1);
  budgets_[instance.id].assign(env_.limits.size(), {});
}

void BatchBudget::on_instance_stop(const Instance& instance) {
  clock_.forget(instance);  // a restarted process reads TIME afresh
  // The process is gone and its tokens with it. Entries with a claim in flight stay: the requests
  // still deciding on this instance come back to them (and waste what they do not use).
  for (PerKey& per_key : budgets_[instance.id]) {
    for (auto it = per_key.begin(); it != per_key.end();) {
      tokens_wasted_ += it->second.tokens;
      it->second.tokens = 0;
      it = it->second.claiming ? std::next(it) : per_key.erase(it);
    }
  }
}

void BatchBudget::roll_window(KeyBudget& budget, std::int64_t window) {
  // Any other window counts as a change, also an earlier one (a clock stepped back): real code
  // would also see a new window number and claim from that window's key.
  if (budget.window == window) return;
  if (params_.reset_on_window) {
    tokens_wasted_ += budget.tokens;
    budget.tokens = 0;
  } else {
    tokens_carried_over_ += budget.tokens;
  }
  budget.window = window;
}

void BatchBudget::refund(const Instance& instance, const Taken* taken, std::size_t count) {
  for (std::size_t t = 0; t < count; ++t) {
    KeyBudget& budget = this->budget(instance, taken[t].limit_index, taken[t].key_id);
    if (instance.active && (budget.window == taken[t].window || !params_.reset_on_window)) {
      ++budget.tokens;
    } else {
      ++tokens_wasted_;  // its window ended (or its instance stopped) while the request decided
    }
  }
}

Task<Decision> BatchBudget::decide(Request request, const Instance& instance) {
  Decision decision;
  Taken taken[ScenarioBounds::kMaxLimits];
  std::size_t taken_count = 0;
  // With clock = redis_time(_cached), "now" is based on a TIME reading (one round trip per
  // decision, or per refresh period): the call per request this strategy exists to avoid, made
  // visible in the report.
  ClockSource::Base base;
  if (clock_.kind() != ClockSource::Kind::kLocal && !co_await clock_.begin(instance, base))
    co_return time_failed_decision(params_.call.fail_open());
  for (std::size_t i = 0; i < env_.limits.size(); ++i) {
    const Limit& limit = env_.limits[i];
    const std::uint64_t key_id = Catalog::key_id(request, limit.key);
    bool denied = false;
    for (;;) {
      // The window is read when the request gets its turn, as the lesson reads time.time() inside
      // the lock. Entries are looked up again after every suspension.
      const std::int64_t window = window_at(limit, clock_.now_us(base, instance));
      KeyBudget& budget = this->budget(instance, i, key_id);
      roll_window(budget, window);
      if (budget.tokens > 0) {
        --budget.tokens;
        taken[taken_count++] = Taken{i, key_id, window};
        break;
      }
      if (budget.exhausted_window == window) {
        denied = true;
        break;
      }
      if (budget.claiming) {
        co_await WaitForClaim{budget.waiters};
        continue;
      }
      budget.claiming = true;
      const Claim got = co_await claim(
          hybrid::counter_key(prefixes_[i], env_.catalog, request, limit, window), limit);
      ++claims_;
      tokens_claimed_ += got.granted;
      if (got.error) decision.error = true;
      if (got.granted == 0 && !got.error) ++claims_empty_;

      KeyBudget& after = this->budget(instance, i, key_id);
      after.claiming = false;
      std::vector<std::coroutine_handle<>> waiters;
      waiters.swap(after.waiters);
      std::int64_t granted = got.granted;
      const bool took = granted > 0;
      if (took) {
        --granted;  // the claiming request spends the first token, as in the lesson
        taken[taken_count++] = Taken{i, key_id, window};
      }
      if (after.window == window || !params_.reset_on_window) {
        after.tokens += granted;
      } else {
        tokens_wasted_ += granted;  // claimed for a window that has ended meanwhile
      }
      if (got.granted == 0 && !got.error && after.window == window)
        after.exhausted_window = window;  // Redis has no tokens left in this window
      if (!instance.active) {
        tokens_wasted_ += after.tokens;  // the instance stopped while the claim was in flight
        after.tokens = 0;
      }
      // Requests that waited for this claim go next, in arrival order.
      for (const std::coroutine_handle<> waiter : waiters) waiter.resume();
      if (took) break;
      if (got.error && params_.call.fail_open()) break;  // fail open: this limit is skipped
      denied = true;
      break;
    }
    if (denied) {
      refund(instance, taken, taken_count);
      co_return Decision{false, static_cast<int>(i), decision.error};
    }
  }
  tokens_used_ += static_cast<std::int64_t>(taken_count);
  co_return decision;
}

std::int64_t BatchBudget::tokens_held() const {
  std::int64_t held = 0;
  for (const auto& per_limit : budgets_) {
    for (const PerKey& per_key : per_limit) {
      for (const auto& entry : per_key) held += entry.second.tokens;
    }
  }
  return held;
}

void BatchBudget::write_live_state(nlohmann::ordered_json& out) const {
  out["tokens_held"] = tokens_held();
  out["tokens_wasted"] = tokens_wasted_;
  out["claims"] = claims_;
}

void BatchBudget::write_metrics(nlohmann::ordered_json& out) const {
  // Tokens still held when the run ends were never used: they count as wasted, so that
  // tokens_claimed = tokens_used + tokens_wasted.
  const std::int64_t held = tokens_held();
  out["batch"] = params_.batch;
  out["claims"] = claims_;
  out["claims_empty"] = claims_empty_;
  out["tokens_claimed"] = tokens_claimed_;
  out["tokens_used"] = tokens_used_;
  out["tokens_wasted"] = tokens_wasted_ + held;
  out["tokens_carried_over"] = tokens_carried_over_;
  clock_.write_metrics(out);
}

}  // namespace hybrid

namespace {

class TokenReservation final : public hybrid::BatchBudget {
 public:
  explicit TokenReservation(StrategyEnv env) : BatchBudget(std::move(env)) {}

  void write_metrics(nlohmann::ordered_json& out) const override {
    BatchBudget::write_metrics(out);
    out["give_backs"] = give_backs_;
  }

 protected:
  Task<Claim> claim(std::string key, const Limit& limit) override {
    std::vector<Command> reserve = reserve_commands(key, limit);
    const std::vector<Reply> replies = co_await env_.redis.pipeline(std::move(reserve));
    const Reply& total = replies[0];
    // A reply that is not the integer INCRBY, EXPIRE or DECRBY returns is a failed call too.
    const bool expire_failed = !is_integer(replies[1]);
    if (!is_integer(total)) co_return Claim{0, true};  // a lost reply: the tokens stay counted
    if (total.integer <= limit.limit) co_return Claim{params_.batch, expire_failed};
    // Over the limit: give the excess back in a second round trip. The excess is measured against
    // the total this instance saw, which may include other instances' claims in flight.
    const std::int64_t excess = total.integer - limit.limit;
    ++give_backs_;
    Command give_back = command("DECRBY", std::move(key), std::to_string(excess));
    const Reply returned = std::move((co_await env_.redis.call(std::move(give_back))).front());
    co_return Claim{std::max<std::int64_t>(0, params_.batch - excess),
                    expire_failed || !is_integer(returned)};
  }

 private:
  std::vector<Command> reserve_commands(const std::string& key, const Limit& limit) const {
    std::vector<Command> commands;
    commands.push_back(command("INCRBY", key, std::to_string(params_.batch)));
    commands.push_back(hybrid::expire_two_windows(key, limit));
    return commands;
  }

  std::int64_t give_backs_ = 0;  // claims that went over and sent a DECRBY
};

StrategyInfo token_reservation_info() {
  return {
      "token_reservation",
      "local budget without Lua: INCRBY the batch, and when over the limit DECRBY the excess in a "
      "second round trip",
      "The lesson's token reservation: each instance claims batch tokens per limit and key with "
      "INCRBY rl:<kind>:<value>:<window> batch (pipelined with EXPIRE key <2 windows>) and spends "
      "them locally, exactly like local_budget, but without a script. When the new total is over "
      "the limit it sends DECRBY key <total - limit> in a second round trip and keeps only batch - "
      "(total - limit) tokens. Between the INCRBY and the DECRBY the counter is inflated: an "
      "instance that claims at the same moment sees a total that includes tokens about to be "
      "given back, so it gets fewer or none (wrongly denied requests), and its own give-back, "
      "measured against that inflated total, can undo another claim, which lets traffic past the "
      "limit. Simpler to deploy than local_budget; use the Lua version when exactness matters. "
      "Parameters, waste and window reset as in local_budget.",
      hybrid::batch_budget_params(),
      Algorithm::kFixedWindow,
      construct<TokenReservation>,
      nullptr,
      nullptr};
}

const StrategyRegistration kTokenReservationRegistration(120, token_reservation_info);

}  // namespace

}  // namespace rlsim
