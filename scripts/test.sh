#!/usr/bin/env bash
# The project's test command: sets up what a fresh machine lacks, then runs every check.
# Usage: bash scripts/test.sh
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/.."

step() {
    local name=$1
    shift
    local start=$SECONDS
    echo "::: $name"
    "$@"
    echo "::: $name: $((SECONDS - start)) s"
}

setup() {
    local targets components
    targets=$(rustup target list --installed)
    for t in thumbv6m-none-eabi thumbv7m-none-eabi thumbv7em-none-eabihf; do
        grep -qx "$t" <<<"$targets" || rustup target add "$t"
    done
    command -v cargo-nextest >/dev/null || cargo install cargo-nextest --locked
    command -v defmt-print >/dev/null || cargo install defmt-print --locked
    if ! command -v qemu-system-arm >/dev/null; then
        # Debian's package; it may replace a backported qemu-utils, which nothing here needs.
        apt-get update -qq && apt-get install -y -qq --no-install-recommends qemu-system-arm
    fi
    if ! rustup run nightly rustc --version >/dev/null 2>&1; then
        rustup toolchain install nightly --profile minimal
    fi
    components=$(rustup component list --installed --toolchain nightly)
    for c in miri rust-src; do
        grep -q "^$c" <<<"$components" || rustup component add "$c" --toolchain nightly
    done
    components=$(rustup component list --installed)
    for c in rustfmt clippy llvm-tools; do
        grep -q "^$c" <<<"$components" || rustup component add "$c"
    done
}

thumb_builds() {
    cargo build --release -p limiter-core --no-default-features --target thumbv7em-none-eabihf
    cargo build --release -p limiter-core --no-default-features --features critical-section \
        --target thumbv6m-none-eabi
    cargo build --release -p limiter-core --no-default-features --features critical-section,defmt \
        --target thumbv6m-none-eabi
    for t in thumbv6m-none-eabi thumbv7em-none-eabihf; do
        cargo build --release -p limiter-embassy --features defmt --target "$t"
    done
}

# The smol adapter must not pull tokio in. The tree is read whole, then matched (no SIGPIPE);
# it must list limiter-core, or it listed nothing.
no_tokio_in_smol() {
    local tree
    tree=$(cargo tree -p limiter-smol -e normal --prefix none)
    grep -q "^limiter-core " <<<"$tree" || { echo "cargo tree listed no limiter-core" >&2; return 1; }
    if grep "^tokio" <<<"$tree"; then
        echo "limiter-smol depends on tokio" >&2
        return 1
    fi
}

# docs.rs's build: nightly rustdoc with --cfg docsrs. Items behind a feature must carry its badge,
# the ones gated through a private module too (stable rustdoc shows only direct gates; the crates'
# `feature(doc_cfg)` under docsrs shows the rest), or the badges are not rendered.
docs_rs_badges() {
    env RUSTDOCFLAGS="--cfg docsrs -Dwarnings" CARGO_TARGET_DIR=target/docsrs \
        cargo +nightly doc --no-deps --all-features -p limiter-core -p limiter-tokio \
        -p limiter-smol -p limiter-embassy
    local item feature page missing=0
    for item in limiter_core/struct.StdRawMutex:std limiter_core/struct.KeyedGates:std \
        limiter_core/struct.SharedQuota:std \
        limiter_core/struct.CriticalSectionRawMutex:critical-section \
        limiter_tokio/struct.LimitLayer:tower limiter_tokio/struct.LimitService:tower; do
        feature=${item#*:}
        page=target/docsrs/doc/${item%:*}.html
        if ! grep -q "Available on <strong>crate feature <code>$feature</code></strong> only" "$page"; then
            echo "$page: no badge for feature $feature" >&2
            missing=1
        fi
    done
    return "$missing"
}

step setup setup
step fmt cargo fmt --all --check
# limiter-core's layers (each uses only those below it) and no import cycle between its files.
step layers python3 scripts/layers.py
step fmt-probe cargo fmt --manifest-path probes/no-float/Cargo.toml --check
step clippy cargo clippy --workspace --all-targets -- -D warnings
step clippy-all-features cargo clippy --workspace --all-targets --all-features -- -D warnings
step test cargo test --workspace
# The real gate under loom, every interleaving up to 3 preemptions, with its queue inside it and
# on the heap (`std`); one process per model, so a deadlock report cannot take the other results
# down with it.
step loom env RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom LOOM_MAX_PREEMPTIONS=3 \
    cargo nextest run --release -p limiter-core --features std -E 'binary(loom)' --no-tests=fail
# miri on the unit tests and the gate's tests (wakers, RefCell, Arc, threads); the controller's
# tests are pure arithmetic that the ordinary debug run already checks for overflow.
step miri-setup cargo +nightly miri setup
step miri cargo +nightly miri test -p limiter-core --lib --test gate --test footprint
step bench-build cargo bench --workspace --no-run
step no-tokio-in-smol no_tokio_in_smol
step doc env RUSTDOCFLAGS=-Dwarnings cargo doc --workspace --no-deps --all-features
# The docs as docs.rs builds them (nightly, --cfg docsrs): feature badges on gated items.
step doc-docsrs docs_rs_badges
# Every published crate packs, verifies and passes its own tests from its tarball.
step package bash scripts/package.sh
step msrv-deps python3 scripts/msrv-deps.py
step thumb thumb_builds
step no-float bash scripts/check-no-float.sh
step fmt-firmware cargo fmt --manifest-path limiter-embassy/firmware/Cargo.toml --check
step clippy-firmware bash -c "cd limiter-embassy/firmware && cargo clippy --release --bins -- -D warnings"
# The embassy adapter on emulated Cortex-M0, M3 and M4F boards, then its cost in flash and RAM.
step qemu bash scripts/qemu.sh
step footprint bash scripts/footprint.sh
# The cargo-fuzz targets: build, then a short smoke run of each (long runs: scripts/fuzz.sh 600).
step fuzz bash scripts/fuzz.sh 20
