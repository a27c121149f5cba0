#pragma once
// Ctrl-C during a long run (docs/cli.md#interrupting-a-run): the first SIGINT asks the run to stop
// at the current virtual time, decide the requests in flight and write the normal report files
// marked partial (exit 130); a second SIGINT exits at once. The signal is caught by an asio
// signal_set on a thread of its own (the real-time layer); the simulation only reads an atomic
// flag between two slices of virtual time, so a run that is not interrupted is unchanged (stepping
// a StrategySession makes exactly run_strategy's decisions).
#include <concepts>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/stop.h"

namespace rlsim {

// While it lives, SIGINT is caught (process-wide): the first sets the stop flag and prints one
// line on stderr, the second prints one more and exits with code 130 without a report. Only one
// may exist at a time; when none does, SIGINT has its default effect.
class InterruptWatch {
 public:
  InterruptWatch();
  ~InterruptWatch();
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Called on the watch's thread right before a second SIGINT exits (restores a terminal that live
// mode put in raw mode); nullptr: none. At most one at a time.
void set_hard_exit_hook(void (*hook)());

// Thrown by `rlsim check` when a run was interrupted: it gives no verdict (main: exit 130).
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace rlsim
