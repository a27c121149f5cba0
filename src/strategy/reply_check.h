#pragma once
// What a strategy may take from a Redis reply. A reply it cannot use counts as a failed Redis call
// (the decision's `error`, the report's `errors`), so the strategy's failure policy (on_error,
// breaker: docs/resilience.md) decides: an error or a timeout, and equally a reply of another type
// than the command returns, which only a misbehaving server or proxy sends. Reading such a reply
// as 0 would admit on a made-up count.
#include <charconv>
#include <cstdint>
#include <optional>

#include "redis/reply.h"

namespace rlsim {

// INCR, INCRBY, DECRBY, EXPIRE and PEXPIRE answer an integer; anything else is a failed call.
inline bool is_integer(const Reply& reply) { return reply.type == Reply::Type::kInteger; }

// GET of a counter: nil (no key yet: 0) or a bulk string holding a decimal integer, as the
// lesson's int(v or 0) reads it; nullopt for anything else.
inline std::optional<std::int64_t> counter_value(const Reply& reply) {
  if (reply.type == Reply::Type::kNil) return 0;
  if (reply.type != Reply::Type::kBulk) return std::nullopt;
  std::int64_t value = 0;
  const char* end = reply.text.data() + reply.text.size();
  const auto [ptr, ec] = std::from_chars(reply.text.data(), end, value);
  if (reply.text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// MGET of counters: the sum of the values (sum(int(v or 0) for v in values)); nullopt when the
// reply is not an array of `count` such values.
inline std::optional<std::int64_t> counter_sum(const Reply& reply, std::size_t count) {
  if (reply.type != Reply::Type::kArray || reply.elements.size() != count) return std::nullopt;
  std::int64_t total = 0;
  for (const Reply& element : reply.elements) {
    const auto value = counter_value(element);
    if (!value) return std::nullopt;
    total += *value;
  }
  return total;
}

}  // namespace rlsim
