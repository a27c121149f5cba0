#include "report/openmetrics.h"

#include <fmt/format.h>

#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

#include "core/check.h"

namespace rlsim {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

// One metric family's metadata, written once before all of its samples.
struct Family {
  std::string_view name;  // without the _total / _bucket suffixes of its samples
  std::string_view type;
  std::string_view unit;  // empty: no # UNIT line; otherwise the name ends with "_" + unit
  std::string_view help;
};

// A label value inside double quotes: backslash, double quote and newline escaped.
std::string escape_label_value(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// Whole microseconds as seconds in exact decimal ("12", "0.0005", "-3.25"): no rounding through a
// double, so the same time always gives the same text. With `force_fraction`, a whole number gets
// ".0" (the canonical form of a histogram's `le` label).
std::string micros_as_seconds(std::int64_t us, bool force_fraction = false) {
  const bool negative = us < 0;
  const std::uint64_t magnitude =
      negative ? static_cast<std::uint64_t>(-(us + 1)) + 1 : static_cast<std::uint64_t>(us);
  std::string out = fmt::format("{}{}", negative ? "-" : "", magnitude / kUsPerS);
  std::string fraction = fmt::format("{:06}", magnitude % kUsPerS);
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  if (!fraction.empty()) return out + "." + fraction;
  return force_fraction ? out + ".0" : out;
}

class Writer {
 public:
  explicit Writer(std::int64_t epoch_unix_s) : epoch_us_(epoch_unix_s * kUsPerS) {}

  void family(const Family& family) {
    out_ += fmt::format("# TYPE {} {}\n", family.name, family.type);
    if (!family.unit.empty()) out_ += fmt::format("# UNIT {} {}\n", family.name, family.unit);
    out_ += fmt::format("# HELP {} {}\n", family.name, family.help);
  }

  // One sample of `name` with `labels` at virtual time `at_us`.
  void sample(std::string_view name, const Labels& labels, std::string_view value, TimeUs at_us) {
    out_ += name;
    if (!labels.empty()) {
      out_ += '{';
      for (std::size_t i = 0; i < labels.size(); ++i) {
        if (i > 0) out_ += ',';
        out_ += fmt::format("{}=\"{}\"", labels[i].first, escape_label_value(labels[i].second));
      }
      out_ += '}';
    }
    out_ += fmt::format(" {} {}\n", value, micros_as_seconds(epoch_us_ + at_us));
  }

  std::string finish() { return std::move(out_) + "# EOF\n"; }

 private:
  std::int64_t epoch_us_;
  std::string out_;
};

constexpr Family kDecisions{
    "rlsim_decisions", "counter", "",
    "Decisions of the strategy by outcome (allowed or denied: each decision is one of the two), "
    "at the end of each window of the scenario's first limit"};
constexpr Family kErrors{"rlsim_decision_errors", "counter", "",
                         "Decisions during which a Redis call failed or timed out (each also "
                         "counts as allowed or denied), per window of the first limit"};
constexpr Family kFallbacks{"rlsim_fallback_decisions", "counter", "",
                            "Decisions the error policy made instead of Redis: every failed "
                            "call and every call an open breaker cut short (each also counts as "
                            "allowed or denied), per Redis series bucket"};
constexpr Family kLatency{"rlsim_rate_check_latency_seconds", "histogram", "seconds",
                          "Latency the rate check added to each request (decision time minus "
                          "arrival), per window of the first limit"};
constexpr Family kExcess{"rlsim_excess", "counter", "",
                         "Admissions beyond the limit in their key's aligned window, as the "
                         "oracle counts them on true time, per window of the first limit"};
constexpr Family kCommands{"rlsim_redis_commands", "counter", "",
                           "Commands the Redis node started, per Redis series bucket"};
constexpr Family kUtilization{"rlsim_redis_utilization_ratio", "gauge", "ratio",
                              "Share of the Redis node's time spent executing commands over the "
                              "bucket that ends at the sample"};
constexpr Family kQueue{"rlsim_redis_queue_length_max", "gauge", "",
                        "Most commands queued in front of a starting call on the Redis node "
                        "over the bucket that ends at the sample"};

Labels strategy_labels(const RunResult& result, const StrategyResult& strategy) {
  return {{"scenario", result.scenario->name}, {"strategy", strategy.label}};
}

Labels with(Labels labels, std::string name, std::string value) {
  labels.emplace_back(std::move(name), std::move(value));
  return labels;
}

// A counter over the first limit's windows: 0 at the start of the first window, then the running
// total of `count(point)` at the end of each window.
template <typename Count>
void window_counter(Writer& out, std::string_view name, const Labels& labels,
                    const StrategyResult& strategy, DurationUs window_us, Count count) {
  const std::vector<SeriesPoint>& series = strategy.totals.series;
  if (series.empty()) return;
  const std::string sample_name = std::string(name) + "_total";
  out.sample(sample_name, labels, "0", series.front().start_us);
  std::int64_t total = 0;
  for (const SeriesPoint& point : series) {
    total += count(point);
    out.sample(sample_name, labels, fmt::format("{}", total), point.start_us + window_us);
  }
}

// The latency histogram over the first limit's windows: all zero at the start of the first window,
// then at the end of each window the cumulative buckets, count and sum of every window so far.
void window_histogram(Writer& out, const Labels& labels, const StrategyResult& strategy,
                      DurationUs window_us) {
  const std::vector<SeriesPoint>& series = strategy.totals.series;
  if (series.empty()) return;
  const std::string name(kLatency.name);
  std::array<std::uint64_t, kSeriesLatencyBoundsUs.size() + 1> totals{};
  std::int64_t sum_us = 0;
  const auto point_sample = [&](TimeUs at_us) {
    std::uint64_t below = 0;
    for (std::size_t b = 0; b < totals.size(); ++b) {
      below += totals[b];
      const std::string le = b < kSeriesLatencyBoundsUs.size()
                                 ? micros_as_seconds(kSeriesLatencyBoundsUs[b], true)
                                 : std::string("+Inf");
      out.sample(name + "_bucket", with(labels, "le", le), fmt::format("{}", below), at_us);
    }
    out.sample(name + "_count", labels, fmt::format("{}", below), at_us);
    out.sample(name + "_sum", labels, micros_as_seconds(sum_us), at_us);
  };
  point_sample(series.front().start_us);
  for (const SeriesPoint& point : series) {
    for (std::size_t b = 0; b < totals.size(); ++b) totals[b] += point.latency_buckets[b];
    sum_us += point.latency_sum_us;
    point_sample(point.start_us + window_us);
  }
}

DurationUs bucket_us(double bucket_s) { return std::llround(bucket_s * kUsPerS); }

// A counter over a per-second series of `bucket_s` buckets from virtual time 0 (the Redis side's
// series): 0 at time 0 (also when the series is empty: a node no command reached), then the
// running total of value * bucket_s at the end of each bucket.
void bucket_counter(Writer& out, std::string_view name, const Labels& labels,
                    const BucketSeries<double>& per_s) {
  const std::string sample_name = std::string(name) + "_total";
  const DurationUs step_us = bucket_us(per_s.bucket_s);
  out.sample(sample_name, labels, "0", 0);
  std::int64_t total = 0;
  for (std::size_t i = 0; i < per_s.values.size(); ++i) {
    // The series holds count / bucket_s rounded to 4 places: the product rounds back to the count.
    total += std::llround(per_s.values[i] * per_s.bucket_s);
    out.sample(sample_name, labels, fmt::format("{}", total), static_cast<TimeUs>(i + 1) * step_us);
  }
}

// A gauge of one value per bucket, each at the end of its bucket.
template <typename Value>
void bucket_gauge(Writer& out, std::string_view name, const Labels& labels,
                  const BucketSeries<Value>& series) {
  const DurationUs step_us = bucket_us(series.bucket_s);
  for (std::size_t i = 0; i < series.values.size(); ++i)
    out.sample(name, labels, fmt::format("{}", series.values[i]),
               static_cast<TimeUs>(i + 1) * step_us);
}

// The Redis nodes a strategy run measured, with their `node` label: "redis" for the single server,
// the node's index on an embedded cluster.
std::vector<std::pair<std::string, const NodeResult*>> named_nodes_of(
    const StrategyResult& strategy) {
  std::vector<std::pair<std::string, const NodeResult*>> nodes;
  if (!strategy.redis_side) return nodes;
  if (strategy.redis_side->redis_node)
    nodes.emplace_back("redis", &*strategy.redis_side->redis_node);
  for (const NodeResult& node : strategy.redis_side->redis_nodes)
    nodes.emplace_back(fmt::format("{}", node.node.value_or(0)), &node);
  return nodes;
}

void decision_families(Writer& out, const RunResult& result, DurationUs window_us) {
  out.family(kDecisions);
  for (const StrategyResult& strategy : result.strategies) {
    const Labels labels = strategy_labels(result, strategy);
    window_counter(out, kDecisions.name, with(labels, "outcome", "allowed"), strategy, window_us,
                   [](const SeriesPoint& p) { return p.admitted; });
    window_counter(out, kDecisions.name, with(labels, "outcome", "denied"), strategy, window_us,
                   [](const SeriesPoint& p) { return p.denied; });
  }
  out.family(kErrors);
  for (const StrategyResult& strategy : result.strategies)
    window_counter(out, kErrors.name, strategy_labels(result, strategy), strategy, window_us,
                   [](const SeriesPoint& p) { return p.errors; });
  out.family(kFallbacks);
  for (const StrategyResult& strategy : result.strategies) {
    if (!strategy.redis_side || !strategy.redis_side->resilience) continue;
    const auto& fallback_series = strategy.redis_side->resilience->fallback_series;
    if (fallback_series)
      bucket_counter(out, kFallbacks.name, strategy_labels(result, strategy), *fallback_series);
  }
  out.family(kLatency);
  for (const StrategyResult& strategy : result.strategies)
    window_histogram(out, strategy_labels(result, strategy), strategy, window_us);
}

void excess_family(Writer& out, const RunResult& result, DurationUs window_us) {
  out.family(kExcess);
  const std::vector<Limit>& limits = result.scenario->limits;
  for (const StrategyResult& strategy : result.strategies) {
    for (std::size_t i = 0; i < limits.size(); ++i) {
      window_counter(out, kExcess.name,
                     with(strategy_labels(result, strategy), "limit", limits[i].name), strategy,
                     window_us, [i](const SeriesPoint& p) {
                       return i < p.excess_by_limit.size() ? p.excess_by_limit[i] : 0;
                     });
    }
  }
}

void redis_families(Writer& out, const RunResult& result) {
  out.family(kCommands);
  for (const StrategyResult& strategy : result.strategies)
    for (const auto& [node, stats] : named_nodes_of(strategy))
      bucket_counter(out, kCommands.name, with(strategy_labels(result, strategy), "node", node),
                     stats->ops_per_s);
  out.family(kUtilization);
  for (const StrategyResult& strategy : result.strategies)
    for (const auto& [node, stats] : named_nodes_of(strategy))
      bucket_gauge(out, kUtilization.name, with(strategy_labels(result, strategy), "node", node),
                   stats->utilization_series);
  out.family(kQueue);
  for (const StrategyResult& strategy : result.strategies)
    for (const auto& [node, stats] : named_nodes_of(strategy))
      bucket_gauge(out, kQueue.name, with(strategy_labels(result, strategy), "node", node),
                   stats->queue_length_max_series);
}

}  // namespace

std::string openmetrics_text(const RunResult& result, std::int64_t epoch_unix_s) {
  RLSIM_CHECK(result.scenario != nullptr && !result.scenario->limits.empty());
  const DurationUs window_us = result.scenario->limits.front().window_us;
  Writer out(epoch_unix_s);
  decision_families(out, result, window_us);
  excess_family(out, result, window_us);
  redis_families(out, result);
  return out.finish();
}

}  // namespace rlsim
