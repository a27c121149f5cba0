#!/usr/bin/env bash
# The whole test suite from a fresh Debian 12 machine: installs what is missing, builds rlsim with
# warnings as errors, builds the tests again under ASan + UBSan, starts a private redis-server on
# a loopback port for the real-Redis tests, runs everything through CTest, and stops the server.
set -euo pipefail
cd "$(dirname "$0")/.."
tests/install-deps.sh

# Formatting is part of the build: the committed .clang-format, applied.
clang-format --dry-run --Werror src/*/*.h src/*/*.cpp tests/*.cpp tests/*.h tests/fuzz/*.cpp
# No include cycle between modules of src/, and each layer includes only the layers below it.
python3 tests/check-includes.py

jobs=$(nproc)
cmake -S . -B build -DRLSIM_WERROR=ON -DRLSIM_TESTS=ON
cmake --build build -j"$jobs"
cmake -S . -B build-asan -DRLSIM_WERROR=ON -DRLSIM_TESTS=ON -DRLSIM_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
cmake --build build-asan -j"$jobs"

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

ctest --test-dir build --output-on-failure -j"$jobs"
# Every bundled scenario's headline claims, each run twice to prove determinism.
build/rlsim check scenarios/*.json --check-determinism
# The committed reports are what this binary generates (a determinism and regression check in one).
tests/regen-reports.sh build/rlsim
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git diff --exit-code --stat -- reports/ docs/products.md &&
    [ -z "$(git status --porcelain -- reports/ docs/products.md)" ] ||
    { echo "reports/ or docs/products.md's table differs from what tests/regen-reports.sh generates: commit them" >&2; exit 1; }
fi
# Installs like a Debian tool: `cmake --install` into a temporary prefix, the .deb that cpack builds
# installed with apt-get and run from /usr/share/rlsim, `man rlsim`, bash completion; then removed.
tests/package.sh build
# The embedded Redis against the real one: a corpus of replies, then every bundled scenario's
# decisions on both backends (docs/real-redis.md). Any difference fails.
build/rlsim conformance --redis "redis://127.0.0.1:$redis_port" scenarios/*.json
# The same against the cluster (keys routed by slot over three masters, compared with the embedded
# cluster of the same slot map): every bundled scenario, each cut to 30 s of virtual time (~1.5 min).
build/rlsim conformance --redis-cluster "$RLSIM_REDIS_CLUSTER" scenarios/*.json --max-duration 30s
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build-asan --output-on-failure -j"$jobs"
# Static analysis (the committed .clang-tidy) and bounded fuzzing of the scenario parser and the
# embedded Redis + Lua layer (tests/fuzz/).
tests/tidy.sh
tests/fuzz/run.sh "${RLSIM_FUZZ_SECONDS:-60}"
echo "all tests passed"
