#pragma once
// The timing model of one Redis server, separate from its data store: a round-trip time sampled
// per call and split evenly between the two legs and a single-threaded server that serves round
// trips FIFO, each command taking `service_time_us`. Offered load beyond 1 / service_time therefore
// shows up as queueing delay, and calls slower than the client's timeout fail with a timeout reply,
// although their commands still run on the server (an INCR that timed out at the client still
// counted).
//
// Faults are conditions set on the model from outside (the run's fault schedule), never `if`s in
// strategy code: the server down (refusing connections at once, or a black hole that never
// answers), some clients partitioned away, added network latency with jitter, a slower server, and
// a connection pool per client whose exhaustion makes calls wait.
#include <array>
#include <coroutine>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "core/check.h"
#include "core/rng.h"
#include "core/simulator.h"
#include "redis/node_stats.h"
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
  std::uint64_t refused = 0;     // calls answered "connection refused" (server down, mode refuse)
  std::uint64_t lost = 0;        // calls whose request was dropped (black hole, partition)
  std::uint64_t pool_waits = 0;  // calls that waited for a free connection
  DurationUs pool_wait_total_us = 0;
  DurationUs max_pool_wait_us = 0;
  std::uint64_t error_replies = 0;  // error replies from the store (WRONGTYPE, a script's error)
};

// How an unreachable server looks to a client.
enum class DownMode {
  kUp,         // reachable
  kRefuse,     // connection refused: an error reply at once, the commands never run
  kBlackhole,  // no reply at all: the client waits for its timeout, the commands never run
};

// Network and server conditions that faults change; the defaults are a healthy server.
struct RedisConditions {
  DownMode down = DownMode::kUp;  // the whole server
  double rtt_multiplier = 1.0;    // applied to each sampled round trip
  DurationUs added_rtt_us = 0;    // then added to it
  DurationUs rtt_jitter_us = 0;   // plus a uniform [0, jitter] per call
};

// A stretch of time in which the server's single thread runs `multiplier` times slower (a fork,
// a GC pause: redis_slow). It is a property of the server over time, not of the commands: work
// in progress when the stretch begins or ends changes pace at that instant.
struct SlowPeriod {
  TimeUs from_us = 0;
  TimeUs until_us = 0;
  double multiplier = 1.0;
};

// The client (app instance) on whose behalf a call is made.
using ClientId = std::uint32_t;

class RedisServer;
class RedisCallBase;

// Serves the calls made on a RedisServer in its place: a Redis Cluster splits each call over its
// nodes (redis/cluster.h). route() takes the call's commands and must, later and from a simulator
// event (never inside route()), hand the call one reply per command with deliver() and resume
// `waiting`.
class CallRouter {
 public:
  virtual ~CallRouter() = default;
  virtual void route(RedisCallBase& call, std::coroutine_handle<> waiting, ClientId client) = 0;

 protected:
  // The call's commands (moved out of it).
  static std::vector<Command> take_commands(RedisCallBase& call);
  // Gives the call its replies (one per command, in order); resume the coroutine afterwards.
  static void deliver(RedisCallBase& call, std::vector<Reply>&& replies);
};

// Awaitable for one round trip (one command, a pipeline, or a script). `co_await` yields the
// replies, or timeout replies (Reply::timed_out) when the client's deadline passed first.
class RedisCallBase {
 public:
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> waiting);

 protected:
  RedisCallBase(RedisServer& server, std::vector<Command> commands)
      : server_(server), commands_(std::move(commands)) {}
  // One command: kept inline, so that the common single-command call allocates no vector.
  RedisCallBase(RedisServer& server, Command command)
      : server_(server), single_(std::move(command)), is_single_(true) {}

  friend class RedisServer;
  friend class CallRouter;
  RedisServer& server_;
  std::vector<Command> commands_;
  Command single_;
  bool is_single_ = false;
  std::vector<Reply> replies_;  // a pipeline's replies
  Reply single_reply_;          // a single command's reply
  TimeUs submitted_us_ = 0;     // when the client made the call (before any wait for a connection)
};

// One command: `co_await` yields a one-element array (so `.front()` reads it, with no allocation).
class RedisCall final : public RedisCallBase {
 public:
  RedisCall(RedisServer& server, Command command) : RedisCallBase(server, std::move(command)) {}
  std::array<Reply, 1> await_resume() { return {std::move(single_reply_)}; }
  // After the call: an argv whose vector and strings still hold their buffers (the server keeps
  // the sent one and hands back one it held before), for the caller to refill instead of
  // allocating a new command.
  Command take_spare_command() { return std::move(single_); }
};

// A pipeline: `co_await` yields one reply per command, in order.
class RedisPipeline final : public RedisCallBase {
 public:
  RedisPipeline(RedisServer& server, std::vector<Command> commands)
      : RedisCallBase(server, std::move(commands)) {}
  std::vector<Reply> await_resume() { return std::move(replies_); }
  // After the call: commands whose buffers the caller may refill (as RedisCall's).
  std::vector<Command> take_spare_commands() { return std::move(commands_); }
};

// Argvs handed back by finished calls (RedisCall::take_spare_command), refilled for the next
// call: once their buffers have grown, a steady stream of commands allocates nothing. Holds at
// most one argv per call its owner had in flight.
class SpareCommands {
 public:
  // An argv of `words` strings that may still hold earlier text: assign every word.
  Command take(std::size_t words) {
    Command argv;
    if (!spares_.empty()) {
      argv = std::move(spares_.back());
      spares_.pop_back();
    }
    argv.resize(words);  // keeps the buffers of the strings it keeps
    return argv;
  }
  void give_back(RedisCall& finished) { spares_.push_back(finished.take_spare_command()); }

  // A pipeline's argvs as a finished pipeline left them (any number, any words): fill them with
  // PipelineBuilder.
  std::vector<Command> take_pipeline() {
    std::vector<Command> commands;
    if (!spare_pipelines_.empty()) {
      commands = std::move(spare_pipelines_.back());
      spare_pipelines_.pop_back();
    }
    return commands;
  }
  void give_back(RedisPipeline& finished) {
    spare_pipelines_.push_back(finished.take_spare_commands());
  }

 private:
  std::vector<Command> spares_;
  std::vector<std::vector<Command>> spare_pipelines_;
};

// Fills a pipeline of at most `max_commands` commands in order, reusing the argvs (and their
// strings' buffers) it starts with. References from next() stay valid until finish().
class PipelineBuilder {
 public:
  PipelineBuilder(std::vector<Command> spare, std::size_t max_commands)
      : commands_(std::move(spare)) {
    commands_.reserve(max_commands);
  }
  // The next command, of `words` words that may still hold earlier text: assign every word.
  Command& next(std::size_t words) {
    RLSIM_CHECK(used_ < commands_.capacity());  // no reallocation: earlier references stay valid
    if (used_ == commands_.size()) commands_.emplace_back();
    Command& argv = commands_[used_++];
    argv.resize(words);
    return argv;
  }
  // The commands filled so far; argvs left over are dropped.
  std::vector<Command> finish() {
    commands_.resize(used_);
    return std::move(commands_);
  }

 private:
  std::vector<Command> commands_;
  std::size_t used_ = 0;
};

class RedisServer final : public EventTarget {
 public:
  // `store` must outlive the server. The network stream is drawn from `network_rng`.
  RedisServer(Simulator& sim, DataStore& store, const RedisTiming& timing, Rng network_rng);

  RedisCall call(Command command) { return RedisCall(*this, std::move(command)); }
  RedisPipeline pipeline(std::vector<Command> commands) {
    return RedisPipeline(*this, std::move(commands));
  }

  // The client on whose behalf the next call is made. The run sets it before it starts a decision,
  // and the server sets it again before it resumes a coroutine with a reply, so strategies never
  // pass it: a decision's calls are always its instance's.
  void set_current_client(ClientId client) { current_client_ = client; }
  ClientId current_client() const { return current_client_; }

  // Fault controls. Changes apply to calls sent (and, for `down`, requests arriving) from now on.
  void set_conditions(const RedisConditions& conditions) { conditions_ = conditions; }
  const RedisConditions& conditions() const { return conditions_; }
  // The stretches in which the server runs slower, sorted and disjoint (the run's redis_slow
  // faults, world/fault_injection.h); set before the first call. A call's service ends when its
  // work is done at each moment's pace, so calls queued during a stretch run at full speed after
  // it.
  void set_slow_periods(std::vector<SlowPeriod> periods);
  // A partition: `client` cannot reach the server (kUp heals it).
  void set_client_down(ClientId client, DownMode mode);
  // At most `connections` calls in flight per client (0: unlimited); further calls wait FIFO for a
  // free connection, and the wait is latency the limiter adds. The client's timeout starts when a
  // call gets its connection (as with a blocking pool in front of a socket timeout).
  void set_pool_size(int connections) { pool_size_ = connections; }
  // Every call from now on is served by `router` (a cluster's nodes) instead of this server's
  // own timing model and store; null: served here.
  void set_router(CallRouter* router) { router_ = router; }
  // A fixed round trip added to every call of `client` (a client in another region,
  // docs/regions.md), after the sample and its cap.
  void set_client_added_rtt(ClientId client, DurationUs added_us) {
    if (client_added_rtt_us_.size() <= client) client_added_rtt_us_.resize(client + 1, 0);
    client_added_rtt_us_[client] = added_us;
  }

  // The Redis node's own clock (docs/clocks.md): its reading of Unix time at true time t, used for
  // TIME and TTLs. Unset: exact. A reading that steps back is held at the last one used, so the
  // store's time never decreases.
  void set_clock(std::function<TimeUs(TimeUs)> clock) { clock_ = std::move(clock); }
  TimeUs clock_unix_us(TimeUs true_us) const {
    return clock_ ? clock_(true_us) : kEpochUnixUs + true_us;
  }

  const RedisStats& stats() const { return stats_; }
  const NodeStats& node_stats() const { return node_stats_; }
  NodeStats& node_stats() { return node_stats_; }
  const DataStore& store() const { return store_; }
  // The server restarted without persistence (the redis_restart fault): its keys and script cache
  // are gone. Calls already executed keep their replies.
  void lose_data() { store_.lose_data(); }
  // The primary went away and its replica takes over now (the redis_failover fault): see
  // DataStore::fail_over, given the store's time now on this server's clock.
  std::optional<FailoverLoss> fail_over();
  // Calls still in flight (bounded by the number of waiting requests).
  std::size_t in_flight() const { return records_.size() - free_records_.size(); }

  void on_event(std::uint64_t arg) override;

 private:
  friend class RedisCallBase;
  struct Record {
    std::vector<Command> commands;
    std::vector<Reply> replies;
    RedisCallBase* call = nullptr;  // null once the client gave up
    std::coroutine_handle<> waiting;
    TimeUs deadline_us = 0;
    DurationUs back_us = 0;
    ClientId client = 0;
    int refs = 0;                    // pending events that still refer to this record
    bool timeout_scheduled = false;  // the client's timeout fires whatever the server does
    bool lost = false;               // the request never reaches the server
    bool refused = false;            // answered "connection refused" at once
    bool in_store = false;           // submitted to a deferred store, replies not yet taken
    std::uint64_t ticket = 0;        // the deferred store's ticket
  };
  enum Phase : std::uint64_t { kArrive = 0, kReply = 1, kTimeout = 2, kRefused = 3 };
  // A call waiting for a free connection of its client's pool.
  struct Waiting {
    RedisCallBase* call;
    std::coroutine_handle<> handle;
    TimeUs since_us;
  };
  struct Client {
    int in_use = 0;
    DownMode down = DownMode::kUp;
    std::deque<Waiting> waiting;  // bounded by the client's requests in flight
  };

  void submit(RedisCallBase& call, std::coroutine_handle<> waiting);
  void send(RedisCallBase& call, std::coroutine_handle<> waiting, ClientId client);
  Client& client_state(ClientId client);
  DownMode reachability(ClientId client) const;
  DurationUs sample_rtt_us();
  void arrive(std::uint32_t index);
  // When work of `work_us` at full speed, started at `start_us`, is done at the slow periods'
  // pace. Starts must not decrease from call to call (the queue is FIFO).
  TimeUs service_end_us(TimeUs start_us, DurationUs work_us);
  // The slow-down in effect at `at_us` (1 outside every slow period).
  double slow_multiplier_at(TimeUs at_us) const;
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
  NodeStats node_stats_;
  std::vector<Record> records_;
  std::vector<std::uint32_t> free_records_;
  ClientId current_client_ = 0;
  CallRouter* router_ = nullptr;
  RedisConditions conditions_;
  std::vector<SlowPeriod> slow_periods_;
  std::size_t next_slow_ = 0;  // the first slow period not over at the last service start
  int pool_size_ = 0;
  std::vector<Client> clients_;  // indexed by ClientId, grown on first use
  std::function<TimeUs(TimeUs)> clock_;
  std::vector<DurationUs> client_added_rtt_us_;  // by ClientId; empty: none
  TimeUs store_time_us_ = 0;                     // the last server time given to the store
};

}  // namespace rlsim
