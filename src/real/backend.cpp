#include "real/backend.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <string_view>

#include "engine/run_error.h"
#include "real/cluster_backend.h"
#include "real/real_store.h"
#include "redis/mock_store.h"

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
                     RunErrorKind::kBadInput);
  }
  return ms;
}

bool scenario_redis_allowed = false;  // allow_scenario_redis; set once by the command line

// The refusal of a scenario that names a server the command line did not allow.
RunError not_allowed(const Scenario& scenario) {
  const bool cluster = !scenario.redis.cluster_url.empty();
  return RunError(
      fmt::format("{}: the scenario names a real Redis{} ({} {}); rlsim connects to a server only "
                  "when the command line says so: add --real-redis to `rlsim run` to use it, or "
                  "give --redis URL / --redis-cluster NODES",
                  scenario.file.empty() ? "<scenario>" : scenario.file, cluster ? " Cluster" : "",
                  cluster ? "redis.cluster_url" : "redis.url",
                  cluster ? scenario.redis.cluster_url : redis_url_display(scenario.redis.url)),
      RunErrorKind::kBadInput);
}
}  // namespace

void allow_scenario_redis(bool allowed) { scenario_redis_allowed = allowed; }

std::unique_ptr<DataStore> RealStoreSource::make_store(const Scenario& scenario) const {
  if (scenario.redis.url.empty() && scenario.redis.cluster_url.empty())
    return std::make_unique<MockStore>();
  if (!scenario_redis_allowed) throw not_allowed(scenario);
  return make_real_store(scenario.redis);
}

std::unique_ptr<RedisCluster> RealStoreSource::make_real_cluster_nodes(DataStore& store,
                                                                       Simulator& sim,
                                                                       const RedisTiming& timing,
                                                                       std::uint64_t seed) const {
  return rlsim::make_real_cluster_nodes(store, sim, timing, seed);
}

void install_real_backend() {
  static const RealStoreSource source;
  install_store_source(source);
}

std::unique_ptr<RealStore> make_real_store(const RedisSpec& redis) {
  if (!redis.cluster_url.empty())
    return make_cluster_store(redis.cluster_url, redis.keep_keys, io_timeout_ms());
  std::string error;
  const auto url = parse_redis_url(redis.url, error);
  if (!url) throw RunError(error, RunErrorKind::kBadInput);
  RealStoreOptions options{*url, redis.keep_keys};
  options.io_timeout_ms = io_timeout_ms();
  try {
    return std::make_unique<RealStore>(options);
  } catch (const RedisUnreachable& e) {
    throw RunError(e.what(), RunErrorKind::kRedisUnavailable);
  }
}

std::string redis_url_display(const std::string& url) {
  std::string error;
  const auto parsed = parse_redis_url(url, error);
  return parsed ? parsed->display() : std::string("redis://(invalid)");
}

}  // namespace rlsim
