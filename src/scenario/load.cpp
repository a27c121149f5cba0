#include "scenario/load.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "core/file_text.h"
#include "scenario/alerts.h"
#include "scenario/faults.h"
#include "scenario/json_text.h"
#include "scenario/load_autoscale.h"
#include "scenario/load_clocks.h"
#include "scenario/load_regions.h"
#include "scenario/load_replay.h"
#include "scenario/load_search.h"
#include "scenario/reader.h"

namespace rlsim {
namespace {

using nlohmann::json;

constexpr std::pair<const char*, LimitKey> kLimitKeys[] = {{"user", LimitKey::kUser},
                                                           {"ip", LimitKey::kIp},
                                                           {"endpoint", LimitKey::kEndpoint},
                                                           {"global", LimitKey::kGlobal}};
constexpr std::pair<const char*, BalancerPolicy> kPolicies[] = {
    {"round_robin", BalancerPolicy::kRoundRobin},
    {"random", BalancerPolicy::kRandom},
    {"least_inflight", BalancerPolicy::kLeastInflight},
    {"sticky", BalancerPolicy::kSticky}};
constexpr std::pair<const char*, Arrival> kArrivals[] = {
    {"poisson", Arrival::kPoisson}, {"constant", Arrival::kConstant}, {"burst", Arrival::kBurst}};

Limit read_limit(const json& value, const std::string& path, const std::string& file) {
  ObjectReader reader(value, path, file);
  Limit limit;
  limit.name = reader.name_field("name", nullptr);
  limit.key = reader.enum_field("key", LimitKey::kUser, kLimitKeys);
  limit.limit = reader.int_field("limit", nullptr, 1, ScenarioBounds::kMaxLimitValue);
  limit.window_us =
      reader.duration_field("window", nullptr, kUsPerMs, ScenarioBounds::kMaxDurationUs);
  if (limit.window_us % kUsPerMs != 0)
    reader.fail(reader.path_of("window"), "expected a whole number of milliseconds");
  reader.reject_unknown();
  return limit;
}

InstancesSpec read_instances(const json& value, const std::string& file, DurationUs duration_us) {
  ObjectReader reader(value, "instances", file);
  InstancesSpec spec;
  spec.count =
      static_cast<int>(reader.int_field("count", nullptr, 1, ScenarioBounds::kMaxInstances));
  const json& schedule =
      reader.array_field("schedule", false, 0, ScenarioBounds::kMaxScheduleSteps);
  TimeUs previous_us = 0;
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    ObjectReader step_reader(schedule[i], fmt::format("instances.schedule[{}]", i), file);
    ScheduleStep step;
    step.at_us = step_reader.duration_field("at", nullptr, 0, duration_us);
    if (i > 0 && step.at_us <= previous_us) {
      step_reader.fail(step_reader.path_of("at"),
                       "expected schedule times in strictly increasing order");
    }
    previous_us = step.at_us;
    step.count =
        static_cast<int>(step_reader.int_field("count", nullptr, 1, ScenarioBounds::kMaxInstances));
    step_reader.reject_unknown();
    spec.schedule.push_back(step);
  }
  if (const json* clock = reader.find("clock")) {
    ObjectReader clock_reader(*clock, "instances.clock", file);
    const json& offsets =
        clock_reader.array_field("offsets", false, 0, ScenarioBounds::kMaxInstances * 2);
    for (std::size_t i = 0; i < offsets.size(); ++i) {
      spec.clock_offsets.push_back(clock_reader.check_duration(
          offsets[i], fmt::format("instances.clock.offsets[{}]", i),
          -ScenarioBounds::kMaxClockOffsetUs, ScenarioBounds::kMaxClockOffsetUs, true));
    }
    const DurationUs zero = 0;
    spec.clock_spread_us =
        clock_reader.duration_field("spread", &zero, 0, ScenarioBounds::kMaxClockOffsetUs);
    read_clock_settings(clock_reader, spec.clock);
    spec.clock.configured = true;
    clock_reader.reject_unknown();
  }
  spec.autoscale = read_autoscale(reader);
  if (spec.autoscale.enabled && !spec.schedule.empty())
    reader.fail("instances.autoscale", "not supported together with \"schedule\"");
  reader.reject_unknown();
  return spec;
}

std::optional<double> number_field(ObjectReader& reader, const std::string& key) {
  const json* value = reader.find(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_number())
    reader.fail(reader.path_of(key),
                fmt::format("expected a number, got {}", json_type_name(*value)));
  return value->get<double>();
}

// A traffic group's `retry` (docs/scenario-format.md#retry); unset when the group has none.
std::optional<RetrySpec> read_retry(ObjectReader& traffic, DurationUs duration_us) {
  const json* value = traffic.find("retry");
  if (value == nullptr) return std::nullopt;
  ObjectReader reader(*value, traffic.path_of("retry"), traffic.file());
  RetrySpec spec;
  spec.after_us = reader.duration_field("after", nullptr, kUsPerMs, duration_us);
  const std::int64_t default_max = spec.max;
  spec.max =
      static_cast<int>(reader.int_field("max", &default_max, 1, ScenarioBounds::kMaxRetries));
  constexpr double kMaxBackoff = 10.0;
  spec.backoff = number_field(reader, "backoff").value_or(spec.backoff);
  if (!(spec.backoff >= 1.0 && spec.backoff <= kMaxBackoff))
    reader.fail(reader.path_of("backoff"), fmt::format("expected a number from 1 to {:.0f}, got {}",
                                                       kMaxBackoff, json(spec.backoff).dump()));
  spec.jitter = number_field(reader, "jitter").value_or(spec.jitter);
  if (!(spec.jitter >= 0.0 && spec.jitter < 1.0))
    reader.fail(reader.path_of("jitter"), fmt::format("expected a number from 0 to below 1, got {}",
                                                      json(spec.jitter).dump()));
  reader.reject_unknown();
  return spec;
}

TrafficGroup read_traffic(const json& value, const std::string& path, const std::string& file,
                          DurationUs duration_us) {
  ObjectReader reader(value, path, file);
  TrafficGroup group;
  group.name = reader.name_field("name", nullptr);
  const std::int64_t one = 1;
  group.users = reader.int_field("users", &one, 1, ScenarioBounds::kMaxUsersPerGroup);
  group.rate_per_s = reader.rate_field("rate", !value.contains("replay"), 0);
  group.ramp_to_per_s = reader.rate_field("ramp_to", false, group.rate_per_s);
  group.arrival = reader.enum_field("arrival", Arrival::kPoisson, kArrivals);
  const std::int64_t default_burst = 10;
  group.burst_size = reader.int_field("burst_size", &default_burst, 1, 1'000'000);
  if (group.arrival != Arrival::kBurst && value.contains("burst_size")) {
    reader.fail(reader.path_of("burst_size"), "only allowed with \"arrival\": \"burst\"");
  }
  const DurationUs zero = 0;
  group.start_us = reader.duration_field("start", &zero, 0, duration_us);
  group.end_us = reader.duration_field("end", &duration_us, 0, duration_us);
  if (group.end_us <= group.start_us)
    reader.fail(reader.path_of("end"), "expected end to be after start");
  group.ips = reader.int_field("ips", &group.users, 1, group.users);
  const json& endpoints =
      reader.array_field("endpoints", false, 1, ScenarioBounds::kMaxEndpointsPerGroup);
  for (std::size_t i = 0; i < endpoints.size(); ++i) {
    const std::string item_path = fmt::format("{}.endpoints[{}]", path, i);
    if (!endpoints[i].is_string() || endpoints[i].get<std::string>().empty() ||
        endpoints[i].get<std::string>().size() > 128) {
      reader.fail(item_path, "expected a non-empty string of at most 128 characters");
    }
    group.endpoints.push_back(endpoints[i].get<std::string>());
  }
  if (group.endpoints.empty()) group.endpoints.push_back("/api");
  read_traffic_region(reader, group);
  group.retry = read_retry(reader, duration_us);
  read_traffic_replay(reader, group);
  reader.reject_unknown();
  return group;
}

RedisSpec read_redis(const json* value, const std::string& file) {
  RedisSpec spec;
  if (value == nullptr) return spec;
  ObjectReader reader(*value, "redis", file);
  const DurationUs max_us = ScenarioBounds::kMaxRedisTimeUs;
  if (const json* rtt = reader.find("rtt")) {
    if (rtt->is_string()) {
      spec.rtt.p50_us = spec.rtt.p99_us = reader.check_duration(*rtt, "redis.rtt", 0, max_us);
    } else if (!rtt->is_object()) {
      reader.fail("redis.rtt",
                  fmt::format("expected a duration string such as \"0.5ms\" or an object "
                              "{{\"p50\": \"0.5ms\", \"p99\": \"2ms\"}}, got {}",
                              json_type_name(*rtt)));
    } else {
      ObjectReader rtt_reader(*rtt, "redis.rtt", file);
      spec.rtt.p50_us = rtt_reader.duration_field("p50", nullptr, 0, max_us);
      spec.rtt.p99_us = rtt_reader.duration_field("p99", nullptr, 0, max_us);
      if (spec.rtt.p99_us < spec.rtt.p50_us)
        rtt_reader.fail("redis.rtt.p99", "expected p99 >= p50");
      if (spec.rtt.p99_us > spec.rtt.p50_us && spec.rtt.p50_us == 0)
        rtt_reader.fail("redis.rtt.p50", "expected p50 > 0 when p99 > p50");
      rtt_reader.reject_unknown();
    }
  }
  spec.service_time_us = reader.duration_field("service_time", &spec.service_time_us, 0, kUsPerS);
  spec.timeout_us = reader.duration_field("timeout", &spec.timeout_us, 1, max_us);
  spec.timeout_given = reader.find("timeout") != nullptr;
  const std::int64_t unlimited = 0;
  spec.pool_size =
      static_cast<int>(reader.int_field("pool", &unlimited, 0, ScenarioBounds::kMaxPoolSize));
  spec.url = reader.string_field("url", &spec.url);  // checked when the run connects
  spec.cluster_url = reader.string_field("cluster_url", &spec.cluster_url);
  if (!spec.url.empty() && !spec.cluster_url.empty())
    reader.fail("redis.cluster_url", "expected either redis.url or redis.cluster_url, not both");
  if (const json* cluster = reader.find("cluster")) {
    ObjectReader cluster_reader(*cluster, "redis.cluster", file);
    spec.cluster_nodes = static_cast<int>(
        cluster_reader.int_field("nodes", nullptr, 1, ScenarioBounds::kMaxClusterNodes));
    if (const json* slots = cluster_reader.find("slots")) {
      // One [first, last] range per node, in slot order, together covering every slot.
      const std::string path = "redis.cluster.slots";
      if (!slots->is_array() || slots->size() != static_cast<std::size_t>(spec.cluster_nodes))
        cluster_reader.fail(path, fmt::format("expected an array of {} [first, last] ranges, one "
                                              "per node",
                                              spec.cluster_nodes));
      int next = 0;
      for (std::size_t i = 0; i < slots->size(); ++i) {
        const json& range = (*slots)[i];
        const std::string at = fmt::format("{}[{}]", path, i);
        if (!range.is_array() || range.size() != 2)
          cluster_reader.fail(at, "expected [first, last]");
        const auto first =
            static_cast<int>(cluster_reader.check_int(range[0], at + "[0]", next, next));
        const auto last = static_cast<int>(cluster_reader.check_int(
            range[1], at + "[1]", first, i + 1 == slots->size() ? 16383 : 16382));
        if (i + 1 == slots->size() && last != 16383)
          cluster_reader.fail(at + "[1]", "expected the last range to end at slot 16383");
        spec.cluster_slots.emplace_back(first, last);
        next = last + 1;
      }
    }
    cluster_reader.reject_unknown();
    if (!spec.url.empty())
      reader.fail("redis.cluster", "the embedded cluster cannot be combined with \"url\"");
  }
  reader.find("clock");  // the Redis nodes' clocks: read_redis_clock (load_clocks.cpp)
  reader.reject_unknown();
  return spec;
}

StrategySpec read_strategy(const json& value, const std::string& path, const std::string& file) {
  StrategySpec spec;
  spec.json_path = path;
  if (value.is_string()) {
    spec.name = value.get<std::string>();
  } else if (value.is_object()) {
    ObjectReader reader(value, path, file);
    spec.name = reader.string_field("name", nullptr);
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (it.key() != "name" && it.key() != "label" && it.key() != "mode")
        spec.params[it.key()] = it.value();
    }
    spec.label = reader.name_field("label", &spec.name);
    const std::string enforce = "enforce";
    const std::string mode = reader.string_field("mode", &enforce);
    if (mode == "shadow") {
      spec.mode = StrategyMode::kShadow;
    } else if (mode != enforce) {
      reader.fail(reader.path_of("mode"),
                  fmt::format("expected \"enforce\" or \"shadow\", got \"{}\"", mode));
    }
  } else {
    ObjectReader(json::object(), path, file)
        .fail(path, fmt::format("expected a strategy name or an object with \"name\", got {}",
                                json_type_name(value)));
  }
  if (spec.label.empty()) spec.label = spec.name;
  return spec;
}

std::string labels_text(const std::vector<StrategySpec>& strategies) {
  std::string out;
  for (const auto& s : strategies) out += (out.empty() ? "" : ", ") + s.label;
  return out;
}

// One entry of `expect` (docs/scenario-format.md#expect). Labels are checked against the
// scenario's strategies; the metric path only for its form.
Expectation read_expectation(const json& value, const std::string& path, const std::string& file,
                             const std::vector<StrategySpec>& strategies) {
  ObjectReader reader(value, path, file);
  Expectation e;
  e.json_path = path;
  e.metric = reader.string_field("metric", nullptr);
  if (e.metric.size() > ScenarioBounds::kMaxMetricPathLength || !parse_metric_path(e.metric)) {
    reader.fail(reader.path_of("metric"),
                fmt::format("expected a report field path such as \"overshoot\", "
                            "\"latency_us.p99\", \"limits[0].excess\" or "
                            "\"limits.per_user.excess\", got \"{}\"",
                            e.metric));
  }
  const std::string empty;
  e.description = reader.string_field("description", &empty);
  const auto known_label = [&](const std::string& label, const std::string& at) {
    for (const auto& s : strategies)
      if (s.label == label) return;
    reader.fail(at, fmt::format("no strategy labelled \"{}\" in this scenario (it has: {})", label,
                                labels_text(strategies)));
  };

  const json* less = reader.find("less");
  const json* less_or_equal = reader.find("less_or_equal");
  if (less != nullptr && less_or_equal != nullptr)
    reader.fail(reader.path_of("less_or_equal"), "expected either \"less\" or \"less_or_equal\"");
  if (less != nullptr || less_or_equal != nullptr) {
    const std::string key = less != nullptr ? "less" : "less_or_equal";
    e.kind = less != nullptr ? Expectation::Kind::kLess : Expectation::Kind::kLessOrEqual;
    for (const char* bound : {"strategy", "min", "max", "equals", "tolerance"}) {
      if (value.contains(bound))
        reader.fail(reader.path_of(bound),
                    fmt::format("not allowed with \"{}\" (it compares two strategies)", key));
    }
    const json& pair = reader.array_field(key, true, 2, 2);
    for (std::size_t i = 0; i < 2; ++i) {
      const std::string at = fmt::format("{}[{}]", reader.path_of(key), i);
      if (!pair[i].is_string())
        reader.fail(at, fmt::format("expected a strategy label, got {}", json_type_name(pair[i])));
      known_label(pair[i].get<std::string>(), at);
    }
    e.left = pair[0].get<std::string>();
    e.right = pair[1].get<std::string>();
    if (e.left == e.right)
      reader.fail(reader.path_of(key), "expected two different strategy labels");
    reader.reject_unknown();
    return e;
  }

  e.strategy = reader.string_field("strategy", nullptr);
  known_label(e.strategy, reader.path_of("strategy"));
  e.min = number_field(reader, "min");
  e.max = number_field(reader, "max");
  e.equals = number_field(reader, "equals");
  const std::optional<double> tolerance = number_field(reader, "tolerance");
  if (!e.min && !e.max && !e.equals)
    reader.fail(path,
                "expected \"min\", \"max\" or \"equals\" (or \"less\" / \"less_or_equal\" "
                "with two strategy labels)");
  if (e.equals && (e.min || e.max))
    reader.fail(reader.path_of("equals"), "not allowed together with \"min\" or \"max\"");
  if (e.min && e.max && *e.min > *e.max)
    reader.fail(reader.path_of("max"), fmt::format("expected max >= min ({})", *e.min));
  if (tolerance) {
    if (!e.equals) reader.fail(reader.path_of("tolerance"), "only allowed with \"equals\"");
    if (*tolerance < 0)
      reader.fail(reader.path_of("tolerance"),
                  fmt::format("expected a number >= 0, got {}", *tolerance));
    e.tolerance = *tolerance;
  }
  reader.reject_unknown();
  return e;
}

// A group whose clients retry may send each request 1 + max times: bounded as if it did.
double expected_requests(const TrafficGroup& group) {
  const double seconds = static_cast<double>(group.end_us - group.start_us) / kUsPerS;
  const double sends = group.retry ? 1.0 + group.retry->max : 1.0;
  return static_cast<double>(group.users) * seconds * (group.rate_per_s + group.ramp_to_per_s) /
         2.0 * sends;
}

}  // namespace

const char* to_string(LimitKey key) {
  for (const auto& [name, k] : kLimitKeys)
    if (k == key) return name;
  return "?";
}
const char* to_string(BalancerPolicy policy) {
  for (const auto& [name, p] : kPolicies)
    if (p == policy) return name;
  return "?";
}
const char* to_string(Arrival arrival) {
  for (const auto& [name, a] : kArrivals)
    if (a == arrival) return name;
  return "?";
}

const char* to_string(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kFixedWindow:
      return "fixed_window";
    case Algorithm::kSlidingLog:
      return "sliding_log";
    case Algorithm::kSlidingCounter:
      return "sliding_counter";
    case Algorithm::kTokenBucket:
      return "token_bucket";
    case Algorithm::kGcra:
      return "gcra";
  }
  return "?";
}

std::optional<std::vector<MetricStep>> parse_metric_path(const std::string& path) {
  std::vector<MetricStep> steps;
  std::size_t pos = 0;
  const auto is_name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  };
  while (true) {
    // A segment: a name, then any number of [N].
    const std::size_t start = pos;
    while (pos < path.size() && is_name_char(path[pos])) ++pos;
    if (pos == start) return std::nullopt;
    steps.push_back(MetricStep{path.substr(start, pos - start), 0, false});
    while (pos < path.size() && path[pos] == '[') {
      const std::size_t digits = ++pos;
      while (pos < path.size() && std::isdigit(static_cast<unsigned char>(path[pos]))) ++pos;
      if (pos == digits || pos - digits > 6 || pos == path.size() || path[pos] != ']')
        return std::nullopt;
      steps.push_back(MetricStep{"", std::stoul(path.substr(digits, pos - digits)), true});
      ++pos;
    }
    if (pos == path.size()) return steps;
    if (path[pos] != '.') return std::nullopt;
    ++pos;
  }
}

Scenario parse_scenario(const std::string& text, const std::string& file) {
  const json root = parse_scenario_json(text, file);
  ObjectReader reader(root, "", file);
  Scenario scenario;
  scenario.name = reader.name_field("name", nullptr);
  const std::string empty;
  scenario.description = reader.string_field("description", &empty);
  if (const json* seed = reader.find("seed")) {
    if (!seed->is_number_unsigned() &&
        !(seed->is_number_integer() && seed->get<std::int64_t>() >= 0))
      reader.fail("seed",
                  fmt::format("expected a non-negative integer, got {}", json_type_name(*seed)));
    scenario.seed = seed->get<std::uint64_t>();
  }
  scenario.duration_us =
      reader.duration_field("duration", nullptr, kUsPerMs, ScenarioBounds::kMaxDurationUs);

  const json& limits = reader.array_field("limits", true, 1, ScenarioBounds::kMaxLimits);
  std::set<std::string> limit_names;
  for (std::size_t i = 0; i < limits.size(); ++i) {
    const std::string path = fmt::format("limits[{}]", i);
    scenario.limits.push_back(read_limit(limits[i], path, file));
    if (!limit_names.insert(scenario.limits.back().name).second)
      reader.fail(path + ".name", "duplicate limit name");
  }

  scenario.instances = read_instances(reader.require("instances"), file, scenario.duration_us);
  if (const json* balancer = reader.find("load_balancer")) {
    ObjectReader balancer_reader(*balancer, "load_balancer", file);
    scenario.balancer =
        balancer_reader.enum_field("policy", BalancerPolicy::kRoundRobin, kPolicies);
    balancer_reader.reject_unknown();
  }

  const json& traffic = reader.array_field("traffic", true, 1, ScenarioBounds::kMaxTrafficGroups);
  std::set<std::string> group_names;
  double offered = 0;
  for (std::size_t i = 0; i < traffic.size(); ++i) {
    const std::string path = fmt::format("traffic[{}]", i);
    scenario.traffic.push_back(read_traffic(traffic[i], path, file, scenario.duration_us));
    if (!group_names.insert(scenario.traffic.back().name).second)
      reader.fail(path + ".name", "duplicate traffic group name");
    offered += expected_requests(scenario.traffic.back());
  }
  if (offered > ScenarioBounds::kMaxOfferedRequests) {
    reader.fail(
        "traffic",
        fmt::format(
            "expected at most {:.0f} offered requests in all, the groups offer about {:.0f}",
            ScenarioBounds::kMaxOfferedRequests, offered));
  }

  scenario.redis = read_redis(reader.find("redis"), file);
  read_redis_clock(reader.find("redis"), file, scenario.instances.clock);
  read_regions(reader, scenario);
  if (scenario.redis.cluster_nodes > 0 && scenario.regions.enabled())
    reader.fail("redis.cluster", "not supported together with \"regions\" yet");
  if (scenario.instances.autoscale.enabled && scenario.regions.enabled())
    reader.fail("instances.autoscale", "not supported together with \"regions\" yet");
  read_scenario_faults(reader.find("faults"), reader.find("clock_faults"), file, scenario);
  scenario.alerts = read_alerts(reader.find("alerts"), file, scenario.duration_us);
  scenario.search = read_search_block(reader.find("search"), file);

  const json& strategies =
      reader.array_field("strategies", true, 1, ScenarioBounds::kMaxStrategies);
  std::set<std::string> labels;
  for (std::size_t i = 0; i < strategies.size(); ++i) {
    const std::string path = fmt::format("strategies[{}]", i);
    scenario.strategies.push_back(read_strategy(strategies[i], path, file));
    if (!labels.insert(scenario.strategies.back().label).second) {
      reader.fail(path, fmt::format("duplicate strategy label \"{}\" (give one a \"label\")",
                                    scenario.strategies.back().label));
    }
  }
  const json& expect = reader.array_field("expect", false, 0, ScenarioBounds::kMaxExpectations);
  for (std::size_t i = 0; i < expect.size(); ++i) {
    scenario.expectations.push_back(
        read_expectation(expect[i], fmt::format("expect[{}]", i), file, scenario.strategies));
  }
  reader.reject_unknown();
  return scenario;
}

Scenario load_scenario(const std::string& path) {
  // Opened without blocking and read only if it is a regular file: a named pipe, a device or a
  // directory is refused at once with what it is.
  FileText file = read_regular_file(path, kMaxScenarioFileBytes);
  if (!file.error.empty())
    throw ScenarioError(fmt::format("{}: cannot read the file: {}", path, file.error));
  Scenario scenario = parse_scenario(file.text, path);
  scenario.file = path;
  // Replayed logs are read from files beside the scenario (docs/replay.md); a browser front end
  // sets its own opener after parse_scenario instead.
  scenario.open_log = scenario_log_opener(path);
  check_replay_logs(scenario, path);
  return scenario;
}

}  // namespace rlsim
