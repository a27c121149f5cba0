#pragma once
// Self-contained SVG line charts for the HTML and Markdown reports: no script, no external font or
// stylesheet, a viewBox so that the chart scales to the page, and a <title> per series point group
// for hover details. Pure function of its input: same chart, same bytes.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rlsim {

struct ChartSeries {
  std::string name;
  std::string color;                              // CSS colour, e.g. "#0072B2"
  std::vector<std::pair<double, double>> points;  // (x, y), x increasing
  bool step = false;    // a step line (value holds until the next point), e.g. instance counts
  bool dashed = false;  // e.g. the limit line
  // Filled down to y = 0 (stacked charts give each series the running total and list the top
  // one first, so that the lower areas are drawn over it).
  bool area = false;
  // Drawn in every part when a chart is split into small multiples (the limit line).
  bool shared = false;
  // Where a step line ends: by default the chart's end; earlier when the data ends earlier (the
  // last window is partial, a series stops), so that no line drops to 0 where nothing was measured.
  std::optional<double> end_x = std::nullopt;
};

// A shaded interval of x (a fault's window), labelled.
struct ChartBand {
  double from_x = 0;
  double to_x = 0;
  std::string label;
};

// A moment of x marked with a vertical line over the plot (an alert firing), labelled; a bar along
// the label's row runs from x to `to_x` (the alert resolved: a tick) or to the chart's end.
struct ChartMarker {
  double x = 0;
  std::optional<double> to_x;
  std::string label;  // drawn beside the line
  std::string title;  // the hover text
};

struct Chart {
  std::string id;  // unique in the page; used as the element id, "chart-<id>"
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<ChartSeries> series;
  std::vector<ChartBand> bands;
  std::vector<ChartMarker> markers;  // drawn over the series
  double x_max = 0;                  // 0: the largest x among the points
  // Labelled x ticks (a sweep over non-numeric values: each value at its position); empty: evenly
  // spaced numeric ticks.
  std::vector<std::pair<double, std::string>> x_ticks;
  std::string y_suffix;  // after each y tick's number ("%")
  double y_cap = 0;      // the y axis ends here at most when the values do (100 for %); 0: none
};

// The most series one chart draws: more are not told apart by colour (the palette has 8) nor read
// in a legend. Producers with more split them (small_multiples) or group them ("others").
constexpr std::size_t kMaxChartSeries = 8;

// Renders `chart` as one <svg> element (with its legend inside). REQUIRES: at most
// kMaxChartSeries series. No two series share a colour (a repeated colour is replaced by the first
// unused one of the palette), a line that runs over an earlier one for at least half of its points
// gets its own dash pattern, and every line is labelled at its end in the right margin.
std::string render_svg(const Chart& chart);

// `chart` as one chart when it has at most kMaxChartSeries series, else as parts of at most that
// many ("title (2 of 3)", ids "<id>", "<id>-2", ...), each with the shared series, the bands and
// the markers, the others in their order.
std::vector<Chart> small_multiples(Chart chart);

// Escapes &, <, >, " and ' for XML text and attribute values, and writes control characters but
// newline and tab as visible escapes (escape_controls_in_document): XML 1.0 forbids them.
std::string xml_escape(const std::string& text);

// The colour-blind-safe Okabe-Ito palette, in the order charts use it.
const std::vector<std::string>& chart_palette();

}  // namespace rlsim
