#pragma once

#include <string>
#include <string_view>

namespace rlsim {

// `text` with A-Z turned into a-z and every other byte kept: Redis command names and replies are
// compared case-insensitively, and only in ASCII (not the locale's idea of case).
inline std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace rlsim
