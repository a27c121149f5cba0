#!/usr/bin/env python3
"""clang-tidy over src/ with the committed .clang-tidy, skipping files whose inputs are unchanged
since they last passed.

A file's result depends on its inputs: the text of the file and of every header of the repository
it includes, the system headers it includes (by path), its compile flags, .clang-tidy and the
clang-tidy version. tests/tidy-clean.txt records a hash of those inputs for every file that passed;
a file whose hash is recorded is not analysed again. Any change to one of rlsim's headers
re-analyses every file that includes it; a new clang-tidy, a changed flag or a different set of
system headers re-analyses everything. A system header's text is not hashed: the checks in
.clang-tidy look at rlsim's code, and a Debian point release of libfmt or nlohmann-json that
changes a header's text would otherwise make a fresh machine analyse all files again (13 minutes
of the suite's time budget, docs/performance.md#the-test-suite). The record is rewritten after a
clean run (commit it with your change so CI skips what you already analysed).

Usage: tests/tidy.py BUILD_TIDY_DIR [--all] [files...]   (tests/tidy.sh calls it)
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECORD = os.path.join(ROOT, "tests", "tidy-clean.txt")


def relative(path):
    """Paths inside the repository relative to it, so clones in other folders share the record."""
    path = os.path.normpath(path)
    return os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path


def compile_args(entry):
    args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    # Drop the output and the source; keep the flags that change what clang-tidy sees.
    kept, skip = [], False
    for arg in args[1:]:
        if skip:
            skip = False
            continue
        if arg in ("-o", "-c"):
            skip = arg == "-o"
            continue
        if os.path.normpath(arg) == os.path.normpath(entry["file"]):
            continue
        # The amount of debug information changes nothing clang-tidy sees.
        if arg.startswith("-g"):
            continue
        kept.append(arg)
    return args[0], kept


def input_hash(entry, common):
    compiler, flags = compile_args(entry)
    deps = subprocess.run([compiler, *flags, "-M", "-MT", "x", entry["file"]], check=True,
                          capture_output=True, text=True, cwd=entry["directory"]).stdout
    paths = {relative(os.path.join(entry["directory"], p)): os.path.join(entry["directory"], p)
             for p in deps.replace("\\\n", " ").split()[1:]}
    digest = hashlib.sha256(common)
    digest.update(" ".join(f.replace(ROOT, ".") for f in flags).encode())
    for name in sorted(paths):
        digest.update(name.encode() + b"\0")
        if os.path.isabs(name):  # a system header: its path only (see the module's comment)
            continue
        with open(paths[name], "rb") as dep:
            digest.update(hashlib.sha256(dep.read()).digest())
    return digest.hexdigest()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--all", action="store_true", help="ignore the record: analyse every file")
    parser.add_argument("files", nargs="*")
    options = parser.parse_args()
    with open(os.path.join(options.build_dir, "compile_commands.json")) as f:
        entries = {relative(e["file"]): e for e in json.load(f)}
    files = [relative(os.path.abspath(f)) for f in options.files] or sorted(
        f for f in entries if f.startswith("src/"))
    missing = [f for f in files if f not in entries]
    if missing:
        sys.exit(f"tidy: not in {options.build_dir}/compile_commands.json: {' '.join(missing)}")

    version = subprocess.run(["clang-tidy", "--version"], check=True, capture_output=True).stdout
    with open(os.path.join(ROOT, ".clang-tidy"), "rb") as config:
        common = version + config.read()
    record = {}
    if os.path.exists(RECORD):
        with open(RECORD) as f:
            for line in f:
                key, _, name = line.strip().partition("  ")
                record[name] = key

    jobs = os.cpu_count() or 1
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        hashes = dict(zip(files, pool.map(lambda f: input_hash(entries[f], common), files)))
    todo = [f for f in files if options.all or record.get(f) != hashes[f]]
    print(f"clang-tidy: {len(todo)} of {len(files)} files to analyse "
          f"({len(files) - len(todo)} unchanged since they passed, tests/tidy-clean.txt)", flush=True)

    def tidy(name):
        run = subprocess.run(["clang-tidy", "-p", options.build_dir, "--quiet", entries[name]["file"]],
                             capture_output=True, text=True)
        return name, run.returncode, run.stdout + run.stderr

    failed = []
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for name, status, output in pool.map(tidy, todo):
            if status != 0:
                failed.append(name)
                # clang-tidy's own count of suppressed warnings is noise; its findings are not.
                print("\n".join(l for l in output.splitlines() if "warnings generated" not in l
                                and "Suppressed" not in l and "Use -header-filter" not in l),
                      flush=True)
            else:
                record[name] = hashes[name]
    known = set(entries)
    with open(RECORD, "w") as f:
        for name in sorted(n for n in record if n in known):
            f.write(f"{record[name]}  {name}\n")
    if failed:
        sys.exit(f"clang-tidy: {len(failed)} file(s) with findings: {' '.join(failed)}")
    print("clang-tidy clean")


if __name__ == "__main__":
    main()
