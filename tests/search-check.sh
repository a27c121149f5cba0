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

# Declared dimensions (--vary): in_memory's N x L at the largest instance count, requests routed
# by the balancer; the shrunk scenario keeps the values found and reruns to the pinned value.
"$rlsim" search "$source_dir/scenarios/search/attack.json" --strategy in_memory \
  --maximize overshoot --budget 80 --jobs 2 --out "$out/vary" \
  --vary "instances.count=2..12" --vary "load_balancer.policy=round_robin|random" \
  >"$out/vary.txt" 2>/dev/null
cat "$out/vary.txt"
grep -q "^at instances.count=12" "$out/vary.txt" || { echo "search-check: --vary did not reach 12 instances" >&2; exit 1; }
"$rlsim" check "$out/vary/scenario.json"

# A bad dimension is one line and exit 2.
status=0
"$rlsim" search "$source_dir/scenarios/search/attack.json" --strategy in_memory \
  --maximize overshoot --vary "instances.count=20..2" >/dev/null 2>"$out/bad.txt" || status=$?
[ "$status" = 2 ] && grep -q "LO must be below HI" "$out/bad.txt" ||
  { echo "search-check: a bad --vary gave exit $status: $(cat "$out/bad.txt")" >&2; exit 1; }

# Shards and merge: two shards of one search, merged, shrunk and pinned.
for k in 1 2; do
  "$rlsim" search "$source_dir/scenarios/search/attack.json" --strategy redis_fixed_window \
    --maximize rolling_overshoot --budget 60 --jobs 2 --shard "$k/2" --out "$out/shards" >/dev/null 2>&1
done
"$rlsim" merge "$out/shards" --out "$out/merged" >"$out/merge.txt"
cat "$out/merge.txt"
"$rlsim" check "$out/merged/scenario.json"

# A custom_lua scenario: its script is copied beside the written scenario.json, which reruns from
# a folder of its own.
mkdir -p "$out/lua/scripts"
cp "$source_dir/scenarios/scripts/fixed_window.lua" "$out/lua/scripts/"
python3 - "$source_dir/scenarios/search/attack.json" "$out/lua/attack.json" <<'PY'
import json, re, sys
text = re.sub(r"^\s*//.*$", "", open(sys.argv[1]).read(), flags=re.M)
doc = json.loads(text)
doc["strategies"] = [{"name": "custom_lua", "label": "custom_fixed_window",
                      "script": "scripts/fixed_window.lua", "keys": ["${prefix}${key}:${window}"],
                      "args": ["${limit}", "${window_ms}"], "allow_if": "reply == 1"}]
json.dump(doc, open(sys.argv[2], "w"), indent=2)
PY
"$rlsim" search "$out/lua/attack.json" --strategy custom_fixed_window --maximize rolling_overshoot \
  --budget 40 --jobs 2 --out "$out/lua-found" >/dev/null 2>&1
[ -s "$out/lua-found/scripts/fixed_window.lua" ] || { echo "search-check: the script was not copied" >&2; exit 1; }
mv "$out/lua-found" "$out/elsewhere"
rm -rf "$out/lua"
"$rlsim" check "$out/elsewhere/scenario.json"
