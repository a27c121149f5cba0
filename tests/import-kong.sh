#!/usr/bin/env bash
# The done-when of `rlsim import` (docs/import.md#kong), through the binary as a user runs it:
# importing scenarios/import/kong.yml (minute 600, policy redis, sync_rate 0.5, fault_tolerant,
# limit_by consumer) writes a scenario whose kong strategy has sync_rate 500ms and a 600 per minute
# limit keyed by user (Kong's consumer), with no unmapped item, and `rlsim run` runs it; an
# unmappable item is warned and counted; bad input exits 2, an unwritable --out 3.
# Usage: tests/import-kong.sh RLSIM SOURCE_DIR
set -euo pipefail
rlsim=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "import-kong: $*" >&2; exit 1; }

"$rlsim" import "$source_dir/scenarios/import/kong.yml" --out "$work/kong.json" --json >"$work/summary.json" ||
  fail "rlsim import exited with $?"
python3 - "$work/summary.json" "$work/kong.json" <<'PY' || fail "the imported scenario is not the plugin's"
import json, sys
summary = json.load(open(sys.argv[1]))
assert summary["format"] == "kong" and summary["unmapped"] == 0, summary
text = open(sys.argv[2]).read()
# The scenario has // comments (docs/scenario-format.md#comments): dropped, outside strings.
def strip_comments(text):
    out, i, in_string = [], 0, False
    while i < len(text):
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\":
                out.append(text[i + 1]); i += 1
            elif c == '"':
                in_string = False
        elif text.startswith("//", i):
            while i < len(text) and text[i] != "\n": i += 1
            continue
        else:
            out.append(c); in_string = c == '"'
        i += 1
    return "".join(out)
scenario = json.loads(strip_comments(text))
assert scenario["limits"] == [{"name": "minute", "key": "user", "limit": 600, "window": "1m"}], scenario["limits"]
kong = scenario["strategies"][0]
assert kong["name"] == "kong" and kong["sync_rate"] == "500ms" and kong["policy"] == "redis", kong
assert kong["limit_by"] == "consumer" and kong["fault_tolerant"] is True, kong
assert scenario["redis"]["timeout"] == "2s", scenario["redis"]
assert "config.sync_rate: 0.5 (seconds)" in text
PY
"$rlsim" run "$work/kong.json" --out "$work/report" >"$work/run.txt" || fail "rlsim run exited with $?"
grep -q "kong" "$work/run.txt" || fail "the run's table does not show the kong strategy"
# An item the model cannot take (Limitador's POST condition): a warning on stderr naming its line,
# and unmapped 1 in --json, the scenario still written and exit code 0.
"$rlsim" import "$source_dir/scenarios/import/limitador-limits.yaml" --out "$work/lim.json" --json \
  >"$work/lim-summary.json" 2>"$work/lim-err.txt" || fail "importing the Limitador file exited with $?"
python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); assert s["unmapped"] == 1, s' \
  "$work/lim-summary.json" || fail "--json does not count the unmapped condition"
grep -q "^rlsim: warning: .*limitador-limits.yaml:12:3: condition" "$work/lim-err.txt" ||
  fail "no warning for the condition: $(cat "$work/lim-err.txt")"
# A bad configuration: exit code 2 and the file, line and column.
printf '_format_version: "3.0"\nplugins: [\n' >"$work/bad.yml"
set +e
"$rlsim" import "$work/bad.yml" 2>"$work/err.txt"
code=$?
set -e
[ "$code" -eq 2 ] || fail "a YAML syntax error exited with $code, not 2"
grep -q "bad.yml:3:1: syntax error" "$work/err.txt" || fail "no line and column: $(cat "$work/err.txt")"
# An --out that cannot be written: exit code 3, and nothing half-written.
set +e
"$rlsim" import "$source_dir/scenarios/import/kong.yml" --out "$work/no-such-dir/kong.json" 2>"$work/err.txt"
code=$?
set -e
[ "$code" -eq 3 ] || fail "an unwritable --out exited with $code, not 3"
echo "import-kong: ok"
