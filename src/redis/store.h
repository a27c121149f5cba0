#pragma once
// The data store seam: where commands take effect. The embedded MockStore implements it in
// process; a real Redis implements it over a socket. Timing (network, queueing, faults) lives in
// the server model above it, so swapping the store changes no timing and no strategy.
#include <cstdint>
#include <span>
#include <vector>

#include "core/time.h"
#include "redis/reply.h"

namespace rlsim {

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
};

}  // namespace rlsim
