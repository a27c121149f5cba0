// The HTML report and its SVG charts: self-contained, well-formed, deterministic, escaped, and
// showing what the run measured.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "report/alerts.h"
#include "report/html_report.h"
#include "test_util.h"

namespace rlsim_test_html_report {

using namespace rlsim;

namespace {

// A small XML well-formedness check: every tag closed in order, attributes quoted, entities known.
// (The page is written as XHTML-compatible markup so that this holds.) Returns "" when well formed.
std::string xml_problem(const std::string& text) {
  std::vector<std::string> open;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '&') {
      const std::size_t end = text.find(';', i);
      if (end == std::string::npos) return "unterminated entity";
      const std::string entity = text.substr(i + 1, end - i - 1);
      const bool numeric = entity.size() > 1 && entity[0] == '#';
      if (!numeric && entity != "amp" && entity != "lt" && entity != "gt" && entity != "quot" &&
          entity != "apos")
        return "unknown entity &" + entity + ";";
      i = end + 1;
      continue;
    }
    if (text[i] != '<') {
      ++i;
      continue;
    }
    const std::size_t end = text.find('>', i);
    if (end == std::string::npos) return "unterminated tag";
    const std::string tag = text.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.rfind("!DOCTYPE", 0) == 0 || tag.rfind("!--", 0) == 0) continue;
    // Attribute values must be quoted and must not contain '<'.
    std::size_t quotes = 0;
    for (char c : tag) quotes += c == '"';
    if (quotes % 2 != 0) return "odd quotes in <" + tag + ">";
    if (tag.empty()) return "empty tag";
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (open.empty() || open.back() != name)
        return "</" + name + "> closes <" + (open.empty() ? "" : open.back()) + ">";
      open.pop_back();
      continue;
    }
    if (tag.back() == '/') continue;  // self-closing
    const std::string name = tag.substr(0, tag.find_first_of(" \n"));
    open.push_back(name);
  }
  if (!open.empty()) return "<" + open.back() + "> never closed";
  return "";
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("the well-formedness check catches broken markup") {
  CHECK(xml_problem("<a><b/></a>").empty());
  CHECK_FALSE(xml_problem("<a><b></a>").empty());
  CHECK_FALSE(xml_problem("<a>&nbsp;</a>").empty());
  CHECK_FALSE(xml_problem("<a x=\"1></a>").empty());
}

TEST_CASE("the HTML report of the overshoot demo shows 10x against the limit, self-contained") {
  const Scenario s = load_scenario(RLSIM_SOURCE_DIR "/scenarios/overshoot-10x.json");
  const RunResult result = rlsim::testing::run_text(s);
  const std::string html = report_html(result, "rlsim run scenarios/overshoot-10x.json --seed 42");
  INFO(xml_problem(html));
  CHECK(xml_problem(html).empty());
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  // Self-contained: no script, no external resource.
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("http://") == html.find("http://www.w3.org/2000/svg"));
  CHECK(html.find("https://") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  // The charts and the summary.
  // admitted, instances, latency, one stacked-by-instance chart per strategy, and the Redis
  // node's ops/s and utilization (redis_fixed_window calls it; nothing queues, nothing fails, no
  // clock model, no regions: no other chart).
  CHECK(count(html, "<svg ") == 7);
  CHECK(html.find("id=\"chart-redis-ops\"") != std::string::npos);
  CHECK(html.find("id=\"chart-redis-utilization\"") != std::string::npos);
  CHECK(html.find("id=\"chart-admitted\"") != std::string::npos);
  CHECK(html.find("id=\"chart-instances\"") != std::string::npos);
  CHECK(html.find("id=\"chart-latency\"") != std::string::npos);
  CHECK(html.find("id=\"chart-by-instance-1\"") != std::string::npos);
  CHECK(html.find("id=\"chart-by-instance-2\"") != std::string::npos);
  // in_memory's 1000 per minute are ten bands of 100, one per instance: the 7 largest (all
  // equal: the first 7) on their own, the other 3 as one band, in each strategy's chart.
  CHECK(count(html, "data-name=\"instance ") == 14);
  CHECK(count(html, "data-name=\"3 other instances\"") == 2);
  CHECK(html.find("id=\"summary\"") != std::string::npos);
  CHECK(html.find("10.00x the limit") != std::string::npos);
  CHECK(html.find("holds the limit") != std::string::npos);
  CHECK(html.find("<th>sliding-log error</th>") != std::string::npos);
  CHECK(html.find("<td>50.058%</td>") != std::string::npos);  // in_memory, as in the table
  CHECK(html.find("--seed 42") != std::string::npos);
  CHECK(html.find(s.description) != std::string::npos);
  // One series per strategy plus the limit line, each named.
  CHECK(html.find("data-name=\"in_memory\"") != std::string::npos);
  CHECK(html.find("data-name=\"redis_fixed_window\"") != std::string::npos);
  CHECK(html.find("data-name=\"limit (100)\"") != std::string::npos);
  // Same input, same bytes.
  CHECK(report_html(result, "rlsim run scenarios/overshoot-10x.json --seed 42") == html);
}

TEST_CASE("chart coordinates follow the data: 1000 sits ten times higher than 100") {
  Chart chart;
  chart.id = "t";
  chart.title = "t";
  chart.series.push_back({"high", "#000000", {{0, 1000}, {10, 1000}}, false, false});
  chart.series.push_back({"low", "#000000", {{0, 100}, {10, 100}}, false, false});
  chart.series.push_back({"zero", "#000000", {{0, 0}, {10, 0}}, false, false});
  const std::string svg = render_svg(chart);
  CHECK(xml_problem(svg).empty());
  // Extract the y of each path's first point.
  std::vector<double> ys;
  for (std::size_t at = svg.find("d=\"M"); at != std::string::npos;
       at = svg.find("d=\"M", at + 1)) {
    const std::size_t space = svg.find(' ', at);
    ys.push_back(std::stod(svg.substr(space + 1)));
  }
  REQUIRE(ys.size() == 3);
  const double zero = ys[2];
  CHECK((zero - ys[0]) == Approx(10 * (zero - ys[1])).epsilon(0.01));
}

TEST_CASE("labels and titles are escaped") {
  Chart chart;
  chart.id = "x";
  chart.title = "a < b & \"c\"";
  chart.series.push_back({"<script>", "#000000", {{0, 1}, {1, 2}}, true, false});
  chart.bands.push_back({0.2, 0.4, "redis_down 'all'"});
  const std::string svg = render_svg(chart);
  CHECK(xml_problem(svg).empty());
  CHECK(svg.find("<script>") == std::string::npos);
  CHECK(svg.find("&lt;script&gt;") != std::string::npos);
  CHECK(svg.find("a &lt; b &amp; &quot;c&quot;") != std::string::npos);
  CHECK(svg.find("redis_down &#39;all&#39;") != std::string::npos);
}

namespace {

// The number after `attribute="` in the first occurrence at or after `from` of `element`.
double attribute_after(const std::string& svg, const std::string& element,
                       const std::string& attribute, std::size_t from = 0) {
  const std::size_t at = svg.find(element, from);
  REQUIRE(at != std::string::npos);
  const std::size_t value = svg.find(attribute + "=\"", at);
  REQUIRE(value != std::string::npos);
  return std::stod(svg.substr(value + attribute.size() + 2));
}

}  // namespace

TEST_CASE("fault bands and alert markers sit at their x on the chart's scale") {
  Chart chart;
  chart.id = "marks";
  chart.title = "t";
  chart.x_max = 10;
  chart.series.push_back({"s", "#000000", {{0, 1}, {10, 2}}, false, false});
  chart.bands.push_back({2, 4, "redis_down"});
  chart.markers.push_back({3, 6.0, "p99", "p99 fired 3s, resolved 6s"});
  chart.markers.push_back({8, std::nullopt, "p99", "p99 fired 8s, still firing"});
  const std::string svg = render_svg(chart);
  CHECK(xml_problem(svg).empty());
  // The plot spans x 70 to 700 (720 wide, 70 left, 20 right) for 0 to x_max.
  const auto px = [](double x) { return 70 + x / 10 * 630; };
  CHECK(attribute_after(svg, "<g class=\"band\">", "x") == Approx(px(2)));
  CHECK(attribute_after(svg, "<g class=\"band\">", "width") == Approx(px(4) - px(2)));
  REQUIRE(count(svg, "<g class=\"alert-marker\" data-alert=\"p99\">") == 2);
  const std::size_t first = svg.find("class=\"alert-marker\"");
  const std::size_t second = svg.find("class=\"alert-marker\"", first + 1);
  CHECK(attribute_after(svg, "<line", "x1", first) == Approx(px(3)));
  CHECK(attribute_after(svg, "<line", "x2", first) == Approx(px(3)));
  // The resolution's tick at 6; the still-firing one's bar runs to the end, with no tick.
  CHECK(attribute_after(svg, "class=\"alert-resolved\"", "x1", first) == Approx(px(6)));
  CHECK(count(svg, "class=\"alert-resolved\"") == 1);
  CHECK(attribute_after(svg, "<line", "x1", second) == Approx(px(8)));
  CHECK(svg.find("<title>p99 fired 8s, still firing</title>") != std::string::npos);
  // Markers are drawn over the series, bands under them.
  CHECK(svg.find("class=\"band\"") < svg.find("class=\"series\""));
  CHECK(svg.find("class=\"series\"") < first);
  CHECK(render_svg(chart) == svg);
}

TEST_CASE("verdicts say whether the limit held") {
  CHECK(verdict(1.0) == "holds the limit");
  CHECK(verdict(0.5) == "holds the limit");
  CHECK(verdict(10.0) == "10.00x the limit");
  CHECK(verdict(1.34) == "1.34x the limit");
  CHECK(verdict(1.004) == "1.004x the limit");
  CHECK(verdict(1.009) == "1.01x the limit");
  CHECK(format_ratio(1.0) == "1.00x");
  CHECK(format_ratio(2.0) == "2.00x");
}

TEST_CASE("a long legend wraps onto more rows and the chart grows to fit") {
  Chart chart;
  chart.id = "legend";
  chart.title = "t";
  for (int i = 0; i < 8; ++i)
    chart.series.push_back({"a_rather_long_strategy_label_" + std::to_string(i),
                            "#000000",
                            {{0, 1}, {1, 2}},
                            false,
                            false});
  const std::string svg = render_svg(chart);
  CHECK(xml_problem(svg).empty());
  CHECK(svg.find("viewBox=\"0 0 720 320\"") == std::string::npos);  // taller than one row
  // Every series has its legend entry inside the chart's width.
  for (int i = 0; i < 8; ++i)
    CHECK(svg.find(">a_rather_long_strategy_label_" + std::to_string(i) + "</text>") !=
          std::string::npos);
  std::size_t at = 0;
  while ((at = svg.find("<text x=\"", at)) != std::string::npos) {
    at += 9;
    CHECK(std::stod(svg.substr(at)) < 720);
  }
}

TEST_CASE("the Markdown report has the summary table and links its charts") {
  const Scenario s = load_scenario(RLSIM_SOURCE_DIR "/scenarios/overshoot-10x.json");
  const RunResult result = rlsim::testing::run_text(s);
  const std::string md =
      report_markdown(result, "rlsim run x.json --seed 42", {"admitted.svg", "instances.svg"});
  CHECK(md.rfind("# rlsim: overshoot-10x\n", 0) == 0);
  CHECK(md.find("| in_memory | 10.00x the limit | 19777 | 10000 |") != std::string::npos);
  CHECK(md.find("| redis_fixed_window | holds the limit | 19777 | 1000 |") != std::string::npos);
  CHECK(md.find("](admitted.svg)") != std::string::npos);
  CHECK(md.find("](instances.svg)") != std::string::npos);
  CHECK(report_charts(result).size() == 7);
}

TEST_CASE("a description's control characters reach neither report.md nor report.html raw") {
  Scenario s = load_scenario(RLSIM_SOURCE_DIR "/scenarios/overshoot-10x.json");
  s.description = std::string("line one\nbell\x07 nul") + std::string(1, '\0') + " esc\x1b[2J end";
  const RunResult result = rlsim::testing::run_text(s);
  const std::string md = report_markdown(result, "rlsim run x.json", {});
  const std::string html = report_html(result, "rlsim run x.json");
  for (const std::string* text : {&md, &html}) {
    for (const char c : *text) {
      const auto byte = static_cast<unsigned char>(c);
      CHECK((byte >= 0x20 || c == '\n' || c == '\t'));
    }
  }
  CHECK(md.find("line one\nbell\\x07 nul\\x00 esc\\x1b[2J end") != std::string::npos);
  CHECK(html.find("bell\\x07 nul\\x00 esc\\x1b[2J end") != std::string::npos);
}

namespace {

const Chart* find_chart(const std::vector<Chart>& charts, const std::string& id) {
  for (const Chart& chart : charts)
    if (chart.id == id) return &chart;
  return nullptr;
}

const ChartSeries* find_series(const Chart& chart, const std::string& prefix) {
  for (const ChartSeries& series : chart.series)
    if (series.name.rfind(prefix, 0) == 0) return &series;
  return nullptr;
}

double max_y(const ChartSeries& series) {
  double out = -1e300;
  for (const auto& point : series.points) out = std::max(out, point.second);
  return out;
}

// The series' value at x (a step line holds each value until the next point).
double y_at(const ChartSeries& series, double x) {
  double y = 0;
  for (const auto& point : series.points)
    if (point.first <= x) y = point.second;
  return y;
}

// Every chart of the page is a time chart: each shades each of the scenario's fault windows and
// marks each clock fault.
void check_page(const std::string& html, std::size_t bands) {
  INFO(xml_problem(html));
  CHECK(xml_problem(html).empty());
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("https://") == std::string::npos);
  CHECK(count(html, "<g class=\"band\">") == bands * count(html, "<svg "));
}

}  // namespace

TEST_CASE("redis-outage: Redis load, fallback and breaker charts, each with the outage shaded") {
  const Scenario s = load_scenario(RLSIM_SOURCE_DIR "/scenarios/redis-outage.json");
  const RunResult result = rlsim::testing::run_text(s);
  const std::string html = report_html(result, "rlsim run scenarios/redis-outage.json");
  check_page(html, s.faults.size() + s.instances.clock.faults.size());
  for (const char* id : {"redis-ops", "redis-utilization", "fallback", "breaker-4"})
    CHECK(html.find(fmt::format("id=\"chart-{}\"", id)) != std::string::npos);
  // Only the fourth strategy has a breaker.
  CHECK(html.find("id=\"chart-breaker-1\"") == std::string::npos);
  const std::vector<Chart> charts = report_charts(result);
  // Minutes: the outage is [3, 3 1/3).
  const Chart* breaker = find_chart(charts, "breaker-4");
  REQUIRE(breaker != nullptr);
  const ChartSeries* open = find_series(*breaker, "open");
  const ChartSeries* closed = find_series(*breaker, "closed");
  REQUIRE(open != nullptr);
  REQUIRE(closed != nullptr);
  CHECK(y_at(*open, 2.9) == 0);
  CHECK(y_at(*open, 3.1) == 10);  // every instance's breaker opened during the outage
  CHECK(y_at(*open, 4.5) == 0);   // and closed again after it
  CHECK(y_at(*closed, 1.0) == 10);
  // The fallback chart counts every fallback decision once, in the outage.
  const Chart* fallback = find_chart(charts, "fallback");
  REQUIRE(fallback != nullptr);
  CHECK(fallback->series.size() == 4);
  for (const StrategyResult& strategy : result.strategies) {
    const ChartSeries* series = find_series(*fallback, strategy.label + " (");
    REQUIRE(series != nullptr);
    REQUIRE(strategy.redis_side);
    REQUIRE(strategy.redis_side->resilience);
    const ResilienceResult& resilience = *strategy.redis_side->resilience;
    REQUIRE(resilience.fallback_series);
    const double bucket_s = resilience.fallback_series->bucket_s;
    double total = 0, outside = 0;
    for (const auto& [x, y] : series->points) {
      total += y * bucket_s;
      if (x < 3.0 || x >= 3.5) outside += y * bucket_s;
    }
    CHECK(total == Approx(static_cast<double>(resilience.fallback_decisions)));
    CHECK(outside < 0.01 * total);
  }
  // The node executes nothing while it is down, and about 100 commands a second before.
  const Chart* ops = find_chart(charts, "redis-ops");
  REQUIRE(ops != nullptr);
  CHECK(y_at(*find_series(*ops, "circuit_breaker"), 1.0) > 50);
  CHECK(y_at(*find_series(*ops, "circuit_breaker"), 3.2) < 5);
}

TEST_CASE("redis-outage: each strategy's own charts mark its alert firings at their times") {
  const Scenario s = load_scenario(RLSIM_SOURCE_DIR "/scenarios/redis-outage.json");
  const RunResult result = rlsim::testing::run_text(s);
  const std::vector<Chart> charts = report_charts(result);
  std::size_t markers = 0;
  for (std::size_t i = 0; i < result.strategies.size(); ++i) {
    const StrategyResult& strategy = result.strategies[i];
    const std::vector<AlertTimeline> timelines = alert_timelines(s, strategy);
    REQUIRE(timelines.size() == s.alerts.size());
    std::vector<std::pair<TimeUs, std::string>> firings;
    for (const AlertTimeline& timeline : timelines)
      for (const AlertFiring& firing : timeline.firings)
        firings.emplace_back(firing.fired_us, timeline.rule->name);
    REQUIRE(firings.size() >= 3);  // each alert fires at least once
    const Chart* chart = find_chart(charts, fmt::format("by-instance-{}", i + 1));
    REQUIRE(chart != nullptr);
    REQUIRE(chart->markers.size() == firings.size());
    const std::string svg = render_svg(*chart);
    std::size_t at = 0;
    for (const auto& [fired_us, name] : firings) {
      // The run is 5 minutes long: the axis is in minutes, 0 to 5 over x 70 to 700.
      const double x = 70 + static_cast<double>(fired_us) / kUsPerMin / 5 * 630;
      at = svg.find(fmt::format("<g class=\"alert-marker\" data-alert=\"{}\">", name), at);
      REQUIRE(at != std::string::npos);
      CHECK(attribute_after(svg, "<line", "x1", at) == Approx(x).margin(0.01));
      ++at;
    }
    markers += firings.size();
  }
  // The breaker chart is circuit_breaker's own; the charts all strategies share mark none.
  const Chart* breaker = find_chart(charts, "breaker-4");
  REQUIRE(breaker != nullptr);
  CHECK(breaker->markers.size() == find_chart(charts, "by-instance-4")->markers.size());
  for (const char* shared : {"admitted", "latency", "fallback", "redis-ops"})
    CHECK(find_chart(charts, shared)->markers.empty());
  const std::string html = report_html(result, "rlsim run scenarios/redis-outage.json");
  CHECK(count(html, "<g class=\"alert-marker\"") == markers + breaker->markers.size());
  // The outage's band: from 3 to 3 1/3 minutes. The admitted chart's lines are labelled at their
  // ends in a right margin as wide as the longest label ("circuit_breaker", 15 characters at
  // 6.2 px, plus 10): its plot spans x 70 to 720 - 103.
  const std::size_t admitted = html.find("id=\"chart-admitted\"");
  const double plot_w = 720 - 70 - (10 + 6.2 * 15);
  CHECK(attribute_after(html, "<g class=\"band\">", "x", admitted) ==
        Approx(70 + 3.0 / 5 * plot_w));
  CHECK(attribute_after(html, "<g class=\"band\">", "width", admitted) ==
        Approx(20.0 / 300 * plot_w).margin(0.01));
}

TEST_CASE("redis-saturation: utilization and queue over time follow the node's totals") {
  const Scenario s = load_scenario(RLSIM_SOURCE_DIR "/scenarios/redis-saturation.json");
  const RunResult result = rlsim::testing::run_text(s);
  const std::string html = report_html(result, "rlsim run scenarios/redis-saturation.json");
  check_page(html, s.faults.size() + s.instances.clock.faults.size());
  const std::vector<Chart> charts = report_charts(result);
  const Chart* utilization = find_chart(charts, "redis-utilization");
  const Chart* queue = find_chart(charts, "redis-queue");
  REQUIRE(utilization != nullptr);
  REQUIRE(queue != nullptr);
  for (const StrategyResult& strategy : result.strategies) {
    REQUIRE(strategy.redis_side);
    REQUIRE(strategy.redis_side->redis_node);
    const NodeResult& node = *strategy.redis_side->redis_node;
    const ChartSeries* series = find_series(*utilization, strategy.label);
    REQUIRE(series != nullptr);
    // The busy time of the buckets inside the run adds up to the run's utilization (busy time
    // over the duration); the buckets after the end are the backlog draining, drain_us.
    const double bucket_s = node.utilization_series.bucket_s;
    const double duration_s = static_cast<double>(s.duration_us) / kUsPerS;
    double busy_s = 0;
    double drain_s = 0;
    // The chart draws the buckets that start inside the run (point k is bucket k from its
    // start); the buckets after the end, the backlog draining, are in the JSON only.
    const auto& values = node.utilization_series.values;
    REQUIRE(series->points.size() == static_cast<std::size_t>(duration_s / bucket_s));
    for (std::size_t k = 0; k < values.size(); ++k) {
      const double start_s = static_cast<double>(k) * bucket_s;
      if (start_s < duration_s) {
        CHECK(series->points[k].second == Approx(values[k] * 100));
        busy_s += values[k] * bucket_s;
      } else {
        drain_s += values[k] * bucket_s;
      }
    }
    CHECK(busy_s / duration_s == Approx(node.utilization).margin(0.001));
    CHECK(static_cast<double>(node.drain_us) / kUsPerS >= drain_s - 0.001);
    CHECK(series->end_x == Approx(duration_s));  // the line stops at the end, no drop to 0
    CHECK(max_y(*series) <= 100.0);
    CHECK(max_y(*series) > 90.0);  // the 50,000 req/s second saturates the node
    // The longest queue of any bucket, draining ones included, is at least the p99 of every
    // call's queue; the chart shows the buckets inside the run.
    const auto& queued = node.queue_length_max_series.values;
    CHECK(static_cast<double>(*std::max_element(queued.begin(), queued.end())) >=
          static_cast<double>(node.queue_length_p99));
    const ChartSeries* queue_line = find_series(*queue, strategy.label);
    REQUIRE(queue_line != nullptr);
    CHECK(max_y(*queue_line) == static_cast<double>(*std::max_element(
                                    queued.begin(), queued.begin() + static_cast<std::ptrdiff_t>(
                                                                         duration_s / bucket_s))));
  }
}

TEST_CASE("vm-resume and clock-skew: clock error per instance and of the Redis node") {
  const Scenario s = load_scenario(RLSIM_SOURCE_DIR "/scenarios/vm-resume.json");
  const RunResult result = rlsim::testing::run_text(s);
  const std::string html = report_html(result, "rlsim run scenarios/vm-resume.json");
  check_page(html, s.faults.size() + s.instances.clock.faults.size());
  const std::vector<Chart> charts = report_charts(result);
  const Chart* clock = find_chart(charts, "clock-error");
  REQUIRE(clock != nullptr);
  CHECK(count(html, "id=\"chart-clock-error\"") == 1);  // once, not per strategy
  CHECK(html.find("<g class=\"band\"><title>clock_jump</title>") != std::string::npos);
  const ChartSeries* resumed = find_series(*clock, "instance 1");
  REQUIRE(resumed != nullptr);
  CHECK(max_y(*resumed) == 5000);  // the 5 s jump, in ms
  CHECK(find_series(*clock, "Redis node") != nullptr);
  CHECK(find_chart(charts, "fallback") == nullptr);  // Redis never failed
  CHECK(find_chart(charts, "regions-1") == nullptr);

  const Scenario skew = load_scenario(RLSIM_SOURCE_DIR "/scenarios/clock-skew.json");
  const RunResult skewed = rlsim::testing::run_text(skew);
  const std::vector<Chart> skew_charts = report_charts(skewed);
  const Chart* skew_chart = find_chart(skew_charts, "clock-error");
  REQUIRE(skew_chart != nullptr);
  double lowest = 0;
  for (const ChartSeries& series : skew_chart->series)
    for (const auto& point : series.points) lowest = std::min(lowest, point.second);
  CHECK(lowest < 0);  // a clock behind true time: the axis goes below 0
  const std::string svg = render_svg(*skew_chart);
  CHECK(xml_problem(svg).empty());
  CHECK(svg.find(">-") != std::string::npos);  // a negative tick label
}

TEST_CASE("multi-region: admitted per region and across regions against the limit") {
  const Scenario s = load_scenario(RLSIM_SOURCE_DIR "/scenarios/multi-region.json");
  const RunResult result = rlsim::testing::run_text(s);
  const std::string html = report_html(result, "rlsim run scenarios/multi-region.json");
  check_page(html, s.faults.size() + s.instances.clock.faults.size());
  const std::vector<Chart> charts = report_charts(result);
  const double limit = static_cast<double>(s.limits.front().limit);
  for (std::size_t i = 0; i < result.strategies.size(); ++i) {
    const StrategyResult& strategy = result.strategies[i];
    const Chart* chart = find_chart(charts, fmt::format("regions-{}", i + 1));
    REQUIRE(chart != nullptr);
    CHECK(html.find(fmt::format("id=\"chart-regions-{}\"", i + 1)) != std::string::npos);
    const ChartSeries* all = find_series(*chart, "all regions");
    REQUIRE(all != nullptr);
    CHECK(max_y(*all) == strategy.totals.limits.front().max_in_window);
    CHECK(find_series(*chart, "limit (100)") != nullptr);
    REQUIRE(strategy.regions);
    for (const RegionResult& region : *strategy.regions) {
      const ChartSeries* line = find_series(*chart, "region " + region.name);
      REQUIRE(line != nullptr);
      CHECK(max_y(*line) / limit == Approx(region.overshoot).margin(0.01));
    }
  }
  // region_local holds the limit in each region and overshoots it across regions.
  const Chart* local = find_chart(charts, "regions-1");
  CHECK(max_y(*find_series(*local, "region eu")) <= limit);
  CHECK(max_y(*find_series(*local, "all regions")) > limit);
}

TEST_CASE("negative values put 0 inside the axis, with the lower values below it") {
  Chart chart;
  chart.id = "neg";
  chart.title = "t";
  chart.series.push_back({"behind", "#000000", {{0, -50}, {10, -50}}, false, false});
  chart.series.push_back({"zero", "#000000", {{0, 0}, {10, 0}}, false, false});
  chart.series.push_back({"ahead", "#000000", {{0, 100}, {10, 100}}, false, false});
  const std::string svg = render_svg(chart);
  CHECK(xml_problem(svg).empty());
  std::vector<double> ys;
  for (std::size_t at = svg.find("d=\"M"); at != std::string::npos;
       at = svg.find("d=\"M", at + 1)) {
    const std::size_t space = svg.find(' ', at);
    ys.push_back(std::stod(svg.substr(space + 1)));
  }
  REQUIRE(ys.size() == 3);
  CHECK(ys[0] > ys[1]);  // SVG y grows downwards: -50 is below 0
  CHECK((ys[1] - ys[2]) == Approx(2 * (ys[0] - ys[1])).epsilon(0.01));
  CHECK(svg.find(">-") != std::string::npos);
  CHECK(svg.find("e-1") == std::string::npos);  // no tick like -1.4e-17
}

namespace {

// The attribute's text in the element that starts at `at` (a string, unlike attribute_after).
std::string attribute_text(const std::string& svg, std::size_t at, const std::string& attribute) {
  const std::size_t end = svg.find('>', at);
  const std::size_t value = svg.find(attribute + "=\"", at);
  if (value == std::string::npos || value > end) return "";
  const std::size_t start = value + attribute.size() + 2;
  return svg.substr(start, svg.find('"', start) - start);
}

// Each legend entry's (name, stroke, dash) in order.
std::vector<std::vector<std::string>> legend_of(const std::string& svg) {
  std::vector<std::vector<std::string>> out;
  for (std::size_t at = svg.find("<g class=\"legend\""); at != std::string::npos;
       at = svg.find("<g class=\"legend\"", at + 1)) {
    const std::size_t line = svg.find("<line", at);
    out.push_back({attribute_text(svg, at, "data-legend"), attribute_text(svg, line, "stroke"),
                   attribute_text(svg, line, "stroke-dasharray")});
  }
  return out;
}

}  // namespace

TEST_CASE("no two series of a chart share a colour; coincident lines get their own dashes") {
  Chart chart;
  chart.id = "styles";
  chart.title = "t";
  // Three lines at one value (three strategies holding one limit), all asking for one colour,
  // and a fourth elsewhere.
  for (const char* name : {"fixed", "lua", "log"})
    chart.series.push_back({name, "#0072B2", {{0, 100}, {5, 100}, {10, 100}}, true, false});
  chart.series.push_back({"in_memory", "#0072B2", {{0, 1000}, {10, 1000}}, true, false});
  const std::string svg = render_svg(chart);
  CHECK(xml_problem(svg).empty());
  const auto legend = legend_of(svg);
  REQUIRE(legend.size() == 4);
  // The first keeps its colour; each repeat takes the first unused one of the palette.
  CHECK(legend[0][1] == "#0072B2");
  CHECK(legend[1][1] == "#D55E00");
  CHECK(legend[2][1] == "#009E73");
  CHECK(legend[3][1] == "#CC79A7");
  // The first line is solid; the two drawn over it have two different patterns; the line that
  // runs alone stays solid.
  CHECK(legend[0][2].empty());
  CHECK(!legend[1][2].empty());
  CHECK(!legend[2][2].empty());
  CHECK(legend[1][2] != legend[2][2]);
  CHECK(legend[3][2].empty());
  // Every line is labelled at its end; the three at one height are stacked 12 px apart.
  std::vector<double> label_y;
  for (std::size_t at = svg.find("class=\"end-label\""); at != std::string::npos;
       at = svg.find("class=\"end-label\"", at + 1))
    label_y.push_back(attribute_after(svg, "class=\"end-label\"", "y", at));
  REQUIRE(label_y.size() == 4);
  std::sort(label_y.begin(), label_y.end());
  CHECK(label_y[2] - label_y[1] == Approx(12));
  CHECK(label_y[3] - label_y[2] == Approx(12));
  CHECK(svg.find(">in_memory</text>") != std::string::npos);
}

TEST_CASE("a chart of more than 8 series becomes small multiples, each with the shared lines") {
  Chart chart;
  chart.id = "admitted";
  chart.title = "Admitted";
  for (int i = 0; i < 14; ++i)
    chart.series.push_back({fmt::format("s{}", i), "#000000", {{0, 1.0 * i}, {1, 1.0 * i}}});
  ChartSeries limit{"limit (100)", "#555555", {{0, 100}, {1, 100}}, false, true};
  limit.shared = true;
  chart.series.push_back(limit);
  CHECK(small_multiples(chart).size() == 2);
  const std::vector<Chart> parts = small_multiples(chart);
  REQUIRE(parts.size() == 2);  // 14 own series, 7 a part, plus the limit in each
  CHECK(parts[0].id == "admitted");
  CHECK(parts[1].id == "admitted-2");
  CHECK(parts[0].title == "Admitted (1 of 2)");
  CHECK(parts[1].title == "Admitted (2 of 2)");
  for (const Chart& part : parts) {
    REQUIRE(part.series.size() == 8);
    CHECK(part.series.back().name == "limit (100)");
    CHECK(xml_problem(render_svg(part)).empty());
  }
  CHECK(parts[0].series.front().name == "s0");
  CHECK(parts[1].series.front().name == "s7");
  // Eight or fewer: unchanged.
  chart.series.resize(8);
  REQUIRE(small_multiples(chart).size() == 1);
  CHECK(small_multiples(chart)[0].title == "Admitted");
}

TEST_CASE("overshoot-24: 24 instances stack as the 7 largest and the others, legibly") {
  const Scenario s = load_scenario(RLSIM_SOURCE_DIR "/scenarios/overshoot-24.json");
  const RunResult result = rlsim::testing::run_text(s);
  const std::vector<Chart> charts = report_charts(result);
  const Chart* stacked = find_chart(charts, "by-instance-1");  // in_memory
  REQUIRE(stacked != nullptr);
  REQUIRE(stacked->series.size() == 8);
  CHECK(stacked->series.front().name == "17 other instances");
  // The top of the stack is every instance's admissions together: in_memory admits 100 on each
  // of the 24 instances per minute, 2400.
  CHECK(max_y(stacked->series.front()) == 2400);
  for (const Chart& chart : charts) {
    INFO(chart.id);
    CHECK(chart.series.size() <= kMaxChartSeries);
    const auto legend = legend_of(render_svg(chart));
    std::set<std::string> names, colours;
    for (const auto& entry : legend) {
      names.insert(entry[0]);
      colours.insert(entry[1]);
    }
    CHECK(names.size() == legend.size());
    CHECK(colours.size() == legend.size());
  }
  // The three Redis designs hold 100 in every window: drawn on top of each other, told apart by
  // dashes.
  const auto legend = legend_of(render_svg(*find_chart(charts, "admitted")));
  REQUIRE(legend.size() == 5);
  CHECK(legend[1][2].empty());   // redis_fixed_window, solid
  CHECK(!legend[2][2].empty());  // redis_fixed_window_lua over it
  CHECK(!legend[3][2].empty());  // redis_sliding_log over both
  CHECK(legend[2][2] != legend[3][2]);
}

TEST_CASE("a window the run did not complete is not drawn as a drop to 0") {
  // 90 s with 1 minute windows: the second window is cut at 30 s.
  const Scenario s = parse_scenario(
      R"({"name": "cut", "duration": "90s", "seed": 1,
          "limits": [{"name": "l", "key": "user", "limit": 100, "window": "1m"}],
          "instances": {"count": 2}, "traffic": [{"name": "u", "rate": "10/s"}],
          "redis": {"rtt": "1ms", "service_time": "5us", "timeout": "50ms"},
          "strategies": ["in_memory", "redis_fixed_window"]})",
      "cut.json");
  const RunResult result = rlsim::testing::run_text(s);
  const std::vector<Chart> charts = report_charts(result);
  for (const char* id : {"admitted", "latency", "by-instance-1"}) {
    INFO(id);
    const Chart* chart = find_chart(charts, id);
    REQUIRE(chart != nullptr);
    bool shaded = false;
    for (const ChartBand& band : chart->bands)
      shaded = shaded || (band.label == "last window partial: 30s of 1m" && band.from_x == 60 &&
                          band.to_x == 90);
    CHECK(shaded);
    for (const ChartSeries& series : chart->series) {
      if (series.shared) continue;
      // Windows start at 0 and 60 s; none at or after the end (requests still draining).
      REQUIRE(!series.points.empty());
      CHECK(series.points.back().first == 60);
      CHECK(series.end_x == 90);
    }
  }
  // The per-second Redis lines stop where their data does, with no point at 0 after it.
  const Chart* ops = find_chart(charts, "redis-ops");
  REQUIRE(ops != nullptr);
  const ChartSeries& line = ops->series.front();
  CHECK(line.points.back().first < 90);
  CHECK(line.points.back().second > 0);
  CHECK(line.end_x <= 90);
}

TEST_CASE("utilization ticks read as percent and the axis ends at 100%") {
  const Scenario s = load_scenario(RLSIM_SOURCE_DIR "/scenarios/redis-saturation.json");
  const RunResult result = rlsim::testing::run_text(s);
  const std::vector<Chart> charts = report_charts(result);
  const Chart* utilization = find_chart(charts, "redis-utilization");
  REQUIRE(utilization != nullptr);
  CHECK(max_y(utilization->series.front()) > 98);  // saturated: 99.1% of a second
  const std::string svg = render_svg(*utilization);
  CHECK(svg.find(">100%</text>") != std::string::npos);
  CHECK(svg.find(">120") == std::string::npos);
  CHECK(svg.find(">0%</text>") != std::string::npos);
  CHECK(svg.find("busy (% of the time)") != std::string::npos);
}

}  // namespace rlsim_test_html_report
