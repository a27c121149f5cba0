#!/usr/bin/env python3
"""The docs check: every list the docs claim is complete names everything the program has.

- every strategy of `rlsim list` in docs/scenario-format.md's `strategies[].name` row and as a
  heading of docs/strategies.md or docs/products.md (the README: "every strategy");
- every scenario of scenarios/*.json in the README's scenario table ("| scenario | what you see |");
- every subcommand of `rlsim --help` in a heading of docs/cli.md (`## \\`rlsim NAME\\``) and in the
  README's "Commands and exit codes";
- every file under src/ in docs/architecture.md's table of its folder ("**`src/FOLDER`**" up to the
  next folder or section), by its path inside the folder.

Usage: tests/check-docs.py RLSIM_BINARY [ROOT]          (ROOT: the repository, default ..)
       tests/check-docs.py --self-test RLSIM_BINARY [ROOT]
The self-test copies the docs into a temporary folder, removes one entry of each kind in turn and
requires the check to fail naming it: a check that cannot fail proves nothing.
Exit 0 when complete; 1 with one line per missing entry.
"""
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile


def program_strategies(rlsim):
    out = subprocess.run([rlsim, "list"], check=True, capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def program_subcommands(rlsim):
    out = subprocess.run([rlsim, "--help"], check=True, capture_output=True, text=True).stdout
    names, inside = [], False
    for line in out.splitlines():
        if re.match(r"^SUBCOMMANDS:?\s*$", line, re.IGNORECASE):
            inside = True
        elif inside and not line.strip():
            if names:
                break
        elif inside and re.match(r"^\s+[a-z][a-z-]*(\s|$)", line):
            names.append(line.split()[0])
        elif inside and not line.startswith(" "):
            break
    if not names:
        sys.exit(f"check-docs: no subcommands found in `{rlsim} --help`")
    return names


def section(text, start_pattern, end_pattern):
    """The text from the first line matching start_pattern to the next matching end_pattern."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.search(start_pattern, line):
            out = [line]
            for rest in lines[i + 1:]:
                if re.search(end_pattern, rest):
                    break
                out.append(rest)
            return "\n".join(out)
    return ""


def check(rlsim, root):
    root = pathlib.Path(root)
    missing = []
    read = lambda name: (root / name).read_text(encoding="utf-8")

    scenario_format, readme = read("docs/scenario-format.md"), read("README.md")
    name_row = next((line for line in scenario_format.splitlines()
                     if line.startswith("| `name` | string | required | a strategy")), "")
    headings = "\n".join(line for doc in ("docs/strategies.md", "docs/products.md")
                         for line in read(doc).splitlines() if line.startswith("#"))
    for name in program_strategies(rlsim):
        if f"`{name}`" not in name_row:
            missing.append(f"strategy {name}: not in docs/scenario-format.md's strategies[].name row")
        if f"`{name}`" not in headings:
            missing.append(f"strategy {name}: no heading in docs/strategies.md or docs/products.md")

    table = section(readme, r"^\| scenario \| what you see \|", r"^(?!\|)")
    for path in sorted((root / "scenarios").glob("*.json")):
        if f"`{path.name}`" not in table:
            missing.append(f"scenario {path.name}: not in the README's scenario table")

    cli, commands = read("docs/cli.md"), section(readme, r"^## Commands and exit codes", r"^## ")
    for name in program_subcommands(rlsim):
        if not re.search(rf"^#+ .*`rlsim {re.escape(name)}[` ]", cli, re.MULTILINE):
            missing.append(f"subcommand {name}: no heading with `rlsim {name}` in docs/cli.md")
        if f"`rlsim {name}" not in commands:
            missing.append(f"subcommand {name}: not in the README's \"Commands and exit codes\"")

    architecture = read("docs/architecture.md")
    for path in sorted(p for p in (root / "src").rglob("*") if p.is_file()):
        folder, inside = path.relative_to(root / "src").parts[0], path.relative_to(root / "src")
        inside = "/".join(inside.parts[1:])
        table = section(architecture, rf"^\*\*`src/{folder}`\*\*", r"^(\*\*`src/|## )")
        if not table:
            missing.append(f"src/{folder}: no \"**`src/{folder}`**\" section in docs/architecture.md")
        elif f"`{inside}`" not in table:
            missing.append(f"src/{folder}/{inside}: not in docs/architecture.md's src/{folder} table")
    return sorted(set(missing))


def self_test(rlsim, root):
    """Each kind of entry removed in turn from a copy: the check must fail and name it."""
    root = pathlib.Path(root)
    cases = [
        ("docs/scenario-format.md", "`redis_gcra`, ", "strategy redis_gcra"),
        ("README.md", "| `overshoot-10x.json` |", "scenario overshoot-10x.json"),
        ("docs/cli.md", "## `rlsim validate`", "subcommand validate"),
        ("docs/architecture.md", "| `svg_chart.h`, `svg_chart.cpp` |", "src/report/svg_chart.cpp"),
    ]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        copy = pathlib.Path(tmp) / "repo"
        for part in ("docs", "scenarios", "src"):
            shutil.copytree(root / part, copy / part)
        shutil.copy(root / "README.md", copy / "README.md")
        if check(rlsim, copy):
            print("self-test: the unchanged copy already fails the check")
            return 1
        for doc, needle, expected in cases:
            original = (copy / doc).read_text(encoding="utf-8")
            if needle not in original:
                print(f"self-test: {doc} no longer contains {needle!r}; update the case")
                failures += 1
                continue
            (copy / doc).write_text(original.replace(needle, "", 1), encoding="utf-8")
            found = [m for m in check(rlsim, copy) if m.startswith(expected)]
            print(f"{'ok' if found else 'FAIL'}: without {needle!r} in {doc}: "
                  f"{found[0] if found else 'the check passed'}")
            failures += not found
            (copy / doc).write_text(original, encoding="utf-8")
    return 1 if failures else 0


def main(argv):
    if argv and argv[0] == "--self-test":
        rlsim, root = argv[1], argv[2] if len(argv) > 2 else pathlib.Path(__file__).parent.parent
        return self_test(rlsim, root)
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    rlsim, root = argv[0], argv[1] if len(argv) > 1 else pathlib.Path(__file__).parent.parent
    missing = check(rlsim, root)
    for line in missing:
        print(line)
    if missing:
        print(f"check-docs: {len(missing)} entries missing from lists the docs claim complete")
        return 1
    print("check-docs: every strategy, scenario, subcommand and source file is in the docs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
