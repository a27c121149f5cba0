// redis_sliding_log: the lesson's sliding window log. One sorted set per key (rl:user:42) holds
// the admission times; per limit one script call:
//   EVALSHA <sha> 1 rl:user:42 <now_us> <window_us> <limit> <member> <ttl_ms>  -> 1 allowed, 0 not
// It is exact: at most `limit` admissions in any (now - window, now] on the callers' clocks.
#include "strategy/registry.h"
#include "strategy/script.h"

namespace rlsim {

// The lesson's script, with the window, the member and the TTL passed in ARGV. Times are Unix
// microseconds (exact in a Lua number, which holds integers up to 2^53).
const char* const kSlidingLogScript = R"lua(local key = KEYS[1]
local now_us = tonumber(ARGV[1])
local window_us = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, 0, now_us - window_us)
local count = redis.call('ZCARD', key)
if count < limit then
  redis.call('ZADD', key, now_us, ARGV[4])
  redis.call('PEXPIRE', key, ARGV[5])
  return 1
end
return 0
)lua";

namespace {

class RedisSlidingLog final : public PerLimitScriptStrategy {
 public:
  explicit RedisSlidingLog(StrategyEnv env)
      : PerLimitScriptStrategy(std::move(env), Script("redis_sliding_log", kSlidingLogScript)) {}

 private:
  std::size_t arguments(std::size_t index, const Request& request, const Instance& instance,
                        std::vector<std::string>& out) override {
    const Limit& limit = env_.limits[index];
    const TimeUs now_us = decision_now_us();
    out.push_back(limit_key(index, request, ""));
    out.push_back(std::to_string(now_us));
    out.push_back(std::to_string(limit.window_us));
    out.push_back(std::to_string(limit.limit));
    // Two requests in the same microsecond must stay two members: time, instance, request id.
    std::string member = std::to_string(now_us);
    member += '-';
    append_decimal(member, instance.id);
    member += '-';
    append_decimal(member, static_cast<std::int64_t>(request.id));
    out.push_back(std::move(member));
    // Every member is older than one window by then; two windows, as the lesson's 120 s for 60 s.
    out.push_back(std::to_string(2 * ((limit.window_us + kUsPerMs - 1) / kUsPerMs)));
    return 1;
  }
};

StrategyInfo declare_redis_sliding_log() {
  return StrategyInfo{
      "redis_sliding_log",
      "exact sliding window: a sorted set of admission times per key, trimmed and counted in one "
      "script",
      "The lesson's sliding window log. Each key (rl:<kind>:<value>) is a sorted set of "
      "admission times. One script per limit, with now (Unix microseconds, the instance's clock) "
      "in ARGV: ZREMRANGEBYSCORE key 0 now-window drops what left the window, ZCARD counts the "
      "rest, and if the count is below the limit ZADD key now member (a member unique per "
      "request: <now>-<instance>-<request id>) and PEXPIRE key 2*window, returning 1; otherwise "
      "0. It is exact: no interval of one window's length admits more than the limit, so the "
      "fixed window's 2x burst at a window edge is gone (rolling_overshoot 1.0 on aligned "
      "clocks). The costs: memory per key grows with the limit (one member per admitted request "
      "in the window, where a counter needs one integer), the script does more work per request "
      "(the lesson's 'review the Lua script complexity' when p99 rises), and now comes from the "
      "callers' clocks, so clock skew between instances blurs the window edge (the lesson's "
      "section 7).",
      redis_call_params(),
      Algorithm::kSlidingLog,
      construct<RedisSlidingLog>,
      nullptr,
      nullptr};
}

const StrategyRegistration kRedisSlidingLogRegistration(40, declare_redis_sliding_log);

}  // namespace

}  // namespace rlsim
