//! A tower [`Layer`] and [`Service`] that limit concurrency adaptively (feature `tower`).
//!
//! The service takes a permit in `poll_ready` (waiting in the limiter's FIFO queue), moves it
//! into the response future in `call`, classifies the response (or error) when the future
//! completes, and releases the permit there, or as cancelled if the response future is dropped
//! first. Each clone of the service holds its own permit, never a shared one.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use std::sync::Arc;

use limiter_core::{AimdF32, Classify, Controller, GateRef, Permit};
use tower_layer::Layer;
use tower_service::Service;

use crate::{Limiter, OwnedAcquire, OwnedPermit, SharedGate};

/// The error of a [`LimitService`]: the inner service's, or the limiter's
/// [`QueueFull`](limiter_core::QueueFull), boxed as tower's middleware do.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

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
pub struct LimitLayer<K, C = AimdF32> {
    limiter: Limiter<C>,
    classify: K,
}

impl<K: Clone, C> Clone for LimitLayer<K, C> {
    fn clone(&self) -> Self {
        LimitLayer {
            limiter: self.limiter.clone(),
            classify: self.classify.clone(),
        }
    }
}

impl<K, C: Controller> std::fmt::Debug for LimitLayer<K, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LimitLayer")
            .field("limiter", &self.limiter)
            .finish_non_exhaustive()
    }
}

impl<K, C> LimitLayer<K, C> {
    /// A layer admitting through `limiter`, judging responses with `classify`.
    pub fn new(limiter: Limiter<C>, classify: K) -> Self {
        LimitLayer { limiter, classify }
    }
}

impl<S, K: Clone, C: Controller> Layer<S> for LimitLayer<K, C> {
    type Service = LimitService<S, K, C>;

    fn layer(&self, inner: S) -> Self::Service {
        LimitService {
            inner,
            limiter: self.limiter.clone(),
            classify: self.classify.clone(),
            state: State::Idle,
            acquire: None,
        }
    }
}

enum State<C: Controller> {
    Idle,
    /// Waiting for the acquisition in [`LimitService::acquire`].
    Waiting,
    Ready(OwnedPermit<C>),
}

/// A service whose calls run under a [`Limiter`](crate::Limiter)'s permits; see [`LimitLayer`].
pub struct LimitService<S, K, C: Controller = AimdF32> {
    inner: S,
    limiter: Limiter<C>,
    classify: K,
    state: State<C>,
    /// The acquisition future, boxed once and reused for every request (it holds a timer, so
    /// it cannot move).
    acquire: Option<Pin<Box<OwnedAcquire<C>>>>,
}

impl<S: Clone, K: Clone, C: Controller> Clone for LimitService<S, K, C> {
    /// A clone shares the limiter, not a permit this service may hold.
    fn clone(&self) -> Self {
        LimitService {
            inner: self.inner.clone(),
            limiter: self.limiter.clone(),
            classify: self.classify.clone(),
            state: State::Idle,
            acquire: None,
        }
    }
}

impl<S, K, C: Controller> std::fmt::Debug for LimitService<S, K, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match self.state {
            State::Idle => "idle",
            State::Waiting => "waiting",
            State::Ready(_) => "ready",
        };
        f.debug_struct("LimitService")
            .field("limiter", &self.limiter)
            .field("state", &state)
            .finish_non_exhaustive()
    }
}

impl<S, Req, K, C> Service<Req> for LimitService<S, K, C>
where
    S: Service<Req>,
    S::Error: Into<BoxError>,
    K: Classify<Result<S::Response, S::Error>> + Clone,
    C: Controller,
{
    type Response = S::Response;
    type Error = BoxError;
    type Future = ResponseFuture<S::Future, K, Arc<SharedGate<C>>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        loop {
            match &mut self.state {
                State::Idle => {
                    let next = self.limiter.acquire_owned();
                    match &mut self.acquire {
                        Some(reused) => reused.set(next),
                        None => self.acquire = Some(Box::pin(next)),
                    }
                    self.state = State::Waiting;
                }
                State::Waiting => {
                    let acquire = self.acquire.as_mut().expect("set when waiting starts");
                    let permit = ready!(acquire.as_mut().poll(cx));
                    self.state = State::Idle;
                    self.state = State::Ready(permit?);
                }
                // Holding a permit: now the inner service must be ready too. If it fails, the
                // permit stays here for the next call.
                State::Ready(_) => return self.inner.poll_ready(cx).map_err(Into::into),
            }
        }
    }

    /// # Panics
    ///
    /// If `poll_ready` has not returned `Ready(Ok(()))` since the last call, as tower's own
    /// middleware do.
    fn call(&mut self, request: Req) -> Self::Future {
        let State::Ready(permit) = std::mem::replace(&mut self.state, State::Idle) else {
            panic!("LimitService::call without poll_ready");
        };
        ResponseFuture {
            inner: self.inner.call(request),
            permit: Some(permit),
            classify: self.classify.clone(),
        }
    }
}

pin_project_lite::pin_project! {
    /// The response future of a [`LimitService`]: holds the permit until the inner future
    /// completes, then records the classified outcome. Dropped early, it releases the permit as
    /// cancelled.
    pub struct ResponseFuture<F, K, R: GateRef> {
        #[pin]
        inner: F,
        permit: Option<Permit<R>>,
        classify: K,
    }
}

impl<F, T, E, K, R> Future for ResponseFuture<F, K, R>
where
    F: Future<Output = Result<T, E>>,
    E: Into<BoxError>,
    K: Classify<Result<T, E>>,
    R: GateRef,
{
    type Output = Result<T, BoxError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let output = ready!(this.inner.poll(cx));
        if let Some(permit) = this.permit.take() {
            permit.record_verdict(this.classify.classify(&output));
        }
        Poll::Ready(output.map_err(Into::into))
    }
}

impl<F, K, R: GateRef> std::fmt::Debug for ResponseFuture<F, K, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseFuture")
            .field("holds_permit", &self.permit.is_some())
            .finish_non_exhaustive()
    }
}
