#pragma once
// Stopping a run early, as a front end asks (docs/cli.md#interrupting-a-run): the CLI's SIGINT
// watch (app/interrupt.h) or a page's stop button sets a flag, and a run driven in slices of
// virtual time looks at it between two slices. The engine never learns who asked or why; a run
// nobody can stop is driven in one step, so slicing changes nothing (stepping a StrategySession
// makes exactly run_strategy's decisions).
#include <concepts>
#include <functional>
#include <vector>

#include "core/time.h"

namespace rlsim {

// Called by a front end that can ask for a stop while it listens (the CLI's InterruptWatch):
// while `listening` is true, runs are driven in slices and the stop flag is cleared when listening
// starts. Any thread.
void set_stop_listening(bool listening);
// True while a front end listens (set_stop_listening(true)).
bool watch_live();

// True once request_stop was called (since listening last started). Any thread.
bool stop_requested();
// Sets the stop flag (a first SIGINT; tests).
void request_stop();

// Calls step(t) for t in slices of virtual time from `from_us` up to `until_us`, checking the stop
// flag before each, while a front end listens; one call step(until_us) otherwise. False
// (the last step done) when a stop was requested.
bool step_interruptible(TimeUs from_us, TimeUs until_us, const std::function<void(TimeUs)>& step);

// What the stop flag can cut: a run driven in steps of virtual time (StrategySession, engine/run.h,
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
// between slices when a front end listens (`rlsim run --live`: the strategies stay in
// lockstep, so a stop cuts them all at the same virtual time). False when a stop was requested.
template <SteppedSession Session>
bool advance_all_interruptible(const std::vector<Session*>& sessions, TimeUs until_us) {
  if (sessions.empty()) return !stop_requested();
  return step_interruptible(sessions.front()->now_us(), until_us, [&](TimeUs step_us) {
    for (Session* session : sessions) session->advance_to(step_us);
  });
}

// Runs the session to the end as finish() does, in slices of virtual time, checking the stop flag
// between slices when a front end listens (no slicing otherwise); on a stop, returns
// session.stop()'s result (stopped_at_us set).
template <SteppedSession Session>
auto finish_interruptible(Session& session, TimeUs duration_us) {
  if (!watch_live()) return session.finish();
  return advance_interruptible(session, duration_us) ? session.finish() : session.stop();
}

}  // namespace rlsim
