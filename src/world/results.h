#pragma once
// What a run measured of its Redis nodes, its fault windows, its error policy, its clocks and its
// regions, as typed values: filled by app/ and strategy/resilience (the policy),
// rendered by report/ (report/result_json.cpp is where they become JSON; docs/metrics.md names
// each field). Plain data, in the order the JSON report lists the fields.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/time.h"
#include "logs/log_line.h"

namespace rlsim {

// A value per time bucket of `bucket_s` seconds, from virtual time 0.
template <typename Value>
struct BucketSeries {
  double bucket_s = 0;
  std::vector<Value> values;
};

// What a run's retrying clients did (traffic[].retry, world/retry.h; docs/metrics.md, "Retries").
// Every request of a retrying group denied on its first send starts a chain of retries that ends
// admitted, given up or cut: first_denied = admitted + gave_up + cut at the end of a run.
struct RetryResult {
  std::int64_t first_denied = 0;  // first sends denied (each starts a chain)
  std::int64_t sent = 0;          // retries decided (each one a request in `offered`)
  std::int64_t admitted = 0;      // retries admitted: chains that ended served, late
  std::int64_t gave_up = 0;       // chains whose last retry (the max-th) was denied too
  std::int64_t cut = 0;           // chains whose next retry fell after the end of the run
};

// What one replay group read of its log (traffic[].replay, docs/replay.md; docs/metrics.md,
// "Replay"). The same in every strategy's run: the log is read the same way each time.
struct ReplayGroupResult {
  std::string group;           // the traffic group's name
  std::string file;            // as the scenario names it
  std::uint64_t lines = 0;     // lines read, header included
  std::uint64_t requests = 0;  // requests sent
  std::uint64_t bad_lines = 0;
  std::vector<BadLine> bad_examples;  // the first malformed lines, with their line numbers
  std::uint64_t before_window = 0;    // well-formed lines before `from`, not sent
  std::uint64_t reordered = 0;        // lines earlier than the line before them, sent at its time
  std::uint64_t spread_seconds = 0;   // seconds of second-resolution times spread (the seeded rule)
  std::int64_t origin_log_us = 0;     // the log time sent at the group's start
  std::string ended_by;  // "end of log", "replay.to" or "group end" (the rest was not read)
};

// Production's verdicts beside a strategy's, request by request (docs/replay.md#verdicts): first
// sends of replayed requests whose line carried a verdict.
struct VerdictAgreement {
  std::int64_t compared = 0;
  std::int64_t agree_admitted = 0;
  std::int64_t agree_denied = 0;
  std::int64_t logged_denied_but_admitted = 0;  // production denied, the strategy admitted
  std::int64_t logged_admitted_but_denied = 0;  // production admitted, the strategy denied
};

struct ReplayResult {
  std::vector<ReplayGroupResult> groups;     // replay groups in scenario order
  std::optional<VerdictAgreement> verdicts;  // when some line carried a verdict
};

// A latency histogram's p50, p99 and max, in microseconds.
struct LatencyQuantiles {
  std::int64_t p50 = 0, p99 = 0, max = 0;
};

// One Redis node over the run (docs/metrics.md, "Per-strategy fields"): INFO commandstats, the
// hottest keys, utilization, queueing, call latency, errors by kind, the connection pool and
// per-bucket series.
struct NodeResult {
  std::optional<int> node;                 // its index, on an embedded cluster
  std::vector<std::pair<int, int>> slots;  // its slot ranges (first, last), on an embedded cluster
  std::uint64_t commands = 0;
  std::vector<std::pair<std::string, std::uint64_t>> commandstats;  // by command name
  struct HotKey {
    std::string key;
    std::uint64_t ops = 0;
    std::uint64_t ops_min = 0;  // what is certain when the key took over another's counter
  };
  std::vector<HotKey> hot_keys;  // hottest first
  double utilization = 0;        // busy time within the run over its span (<= 1), 4 places
  DurationUs drain_us = 0;       // after the run's end, until the backlog was served
  std::int64_t queue_length_p99 = 0;
  std::int64_t max_queue_wait_us = 0;
  LatencyQuantiles call_latency_us;
  struct Errors {
    std::uint64_t timeouts = 0, refused = 0, lost = 0, error_replies = 0;
    std::optional<std::uint64_t> crossslot;  // on an embedded cluster
  };
  Errors errors;
  struct Pool {
    int size = 0;
    std::uint64_t waits = 0;
    std::int64_t wait_total_us = 0, max_wait_us = 0;
  };
  Pool pool;
  BucketSeries<double> ops_per_s;
  BucketSeries<double> utilization_series;
  BucketSeries<std::int64_t> queue_length_max_series;
};

// An embedded Redis Cluster's balance over the run (docs/metrics.md, "Per-strategy fields").
struct ClusterResult {
  int nodes = 0;
  std::uint64_t commands = 0;
  std::uint64_t crossslot_errors = 0;
  int hottest_node = 0;
  double max_utilization = 0;
  double ops_imbalance = 0;  // the busiest node's commands over the mean: 1 is even
  double peak_utilization = 0;
  double bucket_ops_imbalance = 0;  // the same per time bucket, averaged over busy buckets
};

// One change of an instance's circuit breaker.
struct BreakerTransition {
  double at_s = 0;
  std::int64_t instance = 0;
  std::string from, to;
};
// The circuit breakers of a strategy run (one per instance).
struct BreakerResult {
  std::int64_t failures = 0;
  double window_s = 0, cooldown_s = 0;
  std::int64_t probes = 0, transitions = 0, opened = 0;
  double closed_s = 0, open_s = 0, half_open_s = 0;  // instance-seconds in each state
  std::vector<BreakerTransition> timeline;           // by time, then instance
  bool timeline_truncated = false;
};

// What the error policy and the circuit breaker did (docs/resilience.md#report).
struct ResilienceResult {
  std::string policy;                   // fail_open, fail_closed or local_fallback
  std::optional<std::int64_t> divisor;  // for local_fallback
  std::int64_t decisions = 0, error_decisions = 0, fallback_decisions = 0;
  double fallback_rate = 0;  // rounded to 4 places
  std::int64_t fallback_denied = 0, short_circuited = 0;
  std::optional<BreakerResult> breaker;                 // none when the breaker is off
  std::optional<BucketSeries<double>> fallback_series;  // fallback decisions per second
};

// One fault's window (docs/faults.md): what happened during it and in the window after.
struct FaultWindowResult {
  std::string type;
  double at_s = 0, for_s = 0;
  struct Counts {
    std::int64_t offered = 0, allowed = 0, denied = 0, errors = 0, excess = 0, false_denials = 0,
                 waited_full_timeout = 0, fallback_decisions = 0;
  };
  Counts during, after;
  double recovery_s = 0;  // from the fault's end to the last admission beyond the limit
  // redis_failover only (docs/faults.md#redis_failover): its phases and what the promoted replica
  // lacked.
  struct Failover {
    double replication_lag_ms = 0;
    double detected_s = 0;      // at + down_after: Sentinel (or the cluster) marks the primary down
    double promoted_s = 0;      // + promotion: the replica is the primary
    double clients_back_s = 0;  // + discovery: the clients use it (the fault's end)
    std::int64_t lost_writes = 0, lost_increments = 0, lost_commands = 0;
  };
  std::optional<Failover> failover = std::nullopt;
};

// The Redis side of one strategy run, in report order.
struct RedisSideResult {
  std::int64_t waited_full_timeout = 0;  // requests that waited a full Redis timeout
  std::optional<NodeResult> redis_node;  // the single server, when it was called
  std::optional<ClusterResult> redis_cluster;
  std::vector<NodeResult> redis_nodes;  // an embedded cluster's nodes
  std::optional<ResilienceResult> resilience;
  std::optional<std::vector<FaultWindowResult>> faults;  // when the scenario has faults
};

// One clock's reading minus true time at each point of a clock series.
struct ClockErrors {
  std::int64_t max_abs_error_us = 0;  // the largest in magnitude
  std::vector<std::int64_t> error_us;
};

// Clock attribution and the clock error series (docs/clocks.md, docs/metrics.md "clock").
struct ClockResult {
  std::int64_t attribution_threshold_us = 0;
  std::int64_t excess = 0, excess_while_off = 0;
  double excess_while_off_share = 0;  // rounded to 4 places
  std::int64_t wrongly_allowed = 0, wrongly_allowed_while_off = 0;
  double wrongly_allowed_while_off_share = 0;
  double step_s = 0;  // between series points
  struct Instance {
    std::uint32_t id = 0;
    ClockErrors errors;
  };
  std::vector<Instance> instances;  // the first kMaxSeriesInstances started
  bool instances_truncated = false;
  ClockErrors redis;  // the home node's
  struct Node {
    std::string name;
    ClockErrors errors;
  };
  std::vector<Node> redis_nodes;  // every node's, when more than one has its own clock
};

// One region of a multi-region run, measured by an oracle that sees only its requests
// (docs/regions.md).
struct RegionResult {
  std::string name;
  int instances = 0;
  bool home = false;
  std::int64_t offered = 0, allowed = 0, denied = 0, errors = 0;
  double overshoot = 0;  // the worst over limits, rounded to 4 places
  std::int64_t excess = 0;
  LatencyQuantiles latency_us;
  double window_s = 0;  // of the first limit, the window of `windows`
  struct Window {
    double start_s = 0;
    std::int64_t admitted = 0, max_per_key = 0;
  };
  std::vector<Window> windows;
};

}  // namespace rlsim
