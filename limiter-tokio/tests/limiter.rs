//! Behaviour specific to the tokio adapter: its clock, its timers, `run`, Retry-After and the
//! reporter. What every adapter must do is in the workspace's contract suite.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use limiter_core::{AimdConfig, Fixed, HeapQueue, HttpClassifier, Outcome, Verdict, classify_fn};
use limiter_tokio::{AcquireError, Limiter, OwnedAcquire, OwnedPermit};

#[test]
fn bounds() {
    fn send_sync_static<T: Send + Sync + 'static>() {}
    fn send_static<T: Send + 'static>() {}
    // The borrowed futures can be held across `.await` in spawned tasks too.
    fn send<T: Send>(_: &T) {}
    fn send_static_future<F: std::future::Future + Send + 'static>(_: F) {}
    send_sync_static::<Limiter>();
    send_sync_static::<Limiter<Fixed>>();
    send_static::<OwnedPermit>();
    send_static::<OwnedAcquire>();
    send_sync_static::<AcquireError>();
    let limiter = Limiter::new(Fixed::new(1).unwrap());
    send(&limiter.acquire());
    send(&limiter.acquire_timeout(Duration::from_secs(1)));
    send(&limiter.run(async { 1 }, classify_fn(|_: &i32| Outcome::Success)));
    // The report is a future to spawn: `Send + 'static`.
    send_static_future(limiter.report_owned(Duration::from_secs(1), |_| {}));
}

#[tokio::test(start_paused = true)]
async fn latency_is_measured_on_the_paused_clock() {
    let limiter = Limiter::aimd(AimdConfig::default().initial(4)).unwrap();
    for _ in 0..20 {
        let permit = limiter.acquire().await.unwrap();
        tokio::time::sleep(Duration::from_millis(7)).await;
        permit.success();
    }
    assert_eq!(limiter.snapshot().baseline_micros, Some(7_000));
}

#[tokio::test(start_paused = true)]
async fn acquire_until_gives_up_at_the_deadline_and_leaves_the_queue() {
    let limiter = Limiter::new(Fixed::new(1).unwrap());
    let held = limiter.try_acquire().unwrap();
    let start = tokio::time::Instant::now();
    // Deadlines are instants of the limiter's clock.
    let deadline = limiter
        .runtime()
        .from_tokio(start + Duration::from_millis(40));
    assert_eq!(
        limiter.acquire_until(deadline).await.err(),
        Some(AcquireError::Timeout)
    );
    assert_eq!(start.elapsed(), Duration::from_millis(40));
    assert_eq!(limiter.snapshot().queued, 0);
    drop(held);
    assert!(
        limiter.acquire_until(deadline).await.is_ok(),
        "free capacity is taken even late"
    );
}

#[tokio::test]
async fn a_full_queue_is_reported_by_every_waiting_call() {
    let limiter = Limiter::with_queue(Fixed::new(1).unwrap(), HeapQueue::new(1));
    let _held = limiter.try_acquire().unwrap();
    let waiting = limiter.acquire();
    tokio::pin!(waiting);
    assert!(futures_poll_once(waiting.as_mut()).await.is_none());
    assert_eq!(limiter.acquire().await.err(), Some(limiter_core::QueueFull));
    assert_eq!(
        limiter.acquire_timeout(Duration::from_secs(1)).await.err(),
        Some(AcquireError::QueueFull)
    );
    assert_eq!(
        limiter
            .run(async {}, classify_fn(|(): &()| Outcome::Success))
            .await,
        Err(limiter_core::QueueFull)
    );
    assert_eq!(limiter.snapshot().queue_full, 3);
}

/// Polls once; `Some` if the future completed.
async fn futures_poll_once<F: std::future::Future + Unpin>(f: F) -> Option<F::Output> {
    let mut f = f;
    std::future::poll_fn(|cx| {
        std::task::Poll::Ready(match std::pin::Pin::new(&mut f).poll(cx) {
            std::task::Poll::Ready(v) => Some(v),
            std::task::Poll::Pending => None,
        })
    })
    .await
}

#[tokio::test(start_paused = true)]
async fn retry_after_holds_growth_for_as_long_as_it_asks() {
    let config = AimdConfig::default()
        .initial(4)
        .bounds(1, 64)
        .growth_utilisation(limiter_core::Ratio::ZERO);
    let limiter = Limiter::aimd(config).unwrap();
    // Recorded on a permit directly, a Retry-After holds growth only (through `run` it holds
    // admissions too: see below).
    let throttled = Verdict::from(Outcome::Overload).retry_after(Duration::from_secs(10));
    limiter.acquire().await.unwrap().record_verdict(throttled);
    assert_eq!(limiter.held_until(), None);
    let after_cut = limiter.limit();
    assert!(after_cut < 4);

    let fast = |ms| async move { tokio::time::sleep(Duration::from_millis(ms)).await };
    let ok = classify_fn(|(): &()| Outcome::Success);
    // Nine seconds of fast successes: held.
    for _ in 0..90 {
        limiter.run(fast(100), ok).await.unwrap();
    }
    assert_eq!(
        limiter.limit(),
        after_cut,
        "growth held inside the Retry-After window"
    );
    for _ in 0..30 {
        limiter.run(fast(100), ok).await.unwrap();
    }
    assert!(limiter.limit() > after_cut, "growth resumes after it");
}

#[tokio::test(start_paused = true)]
async fn an_http_retry_after_header_is_honoured_through_run() {
    let config = AimdConfig::default()
        .initial(8)
        .growth_utilisation(limiter_core::Ratio::ZERO);
    let limiter = Limiter::aimd(config).unwrap();
    let response = || {
        http::Response::builder()
            .status(503)
            .header("retry-after", "5")
            .body(())
            .unwrap()
    };
    limiter
        .run(async { response() }, HttpClassifier::new())
        .await
        .unwrap();
    let cut = limiter.limit();
    assert!(cut < 8);
    // The next call waits the 5 s out.
    let start = tokio::time::Instant::now();
    let ok = classify_fn(|(): &()| Outcome::Success);
    limiter.run(async {}, ok).await.unwrap();
    assert_eq!(
        start.elapsed(),
        Duration::from_secs(5),
        "admissions held for 5 s"
    );
}

#[tokio::test]
async fn a_panicking_call_releases_its_permit() {
    let limiter = Limiter::new(Fixed::new(1).unwrap());
    let task = tokio::spawn({
        let limiter = limiter.clone();
        async move {
            limiter
                .run(
                    async { panic!("the call failed hard") },
                    classify_fn(|(): &()| Outcome::Success),
                )
                .await
        }
    });
    assert!(task.await.unwrap_err().is_panic());
    let s = limiter.snapshot();
    assert_eq!((s.in_flight, s.admitted, s.cancelled), (0, 1, 1));
}

#[tokio::test(start_paused = true)]
async fn reports_come_every_period_until_the_task_is_aborted() {
    let limiter = Limiter::new(Fixed::new(3).unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let reporter = tokio::spawn(limiter.report_owned(Duration::from_millis(100), move |s| {
        log.lock().unwrap().push((s.limit, s.in_flight));
    }));
    tokio::time::sleep(Duration::from_millis(150)).await;
    let _held = limiter.try_acquire().unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    reporter.abort();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(*seen.lock().unwrap(), [(3, 0), (3, 0), (3, 1)]);
}

#[tokio::test(start_paused = true)]
async fn a_retry_after_seen_by_run_holds_admissions_until_it_has_passed() {
    let limiter = Limiter::new(Fixed::new(4).unwrap());
    let throttled =
        classify_fn(|(): &()| Verdict::from(Outcome::Overload).retry_after(Duration::from_secs(1)));
    limiter.run(async {}, throttled).await.unwrap();
    assert!(limiter.try_acquire().is_err(), "held: not admitted at once");
    assert_eq!(
        (limiter.snapshot().held, limiter.snapshot().at_limit),
        (1, 0)
    );
    let start = tokio::time::Instant::now();
    let permit = limiter.acquire().await.unwrap();
    assert_eq!(
        start.elapsed(),
        Duration::from_secs(1),
        "admitted when the hold ends"
    );
    permit.success();
    assert!(limiter.try_acquire().is_ok());
    assert_eq!(limiter.held_until(), None);
}

/// Priority without a second mechanism: batch work takes a permit of a batch limiter capped
/// below the shared one, then the shared one (`acquire_within`); interactive work takes the
/// shared one directly. However much batch work is queued, at most the batch cap of it sits in
/// the shared queue, so an interactive request waits for at most that many batch calls.
#[tokio::test(start_paused = true)]
async fn batch_work_capped_by_a_sub_limiter_leaves_room_for_interactive_work() {
    let shared = Limiter::new(Fixed::new(4).unwrap());
    let batch = Limiter::new(Fixed::new(2).unwrap());
    let call = Duration::from_millis(100);
    let mut batch_tasks = Vec::new();
    for _ in 0..50 {
        let (shared, batch) = (shared.clone(), batch.clone());
        batch_tasks.push(tokio::spawn(async move {
            let permit = batch.acquire_within(&shared).await.unwrap();
            tokio::time::sleep(call).await;
            permit.success();
        }));
    }
    tokio::time::sleep(Duration::from_millis(10)).await;
    assert_eq!(
        shared.in_flight(),
        2,
        "batch work holds at most its cap of the shared limit"
    );
    assert_eq!(
        batch.snapshot().queued,
        48,
        "the rest waits on the batch limiter, not the shared one"
    );

    // Interactive requests arrive while batch work is saturated: they run at once.
    let start = tokio::time::Instant::now();
    let a = shared.acquire().await.unwrap();
    let b = shared.acquire().await.unwrap();
    assert_eq!(
        start.elapsed(),
        Duration::ZERO,
        "two interactive calls admitted at once"
    );
    // A third waits for one batch call at most.
    let c = shared.acquire().await.unwrap();
    assert!(start.elapsed() <= call, "{:?}", start.elapsed());
    for p in [a, b, c] {
        p.success();
    }
    for t in batch_tasks {
        t.await.unwrap();
    }
    assert_eq!((shared.in_flight(), batch.in_flight()), (0, 0));
}

/// Calls leave at the quota's spacing even when requests queued together are admitted together:
/// the quota is taken after admission, so a stall cannot bunch them into a burst.
#[tokio::test(start_paused = true)]
async fn a_quota_spaces_calls_even_after_a_stall() {
    use limiter_core::Gcra;
    use limiter_tokio::Quota;
    let limiter = Limiter::new(Fixed::new(4).unwrap());
    let quota = Quota::new(Gcra::new(10, Duration::from_secs(1), 1).unwrap());
    let starts = Arc::new(Mutex::new(Vec::new()));
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let (limiter, quota, starts) = (limiter.clone(), quota.clone(), starts.clone());
            tokio::spawn(async move {
                let permit = limiter.acquire_with_quota(&quota).await.unwrap();
                starts.lock().unwrap().push(tokio::time::Instant::now());
                // The first four stall for a second: the others queue meanwhile.
                if i < 4 {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                permit.success();
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let mut starts = starts.lock().unwrap().clone();
    starts.sort();
    for pair in starts.windows(2) {
        assert!(
            pair[1] - pair[0] >= Duration::from_millis(100),
            "{:?}",
            pair[1] - pair[0]
        );
    }
}

/// Fair progress across tenants from the two-level acquisition: each tenant's own limit bounds
/// how many of its requests can wait in the shared queue, so a tenant with a deep backlog delays
/// another tenant's request by at most its own limit's worth of calls, not by its backlog.
#[tokio::test(start_paused = true)]
async fn a_large_tenant_cannot_starve_a_small_one() {
    let shared = Limiter::new(Fixed::new(2).unwrap());
    let (large, small) = (
        Limiter::new(Fixed::new(2).unwrap()),
        Limiter::new(Fixed::new(2).unwrap()),
    );
    let call = Duration::from_millis(100);
    let backlog: Vec<_> = (0..60)
        .map(|_| {
            let (shared, large) = (shared.clone(), large.clone());
            tokio::spawn(async move {
                let permit = large.acquire_within(&shared).await.unwrap();
                tokio::time::sleep(call).await;
                permit.success();
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(10)).await;
    assert_eq!(
        shared.snapshot().queued,
        0,
        "the large tenant's backlog waits on its own limiter"
    );
    let start = tokio::time::Instant::now();
    let permit = small.acquire_within(&shared).await.unwrap();
    assert!(
        start.elapsed() <= call,
        "waited {:?} behind a backlog of 58",
        start.elapsed()
    );
    permit.success();
    for t in backlog {
        t.await.unwrap();
    }
}

/// Huge delays are deadlines far away, never an overflow: a quota whose interval is
/// `Duration::MAX`, a reporter with a `Duration::MAX` period, a clock asked for `Instant::MAX`.
#[tokio::test(start_paused = true)]
async fn huge_durations_do_not_overflow() {
    use limiter_core::{Gcra, Instant};
    use limiter_tokio::{Quota, TokioClock};
    let clock = TokioClock::new();
    assert!(clock.to_tokio(Instant::MAX) > tokio::time::Instant::now());
    let quota = Quota::new(Gcra::new(1, Duration::MAX, 1).unwrap());
    assert!(quota.try_take().is_ok());
    let retry_at = quota.try_take().unwrap_err();
    assert!(retry_at > tokio::time::Instant::now() + Duration::from_secs(1_000_000));
    let limiter = Limiter::new(Fixed::new(1).unwrap());
    let reporter = tokio::spawn(limiter.report_owned(Duration::MAX, |_| {}));
    tokio::time::sleep(Duration::from_millis(5)).await;
    reporter.abort();
    // A hold as long as a duration can be holds, and ends nothing early.
    limiter.hold_admissions_for(Duration::MAX);
    assert!(limiter.try_acquire().is_err());
    assert_eq!(
        limiter
            .acquire_timeout(Duration::from_millis(5))
            .await
            .err(),
        Some(AcquireError::Timeout)
    );
}
