//! The suite's shared dependencies in other shapes, to see whether what the suite shows holds
//! outside its own numbers. Its shared scenarios all give each client a capacity of 4, equal to
//! the default initial limit, and take 100 ms calls; here each client's share of the capacity is
//! 2 (below the initial limit: the clients start with a queue they made together) or 12 (above
//! it), calls take 20 or 400 ms, 3 or 30 clients share the dependency, latency grows past the
//! capacity linearly (a queue of services) or in proportion to the load, and in the last
//! group one more client joins a third of the way in. Every client has 16 callers and a
//! timeout of 20 calls; each shape runs 300 calls long, at least 30 s.
//!
//! Each row is the default AIMD against the oracle of the same shape, held to the bars of
//! `scripts/sim-bars.py` (a shape's latency rises steeply past its capacity, so the p95 bar
//! is 2×): goodput, p95 service time and refusals; Jain's index over the converged window;
//! a joiner within ±20 % of its fair share within 5 s of joining, and staying there (its
//! shares 2 s and 5 s after joining are printed). `x` marks a row that misses a bar; the last line counts those that meet them.
//!
//! ```sh
//! cargo run --release -p limiter-sim --example shapes              # seed 1
//! cargo run --release -p limiter-sim --example shapes -- 2         # seed 2
//! cargo run --release -p limiter-sim --example shapes -- 1 "3 x2 20ms linear" 2> trace.tsv
//! ```
//!
//! With a shape's name after the seed, only that shape runs, and the default AIMD's run is
//! traced to standard error, for `scripts/trace-summary.py`. With `--json` first, the rows (the
//! default AIMD's and the oracle's, every shape) are printed as `limiter-sim --format json`
//! prints the suite's, for `python3 scripts/sim-bars.py`, which judges them as this does.

use limiter_sim::report::{Row, rows, rows_traced};
use limiter_sim::scenario::{Scenario, shape};
use limiter_sim::upstream::Growth;

const MS: u64 = 1_000;

/// One shape of a shared dependency (see [`shape`]).
#[derive(Clone, Copy)]
struct Shape {
    clients: usize,
    per_client: u32,
    call_us: u64,
    growth: Growth,
    joiner: bool,
}

impl Shape {
    fn scenario(self) -> Scenario {
        shape(
            self.clients,
            self.per_client,
            self.call_us,
            self.growth,
            self.joiner,
        )
    }
}

/// Every shape, in the order printed.
fn shapes() -> Vec<Shape> {
    let mut all = Vec::new();
    let growths = [Growth::Linear { per_call: 1.0 }, Growth::Proportional];
    for (joiner, growth) in [(false, growths[0]), (false, growths[1]), (true, growths[1])] {
        for clients in [3, 30] {
            for per_client in [2, 12] {
                for call_us in [20 * MS, 400 * MS] {
                    all.push(Shape {
                        clients,
                        per_client,
                        call_us,
                        growth,
                        joiner,
                    });
                }
            }
        }
    }
    all
}

/// Prints one shape's row; returns whether it meets every bar.
fn print(name: &str, aimd: &Row, oracle: &Row) -> bool {
    let (Some(m), Some(o)) = (&aimd.metrics, &oracle.metrics) else {
        println!(
            "{name:<32} no metrics: {:?} {:?} x",
            aimd.error, oracle.error
        );
        return false;
    };
    // The rules of `scripts/sim-bars.py`'s `misses` (none of these shapes is a gentle one,
    // and none is `creep`): `--json` prints the rows for the script to judge the same way.
    let joiner_fair = m
        .late_joiners
        .iter()
        .all(|j| j.fair_after_ms.is_some_and(|ms| ms <= 5_000.0));
    let refused = aimd
        .refused_past_unavoidable_share
        .or(aimd.refused_share)
        .unwrap_or(f64::NAN);
    let meets = aimd.goodput_vs_oracle.is_some_and(|g| g >= 0.895)
        && aimd.p95_vs_oracle.is_none_or(|p| p <= 2.0)
        && refused <= 0.05
        && (o.fairness_converged < 0.95 || m.fairness_converged >= 0.95)
        && joiner_fair;
    let joiner = m.late_joiners.first().map_or(String::new(), |j| {
        let share = |s: Option<f64>| s.map_or("-".to_owned(), |s| format!("{s:.2}"));
        format!("{} / {}", share(j.share_at_2s), share(j.share_at_5s))
    });
    let or_nan = |x: Option<f64>| x.unwrap_or(f64::NAN);
    println!(
        "{name:<32} {:>6.1} % {:>6.2}x {:>6.1} % {:>6.3} ({:.3}) {:>5} ({:>3}) {:>12} {}",
        100.0 * or_nan(aimd.goodput_vs_oracle),
        or_nan(aimd.p95_vs_oracle),
        100.0 * or_nan(aimd.refused_share),
        m.fairness_converged,
        o.fairness_converged,
        m.limit_quartiles_median[2],
        o.limit_quartiles_median[2],
        joiner,
        if meets { "" } else { "x" },
    );
    meets
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.first().is_some_and(|a| a == "--json");
    if json {
        args.remove(0);
    }
    let seed = match args.first().map(|s| s.parse::<u64>()) {
        None => 1,
        Some(Ok(seed)) => seed,
        Some(Err(_)) => {
            eprintln!("usage: shapes [--json] [SEED [SHAPE]]: the seed is a whole number");
            std::process::exit(2);
        }
    };
    let only = args.get(1).map(String::as_str);
    let chosen: Vec<Shape> = shapes()
        .into_iter()
        .filter(|s| only.is_none_or(|name| s.scenario().name == name))
        .collect();
    if chosen.is_empty() {
        eprintln!(
            "no shape is named {:?}; run without one for the list",
            only.unwrap_or_default()
        );
        std::process::exit(2);
    }
    if json {
        let all: Vec<Row> = chosen
            .iter()
            .flat_map(|shape| rows(&shape.scenario(), seed))
            .collect();
        match serde_json::to_string(&all) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("shapes: {e}");
                std::process::exit(1);
            }
        }
        return;
    }
    println!(
        "{:<32} {:>8} {:>7} {:>8} {:>14} {:>11} {:>12}",
        format!("shape (seed {seed})"),
        "goodput",
        "p95",
        "refused",
        "Jain (oracle)",
        "q3 (oracle)",
        "joiner 2/5 s"
    );
    let mut met = 0;
    for shape in &chosen {
        let scenario = shape.scenario();
        let rows = if only.is_some() {
            rows_traced(&scenario, seed, Some(("AIMD", &mut std::io::stderr())))
        } else {
            rows(&scenario, seed)
        };
        met += usize::from(print(&scenario.name, &rows[0], &rows[1]));
    }
    println!("{met} of {} shapes meet every bar", chosen.len());
}
