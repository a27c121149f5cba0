#pragma once
// Many runs at once: every (scenario variant, strategy, seed) of a sweep or a multi-seed run is one
// independent job on the thread pool (app/parallel.h), and the numeric metrics of the runs of one
// strategy over N seeds are summarised as mean, p5 and p95 (`rlsim run --seeds N`, `rlsim sweep`).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/run.h"

namespace rlsim {

// One simulation to run.
struct GridJob {
  const Scenario* scenario = nullptr;
  const ResolvedStrategy* strategy = nullptr;
  std::uint64_t seed = 0;
  bool keep_result = false;  // keep the whole StrategyResult (else only its JSON report)
};

struct GridOutcome {
  // Ctrl-C (app/interrupt.h) cuts the jobs running at that moment and skips those not started.
  enum class State { kComplete, kCut, kNotRun };
  State state = State::kComplete;
  std::optional<StrategyResult> result;  // when keep_result (and the job ran)
  nlohmann::ordered_json report;         // the strategy's object of the JSON report
  std::string divergence;                // with `twice`: first_divergence, "" when identical
};

// Runs every job on `threads` threads; outcome i belongs to job i whatever the thread count.
// With `twice`, each job runs twice and the two runs are compared (--check-determinism). Throws
// the RunError of the lowest-numbered failing job. After a Ctrl-C, jobs not yet started are
// skipped (kNotRun) and those running are cut (kCut).
std::vector<GridOutcome> run_grid(const std::vector<GridJob>& jobs, unsigned threads, bool twice);

// How many of a grid's runs a Ctrl-C left out: summaries over its outcomes cover only the
// complete runs.
struct GridPartial {
  std::string reason;  // "SIGINT"
  std::size_t runs = 0, complete = 0, cut = 0, not_run = 0;
};

// Unset when every job completed.
std::optional<GridPartial> grid_partial(const std::vector<GridOutcome>& outcomes);

// {"reason": "SIGINT", "runs": N, "complete": .., "cut": .., "not_run": ..}
nlohmann::ordered_json grid_partial_json(const GridPartial& partial);

// The one-line notice of a partial sweep or seed summary ("" when unset).
std::string grid_partial_notice(const std::optional<GridPartial>& partial);

// The seeds first, first + 1, ..., first + count - 1. Throws ScenarioError when they pass 2^64-1.
std::vector<std::uint64_t> seed_range(std::uint64_t first, std::uint64_t count);

// One numeric metric over the seeds: nearest-rank percentiles of the values, the mean in seed
// order.
struct MetricSummary {
  std::string path;  // as in lookup_metric: "overshoot", "latency_us.p99", "limits.per_user.excess"
  std::size_t runs = 0;  // seeds whose report has the metric
  double mean = 0, p5 = 0, p95 = 0, min = 0, max = 0;
};

// The summary of the metric at `path`, or nullptr when no report had it.
const MetricSummary* find_summary(const std::vector<MetricSummary>& summaries,
                                  const std::string& path);

// Summarises every numeric metric (outside "series") of one strategy's reports, one per seed, in
// the order the metrics first appear.
std::vector<MetricSummary> summarize_metrics(const std::vector<nlohmann::ordered_json>& reports);

// {"mean": .., "p5": .., "p95": .., "min": .., "max": .., "runs": ..}, values rounded to 6
// significant digits so that the file reads well.
nlohmann::ordered_json summary_json(const MetricSummary& summary);

// The head every summary file starts with: {"scenario": .., "seeds": [..], "partial": ..}, the
// partial only when set (seeds.json, sweep.json).
nlohmann::ordered_json summary_head_json(const std::string& scenario,
                                         const std::vector<std::uint64_t>& seeds,
                                         const std::optional<GridPartial>& partial);

// {"label": .., "metrics": {path: summary_json, ...}}: one strategy's summaries.
nlohmann::ordered_json strategy_summary_json(const std::string& label,
                                             const std::vector<MetricSummary>& summaries);

// Nearest-rank quantile of sorted values (q in (0, 1]); 0 for none.
double nearest_rank(const std::vector<double>& sorted, double q);

// "12.3 [10.1 .. 14.2]": a mean and its p5 .. p95 range, or the plain value when they agree.
std::string format_spread(const MetricSummary& summary);

// `rlsim run --seeds N`: the seeds' summary of every strategy, written as seeds.json and seeds.md
// into `dir`, and the headline metrics as text (returned) for the terminal.
struct SeedReport {
  std::string scenario;
  std::vector<std::uint64_t> seeds;
  // (label, the strategy's report for each complete seed, in seed order)
  std::vector<std::pair<std::string, std::vector<nlohmann::ordered_json>>> strategies;
  std::optional<GridPartial> partial;  // grid_partial of the runs: unset unless Ctrl-C cut some
};
nlohmann::ordered_json seeds_json(const SeedReport& report);
std::string seeds_markdown(const SeedReport& report, const std::string& reproduce);
std::string seeds_table(const SeedReport& report);

// `rlsim run --seeds N`: every strategy with every seed of `seeds` on `threads` threads. The first
// seed's whole results go to `first` (the ordinary report is written from them; a strategy whose
// first seed was not started by a Ctrl-C is missing); the returned report holds every complete
// seed's JSON report per strategy. With `twice`, each run is checked for
// determinism and `divergence` names the first failure ("" when every run reproduced).
SeedReport run_seeds(const Scenario& scenario, const std::vector<ResolvedStrategy>& strategies,
                     const std::vector<std::uint64_t>& seeds, unsigned threads, bool twice,
                     std::vector<StrategyResult>& first, std::string& divergence);

// Writes seeds.json and seeds.md into `dir`; an error message, or nullopt.
std::optional<std::string> write_seed_files(const SeedReport& report, const std::string& dir,
                                            const std::string& reproduce);

// The headline metrics shown in seed and sweep tables.
const std::vector<std::string>& headline_metrics();

}  // namespace rlsim
