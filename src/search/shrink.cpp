#include "search/shrink.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

namespace rlsim {

bool keeps(const SearchProblem& problem, double value, double found, double keep_share) {
  if (problem.maximize) return value >= keep_share * found;
  return value <= found + (1 - keep_share) * std::abs(found);
}

Candidate without_arrivals(const Candidate& candidate, std::size_t first, std::size_t last) {
  Candidate out = candidate;
  out.arrivals.erase(out.arrivals.begin() + static_cast<std::ptrdiff_t>(first),
                     out.arrivals.begin() + static_cast<std::ptrdiff_t>(last));
  return out;
}

Candidate moved_earlier(const Candidate& candidate, DurationUs period_us) {
  TimeUs earliest_us = candidate.duration_us;
  for (const SearchArrival& arrival : candidate.arrivals)
    earliest_us = std::min(earliest_us, arrival.at_us);
  for (std::size_t f = 0; f < candidate.fault_kept.size(); ++f)
    if (candidate.fault_kept[f]) earliest_us = std::min(earliest_us, candidate.fault_at_us[f]);
  const TimeUs shift_us = period_us <= 0 ? 0 : earliest_us / period_us * period_us;
  Candidate out = candidate;
  for (SearchArrival& arrival : out.arrivals) arrival.at_us -= shift_us;
  for (std::size_t f = 0; f < out.fault_kept.size(); ++f)
    if (out.fault_kept[f]) out.fault_at_us[f] -= shift_us;
  return out;
}

Candidate compacted_instances(const Candidate& candidate) {
  std::map<std::uint32_t, std::uint32_t> renumbered;
  Candidate out = candidate;
  for (SearchArrival& arrival : out.arrivals) {
    const auto [it, added] =
        renumbered.try_emplace(arrival.instance, static_cast<std::uint32_t>(renumbered.size()));
    arrival.instance = it->second;
  }
  out.instances = std::max<std::uint32_t>(1, static_cast<std::uint32_t>(renumbered.size()));
  normalize(out);
  return out;
}

namespace {

class Shrinker {
 public:
  Shrinker(const SearchProblem& problem, const Candidate& found, double found_value,
           const ShrinkSettings& settings, const RunJobs& run_jobs)
      : problem_(problem), settings_(settings), run_jobs_(run_jobs), found_value_(found_value) {
    out_.candidate = found;
    out_.value = found_value;
  }

  ShrinkOutcome run();

 private:
  // Runs the tries (as many as the budget holds) and adopts the first that keeps; true if one did.
  bool adopt_first(const std::vector<Candidate>& tries, const std::string& step);
  void drop_faults();
  void drop_requests();
  void shorten();

  const SearchProblem& problem_;
  const ShrinkSettings& settings_;
  const RunJobs& run_jobs_;
  double found_value_;
  ShrinkOutcome out_;
};

bool Shrinker::adopt_first(const std::vector<Candidate>& tries, const std::string& step) {
  const std::uint64_t left = settings_.budget_runs - std::min(settings_.budget_runs, out_.runs);
  const std::size_t count = std::min<std::size_t>(tries.size(), left);
  std::vector<const Candidate*> candidates;
  for (std::size_t i = 0; i < count; ++i) candidates.push_back(&tries[i]);
  const auto values = evaluate_all(problem_, candidates, run_jobs_);
  out_.runs += count;
  for (std::size_t i = 0; i < count; ++i) {
    // A run a stop request cut keeps nothing: the shrink ends with what it has.
    if (!values[i] || !keeps(problem_, *values[i], found_value_, settings_.keep_share)) continue;
    out_.candidate = tries[i];
    out_.value = *values[i];
    out_.steps.push_back(fmt::format("{} ({} requests, value {})", step,
                                     out_.candidate.arrivals.size(), *values[i]));
    return true;
  }
  return false;
}

void Shrinker::drop_faults() {
  bool dropped = true;
  while (dropped) {
    std::vector<Candidate> tries;
    for (std::size_t f = 0; f < out_.candidate.fault_kept.size(); ++f) {
      if (!out_.candidate.fault_kept[f]) continue;
      tries.push_back(out_.candidate);
      tries.back().fault_kept[f] = false;
    }
    dropped = !tries.empty() && adopt_first(tries, "dropped a fault");
  }
}

// Delta debugging over the requests: remove chunks of `chunk` requests, halving the chunk when
// no removal keeps the value.
void Shrinker::drop_requests() {
  std::size_t chunk = out_.candidate.arrivals.size() / 2;
  while (chunk >= 1 && out_.runs < settings_.budget_runs) {
    std::vector<Candidate> tries;
    const std::size_t n = out_.candidate.arrivals.size();
    for (std::size_t first = 0; first < n && n > 1; first += chunk)
      tries.push_back(without_arrivals(out_.candidate, first, std::min(n, first + chunk)));
    if (!adopt_first(tries, fmt::format("removed {} request(s)", chunk)))
      chunk /= 2;
    else
      chunk = std::min(chunk, out_.candidate.arrivals.size() / 2);
  }
}

// The requests moved to the first windows, then the run cut just after its last request (and its
// faults' ends), then the instances cut to those used.
void Shrinker::shorten() {
  DurationUs longest_us = 0;
  for (const Limit& limit : problem_.scenario.limits)
    longest_us = std::max(longest_us, limit.window_us);
  const Candidate earlier = moved_earlier(out_.candidate, longest_us);
  if (!(earlier == out_.candidate)) adopt_first({earlier}, "moved to the first windows");
  const Candidate& c = out_.candidate;
  TimeUs end_us = c.arrivals.empty() ? 0 : c.arrivals.back().at_us + 1;
  for (std::size_t f = 0; f < c.fault_kept.size(); ++f)
    if (c.fault_kept[f])
      end_us = std::max(end_us, c.fault_at_us[f] + problem_.scenario.faults[f].for_us + 1);
  std::vector<Candidate> tries;
  for (const DurationUs unit_us : {kUsPerMs, longest_us}) {
    Candidate shorter = c;
    shorter.duration_us = std::max<DurationUs>(unit_us, (end_us + unit_us - 1) / unit_us * unit_us);
    if (shorter.duration_us < c.duration_us) tries.push_back(shorter);
  }
  if (!tries.empty()) adopt_first(tries, "shortened the run");
  bool named_instances = false;
  for (std::size_t f = 0; f < c.fault_kept.size(); ++f)
    named_instances |= c.fault_kept[f] && !problem_.scenario.faults[f].all_instances;
  const Candidate fewer = compacted_instances(out_.candidate);
  // Unpinned requests (the balancer routes them) use no instance in particular: nothing to cut.
  if (problem_.space.pinned && !named_instances && fewer.instances < out_.candidate.instances)
    adopt_first({fewer}, fmt::format("cut to {} instance(s)", fewer.instances));
}

ShrinkOutcome Shrinker::run() {
  drop_faults();
  drop_requests();
  shorten();
  // Runs are deterministic: out_.value is the shrunk candidate's own value (the found value when
  // no change kept it), what `rlsim check` reruns.
  return out_;
}

}  // namespace

ShrinkOutcome shrink(const SearchProblem& problem, const Candidate& found, double found_value,
                     const ShrinkSettings& settings, const RunJobs& run_jobs) {
  Shrinker shrinker(problem, found, found_value, settings, run_jobs);
  return shrinker.run();
}

}  // namespace rlsim
