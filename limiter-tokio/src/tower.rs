//! A tower [`Layer`] and [`Service`] that limit concurrency adaptively (feature `tower`).
//!
//! The service takes a permit in `poll_ready`, moves it into the response future in `call`,
//! classifies the response (or error) when the future completes, and releases the permit there,
//! or as cancelled if the response future is dropped first. Each clone of the service holds its
//! own permit, never a shared one.
//!
//! # Tower's contract
//!
//! `poll_ready` fails only when the inner service does: a request the limiter turns away is a
//! per-request answer, not a broken service. `poll_ready` then returns `Ready(Ok(()))` and the
//! response future of the next `call` resolves at once to the [`Refusal`], without calling the
//! inner service. How long a request may wait is the layer's policy:
//!
//! - [`LimitLayer::new`]: wait in the limiter's FIFO queue as long as it takes (a full queue is
//!   [`Refusal::QueueFull`]);
//! - [`LimitLayer::max_wait`]: wait at most that long ([`Refusal::TimedOut`], or
//!   [`Refusal::Held`] if a `Retry-After` hold outlasted the wait);
//! - [`LimitLayer::refuse_at_limit`]: never wait ([`Refusal::AtLimit`], [`Refusal::Held`]).
//!
//! Every refusal is counted in the limiter's [`Snapshot`](limiter_core::Snapshot)
//! (`at_limit`, `held`, `queue_full`, `timed_out`).
//!
//! # Servers (axum, hyper) and HTTP clients
//!
//! With the `http` feature, [`LimitLayer::refusals_as_responses`] answers a refusal with
//! `503 Service Unavailable` (and `Retry-After` while the limiter holds one) instead of an
//! error, and keeps the inner service's error type: an axum `Router::layer` or `route_layer`
//! takes it as it is, with no `HandleErrorLayer`:
//!
//! ```text
//! let app = Router::new()
//!     .route("/", get(handler))
//!     .layer(LimitLayer::new(limiter, HttpClassifier::new()).max_wait(Duration::from_millis(20)).refusals_as_responses());
//! ```
//!
//! A `Retry-After` in a response (seen by the classifier, `HttpClassifier` with `http`) holds
//! the limiter's newcomers back until it has passed, as `Limiter::run` does.
//!
//! # Streamed bodies
//!
//! By default the permit ends with the response's headers. With
//! [`LimitLayer::permit_until_body_ends`] (feature `http`), a successful response's body is a
//! [`LimitedBody`] that keeps the permit until the body has ended, so a streamed response counts
//! against the limit while it streams and its latency sample runs to its last frame; a body
//! dropped before its end releases the permit as cancelled, and a body error is a transient
//! failure (ignored, as `HttpClassifier` ignores a 502).

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use limiter_core::{AimdF32, Classify, Controller, GateRef, Permit, QueueFull};
use tower_layer::Layer;
use tower_service::Service;

use crate::admission::{Refusal, Wait, hold_for};
use crate::{Limiter, OwnedAcquire, OwnedPermit, SharedGate};

/// The error of a [`LimitService`] that answers refusals with errors: the inner service's
/// error, or a [`Refusal`], boxed as tower's middleware do (downcast to tell them apart).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// How a [`LimitService`] answers a refusal: with a [`Refusal`] error (the default).
#[derive(Clone, Copy, Debug, Default)]
pub struct RefusalsAsErrors;

/// How a [`LimitService`] answers a refusal: with [`Refusal::to_response`] (feature `http`).
#[derive(Clone, Copy, Debug, Default)]
pub struct RefusalsAsResponses;

/// When a [`LimitService`]'s permit ends: with the response, or its headers (the default).
#[derive(Clone, Copy, Debug, Default)]
pub struct UntilResponse;

/// When a [`LimitService`]'s permit ends: with the response body (feature `http`); see
/// [`LimitLayer::permit_until_body_ends`].
#[derive(Clone, Copy, Debug, Default)]
pub struct UntilBodyEnds;

/// Wraps services in a [`LimitService`] sharing one [`Limiter`](crate::Limiter).
///
/// ```
/// use limiter_core::{ErrorsAreOverload, Fixed};
/// use limiter_tokio::{Limiter, LimitLayer};
/// use tower::{ServiceBuilder, ServiceExt, service_fn};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let limiter = Limiter::new(Fixed::new(8).unwrap());
/// let service = ServiceBuilder::new()
///     .layer(LimitLayer::new(limiter.clone(), ErrorsAreOverload))
///     .service(service_fn(|x: u32| async move { Ok::<_, std::io::Error>(x * 2) }));
/// assert_eq!(service.oneshot(21).await.unwrap(), 42);
/// assert_eq!(limiter.snapshot().admitted, 1);
/// # }
/// ```
pub struct LimitLayer<K, C = AimdF32, O = RefusalsAsErrors, P = UntilResponse> {
    limiter: Limiter<C>,
    classify: K,
    wait: Wait,
    answer: PhantomData<fn() -> (O, P)>,
}

impl<K: Clone, C, O, P> Clone for LimitLayer<K, C, O, P> {
    fn clone(&self) -> Self {
        LimitLayer {
            limiter: self.limiter.clone(),
            classify: self.classify.clone(),
            wait: self.wait,
            answer: PhantomData,
        }
    }
}

impl<K, C: Controller, O, P> std::fmt::Debug for LimitLayer<K, C, O, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LimitLayer")
            .field("limiter", &self.limiter)
            .field("wait", &self.wait)
            .finish_non_exhaustive()
    }
}

impl<K, C> LimitLayer<K, C> {
    /// A layer admitting through `limiter`, judging responses with `classify`; a request waits
    /// in the limiter's FIFO queue until it is admitted (or the queue is full).
    pub fn new(limiter: Limiter<C>, classify: K) -> Self {
        LimitLayer {
            limiter,
            classify,
            wait: Wait::Queue(None),
            answer: PhantomData,
        }
    }
}

impl<K, C, O, P> LimitLayer<K, C, O, P> {
    /// A request waits at most `max_wait` for its permit, then is refused
    /// ([`Refusal::TimedOut`], or [`Refusal::Held`] while a `Retry-After` hold lasts).
    #[must_use]
    pub fn max_wait(mut self, max_wait: Duration) -> Self {
        self.wait = Wait::Queue(Some(max_wait));
        self
    }

    /// A request is refused at once at the limit ([`Refusal::AtLimit`]) or during a
    /// `Retry-After` hold ([`Refusal::Held`]); none waits.
    #[must_use]
    pub fn refuse_at_limit(mut self) -> Self {
        self.wait = Wait::Never;
        self
    }

    /// Refusals are answered with [`Refusal::to_response`] (`503`, with `Retry-After` during a
    /// hold) and the inner service's error type is kept, as an axum `Router` needs.
    #[cfg(feature = "http")]
    pub fn refusals_as_responses(self) -> LimitLayer<K, C, RefusalsAsResponses, P> {
        LimitLayer {
            limiter: self.limiter,
            classify: self.classify,
            wait: self.wait,
            answer: PhantomData,
        }
    }

    /// A successful response keeps its permit until its body has ended: its body becomes a
    /// [`LimitedBody`]. Responses that are not successes (as the classifier judges them)
    /// release their permit with their headers, as without this option.
    #[cfg(feature = "http")]
    pub fn permit_until_body_ends(self) -> LimitLayer<K, C, O, UntilBodyEnds> {
        LimitLayer {
            limiter: self.limiter,
            classify: self.classify,
            wait: self.wait,
            answer: PhantomData,
        }
    }
}

impl<S, K: Clone, C: Controller, O, P> Layer<S> for LimitLayer<K, C, O, P> {
    type Service = LimitService<S, K, C, O, P>;

    fn layer(&self, inner: S) -> Self::Service {
        LimitService {
            inner,
            limiter: self.limiter.clone(),
            classify: self.classify.clone(),
            wait: self.wait,
            state: State::Idle,
            acquire: None,
            expiry: None,
            answer: PhantomData,
        }
    }
}

enum State<C: Controller> {
    Idle,
    /// Waiting for the acquisition in [`LimitService::acquire`].
    Waiting,
    Ready(OwnedPermit<C>),
    /// The next call is answered with this.
    Refused(Refusal),
}

/// A service whose calls run under a [`Limiter`](crate::Limiter)'s permits; see [`LimitLayer`].
pub struct LimitService<S, K, C: Controller = AimdF32, O = RefusalsAsErrors, P = UntilResponse> {
    inner: S,
    limiter: Limiter<C>,
    classify: K,
    wait: Wait,
    state: State<C>,
    /// The acquisition future, boxed once and reused for every request (it holds a timer, so
    /// it cannot move).
    acquire: Option<Pin<Box<OwnedAcquire<C>>>>,
    /// The end of the longest wait, boxed once and reset for every request.
    expiry: Option<Pin<Box<tokio::time::Sleep>>>,
    answer: PhantomData<fn() -> (O, P)>,
}

impl<S: Clone, K: Clone, C: Controller, O, P> Clone for LimitService<S, K, C, O, P> {
    /// A clone shares the limiter, not a permit this service may hold.
    fn clone(&self) -> Self {
        LimitService {
            inner: self.inner.clone(),
            limiter: self.limiter.clone(),
            classify: self.classify.clone(),
            wait: self.wait,
            state: State::Idle,
            acquire: None,
            expiry: None,
            answer: PhantomData,
        }
    }
}

impl<S, K, C: Controller, O, P> std::fmt::Debug for LimitService<S, K, C, O, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match self.state {
            State::Idle => "idle",
            State::Waiting => "waiting",
            State::Ready(_) => "ready",
            State::Refused(_) => "refused",
        };
        f.debug_struct("LimitService")
            .field("limiter", &self.limiter)
            .field("state", &state)
            .finish_non_exhaustive()
    }
}

impl<S, K, C: Controller, O, P> LimitService<S, K, C, O, P> {
    /// Drives the admission of the next request: `Ready` once the service holds a permit or a
    /// refusal for it.
    fn poll_admission(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        loop {
            match &mut self.state {
                State::Ready(_) | State::Refused(_) => return Poll::Ready(()),
                State::Idle => match self.wait {
                    Wait::Never => {
                        self.state = match self.limiter.try_acquire_owned() {
                            Ok(permit) => State::Ready(permit),
                            Err(refused) => {
                                State::Refused(Refusal::at_once(&self.limiter, refused))
                            }
                        };
                    }
                    Wait::Queue(max_wait) => {
                        let next = self.limiter.acquire_owned();
                        match &mut self.acquire {
                            Some(reused) => reused.set(next),
                            None => self.acquire = Some(Box::pin(next)),
                        }
                        if let Some(max_wait) = max_wait {
                            // A wait of a century or more (`Duration::MAX`) is a century: it
                            // cannot overflow tokio's instant.
                            let until = tokio::time::Instant::now()
                                + max_wait.min(limiter_core::FAR_FUTURE);
                            match &mut self.expiry {
                                Some(reused) => reused.as_mut().reset(until),
                                None => {
                                    self.expiry = Some(Box::pin(tokio::time::sleep_until(until)));
                                }
                            }
                        }
                        self.state = State::Waiting;
                    }
                },
                State::Waiting => {
                    let Some(acquire) = self.acquire.as_mut() else {
                        self.state = State::Idle; // cannot happen: set when waiting starts
                        continue;
                    };
                    if let Poll::Ready(admitted) = acquire.as_mut().poll(cx) {
                        self.state = match admitted {
                            Ok(permit) => State::Ready(permit),
                            Err(QueueFull) => State::Refused(Refusal::QueueFull),
                        };
                        continue;
                    }
                    let expired = match (self.wait, &mut self.expiry) {
                        (Wait::Queue(Some(_)), Some(expiry)) => expiry.as_mut().poll(cx).is_ready(),
                        _ => false,
                    };
                    if !expired {
                        return Poll::Pending;
                    }
                    // Leave the queue: a fresh, unpolled acquisition replaces the waiting one.
                    acquire.set(self.limiter.acquire_owned());
                    self.state = State::Refused(Refusal::ended_wait(&self.limiter));
                }
            }
        }
    }

    /// The response future for `request`: the inner call under the permit, or the refusal.
    ///
    /// # Panics
    ///
    /// If `poll_ready` has not returned `Ready(Ok(()))` since the last call, as tower's own
    /// middleware do.
    fn start<Req>(&mut self, request: Req) -> ResponseFuture<S::Future, K, Arc<SharedGate<C>>, O, P>
    where
        S: Service<Req>,
        K: Clone,
    {
        let kind = match std::mem::replace(&mut self.state, State::Idle) {
            State::Ready(permit) => Kind::Running {
                inner: self.inner.call(request),
                permit: Some(permit),
                classify: self.classify.clone(),
            },
            State::Refused(refusal) => Kind::Refused {
                refusal: Some(refusal),
            },
            State::Idle | State::Waiting => panic!("LimitService::call without poll_ready"),
        };
        ResponseFuture {
            kind,
            answer: PhantomData,
        }
    }
}

pin_project_lite::pin_project! {
    #[project = KindProj]
    enum Kind<F, K, R: GateRef> {
        Running {
            #[pin]
            inner: F,
            permit: Option<Permit<R>>,
            classify: K,
        },
        Refused {
            refusal: Option<Refusal>,
        },
    }
}

pin_project_lite::pin_project! {
    /// The response future of a [`LimitService`]: holds the permit until the inner future
    /// completes, then records the classified outcome (a `Retry-After` in it holds the
    /// limiter's newcomers back). Dropped early, it releases the permit as cancelled. For a
    /// refused request it resolves at once to the [`Refusal`].
    pub struct ResponseFuture<F, K, R: GateRef, O = RefusalsAsErrors, P = UntilResponse> {
        #[pin]
        kind: Kind<F, K, R>,
        answer: PhantomData<fn() -> (O, P)>,
    }
}

/// A finished call: its output, and its permit if it is to outlive the response.
type Finished<T, E, R> = (Result<T, E>, Option<Permit<R>>);

impl<F, K, R: GateRef, O, P> ResponseFuture<F, K, R, O, P> {
    /// Polls the inner call and records its outcome (holding admissions for its
    /// `Retry-After`), unless `keep` and it was a success: then its permit is handed back, to
    /// be recorded later. `Err` is the refusal, once.
    fn poll_call<T, E>(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        keep: bool,
    ) -> Poll<Result<Finished<T, E, R>, Refusal>>
    where
        F: Future<Output = Result<T, E>>,
        K: Classify<Result<T, E>>,
    {
        match self.project().kind.project() {
            KindProj::Running {
                inner,
                permit,
                classify,
            } => {
                let output = ready!(inner.poll(cx));
                let mut kept = None;
                if let Some(permit) = permit.take() {
                    let verdict = classify.classify(&output);
                    hold_for(&permit, &verdict);
                    if keep && verdict.outcome == limiter_core::Outcome::Success {
                        kept = Some(permit);
                    } else {
                        permit.record_outcome_of(&verdict);
                    }
                }
                Poll::Ready(Ok((output, kept)))
            }
            // Polled again after it completed: a spent future, pending for good.
            KindProj::Refused { refusal } => refusal
                .take()
                .map_or(Poll::Pending, |r| Poll::Ready(Err(r))),
        }
    }
}

/// How a [`LimitService`] answers, for each choice of its markers: what its response future
/// resolves to, from the inner call's output or from a [`Refusal`]. Implemented for the four
/// pairs `(O, P)` of [`RefusalsAsErrors`] or [`RefusalsAsResponses`] with [`UntilResponse`] or
/// [`UntilBodyEnds`] (the last three need feature `http`), which [`LimitLayer`]'s builders
/// choose; sealed, not for other types.
///
/// | `(O, P)` | `Response` | `Error` |
/// |---|---|---|
/// | `(RefusalsAsErrors, UntilResponse)` | the inner response | [`BoxError`]: the inner error or the [`Refusal`] |
/// | `(RefusalsAsResponses, UntilResponse)` | `http::Response<B>`, a refusal as `503` | the inner error |
/// | `(RefusalsAsErrors, UntilBodyEnds)` | `http::Response<LimitedBody<B, _>>` | [`BoxError`] |
/// | `(RefusalsAsResponses, UntilBodyEnds)` | `http::Response<LimitedBody<B, _>>`, a refusal as `503` | the inner error |
pub trait Answer<T, E, R: GateRef>: sealed::Sealed {
    /// The service's response.
    type Response;
    /// The service's error.
    type Error;
    /// Whether a successful response keeps its permit until its body ends.
    const KEEP: bool;
    /// The service's error for an error of the inner service's `poll_ready`.
    fn error(error: E) -> Self::Error;
    /// The answer to a call that ran, with its permit if [`Answer::KEEP`] kept it.
    fn answered(
        output: Result<T, E>,
        kept: Option<Permit<R>>,
    ) -> Result<Self::Response, Self::Error>;
    /// The answer to a refused request.
    fn refused(refusal: Refusal) -> Result<Self::Response, Self::Error>;
}

mod sealed {
    /// Only this crate's marker pairs are [`Answer`](super::Answer)s.
    pub trait Sealed {}
    impl<O, P> Sealed for (O, P) {}
}

impl<T, E: Into<BoxError>, R: GateRef> Answer<T, E, R> for (RefusalsAsErrors, UntilResponse) {
    type Response = T;
    type Error = BoxError;
    const KEEP: bool = false;

    fn error(error: E) -> BoxError {
        error.into()
    }

    fn answered(output: Result<T, E>, _: Option<Permit<R>>) -> Result<T, BoxError> {
        output.map_err(Into::into)
    }

    fn refused(refusal: Refusal) -> Result<T, BoxError> {
        Err(Box::new(refusal))
    }
}

#[cfg(feature = "http")]
impl<B: Default, E, R: GateRef> Answer<http::Response<B>, E, R>
    for (RefusalsAsResponses, UntilResponse)
{
    type Response = http::Response<B>;
    type Error = E;
    const KEEP: bool = false;

    fn error(error: E) -> E {
        error
    }

    fn answered(
        output: Result<http::Response<B>, E>,
        _: Option<Permit<R>>,
    ) -> Result<http::Response<B>, E> {
        output
    }

    fn refused(refusal: Refusal) -> Result<http::Response<B>, E> {
        Ok(refusal.to_response())
    }
}

#[cfg(feature = "http")]
impl<B: http_body::Body, E: Into<BoxError>, R: GateRef> Answer<http::Response<B>, E, R>
    for (RefusalsAsErrors, UntilBodyEnds)
{
    type Response = http::Response<LimitedBody<B, R>>;
    type Error = BoxError;
    const KEEP: bool = true;

    fn error(error: E) -> BoxError {
        error.into()
    }

    fn answered(
        output: Result<http::Response<B>, E>,
        kept: Option<Permit<R>>,
    ) -> Result<Self::Response, BoxError> {
        output
            .map(|response| response.map(|body| LimitedBody::new(body, kept)))
            .map_err(Into::into)
    }

    fn refused(refusal: Refusal) -> Result<Self::Response, BoxError> {
        Err(Box::new(refusal))
    }
}

#[cfg(feature = "http")]
impl<B: http_body::Body + Default, E, R: GateRef> Answer<http::Response<B>, E, R>
    for (RefusalsAsResponses, UntilBodyEnds)
{
    type Response = http::Response<LimitedBody<B, R>>;
    type Error = E;
    const KEEP: bool = true;

    fn error(error: E) -> E {
        error
    }

    fn answered(
        output: Result<http::Response<B>, E>,
        kept: Option<Permit<R>>,
    ) -> Result<Self::Response, E> {
        output.map(|response| response.map(|body| LimitedBody::new(body, kept)))
    }

    fn refused(refusal: Refusal) -> Result<Self::Response, E> {
        Ok(refusal
            .to_response::<B>()
            .map(|body| LimitedBody::new(body, None)))
    }
}

impl<F, T, E, K, R, O, P> Future for ResponseFuture<F, K, R, O, P>
where
    F: Future<Output = Result<T, E>>,
    K: Classify<Result<T, E>>,
    R: GateRef,
    (O, P): Answer<T, E, R>,
{
    type Output = Result<<(O, P) as Answer<T, E, R>>::Response, <(O, P) as Answer<T, E, R>>::Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Poll::Ready(match ready!(self.poll_call(cx, <(O, P)>::KEEP)) {
            Ok((output, kept)) => <(O, P)>::answered(output, kept),
            Err(refusal) => <(O, P)>::refused(refusal),
        })
    }
}

impl<S, Req, K, C, O, P> Service<Req> for LimitService<S, K, C, O, P>
where
    S: Service<Req>,
    K: Classify<Result<S::Response, S::Error>> + Clone,
    C: Controller,
    (O, P): Answer<S::Response, S::Error, Arc<SharedGate<C>>>,
{
    type Response = <(O, P) as Answer<S::Response, S::Error, Arc<SharedGate<C>>>>::Response;
    type Error = <(O, P) as Answer<S::Response, S::Error, Arc<SharedGate<C>>>>::Error;
    type Future = ResponseFuture<S::Future, K, Arc<SharedGate<C>>, O, P>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        ready!(self.poll_admission(cx));
        match self.state {
            // Holding a permit: now the inner service must be ready too. If it fails, the
            // permit stays here for the next call.
            State::Ready(_) => self.inner.poll_ready(cx).map_err(<(O, P)>::error),
            _ => Poll::Ready(Ok(())),
        }
    }

    /// # Panics
    ///
    /// If `poll_ready` has not returned `Ready(Ok(()))` since the last call.
    fn call(&mut self, request: Req) -> Self::Future {
        self.start(request)
    }
}

#[cfg(feature = "http")]
pin_project_lite::pin_project! {
    /// A response body that keeps its request's permit until it has ended (see
    /// [`LimitLayer::permit_until_body_ends`]): the last frame records a success, with the
    /// latency from admission to then; an error records a transient failure (ignored by the
    /// limit); dropped before its end, it releases the permit as cancelled.
    pub struct LimitedBody<B, R: GateRef> {
        #[pin]
        inner: B,
        permit: Option<Permit<R>>,
    }
}

#[cfg(feature = "http")]
impl<B: http_body::Body, R: GateRef> LimitedBody<B, R> {
    /// `inner`, holding `permit` until it ends (at once if it has already).
    fn new(inner: B, permit: Option<Permit<R>>) -> Self {
        let mut body = LimitedBody { inner, permit };
        if body.inner.is_end_stream() {
            if let Some(permit) = body.permit.take() {
                permit.success();
            }
        }
        body
    }

    /// Whether the permit is still held.
    pub fn holds_permit(&self) -> bool {
        self.permit.is_some()
    }
}

#[cfg(feature = "http")]
impl<B: http_body::Body, R: GateRef> http_body::Body for LimitedBody<B, R> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let mut this = self.project();
        let frame = ready!(this.inner.as_mut().poll_frame(cx));
        match &frame {
            Some(Err(_)) => {
                if let Some(permit) = this.permit.take() {
                    permit.record_cause(limiter_core::Cause::TransientFailure);
                }
            }
            Some(Ok(_)) if !this.inner.is_end_stream() => {}
            Some(Ok(_)) | None => {
                if let Some(permit) = this.permit.take() {
                    permit.success();
                }
            }
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(feature = "http")]
impl<B, R: GateRef> std::fmt::Debug for LimitedBody<B, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LimitedBody")
            .field("holds_permit", &self.permit.is_some())
            .finish_non_exhaustive()
    }
}

impl<F, K, R: GateRef, O, P> std::fmt::Debug for ResponseFuture<F, K, R, O, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match &self.kind {
            Kind::Running { permit, .. } if permit.is_some() => "running",
            Kind::Refused { refusal: Some(_) } => "refused",
            Kind::Running { .. } | Kind::Refused { refusal: None } => "done",
        };
        f.debug_struct("ResponseFuture")
            .field("state", &state)
            .finish_non_exhaustive()
    }
}
