//! What the gate answers when it does not admit: at the limit, queue full, a bounded wait that
//! ran out, and (internally) a `Retry-After` hold.

use crate::time::clock::Instant;

/// The limit was reached; the request was shed without waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AtLimit;

impl core::fmt::Display for AtLimit {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("concurrency limit reached")
    }
}

impl core::error::Error for AtLimit {}

/// The waiting queue was full: the request was refused instead of queued (counted in
/// [`Snapshot::rejected`](crate::Snapshot::rejected)). This is an overload response: turn the
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
