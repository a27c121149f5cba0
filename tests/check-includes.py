#!/usr/bin/env python3
"""Fails when files of src/ include each other in a cycle.

A module is a header and its source file (src/engine/run.h with src/engine/run.cpp): module A depends on
module B when any file of A includes B's header. A cycle between modules (A includes B, B includes
A, possibly through others) is reported with its path, and the script exits 1. It also checks the
layer order of docs/architecture.md: a folder may include only itself and the folders below it.
"""
import os
import re
import sys

# Each folder of src/ and the folders it may include (CMakeLists.txt's DEPS, transitively).
LAYERS = {
    "core": set(),
    "logs": {"core"},
    "scenario": {"core", "logs"},
    "redis": {"core"},
    "world": {"core", "logs", "scenario", "redis"},
    "strategy": {"core", "logs", "scenario", "redis", "world"},
    "oracle": {"core", "logs", "scenario", "world", "redis"},
    "report": {"core", "logs", "scenario", "world", "redis", "oracle"},
    "engine": {"core", "logs", "scenario", "redis", "world", "strategy", "oracle", "report"},
    "real": {"core", "logs", "scenario", "redis", "world", "strategy", "oracle", "report", "engine"},
    "import": {"core", "logs", "scenario"},
    "search": {"core", "logs", "scenario", "redis", "world", "strategy", "oracle", "report",
               "engine"},
    "app": {"core", "logs", "scenario", "redis", "world", "strategy", "oracle", "report", "engine",
            "real", "import", "search"},
    "web": {"core", "logs", "scenario", "redis", "world", "strategy", "oracle", "report", "engine"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main() -> int:
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "src")
    modules: dict[str, set[str]] = {}
    problems: list[str] = []
    for folder, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith((".h", ".cpp")):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            module = os.path.splitext(rel)[0]
            layer = rel.split(os.sep)[0]
            deps = modules.setdefault(module, set())
            with open(path, encoding="utf-8") as source:
                for target in INCLUDE.findall(source.read()):
                    target_module = os.path.splitext(target)[0]
                    if not os.path.exists(os.path.join(root, target)):
                        continue
                    target_layer = target.split("/")[0]
                    if target_layer != layer and target_layer not in LAYERS.get(layer, set()):
                        problems.append(f"src/{rel} includes {target}: layer {layer} may not use {target_layer}")
                    if target_module != module:
                        deps.add(target_module)
    # Tarjan's strongly connected components: any component of two or more modules is a cycle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    counter = [0]
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(modules.get(node, ())):
            if nxt not in modules:
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    sys.setrecursionlimit(10000)
    for module in sorted(modules):
        if module not in index:
            visit(module)
    for component in components:
        members = set(component)
        pairs = [f"{a} -> {b}" for a in component for b in sorted(modules[a]) if b in members]
        problems.append("include cycle between " + ", ".join(component) + " (" + "; ".join(pairs) + ")")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    print(f"check-includes: {len(modules)} modules, no include cycle, layers respected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
