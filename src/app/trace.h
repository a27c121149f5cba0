#pragma once
// The decision trace (`rlsim run --trace FILE`, docs/metrics.md#decision-trace): one JSON line per
// decision, in decision order, strategy after strategy, with what the strategy decided, the count
// it saw and the count the oracle held on true time. It is a measurement like any other: a
// DecisionObserver added to each strategy's session after the run's own observers, so it changes
// no decision and no figure of the report.
//
// Bounded: a 1-in-N sample (--trace-sample) keyed on the seed and the request id only, so the same
// requests are sampled for every strategy and the run's own random streams are untouched; every
// error, fallback and false denial is written whatever the sample; and a size cap
// (--trace-max-mb): the line that would pass it is not written, nor any after it.
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "engine/run.h"
#include "oracle/oracle.h"
#include "world/catalog.h"

namespace rlsim {

inline constexpr std::int64_t kBytesPerMb = 1'000'000;
inline constexpr std::int64_t kDefaultTraceMaxMb = 256;
inline constexpr std::int64_t kMaxTraceMaxMb = 1'000'000;  // 1 TB: --trace-max-mb's upper bound

struct TraceOptions {
  std::string path;
  std::uint64_t sample_every = 1;  // 1: every decision
  std::int64_t max_bytes = kDefaultTraceMaxMb * kBytesPerMb;
};

// Why a decision was an error, as far as the run knows: the strategy reports a failed or timed-out
// Redis call as one bit (Decision::error), the run adds the instance it lost.
enum class TraceError { kNone, kRedis, kInstanceCrashed, kNoInstance };
const char* to_string(TraceError error);  // "redis", "instance_crashed", "no_instance"; "" none

// One decision, as one line of the trace says it.
struct TraceLine {
  TimeUs t_us = 0;  // true time of the decision, from the start of the run
  std::uint64_t request = 0;
  int instance = -1;            // -1: none was running
  std::size_t limit_index = 0;  // the limit that denied, else the first
  std::string key;              // that limit's key, as real code would build it ("42", "/search")
  bool allowed = true;
  int denied_by = -1;
  std::int64_t observed_count = -1;  // what the strategy saw before this request; -1: unknown
  std::int64_t true_count = 0;       // the oracle's admissions of the key in its window before it
  TraceError error = TraceError::kNone;
  bool fallback = false;
  bool false_denial = false;
  DurationUs latency_us = 0;
  bool sampled =
      true;  // in the 1-in-N sample (false: written as an error, fallback or false denial)
};

// Renders lines of one strategy as JSON text: the label and the limits' names are escaped once.
class TraceFormat {
 public:
  TraceFormat(const std::string& label, const std::vector<Limit>& limits);
  // Appends `line` as one JSON object and a newline.
  void append(const TraceLine& line, std::string& out) const;

 private:
  std::string label_;  // as JSON strings, quotes included
  std::vector<std::string> limits_;
};

// The trace's file: written in whole lines up to the cap, then left as it is.
class TraceFile {
 public:
  // Creates or truncates options.path. Throws RunError (kOutput) naming the file
  // and the system's reason when it cannot be opened; `messages` gets the line that says writing
  // stopped (the cap, or a failed write).
  TraceFile(TraceOptions options, std::ostream& messages);
  ~TraceFile();
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;

  const TraceOptions& options() const { return options_; }
  // Counts a decision of a traced strategy (written or not).
  void count_decision() { ++summary_.decisions; }
  // True once writing stopped: nothing more is written.
  bool stopped() const { return !summary_.stopped.empty(); }
  // Writes `text` (one line, with its newline) unless writing stopped; a line that would pass the
  // cap stops writing instead, and is dropped with every later one. `label` and `t_us` say which
  // decision was the first not written.
  void write(const std::string& text, const std::string& label, TimeUs t_us);
  // Flushes and closes the file (a failure to is reported as a stop); what was written. Call once.
  TraceSummary close();

 private:
  void stop(std::string reason, const std::string& label, TimeUs t_us);

  TraceOptions options_;
  std::ostream& messages_;
  std::FILE* file_ = nullptr;
  TraceSummary summary_;
};

// Watches one strategy's decisions and writes the sampled ones (and every error, fallback and
// false denial) into a TraceFile. Added after the run's observers, so the oracle has already
// counted the decision it is told of (Oracle::last_verdict).
class TraceObserver final : public DecisionObserver {
 public:
  // `seed` keys the sample (the run's seed); everything referenced outlives the observer.
  TraceObserver(const Scenario& scenario, const std::string& label, const Oracle& oracle,
                std::uint64_t seed, TraceFile& file);

  void on_decided(const DecidedRequest& decided) override;

  // Whether request `id` is in the 1-in-N sample under `seed` (the same for every strategy).
  static bool in_sample(std::uint64_t seed, std::uint64_t sample_every, std::uint64_t id);

 private:
  const Scenario& scenario_;
  std::string label_;
  const Oracle& oracle_;
  std::uint64_t seed_;
  TraceFile& file_;
  Catalog catalog_;
  TraceFormat format_;
  TraceLine line_;    // reused: its key's buffer grows once
  std::string text_;  // reused likewise
};

// Runs one strategy as run_strategy_checked does (Ctrl-C included), with a TraceObserver writing
// into `file`. With `twice`, runs it again without the trace and compares the two
// (first_divergence): the check then also shows that tracing changed nothing.
StrategyResult run_strategy_traced(const Scenario& scenario, const ResolvedStrategy& strategy,
                                   std::uint64_t seed, bool twice, TraceFile& file,
                                   std::string& divergence);

}  // namespace rlsim
