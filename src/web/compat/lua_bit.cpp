// The `bit` library Redis embeds (BitOp 1.0.2), for the WebAssembly build only: the native build
// links Debian's lua-bitop-dev, whose source package Debian's archive here does not serve. Written
// from BitOp's documented API (bit.tobit, tohex, bnot, band, bor, bxor, lshift, rshift, arshift,
// rol, ror, bswap): every operand is first normalised to a signed 32-bit integer (the number's
// value modulo 2^32, rounded to the nearest integer, as BitOp's 2^52 + 2^51 addition does), and
// every result is a signed 32-bit number. The conformance corpus checks the native library against
// Redis; tests/web/engine-parity.js checks this one against the native build.
#include <cstddef>
#include <cstdint>
#include <lua.hpp>

namespace {

using Bits = std::uint32_t;

// BitOp's tobit: the double plus 2^52 + 2^51, whose low 32 bits of mantissa are the value modulo
// 2^32, rounded to nearest even.
Bits bits_of(lua_State* L, int index) {
  union {
    double number;
    std::uint64_t raw;
  } value;
  value.number = luaL_checknumber(L, index) + 6755399441055744.0;
  return static_cast<Bits>(value.raw);
}

int push_bits(lua_State* L, Bits bits) {
  lua_pushnumber(L, static_cast<lua_Number>(static_cast<std::int32_t>(bits)));
  return 1;
}

int bit_tobit(lua_State* L) { return push_bits(L, bits_of(L, 1)); }
int bit_bnot(lua_State* L) { return push_bits(L, ~bits_of(L, 1)); }

template <class Op>
int fold(lua_State* L, Op op) {
  Bits bits = bits_of(L, 1);
  for (int i = lua_gettop(L); i > 1; --i) bits = op(bits, bits_of(L, i));
  return push_bits(L, bits);
}
int bit_band(lua_State* L) {
  return fold(L, [](Bits a, Bits b) { return a & b; });
}
int bit_bor(lua_State* L) {
  return fold(L, [](Bits a, Bits b) { return a | b; });
}
int bit_bxor(lua_State* L) {
  return fold(L, [](Bits a, Bits b) { return a ^ b; });
}

// Shift and rotate counts use their low 5 bits.
int bit_lshift(lua_State* L) { return push_bits(L, bits_of(L, 1) << (bits_of(L, 2) & 31)); }
int bit_rshift(lua_State* L) { return push_bits(L, bits_of(L, 1) >> (bits_of(L, 2) & 31)); }
int bit_arshift(lua_State* L) {
  const auto value = static_cast<std::int32_t>(bits_of(L, 1));
  return push_bits(L, static_cast<Bits>(value >> (bits_of(L, 2) & 31)));
}
int bit_rol(lua_State* L) {
  const Bits value = bits_of(L, 1), count = bits_of(L, 2) & 31;
  return push_bits(L, count == 0 ? value : (value << count) | (value >> (32 - count)));
}
int bit_ror(lua_State* L) {
  const Bits value = bits_of(L, 1), count = bits_of(L, 2) & 31;
  return push_bits(L, count == 0 ? value : (value >> count) | (value << (32 - count)));
}
int bit_bswap(lua_State* L) {
  const Bits value = bits_of(L, 1);
  return push_bits(
      L, (value >> 24) | ((value >> 8) & 0xff00u) | ((value & 0xff00u) << 8) | (value << 24));
}

// tohex(x [, n]): n hex digits (default 8, at most 8), upper case when n is negative.
int bit_tohex(lua_State* L) {
  Bits value = bits_of(L, 1);
  std::int32_t digits = lua_isnoneornil(L, 2) ? 8 : static_cast<std::int32_t>(bits_of(L, 2));
  const char* alphabet = "0123456789abcdef";
  if (digits < 0) {
    digits = -digits;
    alphabet = "0123456789ABCDEF";
  }
  if (digits > 8) digits = 8;
  char text[8];
  for (int i = digits - 1; i >= 0; --i) {
    text[i] = alphabet[value & 15];
    value >>= 4;
  }
  lua_pushlstring(L, text, static_cast<std::size_t>(digits));
  return 1;
}

const luaL_Reg kFunctions[] = {
    {"tobit", bit_tobit}, {"bnot", bit_bnot},     {"band", bit_band},     {"bor", bit_bor},
    {"bxor", bit_bxor},   {"lshift", bit_lshift}, {"rshift", bit_rshift}, {"arshift", bit_arshift},
    {"rol", bit_rol},     {"ror", bit_ror},       {"bswap", bit_bswap},   {"tohex", bit_tohex},
    {nullptr, nullptr}};

}  // namespace

// As BitOp's luaopen_bit: registers the global table `bit` and returns it.
extern "C" int luaopen_bit(lua_State* L) {
  luaL_register(L, "bit", kFunctions);
  return 1;
}
