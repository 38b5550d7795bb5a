//! The contended bench's three variants run in turn, round after round, on one runtime: the
//! ratio of each limiter's time to the semaphore's *in the same round*, and its median over the
//! rounds.
//!
//! ```text
//! cargo run --release -p limiter-bench --example contended          # 20 rounds
//! cargo run --release -p limiter-bench --example contended -- 50    # 50 rounds
//! ```
//!
//! Why beside criterion's `contended` group: there each variant is measured in a block of its
//! own, one after the other, and on a machine of two cores the two workers' speed drifts between
//! blocks (tokio's semaphore alone took 27.5 ms in one run and 47.2 ms in the next, the same
//! code), so the ratio of two medians from different blocks moves by more than the difference it
//! is meant to show. Here every round runs all three back to back, in an order that rotates from
//! round to round, so a drift slower than a round moves the three alike and cancels in the
//! round's ratios.
//!
//! Each variant: 64 tasks on 2 worker threads take 99,968 permits of a limit of 8 (1,562 each),
//! yielding while they hold one; the limiter's tasks record a success on each. The limit is
//! checked to be 8 at the end of every round.

use std::time::{Duration, Instant};

use limiter_bench::{LIMIT, TASKS, interleaved, limiter_work, semaphore_work};
use limiter_core::{AimdConfig, AimdF32, Fixed};
use limiter_tokio::Limiter;

const PER_TASK: usize = 100_000 / TASKS;

/// The variants, in the order of the first round.
const VARIANTS: [&str; 3] = ["tokio Semaphore(8)", "Fixed(8)", "AIMD in [8, 8]"];

/// One run of variant `i` on `runtime`, timed.
fn run(runtime: &tokio::runtime::Runtime, i: usize) -> Duration {
    let start = Instant::now();
    match i {
        0 => runtime.block_on(semaphore_work(PER_TASK)),
        1 => {
            let limiter = Limiter::new(Fixed::new(LIMIT).expect("valid"));
            runtime.block_on(limiter_work(limiter, PER_TASK));
        }
        _ => {
            let held = AimdConfig::default().initial(LIMIT).bounds(LIMIT, LIMIT);
            let limiter = Limiter::new(AimdF32::new(held).expect("valid"));
            runtime.block_on(limiter_work(limiter, PER_TASK));
        }
    }
    start.elapsed()
}

fn main() {
    let rounds = limiter_bench::rounds_argument("contended");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .expect("a runtime");
    // The warm-up round warms the runtime's threads and allocations.
    let times = interleaved(VARIANTS.len(), rounds, |i| run(&runtime, i));
    println!(
        "{rounds} rounds; each: {TASKS} tasks on 2 workers, {} permits of a limit of {LIMIT}",
        TASKS * PER_TASK
    );
    limiter_bench::print_against_first(&VARIANTS, &times);
}
