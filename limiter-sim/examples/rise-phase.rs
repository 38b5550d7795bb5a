//! How soon a single client finds capacity that came back, whenever it comes back.
//!
//! The suite's `capacity-rise` raises its dependency's capacity from 8 to 32 at 5 s. Below a
//! knee found by latency, the probing AIMD dwells for up to 4 s before it tries the knee again
//! (see `limiter-core`'s module `probe`, rule 3), so what a single run of that scenario measures
//! depends on where the rise falls in the dwell: a rise just before the dwell ends is found at
//! once, one just after it waits a whole dwell. This runs the same scenario with the rise at each
//! quarter of a second from 2 s to 10 s, on seeds 1 to 3, and prints the default AIMD's goodput as a
//! share of the oracle's (which follows the rise at once) for each, and the mean over them all.
//!
//! ```sh
//! cargo run --release -p limiter-sim --example rise-phase
//! ```

use std::fmt::Write;

use limiter_sim::report::row_of;
use limiter_sim::scenario::capacity_rise_at;

fn main() {
    let seeds = [1, 2, 3];
    let mut all = Vec::new();
    println!("rise at    seed 1   seed 2   seed 3");
    // Every quarter of a second from 2 s to 10 s: finer than the dwell's 4 s, so the mean
    // weighs every place a rise can fall in it alike.
    for quarter in 8..=40u64 {
        let rise_us = quarter * 250_000;
        let mut line = format!("{:>7.2} s", quarter as f64 / 4.0);
        for seed in seeds {
            let share = row_of(capacity_rise_at(rise_us), seed, "AIMD")
                .and_then(|r| r.goodput_vs_oracle)
                .expect("AIMD's row has a goodput");
            all.push(share);
            let _ = write!(line, "  {:>5.1} %", 100.0 * share);
        }
        println!("{line}");
    }
    let mean = all.iter().sum::<f64>() / all.len() as f64;
    let (lo, hi) = all
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    println!(
        "mean {:.1} % of the oracle's goodput over {} runs (from {:.1} to {:.1} %)",
        100.0 * mean,
        all.len(),
        100.0 * lo,
        100.0 * hi
    );
}
