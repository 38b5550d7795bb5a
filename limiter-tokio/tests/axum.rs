//! The tower layer in an axum server, in one line: `Router::layer` takes it as it is (no
//! `HandleErrorLayer`, no `LoadShed`), refusals come back as `503` with `Retry-After`, and
//! every refusal is counted.

use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::routing::get;
use limiter_core::{Fixed, HttpClassifier};
use limiter_tokio::{LimitLayer, Limiter};
use tokio::sync::Notify;
use tower::ServiceExt;

fn request() -> Request<Body> {
    Request::builder().uri("/").body(Body::empty()).unwrap()
}

#[tokio::test(start_paused = true)]
async fn a_router_layer_limits_waits_at_most_max_wait_and_answers_503() {
    let limiter = Limiter::new(Fixed::new(1).unwrap());
    let release = std::sync::Arc::new(Notify::new());
    let gate = release.clone();
    let app = Router::new()
        .route(
            "/",
            get(move || {
                let gate = gate.clone();
                async move {
                    gate.notified().await;
                    "done"
                }
            }),
        )
        .layer(
            LimitLayer::new(limiter.clone(), HttpClassifier::new())
                .max_wait(Duration::from_millis(20))
                .refusals_as_responses(),
        );

    // The first request holds the only permit until released.
    let first = tokio::spawn(app.clone().oneshot(request()));
    tokio::task::yield_now().await;
    assert_eq!(limiter.in_flight(), 1);

    // The second waits 20 ms, then is answered 503 without reaching the handler.
    let refused = app.clone().oneshot(request()).await.unwrap();
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(limiter.snapshot().timed_out, 1);

    release.notify_one();
    let done = first.await.unwrap().unwrap();
    assert_eq!(done.status(), StatusCode::OK);

    // A hold (a dependency's Retry-After) is passed on to the server's own callers.
    limiter.hold_admissions_for(Duration::from_secs(3));
    let held = app.oneshot(request()).await.unwrap();
    assert_eq!(held.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(held.headers()["retry-after"], "3");
    let s = limiter.snapshot();
    assert_eq!((s.admitted, s.in_flight, s.held, s.timed_out), (1, 0, 1, 1));
}
