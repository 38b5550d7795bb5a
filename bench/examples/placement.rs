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

use limiter_bench::{LIMIT, TASKS, interleaved, limiter_work, limiter_work_then, semaphore_work};
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

/// The stand-in under a mutex of its own, after a release.
fn apart() {
    let _held = APART
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    work();
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
        1 => runtime.block_on(limiter_work(Limiter::new(fixed()), PER_TASK)),
        2 => runtime.block_on(limiter_work(Limiter::new(Working(fixed())), PER_TASK)),
        3 => runtime.block_on(limiter_work_then(Limiter::new(fixed()), PER_TASK, apart)),
        4 => runtime.block_on(limiter_work_then(Limiter::new(fixed()), PER_TASK, work)),
        _ => {
            let held = AimdConfig::default().initial(LIMIT).bounds(LIMIT, LIMIT);
            let limiter = Limiter::new(AimdF32::new(held).expect("valid"));
            runtime.block_on(limiter_work(limiter, PER_TASK));
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
    limiter_bench::print_against_first(&VARIANTS, &times);
}
