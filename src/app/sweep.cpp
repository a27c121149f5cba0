#include "app/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "app/exit_codes.h"
#include "app/json_file.h"
#include "app/parallel.h"
#include "app/report_files.h"
#include "app/scenario_settings.h"
#include "app/seeds.h"
#include "core/sha1.h"
#include "core/terminal_text.h"
#include "engine/commands.h"
#include "engine/expect.h"
#include "report/svg_chart.h"
#include "scenario/load_replay.h"
#include "scenario/reader.h"

namespace rlsim {

using nlohmann::ordered_json;

namespace {

const std::vector<std::string> kDefaultSweepMetrics = {"overshoot", "redis_round_trips_per_request",
                                                       "latency_us.p99"};

}  // namespace

std::vector<std::vector<std::size_t>> sweep_grid(const std::vector<SweepParameter>& parameters) {
  std::vector<std::vector<std::size_t>> points(1);
  for (const auto& parameter : parameters) {
    std::vector<std::vector<std::size_t>> next;
    for (const auto& point : points) {
      for (std::size_t v = 0; v < parameter.values.size(); ++v) {
        next.push_back(point);
        next.back().push_back(v);
      }
    }
    points = std::move(next);
  }
  return points;
}

namespace {

// One grid point: its scenario and strategies, and per strategy the reports over the seeds.
struct Point {
  std::vector<std::size_t> value_index;
  std::string setting;  // "instances.count=5 strategies[1].batch=10"
  Scenario scenario;
  std::vector<ResolvedStrategy> strategies;  // empty in a merge: only the labels are known
  std::vector<std::string> labels;           // the strategies' labels, in run order
  std::vector<std::vector<MetricSummary>> summaries;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The x value of a parameter's value: the number itself, else its position (1, 2, ...).
bool all_numeric(const SweepParameter& parameter) {
  for (const auto& v : parameter.values)
    if (!v.is_number()) return false;
  return true;
}

std::vector<Chart> sweep_charts(const std::vector<SweepParameter>& parameters,
                                const std::vector<Point>& points,
                                const std::vector<std::string>& metrics, std::size_t seeds) {
  std::vector<Chart> charts;
  const SweepParameter& x_parameter = parameters.front();
  const bool numeric = all_numeric(x_parameter);
  const auto& palette = chart_palette();
  for (const std::string& metric : metrics) {
    Chart chart;
    chart.id = "sweep-" + metric;
    for (char& c : chart.id)
      if (c == '.' || c == '[' || c == ']') c = '-';
    // Short enough for the chart's width; the x axis names the swept field.
    chart.title = seeds > 1 ? fmt::format("{} (mean of {} seeds)", metric, seeds) : metric;
    chart.x_label = x_parameter.path;
    chart.y_label = metric;
    // Values that are not numbers (durations, names) sit at evenly spaced positions, each tick
    // labelled with its value.
    if (!numeric) {
      for (std::size_t v = 0; v < x_parameter.values.size(); ++v)
        chart.x_ticks.emplace_back(static_cast<double>(v + 1),
                                   setting_value_text(x_parameter.values[v]));
      chart.x_max = static_cast<double>(x_parameter.values.size()) + 0.5;
    }
    // One series per strategy label and combination of the other parameters' values.
    std::vector<std::string> names;
    for (const Point& point : points) {
      std::string rest;
      for (std::size_t p = 1; p < parameters.size(); ++p)
        rest += fmt::format(", {}={}", parameters[p].path,
                            setting_value_text(parameters[p].values[point.value_index[p]]));
      const std::size_t v = point.value_index[0];
      const double x = numeric ? x_parameter.values[v].get<double>() : static_cast<double>(v + 1);
      for (std::size_t k = 0; k < point.labels.size(); ++k) {
        const MetricSummary* summary = find_summary(point.summaries[k], metric);
        if (summary == nullptr) continue;
        const std::string name = point.labels[k] + rest;
        auto it = std::find(names.begin(), names.end(), name);
        if (it == names.end()) {
          names.push_back(name);
          chart.series.push_back(
              ChartSeries{name, palette[(names.size() - 1) % palette.size()], {}, false, false});
          it = names.end() - 1;
        }
        chart.series[static_cast<std::size_t>(it - names.begin())].points.emplace_back(
            x, summary->mean);
      }
    }
    std::vector<Chart> parts = small_multiples(std::move(chart));
    std::move(parts.begin(), parts.end(), std::back_inserter(charts));
  }
  return charts;
}

std::string cell(const std::vector<MetricSummary>& summaries, const std::string& metric) {
  const MetricSummary* s = find_summary(summaries, metric);
  return s == nullptr ? "-" : format_spread(*s);
}

// Rows of the sweep table: one per grid point and strategy.
std::vector<std::vector<std::string>> table_rows(const std::vector<SweepParameter>& parameters,
                                                 const std::vector<Point>& points,
                                                 const std::vector<std::string>& metrics) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header;
  header.reserve(parameters.size() + 1 + metrics.size());
  for (const auto& p : parameters) header.push_back(p.path);
  header.push_back("strategy");
  for (const auto& m : metrics) header.push_back(m);
  rows.push_back(header);
  for (const Point& point : points) {
    for (std::size_t k = 0; k < point.labels.size(); ++k) {
      std::vector<std::string> row;
      for (std::size_t p = 0; p < parameters.size(); ++p)
        row.push_back(setting_value_text(parameters[p].values[point.value_index[p]]));
      row.push_back(point.labels[k]);
      for (const auto& m : metrics) row.push_back(cell(point.summaries[k], m));
      rows.push_back(row);
    }
  }
  return rows;
}

std::string text_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (widths.size() <= c) widths.push_back(0);
      widths[c] = std::max(widths[c], row[c].size());
    }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c)
      line += (c == 0 ? "" : "  ") + fmt::format("{:<{}}", row[c], widths[c]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string markdown_table(const std::vector<std::vector<std::string>>& rows) {
  std::string out;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    out += "|";
    for (const auto& c : rows[r]) out += " " + c + " |";
    out += "\n";
    if (r == 0) {
      out += "|";
      for (std::size_t c = 0; c < rows[0].size(); ++c) out += "---|";
      out += "\n";
    }
  }
  return out;
}

std::string html_table(const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<div class=\"table-wrap\"><table id=\"sweep\">\n";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    out += r == 0 ? "<thead><tr>" : "<tr>";
    for (const auto& c : rows[r])
      out += (r == 0 ? "<th>" : "<td>") + xml_escape(c) + (r == 0 ? "</th>" : "</td>");
    out += r == 0 ? "</tr></thead>\n<tbody>\n" : "</tr>\n";
  }
  return out + "</tbody></table></div>\n";
}

// One Point per grid combination, its scenario parsed from the changed document.
std::vector<Point> grid_points(const SweepOptions& options, const ordered_json& document,
                               const std::vector<SweepParameter>& parameters) {
  std::vector<Point> points;
  for (const auto& value_index : sweep_grid(parameters)) {
    Point point;
    point.value_index = value_index;
    std::vector<ScenarioSetting> settings;
    for (std::size_t p = 0; p < parameters.size(); ++p) {
      settings.push_back({parameters[p].path, parameters[p].values[value_index[p]]});
      point.setting += (p == 0 ? "" : " ") + setting_text(settings.back());
    }
    point.scenario = scenario_with_settings(document, options.scenario_path, settings);
    const std::string file = options.scenario_path + " with --set " + point.setting;
    point.strategies = select_strategies(resolve_strategies(point.scenario, file), options.labels,
                                         options.scenario_path);
    for (const auto& strategy : point.strategies) point.labels.push_back(strategy.label);
    points.push_back(std::move(point));
  }
  return points;
}

// Fills each point's summaries from the grid's outcomes (in job order: point, strategy, seed).
// After a Ctrl-C only the complete runs are summarised: a point whose runs were all cut or not
// started has no figures ("-").
void summarize_points(std::vector<Point>& points, std::vector<GridOutcome>& outcomes,
                      std::size_t seed_count) {
  std::size_t next = 0;
  for (Point& point : points) {
    for (std::size_t k = 0; k < point.labels.size(); ++k) {
      std::vector<ordered_json> reports;
      for (std::size_t s = 0; s < seed_count; ++s, ++next)
        if (outcomes[next].state == GridOutcome::State::kComplete)
          reports.push_back(std::move(outcomes[next].report));
      point.summaries.push_back(summarize_metrics(reports));
    }
  }
}

// Every chosen metric must exist in some strategy's report (strategy_metrics differ).
void check_metrics_found(const std::vector<Point>& points,
                         const std::vector<std::string>& metrics) {
  for (const auto& metric : metrics) {
    bool found = false;
    for (const Point& point : points)
      for (const auto& summaries : point.summaries)
        found = found || find_summary(summaries, metric);
    if (!found)
      throw ScenarioError(fmt::format(
          "--metric {}: no strategy's report has this numeric metric (see docs/metrics.md)",
          metric));
  }
}

std::string reproduce_command(const SweepOptions& options, std::uint64_t first_seed,
                              std::size_t seed_count) {
  std::string reproduce = "rlsim sweep " + shell_quote(options.scenario_path);
  for (const auto& set : options.sets) reproduce += " --set " + shell_quote(set);
  for (const auto& label : options.labels) reproduce += " --strategy " + shell_quote(label);
  for (const auto& metric : options.metrics) reproduce += " --metric " + shell_quote(metric);
  reproduce += fmt::format(" --seed {}", first_seed);
  if (seed_count > 1) reproduce += fmt::format(" --seeds {}", seed_count);
  return reproduce;
}

// What one sweep produced, for sweep.json, the tables and the charts.
struct SweepResult {
  std::string scenario_name;
  std::vector<std::uint64_t> seeds;
  std::vector<SweepParameter> parameters;
  std::vector<std::string> metrics;
  std::vector<Point> points;
  std::optional<GridPartial> partial;  // grid_partial's account of a stopped sweep
  std::string reproduce;
};

ordered_json sweep_json(const SweepResult& sweep) {
  ordered_json out = summary_head_json(sweep.scenario_name, sweep.seeds, sweep.partial);
  ordered_json parameter_json = ordered_json::array();
  for (const auto& p : sweep.parameters)
    parameter_json.push_back({{"path", p.path}, {"values", p.values}});
  out["parameters"] = parameter_json;
  out["metrics"] = sweep.metrics;
  ordered_json point_json = ordered_json::array();
  for (const Point& point : sweep.points) {
    ordered_json set = ordered_json::object();
    for (std::size_t p = 0; p < sweep.parameters.size(); ++p)
      set[sweep.parameters[p].path] = sweep.parameters[p].values[point.value_index[p]];
    ordered_json strategies = ordered_json::array();
    for (std::size_t k = 0; k < point.labels.size(); ++k)
      strategies.push_back(strategy_summary_json(point.labels[k], point.summaries[k]));
    point_json.push_back({{"set", set}, {"strategies", strategies}});
  }
  out["points"] = point_json;
  out["reproduce"] = sweep.reproduce;
  return out;
}

std::string sweep_html_head(const SweepResult& sweep, const std::string& spread_note,
                            const std::vector<std::vector<std::string>>& rows) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<meta "
      "name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>rlsim sweep: "
      "{0}</title>\n<style>body{{font-family:system-ui,sans-serif;margin:0 "
      "auto;max-width:1100px;padding:1rem;font-size:18px}}.table-wrap{{overflow-x:auto}}"
      "table{{border-collapse:collapse}}th,td{{padding:.3rem .6rem;border-bottom:1px solid "
      "#ddd;text-align:left;white-space:nowrap}}th{{white-space:normal;overflow-wrap:anywhere}}svg."
      "chart{{width:100%;height:auto;max-width:"
      "1000px}}</style>\n</head>\n<body>\n<h1>rlsim sweep: {0}</h1>\n<p>{1} Reproduce with "
      "<code id=\"reproduce\">{2}</code></p>\n{3}",
      xml_escape(sweep.scenario_name), xml_escape(spread_note), xml_escape(sweep.reproduce),
      html_table(rows));
}

// Writes sweep.json, sweep.md, sweep.html and the charts into `dir`; the first error, if any.
std::optional<std::string> write_sweep_files(const std::filesystem::path& dir,
                                             const SweepResult& sweep, const ordered_json& out,
                                             const std::string& spread_note,
                                             const std::vector<std::vector<std::string>>& rows) {
  const std::vector<Chart> charts =
      sweep_charts(sweep.parameters, sweep.points, sweep.metrics, sweep.seeds.size());
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::optional<std::string> error;
  if (ec) error = fmt::format("cannot create {}: {}", dir.string(), ec.message());
  std::string md =
      fmt::format("# rlsim sweep: {}\n\n{} Reproduce with `{}`\n\n{}\n", sweep.scenario_name,
                  spread_note, sweep.reproduce, markdown_table(rows));
  std::string html = sweep_html_head(sweep, spread_note, rows);
  for (const Chart& chart : charts) {
    const std::string file = fmt::format("chart-{}.svg", chart.id);
    md += fmt::format("![{}]({})\n\n", chart.title, file);
    html += render_svg(chart);
    if (!error)
      error = write_file(dir / file,
                         "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + render_svg(chart));
  }
  html += "</body>\n</html>\n";
  if (!error) error = write_file(dir / "sweep.json", out.dump(2) + "\n");
  if (!error) error = write_file(dir / "sweep.md", md);
  if (!error) error = write_file(dir / "sweep.html", html);
  return error;
}

// Writes the sweep's files and prints its table (or sweep.json with --json); the exit code.
int finish_sweep(const SweepOptions& options, const SweepResult& sweep, std::size_t runs) {
  const ordered_json out = sweep_json(sweep);
  const std::filesystem::path dir = report_dir(options.out_dir, sweep.scenario_name, "-sweep");
  const auto rows = table_rows(sweep.parameters, sweep.points, sweep.metrics);
  const auto& seeds = sweep.seeds;
  std::string spread_note = seeds.size() > 1 ? fmt::format("Over seeds {}..{}: mean [p5 .. p95].",
                                                           seeds.front(), seeds.back())
                                             : fmt::format("Seed {}.", seeds.front());
  if (sweep.partial) spread_note = grid_partial_notice(sweep.partial) + ". " + spread_note;
  if (const auto error = write_sweep_files(dir, sweep, out, spread_note, rows)) {
    std::cerr << fmt::format("rlsim: cannot write the sweep report: {}\n", *error);
    return exit_code::kOutputError;
  }
  const int done_code = !sweep.partial ? exit_code::kOk : exit_code::kInterrupted;
  if (options.json) {
    std::cout << out.dump(2) << "\n";
    return done_code;
  }
  std::cout << fmt::format(
      "rlsim sweep: {}, {} grid points x {} strategies x {} seed(s) = {} runs\n{}\n\n",
      sweep.scenario_name, sweep.points.size(), sweep.points.front().labels.size(), seeds.size(),
      runs, spread_note);
  std::cout << text_table(rows);
  std::cout << fmt::format(
      "\nreproduce with: {}\nreport: {} (also sweep.md, sweep.html, chart-*.svg)\n",
      sweep.reproduce, (dir / "sweep.json").string());
  return done_code;
}

}  // namespace

namespace {

// The sweep before it runs: its grid points, seeds and metrics, and every run as a job (job index
// = (point x strategies + strategy) x seeds + seed, the order of the outcomes).
struct PreparedSweep {
  SweepResult sweep;
  std::vector<GridJob> jobs;
  std::string scenario_sha1;  // of the scenario file's text: shards of one sweep agree on it
};

PreparedSweep prepare_sweep(const SweepOptions& options) {
  if (options.sets.empty()) throw ScenarioError("sweep: give at least one --set PATH=V1,V2,...");
  // The unchanged scenario first: its own errors are reported as they are.
  const Scenario base = load_scenario(options.scenario_path);
  resolve_strategies(base, options.scenario_path);
  // The same text again, as JSON in its own key order (load_scenario checked it); comments are
  // allowed as in load_scenario, and dropped: each point is parsed from this JSON's dump.
  const std::string text = read_text(options.scenario_path);
  const ordered_json document = ordered_json::parse(text, nullptr, true, /*ignore_comments=*/true);

  PreparedSweep prepared;
  prepared.scenario_sha1 = sha1_hex(text);
  SweepResult& sweep = prepared.sweep;
  sweep.scenario_name = base.name;
  sweep.parameters = parse_sets(options.sets);
  sweep.metrics = options.metrics.empty() ? kDefaultSweepMetrics : options.metrics;
  for (const auto& metric : sweep.metrics)
    if (!parse_metric_path(metric))
      throw ScenarioError(fmt::format("--metric {}: not a metric path", metric));
  const std::uint64_t first_seed = options.seed.value_or(base.seed);
  sweep.seeds = seed_range(first_seed, options.seeds);
  sweep.points = grid_points(options, document, sweep.parameters);
  const std::size_t runs =
      sweep.points.size() * sweep.points.front().labels.size() * sweep.seeds.size();
  if (runs > kMaxSweepRuns)
    throw ScenarioError(fmt::format("sweep: {} runs (grid points x strategies x seeds); at most {}",
                                    runs, kMaxSweepRuns));
  for (const Point& point : sweep.points)
    for (const auto& strategy : point.strategies)
      for (const std::uint64_t seed : sweep.seeds)
        prepared.jobs.push_back({&point.scenario, &strategy, seed, false});
  sweep.reproduce = reproduce_command(options, first_seed, sweep.seeds.size());
  return prepared;
}

// Summaries, the partial account and the files of a sweep whose outcomes are all known.
int complete_sweep(const SweepOptions& options, SweepResult& sweep,
                   std::vector<GridOutcome>& outcomes) {
  sweep.partial = grid_partial(outcomes);
  summarize_points(sweep.points, outcomes, sweep.seeds.size());
  // A partial sweep may simply not have reached the strategy that has a metric.
  if (!sweep.partial) check_metrics_found(sweep.points, sweep.metrics);
  return finish_sweep(options, sweep, outcomes.size());
}

// The shard file format's version: a merge refuses files of another.
constexpr int kShardFormat = 1;

const char* state_name(GridOutcome::State state) {
  switch (state) {
    case GridOutcome::State::kComplete:
      return "complete";
    case GridOutcome::State::kCut:
      return "cut";
    case GridOutcome::State::kNotRun:
      return "not_run";
  }
  return "not_run";
}

std::string shard_file_name(const SweepShard& shard) {
  return fmt::format("sweep-shard-{}-of-{}.json", shard.index, shard.count);
}

// What every shard of one sweep must agree on, as written into each shard file.
ordered_json shard_identity(const PreparedSweep& prepared, std::uint64_t shards) {
  const SweepResult& sweep = prepared.sweep;
  ordered_json labels = ordered_json::array();
  for (const Point& point : sweep.points) labels.push_back(point.labels);
  ordered_json parameters = ordered_json::array();
  for (const auto& p : sweep.parameters)
    parameters.push_back({{"path", p.path}, {"values", p.values}});
  return {{"scenario", sweep.scenario_name},
          {"scenario_sha1", prepared.scenario_sha1},
          {"shards", shards},
          {"runs", prepared.jobs.size()},
          {"parameters", parameters},
          {"metrics", sweep.metrics},
          {"seeds", sweep.seeds},
          {"labels", labels},
          {"reproduce", sweep.reproduce}};
}

// Runs the shard's slice (every N-th job from the K-th) and writes its outcomes.
int run_shard(const SweepOptions& options, PreparedSweep& prepared) {
  const SweepShard shard = *options.shard;
  std::vector<GridJob> slice;
  std::vector<std::size_t> job_index;
  for (std::size_t j = shard.index - 1; j < prepared.jobs.size(); j += shard.count) {
    slice.push_back(prepared.jobs[j]);
    job_index.push_back(j);
  }
  const unsigned threads = options.jobs == 0 ? default_jobs() : options.jobs;
  std::vector<GridOutcome> outcomes = run_grid(slice, threads, false);
  ordered_json out = {{"rlsim_sweep_shard", kShardFormat}, {"shard", shard.index}};
  out.update(shard_identity(prepared, shard.count));
  ordered_json results = ordered_json::array();
  for (std::size_t i = 0; i < outcomes.size(); ++i)
    results.push_back({{"job", job_index[i]},
                       {"state", state_name(outcomes[i].state)},
                       {"report", std::move(outcomes[i].report)}});
  out["outcomes"] = std::move(results);
  const std::filesystem::path dir =
      options.out_dir.empty()
          ? std::filesystem::path("reports") / (prepared.sweep.scenario_name + "-sweep")
          : std::filesystem::path(options.out_dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::filesystem::path file = dir / shard_file_name(shard);
  const auto error =
      ec ? std::optional<std::string>(ec.message()) : write_file(file, out.dump() + "\n");
  if (error) {
    std::cerr << fmt::format("rlsim: cannot write the sweep shard {}: {}\n", file.string(), *error);
    return exit_code::kOutputError;
  }
  const auto partial = grid_partial(outcomes);
  std::cout << fmt::format(
      "rlsim sweep: {}, shard {}/{}: {} of {} runs{}\nwrote {}\nmerge the {} shards with: rlsim "
      "merge {}\n",
      prepared.sweep.scenario_name, shard.index, shard.count, slice.size(), prepared.jobs.size(),
      partial ? " (" + grid_partial_notice(partial) + ")" : "", file.string(), shard.count,
      shell_quote(dir.string()));
  return partial ? exit_code::kInterrupted : exit_code::kOk;
}

}  // namespace

SweepShard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  SweepShard shard;
  const auto number = [&](std::string_view digits, std::uint64_t& value) {
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    return !digits.empty() && ec == std::errc() && end == digits.data() + digits.size();
  };
  const std::string_view view(text);
  if (slash == std::string::npos || !number(view.substr(0, slash), shard.index) ||
      !number(view.substr(slash + 1), shard.count))
    throw ScenarioError(fmt::format("--shard {}: expected K/N, e.g. 2/4", text));
  if (shard.count == 0 || shard.count > kMaxSweepShards || shard.index == 0 ||
      shard.index > shard.count)
    throw ScenarioError(
        fmt::format("--shard {}: expected 1 <= K <= N <= {}", text, kMaxSweepShards));
  return shard;
}

int command_sweep(const SweepOptions& options) {
  PreparedSweep prepared = prepare_sweep(options);
  if (options.shard) return run_shard(options, prepared);
  const unsigned threads = options.jobs == 0 ? default_jobs() : options.jobs;
  std::vector<GridOutcome> outcomes = run_grid(prepared.jobs, threads, false);
  return complete_sweep(options, prepared.sweep, outcomes);
}

std::vector<std::filesystem::path> shard_files(const std::vector<std::string>& inputs,
                                               const std::string& prefix) {
  std::vector<std::filesystem::path> files;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(input, ec)) {
      files.emplace_back(input);
      continue;
    }
    std::vector<std::filesystem::path> found;
    for (const auto& entry : std::filesystem::directory_iterator(input, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.starts_with(prefix) && name.ends_with(".json")) found.push_back(entry);
    }
    if (found.empty())
      throw ScenarioError(fmt::format("merge: {} holds no {}*.json file", input, prefix));
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

namespace {

// Checks every field merge reads from a shard, with its range, so that a damaged or hand-made
// shard is refused with the field's name (exit 2) instead of crashing or allocating without
// bound; text that reaches the terminal, file names, SVG and HTML holds no control character.
void check_shard_fields(const ordered_json& shard, const std::string& file) {
  const auto fail = [&](const std::string& field, const std::string& expected) {
    throw ScenarioError(fmt::format("merge: {}: {}: expected {}", file, field, expected));
  };
  const auto count = [&](const char* field, std::uint64_t low, std::uint64_t high) {
    const ordered_json& value = shard.contains(field) ? shard[field] : ordered_json();
    if (!value.is_number_unsigned() || value.get<std::uint64_t>() < low ||
        value.get<std::uint64_t>() > high)
      fail(field, fmt::format("a whole number from {} to {}", low, high));
    return value.get<std::uint64_t>();
  };
  const auto plain_text = [](const ordered_json& value) {
    if (!value.is_string()) return false;
    const auto& text = value.get_ref<const std::string&>();
    return text.size() <= 4096 && escape_controls(text) == text;
  };
  const auto runs = count("runs", 1, kMaxSweepRuns);
  const auto shards = count("shards", 1, kMaxSweepShards);
  count("shard", 1, shards);
  if (!shard.contains("scenario") || !shard["scenario"].is_string() ||
      !valid_name(shard["scenario"].get_ref<const std::string&>()))
    fail("scenario", std::string("a scenario name: ") + kNameRule);
  for (const char* field : {"parameters", "metrics", "seeds", "labels", "outcomes"})
    if (!shard.contains(field) || !shard[field].is_array()) fail(field, "an array");
  if (!shard.contains("reproduce") || !plain_text(shard["reproduce"]))
    fail("reproduce", "a command line without control characters");
  for (const ordered_json& p : shard["parameters"])
    if (!p.is_object() || !p.contains("path") || !plain_text(p["path"]) || !p.contains("values") ||
        !p["values"].is_array())
      fail("parameters", "objects with a path (no control characters) and values");
  for (const ordered_json& metric : shard["metrics"])
    if (!plain_text(metric)) fail("metrics", "metric paths without control characters");
  for (const ordered_json& seed : shard["seeds"])
    if (!seed.is_number_unsigned()) fail("seeds", "whole numbers");
  for (const ordered_json& labels : shard["labels"])
    for (const ordered_json& label : labels.is_array() ? labels : ordered_json::array({0}))
      if (!label.is_string() || !valid_name(label.get_ref<const std::string&>()))
        fail("labels", std::string("arrays of strategy labels: ") + kNameRule);
  for (const ordered_json& outcome : shard["outcomes"])
    if (!outcome.is_object() || !outcome.contains("job") || !outcome["job"].is_number_unsigned() ||
        outcome["job"].get<std::uint64_t>() >= runs || !outcome.contains("state") ||
        !outcome.contains("report"))
      fail("outcomes",
           fmt::format("objects with a job from 0 to {}, a state and a report", runs - 1));
}

// A shard holds one report per run it made: 256 MiB is thousands of runs of the largest scenario.
constexpr std::size_t kMaxShardBytes = std::size_t{256} << 20;

ordered_json read_shard(const std::filesystem::path& file) {
  ordered_json shard = read_json_file(file.string(), kMaxShardBytes, "merge");
  if (!shard.is_object() || !shard.contains("rlsim_sweep_shard"))
    throw ScenarioError(
        fmt::format("merge: {} is not a shard file of `rlsim sweep --shard`", file.string()));
  if (shard["rlsim_sweep_shard"] != kShardFormat)
    throw ScenarioError(fmt::format("merge: {} has shard format {}, this rlsim reads {}",
                                    file.string(), shard["rlsim_sweep_shard"].dump(),
                                    kShardFormat));
  check_shard_fields(shard, file.string());
  return shard;
}

GridOutcome::State state_of(const ordered_json& name, const std::filesystem::path& file) {
  for (const auto state :
       {GridOutcome::State::kComplete, GridOutcome::State::kCut, GridOutcome::State::kNotRun})
    if (name == state_name(state)) return state;
  throw ScenarioError(
      fmt::format("merge: {}: unknown outcome state {}", file.string(), name.dump()));
}

// Puts one shard's outcomes in their places; every job must belong to the shard that ran it.
void place_outcomes(const ordered_json& shard, const std::filesystem::path& file,
                    std::vector<GridOutcome>& outcomes, std::vector<bool>& placed) {
  const auto index = shard["shard"].get<std::uint64_t>();
  const auto count = shard["shards"].get<std::uint64_t>();
  for (const ordered_json& result : shard["outcomes"]) {
    const auto job = result["job"].get<std::uint64_t>();
    if (job >= outcomes.size() || job % count != index - 1)
      throw ScenarioError(fmt::format("merge: {}: run {} does not belong to shard {}/{}",
                                      file.string(), job, index, count));
    if (placed[job])
      throw ScenarioError(fmt::format("merge: {}: run {} is given twice", file.string(), job));
    outcomes[job].state = state_of(result["state"], file);
    outcomes[job].report = result["report"];
    placed[job] = true;
  }
}

// The sweep as the shards describe it: parameters, points with their labels, seeds, metrics.
SweepResult sweep_of_shard(const ordered_json& identity) {
  SweepResult sweep;
  sweep.scenario_name = identity["scenario"].get<std::string>();
  for (const ordered_json& p : identity["parameters"])
    sweep.parameters.push_back({p["path"].get<std::string>(), p["values"]});
  sweep.metrics = identity["metrics"].get<std::vector<std::string>>();
  sweep.seeds = identity["seeds"].get<std::vector<std::uint64_t>>();
  sweep.reproduce = identity["reproduce"].get<std::string>();
  const auto grid = sweep_grid(sweep.parameters);
  const ordered_json& labels = identity["labels"];
  if (labels.size() != grid.size())
    throw ScenarioError("merge: the shards' grid and their strategy labels disagree");
  for (std::size_t i = 0; i < grid.size(); ++i) {
    Point point;
    point.value_index = grid[i];
    point.labels = labels[i].get<std::vector<std::string>>();
    sweep.points.push_back(std::move(point));
  }
  return sweep;
}

}  // namespace

int command_merge(const MergeOptions& options) {
  const auto files = shard_files(options.inputs, "sweep-shard-");
  ordered_json identity;
  std::vector<GridOutcome> outcomes;
  std::vector<bool> placed, shard_seen;
  for (const auto& file : files) {
    const ordered_json shard = read_shard(file);
    ordered_json this_identity = shard;
    for (const char* field : {"rlsim_sweep_shard", "shard", "outcomes"}) this_identity.erase(field);
    if (identity.is_null()) {
      identity = this_identity;
      const auto runs = identity["runs"].get<std::size_t>();
      if (runs > kMaxSweepRuns) throw ScenarioError("merge: more runs than a sweep can have");
      outcomes.resize(runs);
      placed.assign(runs, false);
      shard_seen.assign(identity["shards"].get<std::size_t>(), false);
    } else if (this_identity != identity) {
      throw ScenarioError(fmt::format(
          "merge: {} is a shard of another sweep (scenario, settings, seeds or shard count differ "
          "from {})",
          file.string(), files.front().string()));
    }
    const auto index = shard["shard"].get<std::size_t>();
    if (index == 0 || index > shard_seen.size() || shard_seen[index - 1])
      throw ScenarioError(fmt::format("merge: shard {}/{} is given twice ({})", index,
                                      shard_seen.size(), file.string()));
    shard_seen[index - 1] = true;
    place_outcomes(shard, file, outcomes, placed);
  }
  std::string missing;
  for (std::size_t k = 0; k < shard_seen.size(); ++k)
    if (!shard_seen[k]) missing += fmt::format("{}{}", missing.empty() ? "" : ", ", k + 1);
  if (!missing.empty())
    throw ScenarioError(
        fmt::format("merge: shards {} of {} are missing", missing, shard_seen.size()));
  if (std::find(placed.begin(), placed.end(), false) != placed.end())
    throw ScenarioError("merge: the shard files do not hold every run of the sweep");
  SweepResult sweep = sweep_of_shard(identity);
  SweepOptions sweep_options;
  sweep_options.out_dir = options.out_dir;
  sweep_options.json = options.json;
  return complete_sweep(sweep_options, sweep, outcomes);
}

}  // namespace rlsim
