// haproxy_stick_table: HAProxy 2.6's rate limiting with a stick table, as its source computes it:
//   stick-table type string size 100k expire 30s store http_req_rate(10s) [peers mypeers]
//   http-request track-sc0 hdr(x-key)
//   http-request deny deny_status 429 if { sc_http_req_rate(0) gt 10 }
// The counter is a freq_ctr (include/haproxy/freq_ctr.h, src/freq_ctr.c): the current period's
// count, the previous one's, and the millisecond tick the current period started; the rate read
// is the previous count weighted by the part of the period still to run plus the current count.
// Every tracked request counts, denied ones too (the track rule runs before the deny rule). Each
// HAProxy has its own table; with `peers` each local update is pushed to the other instances,
// which overwrite their entry with it (src/peers.c): counts do not add up, the last write wins.
#include <fmt/format.h>

#include <array>
#include <deque>
#include <unordered_map>

#include "strategy/registry.h"

namespace rlsim {
namespace {

struct HaproxyParams {
  std::optional<DurationUs> period_us;  // http_req_rate(<period>); nullopt: each limit's window
  std::optional<std::int64_t> gt;       // sc_http_req_rate(0) gt <gt>; nullopt: each limit's limit
  bool peers = false;
  DurationUs peers_delay_us = kUsPerMs;

  std::uint32_t period_ms(const Limit& limit) const {
    return static_cast<std::uint32_t>(
        std::max<DurationUs>(1, period_us.value_or(limit.window_us) / kUsPerMs));
  }
};

HaproxyParams parse_haproxy_params(const ParamReader& params) {
  return HaproxyParams{params.optional_duration_us("http_req_rate"),
                       params.optional_integer("sc_http_req_rate_gt"), params.boolean("peers"),
                       params.duration_us("peers_delay")};
}

// struct freq_ctr: HAProxy's 32-bit millisecond ticks, wrapping as HAProxy's do.
struct FreqCtr {
  std::uint32_t curr_tick = 0;
  std::uint32_t curr_ctr = 0;
  std::uint32_t prev_ctr = 0;
};

// update_freq_ctr_period(ctr, period, 1) at `now_ms`: within the period the count goes up; else
// the period rotates by one period (the current count becomes the previous one), or restarts at
// now when two or more periods passed; the tick is kept even (its low bit is HAProxy's lock).
void freq_ctr_add(FreqCtr& ctr, std::uint32_t period, std::uint32_t now_ms) {
  if (now_ms - ctr.curr_tick < period) {
    ++ctr.curr_ctr;
    return;
  }
  ctr.prev_ctr = ctr.curr_ctr;
  ctr.curr_ctr = 1;
  std::uint32_t tick = ctr.curr_tick + period;
  if (now_ms - tick >= period) {
    ctr.prev_ctr = 0;
    tick = now_ms;
  }
  ctr.curr_tick = tick & ~1U;
}

// read_freq_ctr_period (freq_ctr_total with no pending events, divided by the period): the
// previous count times the ms left in the current period, plus the current count times the
// period, over the period (integer division); 0 or 1 previous and nothing current reads as is.
std::uint32_t freq_ctr_read(const FreqCtr& ctr, std::uint32_t period, std::uint32_t now_ms) {
  std::uint64_t curr = ctr.curr_ctr;
  std::uint64_t past = ctr.prev_ctr;
  auto remain = static_cast<std::int32_t>(ctr.curr_tick + period - now_ms);
  if (remain < 0) {
    remain += static_cast<std::int32_t>(period);
    past = remain >= 0 ? curr : 0;
    curr = 0;
  }
  if (curr == 0 && past <= 1) return static_cast<std::uint32_t>(past);
  const std::uint64_t total =
      past * static_cast<std::uint64_t>(std::max(remain, 0)) + curr * period;
  return static_cast<std::uint32_t>(total / period);
}

class HaproxyStickTable final : public Strategy, public EventTarget {
 public:
  explicit HaproxyStickTable(StrategyEnv env)
      : env_(std::move(env)), params_(parse_haproxy_params(ParamReader(env_.params))) {
    for (const Limit& limit : env_.limits) {
      periods_.push_back(params_.period_ms(limit));
      thresholds_.push_back(params_.gt.value_or(limit.limit));
    }
  }

  Task<Decision> decide(Request request, const Instance& instance) override {
    co_return decide_now(request, instance);
  }

  void on_instance_start(const Instance& instance) override {
    if (tables_.size() <= instance.id) {
      tables_.resize(instance.id + 1);
      running_.resize(instance.id + 1, nullptr);
    }
    tables_[instance.id].assign(env_.limits.size(), {});
    running_[instance.id] = &instance;
  }
  void on_instance_stop(const Instance& instance) override {
    tables_[instance.id] = {};  // HAProxy's tables are in its memory (no peer resync modelled)
    running_[instance.id] = nullptr;
  }

  void write_metrics(nlohmann::ordered_json& out) const override {
    if (params_.peers) out["peer_updates_applied"] = peer_updates_applied_;
  }

  // A peer update arrives: the receiver overwrites its entry (peer_treat_updatemsg).
  void on_event(std::uint64_t) override {
    const PeerUpdate update = pending_.front();
    pending_.pop_front();
    const Instance* receiver = running_[update.to];
    if (receiver == nullptr) return;
    FreqCtr& entry = tables_[update.to][update.limit][update.key];
    // The tick travels as an age (now_ms - curr_tick) and is rebuilt on the receiver's clock.
    entry.curr_tick = (now_ms(*receiver) - update.tick_age_ms) & ~1U;
    entry.curr_ctr = update.curr_ctr;
    entry.prev_ctr = update.prev_ctr;
    ++peer_updates_applied_;
  }

 private:
  using Table = std::unordered_map<std::uint64_t, FreqCtr>;  // key id -> the entry's counter
  struct PeerUpdate {
    std::uint32_t to = 0;
    std::size_t limit = 0;
    std::uint64_t key = 0;
    std::uint32_t tick_age_ms = 0;
    std::uint32_t curr_ctr = 0;
    std::uint32_t prev_ctr = 0;
  };

  // HAProxy's now_ms: the date in milliseconds, 32 bits.
  std::uint32_t now_ms(const Instance& instance) const {
    return static_cast<std::uint32_t>(instance.local_unix_us(env_.sim.now()) / kUsPerMs);
  }

  // track-scN per limit (each counts the request), then the deny rule reads every counter.
  Decision decide_now(const Request& request, const Instance& instance) {
    const std::uint32_t now = now_ms(instance);
    Decision decision;
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      const std::uint64_t key = Catalog::key_id(request, env_.limits[i].key);
      FreqCtr& entry = tables_[instance.id][i][key];
      freq_ctr_add(entry, periods_[i], now);
      if (params_.peers) push(instance.id, i, key, entry, now);
      const std::uint32_t rate = freq_ctr_read(entry, periods_[i], now);
      if (i == 0) decision.counted_before = static_cast<std::int64_t>(rate) - 1;
      if (rate > thresholds_[i]) decision.deny_for(i);
    }
    return decision;
  }

  // stktable_touch_local wakes the peers task, which sends the entry to every peer.
  void push(std::uint32_t from, std::size_t limit, std::uint64_t key, const FreqCtr& entry,
            std::uint32_t now) {
    for (std::uint32_t to = 0; to < running_.size(); ++to) {
      if (to == from || running_[to] == nullptr) continue;
      pending_.push_back(
          PeerUpdate{to, limit, key, now - entry.curr_tick, entry.curr_ctr, entry.prev_ctr});
      env_.sim.schedule(env_.sim.now() + params_.peers_delay_us, this);
    }
  }

  StrategyEnv env_;
  HaproxyParams params_;
  std::vector<std::uint32_t> periods_;      // per limit, ms
  std::vector<std::int64_t> thresholds_;    // per limit
  std::vector<std::vector<Table>> tables_;  // [instance id][limit index]
  std::vector<const Instance*> running_;    // [instance id], null when stopped
  std::deque<PeerUpdate> pending_;          // in flight, in arrival order (fixed delay)
  std::int64_t peer_updates_applied_ = 0;
};

StrategyInfo declare_haproxy_stick_table() {
  StrategyInfo info{
      "haproxy_stick_table",
      "HAProxy's stick table: http_req_rate(period), a sliding estimate over the current and "
      "previous period per HAProxy (N instances admit N x), or replicated between them by peers",
      "Models HAProxy 2.6's track-sc0 with a stick table storing http_req_rate(<period>) and "
      "`http-request deny if { sc_http_req_rate(0) gt <N> }`, as its source computes it "
      "(include/haproxy/freq_ctr.h update_freq_ctr_period, src/freq_ctr.c freq_ctr_total, "
      "src/http_ana.c the track-sc action, src/peers.c the replication). Per key the counter "
      "keeps the current period's count, the previous one's and the even millisecond the "
      "current period started (the first request starts it, then it moves by whole periods, or "
      "restarts when two passed). The rate read is (previous * ms left in the period + current * "
      "period) / period, integer, and includes this request: every tracked request counts, "
      "denied ones too, so a client that keeps sending stays denied; a request is denied when "
      "the rate is above the threshold. Each limit is one track-scN on its own table. Each "
      "instance is one HAProxy with its own table: N instances admit N x the threshold. With "
      "peers, every local update sends the entry's counters to the other instances after "
      "peers_delay, and the receiver overwrites its entry with them (the tick travels as an "
      "age): counts from two instances do not add up, the last write wins, so requests on two "
      "instances within peers_delay are counted once. Simplified: no table size or expire "
      "(entries never evicted; an entry idle for two periods reads 0 anyway), no resync of a "
      "new instance from its peers, no peer_partition faults on the peer links, HAProxy's "
      "multi-threaded counters as one.",
      {param("http_req_rate", ParamType::kDuration, nullptr,
             "the period of the table's http_req_rate(<period>) (default: each limit's window)"),
       param("sc_http_req_rate_gt", ParamType::kInt, nullptr,
             "deny when sc_http_req_rate is greater than this (default: each limit's limit)"),
       param("peers", ParamType::kBool, false,
             "the instances' tables are replicated by a peers section"),
       param("peers_delay", ParamType::kDuration, "1ms",
             "with peers: from a local update to the peer overwriting its entry")},
      Algorithm::kSlidingCounter,
      construct<HaproxyStickTable>,
      nullptr,
      nullptr};
  info.per_instance_limit = true;
  return info;
}

const StrategyRegistration kHaproxyStickTableRegistration(300, declare_haproxy_stick_table);

}  // namespace
}  // namespace rlsim
