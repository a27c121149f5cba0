#pragma once
// A search spread over processes or machines (docs/search.md#several-machines): `rlsim search
// --shard K/N` runs the whole search from its own seed (shard 1 from the search's seed, with the
// structured starting points; shard K > 1 from a seed derived from it and K, starting from random
// candidates) and writes its best candidate unshrunk; `rlsim merge` picks the best of the N,
// shrinks it and writes the files of one search. Each shard is deterministic for its seed and run
// budget, so the merge is too. These are the pure parts: the shard's seed and its best candidate
// as JSON and back; the files are the front end's.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "search/search.h"

namespace rlsim {

// The search seed of shard `index` (1-based) of a search whose seed is `seed`.
std::uint64_t shard_search_seed(std::uint64_t seed, std::uint64_t index);

// The candidate as JSON: arrivals as [time_us, instance] pairs, faults, duration, instances and
// declared fields' values.
nlohmann::ordered_json candidate_json(const Candidate& candidate);

// The candidate of candidate_json, checked against the problem's space (sizes, ranges, at most
// kMaxSearchRequests arrivals). Throws ScenarioError naming `where` and the field.
Candidate candidate_from_json(const nlohmann::ordered_json& json, const SearchProblem& problem,
                              const std::string& where);

}  // namespace rlsim
