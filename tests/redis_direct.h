#pragma once
// A command sent straight to a real server (bypassing rlsim), its reply as text: integers and
// strings bare, arrays comma-separated. For tests that inspect what a run left on the server.
#include <hiredis/hiredis.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "real/redis_wire.h"

namespace rlsim {

inline std::string direct_command(redisContext* context, const std::vector<std::string>& argv) {
  append_argv(context, argv);
  void* raw = nullptr;
  REQUIRE(redisGetReply(context, &raw) == REDIS_OK);
  auto* reply = static_cast<redisReply*>(raw);
  REQUIRE(reply != nullptr);
  std::string out;
  if (reply->type == REDIS_REPLY_INTEGER) out = std::to_string(reply->integer);
  if (reply->type == REDIS_REPLY_STRING || reply->type == REDIS_REPLY_STATUS ||
      reply->type == REDIS_REPLY_ERROR)
    out.assign(reply->str, reply->len);
  if (reply->type == REDIS_REPLY_ARRAY) {
    for (std::size_t i = 0; i < reply->elements; ++i) {
      const redisReply* e = reply->element[i];
      if (i > 0) out += ',';
      out +=
          e->type == REDIS_REPLY_STRING ? std::string(e->str, e->len) : std::to_string(e->integer);
    }
  }
  freeReplyObject(reply);
  return out;
}

}  // namespace rlsim
