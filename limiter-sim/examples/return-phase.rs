//! How soon a single client finds a quota that came back, wherever the return falls.
//!
//! The suite's `drop-and-recover` drops its quota from 50 calls per tick to 5 at 5 s and brings
//! it back at 10 s. Below the low quota's knee the probing AIMD tries the knee again about
//! every eight rounds (an eighth of a step per round, see `limiter-core`'s module `knee`), and
//! finds the return at its first try after it: what one run measures depends on where 10 s
//! falls among those tries, and with no jitter that place is the same on every seed (the
//! suite's `drop-and-recover`, `quota-window` and `oscillating` give the same row whatever the
//! seed). This runs `drop-and-recover` with the return at every 50 ms from 9 s to 11 s (the
//! tick is 100 ms, a round trip 100 ms: the returns fall at every place in a dwell of eight
//! round trips, and at both halves of a tick), and `quota-jitter` (the same with every call's
//! latency uniform within ±20 %) at the same instants on seeds 1 to 3, and prints the default
//! AIMD's goodput as a share of the oracle's, its refusals as a share of the calls served, and
//! the means.
//!
//! ```sh
//! cargo run --release -p limiter-sim --example return-phase
//! ```

use std::fmt::Write;

use limiter_sim::report::row_of;
use limiter_sim::scenario::quota_return_at;

/// AIMD's goodput against the oracle's and its refusals against its calls served, in one run.
fn aimd(return_us: u64, jitter: u32, seed: u64) -> (f64, f64) {
    let row = row_of(quota_return_at(return_us, jitter), seed, "AIMD")
        .expect("the suite's limiters include AIMD");
    let share = row.goodput_vs_oracle.expect("AIMD's row has a goodput");
    (share, row.refused_share.unwrap_or(0.0))
}

fn main() {
    let runs: [(u32, u64); 4] = [(0, 1), (20, 1), (20, 2), (20, 3)];
    let mut sums = [(0.0, 0.0, 0usize); 2];
    println!("return at   drop-and-recover   quota-jitter seed 1 / 2 / 3");
    for step in 0..=40u64 {
        let return_us = 9_000_000 + step * 50_000;
        let mut line = format!("{:>8.2} s", return_us as f64 / 1e6);
        for (jitter, seed) in runs {
            let (share, refused) = aimd(return_us, jitter, seed);
            let sum = &mut sums[usize::from(jitter != 0)];
            sum.0 += share;
            sum.1 += refused;
            sum.2 += 1;
            let _ = write!(
                line,
                "   {:>5.1} % ({:>3.1} %)",
                100.0 * share,
                100.0 * refused
            );
        }
        println!("{line}");
    }
    for (name, (share, refused, n)) in ["drop-and-recover", "quota-jitter"].iter().zip(sums) {
        println!(
            "{name}: mean {:.1} % of the oracle's goodput, refusals {:.1} % of the calls served, over {n} runs",
            100.0 * share / n as f64,
            100.0 * refused / n as f64
        );
    }
}
