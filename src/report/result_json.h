#pragma once
// The JSON of a run's typed results (world/results.h): the fields report_json writes after
// strategy_metrics, in the report's field order (docs/metrics.md).
#include <nlohmann/json.hpp>

#include "redis/store.h"
#include "world/results.h"

namespace rlsim {

// waited_full_timeout, then redis_node, redis_cluster and redis_nodes, resilience and faults as
// far as the run has them.
nlohmann::ordered_json redis_side_json(const RedisSideResult& result);

nlohmann::ordered_json node_json(const NodeResult& node);
nlohmann::ordered_json resilience_json(const ResilienceResult& resilience);
// The report's "clock" object and "regions" array.
nlohmann::ordered_json clock_json(const ClockResult& clock);
nlohmann::ordered_json regions_json(const std::vector<RegionResult>& regions);
// The report's "backend" object for a real store: its URL without credentials (a cluster's seeds,
// nodes and redirections), calls failed by the connection, reconnects, the first failure.
nlohmann::ordered_json backend_json(const BackendReport& backend);
// The report's "retries" object: what a run's retrying clients did (traffic[].retry).
nlohmann::ordered_json retries_json(const RetryResult& retries);

}  // namespace rlsim
