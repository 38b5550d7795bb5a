//! The permit benchmarks of `limiter-tokio` (`benches/permits.rs`): the limiter against the
//! floor a latency-measuring limiter cannot go below, congestion-limiter and tokio's semaphore,
//! in one criterion run. This library holds only the contended workload the benchmarks and the
//! examples share; the crate exists so that the benchmarks build
//! without tokio's `test-util`, which the adapters' tests need and which slows every read of
//! tokio's clock.
//!
//! ```text
//! cargo bench -p limiter-bench
//! python3 scripts/bench-ratios.py
//! ```
//!
//! Three examples measure what criterion's blocks cannot: `cycle` runs one variant for
//! `valgrind --tool=callgrind` (instruction counts, which do not move with the machine's
//! noise), and `contended` and `uncontended` run their variants back to back, round after
//! round, and report each ratio within the same round (a drift of the machine between
//! criterion's blocks moves their ratio more than the difference it shows).
//!
//! ```text
//! cargo run --release -p limiter-bench --example contended -- 50
//! cargo run --release -p limiter-bench --example uncontended -- 20
//! ```

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use limiter_core::Controller;
use limiter_tokio::Limiter;

/// How many tasks contend in the contended workload.
pub const TASKS: usize = 64;
/// The limit they contend for.
pub const LIMIT: u32 = 8;

/// What each task of the contended workload does once: take a permit, yield while holding
/// it, give it back.
trait Take: Clone + Send + Sync + 'static {
    fn take(&self) -> impl Future<Output = ()> + Send + '_;
}

impl Take for Arc<tokio::sync::Semaphore> {
    async fn take(&self) {
        let permit = self.acquire().await.expect("open");
        tokio::task::yield_now().await;
        drop(permit);
    }
}

/// A limiter whose tasks run a function of their own once each permit is released.
struct Then<C>(Limiter<C>, fn());

impl<C> Clone for Then<C> {
    fn clone(&self) -> Self {
        Then(self.0.clone(), self.1)
    }
}

impl<C: Controller + Send + 'static> Take for Then<C> {
    async fn take(&self) {
        let permit = self.0.acquire().await.expect("a permit");
        tokio::task::yield_now().await;
        permit.success();
        (self.1)();
    }
}

/// Spawns [`TASKS`] tasks, each with its own handle to `permits`, each taking a permit
/// `per_task` times, and waits for them all.
async fn in_tasks<P: Take>(permits: &P, per_task: usize) {
    let tasks: Vec<_> = (0..TASKS)
        .map(|_| {
            let permits = permits.clone();
            tokio::spawn(async move {
                for _ in 0..per_task {
                    permits.take().await;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("a task");
    }
}

/// The contended workload on tokio's semaphore of [`LIMIT`] permits: [`TASKS`] tasks each take
/// a permit `per_task` times, yielding while they hold it.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// limiter_bench::semaphore_work(2).await;
/// # });
/// ```
pub async fn semaphore_work(per_task: usize) {
    in_tasks(
        &Arc::new(tokio::sync::Semaphore::new(LIMIT as usize)),
        per_task,
    )
    .await;
}

/// The same workload on `limiter`, each permit recording a success; then checks that nothing
/// is left in flight and that the limit is still [`LIMIT`] (what the benchmarks' labels say).
///
/// # Panics
///
/// If a permit is left in flight, or the limit is not [`LIMIT`] at the end (a controller whose
/// limit moved: the measurement would not be of a limit of 8).
///
/// ```
/// use limiter_core::Fixed;
/// use limiter_tokio::Limiter;
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// limiter_bench::limiter_work(Limiter::new(Fixed::new(8).unwrap()), 2).await;
/// # });
/// ```
pub async fn limiter_work<C: Controller + Send + 'static>(limiter: Limiter<C>, per_task: usize) {
    limiter_work_then(limiter, per_task, || {}).await;
}

/// [`limiter_work`], each task running `after` once each of its permits is released (outside
/// the limiter's locks): the `placement` example's work done elsewhere.
///
/// # Panics
///
/// As [`limiter_work`].
///
/// ```
/// use limiter_core::Fixed;
/// use limiter_tokio::Limiter;
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// limiter_bench::limiter_work_then(Limiter::new(Fixed::new(8).unwrap()), 2, || {}).await;
/// # });
/// ```
pub async fn limiter_work_then<C: Controller + Send + 'static>(
    limiter: Limiter<C>,
    per_task: usize,
    after: fn(),
) {
    in_tasks(&Then(limiter.clone(), after), per_task).await;
    assert_eq!(limiter.in_flight(), 0);
    assert_eq!(limiter.limit(), LIMIT, "the label says the limit is 8");
}

/// Prints each variant's median time over the rounds and the quartiles of its time over the
/// first variant's (the semaphore's), round by round, from [`interleaved`]'s `times`.
///
/// # Panics
///
/// If a variant has no rounds, or there are fewer names than variants.
pub fn print_against_first(names: &[&str], times: &[Vec<Duration>]) {
    let width = names.iter().map(|n| n.len()).max().unwrap_or(0).max(20);
    println!(
        "{:<width$} {:>10} {:>26}",
        "variant", "median ms", "time / semaphore's, q1 med q3"
    );
    for (i, variant) in times.iter().enumerate() {
        let mut ms: Vec<f64> = variant.iter().map(|t| t.as_secs_f64() * 1e3).collect();
        let median = quantile(&mut ms, 0.5);
        let (q1, med, q3) = ratio_quartiles(variant, &times[0]);
        println!(
            "{:<width$} {median:>10.1} {q1:>8.2} {med:>8.2} {q3:>8.2}",
            names[i]
        );
    }
}

/// Polls `future` once; the benchmarks' futures are ready at once (the peer's, uncontended).
///
/// # Panics
///
/// If the future is not ready at its first poll.
pub fn ready_now<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the future was expected to be ready at once"),
    }
}

/// The value at `q` (0 to 1) of `values`, sorted in place (nearest rank).
///
/// # Panics
///
/// If `values` is empty.
pub fn quantile(values: &mut [f64], q: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    let rank = ((values.len() - 1) as f64 * q).round() as usize;
    values[rank]
}

/// The number of rounds an interleaving example was asked for (its first argument), 20 if
/// none; exits with a usage line naming `example` if it is not a positive number.
pub fn rounds_argument(example: &str) -> usize {
    match std::env::args().nth(1).map(|n| n.parse()) {
        None => 20,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("usage: {example} [ROUNDS], ROUNDS at least 1");
            std::process::exit(2);
        }
    }
}

/// Runs `variants` variants (`run(i)` runs variant `i` once and says how long it took) in
/// `rounds` rounds after one unmeasured warm-up round, each round in an order that rotates
/// from round to round, so that a drift of the machine slower than a round moves every variant
/// of the round alike. Returns each variant's times, round by round.
pub fn interleaved(
    variants: usize,
    rounds: usize,
    mut run: impl FnMut(usize) -> Duration,
) -> Vec<Vec<Duration>> {
    for i in 0..variants {
        run(i);
    }
    let mut times = vec![Vec::with_capacity(rounds); variants];
    for round in 0..rounds {
        for k in 0..variants {
            let i = (round + k) % variants;
            times[i].push(run(i));
        }
    }
    times
}

/// The quartiles (q1, median, q3) of `a / b` taken round by round over two variants' times
/// from [`interleaved`].
///
/// # Panics
///
/// If there are no rounds.
pub fn ratio_quartiles(a: &[Duration], b: &[Duration]) -> (f64, f64, f64) {
    let mut ratios: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(x, y)| x.as_secs_f64() / y.as_secs_f64())
        .collect();
    (
        quantile(&mut ratios, 0.25),
        quantile(&mut ratios, 0.5),
        quantile(&mut ratios, 0.75),
    )
}
