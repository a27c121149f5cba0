#pragma once
// Ctrl-C during a long run (docs/cli.md#interrupting-a-run): the first SIGINT asks the run to stop
// at the current virtual time, decide the requests in flight and write the normal report files
// marked partial (exit 130); a second SIGINT exits at once. The signal is caught by an asio
// signal_set on a thread of its own (the real-time layer); the simulation only reads an atomic
// flag between two slices of virtual time, so a run that is not interrupted is unchanged (stepping
// a StrategySession makes exactly run_strategy's decisions).
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/run.h"

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

// True once a SIGINT reached the live InterruptWatch (or request_stop was called).
bool stop_requested();
// Sets the stop flag as a first SIGINT would (tests; and the flag is cleared by a new watch).
void request_stop();

// session.advance_to(until_us) in slices, checking the stop flag before each; false (the session
// left at a slice's end) when a stop was requested.
bool advance_interruptible(StrategySession& session, TimeUs until_us);

// Advances every session to `until_us` together, in slices of virtual time, checking the stop flag
// between slices when an InterruptWatch is live (`rlsim run --live`: the strategies stay in
// lockstep, so a stop cuts them all at the same virtual time). False when a stop was requested.
bool advance_all_interruptible(const std::vector<StrategySession*>& sessions, TimeUs until_us);

// Runs the session to the end as finish() does, in slices of virtual time, checking the stop flag
// between slices when an InterruptWatch is live (no slicing otherwise); on a stop, returns
// session.stop()'s result (stopped_at_us set).
StrategyResult finish_interruptible(StrategySession& session, TimeUs duration_us);

// Fills result.partial when one of its strategies was stopped early or one of `planned` did not
// run: the reason, the virtual time of the (first) cut, the strategy that was cut ("strategy"; or
// "strategies" when several were, as in live mode and with --seeds) and the labels of `planned`
// that did not run. Leaves it null otherwise.
void mark_partial(RunResult& result, const std::vector<ResolvedStrategy>& planned);

// Thrown by `rlsim check` when a run was interrupted: it gives no verdict (main: exit 130).
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace rlsim
