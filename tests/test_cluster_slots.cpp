#include <catch2/catch.hpp>

#include "redis/cluster_slots.h"

namespace rlsim_test_cluster_slots {

using namespace rlsim;

// Expected slots are what `redis-cli -p PORT CLUSTER KEYSLOT KEY` answers on redis-server 7.0
// started with --cluster-enabled yes.
TEST_CASE("key_hash_slot matches CLUSTER KEYSLOT, hash tags included", "[cluster_slots]") {
  CHECK(crc16_xmodem("123456789") == 0x31C3);  // the XMODEM check value
  CHECK(key_hash_slot("foo") == 12182);
  CHECK(key_hash_slot("bar") == 5061);
  CHECK(key_hash_slot("hello") == 866);
  CHECK(key_hash_slot("somekey") == 11058);
  CHECK(key_hash_slot("") == 0);
  CHECK(key_hash_slot("{user1000}.following") == 3443);
  CHECK(key_hash_slot("{user1000}.followers") == 3443);
  CHECK(key_hash_slot("rl:{user:42}:tokens") == 15880);
  CHECK(key_hash_slot("rl:{user:42}:ts") == 15880);
  CHECK(key_hash_slot("foo{}{bar}") == 8363);     // an empty tag: the whole key
  CHECK(key_hash_slot("foo{{bar}}zap") == 4015);  // the tag is "{bar"
  CHECK(key_hash_slot("foo{bar}{zap}") == 5061);  // the first tag only: "bar"
  CHECK(key_hash_slot("{") == 4092);
  CHECK(key_hash_slot("}{x}") == 16287);
}

TEST_CASE("command_slot finds a command's keys and detects CROSSSLOT", "[cluster_slots]") {
  CHECK(command_slot({"INCR", "foo"}) == 12182);
  CHECK(command_slot({"incr", "foo"}) == 12182);
  CHECK(command_slot({"PING"}) == kNoKeySlot);
  CHECK(command_slot({"TIME"}) == kNoKeySlot);
  CHECK(command_slot({"SCRIPT", "LOAD", "return 1"}) == kNoKeySlot);
  CHECK(command_slot({"MGET", "foo", "bar"}) == kCrossSlot);
  CHECK(command_slot({"MGET", "{bar}1", "{bar}2", "bar"}) == 5061);
  CHECK(command_slot({"MSET", "foo", "bar", "foo", "x"}) == 12182);  // values are not keys
  CHECK(command_slot({"RENAME", "foo", "bar"}) == kCrossSlot);       // both names are keys
  CHECK(command_slot({"RENAMENX", "{bar}1", "bar"}) == 5061);
  CHECK(command_slot({"EVALSHA", "abc", "2", "rl:{user:42}:tokens", "rl:{user:42}:ts", "foo"}) ==
        15880);  // ARGV ("foo") is not a key
  CHECK(command_slot({"EVALSHA", "abc", "2", "rl:user:42:tokens", "rl:user:42:ts"}) == kCrossSlot);
  CHECK(command_slot({"EVAL", "return 1", "0", "foo"}) == kNoKeySlot);
  CHECK(command_slot({"EVAL", "return 1", "x", "foo"}) == kNoKeySlot);  // bad numkeys: no key
}

}  // namespace rlsim_test_cluster_slots
