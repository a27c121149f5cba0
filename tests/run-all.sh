#!/usr/bin/env bash
# The whole test suite from a fresh Debian 12 machine: installs what is missing, builds rlsim with
# warnings as errors (the release program the scenario checks, reports, conformance and package
# use), builds it again with the tests under ASan + UBSan, also with warnings as errors (the only
# build of the tests), starts a private redis-server and a 3-master cluster on loopback ports for
# the real-Redis tests, runs everything, and stops the servers. Each phase prints its wall time
# (`phase: ... s`); docs/performance.md#the-test-suite has the figures and where they go.
set -euo pipefail
cd "$(dirname "$0")/.."
suite_start=$SECONDS
phase_start=$SECONDS
phase() {
  echo "phase: $1: $((SECONDS - phase_start)) s (total $((SECONDS - suite_start)) s)"
  phase_start=$SECONDS
}
# Checked before the first phase, so a mistyped value does not surface after half an hour.
fuzz_seconds=${RLSIM_FUZZ_SECONDS:-0}
if ! [[ "$fuzz_seconds" =~ ^[0-9]+$ ]]; then
  echo "RLSIM_FUZZ_SECONDS must be a whole number of seconds (0: no libFuzzer search)," \
    "not '$fuzz_seconds'" >&2
  exit 2
fi
tests/install-deps.sh
phase "install the Debian packages"

# Formatting is part of the build: the committed .clang-format, applied.
clang-format --dry-run --Werror src/*/*.h src/*/*.cpp tests/*.cpp tests/*.h tests/fuzz/*.cpp
# No include cycle between modules of src/, and each layer includes only the layers below it.
python3 tests/check-includes.py
# Each test file in a namespace of its own: the tests are compiled as a unity build.
python3 tests/check-test-namespaces.py
phase "format and include checks"

jobs=$(nproc)
cmake -S . -B build -DRLSIM_WERROR=ON -DRLSIM_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$jobs"
phase "release build (-Werror)"
cmake -S . -B build-asan -DRLSIM_WERROR=ON -DRLSIM_TESTS=ON -DRLSIM_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
cmake --build build-asan -j"$jobs"
phase "ASan + UBSan build with the tests (-Werror)"

redis_port=${RLSIM_TEST_REDIS_PORT:-6391}
# A second server for the conformance run, which goes beside ctest, whose tests flush the first.
conformance_port=$((redis_port + 1))
redis_ports=("$redis_port" "$conformance_port")
redis_dir=$(mktemp -d)
cluster_dir=$(mktemp -d)  # a 3-master Redis Cluster for the real-cluster tests (ports 7101-7103)
# and another for the conformance run, beside ctest, whose real-cluster tests flush the first.
conformance_cluster_dir=$(mktemp -d)
read -r -a conformance_cluster_ports <<<"${RLSIM_TEST_CONFORMANCE_CLUSTER_PORTS:-7104 7105 7106}"
conformance_logs=$(mktemp -d)
for port in "${redis_ports[@]}"; do
  mkdir -p "$redis_dir/$port"
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$redis_dir/$port" \
    --daemonize yes --pidfile "$redis_dir/$port/redis.pid" --logfile "$redis_dir/$port/redis.log"
done
stop_redis() {
  # A conformance run still going in the background when a phase fails.
  for run in $(jobs -p); do kill "$run" 2>/dev/null || true; done
  for port in "${redis_ports[@]}"; do
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
  done
  tests/redis-cluster.sh stop "$cluster_dir" || true
  tests/redis-cluster.sh stop "$conformance_cluster_dir" "${conformance_cluster_ports[@]}" || true
  rm -rf "$redis_dir" "$conformance_logs"
}
trap stop_redis EXIT
for port in "${redis_ports[@]}"; do
  for _ in $(seq 50); do
    redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break
    sleep 0.1
  done
done
export RLSIM_REDIS_PORT="$redis_port"
RLSIM_REDIS_CLUSTER=$(tests/redis-cluster.sh start "$cluster_dir")
export RLSIM_REDIS_CLUSTER
conformance_cluster=$(tests/redis-cluster.sh start "$conformance_cluster_dir" \
  "${conformance_cluster_ports[@]}")
# Under the test command a real-Redis test whose server is missing fails instead of skipping
# (tests/real_redis_env.h): the suite cannot pass without having run them.
export RLSIM_REQUIRE_REAL_REDIS=1

phase "start redis-server and the cluster"

# The embedded Redis against the real one (docs/real-redis.md): a corpus of replies, then every
# bundled scenario's decisions on both backends, with the release program; any difference fails.
# A conformance run waits on its servers' replies more than it computes (the two side by side:
# 284 s of wall time for 167 CPU-s of rlsim), so both go in the background beside ctest, on servers
# of their own, and the suite waits for them before its end. Output and wall time go to a log,
# printed then.
start_conformance() {  # LOG ARGS...: rlsim conformance ARGS... in the background
  local log=$1
  shift
  (
    begin=$SECONDS
    status=0
    build/rlsim conformance "$@" >"$log" 2>&1 || status=$?
    echo "rlsim conformance ${*:1:2} ...: exit $status after $((SECONDS - begin)) s" >>"$log"
    exit "$status"
  ) &
}
start_conformance "$conformance_logs/server" --redis "redis://127.0.0.1:$conformance_port" \
  scenarios/*.json
server_conformance=$!
# Against the cluster: keys routed by slot over three masters, compared with the embedded cluster of
# the same slot map; each scenario cut to 30 s of virtual time.
start_conformance "$conformance_logs/cluster" --redis-cluster "$conformance_cluster" \
  scenarios/*.json --max-duration 30s
cluster_conformance=$!

# Every test program (unit, scenario, real-Redis, real-cluster, headless Chromium, promtool, GNU
# parallel) under ASan + UBSan; test_cli runs `rlsim check` on every bundled scenario there. But
# run_width: the width of what `rlsim run` prints is the same under any build, and running every
# scenario once more under ASan cost 170 CPU-s; it runs below with the release program.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs" -E '^run_width$'
phase "ctest under ASan + UBSan (the conformance runs beside it)"
# Every bundled scenario's headline claims, each strategy run twice to prove determinism (the
# release program, in two processes).
printf '%s\n' scenarios/*.json | xargs -n 16 -P "$jobs" build/rlsim check --check-determinism
phase "rlsim check --check-determinism"
# Every line `rlsim run` prints for every bundled scenario fits 120 columns (CTest's run_width).
tests/run-width.sh build/rlsim .
phase "120 columns (run_width, with the release program)"
# The committed reports are what this binary generates (a determinism and regression check in one).
tests/regen-reports.sh build/rlsim
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git diff --exit-code --stat -- reports/ docs/products.md &&
    [ -z "$(git status --porcelain -- reports/ docs/products.md)" ] ||
    { echo "reports/ or docs/products.md's table differs from what tests/regen-reports.sh generates: commit them" >&2; exit 1; }
fi
phase "regenerate the reports"
# Installs like a Debian tool: `cmake --install` into a temporary prefix, the .deb that cpack builds
# installed with apt-get and run from /usr/share/rlsim, `man rlsim`, bash completion; then removed.
tests/package.sh build
phase "package"
# The page (docs/web.md): the engine compiled to WebAssembly and the page assembled (src/web/build.sh
# installs emscripten and fetches Lua's and lua-cjson's Debian sources), its runs compared with the
# release program's on every preset (decision digests and whole reports), the page driven in Debian's
# headless Chromium through playwright-core (pinned in tests/web/package-lock.json), and the engine
# timed against the native one on rlsim bench's workload (figures only: docs/performance.md).
src/web/build.sh build-web
node tests/web/engine-parity.js
(cd tests/web && npm ci --no-audit --no-fund --loglevel=error)
node tests/web/page-test.js
node tests/web/bench.js build/rlsim build-web/rlsim-engine.js 200000 1
phase "the page: WebAssembly build, parity with the CLI, headless Chromium"
# Every committed report (reports/*/report.html and the sweeps' sweep.html, regenerated above) in
# the same Chromium at 1280x720: nothing overflows the page, every table fits its box, every
# chart's text stays inside it, at most 8 series a chart with distinct legend entries.
node tests/web/report-test.js
phase "the reports in headless Chromium: no overflow, legible charts"
# Static analysis (the committed .clang-tidy; a file whose inputs are unchanged since it last passed
# is not analysed again, tests/tidy.sh).
tests/tidy.sh
phase "clang-tidy"
conformance_failed=0
wait "$server_conformance" || conformance_failed=1
wait "$cluster_conformance" || conformance_failed=1
cat "$conformance_logs/server" "$conformance_logs/cluster"
if [ "$conformance_failed" -ne 0 ]; then
  echo "conformance found differences or could not run: see its output above" >&2
  exit 1
fi
phase "the rest of the conformance runs against redis-server and the cluster"
# The fuzz targets' committed corpus was replayed under ASan + UBSan by ctest (fuzz_corpus_*).
# Searching for new inputs needs the clang libFuzzer build of src/ (about 500 CPU-s): on request,
# RLSIM_FUZZ_SECONDS=N fuzzes each target for N seconds (tests/fuzz/run.sh).
if [ "$fuzz_seconds" -gt 0 ]; then
  tests/fuzz/run.sh "$fuzz_seconds"
  phase "fuzzing"
fi
echo "all tests passed in $((SECONDS - suite_start)) s"
