#pragma once
// The network between the app instances themselves, for strategies whose instances call each
// other (gubernator's peers) rather than Redis. The links are up unless a `peer_partition` fault
// (docs/faults.md) is active: each such fault splits the instances in two, those it lists and the
// rest ("all": every instance alone), and a link is cut while any active fault separates its two
// ends. The fault injector (world/fault_injection.h) sets the active faults; a strategy asks
// cut() when it sends a message and when the message would arrive. How long a message takes is
// the strategy's own model.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "scenario/model.h"

namespace rlsim {

class PeerLinks {
 public:
  // The active peer_partition faults (only their instance lists are read; at most the scenario's
  // fault count).
  void set_partitions(const std::vector<const FaultSpec*>& partitions) {
    splits_.clear();
    for (const FaultSpec* fault : partitions)
      splits_.push_back(Split{fault->all_instances, fault->instances});
  }

  // Whether a message from instance `from` to instance `to` is dropped now.
  bool cut(std::uint32_t from, std::uint32_t to) const {
    if (from == to) return false;
    for (const Split& split : splits_)
      if (split.all || split.lists(from) != split.lists(to)) return true;
    return false;
  }

 private:
  struct Split {
    bool all = false;
    std::vector<std::uint32_t> listed;
    bool lists(std::uint32_t id) const {
      return std::find(listed.begin(), listed.end(), id) != listed.end();
    }
  };
  std::vector<Split> splits_;
};

}  // namespace rlsim
