#include "redis/time_commands.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "core/time.h"

namespace rlsim {

namespace {

constexpr std::int64_t kS = kUsPerS;
constexpr std::int64_t kMs = kUsPerMs;

// Enumerated from Redis 7.0.15's command table, src/commands/*.json at tag 7.0.15 (commit
// f35f36a2): every command with an argument of type "unix-time", or named or tokened seconds,
// milliseconds, timeout, ttl, time, idle or expir*, and every command whose summary says it
// answers a time, a TTL or an expiry (TIME, TTL, PTTL, EXPIRETIME, PEXPIRETIME, LASTSAVE, OBJECT
// IDLETIME). Commands flagged NOSCRIPT are listed too: no script can call them, and RealStore
// refuses every plain command the embedded Redis lacks.
constexpr TimeCommand kTimeCommands[] = {
    {"EXPIRE", "", TimeUse::kExpireArg, kS, true, 0, "expire.json: seconds"},
    {"PEXPIRE", "", TimeUse::kExpireArg, kMs, true, 0, "pexpire.json: milliseconds"},
    {"EXPIREAT", "", TimeUse::kExpireArg, kS, false, 0, "expireat.json: unix-time-seconds"},
    {"PEXPIREAT", "", TimeUse::kExpireArg, kMs, false, 0, "pexpireat.json: unix-time-milliseconds"},
    {"SETEX", "", TimeUse::kSetexArg, kS, true, 0, "setex.json: seconds"},
    {"PSETEX", "", TimeUse::kSetexArg, kMs, true, 0, "psetex.json: milliseconds"},
    {"SET", "", TimeUse::kExpiryOption, 0, false, 3, "set.json: EX, PX, EXAT, PXAT (KEEPTTL)"},
    {"GETEX", "", TimeUse::kExpiryOption, 0, false, 2, "getex.json: EX, PX, EXAT, PXAT"},
    {"RESTORE", "", TimeUse::kRestoreTtl, kMs, true, 0,
     "restore.json: ttl, ABSTTL (IDLETIME, the LRU idle time, is passed as given)"},
    {"RESTORE-ASKING", "", TimeUse::kRestoreTtl, kMs, true, 0,
     "restore-asking.json: as RESTORE (sent by MIGRATE)"},
    {"TTL", "", TimeUse::kReadsTtl, kS, false, 0, "answers the TTL in seconds"},
    {"PTTL", "", TimeUse::kReadsTtl, kMs, false, 0, "answers the TTL in milliseconds"},
    {"EXPIRETIME", "", TimeUse::kReadsExpireTime, kS, false, 0, "answers a Unix time in seconds"},
    {"PEXPIRETIME", "", TimeUse::kReadsExpireTime, kMs, false, 0, "answers a Unix time in ms"},
    {"TIME", "", TimeUse::kReadsClock, 0, false, 0, "answers the server clock"},
    {"OBJECT", "IDLETIME", TimeUse::kWallClock, kS, false, 0,
     "object-idletime.json: seconds since the key's last access, on the server clock"},
    {"LASTSAVE", "", TimeUse::kWallClock, kS, false, 0,
     "lastsave.json: the Unix time of the last save, on the server clock"},
    {"BLMPOP", "", TimeUse::kNotMapped, 0, false, 0, "timeout: never blocks inside a script"},
    {"BZMPOP", "", TimeUse::kNotMapped, 0, false, 0, "timeout: never blocks inside a script"},
    {"XREAD", "", TimeUse::kNotMapped, 0, false, 0, "BLOCK: never blocks inside a script"},
    {"XREADGROUP", "", TimeUse::kNotMapped, 0, false, 0, "BLOCK: never blocks inside a script"},
    {"XADD", "", TimeUse::kNotMapped, 0, false, 0,
     "an ID of * takes the server clock in ms; streams are not in the embedded Redis"},
    {"XCLAIM", "", TimeUse::kNotMapped, 0, false, 0,
     "min-idle-time, IDLE, TIME: server clock; streams are not in the embedded Redis"},
    {"XAUTOCLAIM", "", TimeUse::kNotMapped, 0, false, 0,
     "min-idle-time: server clock; streams are not in the embedded Redis"},
    {"XPENDING", "", TimeUse::kNotMapped, 0, false, 0,
     "IDLE: server clock; streams are not in the embedded Redis"},
    {"MIGRATE", "", TimeUse::kNotMapped, 0, false, 0,
     "a network timeout; moves keys to another server (the run's keys must stay)"},
    {"BLMOVE", "", TimeUse::kNotMapped, 0, false, 0, "NOSCRIPT"},
    {"BLPOP", "", TimeUse::kNotMapped, 0, false, 0, "NOSCRIPT"},
    {"BRPOP", "", TimeUse::kNotMapped, 0, false, 0, "NOSCRIPT"},
    {"BRPOPLPUSH", "", TimeUse::kNotMapped, 0, false, 0, "NOSCRIPT"},
    {"BZPOPMAX", "", TimeUse::kNotMapped, 0, false, 0, "NOSCRIPT"},
    {"BZPOPMIN", "", TimeUse::kNotMapped, 0, false, 0, "NOSCRIPT"},
    {"CLIENT", "", TimeUse::kNotMapped, 0, false, 0, "PAUSE, UNBLOCK TIMEOUT: NOSCRIPT"},
    {"WAIT", "", TimeUse::kNotMapped, 0, false, 0, "NOSCRIPT"},
    {"FAILOVER", "", TimeUse::kNotMapped, 0, false, 0, "NOSCRIPT"},
};

}  // namespace

std::span<const TimeCommand> time_commands() { return kTimeCommands; }

const TimeCommand* find_time_command(std::string_view name) {
  std::string upper(name);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const auto* it = std::find_if(std::begin(kTimeCommands), std::end(kTimeCommands),
                                [&](const TimeCommand& row) { return row.name == upper; });
  return it == std::end(kTimeCommands) ? nullptr : it;
}

bool maps_time(std::string_view name) {
  const TimeCommand* row = find_time_command(name);
  return row != nullptr && row->use != TimeUse::kNotMapped;
}

}  // namespace rlsim
