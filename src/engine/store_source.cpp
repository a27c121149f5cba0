#include "engine/store_source.h"

#include "core/check.h"
#include "engine/run_error.h"
#include "redis/mock_store.h"

namespace rlsim {

namespace {
const EmbeddedStoreSource embedded_source;
const StoreSource* installed_source = &embedded_source;
}  // namespace

std::unique_ptr<DataStore> EmbeddedStoreSource::make_store(const Scenario& scenario) const {
  if (!scenario.redis.url.empty() || !scenario.redis.cluster_url.empty())
    throw RunError(
        "this build of rlsim runs on the embedded Redis only: remove redis.url and "
        "redis.cluster_url from the scenario, or run it with the rlsim command-line program",
        RunErrorKind::kBadInput);
  return std::make_unique<MockStore>();
}

std::unique_ptr<RedisCluster> EmbeddedStoreSource::make_real_cluster_nodes(DataStore&, Simulator&,
                                                                           const RedisTiming&,
                                                                           std::uint64_t) const {
  RLSIM_CHECK(false && "make_store refuses every scenario with a real cluster");
  return nullptr;
}

void install_store_source(const StoreSource& source) { installed_source = &source; }

const StoreSource& store_source() { return *installed_source; }

}  // namespace rlsim
