// kong: Kong's open-source rate-limiting plugin (kong/plugins/rate-limiting/: handler.lua,
// policies/init.lua, schema.lua, expiration.lua; Kong 3.10.0-dev, master 22246ef2), its three
// ways of counting (docs/products.md):
//   policy local: a counter per node; the usage is read first and the +1 runs afterwards in a
//     zero-delay timer, so requests decided at the same moment all see the old count.
//   policy redis, sync_rate unset (Kong's -1): per limit one EVAL that INCRs the key (EXPIRE on
//     the first hit) and returns the count before this request; rejected requests count too
//     (since Kong 3.4).
//   policy redis, sync_rate set: the first request after a sync reads Redis with that EVAL and
//     caches the count; later ones use the cache plus the node's own delta; a timer every
//     sync_rate sends the deltas (EXISTS, INCRBY, EXPIRE when new) and clears the cache.
// A request is rejected when a limit's usage before it is >= the limit. fault_tolerant (default
// true): a failed Redis call lets the request through.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "strategy/registry.h"
#include "strategy/reply_check.h"

namespace rlsim {
namespace {

enum class KongPolicy { kLocal, kRedis };

struct KongParams {
  KongPolicy policy = KongPolicy::kLocal;
  std::optional<DurationUs> sync_rate_us;  // nullopt: Kong's -1, every request reads and counts
  bool fault_tolerant = true;
  // limit_by (handler.lua get_identifier) as the key kind it counts per; nullopt: each limit's
  // key. "header" has no key kind (rlsim's requests carry no headers): check_kong refuses it.
  std::optional<LimitKey> limit_by;
};

KongParams parse_kong_params(const ParamReader& params) {
  std::optional<LimitKey> limit_by;
  if (params.is_set("limit_by") && params.string("limit_by") != "header") {
    limit_by = params.choice<LimitKey>("limit_by", {{"consumer", LimitKey::kUser},
                                                    {"credential", LimitKey::kUser},
                                                    {"ip", LimitKey::kIp},
                                                    {"service", LimitKey::kGlobal},
                                                    {"path", LimitKey::kEndpoint},
                                                    {"header", LimitKey::kUser}});
  }
  return KongParams{params.choice<KongPolicy>(
                        "policy", {{"local", KongPolicy::kLocal}, {"redis", KongPolicy::kRedis}}),
                    params.optional_duration_us("sync_rate"), params.boolean("fault_tolerant"),
                    limit_by};
}

// The usage read: INCR, EXPIRE on the first hit, the count before this request
// (policies/init.lua, the redis policy's usage with sync_rate -1).
constexpr const char* kIncrScript =
    "local v = redis.call('INCR', KEYS[1]) if v == 1 then redis.call('EXPIRE', KEYS[1], "
    "ARGV[1]) end return v - 1";
// A sync of one key's delta (policies/init.lua sync_to_redis): EXISTS, INCRBY, and the expiry
// only for a key that did not exist.
constexpr const char* kSyncScript =
    "local e = redis.call('EXISTS', KEYS[1]) redis.call('INCRBY', KEYS[1], ARGV[1]) if e == 0 "
    "then redis.call('EXPIRE', KEYS[1], ARGV[2]) end return 1";

// Kong's period names (expiration.lua); other windows keep their length in seconds.
std::string period_name(DurationUs window_us) {
  switch (window_us / kUsPerS) {
    case 1:
      return "second";
    case 60:
      return "minute";
    case 3600:
      return "hour";
    case 86400:
      return "day";
    default:
      return fmt::format("{}s", window_us / kUsPerS);
  }
}

class Kong final : public Strategy, public EventTarget {
 public:
  explicit Kong(StrategyEnv env)
      : env_(std::move(env)), params_(parse_kong_params(ParamReader(env_.params))) {
    for (const Limit& limit : env_.limits) {
      periods_.push_back(period_name(limit.window_us));
      // Kong's periods are whole seconds (second to year; schema.lua): the run stops before its
      // first decision, as Kong refuses the configuration.
      if (limit.window_us < kUsPerS || limit.window_us % kUsPerS != 0)
        fail(
            fmt::format("limit {}: Kong counts periods of whole seconds (second, minute, hour, "
                        "day), not a window of {} us",
                        limit.name, limit.window_us));
    }
  }

  Task<Decision> decide(Request request, const Instance& instance) override {
    // Kong's now is ngx.time(): the node's clock in whole seconds.
    const std::int64_t now_s = instance.local_unix_us(env_.sim.now()) / kUsPerS;
    std::vector<std::string> keys;
    for (std::size_t i = 0; i < env_.limits.size(); ++i) keys.push_back(key_of(i, request, now_s));
    if (params_.policy == KongPolicy::kLocal) co_return decide_local(instance, keys);
    Node& node = nodes_[instance.id];
    const std::uint64_t epoch = node.epoch;
    Decision decision;
    std::vector<std::int64_t> usage(env_.limits.size(), 0);
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      const auto cached = node.cache.find(keys[i]);
      if (params_.sync_rate_us && cached != node.cache.end()) {
        usage[i] = cached->second.usage + cached->second.delta;
        continue;
      }
      const Reply reply = std::move((co_await env_.redis.call(read_command(i, keys[i]))).front());
      // handler.lua: the first error stops the reading; fault_tolerant lets the request pass.
      if (!is_integer(reply)) co_return failed_decision();
      usage[i] = reply.integer;
      // The EVAL counted this request already: a delta of -1 cancels the +1 that follows.
      if (params_.sync_rate_us && node.epoch == epoch) node.cache[keys[i]] = {reply.integer, -1};
    }
    for (std::size_t i = 0; i < env_.limits.size(); ++i)
      if (usage[i] >= env_.limits[i].limit) decision.deny_for(i);
    if (decision.allowed && params_.sync_rate_us && node.epoch == epoch)
      count_locally(instance, keys);
    decision.observed_count = usage[0];
    co_return decision;
  }

  void on_instance_start(const Instance& instance) override {
    if (nodes_.size() <= instance.id) nodes_.resize(instance.id + 1);
    nodes_[instance.id] = Node{};
  }
  void on_instance_stop(const Instance& instance) override {
    Node& node = nodes_[instance.id];
    for (const auto& [key, entry] : node.cache)
      deltas_lost_ += std::max<std::int64_t>(entry.delta, 0);
    const std::uint64_t epoch = node.epoch + 1;
    node = Node{};  // the process is gone: its counters, cache and deltas with it
    node.epoch = epoch;
  }

  // A node's sync timer fires (arg: the instance id and the epoch it was started in).
  void on_event(std::uint64_t arg) override {
    const auto id = static_cast<std::uint32_t>(arg >> 32);
    Node& node = nodes_[id];
    if (static_cast<std::uint32_t>(arg) != static_cast<std::uint32_t>(node.epoch)) return;
    node.sync_pending = false;
    sync(id).start_detached(&Kong::sync_done, this);
  }

  void write_metrics(nlohmann::ordered_json& out) const override {
    if (params_.policy != KongPolicy::kRedis || !params_.sync_rate_us) return;
    out["syncs"] = syncs_;
    out["sync_failures"] = sync_failures_;
    out["deltas_lost"] = deltas_lost_;
  }

  // With sync_rate: the admissions the nodes counted in their caches and have not sent to Redis
  // yet (the sync lag the other nodes cannot see), and the syncs so far.
  void write_live_state(nlohmann::ordered_json& out) const override {
    if (params_.policy != KongPolicy::kRedis || !params_.sync_rate_us) return;
    std::int64_t unsynced = 0;
    for (const Node& node : nodes_)
      for (const auto& entry : node.cache) unsynced += entry.second.delta;
    out["admissions_not_synced"] = unsynced;
    out["syncs"] = syncs_;
  }

 private:
  struct CacheEntry {
    std::int64_t usage = 0;  // the count Redis returned, before this node's delta
    std::int64_t delta = 0;  // this node's admissions since then, not yet synced
  };
  struct LocalCounter {
    std::int64_t count = 0;    // visible to the usage read
    std::int64_t pending = 0;  // +1s whose timer has not run yet
    TimeUs pending_at_us = 0;  // when they were decided
  };
  struct Node {
    std::unordered_map<std::string, CacheEntry> cache;    // redis with sync_rate
    std::unordered_map<std::string, LocalCounter> local;  // policy local
    std::int64_t local_window_s = -1;                     // drops old windows' counters
    bool sync_pending = false;
    std::uint64_t epoch = 0;  // bumped when the process stops: its timer and calls are stale
  };

  std::string key_of(std::size_t index, const Request& request, std::int64_t now_s) const {
    const Limit& limit = env_.limits[index];
    const std::int64_t window_s = std::max<std::int64_t>(limit.window_us / kUsPerS, 1);
    // ratelimit:<kind>:<identifier>:<period start in ms>:<period>: Kong's route and service ids
    // are replaced by the key kind (limit_by's, else the limit's: user, ip, endpoint, global).
    const LimitKey kind = params_.limit_by.value_or(limit.key);
    std::string key = fmt::format("ratelimit:{}:", to_string(kind));
    env_.catalog.append_key_text(key, request, kind);
    key += fmt::format(":{}:{}", now_s / window_s * window_s * 1000, periods_[index]);
    return key;
  }

  Command read_command(std::size_t index, const std::string& key) const {
    return command("EVAL", kIncrScript, "1", key,
                   std::to_string(env_.limits[index].window_us / kUsPerS));
  }

  Decision failed_decision() const {
    Decision decision;
    decision.error = true;
    if (!params_.fault_tolerant) decision.deny_for(0);  // Kong answers 500
    return decision;
  }

  Decision decide_local(const Instance& instance, const std::vector<std::string>& keys) {
    Node& node = nodes_[instance.id];
    const TimeUs now_us = env_.sim.now();
    Decision decision;
    std::vector<LocalCounter*> counters;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      LocalCounter& counter = node.local[keys[i]];
      // The zero-delay timers of earlier moments have run by now.
      if (counter.pending_at_us < now_us) {
        counter.count += counter.pending;
        counter.pending = 0;
      }
      if (counter.count >= env_.limits[i].limit) decision.deny_for(i);
      counters.push_back(&counter);
    }
    decision.observed_count = counters.front()->count;
    if (!decision.allowed) return decision;
    for (LocalCounter* counter : counters) {
      ++counter->pending;
      counter->pending_at_us = now_us;
    }
    return decision;
  }

  void count_locally(const Instance& instance, const std::vector<std::string>& keys) {
    Node& node = nodes_[instance.id];
    for (const std::string& key : keys) ++node.cache[key].delta;
    if (node.sync_pending) return;
    node.sync_pending = true;
    env_.sim.schedule(env_.sim.now() + *params_.sync_rate_us, this,
                      (std::uint64_t{instance.id} << 32) | static_cast<std::uint32_t>(node.epoch));
  }

  // sync_to_redis: one EVAL per cached key with its delta, pipelined; then the whole cache is
  // cleared, whatever the outcome (a failed sync loses the deltas; so do admissions made while
  // the sync was on the wire: inferred from the code, which clears after the commit).
  Task<bool> sync(std::uint32_t id) {
    const std::uint64_t epoch = nodes_[id].epoch;
    std::vector<Command> commands;
    std::int64_t sent = 0;
    // In key order: the hash map's own order differs between standard libraries (the page's
    // WebAssembly build uses libc++), and the order of the commands shows in the node's hot keys.
    std::vector<std::pair<std::string, CacheEntry>> entries(nodes_[id].cache.begin(),
                                                            nodes_[id].cache.end());
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [key, entry] : entries) {
      const std::size_t index = limit_of(key);
      commands.push_back(command("EVAL", kSyncScript, "1", key, std::to_string(entry.delta),
                                 std::to_string(env_.limits[index].window_us / kUsPerS)));
      sent += std::max<std::int64_t>(entry.delta, 0);
    }
    ++syncs_;
    bool ok = true;
    if (!commands.empty()) {
      const std::vector<Reply> replies = co_await env_.redis.pipeline(std::move(commands));
      for (const Reply& reply : replies) ok = ok && is_integer(reply);
    }
    Node& node = nodes_[id];
    if (node.epoch != epoch) co_return ok;  // the process stopped meanwhile
    std::int64_t at_clear = 0;
    for (const auto& [key, entry] : node.cache) at_clear += std::max<std::int64_t>(entry.delta, 0);
    deltas_lost_ += ok ? at_clear - sent : at_clear;
    if (!ok) ++sync_failures_;
    node.cache.clear();
    co_return ok;
  }
  static void sync_done(void*, bool&&) {}

  std::size_t limit_of(const std::string& key) const {
    for (std::size_t i = 0; i < periods_.size(); ++i)
      if (key.ends_with(":" + periods_[i])) return i;
    return 0;
  }

  StrategyEnv env_;
  KongParams params_;
  std::vector<std::string> periods_;  // per limit
  std::vector<Node> nodes_;           // by instance id
  std::int64_t syncs_ = 0;
  std::int64_t sync_failures_ = 0;
  std::int64_t deltas_lost_ = 0;
};

// Kong: sync_rate "must be greater than 0.02, or -1 to disable" (0.02 itself is accepted).
bool check_kong(const ParamReader& params, const std::string&, std::string& field,
                std::string& error) {
  if (params.is_set("limit_by") && params.string("limit_by") == "header") {
    field = "limit_by";
    error =
        "rlsim's requests carry no headers: for a header that identifies the client (an API key) "
        "use \"consumer\" (the key user), else \"ip\" (Kong falls back to the client IP)";
    return false;
  }
  const KongParams kong = parse_kong_params(params);
  if (kong.sync_rate_us && kong.policy != KongPolicy::kRedis) {
    field = "sync_rate";
    error = "only the redis policy syncs (Kong: sync_rate must be -1 unless policy is redis)";
    return false;
  }
  if (kong.sync_rate_us && *kong.sync_rate_us < 20 * kUsPerMs) {
    field = "sync_rate";
    error = fmt::format("expected at least 20ms (Kong's 0.02 s), got {} us", *kong.sync_rate_us);
    return false;
  }
  return true;
}

StrategyInfo declare_kong() {
  StrategyInfo info{
      "kong",
      "Kong's rate-limiting plugin: policy local (read, then count in a timer) or redis (INCR "
      "first, or a cached count synced every sync_rate)",
      "Models Kong's open-source rate-limiting plugin as kong/plugins/rate-limiting/handler.lua "
      "and policies/init.lua implement it (Kong 3.10.0-dev, master 22246ef2). Each scenario limit "
      "is one of the plugin's periods (a window of 1 s, 1 m, 1 h or 1 d is Kong's second, "
      "minute, hour or day), counted in windows aligned on the node's clock in whole seconds "
      "(ngx.time()). A request is rejected when the usage of a period before it is at least the "
      "limit; a rejected request is not incremented by the plugin. policy local: a counter per "
      "instance (nginx shared memory), read first; the +1 runs in a zero-delay timer after the "
      "decision, so requests decided at the same moment see the same count, and N instances "
      "admit N x the limit. policy redis without sync_rate (Kong's -1, the default): per "
      "period one EVAL (INCR, EXPIRE on the first hit) returning the count before the request, "
      "so the increment comes before the decision and rejected requests count too (Kong 3.4 "
      "and later). policy redis with sync_rate: the first request after a sync reads Redis with "
      "that EVAL and caches the count (with a delta of -1 for the INCR already made); later "
      "ones use the cache plus the node's own admissions, without Redis; a timer sync_rate "
      "after the first admission sends the deltas in one pipeline (EXISTS, INCRBY, EXPIRE for a "
      "new key) and clears the cache. Other instances' admissions are invisible for about "
      "sync_rate, a failed sync loses the deltas, and so do admissions made while the sync was "
      "in flight (inferred from the code). fault_tolerant (default true): a failed Redis call "
      "lets the request through (false: Kong answers 500, here a denial). Simplified: one nginx "
      "worker per instance (Kong's cache is per worker), no cluster (database) policy, no month "
      "or year periods, route and service ids left out of the key, no headers; the Redis client "
      "timeout is the entry's timeout, else the scenario's redis.timeout, else Kong's own "
      "redis.timeout default, 2000 ms (kong/tools/redis/schema.lua, DEFAULT_TIMEOUT).",
      {ParamSpec{"policy",
                 ParamType::kEnum,
                 "local",
                 "local: a counter per instance; redis: one counter in Redis",
                 {"local", "redis"},
                 false},
       ParamSpec{"sync_rate",
                 ParamType::kDuration,
                 nullptr,
                 "redis only: sync the local deltas every this long, at least 20ms, as a duration "
                 "(\"500ms\") or Kong's number of seconds (0.5); unset or -1: Kong's -1, every "
                 "request reads and counts",
                 {},
                 false,
                 "a string",
                 NativeDuration::kSeconds},
       ParamSpec{"limit_by",
                 ParamType::kEnum,
                 nullptr,
                 "what Kong counts per, in its own words: consumer and credential (the key "
                 "user), ip, service (one counter: global), path (endpoint); unset: each limit's "
                 "key. A limit_by other than the limit's key is counted as Kong would, and the "
                 "oracle still judges by the limit's key",
                 {"consumer", "credential", "ip", "service", "path", "header"},
                 false},
       param("fault_tolerant", ParamType::kBool, true,
             "true: a failed Redis call lets the request through; false: it fails (denied)")},
      Algorithm::kFixedWindow,
      construct<Kong>,
      nullptr,
      check_kong};
  // kong/tools/redis/schema.lua: `timeout = typedefs.timeout { default = DEFAULT_TIMEOUT }`, 2000.
  info.product_redis_timeout_us = 2000 * kUsPerMs;
  info.product_redis_timeout_from = "Kong's redis.timeout default";
  return info;
}

const StrategyRegistration kKongRegistration(210, declare_kong);

}  // namespace
}  // namespace rlsim
