#!/usr/bin/env bash
# Installs rlsim's dependencies (Debian 12 packages) when any is missing.
# Usage: tests/install-deps.sh [--build]
#   --build: only what building and running the rlsim program needs (the README's first command):
#            the compiler, CMake and the libraries (Lua 5.1 with cjson and bit, the Lua libraries
#            Redis embeds; yaml-cpp for `rlsim import`).
#   default: that, and what the test suite needs: Catch2, python3 (tests/check-includes.py),
#            redis-server for the real-Redis tests, GNU parallel for the sharded sweep test,
#            prometheus (promtool) to load the OpenMetrics export, jq to read the decision trace,
#            chromium and xmllint for the HTML report test, nginx-light and haproxy for the products'
#            validation (tests/real-products.sh) with wrk and hey as load generators,
#            clang-format for the format check, clang (libFuzzer) and clang-tidy; for tests/package.sh
#            dpkg-dev and file (cpack's dpkg-shlibdeps), man-db, groff-base and bsdextrautils (the
#            manual page), bash-completion; tmux for the live view's pseudo-terminal test
#            (tests/live-terminal.sh).
set -euo pipefail
packages=(cmake make g++ pkg-config libcli11-dev libfmt-dev libasio-dev libhiredis-dev nlohmann-json3-dev
  liblua5.1-0-dev lua-cjson-dev lua-bitop-dev libyaml-cpp-dev)
if [ "${1:-}" != "--build" ]; then
  packages+=(catch2 python3 jq redis-server redis-tools parallel prometheus
    chromium libxml2-utils nginx-light haproxy wrk hey clang-format clang clang-tidy libclang-rt-14-dev
    dpkg-dev file man-db groff-base bsdextrautils bash-completion tmux)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
