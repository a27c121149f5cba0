#include "app/interrupt.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <asio.hpp>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <thread>

#include "app/exit_codes.h"

namespace rlsim {
namespace {

std::atomic<bool> watching{false};
std::atomic<bool> stop_flag{false};
std::atomic<void (*)()> hard_exit_hook{nullptr};

// The virtual time between two looks at the stop flag: small enough that a dense run reacts within
// a fraction of a second of wall time, large enough that the extra steps cost nothing.
constexpr DurationUs kSliceUs = 100'000;

void say(const char* text) {
  // write(2): stderr is unbuffered and this thread must not interleave with iostreams' locks.
  const std::size_t length = std::char_traits<char>::length(text);
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, text, length);
}

}  // namespace

struct InterruptWatch::Impl {
  asio::io_context io;
  asio::signal_set signals{io, SIGINT};
  std::thread thread;
  int count = 0;

  void wait() {
    signals.async_wait([this](const asio::error_code& error, int) {
      if (error) return;  // cancelled: the watch is going away
      if (++count == 1) {
        stop_flag = true;
        say("\nrlsim: interrupted (SIGINT): stopping the run at the current virtual time and "
            "writing a partial report; press Ctrl-C again to quit at once\n");
        wait();
        return;
      }
      say("rlsim: interrupted again: exiting without a report\n");
      if (auto* hook = hard_exit_hook.load()) hook();
      std::_Exit(exit_code::kInterrupted);
    });
  }
};

InterruptWatch::InterruptWatch() : impl_(std::make_unique<Impl>()) {
  stop_flag = false;
  impl_->wait();
  impl_->thread = std::thread([impl = impl_.get()] { impl->io.run(); });
  watching = true;
}

InterruptWatch::~InterruptWatch() {
  watching = false;
  asio::error_code ignored;
  impl_->signals.cancel(ignored);
  impl_->signals.clear(ignored);  // SIGINT back to its default action
  impl_->io.stop();
  impl_->thread.join();
}

void set_hard_exit_hook(void (*hook)()) { hard_exit_hook = hook; }

bool stop_requested() { return stop_flag.load(std::memory_order_relaxed); }
void request_stop() { stop_flag = true; }

bool advance_interruptible(StrategySession& session, TimeUs until_us) {
  if (!watching) {
    session.advance_to(until_us);
    return true;
  }
  for (TimeUs step_us = session.now_us(); step_us < until_us;) {
    if (stop_requested()) return false;
    step_us = std::min(until_us, step_us + kSliceUs);
    session.advance_to(step_us);
  }
  return !stop_requested();
}

bool advance_all_interruptible(const std::vector<StrategySession*>& sessions, TimeUs until_us) {
  if (sessions.empty()) return !stop_requested();
  if (!watching) {
    for (StrategySession* session : sessions) session->advance_to(until_us);
    return true;
  }
  for (TimeUs step_us = sessions.front()->now_us(); step_us < until_us;) {
    if (stop_requested()) return false;
    step_us = std::min(until_us, step_us + kSliceUs);
    for (StrategySession* session : sessions) session->advance_to(step_us);
  }
  return !stop_requested();
}

StrategyResult finish_interruptible(StrategySession& session, TimeUs duration_us) {
  if (!watching) return session.finish();
  return advance_interruptible(session, duration_us) ? session.finish() : session.stop();
}

void mark_partial(RunResult& result, const std::vector<ResolvedStrategy>& planned) {
  std::vector<const StrategyResult*> cut;
  for (const StrategyResult& s : result.strategies)
    if (s.stopped_at_us) cut.push_back(&s);
  nlohmann::ordered_json not_run = nlohmann::ordered_json::array();
  for (const auto& strategy : planned) {
    const bool ran =
        std::any_of(result.strategies.begin(), result.strategies.end(),
                    [&](const StrategyResult& s) { return s.label == strategy.label; });
    if (!ran) not_run.push_back(strategy.label);
  }
  if (cut.empty() && not_run.empty()) return;
  nlohmann::ordered_json partial;
  partial["reason"] = "SIGINT";
  if (!cut.empty())
    partial["stopped_at_s"] = static_cast<double>(*cut.front()->stopped_at_us) / kUsPerS;
  if (cut.size() == 1) partial["strategy"] = cut.front()->label;
  if (cut.size() > 1) {
    nlohmann::ordered_json labels = nlohmann::ordered_json::array();
    for (const StrategyResult* s : cut) labels.push_back(s->label);
    partial["strategies"] = labels;
  }
  partial["not_run"] = not_run;
  result.partial = std::move(partial);
}

}  // namespace rlsim
