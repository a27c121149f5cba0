// envoy_local: Envoy's local rate limit filter (envoy.filters.http.local_ratelimit), as its source
// implements it since Envoy 1.34 (the timer-filled bucket was removed then; docs/products.md):
// one token bucket per Envoy process, no shared state. The bucket is Envoy's atomic token bucket
// (source/common/common/token_bucket_impl.cc): no refill timer, the tokens are computed when a
// request reads them, min(max_tokens, elapsed * tokens_per_fill / fill_interval), fractional; a
// request takes its tokens only when that many are there. With local_cluster_rate_limit each
// request costs N tokens, N being the instances of the local cluster
// (source/extensions/filters/common/local_ratelimit/local_ratelimit_impl.cc, the even share 1/N).
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "strategy/registry.h"

namespace rlsim {
namespace {

// Envoy's token_bucket (type/v3/token_bucket.proto) and the filter's local_cluster_rate_limit.
struct EnvoyLocalParams {
  std::optional<std::int64_t> max_tokens;       // nullopt: each limit's limit
  std::optional<std::int64_t> tokens_per_fill;  // nullopt: each limit's limit
  std::optional<DurationUs> fill_interval_us;   // nullopt: each limit's window
  bool local_cluster_rate_limit = false;

  BucketShape shape(const Limit& limit) const {
    const auto tokens = static_cast<double>(tokens_per_fill.value_or(limit.limit));
    const auto interval_s =
        static_cast<double>(fill_interval_us.value_or(limit.window_us)) / kUsPerS;
    return {static_cast<double>(max_tokens.value_or(limit.limit)), tokens / interval_s};
  }
};

EnvoyLocalParams parse_envoy_local_params(const ParamReader& params) {
  return EnvoyLocalParams{
      params.optional_integer("max_tokens"), params.optional_integer("tokens_per_fill"),
      params.optional_duration_us("fill_interval"), params.boolean("local_cluster_rate_limit")};
}

class EnvoyLocal final : public Strategy {
 public:
  explicit EnvoyLocal(StrategyEnv env)
      : env_(std::move(env)), params_(parse_envoy_local_params(ParamReader(env_.params))) {
    for (const Limit& limit : env_.limits) shapes_.push_back(params_.shape(limit));
    // Envoy consumes the matched descriptors' buckets in ascending order of fill rate.
    order_.resize(env_.limits.size());
    std::iota(order_.begin(), order_.end(), std::size_t{0});
    std::stable_sort(order_.begin(), order_.end(), [this](std::size_t a, std::size_t b) {
      return shapes_[a].refill_per_s < shapes_[b].refill_per_s;
    });
  }

  Task<Decision> decide(Request request, const Instance& instance) override {
    co_return decide_now(request, instance);
  }

  // The local cluster's membership (every host, healthy or not) changes with the instances.
  void on_instance_start(const Instance& instance) override {
    if (buckets_.size() <= instance.id) buckets_.resize(instance.id + 1);
    buckets_[instance.id].assign(env_.limits.size(), {});
    ++members_;
  }
  void on_instance_stop(const Instance& instance) override {
    buckets_[instance.id] = {};  // the process is gone, and its buckets with it
    --members_;
  }

 private:
  // The atomic bucket's one number: the time at which it was empty, on the process's monotonic
  // clock; the tokens at `now` are min(capacity, (now - empty_at) * rate).
  using PerKey = std::unordered_map<std::uint64_t, double>;  // key id -> empty_at_s

  Decision decide_now(const Request& request, const Instance& instance) {
    const double now_s = static_cast<double>(instance.monotonic_us(env_.sim.now())) / kUsPerS;
    // The even share 1/N costs N tokens a request (N = 0 counts as 1).
    const double cost = params_.local_cluster_rate_limit ? std::max(members_, 1) : 1.0;
    for (const std::size_t i : order_) {
      const BucketShape& shape = shapes_[i];
      auto [it, created] =
          buckets_[instance.id][i].try_emplace(Catalog::key_id(request, env_.limits[i].key), 0.0);
      double& empty_at_s = it->second;
      if (created) empty_at_s = now_s - shape.capacity / shape.refill_per_s;  // created full
      const double available = std::min(shape.capacity, (now_s - empty_at_s) * shape.refill_per_s);
      // A refused request takes nothing; the buckets consumed before it stay consumed.
      if (available < cost) return Decision{false, static_cast<int>(i), false};
      empty_at_s = now_s - (available - cost) / shape.refill_per_s;
    }
    return Decision{};
  }

  StrategyEnv env_;
  EnvoyLocalParams params_;
  std::vector<BucketShape> shapes_;           // per limit
  std::vector<std::size_t> order_;            // limit indexes by ascending fill rate
  std::vector<std::vector<PerKey>> buckets_;  // [instance id][limit index]
  int members_ = 0;                           // instances running
};

BucketShape envoy_local_shape(const ParamReader& params, const Limit& limit) {
  return parse_envoy_local_params(params).shape(limit);
}

// Envoy refuses a fill_interval under 50 ms ("fill timer must be >= 50ms").
bool check_envoy_local(const ParamReader& params, const std::string&, std::string& field,
                       std::string& error) {
  const auto interval_us = params.optional_duration_us("fill_interval");
  if (!interval_us || *interval_us >= 50 * kUsPerMs) return true;
  field = "fill_interval";
  error = fmt::format("expected at least 50ms (Envoy's minimum), got {} us", *interval_us);
  return false;
}

StrategyInfo declare_envoy_local() {
  return StrategyInfo{
      "envoy_local",
      "Envoy's local rate limit filter: a token bucket per Envoy process (N instances admit N x "
      "the limit), or split over the instances with local_cluster_rate_limit",
      "Models envoy.filters.http.local_ratelimit as Envoy's source implements it since 1.34 "
      "(source/common/common/token_bucket_impl.cc, "
      "source/extensions/filters/common/local_ratelimit/local_ratelimit_impl.cc). Each instance "
      "(an Envoy process, its worker threads sharing the bucket) keeps one bucket per limit and "
      "key in memory and never talks to the others or to Redis. The bucket is Envoy's atomic one: "
      "no refill timer; when a request arrives the tokens are min(max_tokens, elapsed * "
      "tokens_per_fill / fill_interval), fractional, on the process's monotonic clock; the "
      "bucket starts full; a request is admitted if its tokens are there and takes them, a "
      "refused one takes nothing. Several limits are consumed in ascending order of fill rate "
      "and the first that refuses denies (those consumed before it stay consumed). Without "
      "local_cluster_rate_limit every instance admits the full limit: N instances admit N x "
      "the limit, and the limit moves with autoscaling. With it each request costs N tokens, N "
      "the instances running (Envoy's even share 1/N of the local cluster's members, recomputed "
      "on every membership change): the fleet admits about the limit under an even load "
      "balancer, a new instance starts with a full bucket, and when max_tokens < N nothing is "
      "admitted at all. Simplified: descriptors are the scenario's limits (each key value its own "
      "bucket, no LRU of wildcard buckets), filter_enabled / filter_enforced are 100%, no "
      "per-connection buckets and no response headers. Defaults: a limit of L per window W is "
      "max_tokens L, tokens_per_fill L, fill_interval W (Envoy itself requires the bucket; its "
      "tokens_per_fill default is 1).",
      {param("max_tokens", ParamType::kInt, nullptr,
             "bucket capacity and initial tokens (default: each limit's limit)"),
       param("tokens_per_fill", ParamType::kInt, nullptr,
             "tokens added per fill_interval, continuously (default: each limit's limit)"),
       ParamSpec{"fill_interval",
                 ParamType::kDuration,
                 nullptr,
                 "the interval tokens_per_fill refer to, at least 50ms, as a duration (\"1s\", "
                 "also Envoy's JSON form \"0.5s\") or Envoy's YAML object {\"seconds\": 1, "
                 "\"nanos\": 0} (default: each limit's window)",
                 {},
                 false,
                 "a string",
                 NativeDuration::kProto},
       param("local_cluster_rate_limit", ParamType::kBool, false,
             "true: the limit is shared by the instances, each request costing N tokens")},
      Algorithm::kTokenBucket,
      construct<EnvoyLocal>,
      envoy_local_shape,
      check_envoy_local};
}

const StrategyRegistration kEnvoyLocalRegistration(200, declare_envoy_local);

}  // namespace
}  // namespace rlsim
