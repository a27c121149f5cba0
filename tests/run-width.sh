#!/usr/bin/env bash
# Every line `rlsim run` prints for every bundled scenario fits a 120-column terminal (a projector
# in a lecture room): details belong in the report files (docs/cli.md#the-table). Runs each
# scenario as a user would, from a directory whose scenarios/ is the repository's (so the paths
# printed are `scenarios/x.json` and `reports/x/report.json`), without colour, and counts
# characters (code points: a sparkline block is one column), not bytes. Prints every line that
# is too wide, with its scenario and length, and exits 1 when there is one.
# Usage: tests/run-width.sh RLSIM_BINARY SOURCE_DIR [MAX_COLUMNS]   (default 120)
set -euo pipefail
rlsim=$(realpath "$1")
source_dir=$(realpath "$2")
max_columns=${3:-120}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$source_dir/scenarios" "$work/scenarios"
cd "$work"
for scenario in scenarios/*.json; do
  NO_COLOR=1 "$rlsim" run "$scenario" >"$work/out.txt" </dev/null || {
    echo "run-width: rlsim run $scenario exited $?" >&2
    exit 1
  }
  python3 - "$scenario" "$max_columns" "$work/out.txt" <<'PY' || failed=1
import sys
scenario, max_columns, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
lines = open(path, encoding="utf-8").read().splitlines()
wide = [(n, len(line)) for n, line in enumerate(lines, 1) if len(line) > max_columns]
for n, width in wide:
    print(f"run-width: {scenario}: line {n} is {width} columns (at most {max_columns})")
print(f"run-width: {scenario}: {len(lines)} lines, widest {max(map(len, lines), default=0)}")
sys.exit(1 if wide else 0)
PY
done
exit "${failed:-0}"
