#include "redis/cluster_slots.h"

#include <array>
#include <string>

namespace rlsim {

namespace {

constexpr std::array<std::uint16_t, 256> make_crc16_table() {
  std::array<std::uint16_t, 256> table{};
  for (std::uint32_t byte = 0; byte < 256; ++byte) {
    std::uint32_t crc = byte << 8;
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
    table[byte] = static_cast<std::uint16_t>(crc & 0xffff);
  }
  return table;
}
constexpr std::array<std::uint16_t, 256> kCrc16Table = make_crc16_table();

}  // namespace

std::uint16_t crc16_xmodem(std::string_view bytes) {
  std::uint16_t crc = 0;
  for (const char c : bytes) {
    const auto index = static_cast<std::uint8_t>((crc >> 8) ^ static_cast<std::uint8_t>(c));
    crc = static_cast<std::uint16_t>((crc << 8) ^ kCrc16Table[index]);
  }
  return crc;
}

int key_hash_slot(std::string_view key) {
  const std::size_t open = key.find('{');
  if (open != std::string_view::npos) {
    const std::size_t close = key.find('}', open + 1);
    // "{}" (an empty tag) or no closing brace: the whole key is hashed, as Redis does.
    if (close != std::string_view::npos && close > open + 1)
      key = key.substr(open + 1, close - open - 1);
  }
  return crc16_xmodem(key) & (kClusterSlots - 1);
}

KeyRule command_key_rule(std::string_view name) {
  if (name == "EVAL" || name == "EVALSHA" || name == "EVAL_RO" || name == "EVALSHA_RO")
    return KeyRule::kNumKeys;
  if (name == "MGET" || name == "DEL" || name == "EXISTS" || name == "UNLINK" || name == "TOUCH" ||
      name == "RENAME" || name == "RENAMENX")
    return KeyRule::kAll;
  if (name == "MSET") return KeyRule::kPairs;
  if (name == "SCRIPT" || name == "TIME" || name == "PING" || name == "ECHO" || name == "DBSIZE" ||
      name == "FLUSHALL" || name == "FLUSHDB" || name == "INFO" || name == "CLUSTER" ||
      name == "SCAN" || name == "HELLO" || name == "AUTH" || name == "SELECT")
    return KeyRule::kNone;
  return KeyRule::kFirst;
}

int command_slot(const Command& argv) {
  if (argv.empty()) return kNoKeySlot;
  std::string name(argv.front());
  for (char& c : name) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  int slot = kNoKeySlot;
  for_each_command_key(argv, command_key_rule(name), [&](const std::string& key) {
    const int key_slot = key_hash_slot(key);
    if (slot == kNoKeySlot) {
      slot = key_slot;
    } else if (slot != key_slot) {
      slot = kCrossSlot;
    }
  });
  return slot;
}

}  // namespace rlsim
