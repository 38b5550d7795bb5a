//! [`AcquireError`]: why a bounded wait for a permit ended without one.

use limiter_core::QueueFull;

/// Why [`Limiter::acquire_timeout`](crate::Limiter::acquire_timeout) or
/// [`Limiter::acquire_until`](crate::Limiter::acquire_until) returned without a permit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

impl std::error::Error for AcquireError {}
