//! [`Permit`]: one admitted request, released exactly once on every path.

use core::future::Future;
use core::time::Duration;

use crate::controller::{Admission, Sample};
use crate::gate::handle::GateRef;
use crate::signal::classify::{Classify, Verdict};
use crate::signal::outcome::{Cause, Outcome};
use crate::time::clock::Instant;

/// The right to have one request in flight.
///
/// Record how the request ended with [`success`](Permit::success),
/// [`overload`](Permit::overload), [`ignore`](Permit::ignore) or [`record`](Permit::record);
/// each consumes the permit and releases its capacity. A permit dropped without an outcome (the
/// caller was cancelled, a `?` returned early, a panic unwound) is released as *cancelled*: the
/// capacity comes back and the limit does not move.
///
/// Latency is measured from [`admission`](Permit::admission), never from when the caller
/// started waiting.
///
/// # Examples
///
/// ```
/// use limiter_core::{Cause, Fixed, Gate, HttpClassifier, InlineQueue, ManualClock, NoopRawMutex};
///
/// let clock = ManualClock::new();
/// let gate: Gate<NoopRawMutex, _, _, InlineQueue<4>> = Gate::new(Fixed::new(2).unwrap(), &clock);
///
/// let permit = gate.try_acquire().unwrap();
/// permit.record(HttpClassifier::new().outcome(503)); // congestion
///
/// let permit = gate.try_acquire().unwrap();
/// permit.record_cause(Cause::Validation); // says nothing about capacity
///
/// {
///     let _permit = gate.try_acquire().unwrap();
///     // dropped here without an outcome: cancelled
/// }
/// let s = gate.snapshot();
/// assert_eq!((s.in_flight, s.admitted, s.cancelled), (0, 3, 1));
/// ```
#[must_use = "a permit releases its capacity when dropped; record an outcome with it"]
#[clippy::has_significant_drop]
pub struct Permit<R: GateRef> {
    gate: R,
    admission: Admission,
    /// Cleared once the capacity has been handed back.
    armed: bool,
}

impl<R: GateRef> Permit<R> {
    pub(crate) fn new(gate: R, admission: Admission) -> Self {
        Permit {
            gate,
            admission,
            armed: true,
        }
    }

    /// A permit if the gate admits a newcomer now (see [`crate::Gate::try_acquire`]).
    pub(crate) fn try_new(gate: R) -> Result<Self, crate::gate::error::AtLimit> {
        let admission = gate.try_admit()?;
        Ok(Permit::new(gate, admission))
    }

    /// When and under what state the request was admitted.
    pub fn admission(&self) -> Admission {
        self.admission
    }

    /// Moves the start of this request's latency measurement to now.
    ///
    /// For an admission that goes on waiting after the gate admitted it (for a rate quota, for a
    /// second gate): the latency the controller learns from should start when the call can
    /// actually start, not include that wait. The permit's capacity is unaffected.
    ///
    /// ```
    /// use core::time::Duration;
    /// use limiter_core::{Fixed, Gate, InlineQueue, ManualClock, NoopRawMutex};
    ///
    /// let clock = ManualClock::new();
    /// let gate: Gate<NoopRawMutex, _, _, InlineQueue<4>> = Gate::new(Fixed::new(2).unwrap(), &clock);
    /// let mut permit = gate.try_acquire().unwrap();
    /// clock.advance(Duration::from_millis(300)); // waiting for something else
    /// permit.start_now();
    /// assert_eq!(permit.admission().at.as_micros(), 300_000);
    /// # permit.success();
    /// ```
    pub fn start_now(&mut self) {
        self.admission.at = self.gate.now();
    }

    /// The gate this permit belongs to.
    pub fn gate(&self) -> &R {
        &self.gate
    }

    /// The call succeeded; its latency (admission to now) is a sample for the controller.
    pub fn success(self) {
        self.record(Outcome::Success);
    }

    /// The dependency signalled congestion (timeout, 429, 503, 504, dropped): cut the limit.
    pub fn overload(self) {
        self.record(Outcome::Overload);
    }

    /// The outcome says nothing about capacity (a client error): release, change nothing.
    pub fn ignore(self) {
        self.record(Outcome::Ignore);
    }

    /// Records `outcome`, completing now.
    pub fn record(self, outcome: Outcome) {
        let now = self.gate.now();
        self.record_at(outcome, now);
    }

    /// Records the outcome `cause` stands for (see [`Cause::outcome`]).
    pub fn record_cause(self, cause: Cause) {
        self.record(cause.outcome());
    }

    /// Records `outcome`, completing at `at` (for callers that timestamp completions themselves).
    pub fn record_at(self, outcome: Outcome, at: Instant) {
        let sample = Sample::new(self.admission, at, outcome);
        self.record_sample(sample);
    }

    /// Records `verdict`'s outcome, completing now, with the pace its quota hint states at this
    /// call's latency and the calls it says are left (see [`Sample::pace`] and
    /// [`Sample::calls_left`]), and none of its holds: for callers that apply a
    /// verdict's `Retry-After` and growth hold themselves (as [`Limiter::run`](crate::Limiter::run)
    /// does). [`Permit::record_verdict`] applies them, then records this.
    ///
    /// ```
    /// use core::time::Duration;
    /// use limiter_core::{AimdF32, Gate, InlineQueue, ManualClock, NoopRawMutex, Outcome};
    /// use limiter_core::{QuotaHint, Verdict};
    ///
    /// let clock = ManualClock::new();
    /// let gate: Gate<NoopRawMutex, _, _, InlineQueue<4>> =
    ///     Gate::new(AimdF32::new(Default::default()).unwrap(), &clock);
    /// let permits: Vec<_> = (0..4).map(|_| gate.try_acquire().unwrap()).collect();
    /// clock.advance(Duration::from_millis(100));
    /// // 450 calls left for the 900 ms to the reset: 50 calls of 100 ms in flight spend them.
    /// let hint = QuotaHint { remaining: Some(450), limit: Some(500), reset: Some(Duration::from_millis(900)) };
    /// let verdict = Verdict::new(Outcome::Success).with_quota(hint.advice());
    /// for permit in permits {
    ///     permit.record_outcome_of(&verdict);
    /// }
    /// assert_eq!(gate.snapshot().limit, 50);
    /// ```
    pub fn record_outcome_of(self, verdict: &Verdict) {
        let at = self.gate.now();
        let sample = Sample::new(self.admission, at, verdict.outcome);
        let latency = Duration::from_micros(sample.latency_micros());
        let (pace, calls) = verdict.quota_left.map_or((0, 0), |left| {
            let pace = left.concurrency(latency).unwrap_or(0);
            (pace, u32::try_from(left.calls).unwrap_or(u32::MAX))
        });
        self.record_sample(sample.with_pace(pace).with_calls_left(calls));
    }

    fn record_sample(mut self, sample: Sample) {
        self.armed = false;
        self.gate.complete(Some(sample));
    }

    /// The dependency asked for a pause (`Retry-After`): hold the limit's growth for `delay`.
    /// Bound `delay` first; [`crate::parse_retry_after`] does.
    pub fn hold_growth_for(&self, delay: Duration) {
        self.gate.hold_growth_for(delay);
    }

    /// The dependency asked for a pause (`Retry-After`): hold its limiter's newcomers back for
    /// `delay`, and the limit's growth, as [`Limiter::run`](crate::Limiter::run) does. For
    /// middleware that records outcomes on permits (the tower layer); bound `delay` first.
    pub fn hold_admissions_for(&self, delay: Duration) {
        self.gate.hold_admissions_for(delay);
    }
}

impl<R: GateRef> Drop for Permit<R> {
    fn drop(&mut self) {
        if self.armed {
            self.armed = false;
            // Cancelled: the capacity comes back, the controller hears nothing (and no clock is
            // read, which keeps the cancel path as cheap as a semaphore's).
            self.gate.complete(None);
        }
    }
}

impl<R: GateRef> core::fmt::Debug for Permit<R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Permit")
            .field("admission", &self.admission)
            .finish_non_exhaustive()
    }
}

impl<R: GateRef> Permit<R> {
    /// Records `verdict`: holds growth for its `Retry-After` or its growth hold, if any, then
    /// records its outcome.
    pub fn record_verdict(self, verdict: Verdict) {
        let hold = match (verdict.retry_after, verdict.hold_growth) {
            (Some(a), Some(b)) => Some(if a > b { a } else { b }),
            (a, b) => a.or(b),
        };
        if let Some(delay) = hold {
            self.hold_growth_for(delay);
        }
        self.record_outcome_of(&verdict);
    }

    /// Runs `call` holding this permit, then records what `classify` makes of its output.
    ///
    /// If `call` panics or the returned future is dropped first, the permit is released as
    /// cancelled and the limit does not move.
    ///
    /// ```
    /// use core::pin::pin;
    /// use core::task::{Context, Poll, Waker};
    /// use core::future::Future;
    /// use limiter_core::{ErrorsAreOverload, Fixed, Gate, InlineQueue, ManualClock, NoopRawMutex};
    ///
    /// let clock = ManualClock::new();
    /// let gate: Gate<NoopRawMutex, _, _, InlineQueue<4>> = Gate::new(Fixed::new(2).unwrap(), &clock);
    /// let permit = gate.try_acquire().unwrap();
    /// let call = async { Ok::<_, ()>(42) };
    /// let mut run = pin!(permit.run(call, &ErrorsAreOverload));
    /// let Poll::Ready(out) = run.as_mut().poll(&mut Context::from_waker(Waker::noop())) else {
    ///     panic!()
    /// };
    /// assert_eq!(out, Ok(42));
    /// assert_eq!(gate.in_flight(), 0);
    /// ```
    pub async fn run<F, K>(self, call: F, classify: &K) -> F::Output
    where
        F: Future,
        K: Classify<F::Output> + ?Sized,
    {
        let output = call.await;
        self.record_verdict(classify.classify(&output));
        output
    }
}
