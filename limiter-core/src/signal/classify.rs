//! Turning a finished call into what the limiter learns from it: see [`Classify`].

use core::time::Duration;

use crate::signal::outcome::{Cause, Outcome};

/// What a finished call tells the limiter: its [`Outcome`], the pause the dependency asked for,
/// if any (a `Retry-After`, or a quota it said was spent: already bounded), and how long the
/// limit should not grow (a quota it said was nearly spent).
///
/// ```
/// use core::time::Duration;
/// use limiter_core::{Outcome, Verdict};
///
/// let v = Verdict::from(Outcome::Overload).retry_after(Duration::from_secs(2));
/// assert_eq!(v.outcome, Outcome::Overload);
/// assert_eq!(v.retry_after, Some(Duration::from_secs(2)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Verdict {
    /// How the call counts for the limit.
    pub outcome: Outcome,
    /// The dependency's pause (its `Retry-After`): a limiter's `run` holds admissions and
    /// growth this long; recorded on a permit, it holds growth.
    pub retry_after: Option<Duration>,
    /// Hold the limit's growth this long, admissions going on (a nearly spent quota).
    pub hold_growth: Option<Duration>,
    /// The calls a provider said were left in its window, and when it resets: recorded on a
    /// permit, the pace that spends them at the call's latency goes with the sample
    /// ([`Sample::pace`](crate::Sample::pace)).
    pub quota_left: Option<crate::signal::quota_hint::QuotaLeft>,
}

impl Verdict {
    /// A verdict with no `Retry-After`.
    pub const fn new(outcome: Outcome) -> Self {
        Verdict {
            outcome,
            retry_after: None,
            hold_growth: None,
            quota_left: None,
        }
    }

    /// The same verdict, with the dependency's `Retry-After` delay.
    pub const fn retry_after(mut self, delay: Duration) -> Self {
        self.retry_after = Some(delay);
        self
    }

    /// The same verdict, holding the limit's growth for `delay`.
    pub const fn hold_growth(mut self, delay: Duration) -> Self {
        self.hold_growth = Some(delay);
        self
    }

    /// The same verdict, with what a provider's quota headers ask: a spent quota is a pause (the
    /// longer of it and any `Retry-After`), a nearly spent one holds growth, and the calls left
    /// are kept for the pace.
    pub const fn with_quota(mut self, advice: crate::signal::quota_hint::QuotaAdvice) -> Self {
        if let Some(hold) = advice.hold_admissions {
            self.retry_after = Some(match self.retry_after {
                Some(delay) if delay.as_nanos() > hold.as_nanos() => delay,
                _ => hold,
            });
        }
        if let Some(hold) = advice.hold_growth {
            self.hold_growth = Some(hold);
        }
        if let Some(left) = advice.left {
            self.quota_left = Some(left);
        }
        self
    }
}

impl From<Outcome> for Verdict {
    fn from(outcome: Outcome) -> Self {
        Verdict::new(outcome)
    }
}

impl From<Cause> for Verdict {
    fn from(cause: Cause) -> Self {
        Verdict::new(cause.outcome())
    }
}

/// Decides what a call's output `T` means for the limit.
///
/// Ready-made classifiers: [`ErrorsAreOverload`] for `Result`s, [`HttpClassifier`](crate::HttpClassifier) for status
/// codes (and, with the `http` feature, for `http::Response`s with their `Retry-After`), and
/// [`classify_fn`] for a closure.
///
/// ```
/// use limiter_core::{Classify, ErrorsAreOverload, HttpClassifier, Outcome, classify_fn};
///
/// let ok: Result<u32, ()> = Ok(1);
/// assert_eq!(ErrorsAreOverload.classify(&ok).outcome, Outcome::Success);
/// assert_eq!(HttpClassifier::new().classify(&503).outcome, Outcome::Overload);
///
/// let by_len = classify_fn(|body: &Vec<u8>| {
///     if body.is_empty() { Outcome::Ignore } else { Outcome::Success }
/// });
/// assert_eq!(by_len.classify(&Vec::new()).outcome, Outcome::Ignore);
/// ```
pub trait Classify<T: ?Sized> {
    /// The verdict on `output`.
    fn classify(&self, output: &T) -> Verdict;
}

impl<T: ?Sized, K: Classify<T> + ?Sized> Classify<T> for &K {
    fn classify(&self, output: &T) -> Verdict {
        (**self).classify(output)
    }
}

/// Classifies a `Result`: `Ok` is a success, `Err` is congestion.
///
/// Right when every error the call can return is the dependency failing under load (timeouts,
/// refused connections). When some errors are the caller's own fault, write a classifier that
/// says [`Outcome::Ignore`] for them ([`classify_fn`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ErrorsAreOverload;

impl<T, E> Classify<Result<T, E>> for ErrorsAreOverload {
    fn classify(&self, output: &Result<T, E>) -> Verdict {
        Verdict::new(match output {
            Ok(_) => Outcome::Success,
            Err(_) => Outcome::Overload,
        })
    }
}

/// A classifier from a closure returning an [`Outcome`], a [`Cause`] or a [`Verdict`]; see
/// [`classify_fn`].
#[derive(Clone, Copy, Debug)]
pub struct FnClassifier<F>(F);

/// A classifier from a closure returning an [`Outcome`], a [`Cause`] or a [`Verdict`].
///
/// ```
/// use limiter_core::{Cause, Classify, Outcome, classify_fn};
///
/// let k = classify_fn(|r: &Result<u16, &str>| match r {
///     Ok(_) => Cause::Success,
///     Err(e) if e.starts_with("timeout") => Cause::Timeout,
///     Err(_) => Cause::Validation,
/// });
/// assert_eq!(k.classify(&Err("timeout after 2 s")).outcome, Outcome::Overload);
/// assert_eq!(k.classify(&Err("bad request")).outcome, Outcome::Ignore);
/// ```
pub const fn classify_fn<F>(f: F) -> FnClassifier<F> {
    FnClassifier(f)
}

impl<T: ?Sized, V: Into<Verdict>, F: Fn(&T) -> V> Classify<T> for FnClassifier<F> {
    fn classify(&self, output: &T) -> Verdict {
        (self.0)(output).into()
    }
}
