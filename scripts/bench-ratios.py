#!/usr/bin/env python3
"""Prints the ratios of the last `cargo bench -p limiter-bench` run (criterion's medians)."""
import json
import pathlib
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")


def median(group, name):
    path = root / group / name / "new" / "estimates.json"
    return json.loads(path.read_text())["median"]["point_estimate"]


rows = [
    ("uncontended try_acquire + drop", "uncontended", "limiter", "floor", "<= 1.1 (floor: + 1 clock read)"),
    ("  vs tokio's semaphore alone", "uncontended", "limiter", "tokio-semaphore", ""),
    ("  vs async-lock", "uncontended", "limiter", "async-lock-semaphore", ""),
    ("  bookkeeping only (no clock read)", "uncontended", "limiter-without-clock", "tokio-semaphore", ""),
    ("full cycle with record", "cycle", "limiter", "floor", "<= 1.25 (floor: + 2 clock reads)"),
    ("  the same with Fixed(8), vs the floor", "cycle", "limiter-fixed", "floor", ""),
    ("  vs congestion-limiter's cycle", "cycle", "limiter", "congestion-limiter", "<= 0.6"),
    ("  vs tokio's semaphore alone", "cycle", "limiter", "tokio-semaphore", ""),
    ("contended, limit 8: Fixed(8)", "contended", "limiter-fixed-8", "tokio-semaphore", "<= 1.0 (throughput >= 1.0)"),
    ("contended, limit 8: AIMD in [8, 8]", "contended", "limiter-aimd-bounded-8", "tokio-semaphore", "<= 1.0 (throughput >= 1.0)"),
]
print(f"{'measure':<38} {'ours':>12} {'peer':>12} {'ratio':>7}  target")
for label, group, ours, peer, target in rows:
    a, b = median(group, ours), median(group, peer)
    unit = "ns" if a < 1e6 else "ms"
    scale = 1 if unit == "ns" else 1e-6
    print(f"{label:<38} {a * scale:>9.1f} {unit} {b * scale:>9.1f} {unit} {a / b:>7.2f}  {target}")
print(f"{'clock read (TokioClock::now)':<38} {median('uncontended', 'tokio-clock-now'):>9.1f} ns")
print(f"{'median window push (32, full)':<38} {median('window', 'median-window-32-push'):>9.1f} ns")
print(f"{'AimdF32 on_sample, steady latency':<38} {median('window', 'aimd-f32-on-sample'):>9.1f} ns")
