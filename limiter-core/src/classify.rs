//! Turning a finished call into what the limiter learns from it: see [`Classify`].

use core::future::Future;
use core::time::Duration;

use crate::permit::{GateRef, Permit};
use crate::{Cause, HttpClassifier, Outcome};

/// What a finished call tells the limiter: its [`Outcome`], and the pause the dependency asked
/// for, if any (a `Retry-After` value, already bounded).
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
    /// Hold the limit's growth this long (the dependency's `Retry-After`).
    pub retry_after: Option<Duration>,
}

impl Verdict {
    /// A verdict with no `Retry-After`.
    pub const fn new(outcome: Outcome) -> Self {
        Verdict {
            outcome,
            retry_after: None,
        }
    }

    /// The same verdict, with the dependency's `Retry-After` delay.
    pub const fn retry_after(mut self, delay: Duration) -> Self {
        self.retry_after = Some(delay);
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
/// Ready-made classifiers: [`ErrorsAreOverload`] for `Result`s, [`HttpClassifier`] for status
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

impl Classify<u16> for HttpClassifier {
    fn classify(&self, status: &u16) -> Verdict {
        Verdict::new(self.outcome(*status))
    }
}

/// Reads the status and, when the response signals congestion, its `Retry-After` (either form;
/// dates against the system clock; bounded by [`HttpClassifier::retry_after_cap`]). A malformed
/// `Retry-After` is ignored: the status alone decides.
///
/// ```
/// use limiter_core::{Classify, HttpClassifier, Outcome};
///
/// let response = http::Response::builder()
///     .status(503)
///     .header("retry-after", "7")
///     .body(())
///     .unwrap();
/// let v = HttpClassifier::new().classify(&response);
/// assert_eq!(v.outcome, Outcome::Overload);
/// assert_eq!(v.retry_after, Some(std::time::Duration::from_secs(7)));
/// ```
#[cfg(feature = "http")]
impl<B> Classify<http::Response<B>> for HttpClassifier {
    fn classify(&self, response: &http::Response<B>) -> Verdict {
        let verdict = Verdict::new(self.outcome(response.status().as_u16()));
        if verdict.outcome != Outcome::Overload {
            return verdict;
        }
        let Some(value) = response.headers().get(http::header::RETRY_AFTER) else {
            return verdict; // most overloads carry no hint: no wall-clock read for them
        };
        // Only the HTTP-date form needs the wall clock.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        crate::parse_retry_after(value.as_bytes(), now, self.max_retry_after())
            .map_or(verdict, |r| verdict.retry_after(r.delay))
    }
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

impl<R: GateRef> Permit<R> {
    /// Records `verdict`: holds growth for its `Retry-After`, if any, then records its outcome.
    pub fn record_verdict(self, verdict: Verdict) {
        if let Some(delay) = verdict.retry_after {
            self.hold_growth_for(delay);
        }
        self.record(verdict.outcome);
    }

    /// Runs `call` holding this permit, then records what `classify` makes of its output.
    ///
    /// If `call` panics or the returned future is dropped first, the permit is released as
    /// cancelled and the limit does not move.
    ///
    /// ```
    /// use core::pin::pin;
    /// use core::task::{Context, Poll, Waker};
    /// use core::future::Future;
    /// use limiter_core::{ErrorsAreOverload, Fixed, Gate, InlineQueue, ManualClock, NoopRawMutex};
    ///
    /// let clock = ManualClock::new();
    /// let gate: Gate<NoopRawMutex, _, _, InlineQueue<4>> = Gate::new(Fixed::new(2).unwrap(), &clock);
    /// let permit = gate.try_acquire().unwrap();
    /// let call = async { Ok::<_, ()>(42) };
    /// let mut run = pin!(permit.run(call, &ErrorsAreOverload));
    /// let Poll::Ready(out) = run.as_mut().poll(&mut Context::from_waker(Waker::noop())) else {
    ///     panic!()
    /// };
    /// assert_eq!(out, Ok(42));
    /// assert_eq!(gate.in_flight(), 0);
    /// ```
    pub async fn run<F, K>(self, call: F, classify: &K) -> F::Output
    where
        F: Future,
        K: Classify<F::Output> + ?Sized,
    {
        let output = call.await;
        self.record_verdict(classify.classify(&output));
        output
    }
}
