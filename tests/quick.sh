#!/usr/bin/env bash
# The contributors' inner loop (tests/README.md#the-inner-loop): an incremental release build of
# rlsim and the tests in build-quick/ (through ccache when it is installed), clang-format on the C++
# files changed since HEAD, and every test program but those that need servers or outside tools
# (CTest labels `real` and `external`; set RLSIM_REDIS_PORT to include the real-Redis ones).
# Measured after a one-line change in a strategy: docs/performance.md#the-test-suite.
# Usage: tests/quick.sh [ctest options...]   e.g. tests/quick.sh -R strategy_kong
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# Configuring again is quick, and picks up a new test or source file (the globs).
cmake -S . -B build-quick -DRLSIM_WERROR=ON -DRLSIM_TESTS=ON -DRLSIM_UNITY=OFF "${launcher[@]}" >/dev/null
cmake --build build-quick -j"$jobs"
mapfile -t changed < <(git diff --name-only --diff-filter=d HEAD -- 'src/*.cpp' 'src/*.h' 'tests/*.cpp' 'tests/*.h')
if [ ${#changed[@]} -gt 0 ]; then clang-format --dry-run --Werror "${changed[@]}"; fi
exclude='real|external'
if [ -n "${RLSIM_REDIS_PORT:-}" ]; then exclude='external'; fi
ctest --test-dir build-quick -j"$jobs" --output-on-failure -LE "$exclude" "$@"
