// The HTML report and its SVG charts: self-contained, well-formed, deterministic, escaped, and
// showing what the run measured.
#include <catch2/catch.hpp>

#include "report/html_report.h"
#include "test_util.h"

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
  // admitted, instances, latency, and one stacked-by-instance chart per strategy.
  CHECK(count(html, "<svg ") == 5);
  CHECK(html.find("id=\"chart-admitted\"") != std::string::npos);
  CHECK(html.find("id=\"chart-instances\"") != std::string::npos);
  CHECK(html.find("id=\"chart-latency\"") != std::string::npos);
  CHECK(html.find("id=\"chart-by-instance-1\"") != std::string::npos);
  CHECK(html.find("id=\"chart-by-instance-2\"") != std::string::npos);
  // in_memory's 1000 per minute are ten bands of 100, one per instance.
  CHECK(count(html, "data-name=\"instance ") == 20);
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
  CHECK(report_charts(result).size() == 5);
}
