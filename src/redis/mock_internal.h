#pragma once
// Internal to the embedded Redis's command files (mock_commands.cpp, mock_zset.cpp): the per-call
// context the handlers share, Redis's number parsers and its common error texts.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/ascii.h"
#include "redis/mock_store.h"

namespace rlsim {

inline const char* const kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline const char* const kNotInteger = "ERR value is not an integer or out of range";
inline const char* const kNotFloat = "ERR value is not a valid float";
inline const char* const kOverflow = "ERR increment or decrement would overflow";
inline const char* const kSyntax = "ERR syntax error";
inline const char* const kNotPositive = "ERR value is out of range, must be positive";

// Redis's string2ll: optional '-', no '+', no leading zeros, no spaces, fits in int64.
bool parse_strict_int(std::string_view text, std::int64_t& out);
// Redis's string2d (scores, range bounds): strtod over the whole text, no leading space, no NaN,
// no overflow to infinity or underflow to zero.
bool parse_strict_double(const std::string& text, double& out);
// A count argument as Redis's getPositiveLongFromObjectOrReply reads it (LPOP, ZPOPMIN): the error
// reply ("value is out of range, must be positive", also for a non-integer), or nullopt with
// `count` set.
std::optional<Reply> parse_count(const std::string& text, std::int64_t& count);
// Redis's rank range (LRANGE, LTRIM, ZRANGE, ZREMRANGEBYRANK): negative indexes count from the
// end; false when the range is empty, else [start, stop] clamped to [0, size).
bool clamp_rank_range(std::int64_t size, std::int64_t& start, std::int64_t& stop);

// Per-call helpers shared by the handlers: lazy expiry on lookup, creation, TTLs.
struct MockStore::Context {
  MockStore& store;
  const Command& argv;
  TimeUs now_us;

  // Redis's clock for expiry: whole milliseconds (mstime()).
  std::int64_t now_ms() const { return now_us / kUsPerMs; }
  // The live entry for `key`, or nullptr (an expired key is deleted on the way, as Redis does).
  // Live through the millisecond of its expiry, as Redis's keyIsExpired (`now > when`).
  Entry* lookup(const std::string& key) {
    auto it = store.keys_.find(key);
    if (it == store.keys_.end()) return nullptr;
    if (it->second.expire_at_ms >= 0 && it->second.expire_at_ms < now_ms()) {
      store.keys_.erase(it);
      return nullptr;
    }
    return &it->second;
  }
  // The live entry for `key` if it has `type`; `wrong_type` is set when it has another.
  Entry* lookup_typed(const std::string& key, Type type, bool& wrong_type) {
    Entry* entry = lookup(key);
    wrong_type = entry != nullptr && entry->type != type;
    return wrong_type ? nullptr : entry;
  }
  // As lookup_typed, with `error` set to WRONGTYPE when the key holds another type.
  Entry* lookup_checked(const std::string& key, Type type, Reply& error) {
    bool wrong_type = false;
    Entry* entry = lookup_typed(key, type, wrong_type);
    if (wrong_type) error = Reply::error(kWrongType);
    return entry;
  }
  // A fresh value of `type` at `key` (no TTL); an existing key's expiry-heap entry is kept, so
  // overwriting a key never adds heap entries.
  Entry& create(const std::string& key, Type type);
  // Whether a new expiry `when_ms` deletes the key at once instead (Redis's checkAlreadyExpired:
  // `when <= now`, one millisecond earlier than lookup's test).
  bool already_expired(std::int64_t when_ms) const { return when_ms <= now_ms(); }
  void set_ttl(const std::string& key, Entry& entry, std::int64_t expire_at_ms) {
    entry.expire_at_ms = expire_at_ms;
    if (entry.heap_at_ms < 0 || expire_at_ms < entry.heap_at_ms) {
      entry.heap_at_ms = expire_at_ms;
      store.track_expiry(key, expire_at_ms);
    }
  }
  void erase(const std::string& key) { store.keys_.erase(key); }
  // Moves the live key `from` (value and TTL) to the name `to`, which holds no key.
  void move_key(const std::string& from, const std::string& to);
  std::string name() const { return ascii_lower(argv[0]); }
  LuaEngine& lua() { return store.lua(); }
  void flush_scripts() { store.lua_.reset(); }
  std::string& lacking_command() { return store.lacking_command_; }
  Reply dispatch_in_script(const Command& command) { return store.dispatch(command, now_us, true); }
};

// Set commands (mock_set.cpp).
Reply cmd_sadd(MockStore::Context& ctx);
Reply cmd_srem(MockStore::Context& ctx);
Reply cmd_smembers(MockStore::Context& ctx);
Reply cmd_sismember(MockStore::Context& ctx);
Reply cmd_scard(MockStore::Context& ctx);

// List commands (mock_list.cpp).
Reply push_generic(MockStore::Context& ctx, bool head);  // LPUSH / RPUSH
Reply pop_generic(MockStore::Context& ctx, bool head);   // LPOP / RPOP [count]
Reply cmd_lrange(MockStore::Context& ctx);
Reply cmd_llen(MockStore::Context& ctx);
Reply cmd_ltrim(MockStore::Context& ctx);
Reply cmd_lindex(MockStore::Context& ctx);
Reply cmd_lrem(MockStore::Context& ctx);

// Sorted-set commands (mock_zset.cpp).
Reply cmd_zadd(MockStore::Context& ctx);
Reply cmd_zincrby(MockStore::Context& ctx);
Reply cmd_zrem(MockStore::Context& ctx);
Reply cmd_zcard(MockStore::Context& ctx);
Reply cmd_zscore(MockStore::Context& ctx);
Reply cmd_zcount(MockStore::Context& ctx);
Reply cmd_zrange(MockStore::Context& ctx);
Reply cmd_zrangebyscore(MockStore::Context& ctx);
Reply cmd_zremrangebyscore(MockStore::Context& ctx);
Reply cmd_zrevrange(MockStore::Context& ctx);
Reply cmd_zrevrangebyscore(MockStore::Context& ctx);
Reply cmd_zremrangebyrank(MockStore::Context& ctx);
Reply zpop_generic(MockStore::Context& ctx, bool min);  // ZPOPMIN / ZPOPMAX [count]

}  // namespace rlsim
