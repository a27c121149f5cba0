#pragma once
// The timing model of one Redis server, separate from its data store: a round-trip time sampled
// per call and split evenly between the two legs and a single-threaded server that serves round
// trips FIFO, each command taking `service_time_us`. Offered load beyond 1 / service_time therefore
// shows up as queueing delay, and calls slower than the client's timeout fail with a timeout reply,
// although their commands still run on the server (an INCR that timed out at the client still
// counted).
#include <coroutine>
#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "core/simulator.h"
#include "redis/store.h"

namespace rlsim {

struct RedisTiming {
  DurationUs rtt_p50_us = 500;
  DurationUs rtt_p99_us = 500;  // == p50: fixed round trip; otherwise lognormal through both
  DurationUs service_time_us = 5;
  DurationUs timeout_us = 50 * kUsPerMs;
};

struct RedisStats {
  std::uint64_t commands = 0;
  std::uint64_t round_trips = 0;
  std::uint64_t timeouts = 0;
  DurationUs max_queue_wait_us = 0;
};

class RedisServer;

// Awaitable for one round trip (one command, a pipeline, or later a script). `co_await` yields one
// reply per command, or timeout replies (Reply::timed_out) when the client's deadline passed first.
class RedisCall {
 public:
  RedisCall(RedisServer& server, std::vector<Command> commands)
      : server_(server), commands_(std::move(commands)) {}
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> waiting);
  std::vector<Reply> await_resume() { return std::move(replies_); }

 private:
  friend class RedisServer;
  RedisServer& server_;
  std::vector<Command> commands_;
  std::vector<Reply> replies_;
};

class RedisServer final : public EventTarget {
 public:
  // `store` must outlive the server. The network stream is drawn from `network_rng`.
  RedisServer(Simulator& sim, DataStore& store, const RedisTiming& timing, Rng network_rng);

  RedisCall call(Command command) {
    std::vector<Command> commands;
    commands.push_back(std::move(command));
    return RedisCall(*this, std::move(commands));
  }
  RedisCall pipeline(std::vector<Command> commands) {
    return RedisCall(*this, std::move(commands));
  }

  const RedisStats& stats() const { return stats_; }
  const DataStore& store() const { return store_; }
  // Calls still in flight (bounded by the number of waiting requests).
  std::size_t in_flight() const { return records_.size() - free_records_.size(); }

  void on_event(std::uint64_t arg) override;

 private:
  friend class RedisCall;
  struct Record {
    std::vector<Command> commands;
    std::vector<Reply> replies;
    RedisCall* call = nullptr;  // null once the client gave up
    std::coroutine_handle<> waiting;
    TimeUs deadline_us = 0;
    DurationUs back_us = 0;
    int refs = 0;                    // pending events that still refer to this record
    bool timeout_scheduled = false;  // the client's timeout fires whatever the server does
  };
  enum Phase : std::uint64_t { kArrive = 0, kReply = 1, kTimeout = 2 };

  void submit(RedisCall& call, std::coroutine_handle<> waiting);
  DurationUs sample_rtt_us();
  void arrive(std::uint32_t index);
  void complete(std::uint32_t index, bool timed_out);
  void release(std::uint32_t index);
  void schedule(TimeUs at, std::uint32_t index, Phase phase) {
    sim_.schedule(at, this, (static_cast<std::uint64_t>(index) << 2) | phase);
  }

  Simulator& sim_;
  DataStore& store_;
  RedisTiming timing_;
  Rng network_rng_;
  double lognormal_sigma_ = 0;
  TimeUs free_at_us_ = 0;  // when the server finishes the work it has accepted
  RedisStats stats_;
  std::vector<Record> records_;
  std::vector<std::uint32_t> free_records_;
};

}  // namespace rlsim
