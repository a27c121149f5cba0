#include "search/search.h"

#include <algorithm>

#include "core/check.h"
#include "search/mutate.h"

namespace rlsim {

void run_jobs_in_order(std::size_t count, const std::function<void(std::size_t)>& job) {
  for (std::size_t i = 0; i < count; ++i) job(i);
}

bool better(const SearchProblem& problem, double value, double than) {
  return problem.maximize ? value > than : value < than;
}

namespace {

struct Scored {
  Candidate candidate;
  double value = 0;
  std::string origin;
};

// The search's state between batches.
class Search {
 public:
  Search(const SearchProblem& problem, const SearchSettings& settings, const RunJobs& run_jobs)
      : problem_(problem), settings_(settings), run_jobs_(run_jobs) {}

  SearchOutcome run();

 private:
  // Runs `batch` (at most the remaining budget) and returns the scored candidates run.
  std::vector<Scored> evaluate(std::vector<Scored> batch);
  void consider(const std::vector<Scored>& scored);
  std::vector<Scored> children(std::uint64_t batch_index);
  std::vector<Scored> restart(std::uint64_t batch_index);
  bool done() const;

  const SearchProblem& problem_;
  const SearchSettings& settings_;
  const RunJobs& run_jobs_;
  std::vector<Scored> elites_;  // best first
  SearchOutcome out_;
  bool have_best_ = false;
  std::size_t stalled_ = 0;
};

std::vector<Scored> Search::evaluate(std::vector<Scored> batch) {
  const std::uint64_t left = settings_.budget_runs - std::min(settings_.budget_runs, out_.runs);
  if (batch.size() > left) batch.resize(left);
  std::vector<const Candidate*> candidates;
  candidates.reserve(batch.size());
  for (const Scored& s : batch) candidates.push_back(&s.candidate);
  std::size_t invalid = 0;
  const auto values = evaluate_all(problem_, candidates, run_jobs_, &invalid);
  // An invalid candidate is a run of the budget (else a space of invalid ones never ends).
  out_.runs += invalid;
  out_.invalid += invalid;
  // A run a stop request cut is left out: its value is not the candidate's.
  std::vector<Scored> done;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (!values[i]) continue;
    batch[i].value = *values[i];
    done.push_back(std::move(batch[i]));
  }
  return done;
}

void Search::consider(const std::vector<Scored>& scored) {
  bool improved = false;
  for (const Scored& s : scored) {
    ++out_.runs;
    if (!have_best_ || better(problem_, s.value, out_.best_value)) {
      have_best_ = true;
      improved = true;
      out_.best = s.candidate;
      out_.best_value = s.value;
      out_.best_origin = s.origin;
      out_.trajectory.push_back({out_.runs, s.value});
    }
    // Keep the elites best first; a tie keeps the earlier one.
    auto at = std::find_if(elites_.begin(), elites_.end(),
                           [&](const Scored& e) { return better(problem_, s.value, e.value); });
    elites_.insert(at, s);
    if (elites_.size() > settings_.elites) elites_.pop_back();
  }
  stalled_ = improved ? 0 : stalled_ + 1;
}

std::vector<Scored> Search::children(std::uint64_t batch_index) {
  std::vector<Scored> batch;
  for (std::size_t i = 0; i < settings_.batch; ++i) {
    // Each child's stream depends on (seed, batch, position) only, not on who runs it.
    Rng rng(settings_.seed, "search-mutation", batch_index * settings_.batch + i);
    const Scored& parent = elites_[i % elites_.size()];
    batch.push_back({mutate(problem_.space, parent.candidate, rng), 0, parent.origin});
  }
  return batch;
}

std::vector<Scored> Search::restart(std::uint64_t batch_index) {
  ++out_.restarts;
  elites_.clear();
  std::vector<Scored> batch;
  const Candidate base = empty_candidate(problem_.scenario, problem_.space);
  for (std::size_t i = 0; i < settings_.batch; ++i) {
    Rng rng(settings_.seed, "search-restart", batch_index * settings_.batch + i);
    batch.push_back({random_candidate(problem_.space, base, rng), 0,
                     "restart " + std::to_string(out_.restarts)});
  }
  return batch;
}

bool Search::done() const {
  if (out_.runs >= settings_.budget_runs) return true;
  return settings_.stop && settings_.stop({out_.runs, out_.best_value, out_.restarts});
}

SearchOutcome Search::run() {
  const Candidate base = empty_candidate(problem_.scenario, problem_.space);
  std::vector<Scored> starts;
  if (!settings_.skip_starts)
    for (NamedCandidate& start : starting_points(problem_.space, base))
      starts.push_back({std::move(start.candidate), 0, std::move(start.name)});
  for (std::size_t from = 0; from < starts.size() && !done(); from += settings_.batch) {
    const std::size_t to = std::min(starts.size(), from + settings_.batch);
    const auto scored =
        evaluate(std::vector<Scored>(starts.begin() + static_cast<std::ptrdiff_t>(from),
                                     starts.begin() + static_cast<std::ptrdiff_t>(to)));
    for (const Scored& s : scored) out_.starts.emplace_back(s.origin, s.value);
    consider(scored);
  }
  stalled_ = 0;
  for (std::uint64_t batch_index = 0; !done(); ++batch_index) {
    const bool stalled = stalled_ >= settings_.stall_batches || elites_.empty();
    consider(evaluate(stalled ? restart(batch_index) : children(batch_index)));
    if (stalled) stalled_ = 0;
  }
  out_.stopped = out_.runs < settings_.budget_runs;
  if (out_.trajectory.empty() || out_.trajectory.back().runs != out_.runs)
    out_.trajectory.push_back({out_.runs, out_.best_value});
  return out_;
}

}  // namespace

SearchOutcome run_search(const SearchProblem& problem, const SearchSettings& settings,
                         const RunJobs& run_jobs) {
  RLSIM_CHECK(settings.batch > 0 && settings.elites > 0);
  Search search(problem, settings, run_jobs);
  return search.run();
}

}  // namespace rlsim
