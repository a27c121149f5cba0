#!/usr/bin/env bash
# Builds the page (docs/web.md): the engine compiled to WebAssembly with Debian's emscripten and
# the static files of src/web/page/, into build-web/page/ (open its index.html from the folder, or
# publish the folder on any static host). Installs what is missing: emscripten, and Lua 5.1's
# source package (Debian's deb-src line for bookworm is added when apt has none).
# Usage: src/web/build.sh [BUILD_DIR]   (default: build-web)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-web}
root=$PWD

need=()
for p in emscripten nodejs libfmt-dev nlohmann-json3-dev dpkg-dev cmake make; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

# A Debian source package unpacked with its patches into $build/<folder> (the native build links
# the same versions' binaries).
fetch_source() {
  local package=$1 folder=$2 probe=$3
  [ -f "$build/$folder/$probe" ] && return
  if ! apt-get source --print-uris "$package" >/dev/null 2>&1; then
    echo "adding Debian's source archive (deb-src bookworm) to apt"
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' |
      $SUDO tee /etc/apt/sources.list.d/rlsim-deb-src.sources >/dev/null
    $SUDO apt-get update -qq
  fi
  rm -rf "$build/apt-source" "$build/$folder"
  mkdir -p "$build/apt-source"
  (cd "$build/apt-source" && apt-get source -qq "$package" >/dev/null 2>&1)
  mv "$(find "$build/apt-source" -mindepth 1 -maxdepth 1 -type d | head -1)" "$build/$folder"
  rm -rf "$build/apt-source"
}
fetch_source lua5.1 lua5.1-src src/lapi.c
fetch_source lua-cjson lua-cjson-src lua_cjson.c

# emscripten's JavaScript optimiser finds Debian's acorn only through NODE_PATH.
export NODE_PATH=/usr/share/nodejs
if [ ! -f "$build/CMakeCache.txt" ]; then
  emcmake cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DRLSIM_WERROR=ON \
    -DRLSIM_LUA_SOURCE_DIR="$root/$build/lua5.1-src" \
    -DRLSIM_LUA_CJSON_SOURCE_DIR="$root/$build/lua-cjson-src" >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target rlsim_engine_web

# The page: one self-contained build-web/page/index.html (CSS, script, presets and the engine
# worker inlined; works from file:// offline). src/web/page/assemble.js.
node src/web/page/assemble.js "$build"
