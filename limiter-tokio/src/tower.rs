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

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use limiter_core::{
    AcquireError, AimdF32, Classify, Controller, GateRef, Permit, QueueFull, TryAcquireError,
};
use tower_layer::Layer;
use tower_service::Service;

use crate::{Limiter, OwnedAcquire, OwnedPermit, SharedGate};

/// The error of a [`LimitService`] that answers refusals with errors: the inner service's
/// error, or a [`Refusal`], boxed as tower's middleware do (downcast to tell them apart).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Why a [`LimitService`] answered a request without calling the inner service.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// At the limit, with [`LimitLayer::refuse_at_limit`].
    AtLimit,
    /// The limiter holds newcomers back for a dependency's `Retry-After`; this much of the hold
    /// is left.
    Held {
        /// The rest of the hold.
        retry_after: Duration,
    },
    /// The limiter's waiting queue was full.
    QueueFull,
    /// The request waited [`LimitLayer::max_wait`] without a permit.
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

/// How a [`LimitService`] answers a refusal: with a [`Refusal`] error (the default).
#[derive(Clone, Copy, Debug, Default)]
pub struct RefusalsAsErrors;

/// How a [`LimitService`] answers a refusal: with [`Refusal::to_response`] (feature `http`).
#[derive(Clone, Copy, Debug, Default)]
pub struct RefusalsAsResponses;

/// How long a request may wait for a permit.
#[derive(Clone, Copy, Debug)]
enum Wait {
    /// In the FIFO queue, at most this long (`None`: as long as it takes).
    Queue(Option<Duration>),
    /// Not at all.
    Never,
}

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
pub struct LimitLayer<K, C = AimdF32, O = RefusalsAsErrors> {
    limiter: Limiter<C>,
    classify: K,
    wait: Wait,
    answer: PhantomData<fn() -> O>,
}

impl<K: Clone, C, O> Clone for LimitLayer<K, C, O> {
    fn clone(&self) -> Self {
        LimitLayer {
            limiter: self.limiter.clone(),
            classify: self.classify.clone(),
            wait: self.wait,
            answer: PhantomData,
        }
    }
}

impl<K, C: Controller, O> std::fmt::Debug for LimitLayer<K, C, O> {
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

impl<K, C, O> LimitLayer<K, C, O> {
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
    pub fn refusals_as_responses(self) -> LimitLayer<K, C, RefusalsAsResponses> {
        LimitLayer {
            limiter: self.limiter,
            classify: self.classify,
            wait: self.wait,
            answer: PhantomData,
        }
    }
}

impl<S, K: Clone, C: Controller, O> Layer<S> for LimitLayer<K, C, O> {
    type Service = LimitService<S, K, C, O>;

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
pub struct LimitService<S, K, C: Controller = AimdF32, O = RefusalsAsErrors> {
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
    answer: PhantomData<fn() -> O>,
}

impl<S: Clone, K: Clone, C: Controller, O> Clone for LimitService<S, K, C, O> {
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

impl<S, K, C: Controller, O> std::fmt::Debug for LimitService<S, K, C, O> {
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

impl<S, K, C: Controller, O> LimitService<S, K, C, O> {
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
                            Err(refused) => State::Refused(self.refusal(refused)),
                        };
                    }
                    Wait::Queue(max_wait) => {
                        let next = self.limiter.acquire_owned();
                        match &mut self.acquire {
                            Some(reused) => reused.set(next),
                            None => self.acquire = Some(Box::pin(next)),
                        }
                        if let Some(max_wait) = max_wait {
                            let until = tokio::time::Instant::now() + max_wait;
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
                    let refusal = match self.limiter.count_ended_wait() {
                        Some(until) => self.held(until),
                        None => Refusal::TimedOut,
                    };
                    self.state = State::Refused(refusal);
                }
            }
        }
    }

    fn refusal(&self, refused: TryAcquireError) -> Refusal {
        match refused {
            TryAcquireError::AtLimit => Refusal::AtLimit,
            TryAcquireError::Held { until } => self.held(until),
        }
    }

    /// The refusal of a hold that ends at `until`, with what is left of it.
    fn held(&self, until: limiter_core::Instant) -> Refusal {
        let now = limiter_core::Clock::now(self.limiter.runtime());
        Refusal::Held {
            retry_after: Duration::from_micros(until.micros_since(now)),
        }
    }

    /// The response future for `request`: the inner call under the permit, or the refusal.
    ///
    /// # Panics
    ///
    /// If `poll_ready` has not returned `Ready(Ok(()))` since the last call, as tower's own
    /// middleware do.
    fn start<Req>(&mut self, request: Req) -> ResponseFuture<S::Future, K, Arc<SharedGate<C>>, O>
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

impl<S, Req, K, C> Service<Req> for LimitService<S, K, C, RefusalsAsErrors>
where
    S: Service<Req>,
    S::Error: Into<BoxError>,
    K: Classify<Result<S::Response, S::Error>> + Clone,
    C: Controller,
{
    type Response = S::Response;
    type Error = BoxError;
    type Future = ResponseFuture<S::Future, K, Arc<SharedGate<C>>, RefusalsAsErrors>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        ready!(self.poll_admission(cx));
        match self.state {
            // Holding a permit: now the inner service must be ready too. If it fails, the
            // permit stays here for the next call.
            State::Ready(_) => self.inner.poll_ready(cx).map_err(Into::into),
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
impl<S, Req, B, K, C> Service<Req> for LimitService<S, K, C, RefusalsAsResponses>
where
    S: Service<Req, Response = http::Response<B>>,
    B: Default,
    K: Classify<Result<S::Response, S::Error>> + Clone,
    C: Controller,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future, K, Arc<SharedGate<C>>, RefusalsAsResponses>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        ready!(self.poll_admission(cx));
        match self.state {
            State::Ready(_) => self.inner.poll_ready(cx),
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
    pub struct ResponseFuture<F, K, R: GateRef, O = RefusalsAsErrors> {
        #[pin]
        kind: Kind<F, K, R>,
        answer: PhantomData<fn() -> O>,
    }
}

impl<F, K, R: GateRef, O> ResponseFuture<F, K, R, O> {
    /// Polls the inner call and records its outcome; `Err` is the refusal, once.
    fn poll_call<T, E>(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Result<T, E>, Refusal>>
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
                if let Some(permit) = permit.take() {
                    let verdict = classify.classify(&output);
                    if let Some(delay) = verdict.retry_after {
                        permit.hold_admissions_for(delay);
                    }
                    permit.record(verdict.outcome);
                }
                Poll::Ready(Ok(output))
            }
            // Polled again after it completed: a spent future, pending for good.
            KindProj::Refused { refusal } => refusal
                .take()
                .map_or(Poll::Pending, |r| Poll::Ready(Err(r))),
        }
    }
}

impl<F, T, E, K, R> Future for ResponseFuture<F, K, R, RefusalsAsErrors>
where
    F: Future<Output = Result<T, E>>,
    E: Into<BoxError>,
    K: Classify<Result<T, E>>,
    R: GateRef,
{
    type Output = Result<T, BoxError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Poll::Ready(match ready!(self.poll_call(cx)) {
            Ok(output) => output.map_err(Into::into),
            Err(refusal) => Err(Box::new(refusal)),
        })
    }
}

#[cfg(feature = "http")]
impl<F, B, E, K, R> Future for ResponseFuture<F, K, R, RefusalsAsResponses>
where
    F: Future<Output = Result<http::Response<B>, E>>,
    B: Default,
    K: Classify<Result<http::Response<B>, E>>,
    R: GateRef,
{
    type Output = Result<http::Response<B>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Poll::Ready(match ready!(self.poll_call(cx)) {
            Ok(output) => output,
            Err(refusal) => Ok(refusal.to_response()),
        })
    }
}

impl<F, K, R: GateRef, O> std::fmt::Debug for ResponseFuture<F, K, R, O> {
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
