#include "strategy/registry.h"

#include <fmt/format.h>

#include "core/check.h"
#include "strategy/clock_source.h"
#include "strategy/hybrid.h"
#include "strategy/resilience.h"

namespace rlsim {

std::vector<std::string> redis_key_prefixes(const std::vector<Limit>& limits) {
  std::vector<std::string> prefixes;
  for (const Limit& limit : limits) {
    int same_kind = 0;
    for (const Limit& other : limits) same_kind += other.key == limit.key;
    const char* kind = limit.key == LimitKey::kEndpoint ? "ep" : to_string(limit.key);
    prefixes.push_back(fmt::format("rl:{}:", same_kind > 1 ? limit.name : std::string(kind)));
  }
  return prefixes;
}

ParamSpec on_error_param() {
  return ParamSpec{"on_error",
                   "enum",
                   "fail_open",
                   "what a decision does when a Redis call fails or times out: fail_open (skip "
                   "that limit), fail_closed (deny), local_fallback (a local counter of limit / "
                   "divisor per window decides); allow and deny are the old names of fail_open "
                   "and fail_closed (docs/resilience.md)",
                   {"fail_open", "fail_closed", "local_fallback", "allow", "deny"},
                   false};
}

namespace {

// A parameter with a default (an optional one).
ParamSpec param(std::string name, std::string type, nlohmann::json default_value, std::string doc) {
  return ParamSpec{
      std::move(name), std::move(type), std::move(default_value), std::move(doc), {}, false};
}

// A parameter the scenario must give.
ParamSpec required_param(std::string name, std::string type, std::string doc) {
  return ParamSpec{std::move(name), std::move(type), nullptr, std::move(doc), {}, true};
}

BucketShape token_bucket_shape(const nlohmann::json& params, const Limit& limit) {
  return bucket_shape_of(params, limit, "capacity", "refill_rate");
}

std::vector<StrategyInfo> with_resilience(std::vector<StrategyInfo> infos) {
  for (StrategyInfo& info : infos) add_resilience(info);
  return infos;
}

BucketShape gcra_shape(const nlohmann::json& params, const Limit& limit) {
  return bucket_shape_of(params, limit, "burst", "rate");
}

}  // namespace

BucketShape bucket_shape_of(const nlohmann::json& params, const Limit& limit,
                            const char* capacity_param, const char* rate_param) {
  BucketShape shape;
  const nlohmann::json& capacity = params.at(capacity_param);
  shape.capacity = capacity.is_null() ? static_cast<double>(limit.limit) : capacity.get<double>();
  const nlohmann::json& rate = params.at(rate_param);
  shape.refill_per_s = rate.is_null() ? static_cast<double>(limit.limit) * kUsPerS /
                                            static_cast<double>(limit.window_us)
                                      : *parse_rate_per_s(rate.get<std::string>());
  return shape;
}

const std::vector<StrategyInfo>& strategy_registry() {
  // Every strategy that takes on_error gets the resilience policies (strategy/resilience.h).
  static const std::vector<StrategyInfo> registry = with_resilience({
      {"in_memory",
       "per-instance fixed-window counter in process memory (the anti-pattern: N instances admit N "
       "x limit)",
       "Each instance keeps its own counter per key and window in a local dictionary, exactly like "
       "the lesson's local_fallback_allow(): the window is int(time.time() // window) on the "
       "instance's own clock, a request is allowed while the local count is below the limit, and "
       "nothing is shared. It sends no Redis commands and adds no latency. Its trade-off is the "
       "lesson's first point: behind a load balancer with N instances each one allows the full "
       "limit, so a user gets up to N x limit (10 instances x 100/min = 1000/min), and with "
       "autoscaling the effective limit moves with the instance count. A new instance starts with "
       "empty counters.",
       {},
       Algorithm::kFixedWindow,
       make_in_memory,
       nullptr,
       nullptr},
      {"redis_fixed_window",
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
       {on_error_param(), clock_param(), clock_refresh_param()},
       Algorithm::kFixedWindow,
       make_redis_fixed_window,
       nullptr,
       nullptr},
      {"redis_fixed_window_lua",
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
       {on_error_param(), clock_param(), clock_refresh_param()},
       Algorithm::kFixedWindow,
       make_redis_fixed_window_lua,
       nullptr,
       nullptr},
      {"redis_sliding_log",
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
       {on_error_param(), clock_param(), clock_refresh_param()},
       Algorithm::kSlidingLog,
       make_redis_sliding_log,
       nullptr,
       nullptr},
      {"redis_sliding_counter",
       "Cloudflare's sliding window counter: previous window weighted by overlap + current window",
       "Two fixed-window counters per key, rl:{<kind>:<value>}:<window> for the previous and the "
       "current aligned window (hash-tagged so both sit in one Redis Cluster slot). One script per "
       "limit, with the window length and the time elapsed in the current window (from the "
       "instance's clock) in ARGV: MGET both counters; admit iff previous * (window - elapsed) / "
       "window + current < limit, and then INCR the current counter (PEXPIRE 2 windows when the "
       "INCR created it). "
       "A denied request is not counted. It assumes the previous window's requests were spread "
       "evenly, so it is approximate (Cloudflare measured 0.003% of requests wrongly allowed or "
       "limited) but needs only two integers per key instead of a log: it mostly prevents the "
       "fixed window's 2x burst at a window edge (rolling_overshoot a little above 1 instead of "
       "near 2). Compare it with redis_sliding_log on the same traffic for its error.",
       {on_error_param(), clock_param(), clock_refresh_param()},
       Algorithm::kSlidingCounter,
       make_redis_sliding_counter,
       nullptr,
       nullptr},
      {"redis_token_bucket",
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
       {on_error_param(), clock_param(), clock_refresh_param(),
        param("capacity", "int", nullptr,
              "tokens in a full bucket, the largest burst (default: each limit's limit)"),
        param("refill_rate", "rate", nullptr,
              "tokens added per time, e.g. \"100/m\" or \"2.5/s\" (default: each limit's limit per "
              "window)"),
        ParamSpec{"layout",
                  "enum",
                  "hash",
                  "hash: one hash key rl:<kind>:<value>:bucket; two_keys: the lesson's two string "
                  "keys ...:tokens and ...:ts, one script touching both (docs/cluster.md)",
                  {"hash", "two_keys"},
                  false},
        param("hash_tag", "bool", true,
              "two_keys only: true names them rl:{user:42}:tokens / rl:{user:42}:ts (one Redis "
              "Cluster slot); false rl:user:42:tokens / rl:user:42:ts, which a cluster rejects "
              "with CROSSSLOT")},
       Algorithm::kTokenBucket,
       make_redis_token_bucket,
       token_bucket_shape,
       nullptr},
      {"redis_gcra",
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
       {on_error_param(), clock_param(), clock_refresh_param(),
        param("burst", "int", nullptr,
              "requests admitted at once from idle, the bucket's capacity (default: each limit's "
              "limit)"),
        param("rate", "rate", nullptr,
              "sustained rate, e.g. \"100/m\" (default: each limit's limit per window); T = 1 / "
              "rate")},
       Algorithm::kGcra,
       make_redis_gcra,
       gcra_shape,
       nullptr},
      {"custom_lua",
       "your own Lua script (e.g. your production limiter's), with KEYS, ARGV and an allow rule "
       "from the scenario",
       "Runs a Lua script from a file named in the scenario (script, relative to the scenario "
       "file), unchanged, as production code would: EVALSHA with the file's SHA1, and EVAL with "
       "its text after a NOSCRIPT reply. For each limit in order it builds KEYS and ARGV from "
       "templates (keys, args) that mix literal text with request fields: ${user}, ${ip}, "
       "${endpoint}, ${key} and ${prefix} (the limit's key value and its rl:<kind>: prefix), "
       "${limit}, ${window_ms}, ${window_us}, ${window} (the aligned window number), ${now_s}, "
       "${now_ms}, ${now_us} (the instance's clock), ${cost} (1), ${instance} and ${request_id}. "
       "allow_if turns the reply into a decision: reply or reply[N] (1-based element of an array "
       "reply), one of == != < <= > >=, and an integer (e.g. \"reply == 1\", \"reply[1] == 0\"); "
       "a nil reply (Lua false) reads as 0. An error reply counts as a Redis error (on_error "
       "applies); a script that does not compile, exceeds the instruction budget, or returns a "
       "reply allow_if cannot read stops the run (exit 4). The trade-off is whatever your script's "
       "is; the point is to measure it on your traffic next to the built-in strategies. Its ideal "
       "limiter is the fixed window, so false_denials are counted against that.",
       {on_error_param(), clock_param(), clock_refresh_param(),
        required_param("script", "path", "the Lua file, relative to the scenario file"),
        required_param("keys", "string_array",
                       "templates for KEYS, e.g. [\"rl:{${user}}:tokens\"]"),
        param("args", "string_array", nlohmann::json::array(),
              "templates for ARGV, e.g. [\"${now_ms}\", \"${limit}\"]"),
        param("allow_if", "string", "reply == 1",
              "the rule that admits a request, given the reply")},
       Algorithm::kFixedWindow,
       make_custom_lua,
       nullptr,
       check_custom_lua},
      multi_limit_info(),
      sharded_global_info(),
      local_budget_info(),
      token_reservation_info(),
      region_local_info(),
      global_redis_info(),
      crdt_counter_info(),
  });
  return registry;
}

const StrategyInfo* find_strategy(std::string_view name) {
  for (const auto& info : strategy_registry()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::string strategy_names() {
  std::string names;
  for (const auto& info : strategy_registry()) names += (names.empty() ? "" : ", ") + info.name;
  return names;
}

namespace {

// Whether `value` has the type `spec` asks for; otherwise sets `expected`.
bool param_type_ok(const ParamSpec& spec, const nlohmann::json& value, std::string& expected) {
  const std::string& type = spec.type;
  if (type == "bool") {
    expected = "true or false";
    return value.is_boolean();
  }
  if (type == "int") {
    expected = fmt::format("a positive integer (at most {})", ScenarioBounds::kMaxLimitValue);
    return value.is_number_integer() && value.get<std::int64_t>() > 0 &&
           value.get<std::int64_t>() <= ScenarioBounds::kMaxLimitValue;
  }
  if (type == "duration") {
    expected = "a duration such as \"2ms\"";
    return value.is_string() && parse_duration(value.get<std::string>()).has_value();
  }
  if (type == "rate") {
    expected = "a rate such as \"100/m\" or \"2.5/s\"";
    if (!value.is_string()) return false;
    const auto rate = parse_rate_per_s(value.get<std::string>());
    return rate.has_value() && *rate > 0;
  }
  if (type == "path") {
    expected = "a file name (relative to the scenario file)";
    return value.is_string() && !value.get<std::string>().empty();
  }
  if (type == "string") {
    expected = "a string";
    return value.is_string();
  }
  if (type == "string_array") {
    expected = "an array of strings";
    return value.is_array();  // the elements are checked by StrategyInfo::check, with their index
  }
  if (type == "breaker") {
    expected = "false or an object such as {\"failures\": 5, \"cooldown\": \"5s\"}";
    return value.is_object() || value == false;
  }
  RLSIM_CHECK(type == "enum");
  for (const auto& choice : spec.choices) {
    expected += (expected.empty() ? "one of " : ", ") + fmt::format("\"{}\"", choice);
    if (value.is_string() && value.get<std::string>() == choice) return true;
  }
  return false;
}

}  // namespace

std::optional<nlohmann::json> resolve_params(const StrategyInfo& info, const nlohmann::json& given,
                                             std::string& error_field, std::string& error,
                                             const std::string& scenario_dir) {
  nlohmann::json resolved = nlohmann::json::object();
  for (auto it = given.begin(); it != given.end(); ++it) {
    const ParamSpec* spec = nullptr;
    for (const auto& p : info.params) {
      if (p.name == it.key()) spec = &p;
    }
    error_field = it.key();
    if (spec == nullptr) {
      std::string names;
      for (const auto& p : info.params) names += (names.empty() ? "" : ", ") + p.name;
      error = names.empty()
                  ? fmt::format("unknown parameter ({} takes no parameters)", info.name)
                  : fmt::format("unknown parameter for {} (expected one of: {})", info.name, names);
      return std::nullopt;
    }
    std::string expected;
    if (!param_type_ok(*spec, it.value(), expected)) {
      error = fmt::format("expected {}, got {}", expected, it.value().dump());
      return std::nullopt;
    }
    resolved[it.key()] = it.value();
  }
  for (const auto& p : info.params) {
    if (resolved.contains(p.name)) continue;
    if (p.required) {
      error_field = p.name;
      error = fmt::format("missing parameter {} for {} ({})", p.name, info.name, p.doc);
      return std::nullopt;
    }
    resolved[p.name] = p.default_value;
  }
  if (info.check && !info.check(resolved, scenario_dir, error_field, error)) return std::nullopt;
  return resolved;
}

}  // namespace rlsim
