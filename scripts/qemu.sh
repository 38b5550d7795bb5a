#!/usr/bin/env bash
# Builds limiter-embassy/firmware's on-target test for three boards and runs each under QEMU:
# microbit (Cortex-M0, thumbv6m), lm3s6965evb (Cortex-M3, thumbv7m), mps2-an386 (Cortex-M4F,
# thumbv7em). Each run must exit 0 and close with "N passed, 0 failed" with N at least 1.
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
fw=limiter-embassy/firmware
boards=(
    "thumbv6m-none-eabi microbit cortex-m0"
    "thumbv7m-none-eabi lm3s6965evb cortex-m3"
    "thumbv7em-none-eabihf mps2-an386 cortex-m4"
)
failed=0
for board in "${boards[@]}"; do
    read -r target machine cpu <<<"$board"
    # Built from its own directory: cargo reads .cargo/config.toml (the link scripts) from the
    # working directory, not from the manifest's.
    (cd "$fw" && cargo build --release --bin qemu-test --target "$target")
    elf="$fw/target/$target/release/qemu-test"
    log=$(mktemp)
    status=0
    bash scripts/qemu-run.sh "$machine" "$cpu" "$elf" >"$log" 2>&1 || status=$?
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" || true)
    echo "--- $machine ($cpu): exit $status; ${summary:-no summary}"
    grep -E 'limit at the end|FAILED|ERROR' "$log" || true
    passed=${summary%% passed*}
    if [[ $status -ne 0 || "$summary" != *" 0 failed" || ${passed:-0} -eq 0 ]]; then
        cat "$log"
        failed=1
    fi
    rm -f "$log"
done
exit "$failed"
