//! [`Limiter`]: a shared handle to one core gate, on tokio's clock and timers.

use std::future::Future;
use std::sync::{Arc, Weak};
use std::time::Duration;

use limiter_core::{
    AimdConfig, AimdF32, AtLimit, Classify, ConfigError, Controller, Gate, QueueFull, ScopedPermit,
    Snapshot, StdRawMutex,
};

use crate::{AcquireError, TokioClock};

/// The waiting-queue capacity of a [`Limiter`] unless chosen otherwise.
pub const DEFAULT_QUEUE: usize = 1024;

/// The core gate a [`Limiter`] shares.
pub type SharedGate<C, const Q: usize> = Gate<StdRawMutex, C, TokioClock, Q>;

/// A permit borrowed from a [`Limiter`]: see [`limiter_core::Permit`].
pub type Permit<'a, C = AimdF32, const Q: usize = DEFAULT_QUEUE> =
    limiter_core::Permit<&'a SharedGate<C, Q>>;

/// A permit that owns a handle to its [`Limiter`] (`'static`, for spawned tasks).
pub type OwnedPermit<C = AimdF32, const Q: usize = DEFAULT_QUEUE> =
    limiter_core::Permit<Arc<SharedGate<C, Q>>>;

/// The future of [`Limiter::acquire`].
pub type Acquire<'a, C = AimdF32, const Q: usize = DEFAULT_QUEUE> =
    limiter_core::Acquire<&'a SharedGate<C, Q>>;

/// A key permit and a global permit taken by [`Limiter::acquire_within`], released together.
pub type OwnedScopedPermit<C, const Q: usize, G, const QG: usize> =
    ScopedPermit<Arc<SharedGate<C, Q>>, Arc<SharedGate<G, QG>>>;

/// The future of [`Limiter::acquire_owned`].
pub type OwnedAcquire<C = AimdF32, const Q: usize = DEFAULT_QUEUE> =
    limiter_core::Acquire<Arc<SharedGate<C, Q>>>;

/// An adaptive concurrency limiter for tokio.
///
/// A cheap handle (one `Arc`): clones share the same limit, in-flight count and queue. The
/// controller `C` decides the limit ([`AimdF32`] unless chosen otherwise); up to `Q` requests wait
/// for admission in FIFO order, and the next one is refused with [`QueueFull`].
///
/// # Examples
///
/// ```
/// use limiter_core::{AimdConfig, ErrorsAreOverload};
/// use limiter_tokio::Limiter;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let limiter = Limiter::aimd(AimdConfig::default().initial(8).bounds(2, 64))?;
///
/// // Hold a permit around a call and let the classifier report how it went.
/// let body = limiter
///     .run(async { Ok::<_, std::io::Error>("response") }, ErrorsAreOverload)
///     .await?;
/// assert_eq!(body?, "response");
///
/// // Or take the permit yourself and say how the call ended.
/// let permit = limiter.acquire().await?;
/// permit.success();
/// assert_eq!(limiter.snapshot().in_flight, 0);
/// # Ok(())
/// # }
/// ```
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
    /// # use limiter_tokio::Limiter;
    /// let small = Limiter::<_, 16>::with_queue(Fixed::new(4).unwrap());
    /// # drop(small);
    /// ```
    pub fn with_queue(controller: C) -> Self {
        Limiter {
            gate: Arc::new(Gate::new(controller, TokioClock::new())),
        }
    }

    /// The core gate, for anything this handle does not wrap.
    pub fn gate(&self) -> &Arc<SharedGate<C, Q>> {
        &self.gate
    }

    /// Admits a request if in-flight is below the limit and nobody waits, else sheds it at once.
    ///
    /// ```
    /// # use limiter_core::Fixed;
    /// # use limiter_tokio::Limiter;
    /// let limiter = Limiter::new(Fixed::new(1).unwrap());
    /// let permit = limiter.try_acquire().unwrap();
    /// assert!(limiter.try_acquire().is_err());
    /// drop(permit);
    /// assert!(limiter.try_acquire().is_ok());
    /// ```
    pub fn try_acquire(&self) -> Result<Permit<'_, C, Q>, AtLimit> {
        self.gate.try_acquire()
    }

    /// [`Limiter::try_acquire`], with a permit that keeps a handle to the limiter.
    pub fn try_acquire_owned(&self) -> Result<OwnedPermit<C, Q>, AtLimit> {
        Gate::try_acquire_owned(Arc::clone(&self.gate))
    }

    /// Waits in FIFO order for admission; [`QueueFull`] at once if `Q` requests already wait.
    ///
    /// Cancel safe: dropping the future leaves the queue, and capacity already handed to it
    /// passes to the next waiter.
    pub fn acquire(&self) -> Acquire<'_, C, Q> {
        self.gate.acquire()
    }

    /// [`Limiter::acquire`], with a permit that keeps a handle to the limiter.
    pub fn acquire_owned(&self) -> OwnedAcquire<C, Q> {
        Gate::acquire_owned(Arc::clone(&self.gate))
    }

    /// Waits at most `timeout` for admission.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use limiter_core::Fixed;
    /// # use limiter_tokio::{AcquireError, Limiter};
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() {
    /// let limiter = Limiter::new(Fixed::new(1).unwrap());
    /// let _held = limiter.try_acquire().unwrap();
    /// let waited = limiter.acquire_timeout(Duration::from_millis(50)).await;
    /// assert_eq!(waited.err(), Some(AcquireError::Timeout));
    /// assert_eq!(limiter.snapshot().queued, 0); // it left the queue
    /// # }
    /// ```
    pub async fn acquire_timeout(
        &self,
        timeout: Duration,
    ) -> Result<Permit<'_, C, Q>, AcquireError> {
        match tokio::time::timeout(timeout, self.acquire()).await {
            Ok(admitted) => Ok(admitted?),
            Err(_) => Err(AcquireError::Timeout),
        }
    }

    /// Waits for admission until `deadline`.
    pub async fn acquire_until(
        &self,
        deadline: tokio::time::Instant,
    ) -> Result<Permit<'_, C, Q>, AcquireError> {
        match tokio::time::timeout_at(deadline, self.acquire()).await {
            Ok(admitted) => Ok(admitted?),
            Err(_) => Err(AcquireError::Timeout),
        }
    }

    /// Waits for admission, runs `call` holding the permit, and records what `classify` makes
    /// of its output (including a `Retry-After`, which holds the limit's growth). Returns the
    /// call's output, or [`QueueFull`] without running it.
    ///
    /// If `call` panics, or this future is dropped, the permit is released as cancelled.
    ///
    /// ```
    /// # use limiter_core::{Fixed, HttpClassifier};
    /// # use limiter_tokio::Limiter;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let limiter = Limiter::new(Fixed::new(4).unwrap());
    /// let status = limiter.run(async { 503u16 }, HttpClassifier::new()).await.unwrap();
    /// assert_eq!(status, 503);
    /// assert_eq!(limiter.snapshot().admitted, 1);
    /// # }
    /// ```
    pub async fn run<F, K>(&self, call: F, classify: K) -> Result<F::Output, QueueFull>
    where
        F: Future,
        K: Classify<F::Output>,
    {
        let permit = self.acquire().await?;
        Ok(permit.run(call, &classify).await)
    }

    /// Waits for admission, then for `quota` (a provider's published rate): the call starts no
    /// earlier than the later of the two, and calls leave at the quota's spacing (waiting for
    /// the quota last means requests that were queued together cannot be released together in
    /// a burst the provider would refuse). The latency measurement starts once both have
    /// passed. Nothing of the quota is spent by a request turned away or cancelled while it
    /// waits for admission.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use limiter_core::{Fixed, Gcra};
    /// # use limiter_tokio::{Limiter, Quota};
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() {
    /// let limiter = Limiter::new(Fixed::new(64).unwrap());
    /// let quota = Quota::new(Gcra::new(5, Duration::from_secs(1), 1).unwrap());
    /// let start = tokio::time::Instant::now();
    /// for _ in 0..5 {
    ///     limiter.acquire_with_quota(&quota).await.unwrap().success();
    /// }
    /// assert_eq!(start.elapsed(), Duration::from_millis(800)); // the quota binds, not the limit
    /// # }
    /// ```
    pub async fn acquire_with_quota(
        &self,
        quota: &crate::Quota,
    ) -> Result<Permit<'_, C, Q>, QueueFull> {
        let mut permit = self.acquire().await?;
        quota.ready().await;
        permit.start_now();
        Ok(permit)
    }

    /// A limiter handle on an existing shared gate, such as one that
    /// [`KeyedGates`](limiter_core::KeyedGates) keeps per key.
    ///
    /// ```
    /// # use limiter_core::{AimdConfig, AimdF32, KeyedGates};
    /// # use limiter_tokio::{Limiter, TokioClock};
    /// let per_account = KeyedGates::<_, _, _, 1024>::new(
    ///     10_000,
    ///     |_account: &String| AimdF32::new(AimdConfig::default()).unwrap(),
    ///     TokioClock::new(),
    /// );
    /// let limiter = Limiter::from_gate(per_account.gate("acct-42".to_string()).unwrap());
    /// assert!(limiter.try_acquire().is_ok());
    /// ```
    pub fn from_gate(gate: Arc<SharedGate<C, Q>>) -> Self {
        Limiter { gate }
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

    /// Calls `hook` with a [`Snapshot`] every `period` (at least a millisecond, at most
    /// [`FAR_FUTURE`](limiter_core::clock::FAR_FUTURE)) from a tokio
    /// task, to export the limiter's state to metrics or logs. The task stops when the returned
    /// [`Reporter`] is dropped, or when every handle to the limiter is gone.
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime.
    ///
    /// ```
    /// # use std::sync::{Arc, Mutex};
    /// # use std::time::Duration;
    /// # use limiter_core::Fixed;
    /// # use limiter_tokio::Limiter;
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() {
    /// let limiter = Limiter::new(Fixed::new(4).unwrap());
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let log = Arc::clone(&seen);
    /// let reporter = limiter.report_every(Duration::from_secs(1), move |s| {
    ///     log.lock().unwrap().push((s.limit, s.in_flight, s.queued, s.decreases));
    /// });
    /// tokio::time::sleep(Duration::from_millis(2_500)).await;
    /// drop(reporter);
    /// assert_eq!(seen.lock().unwrap().len(), 3); // at 0, 1 and 2 seconds
    /// # }
    /// ```
    pub fn report_every<F>(&self, period: Duration, mut hook: F) -> Reporter
    where
        F: FnMut(Snapshot) + Send + 'static,
        C: Send + 'static,
    {
        let gate: Weak<SharedGate<C, Q>> = Arc::downgrade(&self.gate);
        let period = period.clamp(Duration::from_millis(1), limiter_core::clock::FAR_FUTURE);
        let task = tokio::spawn(async move {
            let mut ticks = tokio::time::interval(period);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            loop {
                ticks.tick().await;
                let Some(gate) = gate.upgrade() else { break };
                hook(gate.snapshot());
            }
        });
        Reporter { task }
    }
}

impl<C: Controller, const Q: usize> std::fmt::Debug for Limiter<C, Q> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limiter")
            .field("snapshot", &self.snapshot())
            .finish()
    }
}

/// The task of [`Limiter::report_every`]; dropping it stops the reports.
#[derive(Debug)]
#[must_use = "the reports stop when the Reporter is dropped"]
pub struct Reporter {
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Reporter {
    fn drop(&mut self) {
        self.task.abort();
    }
}
