#include "redis/server.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "core/check.h"

namespace rlsim {

void RedisCallBase::await_suspend(std::coroutine_handle<> waiting) {
  server_.submit(*this, waiting);
}

RedisServer::RedisServer(Simulator& sim, DataStore& store, const RedisTiming& timing,
                         Rng network_rng)
    : sim_(sim), store_(store), timing_(timing), network_rng_(network_rng) {
  RLSIM_CHECK(timing.rtt_p99_us >= timing.rtt_p50_us && timing.timeout_us > 0);
  if (timing.rtt_p99_us > timing.rtt_p50_us) {
    RLSIM_CHECK(timing.rtt_p50_us > 0);
    // Lognormal with median p50 and 99th percentile p99: z(0.99) = 2.3263.
    lognormal_sigma_ =
        std::log(static_cast<double>(timing.rtt_p99_us) / timing.rtt_p50_us) / 2.3263478740408408;
  }
}

DurationUs RedisServer::sample_rtt_us() {
  double rtt_us = static_cast<double>(timing_.rtt_p50_us);
  if (lognormal_sigma_ != 0) rtt_us *= std::exp(lognormal_sigma_ * network_rng_.normal());
  // Fault conditions; a healthy network draws nothing more from the stream.
  rtt_us = rtt_us * conditions_.rtt_multiplier + static_cast<double>(conditions_.added_rtt_us);
  if (conditions_.rtt_jitter_us > 0)
    rtt_us += static_cast<double>(
        network_rng_.below(static_cast<std::uint64_t>(conditions_.rtt_jitter_us) + 1));
  // Cap at a few timeouts: beyond that the client has gone anyway, and the cast stays in range.
  return static_cast<DurationUs>(std::min(rtt_us, static_cast<double>(timing_.timeout_us) * 4));
}

RedisServer::Client& RedisServer::client_state(ClientId client) {
  if (client >= clients_.size()) clients_.resize(static_cast<std::size_t>(client) + 1);
  return clients_[client];
}

DownMode RedisServer::reachability(ClientId client) const {
  if (conditions_.down != DownMode::kUp) return conditions_.down;
  return client < clients_.size() ? clients_[client].down : DownMode::kUp;
}

void RedisServer::set_client_down(ClientId client, DownMode mode) {
  client_state(client).down = mode;
}

std::vector<Command> CallRouter::take_commands(RedisCallBase& call) {
  if (!call.is_single_) return std::move(call.commands_);
  std::vector<Command> commands(1);
  commands.front().swap(call.single_);
  return commands;
}

void CallRouter::deliver(RedisCallBase& call, std::vector<Reply>&& replies) {
  if (call.is_single_) {
    RLSIM_CHECK(replies.size() == 1);
    call.single_reply_ = std::move(replies.front());
  } else {
    call.replies_ = std::move(replies);
  }
}

void RedisServer::submit(RedisCallBase& call, std::coroutine_handle<> waiting) {
  const ClientId client = current_client_;
  call.submitted_us_ = sim_.now();
  if (router_ != nullptr) {
    router_->route(call, waiting, client);
    return;
  }
  if (pool_size_ > 0) {
    Client& state = client_state(client);
    if (state.in_use >= pool_size_) {
      // Every connection is busy: wait FIFO for one (bounded by this client's requests in flight).
      state.waiting.push_back(Waiting{&call, waiting, sim_.now()});
      ++stats_.pool_waits;
      return;
    }
    ++state.in_use;
  }
  send(call, waiting, client);
}

void RedisServer::send(RedisCallBase& call, std::coroutine_handle<> waiting, ClientId client) {
  std::uint32_t index;
  if (!free_records_.empty()) {
    index = free_records_.back();
    free_records_.pop_back();
  } else {
    index = static_cast<std::uint32_t>(records_.size());
    records_.emplace_back();
  }
  Record& record = records_[index];
  if (call.is_single_) {
    // The record keeps its vector (and its capacity); only the command's argv changes hands.
    record.commands.resize(1);
    record.commands.front().swap(call.single_);
  } else {
    record.commands.swap(call.commands_);
  }
  record.replies.clear();
  record.call = &call;
  record.waiting = waiting;
  record.client = client;
  record.lost = false;
  record.refused = false;
  record.in_store = false;
  const TimeUs now_us = sim_.now();
  record.deadline_us = now_us + timing_.timeout_us;
  record.refs = 1;
  record.timeout_scheduled = false;
  switch (reachability(client)) {
    case DownMode::kRefuse:
      // The connection is refused at once: an error now, nothing reaches the server.
      record.refused = true;
      ++stats_.refused;
      schedule(now_us, index, kRefused);
      return;
    case DownMode::kBlackhole:
      // The request is dropped on the way: the client hears nothing until its timeout.
      record.lost = true;
      ++stats_.lost;
      record.timeout_scheduled = true;
      schedule(record.deadline_us, index, kTimeout);
      return;
    case DownMode::kUp:
      break;
  }
  // One round-trip sample per call, split evenly between the two legs.
  const DurationUs rtt_us =
      sample_rtt_us() + (client < client_added_rtt_us_.size() ? client_added_rtt_us_[client] : 0);
  const DurationUs out_us = rtt_us / 2;
  record.back_us = rtt_us - out_us;
  ++stats_.round_trips;
  stats_.commands += record.commands.size();
  schedule(now_us + out_us, index, kArrive);
  if (now_us + out_us >= record.deadline_us) {
    // The request cannot even reach the server in time: the client times out first.
    ++record.refs;
    record.timeout_scheduled = true;
    schedule(record.deadline_us, index, kTimeout);
  }
}

void RedisServer::on_event(std::uint64_t arg) {
  const auto index = static_cast<std::uint32_t>(arg >> 2);
  switch (static_cast<Phase>(arg & 3)) {
    case kArrive:
      arrive(index);
      break;
    case kReply:
      complete(index, false);
      break;
    case kTimeout:
    case kRefused:
      complete(index, true);
      break;
  }
}

void RedisServer::arrive(std::uint32_t index) {
  Record& record = records_[index];
  const TimeUs now_us = sim_.now();
  if (reachability(record.client) != DownMode::kUp) {
    // The server went away (or the client was cut off) while the request was on the wire.
    record.lost = true;
    ++stats_.lost;
    if (record.timeout_scheduled) {
      release(index);
    } else {
      record.timeout_scheduled = true;
      schedule(record.deadline_us, index, kTimeout);
    }
    return;
  }
  const TimeUs start_us = std::max(now_us, free_at_us_);
  stats_.max_queue_wait_us = std::max(stats_.max_queue_wait_us, start_us - now_us);
  const TimeUs end_us = service_end_us(
      start_us, timing_.service_time_us * static_cast<DurationUs>(record.commands.size()));
  // The queue in front, in commands: the wait over one command's service time at arrival.
  const auto service_us = static_cast<DurationUs>(static_cast<double>(timing_.service_time_us) *
                                                  slow_multiplier_at(now_us));
  node_stats_.on_execute(record.commands, start_us, end_us - start_us,
                         service_us > 0 ? (start_us - now_us + service_us - 1) / service_us : 0);
  free_at_us_ = end_us;
  // Effects happen at the start of service on the server's clock; FIFO keeps starts monotonic.
  store_time_us_ = std::max(store_time_us_, clock_unix_us(start_us));
  if (store_.deferred()) {
    // A real server: send now, in arrival order; the replies are read when the reply is due.
    record.ticket = store_.submit(record.commands, store_time_us_);
    record.in_store = true;
  } else {
    store_.execute(record.commands, store_time_us_, record.replies);
    for (const Reply& reply : record.replies) stats_.error_replies += reply.is_error();
  }
  const TimeUs reply_at_us = free_at_us_ + record.back_us;
  if (record.timeout_scheduled) {  // the client gives up before any reply: it is lost
    if (record.in_store && record.call == nullptr) {  // and has already given up
      record.in_store = false;
      store_.abandon(record.ticket);
    }
    release(index);
    return;
  }
  if (reply_at_us <= record.deadline_us) {
    schedule(reply_at_us, index, kReply);
  } else {
    schedule(record.deadline_us, index, kTimeout);
  }
}

std::optional<FailoverLoss> RedisServer::fail_over() {
  // The store's clock never steps back (as for a call's service start).
  store_time_us_ = std::max(store_time_us_, clock_unix_us(sim_.now()));
  return store_.fail_over(store_time_us_);
}

void RedisServer::set_slow_periods(std::vector<SlowPeriod> periods) {
  for (std::size_t i = 0; i < periods.size(); ++i) {
    RLSIM_CHECK(periods[i].from_us < periods[i].until_us && periods[i].multiplier > 0);
    RLSIM_CHECK(i == 0 || periods[i - 1].until_us <= periods[i].from_us);
  }
  slow_periods_ = std::move(periods);
  next_slow_ = 0;
}

TimeUs RedisServer::service_end_us(TimeUs start_us, DurationUs work_us) {
  while (next_slow_ < slow_periods_.size() && slow_periods_[next_slow_].until_us <= start_us)
    ++next_slow_;
  if (next_slow_ == slow_periods_.size() || start_us + work_us <= slow_periods_[next_slow_].from_us)
    return start_us + work_us;  // no slow period touches the call: the usual path
  // Walk the periods: full speed between them, 1/multiplier of it inside. Work is counted in
  // full-speed microseconds; the end is rounded up to a whole microsecond (a hair of tolerance
  // keeps 1000.0000001 from becoming 1001).
  constexpr double kTolerance = 1e-6;
  TimeUs at_us = start_us;
  auto left_us = static_cast<double>(work_us);
  for (std::size_t i = next_slow_; i < slow_periods_.size(); ++i) {
    const SlowPeriod& slow = slow_periods_[i];
    if (at_us < slow.from_us) {
      const auto gap_us = static_cast<double>(slow.from_us - at_us);
      if (left_us <= gap_us) break;
      left_us -= gap_us;
      at_us = slow.from_us;
    }
    const double capacity_us = static_cast<double>(slow.until_us - at_us) / slow.multiplier;
    if (left_us <= capacity_us)
      return at_us + static_cast<TimeUs>(std::ceil(left_us * slow.multiplier - kTolerance));
    left_us -= capacity_us;
    at_us = slow.until_us;
  }
  return at_us + static_cast<TimeUs>(std::ceil(left_us - kTolerance));
}

double RedisServer::slow_multiplier_at(TimeUs at_us) const {
  const auto after =
      std::upper_bound(slow_periods_.begin(), slow_periods_.end(), at_us,
                       [](TimeUs at, const SlowPeriod& period) { return at < period.from_us; });
  if (after == slow_periods_.begin()) return 1.0;
  const SlowPeriod& period = *std::prev(after);
  return at_us < period.until_us ? period.multiplier : 1.0;
}

void RedisServer::complete(std::uint32_t index, bool timed_out) {
  Record& record = records_[index];
  RedisCallBase* call = record.call;
  const std::coroutine_handle<> waiting = record.waiting;
  const ClientId client = record.client;
  RLSIM_CHECK(call != nullptr);
  if (timed_out && !record.refused) ++stats_.timeouts;
  node_stats_.on_call_done(sim_.now() - call->submitted_us_);
  if (record.in_store) {
    record.in_store = false;
    if (timed_out) {
      store_.abandon(record.ticket);
    } else {
      store_.collect(record.ticket, record.replies);
      for (const Reply& reply : record.replies) stats_.error_replies += reply.is_error();
    }
  }
  if (call->is_single_) {
    // The reply moves out and the record keeps its buffer: no allocation per call.
    if (record.refused) {
      call->single_reply_ = Reply::error("CONNREFUSED rlsim: connection refused");
    } else if (timed_out) {
      call->single_reply_ = Reply::timeout();
    } else {
      call->single_reply_ = std::move(record.replies.front());
    }
  } else if (record.refused) {
    call->replies_.assign(record.commands.size(),
                          Reply::error("CONNREFUSED rlsim: connection refused"));
  } else if (timed_out) {
    call->replies_.assign(record.commands.size(), Reply::timeout());
  } else {
    call->replies_.swap(record.replies);
  }
  record.call = nullptr;
  release(index);  // `record` may move below: send() can grow records_
  if (pool_size_ > 0 && client < clients_.size() && clients_[client].in_use > 0) {
    Client& state = clients_[client];
    if (state.waiting.empty()) {
      --state.in_use;
    } else {
      // The connection passes straight to the oldest waiting call of this client.
      const Waiting next = state.waiting.front();
      state.waiting.pop_front();
      const DurationUs waited_us = sim_.now() - next.since_us;
      stats_.pool_wait_total_us += waited_us;
      stats_.max_pool_wait_us = std::max(stats_.max_pool_wait_us, waited_us);
      send(*next.call, next.handle, client);
    }
  }
  current_client_ = client;
  waiting.resume();
}

void RedisServer::release(std::uint32_t index) {
  Record& record = records_[index];
  RLSIM_CHECK(record.refs > 0);
  if (--record.refs == 0) free_records_.push_back(index);
}

}  // namespace rlsim
