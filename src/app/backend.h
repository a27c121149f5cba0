#pragma once
// Which data store a strategy run uses: the embedded Redis, or a real one when the scenario (or
// `--redis`) names a URL (docs/real-redis.md).
#include <memory>
#include <nlohmann/json.hpp>

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

// The report's "backend" object for a real store (its URL without credentials, calls failed by
// the connection, reconnects, the first failure); null for the embedded Redis.
nlohmann::ordered_json backend_json(const DataStore& store);

// `url` without user and password ("redis://host:port/db"), for printed commands.
std::string redis_url_display(const std::string& url);

}  // namespace rlsim
