#include "report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

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
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string render_svg(const Chart& chart) {
  double x_max = chart.x_max, y_max = 0;
  for (const auto& series : chart.series) {
    for (const auto& [x, y] : series.points) {
      if (chart.x_max <= 0) x_max = std::max(x_max, x);
      y_max = std::max(y_max, y);
    }
  }
  if (x_max <= 0) x_max = 1;
  const double y_step = nice_step(y_max <= 0 ? 1 : y_max * 1.05);
  const double y_top = std::max(y_step, std::ceil(y_max * 1.05 / y_step) * y_step);
  const double x_step = nice_step(x_max);
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  // The legend wraps onto as many rows as it needs under the plot; the chart grows to fit them.
  constexpr double kLegendRow = 20;
  std::vector<std::pair<double, double>> legend_at;  // (x, row) per series
  double legend_x = kLeft, legend_row = 0;
  for (const auto& series : chart.series) {
    const double width = 40 + 7.5 * static_cast<double>(series.name.size());
    if (legend_x > kLeft && legend_x + width > kWidth - kRight) {
      legend_x = kLeft;
      ++legend_row;
    }
    legend_at.emplace_back(legend_x, legend_row);
    legend_x += width;
  }
  const double height = kHeight + legend_row * kLegendRow;
  const auto px = [&](double x) { return kLeft + x / x_max * plot_w; };
  const auto py = [&](double y) { return kTop + plot_h - y / y_top * plot_h; };

  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"chart-{}\" class=\"chart\" viewBox=\"0 0 {} "
      "{}\" role=\"img\" aria-labelledby=\"chart-{}-title\" font-family=\"sans-serif\" "
      "font-size=\"13\">\n",
      xml_escape(chart.id), kWidth, height, xml_escape(chart.id));
  out += fmt::format(
      "<title id=\"chart-{}-title\">{}</title>\n<rect width=\"{}\" height=\"{}\" "
      "fill=\"#ffffff\"/>\n",
      xml_escape(chart.id), xml_escape(chart.title), kWidth, height);
  out += fmt::format("<text x=\"{}\" y=\"22\" font-size=\"16\" font-weight=\"bold\">{}</text>\n",
                     coord(kLeft), xml_escape(chart.title));
  // Fault windows first, so that lines are drawn over them.
  for (const auto& band : chart.bands) {
    const double from = px(std::clamp(band.from_x, 0.0, x_max));
    const double to = px(std::clamp(band.to_x, 0.0, x_max));
    out += fmt::format(
        "<g class=\"band\"><title>{}</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
        "fill=\"#999999\" fill-opacity=\"0.25\"/><text x=\"{}\" y=\"{}\" font-size=\"11\" "
        "fill=\"#444444\">{}</text></g>\n",
        xml_escape(band.label), coord(from), coord(kTop), coord(std::max(1.0, to - from)),
        coord(plot_h), coord(from + 2), coord(kTop + 12), xml_escape(band.label));
  }
  // Axes and grid.
  for (double y = 0; y <= y_top + y_step / 2; y += y_step) {
    out += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#dddddd\"/><text x=\"{}\" y=\"{}\" "
        "text-anchor=\"end\" fill=\"#333333\">{}</text>\n",
        coord(kLeft), coord(py(y)), coord(kLeft + plot_w), coord(py(y)), coord(kLeft - 6),
        coord(py(y) + 4), tick_label(y));
  }
  for (double x = 0; x <= x_max + x_step / 1000; x += x_step) {
    out += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333333\"/><text x=\"{}\" y=\"{}\" "
        "text-anchor=\"middle\" fill=\"#333333\">{}</text>\n",
        coord(px(x)), coord(kTop + plot_h), coord(px(x)), coord(kTop + plot_h + 5), coord(px(x)),
        coord(kTop + plot_h + 19), tick_label(x));
  }
  out += fmt::format(
      "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#333333\"/>\n"
      "<line x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" y2=\"{1}\" stroke=\"#333333\"/>\n",
      coord(kLeft), coord(kTop + plot_h), coord(kLeft + plot_w), coord(kTop));
  out +=
      fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#333333\">{}</text>\n",
                  coord(kLeft + plot_w / 2), coord(kTop + plot_h + 36), xml_escape(chart.x_label));
  out += fmt::format(
      "<text transform=\"translate(16 {}) rotate(-90)\" text-anchor=\"middle\" "
      "fill=\"#333333\">{}</text>\n",
      coord(kTop + plot_h / 2), xml_escape(chart.y_label));
  // Series, then the legend under the plot.
  for (std::size_t index = 0; index < chart.series.size(); ++index) {
    const ChartSeries& series = chart.series[index];
    const auto [key_x, key_row] = legend_at[index];
    const double key_y = kHeight - 12 + key_row * kLegendRow;
    std::string path;
    for (std::size_t i = 0; i < series.points.size(); ++i) {
      const auto [x, y] = series.points[i];
      if (i == 0) {
        path += fmt::format("M{} {}", coord(px(x)), coord(py(y)));
      } else if (series.step) {
        path += fmt::format(" H{} V{}", coord(px(x)), coord(py(y)));
      } else {
        path += fmt::format(" L{} {}", coord(px(x)), coord(py(y)));
      }
    }
    if (series.step && !series.points.empty()) path += fmt::format(" H{}", coord(px(x_max)));
    out += fmt::format("<g class=\"series\" data-name=\"{}\"><title>{}</title>",
                       xml_escape(series.name), xml_escape(series.name));
    if (series.points.size() == 1 && !series.step) {
      out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"/>",
                         coord(px(series.points[0].first)), coord(py(series.points[0].second)),
                         xml_escape(series.color));
    } else if (!path.empty() && series.area) {
      path += fmt::format(" V{} H{} Z", coord(py(0)), coord(px(series.points.front().first)));
      out += fmt::format("<path d=\"{}\" fill=\"{}\" stroke=\"#ffffff\" stroke-width=\"0.5\"/>",
                         path, xml_escape(series.color));
    } else if (!path.empty()) {
      out +=
          fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2.5\"{}/>", path,
                      xml_escape(series.color), series.dashed ? " stroke-dasharray=\"8 5\"" : "");
    }
    out += "</g>\n";
    out += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"3\"{}/>"
        "<text x=\"{}\" y=\"{}\" fill=\"#333333\">{}</text>\n",
        coord(key_x), coord(key_y), coord(key_x + 22), coord(key_y), xml_escape(series.color),
        series.dashed ? " stroke-dasharray=\"6 4\"" : "", coord(key_x + 27), coord(key_y + 4),
        xml_escape(series.name));
  }
  out += "</svg>\n";
  return out;
}

}  // namespace rlsim
