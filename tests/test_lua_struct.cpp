// Redis's struct library in the embedded Lua (redis/lua_struct.cpp). Expected texts were checked
// against redis-server 7.0.15; test_redis_parity runs 153 cases and 6,000 random ones against a
// server.
#include <catch2/catch.hpp>

#include "core/sha1.h"
#include "redis/mock_store.h"

namespace rlsim_test_lua_struct {

using namespace rlsim;

namespace {

// Packed bytes in hex, and unpack's results as strings (hex for strings), for readable checks.
const std::string kStructPrelude =
    "local function hex(s) return (s:gsub('.', function(c) "
    "return string.format('%02x', c:byte()) end)) end "
    "local function show(...) local t = {} for i = 1, select('#', ...) do "
    "local v = select(i, ...) t[i] = type(v) == 'string' and hex(v) or tostring(v) end "
    "return table.concat(t, ' ') end ";

std::string struct_eval(MockStore& store, const std::string& body) {
  return to_display(store.run({"EVAL", kStructPrelude + body, "0"}, kEpochUnixUs));
}

// The error reply of a script that raises `message` at line 1.
std::string struct_error(const std::string& body, const std::string& message) {
  return "(error) ERR user_script:1: " + message + " script: " + sha1_hex(kStructPrelude + body) +
         ", on @user_script:1.";
}

}  // namespace

TEST_CASE("struct.pack writes each option in the byte order asked") {
  MockStore store;
  CHECK(struct_eval(store, "return hex(struct.pack('b B B', -1, 255, 256))") == "\"ffff00\"");
  CHECK(struct_eval(store, "return hex(struct.pack('>h <h <H', -2, -2, 65535))") ==
        "\"fffefeffffff\"");
  CHECK(struct_eval(store, "return hex(struct.pack('>l <L >T', -3, 2^40, 123))") ==
        "\"fffffffffffffffd0000000000010000000000000000007b\"");
  // i and I default to 4 bytes and take any size to 32; past 8 bytes they are zero-filled.
  CHECK(struct_eval(store, "return hex(struct.pack('<i >I <I3', -5, 7, 0x123456))") ==
        "\"fbffffff00000007563412\"");
  CHECK(struct_eval(store, "return hex(struct.pack('>i12', -1))") ==
        "\"00000000ffffffffffffffff\"");
  CHECK(struct_eval(store, "return hex(struct.pack('i0', 99))") == "\"\"");
  CHECK(struct_eval(store, "return hex(struct.pack('f >f <d >d', 1.5, -2.25, 0.1, -0))") ==
        "\"0000c03fc01000009a9999999999b93f8000000000000000\"");
  // c copies n bytes (c0: the whole string), s the string and a terminating zero, x a zero.
  CHECK(struct_eval(store, "return hex(struct.pack('c3 c0 c', 'abcd', 'xyz', 'qr'))") ==
        "\"61626378797a71\"");
  CHECK(struct_eval(store, "return hex(struct.pack('s x', 'a\\0b'))") == "\"6100620000\"");
  // Numbers arrive through Lua's conversions: strings, truncation toward zero.
  CHECK(struct_eval(store, "return hex(struct.pack('i i b', '42', '0x10', 3.7))") ==
        "\"2a0000001000000003\"");
}

TEST_CASE("struct.pack converts out-of-range numbers as Redis's x86-64 build does") {
  MockStore store;
  CHECK(struct_eval(store, "return hex(struct.pack('>l', 2^64))") == "\"0000000000000000\"");
  CHECK(struct_eval(store, "return hex(struct.pack('>l', 1/0))") == "\"0000000000000000\"");
  CHECK(struct_eval(store, "return hex(struct.pack('>l', -1/0))") == "\"8000000000000000\"");
  CHECK(struct_eval(store, "return hex(struct.pack('>l', 0/0))") == "\"8000000000000000\"");
  CHECK(struct_eval(store, "return hex(struct.pack('>L', 2^63 + 4096))") == "\"8000000000001000\"");
  CHECK(struct_eval(store, "return hex(struct.pack('<f', 1e40))") == "\"0000807f\"");
}

TEST_CASE("struct aligns items with '!' to their size, capped by the alignment") {
  MockStore store;
  CHECK(struct_eval(store, "return hex(struct.pack('!4 b i', 1, 2))") == "\"0100000002000000\"");
  CHECK(struct_eval(store, "return hex(struct.pack('!2 b l', 1, 2))") ==
        "\"01000200000000000000\"");
  // '!' alone is a double's alignment (8); c is never aligned; a 3-byte integer is, oddly.
  CHECK(struct_eval(store, "return hex(struct.pack('! b i3 b i3', 1, 2, 3, 4))") ==
        "\"01000002000003040000\"");
  CHECK(struct_eval(store, "return hex(struct.pack('!4 c3 i', 'abc', 5))") ==
        "\"6162630005000000\"");
  CHECK(struct_eval(store, "return struct.size('!bd')") == "(integer) 16");
  CHECK(struct_eval(store, "return struct.size('!4 b i3 b i3')") == "(integer) 10");
  CHECK(struct_eval(store, "return show(struct.unpack('!4 b i', '\\1\\0\\0\\0\\2\\0\\0\\0', 2))") ==
        "\"0 2 9\"");
}

TEST_CASE("struct.unpack reads back what pack wrote and answers the next position") {
  MockStore store;
  CHECK(struct_eval(store,
                    "return show(struct.unpack('>I4I8', struct.pack('>I4I8', 7, "
                    "1700000000123)))") == "\"7 1700000000123 13\"");
  CHECK(struct_eval(store,
                    "return show(struct.unpack('<h >h <H >H', "
                    "'\\254\\255\\254\\255\\254\\255\\254\\255'))") == "\"-2 -257 65534 65279 9\"");
  CHECK(struct_eval(store, "return show(struct.unpack('>i3 >I3', '\\128\\0\\0\\128\\0\\0'))") ==
        "\"-8388608 8388608 7\"");
  // Past 8 bytes only the last 8 count, and the sign bit is found modulo 64 bits.
  CHECK(struct_eval(store, "return show(struct.unpack('>i9', '\\0\\0\\0\\0\\0\\0\\0\\0\\128'))") ==
        "\"-128 10\"");
  CHECK(struct_eval(store,
                    "return show(struct.unpack('<f >d', "
                    "'\\0\\0\\192\\63' .. struct.pack('>d', -1/0)))") == "\"1.5 -inf 13\"");
  // c0 takes its length from the previous number, which the string replaces.
  CHECK(struct_eval(store, "return show(struct.unpack('c1 c0', '2abc'))") == "\"6162 4\"");
  CHECK(struct_eval(store, "return show(struct.unpack('s s', 'ab\\0\\0rest'))") == "\"6162  5\"");
  CHECK(struct_eval(store, "return show(struct.unpack('b', 'abc', 2.7))") == "\"98 3\"");
  CHECK(struct_eval(store, "return show(struct.unpack('', 'abc', 5))") == "\"5\"");
  CHECK(struct_eval(store,
                    "return select('#', struct.unpack(string.rep('b', 7000), "
                    "string.rep('x', 7000)))") == "(integer) 7001");
}

TEST_CASE("struct.size counts fixed-size formats") {
  MockStore store;
  CHECK(struct_eval(store, "return struct.size('b B h H l L T i I f d x')") == "(integer) 51");
  CHECK(struct_eval(store, "return struct.size('i3 I7 c10 c')") == "(integer) 21");
  // Letters that name no option count as nothing in size (pack and unpack refuse them).
  CHECK(struct_eval(store, "return struct.size('q')") == "(integer) 0");
}

TEST_CASE("struct's errors are Redis's texts") {
  MockStore store;
  const auto check_error = [&](const std::string& body, const std::string& message) {
    INFO(body);
    CHECK(struct_eval(store, body) == struct_error(body, message));
  };
  check_error("return struct.pack('q')", "bad argument #1 to 'pack' (invalid format option 'q')");
  check_error("return struct.pack('i33')", "integral size 33 is larger than limit of 32");
  check_error("return struct.pack('I99999999999')", "integral size overflow");
  check_error("return struct.pack('!3')", "alignment 3 is not a power of 2");
  check_error("return struct.pack('c5', 'ab')", "bad argument #3 to 'pack' (string too short)");
  check_error("return struct.pack('i')", "bad argument #2 to 'pack' (number expected, got nil)");
  check_error("return struct.unpack('i4', 'abc')",
              "bad argument #2 to 'unpack' (data string too short)");
  check_error("return struct.unpack('f', 'xxxxxxxx', -3)",
              "bad argument #2 to 'unpack' (data string too short)");
  check_error("return struct.unpack('f', 'xxxx', 0)",
              "bad argument #3 to 'unpack' (offset must be 1 or greater)");
  check_error("return struct.unpack('c0', 'abc')", "format 'c0' needs a previous size");
  check_error("return struct.unpack('s', 'abc')", "unfinished string in data");
  check_error("return struct.unpack(string.rep('b', 9000), string.rep('x', 9000))",
              "stack overflow (too many results)");
  check_error("return struct.size('s')",
              "bad argument #1 to 'size' (option 's' has no fixed size)");
  check_error("return struct.size('c0')",
              "bad argument #1 to 'size' (option 'c0' has no fixed size)");
  // Under pcall the function has no name, as in Redis.
  CHECK(struct_eval(store, "return select(2, pcall(struct.pack, 'c5', 'ab'))") ==
        "\"bad argument #3 to '?' (string too short)\"");
}

TEST_CASE("struct is a global, read-only table as in Redis") {
  MockStore store;
  CHECK(struct_eval(store,
                    "return {type(struct.pack), type(struct.unpack), type(struct.size), "
                    "tostring(struct._VERSION)}") ==
        "[\"function\", \"function\", \"function\", \"nil\"]");
  CHECK(struct_eval(store, "return select(2, pcall(function() struct.pack = nil end))") ==
        "\"user_script:1: Attempt to modify a readonly table\"");
  CHECK(struct_eval(store, "return select(2, pcall(rawset, struct, 'x', 1))") ==
        "\"Attempt to modify a readonly table\"");
}

}  // namespace rlsim_test_lua_struct
