#!/usr/bin/env bash
# clang-tidy over every source file in src/ with the committed .clang-tidy (warnings are errors).
# Uses a clang configuration of its own (build-tidy/) only for compile_commands.json; nothing is
# built. A file whose inputs (its text, every header it includes, its flags, .clang-tidy, the
# clang-tidy version) are unchanged since it last passed is skipped: tests/tidy-clean.txt records
# them (tests/tidy.py). Commit the record with your change.
# Usage: tests/tidy.sh [--all] [files...]  (default: src/*/*.cpp; --all ignores the record)
set -euo pipefail
cd "$(dirname "$0")/.."
CXX=clang++ cmake -S . -B build-tidy -DRLSIM_TESTS=OFF -DRLSIM_UNITY=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
exec python3 tests/tidy.py build-tidy "$@"
