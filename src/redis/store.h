#pragma once
// The data store seam: where commands take effect. The embedded MockStore implements it in
// process; a real Redis implements it over a socket. Timing (network, queueing, faults) lives in
// the server model above it, so swapping the store changes no timing and no strategy.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/time.h"
#include "redis/reply.h"

namespace rlsim {

// One master of a real Redis Cluster, as its store reports it.
struct ClusterNodeReport {
  std::string address;         // "host:port" as CLUSTER SLOTS names it
  std::uint64_t commands = 0;  // commands sent to it (redirected and ASKING ones included)
  std::size_t slots = 0;       // slots it owns in the current map
};

// What a store routing over a real Redis Cluster reports about the routing.
struct ClusterReport {
  std::string seeds;  // "host:port,host:port" of the seeds given, without credentials
  std::vector<ClusterNodeReport> nodes;
  std::uint64_t moved = 0;
  std::uint64_t ask = 0;
  std::uint64_t crossslot = 0;
  std::uint64_t slot_map_reads = 0;  // CLUSTER SLOTS reads after the first
};

// What a store behind a socket reports about its backend, for the report's "backend" object.
struct BackendReport {
  std::string url;                       // without credentials
  std::optional<ClusterReport> cluster;  // set when the store routes over a Redis Cluster
  std::uint64_t calls_failed = 0;        // calls whose replies are errors of the connection
  std::uint64_t reconnects = 0;
  std::string failure;  // the first connection failure, "" when none
  // Set when the connection failed and could not be made again by the end of the run (the server
  // is gone): why the last attempt failed ("Connection refused"), and the virtual time the failure
  // was noticed (on the simulated server's clock, less kEpochUnixUs). The run's numbers are void
  // from then on: `rlsim run` reports the strategy as not run and exits 5 (engine/run.cpp).
  std::string lost;
  TimeUs lost_at_us = 0;
  // Set when the store stopped the run because a script ran away on the server (it answered BUSY,
  // or a script call got no reply in time, and SCRIPT KILL was sent): what happened; exit 4.
  std::string stopped;
};

// What a failover lost (the redis_failover fault, docs/faults.md#redis_failover): the writes the
// primary had acknowledged and not yet sent to its replica when it went away.
struct FailoverLoss {
  std::int64_t writes = 0;      // calls that changed data on the primary (a script's counts once)
  std::int64_t increments = 0;  // counter increments in them: INCR/INCRBY/DECR/DECRBY/HINCRBY
                                // amounts, members ZADD added (also inside scripts)
  std::int64_t commands = 0;    // data-changing commands in them, a script's own calls included
};

class DataStore {
 public:
  virtual ~DataStore() = default;
  // Executes `commands` in order, atomically with respect to other calls, as the server would at
  // virtual time `server_now_us` (which drives key expiry and TIME). Appends one reply per
  // command to `replies`. REQUIRES: server_now_us never decreases between calls.
  virtual void execute(std::span<const Command> commands, TimeUs server_now_us,
                       std::vector<Reply>& replies) = 0;
  // Number of live keys (for reports and memory bounds).
  virtual std::size_t key_count() const = 0;
  // Forgets every key and loaded script, as a Redis restarted without persistence does (the
  // redis_restart fault). A store behind a socket forgets only this run's keys and scripts.
  virtual void lose_data() = 0;
  // The primary went away and its replica serves from now on (the redis_failover fault): the
  // writes not yet replicated at `server_now_us` (on the store's clock) are gone, and so is the
  // script cache (a promoted replica has none). Returns what was lost; nullopt for a store
  // without a replica (nothing happens).
  virtual std::optional<FailoverLoss> fail_over(TimeUs /*server_now_us*/) { return std::nullopt; }

  // A store behind a socket (RealStore) answers later than it executes: the server model then
  // calls submit() when a call reaches the simulated server (in virtual-time order, so commands
  // are sent in that order, pipelined) and collect() when the simulation needs its replies, or
  // abandon() when the client gave up. The in-process MockStore keeps the one-step execute().
  virtual bool deferred() const { return false; }
  // Starts `commands` at `server_now_us`; returns a ticket for collect / abandon. Only called
  // when deferred().
  virtual std::uint64_t submit(std::span<const Command> /*commands*/, TimeUs /*server_now_us*/) {
    return 0;
  }
  // Appends the replies of `ticket` (one per command) to `replies`.
  virtual void collect(std::uint64_t /*ticket*/, std::vector<Reply>& /*replies*/) {}
  // The replies of `ticket` are not wanted (the client timed out): read and dropped in order.
  virtual void abandon(std::uint64_t /*ticket*/) {}

  // The backend of a store behind a socket (its URL, the cluster it routes over, its connection's
  // failures); nullopt for an in-process store.
  virtual std::optional<BackendReport> backend_report() const { return std::nullopt; }
  // The address of the server this store sends hash slot `slot` to; "" when it does not route by
  // slot (one server, an in-process store) or no server owns the slot.
  virtual std::string slot_owner(int /*slot*/) const { return ""; }
  // This store as simulated cluster node `node` sees it, when several simulated nodes share it (a
  // real Redis Cluster): the view's calls are marked as the node's (each node its own script
  // cache, as each master has) and its key_count() counts only the keys for which `owns` holds.
  // nullptr when the store cannot be shared (each embedded node has a store of its own).
  // REQUIRES: this store outlives the view.
  virtual std::shared_ptr<DataStore> node_view(
      int /*node*/, const std::function<bool(const std::string&)>& /*owns*/) {
    return nullptr;
  }
};

}  // namespace rlsim
