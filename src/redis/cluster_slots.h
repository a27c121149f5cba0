#pragma once

#include <cstdint>
#include <string_view>

#include "redis/reply.h"

namespace rlsim {

// Redis Cluster's key space: 16,384 hash slots, a key's slot is CRC16(key) mod 16384, where only
// the part between the first '{' and the next '}' is hashed when that part is non-empty (a hash
// tag), so that "{user:42}:tokens" and "{user:42}:ts" share a slot and a multi-key script on them
// is legal. Shared by the embedded cluster and the real-cluster client so both route identically.
inline constexpr int kClusterSlots = 16384;

// CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0), the variant Redis Cluster uses.
std::uint16_t crc16_xmodem(std::string_view bytes);

// The slot of `key`, exactly as CLUSTER KEYSLOT answers.
int key_hash_slot(std::string_view key);

// Where a command's keys are in its argv; decided by the command name (upper case).
enum class KeyRule {
  kNone,     // SCRIPT, TIME, PING, ...: no key
  kFirst,    // argv[1]
  kAll,      // argv[1..]: MGET, DEL, EXISTS, UNLINK, TOUCH
  kPairs,    // argv[1], argv[3], ...: MSET
  kNumKeys,  // EVAL / EVALSHA script numkeys key...
};
KeyRule command_key_rule(std::string_view upper_name);

// Calls visit(key) for every key of `argv` under `rule`; a malformed argv visits what it has.
template <typename Visit>
void for_each_command_key(const Command& argv, KeyRule rule, Visit&& visit) {
  switch (rule) {
    case KeyRule::kNone:
      break;
    case KeyRule::kFirst:
      if (argv.size() > 1) visit(argv[1]);
      break;
    case KeyRule::kAll:
      for (std::size_t i = 1; i < argv.size(); ++i) visit(argv[i]);
      break;
    case KeyRule::kPairs:
      for (std::size_t i = 1; i < argv.size(); i += 2) visit(argv[i]);
      break;
    case KeyRule::kNumKeys: {
      std::size_t keys = 0;
      if (argv.size() < 3) break;
      for (char digit : argv[2]) {
        if (digit < '0' || digit > '9') return;  // the server reports the error
        keys = keys * 10 + static_cast<std::size_t>(digit - '0');
        if (keys > argv.size()) break;
      }
      for (std::size_t i = 3; i < argv.size() && i < 3 + keys; ++i) visit(argv[i]);
      break;
    }
  }
}

// The slot every key of `argv` maps to: kNoKeySlot when it has no key, kCrossSlot when its keys
// span more than one slot (Redis Cluster answers "-CROSSSLOT Keys in request don't hash to the
// same slot").
inline constexpr int kNoKeySlot = -1;
inline constexpr int kCrossSlot = -2;
int command_slot(const Command& argv);

}  // namespace rlsim
