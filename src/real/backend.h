#pragma once
// The real-Redis backend as a store source (engine/store_source.h): the embedded Redis, or a real
// one when the scenario (or `--redis`) names a URL (docs/real-redis.md). Built only natively; the
// command line installs it before any run.
#include <memory>
#include <string>

#include "engine/store_source.h"
#include "redis/store.h"
#include "scenario/model.h"

namespace rlsim {

// make_store: the embedded store, or a RealStore over the scenario's redis.url or
// redis.cluster_url. Throws RunError: kRedisUnavailable when the real server cannot be reached or
// refuses the credentials, kBadInput for a malformed URL.
class RealStoreSource final : public StoreSource {
 public:
  std::unique_ptr<DataStore> make_store(const Scenario& scenario) const override;
  std::unique_ptr<RedisCluster> make_real_cluster_nodes(DataStore& store, Simulator& sim,
                                                        const RedisTiming& timing,
                                                        std::uint64_t seed) const override;
};

// Installs a RealStoreSource for every run from now on (install_store_source).
void install_real_backend();

// Whether a run may connect to the Redis its scenario's redis.url or redis.cluster_url names.
// Off by default: a scenario file alone (say, from a downloaded repository) never makes rlsim
// connect anywhere; the command line turns it on (--redis, --redis-cluster, --real-redis). While
// off, make_store throws RunError kBadInput for a scenario that names a server.
void allow_scenario_redis(bool allowed);

class RealStore;
// The real store `redis` names (its url, or its cluster_url when set), for what needs the store
// behind the socket itself (the conformance corpus). REQUIRES: one of them is set. Throws
// RunError as make_store.
std::unique_ptr<RealStore> make_real_store(const RedisSpec& redis);

// `url` without user and password ("redis://host:port/db"), for printed commands.
std::string redis_url_display(const std::string& url);

}  // namespace rlsim
