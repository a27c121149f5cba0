#include "app/live.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
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
#include "app/live_view.h"
#include "oracle/oracle.h"

namespace rlsim {
namespace {

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

}  // namespace

std::string live_progress_line(const Scenario& scenario,
                               const std::vector<const StrategySession*>& sessions) {
  const Limit& first = scenario.limits.front();
  const TimeUs now_us = sessions.empty() ? 0 : sessions.front()->now_us();
  std::string out = fmt::format("virtual {} of {}:", live_clock_text(now_us),
                                live_clock_text(scenario.duration_us));
  for (const auto* session : sessions) {
    const auto& series = session->totals().series;
    const std::int64_t most = series.empty() ? 0 : series.back().max_per_key;
    out +=
        fmt::format("\n  {} admitted {} (last window: {} for one {}, limit {})", session->label(),
                    session->totals().allowed, most, to_string(first.key), first.limit);
  }
  return out + "\n";
}

namespace {

// One strategy of the live view: its run and what the screen counts in its current window (the
// watch outlives the session it observes: members go in reverse order).
struct LiveStrategyRun {
  std::unique_ptr<LiveWindowWatch> watch;
  std::unique_ptr<StrategySession> session;
};

// What the keys changed: the pacing, and the virtual time to reach at the next frame.
struct LiveControl {
  double speed = 1;
  bool paused = false;
  bool hidden = false;
  TimeUs target_us = 0;

  // `s`: the end of the first limit's window that holds the next microsecond (the last
  // microsecond of the window, so that the screen shows that window complete), then paused.
  void step_to_window_end(const Scenario& scenario) {
    const DurationUs window_us = scenario.limits.front().window_us;
    const std::int64_t index = aligned_window(kEpochUnixUs + target_us + 1, window_us);
    target_us = (index + 1) * window_us - kEpochUnixUs - 1;
    paused = true;
  }
  void apply(char key, const Scenario& scenario) {
    if (key == 'p') paused = !paused;
    if (key == 's') step_to_window_end(scenario);
    if (key == 'h') hidden = !hidden;
    if (key == '+') speed = std::min(speed * 2, kMaxLiveSpeed);
    if (key == '-') speed = std::max(speed / 2, 1e-3);
    if (key == 'q') target_us = scenario.duration_us;
  }
};

// The terminal's size when stdout is one (else 120 x 35, a projector's).
void live_terminal_size(LiveScreen& screen) {
  winsize size{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_col == 0 || size.ws_row == 0)
    return;
  screen.columns = size.ws_col;
  screen.rows = size.ws_row;
}

void live_draw(const Scenario& scenario, const std::vector<LiveStrategyRun>& runs,
               const LiveControl& control, const LiveOptions& options) {
  LiveScreen screen;
  live_terminal_size(screen);
  screen.speed = control.speed;
  screen.paused = control.paused;
  screen.hidden = control.hidden;
  screen.color = options.color;
  std::vector<const LiveWindowWatch*> watches;
  watches.reserve(runs.size());
  for (const auto& run : runs) watches.push_back(run.watch.get());
  std::cout << "\033[H\033[J" << live_dashboard(scenario, watches, screen) << std::flush;
}

std::vector<const StrategySession*> live_sessions(const std::vector<LiveStrategyRun>& runs) {
  std::vector<const StrategySession*> out;
  out.reserve(runs.size());
  for (const auto& run : runs) out.push_back(run.session.get());
  return out;
}

}  // namespace

std::vector<StrategyResult> run_live(const Scenario& scenario,
                                     const std::vector<ResolvedStrategy>& strategies,
                                     std::uint64_t seed, const LiveOptions& options) {
  std::vector<LiveStrategyRun> runs(strategies.size());
  std::vector<StrategySession*> all;
  for (std::size_t i = 0; i < strategies.size(); ++i) {
    runs[i].session = std::make_unique<StrategySession>(scenario, strategies[i], seed);
    runs[i].watch = std::make_unique<LiveWindowWatch>(scenario, *runs[i].session);
    runs[i].session->add_observer(*runs[i].watch);
    all.push_back(runs[i].session.get());
  }
  const DurationUs window_us = scenario.limits.front().window_us;
  const TerminalKeys keys(options.keys && options.dashboard);
  using Clock = std::chrono::steady_clock;
  constexpr auto kFrame = std::chrono::milliseconds(100);
  asio::io_context io;
  asio::steady_timer timer(io);
  LiveControl control;
  control.speed = options.speed;
  if (options.pause_at_us >= 0) {
    control.target_us = options.pause_at_us;
    control.paused = keys.active();  // without keys nothing could resume it: it runs on
  }
  bool stopped = false;  // by Ctrl-C (app/interrupt.h): every strategy is cut at the same time
  std::int64_t printed_window = -1;
  Clock::time_point last = Clock::now();

  std::function<void(const asio::error_code&)> tick = [&](const asio::error_code& error) {
    if (error) return;
    const Clock::time_point now = Clock::now();
    const double wall_us = std::chrono::duration<double, std::micro>(now - last).count();
    last = now;
    for (const char key : keys.read()) control.apply(key, scenario);
    if (!control.paused)
      control.target_us += static_cast<TimeUs>(std::min(wall_us * control.speed, 1e15));
    control.target_us = std::min(control.target_us, scenario.duration_us);
    stopped = !advance_all_interruptible(all, control.target_us);
    const bool done = stopped || control.target_us >= scenario.duration_us;
    if (options.dashboard) {
      live_draw(scenario, runs, control, options);
    } else {
      // Plain lines: one per window of the first limit, and one at the end.
      const std::int64_t window = control.target_us / window_us;
      if (window != printed_window || done) {
        printed_window = window;
        std::cout << live_progress_line(scenario, live_sessions(runs)) << std::flush;
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
  results.reserve(runs.size());
  for (auto& run : runs) results.push_back(stopped ? run.session->stop() : run.session->finish());
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
          live_clock_text(session.now_us()), live_clock_text(scenario.duration_us), step);
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
