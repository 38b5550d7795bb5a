//! Controllers: pure state machines that turn completed requests into a concurrency limit.
//!
//! Every controller implements [`Controller`]: it is fed one [`Sample`] per completed request and
//! answers with the new limit. Controllers hold no locks, read no clock and allocate nothing; all
//! time comes in with the samples. The same event sequence always gives the same limits, which is
//! what lets the simulator compare them side by side and the fuzzers replay them.

mod aimd;
mod arith;
mod ewma;
mod fixed;
mod gradient;
mod knee;
mod level;
mod probe;
mod share;
mod tally;
mod vegas;
pub(crate) mod window;

pub use aimd::{
    Aimd, AimdConfig, AimdF32, AimdFixed, AimdFixedCompact, DEFAULT_WINDOW, LatencySignal,
    MAX_LIMIT,
};
pub use arith::{F32, LimitValue, Q32};
pub use ewma::{EwmaConfig, EwmaDeviation};
pub use fixed::Fixed;
pub use gradient::{Gradient2, GradientConfig};
pub use vegas::{Vegas, VegasConfig};

use crate::signal::outcome::Outcome;
use crate::time::clock::Instant;

/// A controller's count of decreases, as seen by a request when it was admitted.
///
/// A congestion signal from a request admitted under an older epoch was caused by load that the
/// last decrease already answered, so it does not cut again (TCP's one cut per window). The count
/// wraps; only equality is compared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Epoch(pub u32);

/// What was known about a request at the moment it was admitted.
///
/// The gate fills this in; a caller driving a controller by hand builds it with
/// [`Admission::new`] when it sends the request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Admission {
    /// When the request was admitted. Latency is measured from here, never from when the caller
    /// started waiting for the limiter.
    pub at: Instant,
    /// The controller's [`Epoch`] at admission.
    pub epoch: Epoch,
    /// Requests in flight right after this one was admitted (including it).
    pub in_flight: u32,
}

impl Admission {
    /// A request admitted at `at`, under `controller`'s current epoch, with `in_flight` requests
    /// in flight including itself.
    pub fn new<C: Controller + ?Sized>(controller: &C, at: Instant, in_flight: u32) -> Self {
        Admission {
            at,
            epoch: controller.epoch(),
            in_flight,
        }
    }
}

/// A completed request, as a controller sees it.
///
/// # Examples
///
/// ```
/// use limiter_core::{Admission, AimdF32, Controller, Instant, Outcome, Sample};
///
/// let mut aimd = AimdF32::new(Default::default()).unwrap();
/// let admitted = Admission::new(&aimd, Instant::from_millis(0), 4);
/// let sample = Sample::new(admitted, Instant::from_millis(5), Outcome::Overload);
/// assert_eq!(sample.latency_micros(), 5_000);
/// aimd.on_sample(&sample);
/// assert_eq!(aimd.limit(), 3); // 4 × 0.8, rounded down
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Sample {
    /// The request's admission record.
    pub admission: Admission,
    /// When the request completed.
    pub completed_at: Instant,
    /// How it ended.
    pub outcome: Outcome,
    /// The concurrency the dependency said it serves at this call's latency, 0 if it said
    /// nothing: the pace of a provider's quota, the calls left in its window over the time to
    /// its reset (see [`QuotaLeft::concurrency`](crate::QuotaLeft::concurrency)). The probing
    /// AIMD grows straight to it (up to the last knee), as fast as the provider says it may;
    /// where [`calls_left`](Self::calls_left) is stated too, to its part of it (and no higher).
    pub pace: u32,
    /// The calls the provider's quota headers said were left in its window with this answer
    /// (0 if they said nothing): with [`pace`](Self::pace), what lets the probing AIMD tell its
    /// own share of a quota that several clients spend (see [`QuotaLeft`](crate::QuotaLeft)).
    pub calls_left: u32,
}

impl Sample {
    /// A request admitted as `admission` that ended with `outcome` at `completed_at`, with no
    /// pace stated.
    pub const fn new(admission: Admission, completed_at: Instant, outcome: Outcome) -> Self {
        Sample {
            admission,
            completed_at,
            outcome,
            pace: 0,
            calls_left: 0,
        }
    }

    /// The same sample, with the concurrency the dependency said it serves (see
    /// [`Sample::pace`]).
    ///
    /// ```
    /// use limiter_core::{Admission, AimdF32, Controller, Instant, Outcome, Sample};
    ///
    /// let mut aimd = AimdF32::new(Default::default()).unwrap();
    /// let admitted = Admission::new(&aimd, Instant::from_millis(0), 4);
    /// let answer = Sample::new(admitted, Instant::from_millis(100), Outcome::Success);
    /// aimd.on_sample(&answer.with_pace(50));
    /// assert_eq!(aimd.limit(), 50); // not 4.25: the provider said it serves 50
    /// ```
    pub const fn with_pace(mut self, pace: u32) -> Self {
        self.pace = pace;
        self
    }

    /// The same sample, with the calls the provider said were left in its window (see
    /// [`Sample::calls_left`]). The probing AIMD measures from successive counts what part of
    /// them the client spends, and takes that part of a stated pace.
    ///
    /// ```
    /// use limiter_core::{Admission, AimdConfig, AimdF32, Controller, Instant, Outcome, Sample};
    ///
    /// let mut aimd = AimdF32::new(AimdConfig::default())?;
    /// // The account's count falls by ten calls for each answer of this client's: its share is
    /// // a tenth, and its part of the pace of 400 stated for the whole account is 40: a ceiling,
    /// // which lowers a limit above it (once per round trip).
    /// let mut limits = Vec::new();
    /// for (round, left) in [1_000, 990, 980, 970, 960, 950, 940].into_iter().enumerate() {
    ///     let at = Instant::from_millis(100 * round as u64);
    ///     let admitted = Admission::new(&aimd, at, aimd.limit());
    ///     let answer = Sample::new(admitted, at.saturating_add_micros(100_000), Outcome::Success);
    ///     aimd.on_sample(&answer.with_pace(400).with_calls_left(left));
    ///     limits.push(aimd.limit());
    /// }
    /// // Until four answers of its own measure the share, the pace is taken as the client's
    /// // own: straight to it, up to the bound of 64. Then down to its part.
    /// assert_eq!(limits, [64, 64, 64, 64, 40, 40, 40]);
    /// # Ok::<(), limiter_core::ConfigError>(())
    /// ```
    pub const fn with_calls_left(mut self, calls: u32) -> Self {
        self.calls_left = calls;
        self
    }

    /// Service time in microseconds: from admission to completion, zero if the clock went
    /// backwards.
    pub const fn latency_micros(&self) -> u64 {
        self.completed_at.micros_since(self.admission.at)
    }
}

/// What a sample did to the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Change {
    /// The limit grew.
    Increased,
    /// The limit was cut.
    Decreased,
    /// Nothing moved: an ignored outcome, a signal already answered this round trip, growth held
    /// by a cooldown or a Retry-After hint, an idle limit, or a bound reached.
    Unchanged,
}

/// A controller's state for observation (see [`crate::Snapshot`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ControllerStats {
    /// The limit, as used for admission.
    pub limit: u32,
    /// The floor.
    pub min: u32,
    /// The ceiling.
    pub max: u32,
    /// The latency baseline in microseconds, once the controller has one.
    pub baseline_micros: Option<u32>,
    /// Samples that grew the limit.
    pub increases: u64,
    /// Samples that cut the limit.
    pub decreases: u64,
    /// Since when the limit has been at its floor, if it is. Pinned at the floor while failures
    /// continue is the signal for a circuit breaker to take over.
    pub at_floor_since: Option<Instant>,
}

/// A concurrency-limit control law.
///
/// Implementations are deterministic state machines: `&mut self`, explicit time, no interior
/// mutability. [`limit`](Controller::limit) is always within `[min, max]` and at least 1.
///
/// # Examples
///
/// Drive any controller by hand, with your own clock and no runtime:
///
/// ```
/// use limiter_core::{Admission, AimdF32, AimdConfig, Controller, Instant, Outcome, Sample};
///
/// fn replay<C: Controller>(c: &mut C, latencies_ms: &[u64]) {
///     let mut now = Instant::ZERO;
///     for &ms in latencies_ms {
///         let admitted = Admission::new(c, now, c.limit()); // the limit is in use
///         now = now.saturating_add_micros(ms * 1_000);
///         c.on_sample(&Sample::new(admitted, now, Outcome::Success));
///     }
/// }
///
/// let mut aimd = AimdF32::new(AimdConfig::default().initial(4)).unwrap();
/// replay(&mut aimd, &[5; 20]);
/// assert!(aimd.limit() > 5);
/// ```
pub trait Controller {
    /// The current limit: how many requests may be in flight.
    fn limit(&self) -> u32;

    /// The number of decreases so far, stamped on each [`Admission`].
    fn epoch(&self) -> Epoch;

    /// Feeds one completed request; returns what it did to the limit.
    fn on_sample(&mut self, sample: &Sample) -> Change;

    /// A dependency asked us to wait until `until` (a `Retry-After`): hold growth until then.
    /// `now` is the current time. The default ignores the hint.
    fn hold_growth_until(&mut self, now: Instant, until: Instant) {
        let _ = (now, until);
    }

    /// State for observation.
    fn stats(&self) -> ControllerStats;
}

impl<C: Controller + ?Sized> Controller for &mut C {
    fn limit(&self) -> u32 {
        (**self).limit()
    }
    fn epoch(&self) -> Epoch {
        (**self).epoch()
    }
    fn on_sample(&mut self, sample: &Sample) -> Change {
        (**self).on_sample(sample)
    }
    fn hold_growth_until(&mut self, now: Instant, until: Instant) {
        (**self).hold_growth_until(now, until);
    }
    fn stats(&self) -> ControllerStats {
        (**self).stats()
    }
}
