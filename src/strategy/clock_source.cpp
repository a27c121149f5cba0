#include "strategy/clock_source.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace rlsim {

ParamSpec clock_param() {
  return ParamSpec{"clock",
                   ParamType::kEnum,
                   "local",
                   "where now comes from: local (the instance's clock), redis_time (Redis TIME in "
                   "its own round trip before the scripts), redis_time_cached (TIME now and then, "
                   "advanced with the instance's monotonic clock)",
                   {"local", "redis_time", "redis_time_cached"},
                   false};
}

std::vector<ParamSpec> redis_call_params(std::vector<ParamSpec> own) {
  std::vector<ParamSpec> params = {on_error_param(), clock_param(), clock_refresh_param()};
  for (ParamSpec& spec : own) params.push_back(std::move(spec));
  return params;
}

std::vector<ParamSpec> own_then_redis_call_params(std::vector<ParamSpec> own) {
  for (ParamSpec& spec : redis_call_params()) own.push_back(std::move(spec));
  return own;
}

ParamSpec clock_refresh_param() {
  return ParamSpec{"clock_refresh",
                   ParamType::kDuration,
                   "1s",
                   "redis_time_cached: how old (on the instance's monotonic clock) a TIME reading "
                   "may get before the next decision reads TIME again",
                   {},
                   false};
}

namespace {

// TIME's reply: [seconds, microseconds] as bulk strings.
bool parse_time(const Reply& reply, TimeUs& unix_us) {
  if (reply.type != Reply::Type::kArray || reply.elements.size() != 2) return false;
  std::int64_t parts[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    const std::string& text = reply.elements[static_cast<std::size_t>(i)].text;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parts[i]);
    if (ec != std::errc() || end != text.data() + text.size()) return false;
  }
  unix_us = parts[0] * kUsPerS + parts[1];
  return true;
}

}  // namespace

ClockParams parse_clock_params(const ParamReader& params) {
  ClockParams clock;
  clock.kind = params.choice<ClockSource::Kind>(
      "clock", {{"local", ClockSource::Kind::kLocal},
                {"redis_time", ClockSource::Kind::kRedisTime},
                {"redis_time_cached", ClockSource::Kind::kRedisTimeCached}});
  clock.refresh_us = params.duration_us("clock_refresh");
  return clock;
}

RedisCallParams parse_redis_call_params(const ParamReader& params) {
  return RedisCallParams{params.error_policy(), parse_clock_params(params)};
}

ClockSource::ClockSource(const ClockParams& params, Simulator& sim, RedisServer& redis)
    : kind_(params.kind), refresh_us_(params.refresh_us), sim_(sim), redis_(redis) {}

Task<bool> ClockSource::begin(const Instance& instance, Base& base, RedisServer* server) {
  if (kind_ == Kind::kRedisTimeCached) {
    if (cache_.size() <= instance.id) cache_.resize(instance.id + 1);
    const Cached& cached = cache_[instance.id];
    if (cached.valid &&
        instance.monotonic_us(sim_.now()) - cached.base.monotonic_at_us < refresh_us_) {
      base = cached.base;
      co_return true;
    }
  }
  ++time_calls_;
  RedisServer& redis = server != nullptr ? *server : redis_;
  const Reply reply = std::move((co_await redis.call(command("TIME"))).front());
  TimeUs unix_us = 0;
  if (!parse_time(reply, unix_us)) {
    ++time_errors_;
    co_return false;
  }
  // The reply was produced one return leg ago; the instance pairs it with its monotonic clock now.
  base.redis_unix_us = unix_us;
  base.monotonic_at_us = instance.monotonic_us(sim_.now());
  if (kind_ == Kind::kRedisTimeCached) {
    Cached& cached = cache_[instance.id];
    // Concurrent refreshes on one instance: keep the newest reading.
    if (!cached.valid || base.redis_unix_us >= cached.base.redis_unix_us) {
      cached.base = base;
      cached.valid = true;
    }
  }
  co_return true;
}

TimeUs ClockSource::now_us(const Base& base, const Instance& instance, RedisServer* server) {
  const TimeUs true_now_us = sim_.now();
  TimeUs now = 0;
  switch (kind_) {
    case Kind::kLocal:
      return instance.local_unix_us(true_now_us);
    case Kind::kRedisTime:
      now = base.redis_unix_us;
      break;
    case Kind::kRedisTimeCached:
      now = base.redis_unix_us + (instance.monotonic_us(true_now_us) - base.monotonic_at_us);
      break;
  }
  const DurationUs lag_us = (server != nullptr ? *server : redis_).clock_unix_us(true_now_us) - now;
  ++lag_samples_;
  lag_total_us_ += lag_us;
  lag_max_abs_us_ = std::max(lag_max_abs_us_, std::abs(lag_us));
  return now;
}

void ClockSource::forget(const Instance& instance) {
  if (instance.id < cache_.size()) cache_[instance.id].valid = false;
}

void ClockSource::write_metrics(nlohmann::ordered_json& out) const {
  if (kind_ == Kind::kLocal) return;
  out["clock"] = kind_ == Kind::kRedisTime ? "redis_time" : "redis_time_cached";
  out["time_calls"] = time_calls_;
  out["time_errors"] = time_errors_;
  const double mean = lag_samples_ == 0
                          ? 0.0
                          : static_cast<double>(lag_total_us_) / static_cast<double>(lag_samples_);
  out["clock_lag_us"] = {{"mean", std::round(mean * 10.0) / 10.0}, {"max_abs", lag_max_abs_us_}};
}

}  // namespace rlsim
