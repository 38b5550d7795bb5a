#!/usr/bin/env bash
# Builds the cargo-fuzz targets and runs each for a while.
# Usage: bash scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default: 20 s, all targets)
# A crash leaves its input in fuzz/artifacts/TARGET/; copy it to limiter-check/regressions/TARGET/
# so `cargo test` replays it forever after.
# Fails when it fuzzed nothing: no target listed, or a target that closed without its final stats
# or with no executed input.
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/../fuzz"
seconds=${1:-20}
shift || true
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    # An assignment from a command substitution fails the script when the command fails, which a
    # process substitution would not.
    listed=$(cargo +nightly fuzz list)
    mapfile -t targets <<<"$listed"
fi
if [ ${#targets[@]} -eq 0 ] || [ -z "${targets[0]}" ]; then
    echo "fuzz: no target to run" >&2
    exit 1
fi
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
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)
    if ! [[ $runs =~ ^[0-9]+$ ]] || [ "$runs" -eq 0 ]; then
        tail -40 "$log"
        echo "fuzz: $t printed no final stats or executed nothing" >&2
        exit 1
    fi
    echo "fuzz: $t: ${seconds} s, $runs runs, $speed exec/s, $cov"
    rm -f "$log"
done
echo "fuzz: ${#targets[@]} targets fuzzed"
