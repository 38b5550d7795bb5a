//! Rows of results, as a table for people, JSON for machines, or the Markdown comparison.

use std::fmt::Write;

use serde::Serialize;

use crate::engine::run_traced;
use crate::metrics::Metrics;
use crate::scenario::Scenario;

/// One limiter's run of one scenario.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The scenario's name.
    pub scenario: String,
    /// The limiter's label.
    pub limiter: String,
    /// Why the run was stopped, if it was (then there are no metrics).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Calls served by the end of the load as a share of the oracle's in the same scenario.
    pub goodput_vs_oracle: Option<f64>,
    /// Calls served over the second half of the load as a share of the oracle's over the
    /// same half ([`Metrics::ok_second_half`]): the goodput once start-up is over.
    pub second_half_vs_oracle: Option<f64>,
    /// p95 service time over the oracle's.
    pub p95_vs_oracle: Option<f64>,
    /// Refusals (429s, 503s and timeouts) as a share of the calls served.
    pub refused_share: Option<f64>,
    /// The refusals no causal controller avoids in this scenario: one round trip of excess
    /// calls per fall of the true capacity ([`Metrics::refusal_bound`]).
    pub unavoidable_refusals: Option<u64>,
    /// Refusals past [`Row::unavoidable_refusals`], as a share of the calls served.
    pub refused_past_unavoidable_share: Option<f64>,
    /// What it measured.
    #[serde(flatten)]
    pub metrics: Option<Metrics>,
}

impl Row {
    /// Refusals: 429s, 503s and timeouts.
    pub fn refused(&self) -> Option<u64> {
        self.metrics.as_ref().map(|m| m.throttled + m.timed_out)
    }
}

/// Runs every limiter of `scenario` with `seed`. A run that fails (see
/// [`RunError`](crate::engine::RunError)) becomes a row with its error and no metrics; the
/// other rows still run.
pub fn rows(scenario: &Scenario, seed: u64) -> Vec<Row> {
    rows_traced(scenario, seed, None)
}

/// The row of the limiter labelled `label` alone, against the oracle: [`rows`] of a copy of
/// `scenario` that runs only those two (the others' runs would be thrown away); `None` if the
/// scenario has no limiter so labelled.
///
/// # Examples
///
/// ```
/// use limiter_sim::report::row_of;
/// use limiter_sim::scenario::capacity_rise_at;
///
/// let row = row_of(capacity_rise_at(5_000_000), 1, "AIMD").unwrap();
/// assert_eq!(row.limiter, "AIMD");
/// assert!(row.goodput_vs_oracle.is_some_and(|g| g > 0.5 && g <= 1.01));
/// assert!(row_of(capacity_rise_at(5_000_000), 1, "no such limiter").is_none());
/// ```
pub fn row_of(mut scenario: Scenario, seed: u64, label: &str) -> Option<Row> {
    scenario
        .limiters
        .retain(|(l, _)| l == label || l == "oracle");
    rows(&scenario, seed)
        .into_iter()
        .find(|r| r.limiter == label)
}

/// [`rows`], with the run of the limiter labelled `trace.0` traced to `trace.1` (see
/// [`run_traced`]), after a line `# SCENARIO LIMITER` and one
/// naming the columns.
pub fn rows_traced(
    scenario: &Scenario,
    seed: u64,
    mut trace: Option<(&str, &mut dyn std::io::Write)>,
) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::with_capacity(scenario.limiters.len());
    for (label, limiter) in &scenario.limiters {
        let mut out: Option<&mut dyn std::io::Write> = None;
        if let Some((traced, sink)) = trace.as_mut() {
            // A header that cannot be written leaves the run untraced.
            if *traced == label.as_str()
                && writeln!(
                    sink,
                    "# {} {label}\n# us\tclient\toutcome\tlatency_us\tlimit_before\tlimit\tin_flight\tbaseline_us",
                    scenario.name
                )
                .is_ok()
            {
                out = Some(&mut **sink);
            }
        }
        let mut upstream = (scenario.upstream)();
        let result = run_traced(&scenario.clients, upstream.as_mut(), limiter, seed, out);
        let (metrics, error) = match result {
            Ok(m) => (Some(m), None),
            Err(e) => (None, Some(e.to_string())),
        };
        rows.push(Row {
            scenario: scenario.name.clone(),
            limiter: label.clone(),
            error,
            goodput_vs_oracle: None,
            second_half_vs_oracle: None,
            p95_vs_oracle: None,
            refused_share: None,
            unavoidable_refusals: None,
            refused_past_unavoidable_share: None,
            metrics,
        });
    }
    let oracle = rows
        .iter()
        .find(|r| r.limiter == "oracle")
        .and_then(|r| r.metrics.as_ref())
        .map(|m| (m.ok_during_load, m.ok_second_half, m.p95_ms));
    for row in &mut rows {
        let refused = row.refused();
        if let Some(m) = &row.metrics {
            row.refused_share = refused.map(|r| r as f64 / m.ok.max(1) as f64);
            let unavoidable = m.refusal_bound;
            row.unavoidable_refusals = Some(unavoidable);
            row.refused_past_unavoidable_share =
                refused.map(|r| r.saturating_sub(unavoidable) as f64 / m.ok.max(1) as f64);
            if let Some((ok, half, p95)) = oracle {
                row.goodput_vs_oracle = (ok > 0).then(|| m.ok_during_load as f64 / ok as f64);
                row.second_half_vs_oracle =
                    (half > 0).then(|| m.ok_second_half as f64 / half as f64);
                row.p95_vs_oracle = (p95 > 0.0).then(|| m.p95_ms / p95);
            }
        }
    }
    rows
}

/// The rows of one scenario as a text table.
pub fn table(scenario: &Scenario, rows: &[Row]) -> String {
    let mut out = format!("{}: {}\n", scenario.name, scenario.about);
    let _ = writeln!(
        out,
        "{:>18} {:>7} {:>6} {:>7} {:>6} {:>6} {:>8} {:>7} {:>7} {:>7} {:>8} {:>8} {:>12} {:>6} {:>5} {:>11} {:>8} {:>5} {:>5} {:>6} {:>9}",
        "limiter",
        "ok",
        "vs or",
        "refused",
        "full",
        "failed",
        "ok/s",
        "mean ms",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "wait p95",
        "limit q1-q3",
        "final",
        "cuts",
        "server max/µ",
        "drained",
        "fair",
        "fair½",
        "retry×",
        "join fair"
    );
    for r in rows {
        let Some(m) = &r.metrics else {
            let error = r.error.as_deref().unwrap_or("no result");
            let _ = writeln!(out, "{:>18} FLAGGED: {error}", r.limiter);
            continue;
        };
        let [q1, q2, q3] = m.limit_quartiles_median;
        let join = match m.late_joiners.first() {
            None => "-".to_owned(),
            Some(j) => j
                .fair_after_ms
                .map_or_else(|| "never".to_owned(), |ms| format!("{:.1} s", ms / 1e3)),
        };
        let vs_oracle = r
            .goodput_vs_oracle
            .map_or_else(|| "–".to_owned(), |g| format!("{:.0}%", g * 100.0));
        let _ = writeln!(
            out,
            "{:>18} {:>7} {:>6} {:>7} {:>6} {:>6} {:>8.1} {:>7.1} {:>7.1} {:>7.1} {:>8.1} {:>8.1} {:>12} {:>6} {:>5} {:>11} {:>6.0}ms {:>5.2} {:>5.2} {:>6.2} {:>9}",
            r.limiter,
            m.ok,
            vs_oracle,
            m.throttled + m.timed_out,
            m.queue_full,
            m.failed,
            m.throughput_per_s,
            m.rtt_mean_ms,
            m.p50_ms,
            m.p95_ms,
            m.p99_ms,
            m.wait_p95_ms,
            format!("{q1}/{q2}/{q3}"),
            m.final_limit,
            m.decreases,
            format!("{}/{:.1}", m.server_in_flight_max, m.server_in_flight_mean),
            m.drained_at_ms,
            m.fairness,
            m.fairness_converged,
            m.retry_amplification,
            join
        );
    }
    out
}

/// The adaptive controllers of the comparison's first table, by their rows' labels.
const CONTROLLERS: [&str; 5] = [
    "AIMD",
    "AIMD fast start",
    "Vegas",
    "EWMA-deviation",
    "Gradient2",
];

/// One row's comparison with the oracle: goodput share, p95 ratio, refusals and their share
/// (and, where some are unavoidable, the share past those).
fn against_oracle(r: &Row) -> String {
    let percent = |share: Option<f64>| {
        share.map_or_else(|| "–".to_owned(), |s| format!("{:.1} %", s * 100.0))
    };
    match (&r.metrics, &r.error) {
        (Some(_), _) => format!(
            "{}, p95 {}, {} refused ({}{})",
            r.goodput_vs_oracle
                .map_or_else(|| "–".to_owned(), |g| format!("{:.0} %", g * 100.0)),
            r.p95_vs_oracle
                .map_or_else(|| "–".to_owned(), |p| format!("{p:.2}×")),
            r.refused().unwrap_or(0),
            percent(r.refused_share),
            match r.unavoidable_refusals {
                Some(unavoidable) if unavoidable > 0 && r.refused().unwrap_or(0) > 0 => format!(
                    ", {} past {unavoidable} unavoidable",
                    percent(r.refused_past_unavoidable_share)
                ),
                _ => String::new(),
            },
        ),
        (None, error) => format!("flagged: {}", error.as_deref().unwrap_or("no result")),
    }
}

/// The comparison as Markdown: first every scenario × each adaptive controller (goodput as a
/// share of the oracle's, p95 service time over the oracle's, refusals — 429s, 503s and
/// timeouts — with their share of the calls served, and where some are unavoidable the share
/// past those), then every limiter of every scenario the same way.
pub fn markdown(rows: &[Row]) -> String {
    let mut out = String::from("| scenario |");
    for name in CONTROLLERS {
        let _ = write!(out, " {name} |");
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(CONTROLLERS.len()));
    out.push('\n');
    let mut scenarios: Vec<&str> = rows.iter().map(|r| r.scenario.as_str()).collect();
    scenarios.dedup();
    for scenario in scenarios {
        let _ = write!(out, "| {scenario} |");
        for label in CONTROLLERS {
            let cell = rows
                .iter()
                .find(|r| r.scenario == scenario && r.limiter == label)
                .map_or_else(|| "–".to_owned(), against_oracle);
            let _ = write!(out, " {cell} |");
        }
        out.push('\n');
    }
    out.push_str("\n| scenario | limiter | against the oracle |\n|---|---|---|\n");
    for r in rows.iter().filter(|r| r.limiter != "oracle") {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            r.scenario,
            r.limiter,
            against_oracle(r)
        );
    }
    out
}
