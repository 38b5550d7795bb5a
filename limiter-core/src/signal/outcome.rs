//! What happened to a request, and which of those things say anything about capacity.
//!
//! Only congestion may shrink the limit. A request ends in one of three [`Outcome`]s:
//!
//! | outcome | effect on an adaptive limit |
//! |---|---|
//! | [`Outcome::Success`] | a latency sample: growth, or a cut if the latency is far above baseline |
//! | [`Outcome::Overload`] | a cut (at most one per round trip) |
//! | [`Outcome::Ignore`] | nothing: the request says nothing about the dependency's capacity |
//!
//! [`Cause`] is the finer taxonomy callers usually have at hand (a timeout, a 429, a validation
//! error, a cancelled call…); [`Cause::outcome`] maps it, and [`HttpClassifier`] maps HTTP status
//! codes onto it.

/// How a request ended, as far as the limiter is concerned.
///
/// # Examples
///
/// ```
/// use limiter_core::{Cause, Outcome};
///
/// assert_eq!(Cause::Throttled.outcome(), Outcome::Overload);
/// assert_eq!(Cause::Validation.outcome(), Outcome::Ignore);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Outcome {
    /// The dependency did the work. Its latency is a sample for the controller.
    Success,
    /// The dependency (or our own path to it) is saturated: timeout, 429, 503, 504, a dropped
    /// call, an exhausted connection pool. The limit is cut.
    Overload,
    /// Says nothing about capacity: a client error, a cancelled call. The limit does not move.
    Ignore,
}

/// Why a request ended: the taxonomy callers classify their results into.
///
/// Each cause maps to an [`Outcome`] through [`Cause::outcome`]. Only [`Cause::Throttled`],
/// [`Cause::Unavailable`], [`Cause::Timeout`] and [`Cause::LocalSaturation`] feed the controller
/// as congestion; [`Cause::Success`] feeds it a latency sample; every other cause is ignored.
///
/// [`Cause::TransientFailure`] (HTTP 500, 502, a reset connection) is ignored by default because a
/// failing replica is not the same as an overloaded one; [`HttpClassifier::server_errors_are_congestion`](crate::HttpClassifier::server_errors_are_congestion)
/// and [`Cause::outcome_with`] let a caller treat it as congestion instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Cause {
    /// The call succeeded (2xx, 3xx).
    Success,
    /// The dependency asked us to slow down (HTTP 429, a provider's throttling error).
    Throttled,
    /// The dependency is overloaded or unavailable (HTTP 503).
    Unavailable,
    /// The call took too long: a local deadline, a gateway timeout (HTTP 504), a dropped call.
    Timeout,
    /// Our own resources are saturated (an exhausted connection pool, a full send buffer).
    LocalSaturation,
    /// The dependency failed in a way that may pass (HTTP 500, 502, a reset connection).
    TransientFailure,
    /// Credentials were missing or rejected (HTTP 401).
    Authentication,
    /// The caller may not do this (HTTP 403).
    Permission,
    /// The request itself was wrong (HTTP 400, 413, 422 and other client errors).
    Validation,
    /// The resource does not exist and will not appear by retrying (HTTP 404, 410).
    NotFound,
    /// The caller gave up: the future was dropped, the user navigated away.
    Cancelled,
    /// Anything else, including malformed status codes. Ignored.
    Other,
}

impl Cause {
    /// The outcome this cause has on the limit, with the default policy (transient failures are
    /// not congestion).
    pub const fn outcome(self) -> Outcome {
        self.outcome_with(false)
    }

    /// The outcome this cause has on the limit, treating [`Cause::TransientFailure`] as
    /// congestion when `transient_is_congestion` is set.
    ///
    /// ```
    /// use limiter_core::{Cause, Outcome};
    /// assert_eq!(Cause::TransientFailure.outcome_with(false), Outcome::Ignore);
    /// assert_eq!(Cause::TransientFailure.outcome_with(true), Outcome::Overload);
    /// ```
    pub const fn outcome_with(self, transient_is_congestion: bool) -> Outcome {
        match self {
            Cause::Success => Outcome::Success,
            Cause::Throttled | Cause::Unavailable | Cause::Timeout | Cause::LocalSaturation => {
                Outcome::Overload
            }
            Cause::TransientFailure if transient_is_congestion => Outcome::Overload,
            Cause::TransientFailure
            | Cause::Authentication
            | Cause::Permission
            | Cause::Validation
            | Cause::NotFound
            | Cause::Cancelled
            | Cause::Other => Outcome::Ignore,
        }
    }
}
