// redis_fixed_window: the lesson's central counter. For each limit:
//   count = INCR rl:user:42:<window>
//   if count == 1: EXPIRE rl:user:42:<window> <2 * window>
//   allowed while count <= limit
#include "strategy/clock_source.h"
#include "strategy/hybrid.h"
#include "strategy/registry.h"
#include "strategy/reply_check.h"

namespace rlsim {
namespace {

// Which Redis counts: the one Redis (redis_fixed_window), the instance's region's own
// (region_local) or the home region's (global_redis), docs/regions.md.
enum class Target { kSingle, kRegion, kHome };

class RedisFixedWindow final : public Strategy {
 public:
  explicit RedisFixedWindow(StrategyEnv env, Target target = Target::kSingle)
      : env_(std::move(env)),
        prefixes_(redis_key_prefixes(env_.limits)),
        params_(parse_redis_call_params(ParamReader(env_.params))),
        target_(target),
        clock_(params_.clock, env_.sim, env_.redis) {}

  Task<Decision> decide(Request request, const Instance& instance) override {
    Decision decision;
    RedisServer& redis = server_for(instance);
    // The window comes from this instance's clock, as time.time() would give it, or from TIME of
    // the Redis that counts (the `clock` parameter: read once, before the first limit), as each
    // limit is checked.
    ClockSource::Base base;
    if (clock_.kind() != ClockSource::Kind::kLocal &&
        !co_await clock_.begin(instance, base, &redis))
      co_return time_failed_decision(params_.fail_open());
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      const Limit& limit = env_.limits[i];
      const std::int64_t window = hybrid::window_at(limit, clock_.now_us(base, instance, &redis));
      // Built in a spare argv's buffers: the request allocates nothing once they have grown.
      Command incr = spare_commands_.take(2);
      incr[0].assign("INCR");
      hybrid::assign_counter_key(incr[1], prefixes_[i], env_.catalog, request, limit, window);
      RedisCall incr_call = redis.call(std::move(incr));
      const Reply count = std::move((co_await incr_call).front());
      spare_commands_.give_back(incr_call);
      if (!is_integer(count)) {  // an error, a timeout or a reply that is no count
        decision.error = true;
        if (params_.fail_open()) continue;
        decision.deny_for(i);
        co_return decision;
      }
      if (i == 0) decision.counted_before = count.integer - 1;
      if (count.integer == 1) {
        // A second round trip. A timed-out EXPIRE still runs on the server; the key that never
        // expires comes from the INCR before it: when the reply that said 1 is lost, this line is
        // never reached. redis_fixed_window_lua runs both in one script.
        Command expire = spare_commands_.take(hybrid::kExpireWords);
        std::string key;
        hybrid::assign_counter_key(key, prefixes_[i], env_.catalog, request, limit, window);
        hybrid::assign_expire_two_windows(expire, key, limit);
        RedisCall expire_call = redis.call(std::move(expire));
        const Reply expired = std::move((co_await expire_call).front());
        spare_commands_.give_back(expire_call);
        if (!is_integer(expired)) decision.error = true;
      }
      if (count.integer > limit.limit) {
        decision.deny_for(i);
        co_return decision;
      }
    }
    co_return decision;
  }

  void on_instance_stop(const Instance& instance) override { clock_.forget(instance); }
  void write_metrics(nlohmann::ordered_json& out) const override { clock_.write_metrics(out); }

 private:
  RedisServer& server_for(const Instance& instance) const {
    const Deployment* deployment = env_.deployment;
    if (deployment == nullptr || target_ == Target::kSingle) return env_.redis;
    return deployment->region_server(target_ == Target::kHome ? deployment->home_region()
                                                              : instance.region);
  }

  StrategyEnv env_;
  std::vector<std::string> prefixes_;
  RedisCallParams params_;  // on_error, clock, clock_refresh: all it takes
  Target target_;
  ClockSource clock_;
  SpareCommands spare_commands_;
};

std::unique_ptr<Strategy> make_region_local(StrategyEnv env) {
  return std::make_unique<RedisFixedWindow>(std::move(env), Target::kRegion);
}

std::unique_ptr<Strategy> make_global_redis(StrategyEnv env) {
  return std::make_unique<RedisFixedWindow>(std::move(env), Target::kHome);
}

// The three strategies of this file: one counter, different Redis, the same parameters.
StrategyInfo fixed_window_info(std::string name, std::string summary, std::string explain,
                               std::unique_ptr<Strategy> (*make)(StrategyEnv)) {
  return StrategyInfo{std::move(name),
                      std::move(summary),
                      std::move(explain),
                      redis_call_params(),
                      Algorithm::kFixedWindow,
                      make,
                      nullptr,
                      nullptr};
}

StrategyInfo declare_redis_fixed_window() {
  return fixed_window_info(
      "redis_fixed_window",
      "central fixed-window counter: INCR rl:user:<id>:<window>, then EXPIRE on the first hit",
      "Every instance counts in one Redis: for each limit it sends INCR "
      "rl:<kind>:<value>:<window>, where window = int(now // window) on the instance's clock, and "
      "when the counter has just been created (INCR returned 1) it sends EXPIRE key 2*window in a "
      "second round trip, so old windows disappear. A request is allowed while the counter is at "
      "most the limit; limits are checked in order and the first one over its limit denies. INCR "
      "is atomic, so all instances share one source of truth and the limit holds however many "
      "instances there are. The costs: one round trip per limit per request (two on a window's "
      "first request), Redis as a single point of failure (on_error decides: allow = fail open, "
      "deny = fail closed), and the gap between INCR and EXPIRE. A timed-out EXPIRE still runs on "
      "the server; the key that never expires comes from an INCR that created the counter but "
      "whose reply was lost (a timeout): the client never learns that the count was 1, so it "
      "never sends the EXPIRE. redis_fixed_window_lua closes that gap. With clock redis_time (or "
      "redis_time_cached) the window number comes from Redis TIME instead of the instance's "
      "clock.",
      construct<RedisFixedWindow>);
}

const StrategyRegistration kRedisFixedWindowRegistration(20, declare_redis_fixed_window);

StrategyInfo region_local_info() {
  return fixed_window_info(
      "region_local",
      "each region counts on its own Redis (fixed window): fast, but up to limit x regions",
      "The fixed-window counter of redis_fixed_window (INCR rl:<kind>:<value>:<window>, EXPIRE on "
      "the first hit, window from the instance's clock), sent to the Redis of the instance's own "
      "region (clock redis_time: TIME of that Redis). Every decision costs one round trip inside "
      "the region, so no request pays a cross-region round trip; but the regions do not share "
      "counts, so a user whose requests "
      "land in several regions (travel, a geo-DNS failover: the traffic group's roaming) gets the "
      "limit in each: up to limit x regions per window. Without regions in the scenario it is "
      "redis_fixed_window.",
      make_region_local);
}

const StrategyRegistration kRegionLocalRegistration(130, region_local_info);

StrategyInfo global_redis_info() {
  return fixed_window_info(
      "global_redis",
      "one Redis in the home region counts for everyone: exact, but other regions pay the "
      "cross-region round trip",
      "The fixed-window counter of redis_fixed_window, always sent to the Redis of the home region "
      "(regions.home). One counter for the whole world holds the limit across regions, as one "
      "Redis holds it across instances; the price is latency: an instance in another region adds "
      "the round trip between the regions (regions.rtt, e.g. 80-150 ms) to every decision, and the "
      "client timeout must exceed it. The report's regions[] shows the latency per region. "
      "Without regions in the scenario it is redis_fixed_window.",
      make_global_redis);
}

const StrategyRegistration kGlobalRedisRegistration(140, global_redis_info);

}  // namespace

}  // namespace rlsim
