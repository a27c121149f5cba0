// limitador_cached: Kuadrant Limitador with its cached Redis storage (`limitador-server
// redis_cached`), as Kuadrant/limitador master 2981b2bd (limitador 0.12.0-dev) implements it in
// limitador/src/storage/redis/redis_cached.rs, counters_cache.rs and scripts.rs
// (docs/products.md):
//   Decisions come from the instance's own cache and never wait for Redis. A counter the cache
//   has not seen starts at 0 locally and asks for an urgent flush. A background flusher sends the
//   pending increments of up to batch_size counters in one script (INCRBY, EXPIRE when new,
//   PEXPIRETIME) every flush_period, at once when a counter is urgent or batch_size counters are
//   pending; each reply's value minus the local value at the flush is the other instances'
//   increments, merged into the cache with Redis's expiry. A failed flush marks the instance
//   "partitioned" (it only logs) and returns the pending increments for the next flush.
#include <fmt/format.h>

#include <list>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "strategy/registry.h"
#include "strategy/reply_check.h"
#include "strategy/script.h"

namespace rlsim {
namespace {

struct LimitadorParams {
  DurationUs flush_period_us = kUsPerS;
  std::int64_t batch_size = 100;
  std::int64_t max_cached = 10000;
  DurationUs response_timeout_us = 350 * kUsPerMs;
};

LimitadorParams parse_limitador_params(const ParamReader& params) {
  return LimitadorParams{params.duration_us("flush_period"), params.integer("batch_size"),
                         params.integer("max_cached"), params.duration_us("response_timeout")};
}

// scripts.rs BATCH_UPDATE_COUNTERS with two commands the embedded Redis lacks replaced by
// equivalents: PEXPIRETIME (Redis 7) is TIME in ms plus PTTL, and the SADD that registers the
// counter in its limit's set is an HSET of the same key and member.
const char* const kBatchUpdateScript = R"(
    local res = {}
    local t = redis.call('time')
    local now_ms = t[1] * 1000 + math.floor(t[2] / 1000)
    for i = 1, #KEYS, 2 do
        local counter_key = KEYS[i]
        local limit_key = KEYS[i+1]
        local ttl = ARGV[i]
        local delta = ARGV[i+1]

        local c = redis.call('incrby', counter_key, delta)
        table.insert(res, c)
        if c == tonumber(delta) then
            redis.call('expire', counter_key, ttl)
            redis.call('hset', limit_key, counter_key, '1')
        end
        local expire_at = redis.call('pttl', counter_key)
        if expire_at >= 0 then expire_at = now_ms + expire_at end
        table.insert(res, expire_at)
    end
    return res
)";

// A simulation bound, not the product's: after this many failed flushes with no decision on the
// instance in between, its flusher waits for the next decision (so a run whose Redis never comes
// back ends).
constexpr int kMaxIdleFailures = 60;

// counters_cache.rs CachedCounterValue on the instance's clock (Unix µs): the value and expiry of
// AtomicExpiringValue, initial_value (the part of the value Redis has), from_authority.
struct CachedValue {
  std::size_t limit = 0;
  std::int64_t value = 0;
  TimeUs expires_at_us = 0;
  std::int64_t initial = 0;
  bool from_authority = false;
  bool in_cache = false;
  bool in_batcher = false;
  std::list<std::string>::iterator lru;  // its place in the cache, when in_cache

  std::int64_t hits(TimeUs now_us) const { return expires_at_us <= now_us ? 0 : value; }
  // delta(): an expired window starts again at `delta`, and forgets what Redis had.
  void add(std::int64_t delta, DurationUs window_us, TimeUs now_us) {
    if (expires_at_us <= now_us) {
      expires_at_us = now_us + window_us;
      value = delta;
    } else {
      value += delta;
    }
    if (value == delta) initial = 0;
  }
  // pending_writes_and_value(): the increments to send and the value they are part of; from now
  // on they count as sent. With initial 0 every hit is pending.
  std::pair<std::int64_t, std::int64_t> take_pending(TimeUs now_us) {
    const std::int64_t start = initial;
    const std::int64_t now_value = hits(now_us);
    initial = now_value;
    if (start == 0 || now_value < start) return {now_value, now_value};
    return {now_value - start, now_value};
  }
  std::int64_t pending(TimeUs now_us) const {
    const std::int64_t now_value = hits(now_us);
    return initial == 0 || now_value < initial ? now_value : now_value - initial;
  }
  bool no_pending_writes(TimeUs now_us) const { return hits(now_us) == initial; }
  DurationUs ttl_us(TimeUs now_us) const { return std::max<DurationUs>(expires_at_us - now_us, 0); }
  bool requires_fast_flush(DurationUs within_us, TimeUs now_us) const {
    return !from_authority || ttl_us(now_us) <= within_us;
  }
};

enum class FlushReason { kNone, kPeriod, kUrgent, kFull };

// What one flush sent for one counter: the value it was part of and the increments.
struct Sent {
  std::string key;
  std::size_t limit = 0;
  std::int64_t value = 0;
  std::int64_t delta = 0;
};

// One Limitador process: its cache (moka, here an LRU of max_cached), its batcher (the counters
// with increments to flush, in the order they came) and its flusher task.
struct Node {
  const Instance* instance = nullptr;
  bool active = false;
  std::unordered_map<std::string, CachedValue> values;  // the cache and the batcher share them
  std::list<std::string> lru;                           // the cache, most recently used first
  std::vector<std::string> batcher;
  bool priority = false;     // the batcher's priority_flush flag
  bool partitioned = false;  // the partitioned flag (it only logs and sets a gauge)
  bool flushing = false;
  std::vector<std::string> batch;  // the flush in flight
  std::vector<Sent> sent;
  TimeUs anchor_us = 0;  // true time the flusher's current sleep began
  bool tick_armed = false;
  std::uint32_t generation = 0;  // bumped to make an armed tick or timeout stale
  int idle_failures = 0;
};

enum FlushEvent : std::uint64_t { kTick = 0, kTimeout = 1 };

class LimitadorCached final : public Strategy, public EventTarget {
 public:
  explicit LimitadorCached(StrategyEnv env)
      : env_(std::move(env)),
        params_(parse_limitador_params(ParamReader(env_.params))),
        script_("limitador_cached", kBatchUpdateScript) {
    for (const Limit& limit : env_.limits) {
      if (limit.window_us % kUsPerS != 0)
        fail(
            fmt::format("limitador_cached: limit {}: Limitador's windows are whole seconds, got {} "
                        "us",
                        limit.name, limit.window_us));
      key_parts_.push_back(key_parts(limit));
    }
  }

  Task<Decision> decide(Request request, const Instance& instance) override {
    co_return check_and_update(request, instance);
  }

  void on_instance_start(const Instance& instance) override {
    // A refused configuration stops the run before its first decision: start nothing that
    // would outlive it.
    if (!fatal_error().empty()) return;
    if (nodes_.size() <= instance.id) nodes_.resize(instance.id + 1);
    Node& node = nodes_[instance.id];
    node.instance = &instance;
    node.active = true;
    node.anchor_us = env_.sim.now();
    // CachedRedisStorage::new loads the batch script when the process starts.
    use_client(instance.id);
    load_script(instance.id).start_detached(&LimitadorCached::call_done, this);
  }

  void on_instance_stop(const Instance& instance) override {
    Node& node = nodes_[instance.id];
    const TimeUs now_us = local_now(node);
    for (const std::string& key : node.batcher)
      writes_lost_on_stop_ += node.values[key].pending(now_us);
    node = Node{};  // the process is gone, its cache, batcher and flusher with it
  }

  // The flusher's sleep ends, or a flush's response timeout passes (arg: the instance id, the
  // kind and the node's generation when it was armed).
  void on_event(std::uint64_t arg) override {
    Node& node = nodes_[arg >> 32];
    if (!node.active || static_cast<std::uint32_t>(arg) >> 1 != (node.generation & 0x7fffffffU))
      return;
    if ((arg & 1) == kTimeout) {
      RLSIM_CHECK(node.flushing);
      finish_flush(node, nullptr);
      return;
    }
    node.tick_armed = false;
    if (node.batcher.empty()) {
      // An empty flush: nothing is sent, yet it counts as a success (the partition flag clears),
      // and the next sleep starts now.
      node.partitioned = false;
      node.anchor_us = env_.sim.now();
      return;
    }
    start_flush(node, FlushReason::kPeriod);
  }

  void write_metrics(nlohmann::ordered_json& out) const override {
    out["flushes"] = flushes_;
    out["urgent_flushes"] = urgent_flushes_;
    out["full_batch_flushes"] = full_batch_flushes_;
    out["flush_failures"] = flush_failures_;
    out["partitioned_periods"] = partitioned_periods_;
    out["partitioned_decisions"] = partitioned_decisions_;
    out["writes_flushed"] = writes_flushed_;
    out["writes_retried"] = writes_retried_;
    out["writes_dropped_on_failure"] = writes_dropped_on_failure_;
    out["writes_lost_on_stop"] = writes_lost_on_stop_;
    out["remote_increments_merged"] = remote_increments_merged_;
    out["remote_updates_dropped"] = remote_updates_dropped_;
    out["counter_overshoot_max"] = counter_overshoot_max_;
    out["evictions"] = evictions_;
    out["script_reloads"] = script_reloads_;
  }

  // The counters each process holds in its batcher, not yet flushed to Redis (the sync lag the
  // other processes cannot see), and the flushes so far.
  void write_live_state(nlohmann::ordered_json& out) const override {
    std::int64_t waiting = 0;
    for (const Node& node : nodes_) waiting += static_cast<std::int64_t>(node.batcher.size());
    out["counters_not_flushed"] = waiting;
    out["flushes"] = flushes_;
  }

 private:
  // The counter key around the request's value: key_for_counter's legacy text encoding,
  // namespace:{ns},counter:<Counter as JSON>, with the limit's JSON (namespace, seconds,
  // conditions, variables) as in key_for_counters_of_limit.
  struct KeyParts {
    std::string before_value;
    std::string after_value;
    std::string limit_key;
    std::string window_s;
  };

  static KeyParts key_parts(const Limit& limit) {
    const std::string variable = fmt::format("descriptors[0].{}", to_string(limit.key));
    const bool global = limit.key == LimitKey::kGlobal;
    const std::string limit_json =
        fmt::format(R"({{"namespace":"rlsim","seconds":{},"conditions":[{}],"variables":[{}]}})",
                    limit.window_us / kUsPerS,
                    nlohmann::json(fmt::format("descriptors[0].limit == '{}'", limit.name)).dump(),
                    global ? "" : nlohmann::json(variable).dump());
    KeyParts parts;
    parts.before_value =
        "namespace:{rlsim},counter:{\"limit\":" + limit_json + ",\"set_variables\":{";
    if (!global) parts.before_value += nlohmann::json(variable).dump() + ":";
    parts.after_value = "},\"remaining\":null,\"expires_in\":null}";
    parts.limit_key = "namespace:{rlsim},counters_of_limit:" + limit_json;
    parts.window_s = std::to_string(limit.window_us / kUsPerS);
    return parts;
  }

  std::string counter_key(std::size_t index, const Request& request) const {
    const LimitKey kind = env_.limits[index].key;
    std::string key = key_parts_[index].before_value;
    if (kind != LimitKey::kGlobal) {
      std::string text;
      env_.catalog.append_key_text(text, request, kind);
      key += nlohmann::json(text).dump();
    }
    key += key_parts_[index].after_value;
    return key;
  }

  TimeUs local_now(const Node& node) const { return node.instance->local_unix_us(env_.sim.now()); }

  // The cache's get: the cache, else the batcher (and into the cache); null when neither has it.
  CachedValue* lookup(Node& node, const std::string& key) {
    const auto it = node.values.find(key);
    if (it == node.values.end()) return nullptr;
    touch(node, it->first, it->second);
    return &it->second;
  }

  // Marks `value` most recently used in the cache, inserting it; evicts the least recently used
  // beyond max_cached (an evicted value in the batcher stays reachable through it).
  void touch(Node& node, const std::string& key, CachedValue& value) {
    if (value.in_cache) {
      node.lru.splice(node.lru.begin(), node.lru, value.lru);
      return;
    }
    node.lru.push_front(key);
    value.in_cache = true;
    value.lru = node.lru.begin();
    if (static_cast<std::int64_t>(node.lru.size()) <= params_.max_cached) return;
    const std::string evicted = node.lru.back();
    node.lru.pop_back();
    CachedValue& gone = node.values.at(evicted);
    gone.in_cache = false;
    ++evictions_;
    if (!gone.in_batcher) node.values.erase(evicted);
  }

  // CachedRedisStorage::check_and_update without loading counters (no rate-limit headers): the
  // cached counters first, the first one over its limit denies at once; an unseen counter counts 0
  // (denies only a limit of 0). Admitted: every counter + 1.
  Decision check_and_update(const Request& request, const Instance& instance) {
    Node& node = nodes_[instance.id];
    const TimeUs now_us = local_now(node);
    node.idle_failures = 0;
    if (node.partitioned) ++partitioned_decisions_;
    std::vector<std::string> keys;
    Decision decision;
    std::vector<std::size_t> not_cached;
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      keys.push_back(counter_key(i, request));
      const CachedValue* value = lookup(node, keys[i]);
      const std::int64_t hits = value != nullptr ? value->hits(now_us) : 0;
      if (i == 0) decision.observed_count = hits;
      if (value == nullptr) {
        not_cached.push_back(i);
      } else if (hits + 1 > env_.limits[i].limit) {
        decision.deny_for(i);
        return decision;
      }
    }
    for (std::size_t i : not_cached)
      if (env_.limits[i].limit == 0) decision.deny_for(i);
    if (!decision.allowed) return decision;
    for (std::size_t i = 0; i < env_.limits.size(); ++i) increase_by(node, keys[i], i, now_us);
    return decision;
  }

  // CountersCache::increase_by: the cached value (or a new one at 0, not from Redis) + 1, then
  // into the batcher; an unseen counter or one whose window ends within flush_period is urgent.
  void increase_by(Node& node, const std::string& key, std::size_t index, TimeUs now_us) {
    auto [it, created] = node.values.try_emplace(key);
    CachedValue& value = it->second;
    if (created) {
      value.limit = index;
      value.expires_at_us = now_us + env_.limits[index].window_us;
    }
    touch(node, it->first, value);
    value.add(1, env_.limits[index].window_us, now_us);
    if (!value.in_batcher) {
      value.in_batcher = true;
      node.batcher.push_back(key);
    }
    if (value.requires_fast_flush(params_.flush_period_us, now_us)) node.priority = true;
    notify(node);
  }

  // Batcher::batch_ready: batch_size counters pending, else the priority flag (taken).
  FlushReason batch_ready(Node& node) const {
    if (static_cast<std::int64_t>(node.batcher.size()) >= params_.batch_size)
      return FlushReason::kFull;
    if (!node.priority) return FlushReason::kNone;
    node.priority = false;
    return FlushReason::kUrgent;
  }

  // The batcher's notifier: a waiting flusher flushes now when the batch is ready, else sleeps on
  // to its next tick (flush_period after its sleep began, or a later multiple of it after empty
  // flushes).
  void notify(Node& node) {
    if (node.flushing) return;  // the flag waits for the next round
    const FlushReason reason = batch_ready(node);
    if (reason != FlushReason::kNone) {
      disarm(node);
      start_flush(node, reason);
      return;
    }
    if (node.tick_armed || node.idle_failures >= kMaxIdleFailures) return;
    const TimeUs now_us = env_.sim.now();
    const DurationUs period_us = params_.flush_period_us;
    arm(node, node.anchor_us + ((now_us - node.anchor_us) / period_us + 1) * period_us, kTick);
    node.tick_armed = true;
  }

  void arm(Node& node, TimeUs at_us, FlushEvent kind) {
    const std::uint64_t tag = ((node.generation & 0x7fffffffU) << 1) | kind;
    env_.sim.schedule(at_us, this, (std::uint64_t{node.instance->id} << 32) | tag);
  }
  void disarm(Node& node) {
    ++node.generation;
    node.tick_armed = false;
  }

  // The flusher's next round (Batcher::consume): flush at once when the batch is ready, else sleep
  // flush_period (armed lazily: only once the batcher has something).
  void next_round(Node& node) {
    node.anchor_us = env_.sim.now();
    for (;;) {
      const FlushReason reason = batch_ready(node);
      if (reason == FlushReason::kNone) break;
      if (!node.batcher.empty()) return start_flush(node, reason);
      node.partitioned = false;  // an empty batch: nothing sent, a success all the same
    }
    if (!node.batcher.empty() && node.idle_failures < kMaxIdleFailures) {
      arm(node, node.anchor_us + params_.flush_period_us, kTick);
      node.tick_armed = true;
    }
  }

  // Up to batch_size counters, those needing a fast flush first; each one's pending increments
  // are taken (pending_writes_and_value) and those with some are sent.
  void start_flush(Node& node, FlushReason reason) {
    const TimeUs now_us = local_now(node);
    node.flushing = true;
    node.batch.clear();
    node.sent.clear();
    const auto max = static_cast<std::size_t>(params_.batch_size);
    for (const bool fast : {true, false})
      for (const std::string& key : node.batcher) {
        if (node.batch.size() >= max) break;
        CachedValue& value = node.values.at(key);
        if (fast != value.requires_fast_flush(params_.flush_period_us, now_us)) continue;
        node.batch.push_back(key);
      }
    std::vector<std::string> keys_and_args;
    std::vector<std::string> args;
    for (const std::string& key : node.batch) {
      CachedValue& value = node.values.at(key);
      const auto [delta, at_value] = value.take_pending(now_us);
      if (delta <= 0) continue;
      node.sent.push_back(Sent{key, value.limit, at_value, delta});
      keys_and_args.push_back(key);
      keys_and_args.push_back(key_parts_[value.limit].limit_key);
      args.push_back(key_parts_[value.limit].window_s);
      args.push_back(std::to_string(delta));
    }
    const std::size_t numkeys = keys_and_args.size();
    keys_and_args.insert(keys_and_args.end(), args.begin(), args.end());
    ++flushes_;
    if (reason == FlushReason::kUrgent) ++urgent_flushes_;
    if (reason == FlushReason::kFull) ++full_batch_flushes_;
    disarm(node);
    arm(node, env_.sim.now() + params_.response_timeout_us, kTimeout);
    use_client(node.instance->id);
    flush_call(node.instance->id, node.generation, std::move(keys_and_args), numkeys)
        .start_detached(&LimitadorCached::call_done, this);
  }

  // The script call of one flush, as redis-rs's Script::invoke_async: EVALSHA, and after
  // NOSCRIPT a SCRIPT LOAD and EVALSHA again. Its reply is used unless the response timeout passed
  // first (which also stops the retry: the future is dropped).
  Task<bool> flush_call(std::uint32_t id, std::uint32_t generation,
                        std::vector<std::string> keys_and_args, std::size_t numkeys) {
    const auto current = [&] {
      const Node& node = nodes_[id];
      return node.active && node.flushing && node.generation == generation;
    };
    Command evalsha = script_command(keys_and_args, numkeys);
    Reply reply = std::move((co_await env_.redis.call(evalsha)).front());
    if (current() && reply.is_error() && !reply.timed_out && reply.text.starts_with("NOSCRIPT")) {
      ++script_reloads_;
      reply = std::move((co_await env_.redis.call(load_command())).front());
      if (current() && !reply.is_error())
        reply = std::move((co_await env_.redis.call(std::move(evalsha))).front());
    }
    if (!current()) co_return false;
    finish_flush(nodes_[id], &reply);
    co_return true;
  }
  Task<bool> load_script(std::uint32_t) {
    co_await env_.redis.call(load_command());
    co_return true;
  }
  static void call_done(void*, bool&&) {}

  Command script_command(const std::vector<std::string>& keys_and_args, std::size_t numkeys) const {
    Command argv{"EVALSHA", script_.sha(), std::to_string(numkeys)};
    argv.insert(argv.end(), keys_and_args.begin(), keys_and_args.end());
    return argv;
  }
  Command load_command() const { return command("SCRIPT", "LOAD", script_.text()); }

  void use_client(std::uint32_t id) {
    if (env_.deployment != nullptr)
      env_.deployment->set_current_client(id);
    else
      env_.redis.set_current_client(id);
  }

  // The reply, or null when the response timeout passed: the values and expiries merged, or the
  // increments returned for the next flush.
  void finish_flush(Node& node, const Reply* reply) {
    node.flushing = false;
    disarm(node);
    const bool ok = reply != nullptr && reply->type == Reply::Type::kArray &&
                    reply->elements.size() == 2 * node.sent.size() &&
                    std::all_of(reply->elements.begin(), reply->elements.end(), is_integer);
    if (ok) {
      flushed(node, *reply);
    } else {
      failed(node);
    }
    next_round(node);
  }

  // Success: counters with no new increments leave the batcher, then each counter's reply is
  // merged (apply_remote_delta) and the partition, if any, is over.
  void flushed(Node& node, const Reply& reply) {
    const TimeUs now_us = local_now(node);
    for (const std::string& key : node.batch) {
      CachedValue& value = node.values.at(key);
      if (!value.no_pending_writes(now_us)) continue;
      value.in_batcher = false;
      std::erase(node.batcher, key);
      if (!value.in_cache) node.values.erase(key);
    }
    for (std::size_t i = 0; i < node.sent.size(); ++i) {
      const Sent& sent = node.sent[i];
      const std::int64_t redis_value = reply.elements[2 * i].integer;
      const TimeUs expires_at_us = reply.elements[2 * i + 1].integer * kUsPerMs;
      writes_flushed_ += sent.delta;
      apply_remote_delta(node, sent, redis_value, expires_at_us, now_us);
    }
    node.partitioned = false;
  }

  // Others' increments (the Redis value minus the local value at the flush) added to the value
  // and to what Redis has, with Redis's expiry; dropped when that expiry has passed on this
  // instance's clock. A counter neither cached nor batched comes back with the Redis value and a
  // full window on the local clock.
  void apply_remote_delta(Node& node, const Sent& sent, std::int64_t redis_value,
                          TimeUs expires_at_us, TimeUs now_us) {
    if (expires_at_us <= now_us) {
      ++remote_updates_dropped_;
      return;
    }
    const std::int64_t remote = std::max<std::int64_t>(redis_value - sent.value, 0);
    auto [it, created] = node.values.try_emplace(sent.key);
    CachedValue& value = it->second;
    touch(node, it->first, value);
    if (created) {
      value.limit = sent.limit;
      value.value = value.initial = redis_value;
      value.expires_at_us = now_us + env_.limits[value.limit].window_us;
      value.from_authority = true;
      return;
    }
    value.expires_at_us = expires_at_us;
    value.value += remote;
    value.initial += remote;
    value.from_authority = true;
    remote_increments_merged_ += remote;
    counter_overshoot_max_ =
        std::max(counter_overshoot_max_, value.value - env_.limits[value.limit].limit);
  }

  // A transient error: the instance is partitioned and each sent counter's increments are
  // returned (revert_writes), which only works when Redis had part of the value before.
  void failed(Node& node) {
    ++flush_failures_;
    ++node.idle_failures;
    if (!node.partitioned) ++partitioned_periods_;
    node.partitioned = true;
    for (const Sent& sent : node.sent) {
      CachedValue& value = node.values.at(sent.key);  // a failed flush leaves the batcher as is
      if (value.initial > sent.delta) {
        value.initial -= sent.delta;
        writes_retried_ += sent.delta;
      } else {
        writes_dropped_on_failure_ += sent.delta;
      }
    }
  }

  StrategyEnv env_;
  LimitadorParams params_;
  Script script_;
  std::vector<KeyParts> key_parts_;  // per limit
  std::vector<Node> nodes_;          // by instance id
  std::uint64_t script_reloads_ = 0;
  std::int64_t flushes_ = 0;
  std::int64_t urgent_flushes_ = 0;
  std::int64_t full_batch_flushes_ = 0;
  std::int64_t flush_failures_ = 0;
  std::int64_t partitioned_periods_ = 0;
  std::int64_t partitioned_decisions_ = 0;
  std::int64_t writes_flushed_ = 0;
  std::int64_t writes_retried_ = 0;
  std::int64_t writes_dropped_on_failure_ = 0;
  std::int64_t writes_lost_on_stop_ = 0;
  std::int64_t remote_increments_merged_ = 0;
  std::int64_t remote_updates_dropped_ = 0;
  std::int64_t counter_overshoot_max_ = 0;
  std::int64_t evictions_ = 0;
};

// Limitador takes --flush-period and --response-timeout in whole milliseconds; 0 would make the
// flusher spin (it does not check), so rlsim asks for at least 1 ms.
bool check_limitador(const ParamReader& params, const std::string&, std::string& field,
                     std::string& error) {
  const LimitadorParams limitador = parse_limitador_params(params);
  for (const auto& [name, value_us] :
       {std::pair{"flush_period", limitador.flush_period_us},
        std::pair{"response_timeout", limitador.response_timeout_us}}) {
    if (value_us >= kUsPerMs && value_us % kUsPerMs == 0) continue;
    field = name;
    error = fmt::format(
        "expected a whole number of milliseconds, at least 1ms (Limitador's --{} is in ms), got "
        "{} us",
        name == std::string("flush_period") ? "flush-period" : "response-timeout", value_us);
    return false;
  }
  return true;
}

StrategyInfo declare_limitador_cached() {
  return StrategyInfo{
      "limitador_cached",
      "Kuadrant Limitador's redis_cached storage: decisions from a local cache, increments "
      "flushed in batches every flush_period, others' increments merged from the reply",
      "Models Kuadrant Limitador's cached Redis storage (limitador-server redis_cached) as "
      "limitador/src/storage/redis/redis_cached.rs, counters_cache.rs and scripts.rs implement "
      "it (Kuadrant/limitador master 2981b2bd, limitador 0.12.0-dev). Every decision comes from "
      "the instance's own cache and never waits for Redis: a request is limited when a cached "
      "counter's hits + 1 exceed the limit; a counter the cache has not seen counts 0 (so it is "
      "admitted) and is flushed urgently; an admitted request adds 1 to each counter and puts it "
      "in the batcher. A background flusher per instance sends up to batch_size counters' pending "
      "increments in one script (INCRBY, EXPIRE the window and register the counter when new, "
      "return the value and the expiry time; EVALSHA of the script each instance loads when it "
      "starts, after NOSCRIPT loaded again) every flush_period, at once after the current flush "
      "when a counter is unseen or its window ends within flush_period, or when batch_size "
      "counters are pending. The Redis value minus the local value at the flush is the other "
      "instances' increments, added to the cached value together with Redis's expiry (dropped "
      "when that expiry has already passed on the instance's clock). Windows start at a "
      "counter's first increment (local, then Redis's key). A flush that fails or gets no reply "
      "within response_timeout marks the instance partitioned (the product only logs it): it "
      "goes on limiting alone from its cache, its windows expiring on its own clock, and the "
      "increments are returned for the next flush, except those of a counter's first flush in a "
      "window (revert_writes cannot return them: they never reach Redis). An instance hears of "
      "the others only from its own flushes, which follow its own admissions, so N instances "
      "admit about the limit + N + the key's rate x flush_period per window; during an outage "
      "that spans a window's end, up to N x the limit. Simplified: the script's PEXPIRETIME is "
      "computed "
      "as TIME + PTTL and its SADD is an HSET (the embedded Redis has neither; the same values "
      "come back); one namespace (rlsim) whose counter keys follow key_for_counter's text "
      "encoding with one condition naming the limit; the cache is an LRU of max_cached (moka "
      "uses TinyLFU), the batcher's own bound of max_cached is not modelled, and the batch takes "
      "counters in the order they entered the batcher (Limitador's DashMap order is arbitrary); "
      "every Redis error counts as transient (Limitador panics on others); timers run on true "
      "time; the effective timeout is the smaller of response_timeout and the scenario's "
      "redis.timeout; no rate-limit headers. A flusher that failed 60 times with no decision in "
      "between waits for the next decision (a simulation bound, so a run ends).",
      {param("flush_period", ParamType::kDuration, "1s",
             "flush the pending increments this often (Limitador's --flush-period, ms)"),
       param("batch_size", ParamType::kInt, 100,
             "flush at once when this many counters are pending; at most this many per flush "
             "(--batch-size)"),
       param("max_cached", ParamType::kInt, 10000,
             "counters the cache keeps per instance; the least recently used are evicted "
             "(--max-cached)"),
       param("response_timeout", ParamType::kDuration, "350ms",
             "a flush with no reply by then fails (--response-timeout, ms)")},
      Algorithm::kFixedWindow,
      construct<LimitadorCached>,
      nullptr,
      check_limitador};
}

const StrategyRegistration kLimitadorCachedRegistration(250, declare_limitador_cached);

}  // namespace
}  // namespace rlsim
