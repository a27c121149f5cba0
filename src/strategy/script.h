#pragma once
// Lua scripts as strategies send them, and the shared shape of a strategy that runs one script per
// limit. A Script works like redis-py's Script: it sends EVALSHA <sha1 of the text> and, when the
// server answers NOSCRIPT (it has not seen the script, or lost it), sends the full text with EVAL.
// Both round trips are real calls in virtual time, so the cost of a cold script cache shows in the
// report. The text is sent unchanged: the same script runs on the embedded mock and on a real
// Redis.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "strategy/clock_source.h"
#include "strategy/strategy.h"

namespace rlsim {

class Script {
 public:
  // `name` identifies the script in error messages (a file path, or the strategy's name).
  Script(std::string name, std::string text);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  const std::string& sha() const { return sha_; }

  // Runs the script with KEYS = keys_and_args[0, numkeys) and ARGV = the rest, and returns its
  // reply (an error reply when the script failed or the call timed out). `reloads` counts the
  // EVALs sent after a NOSCRIPT reply.
  // `keys_and_args` must stay alive until the returned task completes (the caller awaits it).
  Task<Reply> run(RedisServer& redis, const std::vector<std::string>& keys_and_args,
                  std::size_t numkeys, std::uint64_t& reloads) const;

 private:
  // The EVAL / EVALSHA argv, refilled into a spare command's buffers when there is one.
  Command command(std::string_view verb, const std::string& body,
                  const std::vector<std::string>& keys_and_args, std::size_t numkeys) const;

  std::string name_;
  std::string text_;
  std::string sha_;
  mutable SpareCommands spare_commands_;
};

// True for the script failures that are the script author's fault and make the run meaningless:
// a compile error ("ERR Error compiling script ...") or one of the mock's script errors ("ERR
// rlsim: script <sha> exceeded its instruction budget", "... the Lua memory limit", "... called
// OBJECT, a Redis command the embedded Redis does not implement"). Other error replies (WRONGTYPE
// from a redis.call, redis.error_reply, timeouts) are ordinary Redis errors.
bool is_fatal_script_error(const Reply& reply);

// The first distinct texts of a strategy's script errors, for the report: at most kMaxTexts, each
// cut to kMaxBytes. Timeouts and refused connections are left out (the Redis section of the
// report counts them); what remains says why a script failed (WRONGTYPE, a redis.error_reply, a
// reply of the wrong type).
class ScriptErrorSamples {
 public:
  static constexpr std::size_t kMaxTexts = 3;
  static constexpr std::size_t kMaxBytes = 200;
  void add(const Reply& reply);
  // "script_error_texts": [...], only when there is one (reports without errors are unchanged).
  void write(nlohmann::ordered_json& out) const;

 private:
  std::vector<std::string> texts_;
};

// "rl:{user:42}:": a limit's key prefix ("rl:user:", from redis_key_prefixes) with the key text
// inside a hash tag, so that every key a multi-key script touches for one user hashes to one
// Redis Cluster slot (the lesson's rl:{user:42}:tokens).
std::string hash_tagged_prefix(const std::string& prefix, const Catalog& catalog,
                               const Request& request, LimitKey key);

// The scripts the built-in strategies send, exactly as sent (tests run them on a real Redis too).
extern const char* const kFixedWindowLuaScript;
extern const char* const kSlidingLogScript;
extern const char* const kSlidingCounterScript;
extern const char* const kTokenBucketScript;
extern const char* const kGcraScript;

// A strategy that checks the scenario's limits in order with one script call each: the first
// limit whose reply denies, denies (denied_by). A Redis error or timeout marks the decision as an
// error and, by the `on_error` parameter, skips the limit (fail_open) or denies (fail_closed). A
// fatal script error stops the run (Strategy::fail). Subclasses say what each call sends and how to
// read its reply.
class PerLimitScriptStrategy : public Strategy {
 public:
  Task<Decision> decide(Request request, const Instance& instance) final;
  // "script_reloads" (EVAL after NOSCRIPT) and "script_errors" (error replies, timeouts included),
  // the first error texts (ScriptErrorSamples) and the clock source's counters when it is not the
  // local clock.
  void write_metrics(nlohmann::ordered_json& out) const override;
  void on_instance_stop(const Instance& instance) override { clock_.forget(instance); }

 protected:
  PerLimitScriptStrategy(StrategyEnv env, Script script);

  // Appends KEYS then ARGV for limit `index` to `out`, as the request is decided now on
  // `instance`; returns the number of keys.
  virtual std::size_t arguments(std::size_t index, const Request& request, const Instance& instance,
                                std::vector<std::string>& out) = 0;
  // Whether a (non-error) reply admits the request under limit `index`; by default the script
  // answers 1 for admitted. May call fail() when the reply cannot be read (the decision is then
  // void).
  // Whether the script's reply must be an integer (every built-in script): another type, which
  // only a misbehaving real server sends, counts as a failed call (on_error decides).
  virtual bool integer_reply() const { return true; }
  virtual bool admits(std::size_t index, const Reply& reply) {
    (void)index;
    return reply.integer == 1;
  }
  // The count limit `index`'s key held before this request, when the (non-error) reply carries
  // it (Decision::counted_before, for the decision trace); -1 by default: the built-in sliding
  // and bucket scripts answer only 1 or 0.
  virtual std::int64_t count_before(std::size_t index, const Reply& reply) const {
    (void)index;
    (void)reply;
    return -1;
  }

  // "rl:user:42" + suffix: limit `index`'s key prefix and the request's value for that limit.
  std::string limit_key(std::size_t index, const Request& request, std::string_view suffix) const {
    std::string key = prefixes_[index];
    env_.catalog.append_key_text(key, request, env_.limits[index].key);
    key += suffix;
    return key;
  }

  // Now, in Unix microseconds, for the call being built: by the `clock` parameter the instance's
  // clock (what time.time() gives real code), or Redis TIME (strategy/clock_source.h).
  TimeUs decision_now_us() const { return now_us_; }

  StrategyEnv env_;
  std::vector<std::string> prefixes_;  // redis_key_prefixes(limits)
  Script script_;

 private:
  RedisCallParams call_params_;
  ClockSource clock_;
  // KEYS + ARGV vectors of finished decisions, reused so that building one allocates nothing.
  std::vector<std::vector<std::string>> spare_arguments_;
  TimeUs now_us_ = 0;  // set just before each arguments() call
  std::uint64_t reloads_ = 0;
  std::uint64_t script_errors_ = 0;
  ScriptErrorSamples error_samples_;
};

}  // namespace rlsim
