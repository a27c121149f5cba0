#!/usr/bin/env bash
# `rlsim run --metrics-out` checked with the real consumer: promtool (Debian package `prometheus`)
# loads the OpenMetrics file into TSDB blocks, and the series it stored must hold every sample of
# the file and end at the totals of the JSON report, which a different writer renders from the
# same run. Two runs must write byte-identical files. Scenarios: redis-outage (errors, fallbacks,
# the single Redis server) and hot-key (an embedded cluster: one series per node).
# Usage: metrics-promtool.sh RLSIM_BINARY SOURCE_DIR
set -euo pipefail
rlsim=$(realpath "$1")
source_dir=$(realpath "$2")
command -v promtool >/dev/null || { echo "promtool not found (Debian package prometheus)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

check_scenario() {
  local name=$1 twice=$2
  "$rlsim" run "$source_dir/scenarios/$name.json" --out "$name" --metrics-out "$name.om" >/dev/null
  if [ "$twice" = twice ]; then
    "$rlsim" run "$source_dir/scenarios/$name.json" --out "$name-again" \
      --metrics-out "$name-again.om" >/dev/null
    cmp "$name.om" "$name-again.om" || { echo "$name: two runs wrote different files" >&2; exit 1; }
  fi

  promtool tsdb create-blocks-from openmetrics "$name.om" "$name-data" >/dev/null
  local blocks
  blocks=$(find "$name-data" -mindepth 1 -maxdepth 1 -type d | wc -l)
  [ "$blocks" -ge 1 ] || { echo "$name: promtool created no block" >&2; exit 1; }
  # promtool 2.42's dump opens the head's WAL, which a backfilled directory does not have.
  mkdir -p "$name-data/wal"
  promtool tsdb dump "$name-data" >"$name.dump"
  local stored in_file
  stored=$(promtool tsdb list "$name-data" | awk 'NR > 1 { n += $5 } END { print n }')
  in_file=$(grep -vc '^#' "$name.om")
  [ "$stored" -eq "$in_file" ] ||
    { echo "$name: promtool stored $stored samples, the file has $in_file" >&2; exit 1; }
  python3 - "$name/report.json" "$name.dump" <<'EOF'
import json, re, sys

report = json.load(open(sys.argv[1]))
last = {}  # the labels of each stored series -> (value, timestamp in ms) of its last sample
for line in open(sys.argv[2]):
    match = re.fullmatch(r"\{(.*)\} (\S+) (-?\d+)", line.strip())
    assert match, "unexpected dump line: " + line
    labels = tuple(sorted(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', match.group(1))))
    value, at_ms = float(match.group(2)), int(match.group(3))
    assert labels not in last or last[labels][1] < at_ms, "timestamps not increasing: " + line
    last[labels] = (value, at_ms)

failures = []
def expect(strategy, family, want, **labels):
    labels.update(__name__=family, scenario=report["scenario"], strategy=strategy["label"])
    got = last.get(tuple(sorted(labels.items())))
    if got is None or got[0] != want:
        failures.append(f"{labels}: stored {got and got[0]}, the JSON report says {want}")

for s in report["strategies"]:
    expect(s, "rlsim_decisions_total", s["allowed"], outcome="allowed")
    expect(s, "rlsim_decisions_total", s["denied"], outcome="denied")
    expect(s, "rlsim_decision_errors_total", s["errors"])
    expect(s, "rlsim_rate_check_latency_seconds_count", s["offered"])
    expect(s, "rlsim_rate_check_latency_seconds_bucket", s["offered"], le="+Inf")
    for limit in s["limits"]:
        expect(s, "rlsim_excess_total", limit["excess"], limit=limit["name"])
    if "resilience" in s:
        expect(s, "rlsim_fallback_decisions_total", s["resilience"]["fallback_decisions"])
    nodes = [("redis", s["redis_node"])] if "redis_node" in s else []
    nodes += [(str(n["node"]), n) for n in s.get("redis_nodes", [])]
    for node, stats in nodes:
        # INFO commandstats: the commands the node executed, as the per-bucket series counts them.
        expect(s, "rlsim_redis_commands_total", sum(stats["commandstats"].values()), node=node)
        if stats["utilization_series"]["values"]:
            expect(s, "rlsim_redis_utilization_ratio",
                   stats["utilization_series"]["values"][-1], node=node)
    if not nodes and s["redis_commands"] > 0:
        failures.append(f"{s['label']}: Redis commands but no node series")
if failures:
    sys.exit(report["scenario"] + ":\n  " + "\n  ".join(failures))
print(f"{report['scenario']}: {len(last)} series, totals equal the JSON report's")
EOF
  echo "$name: promtool loaded $stored samples into $blocks block(s)"
}

check_scenario redis-outage twice  # and the file of a second run must be byte-identical
check_scenario hot-key once
echo "redis-outage: two runs wrote byte-identical files"
