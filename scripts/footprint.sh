#!/usr/bin/env bash
# What the limiter costs a firmware: limiter-embassy/firmware's `footprint` image built without
# the limiter, with the gate alone (a fixed limit), with the fixed-point AIMD and with the float
# AIMD, for thumbv6m and thumbv7em
# (release: opt-level s, LTO, one codegen unit). Flash = .text + .rodata + .data, static RAM =
# .data + .bss, from llvm-size. Checks that the thumbv6m fixed-point image links no soft-float
# routine, with the float image as the positive control, and that the limiter's own code has no
# bounds, range or division panic. Source paths (which panic locations carry) are remapped to be
# relative to the repository, so the figures do not depend on where it is checked out.
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
fw=limiter-embassy/firmware
root=$PWD
bin="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin"
out=$(mktemp -d)
budgets=()
budget=5120
over=0
trap 'rm -rf "$out"' EXIT

size_of() { # ELF -> "flash ram"; fails on an image llvm-size cannot read or one with no .text
    local sections
    sections=$("$bin/llvm-size" -A "$1")
    awk '
        $1 == ".text" { text = $2 }
        $1 == ".text" || $1 == ".rodata" || $1 == ".vector_table" { flash += $2 }
        $1 == ".data" { flash += $2; ram += $2 }
        $1 == ".bss" || $1 == ".uninit" { ram += $2 }
        END { if (text == 0) exit 1; print flash, ram + 0 }' <<<"$sections"
}

printf '%-22s %-9s %10s %10s %12s %12s\n' target variant flash ram "flash cost" "ram cost"
for target in thumbv6m-none-eabi thumbv7em-none-eabihf; do
    for variant in base gate-only fixed float; do
        features=()
        [[ $variant != base ]] && features=(--features "$variant")
        (cd "$fw" && cargo build --quiet --release --bin footprint --target "$target" \
            --config "target.$target.rustflags = ['--remap-path-prefix=$root/=']" "${features[@]}")
        cp "$fw/target/$target/release/footprint" "$out/$target-$variant"
    done
    sizes=$(size_of "$out/$target-base")
    read -r base_flash base_ram <<<"$sizes"
    for variant in base gate-only fixed float; do
        sizes=$(size_of "$out/$target-$variant")
        read -r flash ram <<<"$sizes"
        printf '%-22s %-9s %10d %10d %12d %12d\n' "$target" "$variant" "$flash" "$ram" \
            $((flash - base_flash)) $((ram - base_ram))
    done
    # The flash budget: 5 KiB on both cores for the gate with the fixed-point AIMD, the embassy
    # adapter's default controller (the firmware's `fixed` variant does not build if that default
    # changes). Enforced: the run fails past it.
    sizes=$(size_of "$out/$target-fixed")
    read -r fixed_flash _ <<<"$sizes"
    cost=$((fixed_flash - base_flash))
    if [[ $cost -le $budget ]]; then
        budgets+=("$target: fixed-point limiter $cost B of flash, budget $budget B: within")
    else
        budgets+=("$target: fixed-point limiter $cost B of flash, budget $budget B: OVER")
        over=1
    fi
done
printf '%s\n' "${budgets[@]}"
if [[ $over -ne 0 ]]; then
    echo "FAIL: the limiter is over its flash budget of $budget B"
    exit 1
fi
limiter_hex=$("$bin/llvm-nm" -S -C "$out/thumbv7em-none-eabihf-fixed" | awk '/ [dD] .*limited::LIMITER/ { print $2 }')
if [[ -z $limiter_hex ]]; then
    echo "FAIL: no limiter static in the thumbv7em fixed-point firmware's symbol table"
    exit 1
fi
echo "thumbv7em fixed-point firmware: the limiter's initial image in .data: $((16#$limiter_hex)) bytes"

symbols=$("$bin/llvm-nm" "$out/thumbv6m-none-eabi-fixed")
if grep -qE '__aeabi_[fd]|__(add|sub|mul|div)[sd]f3' <<<"$symbols"; then
    echo "FAIL: the thumbv6m fixed-point firmware links soft-float routines:"
    grep -E '__aeabi_[fd]|__(add|sub|mul|div)[sd]f3' <<<"$symbols"
    exit 1
fi
float_symbols=$("$bin/llvm-nm" "$out/thumbv6m-none-eabi-float")
if ! grep -qE '__aeabi_f|__(add|mul)sf3' <<<"$float_symbols"; then
    echo "FAIL: the float control links no soft-float routine: the check sees nothing"
    exit 1
fi
echo "thumbv6m fixed-point firmware: no soft-float symbol (the float control has $(grep -cE '__aeabi_f|sf3' <<<"$float_symbols"))"

# The limiter's own code has no panic path but the mutex's re-borrow check (and a poll of a
# finished `Acquire`): no bounds check, slice-range check or division by zero in any limiter
# function of the M4F fixed-point image. The control: the re-borrow check itself is seen.
calls=$("$bin/llvm-objdump" -d -C --no-show-raw-insn "$out/thumbv7em-none-eabihf-fixed" | awk '
    /^[0-9a-f]+ <.*>:$/ { fn = $0 }
    /\tbl?(\.w)?\t/ && match($0, /<[^>]*>/) { print fn " -> " substr($0, RSTART, RLENGTH) }')
limiter_calls=$(grep -E '^[0-9a-f]+ <[^>]*limiter_(core|embassy)' <<<"$calls" || true)
if grep -E 'panic_bounds_check|slice_index_fail|slice_end_index|slice_start_index|div_by_zero|rem_by_zero' <<<"$limiter_calls"; then
    echo "FAIL: a limiter function above has a panic path"
    exit 1
fi
if ! grep -q 'panic_already_borrowed' <<<"$limiter_calls"; then
    echo "FAIL: no limiter function calls the re-borrow panic: the panic-path check sees nothing"
    exit 1
fi
echo "thumbv7em fixed-point firmware: no bounds, range or division panic in the limiter's code"
