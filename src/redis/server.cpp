#include "redis/server.h"

#include <algorithm>
#include <cmath>

#include "core/check.h"

namespace rlsim {

void RedisCall::await_suspend(std::coroutine_handle<> waiting) { server_.submit(*this, waiting); }

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
  if (lognormal_sigma_ == 0) return timing_.rtt_p50_us;
  const double rtt_us =
      static_cast<double>(timing_.rtt_p50_us) * std::exp(lognormal_sigma_ * network_rng_.normal());
  // Cap at a few timeouts: beyond that the client has gone anyway, and the cast stays in range.
  return static_cast<DurationUs>(std::min(rtt_us, static_cast<double>(timing_.timeout_us) * 4));
}

void RedisServer::submit(RedisCall& call, std::coroutine_handle<> waiting) {
  std::uint32_t index;
  if (!free_records_.empty()) {
    index = free_records_.back();
    free_records_.pop_back();
  } else {
    index = static_cast<std::uint32_t>(records_.size());
    records_.emplace_back();
  }
  Record& record = records_[index];
  record.commands.swap(call.commands_);
  record.replies.clear();
  record.call = &call;
  record.waiting = waiting;
  const TimeUs now_us = sim_.now();
  record.deadline_us = now_us + timing_.timeout_us;
  // One round-trip sample per call, split evenly between the two legs.
  const DurationUs rtt_us = sample_rtt_us();
  const DurationUs out_us = rtt_us / 2;
  record.back_us = rtt_us - out_us;
  ++stats_.round_trips;
  stats_.commands += record.commands.size();
  record.refs = 1;
  record.timeout_scheduled = false;
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
      complete(index, true);
      break;
  }
}

void RedisServer::arrive(std::uint32_t index) {
  Record& record = records_[index];
  const TimeUs now_us = sim_.now();
  const TimeUs start_us = std::max(now_us, free_at_us_);
  stats_.max_queue_wait_us = std::max(stats_.max_queue_wait_us, start_us - now_us);
  free_at_us_ =
      start_us + timing_.service_time_us * static_cast<DurationUs>(record.commands.size());
  // Effects happen at the start of service on the server's clock; FIFO keeps starts monotonic.
  store_.execute(record.commands, kEpochUnixUs + start_us, record.replies);
  const TimeUs reply_at_us = free_at_us_ + record.back_us;
  if (record.timeout_scheduled) {  // the client gives up before any reply: it is lost
    release(index);
    return;
  }
  if (reply_at_us <= record.deadline_us) {
    schedule(reply_at_us, index, kReply);
  } else {
    schedule(record.deadline_us, index, kTimeout);
  }
}

void RedisServer::complete(std::uint32_t index, bool timed_out) {
  Record& record = records_[index];
  RedisCall* call = record.call;
  const std::coroutine_handle<> waiting = record.waiting;
  RLSIM_CHECK(call != nullptr);
  if (timed_out) {
    ++stats_.timeouts;
    call->replies_.assign(record.commands.size(), Reply::timeout());
  } else {
    call->replies_.swap(record.replies);
  }
  record.call = nullptr;
  release(index);
  waiting.resume();
}

void RedisServer::release(std::uint32_t index) {
  Record& record = records_[index];
  RLSIM_CHECK(record.refs > 0);
  if (--record.refs == 0) free_records_.push_back(index);
}

}  // namespace rlsim
