#include "app/live_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "oracle/oracle.h"
#include "world/catalog.h"

namespace rlsim {

std::string live_clock_text(TimeUs us) {
  // Tenths rounded down: the last microsecond of a minute is 59.9s, not 60.0s.
  const std::int64_t tenths = us / (kUsPerS / 10);
  const std::int64_t hours = tenths / 36'000;
  const std::int64_t minutes = tenths / 600 % 60;
  const std::int64_t second_tenths = tenths % 600;
  std::string seconds = fmt::format("{}.{}s", second_tenths / 10, second_tenths % 10);
  if (hours > 0) return fmt::format("{}h{}m{}", hours, minutes, seconds);
  if (minutes > 0) return fmt::format("{}m{}", minutes, seconds);
  return seconds;
}

LiveWindowWatch::LiveWindowWatch(const Scenario& scenario, const StrategySession& session)
    : limit_(scenario.limits.front()), session_(session) {}

void LiveWindowWatch::on_decided(const DecidedRequest& decided) {
  const std::int64_t index = aligned_window(kEpochUnixUs + decided.decided_us, limit_.window_us);
  if (index != window_.index) {
    const StrategySession::RedisCalls calls = session_.redis_calls();
    window_ = Window{};
    window_.index = index;
    window_.calls_at_start = calls.calls;
    window_.timeouts_at_start = calls.timeouts;
  }
  const Outcome& outcome = decided.outcome;
  ++window_.decisions;
  window_.errors += outcome.error ? 1 : 0;
  window_.fallbacks += outcome.fallback ? 1 : 0;
  window_.lost += outcome.instance_lost ? 1 : 0;
  window_.latency_us.record(decided.decided_us - decided.request.arrival_us);
  if (!outcome.allowed) return;
  ++window_.admitted;
  const std::uint64_t key_id = Catalog::key_id(decided.request, limit_.key);
  KeyCounts& key = window_.keys[key_id];
  ++key.admitted;
  if (outcome.instance >= 0) {
    const auto id = static_cast<std::size_t>(outcome.instance);
    if (key.by_instance.size() <= id) key.by_instance.resize(id + 1);
    ++key.by_instance[id];
  }
  if (key.admitted > window_.top_admitted) {
    window_.top_key = key_id;
    window_.top_admitted = key.admitted;
  }
}

namespace {

// 1, 2, 2.5 or 5 x 10^k, the smallest at least `value` (>= 1).
std::int64_t live_nice_ceiling(double value) {
  double power = 1;
  while (power * 10 < value) power *= 10;
  for (const double step : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (step * power >= value) return static_cast<std::int64_t>(std::ceil(step * power));
  return static_cast<std::int64_t>(std::ceil(value));
}

int live_most_instances(const InstancesSpec& instances) {
  int most = instances.count;
  for (const ScheduleStep& step : instances.schedule) most = std::max(most, step.count);
  if (instances.autoscale.enabled) most = std::max(most, instances.autoscale.max_replicas);
  return std::max(most, 1);
}

}  // namespace

std::int64_t live_bar_scale(const Scenario& scenario) {
  const Limit& limit = scenario.limits.front();
  const double window_s = static_cast<double>(limit.window_us) / kUsPerS;
  double per_key_per_s = 0, global_per_s = 0;
  bool replay = false;
  for (const TrafficGroup& group : scenario.traffic) {
    if (group.replay) {
      replay = true;
      continue;
    }
    const double rate = std::max(group.rate_per_s, group.ramp_to_per_s);
    const auto users = static_cast<double>(group.users);
    global_per_s += rate * users;
    if (limit.key == LimitKey::kUser) per_key_per_s = std::max(per_key_per_s, rate);
    if (limit.key == LimitKey::kIp)
      per_key_per_s = std::max(per_key_per_s, rate * users / static_cast<double>(group.ips));
    if (limit.key == LimitKey::kEndpoint)
      per_key_per_s = std::max(
          per_key_per_s,
          rate * users / static_cast<double>(std::max<std::size_t>(1, group.endpoints.size())));
  }
  if (limit.key == LimitKey::kGlobal) per_key_per_s = global_per_s;
  // 10% above the mean rate: a Poisson window holds more than the mean about half the time.
  double top = std::max(1.25 * static_cast<double>(limit.limit), 1.1 * per_key_per_s * window_s);
  if (replay)
    top = std::max(top, static_cast<double>(limit.limit * live_most_instances(scenario.instances)));
  return live_nice_ceiling(top);
}

namespace {

// "every instance", "instance #3", "instances #0,#1 +4".
std::string live_id_list(const std::vector<std::uint32_t>& ids, const char* noun) {
  if (ids.empty()) return fmt::format("every {}", noun);
  std::string out = ids.size() == 1 ? fmt::format("{} ", noun) : fmt::format("{}s ", noun);
  constexpr std::size_t kShown = 6;
  for (std::size_t i = 0; i < ids.size() && i < kShown; ++i)
    out += fmt::format("{}#{}", i == 0 ? "" : ",", ids[i]);
  if (ids.size() > kShown) out += fmt::format(" +{}", ids.size() - kShown);
  return out;
}

std::string live_instances_hit(const FaultSpec& fault) {
  return live_id_list(fault.all_instances ? std::vector<std::uint32_t>{} : fault.instances,
                      "instance");
}

// Which Redis a node fault hits: a region's, some nodes of the cluster, or all.
std::string live_node_scope(const FaultSpec& fault) {
  std::string out;
  if (fault.region >= 0 && !fault.region_name.empty()) out += " in " + fault.region_name;
  if (!fault.nodes.empty()) {
    out += " (node";
    for (const std::int32_t node : fault.nodes) out += fmt::format(" {}", node);
    out += ")";
  }
  return out;
}

// What a fault does, in the room's words: a headline ("REDIS DOWN") and the detail.
struct LiveFaultText {
  std::string headline, detail;
};

LiveFaultText live_clock_fault_text(const FaultSpec& fault) {
  const ClockFault& clock = fault.clock;
  const std::string whose =
      clock.redis ? "Redis's clock" : "the clock of " + live_id_list(clock.instances, "instance");
  const double amount_s = static_cast<double>(clock.amount_us) / kUsPerS;
  if (fault.type == FaultType::kClockDrift)
    return {"CLOCK DRIFTING", fmt::format("{} runs {:+g} ppm", whose, clock.drift_ppm)};
  if (fault.type == FaultType::kClockOffset)
    return {"CLOCK OFFSET", fmt::format("{} set {:+g}s", whose, amount_s)};
  return {"CLOCK STEPPED", fmt::format("{} jumped {:+g}s", whose, amount_s)};
}

LiveFaultText live_fault_text(const Scenario& scenario, const FaultSpec& fault) {
  const std::string scope = live_node_scope(fault);
  switch (fault.type) {
    case FaultType::kRedisDown:
      return {"REDIS DOWN" + scope,
              fault.mode == FaultMode::kBlackhole
                  ? fmt::format("no reply, every call waits the {} timeout",
                                format_duration(scenario.redis.timeout_us))
                  : std::string("connections refused, every call fails at once")};
    case FaultType::kRedisLatency:
      return {"REDIS SLOW" + scope,
              fmt::format("round trip +{} x{:g}", format_duration(fault.added_rtt_us),
                          fault.rtt_multiplier)};
    case FaultType::kRedisSlow:
      return {"REDIS SLOW" + scope,
              fmt::format("each command takes x{:g}", fault.service_multiplier)};
    case FaultType::kRedisRestart:
      return {"REDIS RESTARTING" + scope, "connections refused, then back with no keys"};
    case FaultType::kPartition:
      return {"PARTITION", live_instances_hit(fault) + " cut off from Redis"};
    case FaultType::kPeerPartition:
      return {"PEER PARTITION", live_instances_hit(fault) + " cut off from the others"};
    case FaultType::kInstanceCrash:
      return {"INSTANCES CRASHED",
              live_instances_hit(fault) + (fault.restarts ? ", restarting" : ", not restarted")};
    case FaultType::kRedisFailover:
      // The phases as docs/faults.md#redis_failover names them, from the fault's start.
      return {"REDIS FAILOVER" + scope,
              fmt::format("primary lost with {} of writes; detected at +{}, promoted at +{}, "
                          "clients back at +{}",
                          format_duration(fault.replication_lag_us),
                          format_duration(fault.down_after_us),
                          format_duration(fault.down_after_us + fault.promotion_us),
                          format_duration(fault.for_us))};
    default:
      return live_clock_fault_text(fault);
  }
}

}  // namespace

std::vector<std::string> live_banner(const Scenario& scenario, TimeUs now_us) {
  std::vector<std::string> lines;
  const DurationUs window_us = scenario.limits.front().window_us;
  for (const FaultSpec& fault : scenario.faults) {
    const bool lasting = fault.for_us == 0;  // a clock change without `for`
    const TimeUs end_us = fault.at_us + (lasting ? window_us : fault.for_us);
    if (now_us < fault.at_us || now_us >= end_us) continue;
    const std::string when =
        lasting ? fmt::format("at {}, lasting", live_clock_text(fault.at_us))
                : fmt::format("from {} to {}, {} left", live_clock_text(fault.at_us),
                              live_clock_text(end_us), live_clock_text(end_us - now_us));
    const LiveFaultText text = live_fault_text(scenario, fault);
    lines.push_back(fmt::format("!! {} {}: {}", text.headline, when, text.detail));
  }
  return lines;
}

namespace {

// One line of the screen; rank 0 is always kept, higher ranks are dropped first when the screen
// is too short.
struct LiveRow {
  std::string text;
  int rank = 0;
};
constexpr int kRankBlank = 5, kRankInstances = 4, kRankAutoscale = 3, kRankLesson = 2,
              kRankFigures = 1;

std::string live_paint(const LiveScreen& screen, const char* code, const std::string& text) {
  return screen.color ? fmt::format("\033[{}m{}\033[0m", code, text) : text;
}

// `text` cut to `columns` visible columns: escape sequences take none, a UTF-8 code point one.
std::string live_clip(const std::string& text, int columns) {
  std::string out;
  int used = 0;
  bool cut = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == 0x1b) {  // CSI: ESC [ parameters final byte
      const std::size_t end = text.find_first_of("ABCDEFGHJKSTfmhl", i);
      out.append(text, i, end == std::string::npos ? std::string::npos : end - i + 1);
      if (end == std::string::npos) break;
      i = end;
      continue;
    }
    const bool starts_code_point = (byte & 0xc0) != 0x80;
    if (starts_code_point && used == columns) cut = true;
    if (cut) continue;
    used += starts_code_point ? 1 : 0;
    out += text[i];
  }
  return out;
}

std::string live_bar(std::int64_t value, std::int64_t limit, std::int64_t scale, int cells,
                     bool hidden, const LiveScreen& screen) {
  const auto cell_of = [&](std::int64_t v) {
    return std::clamp(
        static_cast<int>(std::lround(static_cast<double>(v) / static_cast<double>(scale) * cells)),
        0, cells);
  };
  const int filled = hidden ? 0 : cell_of(value);
  const int mark = std::min(cells - 1, cell_of(limit));
  std::string out = "[";
  for (int i = 0; i < cells; ++i) {
    std::string cell = i < filled ? "\u2588" : (i == mark ? "|" : "\u00b7");
    if (i == cells - 1 && !hidden && value > scale) cell = ">";  // beyond the fixed scale
    if (i < filled && i >= mark) cell = live_paint(screen, "31", cell);
    out += cell;
  }
  return out + "]";
}

std::string live_latency_text(std::int64_t us) {
  if (us < kUsPerMs) return fmt::format("{:.2f}ms", static_cast<double>(us) / kUsPerMs);
  if (us < kUsPerS) return fmt::format("{:.1f}ms", static_cast<double>(us) / kUsPerMs);
  return fmt::format("{:.2f}s", static_cast<double>(us) / kUsPerS);
}

// What the screen shows of one strategy: its watch's window when it is the current one.
struct LiveFigures {
  const LiveWindowWatch::Window* window = nullptr;  // null: nothing decided in this window yet
  std::int64_t most = 0;
  const std::vector<std::int64_t>* by_instance = nullptr;  // the most admitted key's
};

LiveFigures live_figures(const LiveWindowWatch& watch, std::int64_t now_index) {
  LiveFigures figures;
  const LiveWindowWatch::Window& window = watch.window();
  if (window.index != now_index) return figures;
  figures.window = &window;
  if (window.top_admitted < 0) return figures;
  figures.most = window.top_admitted;
  figures.by_instance = &window.keys.at(window.top_key).by_instance;
  return figures;
}

std::string live_window_figures(const LiveWindowWatch& watch, const LiveFigures& figures,
                                bool hidden) {
  const LiveWindowWatch::Window* window = figures.window;
  if (hidden) return "    errors ?  timeouts ?  fallbacks ?  p99 ?  Redis ? calls/req";
  if (window == nullptr) return "    no decision in this window yet";
  const StrategySession::RedisCalls calls = watch.session().redis_calls();
  const double per_request = static_cast<double>(calls.calls - window->calls_at_start) /
                             static_cast<double>(window->decisions);
  std::string out =
      fmt::format("    errors {}  timeouts {}  fallbacks {}  p99 +{}  Redis {:.2f} calls/req",
                  window->errors, calls.timeouts - window->timeouts_at_start, window->fallbacks,
                  live_latency_text(window->latency_us.quantile(0.99)), per_request);
  if (window->lost > 0) out += fmt::format("  lost with instance {}", window->lost);
  return out;
}

std::string live_lesson(const LiveWindowWatch& watch, bool hidden) {
  nlohmann::ordered_json state = nlohmann::ordered_json::object();
  watch.session().write_live_state(state);
  if (state.empty()) return "";
  std::string out = "    so far:";
  for (const auto& [name, value] : state.items()) {
    std::string words = name;
    std::replace(words.begin(), words.end(), '_', ' ');
    out += fmt::format(" {} {},", words, hidden ? "?" : value.dump());
  }
  out.pop_back();
  return out;
}

const char* live_metric_unit(AutoscaleMetric metric) {
  switch (metric) {
    case AutoscaleMetric::kOfferedPerS:
      return "req/s offered";
    case AutoscaleMetric::kAdmittedPerS:
      return "req/s admitted";
    default:
      return "millicores";
  }
}

std::string live_autoscale(const Scenario& scenario, const LiveWindowWatch& watch, bool hidden) {
  const AutoscaleSpec& spec = scenario.instances.autoscale;
  if (!spec.enabled) return "";
  const HpaDecision* last = watch.session().last_autoscale();
  if (last == nullptr)
    return fmt::format("    HPA: first sync at {}, target {:g} {} per pod",
                       live_clock_text(spec.sync_period_us), spec.target_average_value,
                       live_metric_unit(spec.metric));
  if (hidden) return "    HPA: ? replicas";
  const std::string reason = *last->reason == '\0' ? "" : fmt::format(" ({})", last->reason);
  return fmt::format("    HPA at {}: {} -> {} replicas, {:.0f} {} per pod vs target {:g}{}",
                     live_clock_text(last->at_us), last->current_replicas, last->desired,
                     last->metric, live_metric_unit(spec.metric), spec.target_average_value,
                     reason);
}

}  // namespace

namespace {

// "    user 3 by instance: #0:10 #1:12 ...", without the ids when they do not fit, and "+N" for
// the instances that still do not: never longer than `columns`.
std::string live_instances(const Limit& limit, const LiveWindowWatch& watch,
                           const LiveFigures& figures, int columns) {
  if (figures.by_instance == nullptr) return "";
  std::string head =
      limit.key == LimitKey::kGlobal
          ? "    by instance:"
          : fmt::format("    {} {} by instance:", to_string(limit.key), watch.window().top_key);
  const std::vector<std::int64_t>& counts = *figures.by_instance;
  for (const bool ids : {true, false}) {
    std::string out = head;
    for (std::size_t id = 0; id < counts.size(); ++id) {
      const std::string item =
          ids ? fmt::format(" #{}:{}", id, counts[id]) : fmt::format(" {}", counts[id]);
      const std::string more = fmt::format(" +{}", counts.size() - id);
      const bool last = id + 1 == counts.size();
      if (out.size() + item.size() + (last ? 0 : more.size()) > static_cast<std::size_t>(columns)) {
        if (ids) break;
        return out + more;
      }
      out += item;
      if (last) return out;
    }
  }
  return head;
}

int live_label_columns(const std::vector<const LiveWindowWatch*>& strategies) {
  std::size_t most = 8;
  for (const auto* watch : strategies) most = std::max(most, watch->session().label().size());
  return static_cast<int>(std::min<std::size_t>(most, 18));
}

struct LiveLayout {
  std::int64_t now_index = 0;  // aligned index of the first limit's current window
  std::int64_t scale = 1;      // the bars' top
  int label_columns = 8;
  int bar_cells = 40;
};

void live_strategy_rows(const Scenario& scenario, const LiveWindowWatch& watch,
                        const LiveLayout& layout, const LiveScreen& screen,
                        std::vector<LiveRow>& rows) {
  const Limit& limit = scenario.limits.front();
  const LiveFigures figures = live_figures(watch, layout.now_index);
  const bool hidden = screen.hidden;
  const std::string label =
      fmt::format("{:<{}}", watch.session().label().substr(0, 18), layout.label_columns);
  const std::string ratio = hidden ? "?"
                                   : fmt::format("{:.2f}x", static_cast<double>(figures.most) /
                                                                static_cast<double>(limit.limit));
  rows.push_back(
      {fmt::format(
           "{} {} {:>6} / {} {:>6} {:>3} instances", live_paint(screen, "1", label),
           live_bar(figures.most, limit.limit, layout.scale, layout.bar_cells, hidden, screen),
           hidden ? "?" : std::to_string(figures.most), limit.limit, ratio,
           watch.session().active_instances()),
       0});
  rows.push_back({live_window_figures(watch, figures, hidden), kRankFigures});
  if (std::string lesson = live_lesson(watch, hidden); !lesson.empty())
    rows.push_back({std::move(lesson), kRankLesson});
  if (std::string hpa = live_autoscale(scenario, watch, hidden); !hpa.empty())
    rows.push_back({std::move(hpa), kRankAutoscale});
  if (!hidden)
    if (std::string line = live_instances(limit, watch, figures, screen.columns); !line.empty())
      rows.push_back({std::move(line), kRankInstances});
}

std::vector<LiveRow> live_head_rows(const Scenario& scenario, TimeUs now_us,
                                    const LiveLayout& layout, const LiveScreen& screen) {
  const Limit& limit = scenario.limits.front();
  std::vector<LiveRow> rows;
  const std::string state =
      screen.paused ? "PAUSED" : (now_us >= scenario.duration_us ? "done" : "running");
  rows.push_back(
      {fmt::format("{}   {} of {} ({:.0f}%)   speed {:g}x   {}",
                   live_paint(screen, "1", "rlsim live: " + scenario.name), live_clock_text(now_us),
                   live_clock_text(scenario.duration_us),
                   100.0 * static_cast<double>(now_us) / static_cast<double>(scenario.duration_us),
                   screen.speed, live_paint(screen, "1", state)),
       0});
  for (const std::string& fault : live_banner(scenario, now_us))
    rows.push_back({live_paint(screen, "1;41;97", fault), 0});
  const TimeUs start_us = std::max<TimeUs>(0, layout.now_index * limit.window_us - kEpochUnixUs);
  const std::int64_t number = layout.now_index - aligned_window(kEpochUnixUs, limit.window_us) + 1;
  rows.push_back(
      {fmt::format("window #{}, {} to {}; bars: most admitted for one {}, scale 0 to "
                   "{}; limit {}: {} per {} per {}",
                   number, live_clock_text(start_us),
                   live_clock_text(std::min(start_us + limit.window_us, scenario.duration_us)),
                   to_string(limit.key), layout.scale, limit.name, limit.limit,
                   format_duration(limit.window_us), to_string(limit.key)),
       0});
  if (screen.hidden)
    rows.push_back(
        {live_paint(screen, "1;7", "figures hidden: predict, then press h to reveal"), 0});
  return rows;
}

// Drops the highest-ranked rows (the last first) until the screen fits, then cuts every row.
std::string live_fit(std::vector<LiveRow> rows, const LiveScreen& screen) {
  const auto limit = static_cast<std::size_t>(std::max(screen.rows, 1));
  while (rows.size() > limit) {
    int top = 0;
    for (const LiveRow& row : rows) top = std::max(top, row.rank);
    if (top == 0) {
      rows.erase(rows.end() - 2);  // the keys row stays last
      continue;
    }
    for (auto it = rows.end(); it != rows.begin();) {
      if ((--it)->rank == top) {
        rows.erase(it);
        break;
      }
    }
  }
  std::string out;
  for (const LiveRow& row : rows) {
    if (!out.empty()) out += '\n';
    out += live_clip(row.text, screen.columns);
  }
  return out;
}

}  // namespace

std::string live_dashboard(const Scenario& scenario,
                           const std::vector<const LiveWindowWatch*>& strategies,
                           const LiveScreen& screen) {
  const Limit& limit = scenario.limits.front();
  const TimeUs now_us = strategies.empty() ? 0 : strategies.front()->session().now_us();
  LiveLayout layout;
  layout.now_index = aligned_window(kEpochUnixUs + now_us, limit.window_us);
  layout.scale = live_bar_scale(scenario);
  layout.label_columns = live_label_columns(strategies);
  // label, bar, "  1234 / 100  12.34x  24 instances"
  layout.bar_cells = std::clamp(screen.columns - layout.label_columns - 40, 8, 50);
  std::vector<LiveRow> rows = live_head_rows(scenario, now_us, layout, screen);
  for (const auto* watch : strategies) {
    rows.push_back({"", kRankBlank});
    live_strategy_rows(scenario, *watch, layout, screen, rows);
  }
  rows.push_back({"", kRankBlank});
  rows.push_back({screen.columns >= 120
                      ? "keys: p pause/resume   s to the end of this window   h hide/reveal the "
                        "figures   + faster   - slower   q skip to the end"
                      : "keys: p pause  s to window end  h hide/reveal  + faster  - slower  q end",
                  0});
  return live_fit(std::move(rows), screen);
}

}  // namespace rlsim
