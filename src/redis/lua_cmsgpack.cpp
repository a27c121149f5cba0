#include "redis/lua_cmsgpack.h"

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <lua.hpp>

// Lua 5.1 raises errors with longjmp, which skips C++ destructors: no function here keeps an
// object with a destructor on the C stack across a Lua call that can raise. pack's bytes live in
// a userdata instead (MsgpackScratch).

namespace rlsim {

namespace {

// LUACMSGPACK_MAX_NESTING: a table this many tables deep packs as nil, which also ends cycles.
constexpr int kMsgpackMaxNesting = 16;

// The bytes pack builds, in a userdata on the Lua stack at `slot`: Lua memory, so they count
// against the state's memory cap like its strings (a table packed from many places, each level
// referring twice to the next, makes 2^15 copies of its leaves: it fails at the cap instead of
// growing without bound), and the garbage collector frees them whichever way pack ends.
struct MsgpackScratch {
  int slot = 0;
  char* data = nullptr;
  std::size_t size = 0;
  std::size_t capacity = 0;
};

// A buffer of `capacity` bytes, pushed and returned (its slot: the top of the stack).
MsgpackScratch msgpack_new_scratch(lua_State* L, std::size_t capacity) {
  luaL_checkstack(L, 1, "in function mp_buf_new");
  MsgpackScratch out;
  out.data = static_cast<char*>(lua_newuserdata(L, capacity));
  out.slot = lua_gettop(L);
  out.capacity = capacity;
  return out;
}

// Appends `count` bytes, doubling the capacity as needed: a larger userdata replaces the old one
// in its slot (past the memory cap, Lua's memory error, which the engine reports as the cap's).
void msgpack_append(lua_State* L, MsgpackScratch& out, const void* bytes, std::size_t count) {
  if (count > out.capacity - out.size) {
    std::size_t capacity = out.capacity;
    while (capacity - out.size < count) capacity *= 2;
    luaL_checkstack(L, 1, "in function mp_buf_append_bytes");
    auto* data = static_cast<char*>(lua_newuserdata(L, capacity));
    std::memcpy(data, out.data, out.size);
    lua_replace(L, out.slot);
    out.data = data;
    out.capacity = capacity;
  }
  std::memcpy(out.data + out.size, bytes, count);
  out.size += count;
}

void msgpack_append_byte(lua_State* L, MsgpackScratch& out, unsigned byte) {
  const auto value = static_cast<unsigned char>(byte);
  msgpack_append(L, out, &value, 1);
}

// The bits of `from` as a `To` of the same size (std::bit_cast, which emscripten's libc++ lacks).
template <typename To, typename From>
To msgpack_bits(const From& from) {
  static_assert(sizeof(To) == sizeof(From));
  To to{};
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

// --- Packing ------------------------------------------------------------------------------------

// `tag`, then the low `bytes` bytes of `value`, most significant first (MessagePack's order).
void msgpack_put(lua_State* L, MsgpackScratch& out, unsigned tag, std::uint64_t value, int bytes) {
  unsigned char encoded[9];
  encoded[0] = static_cast<unsigned char>(tag);
  for (int i = 1; i <= bytes; ++i) {
    encoded[i] = static_cast<unsigned char>((value >> (8 * (bytes - i))) & 0xffu);
  }
  msgpack_append(L, out, encoded, 1 + static_cast<std::size_t>(bytes));
}

// The shortest of fixint, uint 8-64 (non-negative) or int 8-64 (negative).
void msgpack_pack_integer(lua_State* L, MsgpackScratch& out, std::int64_t n) {
  const auto bits = static_cast<std::uint64_t>(n);
  if (n >= 0) {
    if (n <= 0x7f) {
      msgpack_append_byte(L, out, static_cast<unsigned>(n));
    } else if (n <= 0xff) {
      msgpack_put(L, out, 0xcc, bits, 1);
    } else if (n <= 0xffff) {
      msgpack_put(L, out, 0xcd, bits, 2);
    } else if (n <= 0xffffffffLL) {
      msgpack_put(L, out, 0xce, bits, 4);
    } else {
      msgpack_put(L, out, 0xcf, bits, 8);
    }
  } else if (n >= -32) {
    msgpack_append_byte(L, out, static_cast<unsigned>(bits & 0xffu));
  } else if (n >= -128) {
    msgpack_put(L, out, 0xd0, bits, 1);
  } else if (n >= -32768) {
    msgpack_put(L, out, 0xd1, bits, 2);
  } else if (n >= INT32_MIN) {
    msgpack_put(L, out, 0xd2, bits, 4);
  } else {
    msgpack_put(L, out, 0xd3, bits, 8);
  }
}

// lua-cmsgpack packs a number as an integer when C's cast to int64_t gives it back (finite,
// within int64's range, no fraction; so -0 packs as 0), else as a float 32 when the number
// survives the round trip through a float (infinities do), else as a float 64 (NaN, with its
// bits). Written without the out-of-range casts, which are undefined in C++.
void msgpack_pack_number(lua_State* L, MsgpackScratch& out, double d) {
  if (std::isfinite(d) && d >= -0x1p63 && d < 0x1p63 && std::trunc(d) == d) {
    msgpack_pack_integer(L, out, static_cast<std::int64_t>(d));
  } else if (std::isinf(d) ||
             (std::fabs(d) <= FLT_MAX && static_cast<double>(static_cast<float>(d)) == d)) {
    msgpack_put(L, out, 0xca, msgpack_bits<std::uint32_t>(static_cast<float>(d)), 4);
  } else {
    msgpack_put(L, out, 0xcb, msgpack_bits<std::uint64_t>(d), 8);
  }
}

// Every Lua string is a MessagePack str (fixstr, str 8/16/32); lua-cmsgpack never writes bin.
void msgpack_pack_string(lua_State* L, MsgpackScratch& out, const char* s, std::size_t size) {
  if (size < 32) {
    msgpack_append_byte(L, out, 0xa0u | static_cast<unsigned>(size));
  } else if (size <= 0xff) {
    msgpack_put(L, out, 0xd9, size, 1);
  } else if (size <= 0xffff) {
    msgpack_put(L, out, 0xda, size, 2);
  } else {
    msgpack_put(L, out, 0xdb, size, 4);
  }
  msgpack_append(L, out, s, size);
}

// fixarray / array 16 / array 32 (`base` 0x90, `tag16` 0xdc) or the same for maps (0x80, 0xde).
void msgpack_pack_length(lua_State* L, MsgpackScratch& out, unsigned base, unsigned tag16,
                         std::uint64_t n) {
  if (n <= 15) {
    msgpack_append_byte(L, out, base | static_cast<unsigned>(n));
  } else if (n <= 0xffff) {
    msgpack_put(L, out, tag16, n, 2);
  } else {
    msgpack_put(L, out, tag16 + 1, n, 4);
  }
}

// Whether the table on top is packed as an array: every key a number, positive, whole and within
// C's int (lua-cmsgpack compares it with its cast to int), and the largest key equal to the number
// of keys, so the keys are exactly 1..n. An empty table is an array.
bool msgpack_is_array(lua_State* L) {
  luaL_checkstack(L, 2, "in function table_is_an_array");
  int count = 0;
  lua_Number max_key = 0;
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    lua_pop(L, 1);
    const bool whole_positive = lua_type(L, -1) == LUA_TNUMBER && lua_tonumber(L, -1) > 0 &&
                                lua_tonumber(L, -1) <= INT_MAX &&
                                std::trunc(lua_tonumber(L, -1)) == lua_tonumber(L, -1);
    if (!whole_positive) {
      lua_pop(L, 1);
      return false;
    }
    max_key = std::fmax(max_key, lua_tonumber(L, -1));
    ++count;
  }
  return max_key == count;
}

void msgpack_pack_value(lua_State* L, MsgpackScratch& out, int level);

// Packs the table on top (left there) as an array or a map; its values one level deeper.
void msgpack_pack_table(lua_State* L, MsgpackScratch& out, int level) {
  if (msgpack_is_array(L)) {
    const std::size_t size = lua_objlen(L, -1);
    msgpack_pack_length(L, out, 0x90, 0xdc, size);
    luaL_checkstack(L, 1, "in function mp_encode_lua_table_as_array");
    for (std::size_t i = 1; i <= size; ++i) {
      lua_pushnumber(L, static_cast<lua_Number>(i));
      lua_gettable(L, -2);
      msgpack_pack_value(L, out, level + 1);
    }
    return;
  }
  // A map, its pairs in the table's traversal order (next), so the bytes depend on how the
  // table was built, as in Redis.
  luaL_checkstack(L, 3, "in function mp_encode_lua_table_as_map");
  std::uint64_t pairs = 0;
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    lua_pop(L, 1);
    ++pairs;
  }
  msgpack_pack_length(L, out, 0x80, 0xde, pairs);
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    lua_pushvalue(L, -2);
    msgpack_pack_value(L, out, level + 1);  // the key
    msgpack_pack_value(L, out, level + 1);  // the value
  }
}

// Packs the value on top of the stack and pops it. Functions, userdata (cjson.null too) and
// threads pack as nil, like tables nested too deep.
void msgpack_pack_value(lua_State* L, MsgpackScratch& out, int level) {
  switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
      std::size_t size = 0;
      const char* s = lua_tolstring(L, -1, &size);
      msgpack_pack_string(L, out, s, size);
      break;
    }
    case LUA_TBOOLEAN:
      msgpack_append_byte(L, out, lua_toboolean(L, -1) != 0 ? 0xc3 : 0xc2);
      break;
    case LUA_TNUMBER:
      msgpack_pack_number(L, out, lua_tonumber(L, -1));
      break;
    case LUA_TTABLE:
      if (level < kMsgpackMaxNesting) {
        msgpack_pack_table(L, out, level);
        break;
      }
      [[fallthrough]];
    default:
      msgpack_append_byte(L, out, 0xc0);
      break;
  }
  lua_pop(L, 1);
}

// cmsgpack.pack(v1, ...): the arguments packed one after the other into one string.
int msgpack_pack(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
  if (lua_checkstack(L, argc) == 0) {
    return luaL_argerror(L, 0, "Too many arguments for MessagePack pack.");
  }
  MsgpackScratch scratch = msgpack_new_scratch(L, 64);
  for (int i = 1; i <= argc; ++i) {
    scratch.size = 0;
    luaL_checkstack(L, 1, "in function mp_check");
    lua_pushvalue(L, i);
    msgpack_pack_value(L, scratch, 0);
    lua_pushlstring(L, scratch.data, scratch.size);
  }
  lua_concat(L, argc);
  return 1;
}

// --- Unpacking ----------------------------------------------------------------------------------

enum class MsgpackFault { none, missing_bytes, bad_format };

struct MsgpackCursor {
  const unsigned char* at;
  std::size_t left;
  MsgpackFault fault;
};

bool msgpack_need(MsgpackCursor& c, std::size_t bytes) {
  if (c.left >= bytes) return true;
  c.fault = MsgpackFault::missing_bytes;
  return false;
}

void msgpack_skip(MsgpackCursor& c, std::size_t bytes) {
  c.at += bytes;
  c.left -= bytes;
}

// The `bytes`-byte big-endian number after the tag at the cursor.
std::uint64_t msgpack_read(const MsgpackCursor& c, int bytes) {
  std::uint64_t value = 0;
  for (int i = 1; i <= bytes; ++i) value = (value << 8) | c.at[i];
  return value;
}

void msgpack_unpack_value(lua_State* L, MsgpackCursor& c);

void msgpack_unpack_array(lua_State* L, MsgpackCursor& c, std::uint64_t size) {
  lua_newtable(L);
  luaL_checkstack(L, 1, "in function mp_decode_to_lua_array");
  for (std::uint64_t i = 1; i <= size; ++i) {
    lua_pushnumber(L, static_cast<lua_Number>(i));
    msgpack_unpack_value(L, c);
    if (c.fault != MsgpackFault::none) return;
    lua_settable(L, -3);  // a nil element leaves a hole
  }
}

// Pairs are stored with lua_settable, so a nil or NaN key raises Lua's "table index is nil/NaN".
void msgpack_unpack_map(lua_State* L, MsgpackCursor& c, std::uint64_t size) {
  lua_newtable(L);
  for (std::uint64_t i = 0; i < size; ++i) {
    msgpack_unpack_value(L, c);
    if (c.fault != MsgpackFault::none) return;
    msgpack_unpack_value(L, c);
    if (c.fault != MsgpackFault::none) return;
    lua_settable(L, -3);
  }
}

// A str whose length takes `length_bytes` bytes after the tag (0: fixstr, length in the tag).
void msgpack_unpack_string(lua_State* L, MsgpackCursor& c, int length_bytes) {
  const std::size_t header = 1 + static_cast<std::size_t>(length_bytes);
  if (!msgpack_need(c, header)) return;
  const std::size_t size = length_bytes == 0
                               ? (c.at[0] & 0x1fu)
                               : static_cast<std::size_t>(msgpack_read(c, length_bytes));
  if (!msgpack_need(c, header + size)) return;
  lua_pushlstring(L, reinterpret_cast<const char*>(c.at + header), size);
  msgpack_skip(c, header + size);
}

// An integer of `bytes` bytes. lua-cmsgpack pushes every integer through int64_t, so a uint 64
// of 2^63 or more comes back negative (0xcf ff..ff is -1).
void msgpack_unpack_integer(lua_State* L, MsgpackCursor& c, int bytes, bool is_signed) {
  if (!msgpack_need(c, 1 + static_cast<std::size_t>(bytes))) return;
  const std::uint64_t raw = msgpack_read(c, bytes);
  std::int64_t value = static_cast<std::int64_t>(raw);
  if (is_signed && bytes < 8) {
    const int unused_bits = 64 - 8 * bytes;
    value = static_cast<std::int64_t>(raw << unused_bits) >> unused_bits;
  }
  lua_pushnumber(L, static_cast<lua_Number>(value));
  msgpack_skip(c, 1 + static_cast<std::size_t>(bytes));
}

// A float 32 (`bytes` 4) or float 64 (8).
void msgpack_unpack_float(lua_State* L, MsgpackCursor& c, int bytes) {
  if (!msgpack_need(c, 1 + static_cast<std::size_t>(bytes))) return;
  const std::uint64_t raw = msgpack_read(c, bytes);
  const double value =
      bytes == 4 ? msgpack_bits<float>(static_cast<std::uint32_t>(raw)) : msgpack_bits<double>(raw);
  lua_pushnumber(L, value);
  msgpack_skip(c, 1 + static_cast<std::size_t>(bytes));
}

// An array (`is_map` false) or map whose size takes `bytes` bytes after the tag.
void msgpack_unpack_container(lua_State* L, MsgpackCursor& c, int bytes, bool is_map) {
  if (!msgpack_need(c, 1 + static_cast<std::size_t>(bytes))) return;
  const std::uint64_t size = msgpack_read(c, bytes);
  msgpack_skip(c, 1 + static_cast<std::size_t>(bytes));
  if (is_map) {
    msgpack_unpack_map(L, c, size);
  } else {
    msgpack_unpack_array(L, c, size);
  }
}

// The types known by their tag alone: nil, booleans, and the sized ones. lua-cmsgpack knows no
// bin, ext or 0xc1: they are a bad format.
void msgpack_unpack_tagged(lua_State* L, MsgpackCursor& c, unsigned tag) {
  switch (tag) {
    case 0xc0:
    case 0xc2:
    case 0xc3:
      if (tag == 0xc0) {
        lua_pushnil(L);
      } else {
        lua_pushboolean(L, tag == 0xc3 ? 1 : 0);
      }
      msgpack_skip(c, 1);
      return;
    case 0xca:
    case 0xcb:
      return msgpack_unpack_float(L, c, tag == 0xca ? 4 : 8);
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf:
      return msgpack_unpack_integer(L, c, 1 << (tag - 0xcc), false);
    case 0xd0:
    case 0xd1:
    case 0xd2:
    case 0xd3:
      return msgpack_unpack_integer(L, c, 1 << (tag - 0xd0), true);
    case 0xd9:
    case 0xda:
    case 0xdb:
      return msgpack_unpack_string(L, c, 1 << (tag - 0xd9));
    case 0xdc:
    case 0xdd:
      return msgpack_unpack_container(L, c, tag == 0xdc ? 2 : 4, false);
    case 0xde:
    case 0xdf:
      return msgpack_unpack_container(L, c, tag == 0xde ? 2 : 4, true);
    default:
      c.fault = MsgpackFault::bad_format;
  }
}

// Pushes the value at the cursor and moves past it, or sets the cursor's fault (what was pushed
// is then left for the error to discard).
void msgpack_unpack_value(lua_State* L, MsgpackCursor& c) {
  if (!msgpack_need(c, 1)) return;
  // The stack grows one slot per value: unpack of very many top-level values ends here.
  luaL_checkstack(L, 1, "too many return values at once; use unpack_one or unpack_limit instead.");
  const unsigned tag = c.at[0];
  if (tag <= 0x7f || tag >= 0xe0) {  // positive / negative fixint
    lua_pushnumber(L, tag <= 0x7f ? tag : static_cast<double>(static_cast<int>(tag) - 256));
    msgpack_skip(c, 1);
  } else if (tag >= 0xa0 && tag <= 0xbf) {
    msgpack_unpack_string(L, c, 0);
  } else if (tag <= 0x9f) {  // fixmap 0x80-0x8f, fixarray 0x90-0x9f
    msgpack_skip(c, 1);
    if (tag <= 0x8f) {
      msgpack_unpack_map(L, c, tag & 0xfu);
    } else {
      msgpack_unpack_array(L, c, tag & 0xfu);
    }
  } else {
    msgpack_unpack_tagged(L, c, tag);
  }
}

// unpack / unpack_one / unpack_limit on the string at index 1 (nothing above it): `limit` values
// from byte `offset`; limit and offset both 0 mean every value and no offset in the results,
// otherwise the first result is the offset after the last value read, -1 at the end.
int msgpack_unpack_from(lua_State* L, lua_Integer limit, lua_Integer offset) {
  std::size_t size = 0;
  const char* s = luaL_checklstring(L, 1, &size);
  if (offset < 0 || limit < 0) {
    // Redis prints the input's length where the limit should be.
    return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.",
                      static_cast<int>(offset), static_cast<int>(size));
  }
  if (static_cast<std::uint64_t>(offset) > size) {
    return luaL_error(L, "Start offset %d greater than input length %d.", static_cast<int>(offset),
                      static_cast<int>(size));
  }
  const bool every_value = limit == 0 && offset == 0;
  if (every_value) limit = INT_MAX;
  MsgpackCursor c{reinterpret_cast<const unsigned char*>(s) + offset,
                  size - static_cast<std::size_t>(offset), MsgpackFault::none};
  int count = 0;
  for (; c.left > 0 && count < limit; ++count) {
    msgpack_unpack_value(L, c);
    if (c.fault == MsgpackFault::missing_bytes) return luaL_error(L, "Missing bytes in input.");
    if (c.fault == MsgpackFault::bad_format) return luaL_error(L, "Bad data format in input.");
  }
  if (every_value) return count;
  luaL_checkstack(L, 1, "in function mp_unpack_full");
  lua_pushinteger(L, c.left == 0 ? -1 : static_cast<lua_Integer>(size - c.left));
  lua_insert(L, 2);
  return count + 1;
}

// cmsgpack.unpack(s): every value in `s`.
int msgpack_unpack(lua_State* L) { return msgpack_unpack_from(L, 0, 0); }

// cmsgpack.unpack_one(s [, offset]): the next offset, then one value.
int msgpack_unpack_one(lua_State* L) {
  const lua_Integer offset = luaL_optinteger(L, 2, 0);
  lua_pop(L, lua_gettop(L) - 1);  // with no argument at all, the string's error says "no value"
  return msgpack_unpack_from(L, 1, offset);
}

// cmsgpack.unpack_limit(s, limit [, offset]): the next offset, then up to `limit` values.
int msgpack_unpack_limit(lua_State* L) {
  const lua_Integer limit = luaL_checkinteger(L, 2);
  const lua_Integer offset = luaL_optinteger(L, 3, 0);
  lua_pop(L, lua_gettop(L) - 1);
  return msgpack_unpack_from(L, limit, offset);
}

void msgpack_set_string(lua_State* L, const char* field, const char* value) {
  lua_pushstring(L, value);
  lua_setfield(L, -2, field);
}

}  // namespace

int open_lua_cmsgpack(lua_State* L) {
  lua_newtable(L);
  lua_pushcfunction(L, msgpack_pack);
  lua_setfield(L, -2, "pack");
  lua_pushcfunction(L, msgpack_unpack);
  lua_setfield(L, -2, "unpack");
  lua_pushcfunction(L, msgpack_unpack_one);
  lua_setfield(L, -2, "unpack_one");
  lua_pushcfunction(L, msgpack_unpack_limit);
  lua_setfield(L, -2, "unpack_limit");
  msgpack_set_string(L, "_NAME", "cmsgpack");
  msgpack_set_string(L, "_VERSION", "lua-cmsgpack 0.4.0");
  msgpack_set_string(L, "_COPYRIGHT", "Copyright (C) 2012, Salvatore Sanfilippo");
  msgpack_set_string(L, "_DESCRIPTION", "MessagePack C implementation for Lua");
  return 1;
}

}  // namespace rlsim
