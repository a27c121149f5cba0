#pragma once
// Retrying clients (traffic[].retry, docs/scenario-format.md#retry): after a denied request the
// same user sends it again later, up to the group's `max` retries, and each retry is a new request
// to the limiter and the oracle. Closed-loop traffic: what a client sends depends on what the
// limiter answered, so an enforcing run and its dry run (shadow mode) see different requests.
#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "core/simulator.h"
#include "scenario/model.h"
#include "world/request.h"
#include "world/results.h"
#include "world/traffic.h"

namespace rlsim {

// The delay before retry number `attempt` (1 for the first) of a request denied under `spec`:
// after x backoff^(attempt - 1) x (1 + jitter x (2u - 1)), rounded to whole microseconds, at
// least 1 us. `u` is uniform in [0, 1).
DurationUs retry_delay_us(const RetrySpec& spec, int attempt, double u);

// A retry's request id: its first send's id with the attempt in bits 48 and up (a first send's id
// uses bits 0 to 46: the sequence number and the traffic group).
std::uint64_t retry_request_id(std::uint64_t first_id, std::uint32_t attempt);

class RetryClients final : public EventTarget {
 public:
  // `groups` must outlive it. Retries due at or after `end_us` (the run's end) are not sent.
  // Each group draws its jitter from its own stream Rng(seed, "retry", group index), so no other
  // random stream of the run moves.
  RetryClients(Simulator& sim, const std::vector<TrafficGroup>& groups, std::uint64_t seed,
               TimeUs end_us, RequestSink& sink);

  // True when some group has `retry`: only then does a run build one (and schedule events).
  static bool wanted(const std::vector<TrafficGroup>& groups);

  // Told of every decision (after a shadow run's override, so a dry run retries nothing it
  // admitted) at true time `now_us`: a denied request of a retrying group is sent again later.
  void on_decided(const Request& request, bool admitted, TimeUs now_us);
  // A stopped run (app/interrupt.h): retries due after `at_us` are not sent, and count as cut.
  void stop_after(TimeUs at_us);
  void on_event(std::uint64_t slot) override;

  // The counts so far; a retry still waiting to be sent (a stopped run's, after the stop) counts
  // as cut.
  RetryResult result() const;

 private:
  Simulator& sim_;
  const std::vector<TrafficGroup>& groups_;
  RequestSink& sink_;
  TimeUs end_us_;          // retries due at or after it are cut
  TimeUs stop_us_;         // retries due after it are cut (stop_after)
  std::vector<Rng> rngs_;  // one per group
  // Retries waiting to be sent, by slot; bounded by the denials of the last `max` delays.
  std::vector<Request> waiting_;
  std::vector<std::uint64_t> free_slots_;
  RetryResult result_;
};

}  // namespace rlsim
