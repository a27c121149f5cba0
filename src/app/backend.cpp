#include "app/backend.h"

#include <charconv>
#include <cstdlib>
#include <string_view>

#include "app/cluster_backend.h"
#include "app/exit_codes.h"
#include "app/run.h"
#include "redis/mock_store.h"
#include "redis/real_store.h"

namespace rlsim {

namespace {
// RLSIM_REDIS_IO_TIMEOUT_MS, for --redis and --redis-cluster alike.
int io_timeout_ms() {
  int ms = RealStoreOptions{}.io_timeout_ms;
  if (const char* text = std::getenv("RLSIM_REDIS_IO_TIMEOUT_MS"); text != nullptr) {
    const std::string_view value(text);
    const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), ms);
    if (ec != std::errc() || ptr != value.data() + value.size() || ms < 1 || ms > 3'600'000)
      throw RunError("RLSIM_REDIS_IO_TIMEOUT_MS: expected milliseconds from 1 to 3600000",
                     exit_code::kBadInput);
  }
  return ms;
}
}  // namespace

std::unique_ptr<DataStore> make_store(const Scenario& scenario) {
  if (!scenario.redis.cluster_url.empty())
    return make_cluster_store(scenario.redis.cluster_url, scenario.redis.keep_keys,
                              io_timeout_ms());
  if (scenario.redis.url.empty()) return std::make_unique<MockStore>();
  std::string error;
  const auto url = parse_redis_url(scenario.redis.url, error);
  if (!url) throw RunError(error, exit_code::kBadInput);
  RealStoreOptions options{*url, scenario.redis.keep_keys};
  options.io_timeout_ms = io_timeout_ms();
  try {
    return std::make_unique<RealStore>(options);
  } catch (const RedisUnreachable& e) {
    throw RunError(e.what(), exit_code::kRedisUnavailable);
  }
}

nlohmann::ordered_json backend_json(const DataStore& store) {
  const auto* real = dynamic_cast<const RealStore*>(&store);
  if (real == nullptr) return nullptr;
  nlohmann::ordered_json out;
  out["redis"] = "real";
  out["url"] = real->url_display();
  add_cluster_backend(*real, out);
  out["calls_failed"] = real->backend_errors();
  out["reconnects"] = real->reconnects();
  out["failed"] = !real->backend_failure().empty();
  if (!real->backend_failure().empty()) out["failure"] = real->backend_failure();
  return out;
}

std::string redis_url_display(const std::string& url) {
  std::string error;
  const auto parsed = parse_redis_url(url, error);
  return parsed ? parsed->display() : std::string("redis://(invalid)");
}

}  // namespace rlsim
