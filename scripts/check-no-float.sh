#!/usr/bin/env bash
# Proves that the fixed-point AIMD links no floating-point routines on a Cortex-M0 (thumbv6m):
# links probes/no-float into a bare executable and lists the soft-float symbols in it. The
# `float` build of the same probe (the f32 controller, its limit read as an f32) must show them,
# or the check is blind.
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/../probes/no-float"
nm="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-nm"
size="${nm%llvm-nm}llvm-size"
elf=target/thumbv6m-none-eabi/release/no-float-probe
soft_float='__aeabi_[fd]|__(add|sub|mul|div)[sd]f3|__fix|__float|fmaxf|fminf'

cargo build --quiet --release --target thumbv6m-none-eabi --features float
# The symbol list is read whole before matching: `nm | grep -q` under pipefail fails at random
# when grep stops reading early and nm dies of SIGPIPE.
symbols=$("$nm" "$elf")
if ! grep -qE "$soft_float" <<<"$symbols"; then
    echo "check-no-float: the f32 probe links no soft-float either: the check is blind" >&2
    exit 1
fi
float_text=$("$size" -A "$elf" | awk '$1 == ".text" { print $2 }')

cargo build --quiet --release --target thumbv6m-none-eabi
symbols=$("$nm" "$elf")
if grep -E "$soft_float" <<<"$symbols"; then
    echo "check-no-float: the fixed-point AIMD links the soft-float routines above" >&2
    exit 1
fi
fixed_text=$("$size" -A "$elf" | awk '$1 == ".text" { print $2 }')
echo "check-no-float: AimdFixed + Gate on thumbv6m link no soft-float" \
    "(.text $fixed_text bytes; the AimdF32 build that reads its limit as f32: $float_text bytes)"
