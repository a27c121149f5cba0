#include "search/bounds.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/expect.h"
#include "strategy/params.h"

namespace rlsim {

namespace {

bool rolling_metric(const std::string& metric) { return metric == "rolling_overshoot"; }

// Whether every instance's clock reads true time: the bounds are stated on the true clock (an
// offset moves an instance's windows and refill times against the others' and the oracle's).
bool clocks_true(const Scenario& scenario) {
  bool offsets =
      scenario.instances.clock_spread_us != 0 || !scenario.instances.clock.faults.empty();
  for (const DurationUs offset_us : scenario.instances.clock_offsets) offsets |= offset_us != 0;
  return !offsets;
}

// The products' bounds hold only with true clocks and nothing failing (a fault makes them fail
// open).
bool clocks_true_and_no_faults(const Scenario& scenario) {
  return clocks_true(scenario) && scenario.faults.empty();
}

// Kong's rate-limiting plugin with `policy: redis` and no `sync_rate` (docs/products.md#kong-
// rate-limiting-kong): the EVAL INCRs the window's key before the decision, rejected requests
// included, so each Kong window admits at most L; an aligned window (or any window-long
// interval) meets two of them.
std::optional<AnalyticBound> kong_bound(const SearchProblem& problem) {
  const ParamReader params(problem.strategy.params);
  if (params.string("policy") != "redis" || params.optional_duration_us("sync_rate") ||
      params.is_set("limit_by") || !clocks_true_and_no_faults(problem.scenario))
    return std::nullopt;
  return AnalyticBound{2,
                       "2L / L = 2: Kong's EVAL INCRs each window's key before deciding, so a "
                       "window admits at most L, and a window-long interval meets two "
                       "(docs/products.md#kong-rate-limiting-kong)"};
}

// The bound for one limit, or nullopt.
std::optional<AnalyticBound> limit_bound(const SearchProblem& problem, const Limit& limit,
                                         std::uint32_t instances) {
  const StrategyInfo& info = *problem.strategy.info;
  const bool rolling = rolling_metric(problem.metric);
  const std::string& name = info.name;
  if (info.per_instance_limit && info.algorithm == Algorithm::kFixedWindow) {
    const double n = instances;
    if (rolling)
      return AnalyticBound{2 * n, fmt::format("2 x N x L / L = {}: each of N = {} instances admits "
                                              "L before and L after a window edge",
                                              format_number(2 * n), instances)};
    return AnalyticBound{n, fmt::format("N x L / L = {}: each of N = {} instances admits L per "
                                        "window",
                                        format_number(n), instances)};
  }
  if (name == "kong") return kong_bound(problem);
  if (name == "redis_fixed_window" || name == "redis_fixed_window_lua")
    return AnalyticBound{2, rolling ? "2L / L = 2: L at the end of one window, L at the start of "
                                      "the next"
                                    : "2L / L = 2: an aligned window is a window-long interval, "
                                      "where a fixed window admits at most 2L"};
  // The log holds at most L stamps in any window-long interval of the stamps' time, but the
  // oracle counts decision times: stamps made within one spread of decision delays (round trip,
  // queueing at Redis) of a window's start can be decided inside the next window-long interval.
  if (name == "redis_sliding_log")
    return AnalyticBound{2,
                         "(L + L) / L = 2: L stamps in any window-long interval of the stamps' "
                         "time, plus at most L more stamped within one spread of decision "
                         "delays of its start (docs/search.md#bounds)"};
  if (info.bucket_shape && !info.per_instance_limit) {
    const BucketShape shape = info.bucket_shape(ParamReader(problem.strategy.params), limit);
    const double window_s = static_cast<double>(limit.window_us) / kUsPerS;
    const double admitted = shape.capacity + shape.refill_per_s * window_s;
    const double ratio = admitted / static_cast<double>(limit.limit);
    return AnalyticBound{
        ratio, fmt::format("(C + r x W) / L = ({} + {} x {}) / {} = {}",
                           format_number(shape.capacity), format_number(shape.refill_per_s),
                           format_number(window_s), limit.limit, format_number(ratio))};
  }
  return std::nullopt;
}

}  // namespace

std::string no_bound_reason(const SearchProblem& problem) {
  if (problem.metric != "overshoot" && !rolling_metric(problem.metric))
    return "bounds are stated for overshoot and rolling_overshoot only";
  if (!clocks_true(problem.scenario))
    return "instance clocks are offset: each instance's windows and refills move with its clock, "
           "and the bounds are stated on true clocks";
  const std::string& name = problem.strategy.info->name;
  if (name == "kong") {
    const ParamReader params(problem.strategy.params);
    if (params.string("policy") == "local")
      return "Kong's local policy adds 1 after the decision, in a timer: a burst in one instant "
             "on one node is all admitted (Kong#2629)";
    if (params.optional_duration_us("sync_rate"))
      return "admissions made while a sync is on the wire are dropped, so a node's count can "
             "stay below what it admitted: no closed form (docs/products.md#kong-rate-limiting-"
             "kong)";
    return "stated only with no faults, no clock offsets and no limit_by (Kong's EVAL fails open "
           "with fault_tolerant, its windows follow the node's clock)";
  }
  if (name == "limitador_cached")
    return "each instance decides from its own cache until a flush answers; the analysis "
           "(limit + N + rate x flush_period) holds for steady traffic, not for an adversary "
           "who bursts across instances";
  if (name == "gubernator")
    return "non-owners decide on a copy the owner's broadcast refreshes; the analysis (two sync "
           "intervals of the key's traffic) holds for steady traffic only";
  return "no analytic worst case is stated for this strategy";
}

std::optional<AnalyticBound> analytic_bound(const SearchProblem& problem, std::uint32_t instances) {
  if (problem.metric != "overshoot" && !rolling_metric(problem.metric)) return std::nullopt;
  if (!clocks_true(problem.scenario)) return std::nullopt;
  std::optional<AnalyticBound> out;
  for (const Limit& limit : problem.scenario.limits) {
    if (limit.limit <= 0) continue;
    const auto bound = limit_bound(problem, limit, instances);
    if (!bound) return std::nullopt;  // a limit without a bound leaves the largest unknown
    if (!out || bound->value > out->value) out = bound;
  }
  return out;
}

}  // namespace rlsim
