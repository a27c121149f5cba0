#!/usr/bin/env bash
# Renders the HTML report of the overshoot demo in headless Chromium (Debian's package) and checks
# that the page is not blank and that the expected charts and summary are in the rendered DOM.
# Also checks that the HTML and every chart SVG are well-formed XML (xmllint).
# Usage: html_report.sh RLSIM_BINARY SOURCE_DIR
set -euo pipefail
rlsim=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$rlsim" run "$source_dir/scenarios/overshoot-10x.json" --out "$work/report" >/dev/null
for f in "$work/report/report.html" "$work/report/"chart-*.svg; do
  xmllint --noout "$f"
done
test -s "$work/report/report.md"

chromium_flags=(--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking
  --disable-component-update --disable-sync --disable-quic --user-data-dir="$work/profile")
url="file://$work/report/report.html"
timeout 120 chromium "${chromium_flags[@]}" --window-size=1200,1600 --screenshot="$work/page.png" \
  "$url" >/dev/null 2>&1
timeout 120 chromium "${chromium_flags[@]}" --dump-dom "$url" >"$work/dom.html" 2>/dev/null

# A blank white page of this size compresses to a few KB; the report with its charts is far larger.
png_bytes=$(stat -c %s "$work/page.png")
if [ "$png_bytes" -lt 20000 ]; then
  echo "screenshot is only $png_bytes bytes: the page looks blank" >&2
  exit 1
fi
for expected in 'id="chart-admitted"' 'id="chart-instances"' 'id="summary"' \
  'id="chart-latency"' 'id="chart-by-instance-1"' 'id="chart-by-instance-2"' \
  'data-name="instance 9"' 'data-name="redis_fixed_window p99"' \
  'data-name="in_memory"' 'data-name="redis_fixed_window"' '10.00x the limit' 'holds the limit'; do
  if ! grep -qF "$expected" "$work/dom.html"; then
    echo "the rendered page lacks $expected" >&2
    exit 1
  fi
done

# A sweep's page: well-formed, and its table and chart present once rendered.
"$rlsim" sweep "$source_dir/scenarios/overshoot-10x.json" --set instances.count=1,5,10 \
  --metric overshoot --out "$work/sweep" >/dev/null
for f in "$work/sweep/sweep.html" "$work/sweep/"chart-*.svg; do
  xmllint --noout "$f"
done
timeout 120 chromium "${chromium_flags[@]}" --dump-dom "file://$work/sweep/sweep.html" \
  >"$work/sweep-dom.html" 2>/dev/null
for expected in 'id="sweep"' 'id="chart-sweep-overshoot"' 'data-name="in_memory"'; do
  if ! grep -qF "$expected" "$work/sweep-dom.html"; then
    echo "the rendered sweep page lacks $expected" >&2
    exit 1
  fi
done
echo "html report renders: $png_bytes-byte screenshot, charts and summary present; sweep page too"
