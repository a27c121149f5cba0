#pragma once
// What one run produced, for the renderers: a StrategyResult per strategy entry and the RunResult
// that holds them. Plain data; the report layer's files read it and never write it.
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "oracle/alert_series.h"
#include "oracle/oracle.h"
#include "redis/store.h"
#include "report/alert_timeline.h"
#include "scenario/model.h"
#include "world/hpa.h"
#include "world/results.h"

namespace rlsim {

// A shadow run's would-be denials (`"mode": "shadow"`, engine/shadow.h, docs/metrics.md).
struct ShadowResult {
  std::int64_t would_deny = 0;          // requests it would have denied (all of them admitted)
  std::int64_t would_deny_rightly = 0;  // ... that the ideal limiter denied too
  std::int64_t would_deny_wrongly = 0;  // ... that the ideal limiter admitted
  std::string partner;  // the enforcing run of the same strategy and parameters, "" if none
};

// Each request's decision, in a run paired with a shadow run (or in the shadow run), so that the
// report compares the two request by request (report/shadow_report.h). Indexed by traffic group,
// then by the request's sequence number in its group (Request::id): two bits per request. First
// sends only: a retry (Request::attempt > 0) is not recorded.
struct RequestDecisions {
  std::vector<std::vector<bool>> decided;
  std::vector<std::vector<bool>> admitted;  // a shadow run: would have admitted
};

struct StrategyResult {
  std::string label;
  std::string name;
  bool per_instance_limit = false;  // StrategyInfo::per_instance_limit (report/overshoot_cap.h)
  // The strategy's Redis client timeout when it is not the scenario's redis.timeout (the entry's
  // `timeout` or its product's default, engine/strategy_timeout.h), and where it comes from.
  struct RedisTimeout {
    DurationUs timeout_us = 0;
    std::string from;
  };
  std::optional<RedisTimeout> redis_timeout;
  OracleTotals totals;
  std::uint64_t redis_commands = 0;
  std::uint64_t redis_round_trips = 0;
  std::uint64_t redis_timeouts = 0;
  std::size_t redis_keys_at_end = 0;
  std::vector<std::pair<TimeUs, int>> instance_counts;  // (true time, active count) at each change
  nlohmann::ordered_json strategy_metrics =
      nlohmann::ordered_json::object();  // Strategy::write_metrics
  // The Redis nodes, the error policy and the fault windows (engine/faults.cpp), when the run
  // measured them.
  std::optional<RedisSideResult> redis_side;
  std::optional<ClockResult> clock;  // clock attribution and error series (docs/clocks.md)
  std::optional<std::vector<RegionResult>> regions;   // per region (docs/regions.md)
  std::optional<ShadowResult> shadow;                 // set for a shadow run only
  std::optional<RetryResult> retries;                 // set when some traffic group has `retry`
  std::optional<ReplayResult> replay;                 // set when some traffic group has `replay`
  std::optional<std::vector<HpaDecision>> autoscale;  // every sync of instances.autoscale
  // Set for a shadow run and its enforcing partner; not written to the JSON.
  std::shared_ptr<const RequestDecisions> decisions;
  // An FNV-1a-style hash over the decision stream (request id, decision time, allowed, denied_by,
  // error) in decision order: two runs with equal digests made the same decisions at the same
  // times.
  std::uint64_t decision_digest = 0;
  // The digest after every kDigestInterval decisions, so that two runs that differ can be told
  // apart at the first interval where they diverge (--check-determinism).
  struct DigestCheckpoint {
    std::uint64_t decisions = 0;  // decisions made so far
    TimeUs time_us = 0;           // virtual time of the last of them
    std::uint64_t digest = 0;
  };
  static constexpr std::uint64_t kDigestInterval = 4096;
  std::vector<DigestCheckpoint> digest_checkpoints;
  // The real Redis the run used and its health (DataStore::backend_report); unset on the embedded
  // Redis.
  std::optional<BackendReport> backend;
  // The per-step series the scenario's alert rules are evaluated over (report/alerts.h); set only
  // when the scenario has `alerts`.
  std::optional<AlertSeries> alert_series;
  // The scenario's alert rules evaluated over alert_series, once (report/alerts.h's
  // evaluate_alerts); empty until then, and when the scenario has no alerts.
  std::vector<AlertTimeline> alert_timelines;
  // Set when a SIGINT stopped this run early: the traffic stopped at this virtual time
  // (app/interrupt.h).
  std::optional<TimeUs> stopped_at_us;
  // Set when the real Redis was lost during (or before) this run: why, naming the server, the
  // strategy and the virtual time. Its numbers are void: it is reported as not run (RunPartial).
  std::optional<std::string> redis_lost;
};

// Why and where a run stopped early (app/interrupt.h); rendered first in every report
// (report/partial.h).
struct RunPartial {
  std::string reason;                  // what stopped it: "SIGINT", or how the real Redis was lost
  bool redis_lost = false;             // the real Redis was lost (`rlsim run` exits 5)
  std::optional<double> stopped_at_s;  // virtual time the cut strategies stopped at; unset if none
  std::vector<std::string> cut;        // labels of the strategies stopped before the end
  std::vector<std::string> not_run;    // labels of the strategies never started
};

// What `rlsim run --trace` wrote (app/trace.h), for the table's notes. It is not part of the
// JSON report, which stays byte-identical with and without a trace.
struct TraceSummary {
  std::string path;
  std::uint64_t sample_every = 1;  // --trace-sample: 1 writes every decision
  std::int64_t decisions = 0;      // decisions of the traced strategies
  std::int64_t lines = 0;          // lines written
  std::int64_t bytes = 0;          // bytes written
  std::int64_t max_bytes = 0;      // --trace-max-mb
  // Why writing stopped before the end ("" when every line was written), and where: the strategy
  // and the true time of the first decision not written.
  std::string stopped;
  std::string stopped_label;
  TimeUs stopped_at_us = 0;
};

struct RunResult {
  const Scenario* scenario = nullptr;
  std::uint64_t seed = 0;
  std::vector<StrategyResult> strategies;
  std::optional<RunPartial> partial;  // unset when every strategy ran to the end
  std::optional<TraceSummary> trace;  // set by rlsim run --trace
};

}  // namespace rlsim
