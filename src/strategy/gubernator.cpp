// gubernator: Gubernator's GLOBAL behaviour (gubernator-io/gubernator v2.19.1, master 31822443:
// gubernator.go, global.go, algorithms.go, replicated_hash.go, interval.go, config.go), with every
// app instance one Gubernator peer and every limit sent with Behavior GLOBAL (docs/products.md):
//   - each key (the limit's name + "_" + the key text) has one owner, found on a consistent-hash
//     ring of the active peers (512 points a peer, FNV-1 64); the ring changes on every scale
//     event, and an instance that becomes owner starts from whatever its cache holds (a new
//     instance: nothing);
//   - every peer decides at once on its own cache (algorithms.go tokenBucket: a count of
//     `remaining` that resets when the item expires, a window starting at the first hit); the
//     owner on its own state, a non-owner on the copy the owner last broadcast (or a new window of
//     its own when it has none or it expired);
//   - a non-owner queues the hit (allowed or not) and sends the summed hits per key to the owner
//     every global_sync_wait or when global_batch_limit keys are pending (runAsyncHits); the owner
//     applies them with DRAIN_OVER_LIMIT and queues a broadcast of the key's status to every other
//     peer on the same kind of timer (runBroadcasts), which overwrites their copies;
//   - each loop waits for its sends (GlobalTimeout when a peer does not answer) before it goes on;
//     failed sends are lost, never retried.
// The peers' calls cross the simulated network between instances (world/peer_links.h): a
// peer_partition fault drops them.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "core/sha1.h"
#include "strategy/registry.h"

namespace rlsim {
namespace {

enum class PickerHash { kFnv1, kFnv1a };

struct GubernatorParams {
  DurationUs global_sync_wait_us = 100 * kUsPerMs;
  std::int64_t global_batch_limit = 1000;
  DurationUs global_timeout_us = 500 * kUsPerMs;
  std::int64_t replicas = 512;
  PickerHash hash = PickerHash::kFnv1;
  DurationUs peer_rtt_us = kUsPerMs;
};

GubernatorParams parse_gubernator_params(const ParamReader& params) {
  return GubernatorParams{
      params.duration_us("global_sync_wait"),
      params.integer("global_batch_limit"),
      params.duration_us("global_timeout"),
      params.integer("replicas"),
      params.choice<PickerHash>("peer_picker_hash",
                                {{"fnv1", PickerHash::kFnv1}, {"fnv1a", PickerHash::kFnv1a}}),
      params.duration_us("peer_rtt")};
}

// gubernator.go maxBatchSize: an owner rejects a GetPeerRateLimits call with more requests.
constexpr std::size_t kMaxBatchSize = 1000;

// FNV-1 or FNV-1a, 64 bits (segmentio/fasthash fnv1 / fnv1a HashString64, the ring's hash).
// FNV-1 ends with an XOR of the last byte, so keys that differ only in their last one or two
// characters hash close together and land on the same peer.
std::uint64_t fnv_64(std::string_view text, PickerHash kind) {
  constexpr std::uint64_t kPrime = 1099511628211ULL;
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : text) {
    if (kind == PickerHash::kFnv1) hash *= kPrime;
    hash ^= static_cast<unsigned char>(c);
    if (kind == PickerHash::kFnv1a) hash *= kPrime;
  }
  return hash;
}

// A cached rate limit (algorithms.go TokenBucketItem in a CacheItem).
struct Item {
  bool over = false;  // Status OVER_LIMIT, stored when a hit found nothing remaining
  std::int64_t limit = 0;
  std::int64_t remaining = 0;
  std::int64_t expire_at_ms = 0;  // the reset time, on the clock of whoever made the item
};

// What tokenBucket answered.
struct Verdict {
  bool over = false;
  std::int64_t remaining_before = 0;
};

// Hits summed for one key (runAsyncHits), or a key whose status is due (runBroadcasts).
struct Queued {
  std::int64_t hits = 0;
  std::int64_t created_at_ms =
      0;                  // the request's CreatedAt: the first queued hit's, the last update's
  std::size_t limit = 0;  // index in env.limits
};

// One of a peer's two loops: the pending map, its one-shot Interval, and whether it is waiting
// for its sends (then hits pile up and a tick waits, as in the Go select).
struct Loop {
  std::map<std::string, Queued> pending;  // ordered: a send's order is deterministic
  bool interval_armed = false;
  bool tick_waiting = false;
  bool busy = false;
};

struct Peer {
  const Instance* instance = nullptr;  // null until started
  bool active = false;
  std::unordered_map<std::string, Item> cache;
  Loop hits;
  Loop updates;
};

// A key's status as broadcast (UpdatePeerGlobal).
struct Global {
  std::string key;
  Item status;
};

// A call on the wire between two peers: GetPeerRateLimits (hits) or UpdatePeerGlobals (globals).
struct Message {
  std::uint32_t from = 0;
  std::uint32_t to = 0;
  std::vector<std::pair<std::string, Queued>> hits;
  std::vector<Global> globals;
};

enum EventKind : std::uint64_t {
  kHitsTick,
  kUpdatesTick,
  kHitsFree,
  kUpdatesFree,
  kDeliverHits,
  kDeliverGlobals
};
constexpr int kKindShift = 56;

class Gubernator final : public Strategy, public EventTarget {
 public:
  explicit Gubernator(StrategyEnv env)
      : env_(std::move(env)), params_(parse_gubernator_params(ParamReader(env_.params))) {}

  Task<Decision> decide(Request request, const Instance& instance) override {
    co_return decide_now(request, instance);
  }

  void on_instance_start(const Instance& instance) override {
    if (peers_.size() <= instance.id) peers_.resize(instance.id + 1);
    peers_[instance.id] = Peer{&instance, true, {}, {}, {}};
    rebuild_ring();
  }
  void on_instance_stop(const Instance& instance) override {
    Peer& peer = peers_[instance.id];
    for (const auto& [key, queued] : peer.hits.pending) hits_lost_ += queued.hits;
    peer = Peer{&instance, false, {}, {}, {}};  // the process is gone, its cache and queues too
    rebuild_ring();
  }

  void on_event(std::uint64_t arg) override {
    const auto kind = static_cast<EventKind>(arg >> kKindShift);
    const std::uint64_t value = arg & ((std::uint64_t{1} << kKindShift) - 1);
    if (kind == kDeliverHits || kind == kDeliverGlobals) {
      deliver(static_cast<std::size_t>(value));
      return;
    }
    Peer& peer = peers_[value];
    if (!peer.active) return;
    const bool hits = kind == kHitsTick || kind == kHitsFree;
    Loop& loop = hits ? peer.hits : peer.updates;
    if (kind == kHitsTick || kind == kUpdatesTick) {
      loop.interval_armed = false;
      if (loop.busy) {
        loop.tick_waiting = true;
      } else if (!loop.pending.empty()) {
        send(static_cast<std::uint32_t>(value), hits);
      }
      return;
    }
    loop.busy = false;
    after_send(static_cast<std::uint32_t>(value), hits);
  }

  void write_metrics(nlohmann::ordered_json& out) const override {
    out["owner_decisions"] = owner_decisions_;
    out["cached_decisions"] = cached_decisions_;
    out["peer_new_windows"] = peer_new_windows_;
    out["hits_sent"] = hits_sent_;
    out["hits_applied"] = hits_applied_;
    out["hits_lost"] = hits_lost_;
    out["hit_sends"] = hit_sends_;
    out["hit_send_errors"] = hit_send_errors_;
    out["broadcasts"] = broadcasts_;
    out["broadcast_messages"] = broadcast_messages_;
    out["broadcast_errors"] = broadcast_errors_;
    out["ownership_changes"] = ownership_changes_;
  }

 private:
  struct RingPoint {
    std::uint64_t hash = 0;
    std::uint32_t id = 0;
  };

  std::int64_t now_ms(const Peer& peer) const {
    return peer.instance->local_unix_us(env_.sim.now()) / kUsPerMs;
  }

  // GetRateLimits with GLOBAL: the owner applies the hit to its own state and queues a broadcast;
  // a non-owner applies it to its cached copy (getGlobalRateLimit) and queues the hit.
  Decision decide_now(const Request& request, const Instance& instance) {
    if (owners_stale_) count_ownership_changes();
    Peer& peer = peers_[instance.id];
    const std::int64_t now = now_ms(peer);
    Decision decision;
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      std::string key = env_.limits[i].name + "_";
      env_.catalog.append_key_text(key, request, env_.limits[i].key);
      const std::uint32_t owner = owner_of(key);
      owners_.try_emplace(key, owner);
      const bool is_owner = owner == instance.id;
      if (!is_owner && !valid_item(peer, key, now)) ++peer_new_windows_;
      const Verdict verdict = token_bucket(peer, key, i, 1, now, now, false);
      if (verdict.over) decision.deny_for(i);
      if (i == 0) decision.observed_count = env_.limits[i].limit - verdict.remaining_before;
      ++(is_owner ? owner_decisions_ : cached_decisions_);
      queue(instance.id, is_owner ? peer.updates : peer.hits, key, i, now, is_owner);
    }
    return decision;
  }

  // The cache's item for `key` unless it expired (LRUCache.GetItem drops an expired item).
  Item* valid_item(Peer& peer, const std::string& key, std::int64_t now) {
    const auto found = peer.cache.find(key);
    if (found == peer.cache.end()) return nullptr;
    if (found->second.expire_at_ms < now) {
      peer.cache.erase(found);
      return nullptr;
    }
    return &found->second;
  }

  // algorithms.go tokenBucket for `hits` hits (0: read the status), created at `created_ms`.
  Verdict token_bucket(Peer& peer, const std::string& key, std::size_t index, std::int64_t hits,
                       std::int64_t created_ms, std::int64_t now, bool drain) {
    const Limit& limit = env_.limits[index];
    Item* item = valid_item(peer, key, now);
    if (item == nullptr) {  // tokenBucketNewItem: a window from this request's CreatedAt
      Item fresh{false, limit.limit, limit.limit - hits, created_ms + limit.window_us / kUsPerMs};
      const bool over = hits > limit.limit;  // then nothing is taken at all
      if (over) fresh.remaining = limit.limit;
      peer.cache[key] = fresh;
      return {over, limit.limit};
    }
    const Verdict before{item->over, item->remaining};
    if (hits == 0) return before;
    if (item->remaining == 0) {
      item->over = true;
      return {true, 0};
    }
    if (hits == item->remaining) {
      item->remaining = 0;
      return before;
    }
    if (hits > item->remaining) {  // over, and nothing taken unless DRAIN_OVER_LIMIT
      if (drain) item->remaining = 0;
      return {true, before.remaining_before};
    }
    item->remaining -= hits;
    return before;
  }

  // QueueHit / QueueUpdate: into the loop's map (hits summed, an update's CreatedAt replaced),
  // then a send at the batch limit or the Interval started by the first pending key.
  void queue(std::uint32_t id, Loop& loop, const std::string& key, std::size_t index,
             std::int64_t created_ms, bool update) {
    auto [entry, inserted] = loop.pending.try_emplace(key, Queued{0, created_ms, index});
    if (update) entry->second.created_at_ms = created_ms;
    ++entry->second.hits;
    if (loop.busy) return;  // in the channel until the loop is back
    if (loop.pending.size() >= static_cast<std::size_t>(params_.global_batch_limit)) {
      send(id, !update);
    } else if (loop.pending.size() == 1) {
      arm(id, loop, update);
    }
  }

  void arm(std::uint32_t id, Loop& loop, bool update) {
    if (loop.interval_armed) return;  // Interval.Next while sleeping: no second tick here
    loop.interval_armed = true;
    schedule(env_.sim.now() + params_.global_sync_wait_us, update ? kUpdatesTick : kHitsTick, id);
  }

  // The loop is free again: what piled up meanwhile is sent now (a tick came), at the batch
  // limit, or after a new Interval.
  void after_send(std::uint32_t id, bool hits) {
    Loop& loop = hits ? peers_[id].hits : peers_[id].updates;
    const bool tick = std::exchange(loop.tick_waiting, false);
    if (loop.pending.empty()) return;
    if (tick || loop.pending.size() >= static_cast<std::size_t>(params_.global_batch_limit))
      send(id, hits);
    else
      arm(id, loop, !hits);
  }

  void send(std::uint32_t id, bool hits) {
    Loop& loop = hits ? peers_[id].hits : peers_[id].updates;
    std::map<std::string, Queued> batch;
    batch.swap(loop.pending);
    const TimeUs done_us = hits ? send_hits(id, batch) : broadcast(id, batch);
    loop.busy = true;
    schedule(done_us, hits ? kHitsFree : kUpdatesFree, id);
  }

  // sendHits: one GetPeerRateLimits per owner (the ring of now), all at once; returns when the
  // last one ends (its reply, or GlobalTimeout when the link is cut).
  TimeUs send_hits(std::uint32_t id, const std::map<std::string, Queued>& batch) {
    std::map<std::uint32_t, Message> by_owner;
    for (const auto& [key, queued] : batch) {
      Message& message = by_owner[owner_of(key)];
      message.hits.emplace_back(key, queued);
      hits_sent_ += queued.hits;
    }
    TimeUs done_us = env_.sim.now();
    for (auto& [owner, message] : by_owner) {
      message.from = id;
      message.to = owner;
      ++hit_sends_;
      done_us = std::max(done_us, post(std::move(message), kDeliverHits));
    }
    return done_us;
  }

  // broadcastPeers: each key's status now (a read with no hits, which starts a new window when
  // the item expired), sent to every other active peer at once.
  TimeUs broadcast(std::uint32_t id, const std::map<std::string, Queued>& batch) {
    Peer& owner = peers_[id];
    const std::int64_t now = now_ms(owner);
    std::vector<Global> globals;
    for (const auto& [key, queued] : batch) {
      token_bucket(owner, key, queued.limit, 0, queued.created_at_ms, now, false);
      globals.push_back(Global{key, owner.cache.at(key)});
    }
    ++broadcasts_;
    TimeUs done_us = env_.sim.now();
    for (std::uint32_t to = 0; to < peers_.size(); ++to) {
      if (to == id || !peers_[to].active) continue;
      ++broadcast_messages_;
      done_us = std::max(done_us, post(Message{id, to, {}, globals}, kDeliverGlobals));
    }
    return done_us;
  }

  // Puts `message` on the wire; returns when its sender stops waiting for it.
  TimeUs post(Message message, EventKind kind) {
    const TimeUs now_us = env_.sim.now();
    if (link_cut(message.from, message.to)) {
      lose(message);
      return now_us + params_.global_timeout_us;
    }
    std::size_t slot = messages_.size();
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
    } else {
      messages_.emplace_back();
    }
    messages_[slot] = std::move(message);
    schedule(now_us + params_.peer_rtt_us / 2, kind, slot);
    return now_us + params_.peer_rtt_us;
  }

  // The receiving end: GetPeerRateLimits applies the hits as owner (GLOBAL forwarded hits get
  // DRAIN_OVER_LIMIT) and queues their broadcast; UpdatePeerGlobals overwrites the copies.
  void deliver(std::size_t slot) {
    Message message = std::move(messages_[slot]);
    free_slots_.push_back(slot);
    Peer& to = peers_[message.to];
    if (!to.active || link_cut(message.from, message.to) || message.hits.size() > kMaxBatchSize) {
      lose(message);
      return;
    }
    const std::int64_t now = now_ms(to);
    for (const auto& [key, queued] : message.hits) {
      token_bucket(to, key, queued.limit, queued.hits, queued.created_at_ms, now, true);
      hits_applied_ += queued.hits;
      queue(message.to, to.updates, key, queued.limit, queued.created_at_ms, true);
    }
    for (Global& global : message.globals) to.cache[global.key] = global.status;
  }

  void lose(const Message& message) {
    if (!message.globals.empty()) {
      ++broadcast_errors_;
      return;
    }
    ++hit_send_errors_;
    for (const auto& [key, queued] : message.hits) hits_lost_ += queued.hits;
  }

  bool link_cut(std::uint32_t from, std::uint32_t to) const {
    return env_.deployment != nullptr && env_.deployment->peer_links().cut(from, to);
  }

  void schedule(TimeUs at_us, EventKind kind, std::uint64_t value) {
    env_.sim.schedule(at_us, this, (std::uint64_t{kind} << kKindShift) | value);
  }

  // ReplicatedConsistentHash over the active peers: `replicas` points each, at the hash of the
  // replica number and a hex digest of the peer's address (md5 in Gubernator, SHA-1 here: the
  // addresses are made up anyway).
  void rebuild_ring() {
    ring_.clear();
    for (std::uint32_t id = 0; id < peers_.size(); ++id) {
      if (!peers_[id].active) continue;
      const std::string digest = sha1_hex(fmt::format("instance-{}:1051", id));
      for (std::int64_t i = 0; i < params_.replicas; ++i)
        ring_.push_back(RingPoint{fnv_64(std::to_string(i) + digest, params_.hash), id});
    }
    std::sort(ring_.begin(), ring_.end(), [](const RingPoint& a, const RingPoint& b) {
      return a.hash != b.hash ? a.hash < b.hash : a.id < b.id;
    });
    owners_stale_ = true;
  }

  // After a scale step (all its starts or stops at one instant): the keys seen so far whose
  // owner moved.
  void count_ownership_changes() {
    owners_stale_ = false;
    for (auto& [key, owner] : owners_) {
      const std::uint32_t now_owner = owner_of(key);
      if (now_owner != owner) ++ownership_changes_;
      owner = now_owner;
    }
  }

  // ReplicatedConsistentHash.Get: the first point at or after the key's hash, wrapping around.
  std::uint32_t owner_of(const std::string& key) const {
    RLSIM_CHECK(!ring_.empty());
    const std::uint64_t hash = fnv_64(key, params_.hash);
    const auto at =
        std::lower_bound(ring_.begin(), ring_.end(), hash,
                         [](const RingPoint& p, std::uint64_t h) { return p.hash < h; });
    return at == ring_.end() ? ring_.front().id : at->id;
  }

  StrategyEnv env_;
  GubernatorParams params_;
  std::vector<Peer> peers_;  // by instance id
  std::vector<RingPoint> ring_;
  // Every key decided so far and its owner (memory grows with the keys, not the requests).
  std::map<std::string, std::uint32_t> owners_;
  bool owners_stale_ = false;      // the ring changed since owners_ was checked
  std::vector<Message> messages_;  // calls on the wire, at most two loops' sends per peer
  std::vector<std::size_t> free_slots_;
  std::int64_t owner_decisions_ = 0;
  std::int64_t cached_decisions_ = 0;
  std::int64_t peer_new_windows_ = 0;
  std::int64_t hits_sent_ = 0;
  std::int64_t hits_applied_ = 0;
  std::int64_t hits_lost_ = 0;
  std::int64_t hit_sends_ = 0;
  std::int64_t hit_send_errors_ = 0;
  std::int64_t broadcasts_ = 0;
  std::int64_t broadcast_messages_ = 0;
  std::int64_t broadcast_errors_ = 0;
  std::int64_t ownership_changes_ = 0;
};

bool check_gubernator(const ParamReader& params, const std::string&, std::string& field,
                      std::string& error) {
  const GubernatorParams p = parse_gubernator_params(params);
  if (p.peer_rtt_us <= 0 || p.peer_rtt_us >= p.global_timeout_us) {
    field = "peer_rtt";
    error = fmt::format("expected more than 0 and less than global_timeout ({} us), got {} us",
                        p.global_timeout_us, p.peer_rtt_us);
    return false;
  }
  if (p.global_sync_wait_us <= 0) {
    field = "global_sync_wait";
    error = "expected a duration above 0";
    return false;
  }
  return true;
}

StrategyInfo declare_gubernator() {
  return StrategyInfo{
      "gubernator",
      "Gubernator's GLOBAL behaviour: every peer decides on its cached copy, non-owners send the "
      "summed hits to the key's owner and the owner broadcasts its status, every global_sync_wait",
      "Models Gubernator's GLOBAL behaviour as gubernator.go, global.go, algorithms.go, "
      "replicated_hash.go and interval.go implement it (gubernator-io/gubernator v2.19.1, "
      "master 31822443). Every app instance is a Gubernator peer and every scenario limit a "
      "rate limit with Behavior GLOBAL and the default algorithm TOKEN_BUCKET, which is a fixed "
      "window: `remaining` starts at the limit when a key's item is made (at the first hit) and "
      "the item expires at created_at + duration, on the clock of whoever made it. Each key "
      "(name_uniquekey) has one owner on a consistent-hash ring of the active instances "
      "(replicas points each, FNV-1 64 by default, which puts keys that differ only in their last "
      "characters on the same peer); the ring changes at every scale event, and an "
      "instance that becomes owner goes on from whatever its cache holds (a new instance: "
      "nothing, so a new window). Every peer answers at once from its own cache: the owner on "
      "its state, a non-owner on the copy the owner last broadcast, or on a new window of its "
      "own when it has none or it expired. A non-owner queues every hit (denied ones too) and "
      "sends them, summed per key, to the owner global_sync_wait after the first pending key "
      "or at once when global_batch_limit keys are pending; the owner applies them with "
      "DRAIN_OVER_LIMIT (a sum above the remaining empties it; on a key without an item a sum "
      "above the limit is refused whole) and queues the key for a broadcast, sent on the same "
      "kind of timer to every other peer, whose copies it overwrites. Each loop waits for all "
      "its calls before it goes on: GlobalTimeout (global_timeout) when a peer is cut off by a "
      "peer_partition fault, so one unreachable peer slows every broadcast. Failed calls are "
      "lost, never retried, and so are the hits a stopped instance had queued. Calls take "
      "peer_rtt (a model parameter, half each way). Simplified: the peer list changes on every "
      "instance at the same moment (Gubernator learns it from etcd, Kubernetes or memberlist); "
      "the ring hashes each made-up address with SHA-1 where Gubernator uses md5; the queues' "
      "channel capacity (callers wait when it is full) and the cache size (50,000 LRU items) "
      "are not modelled; no LEAKY_BUCKET, RESET_REMAINING or Gregorian durations; only the "
      "GLOBAL behaviour (the default BATCHING forwards each request to the owner).",
      {param("global_sync_wait", ParamType::kDuration, "100ms",
             "how long hits and broadcasts wait to be batched (GUBER_GLOBAL_SYNC_WAIT)"),
       param("global_batch_limit", ParamType::kInt, 1000,
             "pending keys that trigger a send at once (GUBER_GLOBAL_BATCH_LIMIT); an owner "
             "refuses a call of more than 1000 keys"),
       param("global_timeout", ParamType::kDuration, "500ms",
             "how long a send waits for a peer (GUBER_GLOBAL_TIMEOUT)"),
       param("replicas", ParamType::kInt, 512,
             "points per peer on the consistent-hash ring (GUBER_REPLICATED_HASH_REPLICAS)"),
       ParamSpec{"peer_picker_hash",
                 ParamType::kEnum,
                 "fnv1",
                 "the ring's hash: fnv1 (the default picker's) or fnv1a (GUBER_PEER_PICKER_HASH's "
                 "default with GUBER_PEER_PICKER=replicated-hash)",
                 {"fnv1", "fnv1a"},
                 false},
       param("peer_rtt", ParamType::kDuration, "1ms",
             "round trip of a call between two peers (model parameter, not Gubernator's)")},
      Algorithm::kFixedWindow,
      construct<Gubernator>,
      nullptr,
      check_gubernator};
}

const StrategyRegistration kGubernatorRegistration(270, declare_gubernator);

}  // namespace
}  // namespace rlsim
