// libFuzzer target: the embedded Redis (command table, sorted sets, hashes, expiry) and its Lua
// layer (EVAL, EVALSHA, SCRIPT LOAD, redis.call / pcall, conversions, the sandbox and budgets).
// Input: one command per line, arguments separated by '|' (Lua scripts may contain spaces, rarely
// '|'). Virtual time advances between commands by an amount taken from the input, so expiry runs.
// Every command must produce exactly one reply and nothing may crash, leak or hang.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "redis/mock_store.h"

namespace {

constexpr std::size_t kMaxCommands = 64;

std::vector<rlsim::Command> parse_commands(std::string_view input) {
  std::vector<rlsim::Command> commands;
  while (!input.empty() && commands.size() < kMaxCommands) {
    const std::size_t end_of_line = input.find('\n');
    std::string_view line = input.substr(0, end_of_line);
    input =
        end_of_line == std::string_view::npos ? std::string_view() : input.substr(end_of_line + 1);
    rlsim::Command argv;
    while (true) {
      const std::size_t bar = line.find('|');
      argv.emplace_back(line.substr(0, bar));
      if (bar == std::string_view::npos) break;
      line.remove_prefix(bar + 1);
    }
    commands.push_back(std::move(argv));
  }
  return commands;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // A small budget keeps each input fast; the limits themselves are what is being exercised.
  rlsim::LuaLimits limits;
  limits.instructions_per_call = 200'000;
  limits.memory_bytes = 8u << 20;
  rlsim::MockStore store(limits);
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::vector<rlsim::Command> commands = parse_commands(input);
  rlsim::TimeUs now_us = 1'700'000'000'000'000;
  std::vector<rlsim::Reply> replies;
  for (const rlsim::Command& command : commands) {
    // Time steps of 0..255 ms, taken from the command's first byte so the fuzzer controls them.
    const unsigned char step_ms =
        command.front().empty() ? 0 : static_cast<unsigned char>(command.front()[0]);
    now_us += static_cast<rlsim::TimeUs>(step_ms) * 1000;
    replies.clear();
    store.execute(std::span<const rlsim::Command>(&command, 1), now_us, replies);
    if (replies.size() != 1) std::abort();
  }
  // The same commands again as one pipeline must also give one reply per command.
  replies.clear();
  store.execute(commands, now_us, replies);
  if (replies.size() != commands.size()) std::abort();
  return 0;
}
