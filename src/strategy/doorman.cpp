// doorman: YouTube's Doorman (github.com/youtube/doorman, master e2b69e17, May 2016), a capacity
// server that leases shares of a resource's capacity (a rate, in requests per second) to its
// clients, and the Go client and qps rate limiter that spend a lease (docs/products.md):
//   server (go/server/doorman/server.go, resource.go, store.go, algorithm.go): per resource a
//     lease store; each GetCapacity cleans expired leases and runs the resource's algorithm
//     (NO_ALGORITHM, STATIC, PROPORTIONAL_SHARE, FAIR_SHARE) on the client's wants, or, in
//     learning mode after the server became master, echoes back what the client says it has.
//     Here the server is a Lua script on the Redis node: the lease store is a hash per resource,
//     a redis_restart loses it (and starts learning mode) as a Doorman master election does.
//   client (go/client/doorman/client.go, go/connection/connection.go): one GetCapacity for all
//     of a process's resources, at once when a resource is added, then every refresh_interval (at
//     least MinimumRefreshInterval). Its RPC wrapper retries a failed call forever with backoff,
//     so the client's own expiry handling (capacity 0) is never reached: a lease is kept.
//   rate limiter (go/ratelimiter/ratelimiter.go): a request waits until a timer releases it; the
//     timer is re-armed on every pass of the limiter's loop, including each new waiter.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <coroutine>
#include <deque>
#include <map>
#include <memory>
#include <unordered_map>

#include "core/parse_double.h"
#include "strategy/registry.h"
#include "strategy/reply_check.h"
#include "strategy/script.h"

namespace rlsim {
namespace {

// What a client does with a lease it cannot refresh (docs/products.md, "safe capacity").
enum class OnExpiry {
  kKeep,          // the Go client: ExecuteRPC retries forever, the lease is never dropped
  kZero,          // client.go's failure branch: an expired lease becomes capacity 0
  kSafeCapacity,  // the design doc: the safe_capacity the server sent with the last lease
};
// When the qps rate limiter's release timer is re-armed.
enum class QpsTimer {
  kRestarted,  // ratelimiter.go as written: every loop pass, so every new waiter, re-arms it
  kPeriodic,   // what it means to do: re-armed only by a release and by a capacity change
};

struct DoormanParams {
  std::string algorithm = "FAIR_SHARE";
  std::optional<double> capacity_per_s;  // nullopt: the limit per window
  DurationUs lease_length_us = 300 * kUsPerS;
  DurationUs refresh_interval_us = 5 * kUsPerS;
  std::optional<DurationUs> learning_mode_duration_us;  // nullopt: lease_length
  std::optional<std::string> safe_capacity;             // nullopt: capacity / clients
  DurationUs minimum_refresh_interval_us = 5 * kUsPerS;
  OnExpiry on_expiry = OnExpiry::kKeep;
  QpsTimer qps_timer = QpsTimer::kRestarted;
  DurationUs max_wait_us = kUsPerS;
  bool release_on_stop = true;

  double capacity(const Limit& limit) const {
    return capacity_per_s.value_or(static_cast<double>(limit.limit) * kUsPerS /
                                   static_cast<double>(limit.window_us));
  }
};

DoormanParams parse_doorman_params(const ParamReader& params) {
  DoormanParams p;
  p.algorithm = params.string("algorithm");
  p.capacity_per_s = params.optional_rate_per_s("capacity");
  p.lease_length_us = params.duration_us("lease_length");
  p.refresh_interval_us = params.duration_us("refresh_interval");
  p.learning_mode_duration_us = params.optional_duration_us("learning_mode_duration");
  if (!params.string("safe_capacity").empty()) p.safe_capacity = params.string("safe_capacity");
  p.minimum_refresh_interval_us = params.duration_us("minimum_refresh_interval");
  p.on_expiry = params.choice<OnExpiry>("on_expiry", {{"keep", OnExpiry::kKeep},
                                                      {"zero", OnExpiry::kZero},
                                                      {"safe_capacity", OnExpiry::kSafeCapacity}});
  p.qps_timer = params.choice<QpsTimer>(
      "qps_timer", {{"restarted", QpsTimer::kRestarted}, {"periodic", QpsTimer::kPeriodic}});
  p.max_wait_us = params.duration_us("max_wait");
  p.release_on_stop = params.boolean("release_on_stop");
  return p;
}

// safe_capacity as Doorman reads it: -1 no limit, 0 stop, or a rate per client ("2/s"); nullopt
// when the text is none of these.
std::optional<double> parse_safe_capacity(const std::string& text) {
  if (text == "-1") return -1.0;
  if (text == "0") return 0.0;
  const auto rate = parse_rate_per_s(text);
  if (!rate || *rate <= 0) return std::nullopt;
  return rate;
}

// The Doorman server's GetCapacity for one client, all of its resources in one call.
// KEYS[1]: the time the server became master; KEYS[2..]: one lease hash per resource (field: the
// client id, value "has wants subclients expiry_us"). ARGV: client, algorithm, lease_length_s,
// refresh_interval_s, learning_mode_duration_s, safe_capacity ("" for dynamic), fresh (1 when the
// run starts: the server has been master for long), then capacity, wants and has per resource.
// Returns per resource: has, expiry (Unix seconds), refresh interval (s), safe capacity, 1 when
// granted in learning mode. Sums go over client ids in sorted order, so that the floating-point
// result does not depend on the hash's order.
constexpr const char* kDoormanScript = R"(local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local client, kind, capacity = ARGV[1], ARGV[2], 0
local lease_us, learning_us = tonumber(ARGV[3]) * 1000000, tonumber(ARGV[5]) * 1000000
local since = tonumber(redis.call('GET', KEYS[1]) or '')
if not since then
  since = now
  if ARGV[7] == '1' then since = 0 end
  redis.call('SET', KEYS[1], string.format('%.0f', since))
end
local learning = learning_us > 0 and now < since + learning_us
local function min_f(a, b) if a > b then return b end return a end
local function load(key)
  local flat, leases, ids = redis.call('HGETALL', key), {}, {}
  for i = 1, #flat, 2 do
    local h, w, s, e = string.match(flat[i + 1], '^(%S+) (%S+) (%S+) (%S+)$')
    if now > tonumber(e) then redis.call('HDEL', key, flat[i]) else
      leases[flat[i]] = {has = tonumber(h), wants = tonumber(w), sub = tonumber(s)}
      ids[#ids + 1] = flat[i]
    end
  end
  table.sort(ids)
  local st = {leases = leases, ids = ids, count = 0, sum_has = 0, sum_wants = 0}
  for _, id in ipairs(ids) do
    st.count = st.count + leases[id].sub
    st.sum_has = st.sum_has + leases[id].has
    st.sum_wants = st.sum_wants + leases[id].wants
  end
  return st
end
local zero = {has = 0, wants = 0, sub = 0}
local function proportional(st, wants)
  local old, count = st.leases[client] or zero, st.count
  if not st.leases[client] then count = count + 1 end
  local equal = capacity / count
  local unused = capacity - st.sum_has + old.has
  if st.sum_wants <= capacity or wants <= equal then return min_f(wants, unused) end
  local extra_cap, extra_need = 0, 0
  for _, id in ipairs(st.ids) do
    local w, e = st.leases[id].wants, equal * st.leases[id].sub
    if id == client then w, e = wants, equal end
    if w < e then extra_cap = extra_cap + (e - w) else extra_need = extra_need + (w - e) end
  end
  return min_f(equal + (wants - equal) * (extra_cap / extra_need), unused)
end
local function fair(st, wants)
  local old = st.leases[client] or zero
  local available = capacity - st.sum_has + old.has
  local equal = capacity / (st.count - old.sub + 1)
  if wants <= equal then return min_f(wants, available) end
  local extra, want_extra, greedy = 0, 1, {}
  for _, id in ipairs(st.ids) do
    local l = st.leases[id]
    if id ~= client then
      local d = l.sub * equal
      if l.wants < d then extra = extra + (d - l.wants)
      elseif l.wants > d then want_extra = want_extra + l.sub; greedy[#greedy + 1] = l end
    end
  end
  local d_extra = extra / want_extra
  if wants < equal + d_extra then return min_f(wants, available) end
  local want_ee, ee = 1, 0
  for _, l in ipairs(greedy) do
    if l.wants < d_extra + equal then ee = ee + (d_extra + equal - l.wants)
    elseif l.wants > d_extra + equal then want_ee = want_ee + l.sub end
  end
  return min_f(equal + d_extra + ee / want_ee, available)
end
local out = {}
for i = 2, #KEYS do
  local st, base = load(KEYS[i]), 3 * i + 2
  capacity = tonumber(ARGV[base])
  local wants, has = tonumber(ARGV[base + 1]), tonumber(ARGV[base + 2])
  local gets = has
  if not learning then
    if kind == 'NO_ALGORITHM' then gets = wants
    elseif kind == 'STATIC' then gets = min_f(capacity, wants)
    elseif kind == 'PROPORTIONAL_SHARE' then gets = proportional(st, wants)
    else gets = fair(st, wants) end
  end
  local expiry = now + lease_us
  redis.call('HSET', KEYS[i], client, string.format('%.17g %.17g 1 %.0f', gets, wants, expiry))
  local count = st.count + 1
  if st.leases[client] then count = st.count end
  local safe = ARGV[6]
  if safe == '' then safe = string.format('%.17g', capacity / count) end
  out[#out + 1] = string.format('%.17g', gets)
  out[#out + 1] = math.floor(expiry / 1000000)
  out[#out + 1] = tonumber(ARGV[4])
  out[#out + 1] = safe
  out[#out + 1] = learning and 1 or 0
end
return out)";

// timeutil.Backoff(1s, 1m, retries): 1 s grown by 1.3 per retry, at most a minute.
DurationUs backoff_us(int retries) {
  double backoff = kUsPerS;
  const double max = 60.0 * kUsPerS;
  for (; backoff < max && retries > 0; --retries) backoff *= 1.3;
  return static_cast<DurationUs>(std::min(backoff, max));
}

std::optional<double> parse_double(const std::string& text) {
  double value = 0;
  const auto [ptr, ec] = from_chars_double(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

// go/ratelimiter's qpsRateLimiter for one resource of one process. Requests wait (Wait) until a
// release; a release every `interval` frees up to `rate` waiters (plus a share of the leftover
// while `released` < subintervals), first come first served; a release nobody waits for is lost.
// A waiter whose max_wait passes is refused (its context's deadline). The timer runs as an event
// only while someone waits; the releases of an idle stretch, which free nobody, only move the
// release cycle on, and are counted when the next waiter comes (so a run ends with its traffic).
class QpsLimiter final : public EventTarget {
 public:
  QpsLimiter(Simulator& sim, QpsTimer timer) : sim_(sim), timer_(timer) {}

  struct Waiter {
    std::coroutine_handle<> handle;
    bool allowed = false;
  };
  // Parks the deciding coroutine until it is released or refused at `deadline_us`.
  struct Wait {
    QpsLimiter& limiter;
    Waiter& waiter;
    TimeUs deadline_us;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> handle) {
      waiter.handle = handle;
      limiter.enqueue(waiter, deadline_us);
    }
    bool await_resume() const noexcept { return waiter.allowed; }
  };

  bool unlimited() const { return rate_ < 0; }
  bool full() const { return waiting_.size() >= kMaxWaiters; }

  // qpsRateLimiter.update: the rate and interval for a new capacity, and a fresh release cycle.
  void update(double capacity) {
    leftover_original_ = 0;
    if (capacity < 0) {
      rate_ = -1;
    } else if (capacity == 0) {
      rate_ = 0;
    } else if (capacity <= 10) {
      recalculate(1, static_cast<std::int64_t>(std::min(1000.0 / capacity, 1e12)));
    } else {
      recalculate(static_cast<std::int64_t>(std::min(capacity, 1e12)), 1000);
    }
    released_ = 0;
    leftover_ = leftover_original_;
    arm();
  }
  void stop() {
    stopped_ = true;
    arm();
  }

  void on_event(std::uint64_t arg) override {
    if ((arg & kTickFlag) != 0) {
      if (arg != (kTickFlag | generation_)) return;  // a timer re-armed since
      const std::vector<Waiter*> freed = take(next_release());
      arm();
      for (Waiter* waiter : freed) waiter->handle.resume();
      return;
    }
    const auto it = waiting_.find(arg);  // a deadline: refused unless released before
    if (it == waiting_.end()) return;
    Waiter* waiter = it->second;
    waiting_.erase(it);
    waiter->handle.resume();
  }

 private:
  static constexpr std::uint64_t kTickFlag = 1ULL << 63;
  static constexpr std::size_t kMaxWaiters = 100'000;  // rlsim's bound; Go has none

  // recalculate: above 1 per interval the second is split into subintervals of at least 20 ms.
  void recalculate(std::int64_t rate, std::int64_t interval_ms) {
    rate_ = rate;
    interval_us_ = interval_ms * kUsPerMs;
    if (rate > 1 && interval_ms >= 20) {
      subintervals_ = std::min(rate, interval_ms / 20);
      rate_ = rate / subintervals_;
      leftover_original_ = rate % subintervals_;
      interval_us_ = static_cast<std::int64_t>(static_cast<double>(rate_ * interval_ms) /
                                               static_cast<double>(rate)) *
                     kUsPerMs;
    }
  }
  bool running() const { return !stopped_ && rate_ > 0; }
  // A new pass of the loop: the timer starts again (unless blocked, rate 0, or unlimited).
  void arm() {
    ++generation_;
    armed_at_us_ = sim_.now();
    if (running() && !waiting_.empty()) schedule();
  }
  void schedule() { sim_.schedule(armed_at_us_ + interval_us_, this, kTickFlag | generation_); }
  // The releases of an idle stretch up to now: they free nobody and move the cycle on, which
  // repeats every subintervals + 1 releases.
  void catch_up() {
    if (!running()) return;
    const std::int64_t missed = (sim_.now() - armed_at_us_) / interval_us_;
    for (std::int64_t i = 0; i < missed % (subintervals_ + 1); ++i) next_release();
    armed_at_us_ += missed * interval_us_;
  }
  void enqueue(Waiter& waiter, TimeUs deadline_us) {
    const bool idle = waiting_.empty();
    if (idle) catch_up();
    const std::uint64_t id = next_id_++;
    waiting_.emplace(id, &waiter);
    order_.push_back(id);
    sim_.schedule(deadline_us, this, id);
    if (timer_ == QpsTimer::kRestarted) {
      arm();  // Wait's request is a pass of the loop
    } else if (idle && running()) {
      ++generation_;
      schedule();
    }
  }
  // The wakeUp case of qpsRateLimiter.run: how many waiters this release may free.
  std::int64_t next_release() {
    std::int64_t max = rate_;
    if (released_ < subintervals_) {
      if (leftover_ > 0) {
        const std::int64_t step = leftover_ / rate_ + 1;
        max += step;
        leftover_ -= step;
      }
      ++released_;
    } else {
      released_ = 0;
      leftover_ = leftover_original_;
    }
    return max;
  }
  // The first `max` waiters, released.
  std::vector<Waiter*> take(std::int64_t max) {
    std::vector<Waiter*> freed;
    while (max > 0 && !order_.empty()) {
      const auto it = waiting_.find(order_.front());
      order_.pop_front();
      if (it == waiting_.end()) continue;  // refused at its deadline already
      it->second->allowed = true;
      freed.push_back(it->second);
      waiting_.erase(it);
      --max;
    }
    if (waiting_.empty()) order_.clear();
    return freed;
  }

  Simulator& sim_;
  QpsTimer timer_;
  std::int64_t rate_ = 0;  // per release; 0 blocked (also before the first lease), -1 unlimited
  DurationUs interval_us_ = 0;
  std::int64_t subintervals_ = 0;  // kept across updates, as the Go field is
  std::int64_t leftover_ = 0;
  std::int64_t leftover_original_ = 0;
  std::int64_t released_ = 0;
  TimeUs armed_at_us_ = 0;        // when the timer last started
  std::uint64_t generation_ = 0;  // of the armed timer; older ticks are stale
  bool stopped_ = false;
  std::uint64_t next_id_ = 0;
  std::unordered_map<std::uint64_t, Waiter*> waiting_;
  std::deque<std::uint64_t> order_;  // waiter ids in arrival order (refused ones skipped)
};

class Doorman final : public Strategy, public EventTarget {
 public:
  explicit Doorman(StrategyEnv env)
      : env_(std::move(env)),
        params_(parse_doorman_params(ParamReader(env_.params))),
        script_("doorman", kDoormanScript) {
    if (params_.safe_capacity)
      safe_text_ = fmt::format("{}", *parse_safe_capacity(*params_.safe_capacity));
  }

  // Each limit is a resource per key; the request waits on their rate limiters in turn, all
  // under one deadline (the caller's context).
  Task<Decision> decide(Request request, const Instance& instance) override {
    Client& client = *clients_[instance.id];
    client.seen_request = true;
    if (client.dormant) {
      client.dormant = false;
      refresh_now(instance.id);
    }
    std::vector<QpsLimiter*> limiters;
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      Resource& resource = resource_for(client, request, i);
      ++resource.arrivals;
      count_lease_state(resource, instance);
      limiters.push_back(resource.limiter.get());
    }
    const TimeUs deadline_us = env_.sim.now() + params_.max_wait_us;
    Decision decision;
    for (std::size_t i = 0; i < limiters.size(); ++i) {
      if (limiters[i]->unlimited()) continue;
      QpsLimiter::Waiter waiter;
      if (!limiters[i]->full()) co_await QpsLimiter::Wait{*limiters[i], waiter, deadline_us};
      if (!waiter.allowed) {
        ++wait_timeouts_;
        decision.deny_for(i);
        break;
      }
    }
    co_return decision;
  }

  void on_instance_start(const Instance& instance) override {
    if (clients_.size() <= instance.id) clients_.resize(instance.id + 1);
    clients_[instance.id] = std::make_unique<Client>();
    clients_[instance.id]->instance = &instance;
  }
  void on_instance_stop(const Instance& instance) override {
    Client& client = *clients_[instance.id];
    client.active = false;
    ++client.timer_generation;
    for (Resource& resource : client.resources) resource.limiter->stop();
    if (params_.release_on_stop && !client.resources.empty())
      release(instance.id).start_detached(&Doorman::done, this);
  }

  // A client's refresh timer (arg: the instance id and the timer's generation).
  void on_event(std::uint64_t arg) override {
    Client& client = *clients_[arg >> 32];
    if (!client.active || static_cast<std::uint32_t>(arg) != client.timer_generation) return;
    // rlsim: a client that saw no request since its last GetCapacity waits for the next one (so
    // that a run ends with its traffic); Doorman's client keeps refreshing its old wants.
    if (!client.seen_request) {
      client.dormant = true;
      return;
    }
    refresh_now(static_cast<std::uint32_t>(arg >> 32));
  }

  void write_metrics(nlohmann::ordered_json& out) const override {
    out["refreshes"] = refreshes_;
    out["refresh_failures"] = refresh_failures_;
    out["lease_expiries"] = lease_expiries_;
    out["expired_lease_decisions"] = expired_lease_decisions_;
    out["safe_capacity_decisions"] = safe_capacity_decisions_;
    out["learning_mode_grants"] = learning_mode_grants_;
    out["wait_timeouts"] = wait_timeouts_;
    out["script_reloads"] = reloads_;
  }

 private:
  struct Lease {
    double capacity = 0;
    std::int64_t expiry_unix_s = 0;  // on the server's clock, in whole seconds
    std::int64_t refresh_interval_s = 0;
  };
  struct Resource {
    std::string key;             // the lease hash on the Redis node
    double capacity = 0;         // the resource's, in requests per second
    double wants = 0;            // what the client asks for
    std::int64_t arrivals = 0;   // requests since wants was last measured
    TimeUs measured_at_us = 0;   // the process's monotonic clock at that moment
    std::optional<Lease> lease;  // nil before the first grant and after an expiry
    std::optional<double> safe;  // the safe_capacity of the last response
    bool on_fallback = false;    // the capacity is the expiry's (0 or safe_capacity)
    std::unique_ptr<QpsLimiter> limiter;
  };
  struct Client {
    const Instance* instance = nullptr;
    std::vector<Resource> resources;
    std::map<std::pair<std::size_t, std::uint64_t>, std::size_t> by_key;  // (limit, key) -> index
    bool active = true;
    bool in_flight = false;      // a GetCapacity is on the wire (the run loop is busy)
    bool refresh_again = false;  // a resource was added meanwhile
    bool seen_request = false;   // a request came since the last GetCapacity was sent
    bool dormant = false;        // its timer found no request: the next request refreshes
    int retries = 0;             // failed GetCapacity calls in a row
    std::uint32_t timer_generation = 0;
  };

  Resource& resource_for(Client& client, const Request& request, std::size_t index) {
    const Limit& limit = env_.limits[index];
    const std::pair<std::size_t, std::uint64_t> id{index, Catalog::key_id(request, limit.key)};
    const auto it = client.by_key.find(id);
    if (it != client.by_key.end()) return client.resources[it->second];
    // client.Resource(id, capacity): added, and a GetCapacity for all resources at once.
    Resource resource;
    resource.key = fmt::format("{{doorman}}:{}:", limit.name);
    env_.catalog.append_key_text(resource.key, request, limit.key);
    resource.capacity = params_.capacity(limit);
    resource.wants = resource.capacity;
    resource.measured_at_us = client.instance->monotonic_us(env_.sim.now());
    resource.limiter = std::make_unique<QpsLimiter>(env_.sim, params_.qps_timer);
    client.by_key.emplace(id, client.resources.size());
    client.resources.push_back(std::move(resource));
    refresh_now(client.instance->id);
    return client.resources.back();
  }

  void count_lease_state(const Resource& resource, const Instance& instance) {
    if (resource.on_fallback) ++safe_capacity_decisions_;
    if (resource.lease &&
        resource.lease->expiry_unix_s * kUsPerS < instance.local_unix_us(env_.sim.now()))
      ++expired_lease_decisions_;
  }

  void refresh_now(std::uint32_t id) {
    Client& client = *clients_[id];
    ++client.timer_generation;  // the run loop stops its timer
    if (client.in_flight) {
      client.refresh_again = true;
      return;
    }
    client.in_flight = true;
    refresh(id).start_detached(&Doorman::done, this);
  }

  void schedule_refresh(std::uint32_t id, DurationUs after_us) {
    Client& client = *clients_[id];
    ++client.timer_generation;
    env_.sim.schedule(env_.sim.now() + after_us, this,
                      (std::uint64_t{id} << 32) | client.timer_generation);
  }

  // Resource.Wants(): the arrival rate since the last refresh; Ask rejects 0, so a resource
  // without arrivals keeps its wants.
  void measure_wants(Client& client) {
    const TimeUs now_us = client.instance->monotonic_us(env_.sim.now());
    for (Resource& resource : client.resources) {
      const DurationUs elapsed_us = now_us - resource.measured_at_us;
      if (resource.arrivals > 0 && elapsed_us > 0)
        resource.wants =
            static_cast<double>(resource.arrivals) * kUsPerS / static_cast<double>(elapsed_us);
      if (elapsed_us > 0) {
        resource.arrivals = 0;
        resource.measured_at_us = now_us;
      }
    }
  }

  std::vector<std::string> script_args(std::uint32_t id) {
    Client& client = *clients_[id];
    std::vector<std::string> args{"{doorman}:master"};
    for (const Resource& resource : client.resources) args.push_back(resource.key);
    const DurationUs learning_us =
        params_.learning_mode_duration_us.value_or(params_.lease_length_us);
    args.insert(args.end(),
                {fmt::format("instance-{}", id), params_.algorithm,
                 std::to_string(params_.lease_length_us / kUsPerS),
                 std::to_string(params_.refresh_interval_us / kUsPerS),
                 std::to_string(learning_us / kUsPerS), safe_text_, fresh_ ? "1" : "0"});
    for (const Resource& resource : client.resources) {
      args.push_back(fmt::format("{}", resource.capacity));
      args.push_back(fmt::format("{}", resource.wants));
      args.push_back(fmt::format("{}", resource.lease ? resource.lease->capacity : 0.0));
    }
    return args;
  }

  // Client.performRequests: one GetCapacity for every resource of the process.
  Task<bool> refresh(std::uint32_t id) {
    measure_wants(*clients_[id]);
    clients_[id]->seen_request = false;
    const std::vector<std::string> args = script_args(id);
    const std::size_t count = clients_[id]->resources.size();
    ++refreshes_;
    const Reply reply = co_await script_.run(env_.redis, args, count + 1, reloads_);
    Client& client = *clients_[id];
    client.in_flight = false;
    if (!client.active) co_return false;
    const bool ok = apply(client, reply, count);
    if (ok) {
      fresh_ = false;
      client.retries = 0;
      schedule_refresh(id, next_interval_us(client));
    } else {
      ++refresh_failures_;
      failed(client);
      // connection.runMasterAware sleeps Backoff(retries) before its retries 1, 2, ...;
      // performRequests returns Backoff(retryNumber) from 0.
      ++client.retries;
      schedule_refresh(id,
                       backoff_us(client.retries - (params_.on_expiry == OnExpiry::kKeep ? 0 : 1)));
    }
    if (client.refresh_again) {
      client.refresh_again = false;
      refresh_now(id);
    }
    co_return ok;
  }

  // The responses, one lease per resource (capacity sent to the limiter only when it changed).
  bool apply(Client& client, const Reply& reply, std::size_t count) {
    if (reply.type != Reply::Type::kArray || reply.elements.size() != 5 * count) {
      if (is_fatal_script_error(reply)) fail(fmt::format("doorman: {}", reply.text));
      return false;
    }
    for (std::size_t i = 0; i < count; ++i) {
      const Reply* r = &reply.elements[5 * i];
      const auto has = parse_double(r[0].text);
      const auto safe = parse_double(r[3].text);
      if (!has || !safe || !is_integer(r[1]) || !is_integer(r[2]) || !is_integer(r[4]))
        return false;
      Resource& resource = client.resources[i];
      const double old = resource.lease ? resource.lease->capacity : -1.0;
      resource.lease = Lease{*has, r[1].integer, r[2].integer};
      resource.safe = *safe;
      resource.on_fallback = false;
      if (r[4].integer == 1) ++learning_mode_grants_;
      if (*has != old) resource.limiter->update(*has);
    }
    return true;
  }

  // The smallest refresh interval of the leases, at least minimum_refresh_interval.
  DurationUs next_interval_us(const Client& client) const {
    DurationUs interval_us = 60 * 60 * kUsPerS;  // veryLongTime
    // A resource added while the request was in flight has no lease yet; its own GetCapacity
    // follows at once (refresh_again).
    for (const Resource& resource : client.resources)
      if (resource.lease)
        interval_us = std::min(interval_us, resource.lease->refresh_interval_s * kUsPerS);
    return std::max(interval_us, params_.minimum_refresh_interval_us);
  }

  // A failed GetCapacity: with on_expiry keep nothing changes (the Go client never gets here);
  // otherwise each lease whose expiry has passed on the process's clock is dropped.
  void failed(Client& client) {
    if (params_.on_expiry == OnExpiry::kKeep) return;
    const TimeUs local_us = client.instance->local_unix_us(env_.sim.now());
    for (Resource& resource : client.resources) {
      const std::int64_t expiry_s = resource.lease ? resource.lease->expiry_unix_s : 0;
      if (expiry_s * kUsPerS >= local_us) continue;
      if (resource.lease) ++lease_expiries_;
      resource.lease.reset();
      resource.on_fallback = true;
      const bool safe = params_.on_expiry == OnExpiry::kSafeCapacity && resource.safe;
      resource.limiter->update(safe ? *resource.safe : 0.0);
    }
  }

  // Client.Close: ReleaseCapacity for the process's resources.
  Task<bool> release(std::uint32_t id) {
    const Client& client = *clients_[id];
    std::vector<Command> commands;
    for (const Resource& resource : client.resources)
      commands.push_back(command("HDEL", resource.key, fmt::format("instance-{}", id)));
    co_await env_.redis.pipeline(std::move(commands));
    co_return true;
  }
  static void done(void*, bool&&) {}

  StrategyEnv env_;
  DoormanParams params_;
  Script script_;
  std::string safe_text_;  // "" for the dynamic safe capacity
  bool fresh_ = true;      // no GetCapacity answered yet: the server is not new
  std::vector<std::unique_ptr<Client>> clients_;  // by instance id; kept after a stop
  std::int64_t refreshes_ = 0;
  std::int64_t refresh_failures_ = 0;
  std::int64_t lease_expiries_ = 0;
  std::int64_t expired_lease_decisions_ = 0;
  std::int64_t safe_capacity_decisions_ = 0;
  std::int64_t learning_mode_grants_ = 0;
  std::int64_t wait_timeouts_ = 0;
  std::uint64_t reloads_ = 0;
};

bool whole_seconds(const ParamReader& params, const char* name, std::string& field,
                   std::string& error) {
  const auto value_us = params.optional_duration_us(name);
  if (!value_us || (*value_us >= kUsPerS && *value_us % kUsPerS == 0)) return true;
  field = name;
  error = fmt::format("expected whole seconds, at least 1s (Doorman's int64 seconds), got {} us",
                      *value_us);
  return false;
}

// Doorman's validateResourceRepository: refresh_interval and lease_length of at least 1 s,
// lease_length not below refresh_interval; durations are whole seconds in its protobuf.
bool check_doorman(const ParamReader& params, const std::string&, std::string& field,
                   std::string& error) {
  for (const char* name : {"lease_length", "refresh_interval"})
    if (!whole_seconds(params, name, field, error)) return false;
  const DoormanParams p = parse_doorman_params(params);
  if (p.lease_length_us < p.refresh_interval_us) {
    field = "lease_length";
    error = "Lease length must be larger than the refresh interval (Doorman)";
    return false;
  }
  if (p.learning_mode_duration_us &&
      (*p.learning_mode_duration_us < 0 || *p.learning_mode_duration_us % kUsPerS != 0)) {
    field = "learning_mode_duration";
    error = "expected whole seconds (0s: no learning mode)";
    return false;
  }
  if (p.safe_capacity && !parse_safe_capacity(*p.safe_capacity)) {
    field = "safe_capacity";
    error = fmt::format(R"(expected "-1" (no limit), "0" (stop) or a rate such as "2/s", got "{}")",
                        *p.safe_capacity);
    return false;
  }
  return true;
}

BucketShape doorman_shape(const ParamReader& params, const Limit& limit) {
  return {static_cast<double>(limit.limit), parse_doorman_params(params).capacity(limit)};
}

std::vector<ParamSpec> doorman_params() {
  return {ParamSpec{"algorithm",
                    ParamType::kEnum,
                    "FAIR_SHARE",
                    "how the server divides capacity (algorithm.kind)",
                    {"NO_ALGORITHM", "STATIC", "PROPORTIONAL_SHARE", "FAIR_SHARE"},
                    false},
          param("capacity", ParamType::kRate, nullptr,
                "the resource's capacity, a rate (default: each limit's limit per window)"),
          param("lease_length", ParamType::kDuration, "300s",
                "how long a lease lasts, whole seconds, at least refresh_interval"),
          param("refresh_interval", ParamType::kDuration, "5s",
                "how often a client refreshes, whole seconds, at least 1s"),
          param("learning_mode_duration", ParamType::kDuration, nullptr,
                "learning mode after the server becomes master (default: lease_length; 0s: none)"),
          param("safe_capacity", ParamType::kString, "",
                "per client when the server is unreachable: \"-1\" no limit, \"0\" stop, or a rate "
                "such as \"2/s\" (empty: capacity / clients); used with on_expiry safe_capacity"),
          param("minimum_refresh_interval", ParamType::kDuration, "5s",
                "the client's MinimumRefreshInterval option: the shortest time between refreshes"),
          ParamSpec{"on_expiry",
                    ParamType::kEnum,
                    "keep",
                    "keep: the Go client (RPCs retried forever, the lease kept); zero: an expired "
                    "lease becomes 0; safe_capacity: the last safe_capacity received",
                    {"keep", "zero", "safe_capacity"},
                    false},
          ParamSpec{"qps_timer",
                    ParamType::kEnum,
                    "restarted",
                    "restarted: every waiting request re-arms the release timer (ratelimiter.go); "
                    "periodic: releases keep their interval",
                    {"restarted", "periodic"},
                    false},
          param("max_wait", ParamType::kDuration, "1s",
                "how long a request waits for a release before it is refused (its context)"),
          param("release_on_stop", ParamType::kBool, true,
                "a stopping instance releases its leases (Client.Close)")};
}

StrategyInfo declare_doorman() {
  return StrategyInfo{
      "doorman",
      "YouTube's Doorman: a capacity server (a Lua script on the Redis node) leases each "
      "process a share of the rate (FAIR_SHARE, PROPORTIONAL_SHARE, ...) refreshed every "
      "refresh_interval; the process's qps rate limiter spends it",
      "Models Doorman (github.com/youtube/doorman, master e2b69e17, 2016) as its Go source "
      "implements it: go/server/doorman/{server,resource,store,algorithm}.go, "
      "go/client/doorman/client.go, go/connection/connection.go, go/ratelimiter/ratelimiter.go. "
      "Each limit is a Doorman resource per key (user, ip, ...) whose capacity is a rate, by "
      "default the limit per window (100 per minute: 1.667 per second). Every instance is a "
      "Doorman client: when it first sees a key it adds the resource (wants: the whole "
      "capacity) and sends one GetCapacity for all its resources; then one every refresh "
      "interval of the leases (at least minimum_refresh_interval, the client's 5 s default). "
      "wants is the arrival rate of the resource on that instance since the previous "
      "GetCapacity (Ask rejects 0: no arrivals keeps the old wants). The server is a Lua script "
      "on the Redis node, run once per GetCapacity: a hash per resource holds each client's "
      "lease (has, wants, expiry); expired leases are cleaned, then the algorithm's arithmetic "
      "as algorithm.go has it: NO_ALGORITHM (has = wants), STATIC (min(capacity, wants), "
      "capacity per client), PROPORTIONAL_SHARE (what it wants when the stored wants fit, else "
      "the equal share plus a top-up in proportion to its need over the equal share) or "
      "FAIR_SHARE (the equal share, then two rounds of redistributing what modest clients leave), "
      "never more than the capacity not yet leased to others: a new client gets nothing until "
      "the others' refreshes shrink their leases. The lease lasts lease_length from the server's "
      "clock and comes with safe_capacity (the configured one, or capacity / clients). Learning "
      "mode: for learning_mode_duration (default lease_length) after the server becomes master, "
      "each client is granted what it says it has (0 for a new client). The run starts with a "
      "server that has been master for long; a redis_restart loses the leases and the master "
      "time, so the next GetCapacity starts learning mode, as a new master after an election. "
      "A failed GetCapacity (error or timeout; the Go client has no deadline, here the scenario's "
      "redis.timeout): the Go client's connection.ExecuteRPC retries forever (backoff 1.3^n s, at "
      "most 60 s), so performRequests never sees the error and the lease is kept however long "
      "the outage (on_expiry keep, the default). on_expiry zero: the failure branch of "
      "performRequests as written, a lease expired on the process's clock becomes capacity 0; "
      "on_expiry safe_capacity: the design doc's safe mode, the last safe_capacity received (-1 "
      "no limit, 0 stop). The rate limiter (qpsRateLimiter): capacity <= 10 releases one waiter "
      "every int(1000 / capacity) ms; above, int(capacity) per second split into at most 50 "
      "subintervals of at least 20 ms, the remainder front-loaded into the first release, and a "
      "cycle of subintervals + 1 releases; 0 (also before the first lease) blocks, < 0 is "
      "unlimited. A request waits for a release, first come first served, and is refused after "
      "max_wait (the caller's context deadline); a release nobody waits for is lost. Several "
      "limits are waited on in turn under that one deadline: a limiter releases its oldest "
      "waiter, which has little of its deadline left, so a second limit refuses much of what the "
      "first releases. qps_timer "
      "restarted (the default, as the code is written): the release timer is re-armed on every "
      "pass of the limiter's loop, so every new waiter postpones the next release by a full "
      "interval, and a process whose requests come closer together than the interval releases "
      "almost nothing; periodic: re-armed only by a release and by a new capacity. Simplified: "
      "one server (no tree of servers, no election), one subclient per client, priorities "
      "ignored, sums recomputed over the leases in sorted order (Doorman keeps running sums), "
      "a retry resends fresh wants, a client that saw no request since its last GetCapacity "
      "refreshes again at its next request (Doorman's keeps refreshing its old wants), a "
      "stopped instance releases its leases when release_on_stop (Client.Close) and its "
      "waiting requests are refused at their deadline.",
      doorman_params(),
      Algorithm::kTokenBucket,
      construct<Doorman>,
      doorman_shape,
      check_doorman};
}

const StrategyRegistration kDoormanRegistration(280, declare_doorman);

}  // namespace
}  // namespace rlsim
