//! The runtime-agnostic `std` adapter of [`limiter_core`]: an adaptive concurrency limiter for
//! smol, async-std, `futures::executor` or any other executor.
//!
//! [`Limiter`] shares one core gate behind an `Arc` with a `std` mutex. Latency is measured on
//! [`StdClock`] (`std::time::Instant`); timeouts use `async-io`'s timers, which run under any
//! executor; waiting goes through the core gate, whose wakers belong to whatever executor polls
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

use std::ops::Deref;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use limiter_core::{AcquireError, SharedLimiter};
use limiter_core::{
    AimdConfig, AimdF32, ConfigError, Controller, Gate, QueueFull, ScopedPermit, StdClock,
    StdRawMutex,
};

pub use limiter_core;

/// The waiting-queue capacity of a [`Limiter`] unless chosen otherwise.
pub const DEFAULT_QUEUE: usize = 1024;

/// The core gate a [`Limiter`] shares.
pub type SharedGate<C, const Q: usize> = Gate<StdRawMutex, C, StdClock, Q>;

/// A permit borrowed from a [`Limiter`]: see [`limiter_core::Permit`].
pub type Permit<'a, C = AimdF32, const Q: usize = DEFAULT_QUEUE> =
    limiter_core::Permit<&'a SharedGate<C, Q>>;

/// A permit that owns a handle to its [`Limiter`] (`'static`, for spawned tasks).
pub type OwnedPermit<C = AimdF32, const Q: usize = DEFAULT_QUEUE> =
    limiter_core::Permit<Arc<SharedGate<C, Q>>>;

/// A key permit and a global permit taken by [`SharedLimiter::acquire_within`](limiter_core::SharedLimiter::acquire_within), released together.
pub type OwnedScopedPermit<C, const Q: usize, G, const QG: usize> =
    ScopedPermit<Arc<SharedGate<C, Q>>, Arc<SharedGate<G, QG>>>;

/// The future of [`SharedLimiter::acquire_owned`].
pub type OwnedAcquire<C = AimdF32, const Q: usize = DEFAULT_QUEUE> =
    limiter_core::Acquire<Arc<SharedGate<C, Q>>>;

/// A provider's published rate limit ([`Gcra`](limiter_core::Gcra)), shared by tasks, on the
/// `std` clock and `async-io` timers. Cheap to clone. Compose it with a [`Limiter`] through
/// [`Limiter::acquire_with_quota`].
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

/// An adaptive concurrency limiter for any executor: a cheap handle (one `Arc`) whose clones
/// share one limit, in-flight count and FIFO queue of up to `Q` waiters.
///
/// Everything that needs no timer (`try_acquire`, `acquire`, `run`, `snapshot`…) comes from
/// [`SharedLimiter`], which this derefs to; this type adds the `std` clock and `async-io`'s
/// timers for timeouts and the quota's wait.
pub struct Limiter<C = AimdF32, const Q: usize = DEFAULT_QUEUE> {
    shared: SharedLimiter<C, StdClock, Q>,
}

impl<C, const Q: usize> Clone for Limiter<C, Q> {
    fn clone(&self) -> Self {
        Limiter {
            shared: self.shared.clone(),
        }
    }
}

impl<C, const Q: usize> Deref for Limiter<C, Q> {
    type Target = SharedLimiter<C, StdClock, Q>;

    fn deref(&self) -> &Self::Target {
        &self.shared
    }
}

impl Limiter {
    /// A limiter run by AIMD with `config` (validated), queueing up to [`DEFAULT_QUEUE`].
    pub fn aimd(config: AimdConfig) -> Result<Self, ConfigError> {
        Ok(Limiter::new(AimdF32::new(config)?))
    }
}

impl<C: Controller> Limiter<C> {
    /// A limiter whose limit `controller` decides, queueing up to [`DEFAULT_QUEUE`] requests.
    pub fn new(controller: C) -> Self {
        Limiter::with_queue(controller)
    }
}

impl<C: Controller, const Q: usize> Limiter<C, Q> {
    /// A limiter whose limit `controller` decides, queueing up to `Q` requests.
    ///
    /// ```
    /// # use limiter_core::Fixed;
    /// let small = limiter_smol::Limiter::<_, 16>::with_queue(Fixed::new(4).unwrap());
    /// assert_eq!(small.limit(), 4);
    /// ```
    pub fn with_queue(controller: C) -> Self {
        Limiter {
            shared: SharedLimiter::new(controller, StdClock::new()),
        }
    }

    /// A limiter handle on an existing shared gate, such as one that
    /// [`KeyedGates`](limiter_core::KeyedGates) keeps per key (built with a [`StdClock`]).
    pub fn from_gate(gate: Arc<SharedGate<C, Q>>) -> Self {
        Limiter {
            shared: SharedLimiter::from_gate(gate),
        }
    }

    /// Waits at most `timeout` for admission (an `async-io` timer); `Duration::MAX` waits
    /// without a deadline.
    pub async fn acquire_timeout(
        &self,
        timeout: Duration,
    ) -> Result<Permit<'_, C, Q>, AcquireError> {
        match Instant::now().checked_add(timeout) {
            Some(deadline) => self.acquire_until(deadline).await,
            // Too far to represent: no deadline at all.
            None => Ok(self.acquire().await?),
        }
    }

    /// Waits for admission until `deadline` (an `async-io` timer).
    pub async fn acquire_until(&self, deadline: Instant) -> Result<Permit<'_, C, Q>, AcquireError> {
        let admitted = async { self.acquire().await.map_err(AcquireError::from) };
        let expired = async {
            async_io::Timer::at(deadline).await;
            Err(AcquireError::Timeout)
        };
        // `or` polls the acquisition first, so capacity that is free is taken even at the
        // deadline.
        futures_lite::future::or(admitted, expired).await
    }

    /// Waits for admission, then for `quota`: the call starts no earlier than the later of the
    /// two, calls leave at the quota's spacing, and the latency measurement starts once both
    /// have passed (see [`SharedLimiter::acquire_then`]).
    pub async fn acquire_with_quota(&self, quota: &Quota) -> Result<Permit<'_, C, Q>, QueueFull> {
        self.acquire_then(quota.ready()).await
    }
}

impl<C: Controller, const Q: usize> std::fmt::Debug for Limiter<C, Q> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limiter")
            .field("snapshot", &self.snapshot())
            .finish()
    }
}
