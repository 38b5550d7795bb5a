//! Permits against tokio's and async-lock's semaphores, in one run.
//!
//! `cargo bench -p limiter-bench`, then `python3 scripts/bench-ratios.py` for the ratios.
//!
//! - `uncontended/*`: `try_acquire` and drop, one thread; `floor` is tokio's semaphore plus the
//!   one clock read an admission needs (the limiter's own clock, `TokioClock`);
//!   `tokio-clock-now` is that read alone (tokio's `Instant::now` and its conversion to the
//!   core's microseconds).
//! - `cycle/*`: `try_acquire`, record a success, release: the whole life of a permit. `floor`
//!   is tokio's semaphore plus the two clock reads a latency-measuring limiter cannot avoid;
//!   `congestion-limiter` is that crate's `DefaultLimiter` over its AIMD, `try_acquire` and
//!   `release` with a success, each future polled once (both are ready at once);
//!   `limiter-fixed` is the same cycle with a `Fixed(8)` controller: the gate and the clock
//!   reads without a controller's work.
//!
//! The controller under test is the std adapters' default, `AimdF32`. tokio's clock is the one
//! users get: nothing in this crate enables tokio's `test-util` (run it alone, `-p
//! limiter-bench`, so that no other crate's dev-dependencies unify it in).
//! - `contended/*`: 64 tasks on 2 worker threads take 99,968 permits (1,562 each) of a limit
//!   held at 8: a semaphore of 8, a `Fixed(8)` limiter, and AIMD bounded to `[8, 8]` (each run
//!   checks that its limit is still 8 at the end).
//! - `window/*`: the controller's own cost per sample, without a gate or a clock: one
//!   `MedianWindow<32>::push` into a full window, and one whole `AimdF32::on_sample` (its
//!   window, baseline, verdict and growth) at a steady latency.

use std::hint::black_box;

use congestion_limiter::limiter::{DefaultLimiter, Limiter as _, Outcome as PeerOutcome};
use congestion_limiter::limits::Aimd as PeerAimd;

use criterion::{Criterion, criterion_main};
use limiter_core::{
    Admission, AimdF32, Clock, Controller, Fixed, Gate, HeapQueue, Instant, ManualClock,
    MedianWindow, Outcome, Sample, StdRawMutex,
};
use limiter_tokio::Limiter;

use limiter_bench::{LIMIT, ready_now};

fn limiter() -> Limiter {
    Limiter::new(AimdF32::new(limiter_core::AimdConfig::default().initial(LIMIT)).unwrap())
}

fn uncontended(c: &mut Criterion) {
    let mut g = c.benchmark_group("uncontended");
    let tokio = tokio::sync::Semaphore::new(LIMIT as usize);
    g.bench_function("tokio-semaphore", |b| {
        b.iter(|| drop(black_box(tokio.try_acquire().unwrap())));
    });
    let async_lock = async_lock::Semaphore::new(LIMIT as usize);
    g.bench_function("async-lock-semaphore", |b| {
        b.iter(|| drop(black_box(async_lock.try_acquire().unwrap())));
    });
    let ours = limiter();
    g.bench_function("limiter", |b| {
        b.iter(|| drop(black_box(ours.try_acquire().unwrap())));
    });
    // The same gate with a clock that costs nothing: the bookkeeping alone.
    let clock = ManualClock::new();
    let gate: Gate<StdRawMutex, _, _, HeapQueue> = Gate::new(
        AimdF32::new(limiter_core::AimdConfig::default().initial(LIMIT)).unwrap(),
        &clock,
    );
    g.bench_function("limiter-without-clock", |b| {
        b.iter(|| drop(black_box(gate.try_acquire().unwrap())));
    });
    let tokio_clock = limiter_tokio::TokioClock::new();
    // The limiter's clock read: tokio's `Instant::now` and its conversion to the core's micros.
    g.bench_function("tokio-clock-now", |b| {
        b.iter(|| black_box(tokio_clock.now()));
    });
    g.bench_function("floor", |b| {
        b.iter(|| {
            let permit = black_box(tokio.try_acquire().unwrap());
            black_box(tokio_clock.now());
            drop(permit);
        });
    });
    g.finish();
}

fn window(c: &mut Criterion) {
    let mut g = c.benchmark_group("window");
    // Latencies around 10 ms with a few hundred microseconds of spread, so every push moves
    // the sorted copy; the window is full, so each push also evicts the oldest.
    let mut window = MedianWindow::<32>::new();
    let mut x = 0x9e37_79b9_u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        10_000 + x % 512
    };
    for _ in 0..32 {
        window.push(next());
    }
    g.bench_function("median-window-32-push", |b| {
        b.iter(|| window.push(black_box(next())));
    });
    let mut aimd = AimdF32::new(limiter_core::AimdConfig::default().initial(LIMIT)).unwrap();
    let mut at = 0u64;
    g.bench_function("aimd-f32-on-sample", |b| {
        b.iter(|| {
            let admitted = Admission::new(&aimd, Instant::from_micros(at), LIMIT);
            at += 10_000;
            let sample = Sample::new(admitted, Instant::from_micros(at), Outcome::Success);
            black_box(aimd.on_sample(black_box(&sample)))
        });
    });
    g.finish();
}

fn cycle(c: &mut Criterion) {
    let mut g = c.benchmark_group("cycle");
    let tokio = tokio::sync::Semaphore::new(LIMIT as usize);
    g.bench_function("tokio-semaphore", |b| {
        b.iter(|| drop(black_box(tokio.try_acquire().unwrap())));
    });
    let clock = limiter_tokio::TokioClock::new();
    g.bench_function("floor", |b| {
        b.iter(|| {
            let permit = black_box(tokio.try_acquire().unwrap());
            let admitted = black_box(clock.now());
            black_box(clock.now().micros_since(admitted));
            drop(permit);
        });
    });
    let ours = limiter();
    g.bench_function("limiter", |b| {
        b.iter(|| black_box(ours.try_acquire().unwrap()).success());
    });
    // The same gate and clock with a controller that does nothing per sample: what the
    // controller's sample costs is `limiter` less this.
    let fixed = Limiter::new(Fixed::new(LIMIT).unwrap());
    g.bench_function("limiter-fixed", |b| {
        b.iter(|| black_box(fixed.try_acquire().unwrap()).success());
    });
    let peer = DefaultLimiter::new(PeerAimd::new_with_initial_limit(LIMIT as usize));
    g.bench_function("congestion-limiter", |b| {
        b.iter(|| {
            let token = ready_now(peer.try_acquire()).unwrap();
            black_box(ready_now(peer.release(token, Some(PeerOutcome::Success))));
        });
    });
    g.finish();
}

const ACQUISITIONS: usize = 100_000;

fn contended(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let per_task = ACQUISITIONS / limiter_bench::TASKS;
    let mut g = c.benchmark_group("contended");
    g.sample_size(10);
    g.bench_function("tokio-semaphore", |b| {
        b.iter(|| runtime.block_on(limiter_bench::semaphore_work(per_task)));
    });
    g.bench_function("limiter-fixed-8", |b| {
        b.iter(|| {
            let limiter = Limiter::new(Fixed::new(LIMIT).unwrap());
            runtime.block_on(limiter_bench::limiter_work(limiter, per_task));
        });
    });
    let held = limiter_core::AimdConfig::default()
        .initial(LIMIT)
        .bounds(LIMIT, LIMIT);
    g.bench_function("limiter-aimd-bounded-8", |b| {
        b.iter(|| {
            let limiter = Limiter::new(AimdF32::new(held).unwrap());
            runtime.block_on(limiter_bench::limiter_work(limiter, per_task));
        });
    });
    g.finish();
}

mod group {
    #![allow(missing_docs)]
    use super::{contended, cycle, uncontended, window};
    criterion::criterion_group!(benches, uncontended, cycle, contended, window);
}
use group::benches;
criterion_main!(benches);
