#!/usr/bin/env python3
"""Every tests/test_<unit>.cpp but test_main.cpp wraps its code in `namespace rlsim_test_<unit>`.

The suite compiles the test files as a unity build, several files to a translation unit
(tests/CMakeLists.txt): without its own namespace, a helper that two files both define (`ms`,
`kScenarios`) clashes, or a call resolves to the other file's overload. Exit 1 naming the files
that lack it.
"""
import pathlib
import sys

tests = pathlib.Path(__file__).resolve().parent
missing = []
for path in sorted(tests.glob("test_*.cpp")):
    if path.name == "test_main.cpp":
        continue
    namespace = f"namespace rlsim_{path.stem} {{"
    closing = f"}}  // namespace rlsim_{path.stem}"
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if namespace not in lines or lines[-1] != closing:
        missing.append(f"{path.name}: wrap all the code after the includes in `{namespace}` ... "
                       f"`{closing}` (the file's last line)")
for line in missing:
    print(f"tests/{line}", file=sys.stderr)
sys.exit(1 if missing else 0)
