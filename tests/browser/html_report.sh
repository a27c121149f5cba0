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
  'data-name="instance 6"' 'data-name="3 other instances"' 'data-name="redis_fixed_window p99"' \
  'data-name="in_memory"' 'data-name="redis_fixed_window"' '10.00x the limit' 'holds the limit'; do
  if ! grep -qF "$expected" "$work/dom.html"; then
    echo "the rendered page lacks $expected" >&2
    exit 1
  fi
done

# The state charts, on the scenarios that have their data: the Redis node's load, the fallback and
# the breaker (redis-outage), the clock errors (vm-resume), the per-region admissions
# (multi-region); each page well-formed, with every chart's title and the fault windows shaded.
check_page() {  # NAME EXPECTED...
  local name=$1
  shift
  "$rlsim" run "$source_dir/scenarios/$name.json" --out "$work/$name" >/dev/null
  for f in "$work/$name/report.html" "$work/$name/"chart-*.svg; do
    xmllint --noout "$f"
  done
  timeout 120 chromium "${chromium_flags[@]}" --dump-dom "file://$work/$name/report.html" \
    >"$work/$name-dom.html" 2>/dev/null
  for expected in "$@"; do
    if ! grep -qF "$expected" "$work/$name-dom.html"; then
      echo "the rendered $name page lacks $expected" >&2
      exit 1
    fi
  done
}
check_page redis-outage 'id="chart-redis-ops"' 'id="chart-redis-utilization"' \
  'id="chart-fallback"' 'id="chart-breaker-4"' 'data-name="open (fallback, no Redis call)"' \
  'Fallback active: decisions made by on_error instead of Redis' \
  'Redis node: commands per second' '<g class="band"><title>redis_down</title>' \
  'class="alert-marker" data-alert="fallback_active"'
check_page vm-resume 'id="chart-clock-error"' 'data-name="Redis node"' \
  'data-name="instance 1"' 'Clock error per instance and of the Redis node' \
  '<g class="band"><title>clock_jump</title>'
check_page multi-region 'id="chart-regions-1"' 'id="chart-regions-4"' 'data-name="region eu"' \
  'data-name="all regions"' 'data-name="limit (100), per region and global"'

# The fault windows and alert firings (redis-outage: one outage, four alerts per strategy) are laid
# out by the browser: every band and marker of the page has a box of non-zero size, measured by a
# script added to a copy of the page, and as many as the report wrote.
measure='<script>const n = (s) => [...document.querySelectorAll(s)].filter((e) => {'
measure+=' const r = e.getBoundingClientRect(); return r.width * r.height > 0; }).length;'
measure+=' document.body.setAttribute("data-marks", n("g.band") + " " + n("g.alert-marker"));'
measure+='</script></body>'
awk -v m="$measure" '{ sub("</body>", m) } 1' "$work/redis-outage/report.html" \
  >"$work/marks-measure.html"
marks=$(timeout 120 chromium "${chromium_flags[@]}" --dump-dom "file://$work/marks-measure.html" \
  2>/dev/null | grep -o 'data-marks="[^"]*"' | cut -d'"' -f2)
written="$(grep -c '<g class="band">' "$work/redis-outage/report.html") $(grep -o \
  '<g class="alert-marker"' "$work/redis-outage/report.html" | wc -l)"
if [ "$marks" != "$written" ] || [ "${marks% *}" -eq 0 ] || [ "${marks#* }" -eq 0 ]; then
  echo "redis-outage: rendered bands and alert markers '$marks', written '$written'" >&2
  exit 1
fi

# The summary table fits a 1280 px window (issue: autoscale's last columns were cut off), also with
# the longest label of the bundled scenarios (vm-resume), and in a 900 px window it scrolls inside
# its box instead of widening the page. Measured by a script added to a copy of the page (the
# report itself has none): how far the table's box and the page scroll sideways, in pixels.
table_overflow() {  # NAME WIDTH -> "BOX PAGE"
  local name=$1 width=$2 measure
  measure='<script>const w = document.querySelector(".table-wrap"), d = document.documentElement;'
  measure+=' document.body.setAttribute("data-overflow", (w.scrollWidth - w.clientWidth) + " " +'
  measure+=' (d.scrollWidth - d.clientWidth));</script></body>'
  awk -v m="$measure" '{ sub("</body>", m) } 1' "$work/$name/report.html" >"$work/$name-measure.html"
  timeout 120 chromium "${chromium_flags[@]}" --window-size="$width",900 --dump-dom \
    "file://$work/$name-measure.html" 2>/dev/null | grep -o 'data-overflow="[^"]*"' | cut -d'"' -f2
}
"$rlsim" run "$source_dir/scenarios/autoscale.json" --out "$work/autoscale" >/dev/null
for name in autoscale vm-resume; do
  fit=$(table_overflow "$name" 1280)
  [ "$fit" = "0 0" ] || { echo "$name: the summary table does not fit 1280 px (box, page: $fit)" >&2; exit 1; }
done
narrow=$(table_overflow autoscale 900)
if [ "${narrow#* }" != 0 ] || [ "${narrow% *}" -le 0 ]; then
  echo "autoscale at 900 px: the table should scroll in its box, not the page (box, page: $narrow)" >&2
  exit 1
fi

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
echo "html report renders: $png_bytes-byte screenshot, charts and summary present; summary fits" \
  "1280 px and scrolls in its box at 900 px; state charts and sweep page too; redis-outage's" \
  "fault bands and alert markers rendered (bands, markers: $marks)"
