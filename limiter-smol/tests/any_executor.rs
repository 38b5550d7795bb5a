//! The adapter under executors that know nothing about it: `futures::executor` and a plain
//! `block_on`. Timers come from `async-io`, which drives itself.

use std::time::{Duration, Instant};

use limiter_core::{AimdConfig, ErrorsAreOverload, Fixed, HttpClassifier, Outcome, classify_fn};
use limiter_smol::{AcquireError, Limiter};

#[test]
fn futures_executor_block_on_waits_times_out_and_runs() {
    futures::executor::block_on(async {
        let limiter = Limiter::new(Fixed::new(1).unwrap());
        let held = limiter.try_acquire().unwrap();
        let start = Instant::now();
        let waited = limiter.acquire_timeout(Duration::from_millis(20)).await;
        assert_eq!(waited.err(), Some(AcquireError::Timeout));
        assert!(start.elapsed() >= Duration::from_millis(20));
        assert_eq!(limiter.snapshot().queued, 0);
        drop(held);
        let out = limiter
            .run(async { 3 }, classify_fn(|_: &i32| Outcome::Success))
            .await;
        assert_eq!(out, Ok(3));
        assert_eq!(limiter.in_flight(), 0);
    });
}

#[test]
fn a_local_pool_wakes_a_waiter_when_a_permit_is_released() {
    use futures::task::LocalSpawnExt;
    let mut pool = futures::executor::LocalPool::new();
    let limiter = Limiter::new(Fixed::new(1).unwrap());
    let held = limiter.try_acquire_owned().unwrap();
    let waiter = {
        let limiter = limiter.clone();
        pool.spawner()
            .spawn_local_with_handle(async move {
                limiter.acquire().await.unwrap().success();
            })
            .unwrap()
    };
    pool.run_until_stalled();
    assert_eq!(limiter.snapshot().queued, 1);
    drop(held);
    pool.run_until(waiter);
    assert_eq!(limiter.snapshot().admitted, 2);
}

#[test]
fn latency_is_measured_on_the_std_clock_and_overload_cuts() {
    futures_lite::future::block_on(async {
        let limiter = Limiter::aimd(AimdConfig::default().initial(8)).unwrap();
        let slow = async {
            async_io::Timer::after(Duration::from_millis(3)).await;
            Err::<(), ()>(())
        };
        limiter
            .run(slow, ErrorsAreOverload)
            .await
            .unwrap()
            .unwrap_err();
        assert!(limiter.limit() < 8);
        limiter
            .run(async { 404u16 }, HttpClassifier::new())
            .await
            .unwrap();
        assert_eq!(
            limiter.snapshot().decreases,
            1,
            "a client error changes nothing"
        );
    });
}
