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
#include <utility>

#include "core/ascii.h"
#include "core/check.h"
#include "core/sha1.h"
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

std::optional<Reply> parse_count(const std::string& text, std::int64_t& count) {
  // One message for both a non-integer and a negative count: Redis passes its own message to
  // getLongFromObjectOrReply too.
  if (!parse_strict_int(text, count) || count < 0) return Reply::error(kNotPositive);
  return std::nullopt;
}

bool clamp_rank_range(std::int64_t size, std::int64_t& start, std::int64_t& stop) {
  if (start < 0) start += size;
  if (stop < 0) stop += size;
  if (start < 0) start = 0;
  // start >= 0 now, so this is also true when stop < 0.
  if (start > stop || start >= size) return false;
  if (stop >= size) stop = size - 1;
  return true;
}

MockStore::Entry& MockStore::Context::create(const std::string& key, Type type) {
  Entry& entry = store.keys_[key];
  // As a fresh Entry, except that the string value keeps its buffer (a SET per request then
  // allocates nothing) and the expiry-heap time stays.
  entry.type = type;
  entry.value.clear();
  entry.hash.reset();
  entry.zset.reset();
  entry.set.reset();
  entry.list.reset();
  entry.expire_at_ms = -1;
  if (type == Type::kHash) entry.hash = std::make_unique<Hash>();
  if (type == Type::kZSet) entry.zset = std::make_unique<ZSet>();
  if (type == Type::kSet) entry.set = std::make_unique<MockStore::Set>();
  if (type == Type::kList) entry.list = std::make_unique<MockStore::List>();
  return entry;
}

void MockStore::Context::move_key(const std::string& from, const std::string& to) {
  auto it = store.keys_.find(from);
  RLSIM_CHECK(it != store.keys_.end() && store.keys_.count(to) == 0);
  Entry moved = std::move(it->second);
  store.keys_.erase(it);  // its expiry-heap entry, if any, is now stale
  Entry& entry = store.keys_[to];
  entry = std::move(moved);
  entry.heap_at_ms = -1;
  if (entry.expire_at_ms >= 0) set_ttl(to, entry, entry.expire_at_ms);
}

namespace {

using Ctx = MockStore::Context;
using Entry = MockStore::Entry;
using Type = MockStore::Type;
using Limits = std::numeric_limits<std::int64_t>;

// Whether `arg` is the option `lower_name`, in any case (no allocation, unlike ascii_lower()).
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

// EXPIRE / PEXPIRE / EXPIREAT / PEXPIREAT with Redis 7's NX / XX / GT / LT options, as Redis
// 7.0's expireGenericCommand: the expiry in whole Unix milliseconds from the server clock's
// millisecond, with Redis's overflow checks.
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
  const std::int64_t base_ms = absolute ? 0 : ctx.now_ms();
  if (when_ms > Limits::max() - base_ms) return invalid();
  when_ms += base_ms;
  const std::string& key = ctx.argv[1];
  Entry* entry = ctx.lookup(key);
  if (entry == nullptr) return Reply::from_integer(0);
  const bool has_ttl = entry->expire_at_ms >= 0;
  if (nx && has_ttl) return Reply::from_integer(0);
  if (xx && !has_ttl) return Reply::from_integer(0);
  // A key without a TTL counts as an infinite TTL for GT and LT.
  if (gt && (!has_ttl || when_ms <= entry->expire_at_ms)) return Reply::from_integer(0);
  if (lt && has_ttl && when_ms >= entry->expire_at_ms) return Reply::from_integer(0);
  if (ctx.already_expired(when_ms)) {  // a TTL in the past deletes the key
    ctx.erase(key);
    return Reply::from_integer(1);
  }
  ctx.set_ttl(key, *entry, when_ms);
  return Reply::from_integer(1);
}

// TTL / PTTL as Redis's ttlGenericCommand: the whole milliseconds left (0 through the expiry's
// own millisecond), seconds rounded to the nearest.
Reply ttl_generic(Ctx& ctx, std::int64_t unit_us) {
  Entry* entry = ctx.lookup(ctx.argv[1]);
  if (entry == nullptr) return Reply::from_integer(-2);
  if (entry->expire_at_ms < 0) return Reply::from_integer(-1);
  const std::int64_t left_ms = std::max<std::int64_t>(entry->expire_at_ms - ctx.now_ms(), 0);
  return Reply::from_integer(unit_us == kUsPerMs ? left_ms : (left_ms + 500) / 1000);
}

// EXPIRETIME / PEXPIRETIME: the absolute expiry in Unix seconds / ms; Redis rounds seconds to the
// nearest (ttlGenericCommand).
Reply expiretime_generic(Ctx& ctx, bool in_ms) {
  Entry* entry = ctx.lookup(ctx.argv[1]);
  if (entry == nullptr) return Reply::from_integer(-2);
  if (entry->expire_at_ms < 0) return Reply::from_integer(-1);
  const std::int64_t at_ms = entry->expire_at_ms;
  return Reply::from_integer(in_ms ? at_ms : (at_ms + 500) / 1000);
}

Reply cmd_get(Ctx& ctx) {
  Entry* entry = ctx.lookup(ctx.argv[1]);
  if (entry == nullptr) return Reply::nil();
  if (entry->type != Type::kString) return Reply::error(kWrongType);
  return Reply::bulk(entry->value);
}

// The expiry options SET and GETEX share, and the time each one gives.
enum class ExpiryUnit { kNone, kEx, kPx, kExAt, kPxAt };

// Redis 7.0's getExpireMillisecondsOrReply: `text` (seconds for EX / EXAT, else ms; relative for
// EX / PX) as an absolute time in Unix ms on the server clock, or the error reply, which names
// the command.
std::optional<Reply> expiry_time(Ctx& ctx, const std::string& text, ExpiryUnit unit,
                                 std::int64_t& at_ms) {
  std::int64_t amount = 0;
  if (!parse_strict_int(text, amount)) return Reply::error(kNotInteger);
  const auto invalid = [&] {
    return Reply::error(fmt::format("ERR invalid expire time in '{}' command", ctx.name()));
  };
  const bool seconds = unit == ExpiryUnit::kEx || unit == ExpiryUnit::kExAt;
  if (amount <= 0 || (seconds && amount > Limits::max() / 1000)) return invalid();
  const std::int64_t when_ms = seconds ? amount * 1000 : amount;
  const bool relative = unit == ExpiryUnit::kEx || unit == ExpiryUnit::kPx;
  if (relative && when_ms > Limits::max() - ctx.now_ms()) return invalid();
  at_ms = relative ? when_ms + ctx.now_ms() : when_ms;
  return std::nullopt;
}

// Redis 7.0's parseExtendedStringArgumentsOrReply, from argv[`from`]: SET's options (NX, XX,
// GET, KEEPTTL) when `is_set`, GETEX's (PERSIST) otherwise, and the expiry options of both.
// Options come in any order; the same expiry option may repeat (the last wins); conflicting ones,
// or an expiry option without a value, are a syntax error.
struct StringOptions {
  bool nx = false, xx = false, get = false, keep_ttl = false, persist = false;
  ExpiryUnit unit = ExpiryUnit::kNone;
  const std::string* expire_arg = nullptr;
};

bool parse_string_options(const Command& argv, std::size_t from, bool is_set, StringOptions& o) {
  for (std::size_t i = from; i < argv.size(); ++i) {
    const std::string& option = argv[i];
    // The expiry option this is, if any; one expiry option per command, repeats allowed.
    ExpiryUnit named = ExpiryUnit::kNone;
    if (is_option(option, "ex")) named = ExpiryUnit::kEx;
    if (is_option(option, "px")) named = ExpiryUnit::kPx;
    if (is_option(option, "exat")) named = ExpiryUnit::kExAt;
    if (is_option(option, "pxat")) named = ExpiryUnit::kPxAt;
    if (is_set && is_option(option, "nx") && !o.xx) {
      o.nx = true;
    } else if (is_set && is_option(option, "xx") && !o.nx) {
      o.xx = true;
    } else if (is_set && is_option(option, "get")) {
      o.get = true;
    } else if (is_set && is_option(option, "keepttl") && o.unit == ExpiryUnit::kNone) {
      o.keep_ttl = true;
    } else if (!is_set && is_option(option, "persist") && o.unit == ExpiryUnit::kNone) {
      o.persist = true;
    } else if (named != ExpiryUnit::kNone && (o.unit == ExpiryUnit::kNone || o.unit == named) &&
               !o.keep_ttl && !o.persist && i + 1 < argv.size()) {
      o.unit = named;
      o.expire_arg = &argv[++i];
    } else {
      return false;
    }
  }
  return true;
}

// Redis 7.0's setGenericCommand: SET, SETEX, PSETEX. `value` is stored at argv[1]; `expire_arg`
// (when not null) is read in `unit`.
Reply set_generic(Ctx& ctx, const StringOptions& o, const std::string& value) {
  std::int64_t expire_at_ms = -1;
  if (o.unit != ExpiryUnit::kNone) {
    if (auto error = expiry_time(ctx, *o.expire_arg, o.unit, expire_at_ms)) return *error;
  }
  const std::string& key = ctx.argv[1];
  Entry* entry = ctx.lookup(key);
  Reply previous = Reply::nil();
  if (o.get && entry != nullptr) {
    if (entry->type != Type::kString) return Reply::error(kWrongType);
    previous = Reply::bulk(entry->value);
  }
  if ((o.nx && entry != nullptr) || (o.xx && entry == nullptr))
    return o.get ? previous : Reply::nil();
  const std::int64_t kept_ms = (o.keep_ttl && entry != nullptr) ? entry->expire_at_ms : -1;
  Entry& fresh = ctx.create(key, Type::kString);
  fresh.value = value;
  if (expire_at_ms >= 0) ctx.set_ttl(key, fresh, expire_at_ms);
  if (kept_ms >= 0) ctx.set_ttl(key, fresh, kept_ms);
  return o.get ? previous : Reply::status("OK");
}

// SET key value [NX | XX] [GET] [EX s | PX ms | EXAT s | PXAT ms | KEEPTTL]
Reply cmd_set(Ctx& ctx) {
  StringOptions options;
  if (!parse_string_options(ctx.argv, 3, true, options)) return Reply::error(kSyntax);
  return set_generic(ctx, options, ctx.argv[2]);
}

// SETEX key seconds value / PSETEX key milliseconds value.
Reply setex_generic(Ctx& ctx, ExpiryUnit unit) {
  StringOptions options;
  options.unit = unit;
  options.expire_arg = &ctx.argv[2];
  return set_generic(ctx, options, ctx.argv[3]);
}

// GETEX key [EX s | PX ms | EXAT s | PXAT ms | PERSIST], in Redis 7.0's order: options, then the
// key (nil when missing, before the expiry is checked), its type, the expiry, the reply.
Reply cmd_getex(Ctx& ctx) {
  StringOptions options;
  if (!parse_string_options(ctx.argv, 2, false, options)) return Reply::error(kSyntax);
  const std::string& key = ctx.argv[1];
  Entry* entry = ctx.lookup(key);
  if (entry == nullptr) return Reply::nil();
  if (entry->type != Type::kString) return Reply::error(kWrongType);
  std::int64_t expire_at_ms = -1;
  if (options.unit != ExpiryUnit::kNone) {
    if (auto error = expiry_time(ctx, *options.expire_arg, options.unit, expire_at_ms))
      return *error;
  }
  Reply value = Reply::bulk(entry->value);
  if (expire_at_ms >= 0 && ctx.already_expired(expire_at_ms)) {
    ctx.erase(key);  // EXAT / PXAT in the past deletes the key
  } else if (expire_at_ms >= 0) {
    ctx.set_ttl(key, *entry, expire_at_ms);
  } else if (options.persist) {
    entry->expire_at_ms = -1;
  }
  return value;
}

// GETSET key value: GET, then SET without options (the TTL goes).
Reply cmd_getset(Ctx& ctx) {
  Reply previous = cmd_get(ctx);
  if (previous.is_error()) return previous;
  ctx.create(ctx.argv[1], Type::kString).value = ctx.argv[2];
  return previous;
}

Reply cmd_getdel(Ctx& ctx) {
  Reply value = cmd_get(ctx);
  if (value.type == Reply::Type::kBulk) ctx.erase(ctx.argv[1]);
  return value;
}

Reply cmd_strlen(Ctx& ctx) {
  bool wrong_type = false;
  Entry* entry = ctx.lookup_typed(ctx.argv[1], Type::kString, wrong_type);
  if (wrong_type) return Reply::error(kWrongType);
  return Reply::from_integer(entry ? static_cast<std::int64_t>(entry->value.size()) : 0);
}

// Redis's proto-max-bulk-len default: the longest string APPEND may build.
constexpr std::size_t kMaxStringBytes = 512u << 20;

// APPEND key value; an existing key keeps its TTL.
Reply cmd_append(Ctx& ctx) {
  bool wrong_type = false;
  Entry* entry = ctx.lookup_typed(ctx.argv[1], Type::kString, wrong_type);
  if (wrong_type) return Reply::error(kWrongType);
  const std::string& tail = ctx.argv[2];
  if (entry == nullptr) {
    entry = &ctx.create(ctx.argv[1], Type::kString);
  } else if (entry->value.size() + tail.size() > kMaxStringBytes) {
    return Reply::error("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
  }
  entry->value += tail;
  return Reply::from_integer(static_cast<std::int64_t>(entry->value.size()));
}

// MSET key value [key value ...]: each key overwritten as a string without a TTL.
Reply cmd_mset(Ctx& ctx) {
  if (ctx.argv.size() % 2 == 0)
    return Reply::error(fmt::format("ERR wrong number of arguments for '{}' command", ctx.name()));
  for (std::size_t i = 1; i + 1 < ctx.argv.size(); i += 2)
    ctx.create(ctx.argv[i], Type::kString).value = ctx.argv[i + 1];
  return Reply::status("OK");
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

// RENAME / RENAMENX key newkey, as Redis 7.0's renameGenericCommand: the value and its TTL move to
// newkey, which is overwritten (RENAME) or left alone (RENAMENX answers 0); a missing key is an
// error even when both names are the same.
Reply rename_generic(Ctx& ctx, bool nx) {
  const std::string& from = ctx.argv[1];
  const std::string& to = ctx.argv[2];
  if (ctx.lookup(from) == nullptr) return Reply::error("ERR no such key");
  const auto done = [nx] { return nx ? Reply::from_integer(1) : Reply::status("OK"); };
  if (from == to) return nx ? Reply::from_integer(0) : Reply::status("OK");
  if (ctx.lookup(to) != nullptr) {
    if (nx) return Reply::from_integer(0);
    ctx.erase(to);
  }
  ctx.move_key(from, to);
  return done();
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
  if (entry == nullptr || entry->expire_at_ms < 0) return Reply::from_integer(0);
  entry->expire_at_ms = -1;
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
    case Type::kSet:
      return Reply::status("set");
    case Type::kList:
      return Reply::status("list");
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

// HSET / HMSET key field value [field value ...]: HSET answers the fields added, HMSET OK.
Reply hset_generic(Ctx& ctx, bool ok_reply) {
  if (ctx.argv.size() % 2 != 0)
    return Reply::error(fmt::format("ERR wrong number of arguments for '{}' command", ctx.name()));
  Reply error;
  Entry* entry = hash_entry(ctx, true, error);
  if (entry == nullptr) return error;
  std::int64_t added = 0;
  for (std::size_t i = 2; i + 1 < ctx.argv.size(); i += 2) {
    added += entry->hash->insert_or_assign(ctx.argv[i], ctx.argv[i + 1]).second;
  }
  return ok_reply ? Reply::status("OK") : Reply::from_integer(added);
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

// HGETALL / HKEYS / HVALS, as Redis's genericHgetallCommand. Fields are sorted so that replies
// are deterministic (Redis's order depends on the encoding: insertion order for a small hash,
// hash-table order for a large one); HVALS follows the same field order.
Reply hash_contents(Ctx& ctx, bool with_fields, bool with_values) {
  Reply error;
  Entry* entry = hash_entry(ctx, false, error);
  if (error.is_error()) return error;
  std::vector<Reply> items;
  if (entry != nullptr) {
    std::vector<const std::pair<const std::string, std::string>*> fields;
    fields.reserve(entry->hash->size());
    for (const auto& item : *entry->hash) fields.push_back(&item);
    std::sort(fields.begin(), fields.end(), [](auto* a, auto* b) { return a->first < b->first; });
    items.reserve(fields.size() * (with_fields && with_values ? 2 : 1));
    for (const auto* item : fields) {
      if (with_fields) items.push_back(Reply::bulk(item->first));
      if (with_values) items.push_back(Reply::bulk(item->second));
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
  std::string& lacking = ctx.lacking_command();
  lacking.clear();
  Reply reply = by_sha ? lua.evalsha(ctx.argv[1], keys, args, bridge)
                       : lua.eval(ctx.argv[1], keys, args, bridge);
  if (lacking.empty()) return reply;
  // Starts with "ERR rlsim: script ", a fatal script error (strategy/script.h).
  return Reply::error(fmt::format(
      "ERR rlsim: script {} called {}, a Redis command the embedded Redis does not implement "
      "(docs/redis-mock.md lists the commands it has); run it against a real Redis with --redis "
      "redis://host:port",
      by_sha ? ascii_lower(ctx.argv[1]) : sha1_hex(ctx.argv[1]), std::exchange(lacking, {})));
}

// SCRIPT LOAD body | EXISTS sha... | FLUSH [ASYNC|SYNC]
Reply cmd_script(Ctx& ctx) {
  const std::string sub = ascii_lower(ctx.argv[1]);
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
      const std::string mode = ascii_lower(ctx.argv[2]);
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

// The set, list and sorted-set rows (mock_set.cpp, mock_list.cpp, mock_zset.cpp).
std::vector<CommandRow> collection_rows() {
  return {
      {"sadd", -3, cmd_sadd, kDenyOom},
      {"srem", -3, cmd_srem},
      {"smembers", 2, cmd_smembers},
      {"sismember", 3, cmd_sismember},
      {"scard", 2, cmd_scard},
      {"lpush", -3, [](Ctx& c) { return push_generic(c, true); }, kDenyOom},
      {"rpush", -3, [](Ctx& c) { return push_generic(c, false); }, kDenyOom},
      {"lpop", -2, [](Ctx& c) { return pop_generic(c, true); }},
      {"rpop", -2, [](Ctx& c) { return pop_generic(c, false); }},
      {"lrange", 4, cmd_lrange},
      {"llen", 2, cmd_llen},
      {"ltrim", 4, cmd_ltrim},
      {"lindex", 3, cmd_lindex},
      {"lrem", 4, cmd_lrem},
      {"zadd", -4, cmd_zadd, kDenyOom},
      {"zincrby", 4, cmd_zincrby, kDenyOom},
      {"zrem", -3, cmd_zrem},
      {"zcard", 2, cmd_zcard},
      {"zscore", 3, cmd_zscore},
      {"zcount", 4, cmd_zcount},
      {"zrange", -4, cmd_zrange},
      {"zrangebyscore", -4, cmd_zrangebyscore},
      {"zremrangebyscore", 4, cmd_zremrangebyscore},
      {"zrevrange", -4, cmd_zrevrange},
      {"zrevrangebyscore", -4, cmd_zrevrangebyscore},
      {"zremrangebyrank", 4, cmd_zremrangebyrank},
      {"zpopmin", -2, [](Ctx& c) { return zpop_generic(c, true); }},
      {"zpopmax", -2, [](Ctx& c) { return zpop_generic(c, false); }},
  };
}

const std::vector<CommandRow>& command_table() {
  static const std::vector<CommandRow> table = [] {
    std::vector<CommandRow> rows = {
        {"get", 2, cmd_get},
        {"setnx", 3, cmd_setnx, kDenyOom},
        {"setex", 4, [](Ctx& c) { return setex_generic(c, ExpiryUnit::kEx); }, kDenyOom},
        {"psetex", 4, [](Ctx& c) { return setex_generic(c, ExpiryUnit::kPx); }, kDenyOom},
        {"getex", -2, cmd_getex},
        {"getset", 3, cmd_getset, kDenyOom},
        {"getdel", 2, cmd_getdel},
        {"strlen", 2, cmd_strlen},
        {"append", 3, cmd_append, kDenyOom},
        {"mset", -3, cmd_mset, kDenyOom},
        {"expiretime", 2, [](Ctx& c) { return expiretime_generic(c, false); }},
        {"pexpiretime", 2, [](Ctx& c) { return expiretime_generic(c, true); }},
        {"hkeys", 2, [](Ctx& c) { return hash_contents(c, true, false); }},
        {"hvals", 2, [](Ctx& c) { return hash_contents(c, false, true); }},
        {"incrbyfloat", 3, cmd_incrbyfloat, kDenyOom},
        {"unlink", -2, cmd_del},
        {"expireat", -3, [](Ctx& c) { return expire_generic(c, kUsPerS, true); }},
        {"pexpireat", -3, [](Ctx& c) { return expire_generic(c, kUsPerMs, true); }},
        {"hsetnx", 4, cmd_hsetnx, kDenyOom},
        {"hlen", 2, cmd_hlen},
        {"hexists", 3, cmd_hexists},
        {"hincrby", 4, cmd_hincrby, kDenyOom},
        {"hincrbyfloat", 4, cmd_hincrbyfloat, kDenyOom},
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
        {"hset", -4, [](Ctx& c) { return hset_generic(c, false); }, kDenyOom},
        {"hmset", -4, [](Ctx& c) { return hset_generic(c, true); }, kDenyOom},
        {"rename", 3, [](Ctx& c) { return rename_generic(c, false); }},
        {"renamenx", 3, [](Ctx& c) { return rename_generic(c, true); }},
        {"hget", 3, cmd_hget},
        {"hmget", -3, cmd_hmget},
        {"hdel", -3, cmd_hdel},
        {"hgetall", 2, [](Ctx& c) { return hash_contents(c, true, true); }},
        {"eval", -3, [](Ctx& c) { return eval_generic(c, false); }, kNoScript | kDenyOom},
        {"evalsha", -3, [](Ctx& c) { return eval_generic(c, true); }, kNoScript | kDenyOom},
        {"script", -2, cmd_script, kNoScript},
    };
    const std::vector<CommandRow> more = collection_rows();
    rows.insert(rows.end(), more.begin(), more.end());
    return rows;
  }();
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

// Every top-level command of Redis 7.0.15, from its command table (the file names of
// src/commands/*.json at tag 7.0.15, subcommands left out), and those of them flagged NOSCRIPT.
// A script calling a Redis command the mock lacks must not fail open quietly: dispatch answers
// with an error that stops the run (strategy/script.h, is_fatal_script_error) and names the
// command; a name Redis does not know answers Redis's own error on both backends.
constexpr std::string_view kRedis70Commands =
    " acl append asking auth bgrewriteaof bgsave bitcount bitfield bitfield_ro bitop bitpos blmove"
    " blmpop blpop brpop brpoplpush bzmpop bzpopmax bzpopmin client cluster command config copy"
    " dbsize debug decr decrby del discard dump echo eval eval_ro evalsha evalsha_ro exec exists"
    " expire expireat expiretime failover fcall fcall_ro flushall flushdb function geoadd geodist"
    " geohash geopos georadius georadius_ro georadiusbymember georadiusbymember_ro geosearch"
    " geosearchstore get getbit getdel getex getrange getset hdel hello hexists hget hgetall "
    "hincrby"
    " hincrbyfloat hkeys hlen hmget hmset hrandfield hscan hset hsetnx hstrlen hvals incr incrby"
    " incrbyfloat info keys lastsave latency lcs lindex linsert llen lmove lmpop lolwut lpop lpos"
    " lpush lpushx lrange lrem lset ltrim memory mget migrate module monitor move mset msetnx multi"
    " object persist pexpire pexpireat pexpiretime pfadd pfcount pfdebug pfmerge pfselftest ping"
    " psetex psubscribe psync pttl publish pubsub punsubscribe quit randomkey readonly readwrite"
    " rename renamenx replconf replicaof reset restore restore-asking role rpop rpoplpush rpush"
    " rpushx sadd save scan scard script sdiff sdiffstore select sentinel set setbit setex setnx"
    " setrange shutdown sinter sintercard sinterstore sismember slaveof slowlog smembers smismember"
    " smove sort sort_ro spop spublish srandmember srem sscan ssubscribe strlen subscribe substr"
    " sunion sunionstore sunsubscribe swapdb sync time touch ttl type unlink unsubscribe unwatch "
    "wait"
    " watch xack xadd xautoclaim xclaim xdel xgroup xinfo xlen xpending xrange xread xreadgroup"
    " xrevrange xsetid xtrim zadd zcard zcount zdiff zdiffstore zincrby zinter zintercard "
    "zinterstore"
    " zlexcount zmpop zmscore zpopmax zpopmin zrandmember zrange zrangebylex zrangebyscore"
    " zrangestore zrank zrem zremrangebylex zremrangebyrank zremrangebyscore zrevrange "
    "zrevrangebylex"
    " zrevrangebyscore zrevrank zscan zscore zunion zunionstore ";
constexpr std::string_view kRedis70NoScript =
    " auth bgrewriteaof bgsave blmove blpop brpop brpoplpush bzpopmax bzpopmin debug discard eval"
    " eval_ro evalsha evalsha_ro exec failover fcall fcall_ro hello monitor multi psubscribe psync"
    " punsubscribe quit replconf replicaof reset role save shutdown slaveof ssubscribe subscribe"
    " sunsubscribe sync unsubscribe unwatch wait watch ";

bool listed(std::string_view names, const std::string& lower_name) {
  return lower_name.find(' ') == std::string::npos &&
         names.find(" " + lower_name + " ") != std::string_view::npos;
}

constexpr std::string_view kLacksCommandPrefix =
    "ERR rlsim: the embedded Redis does not implement the Redis command ";

// The reply to a script's call of a command the table lacks.
Reply unknown_in_script(const std::string& name) {
  const std::string l = ascii_lower(name);
  if (!listed(kRedis70Commands, l))
    return Reply::error("ERR Unknown Redis command called from script");
  if (listed(kRedis70NoScript, l))
    return Reply::error("ERR This Redis command is not allowed from script");
  return Reply::error(fmt::format("{}{}", kLacksCommandPrefix, l));
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
    if (from_script) {
      Reply reply = unknown_in_script(argv[0]);
      if (reply.text.starts_with(kLacksCommandPrefix) && lacking_command_.empty()) {
        lacking_command_ = reply.text.substr(kLacksCommandPrefix.size());
        for (char& c : lacking_command_) c = static_cast<char>(std::toupper(c));
      }
      return reply;
    }
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
  Reply reply = row->handler(ctx);
  if (watcher_ != nullptr && !reply.is_error()) watcher_->executed(argv, reply);
  return reply;
}

}  // namespace rlsim
