//! Where a controller's work costs under contention: the `contended` workload (64 tasks on 2
//! workers, a limit of 8, 99,968 permits) with the same stand-in for a sample's work done in
//! three places, against tokio's semaphore and `Fixed(8)` alone, round after round as the
//! `contended` example runs its variants.
//!
//! ```text
//! cargo run --release -p limiter-bench --example placement               # 20 rounds, 38 steps
//! cargo run --release -p limiter-bench --example placement -- 30 100     # 30 rounds, 100 steps
//! ```
//!
//! The stand-in is a chain of dependent multiply-adds (`STEPS` of them, 38 by default: about
//! 275 instructions by `valgrind --tool=callgrind`, what `AimdF32`'s sample costs a contended
//! acquisition; it prints its own time per call alone). It runs
//! - under the gate's lock, as a controller's sample does (`Fixed(8)` wrapped in a controller
//!   whose `on_sample` runs it first);
//! - after the permit is released, under a mutex of its own, as a sample would under a lock
//!   the controller kept apart from the gate's;
//! - after the permit is released, under no lock.
//!
//! Each limiter's time is over the semaphore's in the same round; `AIMD in [8, 8]` is the
//! controller whose sample the stand-in stands for.

use std::hint::black_box;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use limiter_bench::{LIMIT, TASKS, interleaved, quantile, ratio_quartiles, semaphore_work};
use limiter_core::{
    AimdConfig, AimdF32, Change, Controller, ControllerStats, Epoch, Fixed, Sample,
};
use limiter_tokio::Limiter;

const PER_TASK: usize = 100_000 / TASKS;

/// How many multiply-adds the stand-in chains (the second argument).
static STEPS: AtomicU64 = AtomicU64::new(38);

/// The lock of the variant whose work runs under a mutex of its own.
static APART: Mutex<()> = Mutex::new(());

/// The stand-in for a sample's work: `STEPS` dependent multiply-adds. Out of line, so that it
/// is the same code in the three places (and counted apart by `valgrind --tool=callgrind`).
#[inline(never)]
fn work() {
    let mut x = 1u64;
    for i in 0..STEPS.load(Ordering::Relaxed) {
        x = black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i));
    }
    black_box(x);
}

/// `Fixed` with the stand-in run first in every sample: under the gate's lock.
struct Working(Fixed);

impl Controller for Working {
    fn limit(&self) -> u32 {
        self.0.limit()
    }
    fn epoch(&self) -> Epoch {
        self.0.epoch()
    }
    fn on_sample(&mut self, sample: &Sample) -> Change {
        work();
        self.0.on_sample(sample)
    }
    fn stats(&self) -> ControllerStats {
        self.0.stats()
    }
}

/// Where the stand-in runs, besides under the gate's lock.
#[derive(Clone, Copy)]
enum After {
    Nothing,
    Apart,
    Unlocked,
}

/// The contended workload on `limiter`, with the stand-in run `after` each release.
async fn workload<C: Controller + Send + 'static>(limiter: Limiter<C>, after: After) {
    let tasks: Vec<_> = (0..TASKS)
        .map(|_| {
            let limiter = limiter.clone();
            tokio::spawn(async move {
                for _ in 0..PER_TASK {
                    let permit = limiter.acquire().await.expect("a permit");
                    tokio::task::yield_now().await;
                    permit.success();
                    match after {
                        After::Nothing => {}
                        After::Apart => {
                            let _held = APART
                                .lock()
                                .unwrap_or_else(std::sync::PoisonError::into_inner);
                            work();
                        }
                        After::Unlocked => work(),
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("a task");
    }
    assert_eq!(limiter.in_flight(), 0);
    assert_eq!(limiter.limit(), LIMIT, "the label says the limit is 8");
}

/// The variants, in the order of the first round.
const VARIANTS: [&str; 6] = [
    "tokio Semaphore(8)",
    "Fixed(8)",
    "work under the gate's lock",
    "work under a lock apart",
    "work under no lock",
    "AIMD in [8, 8]",
];

/// One run of variant `i` on `runtime`, timed.
fn run(runtime: &tokio::runtime::Runtime, i: usize) -> Duration {
    let fixed = || Fixed::new(LIMIT).expect("valid");
    let start = Instant::now();
    match i {
        0 => runtime.block_on(semaphore_work(PER_TASK)),
        1 => runtime.block_on(workload(Limiter::new(fixed()), After::Nothing)),
        2 => runtime.block_on(workload(Limiter::new(Working(fixed())), After::Nothing)),
        3 => runtime.block_on(workload(Limiter::new(fixed()), After::Apart)),
        4 => runtime.block_on(workload(Limiter::new(fixed()), After::Unlocked)),
        _ => {
            let held = AimdConfig::default().initial(LIMIT).bounds(LIMIT, LIMIT);
            let limiter = Limiter::new(AimdF32::new(held).expect("valid"));
            runtime.block_on(workload(limiter, After::Nothing));
        }
    }
    start.elapsed()
}

fn main() {
    let rounds = limiter_bench::rounds_argument("placement");
    match std::env::args().nth(2).map(|s| s.parse::<u64>()) {
        None => {}
        Some(Ok(steps)) => STEPS.store(steps, Ordering::Relaxed),
        Some(Err(_)) => {
            eprintln!("usage: placement [ROUNDS [STEPS]], STEPS a whole number");
            std::process::exit(2);
        }
    }
    let calls = 1_000_000u32;
    let start = Instant::now();
    for _ in 0..calls {
        work();
    }
    let alone = start.elapsed().as_secs_f64() * 1e9 / f64::from(calls);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .expect("a runtime");
    let times = interleaved(VARIANTS.len(), rounds, |i| run(&runtime, i));
    println!(
        "{rounds} rounds; each: {TASKS} tasks on 2 workers, {} permits of a limit of {LIMIT}; \
         the work: {} multiply-adds, {alone:.1} ns a call alone",
        TASKS * PER_TASK,
        STEPS.load(Ordering::Relaxed)
    );
    println!(
        "{:<28} {:>10} {:>26}",
        "variant", "median ms", "time / semaphore's, q1 med q3"
    );
    for (i, name) in VARIANTS.iter().enumerate() {
        let mut ms: Vec<f64> = times[i].iter().map(|t| t.as_secs_f64() * 1e3).collect();
        let median = quantile(&mut ms, 0.5);
        let (q1, med, q3) = ratio_quartiles(&times[i], &times[0]);
        println!("{name:<28} {median:>10.1} {q1:>8.2} {med:>8.2} {q3:>8.2}");
    }
}
