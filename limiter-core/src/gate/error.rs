//! What the gate answers when it does not admit, in the words the counters of
//! [`Snapshot`](crate::Snapshot) use too:
//!
//! | refusal | error | counter |
//! |---|---|---|
//! | at the limit (`try_acquire`) | [`AtLimit`], [`TryAcquireError::AtLimit`] | `at_limit` |
//! | held by a `Retry-After` (`Limiter::try_acquire`) | [`TryAcquireError::Held`] | `held` |
//! | queue full (`acquire`) | [`QueueFull`], [`AcquireError::QueueFull`] | `queue_full` |
//! | timed out (`acquire_until`, `acquire_timeout`) | [`AcquireError::Timeout`] | `timed_out` |

use crate::time::clock::Instant;

/// At the limit: the request was refused at once, without waiting (counted in
/// [`Snapshot::at_limit`](crate::Snapshot::at_limit)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AtLimit;

impl core::fmt::Display for AtLimit {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("concurrency limit reached")
    }
}

impl core::error::Error for AtLimit {}

/// Queue full: the request was refused instead of queued (counted in
/// [`Snapshot::queue_full`](crate::Snapshot::queue_full)). This is an overload response: turn the
/// request away or report it upstream, do not spin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct QueueFull;

impl core::fmt::Display for QueueFull {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("concurrency limiter queue is full")
    }
}

impl core::error::Error for QueueFull {}

/// Why [`Limiter::try_acquire`](crate::Limiter::try_acquire) did not admit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TryAcquireError {
    /// At the limit (or others wait): counted in [`Snapshot::at_limit`](crate::Snapshot::at_limit).
    AtLimit,
    /// Held by a `Retry-After` until this instant of the limiter's clock: counted in
    /// [`Snapshot::held`](crate::Snapshot::held).
    Held {
        /// When the hold ends.
        until: Instant,
    },
}

impl From<AtLimit> for TryAcquireError {
    fn from(_: AtLimit) -> Self {
        TryAcquireError::AtLimit
    }
}

impl core::fmt::Display for TryAcquireError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            TryAcquireError::AtLimit => f.write_str("concurrency limit reached"),
            TryAcquireError::Held { until } => write!(
                f,
                "admissions held by the dependency's Retry-After until {} µs",
                until.as_micros()
            ),
        }
    }
}

impl core::error::Error for TryAcquireError {}

/// Why a waiter was not queued (the gate's internal protocol): the queue was full, or a
/// `Retry-After` holds newcomers back until the given instant.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    Full,
    Held(Instant),
}

/// Why a bounded wait for a permit (a timeout, a deadline) ended without one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum AcquireError {
    /// The waiting queue was full: the request was rejected at once, not queued.
    QueueFull,
    /// The deadline passed while the request waited; it has left the queue.
    Timeout,
}

impl From<QueueFull> for AcquireError {
    fn from(_: QueueFull) -> Self {
        AcquireError::QueueFull
    }
}

impl core::fmt::Display for AcquireError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            AcquireError::QueueFull => "concurrency limiter queue is full",
            AcquireError::Timeout => "timed out waiting for a concurrency permit",
        })
    }
}

impl core::error::Error for AcquireError {}
