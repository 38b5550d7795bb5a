//! The embassy adapter on the host: embassy-time's std driver, futures' executor.

use embassy_time::{Duration, Instant, Timer};
use futures::executor::block_on;
use limiter_core::{
    AimdConfig, AimdFixedCompact, Fixed, HttpClassifier, Outcome, Verdict, classify_fn,
};
use limiter_embassy::{AcquireError, Limiter};

fn leak<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

#[test]
fn a_timed_out_wait_leaves_the_queue_and_frees_nothing_it_did_not_hold() {
    block_on(async {
        let limiter: &Limiter<Fixed> = leak(limiter_embassy::new(Fixed::new(1).unwrap()));
        let held = limiter.try_acquire().unwrap();
        let start = Instant::now();
        let waited = limiter
            .acquire_timeout(core::time::Duration::from_millis(20))
            .await;
        assert_eq!(waited.err(), Some(AcquireError::Timeout));
        assert!(start.elapsed() >= Duration::from_millis(20));
        let s = limiter.snapshot();
        assert_eq!((s.in_flight, s.queued), (1, 0));
        drop(held);
        let permit = limiter
            .acquire_timeout(core::time::Duration::from_millis(20))
            .await
            .unwrap();
        permit.success();
        assert_eq!(limiter.in_flight(), 0);
    });
}

#[test]
fn a_timeout_too_long_for_the_clock_is_no_deadline() {
    block_on(async {
        let limiter: &Limiter<Fixed> = leak(limiter_embassy::new(Fixed::new(1).unwrap()));
        Timer::after(Duration::from_millis(1)).await; // now is past zero: now + MAX overflows
        let permit = limiter
            .acquire_timeout(core::time::Duration::MAX)
            .await
            .unwrap();
        permit.success();
        assert_eq!(limiter.in_flight(), 0);
    });
}

#[test]
fn a_cancelled_run_releases_its_permit() {
    block_on(async {
        let limiter: &Limiter<Fixed> = leak(limiter_embassy::new(Fixed::new(2).unwrap()));
        let long = limiter.run(
            Timer::after(Duration::from_secs(10)),
            classify_fn(|(): &()| Outcome::Success),
        );
        let cut_short = embassy_time::with_timeout(Duration::from_millis(5), long).await;
        assert!(cut_short.is_err());
        let s = limiter.snapshot();
        assert_eq!((s.in_flight, s.admitted, s.cancelled), (0, 1, 1));
    });
}

#[test]
fn retry_after_holds_admissions_back_until_it_has_passed() {
    block_on(async {
        let config = AimdConfig::default().initial(4);
        let limiter: &Limiter = leak(limiter_embassy::new(AimdFixedCompact::new(config).unwrap()));
        let throttled = classify_fn(|(): &()| {
            Verdict::from(Outcome::Overload).retry_after(core::time::Duration::from_millis(30))
        });
        limiter.run(async {}, throttled).await.unwrap();
        assert!(limiter.limit() < 4, "a 429 cuts");
        assert!(
            limiter.try_acquire().is_err(),
            "no admission inside the Retry-After"
        );
        let start = Instant::now();
        limiter.acquire().await.unwrap().success();
        assert!(
            start.elapsed() >= Duration::from_millis(25),
            "{:?}",
            start.elapsed()
        );
        assert!(limiter.try_acquire().is_ok());
    });
}

#[test]
fn client_errors_leave_the_limit_alone_and_overload_cuts() {
    block_on(async {
        let limiter: &Limiter = leak(limiter_embassy::new(
            AimdFixedCompact::new(AimdConfig::default().initial(6)).unwrap(),
        ));
        for _ in 0..10 {
            limiter
                .run(async { 404u16 }, HttpClassifier::new())
                .await
                .unwrap();
        }
        assert_eq!(limiter.limit(), 6);
        limiter
            .run(async { 503u16 }, HttpClassifier::new())
            .await
            .unwrap();
        assert_eq!(limiter.limit(), 4, "6 x 0.8 = 4.8");
        assert_eq!(limiter.snapshot().decreases, 1);
    });
}

#[test]
fn bounds() {
    fn sync<T: Sync>() {}
    // A limiter behind a critical-section mutex can be shared by tasks and interrupts.
    sync::<Limiter>();
    sync::<Limiter<Fixed, embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex, 4>>();
}

#[test]
fn a_quota_spaces_admissions_at_its_rate() {
    block_on(async {
        static QUOTA: limiter_embassy::Quota = limiter_embassy::Quota::new(
            match limiter_core::Gcra::new(100, core::time::Duration::from_secs(1), 1) {
                Ok(gcra) => gcra,
                Err(_) => panic!("a valid quota"),
            },
        );
        let limiter: &Limiter<Fixed> = leak(limiter_embassy::new(Fixed::new(8).unwrap()));
        let start = Instant::now();
        for _ in 0..4 {
            limiter.acquire_with_quota(&QUOTA).await.unwrap().success();
        }
        assert!(
            start.elapsed() >= Duration::from_millis(30),
            "{:?}",
            start.elapsed()
        );
        assert!(QUOTA.try_take().is_err(), "the next call is not due yet");
    });
}
