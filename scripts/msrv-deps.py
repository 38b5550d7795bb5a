#!/usr/bin/env python3
"""Fails when a dependency of a published crate declares a newer `rust-version` than ours.

clippy's `incompatible_msrv` checks our own use of std against the workspace's `rust-version`;
this checks what our users compile with us: every crate reachable from a published crate
(`publish` not false) through normal and build dependencies, with every feature on, on any
target but `cfg(loom)`, as `Cargo.lock` resolves them. A crate that declares no `rust-version` cannot be checked and is listed.

Usage: python3 scripts/msrv-deps.py
"""

import json
import subprocess
import sys


def version_tuple(text):
    """`1.85` and `1.85.0` alike: three parts."""
    parts = [int(part) for part in text.split(".")]
    return tuple((parts + [0, 0, 0])[:3])


def main():
    result = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked", "--all-features"],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        sys.exit(f"msrv-deps: cargo metadata failed: nothing was checked\n{result.stderr}")
    metadata = json.loads(result.stdout)
    packages = {p["id"]: p for p in metadata["packages"]}
    nodes = {n["id"]: n for n in metadata["resolve"]["nodes"]}
    members = set(metadata["workspace_members"])
    published = [
        packages[m] for m in members if packages[m].get("publish") is None
    ]
    if not published:
        sys.exit("msrv-deps: no published crate in the workspace: nothing was checked")

    failures = []
    unchecked = set()
    checked = set()
    for crate in sorted(published, key=lambda p: p["name"]):
        ours = crate.get("rust_version")
        if ours is None:
            failures.append(f"{crate['name']} declares no rust-version")
            continue
        # Dev-dependencies are not compiled by a user.
        seen = set()
        stack = [crate["id"]]
        while stack:
            node = nodes[stack.pop()]
            for dep in node["deps"]:
                # Normal and build edges, but not the loom model checker's (`cfg(loom)`,
                # which only our own CI sets).
                if not any(
                    k["kind"] in (None, "build") and k.get("target") != "cfg(loom)"
                    for k in dep["dep_kinds"]
                ):
                    continue
                if dep["pkg"] in seen:
                    continue
                seen.add(dep["pkg"])
                stack.append(dep["pkg"])
        for pkg_id in seen:
            dep = packages[pkg_id]
            theirs = dep.get("rust_version")
            label = f"{dep['name']} {dep['version']}"
            if theirs is None:
                unchecked.add(label)
                continue
            checked.add(label)
            if version_tuple(theirs) > version_tuple(ours):
                failures.append(
                    f"{crate['name']} (rust-version {ours}) depends on {label}, "
                    f"which needs Rust {theirs}"
                )
        print(f"msrv-deps: {crate['name']}: {len(seen)} dependencies, rust-version {ours}")

    if not checked:
        sys.exit("msrv-deps: no dependency declared a rust-version: nothing was checked")
    if unchecked:
        print(
            f"msrv-deps: {len(unchecked)} dependencies declare no rust-version: "
            + ", ".join(sorted(unchecked))
        )
    if failures:
        print("\n".join(f"FAIL: {f}" for f in sorted(set(failures))))
        sys.exit(1)
    print(f"msrv-deps: {len(checked)} dependencies with a rust-version, none newer than ours")


if __name__ == "__main__":
    main()
