#pragma once
// Decision observers: every measurement of a run (the oracle, per-region accounting, clock
// attribution, fault windows, the decision digest) watches the run's requests through this one
// interface, in one list the run notifies; a new measurement is a new observer.
#include <cstdint>

#include "core/time.h"
#include "world/request.h"

namespace rlsim {

// What a strategy decided about one request, as the oracle sees it: the decision and who made it.
struct Outcome : Decision {
  int instance = -1;  // id of the instance that decided (-1: none), for the per-instance series
  // The request failed because its instance crashed while it was in flight, or because no
  // instance was running: the run's verdict, not the strategy's (error is then true).
  bool instance_lost = false;
  // A strategy in shadow mode (`"mode": "shadow"`) denied the request, and the run admitted it
  // anyway (allowed is then true): what it would have done, enforcing.
  bool would_deny = false;
  int would_deny_by = -1;  // the limit it would have denied for (Decision::denied_by)
};

// One final decision, as every observer is told of it.
struct DecidedRequest {
  const Request& request;
  const Outcome& outcome;
  TimeUs decided_us = 0;      // true time
  int active_instances = 0;   // instances running when it was decided
  bool arrival_mark = false;  // what this observer's on_arrival returned for the request
};

// Watches requests without influencing them: on_arrival is called once per request in arrival
// order, on_decided once per request in decision order (after every observer before it in the
// list saw the same decision), both on true time.
class DecisionObserver {
 public:
  virtual ~DecisionObserver() = default;
  // The request reached the run; the result comes back as DecidedRequest::arrival_mark (e.g.
  // whether an ideal limiter admitted it as it arrived).
  virtual bool on_arrival(const Request& request) {
    (void)request;
    return false;
  }
  virtual void on_decided(const DecidedRequest& decided) = 0;
};

}  // namespace rlsim
