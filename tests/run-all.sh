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
tests/install-deps.sh
phase "install the Debian packages"

# Formatting is part of the build: the committed .clang-format, applied.
clang-format --dry-run --Werror src/*/*.h src/*/*.cpp tests/*.cpp tests/*.h tests/fuzz/*.cpp
# No include cycle between modules of src/, and each layer includes only the layers below it.
python3 tests/check-includes.py
phase "format and include checks"

jobs=$(nproc)
cmake -S . -B build -DRLSIM_WERROR=ON -DRLSIM_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$jobs"
phase "release build (-Werror)"
cmake -S . -B build-asan -DRLSIM_WERROR=ON -DRLSIM_TESTS=ON -DRLSIM_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
cmake --build build-asan -j"$jobs"
phase "ASan + UBSan build with the tests (-Werror)"

redis_port=${RLSIM_TEST_REDIS_PORT:-6391}
redis_dir=$(mktemp -d)
cluster_dir=$(mktemp -d)  # a 3-master Redis Cluster for the real-cluster tests (ports 7101-7103)
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$redis_dir" \
  --daemonize yes --pidfile "$redis_dir/redis.pid" --logfile "$redis_dir/redis.log"
stop_redis() {
  redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
  tests/redis-cluster.sh stop "$cluster_dir" || true
  rm -rf "$redis_dir"
}
trap stop_redis EXIT
for _ in $(seq 50); do
  redis-cli -p "$redis_port" ping 2>/dev/null | grep -q PONG && break
  sleep 0.1
done
export RLSIM_REDIS_PORT="$redis_port"
RLSIM_REDIS_CLUSTER=$(tests/redis-cluster.sh start "$cluster_dir")
export RLSIM_REDIS_CLUSTER
# Under the test command a real-Redis test whose server is missing fails instead of skipping
# (tests/real_redis_env.h): the suite cannot pass without having run them.
export RLSIM_REQUIRE_REAL_REDIS=1

phase "start redis-server and the cluster"

# Every test program (unit, scenario, real-Redis, real-cluster, headless Chromium, promtool, GNU
# parallel) under ASan + UBSan; test_cli runs `rlsim check` on every bundled scenario there.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"
phase "ctest under ASan + UBSan"
# Every bundled scenario's headline claims, each strategy run twice to prove determinism (the
# release program, in two processes).
printf '%s\n' scenarios/*.json | xargs -n 16 -P "$jobs" build/rlsim check --check-determinism
phase "rlsim check --check-determinism"
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
# The embedded Redis against the real one: a corpus of replies, then every bundled scenario's
# decisions on both backends (docs/real-redis.md), and the same against the cluster (keys routed by
# slot over three masters, compared with the embedded cluster of the same slot map; each scenario cut
# to 30 s of virtual time). Any difference fails. The two run side by side: each spends much of its
# time waiting on its servers' replies (394 s one after the other, 284 s together).
conformance_logs=$(mktemp -d)
build/rlsim conformance --redis "redis://127.0.0.1:$redis_port" scenarios/*.json \
  >"$conformance_logs/server" 2>&1 &
server_run=$!
build/rlsim conformance --redis-cluster "$RLSIM_REDIS_CLUSTER" scenarios/*.json --max-duration 30s \
  >"$conformance_logs/cluster" 2>&1 &
cluster_run=$!
conformance_failed=0
wait "$server_run" || conformance_failed=1
wait "$cluster_run" || conformance_failed=1
cat "$conformance_logs/server" "$conformance_logs/cluster"
rm -rf "$conformance_logs"
if [ "$conformance_failed" -ne 0 ]; then
  echo "conformance found differences or could not run: see its output above" >&2
  exit 1
fi
phase "conformance against redis-server and the cluster"
# Static analysis (the committed .clang-tidy; a file whose inputs are unchanged since it last passed
# is not analysed again, tests/tidy.sh).
tests/tidy.sh
phase "clang-tidy"
# The fuzz targets' committed corpus was replayed under ASan + UBSan by ctest (fuzz_corpus_*).
# Searching for new inputs needs the clang libFuzzer build of src/ (about 500 CPU-s): on request,
# RLSIM_FUZZ_SECONDS=N fuzzes each target for N seconds (tests/fuzz/run.sh).
if [ "${RLSIM_FUZZ_SECONDS:-0}" -gt 0 ]; then
  tests/fuzz/run.sh "$RLSIM_FUZZ_SECONDS"
  phase "fuzzing"
fi
echo "all tests passed in $((SECONDS - suite_start)) s"
