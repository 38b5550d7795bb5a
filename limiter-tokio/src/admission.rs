//! How the middleware (the tower layer, the reqwest middleware) admit a request: the
//! [`Refusal`]s they answer with, the waiting policy, and the `Retry-After` rule they share with
//! `Limiter::run`.

use std::time::Duration;

use limiter_core::{
    AcquireError, Controller, GateRef, Permit, QueueFull, TryAcquireError, Verdict,
};

use crate::Limiter;

/// Why a middleware (the tower layer, the reqwest middleware) answered a request without
/// calling the inner service or sending it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// At the limit, for a middleware that refuses at once.
    AtLimit,
    /// The limiter holds newcomers back for a dependency's `Retry-After`; this much of the hold
    /// is left.
    Held {
        /// The rest of the hold.
        retry_after: Duration,
    },
    /// The limiter's waiting queue was full.
    QueueFull,
    /// The request waited the middleware's longest wait without a permit.
    TimedOut,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::AtLimit => f.write_str("refused: at the concurrency limit"),
            Refusal::Held { retry_after } => write!(
                f,
                "refused: the dependency asked for a pause, {} ms left",
                retry_after.as_millis()
            ),
            Refusal::QueueFull => f.write_str("refused: the limiter's queue is full"),
            Refusal::TimedOut => f.write_str("refused: no permit within the longest wait"),
        }
    }
}

impl std::error::Error for Refusal {}

#[cfg(feature = "http")]
impl Refusal {
    /// The answer to a refused request: `503 Service Unavailable` with an empty body, and a
    /// `Retry-After` of the hold's rest in whole seconds (rounded up) when the limiter holds
    /// one.
    ///
    /// ```
    /// use std::time::Duration;
    /// use limiter_tokio::Refusal;
    ///
    /// let held = Refusal::Held { retry_after: Duration::from_millis(1_500) };
    /// let response: http::Response<String> = held.to_response();
    /// assert_eq!(response.status(), 503);
    /// assert_eq!(response.headers()["retry-after"], "2");
    /// assert!(Refusal::QueueFull.to_response::<()>().headers().get("retry-after").is_none());
    /// ```
    pub fn to_response<B: Default>(&self) -> http::Response<B> {
        let mut response = http::Response::new(B::default());
        *response.status_mut() = http::StatusCode::SERVICE_UNAVAILABLE;
        if let Refusal::Held { retry_after } = self {
            let secs = retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0);
            response
                .headers_mut()
                .insert(http::header::RETRY_AFTER, http::HeaderValue::from(secs));
        }
        response
    }
}

/// A bounded wait's error ([`Limiter::acquire_timeout`](limiter_core::Limiter::acquire_timeout)),
/// as the refusal the layer answers with.
impl From<AcquireError> for Refusal {
    fn from(error: AcquireError) -> Self {
        match error {
            AcquireError::QueueFull => Refusal::QueueFull,
            AcquireError::Timeout => Refusal::TimedOut,
        }
    }
}

/// A full queue, as the refusal a middleware answers with.
impl From<QueueFull> for Refusal {
    fn from(QueueFull: QueueFull) -> Self {
        Refusal::QueueFull
    }
}

/// How long a request may wait for a permit.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Wait {
    /// In the FIFO queue, at most this long (`None`: as long as it takes).
    Queue(Option<Duration>),
    /// Not at all.
    Never,
}

impl Refusal {
    /// The refusal of a request turned away at once.
    pub(crate) fn at_once<C: Controller>(limiter: &Limiter<C>, refused: TryAcquireError) -> Self {
        match refused {
            TryAcquireError::AtLimit => Refusal::AtLimit,
            TryAcquireError::Held { until } => Refusal::held(limiter, until),
        }
    }

    /// The refusal of a wait that ran out, counted in the snapshot (as `held` if a hold
    /// outlasted it, else `timed_out`).
    pub(crate) fn ended_wait<C: Controller>(limiter: &Limiter<C>) -> Self {
        match limiter.count_ended_wait() {
            Some(until) => Refusal::held(limiter, until),
            None => Refusal::TimedOut,
        }
    }

    /// The refusal of a hold that ends at `until`, with what is left of it.
    fn held<C: Controller>(limiter: &Limiter<C>, until: limiter_core::Instant) -> Self {
        let now = limiter_core::Clock::now(limiter.runtime());
        Refusal::Held {
            retry_after: Duration::from_micros(until.micros_since(now)),
        }
    }
}

/// Holds what `verdict` asks for, as `Limiter::run` does: admissions (and growth) for its
/// `Retry-After`, else growth for its growth hold. The outcome is the caller's to record.
pub(crate) fn hold_for<R: GateRef>(permit: &Permit<R>, verdict: &Verdict) {
    if let Some(delay) = verdict.retry_after {
        permit.hold_admissions_for(delay);
    } else if let Some(delay) = verdict.hold_growth {
        permit.hold_growth_for(delay);
    }
}
