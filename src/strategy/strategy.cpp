#include "strategy/strategy.h"

#include <fmt/format.h>

namespace rlsim {

std::vector<std::string> redis_key_prefixes(const std::vector<Limit>& limits) {
  std::vector<std::string> prefixes;
  for (const Limit& limit : limits) {
    int same_kind = 0;
    for (const Limit& other : limits) same_kind += other.key == limit.key;
    const char* kind = limit.key == LimitKey::kEndpoint ? "ep" : to_string(limit.key);
    prefixes.push_back(fmt::format("rl:{}:", same_kind > 1 ? limit.name : std::string(kind)));
  }
  return prefixes;
}

}  // namespace rlsim
