#pragma once
// The search loop (docs/search.md#the-method): the structured starting points, then local
// mutation of the best few candidates with restarts from random ones when progress stalls. Every
// candidate is one ordinary engine run (search/candidate.h). It runs in fixed batches whose
// candidates depend only on the seed and the results of earlier batches, so the result for a
// run budget is the same whatever runs the batches (one thread or many); parallelism and the
// wall clock are the caller's (RunJobs, SearchSettings::stop).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "search/candidate.h"

namespace rlsim {

// Calls job(0) .. job(count - 1) and returns when all are done, in any order or in parallel; a
// job's exception is rethrown (the lowest-numbered). The front end's thread pool.
using RunJobs = std::function<void(std::size_t count, const std::function<void(std::size_t)>& job)>;

// Runs jobs in the calling thread, in order.
void run_jobs_in_order(std::size_t count, const std::function<void(std::size_t)>& job);

struct TrajectoryPoint {
  std::uint64_t runs = 0;  // runs done when `best` was reached
  double best = 0;
};

struct SearchProgress {
  std::uint64_t runs = 0;
  double best = 0;
  std::uint64_t restarts = 0;
};

struct SearchSettings {
  std::uint64_t budget_runs = 2000;  // candidates run, at most (the deterministic budget)
  std::uint64_t seed = 1;            // the search's own random stream
  std::size_t batch = 16;            // candidates per batch
  std::size_t elites = 4;            // the best candidates mutated
  std::size_t stall_batches = 12;    // batches without a new best before a restart
  // Start from random candidates instead of the structured starting points (a shard other than
  // the first, search/shard.h: the first shard runs those).
  bool skip_starts = false;
  // Asked after every batch; true stops the search (a wall-time budget, Ctrl-C). Unset: never.
  std::function<bool(const SearchProgress&)> stop;
};

struct SearchOutcome {
  Candidate best;
  double best_value = 0;
  std::string best_origin;  // the starting point, or "restart N", its best descends from
  std::uint64_t runs = 0;
  std::uint64_t restarts = 0;
  std::uint64_t invalid = 0;  // runs whose candidate was no valid scenario (CandidateInvalid)
  bool stopped = false;       // settings.stop ended it before the run budget
  std::vector<TrajectoryPoint> trajectory;             // every new best, then the last run
  std::vector<std::pair<std::string, double>> starts;  // each starting point's value
};

// Searches `problem` within settings.budget_runs runs (the starting points first, as many as the
// budget holds). Throws RunError or ScenarioError from a run.
SearchOutcome run_search(const SearchProblem& problem, const SearchSettings& settings,
                         const RunJobs& run_jobs);

// Whether `value` is better than `than` for the problem's direction.
bool better(const SearchProblem& problem, double value, double than);

}  // namespace rlsim
