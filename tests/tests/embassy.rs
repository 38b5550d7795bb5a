//! The workspace contract suite on the embassy adapter, on the host: embassy-time's std driver
//! for timers and timeouts, a `futures` thread pool for tasks, a critical section from
//! `critical-section`'s std implementation. Limiters are leaked to get the `&'static` that
//! firmware gets from a `static`.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::OnceLock;
use std::time::Duration;

use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use futures::FutureExt;
use futures::executor::ThreadPool;
use futures::task::SpawnExt;
use limiter_contract::{Adapter, Panicked, contract_tests};
use limiter_core::{
    Fixed, Outcome, Permit, QueueFull, ScopedPermit, Snapshot, Verdict, classify_fn,
};
use limiter_embassy::{EmbassyGate, Limiter};

const QUEUE: usize = 1024;
type Shared = Limiter<Fixed, CriticalSectionRawMutex, QUEUE>;

fn pool() -> &'static ThreadPool {
    static POOL: OnceLock<ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        ThreadPool::builder()
            .pool_size(2)
            .create()
            .expect("a thread pool")
    })
}

fn embassy(duration: Duration) -> embassy_time::Duration {
    embassy_time::Duration::from_micros(u64::try_from(duration.as_micros()).unwrap_or(u64::MAX))
}

struct Embassy;

impl Adapter for Embassy {
    type Limiter = &'static Shared;
    type Handle = &'static EmbassyGate<Fixed, CriticalSectionRawMutex, QUEUE>;

    fn new(limit: u32) -> Self::Limiter {
        Box::leak(Box::new(limiter_embassy::new(Fixed::new(limit).unwrap())))
    }

    fn set_limit(limiter: &Self::Limiter, limit: u32) {
        limiter.with_controller(|c| c.set_limit(limit)).unwrap();
    }

    fn snapshot(limiter: &Self::Limiter) -> Snapshot {
        limiter.snapshot()
    }

    fn try_acquire(limiter: &Self::Limiter) -> Option<Permit<Self::Handle>> {
        limiter.try_acquire().ok()
    }

    fn acquire(
        limiter: &Self::Limiter,
    ) -> impl Future<Output = Result<Permit<Self::Handle>, QueueFull>> + Send + 'static {
        let limiter: &'static Shared = limiter;
        limiter.acquire()
    }

    fn acquire_timeout(
        limiter: &Self::Limiter,
        timeout: Duration,
    ) -> impl Future<Output = bool> + Send + 'static {
        let limiter: &'static Shared = limiter;
        async move {
            match limiter.acquire_timeout(timeout).await {
                Ok(permit) => {
                    permit.success();
                    true
                }
                Err(_) => false,
            }
        }
    }

    fn run<F>(
        limiter: &Self::Limiter,
        call: F,
    ) -> impl Future<Output = Result<F::Output, QueueFull>> + Send + 'static
    where
        F: Future + Send + 'static,
        F::Output: Send,
    {
        let limiter: &'static Shared = limiter;
        limiter.run(call, classify_fn(|_: &F::Output| Outcome::Success))
    }

    fn run_retry_after(
        limiter: &Self::Limiter,
        delay: Duration,
    ) -> impl Future<Output = Result<(), QueueFull>> + Send + 'static {
        let limiter: &'static Shared = limiter;
        let throttled =
            classify_fn(move |(): &()| Verdict::new(Outcome::Overload).retry_after(delay));
        limiter.run(async {}, throttled)
    }

    fn acquire_scoped(
        key: &Self::Limiter,
        global: &Self::Limiter,
    ) -> impl Future<Output = Result<ScopedPermit<Self::Handle, Self::Handle>, QueueFull>> + Send + 'static
    {
        let (key, global): (&'static Shared, &'static Shared) = (key, global);
        key.acquire_within(global)
    }

    fn block_on<F: Future + Send + 'static>(future: F) -> F::Output
    where
        F::Output: Send,
    {
        futures::executor::block_on(future)
    }

    fn spawn<F>(future: F) -> impl Future<Output = Result<F::Output, Panicked>> + Send + 'static
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let task = pool()
            .spawn_with_handle(AssertUnwindSafe(future).catch_unwind())
            .expect("the pool accepts tasks");
        async move { task.await.map_err(|_| Panicked) }
    }

    async fn sleep(duration: Duration) {
        embassy_time::Timer::after(embassy(duration)).await;
    }

    async fn timeout<F>(duration: Duration, future: F) -> Option<F::Output>
    where
        F: Future + Send,
    {
        embassy_time::with_timeout(embassy(duration), future)
            .await
            .ok()
    }
}

contract_tests!(Embassy);
