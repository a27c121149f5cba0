#include "strategy/resilience.h"

#include <algorithm>
#include <cmath>

#include "core/check.h"
#include "strategy/params.h"

namespace rlsim {

const char* to_string(CircuitBreaker::State state) {
  switch (state) {
    case CircuitBreaker::State::kClosed:
      return "closed";
    case CircuitBreaker::State::kOpen:
      return "open";
    case CircuitBreaker::State::kHalfOpen:
      return "half_open";
  }
  return "?";
}

// ---- the circuit breaker ------------------------------------------------------------------------

CircuitBreaker::CircuitBreaker(const BreakerSpec& spec, TimeUs now_us)
    : spec_(spec), since_us_(now_us) {}

void CircuitBreaker::move_to(State to, TimeUs at_us) {
  time_us_[static_cast<int>(state_)] += at_us - since_us_;
  transitions_.push_back(Transition{at_us, state_, to});
  state_ = to;
  since_us_ = at_us;
  ++generation_;
  failures_.clear();
  probes_sent_ = 0;
  probes_passed_ = 0;
}

CircuitBreaker::Ticket CircuitBreaker::admit(TimeUs now_us) {
  // The cool-down ends at a fixed time, whenever the next request comes.
  if (state_ == State::kOpen && now_us >= since_us_ + spec_.cooldown_us)
    move_to(State::kHalfOpen, since_us_ + spec_.cooldown_us);
  switch (state_) {
    case State::kClosed:
      return Ticket{Admit::kCall, generation_};
    case State::kOpen:
      return Ticket{Admit::kReject, generation_};
    case State::kHalfOpen:
      if (probes_sent_ >= spec_.probes) return Ticket{Admit::kReject, generation_};
      ++probes_sent_;
      return Ticket{Admit::kProbe, generation_};
  }
  return Ticket{Admit::kReject, generation_};
}

void CircuitBreaker::on_result(const Ticket& ticket, bool failed, TimeUs now_us) {
  if (ticket.admit == Admit::kReject || ticket.generation != generation_) return;
  if (state_ == State::kClosed) {
    if (!failed) return;
    failures_.push_back(now_us);
    while (!failures_.empty() && failures_.front() <= now_us - spec_.window_us)
      failures_.pop_front();
    if (static_cast<int>(failures_.size()) >= spec_.failures) move_to(State::kOpen, now_us);
  } else if (state_ == State::kHalfOpen) {
    if (failed) {
      move_to(State::kOpen, now_us);
    } else if (++probes_passed_ >= spec_.probes) {
      move_to(State::kClosed, now_us);
    }
  }
}

std::array<DurationUs, 3> CircuitBreaker::time_in_states(TimeUs now_us) const {
  std::array<DurationUs, 3> out = time_us_;
  out[static_cast<int>(state_)] += std::max<DurationUs>(0, now_us - since_us_);
  return out;
}

// ---- parameters ---------------------------------------------------------------------------------

ResilienceSpec resilience_spec(const ParamReader& params, int initial_instances) {
  ResilienceSpec spec;
  spec.policy = params.error_policy();
  const std::int64_t divisor = params.integer("divisor");
  spec.divisor = divisor > 0 ? static_cast<int>(divisor) : std::max(1, initial_instances);
  std::string field, error;
  const auto breaker = params.breaker(field, error);
  RLSIM_CHECK(breaker.has_value());  // checked when the parameters were resolved
  spec.breaker = *breaker;
  return spec;
}

void add_resilience(StrategyInfo& info) {
  const auto on_error = std::find_if(info.params.begin(), info.params.end(),
                                     [](const ParamSpec& p) { return p.name == "on_error"; });
  if (on_error == info.params.end()) return;
  info.params.push_back(ParamSpec{
      "divisor",
      ParamType::kInt,
      0,
      "local_fallback only: each instance admits limit / divisor (rounded down, as the lesson's "
      "limit // 10) per window of each limit on its own clock; 0 means the scenario's initial "
      "instance count",
      {},
      false});
  info.params.push_back(ParamSpec{
      "breaker",
      ParamType::kBreaker,
      false,
      "false, or a circuit breaker per instance {\"failures\": 5, \"window\": \"10s\", "
      "\"cooldown\": \"5s\", \"probes\": 1} (every field optional, these are the defaults): "
      "open after `failures` decisions whose Redis call failed or timed out within `window`; "
      "while open every decision goes to the on_error policy without calling Redis; after "
      "`cooldown` half-open: the next `probes` decisions call Redis, all must succeed to close, "
      "one failure re-opens",
      {},
      false});
  auto check = info.check;
  info.check = [check](const ParamReader& params, const std::string& dir, std::string& field,
                       std::string& error) {
    if (!params.breaker(field, error)) return false;
    return !check || check(params, dir, field, error);
  };
  auto make = info.make;
  info.make = [make](StrategyEnv env) -> std::unique_ptr<Strategy> {
    const ResilienceSpec spec = resilience_spec(ParamReader(env.params), env.initial_instances);
    // The strategy itself skips a failed limit or denies (skips_failed_limit); the policy decides
    // the rest from its decision.
    auto inner = make(env);
    return std::make_unique<ResilientStrategy>(std::move(env), std::move(inner), spec);
  };
}

// ---- the decorator ------------------------------------------------------------------------------

ResilientStrategy::ResilientStrategy(StrategyEnv env, std::unique_ptr<Strategy> inner,
                                     ResilienceSpec spec)
    : env_(std::move(env)), inner_(std::move(inner)), spec_(spec) {}

void ResilientStrategy::on_instance_start(const Instance& instance) {
  inner_->on_instance_start(instance);
  if (instances_.size() <= instance.id) instances_.resize(instance.id + 1);
  PerInstance& state = instances_[instance.id];
  state.epoch = ++next_epoch_;
  state.counters.assign(env_.limits.size(), {});
  if (spec_.breaker.enabled)
    state.breaker = std::make_unique<CircuitBreaker>(spec_.breaker, env_.sim.now());
}

void ResilientStrategy::on_instance_stop(const Instance& instance) {
  inner_->on_instance_stop(instance);
  PerInstance& state = instances_[instance.id];
  if (state.breaker) {
    drain(instance.id, *state.breaker);
    const auto times = state.breaker->time_in_states(env_.sim.now());
    for (std::size_t i = 0; i < times.size(); ++i) retired_time_us_[i] += times[i];
  }
  state = PerInstance{};  // the process is gone, and its memory with it
}

void ResilientStrategy::drain(std::uint32_t id, CircuitBreaker& breaker) {
  for (const auto& transition : breaker.take_transitions()) {
    ++transitions_;
    opened_ += transition.to == CircuitBreaker::State::kOpen;
    if (timeline_.size() < kMaxTimeline)
      timeline_.push_back(TimelineEntry{transition.at_us, id, transition.from, transition.to});
  }
}

Decision ResilientStrategy::fallback(const Request& request, const Instance& instance,
                                     PerInstance& state, bool error) {
  ++fallback_decisions_;
  Decision decision{true, -1, error, -1};
  if (spec_.policy == ErrorPolicy::kFailClosed) {
    decision = Decision{false, 0, error, -1};
  } else if (spec_.policy == ErrorPolicy::kLocalFallback && !state.counters.empty()) {
    // The lesson's local_fallback_allow(): a fixed window on the instance's clock, every request
    // counted, admitted while the count is at most limit / divisor.
    const TimeUs local_ms = instance.local_unix_us(env_.sim.now()) / kUsPerMs;
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      const Limit& limit = env_.limits[i];
      const std::int64_t window = local_ms / (limit.window_us / kUsPerMs);
      LocalCounter& counter = state.counters[i][Catalog::key_id(request, limit.key)];
      if (counter.window != window) counter = LocalCounter{window, 0};
      if (++counter.count > limit.limit / spec_.divisor) {
        decision = Decision{false, static_cast<int>(i), error, -1};
        break;
      }
    }
  }
  fallback_denied_ += !decision.allowed;
  decision.fallback = true;
  return decision;
}

Task<Decision> ResilientStrategy::decide(Request request, const Instance& instance) {
  ++decisions_;
  const std::uint32_t id = instance.id;
  const std::uint64_t epoch = instances_[id].epoch;
  CircuitBreaker::Ticket ticket;
  if (CircuitBreaker* breaker = instances_[id].breaker.get()) {
    ticket = breaker->admit(env_.sim.now());
    drain(id, *breaker);
    if (ticket.admit == CircuitBreaker::Admit::kReject) {
      ++short_circuited_;
      co_return fallback(request, instance, instances_[id], false);
    }
  }
  Decision decision = co_await inner_->decide(request, instance);
  // A user script that cannot run stops the run (exit 4): pass the strategy's message on.
  if (!inner_->fatal_error().empty()) fail(inner_->fatal_error());
  // Other decisions ran meanwhile: instances_ may have grown, or this instance stopped.
  PerInstance& state = instances_[id];
  const bool same_life = state.epoch == epoch;
  if (same_life && state.breaker) {
    state.breaker->on_result(ticket, decision.error, env_.sim.now());
    drain(id, *state.breaker);
  }
  if (decision.error) {
    ++error_decisions_;
    if (spec_.policy == ErrorPolicy::kLocalFallback && decision.allowed) {
      // Limits Redis answered admitted the request; the local counter stands in for the rest.
      decision = fallback(request, instance, state, true);
    } else {
      ++fallback_decisions_;
      decision.fallback = true;
      // Under fail_open a denial came from a limit Redis did answer, not from the policy.
      fallback_denied_ += !decision.allowed && spec_.policy == ErrorPolicy::kFailClosed;
    }
  }
  co_return decision;
}

void ResilientStrategy::write_metrics(nlohmann::ordered_json& out) const {
  inner_->write_metrics(out);
}

void ResilientStrategy::write_live_state(nlohmann::ordered_json& out) const {
  inner_->write_live_state(out);
  out["fallback_decisions"] = fallback_decisions_;
  if (!spec_.breaker.enabled) return;
  std::int64_t open = 0, half_open = 0;
  for (const PerInstance& state : instances_) {
    if (!state.breaker) continue;
    open += state.breaker->state() == CircuitBreaker::State::kOpen ? 1 : 0;
    half_open += state.breaker->state() == CircuitBreaker::State::kHalfOpen ? 1 : 0;
  }
  out["breakers_open"] = open;
  out["breakers_half_open"] = half_open;
}

ResilienceResult ResilientStrategy::report(TimeUs end_us) const {
  const auto seconds = [](DurationUs us) { return static_cast<double>(us) / kUsPerS; };
  ResilienceResult out;
  out.policy = to_string(spec_.policy);
  if (spec_.policy == ErrorPolicy::kLocalFallback) out.divisor = spec_.divisor;
  out.decisions = decisions_;
  out.error_decisions = error_decisions_;
  out.fallback_decisions = fallback_decisions_;
  out.fallback_rate = decisions_ == 0 ? 0.0
                                      : std::round(static_cast<double>(fallback_decisions_) *
                                                   10000.0 / static_cast<double>(decisions_)) /
                                            10000.0;
  out.fallback_denied = fallback_denied_;
  out.short_circuited = short_circuited_;
  if (!spec_.breaker.enabled) return out;
  std::array<DurationUs, 3> time_us = retired_time_us_;
  for (const PerInstance& state : instances_) {
    if (!state.breaker) continue;
    const auto times = state.breaker->time_in_states(end_us);
    for (std::size_t i = 0; i < times.size(); ++i) time_us[i] += times[i];
  }
  auto timeline = timeline_;
  std::stable_sort(timeline.begin(), timeline.end(), [](const auto& a, const auto& b) {
    return a.at_us != b.at_us ? a.at_us < b.at_us : a.instance < b.instance;
  });
  const BreakerSpec& spec = spec_.breaker;
  BreakerResult& breaker = out.breaker.emplace();
  breaker.failures = spec.failures;
  breaker.window_s = seconds(spec.window_us);
  breaker.cooldown_s = seconds(spec.cooldown_us);
  breaker.probes = spec.probes;
  breaker.transitions = transitions_;
  breaker.opened = opened_;
  breaker.closed_s = seconds(time_us[0]);
  breaker.open_s = seconds(time_us[1]);
  breaker.half_open_s = seconds(time_us[2]);
  for (const auto& entry : timeline)
    breaker.timeline.push_back(
        {seconds(entry.at_us), entry.instance, to_string(entry.from), to_string(entry.to)});
  breaker.timeline_truncated = transitions_ > static_cast<std::int64_t>(timeline_.size());
  return out;
}

}  // namespace rlsim
