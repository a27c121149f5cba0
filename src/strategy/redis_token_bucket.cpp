// redis_token_bucket: a token bucket per key, kept in one hash {tokens, ts} and updated by one
// script with the caller's clock in ARGV (Redis scripts must not read the clock themselves):
//   EVALSHA <sha> 1 rl:user:42:bucket <capacity> <refill_per_s> <now_us> <ttl_ms>  -> 1 / 0
// The bucket starts full; tokens = min(capacity, tokens + elapsed * rate); a request takes one.
#include <fmt/format.h>

#include <cmath>

#include "strategy/registry.h"
#include "strategy/script.h"

namespace rlsim {

// A clock behind the stored ts (another instance's clock runs ahead) refills nothing and does not
// move ts back, so that skew never creates tokens.
const char* const kTokenBucketScript = R"lua(local capacity = tonumber(ARGV[1])
local refill_per_s = tonumber(ARGV[2])
local now_us = tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1]) or capacity
local ts = tonumber(state[2]) or now_us
if now_us > ts then
  tokens = math.min(capacity, tokens + (now_us - ts) * refill_per_s / 1000000)
  ts = now_us
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tokens, 'ts', ts)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return allowed
)lua";

// layout = "two_keys": the lesson's form, tokens and ts in two string keys. A script touching two
// keys must have them in one Redis Cluster slot: with hash_tag they are rl:{user:42}:tokens and
// rl:{user:42}:ts; without, rl:user:42:tokens and rl:user:42:ts land in different slots and a
// cluster answers CROSSSLOT (the strategy's on_error then decides, usually failing open unseen).
const char* const kTwoKeyTokenBucketScript = R"lua(local capacity = tonumber(ARGV[1])
local refill_per_s = tonumber(ARGV[2])
local now_us = tonumber(ARGV[3])
local tokens = tonumber(redis.call('GET', KEYS[1])) or capacity
local ts = tonumber(redis.call('GET', KEYS[2])) or now_us
if now_us > ts then
  tokens = math.min(capacity, tokens + (now_us - ts) * refill_per_s / 1000000)
  ts = now_us
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('SET', KEYS[1], tokens, 'PX', ARGV[4])
redis.call('SET', KEYS[2], ts, 'PX', ARGV[4])
return allowed
)lua";

namespace {

class RedisTokenBucket final : public PerLimitScriptStrategy {
 public:
  explicit RedisTokenBucket(StrategyEnv env)
      : PerLimitScriptStrategy(std::move(env), Script("redis_token_bucket", script_of(env))),
        two_keys_(env_.params.at("layout") == "two_keys"),
        hash_tag_(env_.params.at("hash_tag").get<bool>()) {
    for (const Limit& limit : env_.limits) {
      const BucketShape shape = bucket_shape_of(env_.params, limit, "capacity", "refill_rate");
      // An idle bucket is full again after capacity / rate; then its state can go.
      const double full_after_ms = std::ceil(shape.capacity / shape.refill_per_s * 1000.0);
      shapes_.push_back(Shape{fmt::format("{}", shape.capacity),
                              fmt::format("{}", shape.refill_per_s),
                              std::to_string(static_cast<std::int64_t>(full_after_ms) + 1)});
    }
  }

 private:
  struct Shape {
    std::string capacity, refill_per_s, ttl_ms;  // as sent in ARGV
  };

  static const char* script_of(const StrategyEnv& env) {
    return env.params.at("layout") == "two_keys" ? kTwoKeyTokenBucketScript : kTokenBucketScript;
  }

  std::size_t arguments(std::size_t index, const Request& request, const Instance& /*instance*/,
                        std::vector<std::string>& out) override {
    std::size_t keys = 1;
    if (!two_keys_) {
      out.push_back(limit_key(index, request, ":bucket"));
    } else if (hash_tag_) {
      const std::string prefix =
          hash_tagged_prefix(prefixes_[index], env_.catalog, request, env_.limits[index].key);
      out.push_back(prefix + "tokens");
      out.push_back(prefix + "ts");
      keys = 2;
    } else {
      out.push_back(limit_key(index, request, ":tokens"));
      out.push_back(limit_key(index, request, ":ts"));
      keys = 2;
    }
    out.push_back(shapes_[index].capacity);
    out.push_back(shapes_[index].refill_per_s);
    out.push_back(std::to_string(decision_now_us()));
    out.push_back(shapes_[index].ttl_ms);
    return keys;
  }

  bool two_keys_;
  bool hash_tag_;
  std::vector<Shape> shapes_;
};

}  // namespace

std::unique_ptr<Strategy> make_redis_token_bucket(StrategyEnv env) {
  return std::make_unique<RedisTokenBucket>(std::move(env));
}

}  // namespace rlsim
