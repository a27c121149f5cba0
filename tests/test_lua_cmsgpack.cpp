// Redis's cmsgpack library in the embedded Lua (src/redis/lua_cmsgpack.cpp). Expected bytes and
// texts were checked against redis-server 7.0.15 (test_redis_parity runs these and more cases
// against it).
#include <catch2/catch.hpp>

#include "core/sha1.h"
#include "redis/mock_store.h"

namespace rlsim_test_lua_cmsgpack {

using namespace rlsim;

namespace {

constexpr TimeUs kT0 = kEpochUnixUs;

// A script prelude: hex(s) shows packed bytes, unhex(h) builds input bytes.
const char* const kHexHelpers =
    "local function hex(s) return (s:gsub('.', function(c) return string.format('%02x', "
    "c:byte()) end)) end\n"
    "local function unhex(h) return (h:gsub('..', function(x) return "
    "string.char(tonumber(x, 16)) end)) end\n";

std::string msgpack_eval(MockStore& store, const std::string& body) {
  return to_display(store.run({"EVAL", std::string(kHexHelpers) + body, "0"}, kT0));
}

// The hex of cmsgpack.pack(<lua_values>).
std::string packed_hex(MockStore& store, const std::string& lua_values) {
  return msgpack_eval(store, "return hex(cmsgpack.pack(" + lua_values + "))");
}

}  // namespace

TEST_CASE("cmsgpack packs integers in the shortest of fixint, uint 8-64 and int 8-64") {
  MockStore store;
  CHECK(packed_hex(store, "0, 1, 127") == "\"00017f\"");
  CHECK(packed_hex(store, "128, 255") == "\"cc80ccff\"");
  CHECK(packed_hex(store, "256, 65535") == "\"cd0100cdffff\"");
  CHECK(packed_hex(store, "65536, 4294967295") == "\"ce00010000ceffffffff\"");
  CHECK(packed_hex(store, "4294967296") == "\"cf0000000100000000\"");
  CHECK(packed_hex(store, "-1, -32") == "\"ffe0\"");
  CHECK(packed_hex(store, "-33, -128") == "\"d0dfd080\"");
  CHECK(packed_hex(store, "-129, -32768") == "\"d1ff7fd18000\"");
  CHECK(packed_hex(store, "-32769, -2147483648") == "\"d2ffff7fffd280000000\"");
  CHECK(packed_hex(store, "-2147483649") == "\"d3ffffffff7fffffff\"");
  CHECK(packed_hex(store, "-1099511627776") == "\"d3ffffff0000000000\"");  // Redis's test
  CHECK(packed_hex(store, "-2^63") == "\"d38000000000000000\"");
}

TEST_CASE("cmsgpack packs other numbers as a float when a float holds them, else a double") {
  MockStore store;
  CHECK(packed_hex(store, "0.1") == "\"cb3fb999999999999a\"");  // Redis's test
  CHECK(packed_hex(store, "0.5, 1.5") == "\"ca3f000000ca3fc00000\"");
  CHECK(packed_hex(store, "1e300") == "\"cb7e37e43c8800759c\"");
  CHECK(packed_hex(store, "2^63") == "\"ca5f000000\"");  // no int64 holds it
  CHECK(packed_hex(store, "2^64 + 2^12") == "\"cb43f0000000000001\"");
  CHECK(packed_hex(store, "math.huge, -math.huge") == "\"ca7f800000caff800000\"");
  CHECK(packed_hex(store, "-(0/0)") == "\"cb7ff8000000000000\"");  // NaN keeps its bits
  // -0 is an integer to lua-cmsgpack: its cast to int64 gives it back.
  CHECK(msgpack_eval(store, "local z = -1 * 0 return {hex(cmsgpack.pack(z)), 1 / z < 0}") ==
        "[\"00\", (integer) 1]");
}

TEST_CASE("cmsgpack packs strings as fixstr and str 8/16/32, never bin") {
  MockStore store;
  CHECK(packed_hex(store, "'', 'abc'") == "\"a0a3616263\"");
  std::string x31 = "\"bf";
  for (int i = 0; i < 31; ++i) x31 += "78";
  CHECK(packed_hex(store, "string.rep('x', 31)") == x31 + "\"");
  CHECK(msgpack_eval(store,
                     "local out = {} for _, n in ipairs({32, 255, 256, 65535, 65536}) do "
                     "local p = cmsgpack.pack(string.rep('x', n)) out[#out + 1] = "
                     "hex(p:sub(1, 5)) .. ' ' .. #p end return out") ==
        "[\"d920787878 34\", \"d9ff787878 257\", \"da01007878 259\", \"daffff7878 65538\", "
        "\"db00010000 65541\"]");
}

TEST_CASE("cmsgpack packs nil, booleans, tables as arrays or maps, and other values as nil") {
  MockStore store;
  CHECK(packed_hex(store, "nil, true, false") == "\"c0c3c2\"");
  CHECK(packed_hex(store, "cjson.null, function() end") == "\"c0c0\"");
  CHECK(packed_hex(store, "{}, {1, 2}") == "\"90920102\"");  // an empty table is an array
  // An array needs keys 1..n without holes, whole and positive; anything else is a map.
  CHECK(packed_hex(store, "{1, nil, 3}") == "\"8201010303\"");
  CHECK(packed_hex(store, "{[2] = 1}, {[0] = 1}") == "\"810201810001\"");
  CHECK(packed_hex(store, "{[1.5] = 1}") == "\"81ca3fc0000001\"");
  CHECK(packed_hex(store, "{a = 1}, {[true] = 'x'}") == "\"81a1610181c3a178\"");
  CHECK(msgpack_eval(store,
                     "local t = {} for i = 1, 16 do t[i] = 0 end return "
                     "hex(cmsgpack.pack(t):sub(1, 4))") == "\"dc001000\"");
  CHECK(msgpack_eval(store,
                     "local t = {} for i = 1, 16 do t['k' .. i] = 0 end return "
                     "hex(cmsgpack.pack(t):sub(1, 3))") == "\"de0010\"");
}

TEST_CASE("cmsgpack packs 16 levels of tables and the 17th as nil, which ends cycles") {
  MockStore store;
  std::string nested_hex = "\"";
  for (int level = 0; level < 16; ++level) nested_hex += "91";
  nested_hex += "c0\"";
  CHECK(msgpack_eval(store,
                     "local t = {} local c = t for i = 1, 20 do c[1] = {} c = c[1] end "
                     "return hex(cmsgpack.pack(t))") == nested_hex);
  // Redis's circular-reference test: the same bytes, and the decoded copy 16 levels deep.
  CHECK(msgpack_eval(store,
                     "local a = {x = nil, y = 5} local b = {x = a} a.x = b "
                     "local re = cmsgpack.unpack(cmsgpack.pack(a)) "
                     "return {hex(cmsgpack.pack(a)), re.x.x.x.x.x.x.x.x.x.x.x.x.x.x.y, "
                     "type(re.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x)}") ==
        "[\"82a17905a17881a17882a17905a17881a17882a17905a17881a17882a17905a17881a17882a17905a17881"
        "a17882a17905a17881a17882a17905a17881a17882a17905a17881a178c0\", (integer) 5, \"nil\"]");
}

TEST_CASE("cmsgpack unpacks every value of the input, each tag as lua-cmsgpack reads it") {
  MockStore store;
  CHECK(msgpack_eval(store, "return {cmsgpack.unpack(unhex('00017fffe0d080d1ff7fd280000000'))}") ==
        "[(integer) 0, (integer) 1, (integer) 127, (integer) -1, (integer) -32, (integer) -128, "
        "(integer) -129, (integer) -2147483648]");
  CHECK(msgpack_eval(store,
                     "return {cmsgpack.unpack(unhex('ccffcdffffceffffffffcf0000000100000000'"
                     "))}") ==
        "[(integer) 255, (integer) 65535, (integer) 4294967295, (integer) 4294967296]");
  // Every integer goes through int64_t: a uint 64 of 2^63 or more comes back negative.
  CHECK(msgpack_eval(store,
                     "return {cmsgpack.unpack(unhex('cfffffffffffffffffd3fffffffffffffff"
                     "e'))}") == "[(integer) -1, (integer) -2]");
  CHECK(msgpack_eval(store,
                     "local a, b = cmsgpack.unpack(unhex('ca3fc00000cb3fb999999999999a')) "
                     "return {tostring(a), tostring(b)}") == "[\"1.5\", \"0.1\"]");
  CHECK(msgpack_eval(store, "return {cmsgpack.unpack(unhex('a161d90162da000163db0000000164'))}") ==
        "[\"a\", \"b\", \"c\", \"d\"]");
  // nil, booleans; a nil array element leaves a hole.
  CHECK(msgpack_eval(store,
                     "local n, t, f, a = cmsgpack.unpack(unhex('c0c3c29301c003')) "
                     "return {type(n), t, f, a[1], type(a[2]), a[3]}") ==
        "[\"nil\", (integer) 1, (nil), (integer) 1, \"nil\", (integer) 3]");
  CHECK(msgpack_eval(store,
                     "local m = cmsgpack.unpack(unhex('82a16101a1629202dc000103')) "
                     "return {m.a, m.b[1], m.b[2][1]}") ==
        "[(integer) 1, (integer) 2, (integer) 3]");
  CHECK(msgpack_eval(store, "return select('#', cmsgpack.unpack(''))") == "(integer) 0");
  CHECK(msgpack_eval(store, "return {cmsgpack.unpack(123)}") ==  // the string "123"
        "[(integer) 49, (integer) 50, (integer) 51]");
}

TEST_CASE("cmsgpack round-trips a limiter's state") {
  MockStore store;
  CHECK(msgpack_eval(store,
                     "local s = cmsgpack.unpack(cmsgpack.pack({tokens = 4.25, ts = "
                     "1700000000123, tags = {'a', 'b'}, on = true})) return {tostring("
                     "s.tokens), tostring(s.ts), s.tags[2], s.on}") ==
        "[\"4.25\", \"1700000000123\", \"b\", (integer) 1]");
}

TEST_CASE("cmsgpack.unpack_one and unpack_limit return the next offset first, -1 at the end") {
  MockStore store;
  CHECK(msgpack_eval(store,
                     "local s = cmsgpack.pack(1, 'two', {3}) local out = {} local off = 0 "
                     "repeat local v off, v = cmsgpack.unpack_one(s, off) out[#out + 1] = "
                     "off until off == -1 return out") ==
        "[(integer) 1, (integer) 5, (integer) -1]");
  CHECK(msgpack_eval(store,
                     "local s = cmsgpack.pack(1, 2, 3, 4, 5) "
                     "return {cmsgpack.unpack_limit(s, 2, 3)}") ==
        "[(integer) -1, (integer) 4, (integer) 5]");
  CHECK(msgpack_eval(store, "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2)}") ==
        "[(integer) 2, (integer) 1, (integer) 2]");
  // A limit and offset of 0 mean every value, without an offset; a limit of 0 alone reads none.
  CHECK(msgpack_eval(store, "return {cmsgpack.unpack_limit(cmsgpack.pack(7, 8), 0)}") ==
        "[(integer) 7, (integer) 8]");
  CHECK(msgpack_eval(store, "return {cmsgpack.unpack_limit(cmsgpack.pack(7, 8), 0, 1)}") ==
        "[(integer) 1]");
  CHECK(msgpack_eval(store, "return {cmsgpack.unpack_one('')}") == "[(integer) -1]");
}

TEST_CASE("cmsgpack's errors have Redis's texts") {
  MockStore store;
  // Raised from a Lua function on the script's third line (after the helpers): luaL_error puts
  // that position first.
  const auto error_of = [&](const std::string& call) {
    const std::string text =
        msgpack_eval(store, "return select(2, pcall(function() return " + call + " end))");
    const std::string where = "\"user_script:3: ";
    return text.starts_with(where) ? "\"" + text.substr(where.size()) : "(no position) " + text;
  };
  CHECK(error_of("cmsgpack.pack()") ==
        "\"bad argument #0 to 'pack' (MessagePack pack needs input.)\"");
  CHECK(error_of("cmsgpack.unpack(unhex('9201'))") == "\"Missing bytes in input.\"");
  CHECK(error_of("cmsgpack.unpack(unhex('db0000000561'))") == "\"Missing bytes in input.\"");
  // lua-cmsgpack knows no bin, ext or 0xc1.
  for (const char* bytes : {"c1", "c4026162", "c7010061", "d40102"}) {
    CHECK(error_of(std::string("cmsgpack.unpack(unhex('") + bytes + "'))") ==
          "\"Bad data format in input.\"");
  }
  // Lua's own error for a nil map key, raised inside the C function: no position.
  CHECK(msgpack_eval(store, "return select(2, pcall(cmsgpack.unpack, unhex('81c001')))") ==
        "\"table index is nil\"");
  CHECK(error_of("cmsgpack.unpack()") ==
        "\"bad argument #1 to 'unpack' (string expected, got no value)\"");
  // Redis prints the input's length where the limit belongs.
  CHECK(error_of("cmsgpack.unpack_one('abc', -1)") ==
        "\"Invalid request to unpack with offset of -1 and limit of 3.\"");
  CHECK(error_of("cmsgpack.unpack_one('abc', 4)") ==
        "\"Start offset 4 greater than input length 3.\"");
  CHECK(error_of("cmsgpack.unpack_limit('abc')") ==
        "\"bad argument #2 to 'unpack_limit' (number expected, got no value)\"");
  CHECK(error_of("cmsgpack.unpack(string.rep('\\1', 9000))") ==
        "\"stack overflow (too many return values at once; use unpack_one or unpack_limit "
        "instead.)\"");
  const std::string body = "return cmsgpack.unpack('\\146')";
  CHECK(to_display(store.run({"EVAL", body, "0"}, kT0)) ==
        "(error) ERR user_script:1: Missing bytes in input. script: " + sha1_hex(body) +
            ", on @user_script:1.");
}

TEST_CASE("cmsgpack is a read-only global with lua-cmsgpack's metadata") {
  MockStore store;
  CHECK(msgpack_eval(store, "return {cmsgpack._NAME, cmsgpack._VERSION}") ==
        "[\"cmsgpack\", \"lua-cmsgpack 0.4.0\"]");
  CHECK(msgpack_eval(store, "return select(2, pcall(function() cmsgpack.pack = nil end))") ==
        "\"user_script:3: Attempt to modify a readonly table\"");
}

TEST_CASE("cmsgpack.pack's bytes count against the Lua memory cap") {
  // Each of 15 levels refers twice to the next: 2^15 copies of a 4 KiB leaf, 128 MiB packed from
  // a table of a few kilobytes. Before, the bytes grew outside the cap, without bound.
  LuaLimits limits;
  limits.memory_bytes = 4u << 20;
  MockStore store(limits);
  const std::string blowup =
      "local t = string.rep('x', 4096) for i = 1, 15 do t = {t, t} end "
      "return #cmsgpack.pack(t)";
  CHECK(to_display(store.run({"EVAL", blowup, "0"}, kT0)) ==
        "(error) ERR rlsim: script " + sha1_hex(blowup) +
            " exceeded the Lua memory limit (4194304 bytes)");
  // The state is usable afterwards, and a value within the cap packs as before.
  CHECK(packed_hex(store, "{1, 2}") == "\"920102\"");
  CHECK(msgpack_eval(store,
                     "local t = string.rep('x', 4096) for i = 1, 6 do t = {t, t} end "
                     "return #cmsgpack.pack(t)") == "(integer) 262399");
}

}  // namespace rlsim_test_lua_cmsgpack
