#include "app/conformance.h"

#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "app/backend.h"
#include "app/cluster_backend.h"
#include "app/commands.h"
#include "app/exit_codes.h"
#include "app/run.h"
#include "core/sha1.h"
#include "redis/mock_store.h"
#include "redis/real_store.h"

namespace rlsim {

namespace {

// Scripts of the corpus. Their SHA1s are computed, so EVALSHA steps name them by text.
constexpr const char* kNested = "return {1, 'two', {3, {'four', 5.9}}, false, 7}";
constexpr const char* kNilInArray = "return {1, nil, 3}";
constexpr const char* kFalse = "return false";
constexpr const char* kTrue = "return true";
constexpr const char* kNil = "return nil";
constexpr const char* kFloat = "return 3.99";
constexpr const char* kErrorReply = "return redis.error_reply('MYERR custom failure')";
constexpr const char* kStatusReply = "return redis.status_reply('FINE')";
constexpr const char* kErrTable = "return {err='BAD table error'}";
constexpr const char* kRuntimeError = "local t = nil\nreturn t.field";
constexpr const char* kWrongTypeCall =
    "local a = 1\nlocal n = redis.call('INCR', KEYS[1])\nreturn n";
constexpr const char* kPcall = "local r = redis.pcall('INCR', KEYS[1])\nreturn r";
constexpr const char* kCompileError = "return +";
constexpr const char* kArgs = "return {#KEYS, #ARGV, ARGV[1], ARGV[#ARGV]}";
constexpr const char* kCounter =
    "local c = redis.call('INCR', KEYS[1])\n"
    "if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end\n"
    "return {c, redis.call('PTTL', KEYS[1])}";
constexpr const char* kClock =
    "local t = redis.call('TIME')\n"
    "redis.call('SET', KEYS[1], t[1], 'PX', ARGV[1])\n"
    "return {t[1], t[2], redis.call('TTL', KEYS[1]), redis.call('GET', KEYS[1])}";
// A TTL-setting script (so the store shadows redis.call) whose call on line 3 fails.
constexpr const char* kClockError =
    "redis.call('PEXPIRE', KEYS[1], 1000)\n"
    "local x = 1\n"
    "local n = redis.call('INCR', KEYS[1])\n"
    "return n";
// The same through a tail call (`return redis.call(...)`), and redis.pcall's error as a value.
constexpr const char* kClockTailError =
    "redis.call('PEXPIRE', KEYS[1], 1000)\n"
    "return redis.call('INCR', KEYS[1])";
constexpr const char* kClockPcall =
    "redis.call('EXPIRE', KEYS[1], 100)\n"
    "local r = redis.pcall('INCR', KEYS[1])\n"
    "return {r['err'], redis.call('TTL', KEYS[1])}";
// Clock commands called where the store renames them (a tail call, a helper function's own tail
// call, an error on a later line) and through an alias of redis.call (the shadowed prelude).
constexpr const char* kClockTailBadTtl =
    "local x = 1\n"
    "return redis.call('PEXPIRE', KEYS[1], 'soon')";
constexpr const char* kClockHelper =
    "local function bump(k)\n"
    "  redis.call('PEXPIRE', k, 2000)\n"
    "  return redis.call('PTTL', k)\n"
    "end\n"
    "local t = bump(KEYS[1])\n"
    "return {t, redis.call('EXPIRE', KEYS[1], 'x')}";
constexpr const char* kClockAlias =
    "local call = redis.call\n"
    "call('PEXPIRE', KEYS[1], 5000)\n"
    "return {call('PTTL', KEYS[1]), redis.pcall('INCR', KEYS[1])['err']}";
constexpr const char* kGcra =
    "local now_us = tonumber(ARGV[1])\n"
    "local tat = tonumber(redis.call('GET', KEYS[1]) or ARGV[1])\n"
    "tat = math.max(tat, now_us) + 100000\n"
    "redis.call('SET', KEYS[1], tat, 'PX', math.ceil((tat - now_us) / 1000))\n"
    "return {tat, redis.call('PTTL', KEYS[1])}";

Command eval(const char* script, std::vector<std::string> keys, std::vector<std::string> args) {
  Command c = {"EVAL", script, std::to_string(keys.size())};
  c.insert(c.end(), keys.begin(), keys.end());
  c.insert(c.end(), args.begin(), args.end());
  return c;
}

Command evalsha(const char* script, std::vector<std::string> keys) {
  Command c = {"EVALSHA", sha1_hex(script), std::to_string(keys.size())};
  c.insert(c.end(), keys.begin(), keys.end());
  return c;
}

std::string brief(const Command& command) {
  std::string out;
  for (const std::string& arg : command) {
    std::string shown = arg.size() > 40 ? arg.substr(0, 37) + "..." : arg;
    for (char& c : shown)
      if (c == '\n') c = ' ';
    out += (out.empty() ? "" : " ") + shown;
  }
  return out;
}

// Appends steps at a virtual time that only moves forward (ms since the epoch).
struct CorpusBuilder {
  std::vector<ConformanceStep> steps;
  std::int64_t t = 0;
  void at(std::int64_t ms, Command command) {
    t = ms;
    steps.push_back({t, std::move(command)});
  }
  void now(Command command) { steps.push_back({t, std::move(command)}); }
};

void add_string_steps(CorpusBuilder& b) {
  // Strings and counters, overflow, arity, types.
  b.now({"SET", "s", "hello"});
  b.now({"GET", "s"});
  b.now({"INCR", "s"});
  b.now({"INCR", "c"});
  b.now({"INCRBY", "c", "41"});
  b.now({"DECRBY", "c", "2"});
  b.now({"INCRBY", "c", "1.5"});
  b.now({"SET", "big", "9223372036854775807"});
  b.now({"INCR", "big"});
  b.now({"DECRBY", "neg", "-9223372036854775808"});
  b.now({"INCRBYFLOAT", "f", "0.1"});
  b.now({"INCRBYFLOAT", "f", "inf"});
  b.now({"INCR"});
  b.now({"GET", "s", "extra"});
  b.now({"EXPIRE", "c"});
  b.now({"NOSUCHCOMMAND", "x"});
  b.now({"HSET", "h", "f", "1", "g", "2"});
  b.now({"GET", "h"});
  b.now({"INCR", "h"});
  b.now({"HINCRBY", "h", "f", "5"});
  b.now({"HMGET", "h", "f", "nope"});
  b.now({"HGETALL", "h"});
  b.now({"TYPE", "h"});
  b.now({"TYPE", "missing"});
  b.now({"MGET", "s", "h", "missing", "c"});
  b.now({"ZADD", "z", "1", "a", "2", "b", "3", "c"});
  b.now({"ZADD", "z", "nan", "a"});
  b.now({"ZRANGEBYSCORE", "z", "(1", "+inf", "WITHSCORES"});
  b.now({"ZREMRANGEBYSCORE", "z", "-inf", "1"});
  b.now({"ZCARD", "z"});
  b.now({"ZCARD", "s"});
  b.now({"DEL", "s", "missing", "z"});
  b.now({"EXISTS", "s", "h", "h"});
  b.now({"PING"});
  b.now({"TIME"});
}

void add_ttl_steps(CorpusBuilder& b) {
  // TTLs: on a missing key, negative, options, and expiry as virtual time passes.
  b.now({"EXPIRE", "missing", "10"});
  b.now({"TTL", "missing"});
  b.now({"TTL", "h"});
  b.now({"SET", "n", "1"});
  b.now({"PEXPIRE", "n", "-5"});
  b.now({"EXISTS", "n"});
  b.now({"SET", "n", "1"});
  b.now({"EXPIRE", "n", "0"});
  b.now({"GET", "n"});
  b.now({"SET", "e", "v", "EX", "-1"});
  b.now({"SET", "e", "v", "PX", "0"});
  b.now({"SET", "e", "v", "EX", "x"});
  b.now({"SET", "e", "v", "EX", "10", "PX", "10"});
  b.now({"SET", "e", "v", "EX", "100"});
  b.now({"TTL", "e"});
  b.now({"PTTL", "e"});
  b.now({"EXPIRE", "e", "50", "GT"});
  b.now({"EXPIRE", "e", "50", "LT"});
  b.now({"EXPIRE", "e", "500", "NX"});
  b.now({"EXPIRE", "e", "5", "NX", "XX"});
  b.now({"SET", "e", "w", "KEEPTTL", "GET"});
  b.now({"TTL", "e"});
  b.now({"SET", "p", "v", "PX", "1500"});
  b.now({"SET", "q", "v"});
  b.now({"PERSIST", "q"});
  b.now({"EXPIRE", "q", "30"});
  b.now({"PERSIST", "q"});
  b.now({"TTL", "q"});
  b.now({"EXPIREAT", "q", "1000"});  // long past: deletes the key
  b.now({"EXISTS", "q"});
  b.now({"SET", "r", "v", "PXAT", std::to_string(kEpochUnixUs / kUsPerMs + 90'000)});
  b.now({"PEXPIREAT", "c", std::to_string(kEpochUnixUs / kUsPerMs + 120'000)});
  b.now({"PTTL", "r"});
  b.now({"PTTL", "c"});
  b.at(1'499, {"GET", "p"});
  b.now({"PTTL", "p"});
  b.at(1'500, {"GET", "p"});  // expired exactly at its virtual TTL
  b.now({"EXISTS", "p"});
  b.at(30'000, {"TTL", "e"});
  b.at(49'999, {"TTL", "e"});
  b.at(50'000, {"GET", "e"});
  b.at(89'999, {"GET", "r"});
  b.at(90'000, {"GET", "r"});
  b.at(119'000, {"INCR", "c"});
  b.now({"PTTL", "c"});
  b.at(120'000, {"GET", "c"});
  b.now({"TIME"});
}

void add_script_steps(CorpusBuilder& b) {
  // Scripts: reply conversion, errors, the script cache, and the virtual clock in scripts.
  b.now(eval(kNested, {}, {}));
  b.now(eval(kNilInArray, {}, {}));
  b.now(eval(kFalse, {}, {}));
  b.now(eval(kTrue, {}, {}));
  b.now(eval(kNil, {}, {}));
  b.now(eval(kFloat, {}, {}));
  b.now(eval(kErrorReply, {}, {}));
  b.now(eval(kStatusReply, {}, {}));
  b.now(eval(kErrTable, {}, {}));
  b.now(eval(kRuntimeError, {}, {}));
  b.now(eval(kWrongTypeCall, {"h"}, {}));
  b.now(eval(kPcall, {"h"}, {}));
  b.now(eval(kCompileError, {}, {}));
  b.now(evalsha(kCompileError, {}));
  b.now(eval(kArgs, {"k1", "k2"}, {"a1", "a2", "a3"}));
  b.now({"EVAL", kArgs, "3", "k1"});
  b.now({"EVAL", kArgs, "-1"});
  b.now({"EVAL", kArgs, "x"});
  b.now(evalsha(kCounter, {"w"}));
  b.now({"SCRIPT", "LOAD", kCounter});
  b.now({"SCRIPT", "EXISTS", sha1_hex(kCounter), sha1_hex(kNil), sha1_hex("never loaded")});
  b.now(Command{"EVALSHA", sha1_hex(kCounter), "1", "w", "10000"});
  b.at(125'000, Command{"EVALSHA", sha1_hex(kCounter), "1", "w", "10000"});
  b.at(134'999, Command{"EVALSHA", sha1_hex(kCounter), "1", "w", "10000"});
  b.at(135'000, Command{"EVALSHA", sha1_hex(kCounter), "1", "w", "10000"});
  b.now({"TTL", "w"});
  b.now(eval(kClock, {"clock"}, {"2500"}));
  b.at(137'000, {"GET", "clock"});
  b.at(137'500, {"GET", "clock"});
  b.now(eval(kClockError, {"h"}, {}));
  b.now({"HSET", "h2", "f", "1"});
  b.now(eval(kClockTailError, {"h2"}, {}));
  b.now(eval(kClockPcall, {"h2"}, {}));
  b.now(eval(kClockTailBadTtl, {"h2"}, {}));
  b.now(eval(kClockHelper, {"h2"}, {}));
  b.now(eval(kClockAlias, {"h2"}, {}));
  b.now(eval(kGcra, {"tat"}, {std::to_string(kEpochUnixUs + 137'500'000)}));
  b.at(137'550, eval(kGcra, {"tat"}, {std::to_string(kEpochUnixUs + 137'550'000)}));
  b.at(400'000, eval(kGcra, {"tat"}, {std::to_string(kEpochUnixUs + 400'000'000)}));
  b.now({"SCRIPT", "FLUSH"});
  b.now(Command{"EVALSHA", sha1_hex(kCounter), "1", "w", "10000"});
  b.now({"SCRIPT", "FLUSH", "BOGUS"});
  // An hour later by the virtual clock (seconds of wall time): every TTL above has passed.
  b.at(3'600'000, {"MGET", "e", "r", "p", "w", "tat", "clock"});
  b.now({"TTL", "h"});
  b.now({"TIME"});
}

}  // namespace

const std::vector<ConformanceStep>& conformance_corpus() {
  static const std::vector<ConformanceStep> corpus = [] {
    CorpusBuilder b;
    add_string_steps(b);
    add_ttl_steps(b);
    add_script_steps(b);
    return std::move(b.steps);
  }();
  return corpus;
}

namespace {

// Part 1: the corpus on both stores. Returns the number of differences.
std::size_t compare_corpus(RealStore& real, bool verbose) {
  MockStore mock;
  std::size_t differences = 0;
  const auto& corpus = conformance_corpus();
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    const ConformanceStep& step = corpus[i];
    const TimeUs now_us = kEpochUnixUs + step.at_ms * kUsPerMs;
    // On a cluster every key shares one hash tag, so multi-key steps stay in one slot.
    const Command command =
        real.wire().sharded() ? with_hash_tag(step.command, "conformance") : step.command;
    const Reply m = mock.run(command, now_us);
    const Reply r = real.run(command, now_us);
    const bool same = m == r;
    if (!same) ++differences;
    if (!same || verbose) {
      std::cout << fmt::format("  {} #{} at +{} ms: {}\n", same ? "same" : "DIFFERENT", i + 1,
                               step.at_ms, brief(command));
      std::cout << fmt::format("      mock: {}\n", to_display(m));
      if (!same) std::cout << fmt::format("      real: {}\n", to_display(r));
    }
  }
  std::cout << fmt::format("replies: {} commands, {} differences\n", corpus.size(), differences);
  return differences;
}

// Runs the strategy again on both backends recording every decision, and names the first request
// decided differently ("" when the decision streams agree, e.g. only a report field differs).
std::string first_different_request(const Scenario& mock_scenario, const Scenario& real_scenario,
                                    const ResolvedStrategy& strategy) {
  std::vector<DecisionRecord> mock, real;
  run_strategy(mock_scenario, strategy, mock_scenario.seed, &mock);
  run_strategy(real_scenario, strategy, real_scenario.seed, &real);
  const auto describe = [](const DecisionRecord& d) {
    return fmt::format("request {} decided at {:.6f} s: {}{}", d.request_id, to_seconds(d.time_us),
                       d.allowed ? "allowed" : "denied", d.error ? " (Redis error)" : "");
  };
  const std::size_t common = std::min(mock.size(), real.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (mock[i] == real[i]) continue;
    return fmt::format("; decision #{} first differs: embedded {}, real {}", i + 1,
                       describe(mock[i]), describe(real[i]));
  }
  if (mock.size() != real.size())
    return fmt::format("; embedded made {} decisions, real {}", mock.size(), real.size());
  return "";
}

// Part 2: every strategy of every scenario on both backends. Returns the number of differences.
std::size_t compare_scenarios(const ConformanceOptions& options, int embedded_nodes) {
  std::size_t differences = 0;
  for (const std::string& path : options.scenario_paths) {
    Scenario scenario = load_scenario(path);
    if (options.max_duration_us > 0 && scenario.duration_us > options.max_duration_us)
      scenario.duration_us = options.max_duration_us;
    scenario.redis.url.clear();
    if (!options.redis_cluster.empty()) {
      // Against a real cluster: the embedded cluster with the same slot map (0: one server).
      scenario.redis.cluster_nodes = embedded_nodes;
      scenario.redis.cluster_slots.clear();
    } else if (scenario.redis.cluster_nodes > 0) {  // one real server cannot stand in for a cluster
      std::cout << fmt::format("  skipped {}: an embedded Redis Cluster (docs/cluster.md)\n", path);
      continue;
    }
    const auto strategies = resolve_strategies(scenario, path);
    Scenario real_scenario = scenario;
    real_scenario.redis.url = options.redis_url;
    real_scenario.redis.cluster_url = options.redis_cluster;
    for (const ResolvedStrategy& strategy : strategies) {
      const auto started = std::chrono::steady_clock::now();
      const StrategyResult mock = run_strategy(scenario, strategy, scenario.seed);
      StrategyResult real = run_strategy(real_scenario, strategy, scenario.seed);
      const double wall_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      const auto backend = real.backend;
      real.backend.reset();  // the one field that must differ
      std::string divergence = first_divergence(scenario, mock, real);
      if (divergence.empty() && backend && !backend->failure.empty())
        divergence = "the real backend failed: " + backend->failure;
      if (!divergence.empty()) {
        ++differences;
        divergence += first_different_request(scenario, real_scenario, strategy);
      }
      std::cout << fmt::format(
          "  {} {} {}: {} decisions, digest {:016x} {}{}\n",
          divergence.empty() ? "same" : "DIFFERENT", path, strategy.label, mock.totals.offered,
          mock.decision_digest,
          divergence.empty() ? "" : fmt::format("(real {:016x}) ", real.decision_digest),
          divergence.empty() ? fmt::format("({:.1f} s)", wall_s)
                             : fmt::format("- run 1 = embedded, run 2 = real: {}", divergence));
    }
  }
  return differences;
}

}  // namespace

int command_conformance(const ConformanceOptions& options) {
  if (options.redis_url.empty() == options.redis_cluster.empty()) {
    std::cerr << "rlsim: conformance needs --redis URL or --redis-cluster host:port[,...]\n";
    return exit_code::kBadInput;
  }
  std::size_t differences = 0;
  int embedded_nodes = 0;
  {
    std::unique_ptr<RealStore> real;
    try {
      RedisSpec target;
      target.url = options.redis_url;
      target.cluster_url = options.redis_cluster;
      real = make_real_store(target);
    } catch (const RunError& e) {
      std::cerr << "rlsim: " << e.what() << "\n";
      return e.exit_code;
    }
    std::cout << fmt::format("conformance against {}\n", real->wire().describe());
    differences += compare_corpus(*real, options.verbose);
    if (!options.redis_cluster.empty()) {
      embedded_nodes = embedded_cluster_nodes(*real);
      std::cout << (embedded_nodes > 0
                        ? fmt::format(
                              "embedded side: a cluster of {} nodes with the same slot map\n",
                              embedded_nodes)
                        : std::string("embedded side: one server (the cluster's slot map is not "
                                      "the even split the embedded cluster uses)\n"));
    }
    if (!real->backend_failure().empty()) {
      std::cout << "the real backend failed: " << real->backend_failure() << "\n";
      ++differences;
    }
  }
  if (!options.scenario_paths.empty()) {
    std::cout << fmt::format("scenarios: {} file(s){}\n", options.scenario_paths.size(),
                             options.max_duration_us > 0
                                 ? fmt::format(", each cut to {:.0f} s of virtual time",
                                               to_seconds(options.max_duration_us))
                                 : "");
    const std::size_t before = differences;
    differences += compare_scenarios(options, embedded_nodes);
    std::cout << fmt::format("scenarios: {} differences\n", differences - before);
  }
  std::cout << (differences == 0
                    ? "conformance: ok\n"
                    : fmt::format("conformance: FAILED, {} differences\n", differences));
  return differences == 0 ? exit_code::kOk : exit_code::kCheckFailed;
}

}  // namespace rlsim
