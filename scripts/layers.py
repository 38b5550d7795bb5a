#!/usr/bin/env python3
"""limiter-core's layers, checked from its sources.

Each folder (or top-level file) of limiter-core/src is a layer; a file may use only its own
layer and those below it:

    config, num  <  time  <  signal  <  controller  <  gate  <  limiter  <  policy

Inside the crate, items are named by their module path (`crate::time::clock::Instant`), never
through the root's re-exports, so the rule can be read from the sources. Across files, the
`use` graph (re-exports and test modules aside) has no cycle. Exits non-zero, naming each
violation, if either rule is broken or if it found nothing to check.
"""
import os
import re
import sys

SRC = os.path.join(os.path.dirname(__file__), "..", "limiter-core", "src")
LAYERS = {"config": 0, "num": 0, "time": 1, "signal": 2, "controller": 3, "gate": 4,
          "limiter": 5, "policy": 6}


def module_of(path):
    rel = os.path.relpath(path, SRC)[:-3].split(os.sep)
    return rel[:-1] if rel[-1] == "mod" else rel


def code_lines(text):
    """Lines of code outside comments and outside `#[cfg(test)]` modules."""
    out, skipping, depth = [], False, 0
    lines = text.split("\n")
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not skipping and stripped == "#[cfg(test)]" and i + 1 < len(lines) \
                and lines[i + 1].strip().startswith("mod "):
            skipping, depth = True, 0
            continue
        if skipping:
            depth += line.count("{") - line.count("}")
            if depth <= 0 and "}" in line:
                skipping = False
            continue
        if stripped.startswith("//"):
            continue
        out.append((i + 1, line.split("//")[0]))
    return out


def main():
    files = []
    for root, _, names in os.walk(SRC):
        files += [os.path.join(root, n) for n in names if n.endswith(".rs")]
    modules = {tuple(module_of(f)): f for f in files}
    problems, edges, checked = [], {}, 0
    for path in sorted(files):
        module = module_of(path)
        if module == ["lib"]:
            continue
        layer = LAYERS.get(module[0])
        if layer is None:
            problems.append(f"{path}: `{module[0]}` is in no layer")
            continue
        text = open(path, encoding="utf-8").read()
        # `use` statements joined onto one line, so a path split over lines is read whole.
        joined = re.sub(r"use\s+crate::\{([^;]*)\};", lambda m: "use crate::{" +
                        re.sub(r"\s+", " ", m.group(1)) + "};", text)
        for number, line in code_lines(joined):
            if line.lstrip().startswith(("pub use", "pub(crate) use", "mod ", "pub(crate) mod",
                                         "pub mod")):
                continue
            for used in re.findall(r"crate((?:::[A-Za-z_][A-Za-z0-9_]*)+)", line):
                segments = used.strip(":").split("::")
                checked += 1
                top = segments[0]
                if top not in LAYERS:
                    problems.append(f"{path}:{number}: `crate::{top}` names an item through "
                                    "the root, not its module")
                    continue
                if LAYERS[top] > layer:
                    problems.append(f"{path}:{number}: `{module[0]}` uses `{top}`, a layer "
                                    "above it")
                # The file it reaches: the deepest module of the path that is a file.
                target = None
                for n in range(len(segments), 0, -1):
                    if tuple(segments[:n]) in modules:
                        target = modules[tuple(segments[:n])]
                        break
                if target and target != path:
                    edges.setdefault(path, set()).add(target)
            for used in re.findall(r"\bsuper::([A-Za-z_][A-Za-z0-9_]*)", line):
                parent = module[:-1] if os.path.basename(path) != "mod.rs" else module[:-1]
                sibling = tuple(parent + [used])
                target = modules.get(sibling) or modules.get(tuple(parent))
                if target and target != path:
                    edges.setdefault(path, set()).add(target)
    # Cycles, by depth-first search.
    state = {}

    def visit(node, stack):
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                problems.append("import cycle: " + " -> ".join(
                    os.path.relpath(c, SRC) for c in cycle))
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    if checked == 0:
        problems.append("no `crate::` path found: nothing was checked")
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"limiter-core: {checked} crate paths in {len(files)} files, in {len(LAYERS)} layers "
          "and without import cycles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
