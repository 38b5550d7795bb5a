//! The workspace contract suite on smol (a two-thread executor) and on async-std.
//!
//! The limiter side of the adapter is the same for both; only the runtime differs.

use std::future::Future;
use std::marker::PhantomData;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use limiter_contract::{Adapter, Panicked, contract_tests};
use limiter_core::Fixed;
use limiter_smol::{Limiter, SharedGate};

/// What differs between executors.
trait Runtime: 'static {
    fn block_on<F: Future + Send + 'static>(future: F) -> F::Output
    where
        F::Output: Send;
    fn spawn<F>(future: F) -> impl Future<Output = Option<F::Output>> + Send + 'static
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static;
}

struct On<R>(PhantomData<R>);

impl<R: Runtime> Adapter for On<R> {
    limiter_contract::std_limiter_side!(Limiter<Fixed>, Arc<SharedGate<Fixed>>);

    fn block_on<F: Future + Send + 'static>(future: F) -> F::Output
    where
        F::Output: Send,
    {
        R::block_on(future)
    }

    fn spawn<F>(future: F) -> impl Future<Output = Result<F::Output, Panicked>> + Send + 'static
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        // A panic is caught inside the task, so every executor reports it the same way.
        let task = R::spawn(AssertUnwindSafe(future).catch_unwind());
        async move {
            match task.await {
                Some(Ok(output)) => Ok(output),
                _ => Err(Panicked),
            }
        }
    }

    async fn sleep(duration: Duration) {
        async_io::Timer::after(duration).await;
    }

    async fn timeout<F>(duration: Duration, future: F) -> Option<F::Output>
    where
        F: Future + Send,
    {
        let expired = async {
            async_io::Timer::after(duration).await;
            None
        };
        futures_lite::future::or(async { Some(future.await) }, expired).await
    }
}

/// smol's executor on two threads of its own, plus the thread that blocks on the test.
mod smol_runtime {
    use super::*;
    use std::sync::OnceLock;

    fn executor() -> &'static smol::Executor<'static> {
        static EXECUTOR: OnceLock<&'static smol::Executor<'static>> = OnceLock::new();
        EXECUTOR.get_or_init(|| {
            let executor: &'static smol::Executor<'static> = Box::leak(Box::default());
            for _ in 0..2 {
                std::thread::spawn(|| smol::block_on(executor.run(smol::future::pending::<()>())));
            }
            executor
        })
    }

    pub(super) struct Smol;

    impl Runtime for Smol {
        fn block_on<F: Future + Send + 'static>(future: F) -> F::Output
        where
            F::Output: Send,
        {
            smol::block_on(executor().run(future))
        }

        fn spawn<F>(future: F) -> impl Future<Output = Option<F::Output>> + Send + 'static
        where
            F: Future + Send + 'static,
            F::Output: Send + 'static,
        {
            let task = executor().spawn(future);
            async move { Some(task.await) }
        }
    }

    contract_tests!(On<Smol>);
}

/// async-std's global multi-threaded executor.
mod async_std_runtime {
    use super::*;

    pub(super) struct AsyncStd;

    impl Runtime for AsyncStd {
        fn block_on<F: Future + Send + 'static>(future: F) -> F::Output
        where
            F::Output: Send,
        {
            async_std::task::block_on(future)
        }

        fn spawn<F>(future: F) -> impl Future<Output = Option<F::Output>> + Send + 'static
        where
            F: Future + Send + 'static,
            F::Output: Send + 'static,
        {
            let task = async_std::task::spawn(future);
            async move { Some(task.await) }
        }
    }

    contract_tests!(On<AsyncStd>);
}
