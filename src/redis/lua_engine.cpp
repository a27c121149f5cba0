#include "redis/lua_engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <lua.hpp>

// Two of the four libraries Redis embeds, from Debian's static archives of the very versions Redis
// 7.0 ships (lua-cjson-dev: lua-cjson 2.1.0; lua-bitop-dev: BitOp 1.0.2). The other two, struct
// and cmsgpack, are written here: redis/lua_struct.cpp, redis/lua_cmsgpack.cpp.
extern "C" {
#include <lua-bitop.h>
#include <lua-cjson.h>
}

#include "core/check.h"
#include "core/parse_double.h"
#include "core/sha1.h"
#include "redis/lua_cmsgpack.h"
#include "redis/lua_struct.h"

// Lua 5.1 reports errors with longjmp. Every C function below that can raise (lua_error,
// luaL_error, or an allocation that fails under the memory cap) keeps no C++ object with a
// destructor alive at that point; work that needs such objects happens in helpers that return
// before the error is raised.

namespace rlsim {

namespace {

// Registry slots.
const char* const kProtectedKey = "rlsim.protected";   // set of read-only proxy tables
const char* const kObjectIdsKey = "rlsim.object_ids";  // tostring's numbers, weak keys
// Errors whose text the top level replaces (the pcall'd chunk may see them first).
const char* const kBudgetMessage = "rlsim: instruction budget exceeded";
constexpr int kMaxReplyDepth = 200;  // nesting of a script's returned tables we convert
constexpr char kChunkName[] = "@user_script";

LuaEngine& engine_of(lua_State* L) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  return *static_cast<LuaEngine*>(ud);
}

// Redis's luaPushErrorBuff: "-CODE msg" keeps CODE, a text without '-' gets "ERR"; pushes the
// table {err = "CODE msg"}.
void push_error_table(lua_State* L, const char* text, std::size_t size) {
  std::string_view s(text, size);
  std::string_view code = "ERR", msg = s;
  if (!s.empty() && s[0] == '-') {
    const std::size_t space = s.find(' ');
    if (space == std::string_view::npos) {
      msg = s.substr(1);
    } else {
      code = s.substr(1, space - 1);
      msg = s.substr(space + 1);
    }
  }
  while (!msg.empty() && (msg.back() == '\r' || msg.back() == '\n')) msg.remove_suffix(1);
  while (!msg.empty() && (msg.front() == '\r' || msg.front() == '\n')) msg.remove_prefix(1);
  lua_createtable(L, 0, 1);
  lua_pushlstring(L, "err", 3);
  lua_pushlstring(L, code.data(), code.size());
  lua_pushlstring(L, " ", 1);
  lua_pushlstring(L, msg.data(), msg.size());
  lua_concat(L, 3);
  lua_rawset(L, -3);
}

void push_error_table(lua_State* L, const char* text) {
  push_error_table(L, text, std::strlen(text));
}

// Redis maps CR and LF of error and status texts to spaces (they end a RESP line).
std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\r', ' ');
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

// Lua number -> integer reply as Redis's (long long) cast does it on x86-64: truncation toward
// zero, and the "integer indefinite" value for NaN and anything out of range.
std::int64_t truncate_number(lua_Number n) {
  if (!(n > -9223372036854775808.0 - 1024 && n < 9223372036854775808.0)) {
    return std::numeric_limits<std::int64_t>::min();
  }
  if (n <= -9223372036854775808.0) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(n);
}

// --- The sandbox's own functions --------------------------------------------------------------

// Redis's __redis__err__handler: any error becomes {err=..., source=..., line=...}, a non-table
// becoming {err = "ERR " .. tostring(e)}; the position is the script line that raised it (the
// caller when a C function such as redis.call or error raised it).
int error_handler(lua_State* L) {
  lua_Debug ar;
  bool have = lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar);
  if (have && std::strcmp(ar.what, "C") == 0) {
    have = lua_getstack(L, 2, &ar) && lua_getinfo(L, "Sl", &ar);
  }
  if (!lua_istable(L, 1)) {
    lua_createtable(L, 0, 3);
    lua_pushlstring(L, "err", 3);
    lua_pushlstring(L, "ERR ", 4);
    switch (lua_type(L, 1)) {
      case LUA_TSTRING:
      case LUA_TNUMBER:
        lua_pushvalue(L, 1);
        break;
      case LUA_TBOOLEAN:
        lua_pushstring(L, lua_toboolean(L, 1) ? "true" : "false");
        break;
      default:  // no addresses in error texts: they would make runs differ
        lua_pushstring(L, lua_typename(L, lua_type(L, 1)));
        break;
    }
    lua_concat(L, 2);
    lua_rawset(L, -3);
    lua_replace(L, 1);
  }
  lua_settop(L, 1);
  if (have) {
    lua_pushliteral(L, "source");
    lua_pushstring(L, ar.source);
    lua_rawset(L, 1);
    lua_pushliteral(L, "line");
    lua_pushinteger(L, ar.currentline);
    lua_rawset(L, 1);
  }
  return 1;
}

// What redis-server 7.0.15 has and the embedded Lua does not (listed from its _G and its library
// tables): reading one marks the call, whose reply then becomes a fatal error (LuaEngine::run),
// even if the script catches the read with pcall; a name no Redis has fails as in Redis.
constexpr std::string_view kLackingGlobals = " __redis__err__handler ";
constexpr std::string_view kLackingRedisFields = " setresp acl_check_cmd ";

bool lacks(std::string_view names, const char* name) {
  return names.find(" " + std::string(name) + " ") != std::string_view::npos;
}

int lacking_error(lua_State* L, const char* what) {
  engine_of(L).note_lacking(what);
  return luaL_error(L, "rlsim: the embedded Redis lacks %s", what);
}

int missing_global(lua_State* L) {
  if (!lua_isstring(L, 2)) {
    return luaL_error(L, "Second argument to luaProtectedTableError must be a string or number");
  }
  const char* name = lua_tostring(L, 2);
  if (lacks(kLackingGlobals, name)) return lacking_error(L, name);
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'", name);
}

// The `redis` table's __index: nil for names Redis lacks too, fatal for those only it has.
int missing_redis_field(lua_State* L) {
  if (lua_type(L, 2) == LUA_TSTRING) {
    const char* name = lua_tostring(L, 2);
    if (lacks(kLackingRedisFields, name)) {
      lua_pushfstring(L, "redis.%s", name);
      return lacking_error(L, lua_tostring(L, -1));
    }
  }
  lua_pushnil(L);
  return 1;
}

int readonly_newindex(lua_State* L) { return luaL_error(L, "Attempt to modify a readonly table"); }

// rawset that refuses the read-only tables, as Redis's read-only tables do.
int safe_rawset(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  lua_getfield(L, LUA_REGISTRYINDEX, kProtectedKey);
  lua_pushvalue(L, 1);
  lua_rawget(L, -2);
  if (lua_toboolean(L, -1)) {
    lua_pushstring(L, "Attempt to modify a readonly table");
    return lua_error(L);
  }
  lua_settop(L, 3);
  lua_rawset(L, 1);
  return 1;
}

// Redis 7's pcall: an error raised as a table with an "err" string (redis.call's errors) comes
// back as that string, as in earlier Redis versions. An exhausted instruction budget is not
// catchable.
int redis_style_pcall(lua_State* L) {
  luaL_checkany(L, 1);
  const int argc = lua_gettop(L);
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  if (lua_pcall(L, argc - 1, LUA_MULTRET, 0) != 0) {
    if (engine_of(L).budget_exceeded()) return lua_error(L);
    lua_remove(L, 1);
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      if (lua_isstring(L, -1)) {
        lua_replace(L, -2);
      } else {
        lua_pop(L, 1);
      }
    }
    lua_pushboolean(L, 0);
    lua_insert(L, 1);
  }
  return lua_gettop(L);
}

int redis_sha1hex(lua_State* L) {
  if (lua_gettop(L) != 1) {
    push_error_table(L, "wrong number of arguments");
    return lua_error(L);
  }
  std::size_t size = 0;
  const char* text = lua_tolstring(L, 1, &size);
  char hex[41];
  {
    const std::string digest = sha1_hex(text ? std::string_view(text, size) : std::string_view());
    std::memcpy(hex, digest.data(), 40);
  }
  lua_pushlstring(L, hex, 40);
  return 1;
}

int redis_error_reply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    push_error_table(L, "wrong number or type of arguments");
    return 1;
  }
  if (lua_tostring(L, 1)[0] != '-') {
    lua_pushlstring(L, "-", 1);
    lua_pushvalue(L, 1);
    lua_concat(L, 2);
    lua_replace(L, 1);
  }
  std::size_t size = 0;
  const char* text = lua_tolstring(L, 1, &size);
  push_error_table(L, text, size);
  return 1;
}

int redis_status_reply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    push_error_table(L, "wrong number or type of arguments");
    return 1;
  }
  lua_createtable(L, 0, 1);
  lua_pushvalue(L, 1);
  lua_setfield(L, -2, "ok");
  return 1;
}

// redis.log checks its arguments as Redis does; rlsim has no server log, so nothing is written.
int redis_log(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc < 2) {
    push_error_table(L, "redis.log() requires two arguments or more.");
    return lua_error(L);
  }
  if (!lua_isnumber(L, 1)) {
    push_error_table(L, "First argument must be a number (log level).");
    return lua_error(L);
  }
  const lua_Number level = lua_tonumber(L, 1);
  if (level < 0 || level > 3) {
    push_error_table(L, "Invalid debug level.");
    return lua_error(L);
  }
  return 0;
}

int redis_replicate_commands(lua_State* L) {
  lua_pushboolean(L, 1);  // Redis 7 always replicates effects
  return 1;
}

// redis.set_repl checks its argument as Redis 7.0.15 does (its message says "two arguments" for
// one); a simulated node has no replicas, so the flags change nothing.
int redis_set_repl(lua_State* L) {
  if (lua_gettop(L) != 1) {
    push_error_table(L, "redis.set_repl() requires two arguments.");
    return lua_error(L);
  }
  const auto flags = static_cast<long long>(lua_tonumber(L, -1));
  if ((flags & ~3LL) != 0) {
    push_error_table(
        L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
    return lua_error(L);
  }
  return 0;
}

// Outside a SCRIPT DEBUG session (never in rlsim) redis.breakpoint answers false and redis.debug
// does nothing, as in Redis.
int redis_breakpoint(lua_State* L) {
  lua_pushboolean(L, 0);
  return 1;
}
int redis_debug(lua_State* /*L*/) { return 0; }

// math.random / math.randomseed on Redis's rand48 generator (rand.c), so that the same seed gives
// the same sequence as Redis on every platform.
int math_random(lua_State* L) {
  const auto r = static_cast<lua_Number>(engine_of(L).next_random() % 2147483647) / 2147483647.0;
  switch (lua_gettop(L)) {
    case 0:
      lua_pushnumber(L, r);
      break;
    case 1: {
      const auto u = static_cast<int>(luaL_checkinteger(L, 1));
      luaL_argcheck(L, 1 <= u, 1, "interval is empty");
      lua_pushnumber(L, std::floor(r * u) + 1);
      break;
    }
    case 2: {
      const auto l = static_cast<int>(luaL_checkinteger(L, 1));
      const auto u = static_cast<int>(luaL_checkinteger(L, 2));
      luaL_argcheck(L, l <= u, 2, "interval is empty");
      lua_pushnumber(L, std::floor(r * (u - l + 1)) + l);
      break;
    }
    default:
      return luaL_error(L, "wrong number of arguments");
  }
  return 1;
}

int math_randomseed(lua_State* L) {
  engine_of(L).seed_random(static_cast<std::int32_t>(luaL_checkinteger(L, 1)));
  return 0;
}

// KEYS / ARGV are refilled in place each call; a script that adds entries marks them for a
// fresh table (see LuaEngine::fill_array).
int array_newindex(lua_State* L) {
  engine_of(L).mark_arrays_dirty();
  lua_settop(L, 3);
  lua_rawset(L, 1);
  return 0;
}

// tostring without addresses: Lua 5.1 prints tables and functions as "table: 0x55d0c3e2a1b0",
// which would make a script's reply differ from run to run. Here each such value gets a number
// in order of first print ("table: 0x00000001"), kept in a weak-keyed registry table.
int deterministic_tostring(lua_State* L) {
  luaL_checkany(L, 1);
  if (luaL_callmeta(L, 1, "__tostring")) return 1;
  switch (lua_type(L, 1)) {
    case LUA_TNUMBER:
    case LUA_TSTRING:
      lua_pushvalue(L, 1);
      lua_tostring(L, -1);
      return 1;
    case LUA_TBOOLEAN:
      lua_pushstring(L, lua_toboolean(L, 1) ? "true" : "false");
      return 1;
    case LUA_TNIL:
      lua_pushliteral(L, "nil");
      return 1;
    case LUA_TLIGHTUSERDATA:
      // cjson.null, the only one a script can reach: glibc's "%p" of NULL, as Redis prints it.
      if (lua_touserdata(L, 1) == nullptr) {
        lua_pushliteral(L, "userdata: (nil)");
        return 1;
      }
      break;
    default:
      break;
  }
  lua_getfield(L, LUA_REGISTRYINDEX, kObjectIdsKey);  // ids
  lua_pushvalue(L, 1);
  lua_rawget(L, -2);
  lua_Number id = lua_tonumber(L, -1);
  lua_pop(L, 1);
  if (id == 0) {
    lua_getfield(L, -1, "next");
    id = lua_tonumber(L, -1) + 1;
    lua_pop(L, 1);
    lua_pushnumber(L, id);
    lua_setfield(L, -2, "next");
    lua_pushvalue(L, 1);
    lua_pushnumber(L, id);
    lua_rawset(L, -3);
  }
  char text[64];
  std::snprintf(text, sizeof(text), "%s: 0x%08llx", luaL_typename(L, 1),
                static_cast<unsigned long long>(id));
  lua_pushstring(L, text);
  return 1;
}

}  // namespace

bool parse_plain_decimal(std::string_view chars, double& value) {
  const char* const text = chars.data();
  const char* const end = text + chars.size();
  const char* p = text;
  const bool negative = p < end && *p == '-';
  if (negative) ++p;
  const char* const digits_at = p;
  std::uint64_t whole = 0;
  while (p < end && *p >= '0' && *p <= '9') whole = whole * 10 + static_cast<unsigned>(*p++ - '0');
  const std::size_t int_digits = static_cast<std::size_t>(p - digits_at);
  if (int_digits == 0) return false;
  if (p == end && int_digits <= 16 && whole <= (std::uint64_t{1} << 53)) {
    // Up to 2^53 the conversion is exact, as strtod's is.
    const auto magnitude = static_cast<lua_Number>(whole);
    value = negative ? -magnitude : magnitude;  // "-0" is -0.0, as strtod gives it
    return true;
  }
  if (p < end && *p == '.') {
    ++p;
    while (p < end && *p >= '0' && *p <= '9') ++p;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    ++p;
    if (p < end && (*p == '+' || *p == '-')) ++p;
    const char* const exponent_at = p;
    while (p < end && *p >= '0' && *p <= '9') ++p;
    if (p == exponent_at) return false;
  }
  if (p != end) return false;
  // from_chars rounds correctly, as glibc's strtod does; it refuses what would overflow or
  // underflow, which then takes Lua's path.
  double parsed = 0;
  const auto [parsed_end, ec] = from_chars_double(text, end, parsed);
  if (ec != std::errc() || parsed_end != end) return false;
  value = parsed;
  return true;
}

namespace {

// Lua 5.1's tonumber (lbaselib.c luaB_tonumber), with a fast path for plain decimal strings: the
// base library converts a string with strtod twice (lua_isnumber, then lua_tonumber), the
// largest single cost of the rate-limit scripts. Same results and the same errors.
int fast_tonumber(lua_State* L) {
  // tonumber(s), the scripts' case, reads no base and needs no argument check (one is there).
  const bool one_argument = lua_gettop(L) == 1;
  const int base = one_argument ? 10 : luaL_optint(L, 2, 10);
  if (base == 10) {
    if (!one_argument) luaL_checkany(L, 1);
    if (lua_type(L, 1) == LUA_TSTRING) {
      std::size_t size = 0;
      const char* text = lua_tolstring(L, 1, &size);
      lua_Number value = 0;
      if (parse_plain_decimal(std::string_view(text, size), value)) {
        lua_pushnumber(L, value);
        return 1;
      }
    }
    if (lua_isnumber(L, 1)) {
      lua_pushnumber(L, lua_tonumber(L, 1));
      return 1;
    }
  } else {
    const char* s1 = luaL_checkstring(L, 1);
    char* s2 = nullptr;
    luaL_argcheck(L, 2 <= base && base <= 36, 2, "base out of range");
    const unsigned long n = std::strtoul(s1, &s2, base);
    if (s1 != s2) {                                                // at least one valid digit
      while (std::isspace(static_cast<unsigned char>(*s2))) s2++;  // trailing spaces
      if (*s2 == '\0') {
        lua_pushnumber(L, static_cast<lua_Number>(n));
        return 1;
      }
    }
  }
  lua_pushnil(L);
  return 1;
}

// Pushes table[name] (the table at the top, no metamethods) when it has `type` and returns true;
// otherwise leaves the stack as it was.
bool push_raw_field(lua_State* L, const char* name, int type) {
  lua_pushstring(L, name);
  lua_rawget(L, -2);
  if (lua_type(L, -1) == type) return true;
  lua_pop(L, 1);
  return false;
}

void set_function(lua_State* L, const char* name, lua_CFunction fn) {
  lua_pushcfunction(L, fn);
  lua_setfield(L, -2, name);
}

void set_number(lua_State* L, const char* name, lua_Number value) {
  lua_pushnumber(L, value);
  lua_setfield(L, -2, name);
}

// Replaces the table at the top of the stack with a read-only proxy of it: reads fall through to
// the table, writes raise "Attempt to modify a readonly table". The proxy is registered as
// protected for rawset.
void push_readonly_proxy(lua_State* L) {
  lua_newtable(L);           // table proxy
  lua_createtable(L, 0, 3);  // table proxy mt
  lua_pushvalue(L, -3);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, readonly_newindex);
  lua_setfield(L, -2, "__newindex");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);  // table proxy
  lua_remove(L, -2);        // proxy
  lua_getfield(L, LUA_REGISTRYINDEX, kProtectedKey);
  lua_pushvalue(L, -2);
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

}  // namespace

// --- Engine -----------------------------------------------------------------------------------

void* LuaEngine::allocate(void* ud, void* ptr, std::size_t old_size, std::size_t new_size) {
  auto* self = static_cast<LuaEngine*>(ud);
  if (new_size == 0) {
    self->memory_used_bytes_ -= old_size;
    self->heap_.release(ptr, old_size);
    return nullptr;
  }
  if (self->enforce_memory_cap_ && new_size > old_size &&
      self->memory_used_bytes_ - old_size + new_size > self->limits_.memory_bytes) {
    self->memory_exceeded_ = true;
    return nullptr;
  }
  void* out = self->heap_.resize(ptr, old_size, new_size);
  if (out == nullptr) return nullptr;
  self->memory_used_bytes_ = self->memory_used_bytes_ - old_size + new_size;
  return out;
}

void LuaEngine::count_hook(lua_State* L, lua_Debug* /*ar*/) {
  LuaEngine& self = engine_of(L);
  self.budget_exceeded_ = true;
  // From now on every instruction raises again, so pcall / coroutines cannot swallow it.
  lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
  if (L != self.L_) lua_sethook(self.L_, count_hook, LUA_MASKCOUNT, 1);
  lua_pushstring(L, kBudgetMessage);
  lua_error(L);
}

LuaEngine::LuaEngine(const LuaLimits& limits) : limits_(limits) {
  RLSIM_CHECK(limits_.instructions_per_call > 0);
  L_ = lua_newstate(allocate, this);
  RLSIM_CHECK(L_ != nullptr);
  open_sandbox();
}

LuaEngine::~LuaEngine() {
  enforce_memory_cap_ = false;
  lua_close(L_);
}

namespace {

// The base, table, string and math libraries, with what Redis 7.0 removes or replaces in them.
void open_libraries(lua_State* L) {
  const lua_CFunction libs[] = {luaopen_base, luaopen_table, luaopen_string, luaopen_math};
  const char* const lib_names[] = {"", LUA_TABLIBNAME, LUA_STRLIBNAME, LUA_MATHLIBNAME};
  for (int i = 0; i < 4; ++i) {
    lua_pushcfunction(L, libs[i]);
    lua_pushstring(L, lib_names[i]);
    lua_call(L, 1, 0);
  }
  // What Redis 7.0 removes from the base library (checked against redis-server 7.0.15).
  for (const char* name : {"print", "dofile", "loadfile", "getfenv", "setfenv", "newproxy"}) {
    lua_pushnil(L);
    lua_setglobal(L, name);
  }
  lua_pushcfunction(L, redis_style_pcall);
  lua_setglobal(L, "pcall");
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kProtectedKey);
  lua_pushcfunction(L, safe_rawset);
  lua_setglobal(L, "rawset");
  lua_newtable(L);  // ids
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_setfield(L, LUA_REGISTRYINDEX, kObjectIdsKey);
  lua_pushcfunction(L, deterministic_tostring);
  lua_setglobal(L, "tostring");
  lua_pushcfunction(L, fast_tonumber);
  lua_setglobal(L, "tonumber");

  lua_getglobal(L, "math");
  set_function(L, "random", math_random);
  set_function(L, "randomseed", math_randomseed);
  lua_pop(L, 1);

  // cjson, bit, struct and cmsgpack, opened as Redis's luaLoadLibraries opens them, each a
  // global table (Redis builds cjson with ENABLE_CJSON_GLOBAL).
  const lua_CFunction redis_libs[] = {luaopen_cjson, luaopen_bit, open_lua_struct,
                                      open_lua_cmsgpack};
  const char* const redis_lib_names[] = {"cjson", "bit", "struct", "cmsgpack"};
  for (std::size_t i = 0; i < std::size(redis_libs); ++i) {
    lua_pushcfunction(L, redis_libs[i]);
    lua_pushstring(L, redis_lib_names[i]);
    lua_call(L, 1, 1);
    lua_setglobal(L, redis_lib_names[i]);
  }
}

// Library tables become read-only proxies, and so does the string metatable's __index.
void protect_libraries(lua_State* L) {
  // As in Redis 7.0.
  for (const char* name :
       {"redis", "string", "math", "table", "coroutine", "cjson", "bit", "struct", "cmsgpack"}) {
    lua_getglobal(L, name);
    push_readonly_proxy(L);
    lua_setglobal(L, name);
  }
  // String methods ("x"):upper() reach the string library through the read-only proxy too, and
  // scripts cannot reach the string metatable itself (Redis makes it read-only; Lua 5.1 can only
  // hide it: getmetatable('') answers false).
  lua_pushliteral(L, "");
  lua_getmetatable(L, -1);
  lua_getglobal(L, "string");
  lua_setfield(L, -2, "__index");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 2);
}

}  // namespace

void LuaEngine::open_sandbox() {
  lua_State* L = L_;
  open_libraries(L);

  // The `redis` table scripts call into.
  lua_newtable(L);
  set_function(L, "call", redis_call);
  set_function(L, "pcall", redis_pcall);
  set_function(L, "sha1hex", redis_sha1hex);
  set_function(L, "error_reply", redis_error_reply);
  set_function(L, "status_reply", redis_status_reply);
  set_function(L, "log", redis_log);
  set_function(L, "replicate_commands", redis_replicate_commands);
  set_function(L, "set_repl", redis_set_repl);
  set_function(L, "breakpoint", redis_breakpoint);
  set_function(L, "debug", redis_debug);
  set_number(L, "REPL_NONE", 0);
  set_number(L, "REPL_AOF", 1);
  set_number(L, "REPL_SLAVE", 2);
  set_number(L, "REPL_REPLICA", 2);
  set_number(L, "REPL_ALL", 3);
  set_number(L, "LOG_DEBUG", 0);
  set_number(L, "LOG_VERBOSE", 1);
  set_number(L, "LOG_NOTICE", 2);
  set_number(L, "LOG_WARNING", 3);
  lua_pushstring(L, "7.0.15");
  lua_setfield(L, -2, "REDIS_VERSION");
  set_number(L, "REDIS_VERSION_NUM", 0x07000f);
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, missing_redis_field);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  lua_setglobal(L, "redis");

  // KEYS and ARGV: one table each, refilled per call.
  for (int* ref : {&keys_ref_, &args_ref_}) {
    lua_newtable(L);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, array_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    *ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_setglobal(L, ref == &keys_ref_ ? "KEYS" : "ARGV");
  }

  protect_libraries(L);
  // The real globals table raises on reads of missing names; scripts see it through a read-only
  // proxy that becomes the thread's globals, so every function compiled later (scripts,
  // loadstring) gets the proxy as its environment.
  lua_pushvalue(L, LUA_GLOBALSINDEX);  // G
  lua_pushvalue(L, -1);
  real_globals_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, missing_global);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  push_readonly_proxy(L);  // P
  lua_pushvalue(L, -1);
  lua_setglobal(L, "_G");  // G._G = P (still writing into G here)
  lua_replace(L, LUA_GLOBALSINDEX);

  // The error handler stays at stack index 1 for every call.
  lua_settop(L, 0);
  lua_pushcfunction(L, error_handler);
  lua_gc(L, LUA_GCCOLLECT, 0);
}

void LuaEngine::seed_random(std::int32_t seed) {
  rand48_state_ = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(seed)) << 16) | 0x330E;
}

std::int32_t LuaEngine::next_random() {
  rand48_state_ = (0x5DEECE66DULL * rand48_state_ + 0xB) & ((1ULL << 48) - 1);
  return static_cast<std::int32_t>(rand48_state_ >> 17);
}

const LuaEngine::Script* LuaEngine::compile(std::string_view body, std::string sha, Reply& error) {
  if (auto it = scripts_.find(sha); it != scripts_.end()) return &it->second;
  enforce_memory_cap_ = true;
  const int status = luaL_loadbuffer(L_, body.data(), body.size(), kChunkName);
  enforce_memory_cap_ = false;
  if (status != 0) {
    std::size_t size = 0;
    const char* text = lua_tolstring(L_, -1, &size);
    error = Reply::error(one_line("ERR Error compiling script (new function): " +
                                  std::string(text ? text : "", size)));
    lua_settop(L_, 1);
    return nullptr;
  }
  Script script;
  script.function_ref = luaL_ref(L_, LUA_REGISTRYINDEX);
  auto [it, inserted] = scripts_.emplace(std::move(sha), script);
  return &it->second;
}

Reply LuaEngine::load(std::string_view body) {
  std::string sha = sha1_hex(body);
  Reply error;
  if (compile(body, sha, error) == nullptr) return error;
  return Reply::bulk(std::move(sha));
}

Reply LuaEngine::eval(std::string_view body, std::span<const std::string> keys,
                      std::span<const std::string> args, ScriptHost& host) {
  std::string sha = sha1_hex(body);
  Reply error;
  const Script* script = compile(body, sha, error);
  if (script == nullptr) return error;
  return run(sha, *script, keys, args, host);
}

namespace {
// SHAs are matched case-insensitively, as Redis does.
bool lower_sha(const std::string& sha, std::string& lowered) {
  if (sha.size() != 40) return false;
  lowered = sha;
  for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return true;
}
}  // namespace

Reply LuaEngine::evalsha(const std::string& sha, std::span<const std::string> keys,
                         std::span<const std::string> args, ScriptHost& host) {
  auto it = scripts_.find(sha);
  if (it == scripts_.end()) {
    std::string lowered;
    if (lower_sha(sha, lowered)) it = scripts_.find(lowered);
    if (it == scripts_.end()) return Reply::error("NOSCRIPT No matching script. Please use EVAL.");
  }
  return run(it->first, it->second, keys, args, host);
}

bool LuaEngine::exists(const std::string& sha) const {
  if (scripts_.count(sha) != 0) return true;
  std::string lowered;
  return lower_sha(sha, lowered) && scripts_.count(lowered) != 0;
}

void LuaEngine::fill_array(int table_ref, int& filled, std::span<const std::string> values) {
  lua_rawgeti(L_, LUA_REGISTRYINDEX, table_ref);
  const int count = static_cast<int>(values.size());
  for (int i = 0; i < count; ++i) {
    const std::string& value = values[static_cast<std::size_t>(i)];
    lua_pushlstring(L_, value.data(), value.size());
    lua_rawseti(L_, -2, i + 1);
  }
  for (int i = count + 1; i <= filled; ++i) {
    lua_pushnil(L_);
    lua_rawseti(L_, -2, i);
  }
  filled = count;
  lua_pop(L_, 1);
}

// After a call: when the script grew KEYS or ARGV, give the next call fresh tables (refilling in
// place would leave the extra entries behind).
void LuaEngine::reset_arrays_if_dirty() {
  for (auto [ref, filled, name] : {std::tuple{&keys_ref_, &keys_filled_, "KEYS"},
                                   std::tuple{&args_ref_, &args_filled_, "ARGV"}}) {
    lua_rawgeti(L_, LUA_REGISTRYINDEX, *ref);
    const bool grown = static_cast<int>(lua_objlen(L_, -1)) != *filled;
    lua_pop(L_, 1);
    if (!grown && !arrays_dirty_) continue;
    lua_rawgeti(L_, LUA_REGISTRYINDEX, *ref);
    lua_getmetatable(L_, -1);
    lua_newtable(L_);
    lua_insert(L_, -2);
    lua_setmetatable(L_, -2);  // old fresh
    lua_remove(L_, -2);
    lua_pushvalue(L_, -1);
    lua_rawseti(L_, LUA_REGISTRYINDEX, *ref);
    // Bind it as the global, in the real globals table behind the read-only proxy.
    lua_rawgeti(L_, LUA_REGISTRYINDEX, real_globals_ref_);
    lua_insert(L_, -2);
    lua_setfield(L_, -2, name);
    lua_pop(L_, 1);
    *filled = 0;
  }
  arrays_dirty_ = false;
}

Reply LuaEngine::run(const std::string& sha, const Script& script,
                     std::span<const std::string> keys, std::span<const std::string> args,
                     ScriptHost& host) {
  RLSIM_CHECK(host_ == nullptr);  // scripts do not nest
  host_ = &host;
  lacking_.clear();
  budget_exceeded_ = false;
  memory_exceeded_ = false;
  fill_array(keys_ref_, keys_filled_, keys);
  fill_array(args_ref_, args_filled_, args);
  lua_rawgeti(L_, LUA_REGISTRYINDEX, script.function_ref);
  const int budget = static_cast<int>(
      std::min<std::int64_t>(limits_.instructions_per_call, std::numeric_limits<int>::max()));
  lua_sethook(L_, count_hook, LUA_MASKCOUNT, budget);
  enforce_memory_cap_ = true;
  const int status = lua_pcall(L_, 0, 1, 1);
  enforce_memory_cap_ = false;
  lua_sethook(L_, nullptr, 0, 0);
  Reply reply;
  if (budget_exceeded_) {
    reply = Reply::error(
        fmt::format("ERR rlsim: script {} exceeded its instruction budget ({} Lua instructions)",
                    sha, limits_.instructions_per_call));
  } else if (status == LUA_ERRMEM || (status != 0 && memory_exceeded_)) {
    reply =
        Reply::error(fmt::format("ERR rlsim: script {} exceeded the Lua memory limit ({} bytes)",
                                 sha, limits_.memory_bytes));
  } else if (status != 0) {
    reply = error_reply_from_stack(sha);
  } else {
    reply = to_reply(0);
  }
  if (!lacking_.empty()) {
    // Starts with "ERR rlsim: script ", a fatal script error (strategy/script.h).
    reply = Reply::error(fmt::format(
        "ERR rlsim: script {} used {}, which Redis has and the embedded Redis does not "
        "(docs/redis-mock.md lists what its Lua has); run it against a real Redis with --redis "
        "redis://host:port",
        sha, lacking_));
  }
  lua_settop(L_, 1);
  host_ = nullptr;
  reset_arrays_if_dirty();
  if (memory_exceeded_) lua_gc(L_, LUA_GCCOLLECT, 0);
  return reply;
}

// Redis's luaCallFunction error path: "<err> script: <sha>, on <source>:<line>."
Reply LuaEngine::error_reply_from_stack(const std::string& sha) {
  if (!lua_istable(L_, -1)) {
    const char* msg = lua_isstring(L_, -1) ? lua_tostring(L_, -1) : "execution failure";
    return Reply::error(
        one_line(fmt::format("ERR Error running script {}, {:.100}", sha, std::string(msg))));
  }
  std::string text;
  // Raw reads: this runs outside the protected call, where a metamethod could neither raise nor
  // be stopped by the instruction budget.
  const auto push_raw = [this](const char* name, int table_at) {
    lua_pushstring(L_, name);
    lua_rawget(L_, table_at - 1);
  };
  push_raw("err", -1);
  if (lua_isstring(L_, -1)) {
    text = lua_tostring(L_, -1);
  } else {
    // Redis 7.0.15 crashes on error({}); rlsim reports it instead.
    text = "ERR rlsim: script raised a table without an 'err' field";
  }
  lua_pop(L_, 1);
  push_raw("source", -1);
  push_raw("line", -2);
  if (lua_isstring(L_, -1) && lua_isstring(L_, -2)) {
    text += fmt::format(" script: {}, on {}:{}.", sha, lua_tostring(L_, -2), lua_tostring(L_, -1));
  }
  lua_pop(L_, 2);
  return Reply::error(one_line(std::move(text)));
}

// Redis's luaReplyToRedisReply: converts and pops the value at the top of the stack.
Reply LuaEngine::to_reply(int depth) {
  Reply out;
  switch (lua_type(L_, -1)) {
    case LUA_TSTRING: {
      std::size_t size = 0;
      const char* text = lua_tolstring(L_, -1, &size);
      out = Reply::bulk(std::string(text, size));
      break;
    }
    case LUA_TBOOLEAN:
      out = lua_toboolean(L_, -1) ? Reply::from_integer(1) : Reply::nil();
      break;
    case LUA_TNUMBER:
      out = Reply::from_integer(truncate_number(lua_tonumber(L_, -1)));
      break;
    case LUA_TTABLE: {
      if (depth >= kMaxReplyDepth || !lua_checkstack(L_, 4)) {
        out = Reply::error("ERR reached lua stack limit");
        break;
      }
      if (push_raw_field(L_, "err", LUA_TSTRING)) {
        out = Reply::error(one_line(lua_tostring(L_, -1)));
      } else if (push_raw_field(L_, "ok", LUA_TSTRING)) {
        out = Reply::status(one_line(lua_tostring(L_, -1)));
      } else if (push_raw_field(L_, "double", LUA_TNUMBER)) {
        out = Reply::bulk(format_double(lua_tonumber(L_, -1)));
      } else {
        out.type = Reply::Type::kArray;
        for (int j = 1;; ++j) {
          lua_rawgeti(L_, -1, j);
          if (lua_isnil(L_, -1)) break;
          out.elements.push_back(to_reply(depth + 1));
        }
      }
      lua_pop(L_, 1);  // the field, or the nil that ended the array
      break;
    }
    default:
      out = Reply::nil();
  }
  lua_pop(L_, 1);
  return out;
}

// Redis's redisProtocolToLuaType: pushes `reply` as a Lua value.
void LuaEngine::push_reply(const Reply& reply) {
  lua_checkstack(L_, 4);
  switch (reply.type) {
    case Reply::Type::kInteger:
      lua_pushnumber(L_, static_cast<lua_Number>(reply.integer));
      break;
    case Reply::Type::kBulk:
      lua_pushlstring(L_, reply.text.data(), reply.text.size());
      break;
    case Reply::Type::kNil:
      lua_pushboolean(L_, 0);
      break;
    case Reply::Type::kStatus:
      lua_createtable(L_, 0, 1);
      lua_pushlstring(L_, reply.text.data(), reply.text.size());
      lua_setfield(L_, -2, "ok");
      break;
    case Reply::Type::kError: {
      const std::string dashed = "-" + reply.text;
      push_error_table(L_, dashed.data(), dashed.size());
      lua_pushboolean(L_, 1);
      lua_setfield(L_, -2, "ignore_error_stats_update");
      break;
    }
    case Reply::Type::kArray:
      lua_createtable(L_, static_cast<int>(reply.elements.size()), 0);
      for (std::size_t i = 0; i < reply.elements.size(); ++i) {
        push_reply(reply.elements[i]);
        lua_rawseti(L_, -2, static_cast<int>(i + 1));
      }
      break;
  }
}

namespace {
// std::string::assign for bytes that cannot overlap the string: within the string's capacity
// (the reused argv's usual case) a resize and a copy, without assign's general replace path.
void assign_bytes(std::string& out, const char* bytes, std::size_t size) {
  out.resize(size);
  if (size > 0) std::memcpy(out.data(), bytes, size);
}
}  // namespace

// Builds redis.call's argv from the Lua arguments, runs it and pushes the converted reply.
// Returns true when the pushed value is an error table. Raises nothing itself.
bool LuaEngine::call_and_push(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc == 0) {
    push_error_table(L, "Please specify at least one argument for this redis lib call");
    return true;
  }
  call_argv_.resize(static_cast<std::size_t>(argc));
  for (int j = 1; j <= argc; ++j) {
    std::string& arg = call_argv_[static_cast<std::size_t>(j - 1)];
    const int type = lua_type(L, j);
    if (type == LUA_TNUMBER) {
      // %.17g, not Lua's %.14g, so that no precision is lost (as Redis does).
      char buf[kDoubleChars];
      assign_bytes(arg, buf, format_g17(lua_tonumber(L, j), buf));
    } else if (type == LUA_TSTRING) {
      std::size_t size = 0;
      const char* text = lua_tolstring(L, j, &size);
      assign_bytes(arg, text, size);
    } else {
      lua_settop(L, 0);
      push_error_table(L, "Lua redis lib command arguments must be strings or integers");
      return true;
    }
  }
  lua_settop(L, 0);
  const Reply reply = host_->call_from_script(call_argv_);
  // The reply's size is bounded by the keyspace, not by the script: converting it is exempt from
  // the cap, so that no allocation failure can unwind past `reply`.
  enforce_memory_cap_ = false;
  push_reply(reply);
  enforce_memory_cap_ = true;
  return reply.is_error();
}

int LuaEngine::call_generic(lua_State* L, bool raise) {
  LuaEngine& self = engine_of(L);
  if (self.host_ == nullptr) {
    push_error_table(L, "redis.call/pcall can only be called inside a script invocation");
    return lua_error(L);
  }
  const bool is_error = self.call_and_push(L);
  if (is_error && raise) return lua_error(L);
  return 1;
}

int LuaEngine::redis_call(lua_State* L) { return call_generic(L, true); }
int LuaEngine::redis_pcall(lua_State* L) { return call_generic(L, false); }

std::size_t format_g17(double value, char (&out)[kDoubleChars]) {
  if (!std::isfinite(value)) {
    const int size = std::snprintf(out, kDoubleChars, "%.17g", value);
    return static_cast<std::size_t>(size);
  }
  // Whole numbers below 2^53 (times, counts: most of what scripts send) have at most 16 digits,
  // so "%.17g" prints them as plain integers; -0 keeps its sign ("-0") on the general path.
  if (value == std::trunc(value) && std::fabs(value) < 9007199254740992.0 &&
      !(value == 0 && std::signbit(value))) {
    const auto [end, ec] = std::to_chars(out, out + kDoubleChars, static_cast<std::int64_t>(value));
    return static_cast<std::size_t>(end - out);
  }
#ifdef __EMSCRIPTEN__
  // The WebAssembly build's libc++ has no floating-point to_chars; its printf rounds as glibc's.
  const int size = std::snprintf(out, kDoubleChars, "%.17g", value);
  return static_cast<std::size_t>(size);
#else
  // The C++ standard defines to_chars with a precision as printf's "%.*g" in the C locale.
  const auto [end, ec] =
      std::to_chars(out, out + kDoubleChars, value, std::chars_format::general, 17);
  RLSIM_CHECK(ec == std::errc());
  return static_cast<std::size_t>(end - out);
#endif
}

std::string format_double(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[kDoubleChars];
  return std::string(buf, format_g17(value, buf));
}

}  // namespace rlsim
