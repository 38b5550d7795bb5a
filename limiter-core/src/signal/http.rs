//! [`HttpClassifier`]: HTTP status codes (and, with the `http` feature, responses with their
//! `Retry-After`) as causes, outcomes and verdicts.

use crate::signal::classify::{Classify, Verdict};
use crate::signal::outcome::{Cause, Outcome};

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
        self.retry_after_cap_secs = crate::num::saturating_u32(secs);
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

impl Classify<u16> for HttpClassifier {
    fn classify(&self, status: &u16) -> Verdict {
        Verdict::new(self.outcome(*status))
    }
}

/// Reads the status; when the response signals congestion, its `Retry-After` (either form;
/// dates against the system clock; bounded by [`HttpClassifier::retry_after_cap`]); and, on any
/// response, the provider's remaining-quota headers (`RateLimit`, else `X-RateLimit-Remaining`,
/// `-Limit` and `-Reset`, else draft 6's `RateLimit-Remaining`, `-Limit`, `-Reset`; see
/// [`QuotaHint`](crate::QuotaHint)), bounded the same way: a spent quota is a pause like a
/// `Retry-After`, a nearly spent one holds the limit's growth. A malformed header is ignored:
/// the status and the other headers decide.
///
/// ```
/// use std::time::Duration;
/// use limiter_core::{Classify, HttpClassifier, Outcome};
///
/// let response = http::Response::builder()
///     .status(503)
///     .header("retry-after", "7")
///     .body(())
///     .unwrap();
/// let v = HttpClassifier::new().classify(&response);
/// assert_eq!(v.outcome, Outcome::Overload);
/// assert_eq!(v.retry_after, Some(Duration::from_secs(7)));
///
/// // A success that spent the quota: the next calls wait for the window's reset.
/// let response = http::Response::builder()
///     .status(200)
///     .header("x-ratelimit-remaining", "0")
///     .header("x-ratelimit-reset", "12")
///     .body(())
///     .unwrap();
/// let v = HttpClassifier::new().classify(&response);
/// assert_eq!((v.outcome, v.retry_after), (Outcome::Success, Some(Duration::from_secs(12))));
/// ```
#[cfg(feature = "http")]
impl<B> Classify<http::Response<B>> for HttpClassifier {
    fn classify(&self, response: &http::Response<B>) -> Verdict {
        self.verdict(response.status(), response.headers())
    }
}

#[cfg(feature = "http")]
impl HttpClassifier {
    /// The verdict on an answer given by its status and headers: what
    /// [`classify`](Classify::classify) reads from an `http::Response`, for a client whose
    /// responses are another type (reqwest's: `verdict(r.status(), r.headers())`).
    ///
    /// ```
    /// use std::time::Duration;
    /// use limiter_core::{HttpClassifier, Outcome};
    ///
    /// let mut headers = http::HeaderMap::new();
    /// headers.insert("retry-after", http::HeaderValue::from_static("3"));
    /// let v = HttpClassifier::new().verdict(http::StatusCode::TOO_MANY_REQUESTS, &headers);
    /// assert_eq!((v.outcome, v.retry_after), (Outcome::Overload, Some(Duration::from_secs(3))));
    /// ```
    pub fn verdict(&self, status: http::StatusCode, headers: &http::HeaderMap) -> Verdict {
        let mut verdict = Verdict::new(self.outcome(status.as_u16()));
        // Only the HTTP-date form and Unix-time resets need the wall clock.
        let now = || {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        };
        if verdict.outcome == Outcome::Overload {
            // Most overloads carry no hint: no wall-clock read for them.
            if let Some(value) = headers.get(http::header::RETRY_AFTER) {
                let value = value.as_bytes();
                // delay-seconds needs no clock.
                let seconds = value.iter().all(|b| b.is_ascii_digit() || *b == b' ');
                let parsed = crate::signal::retry_after::parse_retry_after(
                    value,
                    if seconds { 0 } else { now() },
                    self.max_retry_after(),
                );
                if let Ok(r) = parsed {
                    verdict = verdict.retry_after(r.delay);
                }
            }
        }
        match quota_hint(headers, self.max_retry_after(), now) {
            Some(hint) => {
                let mut advice = hint.advice();
                // A reset at the bound may have been cut to it (a daily quota's, say): good for
                // a hold, which it only shortens, but a pace worked out over it would spend
                // the calls left far too fast.
                if hint
                    .reset
                    .is_some_and(|reset| reset >= self.max_retry_after())
                {
                    advice.left = None;
                }
                verdict.with_quota(advice)
            }
            None => verdict,
        }
    }
}

/// The provider's quota headers, if it sent any well-formed ones.
#[cfg(feature = "http")]
fn quota_hint(
    headers: &http::HeaderMap,
    max: core::time::Duration,
    now: impl Fn() -> u64,
) -> Option<crate::signal::quota_hint::QuotaHint> {
    use crate::signal::quota_hint::{
        QuotaHint, parse_quota_count, parse_quota_reset_at, parse_ratelimit,
    };
    if let Some(value) = headers.get("ratelimit") {
        if let Ok(hint) = parse_ratelimit(value.as_bytes(), max) {
            return Some(hint);
        }
    }
    let families = [
        [
            "x-ratelimit-remaining",
            "x-ratelimit-limit",
            "x-ratelimit-reset",
        ],
        ["ratelimit-remaining", "ratelimit-limit", "ratelimit-reset"],
    ];
    for [remaining, limit, reset] in families {
        let field = |name| headers.get(name).map(http::HeaderValue::as_bytes);
        let Some(remaining) = field(remaining) else {
            continue;
        };
        let Ok(remaining) = parse_quota_count(remaining) else {
            continue; // malformed: trust nothing of this family
        };
        return Some(QuotaHint {
            remaining: Some(remaining),
            limit: field(limit).and_then(|v| parse_quota_count(v).ok()),
            reset: field(reset).and_then(|v| parse_quota_reset_at(v, &now, max).ok()),
        });
    }
    None
}

/// A response is classified as above; an error (no response at all: refused, reset, timed out)
/// is congestion.
#[cfg(feature = "http")]
impl<B, E> Classify<Result<http::Response<B>, E>> for HttpClassifier {
    fn classify(&self, output: &Result<http::Response<B>, E>) -> Verdict {
        match output {
            Ok(response) => self.classify(response),
            Err(_) => Verdict::new(Outcome::Overload),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "http")]
    fn answer(status: u16, headers: &[(&str, &str)]) -> Verdict {
        let mut response = http::Response::builder().status(status);
        for (name, value) in headers {
            response = response.header(*name, *value);
        }
        let classifier = HttpClassifier::new().retry_after_cap(core::time::Duration::from_secs(60));
        classifier.classify(&response.body(()).unwrap())
    }

    #[cfg(feature = "http")]
    #[test]
    fn quota_headers_pause_a_spent_quota_and_hold_growth_on_a_nearly_spent_one() {
        use core::time::Duration;
        let s = Duration::from_secs;
        let spent = answer(200, &[("ratelimit", "limit=100, remaining=0, reset=5")]);
        assert_eq!(
            (spent.outcome, spent.retry_after),
            (Outcome::Success, Some(s(5)))
        );
        let low = answer(200, &[("ratelimit", "\"d\";q=100;r=3;t=9")]);
        assert_eq!((low.retry_after, low.hold_growth), (None, Some(s(9))));
        // The longer of a Retry-After and a spent quota's reset.
        let both = answer(
            429,
            &[
                ("retry-after", "2"),
                ("x-ratelimit-remaining", "0"),
                ("x-ratelimit-reset", "30"),
            ],
        );
        assert_eq!(
            (both.outcome, both.retry_after),
            (Outcome::Overload, Some(s(30)))
        );
        // Draft 6's separate fields, and a reset beyond the cap.
        let draft6 = answer(
            200,
            &[("ratelimit-remaining", "0"), ("ratelimit-reset", "86400")],
        );
        assert_eq!(draft6.retry_after, Some(s(60)));
        // Malformed or unhelpful hints move nothing.
        for headers in [
            &[
                ("x-ratelimit-remaining", "lots"),
                ("x-ratelimit-reset", "5"),
            ][..],
            &[("x-ratelimit-remaining", "0")],
            &[("ratelimit", "remaining=0, reset=soon")],
            &[
                ("x-ratelimit-remaining", "50"),
                ("x-ratelimit-limit", "100"),
                ("x-ratelimit-reset", "5"),
            ],
        ] {
            let v = answer(200, headers);
            assert_eq!((v.retry_after, v.hold_growth), (None, None), "{headers:?}");
        }
    }

    #[cfg(feature = "http")]
    #[test]
    fn the_calls_left_go_with_the_verdict_unless_the_reset_was_cut_to_the_cap() {
        use crate::QuotaLeft;
        use core::time::Duration;
        let plenty = answer(
            200,
            &[
                ("x-ratelimit-remaining", "450"),
                ("x-ratelimit-limit", "500"),
                ("x-ratelimit-reset", "9"),
            ],
        );
        let left = QuotaLeft {
            calls: 450,
            reset: Duration::from_secs(9),
        };
        assert_eq!(plenty.quota_left, Some(left));
        // A daily quota's reset, cut to the classifier's 60 s: a pace over 60 s would spend the
        // day's calls in a minute.
        let daily = answer(200, &[("ratelimit", "\"day\";r=90000;t=80000")]);
        assert_eq!(daily.quota_left, None);
        assert_eq!((daily.retry_after, daily.hold_growth), (None, None));
    }

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
