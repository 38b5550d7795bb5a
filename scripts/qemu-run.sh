#!/usr/bin/env bash
# Boots one firmware ELF on a QEMU board and decodes its defmt log; exits with the firmware's
# status (0: every check passed). Used as the cargo runner of limiter-embassy/firmware and by
# scripts/qemu.sh.
#   qemu-run.sh MACHINE CPU ELF
# Virtual time: -icount shift=0,sleep=off lets QEMU skip the time the firmware sleeps in WFI, so a
# run is fast and its log repeats byte for byte.
set -uo pipefail
machine=$1 cpu=$2 elf=$3
timeout 120 qemu-system-arm -machine "$machine" -cpu "$cpu" -nographic -monitor none \
    -icount shift=0,sleep=off \
    -semihosting-config enable=on,target=native -kernel "$elf" \
    | defmt-print -e "$elf"
exit "${PIPESTATUS[0]}"
