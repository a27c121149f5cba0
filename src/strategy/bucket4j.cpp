// bucket4j: Bucket4j's distributed bucket on Redis through a compare-and-swap proxy manager
// (bucket4j/bucket4j 8.19.0, master 731354a7; docs/products.md), as its source implements it:
//   AbstractCompareAndSwapBasedProxyManager: GET the bucket's state, run the command (tryConsume)
//     on it with the application node's own clock, and write it back with a Lua compare-and-swap
//     (LuaScripts: GET == old then PSETEX / SET; SET NX for a new bucket), retried on conflict
//     without a bound unless max_retries is set; a command that changes nothing writes nothing.
//   BucketState64BitsInteger: per bandwidth {last refill ns, tokens, rounding error}, greedy or
//     intervally refill in integer arithmetic; a clock reading at or before the stored last refill
//     refills nothing.
//   Optimizations.batching(): one operation in flight per node and bucket, the requests arriving
//     meanwhile executed together as the next one.
//   Optimizations.delaying(DelayParameters): batching, plus serving from the last snapshot
//     locally until max_unsynchronized_tokens are consumed or max_timeout_between_synchronization
//     has passed; the sync consumes the postponed tokens ignoring the limit.
// The state is modelled as text (its fields in decimal), not Bucket4j's binary serialization.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <coroutine>
#include <deque>
#include <unordered_map>

#include "strategy/registry.h"
#include "strategy/reply_check.h"

namespace rlsim {
namespace {

constexpr std::int64_t kNsPerMs = 1'000'000;
constexpr std::int64_t kNsPerUs = 1'000;
// Bucket4j retries a conflicting CAS without a bound by default; rlsim stops after this many
// attempts and fails the request (counted in cas_gave_up), so that a run always ends.
constexpr std::int64_t kSafetyAttempts = 1000;

// The Lua scripts bucket4j-redis sends with EVAL (LuaScripts.java), exactly as sent.
constexpr const char* kSetNxPx =
    "if redis.call('set', KEYS[1], ARGV[1], 'nx', 'px', ARGV[2]) then return 1; else return 0; "
    "end";
constexpr const char* kSetNx =
    "if redis.call('set', KEYS[1], ARGV[1], 'nx') then return 1; else return 0; end";
constexpr const char* kCompareAndSwapPx =
    "if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('psetex', KEYS[1], ARGV[3], "
    "ARGV[2]); return 1; else return 0; end";
constexpr const char* kCompareAndSwap =
    "if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('set', KEYS[1], ARGV[2]); return 1; "
    "else return 0; end";

enum class RefillKind { kGreedy, kIntervally };
enum class OptimizationKind { kNone, kBatching, kDelaying };
enum class ExpirationKind { kNone, kRefillUpToMax, kFixedTtl };

struct Bucket4jParams {
  std::optional<std::int64_t> capacity;        // nullopt: each limit's limit
  std::optional<std::int64_t> refill_tokens;   // nullopt: each limit's limit
  std::optional<DurationUs> refill_period_us;  // nullopt: each limit's window
  RefillKind refill = RefillKind::kGreedy;
  OptimizationKind optimization = OptimizationKind::kNone;
  std::optional<std::int64_t> max_unsynchronized_tokens;
  std::optional<DurationUs> max_timeout_between_synchronization_us;
  ExpirationKind expiration = ExpirationKind::kNone;
  std::optional<DurationUs> keep_after_refill_duration_us;
  std::optional<DurationUs> time_to_live_us;
  std::optional<std::int64_t> max_retries;  // nullopt: unbounded (rlsim's safety cap)
};

Bucket4jParams parse_bucket4j_params(const ParamReader& params) {
  Bucket4jParams out;
  out.capacity = params.optional_integer("capacity");
  out.refill_tokens = params.optional_integer("refill_tokens");
  out.refill_period_us = params.optional_duration_us("refill_period");
  out.refill = params.choice<RefillKind>(
      "refill", {{"greedy", RefillKind::kGreedy}, {"intervally", RefillKind::kIntervally}});
  out.optimization =
      params.choice<OptimizationKind>("optimization", {{"none", OptimizationKind::kNone},
                                                       {"batching", OptimizationKind::kBatching},
                                                       {"delaying", OptimizationKind::kDelaying}});
  out.max_unsynchronized_tokens = params.optional_integer("max_unsynchronized_tokens");
  out.max_timeout_between_synchronization_us =
      params.optional_duration_us("max_timeout_between_synchronization");
  out.expiration = params.choice<ExpirationKind>(
      "expiration",
      {{"none", ExpirationKind::kNone},
       {"based_on_time_for_refilling_bucket_up_to_max", ExpirationKind::kRefillUpToMax},
       {"fixed_time_to_live", ExpirationKind::kFixedTtl}});
  out.keep_after_refill_duration_us = params.optional_duration_us("keep_after_refill_duration");
  out.time_to_live_us = params.optional_duration_us("time_to_live");
  out.max_retries = params.optional_integer("max_retries");
  return out;
}

// One bandwidth (Bandwidth.java) of a limit's bucket.
struct Bandwidth {
  std::int64_t capacity = 0;
  std::int64_t refill_tokens = 0;
  std::int64_t refill_period_ns = 0;
  bool intervally = false;
};

Bandwidth bandwidth_of(const Bucket4jParams& params, const Limit& limit) {
  return Bandwidth{params.capacity.value_or(limit.limit),
                   params.refill_tokens.value_or(limit.limit),
                   params.refill_period_us.value_or(limit.window_us) * kNsPerUs,
                   params.refill == RefillKind::kIntervally};
}

// Bucket4j's multiplyExactOrReturnMaxValue.
std::int64_t multiply_or_max(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? INT64_MAX : product;
}

// BucketState64BitsInteger's three longs of one bandwidth, and RemoteStat's consumed tokens.
struct BucketState {
  std::int64_t last_refill_ns = 0;
  std::int64_t tokens = 0;
  std::int64_t rounding_error = 0;
  std::int64_t consumed = 0;

  static BucketState initial(const Bandwidth& band, std::int64_t now_ns) {
    return BucketState{now_ns, band.capacity, 0, 0};  // initial tokens = capacity
  }
  std::string encode() const {
    return fmt::format("{} {} {} {}", last_refill_ns, tokens, rounding_error, consumed);
  }
  static std::optional<BucketState> decode(const std::string& text) {
    BucketState state;
    const char* at = text.data();
    const char* end = text.data() + text.size();
    for (std::int64_t* field :
         {&state.last_refill_ns, &state.tokens, &state.rounding_error, &state.consumed}) {
      if (at < end && *at == ' ' && field != &state.last_refill_ns) ++at;
      const auto [next, ec] = std::from_chars(at, end, *field);
      if (ec != std::errc()) return std::nullopt;
      at = next;
    }
    if (at != end) return std::nullopt;
    return state;
  }
  void take(std::int64_t count) {  // consume(): tokens may go negative
    tokens -= count;
    consumed += count;
  }

  // BucketState64BitsInteger.refill, one bandwidth.
  void refill(const Bandwidth& band, std::int64_t now_ns) {
    if (now_ns <= last_refill_ns) return;  // a clock behind the last refill adds nothing
    if (band.intervally) now_ns -= (now_ns - last_refill_ns) % band.refill_period_ns;
    if (now_ns <= last_refill_ns) return;
    std::int64_t elapsed_ns = now_ns - last_refill_ns;
    last_refill_ns = now_ns;
    if (tokens >= band.capacity) return;
    std::int64_t size = tokens;
    if (elapsed_ns > band.refill_period_ns) {
      size += elapsed_ns / band.refill_period_ns * band.refill_tokens;
      if (size > band.capacity) return reset(band);
      elapsed_ns %= band.refill_period_ns;
    }
    const std::int64_t scaled = multiply_or_max(band.refill_tokens, elapsed_ns);
    const std::int64_t divided = scaled + rounding_error;
    if (divided < 0 || scaled == INT64_MAX) {  // overflow: Bucket4j goes to doubles
      size += static_cast<std::int64_t>(static_cast<double>(elapsed_ns) /
                                        static_cast<double>(band.refill_period_ns) *
                                        static_cast<double>(band.refill_tokens));
      rounding_error = 0;
    } else {
      size += divided / band.refill_period_ns;
      rounding_error = divided % band.refill_period_ns;
    }
    if (size >= band.capacity) return reset(band);
    tokens = size;
  }
  void reset(const Bandwidth& band) {
    tokens = band.capacity;
    rounding_error = 0;
  }

  // calculateFullRefillingTime: nanoseconds until the bucket is full again.
  std::int64_t full_refill_ns(const Bandwidth& band, std::int64_t now_ns) const {
    if (tokens >= band.capacity) return 0;
    const std::int64_t deficit = band.capacity - tokens;
    if (!band.intervally) {
      const std::int64_t scaled = multiply_or_max(band.refill_period_ns, deficit);
      if (scaled == INT64_MAX)
        return static_cast<std::int64_t>(static_cast<double>(deficit) / band.refill_tokens *
                                         static_cast<double>(band.refill_period_ns));
      return (scaled - rounding_error) / band.refill_tokens;
    }
    const std::int64_t wait_ns = last_refill_ns + band.refill_period_ns - now_ns;
    if (deficit <= band.refill_tokens) return wait_ns;
    const std::int64_t rest = deficit - band.refill_tokens;
    if (rest < band.refill_tokens) return wait_ns + band.refill_period_ns;
    const std::int64_t periods =
        rest / band.refill_tokens + (rest % band.refill_tokens == 0 ? 0 : 1);
    const std::int64_t rest_ns = multiply_or_max(periods, band.refill_period_ns);
    return rest_ns == INT64_MAX ? INT64_MAX : rest_ns + wait_ns;
  }
};

// Conflicts per operation by how many operations were in flight on the same Redis key (every
// node) when it started, itself included: the hot-key cost. Bands 1, 2-3, 4-7, 8-15, 16-31, 32+.
constexpr std::size_t kConcurrencyBands = 6;
std::size_t concurrency_band(std::int64_t in_flight) {
  std::size_t band = 0;
  while (band + 1 < kConcurrencyBands && in_flight >= (std::int64_t{2} << band)) ++band;
  return band;
}

double round4(double value) { return std::round(value * 10000.0) / 10000.0; }

// Command argvs, built outside the coroutines (GCC 12 and braced lists in coroutines).
Command get_command(const std::string& key) { return command("GET", key); }
Command swap_command(const std::string& key, const std::optional<std::string>& old_state,
                     const std::string& new_state, std::int64_t ttl_ms) {
  if (ttl_ms > 0) {
    const std::string ttl = std::to_string(ttl_ms);
    if (!old_state) return command("EVAL", kSetNxPx, "1", key, new_state, ttl);
    return command("EVAL", kCompareAndSwapPx, "1", key, *old_state, new_state, ttl);
  }
  if (!old_state) return command("EVAL", kSetNx, "1", key, new_state);
  return command("EVAL", kCompareAndSwap, "1", key, *old_state, new_state);
}

class Bucket4j final : public Strategy {
 public:
  explicit Bucket4j(StrategyEnv env)
      : env_(std::move(env)),
        params_(parse_bucket4j_params(ParamReader(env_.params))),
        prefixes_(redis_key_prefixes(env_.limits)) {
    for (const Limit& limit : env_.limits) bands_.push_back(bandwidth_of(params_, limit));
    max_attempts_ = params_.max_retries.value_or(kSafetyAttempts);
  }

  Task<Decision> decide(Request request, const Instance& instance) override {
    Decision decision;
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      std::string key = prefixes_[i];
      env_.catalog.append_key_text(key, request, env_.limits[i].key);
      Outcome outcome = Outcome::kDenied;
      if (params_.optimization == OptimizationKind::kNone) {
        outcome = to_outcome(co_await remote(key, i, instance, 1, 0), 0);
      } else {
        const std::uint64_t key_id = Catalog::key_id(request, env_.limits[i].key);
        outcome = co_await through_proxy(key, key_id, i, instance);
      }
      // Bucket4j throws: the request fails (here denied); buckets consumed before stay consumed.
      if (outcome == Outcome::kFailed) decision.error = true;
      if (outcome != Outcome::kAdmitted) {
        decision.deny_for(i);
        break;
      }
    }
    co_return decision;
  }

  void on_instance_start(const Instance& instance) override {
    while (proxies_.size() <= instance.id) proxies_.emplace_back();
  }
  // The process is gone, and its proxies' snapshots and postponed tokens with it. A proxy with an
  // operation in flight stays until it ends (instance ids are never reused).
  void on_instance_stop(const Instance& instance) override {
    ProxyMap& proxies = proxies_[instance.id];
    for (auto it = proxies.begin(); it != proxies.end();) {
      postponed_lost_ += it->second.postponed;
      it->second.postponed = 0;
      it = it->second.busy ? std::next(it) : proxies.erase(it);
    }
  }

  void write_metrics(nlohmann::ordered_json& out) const override;

 private:
  enum class Outcome { kAdmitted, kDenied, kFailed };
  // What one bucket operation (a batch of `requests` tryConsume(1)) did.
  struct Operation {
    std::int64_t admitted = 0;  // the first `admitted` requests of the batch, in arrival order
    bool failed = false;        // Redis failed or timed out, or the CAS retries ran out
    BucketState written;        // the state it wrote (the snapshot the delaying proxy keeps)
  };
  // A request waiting for its node's operation on the bucket (BatchHelper's WaitingTask).
  struct Waiter {
    std::coroutine_handle<> handle;
    bool lead = false;  // woken to execute the next batch itself
    Outcome outcome = Outcome::kDenied;
  };
  struct Park {
    Waiter& waiter;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> handle) noexcept { waiter.handle = handle; }
    void await_resume() const noexcept {}
  };
  // One node's proxy of one bucket (a cached BucketProxy with batching or delaying).
  struct Proxy {
    bool busy = false;                    // an operation is executing; later requests wait
    std::vector<Waiter*> waiting;         // in arrival order
    std::optional<BucketState> snapshot;  // delaying: the state of the last sync, spent locally
    std::int64_t last_sync_ns = 0;
    std::int64_t postponed = 0;  // tokens consumed locally, not yet written to Redis
  };
  using ProxyMap = std::unordered_map<std::uint64_t, Proxy>;  // key id * limits + limit index

  static Outcome to_outcome(const Operation& op, std::size_t position) {
    if (op.failed) return Outcome::kFailed;
    return static_cast<std::int64_t>(position) < op.admitted ? Outcome::kAdmitted
                                                             : Outcome::kDenied;
  }
  // Millisecond time in nanoseconds from the node's clock (TimeMeter.SYSTEM_MILLISECONDS).
  std::int64_t now_ns(const Instance& instance) const {
    return instance.local_unix_us(env_.sim.now()) / kUsPerMs * kNsPerMs;
  }
  std::int64_t ttl_ms(const BucketState& state, std::size_t index, std::int64_t now) const {
    switch (params_.expiration) {
      case ExpirationKind::kNone:
        return 0;
      case ExpirationKind::kFixedTtl:
        return *params_.time_to_live_us / kUsPerMs;
      case ExpirationKind::kRefillUpToMax:
        break;
    }
    const std::int64_t ms = *params_.keep_after_refill_duration_us / kUsPerMs +
                            state.full_refill_ns(bands_[index], now) / kNsPerMs;
    return ms <= 0 ? 1 : ms;
  }

  Task<Operation> remote(std::string key, std::size_t index, const Instance& instance,
                         std::int64_t requests, std::int64_t postponed);
  Task<Outcome> through_proxy(std::string key, std::uint64_t key_id, std::size_t index,
                              const Instance& instance);
  Task<Operation> execute_batch(Proxy& proxy, const std::string& key, std::size_t index,
                                const Instance& instance, std::int64_t requests);

  StrategyEnv env_;
  Bucket4jParams params_;
  std::vector<std::string> prefixes_;
  std::vector<Bandwidth> bands_;  // per limit
  std::deque<ProxyMap> proxies_;  // by instance id; stable references
  std::int64_t max_attempts_ = kSafetyAttempts;
  std::unordered_map<std::string, std::int64_t> in_flight_;  // operations per Redis key
  struct Band {
    std::int64_t operations = 0;
    std::int64_t conflicts = 0;
  };
  std::array<Band, kConcurrencyBands> by_concurrency_{};
  std::int64_t operations_ = 0;
  std::int64_t cas_attempts_ = 0;
  std::int64_t cas_conflicts_ = 0;
  std::int64_t cas_gave_up_ = 0;
  std::int64_t most_attempts_ = 0;
  std::int64_t batches_merged_ = 0;
  std::int64_t requests_merged_ = 0;
  std::int64_t served_locally_ = 0;
  std::int64_t syncs_ = 0;
  std::int64_t postponed_lost_ = 0;
};

// AbstractCompareAndSwapBasedProxyManager.execute for a batch of `requests` tryConsume(1), after
// `postponed` tokens consumed ignoring the limit (delaying's sync), until its CAS succeeds. A
// missing bucket is first answered "not found" (no write), then DefaultBucketProxy runs
// CreateInitialStateAndExecuteCommand, which creates it full with SET NX.
Task<Bucket4j::Operation> Bucket4j::remote(std::string key, std::size_t index,
                                           const Instance& instance, std::int64_t requests,
                                           std::int64_t postponed) {
  const Bandwidth& band = bands_[index];
  const bool always_writes = params_.optimization == OptimizationKind::kDelaying;
  Operation op;
  Band& stats = by_concurrency_[concurrency_band(++in_flight_[key])];
  ++stats.operations;
  ++operations_;
  bool creating = false;
  std::int64_t attempts = 0;
  while (true) {
    const Reply got = std::move((co_await env_.redis.call(get_command(key))).front());
    std::optional<BucketState> state;
    if (got.type == Reply::Type::kBulk) state = BucketState::decode(got.text);
    if (got.type != Reply::Type::kNil && !state) {
      op.failed = true;  // an error, a timeout, or a value that is not a bucket
      break;
    }
    const std::int64_t now = now_ns(instance);
    std::optional<std::string> old_text;
    if (state) old_text = got.text;
    if (!state && !creating) {
      creating = true;  // bucket not found: the delaying proxy drops what it postponed
      postponed_lost_ += postponed;
      postponed = 0;
      continue;
    }
    if (!state) state = BucketState::initial(band, now);
    BucketState next = *state;
    bool modified = !old_text || always_writes;
    next.refill(band, now);
    next.take(postponed);  // ConsumeIgnoringRateLimitsCommand
    const std::int64_t admitted = std::clamp<std::int64_t>(next.tokens, 0, requests);
    next.take(admitted);
    modified = modified || admitted > 0;
    op.admitted = admitted;
    op.written = next;
    if (!modified) break;  // a denial writes nothing
    ++cas_attempts_;
    ++attempts;
    const Reply swapped = std::move((co_await env_.redis.call(swap_command(
                                         key, old_text, next.encode(), ttl_ms(next, index, now))))
                                        .front());
    if (!is_integer(swapped)) {
      op.failed = true;
      break;
    }
    if (swapped.integer == 1) break;
    ++cas_conflicts_;
    ++stats.conflicts;
    if (attempts >= max_attempts_) {  // maxRetriesExceeded (or rlsim's safety cap)
      ++cas_gave_up_;
      op.failed = true;
      break;
    }
  }
  if (--in_flight_[key] == 0) in_flight_.erase(key);
  most_attempts_ = std::max(most_attempts_, attempts);
  co_return op;
}

// BatchingExecutor / BatchHelper: the first request executes alone; requests arriving while an
// operation is in flight wait, and when it ends the first of them executes them all as one
// batch (one GET and one CAS), handing each its result.
Task<Bucket4j::Outcome> Bucket4j::through_proxy(std::string key, std::uint64_t key_id,
                                                std::size_t index, const Instance& instance) {
  Proxy& proxy = proxies_[instance.id][key_id * env_.limits.size() + index];
  Waiter self;
  std::vector<Waiter*> batch;
  if (proxy.busy) {
    proxy.waiting.push_back(&self);
    co_await Park{self};
    if (!self.lead) co_return self.outcome;
    batch.swap(proxy.waiting);
  } else {
    proxy.busy = true;
    batch.push_back(&self);
  }
  const auto size = static_cast<std::int64_t>(batch.size());
  const Operation op = co_await execute_batch(proxy, key, index, instance, size);
  if (size > 1) {
    ++batches_merged_;
    requests_merged_ += size - 1;
  }
  for (std::size_t i = 0; i < batch.size(); ++i) batch[i]->outcome = to_outcome(op, i);
  for (std::size_t i = 1; i < batch.size(); ++i) batch[i]->handle.resume();
  if (proxy.waiting.empty()) {
    proxy.busy = false;
  } else {
    Waiter* next = proxy.waiting.front();
    next->lead = true;
    next->handle.resume();
  }
  co_return self.outcome;
}

// DelayedCommandExecutor: serve the batch from the last snapshot, refilled on the node's clock,
// unless the node never synced, max_timeout_between_synchronization has passed since its last
// sync, or the batch would take the postponed tokens over max_unsynchronized_tokens; a local
// denial costs nothing. Otherwise sync: the postponed tokens, then the batch, in one CAS. A sync
// that throws changes nothing locally.
Task<Bucket4j::Operation> Bucket4j::execute_batch(Proxy& proxy, const std::string& key,
                                                  std::size_t index, const Instance& instance,
                                                  std::int64_t requests) {
  if (params_.optimization != OptimizationKind::kDelaying)
    co_return co_await remote(key, index, instance, requests, 0);
  const std::int64_t now = now_ns(instance);
  if (proxy.snapshot &&
      now - proxy.last_sync_ns <= *params_.max_timeout_between_synchronization_us * kNsPerUs &&
      requests + proxy.postponed <= *params_.max_unsynchronized_tokens) {
    BucketState local = *proxy.snapshot;
    local.refill(bands_[index], now);
    Operation op;
    op.admitted = std::clamp<std::int64_t>(local.tokens, 0, requests);
    local.take(op.admitted);
    if (op.admitted > 0) proxy.snapshot = local;
    proxy.postponed += op.admitted;
    served_locally_ += requests;
    co_return op;
  }
  Operation op = co_await remote(key, index, instance, requests, proxy.postponed);
  if (!op.failed) {
    ++syncs_;
    proxy.postponed = 0;
    proxy.last_sync_ns = now_ns(instance);
    proxy.snapshot = op.written;
  }
  co_return op;
}

void Bucket4j::write_metrics(nlohmann::ordered_json& out) const {
  out["bucket_operations"] = operations_;
  out["cas_attempts"] = cas_attempts_;
  out["cas_conflicts"] = cas_conflicts_;
  out["conflicts_per_operation"] =
      operations_ > 0 ? round4(static_cast<double>(cas_conflicts_) / operations_) : 0.0;
  out["most_cas_attempts"] = most_attempts_;
  out["cas_gave_up"] = cas_gave_up_;
  nlohmann::ordered_json bands = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < kConcurrencyBands; ++i) {
    const Band& band = by_concurrency_[i];
    const std::int64_t low = std::int64_t{1} << i;
    nlohmann::ordered_json row;
    row["in_flight"] = i == 0                      ? std::string("1")
                       : i + 1 < kConcurrencyBands ? fmt::format("{}-{}", low, 2 * low - 1)
                                                   : fmt::format("{}+", low);
    row["operations"] = band.operations;
    row["conflicts_per_operation"] =
        band.operations > 0 ? round4(static_cast<double>(band.conflicts) / band.operations) : 0.0;
    bands.push_back(std::move(row));
  }
  out["conflicts_by_concurrency"] = std::move(bands);
  if (params_.optimization == OptimizationKind::kNone) return;
  out["batches_merged"] = batches_merged_;
  out["requests_merged"] = requests_merged_;
  if (params_.optimization != OptimizationKind::kDelaying) return;
  out["served_locally"] = served_locally_;
  out["syncs"] = syncs_;
  out["postponed_lost"] = postponed_lost_;
}

BucketShape bucket4j_shape(const ParamReader& params, const Limit& limit) {
  const Bandwidth band = bandwidth_of(parse_bucket4j_params(params), limit);
  return BucketShape{
      static_cast<double>(band.capacity),
      static_cast<double>(band.refill_tokens) * 1e9 / static_cast<double>(band.refill_period_ns)};
}

// A parameter that only one choice uses: required with it, refused without.
bool check_companion(bool given, bool chosen, const char* name, const char* choice,
                     std::string& field, std::string& error) {
  if (given == chosen) return true;
  field = name;
  error = chosen ? fmt::format("required with {}", choice) : fmt::format("only {} uses it", choice);
  return false;
}

// The checks Bucket4j makes when the bucket, DelayParameters and the expiration are built.
bool check_bucket4j(const ParamReader& reader, const std::string&, std::string& field,
                    std::string& error) {
  const Bucket4jParams p = parse_bucket4j_params(reader);
  const bool delaying = p.optimization == OptimizationKind::kDelaying;
  if (!check_companion(p.max_unsynchronized_tokens.has_value(), delaying,
                       "max_unsynchronized_tokens", "optimization delaying", field, error) ||
      !check_companion(p.max_timeout_between_synchronization_us.has_value(), delaying,
                       "max_timeout_between_synchronization", "optimization delaying", field,
                       error) ||
      !check_companion(p.keep_after_refill_duration_us.has_value(),
                       p.expiration == ExpirationKind::kRefillUpToMax, "keep_after_refill_duration",
                       "expiration based_on_time_for_refilling_bucket_up_to_max", field, error) ||
      !check_companion(p.time_to_live_us.has_value(), p.expiration == ExpirationKind::kFixedTtl,
                       "time_to_live", "expiration fixed_time_to_live", field, error))
    return false;
  const auto positive = [&](std::optional<DurationUs> value, const char* name) {
    if (!value || *value > 0) return true;
    field = name;
    error = "expected a positive duration (Bucket4j refuses zero)";
    return false;
  };
  if (!positive(p.refill_period_us, "refill_period") ||
      !positive(p.max_timeout_between_synchronization_us, "max_timeout_between_synchronization") ||
      !positive(p.time_to_live_us, "time_to_live"))
    return false;
  if (p.refill_tokens && p.refill_period_us && *p.refill_tokens > *p.refill_period_us * kNsPerUs) {
    field = "refill_tokens";
    error = "more tokens than nanoseconds in refill_period (Bucket4j's tooHighRefillRate)";
    return false;
  }
  // rlsim's budget of work per bucket operation: more attempts would not end on a hot key
  // (docs/hardening.md#bounded-work).
  if (p.max_retries && *p.max_retries > kSafetyAttempts) {
    field = "max_retries";
    error = fmt::format(
        "expected at most {} (rlsim's budget of compare-and-swap attempts per bucket operation), "
        "got {}",
        kSafetyAttempts, *p.max_retries);
    return false;
  }
  return true;
}

StrategyInfo declare_bucket4j() {
  return StrategyInfo{
      "bucket4j",
      "Bucket4j's distributed bucket on Redis: GET the state, tryConsume on the node's clock, "
      "compare-and-swap it back, retried on conflict; optional batching and delaying",
      "Models Bucket4j's Redis proxy managers (bucket4j-redis: JedisBasedProxyManager and the "
      "scripts of LuaScripts.java) on AbstractCompareAndSwapBasedProxyManager, "
      "BucketState64BitsInteger "
      "and the optimizations of distributed/proxy/optimization (Bucket4j 8.19.0, master "
      "731354a7). Each limit and key is one bucket (one bandwidth of capacity tokens, refilled "
      "with refill_tokens every refill_period, greedy: continuously in integer arithmetic with "
      "a rounding error, or intervally: all at once per whole period) stored in one Redis "
      "string, rl:<kind>:<value>. A request GETs the state, refills and takes one token with "
      "the time of its own node's clock in milliseconds (no Redis TIME), and if it took one, "
      "writes the new state with EVAL of a script that compares the stored value with the one it "
      "read and sets the new one (PSETEX with the expiration's TTL, or SET; SET NX for a new "
      "bucket). When another node wrote in between, the script answers 0 and the request starts "
      "again with a GET: on a hot key the conflicts and round trips grow with the operations in "
      "flight (Bucket4j issue 479, discussion 384). A denial writes nothing. A bucket that does "
      "not exist costs one more GET (not found, then created full). A clock ahead of the others "
      "refills early and moves the stored last-refill time forward; a clock at or behind it "
      "refills nothing, so a clock stepped back freezes the bucket for every node until true "
      "time catches up. optimization batching: one operation per node and bucket at a time, "
      "requests arriving meanwhile executed together as the next one (one GET and one CAS). "
      "optimization delaying (DelayParameters): batching, plus each node serves requests from the "
      "state of its last sync, refilled on its own clock, until the tokens consumed locally would "
      "exceed max_unsynchronized_tokens or max_timeout_between_synchronization has passed; local "
      "denials are free; the sync consumes the postponed tokens ignoring the limit (the bucket "
      "can go negative) and then the request, in one CAS. A failed Redis call or timeout throws: "
      "the request fails (here a denial with error); Bucket4j has no fallback. Conflicts are "
      "retried without a bound unless max_retries is set (it counts the first attempt); rlsim "
      "stops at 1000 attempts and fails the request (cas_gave_up). Simplified: the state is text "
      "(last refill ns, tokens, rounding error, consumed), not Bucket4j's binary serialization "
      "with the configuration; one bandwidth per bucket and one bucket per scenario limit, tried "
      "in order (a later denial does not return earlier tokens); tryConsume(1) only, no "
      "predicting or skip-on-zero optimizations, no retry strategy delays; a batch's bucket-not-"
      "found retry stays in the batch. Defaults: a limit of L per window W is capacity L, "
      "refill_tokens L, refill_period W, greedy.",
      {param("capacity", ParamType::kInt, nullptr,
             "tokens in a full bucket, and a new bucket's tokens (default: each limit's limit)"),
       param("refill_tokens", ParamType::kInt, nullptr,
             "tokens added per refill_period (default: each limit's limit)"),
       param("refill_period", ParamType::kDuration, nullptr,
             "the period refill_tokens refer to (default: each limit's window)"),
       ParamSpec{"refill",
                 ParamType::kEnum,
                 "greedy",
                 "greedy: tokens added continuously (refillGreedy); intervally: refill_tokens at "
                 "once per whole refill_period (refillIntervally)",
                 {"greedy", "intervally"},
                 false},
       ParamSpec{"optimization",
                 ParamType::kEnum,
                 "none",
                 "none: every request reads and swaps; batching: one operation per node and "
                 "bucket, the waiting requests merged; delaying: batching and local service "
                 "between syncs",
                 {"none", "batching", "delaying"},
                 false},
       param("max_unsynchronized_tokens", ParamType::kInt, nullptr,
             "delaying only, required: tokens a node may consume locally between syncs"),
       param("max_timeout_between_synchronization", ParamType::kDuration, nullptr,
             "delaying only, required: the longest a node serves locally without a sync"),
       ParamSpec{"expiration",
                 ParamType::kEnum,
                 "none",
                 "the key's TTL (ExpirationAfterWriteStrategy): none (the Redis builder's "
                 "default), based_on_time_for_refilling_bucket_up_to_max (time to full plus "
                 "keep_after_refill_duration), fixed_time_to_live",
                 {"none", "based_on_time_for_refilling_bucket_up_to_max", "fixed_time_to_live"},
                 false},
       param("keep_after_refill_duration", ParamType::kDuration, nullptr,
             "based_on_time_for_refilling_bucket_up_to_max only, required"),
       param("time_to_live", ParamType::kDuration, nullptr, "fixed_time_to_live only, required"),
       param("max_retries", ParamType::kInt, nullptr,
             "CAS attempts before the request fails (ClientSideConfig.withMaxRetries, the first "
             "attempt included; at most 1000; default: unbounded, rlsim stops at 1000)")},
      Algorithm::kTokenBucket,
      construct<Bucket4j>,
      bucket4j_shape,
      check_bucket4j};
}

const StrategyRegistration kBucket4jRegistration(260, declare_bucket4j);

}  // namespace
}  // namespace rlsim
