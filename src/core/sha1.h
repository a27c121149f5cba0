#pragma once
// SHA-1 (FIPS 180-4), for naming Lua scripts the way Redis does (EVALSHA, SCRIPT LOAD). Not for
// security: SHA-1 is broken for collision resistance, and rlsim only needs Redis's names.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace rlsim {

// The 20-byte digest of `data`.
std::array<std::uint8_t, 20> sha1(std::string_view data);

// The digest as 40 lower-case hex digits, as Redis prints script SHAs.
std::string sha1_hex(std::string_view data);

}  // namespace rlsim
