#include "search/bounds.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/expect.h"
#include "strategy/params.h"

namespace rlsim {

namespace {

bool rolling_metric(const std::string& metric) { return metric == "rolling_overshoot"; }

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

std::optional<AnalyticBound> analytic_bound(const SearchProblem& problem, std::uint32_t instances) {
  if (problem.metric != "overshoot" && !rolling_metric(problem.metric)) return std::nullopt;
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
