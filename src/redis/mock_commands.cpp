// The embedded Redis's commands: the command table (one row per command: name, arity, handler,
// flags), MockStore::dispatch, which checks a call against its row and runs the handler, and the
// string, key, hash and script handlers (sorted sets: mock_zset.cpp). Apart from mock_store.cpp
// (the keyspace and its expiry) because the handlers need MockStore::Context (mock_internal.h).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <span>

#include "core/check.h"
#include "redis/mock_internal.h"
#include "redis/mock_store.h"

namespace rlsim {
bool parse_strict_int(std::string_view text, std::int64_t& out) {
  if (text.empty() || text.size() > 20) return false;
  if (text == "0") {
    out = 0;
    return true;
  }
  const std::size_t digits_at = text[0] == '-' ? 1 : 0;
  if (digits_at >= text.size() || text[digits_at] == '0') return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

bool parse_strict_double(const std::string& text, double& out) {
  // Fast path; a zero may be an underflow, which strtod's errno check below refuses.
  if (double value = 0; parse_plain_decimal(text, value) && value != 0) {
    out = value;
    return true;
  }
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || std::isnan(value)) return false;
  if (errno == ERANGE && (std::isinf(value) || value == 0)) return false;
  out = value;
  return true;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

MockStore::Entry& MockStore::Context::create(const std::string& key, Type type) {
  Entry& entry = store.keys_[key];
  // As a fresh Entry, except that the string value keeps its buffer (a SET per request then
  // allocates nothing) and the expiry-heap time stays.
  entry.type = type;
  entry.value.clear();
  entry.hash.reset();
  entry.zset.reset();
  entry.expire_at_us = -1;
  if (type == Type::kHash) entry.hash = std::make_unique<Hash>();
  if (type == Type::kZSet) entry.zset = std::make_unique<ZSet>();
  return entry;
}

namespace {

using Ctx = MockStore::Context;
using Entry = MockStore::Entry;
using Type = MockStore::Type;
using Limits = std::numeric_limits<std::int64_t>;

// Whether `arg` is the option `lower_name`, in any case (no allocation, unlike lower()).
bool is_option(const std::string& arg, const char* lower_name) {
  std::size_t i = 0;
  for (; i < arg.size() && lower_name[i] != '\0'; ++i) {
    const char c = arg[i];  // ASCII lowering: no locale call per character
    if (((c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c) != lower_name[i])
      return false;
  }
  return i == arg.size() && lower_name[i] == '\0';
}

// a * b, or nullopt on overflow.
std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// Saturating a + b: expiry times far beyond any simulation stay representable in microseconds.
TimeUs saturating_add(TimeUs a, TimeUs b) {
  TimeUs out = 0;
  if (__builtin_add_overflow(a, b, &out)) return b > 0 ? Limits::max() : Limits::min();
  return out;
}

// Redis's ld2string in "human" mode for INCRBYFLOAT / HINCRBYFLOAT: "%.17Lf" on an x87 long
// double, trailing zeros and a trailing dot removed, "-0" written as "0".
std::string format_long_double(long double value) {
  char buf[5 * 1024 + 8];  // Redis's MAX_LONG_DOUBLE_CHARS
  int size = std::snprintf(buf, sizeof(buf), "%.17Lf", value);
  if (size <= 0 || static_cast<std::size_t>(size) >= sizeof(buf)) return "inf";
  std::string_view out(buf, static_cast<std::size_t>(size));
  if (out.find('.') != std::string_view::npos) {
    while (out.back() == '0') out.remove_suffix(1);
    if (out.back() == '.') out.remove_suffix(1);
  }
  if (out == "-0") return "0";
  return std::string(out);
}

// Redis's string2ld: strtold over the whole text, no leading space, no NaN, no overflow.
bool parse_long_double(const std::string& text, long double& out) {
  if (text.empty() || text.size() >= 5 * 1024 || std::isspace(static_cast<unsigned char>(text[0])))
    return false;
  errno = 0;
  char* end = nullptr;
  const long double value = std::strtold(text.c_str(), &end);
  if (end != text.c_str() + text.size() || std::isnan(value) || errno == EINVAL) return false;
  if (errno == ERANGE && (std::isinf(value) || value == 0)) return false;
  out = value;
  return true;
}

Reply incr_by(Ctx& ctx, const std::string& key, std::int64_t delta) {
  Entry* entry = ctx.lookup(key);
  std::int64_t current = 0;
  if (entry != nullptr) {
    if (entry->type != Type::kString) return Reply::error(kWrongType);
    if (!parse_strict_int(entry->value, current)) return Reply::error(kNotInteger);
  }
  if ((delta > 0 && current > Limits::max() - delta) ||
      (delta < 0 && current < Limits::min() - delta)) {
    return Reply::error(kOverflow);
  }
  current += delta;
  if (entry == nullptr) entry = &ctx.create(key, Type::kString);  // INCR keeps no TTL on a new key
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), current);
  entry->value.assign(digits, end);  // reuses the value's buffer: no allocation per INCR
  return Reply::from_integer(current);
}

// The generic worker behind INCR / DECR / INCRBY / DECRBY, as in Redis's incrDecrCommand.
Reply incr_decr(Ctx& ctx, std::int64_t sign, bool has_amount) {
  std::int64_t amount = 1;
  if (has_amount && !parse_strict_int(ctx.argv[2], amount)) return Reply::error(kNotInteger);
  if (sign < 0) {
    if (amount == Limits::min()) return Reply::error("ERR decrement would overflow");
    amount = -amount;
  }
  return incr_by(ctx, ctx.argv[1], amount);
}

Reply cmd_incrbyfloat(Ctx& ctx) {
  bool wrong_type = false;
  Entry* entry = ctx.lookup_typed(ctx.argv[1], Type::kString, wrong_type);
  if (wrong_type) return Reply::error(kWrongType);
  long double value = 0, increment = 0;
  if ((entry != nullptr && !parse_long_double(entry->value, value)) ||
      !parse_long_double(ctx.argv[2], increment)) {
    return Reply::error(kNotFloat);
  }
  value += increment;
  if (std::isnan(value) || std::isinf(value))
    return Reply::error("ERR increment would produce NaN or Infinity");
  if (entry == nullptr) entry = &ctx.create(ctx.argv[1], Type::kString);
  entry->value = format_long_double(value);  // an existing key keeps its TTL
  return Reply::bulk(entry->value);
}

// EXPIRE / PEXPIRE / EXPIREAT / PEXPIREAT with Redis 7's NX / XX / GT / LT options. Redis's
// overflow checks are done in milliseconds as Redis does them; the TTL itself is kept in
// microseconds of the server clock.
Reply expire_generic(Ctx& ctx, std::int64_t unit_us, bool absolute) {
  bool nx = false, xx = false, gt = false, lt = false;
  for (std::size_t i = 3; i < ctx.argv.size(); ++i) {
    const std::string& option = ctx.argv[i];
    if (is_option(option, "nx"))
      nx = true;
    else if (is_option(option, "xx"))
      xx = true;
    else if (is_option(option, "gt"))
      gt = true;
    else if (is_option(option, "lt"))
      lt = true;
    else
      return Reply::error(fmt::format("ERR Unsupported option {}", option));
  }
  if (nx && (xx || gt || lt))
    return Reply::error("ERR NX and XX, GT or LT options at the same time are not compatible");
  if (gt && lt) return Reply::error("ERR GT and LT options at the same time are not compatible");
  std::int64_t amount = 0;
  if (!parse_strict_int(ctx.argv[2], amount)) return Reply::error(kNotInteger);
  const auto invalid = [&] {  // built only when needed: EXPIRE is on the hot path
    return Reply::error(fmt::format("ERR invalid expire time in '{}' command", ctx.name()));
  };
  std::int64_t when_ms = amount;
  if (unit_us == kUsPerS) {
    if (!checked_mul(amount, 1000)) return invalid();
    when_ms = amount * 1000;
  }
  const std::int64_t base_ms = absolute ? 0 : ctx.now_us / kUsPerMs;
  if (when_ms > Limits::max() - base_ms) return invalid();
  const std::string& key = ctx.argv[1];
  Entry* entry = ctx.lookup(key);
  if (entry == nullptr) return Reply::from_integer(0);
  const auto offset_us = checked_mul(absolute ? when_ms : amount, absolute ? kUsPerMs : unit_us);
  const TimeUs expire_at_us =
      absolute ? offset_us.value_or(when_ms > 0 ? Limits::max() : Limits::min())
               : saturating_add(ctx.now_us,
                                offset_us.value_or(amount > 0 ? Limits::max() : Limits::min()));
  const bool has_ttl = entry->expire_at_us >= 0;
  if (nx && has_ttl) return Reply::from_integer(0);
  if (xx && !has_ttl) return Reply::from_integer(0);
  // A key without a TTL counts as an infinite TTL for GT and LT.
  if (gt && (!has_ttl || expire_at_us <= entry->expire_at_us)) return Reply::from_integer(0);
  if (lt && has_ttl && expire_at_us >= entry->expire_at_us) return Reply::from_integer(0);
  if (expire_at_us <= ctx.now_us) {  // a TTL in the past deletes the key
    ctx.erase(key);
    return Reply::from_integer(1);
  }
  ctx.set_ttl(key, *entry, expire_at_us);
  return Reply::from_integer(1);
}

Reply ttl_generic(Ctx& ctx, std::int64_t unit_us) {
  Entry* entry = ctx.lookup(ctx.argv[1]);
  if (entry == nullptr) return Reply::from_integer(-2);
  if (entry->expire_at_us < 0) return Reply::from_integer(-1);
  const TimeUs left_us = entry->expire_at_us - ctx.now_us;
  // Redis rounds the remaining TTL to the nearest unit.
  return Reply::from_integer((left_us + unit_us / 2) / unit_us);
}

Reply cmd_get(Ctx& ctx) {
  Entry* entry = ctx.lookup(ctx.argv[1]);
  if (entry == nullptr) return Reply::nil();
  if (entry->type != Type::kString) return Reply::error(kWrongType);
  return Reply::bulk(entry->value);
}

// SET key value [NX | XX] [GET] [EX s | PX ms | EXAT s | PXAT ms | KEEPTTL], parsed as Redis 7.0's
// parseExtendedStringArgumentsOrReply: options in any order, the same expiry option may repeat
// (the last wins), conflicting ones are a syntax error.
Reply cmd_set(Ctx& ctx) {
  bool nx = false, xx = false, get = false, keep_ttl = false;
  enum Unit { kNoExpiry, kEx, kPx, kExAt, kPxAt } unit = kNoExpiry;
  const std::string* expire_arg = nullptr;
  const auto& argv = ctx.argv;
  for (std::size_t i = 3; i < argv.size(); ++i) {
    const std::string& option = argv[i];
    // The expiry option this is, if any; one expiry option per command, repeats allowed.
    Unit named = kNoExpiry;
    if (is_option(option, "ex")) named = kEx;
    if (is_option(option, "px")) named = kPx;
    if (is_option(option, "exat")) named = kExAt;
    if (is_option(option, "pxat")) named = kPxAt;
    if (is_option(option, "nx") && !xx) {
      nx = true;
    } else if (is_option(option, "xx") && !nx) {
      xx = true;
    } else if (is_option(option, "get")) {
      get = true;
    } else if (is_option(option, "keepttl") && unit == kNoExpiry) {
      keep_ttl = true;
    } else if (named != kNoExpiry && (unit == kNoExpiry || unit == named) && !keep_ttl &&
               i + 1 < argv.size()) {
      unit = named;
      expire_arg = &argv[++i];
    } else {
      return Reply::error(kSyntax);
    }
  }
  TimeUs expire_at_us = -1;
  if (unit != kNoExpiry) {  // Redis's getExpireMillisecondsOrReply
    std::int64_t amount = 0;
    if (!parse_strict_int(*expire_arg, amount)) return Reply::error(kNotInteger);
    const auto invalid = [] { return Reply::error("ERR invalid expire time in 'set' command"); };
    const bool seconds = unit == kEx || unit == kExAt;
    if (amount <= 0 || (seconds && amount > Limits::max() / 1000)) return invalid();
    std::int64_t when_ms = seconds ? amount * 1000 : amount;
    const bool relative = unit == kEx || unit == kPx;
    if (relative && when_ms > Limits::max() - ctx.now_us / kUsPerMs) return invalid();
    const auto span_us = checked_mul(when_ms, kUsPerMs).value_or(Limits::max());
    expire_at_us = relative ? saturating_add(ctx.now_us, span_us) : span_us;
  }
  Entry* entry = ctx.lookup(argv[1]);
  Reply previous = Reply::nil();
  if (get && entry != nullptr) {
    if (entry->type != Type::kString) return Reply::error(kWrongType);
    previous = Reply::bulk(entry->value);
  }
  if ((nx && entry != nullptr) || (xx && entry == nullptr)) return get ? previous : Reply::nil();
  const TimeUs kept_us = (keep_ttl && entry != nullptr) ? entry->expire_at_us : -1;
  Entry& fresh = ctx.create(argv[1], Type::kString);
  fresh.value = argv[2];
  if (expire_at_us >= 0) ctx.set_ttl(argv[1], fresh, expire_at_us);
  if (kept_us >= 0) ctx.set_ttl(argv[1], fresh, kept_us);
  return get ? previous : Reply::status("OK");
}

// PSETEX key milliseconds value: Redis runs SET's code with PX; its errors name psetex.
Reply cmd_psetex(Ctx& ctx) {
  const Command as_set = {"set", ctx.argv[1], ctx.argv[3], "px", ctx.argv[2]};
  MockStore::Context set_ctx{ctx.store, as_set, ctx.now_us};
  Reply reply = cmd_set(set_ctx);
  if (reply.is_error() && reply.text == "ERR invalid expire time in 'set' command")
    reply.text = "ERR invalid expire time in 'psetex' command";
  return reply;
}

Reply cmd_setnx(Ctx& ctx) {
  if (ctx.lookup(ctx.argv[1]) != nullptr) return Reply::from_integer(0);
  ctx.create(ctx.argv[1], Type::kString).value = ctx.argv[2];
  return Reply::from_integer(1);
}

// DEL and UNLINK (the mock frees memory at once either way).
Reply cmd_del(Ctx& ctx) {
  std::int64_t removed = 0;
  for (std::size_t i = 1; i < ctx.argv.size(); ++i) {
    if (ctx.lookup(ctx.argv[i]) != nullptr) {
      ctx.erase(ctx.argv[i]);
      ++removed;
    }
  }
  return Reply::from_integer(removed);
}

Reply cmd_exists(Ctx& ctx) {
  std::int64_t found = 0;
  for (std::size_t i = 1; i < ctx.argv.size(); ++i) found += ctx.lookup(ctx.argv[i]) != nullptr;
  return Reply::from_integer(found);
}

Reply cmd_mget(Ctx& ctx) {
  std::vector<Reply> values;
  values.reserve(ctx.argv.size() - 1);
  for (std::size_t i = 1; i < ctx.argv.size(); ++i) {
    Entry* entry = ctx.lookup(ctx.argv[i]);
    // MGET answers nil for a key of another type instead of failing.
    values.push_back(entry != nullptr && entry->type == Type::kString ? Reply::bulk(entry->value)
                                                                      : Reply::nil());
  }
  return Reply::array(std::move(values));
}

// TIME is the server's virtual clock, also inside scripts (Redis 7 allows TIME in scripts).
Reply cmd_time(Ctx& ctx) {
  return Reply::array({Reply::bulk(std::to_string(ctx.now_us / kUsPerS)),
                       Reply::bulk(std::to_string(ctx.now_us % kUsPerS))});
}

Reply cmd_persist(Ctx& ctx) {
  Entry* entry = ctx.lookup(ctx.argv[1]);
  if (entry == nullptr || entry->expire_at_us < 0) return Reply::from_integer(0);
  entry->expire_at_us = -1;
  return Reply::from_integer(1);
}

Reply cmd_type(Ctx& ctx) {
  Entry* entry = ctx.lookup(ctx.argv[1]);
  if (entry == nullptr) return Reply::status("none");
  switch (entry->type) {
    case Type::kString:
      return Reply::status("string");
    case Type::kHash:
      return Reply::status("hash");
    case Type::kZSet:
      return Reply::status("zset");
  }
  return Reply::status("none");
}

// The hash at argv[1], created when `create`; sets `error` on a key of another type.
Entry* hash_entry(Ctx& ctx, bool create, Reply& error) {
  bool wrong_type = false;
  Entry* entry = ctx.lookup_typed(ctx.argv[1], Type::kHash, wrong_type);
  if (wrong_type) {
    error = Reply::error(kWrongType);
    return nullptr;
  }
  if (entry == nullptr && create) entry = &ctx.create(ctx.argv[1], Type::kHash);
  return entry;
}

Reply cmd_hset(Ctx& ctx) {
  if (ctx.argv.size() % 2 != 0)
    return Reply::error(fmt::format("ERR wrong number of arguments for '{}' command", ctx.name()));
  Reply error;
  Entry* entry = hash_entry(ctx, true, error);
  if (entry == nullptr) return error;
  std::int64_t added = 0;
  for (std::size_t i = 2; i + 1 < ctx.argv.size(); i += 2) {
    added += entry->hash->insert_or_assign(ctx.argv[i], ctx.argv[i + 1]).second;
  }
  return Reply::from_integer(added);
}

Reply cmd_hsetnx(Ctx& ctx) {
  Reply error;
  Entry* entry = hash_entry(ctx, true, error);
  if (entry == nullptr) return error;
  return Reply::from_integer(entry->hash->try_emplace(ctx.argv[2], ctx.argv[3]).second ? 1 : 0);
}

Reply cmd_hget(Ctx& ctx) {
  Reply error;
  Entry* entry = hash_entry(ctx, false, error);
  if (error.is_error()) return error;
  if (entry == nullptr) return Reply::nil();
  auto it = entry->hash->find(ctx.argv[2]);
  return it == entry->hash->end() ? Reply::nil() : Reply::bulk(it->second);
}

Reply cmd_hmget(Ctx& ctx) {
  Reply error;
  Entry* entry = hash_entry(ctx, false, error);
  if (error.is_error()) return error;
  std::vector<Reply> values;
  values.reserve(ctx.argv.size() - 2);
  for (std::size_t i = 2; i < ctx.argv.size(); ++i) {
    const std::string* found = nullptr;
    if (entry != nullptr) {
      auto it = entry->hash->find(ctx.argv[i]);
      if (it != entry->hash->end()) found = &it->second;
    }
    values.push_back(found != nullptr ? Reply::bulk(*found) : Reply::nil());
  }
  return Reply::array(std::move(values));
}

Reply cmd_hdel(Ctx& ctx) {
  Reply error;
  Entry* entry = hash_entry(ctx, false, error);
  if (error.is_error()) return error;
  if (entry == nullptr) return Reply::from_integer(0);
  std::int64_t removed = 0;
  for (std::size_t i = 2; i < ctx.argv.size(); ++i)
    removed += static_cast<std::int64_t>(entry->hash->erase(ctx.argv[i]));
  if (entry->hash->empty()) ctx.erase(ctx.argv[1]);  // Redis deletes an emptied hash
  return Reply::from_integer(removed);
}

Reply cmd_hlen(Ctx& ctx) {
  Reply error;
  Entry* entry = hash_entry(ctx, false, error);
  if (error.is_error()) return error;
  return Reply::from_integer(entry ? static_cast<std::int64_t>(entry->hash->size()) : 0);
}

Reply cmd_hexists(Ctx& ctx) {
  Reply error;
  Entry* entry = hash_entry(ctx, false, error);
  if (error.is_error()) return error;
  return Reply::from_integer(entry && entry->hash->count(ctx.argv[2]) ? 1 : 0);
}

Reply cmd_hgetall(Ctx& ctx) {
  Reply error;
  Entry* entry = hash_entry(ctx, false, error);
  if (error.is_error()) return error;
  std::vector<Reply> items;
  if (entry != nullptr) {
    // Sorted by field so that replies are deterministic (Redis's order is unspecified).
    std::vector<std::pair<std::string, std::string>> fields(entry->hash->begin(),
                                                            entry->hash->end());
    std::sort(fields.begin(), fields.end());
    for (auto& [field, value] : fields) {
      items.push_back(Reply::bulk(field));
      items.push_back(Reply::bulk(value));
    }
  }
  return Reply::array(std::move(items));
}

Reply cmd_hincrby(Ctx& ctx) {
  std::int64_t increment = 0;
  if (!parse_strict_int(ctx.argv[3], increment)) return Reply::error(kNotInteger);
  Reply error;
  Entry* entry = hash_entry(ctx, false, error);
  if (error.is_error()) return error;
  std::int64_t value = 0;
  if (entry != nullptr) {
    auto it = entry->hash->find(ctx.argv[2]);
    if (it != entry->hash->end() && !parse_strict_int(it->second, value))
      return Reply::error("ERR hash value is not an integer");
  }
  if ((increment < 0 && value < 0 && increment < Limits::min() - value) ||
      (increment > 0 && value > 0 && increment > Limits::max() - value)) {
    return Reply::error(kOverflow);
  }
  value += increment;
  if (entry == nullptr) entry = &ctx.create(ctx.argv[1], Type::kHash);
  (*entry->hash)[ctx.argv[2]] = std::to_string(value);
  return Reply::from_integer(value);
}

Reply cmd_hincrbyfloat(Ctx& ctx) {
  long double increment = 0;
  if (!parse_long_double(ctx.argv[3], increment)) return Reply::error(kNotFloat);
  if (std::isnan(increment) || std::isinf(increment))
    return Reply::error("ERR value is NaN or Infinity");
  Reply error;
  Entry* entry = hash_entry(ctx, false, error);
  if (error.is_error()) return error;
  long double value = 0;
  if (entry != nullptr) {
    auto it = entry->hash->find(ctx.argv[2]);
    if (it != entry->hash->end() && !parse_long_double(it->second, value))
      return Reply::error("ERR hash value is not a float");
  }
  value += increment;
  if (std::isnan(value) || std::isinf(value))
    return Reply::error("ERR increment would produce NaN or Infinity");
  if (entry == nullptr) entry = &ctx.create(ctx.argv[1], Type::kHash);
  std::string& stored = (*entry->hash)[ctx.argv[2]];
  stored = format_long_double(value);
  return Reply::bulk(stored);
}

// redis.call / redis.pcall run their commands here, at the script's time.
struct ScriptBridge final : ScriptHost {
  Ctx& ctx;
  explicit ScriptBridge(Ctx& c) : ctx(c) {}
  Reply call_from_script(const Command& argv) override { return ctx.dispatch_in_script(argv); }
};

// EVAL script numkeys key... arg... / EVALSHA sha numkeys key... arg...
Reply eval_generic(Ctx& ctx, bool by_sha) {
  std::int64_t numkeys = 0;
  if (!parse_strict_int(ctx.argv[2], numkeys)) return Reply::error(kNotInteger);
  const auto available = static_cast<std::int64_t>(ctx.argv.size()) - 3;
  if (numkeys > available)
    return Reply::error("ERR Number of keys can't be greater than number of args");
  if (numkeys < 0) return Reply::error("ERR Number of keys can't be negative");
  const std::span<const std::string> rest(ctx.argv.data() + 3, ctx.argv.size() - 3);
  const auto keys = rest.first(static_cast<std::size_t>(numkeys));
  const auto args = rest.subspan(static_cast<std::size_t>(numkeys));
  ScriptBridge bridge(ctx);
  LuaEngine& lua = ctx.lua();
  return by_sha ? lua.evalsha(ctx.argv[1], keys, args, bridge)
                : lua.eval(ctx.argv[1], keys, args, bridge);
}

// SCRIPT LOAD body | EXISTS sha... | FLUSH [ASYNC|SYNC]
Reply cmd_script(Ctx& ctx) {
  const std::string sub = lower(ctx.argv[1]);
  const auto wrong_args = [&] {
    return Reply::error(fmt::format("ERR wrong number of arguments for 'script|{}' command", sub));
  };
  if (sub == "load") {
    if (ctx.argv.size() != 3) return wrong_args();
    return ctx.lua().load(ctx.argv[2]);
  }
  if (sub == "exists") {
    if (ctx.argv.size() < 3) return wrong_args();
    std::vector<Reply> found;
    for (std::size_t i = 2; i < ctx.argv.size(); ++i) {
      found.push_back(Reply::from_integer(ctx.lua().exists(ctx.argv[i]) ? 1 : 0));
    }
    return Reply::array(std::move(found));
  }
  if (sub == "flush") {
    if (ctx.argv.size() > 3) return wrong_args();
    if (ctx.argv.size() == 3) {
      const std::string mode = lower(ctx.argv[2]);
      if (mode != "sync" && mode != "async")
        return Reply::error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    }
    ctx.flush_scripts();
    return Reply::status("OK");
  }
  return Reply::error(fmt::format("ERR unknown subcommand '{}'. Try SCRIPT HELP.", ctx.argv[1]));
}

// kNoScript: refused inside scripts. kDenyOom: may add data, so refused once the store is full
// (Redis's "denyoom" flag).
enum CommandFlags : unsigned { kNone = 0, kNoScript = 1, kDenyOom = 2 };

struct CommandRow {
  const char* name;  // lower case
  int arity;         // as in Redis: N exact argc, -N at least N
  Reply (*handler)(Ctx&);
  unsigned flags = kNone;
};

const std::vector<CommandRow>& command_table() {
  static const std::vector<CommandRow> table = {
      {"get", 2, cmd_get},
      {"setnx", 3, cmd_setnx, kDenyOom},
      {"psetex", 4, cmd_psetex, kDenyOom},
      {"incrbyfloat", 3, cmd_incrbyfloat, kDenyOom},
      {"unlink", -2, cmd_del},
      {"expireat", -3, [](Ctx& c) { return expire_generic(c, kUsPerS, true); }},
      {"pexpireat", -3, [](Ctx& c) { return expire_generic(c, kUsPerMs, true); }},
      {"hsetnx", 4, cmd_hsetnx, kDenyOom},
      {"hlen", 2, cmd_hlen},
      {"hexists", 3, cmd_hexists},
      {"hincrby", 4, cmd_hincrby, kDenyOom},
      {"hincrbyfloat", 4, cmd_hincrbyfloat, kDenyOom},
      {"zadd", -4, cmd_zadd, kDenyOom},
      {"zincrby", 4, cmd_zincrby, kDenyOom},
      {"zrem", -3, cmd_zrem},
      {"zcard", 2, cmd_zcard},
      {"zscore", 3, cmd_zscore},
      {"zcount", 4, cmd_zcount},
      {"zrange", -4, cmd_zrange},
      {"zrangebyscore", -4, cmd_zrangebyscore},
      {"zremrangebyscore", 4, cmd_zremrangebyscore},
      {"set", -3, cmd_set, kDenyOom},
      {"incr", 2, [](Ctx& c) { return incr_decr(c, 1, false); }, kDenyOom},
      {"decr", 2, [](Ctx& c) { return incr_decr(c, -1, false); }, kDenyOom},
      {"incrby", 3, [](Ctx& c) { return incr_decr(c, 1, true); }, kDenyOom},
      {"decrby", 3, [](Ctx& c) { return incr_decr(c, -1, true); }, kDenyOom},
      {"del", -2, cmd_del},
      {"exists", -2, cmd_exists},
      {"expire", -3, [](Ctx& c) { return expire_generic(c, kUsPerS, false); }},
      {"pexpire", -3, [](Ctx& c) { return expire_generic(c, kUsPerMs, false); }},
      {"ttl", 2, [](Ctx& c) { return ttl_generic(c, kUsPerS); }},
      {"pttl", 2, [](Ctx& c) { return ttl_generic(c, kUsPerMs); }},
      {"persist", 2, cmd_persist},
      {"type", 2, cmd_type},
      {"mget", -2, cmd_mget},
      {"time", 1, cmd_time},
      {"ping", -1,
       [](Ctx& c) { return c.argv.size() > 1 ? Reply::bulk(c.argv[1]) : Reply::status("PONG"); }},
      {"hset", -4, cmd_hset, kDenyOom},
      {"hget", 3, cmd_hget},
      {"hmget", -3, cmd_hmget},
      {"hdel", -3, cmd_hdel},
      {"hgetall", 2, cmd_hgetall},
      {"eval", -3, [](Ctx& c) { return eval_generic(c, false); }, kNoScript | kDenyOom},
      {"evalsha", -3, [](Ctx& c) { return eval_generic(c, true); }, kNoScript | kDenyOom},
      {"script", -2, cmd_script, kNoScript},
  };
  return table;
}

const CommandRow* find_command(const std::string& name) {
  static const auto* const by_name = [] {
    auto* map = new std::unordered_map<std::string_view, const CommandRow*>();
    for (const auto& row : command_table()) map->emplace(row.name, &row);
    return map;
  }();
  char lowered[24];  // longer than any command name
  if (name.size() >= sizeof(lowered)) return nullptr;
  for (std::size_t i = 0; i < name.size(); ++i) {  // ASCII only: no locale call per command
    const char c = name[i];
    lowered[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  auto it = by_name->find(std::string_view(lowered, name.size()));
  return it == by_name->end() ? nullptr : it->second;
}

}  // namespace

std::vector<std::string> MockStore::command_names() {
  std::vector<std::string> names;
  for (const auto& row : command_table()) names.push_back(row.name);
  return names;
}

Reply MockStore::dispatch(const Command& argv, TimeUs now_us, bool from_script) {
  RLSIM_CHECK(!argv.empty());
  const CommandRow* row = find_command(argv[0]);
  if (row == nullptr) {
    if (from_script) return Reply::error("ERR Unknown Redis command called from script");
    std::string args;
    for (std::size_t i = 1; i < argv.size() && i < 4; ++i) args += fmt::format("'{}' ", argv[i]);
    return Reply::error(
        fmt::format("ERR unknown command '{}', with args beginning with: {}", argv[0], args));
  }
  const auto argc = static_cast<int>(argv.size());
  if ((row->arity > 0 && argc != row->arity) || (row->arity < 0 && argc < -row->arity)) {
    if (from_script)
      return Reply::error("ERR Wrong number of args calling Redis command from script");
    return Reply::error(fmt::format("ERR wrong number of arguments for '{}' command", row->name));
  }
  if (from_script && (row->flags & kNoScript) != 0) {
    return Reply::error("ERR This Redis command is not allowed from script");
  }
  if ((row->flags & kDenyOom) != 0 && keys_.size() >= max_keys_) {
    return Reply::error("OOM command not allowed when used memory > 'maxmemory'.");
  }
  Context ctx{*this, argv, now_us};
  return row->handler(ctx);
}

}  // namespace rlsim
