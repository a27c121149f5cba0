#!/usr/bin/env bash
# clang-tidy over every source file in src/ with the committed .clang-tidy (warnings are errors).
# Uses a clang configuration of its own (build-tidy/) only for compile_commands.json; nothing is
# built. Usage: tests/tidy.sh [files...]  (default: src/*/*.cpp)
set -euo pipefail
cd "$(dirname "$0")/.."
CXX=clang++ cmake -S . -B build-tidy -DRLSIM_TESTS=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
if [ $# -eq 0 ]; then set -- src/*/*.cpp; fi
printf '%s\n' "$@" | xargs -P"$(nproc)" -n4 clang-tidy -p build-tidy --quiet
echo "clang-tidy clean"
