//! End to end on 127.0.0.1: an axum server with the layer at its request boundary, and a client
//! behind the limiter calling a server that throttles with `429` and `Retry-After`. Every loop
//! is bounded in count and in time; what is asserted is behaviour, never speed.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::routing::get;
use limiter_core::{Fixed, HttpClassifier};
use limiter_tokio::{LimitLayer, Limiter};

mod common;
use common::{get_once, serve, throttles_its_first_call};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_overload_the_excess_is_refused_with_503_and_the_handler_never_sees_more_than_the_limit()
 {
    const LIMIT: u32 = 8;
    let limiter = Limiter::new(Fixed::new(LIMIT).unwrap());
    let inside = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let (now, peak) = (inside.clone(), most.clone());
    let app = Router::new()
        .route(
            "/",
            get(move || {
                let (now, peak) = (now.clone(), peak.clone());
                async move {
                    let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(n, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    now.fetch_sub(1, Ordering::SeqCst);
                    "done"
                }
            }),
        )
        .layer(
            LimitLayer::new(limiter.clone(), HttpClassifier::new())
                .refuse_at_limit()
                .refusals_as_responses(),
        );
    let (addr, server) = serve(app).await;

    // 64 clients, 5 requests each, all at once: far more than 8 at a time.
    let clients: Vec<_> = (0..64)
        .map(|_| {
            tokio::spawn(async move {
                let mut statuses = Vec::new();
                for _ in 0..5 {
                    statuses.push(get_once(addr).await.0);
                }
                statuses
            })
        })
        .collect();
    let mut statuses = Vec::new();
    for client in clients {
        statuses.extend(client.await.unwrap());
    }
    server.abort();

    let ok = statuses.iter().filter(|&&s| s == 200).count();
    let refused = statuses.iter().filter(|&&s| s == 503).count();
    assert_eq!(
        ok + refused,
        statuses.len(),
        "only 200s and 503s: {statuses:?}"
    );
    assert!(refused > 0, "the excess is refused");
    assert!(ok >= LIMIT as usize, "and the limit's worth is served");
    assert!(
        most.load(Ordering::SeqCst) <= LIMIT as usize,
        "the handler saw more than the limit"
    );
    let s = limiter.snapshot();
    assert_eq!(
        (s.admitted, s.at_limit, s.in_flight),
        (ok as u64, refused as u64, 0)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_with_retry_after_holds_the_clients_admissions_until_the_hint() {
    // The upstream throttles its first call with "429, Retry-After: 1", then serves.
    let (upstream, calls) = throttles_its_first_call();
    let (addr, server) = serve(upstream).await;

    // The client: every call through `run`, the status (and its Retry-After) classified.
    let limiter = Limiter::new(Fixed::new(4).unwrap());
    let classify = limiter_core::classify_fn(|answer: &(u16, Option<String>)| {
        let mut response = http::Response::builder().status(answer.0);
        if let Some(value) = &answer.1 {
            response = response.header("retry-after", value.as_str());
        }
        limiter_core::Classify::classify(&HttpClassifier::new(), &response.body(()).unwrap())
    });
    let throttled = limiter.run(get_once(addr), classify).await.unwrap();
    assert_eq!(throttled, (429, Some("1".to_owned())));
    let held_from = std::time::Instant::now();
    assert!(
        limiter.try_acquire().is_err(),
        "a newcomer is refused during the hold"
    );
    let after_hold = limiter.run(get_once(addr), classify).await.unwrap();
    let waited = held_from.elapsed();
    server.abort();
    assert_eq!(after_hold.0, 200);
    assert!(
        waited >= Duration::from_millis(950),
        "admitted {waited:?} into a 1 s hold"
    );
    assert_eq!(
        calls.load(Ordering::SeqCst),
        2,
        "nothing reached the upstream during the hold"
    );
    let s = limiter.snapshot();
    assert_eq!((s.admitted, s.held, s.in_flight), (2, 1, 0));
}
