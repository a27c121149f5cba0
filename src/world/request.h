#pragma once
// One client request as the world produces it. Keys are small integers so that limiters and the
// oracle can index by them; world/catalog.h turns them back into the strings real code would use.
#include <cstdint>

#include "core/time.h"

namespace rlsim {

struct Request {
  std::uint64_t id = 0;        // unique within a run, in arrival order per traffic group
  TimeUs arrival_us = 0;       // true time the request reaches the load balancer
  std::uint32_t user = 0;      // global user id (groups get consecutive ranges)
  std::uint32_t ip = 0;        // global client IP id
  std::uint32_t endpoint = 0;  // index into the catalog's endpoint names
  std::uint32_t group = 0;     // traffic group index
  std::uint32_t region = 0;    // the region whose load balancer it reaches (docs/regions.md)
};

}  // namespace rlsim
