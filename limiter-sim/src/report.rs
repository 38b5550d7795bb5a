//! Rows of results, as a table for people or JSON for machines.

use std::fmt::Write;

use serde::Serialize;

use crate::engine::{Metrics, run};
use crate::scenario::Scenario;

/// One limiter's run of one scenario.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The scenario's name.
    pub scenario: &'static str,
    /// The limiter's label.
    pub limiter: &'static str,
    /// What it measured.
    #[serde(flatten)]
    pub metrics: Metrics,
}

/// Runs every limiter of `scenario` with `seed`.
pub fn rows(scenario: &Scenario, seed: u64) -> Vec<Row> {
    scenario
        .limiters
        .iter()
        .map(|(label, limiter)| Row {
            scenario: scenario.name,
            limiter: label,
            metrics: run(
                &scenario.clients,
                (scenario.upstream)().as_mut(),
                limiter,
                scenario.retry.as_ref(),
                scenario.global,
                seed,
            ),
        })
        .collect()
}

/// The rows of one scenario as a text table.
pub fn table(scenario: &Scenario, rows: &[Row]) -> String {
    let mut out = format!("{}: {}\n", scenario.name, scenario.about);
    let _ = writeln!(
        out,
        "{:>18} {:>7} {:>7} {:>7} {:>6} {:>8} {:>8} {:>8} {:>8} {:>9} {:>11} {:>6} {:>5} {:>8} {:>5} {:>6}",
        "limiter",
        "ok",
        "429",
        "timeout",
        "shed",
        "ok/s",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "wait p95",
        "limit mean",
        "final",
        "cuts",
        "drained",
        "fair",
        "retry×"
    );
    for r in rows {
        let m = &r.metrics;
        let _ = writeln!(
            out,
            "{:>18} {:>7} {:>7} {:>7} {:>6} {:>8.1} {:>8.1} {:>8.1} {:>8.1} {:>9.1} {:>6.1} ±{:<4.1} {:>6} {:>5} {:>6.0}ms {:>5.2} {:>6.2}",
            r.limiter,
            m.ok,
            m.throttled,
            m.timed_out,
            m.rejected,
            m.throughput_per_s,
            m.p50_ms,
            m.p95_ms,
            m.p99_ms,
            m.wait_p95_ms,
            m.limit_mean,
            m.limit_sd,
            m.final_limit,
            m.decreases,
            m.drained_at_ms,
            m.fairness,
            m.retry_amplification
        );
    }
    out
}
