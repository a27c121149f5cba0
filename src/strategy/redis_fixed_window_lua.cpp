// redis_fixed_window_lua: the lesson's fixed window with INCR and PEXPIRE in one script, so that a
// counter can never exist without its TTL. Per limit:
//   EVALSHA <sha> 1 rl:user:42:<window> <2 * window in ms>   -> the count; allowed while <= limit
#include "strategy/registry.h"
#include "strategy/script.h"

namespace rlsim {

const char* const kFixedWindowLuaScript = R"lua(local count = redis.call('INCR', KEYS[1])
if count == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return count
)lua";

namespace {

class RedisFixedWindowLua final : public PerLimitScriptStrategy {
 public:
  explicit RedisFixedWindowLua(StrategyEnv env)
      : PerLimitScriptStrategy(std::move(env),
                               Script("redis_fixed_window_lua", kFixedWindowLuaScript)) {}

 private:
  std::size_t arguments(std::size_t index, const Request& request, const Instance& /*instance*/,
                        std::vector<std::string>& out) override {
    const Limit& limit = env_.limits[index];
    const std::int64_t window_ms = limit.window_us / kUsPerMs;
    // The window number from the decision's clock (`clock`), as in redis_fixed_window.
    const std::int64_t window = decision_now_us() / kUsPerMs / window_ms;
    std::string key = limit_key(index, request, ":");
    append_decimal(key, window);
    out.push_back(std::move(key));
    out.push_back(std::to_string(2 * window_ms));
    return 1;
  }

  bool admits(std::size_t index, const Reply& reply) override {
    return reply.integer <= env_.limits[index].limit;
  }
  // The script returns INCR's count, this request included.
  std::int64_t count_before(std::size_t /*index*/, const Reply& reply) const override {
    return reply.integer - 1;
  }
};

StrategyInfo declare_redis_fixed_window_lua() {
  return StrategyInfo{
      "redis_fixed_window_lua",
      "central fixed-window counter with INCR and PEXPIRE in one Lua script (no key without a "
      "TTL)",
      "The same counter as redis_fixed_window (key rl:<kind>:<value>:<window>, window = "
      "int(now // window) on the instance's clock, allowed while the count is at most the limit, "
      "limits checked in order), but INCR and PEXPIRE run in one Lua script: local count = "
      "redis.call('INCR', KEYS[1]); if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) "
      "end; return count. It is sent as EVALSHA (EVAL with the text after a NOSCRIPT reply, as "
      "redis-py's Script does). A script runs as one unit on the server, so a counter never "
      "exists without its TTL, even when the client's call times out; and a window's first "
      "request costs one round trip instead of two. The trade-off: the server runs a script "
      "(a little more CPU than a bare INCR, the lesson's 'one Lua call per request' load), and "
      "the fixed window's burst at a window edge stays: up to 2 x limit in any one window's "
      "length.",
      redis_call_params(),
      Algorithm::kFixedWindow,
      construct<RedisFixedWindowLua>,
      nullptr,
      nullptr};
}

const StrategyRegistration kRedisFixedWindowLuaRegistration(30, declare_redis_fixed_window_lua);

}  // namespace

}  // namespace rlsim
