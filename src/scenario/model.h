#pragma once
// The validated scenario: what a scenario file says, in rlsim's units, after every check in
// scenario/load.cpp has passed. Everything below this layer may assume these invariants hold.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/time.h"
#include "logs/log_reader.h"
#include "scenario/autoscale_spec.h"
#include "scenario/clock_spec.h"
#include "scenario/region_spec.h"

namespace rlsim {

// Documented bounds (docs/scenario-format.md). They keep memory and run time predictable.
struct ScenarioBounds {
  static constexpr DurationUs kMaxDurationUs = 24 * kUsPerHour;
  static constexpr int kMaxLimits = 16;
  static constexpr std::int64_t kMaxLimitValue = 1'000'000'000;
  static constexpr int kMaxInstances = 10'000;
  static constexpr int kMaxScheduleSteps = 1000;
  static constexpr int kMaxTrafficGroups = 64;
  static constexpr std::int64_t kMaxUsersPerGroup = 1'000'000;
  static constexpr int kMaxEndpointsPerGroup = 64;
  static constexpr double kMaxOfferedRequests = 200'000'000.0;
  static constexpr int kMaxStrategies = 32;
  static constexpr DurationUs kMaxRedisTimeUs = 60 * kUsPerS;
  static constexpr DurationUs kMaxClockOffsetUs = kUsPerHour;
  static constexpr int kMaxExpectations = 256;
  static constexpr std::size_t kMaxMetricPathLength = 256;
  static constexpr int kMaxFaults = 256;
  static constexpr int kMaxPoolSize = 10000;
  static constexpr int kMaxClusterNodes = 64;  // redis.cluster.nodes
  static constexpr int kMaxRetries = 10;       // traffic[].retry.max
  // A replay group (traffic[].replay, docs/replay.md): distinct users and IPs are interned up to
  // kMaxUsersPerGroup each, endpoints up to this many; one second of a log with second-resolution
  // times is held whole to spread it, up to this many lines.
  static constexpr std::int64_t kMaxReplayEndpoints = 100'000;
  static constexpr std::int64_t kMaxReplayLinesPerSecond = 1'000'000;
};

enum class LimitKey { kUser, kIp, kEndpoint, kGlobal };
const char* to_string(LimitKey key);

struct Limit {
  std::string name;
  LimitKey key = LimitKey::kUser;
  std::int64_t limit = 0;  // requests allowed per window
  DurationUs window_us = 0;
};

// The algorithm a limiter implements; the oracle's ideal limiter runs the same one exactly
// (zero latency, true clock, exact arithmetic).
enum class Algorithm {
  kFixedWindow,     // count per aligned window of the limit's length
  kSlidingLog,      // exact: at most `limit` admissions in any (t - window, t]
  kSlidingCounter,  // previous window's count weighted by overlap + current window's count
  kTokenBucket,     // a bucket of `capacity` tokens refilled at `refill_per_s`, one per request
  kGcra,  // generic cell rate algorithm: the same shape as a token bucket, one TAT per key
};
const char* to_string(Algorithm algorithm);

// The shape of a bucket-style limit (token bucket, GCRA) for one limit: burst capacity in requests
// and the refill rate. By default a limit of L per window W is a bucket of L refilled at L / W.
struct BucketShape {
  double capacity = 0;
  double refill_per_s = 0;
};

struct ScheduleStep {
  TimeUs at_us = 0;
  int count = 0;
};

struct InstancesSpec {
  int count = 0;                          // instances at time 0
  std::vector<ScheduleStep> schedule;     // strictly increasing at_us
  std::vector<DurationUs> clock_offsets;  // instance i (by start order) gets offsets[i] if present
  DurationUs clock_spread_us = 0;         // otherwise uniform in [-spread, +spread]
  ClockSpec clock;                     // ntp, clock faults (from `faults`), attribution threshold
  std::vector<std::uint32_t> regions;  // region of instance id i (empty: no regions)
  AutoscaleSpec autoscale;             // `autoscale` (world/autoscaler.h); not with a schedule
};

enum class BalancerPolicy { kRoundRobin, kRandom, kLeastInflight, kSticky };
const char* to_string(BalancerPolicy policy);

enum class Arrival { kPoisson, kConstant, kBurst };
const char* to_string(Arrival arrival);

// A traffic group's clients retry a denied request (`retry`, docs/scenario-format.md#retry): the
// same user sends it again `after_us x backoff^(n - 1)` after the denial for its n-th retry, times
// a uniform factor in [1 - jitter, 1 + jitter], at most `max` times (world/retry.h).
struct RetrySpec {
  DurationUs after_us = 0;
  int max = 3;
  double backoff = 2.0;
  double jitter = 0;  // in [0, 1)
};

// A traffic group that replays a request log instead of generating requests (`traffic[].replay`,
// docs/replay.md). A line at log time t is sent at true time
// `group start + (t - origin) / speedup`, where the origin is `from` (log time) when given, else
// the first line's time plus `from` as an offset (0 when absent).
struct ReplaySpec {
  std::string file;  // as written: a name the scenario's LogOpener opens
  LogFormatSpec log;
  std::vector<std::string> denied;  // verdict values (or comma-separated parts) meaning "denied"
  std::optional<std::int64_t> from_log_us, to_log_us;  // absolute log times
  DurationUs from_offset_us = 0;                       // after the first line, without from_log_us
  std::optional<DurationUs> to_offset_us;              // after the first line
  double speedup = 1;
  std::int64_t max_bad_lines = 1000;  // more malformed lines stop the run (-1: never)
};

struct TrafficGroup {
  std::string name;
  std::int64_t users = 1;
  double rate_per_s = 0;     // per user, at start_us
  double ramp_to_per_s = 0;  // per user, at end_us (equals rate_per_s without a ramp)
  Arrival arrival = Arrival::kPoisson;
  std::int64_t burst_size = 10;  // requests per burst (arrival "burst" only)
  TimeUs start_us = 0;
  TimeUs end_us = 0;
  std::int64_t ips = 1;  // distinct client IPs shared by the group's users
  std::vector<std::string> endpoints;
  // Multi-region (docs/regions.md): the users' home region, the share of requests that land in
  // another region (chosen uniformly), and the number of regions.
  std::string region_name;
  std::uint32_t region = 0;
  double roaming = 0;
  std::uint32_t region_count = 1;
  std::optional<RetrySpec> retry;    // unset: a denied client never retries (open-loop traffic)
  std::optional<ReplaySpec> replay;  // set: the requests come from a log (users, rate... unused)
  // `traffic[].instance`: every request goes to this instance (start order), bypassing the load
  // balancer while it is running (world/instances.h).
  std::optional<std::uint32_t> instance;
};

struct RttSpec {
  DurationUs p50_us = 500;
  DurationUs p99_us = 500;  // equal to p50 means a fixed round-trip time
};

struct RedisSpec {
  RttSpec rtt;
  DurationUs service_time_us = 5;  // per command, on the single-threaded server
  DurationUs timeout_us = 50 * kUsPerMs;
  // Whether the file gave redis.timeout: without it a product strategy's own default client
  // timeout applies to it (engine/strategy_timeout.h).
  bool timeout_given = false;
  int pool_size = 0;  // connections per instance; 0: unlimited
  // A real Redis to run against instead of the embedded one (docs/real-redis.md): "redis.url" in
  // the scenario or `--redis URL`; empty: the embedded Redis. `keep_keys` (--keep-keys) leaves
  // the run's keys on the server.
  std::string url;
  // A real Redis Cluster instead: "redis.cluster_url" or `--redis-cluster`, "host:port[,...]".
  std::string cluster_url;
  bool keep_keys = false;
  // An embedded Redis Cluster of this many masters (docs/cluster.md), "redis.cluster.nodes";
  // 0: one plain server. Each node has the timing above; slots are split as redis-cli does.
  int cluster_nodes = 0;
  // "redis.cluster.slots": node i serves slots [first, last] of entry i (contiguous, in order,
  // covering 0..16383); empty: split as redis-cli does.
  std::vector<std::pair<int, int>> cluster_slots;
};

// A strategy entry; its name and parameters are checked against the strategy registry by the
// layer that knows it (app/), with the same error format.
// Whether a strategy entry's decisions are enforced, or only recorded (`"mode": "shadow"`, a dry
// run: every request is admitted, what the strategy would have denied is counted).
enum class StrategyMode { kEnforce, kShadow };

struct StrategySpec {
  std::string name;
  std::string label;
  StrategyMode mode = StrategyMode::kEnforce;
  nlohmann::json params = nlohmann::json::object();  // every field but name, label and mode
  std::string json_path;                             // "strategies[1]", for error messages
};

// One entry of the scenario's `expect` list: an assertion on a metric of the JSON report (a field
// path inside one strategy's object, e.g. "overshoot", "latency_us.p99", "limits.per_user.excess").
// Evaluated by `rlsim check` (engine/expect.h); the loader checks its form and that every label
// names one of the scenario's strategies, but not the metric path, which only a report can resolve.
struct Expectation {
  enum class Kind {
    kBound,        // `strategy`'s metric within [min, max], or equal to `equals` +- tolerance
    kLess,         // metric of `left` < metric of `right`
    kLessOrEqual,  // metric of `left` <= metric of `right`
  };
  Kind kind = Kind::kBound;
  std::string metric;
  std::string description;  // optional, shown in check's output
  std::string json_path;    // "expect[2]", for messages
  // kBound:
  std::string strategy;
  std::optional<double> min, max, equals;
  double tolerance = 0;  // only with `equals`
  // kLess, kLessOrEqual:
  std::string left, right;
};

// One entry of the scenario's `faults` list (docs/scenario-format.md#faults), in effect on true
// time [at_us, at_us + for_us). The fields a type does not use keep their defaults. Clock faults
// (docs/clocks.md) change a clock from `at` on; their window runs to the end of the run.
enum class FaultType {
  kRedisDown,
  kRedisLatency,
  kRedisSlow,
  kPartition,
  kInstanceCrash,
  kClockOffset,
  kClockDrift,
  kClockJump,
  kRedisRestart,
  kPeerPartition,
  kRedisFailover
};
enum class FaultMode { kRefuse, kBlackhole };

struct FaultSpec {
  FaultType type = FaultType::kRedisDown;
  TimeUs at_us = 0;
  DurationUs for_us = 0;  // instance_crash: until the restart, or the end of the run
  bool all_instances = true;
  std::vector<std::uint32_t> instances;  // instance ids (start order) when !all_instances
  FaultMode mode = FaultMode::kRefuse;   // redis_down, partition
  DurationUs added_rtt_us = 0;           // redis_latency
  double rtt_multiplier = 1.0;           // redis_latency
  DurationUs rtt_jitter_us = 0;          // redis_latency
  double service_multiplier = 1.0;       // redis_slow
  bool restarts = false;                 // instance_crash: a new instance starts at the end
  // redis_down, redis_latency, redis_slow with regions: the region whose Redis it hits (-1: all).
  std::int32_t region = -1;
  std::string region_name;  // as written ("" when absent), resolved into `region` by the loader
  // redis_down, redis_latency, redis_slow, redis_restart on a cluster: the nodes it hits (empty:
  // all).
  std::vector<std::int32_t> nodes;
  ClockFault clock;  // clock_offset, clock_drift, clock_jump (docs/clocks.md)
  // redis_failover (docs/faults.md#redis_failover): the replica's lag behind the primary, and the
  // phases after the primary goes away at `at` (for_us is their sum): Sentinel's
  // down-after-milliseconds (a cluster's cluster-node-timeout), the promotion, the clients'
  // discovery of the new primary.
  DurationUs replication_lag_us = 0;
  DurationUs down_after_us = 0;
  DurationUs promotion_us = 0;
  DurationUs discovery_us = 0;
  std::string json_path;  // "faults[2]", for messages
};
const char* to_string(FaultType type);

// One entry of the scenario's `alerts` list (docs/scenario-format.md#alerts): a rule an operator
// would have set on the run's per-interval series, evaluated per strategy run by
// report/alerts.h. It fires once its condition has held for `for_us` (as in Prometheus) and
// resolves at the first evaluation where it no longer holds.
enum class AlertMetric {
  kRateCheckP50Ms,    // the rate check's added latency, p50 over the window, in ms
  kRateCheckP99Ms,    // the same, p99
  kFallbackPerS,      // decisions the error policy made instead of Redis, per second
  kDeniedPerS,        // denied decisions (429s), per second
  kDeniedShare,       // denied decisions over all decisions in the window, 0 to 1
  kErrorsPerS,        // decisions during which a Redis call failed, per second
  kRedisUtilization,  // the busiest Redis node's share of time executing commands, 0 to 1
  kRedisQueue,        // the most commands queued in front of a call on any node
  // Decisions whose count for the first limit's key, as the strategy saw it before the request,
  // was at least near_limit_ratio of that limit, over the decisions with such a count, 0 to 1.
  kNearLimitShare,
};
const char* to_string(AlertMetric metric);

struct AlertRule {
  std::string name;
  AlertMetric metric = AlertMetric::kRateCheckP99Ms;
  bool above = true;  // fires on metric > threshold; otherwise on metric < threshold
  double threshold = 0;
  DurationUs for_us = 0;          // how long the condition must hold before the alert fires
  DurationUs window_us = 0;       // the rate / quantile window the metric is computed over
  double near_limit_ratio = 0.8;  // kNearLimitShare only (envoyproxy/ratelimit's default)
  std::string json_path;          // "alerts[1]", for messages
};

// The scenario's `search` block (docs/search.md#declaring-the-search-space): what `rlsim search`
// varies besides the default space. Only its shape is checked here; search/ parses the specs.
struct SearchSpec {
  std::vector<std::string> vary;  // "PATH=SPEC" as --vary takes it ("faults[0].at=10s..50s")
  bool paced = false;             // as --paced
};

struct Scenario {
  std::string file;  // the path it was loaded from ("" when parsed from text)
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  DurationUs duration_us = 0;
  std::vector<Limit> limits;
  InstancesSpec instances;
  BalancerPolicy balancer = BalancerPolicy::kRoundRobin;
  std::vector<TrafficGroup> traffic;
  RedisSpec redis;
  std::vector<StrategySpec> strategies;
  std::vector<Expectation> expectations;
  std::vector<FaultSpec> faults;  // in file order
  RegionsSpec regions;
  std::vector<AlertRule> alerts;  // in file order; empty: the report has no alert timeline
  SearchSpec search;              // only `rlsim search` reads it
  // How a replay group's `file` is opened: set by the front end that loaded the scenario
  // (load_scenario: a regular file under the scenario's folder; a browser: its uploads). The
  // engine only calls it; unset, a replay group fails to start with a clear error.
  LogOpener open_log;
  // The fields changed on the command line (`--set PATH=VALUE`, app/scenario_settings.h), as
  // given ("instances.count=25"): the report records them so that a rerun can repeat them.
  std::vector<std::string> settings;
};

}  // namespace rlsim
