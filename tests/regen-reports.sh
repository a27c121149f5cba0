#!/usr/bin/env bash
# Regenerates the committed reports: reports/<scenario name>/ for every bundled scenario (with its
# own seed), and the sweeps the tour uses (reports/<scenario name>-sweep/). Runs from the
# repository root with relative paths, so the files hold no absolute path, and rlsim writes no
# time or host name into them: the same binary gives the same bytes. CI runs this and fails if
# anything under reports/ changed (tests/run-all.sh).
# Usage: tests/regen-reports.sh [RLSIM_BINARY]   (default: build/rlsim)
set -euo pipefail
cd "$(dirname "$0")/.."
rlsim=${1:-build/rlsim}
[ -x "$rlsim" ] || { echo "regen-reports: no rlsim binary at $rlsim (build first)" >&2; exit 2; }

# Start from an empty reports/ (but its README), so a chart that no longer exists goes away too.
find reports -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +

for scenario in scenarios/*.json; do
  "$rlsim" run "$scenario" >/dev/null
done
# The tour's sweeps: in-memory overshoot against the instance count (the straight N x line), and
# local_budget's Redis calls and wasted tokens against the batch size;
"$rlsim" sweep scenarios/overshoot-10x.json --set instances.count=1,2,5,10,20 \
  --metric overshoot --metric latency_us.p99 >/dev/null
"$rlsim" sweep scenarios/local-budget.json --set 'strategies[1].batch=10,25,50,100,200' \
  --strategy local_budget --metric redis_round_trips_per_request \
  --metric strategy_metrics.tokens_wasted --metric false_denials --seeds 3 >/dev/null
# sharded_global: the hottest shard's share of the writes against the shard count.
"$rlsim" sweep scenarios/global-limit.json --set 'strategies[1].shards=1,2,5,10,20' \
  --strategy sharded --metric 'strategy_metrics.global_limits[0].hottest_key_share' \
  --metric redis_commands_per_request --metric latency_us.p99 >/dev/null
# crdt_counter: overshoot against the replication delay (docs/regions.md), region_local beside it.
"$rlsim" sweep scenarios/multi-region.json \
  --set 'strategies[2].replication_delay=0ms,100ms,1s,10s,30s,60s' \
  --strategy crdt_100ms --strategy region_local --metric overshoot --metric excess >/dev/null
# The reference table of docs/products.md, from the product scenarios' reports.
python3 tests/products-table.py
echo "regenerated: $(find reports -mindepth 1 -maxdepth 1 -type d | sort | tr '\n' ' ')"
