#!/usr/bin/env bash
# The control targets over several seeds of the simulator's suite, in one command: builds the
# simulator (release), runs `--format json --seed N` for each seed (1 to 6 unless seeds are
# given), and prints `scripts/sim-bars.py --seeds` for them: for each scenario its goodput and
# on how many seeds it meets every bar, and last how many rows meet every bar over the runs.
#
#     bash scripts/sim-seeds.sh                  # seeds 1 to 6
#     bash scripts/sim-seeds.sh 1 2 3            # those seeds
#     SIM_LIMITER="AIMD fast start" bash scripts/sim-seeds.sh   # another row of the suite
#     SIM_KEEP=runs bash scripts/sim-seeds.sh    # keep the runs' JSON in ./runs (here)
#
# Fails if the build, a run or the summary fails (a run that printed nothing among them).
set -euo pipefail
shopt -s inherit_errexit
# A relative SIM_KEEP is the caller's directory's, not the repository's.
keep=${SIM_KEEP:+$(realpath -m -- "$SIM_KEEP")}
cd "$(dirname "$0")/.."
seeds=("$@")
if [ ${#seeds[@]} -eq 0 ]; then
    seeds=(1 2 3 4 5 6)
fi
for seed in "${seeds[@]}"; do
    if ! [[ $seed =~ ^[0-9]+$ ]]; then
        echo "sim-seeds: not a seed: $seed" >&2
        exit 2
    fi
done
if [ -n "$keep" ]; then
    out=$keep
    mkdir -p "$out"
else
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi
cargo build --release --quiet -p limiter-sim
runs=()
for seed in "${seeds[@]}"; do
    ./target/release/limiter-sim --format json --seed "$seed" >"$out/seed-$seed.json"
    if ! [ -s "$out/seed-$seed.json" ]; then
        echo "sim-seeds: seed $seed printed nothing" >&2
        exit 1
    fi
    runs+=("$out/seed-$seed.json")
done
python3 scripts/sim-bars.py --limiter "${SIM_LIMITER:-AIMD}" --seeds "${runs[@]}"
