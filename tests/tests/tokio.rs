//! The contract suite on tokio's multi-threaded runtime.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use limiter_contract::{Adapter, Panicked, contract_tests};
use limiter_core::{Fixed, Outcome, Permit, QueueFull, ScopedPermit, Snapshot, classify_fn};
use limiter_tokio::{Limiter, SharedGate};

struct Tokio;

impl Adapter for Tokio {
    type Limiter = Limiter<Fixed>;
    type Handle = Arc<SharedGate<Fixed, { limiter_tokio::DEFAULT_QUEUE }>>;

    fn new(limit: u32) -> Self::Limiter {
        Limiter::new(Fixed::new(limit).unwrap())
    }

    fn set_limit(limiter: &Self::Limiter, limit: u32) {
        limiter.with_controller(|c| c.set_limit(limit)).unwrap();
    }

    fn snapshot(limiter: &Self::Limiter) -> Snapshot {
        limiter.snapshot()
    }

    fn try_acquire(limiter: &Self::Limiter) -> Option<Permit<Self::Handle>> {
        limiter.try_acquire_owned().ok()
    }

    fn acquire(
        limiter: &Self::Limiter,
    ) -> impl Future<Output = Result<Permit<Self::Handle>, QueueFull>> + Send + 'static {
        limiter.acquire_owned()
    }

    fn acquire_timeout(
        limiter: &Self::Limiter,
        timeout: Duration,
    ) -> impl Future<Output = bool> + Send + 'static {
        let limiter = limiter.clone();
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
        let limiter = limiter.clone();
        async move {
            limiter
                .run(call, classify_fn(|_: &F::Output| Outcome::Success))
                .await
        }
    }

    fn acquire_scoped(
        key: &Self::Limiter,
        global: &Self::Limiter,
    ) -> impl Future<Output = Result<ScopedPermit<Self::Handle, Self::Handle>, QueueFull>> + Send + 'static
    {
        key.acquire_within(global)
    }

    fn block_on<F: Future + Send + 'static>(future: F) -> F::Output
    where
        F::Output: Send,
    {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
            .block_on(future)
    }

    fn spawn<F>(future: F) -> impl Future<Output = Result<F::Output, Panicked>> + Send + 'static
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let task = tokio::spawn(future);
        async move { task.await.map_err(|_| Panicked) }
    }

    fn sleep(duration: Duration) -> impl Future<Output = ()> + Send + 'static {
        tokio::time::sleep(duration)
    }

    async fn timeout<F>(duration: Duration, future: F) -> Option<F::Output>
    where
        F: Future + Send,
    {
        tokio::time::timeout(duration, future).await.ok()
    }
}

contract_tests!(Tokio);
