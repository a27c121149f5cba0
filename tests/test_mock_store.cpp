#include <catch2/catch.hpp>

#include "redis/mock_store.h"

using namespace rlsim;

namespace {
constexpr TimeUs kT0 = kEpochUnixUs;
std::string show(MockStore& store, Command command, TimeUs at_us = kT0) {
  return to_display(store.run(command, at_us));
}
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
  CHECK(show(store, {"GET", "k"}, kT0 + 120 * kUsPerS - 1) == "\"1\"");
  CHECK(show(store, {"GET", "k"}, kT0 + 120 * kUsPerS) == "(nil)");
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
  CHECK(show(store, {"GET", "k"}, kT0 + 104 * kUsPerS) == "\"v\"");
  CHECK(show(store, {"GET", "k"}, kT0 + 105 * kUsPerS) == "(nil)");
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
