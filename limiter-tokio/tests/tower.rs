//! The tower middleware, tested in the style of tower's own concurrency-limit tests: services
//! driven by hand, responses completed through channels.

use std::future::poll_fn;
use std::time::Duration;

use limiter_core::{
    AimdConfig, ErrorsAreOverload, Fixed, HeapQueue, HttpClassifier, Outcome, classify_fn,
};
use limiter_tokio::{LimitLayer, Limiter};
use tokio::sync::oneshot;
use tokio_test::{assert_pending, assert_ready, assert_ready_ok, task};
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

#[tokio::test]
async fn a_full_queue_is_an_error_from_poll_ready() {
    let limiter = Limiter::with_queue(Fixed::new(1).unwrap(), HeapQueue::new(1));
    let _held = limiter.try_acquire().unwrap();
    let mut a = LimitLayer::new(limiter.clone(), ErrorsAreOverload).layer(channel_service());
    let mut b = a.clone();
    let mut waits = task::spawn(poll_fn(|cx| a.poll_ready(cx)));
    assert_pending!(waits.poll());
    let err = assert_ready!(task::spawn(poll_fn(|cx| b.poll_ready(cx))).poll()).unwrap_err();
    assert!(err.is::<limiter_core::QueueFull>(), "{err}");
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
