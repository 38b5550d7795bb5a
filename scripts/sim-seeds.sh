#!/usr/bin/env bash
# The control targets over several seeds of the simulator's suite, in one command: builds the
# simulator (release), runs `--format json --seed N` for each seed (1 to 6 unless seeds are
# given; as many at once as there are cores), and prints `scripts/sim-bars.py --seeds` for
# them: for each scenario its goodput and on how many seeds it meets every bar, and last how
# many rows meet every bar over the runs.
#
#     bash scripts/sim-seeds.sh                  # seeds 1 to 6
#     bash scripts/sim-seeds.sh 1 2 3            # those seeds
#     SIM_LIMITER="AIMD fast start" bash scripts/sim-seeds.sh   # another row of the suite
#     SIM_KEEP=runs bash scripts/sim-seeds.sh    # keep the runs' JSON in ./runs (here)
#     SIM_AGAINST=runs bash scripts/sim-seeds.sh # and later: the rows that moved since
#     SIM_SCENARIOS="shared-quota-10 quota-jitter" bash scripts/sim-seeds.sh $(seq 1 24)
#                                                # only those scenarios (seconds, not minutes),
#                                                # against those of SIM_AGAINST's runs
#
# Fails if the build, a run or the summary fails (a run that printed nothing among them).
set -euo pipefail
shopt -s inherit_errexit
# A relative SIM_KEEP or SIM_AGAINST is the caller's directory's, not the repository's.
keep=${SIM_KEEP:+$(realpath -m -- "$SIM_KEEP")}
against=${SIM_AGAINST:+$(realpath -m -- "$SIM_AGAINST")}
cd "$(dirname "$0")/.."
seeds=("$@")
if [ ${#seeds[@]} -eq 0 ]; then
    seeds=(1 2 3 4 5 6)
fi
if [ -n "$against" ] && [ "$against" = "$keep" ]; then
    echo "sim-seeds: SIM_KEEP would overwrite the runs SIM_AGAINST names" >&2
    exit 2
fi
before=()
for seed in "${seeds[@]}"; do
    if ! [[ $seed =~ ^[0-9]+$ ]]; then
        echo "sim-seeds: not a seed: $seed" >&2
        exit 2
    fi
    if [ -n "$against" ]; then
        if ! [ -s "$against/seed-$seed.json" ]; then
            echo "sim-seeds: no earlier run of seed $seed in $against" >&2
            exit 2
        fi
        before+=("$against/seed-$seed.json")
    fi
done
# On the way out, runs still going (after another failed) are stopped, and a directory of our
# own is removed.
out=
finish() {
    local running
    running=$(jobs -p)
    if [ -n "$running" ]; then
        # shellcheck disable=SC2086 # one pid per word
        kill $running 2>/dev/null || true
        wait 2>/dev/null || true
    fi
    if [ -z "$keep" ] && [ -n "$out" ]; then
        rm -rf "$out"
    fi
}
trap finish EXIT
if [ -n "$keep" ]; then
    out=$keep
    mkdir -p "$out"
else
    out=$(mktemp -d)
fi
cargo build --release --quiet -p limiter-sim
# The runs are independent and each takes one core: as many at once as there are cores.
jobs=$(nproc)
# SIM_SCENARIOS: names (as `limiter-sim --list` prints them), whitespace-separated.
only=()
for name in ${SIM_SCENARIOS:-}; do
    only+=(--scenario "$name")
done
pids=()
runs=()
for seed in "${seeds[@]}"; do
    ./target/release/limiter-sim --format json --seed "$seed" "${only[@]}" >"$out/seed-$seed.json" &
    pids+=($!)
    runs+=("$out/seed-$seed.json")
    if [ ${#pids[@]} -ge "$jobs" ]; then
        wait "${pids[0]}"
        pids=("${pids[@]:1}")
    fi
done
for pid in "${pids[@]}"; do
    wait "$pid"
done
for run in "${runs[@]}"; do
    if ! [ -s "$run" ]; then
        seed=${run##*/seed-}
        echo "sim-seeds: seed ${seed%.json} printed nothing" >&2
        exit 1
    fi
done
# Each run holds the named scenarios and no other (a name lost on the way would run them all).
if [ -n "${SIM_SCENARIOS:-}" ]; then
    for run in "${runs[@]}"; do
        # shellcheck disable=SC2086 # one name per word
        python3 -c '
import json, sys
got = {row["scenario"] for row in json.load(open(sys.argv[1]))}
want = set(sys.argv[2:])
if got != want:
    sys.exit(f"sim-seeds: {sys.argv[1]} holds {sorted(got)}, not {sorted(want)}")
' "$run" $SIM_SCENARIOS
    done
fi
# The same names restrict the summary, and the earlier runs with it.
if [ ${#before[@]} -gt 0 ]; then
    python3 scripts/sim-bars.py --limiter "${SIM_LIMITER:-AIMD}" --seeds "${runs[@]}" \
        --against-seeds "${before[@]}" "${only[@]}"
else
    python3 scripts/sim-bars.py --limiter "${SIM_LIMITER:-AIMD}" --seeds "${runs[@]}" "${only[@]}"
fi
