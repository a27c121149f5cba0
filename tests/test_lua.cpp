#include <catch2/catch.hpp>

#include "core/sha1.h"
#include "redis/mock_store.h"

using namespace rlsim;

namespace {
constexpr TimeUs kT0 = kEpochUnixUs;
std::string show(MockStore& store, Command command, TimeUs at_us = kT0) {
  return to_display(store.run(command, at_us));
}
std::string eval(MockStore& store, const std::string& body, Command keys_and_args = {},
                 int numkeys = 0) {
  Command command = {"EVAL", body, std::to_string(numkeys)};
  command.insert(command.end(), keys_and_args.begin(), keys_and_args.end());
  return show(store, command);
}
}  // namespace

TEST_CASE("EVAL smoke") {
  MockStore store;
  CHECK(eval(store, "return 1") == "(integer) 1");
  CHECK(eval(store, "return redis.call('INCR', KEYS[1])", {"k"}, 1) == "(integer) 1");
  CHECK(eval(store, "return redis.call('INCR', KEYS[1])", {"k"}, 1) == "(integer) 2");
}
