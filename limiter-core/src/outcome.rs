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
/// failing replica is not the same as an overloaded one; [`HttpClassifier::server_errors_are_congestion`]
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

/// Classifies HTTP status codes into [`Cause`]s and [`Outcome`]s.
///
/// | status | cause | default outcome |
/// |---|---|---|
/// | 100–399 | [`Cause::Success`] | success |
/// | 429 | [`Cause::Throttled`] | overload |
/// | 503 | [`Cause::Unavailable`] | overload |
/// | 504 | [`Cause::Timeout`] | overload |
/// | 500, 502 | [`Cause::TransientFailure`] | ignore (configurable) |
/// | 401 | [`Cause::Authentication`] | ignore |
/// | 403 | [`Cause::Permission`] | ignore |
/// | 404, 410 | [`Cause::NotFound`] | ignore |
/// | other 4xx (400, 413, 422…) | [`Cause::Validation`] | ignore |
/// | other 5xx, anything outside 100–599 | [`Cause::Other`] | ignore |
///
/// # Examples
///
/// ```
/// use limiter_core::{Cause, HttpClassifier, Outcome};
///
/// let default = HttpClassifier::new();
/// assert_eq!(default.outcome(200), Outcome::Success);
/// assert_eq!(default.outcome(429), Outcome::Overload);
/// assert_eq!(default.outcome(404), Outcome::Ignore);
/// assert_eq!(default.outcome(502), Outcome::Ignore);
///
/// let strict = HttpClassifier::new().server_errors_are_congestion(true);
/// assert_eq!(strict.cause(502), Cause::TransientFailure);
/// assert_eq!(strict.outcome(502), Outcome::Overload);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct HttpClassifier {
    transient_is_congestion: bool,
    retry_after_cap_secs: u32,
}

impl Default for HttpClassifier {
    fn default() -> Self {
        HttpClassifier::new()
    }
}

impl HttpClassifier {
    /// The default policy: 429, 503 and 504 are congestion; 500 and 502 are not; a
    /// `Retry-After` is honoured up to ten minutes.
    pub const fn new() -> Self {
        HttpClassifier {
            transient_is_congestion: false,
            retry_after_cap_secs: 600,
        }
    }

    /// The longest `Retry-After` honoured; longer ones are cut to it.
    pub const fn retry_after_cap(mut self, cap: core::time::Duration) -> Self {
        let secs = cap.as_secs();
        self.retry_after_cap_secs = crate::clock::saturating_u32(secs);
        self
    }

    /// The longest `Retry-After` honoured.
    pub const fn max_retry_after(&self) -> core::time::Duration {
        core::time::Duration::from_secs(self.retry_after_cap_secs as u64)
    }

    /// Whether 500 and 502 count as congestion.
    pub const fn server_errors_are_congestion(mut self, yes: bool) -> Self {
        self.transient_is_congestion = yes;
        self
    }

    /// The cause a status code stands for.
    pub const fn cause(&self, status: u16) -> Cause {
        match status {
            100..=399 => Cause::Success,
            429 => Cause::Throttled,
            503 => Cause::Unavailable,
            504 => Cause::Timeout,
            500 | 502 => Cause::TransientFailure,
            401 => Cause::Authentication,
            403 => Cause::Permission,
            404 | 410 => Cause::NotFound,
            400..=499 => Cause::Validation,
            _ => Cause::Other,
        }
    }

    /// The outcome a status code has on the limit under this policy.
    pub const fn outcome(&self, status: u16) -> Outcome {
        self.cause(status)
            .outcome_with(self.transient_is_congestion)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_congestion_statuses_are_overload() {
        let c = HttpClassifier::new();
        for status in 0..=1000u16 {
            let expected = match status {
                429 | 503 | 504 => Outcome::Overload,
                100..=399 => Outcome::Success,
                _ => Outcome::Ignore,
            };
            assert_eq!(c.outcome(status), expected, "status {status}");
        }
    }

    #[test]
    fn client_errors_and_cancellation_are_ignored() {
        let c = HttpClassifier::new();
        for status in [400, 401, 403, 404, 408, 409, 413, 422] {
            assert_eq!(c.outcome(status), Outcome::Ignore, "status {status}");
        }
        assert_eq!(Cause::Cancelled.outcome(), Outcome::Ignore);
    }

    #[test]
    fn server_errors_are_configurable() {
        let c = HttpClassifier::new().server_errors_are_congestion(true);
        assert_eq!(c.outcome(500), Outcome::Overload);
        assert_eq!(c.outcome(502), Outcome::Overload);
        assert_eq!(c.outcome(501), Outcome::Ignore);
        assert_eq!(c.outcome(404), Outcome::Ignore);
    }

    #[test]
    fn seed_004_taxonomy_feeds_the_controller_as_documented() {
        use Cause::*;
        let overload = [Throttled, Unavailable, Timeout, LocalSaturation];
        let ignored = [
            TransientFailure,
            Authentication,
            Permission,
            Validation,
            NotFound,
            Cancelled,
            Other,
        ];
        for c in overload {
            assert_eq!(c.outcome(), Outcome::Overload, "{c:?}");
        }
        for c in ignored {
            assert_eq!(c.outcome(), Outcome::Ignore, "{c:?}");
        }
        assert_eq!(Success.outcome(), Outcome::Success);
    }
}
