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
};

}  // namespace rlsim
