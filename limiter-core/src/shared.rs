//! [`SharedLimiter`]: one gate shared by threads and tasks through an `Arc` (feature `std`) —
//! the body of every std adapter, which adds only its runtime's clock and timers.

use core::future::Future;
use core::time::Duration;

use std::sync::Arc;

use crate::{
    Acquire, AcquireScoped, AtLimit, Classify, Clock, Controller, Gate, Permit, QueueFull,
    Snapshot, StdRawMutex, acquire_scoped,
};

/// The gate a [`SharedLimiter`] shares.
pub type StdGate<C, T, const Q: usize> = Gate<StdRawMutex, C, T, Q>;

/// The handle a [`SharedLimiter`]'s owned permits and futures keep.
pub type StdGateRef<C, T, const Q: usize> = Arc<StdGate<C, T, Q>>;

/// A cheap handle (one `Arc`) to a [`Gate`] behind a `std` mutex: clones share one limit,
/// in-flight count and FIFO queue of up to `Q` waiters. `T` is the clock latency is measured on.
///
/// The std adapters wrap it with their runtime's clock and timers (timeouts, a quota's wait,
/// a reporter) and deref to it for everything else.
///
/// ```
/// use limiter_core::{Fixed, SharedLimiter, StdClock};
///
/// let limiter: SharedLimiter<_, _, 16> = SharedLimiter::new(Fixed::new(2).unwrap(), StdClock::new());
/// let worker = limiter.clone();
/// let permit = std::thread::spawn(move || worker.try_acquire_owned().unwrap()).join().unwrap();
/// assert_eq!(limiter.in_flight(), 1);
/// permit.success();
/// assert_eq!(limiter.snapshot().admitted, 1);
/// ```
pub struct SharedLimiter<C, T, const Q: usize> {
    gate: Arc<StdGate<C, T, Q>>,
}

impl<C, T, const Q: usize> Clone for SharedLimiter<C, T, Q> {
    fn clone(&self) -> Self {
        SharedLimiter {
            gate: Arc::clone(&self.gate),
        }
    }
}

impl<C: Controller, T: Clock, const Q: usize> SharedLimiter<C, T, Q> {
    /// A limiter whose limit `controller` decides, measuring latency on `clock`.
    pub fn new(controller: C, clock: T) -> Self {
        SharedLimiter {
            gate: Arc::new(Gate::new(controller, clock)),
        }
    }

    /// A handle on an existing shared gate, such as one that [`crate::KeyedGates`] keeps per key.
    pub fn from_gate(gate: Arc<StdGate<C, T, Q>>) -> Self {
        SharedLimiter { gate }
    }

    /// The shared gate.
    pub fn gate(&self) -> &Arc<StdGate<C, T, Q>> {
        &self.gate
    }

    /// Admits a request if in-flight is below the limit and nobody waits, else sheds it at once.
    pub fn try_acquire(&self) -> Result<Permit<&StdGate<C, T, Q>>, AtLimit> {
        self.gate.try_acquire()
    }

    /// [`SharedLimiter::try_acquire`], with a permit that keeps a handle to the limiter
    /// (`'static`, for spawned tasks).
    pub fn try_acquire_owned(&self) -> Result<Permit<Arc<StdGate<C, T, Q>>>, AtLimit> {
        Gate::try_acquire_owned(Arc::clone(&self.gate))
    }

    /// Waits in FIFO order for admission; [`QueueFull`] at once if `Q` requests already wait.
    /// Cancel safe: dropping the future leaves the queue, and capacity already handed to it
    /// passes to the next waiter.
    pub fn acquire(&self) -> Acquire<&StdGate<C, T, Q>> {
        self.gate.acquire()
    }

    /// [`SharedLimiter::acquire`], with a permit that keeps a handle to the limiter.
    pub fn acquire_owned(&self) -> Acquire<Arc<StdGate<C, T, Q>>> {
        Gate::acquire_owned(Arc::clone(&self.gate))
    }

    /// Waits for admission, then for `ready` (a rate quota's turn, say): the call starts no
    /// earlier than the later of the two, and its latency is measured from then. Nothing of what
    /// `ready` stands for is spent by a request turned away or cancelled while it waits for
    /// admission.
    pub async fn acquire_then<F: Future<Output = ()>>(
        &self,
        ready: F,
    ) -> Result<Permit<&StdGate<C, T, Q>>, QueueFull> {
        let mut permit = self.acquire().await?;
        ready.await;
        permit.start_now();
        Ok(permit)
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

    /// Hierarchical admission: waits for a permit of this limiter (the key's), then for one of
    /// `global` (the ceiling over all keys). See [`acquire_scoped`].
    pub fn acquire_within<G: Controller, U: Clock, const QG: usize>(
        &self,
        global: &SharedLimiter<G, U, QG>,
    ) -> AcquireScoped<StdGateRef<C, T, Q>, StdGateRef<G, U, QG>> {
        acquire_scoped(Arc::clone(&self.gate), Arc::clone(&global.gate))
    }

    /// Holds the limit's growth for `delay` (the dependency's `Retry-After`).
    pub fn hold_growth_for(&self, delay: Duration) {
        self.gate.hold_growth_for(delay);
    }

    /// Runs `f` on the controller (to read or reconfigure it), then admits whoever a raised limit
    /// makes room for. `f` must not use this limiter.
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

impl<C: Controller, T: Clock, const Q: usize> core::fmt::Debug for SharedLimiter<C, T, Q> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SharedLimiter")
            .field("snapshot", &self.snapshot())
            .finish()
    }
}

/// A [`Gcra`](crate::Gcra) rate limit shared by threads and tasks (one `Arc`), on clock `T`
/// (feature `std`). The std adapters' `Quota` wraps it with their runtime's timer.
///
/// ```
/// use core::time::Duration;
/// use limiter_core::{Gcra, SharedQuota, StdClock};
///
/// let quota = SharedQuota::new(Gcra::new(1, Duration::from_secs(60), 1).unwrap(), StdClock::new());
/// assert!(quota.try_take().is_ok());
/// let next = quota.try_take().unwrap_err(); // a minute from the first call
/// assert!(next.as_micros() >= 59_000_000);
/// ```
#[derive(Clone, Debug)]
pub struct SharedQuota<T> {
    gcra: Arc<std::sync::Mutex<crate::Gcra>>,
    clock: T,
}

impl<T: Clock> SharedQuota<T> {
    /// Shares `gcra`, on `clock`.
    pub fn new(gcra: crate::Gcra, clock: T) -> Self {
        SharedQuota {
            gcra: Arc::new(std::sync::Mutex::new(gcra)),
            clock,
        }
    }

    /// The clock the quota is kept on.
    pub fn clock(&self) -> &T {
        &self.clock
    }

    /// Takes one call if the quota allows it now; otherwise the instant (of [`Self::clock`]) at
    /// which it would.
    pub fn try_take(&self) -> Result<(), crate::Instant> {
        let now = self.clock.now();
        let mut gcra = self
            .gcra
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        gcra.check(now)
    }
}
