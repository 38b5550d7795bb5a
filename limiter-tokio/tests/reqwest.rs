//! A reqwest client through `LimitMiddleware`, against axum servers on 127.0.0.1. Every loop is
//! bounded in count and time; what is asserted is behaviour, never speed.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use limiter_core::Fixed;
use limiter_tokio::{LimitMiddleware, Limiter, Refusal};
use reqwest_middleware::{ClientBuilder, ClientWithMiddleware};

mod common;
use common::{serve, throttles_its_first_call};

/// Serves `app` on a free loopback port: its URL, and the server's task to abort.
async fn serve_url(app: Router) -> (String, tokio::task::JoinHandle<()>) {
    let (addr, server) = serve(app).await;
    (format!("http://{addr}/"), server)
}

fn client(middleware: LimitMiddleware<Fixed>) -> ClientWithMiddleware {
    let inner = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    ClientBuilder::new(inner).with(middleware).build()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_with_retry_after_holds_the_next_request_and_nothing_is_sent_meanwhile() {
    let (upstream, calls) = throttles_its_first_call();
    let (url, server) = serve_url(upstream).await;
    let limiter = Limiter::new(Fixed::new(4).unwrap());
    let client = client(LimitMiddleware::new(limiter.clone()));

    let throttled = client.get(&url).send().await.unwrap();
    assert_eq!(throttled.status(), 429);
    let held_from = Instant::now();
    assert!(
        limiter.held_until().is_some(),
        "the Retry-After holds admissions"
    );
    let after_hold = client.get(&url).send().await.unwrap();
    let waited = held_from.elapsed();
    server.abort();
    assert_eq!(after_hold.status(), 200);
    assert!(
        waited >= Duration::from_millis(950),
        "sent {waited:?} into a 1 s hold"
    );
    assert_eq!(
        calls.load(Ordering::SeqCst),
        2,
        "nothing was sent during the hold"
    );
    let s = limiter.snapshot();
    assert_eq!((s.admitted, s.in_flight), (2, 0), "{s:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_are_not_sent_and_are_told_apart_and_counted() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let slow = Router::new().route(
        "/",
        get(move || {
            let counted = counted.clone();
            async move {
                counted.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(300)).await;
                "done"
            }
        }),
    );
    let (url, server) = serve_url(slow).await;
    let limiter = Limiter::new(Fixed::new(1).unwrap());
    let at_once = client(LimitMiddleware::new(limiter.clone()).refuse_at_limit());
    let bounded = client(LimitMiddleware::new(limiter.clone()).max_wait(Duration::from_millis(50)));

    let first = tokio::spawn({
        let at_once = at_once.clone();
        let url = url.clone();
        async move { at_once.get(&url).send().await.unwrap().status() }
    });
    tokio::time::timeout(Duration::from_secs(10), async {
        while calls.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    })
    .await
    .expect("the first request reached the server");

    let refusal = |error: reqwest_middleware::Error| match error {
        reqwest_middleware::Error::Middleware(e) => *e.downcast_ref::<Refusal>().unwrap(),
        other @ reqwest_middleware::Error::Reqwest(_) => panic!("not a refusal: {other:?}"),
    };
    let refused = at_once.get(&url).send().await.unwrap_err();
    assert_eq!(refusal(refused), Refusal::AtLimit);
    let timed_out = bounded.get(&url).send().await.unwrap_err();
    assert_eq!(refusal(timed_out), Refusal::TimedOut);
    assert_eq!(first.await.unwrap(), 200);
    server.abort();

    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "a refused request was sent"
    );
    let s = limiter.snapshot();
    assert_eq!(
        (s.admitted, s.at_limit, s.timed_out, s.in_flight, s.queued),
        (1, 1, 1, 0, 0)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_answer_at_all_is_congestion_and_cuts_the_limit() {
    // A port nothing listens on: the connection is refused.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    drop(listener);
    let limiter = Limiter::aimd(limiter_core::AimdConfig::default()).unwrap();
    let before = limiter.limit();
    let inner = reqwest::Client::new();
    let client = ClientBuilder::new(inner)
        .with(LimitMiddleware::new(limiter.clone()))
        .build();
    let error = client.get(&url).send().await.unwrap_err();
    assert!(!error.is_middleware(), "{error:?}");
    assert!(limiter.limit() < before, "a refused connection cut nothing");
    assert_eq!(limiter.snapshot().decreases, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spent_quota_hint_holds_the_next_request_until_its_reset() {
    // The provider serves its first call and says its quota is spent until a reset in 1 s.
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let upstream = Router::new().route(
        "/",
        get(move || {
            let counted = counted.clone();
            async move {
                counted.fetch_add(1, Ordering::SeqCst);
                (
                    StatusCode::OK,
                    [
                        ("x-ratelimit-limit", "1"),
                        ("x-ratelimit-remaining", "0"),
                        ("x-ratelimit-reset", "1"),
                    ],
                )
            }
        }),
    );
    let (url, server) = serve_url(upstream).await;
    let limiter = Limiter::new(Fixed::new(4).unwrap());
    let client = client(LimitMiddleware::new(limiter.clone()));

    assert_eq!(client.get(&url).send().await.unwrap().status(), 200);
    let held_from = Instant::now();
    let next = tokio::spawn({
        let client = client.clone();
        let url = url.clone();
        async move { client.get(&url).send().await.unwrap().status() }
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(calls.load(Ordering::SeqCst), 1, "sent during the hold");
    assert_eq!(next.await.unwrap(), 200);
    let waited = held_from.elapsed();
    server.abort();
    assert!(
        waited >= Duration::from_millis(950),
        "sent {waited:?} into a 1 s reset"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}
