#include "redis/lua_struct.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <lua.hpp>

// Lua reports errors with longjmp: no function here holds a C++ object with a destructor while
// it can raise (as in lua_engine.cpp).

namespace rlsim {

namespace {

// The byte sizes of a redis-server on 64-bit Linux, the reference, whatever this build's own
// (the WebAssembly page is 32-bit: its long and size_t have 4 bytes).
constexpr std::size_t kStructShortBytes = 2;
constexpr int kStructIntBytes = 4;
constexpr std::size_t kStructLongBytes = 8;
constexpr std::size_t kStructSizeTBytes = 8;
constexpr std::size_t kStructFloatBytes = 4;
constexpr std::size_t kStructDoubleBytes = 8;
// Integers wider than 8 bytes are accepted up to this many, though only 8 carry a value.
constexpr int kStructMaxIntBytes = 32;
// The default of '!' without a number: a double's alignment.
constexpr int kStructDefaultAlign = 8;

// Byte order of an item; Redis's default is the machine's, little-endian on its 64-bit targets.
enum class StructOrder { kBig, kLittle };

struct StructLayout {
  StructOrder order = StructOrder::kLittle;
  std::size_t align = 1;  // '!n' sets it; 1 means no padding
};

bool struct_is_digit(char c) { return c >= '0' && c <= '9'; }

bool struct_is_alnum(int c) {
  return struct_is_digit(static_cast<char>(c)) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// b B h H l L T i I: integers, lower case signed.
bool struct_is_integer(int opt) {
  return opt > 0 && opt < 128 && std::strchr("bBhHlLTiI", opt) != nullptr;
}

// The decimal count after an option (its size, or '!'s alignment), or `fallback` when none.
int struct_read_count(lua_State* L, const char** fmt, int fallback) {
  if (!struct_is_digit(**fmt)) return fallback;
  int count = 0;
  while (struct_is_digit(**fmt)) {
    const int digit = **fmt - '0';
    if (count > INT_MAX / 10 || count * 10 > INT_MAX - digit)
      luaL_error(L, "integral size overflow");
    count = count * 10 + digit;
    ++*fmt;
  }
  return count;
}

// Bytes of the item `opt` (consuming its count from `fmt`); 0 for options that are not items
// or have no fixed size ('s', 'c0').
std::size_t struct_item_bytes(lua_State* L, int opt, const char** fmt) {
  switch (opt) {
    case 'b':
    case 'B':
    case 'x':
      return 1;
    case 'h':
    case 'H':
      return kStructShortBytes;
    case 'l':
    case 'L':
      return kStructLongBytes;
    case 'T':
      return kStructSizeTBytes;
    case 'f':
      return kStructFloatBytes;
    case 'd':
      return kStructDoubleBytes;
    case 'c':
      return static_cast<std::size_t>(struct_read_count(L, fmt, 1));
    case 'i':
    case 'I': {
      const int bytes = struct_read_count(L, fmt, kStructIntBytes);
      if (bytes > kStructMaxIntBytes) {
        luaL_error(L, "integral size %d is larger than limit of %d", bytes, kStructMaxIntBytes);
      }
      return static_cast<std::size_t>(bytes);
    }
    default:
      return 0;
  }
}

// Zero bytes that bring `offset` to the item's alignment: its size capped by the layout's
// alignment (the arithmetic assumes a power of two, and Redis applies it to 3-byte integers too).
std::size_t struct_padding(std::size_t offset, const StructLayout& layout, int opt,
                           std::size_t bytes) {
  if (bytes == 0 || opt == 'c') return 0;
  const std::size_t unit = std::min(bytes, layout.align);
  return (unit - (offset & (unit - 1))) & (unit - 1);
}

// Options that are not items: spaces, byte order and alignment; anything else is refused.
void struct_apply_control(lua_State* L, int opt, const char** fmt, StructLayout* layout) {
  switch (opt) {
    case ' ':
      return;
    case '>':
      layout->order = StructOrder::kBig;
      return;
    case '<':
      layout->order = StructOrder::kLittle;
      return;
    case '!': {
      const int align = struct_read_count(L, fmt, kStructDefaultAlign);
      if (align <= 0 || (align & (align - 1)) != 0) {
        luaL_error(L, "alignment %d is not a power of 2", align);
      }
      layout->align = static_cast<std::size_t>(align);
      return;
    }
    default:
      luaL_argerror(L, 1, lua_pushfstring(L, "invalid format option '%c'", opt));
  }
}

// C's double to int64 conversion as x86-64 computes it (cvttsd2si): truncation, and INT64_MIN
// for NaN and values out of range, which Redis's packed bytes show.
std::int64_t struct_double_to_i64(double n) {
  if (n >= -0x1p63 && n < 0x1p63) return static_cast<std::int64_t>(n);
  return INT64_MIN;
}

// C's double to uint64 conversion as x86-64 code computes it: values from 2^63 up go through
// n - 2^63, so 2^64 and above (and +inf) give 0 and NaN gives 2^63.
std::uint64_t struct_double_to_u64(double n) {
  if (!(n >= 0x1p63)) return static_cast<std::uint64_t>(struct_double_to_i64(n));
  return static_cast<std::uint64_t>(struct_double_to_i64(n - 0x1p63)) ^ (std::uint64_t{1} << 63);
}

// Argument `arg` as an integer of `bytes` bytes; bytes past the eighth are zero.
void struct_put_integer(lua_State* L, luaL_Buffer* out, int arg, StructOrder order,
                        std::size_t bytes) {
  const lua_Number n = luaL_checknumber(L, arg);
  std::uint64_t value =
      n < 0 ? static_cast<std::uint64_t>(struct_double_to_i64(n)) : struct_double_to_u64(n);
  char encoded[kStructMaxIntBytes];
  for (std::size_t i = 0; i < bytes; ++i) {
    const std::size_t at = order == StructOrder::kLittle ? i : bytes - 1 - i;
    encoded[at] = static_cast<char>(value & 0xff);
    value >>= 8;
  }
  luaL_addlstring(out, encoded, bytes);
}

// Adds `bytes` bytes of a native (little-endian) value in the requested order.
void struct_put_bytes(luaL_Buffer* out, const unsigned char* native, std::size_t bytes,
                      StructOrder order) {
  for (std::size_t i = 0; i < bytes; ++i) {
    const std::size_t at = order == StructOrder::kLittle ? i : bytes - 1 - i;
    luaL_addchar(out, static_cast<char>(native[at]));
  }
}

// A float or double, in the requested order.
template <typename Float>
void struct_put_float(luaL_Buffer* out, Float value, StructOrder order) {
  unsigned char native[sizeof value];
  std::memcpy(native, &value, sizeof value);
  struct_put_bytes(out, native, sizeof value, order);
}

// Packs one item (or applies a control option); returns the bytes it added after its padding.
std::size_t struct_pack_item(lua_State* L, luaL_Buffer* out, int opt, const char** fmt,
                             StructLayout* layout, int* arg, std::size_t bytes) {
  if (struct_is_integer(opt)) {
    struct_put_integer(L, out, (*arg)++, layout->order, bytes);
    return bytes;
  }
  switch (opt) {
    case 'x':
      luaL_addchar(out, '\0');
      return bytes;
    case 'f':
      struct_put_float(out, static_cast<float>(luaL_checknumber(L, (*arg)++)), layout->order);
      return bytes;
    case 'd':
      struct_put_float(out, luaL_checknumber(L, (*arg)++), layout->order);
      return bytes;
    case 'c':
    case 's': {
      std::size_t length = 0;
      const char* text = luaL_checklstring(L, (*arg)++, &length);
      if (bytes == 0) bytes = length;  // 'c0' and 's': the whole string
      // Redis names the argument after the string (its counter has moved on).
      luaL_argcheck(L, length >= bytes, *arg, "string too short");
      luaL_addlstring(out, text, bytes);
      if (opt == 's') {
        luaL_addchar(out, '\0');
        ++bytes;
      }
      return bytes;
    }
    default:
      struct_apply_control(L, opt, fmt, layout);
      return bytes;
  }
}

int struct_pack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  StructLayout layout;
  int arg = 2;
  std::size_t total = 0;
  // Redis pushes a nil between the arguments and the buffer's pieces, and scripts can see it: a
  // missing argument is then "got nil", not "got no value".
  lua_pushnil(L);
  luaL_Buffer out;
  luaL_buffinit(L, &out);
  while (*fmt != '\0') {
    const int opt = static_cast<unsigned char>(*fmt++);  // as a byte: same texts as Redis
    const std::size_t bytes = struct_item_bytes(L, opt, &fmt);
    const std::size_t padding = struct_padding(total, layout, opt, bytes);
    for (std::size_t i = 0; i < padding; ++i) luaL_addchar(&out, '\0');
    total += padding + struct_pack_item(L, &out, opt, &fmt, &layout, &arg, bytes);
  }
  luaL_pushresult(&out);
  return 1;
}

// The integer of `bytes` bytes at `data`: only the last eight bytes read count, and a signed
// value's sign bit is found with the shift count wrapped to 0..63, as x86-64 does for Redis's
// wider-than-64-bit shifts (so 'i9' sign-extends from bit 7).
lua_Number struct_get_integer(const char* data, StructOrder order, bool is_signed,
                              std::size_t bytes) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < bytes; ++i) {
    const std::size_t at = order == StructOrder::kBig ? i : bytes - 1 - i;
    value = (value << 8) | static_cast<unsigned char>(data[at]);
  }
  if (!is_signed) return static_cast<lua_Number>(value);
  const int sign_shift = (static_cast<int>(bytes) * 8 - 1) & 63;
  const std::uint64_t mask = ~std::uint64_t{0} << sign_shift;
  if ((value & mask) != 0) value |= mask;
  return static_cast<lua_Number>(static_cast<std::int64_t>(value));
}

// A native value of `bytes` bytes read from `data` in the requested order.
void struct_get_bytes(const char* data, unsigned char* native, std::size_t bytes,
                      StructOrder order) {
  for (std::size_t i = 0; i < bytes; ++i) {
    native[i] = static_cast<unsigned char>(data[order == StructOrder::kLittle ? i : bytes - 1 - i]);
  }
}

// The float or double at `data`, stored in the requested order.
template <typename Float>
lua_Number struct_get_float(const char* data, StructOrder order) {
  unsigned char native[sizeof(Float)];
  struct_get_bytes(data, native, sizeof native, order);
  Float value = 0;
  std::memcpy(&value, native, sizeof value);
  return value;
}

void struct_check_room(lua_State* L, std::size_t length, std::size_t pos, std::size_t bytes) {
  luaL_argcheck(L, bytes <= length && pos <= length - bytes, 2, "data string too short");
}

// 'c0': the length is the previous result, which the string replaces.
std::size_t struct_take_previous_length(lua_State* L, int* results, std::size_t length,
                                        std::size_t pos) {
  if (*results == 0 || !lua_isnumber(L, -1)) luaL_error(L, "format 'c0' needs a previous size");
  const auto bytes = static_cast<std::size_t>(struct_double_to_u64(lua_tonumber(L, -1)));
  lua_pop(L, 1);
  --*results;
  struct_check_room(L, length, pos, bytes);
  return bytes;
}

// Unpacks one item at `pos` (after its padding) or applies a control option; returns the bytes
// it took.
std::size_t struct_unpack_item(lua_State* L, int opt, const char** fmt, StructLayout* layout,
                               const char* data, std::size_t length, std::size_t pos,
                               std::size_t bytes, int* results) {
  if (struct_is_integer(opt)) {
    const bool is_signed = opt >= 'a' && opt <= 'z';
    lua_pushnumber(L, struct_get_integer(data + pos, layout->order, is_signed, bytes));
    ++*results;
    return bytes;
  }
  switch (opt) {
    case 'x':
      return bytes;
    case 'f':
    case 'd':
      lua_pushnumber(L, opt == 'f' ? struct_get_float<float>(data + pos, layout->order)
                                   : struct_get_float<double>(data + pos, layout->order));
      ++*results;
      return bytes;
    case 'c':
      if (bytes == 0) bytes = struct_take_previous_length(L, results, length, pos);
      lua_pushlstring(L, data + pos, bytes);
      ++*results;
      return bytes;
    case 's': {
      const void* end = std::memchr(data + pos, '\0', length - pos);
      if (end == nullptr) luaL_error(L, "unfinished string in data");
      bytes = static_cast<std::size_t>(static_cast<const char*>(end) - (data + pos));
      lua_pushlstring(L, data + pos, bytes);
      ++*results;
      return bytes + 1;  // and its terminating zero
    }
    default:
      struct_apply_control(L, opt, fmt, layout);
      return bytes;
  }
}

int struct_unpack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  std::size_t length = 0;
  const char* data = luaL_checklstring(L, 2, &length);
  // A negative offset wraps to a huge one, which then fails as "data string too short".
  std::size_t pos = static_cast<std::size_t>(luaL_optinteger(L, 3, 1));
  luaL_argcheck(L, pos > 0, 3, "offset must be 1 or greater");
  --pos;
  StructLayout layout;
  int results = 0;
  while (*fmt != '\0') {
    const int opt = static_cast<unsigned char>(*fmt++);  // as a byte: same texts as Redis
    const std::size_t bytes = struct_item_bytes(L, opt, &fmt);
    pos += struct_padding(pos, layout, opt, bytes);
    struct_check_room(L, length, pos, bytes);
    luaL_checkstack(L, 2, "too many results");  // the item and the next position
    pos += struct_unpack_item(L, opt, &fmt, &layout, data, length, pos, bytes, &results);
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos + 1));  // where the next unpack would start
  return results + 1;
}

int struct_size(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  StructLayout layout;
  std::size_t total = 0;
  while (*fmt != '\0') {
    const int opt = static_cast<unsigned char>(*fmt++);  // as a byte: same texts as Redis
    const std::size_t bytes = struct_item_bytes(L, opt, &fmt);
    total += struct_padding(total, layout, opt, bytes);
    if (opt == 's') {
      luaL_argerror(L, 1, "option 's' has no fixed size");
    } else if (opt == 'c' && bytes == 0) {
      luaL_argerror(L, 1, "option 'c0' has no fixed size");
    }
    // Letters and digits that name no option count as nothing here (Redis checks them only in
    // pack and unpack).
    if (!struct_is_alnum(opt)) struct_apply_control(L, opt, &fmt, &layout);
    total += bytes;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(total));
  return 1;
}

const luaL_Reg kStructFunctions[] = {
    {"pack", struct_pack}, {"unpack", struct_unpack}, {"size", struct_size}, {nullptr, nullptr}};

}  // namespace

int open_lua_struct(lua_State* L) {
  luaL_register(L, "struct", kStructFunctions);
  return 1;
}

}  // namespace rlsim
