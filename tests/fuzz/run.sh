#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan + coverage); each first replays every input
# of its committed corpus in tests/fuzz/corpus/ (the regression part: inputs that once found a
# bug or new coverage), then mutates new ones for a bounded time. Any crash, leak, undefined
# behaviour, uncaught exception or input slower than 10 s fails the run; the input that did it is
# kept as build-fuzz/crash-* for reproduction (`build-fuzz/tests/fuzz/fuzz_X build-fuzz/crash-...`).
# To grow the corpus after a longer run, add the inputs that libFuzzer reports as new coverage
# (`-merge=1`, docs/hardening.md).
# Usage: tests/fuzz/run.sh [seconds per target, default 15]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-15}
CXX=clang++ cmake -S . -B build-fuzz -DRLSIM_FUZZ=ON -DRLSIM_TESTS=OFF -DRLSIM_WERROR=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target fuzz_scenario fuzz_redis fuzz_logs
for target in scenario redis logs; do
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
