//! The contract suite on tokio's multi-threaded runtime.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use limiter_contract::{Adapter, Panicked, contract_tests};
use limiter_core::Fixed;
use limiter_tokio::{Limiter, SharedGate};

struct Tokio;

impl Adapter for Tokio {
    limiter_contract::std_limiter_side!(Limiter<Fixed>, Arc<SharedGate<Fixed>>);

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
