#!/usr/bin/env bash
# Every published crate as a user gets it: `cargo package` with verification (each dependent
# built against the packaged limiter-core, through cargo's temporary local registry), then
# `cargo test` inside each unpacked tarball, in dependency order, with the dependents' limiter-core
# patched to the unpacked core. Fails if a crate is missing from the packages or ran no test.
# Usage: bash scripts/package.sh
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
root=$PWD

# In dependency order, each with the features its own test targets need (the workspace's
# self dev-dependencies, which packaging strips, turn them on in the repository).
crates=(
    "limiter-core std,critical-section,http"
    "limiter-tokio tower,http"
    "limiter-smol http"
    "limiter-embassy -"
)
version=$(cargo metadata --no-deps --format-version 1 |
    python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "limiter-core"))')

packages=()
for entry in "${crates[@]}"; do
    packages+=(-p "${entry%% *}")
done
# Cargo unpacks the crates of its temporary local registry under the registry cache, keyed by
# the registry's path and the crate's version, and reuses an unpacked copy it finds there: a
# second run from the same path (a CI clone in the same place) would verify the dependents
# against the previous run's limiter-core. The local registries' directories start with `-`;
# only our own crates are removed from them.
for stale in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/; do
    for entry in "${crates[@]}"; do
        rm -rf "$stale${entry%% *}-$version"
    done
done
# Registry crates count as immutable, so the same holds for what was built from them: the
# verification builds go to a target directory of their own, from which our crates' previous
# builds are removed first (their dependencies' builds are kept).
verify_target="$root/target/package-verify"
cargo clean --quiet --target-dir "$verify_target" "${packages[@]}"
cargo clean --quiet --target-dir "$root/target/package-tests" "${packages[@]}"
# --allow-dirty: CI packages a clean clone; a developer may run this with uncommitted work.
CARGO_TARGET_DIR="$verify_target" cargo package --allow-dirty "${packages[@]}"

unpacked=$(mktemp -d)
trap 'rm -rf "$unpacked"' EXIT
# Outside the repository, so cargo does not take the tarballs for workspace members; one target
# directory for all of them, inside the repository's, so a second run reuses the builds.
cat >"$unpacked/config.toml" <<EOF
[patch.crates-io]
limiter-core = { path = "$unpacked/limiter-core-$version" }
EOF
for entry in "${crates[@]}"; do
    read -r crate features <<<"$entry"
    tarball="$verify_target/package/$crate-$version.crate"
    [[ -f $tarball ]] || { echo "package: no $tarball" >&2; exit 1; }
    tar -xzf "$tarball" -C "$unpacked"
    dir="$unpacked/$crate-$version"
    args=()
    [[ $features != - ]] && args=(--features "$features")
    [[ $crate != limiter-core ]] && args+=(--config "$unpacked/config.toml")
    log=$(mktemp)
    echo "package: cargo test in $crate-$version ${args[*]}"
    status=0
    (cd "$dir" && CARGO_TARGET_DIR="$root/target/package-tests" cargo test "${args[@]}") \
        >"$log" 2>&1 || status=$?
    grep -E '^test result' "$log" || true
    if [[ $status -ne 0 ]]; then
        tail -60 "$log"
        echo "package: $crate's tests failed inside its package" >&2
        exit 1
    fi
    passed=$(awk '/^test result: ok\./ { n += $4 } END { print n + 0 }' "$log")
    if [[ $passed -eq 0 ]]; then
        echo "package: $crate ran no test inside its package" >&2
        exit 1
    fi
    echo "package: $crate-$version: $passed tests passed from its package"
    rm -f "$log"
done
