#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan + coverage) and runs each for a bounded
# time from its seed corpus in tests/fuzz/corpus/. Any crash, leak, undefined behaviour, uncaught
# exception or input slower than 10 s fails the run; the input that did it is kept as
# build-fuzz/crash-* for reproduction (`build-fuzz/tests/fuzz/fuzz_X build-fuzz/crash-...`).
# Usage: tests/fuzz/run.sh [seconds per target, default 60]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
CXX=clang++ cmake -S . -B build-fuzz -DRLSIM_FUZZ=ON -DRLSIM_TESTS=OFF -DRLSIM_WERROR=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target fuzz_scenario fuzz_redis
for target in scenario redis; do
  # New inputs go to a scratch folder; the committed corpus is only read.
  scratch=$(mktemp -d)
  echo "fuzzing $target for ${seconds}s"
  status=0
  build-fuzz/tests/fuzz/fuzz_$target "$scratch" "tests/fuzz/corpus/$target" \
    -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix=build-fuzz/ -print_final_stats=1 >build-fuzz/fuzz_$target.log 2>&1 || status=$?
  grep -E "^(stat::number_of_executed_units|SUMMARY)|ERROR|^Done" build-fuzz/fuzz_$target.log || true
  rm -rf "$scratch"
  if [ "$status" -ne 0 ]; then
    echo "fuzz_$target failed (exit $status); see build-fuzz/fuzz_$target.log and build-fuzz/crash-*" >&2
    tail -40 "build-fuzz/fuzz_$target.log" >&2
    exit 1
  fi
done
echo "fuzzing passed"
