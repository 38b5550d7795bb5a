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

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use limiter_core::{
    AimdConfig, AimdF32, AtLimit, Classify, ConfigError, Controller, Gate, QueueFull, ScopedPermit,
    Snapshot, StdClock, StdRawMutex,
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

/// A key permit and a global permit taken by [`Limiter::acquire_within`], released together.
pub type OwnedScopedPermit<C, const Q: usize, G, const QG: usize> =
    ScopedPermit<Arc<SharedGate<C, Q>>, Arc<SharedGate<G, QG>>>;

/// The future of [`Limiter::acquire_owned`].
pub type OwnedAcquire<C = AimdF32, const Q: usize = DEFAULT_QUEUE> =
    limiter_core::Acquire<Arc<SharedGate<C, Q>>>;

/// Why a bounded wait for a permit ended without one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AcquireError {
    /// The waiting queue was full: rejected at once, not queued.
    QueueFull,
    /// The deadline passed while waiting; the request left the queue.
    Timeout,
}

impl From<QueueFull> for AcquireError {
    fn from(_: QueueFull) -> Self {
        AcquireError::QueueFull
    }
}

impl std::fmt::Display for AcquireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AcquireError::QueueFull => "concurrency limiter queue is full",
            AcquireError::Timeout => "timed out waiting for a concurrency permit",
        })
    }
}

impl std::error::Error for AcquireError {}

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
    gcra: Arc<std::sync::Mutex<limiter_core::Gcra>>,
    clock: StdClock,
}

impl Quota {
    /// Shares `gcra`.
    pub fn new(gcra: limiter_core::Gcra) -> Self {
        Quota {
            gcra: Arc::new(std::sync::Mutex::new(gcra)),
            clock: StdClock::new(),
        }
    }

    /// Takes one call if the quota allows it now; otherwise the instant at which it would.
    pub fn try_take(&self) -> Result<(), Instant> {
        let now = limiter_core::Clock::now(&self.clock);
        let mut gcra = self
            .gcra
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        gcra.check(now).map_err(|at| self.clock.to_std(at))
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
pub struct Limiter<C = AimdF32, const Q: usize = DEFAULT_QUEUE> {
    gate: Arc<SharedGate<C, Q>>,
}

impl<C, const Q: usize> Clone for Limiter<C, Q> {
    fn clone(&self) -> Self {
        Limiter {
            gate: Arc::clone(&self.gate),
        }
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
            gate: Arc::new(Gate::new(controller, StdClock::new())),
        }
    }

    /// The core gate, for anything this handle does not wrap.
    pub fn gate(&self) -> &Arc<SharedGate<C, Q>> {
        &self.gate
    }

    /// Admits a request if in-flight is below the limit and nobody waits, else sheds it.
    pub fn try_acquire(&self) -> Result<Permit<'_, C, Q>, AtLimit> {
        self.gate.try_acquire()
    }

    /// [`Limiter::try_acquire`], with a permit that keeps a handle to the limiter.
    pub fn try_acquire_owned(&self) -> Result<OwnedPermit<C, Q>, AtLimit> {
        Gate::try_acquire_owned(Arc::clone(&self.gate))
    }

    /// Waits in FIFO order for admission; [`QueueFull`] at once if `Q` requests already wait.
    /// Cancel safe: dropping the future leaves the queue and passes on a granted turn.
    pub fn acquire(&self) -> limiter_core::Acquire<&SharedGate<C, Q>> {
        self.gate.acquire()
    }

    /// [`Limiter::acquire`], with a permit that keeps a handle to the limiter.
    pub fn acquire_owned(&self) -> OwnedAcquire<C, Q> {
        Gate::acquire_owned(Arc::clone(&self.gate))
    }

    /// Waits at most `timeout` for admission (an `async-io` timer).
    pub async fn acquire_timeout(
        &self,
        timeout: Duration,
    ) -> Result<Permit<'_, C, Q>, AcquireError> {
        match Instant::now().checked_add(timeout) {
            Some(deadline) => self.acquire_until(deadline).await,
            // Too far to represent (`Duration::MAX`): no deadline at all.
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

    /// Waits for admission, runs `call` holding the permit, and records what `classify` makes
    /// of its output (a `Retry-After` in the verdict holds the limit's growth). Returns the
    /// call's output, or [`QueueFull`] without running it. A panicking or dropped call releases
    /// its permit as cancelled.
    pub async fn run<F, K>(&self, call: F, classify: K) -> Result<F::Output, QueueFull>
    where
        F: Future,
        K: Classify<F::Output>,
    {
        let permit = self.acquire().await?;
        Ok(permit.run(call, &classify).await)
    }

    /// A limiter handle on an existing shared gate, such as one that
    /// [`KeyedGates`](limiter_core::KeyedGates) keeps per key (built with a [`StdClock`]).
    pub fn from_gate(gate: Arc<SharedGate<C, Q>>) -> Self {
        Limiter { gate }
    }

    /// Waits for admission, then for `quota`: the call starts no earlier than the later of the
    /// two, calls leave at the quota's spacing, and the latency measurement starts once both
    /// have passed.
    pub async fn acquire_with_quota(&self, quota: &Quota) -> Result<Permit<'_, C, Q>, QueueFull> {
        let mut permit = self.acquire().await?;
        quota.ready().await;
        permit.start_now();
        Ok(permit)
    }

    /// Hierarchical admission: waits for a permit of this limiter (the key's: one account, one
    /// endpoint class), then for one of `global` (the ceiling over all keys). A request waiting
    /// on a congested key holds no global permit; the order is fixed, so it cannot deadlock; the
    /// outcome recorded on the [`ScopedPermit`] feeds this limiter only. See
    /// [`limiter_core::acquire_scoped`].
    pub fn acquire_within<G: Controller, const QG: usize>(
        &self,
        global: &Limiter<G, QG>,
    ) -> impl Future<Output = Result<OwnedScopedPermit<C, Q, G, QG>, QueueFull>> + use<C, Q, G, QG>
    {
        limiter_core::acquire_scoped(Arc::clone(&self.gate), Arc::clone(&global.gate))
    }

    /// Holds the limit's growth for `delay` (the dependency's `Retry-After`).
    pub fn hold_growth_for(&self, delay: Duration) {
        self.gate.hold_growth_for(delay);
    }

    /// Runs `f` on the controller, then admits whoever a raised limit makes room for. `f` must
    /// not use this limiter.
    pub fn with_controller<R>(&self, f: impl FnOnce(&mut C) -> R) -> R {
        self.gate.with_controller(f)
    }

    /// The current limit.
    pub fn limit(&self) -> u32 {
        self.gate.limit()
    }

    /// Requests in flight.
    pub fn in_flight(&self) -> u32 {
        self.gate.in_flight()
    }

    /// Limit, in-flight, queue, counters and baseline, in one consistent read.
    pub fn snapshot(&self) -> Snapshot {
        self.gate.snapshot()
    }
}

impl<C: Controller, const Q: usize> std::fmt::Debug for Limiter<C, Q> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limiter")
            .field("snapshot", &self.snapshot())
            .finish()
    }
}
