#pragma once
// Where the search starts and how it moves (docs/search.md#the-method): structured starting
// points that put what an adversary would try first into the first runs (bursts aligned with
// window and refill edges, one request per instance at once, everything at a fault's start), and
// small random changes to a candidate for the local search. Pure functions of their inputs and
// the random stream they are handed.
#include <string>
#include <vector>

#include "core/rng.h"
#include "search/space.h"

namespace rlsim {

struct NamedCandidate {
  std::string name;  // "burst across the 1s edge", as the report lists starting points
  Candidate candidate;
};

// The structured starting points for `space`, built on `base` (its faults, duration, instances),
// in a fixed order. Each holds exactly space.requests arrivals inside [0, space.duration_us).
std::vector<NamedCandidate> starting_points(const SearchSpace& space, const Candidate& base);

// A candidate with space.requests arrivals at uniformly random times and instances, and each
// fault's start uniform in its range: where a restart begins.
Candidate random_candidate(const SearchSpace& space, const Candidate& base, Rng& rng);

// `parent` changed by one to three small moves: a request's time or instance, a block of
// requests shifted or snapped to an edge, a request moved beside another, a fault's start.
// Arrivals stay inside [0, space.duration_us), instances below parent.instances, fault starts in
// their ranges; the result is normalized.
Candidate mutate(const SearchSpace& space, const Candidate& parent, Rng& rng);

}  // namespace rlsim
