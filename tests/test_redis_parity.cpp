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
