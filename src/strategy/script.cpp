#include "strategy/script.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "core/sha1.h"

namespace rlsim {

Script::Script(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)), sha_(sha1_hex(text_)) {}

Command Script::command(std::string_view verb, const std::string& body,
                        const std::vector<std::string>& keys_and_args, std::size_t numkeys) const {
  Command argv = spare_commands_.take(keys_and_args.size() + 3);
  argv[0].assign(verb);
  argv[1].assign(body);
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), numkeys);
  argv[2].assign(digits, end);
  for (std::size_t i = 0; i < keys_and_args.size(); ++i) argv[i + 3].assign(keys_and_args[i]);
  return argv;
}

Task<Reply> Script::run(RedisServer& redis, const std::vector<std::string>& keys_and_args,
                        std::size_t numkeys, std::uint64_t& reloads) const {
  RedisCall call = redis.call(command("EVALSHA", sha_, keys_and_args, numkeys));
  Reply reply = std::move((co_await call).front());
  spare_commands_.give_back(call);
  // The server does not know the script (first use, or its cache was flushed): send the text.
  // Redis caches it by SHA1, so later EVALSHAs succeed.
  if (reply.is_error() && !reply.timed_out && reply.text.starts_with("NOSCRIPT")) {
    ++reloads;
    reply =
        std::move((co_await redis.call(command("EVAL", text_, keys_and_args, numkeys))).front());
  }
  co_return reply;
}

bool is_fatal_script_error(const Reply& reply) {
  if (!reply.is_error() || reply.timed_out) return false;
  const std::string_view text = reply.text;
  // "ERR rlsim: script ..." are the mock's own limits: the instruction budget and the memory cap.
  return text.starts_with("ERR Error compiling script") || text.starts_with("ERR rlsim: script ");
}

void ScriptErrorSamples::add(const Reply& reply) {
  if (texts_.size() >= kMaxTexts || reply.timed_out) return;
  std::string text = reply.is_error() ? reply.text : "not an integer: " + to_display(reply);
  if (text.starts_with("CONNREFUSED")) return;
  if (text.size() > kMaxBytes) text = text.substr(0, kMaxBytes - 3) + "...";
  // A script's error text may hold any bytes: keep printable ASCII only, so the JSON stays valid
  // UTF-8 and the terminal sees no control sequences.
  for (char& c : text)
    if (c < 0x20 || c > 0x7e) c = '?';
  if (std::find(texts_.begin(), texts_.end(), text) == texts_.end())
    texts_.push_back(std::move(text));
}

void ScriptErrorSamples::write(nlohmann::ordered_json& out) const {
  if (!texts_.empty()) out["script_error_texts"] = texts_;
}

std::string hash_tagged_prefix(const std::string& prefix, const Catalog& catalog,
                               const Request& request, LimitKey key) {
  // "rl:user:" -> "rl:{user:42}:"
  RLSIM_CHECK(prefix.starts_with("rl:") && prefix.ends_with(":"));
  std::string out = "rl:{";
  out.append(prefix, 3, prefix.size() - 3);
  catalog.append_key_text(out, request, key);
  out += "}:";
  return out;
}

PerLimitScriptStrategy::PerLimitScriptStrategy(StrategyEnv env, Script script)
    : env_(std::move(env)),
      prefixes_(redis_key_prefixes(env_.limits)),
      script_(std::move(script)),
      call_params_(parse_redis_call_params(ParamReader(env_.params))),
      clock_(call_params_.clock, env_.sim, env_.redis) {}

Task<Decision> PerLimitScriptStrategy::decide(Request request, const Instance& instance) {
  Decision decision;
  ClockSource::Base clock_base;
  if (clock_.kind() != ClockSource::Kind::kLocal && !co_await clock_.begin(instance, clock_base))
    co_return time_failed_decision(call_params_.fail_open());
  for (std::size_t i = 0; i < env_.limits.size(); ++i) {
    const int index = static_cast<int>(i);
    // After a fatal script error the run is void: answer at once, send nothing more.
    if (!fatal_error().empty()) co_return Decision{false, index, true};
    std::vector<std::string> keys_and_args;
    if (spare_arguments_.empty()) {
      keys_and_args.reserve(8);  // every built-in script's KEYS + ARGV fit: no regrowth
    } else {
      keys_and_args = std::move(spare_arguments_.back());
      spare_arguments_.pop_back();
      keys_and_args.clear();
    }
    now_us_ = clock_.now_us(clock_base, instance);
    const std::size_t numkeys = arguments(i, request, instance, keys_and_args);
    const Reply reply = co_await script_.run(env_.redis, keys_and_args, numkeys, reloads_);
    spare_arguments_.push_back(std::move(keys_and_args));
    if (reply.is_error() || (integer_reply() && reply.type != Reply::Type::kInteger)) {
      if (is_fatal_script_error(reply)) {
        fail(fmt::format("script {}: {}", script_.name(), reply.text));
        co_return Decision{false, index, true};
      }
      ++script_errors_;
      error_samples_.add(reply);
      decision.error = true;
      if (call_params_.fail_open()) continue;
      co_return Decision{false, index, true};
    }
    if (i == 0) decision.counted_before = count_before(i, reply);
    if (!admits(i, reply)) {
      decision.deny_for(i);
      co_return decision;
    }
  }
  co_return decision;
}

void PerLimitScriptStrategy::write_metrics(nlohmann::ordered_json& out) const {
  out["script_reloads"] = reloads_;
  out["script_errors"] = script_errors_;
  error_samples_.write(out);
  clock_.write_metrics(out);
}

}  // namespace rlsim
