#include "app/interrupt.h"

#include <fmt/format.h>
#include <unistd.h>

#include <asio.hpp>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <thread>

#include "app/exit_codes.h"

namespace rlsim {
namespace {

std::atomic<void (*)()> hard_exit_hook{nullptr};

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
        request_stop();
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
  set_stop_listening(true);  // clears the flag before any SIGINT can set it
  impl_->wait();
  impl_->thread = std::thread([impl = impl_.get()] { impl->io.run(); });
}

InterruptWatch::~InterruptWatch() {
  set_stop_listening(false);
  asio::error_code ignored;
  impl_->signals.cancel(ignored);
  impl_->signals.clear(ignored);  // SIGINT back to its default action
  impl_->io.stop();
  impl_->thread.join();
}

void set_hard_exit_hook(void (*hook)()) { hard_exit_hook = hook; }

}  // namespace rlsim
