// envoy_ratelimit: Envoy's global rate limit filter (envoy.filters.http.ratelimit) calling the
// envoyproxy/ratelimit service with its Redis backend (docs/products.md), as the service's source
// implements it (main f2fb1577: src/redis/fixed_cache_impl.go, src/limiter/base_limiter.go,
// src/limiter/cache_key.go, src/settings/settings.go) and the filter's API describes it
// (api/envoy/extensions/filters/http/ratelimit/v3/rate_limit.proto):
//   Envoy sends one RPC per request with one descriptor per limit and waits at most `timeout`
//   (20 ms); no answer in time, or an error, and failure_mode_deny decides (default false: pass).
//   The service keys a fixed window on its own clock, <domain>_<entry>_<value>_<(now/unit)*unit>,
//   and sends INCRBY + EXPIRE (unit + jitter) per key in one pipeline: every request counts,
//   rejected ones too. A request is over the limit when the count after it exceeds the limit.
//   With a local cache (freecache) a key found over the limit is remembered for one unit and
//   answered OVER_LIMIT without Redis. STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT first GETs the
//   keys and then increments only those about to go over (and none when one is in the cache).
// The hop Envoy -> service -> Redis is modelled: the RPC's round trip (service_rtt, an rlsim
// parameter) is added to the service's Redis calls, and Envoy's deadline races the whole of it.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <unordered_map>

#include "strategy/registry.h"
#include "strategy/reply_check.h"

namespace rlsim {
namespace {

// Where the ratelimit service runs, which decides whose clock and local cache a request meets.
enum class ServiceDeployment {
  kSeparate,  // its own deployment of service_replicas pods, as Envoy's and Istio's examples
  kSidecar,   // one service beside each Envoy (instance)
};

struct EnvoyRatelimitParams {
  // The filter (rate_limit.proto).
  DurationUs timeout_us = 20 * kUsPerMs;
  bool failure_mode_deny = false;
  std::string domain;
  // The service (settings.go: the environment variables, lower-cased).
  std::int64_t local_cache_size_in_bytes = 0;
  double near_limit_ratio = 0.8;
  DurationUs expiration_jitter_max_us = 300 * kUsPerS;
  bool stop_cache_key_increment_when_overlimit = false;
  // rlsim's model of the deployment, not settings of either product.
  DurationUs service_rtt_us = kUsPerMs;
  ServiceDeployment service_deployment = ServiceDeployment::kSeparate;
  std::int64_t service_replicas = 1;
};

EnvoyRatelimitParams parse_envoy_ratelimit_params(const ParamReader& params) {
  return EnvoyRatelimitParams{params.duration_us("timeout"),
                              params.boolean("failure_mode_deny"),
                              params.string("domain"),
                              params.integer("local_cache_size_in_bytes"),
                              params.number("near_limit_ratio"),
                              params.duration_us("expiration_jitter_max"),
                              params.boolean("stop_cache_key_increment_when_overlimit"),
                              params.duration_us("service_rtt"),
                              params.choice<ServiceDeployment>(
                                  "service_deployment", {{"separate", ServiceDeployment::kSeparate},
                                                         {"sidecar", ServiceDeployment::kSidecar}}),
                              params.integer("service_replicas")};
}

// freecache as the service uses it for keys over the limit: an entry costs its 24-byte header
// plus the key (the value is empty), the cache is at least freecache's 512 KiB, and an entry lives
// until its expiry second on the service's clock (found while expire_at > now). When the bytes run
// out the oldest entry goes first (freecache evicts per segment from a ring buffer, with a second
// chance for recently read entries: simplified to one FIFO).
class OverLimitCache {
 public:
  explicit OverLimitCache(std::int64_t size_bytes)
      : capacity_bytes_(std::max<std::int64_t>(size_bytes, kMinBytes)) {}

  bool contains(const std::string& key, std::int64_t now_s) const {
    const auto it = expire_at_s_.find(key);
    return it != expire_at_s_.end() && it->second > now_s;
  }
  void set(const std::string& key, std::int64_t now_s, std::int64_t ttl_s) {
    const auto [it, inserted] = expire_at_s_.try_emplace(key, 0);
    it->second = now_s + ttl_s;
    if (!inserted) return;
    order_.push_back(key);
    used_bytes_ += entry_bytes(key);
    while (used_bytes_ > capacity_bytes_) {
      used_bytes_ -= entry_bytes(order_.front());
      expire_at_s_.erase(order_.front());
      order_.pop_front();
      ++evictions_;
    }
  }
  void clear() {
    expire_at_s_.clear();
    order_.clear();
    used_bytes_ = 0;
  }
  std::int64_t evictions() const { return evictions_; }

 private:
  static constexpr std::int64_t kMinBytes = 512 * 1024;  // freecache's minimum size
  static constexpr std::int64_t kEntryHeaderBytes = 24;  // freecache's ENTRY_HDR_SIZE
  static std::int64_t entry_bytes(const std::string& key) {
    return kEntryHeaderBytes + static_cast<std::int64_t>(key.size());
  }

  std::int64_t capacity_bytes_;
  std::int64_t used_bytes_ = 0;  // bounds the entries to capacity / 24
  std::unordered_map<std::string, std::int64_t> expire_at_s_;
  std::deque<std::string> order_;  // insertion order, for eviction
  std::int64_t evictions_ = 0;
};

// What Envoy hears back from one RPC.
struct RpcResult {
  enum class Status { kTimedOut, kFailed, kOk, kOverLimit };
  Status status = Status::kTimedOut;
  int over_limit_index = -1;         // the first descriptor OVER_LIMIT
  std::int64_t observed_count = -1;  // the first limit's count before this request
};

// The service's counters (per rate limit in the service; summed over the limits here).
struct ServiceStats {
  std::int64_t total_hits = 0;
  std::int64_t within_limit = 0;
  std::int64_t near_limit = 0;
  std::int64_t over_limit = 0;
  std::int64_t over_limit_with_local_cache = 0;
  std::int64_t redis_error = 0;
  std::int64_t served_from_local_cache = 0;  // rlsim: RPCs answered without a Redis call
};

class EnvoyRatelimit final : public Strategy, public EventTarget {
 public:
  explicit EnvoyRatelimit(StrategyEnv env)
      : env_(std::move(env)), params_(parse_envoy_ratelimit_params(ParamReader(env_.params))) {
    for (const Limit& limit : env_.limits) {
      // UnixNow() is in seconds: a window is a whole number of them, at least one.
      units_s_.push_back(std::max<std::int64_t>(limit.window_us / kUsPerS, 1));
      // floor(float32(limit) * float32(ratio)), as GetResponseDescriptorStatus computes it.
      near_thresholds_.push_back(static_cast<std::int64_t>(std::floor(
          static_cast<float>(limit.limit) * static_cast<float>(params_.near_limit_ratio))));
    }
    if (params_.service_deployment == ServiceDeployment::kSeparate)
      for (std::int64_t i = 0; i < params_.service_replicas; ++i)
        services_.push_back(make_service());
  }

  Task<Decision> decide(Request request, const Instance& instance) override {
    RpcResult result;
    co_await call_service(request, instance, &result);
    co_return envoy_decision(result);
  }

  void on_instance_start(const Instance& instance) override {
    if (params_.service_deployment != ServiceDeployment::kSidecar) return;
    while (services_.size() <= instance.id) services_.push_back(make_service());
  }
  void on_instance_stop(const Instance& instance) override {
    // A sidecar goes with its pod, and its local cache with it.
    if (params_.service_deployment == ServiceDeployment::kSidecar && services_[instance.id])
      services_[instance.id]->clear();
  }

  void on_event(std::uint64_t arg) override {
    const auto index = static_cast<std::uint32_t>(arg >> 2);
    switch (static_cast<Phase>(arg & 3)) {
      case kArrive:
        serve(index).start_detached(&EnvoyRatelimit::served, this);
        return;
      case kRespond:
        settle(index, rpcs_[index].response);
        release(index);
        return;
      case kDeadline:
        settle(index, RpcResult{});  // Envoy's timer: the RPC timed out
        release(index);
        return;
    }
  }

  void write_metrics(nlohmann::ordered_json& out) const override {
    out["ok"] = ok_;
    out["error"] = error_;
    out["rpc_timeouts"] = rpc_timeouts_;
    out["failure_mode_allowed"] = failure_mode_allowed_;
    out["total_hits"] = stats_.total_hits;
    out["within_limit"] = stats_.within_limit;
    out["near_limit"] = stats_.near_limit;
    out["over_limit"] = stats_.over_limit;
    out["over_limit_with_local_cache"] = stats_.over_limit_with_local_cache;
    out["served_from_local_cache"] = stats_.served_from_local_cache;
    out["redis_error"] = stats_.redis_error;
    if (params_.local_cache_size_in_bytes == 0) return;
    std::int64_t evictions = 0;
    for (const auto& cache : services_) evictions += cache ? cache->evictions() : 0;
    out["local_cache_evictions"] = evictions;
  }

 private:
  enum Phase : std::uint64_t { kArrive = 0, kRespond = 1, kDeadline = 2 };

  // One RPC in flight. Two paths hold it: Envoy's deadline timer and the service's work (the
  // request's hop out, the service's Redis calls, the hop back); the first to finish settles it.
  struct Rpc {
    Request request;
    const Instance* instance = nullptr;
    std::uint32_t service = 0;  // index into services_
    std::coroutine_handle<> waiting;
    RpcResult* out = nullptr;  // in the waiting decision's frame
    RpcResult response;        // the service's answer, on its way back
    int refs = 0;
  };
  struct RpcAwait {
    EnvoyRatelimit* self;
    std::uint32_t index;
    RpcResult* out;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> waiting) const noexcept {
      self->rpcs_[index].waiting = waiting;
      self->rpcs_[index].out = out;
    }
    void await_resume() const noexcept {}
  };
  struct Served {
    std::uint32_t index = 0;
    RpcResult result;
  };

  std::unique_ptr<OverLimitCache> make_service() const {
    if (params_.local_cache_size_in_bytes == 0) return nullptr;
    return std::make_unique<OverLimitCache>(params_.local_cache_size_in_bytes);
  }

  // Sends the RPC; awaiting the result waits for the answer or Envoy's deadline.
  RpcAwait call_service(const Request& request, const Instance& instance, RpcResult* out) {
    return RpcAwait{this, open_rpc(request, instance), out};
  }

  std::uint32_t open_rpc(const Request& request, const Instance& instance) {
    std::uint32_t index = 0;
    if (free_.empty()) {
      index = static_cast<std::uint32_t>(rpcs_.size());
      rpcs_.emplace_back();
    } else {
      index = free_.back();
      free_.pop_back();
    }
    Rpc& rpc = rpcs_[index];
    rpc = Rpc{request, &instance, pick_service(instance), {}, nullptr, {}, 2};
    const TimeUs now_us = env_.sim.now();
    env_.sim.schedule(now_us + params_.service_rtt_us / 2, this, (index << 2) | kArrive);
    env_.sim.schedule(now_us + params_.timeout_us, this, (index << 2) | kDeadline);
    return index;
  }

  // Envoy's gRPC client spreads the RPCs round robin over the service's pods.
  std::uint32_t pick_service(const Instance& instance) {
    if (params_.service_deployment == ServiceDeployment::kSidecar) return instance.id;
    const auto replica = static_cast<std::uint32_t>(next_replica_);
    next_replica_ = (next_replica_ + 1) % services_.size();
    return replica;
  }

  // The first of the two paths to get here decides; the other finds nobody waiting.
  void settle(std::uint32_t index, const RpcResult& result) {
    Rpc& rpc = rpcs_[index];
    if (!rpc.waiting) return;
    *rpc.out = result;
    const std::coroutine_handle<> waiting = std::exchange(rpc.waiting, {});
    rpc.out = nullptr;
    waiting.resume();
  }
  void release(std::uint32_t index) {
    if (--rpcs_[index].refs == 0) free_.push_back(index);
  }

  // The service has answered: the answer travels back to Envoy.
  static void served(void* context, Served&& served) {
    auto* self = static_cast<EnvoyRatelimit*>(context);
    self->rpcs_[served.index].response = served.result;
    const DurationUs back_us = self->params_.service_rtt_us - self->params_.service_rtt_us / 2;
    self->env_.sim.schedule(self->env_.sim.now() + back_us, self, (served.index << 2) | kRespond);
  }

  // The filter's verdict on what the RPC gave it.
  Decision envoy_decision(const RpcResult& result) {
    Decision decision;
    decision.observed_count = result.observed_count;
    switch (result.status) {
      case RpcResult::Status::kOk:
        ++ok_;
        return decision;
      case RpcResult::Status::kOverLimit:
        decision.deny_for(static_cast<std::size_t>(result.over_limit_index));
        return decision;
      case RpcResult::Status::kTimedOut:
        ++rpc_timeouts_;
        [[fallthrough]];
      case RpcResult::Status::kFailed:
        break;
    }
    ++error_;
    decision.error = true;
    if (params_.failure_mode_deny)
      decision.deny_for(0);  // Envoy answers 500
    else
      ++failure_mode_allowed_;
    return decision;
  }

  // The service's clock in whole seconds (UnixNow): a separate deployment's hosts are taken to
  // keep the Redis node's time (both infrastructure hosts, kept by NTP; a clock fault on `nodes`
  // moves it); a sidecar reads its pod's clock.
  std::int64_t service_now_s(const Rpc& rpc) const {
    const TimeUs now_us = env_.sim.now();
    if (params_.service_deployment == ServiceDeployment::kSidecar)
      return rpc.instance->local_unix_us(now_us) / kUsPerS;
    return env_.redis.clock_unix_us(now_us) / kUsPerS;
  }

  // GenerateCacheKey: <domain>_<descriptor key>_<value>_<window start in s>; the descriptor is
  // the scenario's limit (its name as the entry's key, the user, IP, endpoint or "all" as value).
  std::string key_of(std::size_t index, const Request& request, std::int64_t now_s) const {
    const Limit& limit = env_.limits[index];
    std::string key = fmt::format("{}_{}_", params_.domain, limit.name);
    env_.catalog.append_key_text(key, request, limit.key);
    key += fmt::format("_{}", now_s / units_s_[index] * units_s_[index]);
    return key;
  }

  Task<Served> serve(std::uint32_t index);
  void count_over_limit_locally(std::size_t index, const std::string& key, OverLimitCache* cache,
                                std::int64_t now_s);
  RpcResult judge(const std::vector<std::string>& keys, const std::vector<bool>& cached_over,
                  const std::vector<Reply>& replies, OverLimitCache* cache, std::int64_t now_s);
  Task<bool> read_near_limit(const std::vector<std::string>& keys, std::vector<bool>& near);
  static Served failed(std::uint32_t index) {
    return Served{index, RpcResult{RpcResult::Status::kFailed}};
  }
  Command expire_command(std::size_t index, const std::string& key);

  StrategyEnv env_;
  EnvoyRatelimitParams params_;
  std::vector<std::int64_t> units_s_;          // per limit: the unit's divider
  std::vector<std::int64_t> near_thresholds_;  // per limit
  // Per pod of the service: its local cache (null when LOCAL_CACHE_SIZE_IN_BYTES is 0).
  std::vector<std::unique_ptr<OverLimitCache>> services_;
  std::size_t next_replica_ = 0;
  std::deque<Rpc> rpcs_;  // bounded by the requests in flight; stable addresses
  std::vector<std::uint32_t> free_;
  ServiceStats stats_;
  std::int64_t ok_ = 0;
  std::int64_t error_ = 0;
  std::int64_t rpc_timeouts_ = 0;
  std::int64_t failure_mode_allowed_ = 0;
};

// EXPIRE unit + Int63n(EXPIRATION_JITTER_MAX_SECONDS), sent with every INCRBY.
Command EnvoyRatelimit::expire_command(std::size_t index, const std::string& key) {
  std::int64_t seconds = units_s_[index];
  const std::int64_t jitter_max_s = params_.expiration_jitter_max_us / kUsPerS;
  if (jitter_max_s > 0)
    seconds += static_cast<std::int64_t>(env_.rng.below(static_cast<std::uint64_t>(jitter_max_s)));
  return command("EXPIRE", key, std::to_string(seconds));
}

// STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT's first pipeline: GET every key; a key is "near" when
// one more hit would take it over its limit (IsOverLimitThresholdReached). False on a failed call.
Task<bool> EnvoyRatelimit::read_near_limit(const std::vector<std::string>& keys,
                                           std::vector<bool>& near) {
  std::vector<Command> gets;
  gets.reserve(keys.size());
  for (const std::string& key : keys) gets.push_back(command("GET", key));
  const std::vector<Reply> replies = co_await env_.redis.pipeline(std::move(gets));
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto count = counter_value(replies[i]);
    if (!count) co_return false;
    near[i] = *count + 1 > env_.limits[i].limit;
  }
  co_return true;
}

// ShouldRateLimit -> DoLimit on one pod of the service, from the moment the RPC reaches it.
Task<EnvoyRatelimit::Served> EnvoyRatelimit::serve(std::uint32_t index) {
  const Rpc& rpc = rpcs_[index];
  const std::int64_t now_s = service_now_s(rpc);
  OverLimitCache* cache = services_[rpc.service].get();
  // The service's Redis calls count against the instance whose request they serve (its pool and
  // partitions): the service's own connections are not modelled apart.
  env_.redis.set_current_client(rpc.instance->id);
  std::vector<std::string> keys;
  std::vector<bool> cached_over(env_.limits.size(), false);
  bool any_cached_over = false;
  for (std::size_t i = 0; i < env_.limits.size(); ++i) {
    keys.push_back(key_of(i, rpc.request, now_s));
    ++stats_.total_hits;
    cached_over[i] = cache != nullptr && cache->contains(keys[i], now_s);
    any_cached_over = any_cached_over || cached_over[i];
  }
  std::vector<bool> near(keys.size(), false);
  bool any_near = false;
  if (params_.stop_cache_key_increment_when_overlimit && !any_cached_over) {
    if (!co_await read_near_limit(keys, near)) {
      ++stats_.redis_error;
      co_return failed(index);
    }
    any_near = std::find(near.begin(), near.end(), true) != near.end();
  }
  std::vector<Command> commands;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (cached_over[i]) continue;
    // getHitsAddend: with the flag, nothing when a key is in the cache; when one is about to go
    // over, only the keys about to go over.
    const bool counted = !params_.stop_cache_key_increment_when_overlimit ||
                         (!any_cached_over && (!any_near || near[i]));
    commands.push_back(command("INCRBY", keys[i], counted ? "1" : "0"));
    commands.push_back(expire_command(i, keys[i]));
  }
  std::vector<Reply> replies;
  if (!commands.empty()) replies = co_await env_.redis.pipeline(std::move(commands));
  co_return Served{index, judge(keys, cached_over, replies, cache, now_s)};
}

// GetResponseDescriptorStatus for each descriptor, with the service's counters. A failed Redis
// call fails the whole RPC (checkError panics; ShouldRateLimit answers an error).
RpcResult EnvoyRatelimit::judge(const std::vector<std::string>& keys,
                                const std::vector<bool>& cached_over,
                                const std::vector<Reply>& replies, OverLimitCache* cache,
                                std::int64_t now_s) {
  for (const Reply& reply : replies) {
    if (is_integer(reply)) continue;
    ++stats_.redis_error;
    return RpcResult{RpcResult::Status::kFailed};
  }
  if (replies.empty()) ++stats_.served_from_local_cache;
  RpcResult result{RpcResult::Status::kOk};
  std::size_t next_reply = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    bool over = cached_over[i];
    if (cached_over[i]) {
      ++stats_.over_limit;
      ++stats_.over_limit_with_local_cache;
    } else {
      // The count after this request; before it is one less, even when INCRBY added 0.
      const std::int64_t after = replies[next_reply].integer;
      next_reply += 2;
      if (i == 0) result.observed_count = after - 1;
      over = after > env_.limits[i].limit;
      if (over) {
        ++stats_.over_limit;  // one hit: over entirely, never partly near
        if (cache != nullptr) cache->set(keys[i], now_s, units_s_[i]);
      } else {
        ++stats_.within_limit;
        if (after > near_thresholds_[i]) ++stats_.near_limit;
      }
    }
    if (over && result.status == RpcResult::Status::kOk) {
      result.status = RpcResult::Status::kOverLimit;
      result.over_limit_index = static_cast<int>(i);
    }
  }
  return result;
}

// Envoy's timeout must be positive; the ratio and the replicas are rlsim's checks (the service
// reads NEAR_LIMIT_RATIO without one).
bool check_envoy_ratelimit(const ParamReader& params, const std::string&, std::string& field,
                           std::string& error) {
  const EnvoyRatelimitParams p = parse_envoy_ratelimit_params(params);
  if (p.timeout_us <= 0) {
    field = "timeout";
    error = "expected a positive duration (Envoy's default is 20ms)";
  } else if (p.near_limit_ratio < 0 || p.near_limit_ratio > 1) {
    field = "near_limit_ratio";
    error = fmt::format("expected a ratio from 0 to 1, got {}", p.near_limit_ratio);
  } else if (p.expiration_jitter_max_us % kUsPerS != 0) {
    field = "expiration_jitter_max";
    error = "expected whole seconds (EXPIRATION_JITTER_MAX_SECONDS)";
  } else if (p.service_replicas > 1000) {
    field = "service_replicas";
    error = fmt::format("expected at most 1000, got {}", p.service_replicas);
  } else if (p.service_deployment == ServiceDeployment::kSidecar && p.service_replicas != 1) {
    field = "service_replicas";
    error = "a sidecar deployment runs one service per instance (leave service_replicas at 1)";
  } else if (p.domain.empty()) {
    field = "domain";
    error = "expected a non-empty domain (Envoy requires one)";
  }
  return error.empty();
}

StrategyInfo declare_envoy_ratelimit() {
  StrategyInfo info{
      "envoy_ratelimit",
      "Envoy's global rate limit filter and the envoyproxy/ratelimit service: a fixed window in "
      "Redis (pipelined INCRBY + EXPIRE, rejected requests counted) behind a gRPC hop with a 20 "
      "ms timeout and fail-open by default",
      "Models Envoy's global rate limit filter (envoy.filters.http.ratelimit, "
      "api/envoy/extensions/filters/http/ratelimit/v3/rate_limit.proto at envoyproxy/envoy "
      "00037bef) calling the "
      "envoyproxy/ratelimit service with its Redis backend, as the service's source implements "
      "it (main f2fb1577: src/redis/fixed_cache_impl.go, src/limiter/base_limiter.go, "
      "src/limiter/cache_key.go, src/settings/settings.go). Each request is one RPC whose "
      "descriptors are the scenario's limits. The RPC travels to the service (half of "
      "service_rtt, an rlsim parameter), which reads its clock in whole seconds and builds a key "
      "per limit, <domain>_<limit name>_<key value>_<(now / unit) * unit>, then sends one "
      "pipeline of INCRBY key 1 and EXPIRE key (unit + a jitter below "
      "expiration_jitter_max, drawn from the strategy's random stream) per limit; a descriptor "
      "is OVER_LIMIT when the count after the request exceeds the limit, and the request is "
      "denied when any is. Every request is counted, rejected ones too (issue #185): a client "
      "that keeps knocking stays over its limit, and its rejected requests use up the other "
      "limits of the same request. The answer travels back (the other half of service_rtt). "
      "Envoy waits at most timeout (20 ms) from sending: an answer later than that, a failed "
      "Redis call (the service answers an error) or a Redis that does not answer is an error, "
      "and failure_mode_deny decides: false (the default) lets the request through "
      "(failure_mode_allowed), true denies it. So when Redis stalls every request waits the "
      "whole timeout and passes (issue #462), while the service's own Redis call runs on to the "
      "scenario's redis.timeout (the service's REDIS_TIMEOUT, 10 s by default). "
      "local_cache_size_in_bytes > 0 turns on the service's freecache of keys found over the "
      "limit, each kept for one unit on the service's clock: a request whose keys are all in it "
      "is answered OVER_LIMIT without Redis (over_limit_with_local_cache), even while Redis is "
      "down. stop_cache_key_increment_when_overlimit first GETs the keys (one more round trip) "
      "and then increments only the keys about to go over, and none when a key is in the local "
      "cache: rejected requests stop using up the other limits, but the key that goes over is "
      "still incremented. near_limit_ratio only sets the near_limit statistic. "
      "service_deployment separate (the default, as the service is usually deployed): "
      "service_replicas pods behind Envoy's round robin, each with its own local cache, whose "
      "clocks are taken to be the Redis node's (instance clock skew does not matter); sidecar: "
      "one service beside each instance, reading that instance's clock, its cache lost when "
      "the instance stops. Simplified: one hit per request (hits_addend 1), no shadow mode, no "
      "per-second Redis, no headers; a window is rounded down to whole seconds (at least one; "
      "the service has only the units second to year); freecache's eviction is one FIFO; the "
      "service's Redis calls use the requesting instance's connections (redis.pool, "
      "partitions); the service takes no time of its own.",
      {param("timeout", ParamType::kDuration, "20ms",
             "Envoy's RPC timeout: how long the filter waits for the service"),
       param("failure_mode_deny", ParamType::kBool, false,
             "Envoy: true denies a request whose RPC failed or timed out; false lets it through"),
       param("domain", ParamType::kString, "rlsim", "Envoy's rate limit domain, the keys' start"),
       param("local_cache_size_in_bytes", ParamType::kInt, 0,
             "LOCAL_CACHE_SIZE_IN_BYTES: the service's cache of keys over the limit (0: off; "
             "at least 512 KiB when on, freecache's minimum)"),
       param("near_limit_ratio", ParamType::kNumber, 0.8,
             "NEAR_LIMIT_RATIO: a request within the limit whose count exceeds this share of it "
             "counts as near_limit (a statistic only)"),
       param("expiration_jitter_max", ParamType::kDuration, "300s",
             "EXPIRATION_JITTER_MAX_SECONDS: each EXPIRE adds a random 0 to this, whole seconds "
             "(0s: none)"),
       param("stop_cache_key_increment_when_overlimit", ParamType::kBool, false,
             "STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: GET first, then increment only the keys "
             "about to go over"),
       param("service_rtt", ParamType::kDuration, "1ms",
             "rlsim: the gRPC round trip Envoy -> service -> Envoy, added to the service's Redis "
             "calls"),
       ParamSpec{"service_deployment",
                 ParamType::kEnum,
                 "separate",
                 "rlsim: separate (pods of their own, on the Redis node's clock) or sidecar (one "
                 "beside each instance, on its clock)",
                 {"separate", "sidecar"},
                 false},
       param("service_replicas", ParamType::kInt, 1,
             "rlsim: pods of a separate deployment, each with its own local cache (at most "
             "1000)")},
      Algorithm::kFixedWindow,
      construct<EnvoyRatelimit>,
      nullptr,
      check_envoy_ratelimit};
  // The service's REDIS_TIMEOUT default (settings.go, PR #987); `timeout` is Envoy's RPC timeout.
  info.product_redis_timeout_us = 10 * kUsPerS;
  info.product_redis_timeout_from = "envoyproxy/ratelimit's REDIS_TIMEOUT default";
  return info;
}

const StrategyRegistration kEnvoyRatelimitRegistration(220, declare_envoy_ratelimit);

}  // namespace
}  // namespace rlsim
