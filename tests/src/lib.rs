//! The contract every adapter of `limiter-core` must keep, written once and run on each runtime.
//!
//! An adapter implements [`Adapter`] (how to build a limiter, take permits, spawn, sleep and time
//! out on its runtime) and calls [`contract_tests!`], which expands to one `#[test]` per clause:
//!
//! | clause | what it shows |
//! |---|---|
//! | [`fifo_admission`] | waiters are admitted in arrival order |
//! | [`hard_limit_under_1000_tasks`] | an instrumented upstream never sees more than the limit |
//! | [`cancellation_releases_everything`] | dropping waiting and admitted futures leaks nothing |
//! | [`timeouts_leave_the_queue`] | a timed-out wait gives up its place |
//! | [`panics_release_the_permit`] | a call that panics releases its permit |
//! | [`limit_changes_wake_the_right_number`] | a raise admits exactly the room it makes; a cut revokes nothing |
//! | [`no_lost_wakeup_soak`] | 100,000 acquisitions by 64 tasks all complete |
//! | [`scoped_admission_never_deadlocks`] | key-then-global acquisitions on shared keys all finish, under the ceiling |
//! | [`scoped_waits_hold_no_global_permit`] | a congested key holds no global capacity; cancelled scoped waits leak nothing |
//! | [`retry_after_holds_admissions`] | a `Retry-After` seen by `run` admits nobody before it has passed: `try_acquire` refuses, `acquire` waits, a shorter timeout expires |
//! | [`retry_after_holds_queued_waiters`] | a waiter queued before the hold, granted a place during it, gets its permit only once the hold has passed |
//!
//! Each clause builds its limiter with a fixed limit ([`Adapter::new`]) and checks the gate's
//! own counters ([`Snapshot`]) as well as what the tasks observed.

#![allow(clippy::missing_panics_doc)] // every clause panics when the contract is broken: that is its job

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use limiter_core::{GateRef, Permit, QueueFull, ScopedPermit, Snapshot};

/// A task that panicked, as its join handle reports it.
#[derive(Debug)]
pub struct Panicked;

/// What the contract needs from an adapter and its runtime.
pub trait Adapter: 'static {
    /// The adapter's limiter handle (cheap to clone, shared by tasks).
    type Limiter: Clone + Send + Sync + 'static;
    /// The handle its owned permits keep.
    type Handle: GateRef + Unpin + Send + 'static;

    /// A limiter with a fixed `limit` and room for at least 1,024 waiters.
    fn new(limit: u32) -> Self::Limiter;
    /// Sets the limit (through the controller), admitting whoever a raise makes room for.
    fn set_limit(limiter: &Self::Limiter, limit: u32);
    /// The gate's snapshot.
    fn snapshot(limiter: &Self::Limiter) -> Snapshot;
    /// A permit now, or `None` at the limit.
    fn try_acquire(limiter: &Self::Limiter) -> Option<Permit<Self::Handle>>;
    /// Waits for a permit.
    fn acquire(
        limiter: &Self::Limiter,
    ) -> impl Future<Output = Result<Permit<Self::Handle>, QueueFull>> + Send + 'static;
    /// Waits at most `timeout` for a permit with the adapter's own timeout API, and releases it
    /// at once as a success; `false` if the time ran out.
    fn acquire_timeout(
        limiter: &Self::Limiter,
        timeout: Duration,
    ) -> impl Future<Output = bool> + Send + 'static;
    /// Runs `call` under a permit with the adapter's `run`, classifying its output a success.
    fn run<F>(
        limiter: &Self::Limiter,
        call: F,
    ) -> impl Future<Output = Result<F::Output, QueueFull>> + Send + 'static
    where
        F: Future + Send + 'static,
        F::Output: Send;

    /// Runs a call with the adapter's `run`, whose classifier reads its output as an overload
    /// with a `Retry-After` of `delay` (a 429 with that header, say).
    fn run_retry_after(
        limiter: &Self::Limiter,
        delay: Duration,
    ) -> impl Future<Output = Result<(), QueueFull>> + Send + 'static;

    /// Waits for a permit of `key`, then of `global`, with the adapter's scoped acquisition.
    fn acquire_scoped(
        key: &Self::Limiter,
        global: &Self::Limiter,
    ) -> impl Future<Output = Result<ScopedPermit<Self::Handle, Self::Handle>, QueueFull>> + Send + 'static;

    /// Runs `future` to completion on a runtime with at least two worker threads.
    fn block_on<F: Future + Send + 'static>(future: F) -> F::Output
    where
        F::Output: Send;
    /// Spawns a task; the returned future resolves to its output, or to [`Panicked`].
    fn spawn<F>(future: F) -> impl Future<Output = Result<F::Output, Panicked>> + Send + 'static
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static;
    /// Sleeps on the runtime's timer.
    fn sleep(duration: Duration) -> impl Future<Output = ()> + Send + 'static;
    /// `future`'s output, or `None` if `duration` passes first (the future is then dropped).
    fn timeout<F>(duration: Duration, future: F) -> impl Future<Output = Option<F::Output>> + Send
    where
        F: Future + Send;
}

#[doc(hidden)]
pub use limiter_core as __core;

/// The limiter side of an [`Adapter`] impl, for a std adapter's `Limiter` type: the core's
/// `limiter_core::Limiter` over an `Arc` of the gate (tokio's and smol's). Expands to the
/// associated types and the limiter methods inside `impl Adapter for …`; the runtime methods
/// stay the adapter's own.
#[macro_export]
macro_rules! std_limiter_side {
    ($limiter:ty, $handle:ty) => {
        type Limiter = $limiter;
        type Handle = $handle;

        fn new(limit: u32) -> Self::Limiter {
            <$limiter>::new($crate::__core::Fixed::new(limit).unwrap())
        }

        fn set_limit(limiter: &Self::Limiter, limit: u32) {
            limiter.with_controller(|c| c.set_limit(limit)).unwrap();
        }

        fn snapshot(limiter: &Self::Limiter) -> $crate::__core::Snapshot {
            limiter.snapshot()
        }

        fn try_acquire(limiter: &Self::Limiter) -> Option<$crate::__core::Permit<Self::Handle>> {
            limiter.try_acquire_owned().ok()
        }

        fn acquire(
            limiter: &Self::Limiter,
        ) -> impl ::core::future::Future<
            Output = Result<$crate::__core::Permit<Self::Handle>, $crate::__core::QueueFull>,
        > + Send
        + 'static {
            limiter.acquire_owned()
        }

        fn acquire_timeout(
            limiter: &Self::Limiter,
            timeout: ::core::time::Duration,
        ) -> impl ::core::future::Future<Output = bool> + Send + 'static {
            let limiter = limiter.clone();
            async move {
                match limiter.acquire_timeout(timeout).await {
                    Ok(permit) => {
                        permit.success();
                        true
                    }
                    Err(_) => false,
                }
            }
        }

        fn run<F>(
            limiter: &Self::Limiter,
            call: F,
        ) -> impl ::core::future::Future<Output = Result<F::Output, $crate::__core::QueueFull>>
        + Send
        + 'static
        where
            F: ::core::future::Future + Send + 'static,
            F::Output: Send,
        {
            let limiter = limiter.clone();
            let success =
                $crate::__core::classify_fn(|_: &F::Output| $crate::__core::Outcome::Success);
            async move { limiter.run(call, success).await }
        }

        fn run_retry_after(
            limiter: &Self::Limiter,
            delay: ::core::time::Duration,
        ) -> impl ::core::future::Future<Output = Result<(), $crate::__core::QueueFull>>
        + Send
        + 'static {
            let limiter = limiter.clone();
            let throttled = $crate::__core::classify_fn(move |(): &()| {
                $crate::__core::Verdict::new($crate::__core::Outcome::Overload).retry_after(delay)
            });
            async move { limiter.run(async {}, throttled).await }
        }

        fn acquire_scoped(
            key: &Self::Limiter,
            global: &Self::Limiter,
        ) -> impl ::core::future::Future<
            Output = Result<
                $crate::__core::ScopedPermit<Self::Handle, Self::Handle>,
                $crate::__core::QueueFull,
            >,
        > + Send
        + 'static {
            key.acquire_within_owned(global)
        }
    };
}

/// Expands to one `#[test]` per clause of the contract, for `$adapter`.
#[macro_export]
macro_rules! contract_tests {
    ($adapter:ty) => {
        $crate::contract_tests!(@each $adapter;
            fifo_admission,
            hard_limit_under_1000_tasks,
            cancellation_releases_everything,
            timeouts_leave_the_queue,
            panics_release_the_permit,
            limit_changes_wake_the_right_number,
            no_lost_wakeup_soak,
            scoped_admission_never_deadlocks,
            scoped_waits_hold_no_global_permit,
            retry_after_holds_admissions,
            retry_after_holds_queued_waiters,
        );
    };
    (@each $adapter:ty; $($clause:ident,)*) => {
        $(
            #[test]
            fn $clause() {
                $crate::$clause::<$adapter>();
            }
        )*
    };
}

/// Waits (on the runtime's timer) until `done` holds, failing after ten seconds.
async fn eventually<A: Adapter>(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "never happened: {what}"
        );
        A::sleep(Duration::from_millis(1)).await;
    }
}

/// Checks that the limiter is back at rest: nothing in flight, nobody queued.
fn assert_at_rest<A: Adapter>(limiter: &A::Limiter) -> Snapshot {
    let s = A::snapshot(limiter);
    assert_eq!((s.in_flight, s.queued), (0, 0), "at rest: {s:?}");
    s
}

/// Waiters are admitted in the order they arrived.
pub fn fifo_admission<A: Adapter>() {
    A::block_on(async {
        const WAITERS: usize = 8;
        let limiter = A::new(1);
        let held = A::try_acquire(&limiter).expect("below the limit");
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        for i in 0..WAITERS {
            let (limiter2, order) = (limiter.clone(), order.clone());
            tasks.push(A::spawn(async move {
                let permit = A::acquire(&limiter2).await.expect("room in the queue");
                order.lock().unwrap().push(i);
                A::sleep(Duration::from_millis(1)).await;
                permit.success();
            }));
            // The next waiter arrives only once this one is queued.
            eventually::<A>("the waiter queued", || {
                A::snapshot(&limiter).queued as usize == i + 1
            })
            .await;
        }
        held.success();
        for task in tasks {
            task.await.expect("no waiter panics");
        }
        assert_eq!(*order.lock().unwrap(), (0..WAITERS).collect::<Vec<_>>());
        assert_at_rest::<A>(&limiter);
    });
}

/// 1,000 concurrent tasks call an upstream that records its peak in-flight: the peak is the
/// limit, never more.
pub fn hard_limit_under_1000_tasks<A: Adapter>() {
    A::block_on(async {
        const LIMIT: u32 = 16;
        let limiter = A::new(LIMIT);
        let in_flight = Arc::new(AtomicU32::new(0));
        let peak = Arc::new(AtomicU32::new(0));
        let tasks: Vec<_> = (0..1_000)
            .map(|_| {
                let (limiter, in_flight, peak) = (limiter.clone(), in_flight.clone(), peak.clone());
                A::spawn(async move {
                    let call = async move {
                        let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                        peak.fetch_max(now, Ordering::SeqCst);
                        A::sleep(Duration::from_millis(1)).await;
                        in_flight.fetch_sub(1, Ordering::SeqCst);
                    };
                    A::run(&limiter, call).await.expect("room in the queue");
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("no call panics");
        }
        assert_eq!(
            peak.load(Ordering::SeqCst),
            LIMIT,
            "the upstream's peak in-flight"
        );
        let s = assert_at_rest::<A>(&limiter);
        assert_eq!(s.admitted, 1_000);
    });
}

/// Waiting futures and admitted calls dropped by timeouts leave nothing behind: in-flight and
/// the queue return to zero and the whole limit can be taken again.
pub fn cancellation_releases_everything<A: Adapter>() {
    A::block_on(async {
        const LIMIT: u32 = 4;
        let limiter = A::new(LIMIT);
        let mut tasks = Vec::new();
        for i in 0..40u64 {
            let limiter = limiter.clone();
            tasks.push(A::spawn(async move {
                if i % 2 == 0 {
                    // Admitted (or waiting), then dropped mid-call.
                    let call = A::run(&limiter, A::sleep(Duration::from_secs(10)));
                    A::timeout(Duration::from_millis(5 + i % 7), call)
                        .await
                        .is_none()
                } else {
                    // Waiting, dropped before or just after it was granted.
                    let wait = A::acquire(&limiter);
                    match A::timeout(Duration::from_millis(1 + i % 5), wait).await {
                        Some(permit) => {
                            drop(permit.expect("room in the queue"));
                            false
                        }
                        None => true,
                    }
                }
            }));
        }
        let mut cancelled = 0;
        for task in tasks {
            cancelled += usize::from(task.await.expect("no task panics"));
        }
        assert!(
            cancelled >= 20,
            "the long calls were all cancelled ({cancelled})"
        );
        let s = assert_at_rest::<A>(&limiter);
        assert_eq!(
            s.admitted, s.cancelled,
            "every admission was cancelled: {s:?}"
        );
        let all: Vec<_> = (0..LIMIT)
            .filter_map(|_| A::try_acquire(&limiter))
            .collect();
        assert_eq!(all.len(), LIMIT as usize, "the whole limit is free again");
        assert!(A::try_acquire(&limiter).is_none());
    });
}

/// A wait that times out returns no permit, after the timeout, and leaves the queue.
pub fn timeouts_leave_the_queue<A: Adapter>() {
    A::block_on(async {
        let limiter = A::new(1);
        let held = A::try_acquire(&limiter).expect("below the limit");
        let start = Instant::now();
        assert!(!A::acquire_timeout(&limiter, Duration::from_millis(30)).await);
        assert!(
            start.elapsed() >= Duration::from_millis(30),
            "{:?}",
            start.elapsed()
        );
        assert_eq!(A::snapshot(&limiter).queued, 0);
        drop(held);
        assert!(A::acquire_timeout(&limiter, Duration::from_millis(30)).await);
        let s = assert_at_rest::<A>(&limiter);
        assert_eq!(
            (s.admitted, s.cancelled),
            (2, 1),
            "only the held permit, dropped, was cancelled"
        );
    });
}

/// A call that panics inside `run` releases its permit (as cancelled), and the next call runs.
pub fn panics_release_the_permit<A: Adapter>() {
    A::block_on(async {
        let limiter = A::new(1);
        let limiter2 = limiter.clone();
        let task = A::spawn(async move {
            A::run(&limiter2, async {
                panic!("the guarded call panics");
            })
            .await
        });
        assert!(task.await.is_err(), "the task reports its panic");
        let s = assert_at_rest::<A>(&limiter);
        assert_eq!((s.admitted, s.cancelled), (1, 1));
        assert_eq!(A::run(&limiter, async { 7 }).await, Ok(7));
    });
}

/// Raising the limit admits exactly as many waiters as it makes room for; lowering it revokes
/// nobody, and admits nobody until in-flight is below the new limit.
pub fn limit_changes_wake_the_right_number<A: Adapter>() {
    A::block_on(async {
        const WAITERS: usize = 6;
        let limiter = A::new(1);
        let held = A::try_acquire(&limiter).expect("below the limit");
        let admitted = Arc::new(AtomicUsize::new(0));
        let release = Arc::new(AtomicBool::new(false));
        let tasks: Vec<_> = (0..WAITERS)
            .map(|_| {
                let (limiter, admitted, release) =
                    (limiter.clone(), admitted.clone(), release.clone());
                A::spawn(async move {
                    let permit = A::acquire(&limiter).await.expect("room in the queue");
                    admitted.fetch_add(1, Ordering::SeqCst);
                    while !release.load(Ordering::SeqCst) {
                        A::sleep(Duration::from_millis(1)).await;
                    }
                    permit.success();
                })
            })
            .collect();
        eventually::<A>("all queued", || {
            A::snapshot(&limiter).queued as usize == WAITERS
        })
        .await;

        A::set_limit(&limiter, 4);
        eventually::<A>("three admitted", || admitted.load(Ordering::SeqCst) == 3).await;
        A::sleep(Duration::from_millis(20)).await;
        assert_eq!(
            admitted.load(Ordering::SeqCst),
            3,
            "exactly the room the raise made"
        );
        let s = A::snapshot(&limiter);
        assert_eq!((s.in_flight, s.queued), (4, 3));

        A::set_limit(&limiter, 2);
        drop(held);
        A::sleep(Duration::from_millis(20)).await;
        let s = A::snapshot(&limiter);
        assert_eq!(
            (s.in_flight, s.queued),
            (3, 3),
            "a cut revokes nobody and admits nobody"
        );
        assert_eq!(admitted.load(Ordering::SeqCst), 3);

        release.store(true, Ordering::SeqCst);
        for task in tasks {
            task.await.expect("no waiter panics");
        }
        assert_eq!(admitted.load(Ordering::SeqCst), WAITERS);
        assert_at_rest::<A>(&limiter);
    });
}

/// 64 tasks take 100,000 permits of a limit of 8 on a multi-threaded runtime, yielding while
/// they hold them: a lost wakeup would strand a waiter and the soak would not finish.
pub fn no_lost_wakeup_soak<A: Adapter>() {
    A::block_on(async {
        const TASKS: usize = 64;
        const ACQUISITIONS: usize = 100_000;
        let limiter = A::new(8);
        let tasks: Vec<_> = (0..TASKS)
            .map(|t| {
                let limiter = limiter.clone();
                let share = ACQUISITIONS / TASKS + usize::from(t < ACQUISITIONS % TASKS);
                A::spawn(async move {
                    for i in 0..share {
                        let permit = A::acquire(&limiter).await.expect("room in the queue");
                        if i % 4 == 0 {
                            A::sleep(Duration::ZERO).await;
                        }
                        permit.success();
                    }
                })
            })
            .collect();
        let all = async {
            for task in tasks {
                task.await.expect("no task panics");
            }
        };
        let finished = A::timeout(Duration::from_secs(120), all).await;
        assert!(
            finished.is_some(),
            "the soak stalled: {:?}",
            A::snapshot(&limiter)
        );
        let s = assert_at_rest::<A>(&limiter);
        assert_eq!(s.admitted, ACQUISITIONS as u64);
    });
}

/// 300 requests over three keys (limit 2 each) under a global ceiling of 4, holding their permits
/// across a sleep: all finish (a wait cycle would stall them), and the ceiling holds.
pub fn scoped_admission_never_deadlocks<A: Adapter>() {
    A::block_on(async {
        let global = A::new(4);
        let keys: Vec<_> = (0..3).map(|_| A::new(2)).collect();
        let inside = Arc::new(AtomicU32::new(0));
        let peak = Arc::new(AtomicU32::new(0));
        let tasks: Vec<_> = (0..300)
            .map(|i| {
                let (key, global) = (keys[i % 3].clone(), global.clone());
                let (inside, peak) = (inside.clone(), peak.clone());
                A::spawn(async move {
                    let permit = A::acquire_scoped(&key, &global).await.expect("room");
                    let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(now, Ordering::SeqCst);
                    A::sleep(Duration::from_millis(1)).await;
                    inside.fetch_sub(1, Ordering::SeqCst);
                    permit.success();
                })
            })
            .collect();
        let all = async {
            for task in tasks {
                task.await.expect("no task panics");
            }
        };
        assert!(
            A::timeout(Duration::from_secs(60), all).await.is_some(),
            "scoped acquisitions stalled"
        );
        assert!(
            peak.load(Ordering::SeqCst) <= 4,
            "the global ceiling of 4 was passed"
        );
        let s = assert_at_rest::<A>(&global);
        assert_eq!((s.admitted, s.cancelled), (300, 0));
        for key in &keys {
            let s = assert_at_rest::<A>(key);
            assert_eq!(s.admitted, 100);
        }
    });
}

/// While key A is congested, its waiters hold no global permit: key B's requests get the global
/// capacity. Then every scoped wait is cancelled by a timeout, and nothing leaks.
pub fn scoped_waits_hold_no_global_permit<A: Adapter>() {
    A::block_on(async {
        let global = A::new(2);
        let (a, b) = (A::new(1), A::new(2));
        let held = A::acquire_scoped(&a, &global).await.expect("room");
        let waiters: Vec<_> = (0..10)
            .map(|_| {
                let (a, global) = (a.clone(), global.clone());
                A::spawn(async move {
                    let wait = A::acquire_scoped(&a, &global);
                    A::timeout(Duration::from_millis(50), wait).await.is_none()
                })
            })
            .collect();
        eventually::<A>("ten waiters on key A", || A::snapshot(&a).queued == 10).await;
        assert_eq!(
            A::snapshot(&global).in_flight,
            1,
            "only the holder holds a global permit"
        );
        let on_b = A::acquire_scoped(&b, &global)
            .await
            .expect("global capacity is free");
        for waiter in waiters {
            assert!(
                waiter.await.expect("no panic"),
                "key A stayed congested: every wait timed out"
            );
        }
        on_b.success();
        held.success();
        for limiter in [&global, &a, &b] {
            assert_at_rest::<A>(limiter);
        }
        let s = A::snapshot(&a);
        assert_eq!(
            (s.admitted, s.cancelled),
            (1, 0),
            "no waiter on A was ever admitted"
        );
    });
}

/// The workspace README's examples (the core's and the tokio adapter's), compiled and run as
/// doctests here: the README is outside every published crate's package.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct WorkspaceReadme;

/// A `Retry-After` that `run` reads from a call's answer holds admissions until it has passed,
/// on every adapter: the next `try_acquire` is refused, a wait shorter than the hold expires,
/// and `acquire` is admitted once the hold is over, not before.
pub fn retry_after_holds_admissions<A: Adapter>() {
    const HOLD: Duration = Duration::from_millis(300);
    // Timers may fire a little early on some runtimes' clocks; never by this much.
    const SLACK: Duration = Duration::from_millis(20);
    A::block_on(async {
        let limiter = A::new(4);
        A::run_retry_after(&limiter, HOLD).await.unwrap();
        let held_from = Instant::now();
        assert!(
            A::try_acquire(&limiter).is_none(),
            "admitted at once through a Retry-After"
        );
        assert!(
            !A::acquire_timeout(&limiter, Duration::from_millis(100)).await,
            "a 100 ms wait admitted inside a 300 ms hold"
        );
        let permit = A::acquire(&limiter).await.unwrap();
        let waited = held_from.elapsed();
        assert!(
            waited + SLACK >= HOLD,
            "admitted {waited:?} into a {HOLD:?} hold"
        );
        drop(permit);
        let again = A::try_acquire(&limiter).expect("the hold is over");
        drop(again);
        let s = A::snapshot(&limiter);
        assert_eq!((s.in_flight, s.queued), (0, 0));
        assert_eq!(s.admitted, 3, "the call, the waiter, and the last try");
        let refusals = (s.held, s.timed_out, s.at_limit, s.queue_full);
        assert_eq!(refusals, (1, 1, 0, 0), "one try held, one wait timed out");
    });
}

/// A waiter already queued when a hold is set is not let through by it: the place released
/// during the hold is reserved for it (in flight), and its permit comes out once the hold has
/// passed, not before.
pub fn retry_after_holds_queued_waiters<A: Adapter>() {
    const HOLD: Duration = Duration::from_millis(300);
    // Timers may fire a little early on some runtimes' clocks; never by this much.
    const SLACK: Duration = Duration::from_millis(20);
    A::block_on(async {
        let limiter = A::new(1);
        let answering = A::try_acquire(&limiter).expect("room for one");
        let queued = A::spawn({
            let limiter = limiter.clone();
            async move {
                let permit = A::acquire(&limiter).await.unwrap();
                let admitted = Instant::now();
                permit.success();
                admitted
            }
        });
        eventually::<A>("the waiter queued", || A::snapshot(&limiter).queued == 1).await;
        // The call in flight answers "429, retry after 300 ms" and releases its place.
        answering.hold_admissions_for(HOLD);
        let held_from = Instant::now();
        answering.overload();
        A::sleep(HOLD / 2).await;
        let s = A::snapshot(&limiter);
        assert_eq!(
            s.in_flight, 1,
            "the released place is reserved for the waiter during the hold"
        );
        assert!(
            A::try_acquire(&limiter).is_none(),
            "a newcomer admitted during the hold"
        );
        let admitted = queued.await.expect("the waiter");
        let waited = admitted.duration_since(held_from);
        assert!(
            waited + SLACK >= HOLD,
            "a queued waiter let through {waited:?} into a {HOLD:?} hold"
        );
        let s = A::snapshot(&limiter);
        assert_eq!((s.in_flight, s.queued, s.admitted), (0, 0, 2));
    });
}
