#!/usr/bin/env python3
"""One limiter's run of one scenario, interval by interval, from the simulator's trace.

    cargo run --release -p limiter-sim -- --scenario creep --trace AIMD 2> trace.tsv
    python3 scripts/trace-summary.py trace.tsv                   # every 250 ms
    python3 scripts/trace-summary.py trace.tsv --every 1000
    python3 scripts/trace-summary.py trace.tsv --phases 2.5,5,10  # served calls per phase
    python3 scripts/trace-summary.py trace.tsv --client 7         # one client's limit changes

The trace (`--trace LIMITER`, on standard error) has one line per call's end: the time (µs),
the client, the outcome, the latency (µs), the client's limit before and after the limiter heard
of it, its calls in flight and its latency baseline (µs). Lines starting with `#` are headers.

Each interval row prints the calls that ended in it, how many were served (`ok`) and how the
others ended, the median and p95 latency of all of them, the sum over clients of each one's
last known limit (`sum limit`: what the clients together allow in flight, against a shared
capacity), and how many of its calls lowered or raised their client's limit.

`--phases` splits the run at the given seconds and prints the calls served in each part: with
the oracle's trace beside it (`--trace oracle`), it says where a limiter's goodput was lost
(the start-up, a quota's fall, its return).

Exits 1 on a trace without a single call, so that a wrong limiter label (whose runs print
only their header) cannot pass for a summary.
"""

import argparse
import math
import os
import sys
from collections import Counter


def parse(lines):
    """The calls of a trace: (µs, client, outcome, latency µs, limit before, limit after,
    in flight, baseline µs) tuples; the baseline is None where the trace has `-` (a limiter
    without one, such as the oracle)."""
    calls = []
    for line in lines:
        if line.startswith("#") or not line.strip():
            continue
        fields = line.rstrip("\n").split("\t")
        if len(fields) < 8:
            raise SystemExit(f"not a trace line (8 tab-separated fields): {line!r}")
        at, client, outcome, latency, before, after, in_flight, baseline = fields[:8]
        try:
            calls.append(
                (
                    int(at),
                    client,
                    outcome,
                    int(latency),
                    int(before),
                    int(after),
                    int(in_flight),
                    None if baseline == "-" else int(baseline),
                )
            )
        except ValueError:
            raise SystemExit(f"not a trace line (a field is not a whole number): {line!r}")
    return calls


def quantile(sorted_values, q):
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * q))]


def intervals(calls, every_ms):
    width = every_ms * 1000
    limits = {}
    rows = []
    start = 0
    index = 0
    calls = sorted(calls, key=lambda c: c[0])
    while index < len(calls):
        end = start + width
        chunk = []
        while index < len(calls) and calls[index][0] < end:
            chunk.append(calls[index])
            index += 1
        if chunk:
            for c in chunk:
                limits[c[1]] = c[5]
            outcomes = Counter(c[2] for c in chunk)
            served = outcomes.pop("ok", 0)
            latencies = sorted(c[3] for c in chunk)
            rows.append(
                (
                    start / 1e6,
                    len(chunk),
                    served,
                    ", ".join(f"{n} {o}" for o, n in sorted(outcomes.items())) or "-",
                    quantile(latencies, 0.5) / 1000,
                    quantile(latencies, 0.95) / 1000,
                    sum(limits.values()),
                    sum(1 for c in chunk if c[5] < c[4]),
                    sum(1 for c in chunk if c[5] > c[4]),
                )
            )
        start = end
    print("| from s | calls | ok | others | p50 ms | p95 ms | sum limit | lowered | raised |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r[0]:.2f} | {r[1]} | {r[2]} | {r[3]} | {r[4]:.1f} | {r[5]:.1f} | {r[6]} "
            f"| {r[7]} | {r[8]} |"
        )


def phases(calls, edges):
    bounds = [0.0] + edges + [float("inf")]
    served = [0] * (len(bounds) - 1)
    for c in calls:
        if c[2] != "ok":
            continue
        t = c[0] / 1e6
        for i in range(len(served)):
            if bounds[i] <= t < bounds[i + 1]:
                served[i] += 1
                break
    for i, n in enumerate(served):
        upper = "end" if bounds[i + 1] == float("inf") else f"{bounds[i + 1]:g} s"
        print(f"{bounds[i]:g} s to {upper}: {n} served")
    print(f"in all: {sum(served)} served")


def client_changes(calls, client):
    print("| s | outcome | latency ms | limit | in flight | baseline ms |")
    print("|---|---|---|---|---|---|")
    shown = 0
    for c in sorted(calls, key=lambda c: c[0]):
        if c[1] == client and c[4] != c[5]:
            baseline = "-" if c[7] is None else f"{c[7] / 1000:.1f}"
            print(
                f"| {c[0] / 1e6:.3f} | {c[2]} | {c[3] / 1000:.1f} | {c[4]} → {c[5]} "
                f"| {c[6]} | {baseline} |"
            )
            shown += 1
    if shown == 0:
        print(f"(client {client}'s limit never changed)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("trace", help="a `--trace` file; - for standard input")
    parser.add_argument("--every", type=int, default=250, help="interval, ms (default 250)")
    parser.add_argument("--phases", help="seconds to split the run at, comma-separated")
    parser.add_argument("--client", help="print this client's limit changes instead")
    args = parser.parse_args()
    if args.every <= 0:
        parser.error("--every takes a positive number of milliseconds")
    try:
        source = sys.stdin if args.trace == "-" else open(args.trace, encoding="utf-8")
    except OSError as e:
        parser.error(f"cannot read {args.trace}: {e.strerror}")
    with source:
        calls = parse(source)
    if not calls:
        print("no calls in the trace (is the limiter's label the one the rows print?)")
        return 1
    if args.client is not None:
        client_changes(calls, args.client)
    elif args.phases:
        try:
            edges = sorted(float(x) for x in args.phases.split(","))
        except ValueError:
            parser.error("--phases takes seconds separated by commas, such as 2.5,5,10")
        if not all(math.isfinite(e) and e > 0 for e in edges):
            parser.error("--phases takes positive, finite seconds")
        phases(calls, edges)
    else:
        intervals(calls, args.every)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        # Read by `head`, say: what was printed is what was asked for.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
