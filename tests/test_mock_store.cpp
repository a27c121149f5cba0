#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "redis/mock_store.h"

namespace rlsim_test_mock_store {

using namespace rlsim;

namespace {
constexpr TimeUs kT0 = kEpochUnixUs;
std::string show(MockStore& store, Command command, TimeUs at_us = kT0) {
  return to_display(store.run(command, at_us));
}
std::string fmt_integer(std::int64_t value) { return "(integer) " + std::to_string(value); }
}  // namespace

TEST_CASE("INCR, INCRBY, DECR, DECRBY count atomically from a missing key") {
  MockStore store;
  CHECK(show(store, {"INCR", "k"}) == "(integer) 1");
  CHECK(show(store, {"incr", "k"}) == "(integer) 2");
  CHECK(show(store, {"INCRBY", "k", "10"}) == "(integer) 12");
  CHECK(show(store, {"DECRBY", "k", "5"}) == "(integer) 7");
  CHECK(show(store, {"DECR", "k"}) == "(integer) 6");
  CHECK(show(store, {"GET", "k"}) == "\"6\"");
  CHECK(show(store, {"DECRBY", "fresh", "3"}) == "(integer) -3");
}

TEST_CASE("integer errors are Redis's") {
  MockStore store;
  store.run({"SET", "s", "hello"}, kT0);
  CHECK(show(store, {"INCR", "s"}) == "(error) ERR value is not an integer or out of range");
  store.run({"SET", "lead", "012"}, kT0);
  CHECK(show(store, {"INCR", "lead"}) == "(error) ERR value is not an integer or out of range");
  CHECK(show(store, {"INCRBY", "k", "x"}) == "(error) ERR value is not an integer or out of range");
  store.run({"SET", "max", "9223372036854775807"}, kT0);
  CHECK(show(store, {"INCR", "max"}) == "(error) ERR increment or decrement would overflow");
  CHECK(show(store, {"GET", "max"}) == "\"9223372036854775807\"");
  store.run({"SET", "min", "-9223372036854775808"}, kT0);
  CHECK(show(store, {"DECR", "min"}) == "(error) ERR increment or decrement would overflow");
}

TEST_CASE("WRONGTYPE against a hash, arity and unknown commands") {
  MockStore store;
  CHECK(show(store, {"HSET", "h", "f", "1"}) == "(integer) 1");
  CHECK(show(store, {"INCR", "h"}) ==
        "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
  CHECK(show(store, {"GET", "h"}) ==
        "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
  CHECK(show(store, {"HGET", "h", "f"}) == "\"1\"");
  CHECK(show(store, {"MGET", "h", "none"}) == "[(nil), (nil)]");
  CHECK(show(store, {"INCR"}) == "(error) ERR wrong number of arguments for 'incr' command");
  CHECK(show(store, {"GET", "a", "b"}) ==
        "(error) ERR wrong number of arguments for 'get' command");
  CHECK(show(store, {"NOPE", "x"}).rfind("(error) ERR unknown command 'NOPE'", 0) == 0);
  CHECK(show(store, {"TYPE", "h"}) == "hash");
  CHECK(show(store, {"TYPE", "none"}) == "none");
}

TEST_CASE("EXPIRE and PEXPIRE follow the server clock") {
  MockStore store;
  store.run({"INCR", "k"}, kT0);
  CHECK(show(store, {"TTL", "k"}) == "(integer) -1");
  CHECK(show(store, {"TTL", "missing"}) == "(integer) -2");
  CHECK(show(store, {"EXPIRE", "k", "120"}) == "(integer) 1");
  CHECK(show(store, {"TTL", "k"}, kT0 + 30 * kUsPerS) == "(integer) 90");
  CHECK(show(store, {"PTTL", "k"}, kT0 + 30 * kUsPerS) == "(integer) 90000");
  // Redis keeps a key through the millisecond it expires in.
  CHECK(show(store, {"GET", "k"}, kT0 + 120 * kUsPerS + 999) == "\"1\"");
  CHECK(show(store, {"GET", "k"}, kT0 + 120 * kUsPerS + kUsPerMs) == "(nil)");
  CHECK(show(store, {"EXPIRE", "missing", "10"}, kT0 + 121 * kUsPerS) == "(integer) 0");
  store.run({"SET", "p", "v"}, kT0 + 200 * kUsPerS);
  CHECK(show(store, {"PEXPIRE", "p", "1500"}, kT0 + 200 * kUsPerS) == "(integer) 1");
  CHECK(show(store, {"PTTL", "p"}, kT0 + 200 * kUsPerS + 500 * kUsPerMs) == "(integer) 1000");
  CHECK(show(store, {"EXPIRE", "p", "-1"}, kT0 + 201 * kUsPerS) == "(integer) 1");
  CHECK(show(store, {"EXISTS", "p"}, kT0 + 201 * kUsPerS) == "(integer) 0");
  CHECK(show(store, {"EXPIRE", "p", "abc"}, kT0 + 201 * kUsPerS) ==
        "(error) ERR value is not an integer or out of range");
}

TEST_CASE("EXPIRE NX, XX, GT and LT options") {
  MockStore store;
  store.run({"SET", "k", "v"}, kT0);
  CHECK(show(store, {"EXPIRE", "k", "10", "XX"}) == "(integer) 0");
  CHECK(show(store, {"EXPIRE", "k", "10", "NX"}) == "(integer) 1");
  CHECK(show(store, {"EXPIRE", "k", "20", "NX"}) == "(integer) 0");
  CHECK(show(store, {"EXPIRE", "k", "5", "GT"}) == "(integer) 0");
  CHECK(show(store, {"EXPIRE", "k", "30", "GT"}) == "(integer) 1");
  CHECK(show(store, {"EXPIRE", "k", "40", "LT"}) == "(integer) 0");
  CHECK(show(store, {"EXPIRE", "k", "3", "LT"}) == "(integer) 1");
  CHECK(show(store, {"TTL", "k"}) == "(integer) 3");
}

TEST_CASE("expired keys are reclaimed without being touched") {
  MockStore store;
  for (int i = 0; i < 1000; ++i) {
    const std::string key = "rl:user:" + std::to_string(i);
    store.run({"INCR", key}, kT0);
    store.run({"EXPIRE", key, "60"}, kT0);
  }
  CHECK(store.key_count() == 1000);
  store.run({"INCR", "later"}, kT0 + 61 * kUsPerS);
  CHECK(store.key_count() == 1);
}

TEST_CASE("a TTL extended later is honoured by active expiry") {
  MockStore store;
  store.run({"SET", "k", "v", "EX", "10"}, kT0);
  store.run({"EXPIRE", "k", "100"}, kT0 + 5 * kUsPerS);
  store.run({"PING"}, kT0 + 11 * kUsPerS);
  CHECK(store.key_count() == 1);
  CHECK(show(store, {"GET", "k"}, kT0 + 105 * kUsPerS) == "\"v\"");
  CHECK(show(store, {"GET", "k"}, kT0 + 105 * kUsPerS + kUsPerMs) == "(nil)");
}

TEST_CASE("SET options, DEL, MGET and TIME") {
  MockStore store;
  CHECK(show(store, {"SET", "a", "1", "NX"}) == "OK");
  CHECK(show(store, {"SET", "a", "2", "NX"}) == "(nil)");
  CHECK(show(store, {"SET", "b", "2", "XX"}) == "(nil)");
  CHECK(show(store, {"SET", "a", "3", "XX", "GET"}) == "\"1\"");
  CHECK(show(store, {"SET", "a", "3", "EX", "0"}) ==
        "(error) ERR invalid expire time in 'set' command");
  CHECK(show(store, {"SET", "a", "3", "BOGUS"}) == "(error) ERR syntax error");
  CHECK(show(store, {"SET", "t", "x", "PX", "100"}) == "OK");
  CHECK(show(store, {"PTTL", "t"}) == "(integer) 100");
  CHECK(show(store, {"MGET", "a", "nope", "t"}) == "[\"3\", (nil), \"x\"]");
  CHECK(show(store, {"DEL", "a", "nope", "t"}) == "(integer) 2");
  CHECK(show(store, {"TIME"}, kT0 + 1'500'000) == "[\"1750032001\", \"500000\"]");
}

TEST_CASE("PSETEX is SET with PX, and its errors name psetex") {
  MockStore store;
  CHECK(show(store, {"PSETEX", "p", "250", "v"}) == "OK");
  CHECK(show(store, {"GET", "p"}) == "\"v\"");
  CHECK(show(store, {"PTTL", "p"}) == "(integer) 250");
  CHECK(show(store, {"PSETEX", "p", "0", "v"}) ==
        "(error) ERR invalid expire time in 'psetex' command");
  CHECK(show(store, {"PSETEX", "p", "x", "v"}) ==
        "(error) ERR value is not an integer or out of range");
  CHECK(show(store, {"GET", "p"}, kT0 + 250'000) == "\"v\"");  // through its last millisecond
  CHECK(show(store, {"GET", "p"}, kT0 + 251'000) == "(nil)");
}

TEST_CASE("rewriting a key's TTL keeps the expiry heap bounded by live keys") {
  MockStore store;
  // One key rewritten with SET EX a million times: the heap must not grow with requests.
  for (int i = 0; i < 100000; ++i) {
    store.run({"SET", "k", "v", "EX", "60"}, kT0 + i);
    store.run({"PEXPIRE", "k", std::to_string(1000 + i % 7)}, kT0 + i);  // shortens the TTL
  }
  CHECK(store.key_count() == 1);
  CHECK(store.expiry_heap_size() <= 2 * store.key_count() + 64);
  // Deleted keys leave stale entries, which are bounded too.
  for (int i = 0; i < 10000; ++i) {
    const std::string key = "d" + std::to_string(i);
    store.run({"SET", key, "v", "PX", "100000"}, kT0 + 200000);
    store.run({"DEL", key}, kT0 + 200000);
  }
  CHECK(store.expiry_heap_size() <= 2 * store.key_count() + 64);
  CHECK(show(store, {"GET", "k"}, kT0 + 200000) == "\"v\"");
}

TEST_CASE("sorted sets: ZADD options, ranges and exclusive bounds") {
  MockStore store;
  CHECK(show(store, {"ZADD", "z", "1", "a", "2", "b", "3", "c"}) == "(integer) 3");
  CHECK(show(store, {"ZADD", "z", "NX", "9", "a", "4", "d"}) == "(integer) 1");
  CHECK(show(store, {"ZADD", "z", "XX", "CH", "1.5", "a", "9", "e"}) == "(integer) 1");
  CHECK(show(store, {"ZADD", "z", "GT", "1", "b"}) == "(integer) 0");
  CHECK(show(store, {"ZADD", "z", "INCR", "0.25", "a"}) == "\"1.75\"");
  CHECK(show(store, {"ZSCORE", "z", "a"}) == "\"1.75\"");
  CHECK(show(store, {"ZADD", "z", "0.1", "t"}) == "(integer) 1");
  CHECK(show(store, {"ZSCORE", "z", "t"}) == "\"0.10000000000000001\"");  // %.17g as Redis 7.0
  CHECK(show(store, {"ZADD", "z", "NX", "XX", "1", "a"}) ==
        "(error) ERR XX and NX options at the same time are not compatible");
  CHECK(show(store, {"ZADD", "z", "x", "a"}) == "(error) ERR value is not a valid float");
  CHECK(show(store, {"ZCARD", "z"}) == "(integer) 5");
  CHECK(show(store, {"ZRANGEBYSCORE", "z", "(1.75", "+inf"}) == "[\"b\", \"c\", \"d\"]");
  CHECK(show(store, {"ZRANGEBYSCORE", "z", "-inf", "(2", "WITHSCORES", "LIMIT", "1", "5"}) ==
        "[\"a\", \"1.75\"]");
  CHECK(show(store, {"ZRANGE", "z", "0", "1"}) == "[\"t\", \"a\"]");
  CHECK(show(store, {"ZRANGE", "z", "0", "0", "REV", "WITHSCORES"}) == "[\"d\", \"4\"]");
  CHECK(show(store, {"ZRANGEBYSCORE", "z", "x", "1"}) == "(error) ERR min or max is not a float");
  CHECK(show(store, {"ZREMRANGEBYSCORE", "z", "-inf", "(2"}) == "(integer) 2");
  CHECK(show(store, {"ZREM", "z", "b", "nobody"}) == "(integer) 1");
  CHECK(show(store, {"TYPE", "z"}) == "zset");
  CHECK(show(store, {"ZREMRANGEBYSCORE", "z", "-inf", "+inf"}) == "(integer) 2");
  CHECK(show(store, {"EXISTS", "z"}) == "(integer) 0");  // an emptied set is deleted
  store.run({"SET", "s", "v"}, kT0);
  CHECK(show(store, {"ZADD", "s", "1", "a"}) ==
        "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
}

TEST_CASE("scores and bounds parse as Redis's strtod-based parsers") {
  MockStore store;
  // Plain decimals (the fast path) and what only strtod reads (the fallback) give one order.
  CHECK(show(store, {"ZADD", "z", "1700000000123456", "a", "-0.5", "b", "2e-3", "c"}) ==
        "(integer) 3");
  CHECK(show(store, {"ZADD", "z", " 1", "d"}) == "(error) ERR value is not a valid float");
  CHECK(show(store, {"ZADD", "z", "1e-400", "d"}) == "(error) ERR value is not a valid float");
  CHECK(show(store, {"ZADD", "z", "1e400", "d"}) == "(error) ERR value is not a valid float");
  CHECK(show(store, {"ZADD", "z", "0x10", "d", "+inf", "e", "0", "f"}) == "(integer) 3");
  CHECK(show(store, {"ZRANGEBYSCORE", "z", "-1", "(0.002"}) == "[\"b\", \"f\"]");
  CHECK(show(store, {"ZRANGEBYSCORE", "z", "(0", "16"}) == "[\"c\", \"d\"]");
  CHECK(show(store, {"ZRANGEBYSCORE", "z", "1e15", "inf"}) == "[\"a\", \"e\"]");
  CHECK(show(store, {"ZREMRANGEBYSCORE", "z", "0", "1700000000123455.5"}) == "(integer) 3");
  CHECK(show(store, {"ZCARD", "z"}) == "(integer) 3");
}

TEST_CASE("hash increments, SETNX, INCRBYFLOAT, UNLINK and absolute expiry") {
  MockStore store;
  CHECK(show(store, {"HINCRBY", "h", "n", "5"}) == "(integer) 5");
  CHECK(show(store, {"HINCRBY", "h", "n", "-7"}) == "(integer) -2");
  CHECK(show(store, {"HINCRBYFLOAT", "h", "f", "1.5"}) == "\"1.5\"");
  CHECK(show(store, {"HINCRBYFLOAT", "h", "f", "0.1"}) == "\"1.6\"");
  CHECK(show(store, {"HINCRBYFLOAT", "h", "f", "inf"}) == "(error) ERR value is NaN or Infinity");
  CHECK(show(store, {"HSET", "h", "w", "abc"}) == "(integer) 1");
  CHECK(show(store, {"HINCRBY", "h", "w", "1"}) == "(error) ERR hash value is not an integer");
  CHECK(show(store, {"HSETNX", "h", "n", "0"}) == "(integer) 0");
  CHECK(show(store, {"HSETNX", "h", "m", "0"}) == "(integer) 1");
  CHECK(show(store, {"SETNX", "s", "1"}) == "(integer) 1");
  CHECK(show(store, {"SETNX", "s", "2"}) == "(integer) 0");
  CHECK(show(store, {"INCRBYFLOAT", "s", "0.5"}) == "\"1.5\"");
  // Redis adds in an x87 long double (64-bit mantissa): near 1e20 its step is 8, so 1.5 is lost.
  CHECK(show(store, {"INCRBYFLOAT", "s", "1e20"}) == "\"100000000000000000000\"");
  CHECK(show(store, {"INCRBYFLOAT", "h", "1"}) ==
        "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
  CHECK(show(store, {"UNLINK", "s", "h", "none"}) == "(integer) 2");
  store.run({"SET", "t", "v"}, kT0);
  // EXPIREAT / PEXPIREAT take Unix times; kT0 is 1750032000 s.
  CHECK(show(store, {"EXPIREAT", "t", "1750032010"}) == "(integer) 1");
  CHECK(show(store, {"TTL", "t"}) == "(integer) 10");
  CHECK(show(store, {"PEXPIREAT", "t", "1750032005000", "LT"}) == "(integer) 1");
  CHECK(show(store, {"GET", "t"}, kT0 + 5 * kUsPerS + 999) == "\"v\"");
  CHECK(show(store, {"GET", "t"}, kT0 + 5 * kUsPerS + kUsPerMs) == "(nil)");
  const TimeUs later = kT0 + 5 * kUsPerS + kUsPerMs;
  store.run({"SET", "u", "v", "PXAT", "1750032006000"}, later);
  CHECK(show(store, {"PTTL", "u"}, later) == "(integer) 999");
  CHECK(show(store, {"EXPIREAT", "u", "100"}, later) == "(integer) 1");  // in the past: deleted
  CHECK(show(store, {"EXISTS", "u"}, later) == "(integer) 0");
}

TEST_CASE("a full store refuses commands that may add data with Redis's OOM error") {
  MockStore store({}, 2);  // room for two keys
  const std::string oom = "(error) OOM command not allowed when used memory > 'maxmemory'.";
  CHECK(show(store, {"SET", "a", "1"}) == "OK");
  CHECK(show(store, {"INCR", "b"}) == "(integer) 1");
  // Full: every denyoom command is refused, even on an existing key (as Redis does), reads are not.
  CHECK(show(store, {"SET", "c", "1"}) == oom);
  CHECK(show(store, {"INCR", "b"}) == oom);
  CHECK(show(store, {"ZADD", "z", "1", "m"}) == oom);
  CHECK(show(store, {"HSET", "h", "f", "v"}) == oom);
  CHECK(show(store, {"EVAL", "return 1", "0"}) == oom);
  // Sets and lists count as keys and their adding commands are denyoom too, as in Redis.
  for (const Command& command : std::vector<Command>{{"SADD", "s", "m"},
                                                     {"LPUSH", "l", "e"},
                                                     {"RPUSH", "l", "e"},
                                                     {"SETEX", "x", "10", "v"},
                                                     {"PSETEX", "x", "10", "v"},
                                                     {"GETSET", "a", "2"},
                                                     {"APPEND", "a", "2"},
                                                     {"MSET", "x", "1"}}) {
    INFO(command[0]);
    CHECK(show(store, command) == oom);
  }
  CHECK(show(store, {"GET", "b"}) == "\"1\"");
  CHECK(show(store, {"EXPIRE", "a", "10"}) == "(integer) 1");
  // Freeing a key makes room again.
  CHECK(show(store, {"DEL", "a"}) == "(integer) 1");
  CHECK(show(store, {"SET", "c", "1"}) == "OK");
  CHECK(store.key_count() == 2);
}

TEST_CASE("[.bench] native INCR + PEXPIRE pipeline", "[.bench]") {
  MockStore store;
  std::vector<Command> commands = {{"INCR", ""}, {"PEXPIRE", "", "60000", "NX"}};
  std::vector<Reply> replies;
  constexpr int kCalls = 1'000'000;
  // CPU time, not wall time: the benchmark machine is shared, and waiting for a core is not cost.
  const std::clock_t start = std::clock();
  for (int i = 0; i < kCalls; ++i) {
    commands[0][1] = "rl:user:" + std::to_string(i % 1000);
    commands[1][1] = commands[0][1];
    replies.clear();
    store.execute(commands, kT0 + i, replies);
  }
  const double s = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  std::printf("INCR + PEXPIRE NX pipeline: %.0f ns per round trip\n", s * 1e9 / kCalls);
  CHECK(replies.size() == 2);
}

TEST_CASE("lose_data: keys, TTLs and loaded scripts are gone, as after a restart") {
  MockStore store;
  CHECK(show(store, {"INCR", "a"}) == "(integer) 1");
  CHECK(show(store, {"SET", "b", "x", "PX", "1000"}) == "OK");
  const Reply sha = store.run({"SCRIPT", "LOAD", "return 7"}, kT0);
  REQUIRE(store.run({"EVALSHA", sha.text, "0"}, kT0) == Reply::from_integer(7));
  store.lose_data();
  CHECK(store.key_count() == 0);
  CHECK(show(store, {"GET", "a"}) == "(nil)");
  CHECK(store.run({"EVALSHA", sha.text, "0"}, kT0).text.starts_with("NOSCRIPT"));
  // The store works as before: a counter starts again from zero.
  CHECK(show(store, {"INCR", "a"}) == "(integer) 1");
}

TEST_CASE("SETEX, PSETEX, GETEX, EXPIRETIME and PEXPIRETIME on the virtual clock") {
  MockStore store;
  const TimeUs t0 = kT0 + 250 * kUsPerMs;  // not on a whole second
  CHECK(show(store, {"SETEX", "k", "10", "v"}, t0) == "OK");
  CHECK(show(store, {"PEXPIRETIME", "k"}, t0) == fmt_integer((t0 + 10 * kUsPerS) / kUsPerMs));
  // EXPIRETIME rounds to the nearest second, as Redis's ttlGenericCommand.
  CHECK(show(store, {"EXPIRETIME", "k"}, t0) == fmt_integer((t0 + 10 * kUsPerS) / kUsPerS));
  CHECK(show(store, {"GET", "k"}, t0 + 10 * kUsPerS + 999) == "\"v\"");
  CHECK(show(store, {"GET", "k"}, t0 + 10 * kUsPerS + kUsPerMs) == "(nil)");
  const TimeUs t1 = t0 + 10 * kUsPerS + kUsPerMs;  // time only moves forward
  CHECK(show(store, {"SETEX", "k", "0", "v"}, t1) ==
        "(error) ERR invalid expire time in 'setex' command");
  CHECK(show(store, {"PSETEX", "k", "-1", "v"}, t1) ==
        "(error) ERR invalid expire time in 'psetex' command");
  CHECK(show(store, {"PSETEX", "k", "1500", "v"}, t1) == "OK");
  CHECK(show(store, {"PTTL", "k"}, t1) == "(integer) 1500");
  CHECK(show(store, {"GETEX", "k", "EX", "60"}, t1) == "\"v\"");
  CHECK(show(store, {"TTL", "k"}, t1) == "(integer) 60");
  CHECK(show(store, {"GETEX", "k", "PERSIST"}, t1) == "\"v\"");
  CHECK(show(store, {"TTL", "k"}, t1) == "(integer) -1");
  CHECK(show(store, {"EXPIRETIME", "k"}, t1) == "(integer) -1");
  CHECK(show(store, {"EXPIRETIME", "missing"}, t1) == "(integer) -2");
  CHECK(show(store, {"GETEX", "k", "EX", "0"}, t1) ==
        "(error) ERR invalid expire time in 'getex' command");
  CHECK(show(store, {"GETEX", "missing", "EX", "0"}, t1) == "(nil)");  // the key first
  CHECK(show(store, {"GETEX", "k", "PERSIST", "EX", "1"}, t1) == "(error) ERR syntax error");
  CHECK(show(store, {"GETEX", "k", "PXAT", "1"}, t1) == "\"v\"");  // in the past: deleted
  CHECK(show(store, {"EXISTS", "k"}, t1) == "(integer) 0");
}

TEST_CASE("GETSET, GETDEL, STRLEN, APPEND and MSET") {
  MockStore store;
  store.run({"SET", "k", "ab", "EX", "100"}, kT0);
  CHECK(show(store, {"APPEND", "k", "cd"}) == "(integer) 4");
  CHECK(show(store, {"TTL", "k"}) == "(integer) 100");  // APPEND keeps the TTL
  CHECK(show(store, {"STRLEN", "k"}) == "(integer) 4");
  CHECK(show(store, {"GETSET", "k", "z"}) == "\"abcd\"");
  CHECK(show(store, {"TTL", "k"}) == "(integer) -1");  // GETSET does not
  CHECK(show(store, {"GETDEL", "k"}) == "\"z\"");
  CHECK(show(store, {"GETDEL", "k"}) == "(nil)");
  CHECK(show(store, {"MSET", "a", "1", "b", "2"}) == "OK");
  CHECK(show(store, {"MSET", "a", "1", "b"}) ==
        "(error) ERR wrong number of arguments for 'mset' command");
  CHECK(show(store, {"MGET", "a", "b"}) == "[\"1\", \"2\"]");
  store.run({"HSET", "h", "f", "v"}, kT0);
  const std::string wrong =
      "(error) WRONGTYPE Operation against a key holding the wrong kind of value";
  for (const Command& command : std::vector<Command>{{"GETSET", "h", "x"},
                                                     {"GETDEL", "h"},
                                                     {"STRLEN", "h"},
                                                     {"APPEND", "h", "x"},
                                                     {"GETEX", "h"},
                                                     {"SADD", "h", "x"},
                                                     {"LPUSH", "h", "x"},
                                                     {"ZPOPMIN", "h"}}) {
    INFO(command[0]);
    CHECK(show(store, command) == wrong);
  }
}

TEST_CASE("sets and lists: replies, emptied keys deleted, TYPE") {
  MockStore store;
  CHECK(show(store, {"SADD", "s", "b", "a", "10", "9", "a"}) == "(integer) 4");
  // Sorted by bytes: deterministic, where Redis's order follows its encoding.
  CHECK(show(store, {"SMEMBERS", "s"}) == "[\"10\", \"9\", \"a\", \"b\"]");
  CHECK(show(store, {"SISMEMBER", "s", "a"}) == "(integer) 1");
  CHECK(show(store, {"SCARD", "s"}) == "(integer) 4");
  CHECK(show(store, {"TYPE", "s"}) == "set");
  CHECK(show(store, {"SREM", "s", "a", "b", "9", "10", "x"}) == "(integer) 4");
  CHECK(show(store, {"EXISTS", "s"}) == "(integer) 0");
  CHECK(show(store, {"RPUSH", "l", "a", "b", "c"}) == "(integer) 3");
  CHECK(show(store, {"LPUSH", "l", "y", "z"}) == "(integer) 5");
  CHECK(show(store, {"TYPE", "l"}) == "list");
  CHECK(show(store, {"LRANGE", "l", "0", "-1"}) == "[\"z\", \"y\", \"a\", \"b\", \"c\"]");
  CHECK(show(store, {"RPOP", "l", "2"}) == "[\"c\", \"b\"]");
  CHECK(show(store, {"LPOP", "l"}) == "\"z\"");
  CHECK(show(store, {"LPOP", "l", "-1"}) == "(error) ERR value is out of range, must be positive");
  CHECK(show(store, {"LPOP", "missing", "2"}) == "(nil)");
  CHECK(show(store, {"LPOP", "l", "0"}) == "[]");
  CHECK(show(store, {"LTRIM", "l", "1", "-1"}) == "OK");
  CHECK(show(store, {"LRANGE", "l", "0", "-1"}) == "[\"a\"]");
  CHECK(show(store, {"LLEN", "l"}) == "(integer) 1");
  CHECK(show(store, {"LTRIM", "l", "1", "0"}) == "OK");
  CHECK(show(store, {"EXISTS", "l"}) == "(integer) 0");
}

TEST_CASE("ZREVRANGE, ZREVRANGEBYSCORE, ZREMRANGEBYRANK and ZPOPMIN") {
  MockStore store;
  store.run({"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"}, kT0);
  CHECK(show(store, {"ZREVRANGE", "z", "0", "1", "WITHSCORES"}) == "[\"d\", \"4\", \"c\", \"3\"]");
  CHECK(show(store, {"ZREVRANGE", "z", "0", "1", "REV"}) == "(error) ERR syntax error");
  CHECK(show(store, {"ZREVRANGEBYSCORE", "z", "(4", "2"}) == "[\"c\", \"b\"]");
  CHECK(show(store, {"ZREMRANGEBYRANK", "z", "-1", "-1"}) == "(integer) 1");
  CHECK(show(store, {"ZPOPMIN", "z", "2"}) == "[\"a\", \"1\", \"b\", \"2\"]");
  CHECK(show(store, {"ZPOPMAX", "z"}) == "[\"c\", \"3\"]");
  CHECK(show(store, {"EXISTS", "z"}) == "(integer) 0");
  CHECK(show(store, {"ZPOPMIN", "z"}) == "[]");
  CHECK(show(store, {"ZPOPMIN", "z", "1", "2"}) == "(error) ERR syntax error");
}

TEST_CASE("a script calling a Redis command the mock lacks fails with an error naming it") {
  MockStore store;
  // Even caught with pcall, the call makes the whole script's reply the error.
  const Reply reply =
      store.run({"EVAL", "redis.pcall('OBJECT', 'ENCODING', KEYS[1]) return 1", "1", "k"}, kT0);
  REQUIRE(reply.is_error());
  CHECK(reply.text.starts_with("ERR rlsim: script "));
  CHECK(reply.text.find("called OBJECT, a Redis command the embedded Redis does not implement") !=
        std::string::npos);
  // Redis's own answers stay for names no Redis has and for commands Redis refuses in scripts.
  CHECK(show(store, {"EVAL", "return redis.pcall('nope')['err']", "0"}) ==
        "\"ERR Unknown Redis command called from script\"");
  CHECK(show(store, {"EVAL", "return redis.pcall('MULTI')['err']", "0"}) ==
        "\"ERR This Redis command is not allowed from script\"");
  // The next script starts clean.
  CHECK(show(store, {"EVAL", "return 1", "0"}) == "(integer) 1");
}

TEST_CASE("a key lives through the millisecond it expires in, on Redis's millisecond clock") {
  // Redis keeps whole milliseconds: SET at 0.7 ms past a millisecond with PX 10 expires at that
  // millisecond + 10 (db.c keyIsExpired: gone once now_ms > when), so the key is read until
  // 10.3 ms later and gone from 10.3 ms on; PTTL counts whole milliseconds.
  MockStore store;
  const TimeUs t0 = kT0 + 700;
  CHECK(show(store, {"SET", "k", "v", "PX", "10"}, t0) == "OK");
  CHECK(show(store, {"PEXPIRETIME", "k"}, t0) == fmt_integer(kT0 / kUsPerMs + 10));
  CHECK(show(store, {"PTTL", "k"}, t0 + 9 * kUsPerMs) == "(integer) 1");
  CHECK(show(store, {"PTTL", "k"}, t0 + 10 * kUsPerMs) == "(integer) 0");
  CHECK(show(store, {"GET", "k"}, kT0 + 11 * kUsPerMs - 1) == "\"v\"");
  CHECK(show(store, {"GET", "k"}, kT0 + 11 * kUsPerMs) == "(nil)");
  // Active expiry follows the same rule.
  store.run({"SET", "a", "v", "PX", "5"}, kT0 + 20 * kUsPerMs);
  store.run({"PING"}, kT0 + 25 * kUsPerMs + 999);
  CHECK(store.key_count() == 1);
  store.run({"PING"}, kT0 + 26 * kUsPerMs);
  CHECK(store.key_count() == 0);
  // An expiry at the current millisecond deletes at once (expire.c checkAlreadyExpired: when <=
  // now), one millisecond earlier than a lookup would.
  const TimeUs t2 = kT0 + 30 * kUsPerMs + 500;
  store.run({"SET", "b", "v"}, t2);
  CHECK(show(store, {"PEXPIREAT", "b", std::to_string(t2 / kUsPerMs)}, t2) == "(integer) 1");
  CHECK(show(store, {"EXISTS", "b"}, t2) == "(integer) 0");
}

TEST_CASE("HMSET, LINDEX, LREM, RENAME and RENAMENX answer as Redis 7.0") {
  MockStore store;
  const std::string wrong =
      "(error) WRONGTYPE Operation against a key holding the wrong kind of value";
  CHECK(show(store, {"HMSET", "h", "start", "1", "count", "1"}) == "OK");
  CHECK(show(store, {"HMSET", "h", "count", "2"}) == "OK");
  CHECK(show(store, {"HGETALL", "h"}) == "[\"count\", \"2\", \"start\", \"1\"]");
  CHECK(show(store, {"HMSET", "h", "x"}) ==
        "(error) ERR wrong number of arguments for 'hmset' command");
  CHECK(show(store, {"HMSET", "h", "x", "1", "y"}) ==
        "(error) ERR wrong number of arguments for 'hmset' command");
  store.run({"RPUSH", "l", "a", "b", "a", "c", "a"}, kT0);
  CHECK(show(store, {"LINDEX", "l", "0"}) == "\"a\"");
  CHECK(show(store, {"LINDEX", "l", "-2"}) == "\"c\"");
  CHECK(show(store, {"LINDEX", "l", "5"}) == "(nil)");
  CHECK(show(store, {"LINDEX", "l", "-6"}) == "(nil)");
  CHECK(show(store, {"LINDEX", "l", "x"}) == "(error) ERR value is not an integer or out of range");
  CHECK(show(store, {"LINDEX", "missing", "x"}) == "(nil)");  // the key is looked up first
  CHECK(show(store, {"LINDEX", "h", "0"}) == wrong);
  CHECK(show(store, {"LREM", "l", "-1", "a"}) == "(integer) 1");  // from the tail
  CHECK(show(store, {"LRANGE", "l", "0", "-1"}) == "[\"a\", \"b\", \"a\", \"c\"]");
  CHECK(show(store, {"LREM", "l", "1", "a"}) == "(integer) 1");  // from the head
  CHECK(show(store, {"LRANGE", "l", "0", "-1"}) == "[\"b\", \"a\", \"c\"]");
  CHECK(show(store, {"LREM", "l", "x", "a"}) ==
        "(error) ERR value is not an integer or out of range");  // the count first
  CHECK(show(store, {"LREM", "missing", "0", "a"}) == "(integer) 0");
  CHECK(show(store, {"LREM", "h", "0", "a"}) == wrong);
  store.run({"RPUSH", "z", "q", "q"}, kT0);
  CHECK(show(store, {"LREM", "z", "0", "q"}) == "(integer) 2");
  CHECK(show(store, {"EXISTS", "z"}) == "(integer) 0");  // emptied: deleted
  // RENAME moves the value and its TTL, overwriting any type; a missing key is an error, also
  // renamed onto itself.
  store.run({"SET", "s", "v", "EX", "100"}, kT0);
  CHECK(show(store, {"RENAME", "s", "h"}) == "OK");
  CHECK(show(store, {"GET", "h"}) == "\"v\"");
  CHECK(show(store, {"TTL", "h"}, kT0 + 40 * kUsPerS) == "(integer) 60");
  CHECK(show(store, {"EXISTS", "s"}, kT0 + 40 * kUsPerS) == "(integer) 0");
  CHECK(show(store, {"RENAME", "s", "t"}, kT0 + 40 * kUsPerS) == "(error) ERR no such key");
  CHECK(show(store, {"RENAME", "s", "s"}, kT0 + 40 * kUsPerS) == "(error) ERR no such key");
  CHECK(show(store, {"RENAME", "h", "h"}, kT0 + 40 * kUsPerS) == "OK");
  CHECK(show(store, {"RENAMENX", "h", "h"}, kT0 + 40 * kUsPerS) == "(integer) 0");
  CHECK(show(store, {"RENAMENX", "h", "l"}, kT0 + 40 * kUsPerS) == "(integer) 0");
  CHECK(show(store, {"RENAMENX", "h", "n"}, kT0 + 40 * kUsPerS) == "(integer) 1");
  CHECK(show(store, {"RENAME", "n"}, kT0 + 40 * kUsPerS) ==
        "(error) ERR wrong number of arguments for 'rename' command");
  // The moved TTL still expires the key, actively too.
  store.run({"PING"}, kT0 + 101 * kUsPerS);
  CHECK(show(store, {"EXISTS", "n"}, kT0 + 101 * kUsPerS) == "(integer) 0");
  CHECK(store.key_count() == 1);  // the list l
}

}  // namespace rlsim_test_mock_store
