#!/usr/bin/env bash
# Installs rlsim as a user would and checks the result (docs/cli.md#installing):
#  1. `cmake --install` into a temporary prefix: the program in bin, the bundled scenarios with
#     their Lua scripts in share/rlsim, the documents in share/doc/rlsim, the manual page and the
#     bash completion; the installed program runs a scenario from another directory, and the
#     manual page lists every subcommand and option of --help and every exit code.
#  2. `cpack -G DEB`: the package's Depends (dpkg-shlibdeps) cover every library the binary loads.
#  3. `apt-get install ./rlsim_*.deb` (a real dpkg install), then `rlsim run
#     /usr/share/rlsim/scenarios/autoscale.json --out "$(mktemp -d)"` from an empty directory,
#     `man rlsim`, and bash completion of `rlsim ru<TAB>`, options and scenario files; the package
#     is removed at the end (also on failure). Needs root or sudo.
# Usage: tests/package.sh BUILD_DIR   (a configured build directory in which rlsim is built)
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: tests/package.sh BUILD_DIR}" && pwd)
work=$(mktemp -d)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
installed_by_us=0
cleanup() {
  if [ "$installed_by_us" -eq 1 ]; then
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq rlsim >/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "package: $*" >&2
  exit 1
}

# The completion of the words "$@" (the last one being completed) by the function that
# `complete -p rlsim` names, after loading the script the way bash-completion does.
complete_words() {  # SCRIPT_SETUP WORD...
  local setup=$1
  shift
  bash -c "$setup"'
    spec=$(complete -p rlsim) || exit 1
    fn=${spec#*-F }; fn=${fn%% *}
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
    "$fn"
    printf "%s\n" "${COMPREPLY[@]}"' rlsim "$@"
}

check_completion() {  # SCRIPT_SETUP SCENARIO_DIR
  local setup=$1 scenarios=$2
  [ "$(complete_words "$setup" rlsim ru)" = run ] || fail "rlsim ru<TAB> does not complete to run"
  complete_words "$setup" rlsim run --se | grep -qx -- --seeds ||
    fail "rlsim run --se<TAB> does not offer --seeds"
  complete_words "$setup" rlsim run "$scenarios/autos" | grep -qx "$scenarios/autoscale.json" ||
    fail "rlsim run $scenarios/autos<TAB> does not complete the scenario file"
  complete_words "$setup" rlsim explain redis_g | grep -qx redis_gcra ||
    fail "rlsim explain redis_g<TAB> does not complete the strategy name"
}

# The manual page against --help: every subcommand, every option name, every exit code.
check_man_page() {  # RLSIM MANPAGE (roff, possibly gzipped)
  local rlsim=$1 page=$2 text warnings
  warnings=$(zcat -f "$page" | groff -man -Tutf8 -ww -z 2>&1) || fail "groff failed on $page"
  [ -z "$warnings" ] || fail "groff warns about $page: $warnings"
  text=$(MANWIDTH=200 man -l "$page" 2>/dev/null | col -b)
  local commands
  commands=$("$rlsim" --help | sed -n '/^Subcommands:/,/^$/p' | awk 'NR > 1 && NF {print $1}')
  [ -n "$commands" ] || fail "no subcommands in rlsim --help"
  for command in $commands; do
    grep -q "^ *rlsim $command" <<<"$text" || fail "the manual page lacks rlsim $command"
    for option in $("$rlsim" "$command" --help | grep -oE '^  -[-a-zA-Z,]+' | tr ',' ' '); do
      grep -qF -- "$option" <<<"$text" || fail "the manual page lacks $command $option"
    done
  done
  for code in 0 1 2 3 4 5 130; do
    grep -qE "^ +$code( |$)" <<<"$text" || fail "the manual page lacks exit code $code"
  done
}

# 1. cmake --install into a prefix.
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/rlsim share/rlsim/scenarios/autoscale.json share/rlsim/scenarios/scripts/fixed_window.lua \
  share/doc/rlsim/README.md share/doc/rlsim/docs/cli.md share/man/man1/rlsim.1.gz \
  share/bash-completion/completions/rlsim; do
  [ -e "$prefix/$f" ] || fail "cmake --install did not install $f"
done
for scenario in "$source_dir"/scenarios/*.json; do
  cmp -s "$scenario" "$prefix/share/rlsim/scenarios/$(basename "$scenario")" ||
    fail "scenario $(basename "$scenario") not installed as in the source"
done
mkdir "$work/elsewhere"
(cd "$work/elsewhere" && "$prefix/bin/rlsim" run "$prefix/share/rlsim/scenarios/custom-script.json" \
  --out "$work/custom" >/dev/null) || fail "the installed rlsim cannot run the installed custom-script"
[ -s "$work/custom/report.json" ] || fail "no report from the installed rlsim"
[ -z "$(ls -A "$work/elsewhere")" ] || fail "rlsim run --out wrote into the current directory"
check_man_page "$prefix/bin/rlsim" "$prefix/share/man/man1/rlsim.1.gz"
check_completion "source $prefix/share/bash-completion/completions/rlsim" "$prefix/share/rlsim/scenarios"
echo "package: cmake --install tree complete; installed rlsim runs; man page and completion ok"

# 2. The Debian package.
(cd "$build" && cpack -G DEB -B "$work/deb" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log" >&2; fail "cpack -G DEB failed"; }
deb=$(ls "$work/deb"/rlsim_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
[ -n "$depends" ] || fail "the package has no Depends"
# Every library the binary loads belongs to a package the Depends name (libc6 covers the loader).
depends_names=$(sed 's/ *([^)]*)//g; s/, */\n/g' <<<"$depends")
for lib in $(ldd "$build/rlsim" | awk '$3 ~ /^\// {print $3}'); do
  owner=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -1 | cut -d: -f1) ||
    owner=$(dpkg -S "$lib" | head -1 | cut -d: -f1)
  grep -qxF "$owner" <<<"$depends_names" || fail "Depends ($depends) lacks $owner ($lib)"
done
echo "package: $(basename "$deb"), Depends: $depends"

# 3. Install it for real, run it as a user would, remove it.
if dpkg-query -W -f='${Status}' rlsim 2>/dev/null | grep -q "install ok installed"; then
  fail "a package rlsim is already installed; remove it first"
fi
cp "$deb" "$work/rlsim.deb"
chmod a+r "$work/rlsim.deb"
installed_by_us=1
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$work/rlsim.deb" >"$work/apt.log" 2>&1 ||
  { cat "$work/apt.log" >&2; fail "apt-get install ./$(basename "$deb") failed"; }
[ "$(command -v rlsim)" = /usr/bin/rlsim ] || fail "the package did not install /usr/bin/rlsim"
out=$(mktemp -d)
(cd "$(mktemp -d)" && rlsim run /usr/share/rlsim/scenarios/autoscale.json --out "$out" >/dev/null) ||
  fail "rlsim run /usr/share/rlsim/scenarios/autoscale.json failed"
[ -s "$out/report.json" ] && [ -s "$out/report.html" ] || fail "no report in $out"
cmp -s "$out/report.json" "$source_dir/reports/autoscale/report.json" ||
  fail "the installed rlsim's autoscale report differs from reports/autoscale/report.json"
rm -rf "$out"
MANWIDTH=100 man rlsim 2>/dev/null | grep -q "rlsim run" || fail "man rlsim does not render"
check_man_page /usr/bin/rlsim "$(man -w rlsim)"
check_completion "source /usr/share/bash-completion/bash_completion; _completion_loader rlsim" \
  /usr/share/rlsim/scenarios
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq rlsim >/dev/null
installed_by_us=0
[ ! -e /usr/bin/rlsim ] || fail "apt-get remove left /usr/bin/rlsim"
echo "package: the .deb installs, runs autoscale from /usr/share/rlsim (report identical to" \
  "reports/autoscale), man rlsim and bash completion work, and it removes cleanly"
