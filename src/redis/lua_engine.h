#pragma once
// Lua 5.1 scripting for the embedded Redis: EVAL / EVALSHA / SCRIPT with Redis 7.0's sandbox, its
// conversion rules between Lua values and replies, and its error texts. One lua_State per engine;
// each script is compiled once and cached by SHA-1, so a call never re-parses its body. Every call
// runs under an instruction budget and the whole state under a memory cap, so a looping or
// allocating script fails with an error reply that names it instead of hanging the simulation.
// See docs/redis-mock.md for the environment and its differences from Redis.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "redis/lua_heap.h"
#include "redis/reply.h"

struct lua_State;
struct lua_Debug;

namespace rlsim {

// Where redis.call / redis.pcall send their commands: the keyspace the script runs against.
class ScriptHost {
 public:
  virtual ~ScriptHost() = default;
  // Runs `argv` inside the script at the script's time and returns Redis's reply, including the
  // script-specific errors (unknown command, wrong arity, command not allowed from scripts).
  virtual Reply call_from_script(const Command& argv) = 0;
};

struct LuaLimits {
  // Lua VM instructions one call may execute (not counting time inside redis.call). 20M stops
  // an endless loop after 0.1-0.2 s of host time (measured); rate-limit scripts use a few hundred.
  std::int64_t instructions_per_call = 20'000'000;
  // Bytes the whole Lua state may hold (compiled scripts, tables, strings).
  std::size_t memory_bytes = 64u << 20;
};

// Doubles as Redis 7.0 prints them in replies (ZSCORE, WITHSCORES, {double=...}): "%.17g",
// with "inf" and "-inf".
std::string format_double(double value);
// Writes `value` exactly as C's "%.17g" does (how Redis turns a Lua number into a command
// argument) into `out` and returns the length; no allocation.
constexpr std::size_t kDoubleChars = 32;  // "-1.2345678901234567e-308" and "-nan" fit
std::size_t format_g17(double value, char (&out)[kDoubleChars]);
// Whether `text` is a plain decimal ("-12", "1.5", "2e-3": an optional '-', digits, an optional
// fraction and exponent, nothing else) that converts without overflow; then `value` is what
// strtod gives for it. Other texts (spaces, '+', hex, inf, nan, NULs) answer false, for the
// caller's strtod path. Never allocates.
bool parse_plain_decimal(std::string_view text, double& value);

class LuaEngine {
 public:
  explicit LuaEngine(const LuaLimits& limits = {});
  ~LuaEngine();
  LuaEngine(const LuaEngine&) = delete;
  LuaEngine& operator=(const LuaEngine&) = delete;

  // EVAL: runs `body` (compiled and cached on first sight) with KEYS and ARGV.
  Reply eval(std::string_view body, std::span<const std::string> keys,
             std::span<const std::string> args, ScriptHost& host);
  // EVALSHA: the cached script with this SHA (any case), or Redis's NOSCRIPT error.
  Reply evalsha(const std::string& sha, std::span<const std::string> keys,
                std::span<const std::string> args, ScriptHost& host);
  // SCRIPT LOAD: compiles and caches `body`; its SHA as a bulk reply, or the compile error.
  Reply load(std::string_view body);
  // SCRIPT EXISTS for one SHA (any case).
  bool exists(const std::string& sha) const;

  std::size_t script_count() const { return scripts_.size(); }
  std::size_t memory_used_bytes() const { return memory_used_bytes_; }
  const LuaLimits& limits() const { return limits_; }

  // For the sandbox's C functions only.
  bool budget_exceeded() const { return budget_exceeded_; }
  void seed_random(std::int32_t seed);
  std::int32_t next_random();
  void mark_arrays_dirty() { arrays_dirty_ = true; }
  // The script read a global or library field Redis has and this Lua lacks (`what`, e.g.
  // "redis.setresp"): the call's reply becomes a fatal error naming the first one.
  void note_lacking(const char* what) {
    if (lacking_.empty()) lacking_ = what;
  }

 private:
  struct Script {
    int function_ref = 0;  // the compiled chunk in the Lua registry
  };

  static void* allocate(void* ud, void* ptr, std::size_t old_size, std::size_t new_size);
  static void count_hook(lua_State* L, lua_Debug* ar);
  static int redis_call(lua_State* L);
  static int redis_pcall(lua_State* L);
  static int call_generic(lua_State* L, bool raise);

  void open_sandbox();
  // The cached script named `sha`, compiling `body` on first sight; nullptr with `error` set
  // when it does not compile.
  const Script* compile(std::string_view body, std::string sha, Reply& error);
  Reply run(const std::string& sha, const Script& script, std::span<const std::string> keys,
            std::span<const std::string> args, ScriptHost& host);
  void fill_array(int table_ref, int& filled, std::span<const std::string> values);
  void reset_arrays_if_dirty();
  Reply error_reply_from_stack(const std::string& sha);
  Reply to_reply(int depth);
  void push_reply(const Reply& reply);
  bool call_and_push(lua_State* L);

  LuaLimits limits_;
  LuaHeap heap_;  // declared before L_: the state's memory outlives it
  lua_State* L_ = nullptr;
  std::size_t memory_used_bytes_ = 0;
  bool enforce_memory_cap_ = false;  // only while Lua code or the compiler runs
  bool memory_exceeded_ = false;     // an allocation was refused during the current call
  bool budget_exceeded_ = false;     // the current call ran out of instructions
  bool arrays_dirty_ = false;        // the script wrote new entries into KEYS or ARGV
  std::string lacking_;              // see note_lacking; "" when the call read nothing lacking
  ScriptHost* host_ = nullptr;       // set while a script runs
  // math.random's rand48 generator: persistent across calls and starting from rand48's default
  // state, as in Redis 7.0 (which does not reseed per call).
  std::uint64_t rand48_state_ = 0x1234ABCD330EULL;
  std::unordered_map<std::string, Script> scripts_;  // compiled scripts by lower-case SHA
  int real_globals_ref_ = 0;                         // the globals table behind the read-only proxy
  // KEYS and ARGV are refilled in place each call; these count the entries they hold.
  int keys_ref_ = 0, args_ref_ = 0;
  int keys_filled_ = 0, args_filled_ = 0;
  Command call_argv_;  // reused by redis.call to avoid allocating per command
};

}  // namespace rlsim
