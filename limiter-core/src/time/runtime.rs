//! [`Runtime`]: what a [`Limiter`](crate::Limiter) needs from an executor, a clock and a timer.

use core::future::Future;

use crate::time::clock::{Clock, Instant};

/// A clock with a timer: everything a [`Limiter`](crate::Limiter) needs from the executor it
/// runs on. Each adapter implements it once (tokio's timer, `async-io`'s, embassy-time's); the
/// limiter's timeouts, `Retry-After` holds, quota waits and reports are written over it.
///
/// The clock measures latency from admission, so it must be monotonic, and a deadline handed
/// to [`Runtime::sleep_until`] is an instant of that same clock.
///
/// ```
/// use core::future::{Ready, ready};
/// use limiter_core::{Clock, Instant, Runtime};
///
/// /// A runtime for a test that never waits: every timer has already fired.
/// struct Impatient;
///
/// impl Clock for Impatient {
///     fn now(&self) -> Instant {
///         Instant::ZERO
///     }
/// }
///
/// impl Runtime for Impatient {
///     type Sleep = Ready<()>;
///
///     fn sleep_until(&self, _deadline: Instant) -> Ready<()> {
///         ready(())
///     }
/// }
/// ```
pub trait Runtime: Clock {
    /// The future of [`Runtime::sleep_until`].
    type Sleep: Future<Output = ()>;

    /// A future that completes once the clock reads `deadline` or later: at once if it
    /// already does. A deadline too far for the timer to represent waits as long as it can.
    fn sleep_until(&self, deadline: Instant) -> Self::Sleep;
}

impl<R: Runtime + ?Sized> Runtime for &R {
    type Sleep = R::Sleep;

    fn sleep_until(&self, deadline: Instant) -> R::Sleep {
        (**self).sleep_until(deadline)
    }
}
