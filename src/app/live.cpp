#include "app/live.h"

#include <fmt/format.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <asio.hpp>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>

#include "app/interrupt.h"
#include "oracle/oracle.h"

namespace rlsim {
namespace {

// "2m13.4s", "45.0s", "1h2m3.0s".
std::string clock_text(TimeUs us) {
  const double total_s = static_cast<double>(us) / kUsPerS;
  const auto hours = static_cast<std::int64_t>(total_s / 3600);
  const auto minutes = static_cast<std::int64_t>(total_s / 60) % 60;
  const double seconds = total_s - static_cast<double>(hours * 3600 + minutes * 60);
  if (hours > 0) return fmt::format("{}h{}m{:.1f}s", hours, minutes, seconds);
  if (minutes > 0) return fmt::format("{}m{:.1f}s", minutes, seconds);
  return fmt::format("{:.1f}s", seconds);
}

// The series point of the first limit's window that holds virtual time `now_us`, or nullptr when
// no decision fell in it yet.
const SeriesPoint* current_window(const StrategySession& session, DurationUs window_us) {
  const auto& series = session.totals().series;
  if (series.empty()) return nullptr;
  const SeriesPoint& last = series.back();
  return last.start_us <= session.now_us() && session.now_us() < last.start_us + window_us
             ? &last
             : nullptr;
}

std::string bar(std::int64_t value, std::int64_t limit, double scale, bool color) {
  constexpr int kWidth = 40;
  const auto cells = [&](double v) {
    return std::clamp(static_cast<int>(std::lround(v / scale * kWidth)), 0, kWidth);
  };
  const int filled = cells(static_cast<double>(value));
  const int mark = std::min(kWidth - 1, cells(static_cast<double>(limit)));
  std::string out = "[";
  for (int i = 0; i < kWidth; ++i) {
    std::string c = i < filled ? "\u2588" : (i == mark ? "|" : "\u00b7");
    if (i < filled && i >= mark && color) c = std::string("\033[31m").append(c).append("\033[0m");
    out += c;
  }
  return out + "]";
}

// Restores the terminal if the run ends abruptly while keys are read one by one: SIGTERM, or a
// second Ctrl-C (the first one is the InterruptWatch's: the run stops and the destructor restores).
termios saved_termios;
void restore_terminal() { ::tcsetattr(STDIN_FILENO, TCSANOW, &saved_termios); }
void restore_and_reraise(int signal) {
  restore_terminal();
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

// Single keys from a terminal on stdin, without waiting and without echo, for as long as it lives.
class TerminalKeys {
 public:
  explicit TerminalKeys(bool wanted) {
    if (!wanted || ::isatty(STDIN_FILENO) == 0 || ::tcgetattr(STDIN_FILENO, &saved_termios) != 0)
      return;
    termios raw = saved_termios;
    raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    if (::tcsetattr(STDIN_FILENO, TCSANOW, &raw) != 0) return;
    active_ = true;
    set_hard_exit_hook(restore_terminal);
    std::signal(SIGTERM, restore_and_reraise);
  }
  ~TerminalKeys() {
    if (!active_) return;
    restore_terminal();
    set_hard_exit_hook(nullptr);
    std::signal(SIGTERM, SIG_DFL);
  }
  TerminalKeys(const TerminalKeys&) = delete;
  TerminalKeys& operator=(const TerminalKeys&) = delete;
  bool active() const { return active_; }

  // The keys typed since the last call.
  std::string read() const {
    std::string keys;
    if (!active_) return keys;
    char buffer[32];
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n > 0) keys.assign(buffer, static_cast<std::size_t>(n));
    return keys;
  }

 private:
  bool active_ = false;
};

std::vector<const StrategySession*> views(
    const std::vector<std::unique_ptr<StrategySession>>& sessions) {
  std::vector<const StrategySession*> out;
  out.reserve(sessions.size());
  for (const auto& s : sessions) out.push_back(s.get());
  return out;
}

}  // namespace

std::string live_dashboard(const Scenario& scenario,
                           const std::vector<const StrategySession*>& sessions, double speed,
                           bool paused, bool color) {
  const Limit& first = scenario.limits.front();
  const TimeUs now_us = sessions.empty() ? 0 : sessions.front()->now_us();
  const auto bold = [color](const std::string& text) {
    return color ? "\033[1m" + text + "\033[0m" : text;
  };
  std::string out = fmt::format(
      "{}   virtual {} of {} ({:.0f}%)   speed {:g}x   {}\n", bold("rlsim live: " + scenario.name),
      clock_text(now_us), clock_text(scenario.duration_us),
      100.0 * static_cast<double>(now_us) / static_cast<double>(scenario.duration_us), speed,
      paused ? "PAUSED" : (now_us >= scenario.duration_us ? "done" : "running"));
  out += "keys: p pause/resume, s step one window, + faster, - slower, q skip to the end\n\n";
  const std::int64_t window_index = aligned_window(kEpochUnixUs + now_us, first.window_us) -
                                    aligned_window(kEpochUnixUs, first.window_us);
  out += fmt::format("current {} window #{} of limit {}: {} per {} per {}\n",
                     format_duration(first.window_us), window_index + 1, first.name, first.limit,
                     format_duration(first.window_us), to_string(first.key));
  double scale = static_cast<double>(first.limit) * 1.25;
  for (const auto* session : sessions)
    if (const SeriesPoint* point = current_window(*session, first.window_us))
      scale = std::max(scale, static_cast<double>(point->max_per_key));
  for (const auto* session : sessions) {
    const OracleTotals& totals = session->totals();
    const SeriesPoint* point = current_window(*session, first.window_us);
    const std::int64_t most = point == nullptr ? 0 : point->max_per_key;
    out += fmt::format("\n{}  {} instances, {} admitted of {} so far\n", bold(session->label()),
                       session->active_instances(), totals.allowed, totals.offered);
    out += fmt::format("  most for one {:<8} {} {:>6} / {} ({:.2f}x)\n", to_string(first.key),
                       bar(most, first.limit, scale, color), most, first.limit,
                       static_cast<double>(most) / static_cast<double>(first.limit));
    std::string per_instance = "  admitted this window by instance:";
    if (point != nullptr) {
      for (std::size_t id = 0; id < point->admitted_by_instance.size(); ++id)
        if (point->admitted_by_instance[id] > 0)
          per_instance += fmt::format(" #{}:{}", id, point->admitted_by_instance[id]);
    }
    out += per_instance + "\n";
  }
  return out;
}

std::string live_progress_line(const Scenario& scenario,
                               const std::vector<const StrategySession*>& sessions) {
  const Limit& first = scenario.limits.front();
  const TimeUs now_us = sessions.empty() ? 0 : sessions.front()->now_us();
  std::string out =
      fmt::format("virtual {} of {}:", clock_text(now_us), clock_text(scenario.duration_us));
  for (const auto* session : sessions) {
    const auto& series = session->totals().series;
    const std::int64_t most = series.empty() ? 0 : series.back().max_per_key;
    out += fmt::format(" {} admitted {} (last window: {} for one {}, limit {});", session->label(),
                       session->totals().allowed, most, to_string(first.key), first.limit);
  }
  out.back() = '\n';
  return out;
}

std::vector<StrategyResult> run_live(const Scenario& scenario,
                                     const std::vector<ResolvedStrategy>& strategies,
                                     std::uint64_t seed, const LiveOptions& options) {
  std::vector<std::unique_ptr<StrategySession>> sessions;
  sessions.reserve(strategies.size());
  for (const auto& strategy : strategies)
    sessions.push_back(std::make_unique<StrategySession>(scenario, strategy, seed));
  const DurationUs window_us = scenario.limits.front().window_us;
  const TerminalKeys keys(options.keys && options.dashboard);

  using Clock = std::chrono::steady_clock;
  constexpr auto kFrame = std::chrono::milliseconds(100);
  asio::io_context io;
  asio::steady_timer timer(io);
  double speed = options.speed;
  bool paused = false;
  TimeUs target_us = 0;
  bool stopped = false;  // by Ctrl-C (app/interrupt.h): every strategy is cut at the same time
  std::vector<StrategySession*> all;
  all.reserve(sessions.size());
  for (auto& session : sessions) all.push_back(session.get());
  std::int64_t printed_window = -1;
  Clock::time_point last = Clock::now();

  std::function<void(const asio::error_code&)> tick = [&](const asio::error_code& error) {
    if (error) return;
    const Clock::time_point now = Clock::now();
    const double wall_us = std::chrono::duration<double, std::micro>(now - last).count();
    last = now;
    for (const char key : keys.read()) {
      if (key == 'p') paused = !paused;
      if (key == 's') target_us += window_us;  // one window of the first limit
      if (key == '+') speed = std::min(speed * 2, kMaxLiveSpeed);
      if (key == '-') speed = std::max(speed / 2, 1e-3);
      if (key == 'q') target_us = scenario.duration_us;
    }
    if (!paused) target_us += static_cast<TimeUs>(std::min(wall_us * speed, 1e15));
    target_us = std::min(target_us, scenario.duration_us);
    stopped = !advance_all_interruptible(all, target_us);
    const bool done = stopped || target_us >= scenario.duration_us;
    if (options.dashboard) {
      std::cout << "\033[H\033[J"
                << live_dashboard(scenario, views(sessions), speed, paused, options.color)
                << std::flush;
    } else {
      // Plain lines: one per window of the first limit, and one at the end.
      const std::int64_t window = target_us / window_us;
      if (window != printed_window || done) {
        printed_window = window;
        std::cout << live_progress_line(scenario, views(sessions)) << std::flush;
      }
    }
    if (done) return;
    timer.expires_after(kFrame);
    timer.async_wait(tick);
  };
  timer.expires_after(std::chrono::milliseconds(0));
  timer.async_wait(tick);
  io.run();
  if (options.dashboard) std::cout << "\n";

  std::vector<StrategyResult> results;
  results.reserve(sessions.size());
  for (auto& session : sessions) results.push_back(stopped ? session->stop() : session->finish());
  return results;
}

std::vector<StrategyResult> run_with_progress(const Scenario& scenario,
                                              const std::vector<ResolvedStrategy>& strategies,
                                              std::uint64_t seed) {
  constexpr int kSteps = 100;
  std::vector<StrategyResult> results;
  // Plain carriage returns and spaces, no escape codes: the line is overwritten in place.
  std::size_t width = 0;
  for (std::size_t i = 0; i < strategies.size(); ++i) {
    std::optional<StrategySession> made;
    try {
      made.emplace(scenario, strategies[i], seed);
    } catch (const RunError& e) {
      if (results.empty()) throw;  // at the start: exit 5 without a report
      results.push_back(redis_lost_before(strategies[i], e));
      break;
    }
    StrategySession& session = *made;
    bool stopped = false;  // by SIGINT (app/interrupt.h): the remaining strategies do not run
    for (int step = 1; step <= kSteps && !stopped; ++step) {
      stopped = !advance_interruptible(session, scenario.duration_us * step / kSteps);
      const std::string line = fmt::format(
          "[{}/{}] {}: virtual {} of {} ({}%)", i + 1, strategies.size(), strategies[i].label,
          clock_text(session.now_us()), clock_text(scenario.duration_us), step);
      width = std::max(width, line.size());
      std::cerr << "\r" << line << std::string(width - line.size(), ' ') << std::flush;
    }
    results.push_back(stopped ? session.stop()
                              : finish_interruptible(session, scenario.duration_us));
    if (stopped || results.back().redis_lost) break;
  }
  std::cerr << "\r" << std::string(width, ' ') << "\r" << std::flush;
  return results;
}

}  // namespace rlsim
