#include "redis/mock_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <span>

#include "core/check.h"

namespace rlsim {

std::string to_display(const Reply& reply) {
  switch (reply.type) {
    case Reply::Type::kNil:
      return "(nil)";
    case Reply::Type::kInteger:
      return fmt::format("(integer) {}", reply.integer);
    case Reply::Type::kStatus:
      return reply.text;
    case Reply::Type::kError:
      return "(error) " + reply.text;
    case Reply::Type::kBulk:
      return fmt::format("\"{}\"", reply.text);
    case Reply::Type::kArray: {
      std::string out = "[";
      for (std::size_t i = 0; i < reply.elements.size(); ++i) {
        out += (i ? ", " : "") + to_display(reply.elements[i]);
      }
      return out + "]";
    }
  }
  return "?";
}

void MockStore::track_expiry(const std::string& key, std::int64_t expire_at_ms) {
  expiry_heap_.emplace_back(expire_at_ms, key);
  std::push_heap(expiry_heap_.begin(), expiry_heap_.end(), std::greater<>());
  if (expiry_heap_.size() > 2 * keys_.size() + kHeapSlack) rebuild_expiry_heap();
}

// Drops the stale entries: one entry per key with a TTL, at its TTL. Amortised O(1) per push,
// since a rebuild happens only after at least keys_.size() + kHeapSlack pushes.
void MockStore::rebuild_expiry_heap() {
  expiry_heap_.clear();
  for (auto& [key, entry] : keys_) {
    entry.heap_at_ms = entry.expire_at_ms;
    if (entry.expire_at_ms >= 0) expiry_heap_.emplace_back(entry.expire_at_ms, key);
  }
  std::make_heap(expiry_heap_.begin(), expiry_heap_.end(), std::greater<>());
}

// A key is due once the millisecond it expires in has passed (now_ms > expire_at_ms).
void MockStore::expire_due(TimeUs now_us) {
  const std::int64_t now_ms = now_us / kUsPerMs;
  while (!expiry_heap_.empty() && expiry_heap_.front().first < now_ms) {
    std::pop_heap(expiry_heap_.begin(), expiry_heap_.end(), std::greater<>());
    auto [due_ms, key] = std::move(expiry_heap_.back());
    expiry_heap_.pop_back();
    auto it = keys_.find(key);
    if (it == keys_.end() || it->second.heap_at_ms != due_ms) continue;  // stale entry
    Entry& entry = it->second;
    if (entry.expire_at_ms >= 0 && entry.expire_at_ms < now_ms) {
      keys_.erase(it);
    } else if (entry.expire_at_ms >= 0) {  // TTL was extended: follow it
      entry.heap_at_ms = entry.expire_at_ms;
      track_expiry(key, entry.expire_at_ms);
    } else {
      entry.heap_at_ms = -1;  // persisted
    }
  }
}

MockStore::MockStore(const LuaLimits& lua_limits, std::size_t max_keys)
    : lua_limits_(lua_limits), max_keys_(max_keys) {}
MockStore::~MockStore() = default;

LuaEngine& MockStore::lua() {
  if (!lua_) lua_ = std::make_unique<LuaEngine>(lua_limits_);
  return *lua_;
}

void MockStore::lose_data() {
  keys_.clear();
  expiry_heap_.clear();
  lua_.reset();
}

void MockStore::execute(std::span<const Command> commands, TimeUs server_now_us,
                        std::vector<Reply>& replies) {
  RLSIM_CHECK(server_now_us >= last_now_us_);
  last_now_us_ = server_now_us;
  expire_due(server_now_us);
  for (const Command& argv : commands) replies.push_back(dispatch(argv, server_now_us, false));
}

Reply MockStore::run(const Command& command, TimeUs server_now_us) {
  std::vector<Reply> replies;
  execute(std::span<const Command>(&command, 1), server_now_us, replies);
  return std::move(replies.front());
}

}  // namespace rlsim
