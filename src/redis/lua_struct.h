#pragma once
// Redis's `struct` Lua library (deps/lua/src/lua_struct.c in Redis 7.0: Roberto Ierusalimschy's
// struct 0.2 with Redis's security fixes), written here from its documented and measured
// behaviour: struct.pack(fmt, ...), struct.unpack(fmt, s [, pos]) and struct.size(fmt), with the
// same results, next positions and error texts as a redis-server 7.0 on 64-bit Linux
// (docs/redis-mock.md, "The sandbox").

struct lua_State;

namespace rlsim {

// A lua_CFunction that opens the library as Redis does: registers the global table `struct`
// (and package.loaded.struct) and returns it.
int open_lua_struct(lua_State* L);

}  // namespace rlsim
