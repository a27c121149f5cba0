#pragma once
// A real Redis Cluster under RealStore (docs/real-redis.md#a-real-redis-cluster): the slot map
// from CLUSTER SLOTS, one pipelined hiredis connection per master, every command routed by the
// hash slot of its keys (redis/cluster_slots.h). Replies are handed back in the order the commands
// were appended, whichever node answers first. MOVED updates the map (and CLUSTER SLOTS is read
// again before the next command) and the command is sent again to the named node; ASK sends
// ASKING + the command to the named node without changing the map. CROSSSLOT, CLUSTERDOWN and
// every other error are the server's reply, handed to the strategy as they are.
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "real/real_store.h"
#include "real/redis_wire.h"
#include "redis/cluster_slots.h"

namespace rlsim {

// "host:port[,host:port...]" (each entry may also be a redis://[user[:password]@]host:port URL;
// the first entry's credentials, or REDISCLI_AUTH, are used for every node). nullopt with `error`
// when an entry is malformed or names a database other than 0 (a cluster has only database 0).
std::optional<std::vector<RedisUrl>> parse_cluster_seeds(const std::string& text,
                                                         std::string& error);

class ClusterWire final : public RedisWire {
 public:
  // Per node, for the report and tests.
  using NodeReport = ClusterNodeReport;

  explicit ClusterWire(std::vector<RedisUrl> seeds);
  ~ClusterWire() override { disconnect(); }
  ClusterWire(const ClusterWire&) = delete;
  ClusterWire& operator=(const ClusterWire&) = delete;

  std::string describe() const override { return "Redis Cluster at " + seeds_display(); }
  bool connect(std::string& error) override;
  void disconnect() override;
  bool connected() const override { return connected_; }
  void append(const Command& command) override;
  bool read(Reply& reply, std::string& error) override;
  bool flush_if_large(std::string& error) override;
  std::vector<std::string> scan(const std::string& pattern) override;
  bool sharded() const override { return true; }

  // "host:port,host:port" of the seeds given.
  std::string seeds_display() const;
  std::vector<NodeReport> node_reports() const;
  std::uint64_t moved() const { return moved_; }
  std::uint64_t asked() const { return asked_; }
  std::uint64_t crossslot() const { return crossslot_; }
  std::uint64_t map_refreshes() const { return refreshes_; }
  // The node the map sends `slot` to ("" when no node owns it).
  std::string owner_of(int slot) const override;
  std::optional<ClusterReport> cluster_report() const override;
  // Routes `slot` to the node at `address` until a MOVED or a CLUSTER SLOTS refresh says
  // otherwise (tests build a deliberately wrong map with it).
  void set_owner(int slot, const std::string& address);

 private:
  struct Entry {
    Command command;  // kept to send it again on MOVED / ASK
    std::optional<Reply> reply;
    int node = 0;
    int redirects = 0;
  };
  struct Node {
    std::string host;
    int port = 0;
    std::string address;
    redisContext* context = nullptr;
    std::deque<Entry*> pending;  // replies still to come on this connection; nullptr: dropped
    std::unordered_set<std::string> scripts;  // SHA1s loaded through this connection
    std::uint64_t commands = 0;
  };

  int node_index(const std::string& host, int port);
  bool ensure_connected(Node& node, std::string& error);
  bool refresh_map(std::string& error);
  bool load_slots_from(const std::string& host, int port, std::string& error);
  int route(const Command& command, const std::string& upper_name) const;
  void send(int node, const Command& command, Entry* entry, bool asking = false);
  bool redirect(Entry& entry, const std::string& text, bool ask);
  bool read_one(Node& node, std::string& error);
  bool drain(std::string& error);

  std::vector<RedisUrl> seeds_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::array<int, kClusterSlots> owner_{};                    // node index per slot, -1: unassigned
  int any_master_ = 0;                                        // where key-less commands go
  std::deque<Entry> entries_;                                 // appended, reply not yet handed out
  std::unordered_map<std::string, std::string> script_text_;  // SHA1 -> text, to load elsewhere
  bool connected_ = false;
  bool refresh_due_ = false;
  std::string error_;  // a node failed: every read fails until the store reconnects
  std::uint64_t moved_ = 0;
  std::uint64_t asked_ = 0;
  std::uint64_t crossslot_ = 0;
  std::uint64_t refreshes_ = 0;
};

// A RealStore over the cluster at `seeds` ("host:port[,host:port...]"). Throws RedisUnreachable
// when no seed answers CLUSTER SLOTS or a master cannot be reached, std::invalid_argument for
// malformed seeds.
// Every node connection waits at most `io_timeout_ms` for a reply (or a write) before it counts as
// failed, as RealStoreOptions::io_timeout_ms for one server.
std::unique_ptr<RealStore> make_real_cluster_store(const std::string& seeds, bool keep_keys,
                                                   int io_timeout_ms = 10'000);

}  // namespace rlsim
