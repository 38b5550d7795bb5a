//! One permit's whole life, `CYCLES` times: for `valgrind --tool=callgrind`, whose instruction
//! counts do not move with machine noise.
//!
//! ```text
//! cargo build --release -p limiter-bench --example cycle
//! valgrind --tool=callgrind target/release/examples/cycle           # AIMD (the std default)
//! valgrind --tool=callgrind target/release/examples/cycle fixed     # a fixed limit of 64
//! valgrind --tool=callgrind target/release/examples/cycle floor     # tokio's semaphore, 2 clock reads
//! valgrind --tool=callgrind target/release/examples/cycle try-drop  # AIMD: `try_acquire` + drop
//! valgrind --tool=callgrind target/release/examples/cycle floor-try # its floor: semaphore, 1 read
//! valgrind --tool=callgrind target/release/examples/cycle contended-fixed      # the contended bench,
//! valgrind --tool=callgrind target/release/examples/cycle contended-semaphore  # once each
//! valgrind --tool=callgrind target/release/examples/cycle contended-local-fixed      # the same,
//! valgrind --tool=callgrind target/release/examples/cycle contended-local-semaphore  # one thread
//! valgrind --tool=callgrind target/release/examples/cycle contended-local-aimd  # AIMD in [8, 8]
//! ```
//!
//! A second argument sets how many cycles the uncontended variants run (100,000 by default), for
//! timing them without valgrind: `time target/release/examples/cycle try-drop 20000000`.
//!
//! The three together split a cycle's cost: `floor` is what a latency-measuring limiter cannot
//! avoid (a permit and the two clock reads), `fixed` adds the gate's bookkeeping, and the default
//! adds the controller's sample.

use std::hint::black_box;

use limiter_core::{AimdConfig, AimdF32, Clock, Controller, Fixed};
use limiter_tokio::{Limiter, TokioClock};

/// Cycles of an uncontended variant, unless the second argument says otherwise; the contended
/// variants take this many permits (to the nearest multiple of the tasks).
const CYCLES: u32 = 100_000;

/// The controller under test: the std default, AIMD, starting at 8.
fn aimd() -> AimdF32 {
    AimdF32::new(AimdConfig::default().initial(8)).expect("valid")
}

/// `n` full cycles (`try_acquire`, a success, release) through a limiter of `controller`.
fn cycles<C: Controller + Send + 'static>(controller: C, n: u32) -> u32 {
    let limiter = Limiter::new(controller);
    for _ in 0..n {
        black_box(limiter.try_acquire().expect("room")).success();
    }
    limiter.limit()
}

/// The contended bench's work once (instructions of both workers together): 64 tasks on 2
/// workers take 99,968 permits (1,562 each) of a limit of 8, yielding while they hold one,
/// from tokio's semaphore, a `Fixed(8)` limiter or one of AIMD bounded to `[8, 8]`. The
/// `-local` variants run the same tasks on one thread: the same queueing, grants and claims, in
/// an order that does not depend on how two threads interleave, so their counts repeat from run
/// to run (the two workers' do not: they move by several percent with the machine's load).
/// AIMD's local count moved by about 1 % while its window was ordered to look for medians under
/// the baseline floor, whose latencies are the clock's; it repeats since (2,317 per acquisition
/// in each of three runs). Returns how many permits were taken.
fn contended(what: &str) -> usize {
    let runtime = if what.contains("-local") {
        tokio::runtime::Builder::new_current_thread().build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
    }
    .expect("a runtime");
    let per_task = CYCLES as usize / limiter_bench::TASKS;
    if what.ends_with("-fixed") {
        let limiter = Limiter::new(Fixed::new(limiter_bench::LIMIT).expect("valid"));
        runtime.block_on(limiter_bench::limiter_work(limiter, per_task));
    } else if what.ends_with("-aimd") {
        let held = AimdConfig::default()
            .initial(limiter_bench::LIMIT)
            .bounds(limiter_bench::LIMIT, limiter_bench::LIMIT);
        let limiter = Limiter::new(AimdF32::new(held).expect("valid"));
        runtime.block_on(limiter_bench::limiter_work(limiter, per_task));
    } else {
        runtime.block_on(limiter_bench::semaphore_work(per_task));
    }
    per_task * limiter_bench::TASKS
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let _entered = runtime.enter();
    let what = std::env::args().nth(1).unwrap_or_default();
    let n: u32 = match std::env::args().nth(2).map(|n| n.parse()) {
        None => CYCLES,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("usage: cycle [VARIANT [CYCLES]], CYCLES at least 1");
            std::process::exit(2);
        }
    };
    let limit = match what.as_str() {
        "fixed" => cycles(Fixed::new(64).expect("valid"), n),
        "floor" => {
            // The floor of the criterion benches: a semaphore permit and two reads of the
            // limiter's clock, one at admission and one at completion.
            let semaphore = tokio::sync::Semaphore::new(64);
            let clock = TokioClock::new();
            for _ in 0..n {
                let permit = black_box(semaphore.try_acquire().expect("room"));
                let admitted = black_box(clock.now());
                black_box(clock.now().micros_since(admitted));
                drop(permit);
            }
            64
        }
        "" | "aimd" => cycles(aimd(), n),
        "try-drop" => {
            // `try_acquire` and a drop without an outcome (the call was abandoned), AIMD.
            let limiter = Limiter::new(aimd());
            for _ in 0..n {
                drop(black_box(limiter.try_acquire().expect("room")));
            }
            limiter.limit()
        }
        "floor-try" => {
            // The floor of `try_acquire` + drop: a semaphore permit and one clock read.
            let semaphore = tokio::sync::Semaphore::new(64);
            let clock = TokioClock::new();
            for _ in 0..n {
                let permit = black_box(semaphore.try_acquire().expect("room"));
                black_box(clock.now());
                drop(permit);
            }
            64
        }
        "contended-semaphore"
        | "contended-fixed"
        | "contended-aimd"
        | "contended-local-semaphore"
        | "contended-local-fixed"
        | "contended-local-aimd" => {
            let taken = contended(&what);
            println!(
                "{taken} permits taken in {what:?}, limit {}",
                limiter_bench::LIMIT
            );
            return;
        }
        other => {
            eprintln!(
                "unknown variant {other}: aimd (the default), fixed, floor, try-drop, \
                 floor-try, contended[-local]-fixed, contended[-local]-aimd or \
                 contended[-local]-semaphore"
            );
            std::process::exit(2);
        }
    };
    println!("{n} cycles of {what:?}, limit {limit}");
}
