//! The runtime-agnostic `std` adapter of [`limiter_core`]: an adaptive concurrency limiter for
//! smol, async-std, `futures::executor` or any other executor.
//!
//! [`Limiter`] is the core's [`Limiter`](limiter_core::Limiter) (the same type, methods and
//! behaviour on every runtime) over an `Arc` of the gate, with a `std` mutex, on [`AsyncIo`]:
//! latency measured on `std::time::Instant`, timers from `async-io`, which run under any
//! executor. Waiting goes through the core gate, whose wakers belong to whatever executor polls
//! the future. Nothing here depends on tokio.
//!
//! ```
//! use std::time::Duration;
//! use limiter_core::{AimdConfig, ErrorsAreOverload};
//! use limiter_smol::Limiter;
//!
//! futures_lite::future::block_on(async {
//!     let limiter = Limiter::aimd(AimdConfig::default().initial(4)).unwrap();
//!     let out = limiter.run(async { Ok::<_, ()>(5) }, ErrorsAreOverload).await.unwrap();
//!     assert_eq!(out, Ok(5));
//!
//!     let _held: Vec<_> = (0..4).map(|_| limiter.try_acquire().unwrap()).collect();
//!     let waited = limiter.acquire_timeout(Duration::from_millis(5)).await;
//!     assert_eq!(waited.err(), Some(limiter_smol::AcquireError::Timeout));
//! });
//! ```

// docs.rs marks every item that needs a feature with that feature.
#![cfg_attr(docsrs, feature(doc_cfg))]

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

pub use limiter_core::AcquireError;
use limiter_core::{AimdF32, Clock, Gate, HeapQueue, Runtime, ScopedPermit, StdClock, StdRawMutex};

pub use limiter_core;

/// The `std` clock with `async-io`'s timers: the [`Runtime`] of a [`Limiter`], under any
/// executor.
///
/// ```
/// use limiter_core::{Clock, Runtime};
/// use limiter_smol::AsyncIo;
///
/// futures_lite::future::block_on(async {
///     let runtime = AsyncIo::default();
///     let deadline = runtime.now().saturating_add_micros(2_000);
///     runtime.sleep_until(deadline).await;
///     assert!(runtime.now() >= deadline);
/// });
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct AsyncIo {
    clock: StdClock,
}

impl AsyncIo {
    /// The `std` clock it reads.
    pub fn clock(&self) -> &StdClock {
        &self.clock
    }
}

impl Clock for AsyncIo {
    fn now(&self) -> limiter_core::Instant {
        self.clock.now()
    }
}

impl Runtime for AsyncIo {
    type Sleep = Sleep;

    fn sleep_until(&self, deadline: limiter_core::Instant) -> Sleep {
        Sleep(async_io::Timer::at(self.clock.to_std(deadline)))
    }
}

/// The future of [`AsyncIo::sleep_until`]: an `async-io` timer.
#[derive(Debug)]
#[must_use = "futures do nothing unless polled"]
pub struct Sleep(async_io::Timer);

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        Pin::new(&mut self.0).poll(cx).map(|_| ())
    }
}

/// The core gate a [`Limiter`] shares: its waiting queue is on the heap ([`HeapQueue`]), so an
/// idle limiter costs a few hundred bytes whatever its bound.
pub type SharedGate<C> = Gate<StdRawMutex, C, AsyncIo, HeapQueue>;

/// An adaptive concurrency limiter for any executor: the core's
/// [`Limiter`](limiter_core::Limiter) over an `Arc` of the gate, on [`AsyncIo`]. A cheap
/// handle whose clones share one limit, in-flight count and FIFO queue of up to 1,024 waiters
/// (or the bound of its [`HeapQueue`]).
///
/// ```
/// # use limiter_core::{Fixed, HeapQueue};
/// let limiter = limiter_smol::Limiter::new(Fixed::new(4).unwrap());
/// let small = limiter_smol::Limiter::with_queue(Fixed::new(4).unwrap(), HeapQueue::new(16));
/// assert_eq!((limiter.limit(), small.limit()), (4, 4));
/// assert_eq!(small.gate().queue_bound(), 16);
/// ```
pub type Limiter<C = AimdF32> = limiter_core::Limiter<Arc<SharedGate<C>>>;

/// A permit borrowed from a [`Limiter`]: see [`limiter_core::Permit`].
pub type Permit<'a, C = AimdF32> = limiter_core::Permit<&'a SharedGate<C>>;

/// A permit that owns a handle to its [`Limiter`] (`'static`, for spawned tasks).
pub type OwnedPermit<C = AimdF32> = limiter_core::Permit<Arc<SharedGate<C>>>;

/// A key permit and a global permit taken by
/// [`Limiter::acquire_within_owned`](limiter_core::Limiter::acquire_within_owned), released
/// together.
pub type OwnedScopedPermit<C, G> = ScopedPermit<Arc<SharedGate<C>>, Arc<SharedGate<G>>>;

/// The future of [`Limiter::acquire_owned`](limiter_core::Limiter::acquire_owned).
pub type OwnedAcquire<C = AimdF32> = limiter_core::Admit<Arc<SharedGate<C>>, Sleep>;

/// A provider's published rate limit ([`Gcra`](limiter_core::Gcra)), shared by tasks, on the
/// `std` clock and `async-io` timers. Cheap to clone. Compose it with a [`Limiter`] through
/// [`Limiter::acquire_with_quota`](limiter_core::Limiter::acquire_with_quota).
///
/// ```
/// use std::time::{Duration, Instant};
/// use limiter_core::Gcra;
/// use limiter_smol::Quota;
///
/// futures_lite::future::block_on(async {
///     let quota = Quota::new(Gcra::new(100, Duration::from_secs(1), 1).unwrap());
///     let start = Instant::now();
///     for _ in 0..3 {
///         quota.ready().await;
///     }
///     assert!(start.elapsed() >= Duration::from_millis(20)); // 100 per second
/// });
/// ```
#[derive(Clone, Debug)]
pub struct Quota {
    shared: limiter_core::SharedQuota<StdClock>,
}

impl Quota {
    /// Shares `gcra`.
    pub fn new(gcra: limiter_core::Gcra) -> Self {
        Quota {
            shared: limiter_core::SharedQuota::new(gcra, StdClock::new()),
        }
    }

    /// Takes one call if the quota allows it now; otherwise the instant at which it would.
    pub fn try_take(&self) -> Result<(), Instant> {
        self.shared
            .try_take()
            .map_err(|at| self.shared.clock().to_std(at))
    }

    /// Waits until the quota allows one call, and takes it.
    pub async fn ready(&self) {
        while let Err(at) = self.try_take() {
            async_io::Timer::at(at).await;
        }
    }
}

/// The quota's turn, for [`Limiter::acquire_with_quota`](limiter_core::Limiter::acquire_with_quota).
impl limiter_core::Pace for Quota {
    fn ready(&self) -> impl Future<Output = ()> {
        Quota::ready(self)
    }
}
