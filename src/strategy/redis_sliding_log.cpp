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

}  // namespace

std::unique_ptr<Strategy> make_redis_sliding_log(StrategyEnv env) {
  return std::make_unique<RedisSlidingLog>(std::move(env));
}

}  // namespace rlsim
