// List commands of the embedded Redis, with Redis 7.0's replies and error texts (t_list.c). A list
// is a deque of elements, head first; lists emptied by a pop or LTRIM are deleted, as in Redis.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "redis/mock_internal.h"

namespace rlsim {

namespace {

using Ctx = MockStore::Context;
using Entry = MockStore::Entry;
using Type = MockStore::Type;

// The list at argv[1] or nullptr; `error` is set to WRONGTYPE for a key of another type.
Entry* list_entry(Ctx& ctx, Reply& error) {
  return ctx.lookup_checked(ctx.argv[1], Type::kList, error);
}

// LRANGE's and LTRIM's arguments, key start stop, in Redis's order: the indexes, then the key.
// Returns the error reply, or nullopt with `entry` set (null for a missing key).
std::optional<Reply> read_list_range(Ctx& ctx, std::int64_t& start, std::int64_t& stop,
                                     Entry*& entry) {
  if (!parse_strict_int(ctx.argv[2], start) || !parse_strict_int(ctx.argv[3], stop))
    return Reply::error(kNotInteger);
  Reply error;
  entry = list_entry(ctx, error);
  if (error.is_error()) return error;
  return std::nullopt;
}

// Elements [start, stop] of `list` (a range clamp_rank_range accepted), from the tail when
// `reverse` (RPOP with a count answers the tail first).
Reply range_reply(const MockStore::List& list, std::int64_t start, std::int64_t stop,
                  bool reverse) {
  std::vector<Reply> out;
  out.reserve(static_cast<std::size_t>(stop - start + 1));
  for (std::int64_t i = start; i <= stop; ++i) {
    const std::int64_t at = reverse ? stop - (i - start) : i;
    out.push_back(Reply::bulk(list[static_cast<std::size_t>(at)]));
  }
  return Reply::array(std::move(out));
}

void pop_one(MockStore::List& list, bool head) {
  if (head) {
    list.pop_front();
  } else {
    list.pop_back();
  }
}

}  // namespace

// LPUSH / RPUSH key element [element ...]: the length after the push.
Reply push_generic(Ctx& ctx, bool head) {
  Reply error;
  Entry* entry = list_entry(ctx, error);
  if (error.is_error()) return error;
  if (entry == nullptr) entry = &ctx.create(ctx.argv[1], Type::kList);
  for (std::size_t i = 2; i < ctx.argv.size(); ++i) {
    if (head) {
      entry->list->push_front(ctx.argv[i]);
    } else {
      entry->list->push_back(ctx.argv[i]);
    }
  }
  return Reply::from_integer(static_cast<std::int64_t>(entry->list->size()));
}

// LPOP / RPOP key [count], as Redis 7.0's popGenericCommand: without a count one bulk (nil for a
// missing key), with one an array (a null reply for a missing key, empty for a count of 0).
Reply pop_generic(Ctx& ctx, bool head) {
  if (ctx.argv.size() > 3)
    return Reply::error(fmt::format("ERR wrong number of arguments for '{}' command", ctx.name()));
  const bool has_count = ctx.argv.size() == 3;
  std::int64_t count = 0;
  if (has_count) {
    if (auto error = parse_count(ctx.argv[2], count)) return *error;
  }
  Reply error;
  Entry* entry = list_entry(ctx, error);
  if (error.is_error()) return error;
  if (entry == nullptr) return Reply::nil();
  MockStore::List& list = *entry->list;
  if (has_count && count == 0) return Reply::array({});
  Reply out;
  if (!has_count) {
    out = Reply::bulk(head ? std::move(list.front()) : std::move(list.back()));
    pop_one(list, head);
  } else {
    const auto size = static_cast<std::int64_t>(list.size());
    const std::int64_t taken = std::min(count, size);
    out = head ? range_reply(list, 0, taken - 1, false)
               : range_reply(list, size - taken, size - 1, true);
    for (std::int64_t i = 0; i < taken; ++i) pop_one(list, head);
  }
  if (list.empty()) ctx.erase(ctx.argv[1]);
  return out;
}

// LRANGE key start stop: the indexes are read before the key, as in Redis.
Reply cmd_lrange(Ctx& ctx) {
  std::int64_t start = 0, stop = 0;
  Entry* entry = nullptr;
  if (auto error = read_list_range(ctx, start, stop, entry)) return std::move(*error);
  if (entry == nullptr) return Reply::array({});
  const MockStore::List& list = *entry->list;
  if (!clamp_rank_range(static_cast<std::int64_t>(list.size()), start, stop))
    return Reply::array({});
  return range_reply(list, start, stop, false);
}

Reply cmd_llen(Ctx& ctx) {
  Reply error;
  Entry* entry = list_entry(ctx, error);
  if (error.is_error()) return error;
  return Reply::from_integer(entry ? static_cast<std::int64_t>(entry->list->size()) : 0);
}

// LTRIM key start stop: keeps [start, stop]; an empty range deletes the list. OK also for a
// missing key.
Reply cmd_ltrim(Ctx& ctx) {
  std::int64_t start = 0, stop = 0;
  Entry* entry = nullptr;
  if (auto error = read_list_range(ctx, start, stop, entry)) return std::move(*error);
  if (entry == nullptr) return Reply::status("OK");
  MockStore::List& list = *entry->list;
  if (!clamp_rank_range(static_cast<std::int64_t>(list.size()), start, stop)) {
    ctx.erase(ctx.argv[1]);
    return Reply::status("OK");
  }
  list.erase(list.begin() + stop + 1, list.end());
  list.erase(list.begin(), list.begin() + start);
  return Reply::status("OK");
}

// LINDEX key index, in Redis 7.0's order: the key (nil when missing), its type, then the index
// (negative from the tail); nil outside the list.
Reply cmd_lindex(Ctx& ctx) {
  Reply error;
  Entry* entry = list_entry(ctx, error);
  if (error.is_error()) return error;
  if (entry == nullptr) return Reply::nil();
  std::int64_t index = 0;
  if (!parse_strict_int(ctx.argv[2], index)) return Reply::error(kNotInteger);
  const MockStore::List& list = *entry->list;
  const auto size = static_cast<std::int64_t>(list.size());
  if (index < 0) index += size;
  if (index < 0 || index >= size) return Reply::nil();
  return Reply::bulk(list[static_cast<std::size_t>(index)]);
}

// LREM key count element, in Redis 7.0's order: the count, then the key. Removes up to `count`
// elements equal to `element` from the head (count > 0), from the tail (count < 0) or all (0);
// answers how many went, and deletes a list it empties.
Reply cmd_lrem(Ctx& ctx) {
  std::int64_t count = 0;
  if (!parse_strict_int(ctx.argv[2], count)) return Reply::error(kNotInteger);
  Reply error;
  Entry* entry = list_entry(ctx, error);
  if (error.is_error()) return error;
  if (entry == nullptr) return Reply::from_integer(0);
  MockStore::List& list = *entry->list;
  const std::string& element = ctx.argv[3];
  // Unsigned magnitude: -INT64_MIN does not fit a signed count.
  std::uint64_t left = count == 0  ? list.size()
                       : count > 0 ? static_cast<std::uint64_t>(count)
                                   : 0 - static_cast<std::uint64_t>(count);
  std::int64_t removed = 0;
  if (count >= 0) {
    for (auto it = list.begin(); it != list.end() && left > 0;) {
      if (*it != element) {
        ++it;
        continue;
      }
      it = list.erase(it);
      ++removed;
      --left;
    }
  } else {
    for (std::size_t i = list.size(); i > 0 && left > 0; --i) {
      if (list[i - 1] != element) continue;
      list.erase(list.begin() + static_cast<std::ptrdiff_t>(i - 1));
      ++removed;
      --left;
    }
  }
  if (list.empty()) ctx.erase(ctx.argv[1]);
  return Reply::from_integer(removed);
}

}  // namespace rlsim
