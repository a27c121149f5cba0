// The embedded Redis against a real redis-server: the same commands must give the same replies.
// The test command (tests/run-all.sh) starts a private server and sets RLSIM_REDIS_PORT.
#include <hiredis/hiredis.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>

#include "redis/mock_store.h"

using namespace rlsim;

namespace {

Reply from_hiredis(const redisReply* r) {
  switch (r->type) {
    case REDIS_REPLY_INTEGER:
      return Reply::from_integer(r->integer);
    case REDIS_REPLY_STATUS:
      return Reply::status(std::string(r->str, r->len));
    case REDIS_REPLY_ERROR:
      return Reply::error(std::string(r->str, r->len));
    case REDIS_REPLY_STRING:
      return Reply::bulk(std::string(r->str, r->len));
    case REDIS_REPLY_ARRAY: {
      std::vector<Reply> elements;
      for (std::size_t i = 0; i < r->elements; ++i) elements.push_back(from_hiredis(r->element[i]));
      return Reply::array(std::move(elements));
    }
    default:
      return Reply::nil();
  }
}

struct RealRedis {
  redisContext* context = nullptr;
  explicit RealRedis(int port) {
    context = redisConnect("127.0.0.1", port);
    REQUIRE(context != nullptr);
    REQUIRE(context->err == 0);
  }
  ~RealRedis() { redisFree(context); }
  Reply run(const Command& argv) {
    std::vector<const char*> args;
    std::vector<std::size_t> lengths;
    for (const auto& a : argv) {
      args.push_back(a.data());
      lengths.push_back(a.size());
    }
    auto* reply = static_cast<redisReply*>(
        redisCommandArgv(context, static_cast<int>(argv.size()), args.data(), lengths.data()));
    REQUIRE(reply != nullptr);
    Reply out = from_hiredis(reply);
    freeReplyObject(reply);
    return out;
  }
};

int parity_port() {
  const char* port = std::getenv("RLSIM_REDIS_PORT");
  if (port == nullptr)
    FAIL(
        "RLSIM_REDIS_PORT is not set: run the suite with tests/run-all.sh, which starts "
        "redis-server");
  return std::atoi(port);
}

// Runs every command on both, in order, and checks that the replies are identical.
void check_same_replies(RealRedis& real, MockStore& mock, const std::vector<Command>& script) {
  const TimeUs now_us = kEpochUnixUs;
  for (const auto& command : script) {
    std::string text;
    for (const auto& a : command) text += a + " ";
    INFO(text);
    CHECK(to_display(mock.run(command, now_us)) == to_display(real.run(command)));
  }
}

}  // namespace

TEST_CASE("mock and real Redis agree on the commands rlsim uses") {
  const char* port = std::getenv("RLSIM_REDIS_PORT");
  if (port == nullptr)
    FAIL(
        "RLSIM_REDIS_PORT is not set: run the suite with tests/run-all.sh, which starts "
        "redis-server");
  RealRedis real(std::atoi(port));
  const std::string p = "rlsim-parity:";
  real.run({"FLUSHALL"});
  MockStore mock;
  const std::vector<Command> script = {
      {"INCR", p + "c"},
      {"INCR", p + "c"},
      {"INCRBY", p + "c", "40"},
      {"DECRBY", p + "c", "2"},
      {"DECR", p + "c"},
      {"GET", p + "c"},
      {"INCRBY", p + "c", "x"},
      {"INCRBY", p + "c", "1.5"},
      {"SET", p + "s", "hello"},
      {"INCR", p + "s"},
      {"SET", p + "z", "007"},
      {"INCR", p + "z"},
      {"SET", p + "big", "9223372036854775807"},
      {"INCR", p + "big"},
      {"INCRBY", p + "c", "9223372036854775807"},
      {"DECRBY", p + "neg", "-9223372036854775808"},
      {"HSET", p + "h", "f", "1", "g", "2"},
      {"INCR", p + "h"},
      {"GET", p + "h"},
      {"HGET", p + "h", "f"},
      {"HMGET", p + "h", "f", "nope"},
      {"HDEL", p + "h", "f"},
      {"HGETALL", p + "h"},
      {"HSET", p + "h", "odd"},
      {"EXPIRE", p + "c", "1000"},
      {"TTL", p + "c"},
      {"PTTL", p + "s"},
      {"TTL", p + "missing"},
      {"EXPIRE", p + "c", "2000", "NX"},
      {"EXPIRE", p + "c", "500", "GT"},
      {"EXPIRE", p + "c", "900", "LT"},
      {"EXPIRE", p + "c", "10", "NX", "XX"},
      {"EXPIRE", p + "c", "x"},
      {"EXPIRE", p + "missing", "10"},
      {"PERSIST", p + "c"},
      {"TTL", p + "c"},
      {"PEXPIRE", p + "c", "-5"},
      {"EXISTS", p + "c"},
      {"SET", p + "a", "1", "NX"},
      {"SET", p + "a", "2", "NX"},
      {"SET", p + "a", "3", "XX", "GET"},
      {"SET", p + "a", "4", "EX", "0"},
      {"SET", p + "a", "4", "EX", "-1"},
      {"SET", p + "a", "4", "NX", "XX"},
      {"SET", p + "a", "4", "BOGUS"},
      {"SET", p + "a", "5", "EX", "1000"},
      {"TTL", p + "a"},
      {"SET", p + "a", "6", "KEEPTTL"},
      {"TTL", p + "a"},
      {"SET", p + "h", "x", "GET"},
      {"MGET", p + "a", p + "h", p + "missing"},
      {"DEL", p + "a", p + "h", p + "missing"},
      {"TYPE", p + "s"},
      {"TYPE", p + "missing"},
      {"INCR"},
      {"GET", p + "a", "b"},
      {"EXPIRE", p + "a"},
      {"MGET"},
      {"PING"},
      {"incr", p + "lower"},
      {"Incr", p + "lower"},
  };
  const TimeUs now_us = kEpochUnixUs;
  for (const auto& command : script) {
    std::string text;
    for (const auto& a : command) text += a + " ";
    INFO(text);
    CHECK(to_display(mock.run(command, now_us)) == to_display(real.run(command)));
  }
  real.run({"FLUSHALL"});
}

TEST_CASE("TIME has the shape of Redis's reply") {
  const char* port = std::getenv("RLSIM_REDIS_PORT");
  if (port == nullptr) FAIL("RLSIM_REDIS_PORT is not set");
  RealRedis real(std::atoi(port));
  MockStore mock;
  const Reply r = real.run({"TIME"});
  const Reply m = mock.run({"TIME"}, kEpochUnixUs + 5);
  REQUIRE(r.type == Reply::Type::kArray);
  REQUIRE(m.type == Reply::Type::kArray);
  CHECK(r.elements.size() == m.elements.size());
  CHECK(m.elements[1].text == "5");
}

TEST_CASE("mock and real Redis agree on sorted sets, hashes, floats and expiry commands") {
  RealRedis real(parity_port());
  const std::string p = "rlsim-parity:";
  real.run({"FLUSHALL"});
  MockStore mock;
  const std::string z = p + "z", h = p + "h", s = p + "s", f = p + "f";
  const std::vector<Command> script = {
      {"ZADD", z, "1", "a", "2", "b", "3", "c"},
      {"ZADD", z, "1.5", "a", "1e20", "big", "0.1", "tenth", "-0", "zero", "inf", "top"},
      {"ZADD", z, "-inf", "bottom", "1e-5", "small", "123456789012345678", "long"},
      {"ZRANGE", z, "0", "-1", "WITHSCORES"},
      {"ZSCORE", z, "a"},
      {"ZSCORE", z, "big"},
      {"ZSCORE", z, "missing"},
      {"ZSCORE", p + "nokey", "a"},
      {"ZCARD", z},
      {"ZCARD", p + "nokey"},
      {"ZADD", z, "NX", "9", "a", "9", "new"},
      {"ZADD", z, "XX", "CH", "8", "a", "8", "other"},
      {"ZADD", z, "GT", "CH", "1", "a", "20", "b"},
      {"ZADD", z, "LT", "CH", "1", "a", "30", "b"},
      {"ZADD", z, "INCR", "2.5", "a"},
      {"ZADD", z, "XX", "INCR", "1", "nobody"},
      {"ZADD", z, "GT", "INCR", "-1", "a"},
      {"ZINCRBY", z, "1", "c"},
      {"ZADD", z, "NX", "XX", "1", "a"},
      {"ZADD", z, "GT", "LT", "1", "a"},
      {"ZADD", z, "NX", "GT", "1", "a"},
      {"ZADD", z, "INCR", "1", "a", "2", "b"},
      {"ZADD", z, "1"},
      {"ZADD", z, "1", "a", "2"},
      {"ZADD", z, "abc", "a"},
      {"ZADD", z, "nan", "a"},
      {"ZADD", z, " 5", "a"},
      {"ZADD", z, "", "a"},
      {"ZADD", z, "0x10", "hex"},
      {"ZADD", z, "+5", "plus", ".5", "dot"},
      {"ZADD", z, "1e400", "a"},
      {"ZADD", z, "INCR", "-inf", "top"},
      {"ZRANGE", z, "0", "-1", "WITHSCORES"},
      {"ZRANGE", z, "1", "3"},
      {"ZRANGE", z, "-2", "-1", "WITHSCORES"},
      {"ZRANGE", z, "5", "2"},
      {"ZRANGE", z, "100", "200"},
      {"ZRANGE", z, "0", "x"},
      {"ZRANGE", z, "0", "-1", "REV"},
      {"ZRANGE", z, "1", "3", "REV", "WITHSCORES"},
      {"ZRANGE", z, "0", "1", "LIMIT", "0", "1"},
      {"ZRANGE", z, "(1", "9", "BYSCORE"},
      {"ZRANGE", z, "9", "(1", "BYSCORE", "REV", "WITHSCORES"},
      {"ZRANGE", z, "-inf", "+inf", "BYSCORE", "LIMIT", "1", "3"},
      {"ZRANGE", z, "0", "1", "BYSCORE", "BYSCORE"},
      {"ZRANGE", z, "0", "1", "BOGUS"},
      {"ZRANGEBYSCORE", z, "-inf", "+inf"},
      {"ZRANGEBYSCORE", z, "(1", "(9", "WITHSCORES"},
      {"ZRANGEBYSCORE", z, "1", "9", "LIMIT", "1", "2"},
      {"ZRANGEBYSCORE", z, "1", "9", "LIMIT", "1", "-1"},
      {"ZRANGEBYSCORE", z, "1", "9", "LIMIT", "-1", "1"},
      {"ZRANGEBYSCORE", z, "1", "9", "LIMIT", "1"},
      {"ZRANGEBYSCORE", z, "1", "9", "WITHSCORES", "LIMIT", "0", "2"},
      {"ZRANGEBYSCORE", z, "9", "1"},
      {"ZRANGEBYSCORE", z, "(", "4"},
      {"ZRANGEBYSCORE", z, "((1", "4"},
      {"ZRANGEBYSCORE", z, "x", "4"},
      {"ZRANGEBYSCORE", z, "2", "nan"},
      {"ZRANGEBYSCORE", z, "(2", "(2"},
      {"ZRANGEBYSCORE", z, "2", "2"},
      {"ZRANGEBYSCORE", z, "1", "9", "REV"},
      {"ZRANGEBYSCORE", p + "nokey", "1", "9"},
      {"ZCOUNT", z, "(1", "+inf"},
      {"ZCOUNT", z, "x", "1"},
      {"ZREM", z, "a", "nobody", "b"},
      {"ZREMRANGEBYSCORE", z, "(0.1", "3"},
      {"ZREMRANGEBYSCORE", z, "x", "3"},
      {"ZRANGE", z, "0", "-1", "WITHSCORES"},
      {"ZREMRANGEBYSCORE", z, "-inf", "+inf"},
      {"EXISTS", z},
      {"TYPE", z},
      {"ZADD", z, "1", "a"},
      {"TYPE", z},
      {"SET", s, "str"},
      {"ZADD", s, "1", "a"},
      {"ZCARD", s},
      {"ZSCORE", s, "a"},
      {"ZRANGE", s, "0", "1"},
      {"ZRANGEBYSCORE", s, "0", "1"},
      {"ZREM", s, "a"},
      {"ZREMRANGEBYSCORE", s, "0", "1"},
      {"ZREMRANGEBYSCORE", s, "x", "1"},
      {"INCR", z},
      {"GET", z},
      {"HSET", z, "f", "v"},
      // Hashes.
      {"HINCRBY", h, "n", "5"},
      {"HINCRBY", h, "n", "x"},
      {"HINCRBY", h, "n", "1.5"},
      {"HSET", h, "word", "abc"},
      {"HINCRBY", h, "word", "1"},
      {"HINCRBY", h, "n", "9223372036854775807"},
      {"HINCRBY", h, "n", "-9223372036854775808"},
      {"HINCRBYFLOAT", h, "g", "1.5"},
      {"HINCRBYFLOAT", h, "g", "0.1"},
      {"HINCRBYFLOAT", h, "word", "1"},
      {"HINCRBYFLOAT", h, "g", "x"},
      {"HINCRBYFLOAT", h, "g", "inf"},
      {"HINCRBYFLOAT", h, "i", "3.0"},
      {"HINCRBYFLOAT", h, "j", "1e20"},
      {"HINCRBYFLOAT", h, "k", "1e-5"},
      {"HINCRBYFLOAT", h, "l", "5.0e3"},
      {"HINCRBYFLOAT", h, "m", "-0.0"},
      {"HSET", h, "huge", "1e308"},
      {"HINCRBYFLOAT", h, "huge", "1e308"},
      {"HSETNX", h, "n", "1"},
      {"HSETNX", h, "fresh", "1"},
      {"HLEN", h},
      {"HEXISTS", h, "fresh"},
      {"HEXISTS", h, "nope"},
      {"HGET", h, "fresh"},
      {"HINCRBY", s, "f", "1"},
      {"HINCRBYFLOAT", s, "f", "1"},
      {"HSETNX", s, "f", "1"},
      {"HLEN", s},
      {"HINCRBY", h, "n"},
      {"TYPE", h},
      // Strings.
      {"INCRBYFLOAT", f, "1.5"},
      {"INCRBYFLOAT", f, "0.1"},
      {"INCRBYFLOAT", f, "inf"},
      {"INCRBYFLOAT", f, "x"},
      {"INCRBYFLOAT", s, "1"},
      {"INCRBYFLOAT", h, "x"},
      {"INCRBYFLOAT", f, "-1.6"},
      {"INCRBYFLOAT", f, "1e20"},
      {"INCRBYFLOAT", p + "g", "1e308"},
      {"INCRBYFLOAT", p + "g", "1e308"},
      {"SET", p + "e", "5", "EX", "100"},
      {"INCRBYFLOAT", p + "e", "1"},
      {"TTL", p + "e"},
      {"SETNX", p + "n", "1"},
      {"SETNX", p + "n", "2"},
      {"GET", p + "n"},
      {"SETNX", h, "1"},
      {"SETNX", p + "n"},
      {"SET", p + "k", "v", "PX", "0"},
      {"SET", p + "k", "v", "EX", "10", "PX", "10"},
      {"SET", p + "k", "v", "EX", "10", "KEEPTTL"},
      {"SET", p + "k", "v", "KEEPTTL", "EX", "10"},
      {"SET", p + "k", "v", "GET", "NX"},
      {"SET", p + "k", "w", "GET", "XX"},
      {"SET", p + "k", "v", "EX"},
      {"SET", p + "k", "v", "EX", "x"},
      {"SET", p + "k", "v", "EX", "x", "BOGUS"},
      {"SET", p + "k", "v", "EX", "9223372036854775"},
      {"SET", p + "k", "v", "EX", "5", "EX", "60"},
      {"TTL", p + "k"},
      {"SET", p + "k", "v", "PX", "5", "EX", "60"},
      {"SET", p + "k", "v", "GET", "GET", "NX", "NX"},
      {"SET", p + "k", "w", "KEEPTTL", "GET"},
      {"TTL", p + "k"},
      {"SET", p + "k", "x", "XX"},
      {"TTL", p + "k"},
      {"SET", p + "k", "v", "EXAT", "100"},
      {"EXISTS", p + "k"},
      {"SET", p + "k", "v", "PXAT", "0"},
      {"SET", h, "v", "GET"},
      {"EXISTS", p + "n", p + "n", p + "missing", h},
      {"UNLINK", p + "n", p + "missing", p + "f"},
      {"EXISTS", p + "n", p + "f"},
      {"UNLINK"},
      // Expiry at absolute times (the two servers' clocks differ, so no TTL is compared).
      {"SET", p + "t", "v"},
      {"EXPIREAT", p + "t", "4102444800"},
      {"PEXPIREAT", p + "t", "4102444800000", "NX"},
      {"PEXPIREAT", p + "t", "4102444800001", "GT"},
      {"EXPIREAT", p + "t", "x"},
      {"EXPIREAT", p + "t", "1", "BOGUS"},
      {"EXPIREAT", p + "t", "x", "BOGUS"},
      {"EXPIREAT", p + "t", "9223372036854775807"},
      {"PEXPIREAT", p + "t", "9223372036854775807"},
      {"EXPIREAT", p + "missing", "100"},
      {"EXPIREAT", p + "t", "100"},
      {"EXISTS", p + "t"},
      {"SET", p + "t", "v"},
      {"PEXPIREAT", p + "t", "-5"},
      {"EXISTS", p + "t"},
      {"EXPIRE", p + "x", "9223372036854775807"},
      {"SET", p + "t", "v"},
      {"EXPIRE", p + "t", "9223372036854775807"},
      {"EXPIRE", p + "t", "9223372036854775"},
      {"PEXPIRE", p + "t", "9223372036854775807"},
  };
  check_same_replies(real, mock, script);
  real.run({"FLUSHALL"});
}
