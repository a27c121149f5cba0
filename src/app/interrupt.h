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

#include "core/time.h"

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

// True while an InterruptWatch lives.
bool watch_live();

// Calls step(t) for t in slices of virtual time from `from_us` up to `until_us`, checking the stop
// flag before each, while an InterruptWatch is live; one call step(until_us) otherwise. False
// (the last step done) when a stop was requested.
bool step_interruptible(TimeUs from_us, TimeUs until_us, const std::function<void(TimeUs)>& step);

// What the stop flag can cut: a run driven in steps of virtual time (StrategySession, app/run.h,
// which this header does not include, since the run itself finishes through it).
template <class Session>
concept SteppedSession = requires(Session& session, TimeUs until_us) {
  session.advance_to(until_us);
  { session.now_us() } -> std::convertible_to<TimeUs>;
  session.finish();
  session.stop();
};

// session.advance_to(until_us) in slices, checking the stop flag before each; false (the session
// left at a slice's end) when a stop was requested.
template <SteppedSession Session>
bool advance_interruptible(Session& session, TimeUs until_us) {
  return step_interruptible(session.now_us(), until_us,
                            [&](TimeUs step_us) { session.advance_to(step_us); });
}

// Advances every session to `until_us` together, in slices of virtual time, checking the stop flag
// between slices when an InterruptWatch is live (`rlsim run --live`: the strategies stay in
// lockstep, so a stop cuts them all at the same virtual time). False when a stop was requested.
template <SteppedSession Session>
bool advance_all_interruptible(const std::vector<Session*>& sessions, TimeUs until_us) {
  if (sessions.empty()) return !stop_requested();
  return step_interruptible(sessions.front()->now_us(), until_us, [&](TimeUs step_us) {
    for (Session* session : sessions) session->advance_to(step_us);
  });
}

// Runs the session to the end as finish() does, in slices of virtual time, checking the stop flag
// between slices when an InterruptWatch is live (no slicing otherwise); on a stop, returns
// session.stop()'s result (stopped_at_us set).
template <SteppedSession Session>
auto finish_interruptible(Session& session, TimeUs duration_us) {
  if (!watch_live()) return session.finish();
  return advance_interruptible(session, duration_us) ? session.finish() : session.stop();
}

// Thrown by `rlsim check` when a run was interrupted: it gives no verdict (main: exit 130).
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace rlsim
