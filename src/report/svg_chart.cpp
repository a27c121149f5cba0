#include "report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/terminal_text.h"
#include "core/xml.h"

namespace rlsim {
namespace {

constexpr double kWidth = 720;
constexpr double kHeight = 320;
constexpr double kLeft = 70;  // room for y tick labels
constexpr double kRight = 20;
constexpr double kTop = 40;     // room for the title
constexpr double kBottom = 70;  // x tick labels, x label and the legend
constexpr int kMaxTicks = 6;

// A "nice" tick step (1, 2 or 5 times a power of ten) giving at most kMaxTicks intervals.
double nice_step(double range) {
  if (range <= 0) return 1;
  const double raw = range / kMaxTicks;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double factor : {1.0, 2.0, 5.0, 10.0}) {
    if (factor * power >= raw) return factor * power;
  }
  return 10 * power;
}

// Tick labels without trailing zeros: 0, 0.5, 100, 1.5k, 2M.
std::string tick_label(double value) {
  const double magnitude = std::fabs(value);
  if (magnitude >= 1e6) return fmt::format("{:g}M", value / 1e6);
  if (magnitude >= 1e4) return fmt::format("{:g}k", value / 1e3);
  return fmt::format("{:g}", value);
}

// Coordinates are printed with two decimals so that the SVG is byte-stable and small.
std::string coord(double value) { return fmt::format("{:.2f}", value); }

}  // namespace

const std::vector<std::string>& chart_palette() {
  static const std::vector<std::string> palette = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                   "#E69F00", "#56B4E9", "#000000", "#F0E442"};
  return palette;
}

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  // Control characters (XML 1.0 forbids most of them) are written as visible escapes first.
  for (const char c : escape_controls_in_document(text)) {
    if (const char* entity = xml_entity(c, Apostrophe::kNumeric)) {
      out += entity;
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

// How each series is drawn: its colour (unique in the chart) and its dash pattern ("": solid).
struct SeriesStyle {
  std::string color;
  std::string dash;
};

// Where a chart's values land: the axes' ranges and steps, the plot's size, the legend's rows and
// the series' styles.
struct Frame {
  double x_max = 1, x_step = 1, y_top = 1, y_bottom = 0, y_step = 1;
  double right = kRight;  // the right margin: room for the labels at the lines' ends
  double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  double height = kHeight;                           // grows with the legend's rows
  std::vector<std::pair<double, double>> legend_at;  // (x, row) per series
  std::vector<SeriesStyle> styles;                   // per series
  double px(double x) const { return kLeft + x / x_max * plot_w; }
  double py(double y) const { return kTop + plot_h - (y - y_bottom) / (y_top - y_bottom) * plot_h; }
};

// The legend wraps onto as many rows as it needs under the plot; the chart grows to fit them.
constexpr double kLegendRow = 20;
// Labels at the lines' ends: font-size 11, at most this many characters (longer ones are cut
// with an ellipsis; the legend has the whole name).
constexpr std::size_t kEndLabelChars = 22;
constexpr double kEndLabelCharWidth = 6.2;
constexpr double kEndLabelRow = 12;

// A line series (not an area, not a lone dot): the ones labelled at their end.
bool is_line(const ChartSeries& series) { return !series.area && series.points.size() >= 2; }

std::string end_label(const std::string& name) {
  // Cut at a character boundary of UTF-8 (continuation bytes are 10xxxxxx).
  if (name.size() <= kEndLabelChars) return name;
  std::size_t cut = kEndLabelChars - 1;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
  return name.substr(0, cut) + "\u2026";
}

// Colours: a series keeps its own unless an earlier one has it, then it takes the first unused
// colour of the palette. Dashes: a series asked for dashes gets the limit's pattern; a line that
// coincides with an earlier line (at least half of its points equal) gets a pattern of its own so
// that the lines under it show through its gaps.
std::vector<SeriesStyle> series_styles(const Chart& chart) {
  static const std::vector<std::string> kPatterns = {"10 6", "3 4", "14 4 3 4", "6 3 1 3"};
  std::vector<SeriesStyle> styles;
  std::vector<std::string> used;
  std::set<std::pair<double, double>> drawn;  // the points of the lines so far
  std::size_t coincident = 0;
  for (const ChartSeries& series : chart.series) {
    SeriesStyle style{series.color, series.dashed ? "8 5" : ""};
    if (std::find(used.begin(), used.end(), style.color) != used.end()) {
      for (const std::string& candidate : chart_palette()) {
        if (std::find(used.begin(), used.end(), candidate) == used.end()) {
          style.color = candidate;
          break;
        }
      }
    }
    used.push_back(style.color);
    if (is_line(series)) {
      const auto shared = std::count_if(series.points.begin(), series.points.end(),
                                        [&](const auto& point) { return drawn.count(point) > 0; });
      if (!series.dashed && 2 * static_cast<std::size_t>(shared) >= series.points.size())
        style.dash = kPatterns[coincident++ % kPatterns.size()];
      drawn.insert(series.points.begin(), series.points.end());
    }
    styles.push_back(std::move(style));
  }
  return styles;
}

// The longest end label's width decides the right margin.
double right_margin(const Chart& chart) {
  std::size_t longest = 0;
  for (const ChartSeries& series : chart.series)
    if (is_line(series)) longest = std::max(longest, std::min(series.name.size(), kEndLabelChars));
  return std::max(kRight, 10 + kEndLabelCharWidth * static_cast<double>(longest));
}

Frame frame_of(const Chart& chart) {
  Frame frame;
  double x_max = chart.x_max, y_max = 0, y_min = 0;
  for (const auto& series : chart.series) {
    for (const auto& [x, y] : series.points) {
      if (chart.x_max <= 0) x_max = std::max(x_max, x);
      y_max = std::max(y_max, y);
      y_min = std::min(y_min, y);
    }
  }
  frame.x_max = x_max <= 0 ? 1 : x_max;
  frame.right = right_margin(chart);
  frame.plot_w = kWidth - kLeft - frame.right;
  // The y axis always includes 0; it extends below 0 only for negative values (a clock behind).
  const double y_range = (y_max - y_min) * 1.05;
  frame.y_step = nice_step(y_range <= 0 ? 1 : y_range);
  frame.y_top = std::max(y_min < 0 ? 0.0 : frame.y_step,
                         std::ceil(y_max * 1.05 / frame.y_step) * frame.y_step);
  // A share in % ends at 100 when the values do, rather than at the next step (120).
  if (chart.y_cap > 0 && y_max <= chart.y_cap) frame.y_top = std::min(frame.y_top, chart.y_cap);
  frame.y_bottom = y_min < 0 ? -std::ceil(-y_min * 1.05 / frame.y_step) * frame.y_step : 0.0;
  frame.x_step = nice_step(frame.x_max);
  double legend_x = kLeft, legend_row = 0;
  for (const auto& series : chart.series) {
    const double width = 40 + 7.5 * static_cast<double>(series.name.size());
    if (legend_x > kLeft && legend_x + width > kWidth - kRight) {
      legend_x = kLeft;
      ++legend_row;
    }
    frame.legend_at.emplace_back(legend_x, legend_row);
    legend_x += width;
  }
  frame.height = kHeight + legend_row * kLegendRow;
  frame.styles = series_styles(chart);
  return frame;
}

// The opening tags, the title, and the fault windows (first, so that lines are drawn over them).
void draw_header_and_bands(const Chart& chart, const Frame& frame, std::string& out) {
  out += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"chart-{}\" class=\"chart\" viewBox=\"0 0 {} "
      "{}\" role=\"img\" aria-labelledby=\"chart-{}-title\" font-family=\"sans-serif\" "
      "font-size=\"13\">\n",
      xml_escape(chart.id), kWidth, frame.height, xml_escape(chart.id));
  out += fmt::format(
      "<title id=\"chart-{}-title\">{}</title>\n<rect width=\"{}\" height=\"{}\" "
      "fill=\"#ffffff\"/>\n",
      xml_escape(chart.id), xml_escape(chart.title), kWidth, frame.height);
  // A long title (a long strategy label) starts at the left edge and gets smaller until it fits
  // the chart's width (bold sans-serif: at most 0.6 of the font size per character).
  const double title_chars = std::max<double>(1, static_cast<double>(chart.title.size()));
  const double title_size = std::clamp(std::floor((kWidth - 20) / (0.6 * title_chars)), 10.0, 16.0);
  const double title_x = title_chars * 0.6 * title_size > kWidth - kLeft - 10 ? 10 : kLeft;
  out += fmt::format("<text x=\"{}\" y=\"22\" font-size=\"{}\" font-weight=\"bold\">{}</text>\n",
                     coord(title_x), title_size, xml_escape(chart.title));
  for (const auto& band : chart.bands) {
    const double from = frame.px(std::clamp(band.from_x, 0.0, frame.x_max));
    const double to = frame.px(std::clamp(band.to_x, 0.0, frame.x_max));
    out += fmt::format(
        "<g class=\"band\"><title>{}</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
        "fill=\"#999999\" fill-opacity=\"0.25\"/><text x=\"{}\" y=\"{}\" font-size=\"11\" "
        "fill=\"#444444\">{}</text></g>\n",
        xml_escape(band.label), coord(from), coord(kTop), coord(std::max(1.0, to - from)),
        coord(frame.plot_h), coord(from + 2), coord(kTop + 12), xml_escape(band.label));
  }
}

// The grid, the axes, their ticks and labels.
void draw_axes(const Chart& chart, const Frame& frame, std::string& out) {
  const double plot_w = frame.plot_w, plot_h = frame.plot_h;
  // Ticks as whole multiples of the step, so that no tick reads -1.4e-17 instead of 0.
  const auto first_tick = static_cast<std::int64_t>(std::llround(frame.y_bottom / frame.y_step));
  const auto last_tick = static_cast<std::int64_t>(std::llround(frame.y_top / frame.y_step));
  for (std::int64_t tick = first_tick; tick <= last_tick; ++tick) {
    const double y = static_cast<double>(tick) * frame.y_step;
    out += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#dddddd\"/><text x=\"{}\" y=\"{}\" "
        "text-anchor=\"end\" fill=\"#333333\">{}{}</text>\n",
        coord(kLeft), coord(frame.py(y)), coord(kLeft + plot_w), coord(frame.py(y)),
        coord(kLeft - 6), coord(frame.py(y) + 4), tick_label(y), xml_escape(chart.y_suffix));
  }
  const auto x_tick = [&](double x, const std::string& label) {
    out += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333333\"/><text x=\"{}\" y=\"{}\" "
        "text-anchor=\"middle\" fill=\"#333333\">{}</text>\n",
        coord(frame.px(x)), coord(kTop + plot_h), coord(frame.px(x)), coord(kTop + plot_h + 5),
        coord(frame.px(x)), coord(kTop + plot_h + 19), xml_escape(label));
  };
  if (!chart.x_ticks.empty()) {
    for (const auto& [x, label] : chart.x_ticks) x_tick(x, label);
  } else {
    for (double x = 0; x <= frame.x_max + frame.x_step / 1000; x += frame.x_step)
      x_tick(x, tick_label(x));
  }
  out += fmt::format(
      "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#333333\"/>\n"
      "<line x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" y2=\"{1}\" stroke=\"#333333\"/>\n",
      coord(kLeft), coord(kTop + plot_h), coord(kLeft + plot_w), coord(kTop));
  out +=
      fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#333333\">{}</text>\n",
                  coord(kLeft + plot_w / 2), coord(kTop + plot_h + 36), xml_escape(chart.x_label));
  // The y label runs up the left edge, centred on the plot: a long one (a sweep's metric path)
  // gets smaller until it fits the chart's height above the x label.
  const double y_chars = std::max<double>(1, static_cast<double>(chart.y_label.size()));
  const double y_size = std::clamp(std::floor((kTop + plot_h) / (0.6 * y_chars)), 8.0, 13.0);
  out += fmt::format(
      "<text transform=\"translate(16 {}) rotate(-90)\" text-anchor=\"middle\" font-size=\"{}\" "
      "fill=\"#333333\">{}</text>\n",
      coord(kTop + plot_h / 2), y_size, xml_escape(chart.y_label));
}

// One series' line (or area, or dot) and its key in the legend under the plot.
void draw_series(const ChartSeries& series, const SeriesStyle& style,
                 std::pair<double, double> legend_at, const Frame& frame, std::string& out) {
  const auto [key_x, key_row] = legend_at;
  const double key_y = kHeight - 12 + key_row * kLegendRow;
  const std::string dash =
      style.dash.empty() ? "" : fmt::format(" stroke-dasharray=\"{}\"", style.dash);
  std::string path;
  for (std::size_t i = 0; i < series.points.size(); ++i) {
    const auto [x, y] = series.points[i];
    if (i == 0) {
      path += fmt::format("M{} {}", coord(frame.px(x)), coord(frame.py(y)));
    } else if (series.step) {
      path += fmt::format(" H{} V{}", coord(frame.px(x)), coord(frame.py(y)));
    } else {
      path += fmt::format(" L{} {}", coord(frame.px(x)), coord(frame.py(y)));
    }
  }
  if (series.step && !series.points.empty())
    path += fmt::format(" H{}", coord(frame.px(series.end_x.value_or(frame.x_max))));
  out += fmt::format("<g class=\"series\" data-name=\"{}\"><title>{}</title>",
                     xml_escape(series.name), xml_escape(series.name));
  if (series.points.size() == 1 && !series.step) {
    out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"/>",
                       coord(frame.px(series.points[0].first)),
                       coord(frame.py(series.points[0].second)), xml_escape(style.color));
  } else if (!path.empty() && series.area) {
    path +=
        fmt::format(" V{} H{} Z", coord(frame.py(0)), coord(frame.px(series.points.front().first)));
    out += fmt::format("<path d=\"{}\" fill=\"{}\" stroke=\"#ffffff\" stroke-width=\"0.5\"/>", path,
                       xml_escape(style.color));
  } else if (!path.empty()) {
    out += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2.5\"{}/>", path,
                       xml_escape(style.color), dash);
  }
  out += "</g>\n";
  out += fmt::format(
      "<g class=\"legend\" data-legend=\"{}\"><line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" "
      "stroke=\"{}\" stroke-width=\"3\"{}/><text x=\"{}\" y=\"{}\" "
      "fill=\"#333333\">{}</text></g>\n",
      xml_escape(series.name), coord(key_x), coord(key_y), coord(key_x + 22), coord(key_y),
      xml_escape(style.color), dash, coord(key_x + 27), coord(key_y + 4), xml_escape(series.name));
}

// Each line's name in the right margin at the height where the line ends, pushed apart so that
// no two overlap (coincident lines get one label each, stacked), and kept inside the chart.
void draw_end_labels(const Chart& chart, const Frame& frame, std::string& out) {
  std::vector<std::pair<double, std::size_t>> at;  // (y, series)
  for (std::size_t i = 0; i < chart.series.size(); ++i)
    if (is_line(chart.series[i]))
      at.emplace_back(frame.py(chart.series[i].points.back().second) + 4, i);
  std::stable_sort(at.begin(), at.end());
  for (std::size_t k = 1; k < at.size(); ++k)
    at[k].first = std::max(at[k].first, at[k - 1].first + kEndLabelRow);
  // Past the plot's bottom: the labels that collide move up, the others stay by their lines.
  const double bottom = kTop + frame.plot_h + 4;
  for (std::size_t k = at.size(); k-- > 0;) {
    const double limit = k + 1 == at.size() ? bottom : at[k + 1].first - kEndLabelRow;
    at[k].first = std::min(at[k].first, limit);
  }
  for (const auto& [y, index] : at) {
    out += fmt::format(
        "<text class=\"end-label\" x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"{}\">{}</text>\n",
        coord(kLeft + frame.plot_w + 5), coord(y), xml_escape(frame.styles[index].color),
        xml_escape(end_label(chart.series[index].name)));
  }
}

// Each marker's line, its label in the row of its label (the same alert stays in one row; four
// rows under the fault windows' labels) and a bar over the time it fired, to its resolution. A
// label that would overlap the one before it in its row is left out (the hover title remains).
void draw_markers(const Chart& chart, const Frame& frame, std::string& out) {
  constexpr std::size_t kRows = 4;
  constexpr double kCharWidth = 6.2;  // at font-size 11, generous for sans-serif
  std::vector<std::string> labels;
  std::vector<double> row_end(kRows, 0.0);  // where each row's last label ends
  for (const ChartMarker& marker : chart.markers) {
    auto row = static_cast<std::size_t>(std::find(labels.begin(), labels.end(), marker.label) -
                                        labels.begin());
    if (row == labels.size()) labels.push_back(marker.label);
    row %= kRows;
    const double x = frame.px(std::clamp(marker.x, 0.0, frame.x_max));
    const double label_y = kTop + 26 + 12 * static_cast<double>(row);
    out += fmt::format(
        "<g class=\"alert-marker\" data-alert=\"{}\"><title>{}</title><line x1=\"{}\" y1=\"{}\" "
        "x2=\"{}\" y2=\"{}\" stroke=\"#b00020\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>",
        xml_escape(marker.label), xml_escape(marker.title), coord(x), coord(kTop), coord(x),
        coord(kTop + frame.plot_h));
    // The bar spans the firing: to its resolution (with a tick there), or to the end of the chart.
    const double to =
        frame.px(std::clamp(marker.to_x.value_or(frame.x_max), marker.x, frame.x_max));
    out += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#b00020\" stroke-width=\"3\" "
        "stroke-opacity=\"0.5\"/>",
        coord(x), coord(label_y + 3), coord(to), coord(label_y + 3));
    if (marker.to_x)
      out += fmt::format(
          "<line class=\"alert-resolved\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" "
          "stroke=\"#b00020\" stroke-width=\"1.5\"/>",
          coord(to), coord(label_y - 1), coord(label_y + 7));
    // Near the right edge the label goes on the line's left, inside the plot.
    const double width = kCharWidth * static_cast<double>(marker.label.size());
    const bool left = x + 3 + width > kLeft + frame.plot_w;
    const double start = left ? x - 3 - width : x + 3;
    if (start >= row_end[row] + 4) {
      out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#b00020\"{}>{}</text>",
                         coord(left ? x - 3 : x + 3), coord(label_y),
                         left ? " text-anchor=\"end\"" : "", xml_escape(marker.label));
      row_end[row] = start + width;
    }
    out += "</g>\n";
  }
}

}  // namespace

std::string render_svg(const Chart& chart) {
  RLSIM_CHECK(chart.series.size() <= kMaxChartSeries);
  const Frame frame = frame_of(chart);
  std::string out;
  draw_header_and_bands(chart, frame, out);
  draw_axes(chart, frame, out);
  for (std::size_t index = 0; index < chart.series.size(); ++index)
    draw_series(chart.series[index], frame.styles[index], frame.legend_at[index], frame, out);
  draw_end_labels(chart, frame, out);
  draw_markers(chart, frame, out);
  out += "</svg>\n";
  return out;
}

std::vector<Chart> small_multiples(Chart chart) {
  if (chart.series.size() <= kMaxChartSeries) return {std::move(chart)};
  std::vector<ChartSeries> shared, own;
  for (ChartSeries& series : chart.series)
    (series.shared ? shared : own).push_back(std::move(series));
  RLSIM_CHECK(shared.size() < kMaxChartSeries);
  const std::size_t per_part = kMaxChartSeries - shared.size();
  const std::size_t parts = (own.size() + per_part - 1) / per_part;
  std::vector<Chart> out;
  for (std::size_t part = 0; part < parts; ++part) {
    Chart piece = chart;
    piece.series.clear();
    if (part > 0) piece.id = fmt::format("{}-{}", chart.id, part + 1);
    piece.title = fmt::format("{} ({} of {})", chart.title, part + 1, parts);
    // Spread evenly: 9 series in two parts are 5 and 4, not 7 and 2.
    const std::size_t from = part * own.size() / parts, to = (part + 1) * own.size() / parts;
    for (std::size_t i = from; i < to; ++i) piece.series.push_back(own[i]);
    piece.series.insert(piece.series.end(), shared.begin(), shared.end());
    out.push_back(std::move(piece));
  }
  return out;
}

}  // namespace rlsim
