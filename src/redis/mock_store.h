#pragma once
// The embedded Redis: an in-process keyspace with Redis's semantics for the commands rlsim uses,
// replies and error texts as Redis 7 gives them, and key expiry driven by the server's virtual
// clock. Command table in mock_commands.cpp (one row per command: name, arity, handler).
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "redis/lua_engine.h"
#include "redis/store.h"

namespace rlsim {

// Told of every command a MockStore executed without an error reply, a script's own calls
// included (redis/replicated_store.h counts the writes each call made).
class CommandWatcher {
 public:
  virtual ~CommandWatcher() = default;
  virtual void executed(const Command& argv, const Reply& reply) = 0;
};

class MockStore final : public DataStore {
 public:
  // The most keys one store holds, like a Redis `maxmemory`: once reached, commands that may
  // add data are refused with Redis's OOM error (docs/redis-mock.md#limits), so a runaway
  // script or scenario fails visibly instead of exhausting the host's memory.
  static constexpr std::size_t kDefaultMaxKeys = 20'000'000;

  // `lua_limits` bound every script call (see LuaLimits); the Lua state is created on first use.
  explicit MockStore(const LuaLimits& lua_limits = {}, std::size_t max_keys = kDefaultMaxKeys);
  ~MockStore() override;

  void execute(std::span<const Command> commands, TimeUs server_now_us,
               std::vector<Reply>& replies) override;
  std::size_t key_count() const override { return keys_.size(); }
  void lose_data() override;
  // Entries in the expiry heap (bounded by 2 * key_count() + 64), for tests of that bound.
  std::size_t expiry_heap_size() const { return expiry_heap_.size(); }

  // Runs one command at `server_now_us` (Unix microseconds). Convenience for tests.
  Reply run(const Command& command, TimeUs server_now_us);

  // `watcher` (null: none) is told of every command executed from now on; it outlives the store.
  void set_watcher(CommandWatcher* watcher) { watcher_ = watcher; }

  // Names of all registered commands, for docs and `rlsim explain`.
  static std::vector<std::string> command_names();

  enum class Type { kString, kHash, kZSet, kSet, kList };
  using Hash = std::unordered_map<std::string, std::string>;
  using Set = std::unordered_set<std::string>;
  using List = std::deque<std::string>;
  // A sorted set: members ordered by (score, member bytes) as Redis orders them, and each
  // member's score; the map's keys view the members held by the set's nodes.
  struct ScoreOrder {  // (score, member) order; also compares against string_view members
    using is_transparent = void;
    using View = std::pair<double, std::string_view>;
    static View view(const std::pair<double, std::string>& p) { return {p.first, p.second}; }
    static View view(const View& v) { return v; }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return view(a) < view(b);
    }
  };
  struct ZSet {
    std::set<std::pair<double, std::string>, ScoreOrder> by_score;
    std::unordered_map<std::string_view, double> score_of;
  };
  struct Entry {
    Type type = Type::kString;
    std::string value;           // kString
    std::unique_ptr<Hash> hash;  // kHash
    std::unique_ptr<ZSet> zset;  // kZSet
    std::unique_ptr<Set> set;    // kSet
    std::unique_ptr<List> list;  // kList
    // Redis's `when`: the key's expiry in whole Unix milliseconds, -1 without a TTL. As in Redis
    // (db.c, keyIsExpired: `now > when`), the key lives while now_ms <= expire_at_ms, so through
    // the whole millisecond it expires in.
    std::int64_t expire_at_ms = -1;
    std::int64_t heap_at_ms = -1;  // time of this key's live expiry-heap entry, -1: none
  };

  // Internal to the command handlers.
  struct Context;

 private:
  void expire_due(TimeUs now_us);
  void track_expiry(const std::string& key, std::int64_t expire_at_ms);
  void rebuild_expiry_heap();
  static constexpr std::size_t kHeapSlack = 64;

  // The script engine, created by the first EVAL / EVALSHA / SCRIPT LOAD; SCRIPT FLUSH drops it.
  LuaEngine& lua();
  Reply dispatch(const Command& argv, TimeUs now_us, bool from_script);

  LuaLimits lua_limits_;
  std::size_t max_keys_;
  std::unique_ptr<LuaEngine> lua_;
  std::unordered_map<std::string, Entry> keys_;
  // Min-heap of (expire_at_ms, key) driving active expiry, so memory follows live keys, not past
  // windows. The live entry of a key is the one whose time equals Entry::heap_at_us; others are
  // stale and dropped when they come due. A key's entry is never later than its TTL. Invariant: the
  // heap holds at most 2 * keys_.size() + kHeapSlack entries (track_expiry rebuilds it when stale
  // entries from deleted or shortened keys would pass that).
  std::vector<std::pair<std::int64_t, std::string>> expiry_heap_;
  TimeUs last_now_us_ = 0;
  // The first Redis command a running script called that the mock does not implement (upper
  // case), "" when none: the script's reply then becomes an error that stops the run, even if the
  // script caught the call's error with pcall.
  std::string lacking_command_;
  CommandWatcher* watcher_ = nullptr;
  friend struct Context;
};

}  // namespace rlsim
