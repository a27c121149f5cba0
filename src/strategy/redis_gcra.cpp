// redis_gcra: the generic cell rate algorithm of redis-cell and go-redis/redis_rate. One key per
// user holds the theoretical arrival time (TAT) of the next request; per limit one script call:
//   EVALSHA <sha> 1 rl:user:42:tat <now_us> <interval_us> <tolerance_us>  -> 1 / 0
// with the emission interval T = 1 / rate and the tolerance tau = (burst - 1) * T: admitted iff
// TAT <= now + tau, and then TAT = max(TAT, now) + T. The same shape as a token bucket of `burst`
// tokens, in one number instead of two.
#include <fmt/format.h>

#include "strategy/registry.h"
#include "strategy/script.h"

namespace rlsim {

// The key expires when TAT has passed: the bucket is full again and the key would read as new.
const char* const kGcraScript = R"lua(local now_us = tonumber(ARGV[1])
local interval_us = tonumber(ARGV[2])
local tolerance_us = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or ARGV[1])
if tat > now_us + tolerance_us then
  return 0
end
tat = math.max(tat, now_us) + interval_us
redis.call('SET', KEYS[1], tat, 'PX', math.ceil((tat - now_us) / 1000))
return 1
)lua";

namespace {

// burst and rate (on_error and the clock: PerLimitScriptStrategy).
struct GcraParams {
  std::optional<std::int64_t> burst;  // requests; nullopt: each limit's limit
  std::optional<double> rate_per_s;   // nullopt: each limit's limit per window
  BucketShape shape(const Limit& limit) const { return bucket_shape_of(burst, rate_per_s, limit); }
};

GcraParams parse_gcra_params(const ParamReader& params) {
  return GcraParams{params.optional_integer("burst"), params.optional_rate_per_s("rate")};
}

class RedisGcra final : public PerLimitScriptStrategy {
 public:
  explicit RedisGcra(StrategyEnv env)
      : PerLimitScriptStrategy(std::move(env), Script("redis_gcra", kGcraScript)),
        params_(parse_gcra_params(ParamReader(env_.params))) {
    for (const Limit& limit : env_.limits) {
      const BucketShape shape = params_.shape(limit);
      // T = W / L exactly for the default rate (600000 us for 100 per minute), not 1e6 / (L / W)
      // with its rounding, so that TAT lands on the same microseconds as the ideal limiter's.
      const double interval_us =
          !params_.rate_per_s
              ? static_cast<double>(limit.window_us) / static_cast<double>(limit.limit)
              : static_cast<double>(kUsPerS) / shape.refill_per_s;
      shapes_.push_back(Shape{fmt::format("{}", interval_us),
                              fmt::format("{}", (shape.capacity - 1) * interval_us)});
    }
  }

 private:
  struct Shape {
    std::string interval_us, tolerance_us;  // as sent in ARGV
  };

  std::size_t arguments(std::size_t index, const Request& request, const Instance& /*instance*/,
                        std::vector<std::string>& out) override {
    out.push_back(limit_key(index, request, ":tat"));
    out.push_back(std::to_string(decision_now_us()));
    out.push_back(shapes_[index].interval_us);
    out.push_back(shapes_[index].tolerance_us);
    return 1;
  }

  GcraParams params_;
  std::vector<Shape> shapes_;
};

BucketShape gcra_shape(const ParamReader& params, const Limit& limit) {
  return parse_gcra_params(params).shape(limit);
}

StrategyInfo declare_redis_gcra() {
  return StrategyInfo{
      "redis_gcra",
      "GCRA (redis-cell / redis_rate): one theoretical-arrival-time key per user, one script",
      "The generic cell rate algorithm of redis-cell and go-redis/redis_rate. One key per "
      "limited value, rl:<kind>:<value>:tat, holds the theoretical arrival time (TAT) of the "
      "next request. With the emission interval T = 1 / rate and the tolerance tau = (burst - "
      "1) * T, one script per limit with now (Unix microseconds, the instance's clock), T and "
      "tau in ARGV: read TAT (a new key reads as now); if TAT > now + tau deny; otherwise SET "
      "TAT = max(TAT, now) + T with PX until that time, and admit. It enforces the same shape as "
      "a token bucket of `burst` tokens refilled at `rate`, but stores one number per key "
      "instead of two and does less work per request; by default burst = the limit and rate = "
      "limit per window. Like the token bucket it has no window edges, and like every script "
      "that is given now it depends on the callers' clocks agreeing.",
      redis_call_params(
          {param(
               "burst", ParamType::kInt, nullptr,
               "requests admitted at once from idle, the bucket's capacity (default: each limit's "
               "limit)"),
           param("rate", ParamType::kRate, nullptr,
                 "sustained rate, e.g. \"100/m\" (default: each limit's limit per window); T = 1 / "
                 "rate")}),
      Algorithm::kGcra,
      construct<RedisGcra>,
      gcra_shape,
      nullptr};
}

const StrategyRegistration kRedisGcraRegistration(70, declare_redis_gcra);

}  // namespace

}  // namespace rlsim
