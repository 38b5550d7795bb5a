//! The tower middleware, tested in the style of tower's own concurrency-limit tests: services
//! driven by hand, responses completed through channels.

use std::future::poll_fn;
use std::time::Duration;

use limiter_core::{
    AimdConfig, ErrorsAreOverload, Fixed, HeapQueue, HttpClassifier, Outcome, classify_fn,
};
use limiter_tokio::{BoxError, LimitLayer, Limiter, Refusal};
use tokio::sync::oneshot;
use tokio_test::{assert_pending, assert_ready_ok, task};
use tower::{Layer, Service, ServiceExt, service_fn};

type Reply = oneshot::Receiver<Result<u16, &'static str>>;

/// A service whose responses are whatever arrives on the receiver each request carries.
fn channel_service()
-> impl Service<Reply, Response = u16, Error = Box<dyn std::error::Error + Send + Sync>> + Clone {
    service_fn(|rx: Reply| async move {
        match rx.await {
            Ok(Ok(status)) => Ok(status),
            Ok(Err(e)) => Err(e.into()),
            Err(_) => Err("sender dropped".into()),
        }
    })
}

fn fixed(limit: u32) -> Limiter<Fixed> {
    Limiter::new(Fixed::new(limit).unwrap())
}

#[tokio::test]
async fn basic_service_limit_functionality_with_poll_ready() {
    let limiter = fixed(2);
    let mut service = LimitLayer::new(limiter.clone(), ErrorsAreOverload).layer(channel_service());

    let (tx1, rx1) = oneshot::channel();
    assert_ready_ok!(task::spawn(poll_fn(|cx| service.poll_ready(cx))).poll());
    let r1 = service.call(rx1);
    let (tx2, rx2) = oneshot::channel();
    assert_ready_ok!(task::spawn(poll_fn(|cx| service.poll_ready(cx))).poll());
    let r2 = service.call(rx2);

    // At the limit: the third caller waits in poll_ready.
    let mut ready = task::spawn(poll_fn(|cx| service.poll_ready(cx)));
    assert_pending!(ready.poll());
    assert_eq!(limiter.snapshot().queued, 1);

    tx1.send(Ok(200)).unwrap();
    assert_eq!(r1.await.unwrap(), 200);
    assert!(ready.is_woken(), "the released permit wakes the waiter");
    assert_ready_ok!(ready.poll());
    drop(ready);
    let (tx3, rx3) = oneshot::channel();
    let r3 = service.call(rx3);

    tx2.send(Ok(200)).unwrap();
    tx3.send(Ok(200)).unwrap();
    assert_eq!((r2.await.unwrap(), r3.await.unwrap()), (200, 200));
    let s = limiter.snapshot();
    assert_eq!((s.in_flight, s.admitted, s.cancelled), (0, 3, 0));
}

#[tokio::test]
async fn response_future_drop_releases_capacity() {
    let limiter = fixed(1);
    let mut service = LimitLayer::new(limiter.clone(), ErrorsAreOverload).layer(channel_service());

    let (_tx, rx) = oneshot::channel();
    service.ready().await.unwrap();
    let response = service.call(rx);
    assert_eq!(limiter.in_flight(), 1);
    let mut next = task::spawn(poll_fn(|cx| service.poll_ready(cx)));
    assert_pending!(next.poll());

    drop(response);
    assert!(next.is_woken());
    assert_ready_ok!(next.poll());
    drop(next);
    let s = limiter.snapshot();
    assert_eq!(
        (s.in_flight, s.cancelled),
        (1, 1),
        "the new permit is held, the old one cancelled"
    );
}

#[tokio::test]
async fn service_drop_frees_capacity() {
    let limiter = fixed(1);
    let mut service = LimitLayer::new(limiter.clone(), ErrorsAreOverload).layer(channel_service());
    service.ready().await.unwrap();
    assert_eq!(limiter.in_flight(), 1, "poll_ready holds the permit");
    drop(service);
    assert_eq!(limiter.in_flight(), 0);
}

#[tokio::test]
async fn clones_do_not_share_a_held_permit() {
    let limiter = fixed(1);
    let mut first = LimitLayer::new(limiter.clone(), ErrorsAreOverload).layer(channel_service());
    first.ready().await.unwrap();
    let mut second = first.clone();
    // The clone must wait for a permit of its own; it cannot use the one `first` holds.
    let mut ready = task::spawn(poll_fn(|cx| second.poll_ready(cx)));
    assert_pending!(ready.poll());
    drop(first);
    assert_ready_ok!(ready.poll());
}

/// The refusal a response future resolved to, from a service that answers refusals as errors.
fn refusal(err: &BoxError) -> Refusal {
    *err.downcast_ref::<Refusal>()
        .unwrap_or_else(|| panic!("not a refusal: {err}"))
}

#[tokio::test]
async fn a_full_queue_is_a_refusal_from_the_response_future_not_a_broken_service() {
    let limiter = Limiter::with_queue(Fixed::new(1).unwrap(), HeapQueue::new(1));
    let _held = limiter.try_acquire().unwrap();
    let mut a = LimitLayer::new(limiter.clone(), ErrorsAreOverload).layer(channel_service());
    let mut b = a.clone();
    let mut waits = task::spawn(poll_fn(|cx| a.poll_ready(cx)));
    assert_pending!(waits.poll());
    // tower's contract: poll_ready fails only for a broken service.
    assert_ready_ok!(task::spawn(poll_fn(|cx| b.poll_ready(cx))).poll());
    let (_tx, rx) = oneshot::channel();
    let err = b.call(rx).await.unwrap_err();
    assert_eq!(refusal(&err), Refusal::QueueFull);
    assert_eq!(limiter.snapshot().queue_full, 1);
    // The service is still usable: once the queue has room (the other service, which waited
    // in it, is gone), the next request waits in it.
    drop(waits);
    drop(a);
    assert_pending!(task::spawn(poll_fn(|cx| b.poll_ready(cx))).poll());
    assert_eq!(limiter.snapshot().queued, 1);
}

#[tokio::test(start_paused = true)]
async fn a_bounded_wait_ends_in_a_timed_out_refusal_and_leaves_the_queue() {
    let limiter = fixed(1);
    let held = limiter.try_acquire().unwrap();
    let mut service = LimitLayer::new(limiter.clone(), ErrorsAreOverload)
        .max_wait(Duration::from_millis(20))
        .layer(channel_service());
    let started = tokio::time::Instant::now();
    poll_fn(|cx| service.poll_ready(cx)).await.unwrap();
    assert_eq!(started.elapsed(), Duration::from_millis(20));
    let s = limiter.snapshot();
    assert_eq!((s.queued, s.timed_out), (0, 1), "left the queue, counted");
    let (_tx, rx) = oneshot::channel();
    assert_eq!(
        refusal(&service.call(rx).await.unwrap_err()),
        Refusal::TimedOut
    );
    // Capacity within the bound is taken as usual.
    let mut waits = task::spawn(poll_fn(|cx| service.poll_ready(cx)));
    assert_pending!(waits.poll());
    drop(held);
    assert_ready_ok!(waits.poll());
    drop(waits);
    let (tx, rx) = oneshot::channel();
    tx.send(Ok(200)).unwrap();
    assert_eq!(service.call(rx).await.unwrap(), 200);
}

/// A bound too large for any clock (`Duration::MAX`) is no bound: the request waits, nothing
/// panics, and it is admitted when capacity comes back.
#[tokio::test(start_paused = true)]
async fn a_huge_bounded_wait_waits_without_overflowing_the_clock() {
    let limiter = fixed(1);
    let held = limiter.try_acquire().unwrap();
    let mut service = LimitLayer::new(limiter.clone(), ErrorsAreOverload)
        .max_wait(Duration::MAX)
        .layer(channel_service());
    let mut waits = task::spawn(poll_fn(|cx| service.poll_ready(cx)));
    assert_pending!(waits.poll());
    tokio::time::sleep(Duration::from_secs(3_600)).await;
    assert_pending!(waits.poll());
    drop(held);
    assert_ready_ok!(waits.poll());
    drop(waits);
    let (tx, rx) = oneshot::channel();
    tx.send(Ok(200)).unwrap();
    assert_eq!(service.call(rx).await.unwrap(), 200);
    assert_eq!(limiter.snapshot().timed_out, 0);
}

#[tokio::test]
async fn refusing_at_the_limit_never_waits() {
    let limiter = fixed(1);
    let _held = limiter.try_acquire().unwrap();
    let mut service = LimitLayer::new(limiter.clone(), ErrorsAreOverload)
        .refuse_at_limit()
        .layer(channel_service());
    assert_ready_ok!(task::spawn(poll_fn(|cx| service.poll_ready(cx))).poll());
    let (_tx, rx) = oneshot::channel();
    assert_eq!(
        refusal(&service.call(rx).await.unwrap_err()),
        Refusal::AtLimit
    );
    let s = limiter.snapshot();
    assert_eq!((s.at_limit, s.queued), (1, 0));
}

#[tokio::test(start_paused = true)]
async fn a_retry_after_in_a_response_holds_the_next_requests_back() {
    let limiter = fixed(4);
    let throttled = service_fn(|()| async {
        Ok::<_, std::io::Error>(
            http::Response::builder()
                .status(429)
                .header("retry-after", "2")
                .body(())
                .unwrap(),
        )
    });
    let layer = LimitLayer::new(limiter.clone(), HttpClassifier::new());
    let answered = layer.layer(throttled).oneshot(()).await.unwrap();
    assert_eq!(answered.status(), 429);
    assert!(limiter.held_until().is_some(), "the hint holds admissions");

    // Refusing at once: told how long the pause still lasts.
    let ok = service_fn(|()| async { Ok::<_, std::io::Error>(http::Response::new(())) });
    let refused = layer
        .clone()
        .refuse_at_limit()
        .layer(ok)
        .oneshot(())
        .await
        .unwrap_err();
    assert_eq!(
        refusal(&refused),
        Refusal::Held {
            retry_after: Duration::from_secs(2)
        }
    );
    // Waiting at most 1 s: the hold outlasts it.
    let bounded = layer
        .clone()
        .max_wait(Duration::from_secs(1))
        .layer(ok)
        .oneshot(())
        .await;
    assert_eq!(
        refusal(&bounded.unwrap_err()),
        Refusal::Held {
            retry_after: Duration::from_secs(1)
        }
    );
    // Waiting as long as it takes: admitted once the hold has passed.
    let started = tokio::time::Instant::now();
    let waited = layer.layer(ok).oneshot(()).await.unwrap();
    assert_eq!(waited.status(), 200);
    assert_eq!(started.elapsed(), Duration::from_secs(1));
    let s = limiter.snapshot();
    assert_eq!(
        (s.held, s.timed_out),
        (2, 0),
        "a wait the hold outlasted is held, not timed out"
    );
}

#[tokio::test(start_paused = true)]
async fn refusals_as_responses_are_503s_with_the_hold_as_retry_after() {
    let limiter = fixed(1);
    let _held = limiter.try_acquire().unwrap();
    let ok = service_fn(|()| async {
        Ok::<_, std::convert::Infallible>(http::Response::new(String::new()))
    });
    let layer = LimitLayer::new(limiter.clone(), HttpClassifier::new()).refuse_at_limit();
    let at_limit = layer
        .clone()
        .refusals_as_responses()
        .layer(ok)
        .oneshot(())
        .await
        .unwrap();
    assert_eq!(at_limit.status(), 503);
    assert!(at_limit.headers().get("retry-after").is_none());

    limiter.hold_admissions_for(Duration::from_millis(1_500));
    let held = layer
        .refusals_as_responses()
        .layer(ok)
        .oneshot(())
        .await
        .unwrap();
    assert_eq!(held.status(), 503);
    assert_eq!(held.headers()["retry-after"], "2");
    let s = limiter.snapshot();
    assert_eq!((s.at_limit, s.held), (1, 1));
}

#[tokio::test(start_paused = true)]
async fn classified_responses_move_the_limit_and_client_errors_do_not() {
    let limiter = Limiter::aimd(AimdConfig::default().initial(10).bounds(1, 20)).unwrap();
    let slow = |status: u16| {
        service_fn(move |()| async move {
            tokio::time::sleep(Duration::from_millis(5)).await;
            Ok::<_, std::io::Error>(
                http::Response::builder()
                    .status(status)
                    .header("retry-after", "30")
                    .body(())
                    .unwrap(),
            )
        })
    };
    let layer = LimitLayer::new(limiter.clone(), HttpClassifier::new());
    for _ in 0..20 {
        let response = layer.layer(slow(404)).oneshot(()).await.unwrap();
        assert_eq!(response.status(), 404);
    }
    assert_eq!(limiter.limit(), 10, "client errors never move the limit");

    layer.layer(slow(429)).oneshot(()).await.unwrap();
    let cut = limiter.limit();
    assert!(cut < 10, "a 429 cuts the limit");
    assert_eq!(limiter.snapshot().decreases, 1);
    assert_eq!(limiter.in_flight(), 0);
}

#[tokio::test]
async fn inner_errors_are_classified_and_returned() {
    let limiter = fixed(2);
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    let classify = classify_fn(
        move |r: &Result<u16, Box<dyn std::error::Error + Send + Sync>>| {
            log.lock().unwrap().push(r.is_ok());
            if r.is_ok() {
                Outcome::Success
            } else {
                Outcome::Overload
            }
        },
    );
    let service = LimitLayer::new(limiter.clone(), classify).layer(channel_service());
    let (tx, rx) = oneshot::channel();
    tx.send(Err("boom")).unwrap();
    let err = service.oneshot(rx).await.unwrap_err();
    assert_eq!(err.to_string(), "boom");
    assert_eq!(*seen.lock().unwrap(), [false]);
    assert_eq!(limiter.in_flight(), 0);
}
