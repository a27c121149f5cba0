#include "app/conformance.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <iostream>

#include "app/exit_codes.h"
#include "core/sha1.h"
#include "engine/commands.h"
#include "engine/run.h"
#include "real/backend.h"
#include "real/cluster_backend.h"
#include "real/real_store.h"
#include "redis/mock_store.h"

namespace rlsim {

namespace {

// Scripts of the corpus. Their SHA1s are computed, so EVALSHA steps name them by text.
constexpr const char* kNested = "return {1, 'two', {3, {'four', 5.9}}, false, 7}";
constexpr const char* kNilInArray = "return {1, nil, 3}";
constexpr const char* kFalse = "return false";
constexpr const char* kTrue = "return true";
constexpr const char* kNil = "return nil";
constexpr const char* kFloat = "return 3.99";
constexpr const char* kErrorReply = "return redis.error_reply('MYERR custom failure')";
constexpr const char* kStatusReply = "return redis.status_reply('FINE')";
constexpr const char* kErrTable = "return {err='BAD table error'}";
constexpr const char* kRuntimeError = "local t = nil\nreturn t.field";
constexpr const char* kWrongTypeCall =
    "local a = 1\nlocal n = redis.call('INCR', KEYS[1])\nreturn n";
constexpr const char* kPcall = "local r = redis.pcall('INCR', KEYS[1])\nreturn r";
constexpr const char* kCompileError = "return +";
constexpr const char* kArgs = "return {#KEYS, #ARGV, ARGV[1], ARGV[#ARGV]}";
constexpr const char* kCounter =
    "local c = redis.call('INCR', KEYS[1])\n"
    "if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end\n"
    "return {c, redis.call('PTTL', KEYS[1])}";
constexpr const char* kClock =
    "local t = redis.call('TIME')\n"
    "redis.call('SET', KEYS[1], t[1], 'PX', ARGV[1])\n"
    "return {t[1], t[2], redis.call('TTL', KEYS[1]), redis.call('GET', KEYS[1])}";
// A TTL-setting script (so the store shadows redis.call) whose call on line 3 fails.
constexpr const char* kClockError =
    "redis.call('PEXPIRE', KEYS[1], 1000)\n"
    "local x = 1\n"
    "local n = redis.call('INCR', KEYS[1])\n"
    "return n";
// The same through a tail call (`return redis.call(...)`), and redis.pcall's error as a value.
constexpr const char* kClockTailError =
    "redis.call('PEXPIRE', KEYS[1], 1000)\n"
    "return redis.call('INCR', KEYS[1])";
constexpr const char* kClockPcall =
    "redis.call('EXPIRE', KEYS[1], 100)\n"
    "local r = redis.pcall('INCR', KEYS[1])\n"
    "return {r['err'], redis.call('TTL', KEYS[1])}";
// Clock commands called where the store renames them (a tail call, a helper function's own tail
// call, an error on a later line) and through an alias of redis.call (the shadowed prelude).
constexpr const char* kClockTailBadTtl =
    "local x = 1\n"
    "return redis.call('PEXPIRE', KEYS[1], 'soon')";
constexpr const char* kClockHelper =
    "local function bump(k)\n"
    "  redis.call('PEXPIRE', k, 2000)\n"
    "  return redis.call('PTTL', k)\n"
    "end\n"
    "local t = bump(KEYS[1])\n"
    "return {t, redis.call('EXPIRE', KEYS[1], 'x')}";
constexpr const char* kClockAlias =
    "local call = redis.call\n"
    "call('PEXPIRE', KEYS[1], 5000)\n"
    "return {call('PTTL', KEYS[1]), redis.pcall('INCR', KEYS[1])['err']}";
constexpr const char* kGcra =
    "local now_us = tonumber(ARGV[1])\n"
    "local tat = tonumber(redis.call('GET', KEYS[1]) or ARGV[1])\n"
    "tat = math.max(tat, now_us) + 100000\n"
    "redis.call('SET', KEYS[1], tat, 'PX', math.ceil((tat - now_us) / 1000))\n"
    "return {tat, redis.call('PTTL', KEYS[1])}";

// The commands of issue 21 inside scripts, each called by name (a literal, as limiter scripts
// write them, so that real mode sees and maps the TTL-bearing ones). Unordered replies are sorted
// in the script, as a script that compares them must.
constexpr const char* kStringCommands =
    "redis.call('SET', KEYS[1], 'ab')\n"
    "local a = redis.call('APPEND', KEYS[1], 'cd')\n"
    "return {a, redis.call('STRLEN', KEYS[1]), redis.call('GETSET', KEYS[1], 'z'),\n"
    "  redis.call('GETDEL', KEYS[1]), tostring(redis.call('GETDEL', KEYS[1])),\n"
    "  redis.call('MSET', KEYS[1], '1', KEYS[2], '2')['ok'], redis.call('MGET', KEYS[1], "
    "KEYS[2]),\n"
    "  redis.call('UNLINK', KEYS[1], KEYS[2]), redis.pcall('STRLEN', KEYS[3])['err']}";
constexpr const char* kHashCommands =
    "redis.call('HSET', KEYS[1], 'b', '2', 'a', '1', 'c', '3')\n"
    "local k = redis.call('HKEYS', KEYS[1]) table.sort(k)\n"
    "local v = redis.call('HVALS', KEYS[1]) table.sort(v)\n"
    "return {k, v, redis.call('HLEN', KEYS[1]), redis.call('HEXISTS', KEYS[1], 'a'),\n"
    "  redis.call('HEXISTS', KEYS[1], 'z'), #redis.call('HKEYS', KEYS[2])}";
constexpr const char* kSetCommands =
    "local added = redis.call('SADD', KEYS[1], 'b', 'a', 'c', 'a', '10', '9')\n"
    "local removed = redis.call('SREM', KEYS[1], 'c', 'nobody')\n"
    "local m = redis.call('SMEMBERS', KEYS[1]) table.sort(m)\n"
    "return {added, removed, m, redis.call('SISMEMBER', KEYS[1], 'a'),\n"
    "  redis.call('SISMEMBER', KEYS[1], 'c'), redis.call('SCARD', KEYS[1]),\n"
    "  redis.pcall('SADD', KEYS[2], 'x')['err']}";
constexpr const char* kListCommands =
    "local n = redis.call('RPUSH', KEYS[1], 'a', 'b', 'c')\n"
    "n = redis.call('LPUSH', KEYS[1], 'y', 'z') + n\n"
    "local all = redis.call('LRANGE', KEYS[1], 0, -1)\n"
    "local l, r = redis.call('LPOP', KEYS[1]), redis.call('RPOP', KEYS[1], 2)\n"
    "redis.call('LTRIM', KEYS[1], 0, 0)\n"
    "return {n, all, l, r, redis.call('LRANGE', KEYS[1], 0, -1), redis.call('LLEN', KEYS[1]),\n"
    "  redis.call('LPOP', KEYS[1], 5), tostring(redis.call('RPOP', KEYS[1])),\n"
    "  redis.pcall('LPOP', KEYS[1], -1)['err']}";
constexpr const char* kZSetCommands =
    "redis.call('ZADD', KEYS[1], 1, 'a', 2, 'b', 3, 'c', 4, 'd', 5, 'e')\n"
    "local rev = redis.call('ZREVRANGE', KEYS[1], 0, 1, 'WITHSCORES')\n"
    "local by = redis.call('ZREVRANGEBYSCORE', KEYS[1], '(4', '-inf', 'LIMIT', 0, 2)\n"
    "local cut = redis.call('ZREMRANGEBYRANK', KEYS[1], -1, -1)\n"
    "return {rev, by, cut, redis.call('ZPOPMIN', KEYS[1], 2), redis.call('ZSCORE', KEYS[1], 'c'),\n"
    "  redis.call('ZCOUNT', KEYS[1], '(2', '+inf'), redis.call('ZRANGE', KEYS[1], 0, -1)}";
// Issue 21's repro: SETEX's TTL must live on the virtual clock on both backends (a real Redis
// given the wall-clock TTL would expire the key under a run whose clock is shifted).
constexpr const char* kSetexRepro =
    "local v = redis.call('GET', KEYS[1]); redis.call('SETEX', KEYS[1], ARGV[1], 'x'); "
    "if v then return 1 end return 0";
constexpr const char* kTtlCommands =
    "redis.call('PSETEX', KEYS[1], ARGV[1], 'x')\n"
    "local t = {redis.call('PTTL', KEYS[1]), redis.call('PEXPIRETIME', KEYS[1]),\n"
    "  redis.call('EXPIRETIME', KEYS[1])}\n"
    "t[4] = redis.call('GETEX', KEYS[1], 'EX', ARGV[2])\n"
    "t[5] = redis.call('TTL', KEYS[1])\n"
    "t[6] = redis.call('GETEX', KEYS[1], 'PXAT', ARGV[3])\n"
    "t[7] = redis.call('PEXPIRETIME', KEYS[1])\n"
    "redis.call('SET', KEYS[2], 'v', 'EXAT', ARGV[4])\n"
    "t[8] = redis.call('EXPIRETIME', KEYS[2])\n"
    "redis.call('EXPIREAT', KEYS[2], ARGV[4] + 10)\n"
    "t[9] = redis.call('TTL', KEYS[2])\n"
    "redis.call('PEXPIREAT', KEYS[2], ARGV[3] + 1)\n"
    "t[10] = redis.call('PEXPIRETIME', KEYS[2])\n"
    "t[11] = redis.pcall('SETEX', KEYS[3], 0, 'x')['err']\n"
    "t[12] = redis.pcall('GETEX', KEYS[1], 'EX', 'soon')['err']\n"
    "return t";
// The same commands through an alias of redis.call (the shadowed prelude in real mode).
constexpr const char* kTtlAlias =
    "local call = redis.call\n"
    "call('SETEX', KEYS[1], ARGV[1], 'x')\n"
    "local g = call('GETEX', KEYS[1], 'PERSIST')\n"
    "return {g, call('TTL', KEYS[1]), call('PSETEX', KEYS[1], ARGV[1], 'y'),\n"
    "  call('EXPIRETIME', KEYS[1]), call('GETEX', KEYS[1], 'PX', ARGV[1]),\n"
    "  call('PEXPIRETIME', KEYS[1])}";

// Issue 30: the commands and libraries limiter scripts of open-source projects use. Library
// calls whose replies are tables with several keys are compared through their fields (the order
// cjson writes an object's keys in follows the Lua table, not the text).
constexpr const char* kLibraryCommands =
    "redis.call('HMSET', KEYS[1], 'start', ARGV[1], 'end', ARGV[1] + 1000, 'count', 1)\n"
    "local b = redis.call('HMGET', KEYS[1], 'start', 'end', 'count')\n"
    "redis.call('RPUSH', KEYS[2], 'a', 'b', 'a', 'c')\n"
    "local i = {redis.call('LINDEX', KEYS[2], 1), redis.call('LINDEX', KEYS[2], -1),\n"
    "  tostring(redis.call('LINDEX', KEYS[2], 9)), redis.call('LREM', KEYS[2], 0, 'a')}\n"
    "redis.call('SET', KEYS[3], 7, 'PX', 5000)\n"
    "redis.call('RENAME', KEYS[3], KEYS[4])\n"
    "return {b, i, redis.call('PTTL', KEYS[4]), redis.call('RENAMENX', KEYS[4], KEYS[1]),\n"
    "  redis.pcall('RENAME', KEYS[3], KEYS[4])['err'], redis.pcall('LINDEX', KEYS[1], 0)['err'],\n"
    "  redis.pcall('HMSET', KEYS[1], 'x')['err']}";
constexpr const char* kCjson =
    "local t = cjson.decode(ARGV[1])\n"
    "local back = cjson.decode(cjson.encode(t))\n"
    "return {t.limit, t.window, #t.tags, t.tags[2], cjson.encode(t.tags), back.limit,\n"
    "  cjson.encode({1, 'two', true, false, {3.5}}), cjson.encode('a\"b'), cjson.encode(0.1),\n"
    "  tostring(t.none == cjson.null), type(cjson.null), cjson._VERSION,\n"
    "  select(2, pcall(cjson.decode, '{')), select(2, pcall(cjson.encode, {[1] = 1, [30] = 3}))}";
constexpr const char* kBit =
    "return {bit.band(0xff, 0x0f), bit.bor(1, 2, 4), bit.bxor(5, 3), bit.bnot(0),\n"
    "  bit.lshift(1, 31), bit.rshift(-1, 28), bit.arshift(-256, 4), bit.rol(1, 33),\n"
    "  bit.ror(1, 1), bit.bswap(0x12345678), bit.tobit(0xffffffff + 1), bit.tohex(255, 4),\n"
    "  bit.tohex(-1, -8), select(2, pcall(function() bit.x = 1 end))}";
// cmsgpack: a limiter state packed into one string and read back (the bytes are the reply, so
// the map's key order is compared too), the encodings of each type, the offsets of unpack_one and
// unpack_limit, and the error texts.
constexpr const char* kCmsgpack =
    "local state = {tokens = tonumber(ARGV[1]), ts = tonumber(ARGV[2]), tags = {'a', 'b'}}\n"
    "local packed = cmsgpack.pack(state)\n"
    "local back = cmsgpack.unpack(packed)\n"
    "local offset, first = cmsgpack.unpack_one(cmsgpack.pack(7, 'x'))\n"
    "return {packed, back.tokens .. '', back.ts, back.tags[2],\n"
    "  cmsgpack.pack(1, -1, 300, -300, 70000, 2^40, -2^40, 0.1, 1.5, 1e300,\n"
    "    'str', true, false, {}),\n"
    "  offset, first, {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2)}, cmsgpack._VERSION,\n"
    "  select(2, pcall(cmsgpack.unpack, '\\146')), select(2, pcall(cmsgpack.unpack, '\\193')),\n"
    "  select(2, pcall(function() cmsgpack.x = 1 end))}";
// A TTL set through a command name built at run time ('PEX' .. 'PIRE' from ARGV): the text names
// no clock command, so only the shadowed wrapper can map it to the virtual clock.
constexpr const char* kDynamicExpire =
    "redis.call('INCR', KEYS[1])\n"
    "return redis.call(ARGV[1] .. ARGV[2], KEYS[1], ARGV[3])";
// A cjson call under pcall must decide as on Redis: the library is there, so the script takes
// its first branch on both.
constexpr const char* kCjsonPcall =
    "local ok, v = pcall(cjson.decode, ARGV[1])\n"
    "if ok then return v.n + 1 end\n"
    "return -1";
// struct as limiter scripts use it: a counter and a time packed into one binary value, stored
// and read back, plus the edges whose results and error texts Redis's library defines.
constexpr const char* kStruct =
    "local packed = struct.pack('>I4I8', ARGV[1], ARGV[2])\n"
    "redis.call('SET', KEYS[1], packed)\n"
    "local count, at, next_pos = struct.unpack('>I4I8', redis.call('GET', KEYS[1]))\n"
    "return {#packed, count, at, next_pos, struct.size('!8 b d i3 h'),\n"
    "  {struct.unpack('<h B c0 s', struct.pack('<h B c0 s', -2, 3, 'abc', 'zz'))},\n"
    "  struct.pack('!4 b i2 c2 x f d l', -1, 258, 'ok', 0.5, -0.25, 2 ^ 53),\n"
    "  select(2, pcall(struct.unpack, 'i4', 'abc')), select(2, pcall(struct.pack, 'q')),\n"
    "  select(2, pcall(struct.size, 'i33')), select(2, pcall(struct.unpack, 'b', 'x', 0))}";

Command eval(const char* script, std::vector<std::string> keys, std::vector<std::string> args) {
  Command c = {"EVAL", script, std::to_string(keys.size())};
  c.insert(c.end(), keys.begin(), keys.end());
  c.insert(c.end(), args.begin(), args.end());
  return c;
}

Command evalsha(const char* script, std::vector<std::string> keys) {
  Command c = {"EVALSHA", sha1_hex(script), std::to_string(keys.size())};
  c.insert(c.end(), keys.begin(), keys.end());
  return c;
}

std::string lower_ascii(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string brief(const Command& command) {
  std::string out;
  for (const std::string& arg : command) {
    std::string shown = arg.size() > 40 ? arg.substr(0, 37) + "..." : arg;
    for (char& c : shown)
      if (c == '\n') c = ' ';
    out += (out.empty() ? "" : " ") + shown;
  }
  return out;
}

// Appends steps at a virtual time that only moves forward (ms since the epoch).
struct CorpusBuilder {
  std::vector<ConformanceStep> steps;
  std::int64_t t = 0;
  void at(std::int64_t ms, Command command) {
    t = ms;
    steps.push_back({t, std::move(command)});
  }
  void now(Command command) { steps.push_back({t, std::move(command)}); }
};

void add_string_steps(CorpusBuilder& b) {
  // Strings and counters, overflow, arity, types.
  b.now({"SET", "s", "hello"});
  b.now({"GET", "s"});
  b.now({"INCR", "s"});
  b.now({"INCR", "c"});
  b.now({"INCRBY", "c", "41"});
  b.now({"DECRBY", "c", "2"});
  b.now({"INCRBY", "c", "1.5"});
  b.now({"SET", "big", "9223372036854775807"});
  b.now({"INCR", "big"});
  b.now({"DECRBY", "neg", "-9223372036854775808"});
  b.now({"INCRBYFLOAT", "f", "0.1"});
  b.now({"INCRBYFLOAT", "f", "inf"});
  b.now({"INCR"});
  b.now({"GET", "s", "extra"});
  b.now({"EXPIRE", "c"});
  b.now({"NOSUCHCOMMAND", "x"});
  b.now({"HSET", "h", "f", "1", "g", "2"});
  b.now({"GET", "h"});
  b.now({"INCR", "h"});
  b.now({"HINCRBY", "h", "f", "5"});
  b.now({"HMGET", "h", "f", "nope"});
  b.now({"HGETALL", "h"});
  b.now({"TYPE", "h"});
  b.now({"TYPE", "missing"});
  b.now({"MGET", "s", "h", "missing", "c"});
  b.now({"ZADD", "z", "1", "a", "2", "b", "3", "c"});
  b.now({"ZADD", "z", "nan", "a"});
  b.now({"ZRANGEBYSCORE", "z", "(1", "+inf", "WITHSCORES"});
  b.now({"ZREMRANGEBYSCORE", "z", "-inf", "1"});
  b.now({"ZCARD", "z"});
  b.now({"ZCARD", "s"});
  b.now({"DEL", "s", "missing", "z"});
  b.now({"EXISTS", "s", "h", "h"});
  b.now({"PING"});
  b.now({"TIME"});
}

void add_ttl_steps(CorpusBuilder& b) {
  // TTLs: on a missing key, negative, options, and expiry as virtual time passes.
  b.now({"EXPIRE", "missing", "10"});
  b.now({"TTL", "missing"});
  b.now({"TTL", "h"});
  b.now({"SET", "n", "1"});
  b.now({"PEXPIRE", "n", "-5"});
  b.now({"EXISTS", "n"});
  b.now({"SET", "n", "1"});
  b.now({"EXPIRE", "n", "0"});
  b.now({"GET", "n"});
  b.now({"SET", "e", "v", "EX", "-1"});
  b.now({"SET", "e", "v", "PX", "0"});
  b.now({"SET", "e", "v", "EX", "x"});
  b.now({"SET", "e", "v", "EX", "10", "PX", "10"});
  b.now({"SET", "e", "v", "EX", "100"});
  b.now({"TTL", "e"});
  b.now({"PTTL", "e"});
  b.now({"EXPIRE", "e", "50", "GT"});
  b.now({"EXPIRE", "e", "50", "LT"});
  b.now({"EXPIRE", "e", "500", "NX"});
  b.now({"EXPIRE", "e", "5", "NX", "XX"});
  b.now({"SET", "e", "w", "KEEPTTL", "GET"});
  b.now({"TTL", "e"});
  b.now({"SET", "p", "v", "PX", "1500"});
  b.now({"SET", "q", "v"});
  b.now({"PERSIST", "q"});
  b.now({"EXPIRE", "q", "30"});
  b.now({"PERSIST", "q"});
  b.now({"TTL", "q"});
  b.now({"EXPIREAT", "q", "1000"});  // long past: deletes the key
  b.now({"EXISTS", "q"});
  b.now({"SET", "r", "v", "PXAT", std::to_string(kEpochUnixUs / kUsPerMs + 90'000)});
  b.now({"PEXPIREAT", "c", std::to_string(kEpochUnixUs / kUsPerMs + 120'000)});
  b.now({"PTTL", "r"});
  b.now({"PTTL", "c"});
  b.at(1'499, {"GET", "p"});
  b.now({"PTTL", "p"});
  b.at(1'500, {"GET", "p"});  // alive through its expiry's millisecond, as in Redis
  b.at(1'501, {"GET", "p"});  // expired
  b.now({"EXISTS", "p"});
  b.at(30'000, {"TTL", "e"});
  b.at(49'999, {"TTL", "e"});
  b.at(50'000, {"GET", "e"});
  b.at(89'999, {"GET", "r"});
  b.at(90'000, {"GET", "r"});
  b.at(119'000, {"INCR", "c"});
  b.now({"PTTL", "c"});
  b.at(120'000, {"GET", "c"});
  b.now({"TIME"});
}

void add_script_steps(CorpusBuilder& b) {
  // Scripts: reply conversion, errors, the script cache, and the virtual clock in scripts.
  b.now(eval(kNested, {}, {}));
  b.now(eval(kNilInArray, {}, {}));
  b.now(eval(kFalse, {}, {}));
  b.now(eval(kTrue, {}, {}));
  b.now(eval(kNil, {}, {}));
  b.now(eval(kFloat, {}, {}));
  b.now(eval(kErrorReply, {}, {}));
  b.now(eval(kStatusReply, {}, {}));
  b.now(eval(kErrTable, {}, {}));
  b.now(eval(kRuntimeError, {}, {}));
  b.now(eval(kWrongTypeCall, {"h"}, {}));
  b.now(eval(kPcall, {"h"}, {}));
  b.now(eval(kCompileError, {}, {}));
  b.now(evalsha(kCompileError, {}));
  b.now(eval(kArgs, {"k1", "k2"}, {"a1", "a2", "a3"}));
  b.now({"EVAL", kArgs, "3", "k1"});
  b.now({"EVAL", kArgs, "-1"});
  b.now({"EVAL", kArgs, "x"});
  b.now(evalsha(kCounter, {"w"}));
  b.now({"SCRIPT", "LOAD", kCounter});
  b.now({"SCRIPT", "EXISTS", sha1_hex(kCounter), sha1_hex(kNil), sha1_hex("never loaded")});
  b.now(Command{"EVALSHA", sha1_hex(kCounter), "1", "w", "10000"});
  b.at(125'000, Command{"EVALSHA", sha1_hex(kCounter), "1", "w", "10000"});
  b.at(134'999, Command{"EVALSHA", sha1_hex(kCounter), "1", "w", "10000"});
  b.at(135'000, Command{"EVALSHA", sha1_hex(kCounter), "1", "w", "10000"});
  b.now({"TTL", "w"});
  b.now(eval(kClock, {"clock"}, {"2500"}));
  b.at(137'000, {"GET", "clock"});
  b.at(137'500, {"GET", "clock"});
  b.now(eval(kClockError, {"h"}, {}));
  b.now({"HSET", "h2", "f", "1"});
  b.now(eval(kClockTailError, {"h2"}, {}));
  b.now(eval(kClockPcall, {"h2"}, {}));
  b.now(eval(kClockTailBadTtl, {"h2"}, {}));
  b.now(eval(kClockHelper, {"h2"}, {}));
  b.now(eval(kClockAlias, {"h2"}, {}));
  b.now(eval(kGcra, {"tat"}, {std::to_string(kEpochUnixUs + 137'500'000)}));
  b.at(137'550, eval(kGcra, {"tat"}, {std::to_string(kEpochUnixUs + 137'550'000)}));
  b.at(400'000, eval(kGcra, {"tat"}, {std::to_string(kEpochUnixUs + 400'000'000)}));
  b.now(eval(kDynamicExpire, {"dyn"}, {"PEX", "PIRE", "2000"}));
  b.at(401'000, {"GET", "dyn"});
  b.at(403'000, {"GET", "dyn"});
  b.now({"SCRIPT", "FLUSH"});
  b.now(Command{"EVALSHA", sha1_hex(kCounter), "1", "w", "10000"});
  b.now({"SCRIPT", "FLUSH", "BOGUS"});
  // An hour later by the virtual clock (seconds of wall time): every TTL above has passed.
  b.at(3'600'000, {"MGET", "e", "r", "p", "w", "tat", "clock"});
  b.now({"TTL", "h"});
  b.now({"TIME"});
}

void add_new_string_steps(CorpusBuilder& b) {
  // SETEX, PSETEX, GETEX, GETSET, GETDEL, STRLEN, APPEND, MSET, EXPIRETIME, PEXPIRETIME, UNLINK.
  const std::int64_t now_s = (kEpochUnixUs / kUsPerMs + b.t) / 1000;
  b.now({"HSET", "wt", "f", "v"});  // a key of the wrong type for the string commands
  b.now({"SETEX", "sx", "100", "v"});
  b.now({"TTL", "sx"});
  b.now({"SETEX", "sx", "0", "v"});
  b.now({"SETEX", "sx", "-5", "v"});
  b.now({"SETEX", "sx", "x", "v"});
  b.now({"SETEX", "sx", "10"});
  b.now({"SETEX", "h", "10", "v"});  // overwrites a hash, as SET does
  b.now({"TYPE", "h"});
  b.now({"PSETEX", "px", "1500", "v"});
  b.now({"PTTL", "px"});
  b.now({"PSETEX", "px", "0", "v"});
  b.now({"GETEX", "sx"});
  b.now({"GETEX", "sx", "PX", "5000"});
  b.now({"PTTL", "sx"});
  b.now({"GETEX", "sx", "EX", "20", "EX", "30"});
  b.now({"TTL", "sx"});
  b.now({"GETEX", "sx", "PERSIST"});
  b.now({"TTL", "sx"});
  b.now({"GETEX", "sx", "EXAT", std::to_string(now_s + 300)});
  b.now({"EXPIRETIME", "sx"});
  b.now({"PEXPIRETIME", "sx"});
  b.now({"TTL", "sx"});
  b.now({"GETEX", "sx", "PXAT", std::to_string(now_s * 1000 + 400'500)});
  b.now({"PEXPIRETIME", "sx"});
  b.now({"EXPIRETIME", "sx"});
  b.now({"GETEX", "sx", "EX", "0"});
  b.now({"GETEX", "sx", "EX", "10", "PX", "10"});
  b.now({"GETEX", "sx", "PERSIST", "EX", "10"});
  b.now({"GETEX", "sx", "EX"});
  b.now({"GETEX", "sx", "KEEPTTL"});
  b.now({"GETEX", "missing", "EX", "0"});  // nil: the key is looked up before the time is read
  b.now({"GETEX", "wt", "EX", "10"});
  b.now({"GETEX", "sx", "PXAT", "1000"});  // long past: deletes the key, after answering
  b.now({"EXISTS", "sx"});
  b.now({"GETSET", "gs", "1"});
  b.now({"GETSET", "gs", "2"});
  b.now({"GETSET", "wt", "2"});
  b.now({"GETDEL", "gs"});
  b.now({"GETDEL", "gs"});
  b.now({"GETDEL", "wt"});
  b.now({"APPEND", "ap", "ab"});
  b.now({"APPEND", "ap", "cd"});
  b.now({"STRLEN", "ap"});
  b.now({"STRLEN", "missing"});
  b.now({"STRLEN", "wt"});
  b.now({"APPEND", "wt", "x"});
  b.now({"MSET", "m1", "a", "m2", "b"});
  b.now({"MSET", "m1", "a", "m2"});
  b.now({"MSET", "m1"});
  b.now({"MGET", "m1", "m2"});
  b.now({"EXPIRETIME", "missing"});
  b.now({"PEXPIRETIME", "m1"});
  b.now({"EXPIRETIME", "m1", "m2"});
  b.now({"UNLINK", "m1", "m2", "missing"});
}

void add_hash_and_set_steps(CorpusBuilder& b) {
  // HKEYS, HVALS and SMEMBERS are compared sorted (canonical, below).
  b.now({"HSET", "hh", "b", "2", "a", "1", "c", "3"});
  b.now({"HKEYS", "hh"});
  b.now({"HVALS", "hh"});
  b.now({"HLEN", "hh"});
  b.now({"HEXISTS", "hh", "a"});
  b.now({"HEXISTS", "hh", "z"});
  b.now({"HKEYS", "missing"});
  b.now({"HVALS", "ap"});
  b.now({"HLEN", "ap"});
  b.now({"SADD", "st", "b", "a", "c", "a"});
  b.now({"SADD", "st", "d"});
  b.now({"SREM", "st", "a", "x"});
  b.now({"SMEMBERS", "st"});
  b.now({"SISMEMBER", "st", "b"});
  b.now({"SISMEMBER", "st", "a"});
  b.now({"SCARD", "st"});
  b.now({"SCARD", "missing"});
  b.now({"SMEMBERS", "missing"});
  b.now({"SADD", "ap", "x"});
  b.now({"SMEMBERS", "ap"});
  b.now({"SISMEMBER", "ap", "x"});
  b.now({"SREM", "st", "b", "c", "d"});
  b.now({"EXISTS", "st"});
  b.now({"SADD", "st", "30", "1", "200"});
  b.now({"SMEMBERS", "st"});
  b.now({"TYPE", "st"});
  b.now({"SADD", "st"});
  // The rest of the embedded Redis's commands, so that the corpus sends every one of them
  // (tests/test_conformance_corpus.cpp).
  b.now({"SETNX", "nx", "1"});
  b.now({"SETNX", "nx", "2"});
  b.now({"DECR", "nx"});
  b.now({"HSETNX", "hh", "a", "9"});
  b.now({"HSETNX", "hh", "n", "9"});
  b.now({"HGET", "hh", "n"});
  b.now({"HGET", "hh", "none"});
  b.now({"HINCRBYFLOAT", "hh", "a", "0.5"});
  b.now({"HDEL", "hh", "n", "none"});
  b.now({"ZINCRBY", "zi", "2", "m"});
  b.now({"ZINCRBY", "zi", "1.5", "m"});
  b.now({"ZREM", "zi", "m", "x"});
}

void add_list_steps(CorpusBuilder& b) {
  b.now({"RPUSH", "l", "a", "b", "c"});
  b.now({"LPUSH", "l", "z", "y"});
  b.now({"TYPE", "l"});
  b.now({"LRANGE", "l", "0", "-1"});
  b.now({"LRANGE", "l", "1", "2"});
  b.now({"LRANGE", "l", "-2", "-1"});
  b.now({"LRANGE", "l", "-100", "100"});
  b.now({"LRANGE", "l", "5", "10"});
  b.now({"LRANGE", "l", "3", "1"});
  b.now({"LRANGE", "l", "x", "1"});
  b.now({"LLEN", "l"});
  b.now({"LPOP", "l"});
  b.now({"RPOP", "l"});
  b.now({"LPOP", "l", "2"});
  b.now({"RPOP", "l", "0"});
  b.now({"LPOP", "l", "-1"});
  b.now({"LPOP", "l", "x"});
  b.now({"LPOP", "l", "1", "2"});
  b.now({"RPUSH", "l", "d", "e", "f"});
  b.now({"RPOP", "l", "2"});
  b.now({"LTRIM", "l", "1", "-1"});
  b.now({"LRANGE", "l", "0", "-1"});
  b.now({"LTRIM", "l", "5", "1"});
  b.now({"EXISTS", "l"});
  b.now({"LPOP", "missing"});
  b.now({"LPOP", "missing", "2"});
  b.now({"LPOP", "missing", "0"});
  b.now({"LTRIM", "missing", "0", "1"});
  b.now({"LTRIM", "ap", "x", "1"});
  b.now({"LLEN", "ap"});
  b.now({"LPUSH", "ap", "x"});
  b.now({"RPUSH", "l", "only"});
  b.now({"RPOP", "l", "5"});
  b.now({"EXISTS", "l"});
}

void add_zset_steps(CorpusBuilder& b) {
  b.now({"ZADD", "zz", "1", "a", "2", "b", "3", "c", "4", "d"});
  b.now({"ZREVRANGE", "zz", "0", "-1", "WITHSCORES"});
  b.now({"ZREVRANGE", "zz", "0", "1"});
  b.now({"ZREVRANGE", "zz", "-2", "-1"});
  b.now({"ZREVRANGE", "zz", "0", "1", "REV"});
  b.now({"ZREVRANGE", "zz", "0", "1", "BYSCORE"});
  b.now({"ZREVRANGE", "zz", "0", "1", "LIMIT", "0", "1"});
  b.now({"ZREVRANGE", "zz", "x", "1"});
  b.now({"ZREVRANGEBYSCORE", "zz", "+inf", "-inf"});
  b.now({"ZREVRANGEBYSCORE", "zz", "3", "(1", "WITHSCORES", "LIMIT", "0", "1"});
  b.now({"ZREVRANGEBYSCORE", "zz", "1", "3"});
  b.now({"ZREVRANGEBYSCORE", "zz", "x", "3"});
  b.now({"ZREVRANGEBYSCORE", "zz", "3", "1", "REV"});
  b.now({"ZREMRANGEBYRANK", "zz", "0", "0"});
  b.now({"ZREMRANGEBYRANK", "zz", "-1", "-1"});
  b.now({"ZREMRANGEBYRANK", "zz", "5", "9"});
  b.now({"ZREMRANGEBYRANK", "zz", "x", "1"});
  b.now({"ZREMRANGEBYRANK", "ap", "0", "1"});
  b.now({"ZRANGE", "zz", "0", "-1", "WITHSCORES"});
  b.now({"ZPOPMIN", "zz"});
  b.now({"ZPOPMIN", "zz", "0"});
  b.now({"ZPOPMIN", "zz", "-1"});
  b.now({"ZPOPMIN", "zz", "1", "2"});
  b.now({"ZPOPMIN", "zz", "5"});
  b.now({"EXISTS", "zz"});
  b.now({"ZPOPMIN", "missing"});
  b.now({"ZPOPMIN", "ap"});
  b.now({"ZADD", "zz", "2.5", "x", "1e20", "y"});
  b.now({"ZPOPMAX", "zz"});
  b.now({"ZSCORE", "zz", "x"});
  b.now({"ZCOUNT", "zz", "-inf", "+inf"});
}

void add_new_script_steps(CorpusBuilder& b) {
  // Each new command inside a script, and the TTL-bearing ones on the virtual clock.
  b.now(eval(kStringCommands, {"es1", "es2", "wt"}, {}));
  b.now(eval(kHashCommands, {"eh", "missing"}, {}));
  b.now(eval(kSetCommands, {"ess", "ap"}, {}));
  b.now(eval(kListCommands, {"el"}, {}));
  b.now(eval(kZSetCommands, {"ez"}, {}));
  const std::int64_t now_ms = kEpochUnixUs / kUsPerMs + b.t;
  b.now(eval(kTtlCommands, {"et1", "et2", "et3"},
             {"1500", "20", std::to_string(now_ms + 30'000), std::to_string(now_ms / 1000 + 40)}));
  b.now(eval(kTtlAlias, {"et4"}, {"2500"}));
  b.now(eval(kSetexRepro, {"repro"}, {"10"}));
  for (int i = 1; i < 10; ++i) b.at(b.t + 1'000, eval(kSetexRepro, {"repro"}, {"10"}));
  b.at(b.t + 10'000, eval(kSetexRepro, {"repro"}, {"10"}));  // the last SETEX has run out
  b.now({"GET", "et1"});
  b.at(b.t + 20'000, {"GET", "et1"});  // GETEX PXAT +30 s has passed
  b.now({"MGET", "et2", "et4"});
  b.at(b.t + 30'000, {"MGET", "et2", "et4"});
  b.now({"TIME"});
}

void add_library_steps(CorpusBuilder& b) {
  // HMSET, LINDEX, LREM, RENAME, RENAMENX as plain commands, with Redis's errors.
  b.now({"HMSET", "lh", "start", "1", "count", "1"});
  b.now({"HMSET", "lh", "count"});
  b.now({"HMSET", "lh"});
  b.now({"HMGET", "lh", "start", "count"});
  b.now({"RPUSH", "ll", "a", "b", "a", "c", "a"});
  b.now({"LINDEX", "ll", "0"});
  b.now({"LINDEX", "ll", "-1"});
  b.now({"LINDEX", "ll", "5"});
  b.now({"LINDEX", "ll", "x"});
  b.now({"LINDEX", "missing", "x"});
  b.now({"LINDEX", "lh", "0"});
  b.now({"LREM", "ll", "-1", "a"});
  b.now({"LREM", "ll", "1", "a"});
  b.now({"LRANGE", "ll", "0", "-1"});
  b.now({"LREM", "ll", "x", "a"});
  b.now({"LREM", "missing", "0", "a"});
  b.now({"LREM", "lh", "0", "a"});
  b.now({"LREM", "ll", "0", "b"});
  b.now({"LREM", "ll", "0", "a"});
  b.now({"LREM", "ll", "0", "c"});
  b.now({"EXISTS", "ll"});
  b.now({"SET", "rn", "v", "PX", "3000"});
  b.now({"RENAME", "rn", "rn2"});
  b.now({"PTTL", "rn2"});
  b.now({"GET", "rn"});
  b.now({"RENAME", "rn", "rn3"});
  b.now({"RENAME", "rn", "rn"});
  b.now({"RENAME", "rn2", "rn2"});
  b.now({"RENAMENX", "rn2", "lh"});
  b.now({"RENAMENX", "rn2", "rn4"});
  b.now({"RENAME", "rn4", "lh"});  // overwrites the hash
  b.now({"TYPE", "lh"});
  b.now({"RENAME", "rn4"});
  b.at(b.t + 3'000, {"GET", "lh"});  // rn's TTL moved along to lh: alive through its last ms
  b.at(b.t + 1, {"GET", "lh"});
  // The libraries, and the new commands inside a script.
  b.now(eval(kLibraryCommands, {"sh", "sl", "sr", "sr2"}, {"1000"}));
  b.now(eval(kCjson, {}, {R"({"limit": 5, "window": 10000, "tags": ["a", "b"]})"}));
  b.now(eval(kBit, {}, {}));
  b.now(eval(kCmsgpack, {}, {"4.5", "1700000000123"}));
  b.now(eval(kCjsonPcall, {}, {R"({"n": 41})"}));
  b.now(eval(kCjsonPcall, {}, {"not json"}));
  b.now(eval(kStruct, {"st"}, {"7", "1700000000123"}));
  // The expiry boundary: Redis keeps a key through the millisecond it expires in (db.c
  // keyIsExpired: now > when), and deletes at once a key given an expiry at the current one.
  b.now({"SET", "eb", "v", "PX", "10"});
  b.at(b.t + 10, {"GET", "eb"});
  b.now({"PTTL", "eb"});
  b.now({"TTL", "eb"});
  b.at(b.t + 1, {"GET", "eb"});
  b.now({"SET", "eb", "v", "EX", "1"});
  b.at(b.t + 1'000,
       eval("return {redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1])}", {"eb"}, {}));
  b.at(b.t + 1, eval("return redis.call('GET', KEYS[1])", {"eb"}, {}));
  b.now({"SET", "eb", "v"});
  b.now({"PEXPIRE", "eb", "0"});
  b.now({"EXISTS", "eb"});
  // SET does not check its expiry: one at the current millisecond lives through it.
  const std::string now_ms = std::to_string(kEpochUnixUs / kUsPerMs + b.t);
  b.now({"SET", "eb", "v", "PXAT", now_ms});
  b.now({"GET", "eb"});
  b.now(eval("redis.call('SET', KEYS[1], 'w', 'PXAT', ARGV[1]) return redis.call('GET', KEYS[1])",
             {"eb2"}, {now_ms}));
  b.now({"GETEX", "eb", "PXAT", now_ms});
  b.now({"EXISTS", "eb"});
  b.at(b.t + 1, {"MGET", "eb", "eb2"});
  b.now({"TIME"});
}

}  // namespace

const std::vector<ConformanceStep>& conformance_corpus() {
  static const std::vector<ConformanceStep> corpus = [] {
    CorpusBuilder b;
    add_string_steps(b);
    add_ttl_steps(b);
    add_script_steps(b);
    add_new_string_steps(b);
    add_hash_and_set_steps(b);
    add_list_steps(b);
    add_zset_steps(b);
    add_new_script_steps(b);
    add_library_steps(b);
    return std::move(b.steps);
  }();
  return corpus;
}

namespace {}  // namespace

// Replies whose order Redis leaves to its encoding (hash-table order for a set of strings or a
// large hash, insertion order for a small hash) are compared sorted: the embedded Redis sorts
// them, so the comparison checks the same elements, not the same order (docs/redis-mock.md).
Reply canonical_reply(const Command& command, Reply reply) {
  const std::string name = command.empty() ? "" : lower_ascii(command[0]);
  if (reply.type == Reply::Type::kArray &&
      (name == "smembers" || name == "hkeys" || name == "hvals")) {
    std::sort(reply.elements.begin(), reply.elements.end(),
              [](const Reply& a, const Reply& b) { return a.text < b.text; });
  }
  return reply;
}

namespace {

// Part 1: the corpus on both stores. Returns the number of differences.
std::size_t compare_corpus(RealStore& real, bool verbose) {
  MockStore mock;
  std::size_t differences = 0;
  const auto& corpus = conformance_corpus();
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    const ConformanceStep& step = corpus[i];
    const TimeUs now_us = kEpochUnixUs + step.at_ms * kUsPerMs;
    // On a cluster every key shares one hash tag, so multi-key steps stay in one slot.
    const Command command =
        real.wire().sharded() ? with_hash_tag(step.command, "conformance") : step.command;
    const Reply m = canonical_reply(command, mock.run(command, now_us));
    const Reply r = canonical_reply(command, real.run(command, now_us));
    const bool same = m == r;
    if (!same) ++differences;
    if (!same || verbose) {
      std::cout << fmt::format("  {} #{} at +{} ms: {}\n", same ? "same" : "DIFFERENT", i + 1,
                               step.at_ms, brief(command));
      std::cout << fmt::format("      mock: {}\n", to_display(m));
      if (!same) std::cout << fmt::format("      real: {}\n", to_display(r));
    }
  }
  std::cout << fmt::format("replies: {} commands, {} differences\n", corpus.size(), differences);
  return differences;
}

// Runs the strategy again on both backends recording every decision, and names the first request
// decided differently ("" when the decision streams agree, e.g. only a report field differs).
std::string first_different_request(const Scenario& mock_scenario, const Scenario& real_scenario,
                                    const ResolvedStrategy& strategy) {
  std::vector<DecisionRecord> mock, real;
  run_strategy(mock_scenario, strategy, mock_scenario.seed, &mock);
  run_strategy(real_scenario, strategy, real_scenario.seed, &real);
  const auto describe = [](const DecisionRecord& d) {
    return fmt::format("request {} decided at {:.6f} s: {}{}", d.request_id, to_seconds(d.time_us),
                       d.allowed ? "allowed" : "denied", d.error ? " (Redis error)" : "");
  };
  const std::size_t common = std::min(mock.size(), real.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (mock[i] == real[i]) continue;
    return fmt::format("; decision #{} first differs: embedded {}, real {}", i + 1,
                       describe(mock[i]), describe(real[i]));
  }
  if (mock.size() != real.size())
    return fmt::format("; embedded made {} decisions, real {}", mock.size(), real.size());
  return "";
}

// Part 2: every strategy of every scenario on both backends. Returns the number of differences.
std::size_t compare_scenarios(const ConformanceOptions& options, int embedded_nodes) {
  std::size_t differences = 0;
  for (const std::string& path : options.scenario_paths) {
    Scenario scenario = load_scenario(path);
    if (options.max_duration_us > 0 && scenario.duration_us > options.max_duration_us)
      scenario.duration_us = options.max_duration_us;
    scenario.redis.url.clear();
    if (!options.redis_cluster.empty()) {
      // Against a real cluster: the embedded cluster with the same slot map (0: one server).
      scenario.redis.cluster_nodes = embedded_nodes;
      scenario.redis.cluster_slots.clear();
    } else if (scenario.redis.cluster_nodes > 0) {  // one real server cannot stand in for a cluster
      std::cout << fmt::format("  skipped {}: an embedded Redis Cluster (docs/cluster.md)\n", path);
      continue;
    }
    // A failover needs a replica rlsim drives, which a real server is not (docs/faults.md).
    if (std::any_of(scenario.faults.begin(), scenario.faults.end(), [](const FaultSpec& fault) {
          return fault.type == FaultType::kRedisFailover;
        })) {
      std::cout << fmt::format("  skipped {}: redis_failover is embedded-only (docs/faults.md)\n",
                               path);
      continue;
    }
    const auto strategies = resolve_strategies(scenario, path);
    Scenario real_scenario = scenario;
    real_scenario.redis.url = options.redis_url;
    real_scenario.redis.cluster_url = options.redis_cluster;
    for (const ResolvedStrategy& strategy : strategies) {
      const auto started = std::chrono::steady_clock::now();
      const StrategyResult mock = run_strategy(scenario, strategy, scenario.seed);
      StrategyResult real = run_strategy(real_scenario, strategy, scenario.seed);
      const double wall_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      const auto backend = real.backend;
      real.backend.reset();  // the one field that must differ
      std::string divergence = first_divergence(scenario, mock, real);
      if (divergence.empty() && backend && !backend->failure.empty())
        divergence = "the real backend failed: " + backend->failure;
      if (!divergence.empty()) {
        ++differences;
        divergence += first_different_request(scenario, real_scenario, strategy);
      }
      std::cout << fmt::format(
          "  {} {} {}: {} decisions, digest {:016x} {}{}\n",
          divergence.empty() ? "same" : "DIFFERENT", path, strategy.label, mock.totals.offered,
          mock.decision_digest,
          divergence.empty() ? "" : fmt::format("(real {:016x}) ", real.decision_digest),
          divergence.empty() ? fmt::format("({:.1f} s)", wall_s)
                             : fmt::format("- run 1 = embedded, run 2 = real: {}", divergence));
    }
  }
  return differences;
}

}  // namespace

int command_conformance(const ConformanceOptions& options) {
  if (options.redis_url.empty() == options.redis_cluster.empty()) {
    std::cerr << "rlsim: conformance needs --redis URL or --redis-cluster host:port[,...]\n";
    return exit_code::kBadInput;
  }
  allow_scenario_redis(true);  // the server is the command line's: every scenario runs on it
  std::size_t differences = 0;
  int embedded_nodes = 0;
  {
    std::unique_ptr<RealStore> real;
    try {
      RedisSpec target;
      target.url = options.redis_url;
      target.cluster_url = options.redis_cluster;
      real = make_real_store(target);
    } catch (const RunError& e) {
      std::cerr << "rlsim: " << e.what() << "\n";
      return exit_code_of(e);
    }
    std::cout << fmt::format("conformance against {}\n", real->wire().describe());
    differences += compare_corpus(*real, options.verbose);
    if (!options.redis_cluster.empty()) {
      embedded_nodes = embedded_cluster_nodes(*real);
      std::cout << (embedded_nodes > 0
                        ? fmt::format(
                              "embedded side: a cluster of {} nodes with the same slot map\n",
                              embedded_nodes)
                        : std::string("embedded side: one server (the cluster's slot map is not "
                                      "the even split the embedded cluster uses)\n"));
    }
    if (!real->backend_failure().empty()) {
      std::cout << "the real backend failed: " << real->backend_failure() << "\n";
      ++differences;
    }
  }
  if (!options.scenario_paths.empty()) {
    std::cout << fmt::format("scenarios: {} file(s){}\n", options.scenario_paths.size(),
                             options.max_duration_us > 0
                                 ? fmt::format(", each cut to {:.0f} s of virtual time",
                                               to_seconds(options.max_duration_us))
                                 : "");
    const std::size_t before = differences;
    differences += compare_scenarios(options, embedded_nodes);
    std::cout << fmt::format("scenarios: {} differences\n", differences - before);
  }
  std::cout << (differences == 0
                    ? "conformance: ok\n"
                    : fmt::format("conformance: FAILED, {} differences\n", differences));
  return differences == 0 ? exit_code::kOk : exit_code::kCheckFailed;
}

}  // namespace rlsim
