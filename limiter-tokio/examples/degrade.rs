//! Seed 000, step 3, on real tokio tasks: a dependency whose capacity drops from 16 to 4 at
//! 250 ms, called twice per millisecond for half a second, through a fixed limit of 16
//! (`tokio::sync::Semaphore`) and through the adaptive limiter.
//!
//! The dependency serves a call in 5 ms at or below its capacity, 5 ms more for every call in
//! flight above it, and fails (after 5 ms) any call beyond 25 in flight.
//!
//! ```text
//! cargo run --release --example degrade -p limiter-tokio [-- --runs 5] [--paused]
//! ```
//!
//! `--paused` runs on tokio's paused clock (virtual time, deterministic); by default it runs on
//! the wall clock, as the seed's asyncio version did.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use limiter_core::{AimdConfig, Outcome, classify_fn};
use limiter_tokio::Limiter;
use tokio::time::Instant;

const BASE: Duration = Duration::from_millis(5);
const HARD_CAP: u32 = 25;
const DROP_AT: Duration = Duration::from_millis(250);
const ARRIVALS_UNTIL: Duration = Duration::from_millis(500);
const PER_TICK: usize = 2;

/// The dependency: capacity 16, then 4 from `DROP_AT` on.
struct Upstream {
    start: Instant,
    in_flight: AtomicU32,
}

/// What one call did: its service time, and whether it failed.
#[derive(Clone, Copy)]
struct Call {
    service: Duration,
    failed: bool,
}

impl Upstream {
    async fn call(&self) -> Call {
        let now = self.start.elapsed();
        let in_flight = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        let capacity = if now < DROP_AT { 16 } else { 4 };
        let (planned, failed) = if in_flight > HARD_CAP {
            (BASE, true)
        } else {
            (BASE * (1 + in_flight.saturating_sub(capacity)), false)
        };
        let began = Instant::now();
        tokio::time::sleep(planned).await;
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        Call {
            service: began.elapsed(),
            failed,
        }
    }
}

/// How the calls are admitted.
#[derive(Clone)]
enum Admission {
    Fixed(Arc<tokio::sync::Semaphore>),
    Adaptive(Limiter),
}

/// One run's figures.
struct Report {
    ok: usize,
    failed: usize,
    p95: Duration,
    final_limit: u32,
}

async fn run(admission: Admission) -> Report {
    let upstream = Arc::new(Upstream {
        start: Instant::now(),
        in_flight: AtomicU32::new(0),
    });
    let mut calls = Vec::new();
    let mut ticks = tokio::time::interval(Duration::from_millis(1));
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    // One tick per millisecond, the first at once: arrivals at 0, 1, … 499 ms, counted rather
    // than timed so a late tick on the wall clock neither adds nor loses one.
    for _ in 0..ARRIVALS_UNTIL.as_millis() {
        ticks.tick().await;
        for _ in 0..PER_TICK {
            let (admission, upstream) = (admission.clone(), upstream.clone());
            calls.push(tokio::spawn(async move {
                match admission {
                    Admission::Fixed(semaphore) => {
                        let _permit = semaphore.acquire().await.expect("never closed");
                        upstream.call().await
                    }
                    Admission::Adaptive(limiter) => {
                        let verdict = |call: &Call| {
                            if call.failed {
                                Outcome::Overload
                            } else {
                                Outcome::Success
                            }
                        };
                        limiter
                            .run(upstream.call(), classify_fn(verdict))
                            .await
                            .expect("the queue holds every arrival")
                    }
                }
            }));
        }
    }
    let mut services = Vec::with_capacity(calls.len());
    let mut failed = 0;
    for call in calls {
        let call = call.await.expect("no call panics");
        failed += usize::from(call.failed);
        services.push(call.service);
    }
    services.sort_unstable();
    let p95 = services[(services.len() * 95).div_ceil(100).saturating_sub(1)];
    Report {
        ok: services.len() - failed,
        failed,
        p95,
        final_limit: match admission {
            Admission::Fixed(_) => 16,
            Admission::Adaptive(limiter) => limiter.limit(),
        },
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let paused = args.iter().any(|a| a == "--paused");
    let runs: usize = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .map_or(5, |n| n.parse().expect("--runs takes a number"));

    println!(
        "seed 000 step 3 on tokio ({} clock): capacity 16 -> 4 at 250 ms, 2 calls/ms for 500 ms, {runs} runs",
        if paused { "paused" } else { "wall" }
    );
    println!(
        "{:<10} {:>4} {:>6} {:>6} {:>10} {:>12}",
        "limiter", "run", "ok", "fail", "p95 ms", "final limit"
    );
    for name in ["fixed 16", "AIMD"] {
        let mut p95s = Vec::new();
        let mut oks = Vec::new();
        let mut limits = Vec::new();
        for i in 0..runs {
            let mut builder = tokio::runtime::Builder::new_multi_thread();
            builder.enable_all().start_paused(paused);
            if paused {
                builder = tokio::runtime::Builder::new_current_thread();
                builder.enable_all().start_paused(true);
            }
            let runtime = builder.build().expect("a runtime");
            let report = runtime.block_on(async {
                let admission = if name == "AIMD" {
                    let config = AimdConfig::default().initial(16).bounds(1, 64);
                    Admission::Adaptive(Limiter::aimd(config).expect("valid"))
                } else {
                    Admission::Fixed(Arc::new(tokio::sync::Semaphore::new(16)))
                };
                run(admission).await
            });
            let p95 = report.p95.as_secs_f64() * 1e3;
            println!(
                "{name:<10} {:>4} {:>6} {:>6} {p95:>10.1} {:>12}",
                i + 1,
                report.ok,
                report.failed,
                report.final_limit
            );
            p95s.push(p95);
            oks.push(report.ok as f64);
            limits.push(f64::from(report.final_limit));
        }
        println!(
            "{name:<10} {:>4} {:>6.0} {:>6} {:>10.1} {:>12.0}",
            "med",
            median(oks),
            "",
            median(p95s),
            median(limits)
        );
    }
}
