#pragma once
// Which data store a strategy run uses: the embedded Redis, or a real one when the scenario (or
// `--redis`) names a URL (docs/real-redis.md).
#include <memory>
#include <string>

#include "redis/store.h"
#include "scenario/model.h"

namespace rlsim {

// A fresh store for one strategy run. Throws RunError: kRedisUnavailable when the real server
// cannot be reached or refuses the credentials, kBadInput for a malformed URL.
std::unique_ptr<DataStore> make_store(const Scenario& scenario);

class RealStore;
// The real store `redis` names (its url, or its cluster_url when set), for what needs the store
// behind the socket itself (the conformance corpus). REQUIRES: one of them is set. Throws
// RunError as make_store.
std::unique_ptr<RealStore> make_real_store(const RedisSpec& redis);

// `url` without user and password ("redis://host:port/db"), for printed commands.
std::string redis_url_display(const std::string& url);

}  // namespace rlsim
