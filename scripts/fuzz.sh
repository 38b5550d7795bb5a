#!/usr/bin/env bash
# Builds the cargo-fuzz targets and runs each for a while.
# Usage: bash scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default: 20 s, all targets)
# A crash leaves its input in fuzz/artifacts/TARGET/; copy it to limiter-check/regressions/TARGET/
# so `cargo test` replays it forever after.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${1:-20}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo +nightly fuzz list)
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
# No sanitizer: the code under test is safe Rust; this doubles the executions per second.
cargo +nightly fuzz build -s none
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t"
    log=$(mktemp)
    if ! cargo +nightly fuzz run -s none "$t" "corpus/$t" -- -max_total_time="$seconds" \
        -print_final_stats=1 >"$log" 2>&1; then
        tail -40 "$log"
        echo "fuzz: $t failed; its input is in fuzz/artifacts/$t/" >&2
        exit 1
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
    echo "fuzz: $t: ${seconds} s, $runs runs, $speed exec/s, $cov"
    rm -f "$log"
done
