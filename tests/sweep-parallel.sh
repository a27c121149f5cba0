#!/usr/bin/env bash
# A sweep spread over shards by GNU parallel (Debian package `parallel`, installed by
# tests/install-deps.sh) on localhost, as docs/cli.md shows for several hosts: the N shards run side
# by side, `rlsim merge` joins them, and every file must equal the sweep run in one process.
# Usage: sweep-parallel.sh RLSIM_BINARY SOURCE_DIR
set -euo pipefail
rlsim=$(realpath "$1")
source_dir=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cp "$source_dir/scenarios/overshoot-10x.json" s.json
sweep=(s.json --set instances.count=1,2,5 --seeds 3 --metric overshoot --metric excess --jobs 1)

"$rlsim" sweep "${sweep[@]}" --out whole >/dev/null
# --will-cite: no citation notice; --halt now,fail=1: a failing shard fails the test at once.
parallel --will-cite --halt now,fail=1 --jobs 2 \
  "$rlsim" sweep "${sweep[@]}" --out shards --shard {}/3 ">" /dev/null ::: 1 2 3
"$rlsim" merge shards --out merged >/dev/null
for f in whole/*; do
  cmp "$f" "merged/$(basename "$f")" || { echo "merged $(basename "$f") differs" >&2; exit 1; }
done
[ "$(ls whole | wc -l)" -eq "$(ls merged | wc -l)" ] || { echo "merged file count differs" >&2; exit 1; }
echo "3 shards by GNU parallel merged byte-identical to the one-process sweep ($(ls whole | wc -l) files)"
