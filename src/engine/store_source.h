#pragma once
// Where the keys of a run's Redis nodes live (the DataStore seam, redis/store.h). The front end
// chooses: the engine itself knows only the embedded store; the CLI installs a source that also
// reaches a real Redis or Redis Cluster (src/real/backend.h), a browser build installs none.
#include <cstdint>
#include <memory>

#include "core/simulator.h"
#include "redis/cluster.h"
#include "redis/server.h"
#include "redis/store.h"
#include "scenario/model.h"

namespace rlsim {

class StoreSource {
 public:
  virtual ~StoreSource() = default;
  // A fresh store for one strategy run of `scenario`. Throws RunError.
  virtual std::unique_ptr<DataStore> make_store(const Scenario& scenario) const = 0;
  // The simulated nodes of the real cluster behind `store`, one server per master with `timing`.
  // REQUIRES: `store` came from make_store of a scenario with redis.cluster_url, and outlives the
  // result.
  virtual std::unique_ptr<RedisCluster> make_real_cluster_nodes(DataStore& store, Simulator& sim,
                                                                const RedisTiming& timing,
                                                                std::uint64_t seed) const = 0;
};

// The embedded store (redis/mock_store.h) for every run. A scenario naming a real Redis
// (redis.url or redis.cluster_url) is refused with RunError kBadInput: this build cannot reach one.
class EmbeddedStoreSource final : public StoreSource {
 public:
  std::unique_ptr<DataStore> make_store(const Scenario& scenario) const override;
  std::unique_ptr<RedisCluster> make_real_cluster_nodes(DataStore& store, Simulator& sim,
                                                        const RedisTiming& timing,
                                                        std::uint64_t seed) const override;
};

// Makes `source` the one every run from now on takes its stores from (until another is
// installed). REQUIRES: `source` outlives those runs; no run is in progress (runs on other threads
// read it without a lock).
void install_store_source(const StoreSource& source);
// The installed source; an EmbeddedStoreSource until a front end installs one.
const StoreSource& store_source();

}  // namespace rlsim
