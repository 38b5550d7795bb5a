//! The default AIMD on shared dependencies shaped unlike the suite's (see
//! `limiter_sim::scenario::shape` and the `shapes` example): two rules of the growth probe that
//! only such shapes show.

use limiter_sim::report::{Row, rows};
use limiter_sim::scenario::shape;
use limiter_sim::upstream::Growth;

const MS: u64 = 1_000;
const LINEAR: Growth = Growth::Linear { per_call: 1.0 };

/// The default AIMD's row of `shape` with `seed`.
fn aimd(scenario: &limiter_sim::scenario::Scenario, seed: u64) -> Row {
    rows(scenario, seed)
        .into_iter()
        .find(|r| r.limiter == "AIMD")
        .expect("an AIMD row")
}

#[test]
fn with_slow_calls_a_shared_knee_is_tried_no_more_often_in_rounds() {
    // Three clients, each a share of 12, calls of 400 ms, every call above the capacity a
    // whole service time slower: 4 s below a knee is 10 round trips, and each client's tries
    // slowed every call (p95 1.90 times the oracle's on seeds 1 to 6, 87.6 to 89.9 % of its
    // goodput). The long dwell lasts 32 round trips.
    let scenario = shape(3, 12, 400 * MS, LINEAR, false);
    let mut goodput = 0.0;
    for seed in 1..=6 {
        let row = aimd(&scenario, seed);
        let p95 = row.p95_vs_oracle.expect("a p95");
        assert!(p95 <= 1.25, "seed {seed}: p95 {p95:.2} times the oracle's");
        goodput += row.goodput_vs_oracle.expect("a goodput") / 6.0;
    }
    assert!(goodput >= 0.9, "{:.1} % of the oracle's", 100.0 * goodput);
}

#[test]
fn clients_started_above_their_share_learn_the_dependency_in_a_held_drain() {
    // Three clients, each a share of 2 (the initial limit is 4), calls of 20 ms: their first
    // round builds a queue, and its latency becomes their baseline (25.6 to 28.0 % of the
    // oracle's goodput on seeds 1 to 6, p95 over 10 times its own). A drain whose calls come
    // back below the band holds until they make a low round, which corrects the baseline.
    let scenario = shape(3, 2, 20 * MS, LINEAR, false);
    let shares: Vec<f64> = (1..=6)
        .map(|seed| aimd(&scenario, seed).goodput_vs_oracle.expect("a goodput"))
        .collect();
    let mean = shares.iter().sum::<f64>() / 6.0;
    assert!(mean >= 0.5, "{shares:?}");
    assert!(
        shares.iter().filter(|&&s| s >= 0.8).count() >= 3,
        "{shares:?}"
    );
}
