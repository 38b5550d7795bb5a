//! [`Limiter`]: a shared handle to one core gate, on tokio's clock and timers.

use std::ops::Deref;
use std::sync::{Arc, Weak};
use std::time::Duration;

use limiter_core::{
    AcquireError, AimdConfig, AimdF32, ConfigError, Controller, Gate, QueueFull, ScopedPermit,
    SharedLimiter, Snapshot, StdRawMutex,
};

use crate::TokioClock;

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

/// The future of [`SharedLimiter::acquire`].
pub type Acquire<'a, C = AimdF32, const Q: usize = DEFAULT_QUEUE> =
    limiter_core::Acquire<&'a SharedGate<C, Q>>;

/// A key permit and a global permit taken by [`SharedLimiter::acquire_within`](limiter_core::SharedLimiter::acquire_within), released together.
pub type OwnedScopedPermit<C, const Q: usize, G, const QG: usize> =
    ScopedPermit<Arc<SharedGate<C, Q>>, Arc<SharedGate<G, QG>>>;

/// The future of [`SharedLimiter::acquire_owned`].
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
///
/// Everything that needs no timer (`try_acquire`, `acquire`, `run`, `snapshot`…) comes from
/// [`SharedLimiter`], which this derefs to; this type adds tokio's clock, timeouts, the quota's
/// wait and the reporter.
pub struct Limiter<C = AimdF32, const Q: usize = DEFAULT_QUEUE> {
    shared: SharedLimiter<C, TokioClock, Q>,
}

impl<C, const Q: usize> Clone for Limiter<C, Q> {
    fn clone(&self) -> Self {
        Limiter {
            shared: self.shared.clone(),
        }
    }
}

impl<C, const Q: usize> Deref for Limiter<C, Q> {
    type Target = SharedLimiter<C, TokioClock, Q>;

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
    /// # use limiter_tokio::Limiter;
    /// let small = Limiter::<_, 16>::with_queue(Fixed::new(4).unwrap());
    /// # drop(small);
    /// ```
    pub fn with_queue(controller: C) -> Self {
        Limiter {
            shared: SharedLimiter::new(controller, TokioClock::new()),
        }
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
        self.acquire_then(quota.ready()).await
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
        Limiter {
            shared: SharedLimiter::from_gate(gate),
        }
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
        let gate: Weak<SharedGate<C, Q>> = Arc::downgrade(self.gate());
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
