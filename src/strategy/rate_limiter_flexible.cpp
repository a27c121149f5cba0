// rate_limiter_flexible: RateLimiterRedis of the Node.js package rate-limiter-flexible
// (animir/node-rate-limiter-flexible 11.1.0, master 3c9c8262), as lib/RateLimiterRedis.js,
// lib/RateLimiterStoreAbstract.js, lib/RateLimiterInsuredAbstract.js, lib/RateLimiterMemory.js and
// lib/component/{BlockedKeys,MemoryStorage} implement it (docs/products.md):
//   every consume runs one script (SET NX EX, INCRBY, PTTL): the key's window starts at its first
//     consume and ends when Redis expires it (server time), and every consume counts, rejected
//     ones too; rejected when the count after it is above points.
//   blockDuration: the first consume over points SETs the key to its count for blockDuration.
//   inMemoryBlockOnConsumed / inMemoryBlockDuration: a process that saw a count at least
//     inMemoryBlockOnConsumed rejects that key itself, without Redis, for inMemoryBlockDuration
//     (or, without it, until the Redis window ends).
//   insuranceLimiter: on a store error the consume goes to a RateLimiterMemory of the process;
//     its counts are never copied back to Redis.
#include <fmt/format.h>

#include <unordered_map>

#include "strategy/registry.h"
#include "strategy/reply_check.h"
#include "strategy/script.h"

namespace rlsim {
namespace {

// incrTtlLuaScript as ioredis receives it: the JS template literal's backslash-newlines join its
// lines into one, so the text (and its SHA1, a1de965f...) is the product's.
constexpr const char* kIncrTtlScript =
    "redis.call('set', KEYS[1], 0, 'EX', ARGV[2], 'NX') "
    "local consumed = redis.call('incrby', KEYS[1], ARGV[1]) "
    "local ttl = redis.call('pttl', KEYS[1]) "
    "if ttl == -1 then "
    "  redis.call('expire', KEYS[1], ARGV[2]) "
    "  ttl = 1000 * ARGV[2] "
    "end "
    "return {consumed, ttl} ";

// BlockedKeys collects expired keys once a process holds more than this many (and so does the
// insurance storage here, whose records the product deletes with timers).
constexpr std::size_t kCollectAbove = 999;

struct RlfParams {
  std::optional<std::int64_t> points;     // nullopt: each limit's limit
  std::optional<DurationUs> duration_us;  // nullopt: each limit's window
  DurationUs block_duration_us = 0;
  std::int64_t in_memory_block_on_consumed = 0;  // 0: off
  std::int64_t in_memory_block_duration_s = 0;   // whole seconds, as the product's parseInt
  bool insurance = false;
  std::optional<std::int64_t> insurance_points;     // nullopt: points
  std::optional<DurationUs> insurance_duration_us;  // nullopt: duration
  std::string key_prefix;
};

RlfParams parse_rlf_params(const ParamReader& params) {
  return RlfParams{params.optional_integer("points"),
                   params.optional_duration_us("duration"),
                   params.duration_us("blockDuration"),
                   params.integer("inMemoryBlockOnConsumed"),
                   params.duration_us("inMemoryBlockDuration") / kUsPerS,
                   params.boolean("insuranceLimiter"),
                   params.optional_integer("insurancePoints"),
                   params.optional_duration_us("insuranceDuration"),
                   params.string("keyPrefix")};
}

// "inMemoryBlockOnConsumed option must be greater or equal "points" option", or "" when fine.
std::string in_memory_block_error(std::int64_t points, std::int64_t on_consumed) {
  if (on_consumed > 0 && points > on_consumed)
    return fmt::format(
        "inMemoryBlockOnConsumed option must be greater or equal \"points\" option (points {}, "
        "inMemoryBlockOnConsumed {})",
        points, on_consumed);
  return "";
}

// One RateLimiterRedis per scenario limit.
struct Limiter {
  std::int64_t points = 0;
  DurationUs duration_us = 0;
  std::int64_t sec_duration = 0;  // Math.floor(msDuration / 1000): the key's EX
  std::string duration_text;      // String(this.duration), the script's unused ARGV[4]
  std::int64_t insurance_points = 0;
  DurationUs insurance_duration_us = 0;
  std::string prefix;  // "rlflx:user:": the key is the prefix and the request's value
};

// JS's String() of a number of seconds: "60", "1.5".
std::string seconds_text(DurationUs us) {
  if (us % kUsPerS == 0) return std::to_string(us / kUsPerS);
  return fmt::format("{}", static_cast<double>(us) / kUsPerS);
}

// The script's arguments (built outside coroutine bodies: GCC 12 and braced lists).
std::vector<std::string> script_arguments(const Limiter& limiter, const std::string& key) {
  return {key, "1", std::to_string(limiter.sec_duration), std::to_string(limiter.points),
          limiter.duration_text};
}
// _upsert without a whole second of duration: multi INCRBY + PTTL, and no expiry ever.
std::vector<Command> incr_pttl_commands(const std::string& key) {
  return {command("INCRBY", key, "1"), command("PTTL", key)};
}
// _block: multi SET (EX only for a whole second or more) + PTTL.
std::vector<Command> block_commands(const std::string& key, std::int64_t points,
                                    std::int64_t sec_duration) {
  std::vector<Command> commands;
  if (sec_duration > 0)
    commands.push_back(
        command("SET", key, std::to_string(points), "EX", std::to_string(sec_duration)));
  else
    commands.push_back(command("SET", key, std::to_string(points)));
  commands.push_back(command("PTTL", key));
  return commands;
}

// [consumed, ttl in ms] from the script's array or the pipeline's two integers.
struct Consumed {
  std::int64_t points = 0;
  std::int64_t ttl_ms = 0;
};
std::optional<Consumed> consumed_of(const Reply& consumed, const Reply& ttl) {
  if (!is_integer(consumed) || !is_integer(ttl)) return std::nullopt;
  return Consumed{consumed.integer, ttl.integer};
}

struct Outcome {
  bool allowed = true;
  bool error = false;
  std::int64_t count_before = -1;  // the count the limiter saw, before this consume
};

class RateLimiterFlexible final : public Strategy {
 public:
  explicit RateLimiterFlexible(StrategyEnv env)
      : env_(std::move(env)),
        params_(parse_rlf_params(ParamReader(env_.params))),
        script_("rate_limiter_flexible", kIncrTtlScript) {
    const std::vector<std::string> prefixes = redis_key_prefixes(env_.limits);
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      Limiter limiter;
      limiter.points = params_.points.value_or(env_.limits[i].limit);
      limiter.duration_us = params_.duration_us.value_or(env_.limits[i].window_us);
      limiter.sec_duration = limiter.duration_us / kUsPerS;
      limiter.duration_text = seconds_text(limiter.duration_us);
      limiter.insurance_points = params_.insurance_points.value_or(limiter.points);
      limiter.insurance_duration_us = params_.insurance_duration_us.value_or(limiter.duration_us);
      // getKey: "<keyPrefix>:<key>", the app's key being "user:42" (redis_key_prefixes without
      // its "rl:").
      const std::string app_prefix = prefixes[i].substr(3);
      limiter.prefix =
          params_.key_prefix.empty() ? app_prefix : params_.key_prefix + ":" + app_prefix;
      // The product's constructor throws; here the run stops before its first decision.
      const std::string error =
          in_memory_block_error(limiter.points, params_.in_memory_block_on_consumed);
      if (!error.empty()) fail(fmt::format("limit {}: {}", env_.limits[i].name, error));
      limiters_.push_back(std::move(limiter));
    }
  }

  // The app consumes each limit's limiter in turn (await a.consume(k); await b.consume(k)): the
  // first rejection stops the chain and answers 429.
  Task<Decision> decide(Request request, const Instance& instance) override {
    Decision decision;
    for (std::size_t i = 0; i < limiters_.size(); ++i) {
      const Outcome outcome = co_await consume(i, request, instance);
      if (i == 0) decision.observed_count = outcome.count_before;
      decision.error = decision.error || outcome.error;
      if (!outcome.allowed) {
        decision.deny_for(i);
        break;
      }
    }
    co_return decision;
  }

  void on_instance_start(const Instance& instance) override {
    if (processes_.size() <= instance.id) processes_.resize(instance.id + 1);
  }
  void on_instance_stop(const Instance& instance) override {
    Process& process = processes_[instance.id];
    const std::uint64_t epoch = process.epoch + 1;
    process = Process{};  // its blocked keys and insurance counters go with it
    process.epoch = epoch;
  }

  void write_metrics(nlohmann::ordered_json& out) const override {
    out["store_errors"] = store_errors_;
    out["script_reloads"] = reloads_;
    if (params_.insurance) {
      out["insurance_consumes"] = insurance_consumes_;
      out["insurance_rejected"] = insurance_rejected_;
    }
    if (params_.in_memory_block_on_consumed > 0) {
      out["in_memory_blocks"] = in_memory_blocks_;
      out["in_memory_rejected"] = in_memory_rejected_;
    }
    if (params_.block_duration_us > 0) out["redis_blocks"] = redis_blocks_;
  }

 private:
  // A RateLimiterMemory record (MemoryStorage's Record): expires_at_us on the process clock.
  struct Record {
    std::int64_t value = 0;
    std::optional<TimeUs> expires_at_us;
  };
  struct Process {
    std::unordered_map<std::string, std::int64_t> blocked_until_ms;  // BlockedKeys: Date.now()
    std::unordered_map<std::string, Record> insurance;               // its MemoryStorage
    std::uint64_t epoch = 0;  // bumped when the process stops: its pending consumes are stale
  };

  // Date.now(): the process's clock in whole milliseconds.
  std::int64_t now_ms(const Instance& instance) const {
    return instance.local_unix_us(env_.sim.now()) / kUsPerMs;
  }
  Process* alive(std::uint32_t id, std::uint64_t epoch) {
    return processes_[id].epoch == epoch ? &processes_[id] : nullptr;
  }

  std::string rl_key(std::size_t index, const Request& request) const {
    std::string key = limiters_[index].prefix;
    env_.catalog.append_key_text(key, request, env_.limits[index].key);
    return key;
  }

  Task<Outcome> consume(std::size_t index, const Request& request, const Instance& instance) {
    const Limiter& limiter = limiters_[index];
    const std::string key = rl_key(index, request);
    const std::uint32_t id = instance.id;
    const std::uint64_t epoch = processes_[id].epoch;
    Outcome outcome;
    // _consume: a key this process saw blocked is rejected before the store is asked.
    if (blocked_ms(processes_[id], key, now_ms(instance)) > 0) {
      ++in_memory_rejected_;
      outcome.allowed = false;
      co_return outcome;
    }
    const std::optional<Consumed> consumed = co_await upsert(limiter, key);
    if (!consumed) co_return insure(limiter, key, instance, epoch);
    outcome.count_before = consumed->points - 1;
    outcome.allowed = consumed->points <= limiter.points;
    Process* process = alive(id, epoch);
    const std::int64_t on_consumed = params_.in_memory_block_on_consumed;
    // _afterConsume, first branch: without inMemoryBlockDuration the key is blocked in memory
    // until the Redis window ends (msBeforeNext), and admitted if still within points.
    if (on_consumed > 0 && params_.in_memory_block_duration_s == 0 &&
        consumed->points >= on_consumed) {
      if (process != nullptr) block_in_memory(*process, key, now_ms(instance), consumed->ttl_ms);
      co_return outcome;
    }
    if (outcome.allowed) co_return outcome;
    if (on_consumed > 0 && consumed->points >= on_consumed && process != nullptr)
      block_in_memory(*process, key, now_ms(instance), params_.in_memory_block_duration_s * 1000);
    // blockDuration: only the first consume over points blocks the key.
    if (params_.block_duration_us > 0 && consumed->points <= limiter.points + 1) {
      ++redis_blocks_;
      if (!co_await block(key, consumed->points)) {
        outcome.error = true;
        // _block's error goes to the insurance limiter's block(); the consume is rejected either
        // way.
        if (Process* after = alive(id, epoch); after != nullptr && params_.insurance)
          memory_set(*after, key, limiter.insurance_points + 1, params_.block_duration_us,
                     now_ms(instance));
      }
    }
    co_return outcome;
  }

  Task<std::optional<Consumed>> upsert(const Limiter& limiter, const std::string& key) {
    if (limiter.sec_duration > 0) {
      const std::vector<std::string> arguments = script_arguments(limiter, key);
      const Reply reply = co_await script_.run(env_.redis, arguments, 1, reloads_);
      if (reply.type != Reply::Type::kArray || reply.elements.size() != 2) co_return std::nullopt;
      co_return consumed_of(reply.elements[0], reply.elements[1]);
    }
    const std::vector<Reply> replies = co_await env_.redis.pipeline(incr_pttl_commands(key));
    co_return consumed_of(replies[0], replies[1]);
  }

  Task<bool> block(const std::string& key, std::int64_t points) {
    const std::vector<Reply> replies = co_await env_.redis.pipeline(
        block_commands(key, points, params_.block_duration_us / kUsPerS));
    co_return replies[0].type == Reply::Type::kStatus&& is_integer(replies[1]);
  }

  // A store error: RateLimiterInsuredAbstract hands the consume to the insurance limiter, a
  // RateLimiterMemory of this process with the main limiter's blockDuration; without one the
  // promise rejects with the error, and an app that takes any rejection for "not enough points"
  // answers 429.
  Outcome insure(const Limiter& limiter, const std::string& key, const Instance& instance,
                 std::uint64_t epoch) {
    ++store_errors_;
    Outcome outcome;
    outcome.error = true;
    Process* process = alive(instance.id, epoch);
    if (!params_.insurance || process == nullptr) {
      outcome.allowed = false;
      return outcome;
    }
    ++insurance_consumes_;
    const std::int64_t now = now_ms(instance);
    const std::int64_t consumed = memory_incrby(*process, key, limiter.insurance_duration_us, now);
    outcome.count_before = consumed - 1;
    if (consumed <= limiter.insurance_points) return outcome;
    ++insurance_rejected_;
    outcome.allowed = false;
    if (params_.block_duration_us > 0 && consumed <= limiter.insurance_points + 1)
      memory_set(*process, key, consumed, params_.block_duration_us, now);
    return outcome;
  }

  // MemoryStorage.incrby: a live record counts on; an expired or missing one starts afresh.
  std::int64_t memory_incrby(Process& process, const std::string& key, DurationUs duration_us,
                             std::int64_t now) {
    const auto it = process.insurance.find(key);
    if (it != process.insurance.end() &&
        (!it->second.expires_at_us || *it->second.expires_at_us - now * kUsPerMs > 0))
      return ++it->second.value;
    memory_set(process, key, 1, duration_us, now);
    return 1;
  }
  void memory_set(Process& process, const std::string& key, std::int64_t value,
                  DurationUs duration_us, std::int64_t now) {
    if (process.insurance.size() > kCollectAbove) {
      std::erase_if(process.insurance, [now](const auto& entry) {
        return entry.second.expires_at_us && *entry.second.expires_at_us <= now * kUsPerMs;
      });
    }
    Record& record = process.insurance[key];
    record.value = value;
    record.expires_at_us =
        duration_us > 0 ? std::optional<TimeUs>(now * kUsPerMs + duration_us) : std::nullopt;
  }

  // BlockedKeys.addMs / msBeforeExpire (collectExpired past kCollectAbove keys).
  void block_in_memory(Process& process, const std::string& key, std::int64_t now,
                       std::int64_t ms) {
    ++in_memory_blocks_;
    process.blocked_until_ms[key] = now + ms;
    if (process.blocked_until_ms.size() > kCollectAbove)
      std::erase_if(process.blocked_until_ms,
                    [now](const auto& entry) { return entry.second <= now; });
  }
  static std::int64_t blocked_ms(const Process& process, const std::string& key, std::int64_t now) {
    const auto it = process.blocked_until_ms.find(key);
    if (it == process.blocked_until_ms.end() || it->second < now) return 0;
    return it->second - now;
  }

  StrategyEnv env_;
  RlfParams params_;
  Script script_;
  std::vector<Limiter> limiters_;   // per scenario limit
  std::vector<Process> processes_;  // by instance id
  std::uint64_t reloads_ = 0;
  std::int64_t store_errors_ = 0;
  std::int64_t insurance_consumes_ = 0;
  std::int64_t insurance_rejected_ = 0;
  std::int64_t in_memory_blocks_ = 0;
  std::int64_t in_memory_rejected_ = 0;
  std::int64_t redis_blocks_ = 0;
};

// The product's option checks (RateLimiterStoreAbstract's setters), and the insurance options
// only with an insurance limiter.
bool check_rate_limiter_flexible(const ParamReader& params, const std::string&, std::string& field,
                                 std::string& error) {
  const RlfParams rlf = parse_rlf_params(params);
  if (rlf.in_memory_block_duration_s > 0 && rlf.in_memory_block_on_consumed == 0) {
    field = "inMemoryBlockDuration";
    error = "inMemoryBlockOnConsumed option must be set up";
    return false;
  }
  if (!rlf.insurance && (rlf.insurance_points || rlf.insurance_duration_us)) {
    field = rlf.insurance_points ? "insurancePoints" : "insuranceDuration";
    error = "only with \"insuranceLimiter\": true";
    return false;
  }
  return true;
}

// The constructor's points check, for every limit: points defaults to each limit's limit, so
// `inMemoryBlockOnConsumed` below one limit's limit is refused at validate, not at the first run.
bool check_rlf_points(const ParamReader& params, const std::vector<Limit>& limits,
                      std::string& field, std::string& error) {
  const RlfParams rlf = parse_rlf_params(params);
  for (const Limit& limit : limits) {
    const std::string points_error =
        in_memory_block_error(rlf.points.value_or(limit.limit), rlf.in_memory_block_on_consumed);
    if (points_error.empty()) continue;
    field = "inMemoryBlockOnConsumed";
    error = rlf.points ? points_error : fmt::format("limit {}: {}", limit.name, points_error);
    return false;
  }
  return true;
}

StrategyInfo declare_rate_limiter_flexible() {
  return StrategyInfo{
      "rate_limiter_flexible",
      "rate-limiter-flexible's RateLimiterRedis: a window from each key's first consume, every "
      "consume counted; insuranceLimiter and the in-memory block",
      "Models RateLimiterRedis of the Node.js package rate-limiter-flexible as "
      "lib/RateLimiterRedis.js, lib/RateLimiterStoreAbstract.js, "
      "lib/RateLimiterInsuredAbstract.js, lib/RateLimiterMemory.js and lib/component/ "
      "(BlockedKeys, MemoryStorage) implement it (animir/node-rate-limiter-flexible 11.1.0, "
      "master 3c9c8262). Each scenario limit is one limiter with points (the limit) per "
      "duration (the window); the key is <keyPrefix>:<kind>:<value>, e.g. rlflx:user:42. Every "
      "consume sends the product's script (EVALSHA, EVAL after NOSCRIPT): SET key 0 EX "
      "floor(duration) NX, INCRBY key 1, PTTL. So the window of a key starts at its first "
      "consume and ends when Redis expires the key, on the server's clock (not aligned, not "
      "the app's clock), and every consume counts, rejected ones too; a consume is rejected "
      "when the count after it is above points. A duration under one second has no whole "
      "second to expire with: the product then sends INCRBY + PTTL and the key never expires. "
      "blockDuration: the first consume over points SETs the key to its count for "
      "blockDuration (under one second: with no expiry). inMemoryBlockOnConsumed (at least "
      "points): a process that got a count of at least that many rejects the key itself, "
      "without Redis, for inMemoryBlockDuration seconds, or, without inMemoryBlockDuration, "
      "until the Redis window ends (PTTL), admitting the consume that reached it if it was "
      "within points. insuranceLimiter: a failed or timed-out Redis call hands the consume to "
      "a RateLimiterMemory of the process (insurancePoints per insuranceDuration, its window "
      "from the key's first consume there, on the process clock, with the main blockDuration); "
      "its counts are never copied to Redis, so N processes admit up to N x insurancePoints "
      "per key while Redis fails, on top of what Redis admitted. Without it a failed call "
      "rejects the consume's promise with the error, which an app that takes any rejection "
      "for 'not enough points' (as the README's example does) answers with 429: a denial. Several "
      "limits are consumed one after another, the first rejection stopping "
      "the chain. Simplified: one Node.js process per instance; no execEvenly, "
      "rejectIfRedisNotReady, customDuration, penalty or reward; the multi of a sub-second "
      "duration or of blockDuration is sent as a plain pipeline; the Redis client timeout is "
      "the scenario's redis.timeout (ioredis has no command timeout by default and queues "
      "commands while disconnected).",
      {param("points", ParamType::kInt, nullptr,
             "requests per duration (the product requires it; default: the limit)"),
       param("duration", ParamType::kDuration, nullptr,
             "the window, from a key's first consume (the product's seconds; default: the "
             "limit's window; under 1s the Redis key never expires)"),
       param("blockDuration", ParamType::kDuration, "0s",
             "block a key this long from its first consume over points (0: no block)"),
       param("inMemoryBlockOnConsumed", ParamType::kInt, 0,
             "a process rejects a key itself once Redis counted this many (at least points; "
             "0: off)"),
       param("inMemoryBlockDuration", ParamType::kDuration, "0s",
             "how long, in whole seconds (0: until the Redis window ends)"),
       param("insuranceLimiter", ParamType::kBool, false,
             "true: a failed Redis call goes to a RateLimiterMemory of the process"),
       param("insurancePoints", ParamType::kInt, nullptr,
             "the insurance limiter's points (default: points; the wiki divides by the "
             "processes)"),
       param("insuranceDuration", ParamType::kDuration, nullptr,
             "the insurance limiter's duration (default: duration)"),
       param("keyPrefix", ParamType::kString, "rlflx", "the Redis key's prefix")},
      Algorithm::kFixedWindow,
      construct<RateLimiterFlexible>,
      nullptr,
      check_rate_limiter_flexible,
      /*per_instance_limit=*/false,
      check_rlf_points};
}

const StrategyRegistration kRateLimiterFlexibleRegistration(240, declare_rate_limiter_flexible);

}  // namespace
}  // namespace rlsim
