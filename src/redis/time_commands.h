#pragma once
// Redis 7.0's commands that take a TTL or an absolute time, or answer one, and what real mode does
// with each (docs/real-redis.md, "Virtual time"). On a real Redis the run's clock is shifted
// against the server's: RealStore (plain commands) and the script prelude (script_wrap.cpp, inside
// scripts) rewrite every command of this table that they can map, and refuse inside scripts the
// ones that read the server's wall clock, so that no such command reaches the server unchanged
// unless its row says why that is harmless.
#include <cstdint>
#include <span>
#include <string_view>

namespace rlsim {

enum class TimeUse : std::uint8_t {
  kExpireArg,        // EXPIRE / PEXPIRE / EXPIREAT / PEXPIREAT key amount: sent as PEXPIREAT
  kSetexArg,         // SETEX / PSETEX key amount value: sent as SET key value PXAT
  kExpiryOption,     // SET / GETEX with one of EX / PX / EXAT / PXAT: sent with PXAT
  kRestoreTtl,       // RESTORE key ttl payload [ABSTTL]: ms, 0 for none; sent with ABSTTL
  kReadsTtl,         // TTL / PTTL: read back from PEXPIRETIME in virtual time
  kReadsExpireTime,  // EXPIRETIME / PEXPIRETIME: read back in virtual time
  kReadsClock,       // TIME: answered from the virtual clock
  kWallClock,        // answers the server's wall clock: refused inside scripts in real mode
  kNotMapped,        // sent unchanged; `note` says why that is harmless or out of reach
};

struct TimeCommand {
  std::string_view name;        // upper case, as in Redis's command table
  std::string_view subcommand;  // for kWallClock: the one subcommand concerned ("" for all)
  TimeUse use;
  std::int64_t unit_us;      // of the amount or the answer (kUsPerS / kUsPerMs); 0 when none
  bool relative;             // the amount counts from now (EXPIRE, SETEX, EX, PX)
  std::size_t options_from;  // kExpiryOption: index of the first option (SET 3, GETEX 2)
  std::string_view note;
};

// Every row, in the order of the table (time_commands.cpp says where it comes from).
std::span<const TimeCommand> time_commands();
// The row for command `name` (any case), or nullptr.
const TimeCommand* find_time_command(std::string_view name);
// Whether real mode changes or refuses `name` (a row other than kNotMapped).
bool maps_time(std::string_view name);

}  // namespace rlsim
