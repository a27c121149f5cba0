#include "search/mutate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "core/check.h"

namespace rlsim {

namespace {

TimeUs clamp_time(const SearchSpace& space, TimeUs at_us) {
  return std::clamp<TimeUs>(at_us, 0, std::max<TimeUs>(0, space.duration_us - 1));
}

// `count` requests packed one microsecond apart from `from_us`, instances round robin from
// `first_instance`, appended to `candidate`.
void add_packed(const SearchSpace& space, Candidate& candidate, std::size_t count, TimeUs from_us,
                std::uint32_t first_instance) {
  for (std::size_t i = 0; i < count; ++i)
    candidate.arrivals.push_back(
        {clamp_time(space, from_us + static_cast<TimeUs>(i)),
         static_cast<std::uint32_t>((first_instance + i) % candidate.instances)});
}

// `count` requests evenly spread over [from_us, to_us), instances round robin.
void add_spread(const SearchSpace& space, Candidate& candidate, std::size_t count, TimeUs from_us,
                TimeUs to_us) {
  const double step = count == 0 ? 0 : static_cast<double>(to_us - from_us) / count;
  for (std::size_t i = 0; i < count; ++i)
    candidate.arrivals.push_back(
        {clamp_time(space, from_us + static_cast<TimeUs>(std::floor(step * i))),
         static_cast<std::uint32_t>(i % candidate.instances)});
}

// A uniform value of a declared dimension's range (a choice's index for an enumerated one).
double uniform_in(const GoalRange& range, Rng& rng) {
  if (range.kind == GoalRange::Kind::kInteger)
    return range.lo +
           static_cast<double>(rng.below(static_cast<std::uint64_t>(range.hi - range.lo) + 1));
  return snap(range, range.lo + rng.uniform() * (range.hi - range.lo));
}

double uniform_value(const SearchDimension& d, Rng& rng) {
  if (!d.choices.empty()) return static_cast<double>(rng.below(d.choices.size()));
  return uniform_in(d.range, rng);
}

// Starting points' variants: `start` again with each declared dimension at each of its
// extremes (LO and HI, or each choice), the others as in `start`.
void add_extremes(const SearchSpace& space, const NamedCandidate& start,
                  std::vector<NamedCandidate>& out, const std::function<void(Candidate&)>& fill) {
  for (std::size_t i = 0; i < space.fields.size(); ++i) {
    for (const double x : dimension_extremes(space.fields[i])) {
      Candidate c = start.candidate;
      c.params[i] = x;
      out.push_back({fmt::format("{}, {}={}", start.name, space.fields[i].range.path,
                                 dimension_value_text(space.fields[i], x)),
                     std::move(c)});
    }
  }
  if (!space.instance_range) return;
  for (const double x : {space.instance_range->lo, space.instance_range->hi}) {
    Candidate c = start.candidate;
    c.arrivals.clear();
    c.instances = static_cast<std::uint32_t>(x);
    fill(c);  // the arrivals again, spread over the new instance count
    normalize(c);
    pace(space, c);
    out.push_back({fmt::format("{}, instances.count={}", start.name, c.instances), std::move(c)});
  }
}

NamedCandidate finished(const SearchSpace& space, std::string name, Candidate candidate) {
  normalize(candidate);
  pace(space, candidate);
  return {std::move(name), std::move(candidate)};
}

// Bursts across the first edge of each period: half packed just before it, half from it on;
// and the same burst a little earlier, so that the round trip carries it across.
void add_edge_bursts(const SearchSpace& space, const Candidate& base,
                     std::vector<NamedCandidate>& out) {
  const std::size_t n = space.requests;
  for (const DurationUs period_us : space.periods_us) {
    if (period_us >= space.duration_us) continue;
    for (const DurationUs lead_us : {DurationUs{0}, period_us / 20}) {
      Candidate c = base;
      const TimeUs edge_us = period_us - lead_us;
      add_packed(space, c, n / 2, edge_us - static_cast<TimeUs>(n / 2), 0);
      add_packed(space, c, n - n / 2, edge_us, static_cast<std::uint32_t>(n / 2));
      out.push_back(finished(
          space,
          fmt::format(
              "burst across the {} edge{}", format_duration(period_us),
              lead_us == 0 ? "" : fmt::format(" (sent {} early)", format_duration(lead_us))),
          std::move(c)));
    }
  }
}

}  // namespace

std::vector<NamedCandidate> starting_points(const SearchSpace& space, const Candidate& base) {
  std::vector<NamedCandidate> out;
  const std::size_t n = space.requests;
  Candidate spread = base;
  const auto fill_spread = [&](Candidate& c) { add_spread(space, c, n, 0, space.duration_us); };
  fill_spread(spread);
  out.push_back(finished(space, "even spread, round robin", spread));
  add_extremes(space, NamedCandidate(out.back()), out, fill_spread);  // a copy: `out` grows
  Candidate one_instance = spread;
  for (SearchArrival& arrival : one_instance.arrivals) arrival.instance = 0;
  out.push_back(finished(space, "even spread, all on instance 0", std::move(one_instance)));
  Candidate at_once = base;
  const auto fill_at_once = [&](Candidate& c) { add_packed(space, c, n, 0, 0); };
  fill_at_once(at_once);
  out.push_back(finished(space, "everything at once, one request per instance in turn", at_once));
  add_extremes(space, NamedCandidate(out.back()), out, fill_at_once);
  add_edge_bursts(space, base, out);
  // A full bucket spent at once, then the refill rate: a bucket's C + r x W.
  const std::size_t burst = std::min<std::size_t>(n, static_cast<std::size_t>(space.first_limit));
  Candidate bucket = base;
  add_packed(space, bucket, burst, 0, 0);
  add_spread(space, bucket, n - burst, static_cast<TimeUs>(burst), space.duration_us);
  out.push_back(finished(space, "the limit at once, the rest spread", std::move(bucket)));
  for (std::size_t f = 0; f < space.faults.size(); ++f) {
    Candidate at_fault = base;
    add_packed(space, at_fault, n, base.fault_at_us[f], 0);
    out.push_back(finished(space, fmt::format("everything at faults[{}]'s start", f), at_fault));
    Candidate early = base;
    early.fault_at_us[f] = space.faults[f].earliest_us;
    add_spread(space, early, n, 0, space.duration_us);
    out.push_back(
        finished(space, fmt::format("faults[{}] at its earliest, even spread", f), early));
  }
  return out;
}

Candidate random_candidate(const SearchSpace& space, const Candidate& base, Rng& rng) {
  Candidate c = base;
  c.arrivals.clear();
  if (space.instance_range)
    c.instances = static_cast<std::uint32_t>(uniform_in(*space.instance_range, rng));
  for (std::size_t i = 0; i < space.fields.size(); ++i)
    c.params[i] = uniform_value(space.fields[i], rng);
  const auto span = static_cast<std::uint64_t>(std::max<DurationUs>(1, space.duration_us));
  for (std::size_t i = 0; i < space.requests; ++i)
    c.arrivals.push_back(
        {static_cast<TimeUs>(rng.below(span)), static_cast<std::uint32_t>(rng.below(c.instances))});
  for (std::size_t f = 0; f < space.faults.size(); ++f) {
    const FaultRange& range = space.faults[f];
    c.fault_at_us[f] = range.earliest_us +
                       static_cast<TimeUs>(rng.below(
                           static_cast<std::uint64_t>(range.latest_us - range.earliest_us) + 1));
  }
  normalize(c);
  pace(space, c);
  return c;
}

namespace {

// A signed shift whose size is log-uniform between 1 us and the run's duration: small moves
// (a round trip, a microsecond of ordering) as often as large ones.
DurationUs random_shift(const SearchSpace& space, Rng& rng) {
  const double top = std::log(static_cast<double>(std::max<DurationUs>(2, space.duration_us)));
  const auto size = static_cast<DurationUs>(std::exp(rng.uniform() * top));
  return rng.below(2) == 0 ? size : -size;
}

// A contiguous run of arrivals [first, last), at most a quarter of them (at least one).
std::pair<std::size_t, std::size_t> random_block(const Candidate& c, Rng& rng) {
  const std::size_t n = c.arrivals.size();
  const std::size_t length = 1 + rng.below(std::max<std::size_t>(1, n / 4));
  const std::size_t first = rng.below(n - std::min(n, length) + 1);
  return {first, std::min(n, first + length)};
}

void shift_block(const SearchSpace& space, Candidate& c, std::size_t first, std::size_t last,
                 DurationUs shift_us) {
  for (std::size_t i = first; i < last; ++i)
    c.arrivals[i].at_us = clamp_time(space, c.arrivals[i].at_us + shift_us);
}

// Shifts a block so that its last request lands just before a period's edge, or its first on it.
void snap_block(const SearchSpace& space, Candidate& c, Rng& rng) {
  const auto [first, last] = random_block(c, rng);
  const DurationUs period_us = space.periods_us[rng.below(space.periods_us.size())];
  const bool before = rng.below(2) == 0;
  const TimeUs anchor_us = before ? c.arrivals[last - 1].at_us : c.arrivals[first].at_us;
  const TimeUs edge_us = (anchor_us + period_us / 2) / period_us * period_us;
  shift_block(space, c, first, last, edge_us - (before ? 1 : 0) - anchor_us);
}

void move_one(const SearchSpace& space, Candidate& c, Rng& rng) {
  const std::size_t n = c.arrivals.size();
  SearchArrival& arrival = c.arrivals[rng.below(n)];
  // Unpinned requests go where the balancer sends them: their instance is not moved.
  switch (rng.below(space.pinned ? 3 : 2)) {
    case 0:
      arrival.at_us = clamp_time(space, arrival.at_us + random_shift(space, rng));
      break;
    case 1:  // beside another request
      arrival.at_us =
          clamp_time(space, c.arrivals[rng.below(n)].at_us + static_cast<TimeUs>(rng.below(3)) - 1);
      break;
    default:
      arrival.instance = static_cast<std::uint32_t>(rng.below(c.instances));
      break;
  }
}

void move_fault(const SearchSpace& space, Candidate& c, Rng& rng) {
  const std::size_t f = rng.below(space.faults.size());
  const FaultRange& range = space.faults[f];
  c.fault_at_us[f] =
      std::clamp(c.fault_at_us[f] + random_shift(space, rng), range.earliest_us, range.latest_us);
}

// A declared dimension moved: a field to a uniform value or a step of up to a quarter of its
// range, or the instance count (requests above it move to instance % count).
void move_dimension(const SearchSpace& space, Candidate& c, Rng& rng) {
  const std::size_t which = rng.below(space.fields.size() + (space.instance_range ? 1 : 0));
  if (which == space.fields.size()) {
    set_instances(c, static_cast<std::uint32_t>(uniform_in(*space.instance_range, rng)));
    return;
  }
  const SearchDimension& d = space.fields[which];
  double& x = c.params[which];
  if (!d.choices.empty() || rng.below(2) == 0) {
    x = uniform_value(d, rng);
    return;
  }
  const double step = (rng.uniform() * 2 - 1) * (d.range.hi - d.range.lo) / 4;
  x = std::clamp(snap(d.range, x + step), d.range.lo, d.range.hi);
}

void mutate_once(const SearchSpace& space, Candidate& c, Rng& rng) {
  // Kinds 0-4 move requests, 5 a fault's start (when there are faults), the last a declared
  // dimension (when there are any): the default space draws exactly as it did before dimensions.
  const std::uint64_t request_kinds = space.faults.empty() ? 5 : 6;
  const bool dimensions = !space.fields.empty() || space.instance_range;
  std::uint64_t kind = rng.below(request_kinds + (dimensions ? 1 : 0));
  if (kind == request_kinds) {
    move_dimension(space, c, rng);
    return;
  }
  if (kind == 4 && !space.pinned) kind = 2;  // instances do not matter: shift a block instead
  switch (kind) {
    case 0:
    case 1:
      move_one(space, c, rng);
      break;
    case 2: {
      const auto [first, last] = random_block(c, rng);
      shift_block(space, c, first, last, random_shift(space, rng));
      break;
    }
    case 3:
      snap_block(space, c, rng);
      break;
    case 4: {  // a block's instances round robin from a random one
      const auto [first, last] = random_block(c, rng);
      const std::uint64_t start = rng.below(c.instances);
      for (std::size_t i = first; i < last; ++i)
        c.arrivals[i].instance = static_cast<std::uint32_t>((start + i - first) % c.instances);
      break;
    }
    default:
      move_fault(space, c, rng);
      break;
  }
}

}  // namespace

Candidate mutate(const SearchSpace& space, const Candidate& parent, Rng& rng) {
  RLSIM_CHECK(!parent.arrivals.empty());
  Candidate child = parent;
  const std::uint64_t moves = 1 + rng.below(3);
  for (std::uint64_t m = 0; m < moves; ++m) {
    mutate_once(space, child, rng);
    normalize(child);  // blocks are contiguous in time order
    pace(space, child);
    if (child.arrivals.empty()) return parent;
  }
  return child;
}

}  // namespace rlsim
