// multi_limit: the lesson's check_multi_limits(). For every limit (per user, per IP, per endpoint):
//   INCR rl:<kind>:<value>:<window>; EXPIRE rl:<kind>:<value>:<window> <2 windows>
// pipelined: all 2 x L commands in one round trip; otherwise one round trip per limit. Denied when
// any count exceeds its limit. This file also holds the helpers the four hybrid strategies share.
#include "strategy/clock_source.h"
#include "strategy/hybrid.h"
#include "strategy/registry.h"
#include "strategy/reply_check.h"

namespace rlsim {
namespace hybrid {

void assign_counter_key(std::string& key, const std::string& prefix, const Catalog& catalog,
                        const Request& request, const Limit& limit, std::int64_t window) {
  key.assign(prefix);
  catalog.append_key_text(key, request, limit.key);
  key += ':';
  append_decimal(key, window);  // no format parsing on the hot path
}

std::string counter_key(const std::string& prefix, const Catalog& catalog, const Request& request,
                        const Limit& limit, std::int64_t window) {
  std::string key;
  assign_counter_key(key, prefix, catalog, request, limit, window);
  return key;
}

void assign_expire_two_windows(Command& argv, const std::string& key, const Limit& limit) {
  RLSIM_CHECK(argv.size() == kExpireWords);
  const std::int64_t window_ms = limit.window_us / kUsPerMs;
  const bool whole_seconds = window_ms % 1000 == 0;
  argv[0].assign(whole_seconds ? "EXPIRE" : "PEXPIRE");
  argv[1].assign(key);
  argv[2].clear();
  append_decimal(argv[2], whole_seconds ? 2 * window_ms / 1000 : 2 * window_ms);
}

Command expire_two_windows(const std::string& key, const Limit& limit) {
  Command argv(kExpireWords);
  assign_expire_two_windows(argv, key, limit);
  return argv;
}

}  // namespace hybrid

namespace {

struct MultiLimitParams {
  bool pipelined = true;  // every limit in one round trip, or one round trip per limit
  RedisCallParams call;   // on_error, clock, clock_refresh
};

MultiLimitParams parse_multi_limit_params(const ParamReader& params) {
  return MultiLimitParams{params.boolean("pipelined"), parse_redis_call_params(params)};
}

class MultiLimit final : public Strategy {
 public:
  explicit MultiLimit(StrategyEnv env)
      : env_(std::move(env)),
        prefixes_(redis_key_prefixes(env_.limits)),
        params_(parse_multi_limit_params(ParamReader(env_.params))),
        clock_(params_.call.clock, env_.sim, env_.redis) {}

  Task<Decision> decide(Request request, const Instance& instance) override {
    const std::size_t limit_count = env_.limits.size();
    // INCR and EXPIRE for every limit, with each window computed once, at arrival, as the lesson
    // computes now_window once: on the instance's clock, or from TIME (the `clock` parameter).
    ClockSource::Base base;
    if (clock_.kind() != ClockSource::Kind::kLocal && !co_await clock_.begin(instance, base))
      co_return time_failed_decision(params_.call.fail_open());
    std::vector<Command> commands = commands_for(request, clock_.now_us(base, instance));
    std::vector<Reply> replies;
    if (params_.pipelined) {
      RedisPipeline call = env_.redis.pipeline(std::move(commands));
      replies = co_await call;
      spare_commands_.give_back(call);
    } else {
      // One round trip per limit, every limit sent even after one is over: the decisions are
      // those of the pipelined mode, only the waiting differs.
      for (std::size_t i = 0; i < limit_count; ++i) {
        std::vector<Reply> pair = co_await env_.redis.pipeline(take_pair(commands, i));
        for (Reply& reply : pair) replies.push_back(std::move(reply));
      }
    }
    co_return judge(replies);
  }

  void on_instance_stop(const Instance& instance) override { clock_.forget(instance); }
  void write_metrics(nlohmann::ordered_json& out) const override { clock_.write_metrics(out); }

 private:
  // Filled into a finished pipeline's argvs: a request allocates no command once they have grown.
  std::vector<Command> commands_for(const Request& request, TimeUs now_unix_us) {
    PipelineBuilder commands(spare_commands_.take_pipeline(), 2 * env_.limits.size());
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      const Limit& limit = env_.limits[i];
      Command& incr = commands.next(2);
      incr[0].assign("INCR");
      hybrid::assign_counter_key(incr[1], prefixes_[i], env_.catalog, request, limit,
                                 hybrid::window_at(limit, now_unix_us));
      hybrid::assign_expire_two_windows(commands.next(hybrid::kExpireWords), incr[1], limit);
    }
    return commands.finish();
  }

  static std::vector<Command> take_pair(std::vector<Command>& commands, std::size_t limit_index) {
    std::vector<Command> pair;
    pair.push_back(std::move(commands[2 * limit_index]));
    pair.push_back(std::move(commands[2 * limit_index + 1]));
    return pair;
  }

  // The first limit (in scenario order) whose count is over, or whose INCR failed under fail
  // closed, denies. A failed INCR under fail open skips its limit.
  Decision judge(const std::vector<Reply>& replies) const {
    Decision decision;
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      const Reply& count = replies[2 * i];
      // A reply that is not the integer INCR or EXPIRE returns is a failed call too.
      if (!is_integer(count) || !is_integer(replies[2 * i + 1])) decision.error = true;
      if (i == 0 && is_integer(count)) decision.counted_before = count.integer - 1;
      decision.judge_count(i, !is_integer(count), count.integer, env_.limits[i].limit,
                           params_.call.fail_open());
    }
    return decision;
  }

  StrategyEnv env_;
  std::vector<std::string> prefixes_;
  MultiLimitParams params_;
  ClockSource clock_;
  SpareCommands spare_commands_;
};

StrategyInfo multi_limit_info() {
  return {
      "multi_limit",
      "every limit checked with INCR + EXPIRE per request, pipelined in one round trip or one "
      "round "
      "trip per limit",
      "The lesson's check_multi_limits(): a request is checked against every limit of the "
      "scenario (per user, per IP, per endpoint) with INCR rl:<kind>:<value>:<window> and EXPIRE "
      "key <2 windows> for each, window = int(now // window) on the instance's clock (or Redis "
      "TIME: clock). With pipelined = true all 2 x L commands go in one pipeline, one round trip; "
      "with false each "
      "limit's INCR + EXPIRE is its own round trip, L in a row. Denied when any count is over its "
      "limit (denied_by is the first such limit). Pipelining does not reduce the commands Redis "
      "runs, only the round trips: for three limits it saves 2/3 of the network latency. Every "
      "limit is incremented, so a request denied by one limit still counts against the others, "
      "which an exact limiter would not do (false_denials). on_error: allow skips a limit whose "
      "INCR failed, deny denies.",
      own_then_redis_call_params({{"pipelined",
                                   ParamType::kBool,
                                   true,
                                   "true: all limits' INCR + EXPIRE in one pipeline (one round "
                                   "trip); false: one round trip "
                                   "per limit",
                                   {},
                                   false}}),
      Algorithm::kFixedWindow,
      construct<MultiLimit>,
      nullptr,
      nullptr};
}

const StrategyRegistration kMultiLimitRegistration(90, multi_limit_info);

}  // namespace

}  // namespace rlsim
