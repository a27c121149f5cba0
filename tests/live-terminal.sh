#!/usr/bin/env bash
# `rlsim run scenarios/redis-outage.json --live` on a real pseudo-terminal (tmux, installed by
# tests/install-deps.sh) at 120x35 and 80x24, with keys typed as a teacher would: the captured
# screens are asserted (the outage's banner, the strategies' errors and latency, no line wrapped,
# the title still on the first row), then `h` hides the figures, `s` stops at the end of the
# window, `q` ends the run, and the report files are byte-identical to those of a run without
# --live (docs/cli.md#live-mode---live---speed-x).
# Usage: tests/live-terminal.sh RLSIM_BINARY SOURCE_DIR
set -euo pipefail
rlsim=$(realpath "$1")
source_dir=$(realpath "$2")
command -v tmux >/dev/null || { echo "live-terminal: tmux is not installed" >&2; exit 1; }
work=$(mktemp -d)
socket="rlsim-live-test-$$"
cleanup() {
  tmux -L "$socket" kill-server 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
ln -s "$source_dir/scenarios" "$work/scenarios"
cd "$work"
NO_COLOR=1 "$rlsim" run scenarios/redis-outage.json --out plain >/dev/null </dev/null

fail() {
  echo "live-terminal: $1; the screen was:" >&2
  cat "$work/screen.txt" >&2
  exit 1
}
# The pane as shown, wrapped lines joined (-J): a line that wrapped comes back longer than the pane.
capture() { tmux -L "$socket" capture-pane -p -J -t live >"$work/screen.txt"; }
# Polls the screen until it shows TEXT (60 s at most: the first frame runs to 3m10s at once).
wait_for() {
  for _ in $(seq 600); do
    capture
    grep -qF -- "$1" "$work/screen.txt" && return 0
    sleep 0.1
  done
  fail "never showed \"$1\""
}
expect() { grep -qF -- "$1" "$work/screen.txt" || fail "no \"$1\""; }
expect_not() { ! grep -qF -- "$1" "$work/screen.txt" || fail "\"$1\" shown"; }
fits() {  # COLUMNS ROWS: no line wider than the pane, the title on the first row
  python3 - "$1" "$2" "$work/screen.txt" <<'PY' || fail "the screen does not fit $1x$2"
import sys
columns, rows, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
lines = open(path, encoding="utf-8").read().rstrip("\n").split("\n")
wide = [line for line in lines if len(line.rstrip()) > columns]
sys.exit(1 if wide or len(lines) > rows or not lines[0].startswith("rlsim live: redis-outage") else 0)
PY
}
keys() { tmux -L "$socket" send-keys -t live "$@"; }

# COLUMNS ROWS OUT: the run paused at 3m10s, 10 s into the outage.
watch_outage() {
  tmux -L "$socket" -f /dev/null new-session -d -s live -x "$1" -y "$2" \
    "env -u NO_COLOR TERM=xterm-256color '$rlsim' run scenarios/redis-outage.json --live \
       --pause-at 3m10s --out $3; echo \"exit \$?\"; sleep 600"
  wait_for "3m10.0s of 5m0.0s"
  wait_for "PAUSED"
  capture
  fits "$1" "$2"
  expect "!! REDIS DOWN from 3m0.0s to 3m20.0s, 10.0s left"
  for label in fail_open fail_closed local_fallback circuit_breaker; do expect "$label"; done
  expect "window #4, 3m0.0s to 4m0.0s"
  expect "p99 +100."  # every call of the outage waited the 100 ms timeout
  expect "keys: p pause"
}

watch_outage 120 35 live
cp "$work/screen.txt" "$work/screen-120x35.txt"
expect "    errors 987  timeouts 986  fallbacks 987  p99 +100.0ms"  # fail_open: every call timed out
expect "breakers open "
expect "by instance: #0:"
keys h
wait_for "figures hidden: predict, then press h to reveal"
expect "errors ?"
expect_not "p99 +"
keys h
wait_for "p99 +"
keys s
wait_for "3m59.9s of 5m0.0s"
fits 120 35
expect_not "!! REDIS DOWN"
expect "PAUSED"
keys q
wait_for "exit 0"
tmux -L "$socket" kill-session -t live
for file in plain/*; do
  cmp "$file" "live/$(basename "$file")" || { echo "live-terminal: $file differs with --live" >&2; exit 1; }
done

watch_outage 80 24 small
cp "$work/screen.txt" "$work/screen-80x24.txt"
keys q
wait_for "exit 0"
echo "live-terminal: 120x35 and 80x24 screens as expected; the report is the same with --live"
