//! Body-long permits: with `permit_until_body_ends`, a streamed response counts against the
//! limit until its last frame, and its latency sample runs to then.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body, Frame};
use http_body_util::BodyExt;
use limiter_core::{AimdConfig, AimdF32, Fixed, HttpClassifier};
use limiter_tokio::{LimitLayer, Limiter};
use tokio::sync::mpsc;
use tower::{Layer, ServiceExt, service_fn};

/// A body whose frames arrive on a channel: `Err` is a body error, a closed channel its end.
#[derive(Default)]
struct Streamed(Option<mpsc::UnboundedReceiver<Result<&'static str, &'static str>>>);

impl Body for Streamed {
    type Data = Bytes;
    type Error = &'static str;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, &'static str>>> {
        let Some(rx) = self.0.as_mut() else {
            return Poll::Ready(None);
        };
        rx.poll_recv(cx).map(|next| {
            next.map(|chunk| chunk.map(|c| Frame::data(Bytes::from_static(c.as_bytes()))))
        })
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_none()
    }
}

type Sender = mpsc::UnboundedSender<Result<&'static str, &'static str>>;

/// A service answering `status` with a body streamed from a fresh channel, whose sender it
/// hands to the test.
fn streaming(
    status: u16,
    senders: mpsc::UnboundedSender<Sender>,
) -> impl tower::Service<(), Response = http::Response<Streamed>, Error = std::convert::Infallible> + Clone
{
    service_fn(move |()| {
        let senders = senders.clone();
        async move {
            let (tx, rx) = mpsc::unbounded_channel();
            senders.send(tx).unwrap();
            let mut response = http::Response::new(Streamed(Some(rx)));
            *response.status_mut() = http::StatusCode::from_u16(status).unwrap();
            Ok(response)
        }
    })
}

#[tokio::test(start_paused = true)]
async fn a_streamed_body_keeps_its_permit_until_its_last_frame_and_is_measured_to_it() {
    let limiter = Limiter::new(AimdF32::new(AimdConfig::default().initial(2)).unwrap());
    let (senders, mut rx) = mpsc::unbounded_channel();
    let service = LimitLayer::new(limiter.clone(), HttpClassifier::new())
        .permit_until_body_ends()
        .layer(streaming(200, senders));
    for _ in 0..3 {
        let response = service.clone().oneshot(()).await.unwrap();
        let tx = rx.recv().await.unwrap();
        assert_eq!(
            limiter.in_flight(),
            1,
            "the headers are in, the body is not"
        );
        assert!(response.body().holds_permit());
        let reader = tokio::spawn(async move { response.into_body().collect().await });
        tokio::time::sleep(Duration::from_millis(10)).await;
        tx.send(Ok("first")).unwrap();
        tokio::time::sleep(Duration::from_millis(40)).await;
        tx.send(Ok("last")).unwrap();
        drop(tx);
        let body = reader.await.unwrap().unwrap().to_bytes();
        assert_eq!(&body[..], b"firstlast");
        assert_eq!(limiter.in_flight(), 0);
    }
    // Each sample ran to the body's end: 50 ms, not the 0 ms the headers took.
    let baseline = limiter.snapshot().baseline_micros.unwrap();
    assert!((50_000..51_000).contains(&baseline), "{baseline} µs");
}

#[tokio::test(start_paused = true)]
async fn a_body_dropped_early_releases_its_permit_as_cancelled() {
    let limiter = Limiter::new(Fixed::new(1).unwrap());
    let (senders, mut rx) = mpsc::unbounded_channel();
    let service = LimitLayer::new(limiter.clone(), HttpClassifier::new())
        .permit_until_body_ends()
        .layer(streaming(200, senders));
    let response = service.oneshot(()).await.unwrap();
    let _tx = rx.recv().await.unwrap();
    assert_eq!(limiter.in_flight(), 1);
    drop(response);
    let s = limiter.snapshot();
    assert_eq!((s.in_flight, s.cancelled), (0, 1));
}

#[tokio::test(start_paused = true)]
async fn a_congested_answer_or_a_body_error_ends_the_permit_without_a_success() {
    let limiter = Limiter::new(AimdF32::new(AimdConfig::default().initial(4)).unwrap());
    let (senders, mut rx) = mpsc::unbounded_channel();
    let layer = LimitLayer::new(limiter.clone(), HttpClassifier::new()).permit_until_body_ends();
    // A 503: recorded (and the limit cut) with its headers; its body holds nothing.
    let unavailable = layer
        .layer(streaming(503, senders.clone()))
        .oneshot(())
        .await
        .unwrap();
    let _tx = rx.recv().await.unwrap();
    assert!(!unavailable.body().holds_permit());
    assert_eq!(limiter.in_flight(), 0);
    assert_eq!(limiter.snapshot().decreases, 1);
    // A body that fails midway: a transient failure, which moves nothing.
    let limit = limiter.limit();
    let broken = layer
        .layer(streaming(200, senders))
        .oneshot(())
        .await
        .unwrap();
    let tx = rx.recv().await.unwrap();
    tx.send(Err("connection reset")).unwrap();
    assert!(broken.into_body().collect().await.is_err());
    let s = limiter.snapshot();
    assert_eq!(
        (s.in_flight, s.cancelled, s.decreases, s.limit),
        (0, 0, 1, limit)
    );
}
