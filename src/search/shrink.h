#pragma once
// Shrinking the worst case found (docs/search.md#shrinking): fewer faults, fewer requests (halves,
// then quarters, ... down to single requests, as delta debugging does), the requests moved to the
// first windows, the shortest duration and the fewest instances, each change kept only when the
// candidate still reaches `keep_share` of the value found (for --minimize: stays within
// 1 - keep_share of it). Candidates of one step run as a batch; the first that keeps wins, so the
// result does not depend on who runs the batch.
#include <cstdint>
#include <string>
#include <vector>

#include "search/search.h"

namespace rlsim {

struct ShrinkSettings {
  double keep_share = 0.95;
  std::uint64_t budget_runs = 600;  // runs the shrinker may use
};

struct ShrinkOutcome {
  Candidate candidate;
  double value = 0;  // its own value (what the written scenario pins)
  std::uint64_t runs = 0;
  std::vector<std::string> steps;  // what each kept change did, in order
};

// Whether a candidate valued `value` keeps enough of `found`.
bool keeps(const SearchProblem& problem, double value, double found, double keep_share);

// Shrinks `found` (valued `found_value`). Throws RunError or ScenarioError from a run.
ShrinkOutcome shrink(const SearchProblem& problem, const Candidate& found, double found_value,
                     const ShrinkSettings& settings, const RunJobs& run_jobs);

// The candidate without the arrivals [first, last).
Candidate without_arrivals(const Candidate& candidate, std::size_t first, std::size_t last);

// The candidate with every time (arrivals and kept faults) moved earlier by the largest whole
// number of `period_us` that keeps them at or after 0; itself when none fits.
Candidate moved_earlier(const Candidate& candidate, DurationUs period_us);

// The candidate's instances renumbered 0, 1, ... in order of first use, and the count cut to the
// instances used.
Candidate compacted_instances(const Candidate& candidate);

}  // namespace rlsim
