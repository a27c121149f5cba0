// sharded_global: the lesson's sharded global counter. A global limit is spread over N sub-keys:
//   INCR rl:global:<window>:s<random k>; EXPIRE it <2 windows>     (writes spread over N keys)
//   MGET rl:global:<window>:s0 ... s<N-1>; total = sum               (every read touches N keys)
// allowed while total <= limit. Limits keyed on user, ip or endpoint keep a plain counter.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/check.h"
#include "strategy/clock_source.h"
#include "strategy/hybrid.h"
#include "strategy/registry.h"
#include "strategy/reply_check.h"

namespace rlsim {
namespace {

// When a request reads the total: in the pipeline of its INCR, or in a second round trip.
enum class ShardRead { kPipelined, kAfterIncr };

struct ShardedGlobalParams {
  std::int64_t shards = 10;
  ShardRead read = ShardRead::kPipelined;
  bool hash_tags = false;  // one Redis Cluster slot per shard, read with a GET each
  RedisCallParams call;    // on_error, clock, clock_refresh
  bool read_after_incr() const { return read == ShardRead::kAfterIncr; }
};

ShardedGlobalParams parse_sharded_global_params(const ParamReader& params) {
  return ShardedGlobalParams{
      params.integer("shards"),
      params.choice<ShardRead>(
          "read", {{"pipelined", ShardRead::kPipelined}, {"after_incr", ShardRead::kAfterIncr}}),
      params.boolean("hash_tags"), parse_redis_call_params(params)};
}

class ShardedGlobal final : public Strategy {
 public:
  // Bounds the MGET each request sends and the per-shard counters.
  static constexpr std::int64_t kMaxShards = 1000;

  explicit ShardedGlobal(StrategyEnv env)
      : env_(std::move(env)),
        prefixes_(redis_key_prefixes(env_.limits)),
        params_(parse_sharded_global_params(ParamReader(env_.params))),
        clock_(params_.call.clock, env_.sim, env_.redis),
        increments_(env_.limits.size()) {
    RLSIM_CHECK(params_.shards <= kMaxShards);  // the registry's check rejected larger values
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      if (env_.limits[i].key == LimitKey::kGlobal)
        increments_[i].assign(static_cast<std::size_t>(params_.shards), 0);
    }
  }

  Task<Decision> decide(Request request, const Instance& instance) override {
    // The windows from the instance's clock, or from TIME (the `clock` parameter).
    ClockSource::Base base;
    if (clock_.kind() != ClockSource::Kind::kLocal && !co_await clock_.begin(instance, base))
      co_return time_failed_decision(params_.call.fail_open());
    Plan plan = plan_for(request, clock_.now_us(base, instance));
    RedisPipeline write_call = env_.redis.pipeline(std::move(plan.writes));
    std::vector<Reply> replies = co_await write_call;
    spare_commands_.give_back(write_call);
    std::vector<Reply> totals;
    if (params_.read_after_incr()) {
      // The lesson's global_incr() and then global_total(): a second round trip, during which
      // other instances' increments land and are counted too.
      RedisPipeline read_call = env_.redis.pipeline(std::move(plan.reads));
      totals = co_await read_call;
      spare_commands_.give_back(read_call);
    } else {
      // MGET right behind the INCR in the same pipeline (the default).
      const std::size_t writes = 2 * env_.limits.size();  // INCR + EXPIRE per limit
      for (std::size_t r = writes; r < replies.size(); ++r) totals.push_back(std::move(replies[r]));
      replies.resize(writes);
    }
    co_return judge(replies, totals);
  }

  void on_instance_stop(const Instance& instance) override { clock_.forget(instance); }
  void write_metrics(nlohmann::ordered_json& out) const override {
    clock_.write_metrics(out);
    out["shards"] = params_.shards;
    nlohmann::ordered_json limits = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      const auto& counts = increments_[i];
      if (counts.empty()) continue;
      std::int64_t total = 0;
      for (const std::int64_t count : counts) total += count;
      const std::int64_t hottest = *std::max_element(counts.begin(), counts.end());
      nlohmann::ordered_json entry;
      entry["limit"] = env_.limits[i].name;
      entry["increments_per_shard"] = counts;
      entry["max_shard_increments"] = hottest;
      entry["min_shard_increments"] = *std::min_element(counts.begin(), counts.end());
      // The hottest key's share of the writes: 1.0 for one global key, about 1/N when sharded.
      entry["hottest_key_share"] =
          total == 0 ? 0.0
                     : static_cast<double>(std::llround(10000.0 * static_cast<double>(hottest) /
                                                        static_cast<double>(total))) /
                           10000.0;
      entry["keys_read_per_request"] = params_.shards;
      limits.push_back(entry);
    }
    out["global_limits"] = limits;
  }

 private:
  // The commands of one request: `writes` has INCR + EXPIRE per limit (the global ones on a random
  // shard), then, with read = "pipelined", the reads; `reads` holds them with read = "after_incr":
  // one MGET per global limit, or with hash tags one GET per shard.
  struct Plan {
    std::vector<Command> writes;
    std::vector<Command> reads;
  };

  void assign_shard_key(std::string& key, std::size_t limit_index, std::int64_t window,
                        std::int64_t shard) const {
    const std::string& prefix = prefixes_[limit_index];
    if (!params_.hash_tags) {  // rl:global:<window>:s3
      key.assign(prefix);
      append_decimal(key, window);
      key += ":s";
      append_decimal(key, shard);
      return;
    }
    // rl:{global-s3}:<window>: the hash tag puts each shard in its own Redis Cluster slot.
    key.assign("rl:{");
    key.append(prefix, 3, prefix.size() - 4);  // "rl:global:" -> "global"
    key += "-s";
    append_decimal(key, shard);
    key += "}:";
    append_decimal(key, window);
  }

  // Filled into finished pipelines' argvs: a request allocates no command once they have grown.
  Plan plan_for(const Request& request, TimeUs now_unix_us) {
    std::size_t read_commands = 0;
    for (const Limit& limit : env_.limits)
      if (limit.key == LimitKey::kGlobal)
        read_commands += params_.hash_tags ? static_cast<std::size_t>(params_.shards) : 1;
    const std::size_t write_commands = 2 * env_.limits.size();
    PipelineBuilder writes(spare_commands_.take_pipeline(),
                           write_commands + (params_.read_after_incr() ? 0 : read_commands));
    windows_.resize(env_.limits.size());
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      const Limit& limit = env_.limits[i];
      const std::int64_t window = hybrid::window_at(limit, now_unix_us);
      windows_[i] = window;
      Command& incr = writes.next(2);
      incr[0].assign("INCR");
      if (limit.key == LimitKey::kGlobal) {
        const auto shard =
            static_cast<std::int64_t>(env_.rng.below(static_cast<std::uint64_t>(params_.shards)));
        ++increments_[i][static_cast<std::size_t>(shard)];
        assign_shard_key(incr[1], i, window, shard);
      } else {
        hybrid::assign_counter_key(incr[1], prefixes_[i], env_.catalog, request, limit, window);
      }
      hybrid::assign_expire_two_windows(writes.next(hybrid::kExpireWords), incr[1], limit);
    }
    // The reads follow every write: in the same pipeline (the default) or in their own.
    std::vector<Command> read_spare;
    if (params_.read_after_incr()) read_spare = spare_commands_.take_pipeline();
    PipelineBuilder separate_reads(std::move(read_spare),
                                   params_.read_after_incr() ? read_commands : 0);
    PipelineBuilder& reads = params_.read_after_incr() ? separate_reads : writes;
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      if (env_.limits[i].key != LimitKey::kGlobal) continue;
      if (params_.hash_tags) {
        // One slot per shard: a cluster rejects an MGET across slots (CROSSSLOT), so each
        // shard is read with its own GET, which a cluster client sends to the shard's node.
        for (std::int64_t k = 0; k < params_.shards; ++k) {
          Command& get = reads.next(2);
          get[0].assign("GET");
          assign_shard_key(get[1], i, windows_[i], k);
        }
      } else {
        Command& mget = reads.next(1 + static_cast<std::size_t>(params_.shards));
        mget[0].assign("MGET");
        for (std::int64_t k = 0; k < params_.shards; ++k)
          assign_shard_key(mget[1 + static_cast<std::size_t>(k)], i, windows_[i], k);
      }
    }
    Plan plan;
    plan.writes = writes.finish();
    plan.reads = separate_reads.finish();
    return plan;
  }

  // writes: INCR, EXPIRE per limit; totals: per global limit, in limit order, one MGET reply, or
  // with hash tags one GET reply per shard.
  Decision judge(const std::vector<Reply>& writes, const std::vector<Reply>& totals) const {
    Decision decision;
    std::size_t next_total = 0;
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      const Reply& incr = writes[2 * i];
      // A reply of the wrong type (a misbehaving server) is a failed call, like an error.
      const bool incr_failed = !is_integer(incr);
      if (incr_failed || !is_integer(writes[2 * i + 1])) decision.error = true;
      bool failed = incr_failed;
      std::int64_t count = incr.integer;
      if (env_.limits[i].key == LimitKey::kGlobal) {
        const std::size_t replies =
            params_.hash_tags ? static_cast<std::size_t>(params_.shards) : 1;
        bool read_failed = false;
        count = 0;
        for (std::size_t r = next_total; r < next_total + replies; ++r) {
          const auto value = params_.hash_tags
                                 ? counter_value(totals[r])
                                 : counter_sum(totals[r], static_cast<std::size_t>(params_.shards));
          read_failed = read_failed || !value;
          count += value.value_or(0);
        }
        next_total += replies;
        failed = failed || read_failed;
        if (read_failed) {
          decision.error = true;
          count = 0;
        }
        // What this request saw of the others: the total minus its own increment.
        if (i == 0 && !read_failed) decision.observed_count = count - (incr_failed ? 0 : 1);
      }
      decision.judge_count(i, failed, count, env_.limits[i].limit, params_.call.fail_open());
    }
    return decision;
  }

  StrategyEnv env_;
  std::vector<std::string> prefixes_;
  ShardedGlobalParams params_;
  ClockSource clock_;
  std::vector<std::vector<std::int64_t>> increments_;  // [limit index][shard], global limits only
  std::vector<std::int64_t> windows_;                  // plan_for's window per limit (reused)
  SpareCommands spare_commands_;
};

StrategyInfo sharded_global_info() {
  return {
      "sharded_global",
      "global limit spread over N sub-counters: INCR a random shard, MGET all N for the total",
      "The lesson's sharded global counter for a limit keyed on global: instead of one hot key, N "
      "sub-keys rl:global:<window>:s<k> (shards, default 10). Each request sends INCR to a random "
      "shard plus EXPIRE <2 windows>, and reads the total with MGET over all N shards; it is "
      "allowed while the total is at most the limit. With read = pipelined (the default) the MGET "
      "rides in the same pipeline as the INCR, one round trip; with after_incr it is a second "
      "round trip, as in the lesson's two functions, and the total also counts what other "
      "instances added in between. Limits keyed on user, ip or endpoint use a plain INCR + EXPIRE "
      "counter in the same pipeline. The trade-off: the hottest key takes 1/N of the writes "
      "(strategy_metrics shows the spread), but every read touches N keys, and the total a request "
      "reads is not the exact count at its decision (the oracle's staleness). hash_tags = true "
      "names shards rl:{global-s<k>}:<window> so that each lands in its own Redis Cluster slot; "
      "the total is then read with one GET per shard (a cluster refuses an MGET across slots "
      "with CROSSSLOT), which a cluster client sends to each shard's node. Without hash_tags, on "
      "a cluster (redis.cluster) the MGET of N > 1 shards fails with CROSSSLOT.",
      own_then_redis_call_params(
          {{"shards",
            ParamType::kInt,
            10,
            "number of sub-counters the global limit is spread over",
            {},
            false},
           {"read",
            ParamType::kEnum,
            "pipelined",
            "pipelined: MGET in the same round trip as the INCR; after_incr: MGET in a second "
            "round "
            "trip after the INCR reply",
            {"pipelined", "after_incr"},
            false},
           {"hash_tags",
            ParamType::kBool,
            false,
            "false: keys rl:global:<window>:s<k> read with one MGET (lesson section 3); true: "
            "rl:{global-s<k>}:<window>, one Redis Cluster slot per shard, read with one GET per "
            "shard (lesson section 6)",
            {},
            false}}),
      Algorithm::kFixedWindow,
      construct<ShardedGlobal>,
      nullptr,
      [](const ParamReader& params, const std::string&, std::string& field, std::string& error) {
        const std::int64_t shards = parse_sharded_global_params(params).shards;
        if (shards <= ShardedGlobal::kMaxShards) return true;
        field = "shards";
        error = fmt::format("expected a positive integer of at most {}, got {}",
                            ShardedGlobal::kMaxShards, shards);
        return false;
      }};
}

const StrategyRegistration kShardedGlobalRegistration(100, sharded_global_info);

}  // namespace

}  // namespace rlsim
