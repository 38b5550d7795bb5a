#!/usr/bin/env python3
"""The control targets, scenario by scenario, for one limiter of a simulator run.

    cargo run --release -p limiter-sim -- --format json --seed 1 > run.json
    python3 scripts/sim-bars.py run.json                      # the default controller, AIMD
    python3 scripts/sim-bars.py run.json --limiter "AIMD fast start"
    python3 scripts/sim-bars.py run.json --against before.json  # and the rows that moved
    python3 scripts/sim-bars.py --seeds s1.json s2.json s3.json  # several seeds, row by row
    python3 scripts/sim-bars.py --seeds s1.json s2.json --against-seeds b1.json b2.json
    python3 scripts/sim-bars.py --seeds s1.json s2.json --scenario quota-jitter  # that row only

With `--seeds`, each file is one seed's run (of the same scenarios), and each row prints its means
over the seeds (goodput, refusals, Jain's index over the converged window) and on how many seeds
it meets every bar: one seed's row can meet or miss a bar by noise that the next seed does not
share; its last line adds up the rows that meet every bar over all the runs, and per run. With
`--against-seeds` and earlier runs of the same seeds, it then prints each row whose means or
seeds meeting every bar moved (as printed, to the digits shown), and the rows meeting every bar
before and after.

Each row of the limiter is held to the bars of the README's control targets:
- goodput at least 90 % of the oracle's (`goodput_vs_oracle` >= 0.895: 90 % to the nearest
  percent, as the tables print it);
- p95 service time at most 2x the oracle's, and at most 1.25x where latency rises gently with
  load (`shallow-knee`, `slow-link`);
- refusals past what any causal controller must take when a quota drops at most 5 % of the
  calls served (`refused_past_unavoidable_share`, or `refused_share` where no bound is derived);
- several clients on one dependency whose fair shares are equal (the oracle's index is at least
  0.95): Jain's index over the converged window at least 0.95;
- a late joiner within +-20 % of its fair share within 5 s of joining, and staying there;
- `creep`: the limit's upper quartile within 20 % of the oracle's.

Prints every miss, then "N of M rows meet every bar". Exits 1 on a file without the limiter's
rows, so that a renamed limiter cannot pass by checking nothing.
"""

import argparse
import json
import sys

GENTLE = {"shallow-knee", "slow-link"}


def misses(row, oracle):
    """The bars `row` misses, as short strings (none: it meets them all)."""
    out = []
    if row["goodput_vs_oracle"] < 0.895:
        # The second half's goodput tells a start-up's loss from the steady state's.
        half = row.get("second_half_vs_oracle")
        after = "" if half is None else f" (second half {100 * half:.1f} %)"
        out.append(f"goodput {100 * row['goodput_vs_oracle']:.1f} %{after}")
    p95 = row["p95_vs_oracle"]
    bound = 1.25 if row["scenario"] in GENTLE else 2.0
    if p95 is not None and p95 > bound:
        out.append(f"p95 {p95:.2f}x (bar {bound}x)")
    refused = row.get("refused_past_unavoidable_share")
    if refused is None:
        refused = row["refused_share"]
    if refused > 0.05:
        out.append(f"refusals {100 * refused:.1f} %")
    jain = row.get("fairness_converged")
    # Only where the fair shares are equal: the oracle's own index is 1 there (not where
    # tenants have quotas of their own).
    equal = oracle is not None and (oracle.get("fairness_converged") or 0) >= 0.95
    if len(row.get("ok_per_client") or []) > 1 and equal and jain is not None and jain < 0.95:
        out.append(f"Jain {jain:.3f}")
    for joiner in row.get("late_joiners") or []:
        fair_after = joiner["fair_after_ms"]
        share = f"{joiner['share_at_5s']:.2f}x fair at 5 s"
        if fair_after is None:
            out.append(f"joiner never within 20 % of fair ({share})")
        elif fair_after > 5000:
            # `fair_after_ms` counts from the join.
            out.append(f"joiner fair from {fair_after / 1000:.1f} s after joining ({share})")
    if row["scenario"] == "creep" and oracle is not None:
        upper, best = row["limit_quartiles_median"][2], oracle["limit_quartiles_median"][2]
        if upper > 1.2 * best:
            out.append(f"upper quartile {upper} against the oracle's {best}")
    return out


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def summarise(paths, limiter, only=None):
    """For the runs in `paths` (one per seed): each scenario's means over them, as printed, and
    on how many seeds it meets every bar; and per run, the rows meeting every bar and the rows.
    With `only` (scenario names), the rows of those scenarios alone, each of which every run
    must have."""
    by_scenario = {}
    per_seed = []
    for path in paths:
        rows = load(path)
        if only:
            missing = sorted(set(only) - {r["scenario"] for r in rows})
            if missing:
                sys.exit(f"no scenario {missing[0]!r} in {path}")
            rows = [r for r in rows if r["scenario"] in only]
        oracles = {r["scenario"]: r for r in rows if r["limiter"] == "oracle"}
        mine = [r for r in rows if r["limiter"] == limiter]
        if not mine:
            sys.exit(f"no rows of {limiter!r} in {path}")
        seed_met = 0
        for row in mine:
            met = not misses(row, oracles.get(row["scenario"]))
            seed_met += met
            by_scenario.setdefault(row["scenario"], []).append((row, met))
        per_seed.append((seed_met, len(mine)))
    summary = {}
    for scenario, runs in by_scenario.items():
        rows = [row for row, _ in runs]
        # Runs from before the second half was measured have no such field.
        halves = [r["second_half_vs_oracle"] for r in rows if r.get("second_half_vs_oracle") is not None]
        jains = [
            r["fairness_converged"]
            for r in rows
            if len(r.get("ok_per_client") or []) > 1 and r.get("fairness_converged") is not None
        ]
        summary[scenario] = {
            "goodput": f"{100 * sum(r['goodput_vs_oracle'] for r in rows) / len(rows):.1f}",
            "half": f"{100 * sum(halves) / len(halves):.1f}" if halves else None,
            "refused": f"{100 * sum(r['refused_share'] for r in rows) / len(rows):.1f}",
            "jain": f"{sum(jains) / len(jains):.3f}" if jains else None,
            "lowest": f"{min(jains):.3f}" if jains else None,
            "met": sum(1 for _, ok in runs if ok),
            "seeds": len(runs),
        }
    return summary, per_seed


def seeds(paths, limiter, against=None, only=None):
    """Prints each row's means over the runs in `paths` and the seeds meeting its bars, the rows
    meeting every bar; with `against` (earlier runs of the same seeds), the rows that moved;
    with `only`, for those scenarios alone."""
    if against is not None and len(against) != len(paths):
        sys.exit(f"--against-seeds has {len(against)} runs where --seeds has {len(paths)}")
    summary, per_seed = summarise(paths, limiter, only)
    for scenario, s in summary.items():
        half = f" ({s['half']} % in the second half)" if s["half"] else ""
        jain = f", Jain {s['jain']} (lowest {s['lowest']})" if s["jain"] else ""
        print(
            f"{scenario}: goodput {s['goodput']} %{half}, refused {s['refused']} % of calls "
            f"served{jain}; "
            f"every bar on {s['met']} of {s['seeds']} seeds"
        )
    each = " / ".join(str(met) for met, _ in per_seed)
    print(
        f"{sum(m for m, _ in per_seed)} of {sum(n for _, n in per_seed)} rows meet every bar "
        f"over the {len(per_seed)} runs ({each})"
    )
    if against is None:
        return
    before, before_seeds = summarise(against, limiter, only)
    labels = [
        ("goodput", "goodput", " %"),
        ("half", "second half", " %"),
        ("refused", "refused", " %"),
        ("jain", "Jain", ""),
        ("met", "every bar on", " seeds"),
    ]
    for scenario, s in summary.items():
        old = before.get(scenario)
        if old is None:
            print(f"new: {scenario}")
            continue
        moved = [
            f"{label} {old[key]} -> {s[key]}{unit}"
            for key, label, unit in labels
            if old[key] != s[key]
        ]
        if moved:
            print(f"moved: {scenario}: {', '.join(moved)}")
    for scenario in before:
        if scenario not in summary:
            print(f"gone: {scenario}")
    print(
        f"rows meeting every bar: {sum(m for m, _ in before_seeds)} -> "
        f"{sum(m for m, _ in per_seed)} of {sum(n for _, n in per_seed)}"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("run", nargs="?", help="the output of limiter-sim --format json")
    parser.add_argument("--limiter", default="AIMD", help="the row label (default AIMD)")
    parser.add_argument("--against", help="an earlier run: also print the rows that moved")
    parser.add_argument("--seeds", nargs="+", metavar="RUN", help="runs of several seeds")
    parser.add_argument(
        "--against-seeds", nargs="+", metavar="RUN", help="with --seeds: earlier runs of them"
    )
    parser.add_argument(
        "--scenario", action="append", metavar="NAME", help="with --seeds: this scenario only"
    )
    args = parser.parse_args()
    if args.against_seeds and not args.seeds:
        parser.error("--against-seeds goes with --seeds")
    if args.scenario and not args.seeds:
        parser.error("--scenario goes with --seeds")
    if args.seeds:
        if args.run or args.against:
            sys.exit("--seeds takes the runs itself, and no --against (--against-seeds)")
        seeds(args.seeds, args.limiter, args.against_seeds, args.scenario)
        return
    if not args.run:
        parser.error("a run, or --seeds with several")

    rows = load(args.run)
    oracles = {r["scenario"]: r for r in rows if r["limiter"] == "oracle"}
    mine = [r for r in rows if r["limiter"] == args.limiter]
    if not mine:
        sys.exit(f"no rows of {args.limiter!r} in {args.run}")
    met = 0
    for row in mine:
        missed = misses(row, oracles.get(row["scenario"]))
        if missed:
            print(f"{row['scenario']}: {'; '.join(missed)}")
        else:
            met += 1
    print(f"{met} of {len(mine)} rows meet every bar")

    if args.against:
        before = {
            r["scenario"]: r for r in load(args.against) if r["limiter"] == args.limiter
        }
        keys = ["goodput_vs_oracle", "p95_vs_oracle", "refused_share", "fairness_converged"]
        for row in mine:
            old = before.get(row["scenario"])
            if old is None:
                print(f"new: {row['scenario']}")
                continue
            moved = [
                f"{k} {old[k]:.3f} -> {row[k]:.3f}"
                for k in keys
                if old.get(k) is not None and row.get(k) is not None and old[k] != row[k]
            ]
            if moved:
                print(f"moved: {row['scenario']}: {', '.join(moved)}")


if __name__ == "__main__":
    main()
