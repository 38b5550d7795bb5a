//! [`Snapshot`]: what the limiter decided and why, in one consistent read.

use crate::time::clock::Instant;

/// The state of a [`Gate`](crate::Gate) at one moment.
///
/// Read the numbers together: sustained [`at_ceiling`](Snapshot::at_ceiling) means the ceiling,
/// not the dependency, is the constraint; [`at_floor_since`](Snapshot::at_floor_since) long ago
/// while failures continue means the dependency is in trouble and a circuit breaker should take
/// over; [`utilisation_permille`](Snapshot::utilisation_permille) well below 1000 means the limit
/// is not the bottleneck at all. Alert on the floor and on the rate of
/// [`decreases`](Snapshot::decreases), not on the limit itself, which moves by design.
///
/// Counters wrap on overflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Snapshot {
    /// The current limit.
    pub limit: u32,
    /// Requests in flight.
    pub in_flight: u32,
    /// The controller's latency baseline in microseconds, once it has one.
    pub baseline_micros: Option<u32>,
    /// Requests admitted, ever.
    pub admitted: u64,
    /// Requests refused at the limit by `try_acquire` ([`AtLimit`](crate::AtLimit)).
    pub at_limit: u64,
    /// Requests refused by a [`Limiter`](crate::Limiter)'s `try_acquire` while a `Retry-After`
    /// held admissions ([`TryAcquireError::Held`](crate::TryAcquireError::Held)).
    pub held: u64,
    /// Requests refused because the waiting queue was full ([`QueueFull`](crate::QueueFull)).
    pub queue_full: u64,
    /// Waits that their deadline ended without a permit
    /// ([`AcquireError::Timeout`](crate::AcquireError::Timeout)).
    pub timed_out: u64,
    /// Permits dropped without an outcome, and granted waiters cancelled before resuming.
    pub cancelled: u64,
    /// Samples that grew the limit.
    pub increases: u64,
    /// Samples that cut the limit.
    pub decreases: u64,
    /// The floor.
    pub min: u32,
    /// The ceiling.
    pub max: u32,
    /// Since when the limit has been at its floor, if it is.
    pub at_floor_since: Option<Instant>,
    /// Requests waiting for admission.
    pub queued: u32,
    /// How long the oldest waiting request has waited, in microseconds.
    pub oldest_wait_micros: Option<u64>,
}

impl Snapshot {
    /// In-flight per thousand of the limit (above 1000 just after a cut).
    ///
    /// ```
    /// # use limiter_core::{Fixed, Gate, InlineQueue, ManualClock, NoopRawMutex};
    /// let clock = ManualClock::new();
    /// let gate: Gate<NoopRawMutex, _, _, InlineQueue<1>> = Gate::new(Fixed::new(4).unwrap(), &clock);
    /// let _p = gate.try_acquire().unwrap();
    /// assert_eq!(gate.snapshot().utilisation_permille(), 250);
    /// ```
    pub const fn utilisation_permille(&self) -> u32 {
        let limit = if self.limit == 0 { 1 } else { self.limit };
        ((self.in_flight as u64 * 1_000) / limit as u64) as u32
    }

    /// Whether the limit is at its floor.
    pub const fn at_floor(&self) -> bool {
        self.limit <= self.min
    }

    /// Whether the limit is at its ceiling.
    pub const fn at_ceiling(&self) -> bool {
        self.limit >= self.max
    }
}
