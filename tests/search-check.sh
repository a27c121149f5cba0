#!/usr/bin/env bash
# `rlsim search` end to end (docs/search.md): a small search on the bundled search scenario writes
# its shrunk worst case as a scenario directory, and `rlsim check` reruns it to exactly the value
# found (the scenario's `expect` pins it, equals with tolerance 0).
# Usage: tests/search-check.sh RLSIM_BINARY SOURCE_DIR
set -euo pipefail
rlsim=$1
source_dir=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$rlsim" search "$source_dir/scenarios/search/attack.json" --strategy redis_fixed_window \
  --maximize rolling_overshoot --budget 200 --jobs 2 --out "$out" >"$out/search.txt" 2>/dev/null
cat "$out/search.txt"
for file in scenario.json requests.csv search.json search.md trajectory.svg; do
  [ -s "$out/$file" ] || { echo "search-check: no $file written" >&2; exit 1; }
done
"$rlsim" check "$out/scenario.json"
# The value pinned is the value the search reported for the shrunk case.
pinned=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["expect"][0]["equals"])' "$out/scenario.json")
shrunk=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["shrunk"]["value"])' "$out/search.json")
[ "$pinned" = "$shrunk" ] || { echo "search-check: pinned $pinned, shrunk $shrunk" >&2; exit 1; }
