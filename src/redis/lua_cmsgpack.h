#pragma once
// Redis 7.0's `cmsgpack` Lua library (lua-cmsgpack 0.4.0, deps/lua/src/lua_cmsgpack.c), written
// from its documented and measured behaviour: MessagePack encoding of Lua values with the same
// byte choices, decoding with the same results, quirks and error texts. See docs/redis-mock.md.

struct lua_State;

namespace rlsim {

// A lua_CFunction, called as Redis's luaLoadLib calls luaopen_cmsgpack (one argument, the
// library name): returns 1, the new library table (pack, unpack, unpack_one, unpack_limit,
// _NAME, _VERSION, _COPYRIGHT, _DESCRIPTION). The caller makes it the global `cmsgpack`.
int open_lua_cmsgpack(lua_State* L);

}  // namespace rlsim
