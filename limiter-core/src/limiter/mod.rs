//! [`Limiter`]: the limiter every adapter hands out, written once over a [`Runtime`].
//!
//! A [`Gate`] admits, queues and learns without ever sleeping; a limiter adds what needs a timer:
//! timeouts and deadlines, the `Retry-After` admission hold, a quota's wait, and periodic
//! reports. The adapters only supply the [`Runtime`] (tokio's timer, `async-io`'s,
//! embassy-time's) and name the types, so every method behaves the same on every runtime.

#[cfg(feature = "metrics")]
pub(crate) mod metrics;
pub(crate) mod registry;

use core::future::{Future, poll_fn};
use core::ops::Deref;
use core::pin::{Pin, pin};
use core::task::{Context, Poll};
use core::time::Duration;

use crate::config::ConfigError;
use crate::controller::{Admission, AimdConfig, AimdF32, Controller};
use crate::gate::Gate;
use crate::gate::error::Refused;
use crate::gate::error::{AcquireError, QueueFull, TryAcquireError};
use crate::gate::handle::GateRef;
use crate::gate::mutex::RawMutex;
use crate::gate::permit::Permit;
use crate::gate::scoped::{AcquireScoped, ScopedPermit, acquire_scoped};
use crate::gate::snapshot::Snapshot;
use crate::gate::waiters::Queue;
use crate::signal::classify::Classify;
use crate::time::clock::Instant;
use crate::time::runtime::Runtime;

/// An adaptive concurrency limiter: a [`Gate`] and the [`Runtime`] it runs on.
///
/// `H` is how the gate is held: `Arc<Gate<…>>` on `std` (the limiter is then a cheap handle,
/// and its clones share one limit, in-flight count and queue), or [`InPlace`] where the
/// limiter itself is the shared object (a `static` in firmware). The adapters name the whole
/// type (`limiter_tokio::Limiter`, `limiter_smol::Limiter`, `limiter_embassy::Limiter`); every
/// method is this one's.
///
/// What it adds to the gate:
/// - **Timeouts**: [`acquire_timeout`](Limiter::acquire_timeout) and
///   [`acquire_until`](Limiter::acquire_until) on the runtime's timer.
/// - **The `Retry-After` hold**: a `Retry-After` seen by [`run`](Limiter::run), or given to
///   [`hold_admissions_for`](Limiter::hold_admissions_for), holds the limit's growth *and*
///   holds admissions back until it has passed: `try_acquire` refuses newcomers, `acquire`
///   waits it out before joining the queue, and a waiter already queued is handed its permit
///   only once it has passed (a place granted to it meanwhile stays reserved, in flight).
///   Recorded on a permit directly
///   ([`Permit::record_verdict`]), it holds growth only.
/// - **Pacing**: [`acquire_then`](Limiter::acquire_then) and
///   [`acquire_with_quota`](Limiter::acquire_with_quota) start the call no earlier than a
///   quota allows.
/// - **Reports**: [`report`](Limiter::report) and [`report_owned`](Limiter::report_owned), a
///   future the caller drives or spawns.
///
/// ```
/// use core::future::{Ready, ready};
/// use core::pin::pin;
/// use core::task::{Context, Poll, Waker};
/// use core::time::Duration;
/// use limiter_core::{
///     Clock, Fixed, Gate, InPlace, InlineQueue, Instant, Limiter, ManualClock, NoopRawMutex,
///     Outcome, Runtime, TryAcquireError, Verdict, classify_fn,
/// };
///
/// // A runtime on a hand-driven clock whose timers have always fired (a test's).
/// struct Manual<'a>(&'a ManualClock);
/// impl Clock for Manual<'_> {
///     fn now(&self) -> Instant {
///         self.0.now()
///     }
/// }
/// impl Runtime for Manual<'_> {
///     type Sleep = Ready<()>;
///     fn sleep_until(&self, _: Instant) -> Ready<()> {
///         ready(())
///     }
/// }
///
/// let clock = ManualClock::new();
/// let limiter: Limiter<InPlace<Gate<NoopRawMutex, Fixed, Manual<'_>, InlineQueue<4>>>> =
///     Limiter::with_runtime(Fixed::new(2).unwrap(), Manual(&clock));
///
/// // A call whose dependency answered "429, retry after 1 s": newcomers are held that second.
/// let throttled = classify_fn(|_: &u16| {
///     Verdict::new(Outcome::Overload).retry_after(Duration::from_secs(1))
/// });
/// let mut cx = Context::from_waker(Waker::noop());
/// let call = pin!(limiter.run(async { 429u16 }, throttled));
/// assert!(matches!(call.poll(&mut cx), Poll::Ready(Ok(429))));
/// let held = TryAcquireError::Held { until: Instant::from_millis(1_000) };
/// assert_eq!(limiter.try_acquire().err(), Some(held));
/// assert_eq!(limiter.held_until(), Some(Instant::from_millis(1_000)));
/// assert_eq!(limiter.snapshot().held, 1);
/// clock.advance(Duration::from_secs(1));
/// assert!(limiter.try_acquire().is_ok());
/// ```
pub struct Limiter<H> {
    gate: H,
}

/// A gate kept in place, inside its [`Limiter`]: for a limiter that is itself the shared
/// object (a `static`, or anything borrowed for as long as it is used). Permits borrow it.
#[derive(Debug, Default)]
pub struct InPlace<T>(pub T);

impl<T> Deref for InPlace<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> From<T> for InPlace<T> {
    fn from(value: T) -> Self {
        InPlace(value)
    }
}

impl<H: Clone> Clone for Limiter<H> {
    fn clone(&self) -> Self {
        Limiter {
            gate: self.gate.clone(),
        }
    }
}

impl<H> Limiter<H> {
    /// A limiter over an existing gate: one that `KeyedGates` keeps per key (feature `std`), or,
    /// in `const` code, one built with [`Gate::from_state`].
    pub const fn from_gate(gate: H) -> Self {
        Limiter { gate }
    }

    /// How the gate is held (`&Arc<Gate>` on `std`).
    pub const fn gate(&self) -> &H {
        &self.gate
    }
}

impl<H, M, C, R, Q: Queue> Limiter<H>
where
    H: Deref<Target = Gate<M, C, R, Q>> + From<Gate<M, C, R, Q>>,
    M: RawMutex,
    C: Controller,
    R: Runtime,
{
    /// A limiter whose limit `controller` decides, on the runtime's default instance, with the
    /// default queue (on `std`, a [`HeapQueue`](crate::HeapQueue) of 1,024).
    pub fn new(controller: C) -> Self
    where
        R: Default,
        Q: Default,
    {
        Self::with_runtime(controller, R::default())
    }

    /// A limiter whose limit `controller` decides, on `runtime`, with the default queue.
    pub fn with_runtime(controller: C, runtime: R) -> Self
    where
        Q: Default,
    {
        Limiter {
            gate: H::from(Gate::new(controller, runtime)),
        }
    }

    /// A limiter whose limit `controller` decides, on the runtime's default instance, with
    /// `queue` for the requests that wait: on `std`, `HeapQueue::new(bound)` lets up to `bound`
    /// wait, and costs memory only for those that do.
    pub fn with_queue(controller: C, queue: Q) -> Self
    where
        R: Default,
    {
        Limiter {
            gate: H::from(Gate::with_queue(controller, R::default(), queue)),
        }
    }
}

impl<H, M, R, Q: Queue> Limiter<H>
where
    H: Deref<Target = Gate<M, AimdF32, R, Q>> + From<Gate<M, AimdF32, R, Q>>,
    M: RawMutex,
    R: Runtime + Default,
    Q: Default,
{
    /// A limiter run by AIMD (in `f32`, [`AimdF32`]) with `config`, validated.
    pub fn aimd(config: AimdConfig) -> Result<Self, ConfigError> {
        Ok(Self::new(AimdF32::new(config)?))
    }
}

impl<H, M, C, R, Q: Queue> Limiter<H>
where
    H: Deref<Target = Gate<M, C, R, Q>>,
    M: RawMutex,
    C: Controller,
    R: Runtime,
{
    /// The runtime (its clock measures latency; its timer waits).
    pub fn runtime<'a>(&'a self) -> &'a R
    where
        M: 'a,
        C: 'a,
        Q: 'a,
    {
        self.gate.clock()
    }

    /// Admits a request if in-flight is below the limit, nobody waits and no `Retry-After`
    /// holds admissions; otherwise refuses it at once, saying which
    /// ([`TryAcquireError::AtLimit`] or [`TryAcquireError::Held`]).
    pub fn try_acquire(&self) -> Result<Permit<&Gate<M, C, R, Q>>, TryAcquireError> {
        let admission = self.gate.try_admit_unless_held()?;
        Ok(Permit::new(&*self.gate, admission))
    }

    /// [`Limiter::try_acquire`], with a permit that keeps a handle to the limiter (`'static`
    /// with an `Arc`, for spawned tasks).
    pub fn try_acquire_owned(&self) -> Result<Permit<H>, TryAcquireError>
    where
        H: Clone,
    {
        let admission = self.gate.try_admit_unless_held()?;
        Ok(Permit::new(self.gate.clone(), admission))
    }

    /// Waits out any `Retry-After` hold, then waits in FIFO order for admission;
    /// [`QueueFull`] at once if `Q` requests already wait.
    ///
    /// Cancel safe: dropping the future leaves the queue, and capacity already handed to it
    /// passes to the next waiter.
    pub fn acquire(&self) -> Admit<&Gate<M, C, R, Q>, R::Sleep> {
        Admit::new(&*self.gate)
    }

    /// [`Limiter::acquire`], with a permit that keeps a handle to the limiter.
    pub fn acquire_owned(&self) -> Admit<H, R::Sleep>
    where
        H: Clone,
    {
        Admit::new(self.gate.clone())
    }

    /// Waits for admission until `deadline` (an instant of the runtime's clock:
    /// [`Clock::now`](crate::Clock::now) plus a duration). Capacity that is free is taken
    /// even at the deadline.
    pub async fn acquire_until<'a>(
        &'a self,
        deadline: Instant,
    ) -> Result<Permit<&'a Gate<M, C, R, Q>>, AcquireError>
    where
        M: 'a,
        C: 'a,
        R: 'a,
        Q: 'a,
    {
        let mut admit = pin!(self.acquire());
        let mut expired = pin!(self.runtime().sleep_until(deadline));
        poll_fn(|cx| {
            if let Poll::Ready(admitted) = admit.as_mut().poll(cx) {
                return Poll::Ready(admitted.map_err(AcquireError::from));
            }
            expired.as_mut().poll(cx).map(|()| {
                // The waiter leaves the queue when `admit` is dropped, on return.
                self.gate.count_ended_wait(false);
                Err(AcquireError::Timeout)
            })
        })
        .await
    }

    /// Waits at most `timeout` for admission (`Duration::MAX`: as long as the timer can).
    pub async fn acquire_timeout<'a>(
        &'a self,
        timeout: Duration,
    ) -> Result<Permit<&'a Gate<M, C, R, Q>>, AcquireError>
    where
        M: 'a,
        C: 'a,
        R: 'a,
        Q: 'a,
    {
        let deadline = self.runtime().now().saturating_add(timeout);
        self.acquire_until(deadline).await
    }

    /// Waits for admission, then for `ready` (a rate quota's turn, say): the call starts no
    /// earlier than the later of the two, and its latency is measured from then. Nothing of
    /// what `ready` stands for is spent by a request turned away or cancelled while it waits
    /// for admission.
    pub async fn acquire_then<'a, F: Future<Output = ()>>(
        &'a self,
        ready: F,
    ) -> Result<Permit<&'a Gate<M, C, R, Q>>, QueueFull>
    where
        M: 'a,
        C: 'a,
        R: 'a,
        Q: 'a,
    {
        let mut permit = self.acquire().await?;
        ready.await;
        permit.start_now();
        Ok(permit)
    }

    /// [`Limiter::acquire_then`] with a quota's turn: calls leave at the quota's spacing
    /// (waiting for the quota last means requests queued together are not released together
    /// in a burst the provider would refuse).
    pub async fn acquire_with_quota<'a, P: Pace + ?Sized>(
        &'a self,
        quota: &P,
    ) -> Result<Permit<&'a Gate<M, C, R, Q>>, QueueFull>
    where
        M: 'a,
        C: 'a,
        R: 'a,
        Q: 'a,
    {
        self.acquire_then(quota.ready()).await
    }

    /// Waits for admission, runs `call` holding the permit, and records what `classify` makes
    /// of its output. A `Retry-After` in the verdict holds growth and holds admissions back
    /// until it has passed; the calls a provider's quota headers say are left set the pace the
    /// probing AIMD may grow to at once ([`Sample::pace`](crate::Sample::pace)), or its part of
    /// it where others spend the same quota ([`Sample::calls_left`](crate::Sample::calls_left)). Returns the
    /// call's output, or [`QueueFull`] without running it. A
    /// call that panics or is dropped releases its permit as cancelled.
    pub async fn run<F, K>(&self, call: F, classify: K) -> Result<F::Output, QueueFull>
    where
        F: Future,
        K: Classify<F::Output>,
    {
        let permit = self.acquire().await?;
        let output = call.await;
        let verdict = classify.classify(&output);
        if let Some(delay) = verdict.retry_after {
            self.hold_admissions_for(delay); // and growth: not `record_verdict`, which would again
        } else if let Some(delay) = verdict.hold_growth {
            self.hold_growth_for(delay);
        }
        permit.record_outcome_of(&verdict);
        Ok(output)
    }

    /// [`Limiter::run`], with the call made from the request's [`Admission`] (the instant its
    /// latency is measured from, the epoch, the calls in flight): for a caller that logs or
    /// measures from admission itself.
    ///
    /// ```
    /// # use core::future::{Ready, ready};
    /// # use core::pin::pin;
    /// # use core::task::{Context, Poll, Waker};
    /// # use limiter_core::{Clock, ErrorsAreOverload, Fixed, Gate, InPlace, InlineQueue, Instant};
    /// # use limiter_core::{Limiter, ManualClock, NoopRawMutex, Runtime};
    /// # struct Manual<'a>(&'a ManualClock);
    /// # impl Clock for Manual<'_> { fn now(&self) -> Instant { self.0.now() } }
    /// # impl Runtime for Manual<'_> {
    /// #     type Sleep = Ready<()>;
    /// #     fn sleep_until(&self, _: Instant) -> Ready<()> { ready(()) }
    /// # }
    /// let clock = ManualClock::new();
    /// clock.advance(core::time::Duration::from_millis(7));
    /// let limiter: Limiter<InPlace<Gate<NoopRawMutex, Fixed, Manual<'_>, InlineQueue<4>>>> =
    ///     Limiter::with_runtime(Fixed::new(2).unwrap(), Manual(&clock));
    /// let call = limiter.run_with(
    ///     |admitted| async move { Ok::<_, ()>((admitted.at, admitted.in_flight)) },
    ///     ErrorsAreOverload,
    /// );
    /// let Poll::Ready(Ok(out)) = pin!(call).poll(&mut Context::from_waker(Waker::noop())) else {
    ///     panic!()
    /// };
    /// assert_eq!(out, Ok((Instant::from_millis(7), 1)));
    /// ```
    pub async fn run_with<F, Fut, K>(&self, call: F, classify: K) -> Result<Fut::Output, QueueFull>
    where
        F: FnOnce(Admission) -> Fut,
        Fut: Future,
        K: Classify<Fut::Output>,
    {
        let permit = self.acquire().await?;
        let output = call(permit.admission()).await;
        // As in `run`, written out twice: `run` through this costs a Cortex-M0 firmware 104
        // bytes of flash, and both through a shared helper 20 (`bash scripts/footprint.sh`).
        let verdict = classify.classify(&output);
        if let Some(delay) = verdict.retry_after {
            self.hold_admissions_for(delay);
        } else if let Some(delay) = verdict.hold_growth {
            self.hold_growth_for(delay);
        }
        permit.record_outcome_of(&verdict);
        Ok(output)
    }

    /// Hierarchical admission: waits out this limiter's `Retry-After` hold, then for a permit
    /// of this limiter (the key's), then for one of `global` (the ceiling over all keys). A
    /// request waiting on a congested key holds no global permit; the order is fixed, so it
    /// cannot deadlock; the outcome feeds this limiter only. See [`acquire_scoped`].
    pub async fn acquire_within<'a, H2, C2, Q2>(
        &'a self,
        global: &'a Limiter<H2>,
    ) -> Result<ScopedPermit<&'a Gate<M, C, R, Q>, &'a Gate<M, C2, R, Q2>>, QueueFull>
    where
        H2: Deref<Target = Gate<M, C2, R, Q2>>,
        M: 'a,
        C: 'a,
        C2: Controller + 'a,
        Q2: Queue + 'a,
        R: 'a,
        Q: 'a,
    {
        self.wait_out_hold().await;
        acquire_scoped(&*self.gate, &*global.gate).await
    }

    /// [`Limiter::acquire_within`], with permits that keep handles to both limiters.
    pub fn acquire_within_owned<H2, C2, Q2: Queue>(
        &self,
        global: &Limiter<H2>,
    ) -> impl Future<Output = Result<ScopedPermit<H, H2>, QueueFull>> + use<H, H2, M, C, C2, R, Q, Q2>
    where
        H: Clone + Unpin,
        H2: Deref<Target = Gate<M, C2, R, Q2>> + Clone + Unpin,
        C2: Controller,
    {
        let (key, global) = (self.gate.clone(), global.gate.clone());
        async move {
            wait_out_hold(&*key).await;
            let scoped: AcquireScoped<H, H2> = acquire_scoped(key, global);
            scoped.await
        }
    }

    async fn wait_out_hold(&self) {
        wait_out_hold(&*self.gate).await;
    }

    /// Holds new admissions back, and the limit's growth, for `delay` from now: the
    /// dependency's `Retry-After`. A later, shorter hold never shortens one in force. Waiters
    /// already queued get their permits only once it has passed.
    pub fn hold_admissions_for(&self, delay: Duration) {
        self.gate.hold_admissions_for(delay);
    }

    /// Counts a wait for a permit that its caller ended by a deadline of its own (a
    /// middleware's bounded wait): in [`Snapshot::held`], returning when the hold ends, if a
    /// `Retry-After` hold outlasted the wait; in [`Snapshot::timed_out`] otherwise, as
    /// [`acquire_until`](Limiter::acquire_until) counts its own.
    pub fn count_ended_wait(&self) -> Option<Instant> {
        let held = self.gate.held_until();
        self.gate.count_ended_wait(held.is_some());
        held
    }

    /// Holds the limit's growth for `delay` (a `Retry-After` that should not stop admissions).
    pub fn hold_growth_for(&self, delay: Duration) {
        self.gate.hold_growth_for(delay);
    }

    /// The end of the `Retry-After` admission hold, if one is in force.
    pub fn held_until(&self) -> Option<Instant> {
        self.gate.held_until()
    }

    /// Runs `f` on the controller (to read or reconfigure it), then admits whoever a raised
    /// limit makes room for. `f` must not use this limiter.
    pub fn with_controller<T>(&self, f: impl FnOnce(&mut C) -> T) -> T {
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

    /// Calls `hook` with a [`Snapshot`] now and then every `period` (at least a millisecond),
    /// for as long as the returned future is polled: run it in an embassy task on a
    /// `&'static` limiter, or select it with the work it reports on. A period that was missed
    /// (a busy executor) is skipped, not made up in a burst. [`Limiter::report_owned`] is the
    /// same future with its own handle, to spawn.
    pub fn report<'a, F>(&'a self, period: Duration, hook: F) -> impl Future<Output = ()> + 'a
    where
        F: FnMut(Snapshot) + 'a,
        M: 'a,
        C: 'a,
        R: 'a,
        Q: 'a,
    {
        report_every(&*self.gate, period, hook)
    }

    /// [`Limiter::report`] keeping its own handle to the limiter: `'static` with an `Arc`, to
    /// spawn (`tokio::spawn(limiter.report_owned(period, hook))`). Dropping it (aborting the
    /// task) stops the reports.
    pub fn report_owned<F>(
        &self,
        period: Duration,
        hook: F,
    ) -> impl Future<Output = ()> + use<F, H, M, C, R, Q>
    where
        H: Clone,
        F: FnMut(Snapshot),
    {
        let gate = self.gate.clone();
        async move { report_every(&*gate, period, hook).await }
    }

    /// Names the limiter in its metrics and `tracing` events ([`Gate::set_name`]); a limiter
    /// keeps its first name, returned as the error when named again with another.
    #[cfg(any(feature = "metrics", feature = "tracing"))]
    pub fn set_name(&self, name: &'static str) -> Result<(), &'static str> {
        self.gate.set_name(name)
    }

    /// The limiter's name, once [`Limiter::set_name`] or [`Limiter::report_metrics`] gave it
    /// one.
    #[cfg(any(feature = "metrics", feature = "tracing"))]
    pub fn name(&self) -> Option<&'static str> {
        self.gate.name()
    }

    /// Names the limiter (a limiter already named keeps its name) and publishes it to the
    /// `metrics` facade under that name, for as long as the returned future runs (spawn it):
    /// the histogram `limiter_latency_seconds` at each sample, and every `period` the gauges and
    /// counters of its [`Snapshot`] ([`crate::metrics_hook`] lists them all).
    ///
    /// ```
    /// use core::future::{Future, Pending, pending};
    /// use core::pin::pin;
    /// use core::task::{Context, Waker};
    /// use core::time::Duration;
    /// use limiter_core::{Clock, Fixed, Gate, HeapQueue, Instant, Limiter, Runtime, StdRawMutex};
    /// use std::sync::Arc;
    ///
    /// #[derive(Clone, Default)]
    /// struct Frozen; // a test's runtime: time stands still, no timer fires
    /// impl Clock for Frozen {
    ///     fn now(&self) -> Instant {
    ///         Instant::ZERO
    ///     }
    /// }
    /// impl Runtime for Frozen {
    ///     type Sleep = Pending<()>;
    ///     fn sleep_until(&self, _: Instant) -> Pending<()> {
    ///         pending()
    ///     }
    /// }
    ///
    /// let limiter: Limiter<Arc<Gate<StdRawMutex, Fixed, Frozen, HeapQueue>>> =
    ///     Limiter::new(Fixed::new(8).unwrap());
    /// let mut reports = pin!(limiter.report_metrics("payments-api", Duration::from_secs(10)));
    /// // `tokio::spawn(reports)` in an application; here, the first report by hand.
    /// assert!(reports.as_mut().poll(&mut Context::from_waker(Waker::noop())).is_pending());
    /// assert_eq!(limiter.name(), Some("payments-api"));
    /// ```
    #[cfg(feature = "metrics")]
    pub fn report_metrics(
        &self,
        name: &'static str,
        period: Duration,
    ) -> impl Future<Output = ()> + use<H, M, C, R, Q>
    where
        H: Clone,
    {
        let name = self.gate.set_name(name).err().unwrap_or(name);
        self.report_owned(period, crate::limiter::metrics::metrics_hook(name))
    }
}

/// Calls `hook` with `gate`'s snapshot now and every `period` after (see [`Limiter::report`]).
async fn report_every<M, C, R, Q: Queue>(
    gate: &Gate<M, C, R, Q>,
    period: Duration,
    mut hook: impl FnMut(Snapshot),
) where
    M: RawMutex,
    C: Controller,
    R: Runtime,
{
    let period = period.max(Duration::from_millis(1));
    let mut next = gate.clock().now();
    loop {
        hook(gate.snapshot());
        let now = gate.clock().now();
        next = next.saturating_add(period);
        // Missed periods are skipped in one step: a clock that jumps far ahead (or a stall of
        // years) must not cost a loop turn per missed period.
        if next <= now {
            next = now.saturating_add(period);
        }
        gate.clock().sleep_until(next).await;
    }
}

/// Sleeps until `gate`'s admission hold has passed (at once if there is none).
async fn wait_out_hold<M, C, R, Q: Queue>(gate: &Gate<M, C, R, Q>)
where
    M: RawMutex,
    C: Controller,
    R: Runtime,
{
    while let Some(until) = gate.held_until() {
        gate.clock().sleep_until(until).await;
    }
}

impl<H, M, C, R, Q: Queue> core::fmt::Debug for Limiter<H>
where
    H: Deref<Target = Gate<M, C, R, Q>>,
    M: RawMutex,
    C: Controller,
    R: Runtime,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Limiter")
            .field("snapshot", &self.snapshot())
            .field("held_until", &self.held_until())
            .finish()
    }
}

/// A rate a call must wait its turn for: a quota (the adapters' `Quota`).
pub trait Pace {
    /// Waits until the rate allows one call, and takes it.
    fn ready(&self) -> impl Future<Output = ()>;
}

impl<P: Pace + ?Sized> Pace for &P {
    fn ready(&self) -> impl Future<Output = ()> {
        (**self).ready()
    }
}

pin_project_lite::pin_project! {
    /// The future of [`Limiter::acquire`] and [`Limiter::acquire_owned`]: waits out the
    /// `Retry-After` hold, then for admission in FIFO order; a hold set while it waits keeps it
    /// waiting (a place granted meanwhile stays reserved for it) until the hold has passed.
    ///
    /// Cancel safe: dropped while queued, it leaves the queue, and capacity already handed to
    /// it passes to the next waiter.
    #[must_use = "futures do nothing unless polled"]
    pub struct Admit<H: GateRef, S> {
        queued: crate::gate::future::Acquire<H>,
        // The timer of a hold in force, while it runs.
        #[pin]
        hold: Option<S>,
    }
}

impl<H: GateRef, S> Admit<H, S> {
    fn new(handle: H) -> Self {
        Admit {
            queued: crate::gate::future::Acquire::new(handle),
            hold: None,
        }
    }
}

impl<H, M, C, R, Q: Queue> Future for Admit<H, R::Sleep>
where
    H: Deref<Target = Gate<M, C, R, Q>> + Unpin,
    M: RawMutex,
    C: Controller,
    R: Runtime,
{
    type Output = Result<Permit<H>, QueueFull>;

    /// Once it has completed, polling again returns `Pending` and never wakes the task.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        loop {
            if let Some(hold) = this.hold.as_mut().as_pin_mut() {
                if hold.poll(cx).is_pending() {
                    return Poll::Pending;
                }
                this.hold.set(None);
            }
            // A newcomer is told of a hold in force instead of joining the queue (checked under
            // the gate's lock, with the admission), and comes back once its timer has run.
            let until = match this.queued.poll_entry(true, cx) {
                Poll::Ready(Err(Refused::Held(until))) => until,
                Poll::Ready(Err(Refused::Full)) => return Poll::Ready(Err(QueueFull)),
                Poll::Ready(Ok(permit)) => return Poll::Ready(Ok(permit)),
                Poll::Pending => return Poll::Pending,
            };
            if let Some(gate) = this.queued.handle() {
                this.hold.set(Some(gate.clock().sleep_until(until)));
            }
        }
    }
}

impl<H: GateRef, S> core::fmt::Debug for Admit<H, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let stage = match (&self.hold, self.queued.is_queued()) {
            (Some(_), _) => "held by Retry-After",
            (None, true) => "queued",
            (None, false) => "not queued",
        };
        f.debug_struct("Admit")
            .field("stage", &stage)
            .finish_non_exhaustive()
    }
}
