#pragma once
// The text RealStore sends to a real Redis for a script: a one-line prelude on the script's first
// line (so line numbers in error messages stay the script's own) that does lazy expiry on the
// virtual clock and, for scripts that set or read TTLs or read TIME, maps those commands to the
// virtual clock (docs/real-redis.md, "Scripts").
#include <string>
#include <string_view>

namespace rlsim {

// Lazy expiry of KEYS on the virtual clock. Takes the two arguments the store appends to ARGV (the
// virtual clock mapped to the server's expiry scale, then the offset of that mapping) and removes
// them, so the script sees its own ARGV. Also the body of the store's own sweep script.
extern const char* const kSweepPrelude;

// Marks an error raised by a translated redis.call, so the store can restore the text Redis gives
// without the prelude (the caller's line number, the script's own SHA1).
constexpr std::string_view kScriptErrorMarker = "\001rlsim\001";

enum class ScriptWrap {
  kSweep,      // the script reads no clock: the sweep alone
  kRewritten,  // its clock commands are called through a translating function, the rest directly
  kShadowed,   // `redis` is shadowed: every redis.call goes through a coroutine (the general case)
};

struct WrappedScript {
  std::string text;
  ScriptWrap how = ScriptWrap::kSweep;
};

// The text sent for `text`. A script that names a clock command only as the literal first argument
// of `redis.call(...)` / `redis.pcall(...)` (and uses `redis` in no other way than reading its
// fields) and that compiles gets kRewritten: those calls, and only those, are renamed to a Lua
// function that maps the TTL and raises errors at the caller's line (error level 2); every other
// redis.call stays Redis's own C function, so it costs what it costs without rlsim. Anything else
// that mentions a clock command gets kShadowed, which is exact for any use of `redis` but costs a
// coroutine and several closures per call. So does a script whose redis.call names a command any
// other way than by a literal (`redis.call(ARGV[1], ...)`): it may name a clock command at run
// time, which only the shadowed wrapper sees and maps.
WrappedScript wrap_script(const std::string& text);

// Whether a script may set or read a TTL or read TIME (command names are matched in its text; a
// script that builds them at run time is not seen).
bool script_needs_clock(const std::string& text);

}  // namespace rlsim
