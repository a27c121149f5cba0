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
};

}  // namespace

std::unique_ptr<Strategy> make_redis_fixed_window_lua(StrategyEnv env) {
  return std::make_unique<RedisFixedWindowLua>(std::move(env));
}

}  // namespace rlsim
