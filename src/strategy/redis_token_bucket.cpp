// redis_token_bucket: a token bucket per key, kept in one hash {tokens, ts} and updated by one
// script with the caller's clock in ARGV (Redis scripts must not read the clock themselves):
//   EVALSHA <sha> 1 rl:user:42:bucket <capacity> <refill_per_s> <now_us> <ttl_ms>  -> 1 / 0
// The bucket starts full; tokens = min(capacity, tokens + elapsed * rate); a request takes one.
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "strategy/registry.h"
#include "strategy/script.h"

namespace rlsim {

// A clock behind the stored ts (another instance's clock runs ahead) refills nothing and does not
// move ts back, so that skew never creates tokens.
namespace {

// The parts both layouts share: the arguments, and the refill and take between reading the state
// and writing it back. Joined, the texts (and so the SHAs EVALSHA sends) are those of the scripts
// written out whole.
constexpr const char* kBucketArguments = R"lua(local capacity = tonumber(ARGV[1])
local refill_per_s = tonumber(ARGV[2])
local now_us = tonumber(ARGV[3])
)lua";
constexpr const char* kRefillAndTake = R"lua(if now_us > ts then
  tokens = math.min(capacity, tokens + (now_us - ts) * refill_per_s / 1000000)
  ts = now_us
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
)lua";

const std::string kHashBucketScript =
    std::string(kBucketArguments) + R"lua(local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1]) or capacity
local ts = tonumber(state[2]) or now_us
)lua" +
    kRefillAndTake + R"lua(redis.call('HSET', KEYS[1], 'tokens', tokens, 'ts', ts)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return allowed
)lua";

// layout = "two_keys": the lesson's form, tokens and ts in two string keys. A script touching two
// keys must have them in one Redis Cluster slot: with hash_tag they are rl:{user:42}:tokens and
// rl:{user:42}:ts; without, rl:user:42:tokens and rl:user:42:ts land in different slots and a
// cluster answers CROSSSLOT (the strategy's on_error then decides, usually failing open unseen).
const std::string kTwoKeyTokenBucketScript =
    std::string(kBucketArguments) +
    R"lua(local tokens = tonumber(redis.call('GET', KEYS[1])) or capacity
local ts = tonumber(redis.call('GET', KEYS[2])) or now_us
)lua" +
    kRefillAndTake + R"lua(redis.call('SET', KEYS[1], tokens, 'PX', ARGV[4])
redis.call('SET', KEYS[2], ts, 'PX', ARGV[4])
return allowed
)lua";

}  // namespace

const char* const kTokenBucketScript = kHashBucketScript.c_str();

namespace {

enum class BucketLayout { kHash, kTwoKeys };

// capacity, refill_rate, layout and hash_tag (on_error and the clock: PerLimitScriptStrategy).
struct TokenBucketParams {
  std::optional<std::int64_t> capacity;  // tokens; nullopt: each limit's limit
  std::optional<double> refill_per_s;    // nullopt: each limit's limit per window
  BucketLayout layout = BucketLayout::kHash;
  bool hash_tag = true;
  BucketShape shape(const Limit& limit) const {
    return bucket_shape_of(capacity, refill_per_s, limit);
  }
};

TokenBucketParams parse_token_bucket_params(const ParamReader& params) {
  return TokenBucketParams{
      params.optional_integer("capacity"), params.optional_rate_per_s("refill_rate"),
      params.choice<BucketLayout>(
          "layout", {{"hash", BucketLayout::kHash}, {"two_keys", BucketLayout::kTwoKeys}}),
      params.boolean("hash_tag")};
}

class RedisTokenBucket final : public PerLimitScriptStrategy {
 public:
  RedisTokenBucket(StrategyEnv env, const TokenBucketParams& params)
      : PerLimitScriptStrategy(std::move(env), Script("redis_token_bucket", script_of(params))),
        params_(params) {
    for (const Limit& limit : env_.limits) {
      const BucketShape shape = params_.shape(limit);
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

  static const char* script_of(const TokenBucketParams& params) {
    return params.layout == BucketLayout::kTwoKeys ? kTwoKeyTokenBucketScript.c_str()
                                                   : kTokenBucketScript;
  }

  std::size_t arguments(std::size_t index, const Request& request, const Instance& /*instance*/,
                        std::vector<std::string>& out) override {
    std::size_t keys = 1;
    if (params_.layout == BucketLayout::kHash) {
      out.push_back(limit_key(index, request, ":bucket"));
    } else if (params_.hash_tag) {
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

  TokenBucketParams params_;
  std::vector<Shape> shapes_;
};

std::unique_ptr<Strategy> make_redis_token_bucket(StrategyEnv env) {
  // Parsed before the strategy: the script it sends depends on the layout.
  const TokenBucketParams params = parse_token_bucket_params(ParamReader(env.params));
  return std::make_unique<RedisTokenBucket>(std::move(env), params);
}

BucketShape token_bucket_shape(const ParamReader& params, const Limit& limit) {
  return parse_token_bucket_params(params).shape(limit);
}

StrategyInfo declare_redis_token_bucket() {
  return StrategyInfo{
      "redis_token_bucket",
      "token bucket in a Redis hash {tokens, ts}, refilled and spent in one script with now in "
      "ARGV",
      "One hash per key, rl:<kind>:<value>:bucket, holds the tokens left and the time of the "
      "last refill. One script per limit, with capacity, refill rate and now (Unix microseconds, "
      "the instance's clock; a script must not read the clock itself) in ARGV: HMGET the state "
      "(a new bucket starts full), refill tokens = min(capacity, tokens + elapsed * rate), take "
      "one token if at least one is left, HSET the state and PEXPIRE it to the time the bucket "
      "would be full again. By default a limit of L per window W is a bucket of L tokens refilled "
      "at L / W. It allows a burst of up to capacity at once and then a steady rate, with no "
      "window edges, so it matches traffic shapes better than a window; the costs are a script "
      "that does floating-point work per request, and a refill that depends on the callers' "
      "clocks (an instance whose clock runs behind the stored ts refills nothing; one that runs "
      "ahead refills early). layout = two_keys keeps the lesson's two string keys, tokens and "
      "ts, read and written by one script (GET, GET, SET PX, SET PX); hash_tag (default true) "
      "names them rl:{user:42}:tokens and rl:{user:42}:ts so that both hash to one Redis "
      "Cluster slot. Without the tag, on a cluster (redis.cluster) every call fails with "
      "CROSSSLOT and on_error decides: fail_open admits everything, and only the errors count "
      "and the excess over the limit show it.",
      redis_call_params(
          {param("capacity", ParamType::kInt, nullptr,
                 "tokens in a full bucket, the largest burst (default: each limit's limit)"),
           param("refill_rate", ParamType::kRate, nullptr,
                 "tokens added per time, e.g. \"100/m\" or \"2.5/s\" (default: each limit's limit "
                 "per "
                 "window)"),
           ParamSpec{
               "layout",
               ParamType::kEnum,
               "hash",
               "hash: one hash key rl:<kind>:<value>:bucket; two_keys: the lesson's two string "
               "keys ...:tokens and ...:ts, one script touching both (docs/cluster.md)",
               {"hash", "two_keys"},
               false},
           param("hash_tag", ParamType::kBool, true,
                 "two_keys only: true names them rl:{user:42}:tokens / rl:{user:42}:ts (one Redis "
                 "Cluster slot); false rl:user:42:tokens / rl:user:42:ts, which a cluster rejects "
                 "with CROSSSLOT")}),
      Algorithm::kTokenBucket,
      make_redis_token_bucket,
      token_bucket_shape,
      nullptr};
}

const StrategyRegistration kRedisTokenBucketRegistration(60, declare_redis_token_bucket);

}  // namespace

}  // namespace rlsim
