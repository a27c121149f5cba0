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
};

// Renders `chart` as one <svg> element (with its legend inside).
std::string render_svg(const Chart& chart);

// Escapes &, <, >, " and ' for XML text and attribute values, and writes control characters but
// newline and tab as visible escapes (escape_controls_in_document): XML 1.0 forbids them.
std::string xml_escape(const std::string& text);

// The colour-blind-safe Okabe-Ito palette, in the order charts use it.
const std::vector<std::string>& chart_palette();

}  // namespace rlsim
