// Set commands of the embedded Redis, with Redis 7.0's replies and error texts (t_set.c). A set is
// a hash set of members; SMEMBERS sorts them, so that replies are deterministic where Redis's
// order follows its encoding (numeric order for a small set of integers, hash-table order
// otherwise). Sets emptied by SREM are deleted, as in Redis.
#include <algorithm>

#include "redis/mock_internal.h"

namespace rlsim {

namespace {

using Ctx = MockStore::Context;
using Entry = MockStore::Entry;
using Type = MockStore::Type;

// The set at argv[1] or nullptr; `error` is set to WRONGTYPE for a key of another type.
Entry* set_entry(Ctx& ctx, Reply& error) {
  return ctx.lookup_checked(ctx.argv[1], Type::kSet, error);
}

}  // namespace

// SADD key member [member ...]
Reply cmd_sadd(Ctx& ctx) {
  Reply error;
  Entry* entry = set_entry(ctx, error);
  if (error.is_error()) return error;
  if (entry == nullptr) entry = &ctx.create(ctx.argv[1], Type::kSet);
  std::int64_t added = 0;
  for (std::size_t i = 2; i < ctx.argv.size(); ++i) added += entry->set->insert(ctx.argv[i]).second;
  return Reply::from_integer(added);
}

// SREM key member [member ...]
Reply cmd_srem(Ctx& ctx) {
  Reply error;
  Entry* entry = set_entry(ctx, error);
  if (entry == nullptr) return error.is_error() ? error : Reply::from_integer(0);
  std::int64_t removed = 0;
  for (std::size_t i = 2; i < ctx.argv.size(); ++i)
    removed += static_cast<std::int64_t>(entry->set->erase(ctx.argv[i]));
  if (entry->set->empty()) ctx.erase(ctx.argv[1]);
  return Reply::from_integer(removed);
}

// SMEMBERS key: sorted by member bytes (see above); a missing key is an empty set.
Reply cmd_smembers(Ctx& ctx) {
  Reply error;
  Entry* entry = set_entry(ctx, error);
  if (error.is_error()) return error;
  std::vector<const std::string*> members;
  if (entry != nullptr) {
    members.reserve(entry->set->size());
    for (const std::string& member : *entry->set) members.push_back(&member);
    std::sort(members.begin(), members.end(), [](auto* a, auto* b) { return *a < *b; });
  }
  std::vector<Reply> out;
  out.reserve(members.size());
  for (const std::string* member : members) out.push_back(Reply::bulk(*member));
  return Reply::array(std::move(out));
}

Reply cmd_sismember(Ctx& ctx) {
  Reply error;
  Entry* entry = set_entry(ctx, error);
  if (error.is_error()) return error;
  return Reply::from_integer(entry != nullptr && entry->set->count(ctx.argv[2]) != 0 ? 1 : 0);
}

Reply cmd_scard(Ctx& ctx) {
  Reply error;
  Entry* entry = set_entry(ctx, error);
  if (error.is_error()) return error;
  return Reply::from_integer(entry ? static_cast<std::int64_t>(entry->set->size()) : 0);
}

}  // namespace rlsim
