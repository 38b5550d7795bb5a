//! Model checking of the real gate under loom: every interleaving of a few threads, bounded by
//! `LOOM_MAX_PREEMPTIONS`. Run with
//!
//! ```text
//! RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom LOOM_MAX_PREEMPTIONS=2 \
//!     cargo nextest run --release -p limiter-core --features std -E 'binary(loom)'
//! ```
//!
//! A lost wakeup shows up as loom's deadlock error; a broken hard limit or a leaked permit as a
//! failed assertion. Each model names the invariant of `gate.rs` it checks.
#![cfg(loom)]

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll, Waker};

#[cfg(feature = "std")]
use limiter_core::HeapQueue;
use limiter_core::{Clock, Fixed, Gate, InlineQueue, Instant, LoomRawMutex, Permit, Queue};
use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use loom::thread;

/// Time stands still: these models are about interleavings, not latency.
struct Frozen;

impl Clock for Frozen {
    fn now(&self) -> Instant {
        Instant::ZERO
    }
}

/// The gate under test, with its queue inside it (the default) or on the heap.
type LoomGate<W = InlineQueue<4>> = Gate<LoomRawMutex, Fixed, Frozen, W>;

/// What a model's queue must be: either kind, built empty.
trait ModelQueue: Queue + Default + Send + Sync + 'static {}
impl<W: Queue + Default + Send + Sync + 'static> ModelQueue for W {}

fn gate(limit: u32) -> Arc<LoomGate> {
    gate_with(limit)
}

fn gate_with<W: ModelQueue>(limit: u32) -> Arc<LoomGate<W>> {
    Arc::new(Gate::new(Fixed::new(limit).unwrap(), Frozen))
}

/// Waits for admission, as an executor would: park until woken.
fn acquire<W: ModelQueue>(gate: &Arc<LoomGate<W>>) -> Permit<Arc<LoomGate<W>>> {
    loom::future::block_on(Gate::acquire_owned(Arc::clone(gate))).expect("queue has room")
}

/// Invariant 1: whatever the interleaving, no more than the limit are ever inside at once.
#[test]
fn hard_limit_holds() {
    loom::model(|| {
        let gate = gate(2);
        let inside = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..3)
            .map(|_| {
                let (gate, inside) = (Arc::clone(&gate), Arc::clone(&inside));
                thread::spawn(move || {
                    let permit = acquire(&gate);
                    let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                    assert!(now <= 2, "{now} inside a gate of limit 2");
                    inside.fetch_sub(1, Ordering::SeqCst);
                    permit.success();
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(gate.in_flight(), 0);
    });
}

/// Invariants 2 and 5: three tasks contend for one slot; every release wakes the next waiter,
/// so all of them finish (a lost wakeup is a deadlock).
#[test]
fn no_lost_wakeup() {
    no_lost_wakeup_with::<InlineQueue<4>>();
}

/// [`no_lost_wakeup`] with the queue on the heap.
#[cfg(feature = "std")]
#[test]
fn no_lost_wakeup_on_the_heap() {
    no_lost_wakeup_with::<HeapQueue>();
}

fn no_lost_wakeup_with<W: ModelQueue>() {
    loom::model(|| {
        let gate = gate_with::<W>(1);
        let others: Vec<_> = (0..2)
            .map(|_| {
                let gate = Arc::clone(&gate);
                thread::spawn(move || acquire(&gate).success())
            })
            .collect();
        acquire(&gate).success();
        for t in others {
            t.join().unwrap();
        }
        let s = gate.snapshot();
        assert_eq!((s.in_flight, s.admitted, s.queued), (0, 3, 0));
    });
}

/// Invariant 4: a waiter that was handed the slot and is then dropped before it runs passes the
/// slot on; the other waiter still finishes.
#[test]
fn cancel_after_wake_passes_the_turn_on() {
    cancel_after_wake_passes_the_turn_on_with::<InlineQueue<4>>();
}

/// [`cancel_after_wake_passes_the_turn_on`] with the queue on the heap.
#[cfg(feature = "std")]
#[test]
fn cancel_after_wake_passes_the_turn_on_on_the_heap() {
    cancel_after_wake_passes_the_turn_on_with::<HeapQueue>();
}

fn cancel_after_wake_passes_the_turn_on_with<W: ModelQueue>() {
    loom::model(|| {
        let gate = gate_with::<W>(1);
        let held = hold(&gate);
        let other = {
            let gate = Arc::clone(&gate);
            thread::spawn(move || acquire(&gate).success())
        };
        // Queue a waiter, then let the holder release while it waits.
        let mut waiting = Gate::acquire_owned(Arc::clone(&gate));
        let first = Pin::new(&mut waiting).poll(&mut Context::from_waker(Waker::noop()));
        drop(held);
        match first {
            // Admitted at once (the other thread had already finished): release it.
            Poll::Ready(permit) => drop(permit),
            // Possibly granted by the release above: dropping it must pass the turn on.
            Poll::Pending => drop(waiting),
        }
        other.join().unwrap();
        assert_eq!(gate.in_flight(), 0);
    });
}

/// Invariant 6: a permit dropped without an outcome (released without the lock, where the
/// words count in flight) while the first waiter queues. Either the drop comes first and the
/// waiter finds its room when it looks again after setting the bit that says someone waits,
/// or the drop sees the bit and grants it under the lock. Were the waiter to queue without
/// looking again, or the drop to ignore the bit, loom finds the interleaving where the waiter
/// waits forever (a deadlock).
#[test]
fn a_drop_without_outcome_racing_the_first_waiter_grants_it() {
    loom::model(|| {
        let gate = gate(1);
        let held = hold(&gate);
        let dropper = thread::spawn(move || drop(held));
        let permit = acquire(&gate);
        assert_eq!(gate.snapshot().queued, 0);
        permit.success();
        dropper.join().unwrap();
        let s = gate.snapshot();
        assert_eq!((s.in_flight, s.admitted, s.cancelled), (0, 2, 1));
    });
}

/// Invariants 1 and 6: a limit lowered under the lock binds every newcomer that comes after
/// it, including one admitted without the lock through the words; and an admission racing
/// the change is counted against one limit or the other, never above both. Were the new
/// limit left out of the words, the newcomer that saw the change done would get in above it.
#[test]
fn a_lowered_limit_binds_every_later_newcomer() {
    loom::model(|| {
        let gate = gate(3);
        let held = hold(&gate);
        let lowered = Arc::new(AtomicBool::new(false));
        let newcomer = {
            let (gate, lowered) = (Arc::clone(&gate), Arc::clone(&lowered));
            thread::spawn(move || {
                let after = lowered.load(Ordering::SeqCst);
                let permit = Gate::try_acquire_owned(gate).ok();
                assert!(
                    !(after && permit.is_some()),
                    "admitted above a limit lowered before it came"
                );
                permit.map(|permit| permit.admission().in_flight)
            })
        };
        gate.with_controller(|c| c.set_limit(1)).unwrap();
        lowered.store(true, Ordering::SeqCst);
        // Admitted against the old limit (3) or refused by the new one (1, held).
        assert!(matches!(newcomer.join().unwrap(), None | Some(2)));
        drop(held);
        assert_eq!(gate.in_flight(), 0);
    });
}

/// Invariants 1 and 6: a newcomer admitted without the lock races a waiter that queues, and a
/// release that makes room for one. Whoever gets the one place, nobody gets a second: every
/// admission, with or without the lock, is a compare-and-exchange from the count its room was
/// judged on. Were the lock's admission an increment that did not look again when the word
/// had moved, loom finds the interleaving where both get in.
#[test]
fn a_newcomer_without_the_lock_and_a_waiter_never_both_take_one_place() {
    loom::model(|| {
        let gate = gate(1);
        let held = hold(&gate);
        let inside = Arc::new(AtomicUsize::new(0));
        let enter = |permit: Permit<Arc<LoomGate>>, inside: &AtomicUsize| {
            let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
            assert!(now <= 1, "{now} inside a gate of limit 1");
            inside.fetch_sub(1, Ordering::SeqCst);
            permit.success();
        };
        let newcomer = {
            let (gate, inside) = (Arc::clone(&gate), Arc::clone(&inside));
            thread::spawn(move || {
                if let Ok(permit) = Gate::try_acquire_owned(gate) {
                    enter(permit, &inside);
                }
            })
        };
        let waiter = {
            let (gate, inside) = (Arc::clone(&gate), Arc::clone(&inside));
            thread::spawn(move || enter(acquire(&gate), &inside))
        };
        drop(held);
        newcomer.join().unwrap();
        waiter.join().unwrap();
        assert_eq!(gate.in_flight(), 0);
    });
}

/// Invariant 4's lock-free claim: a waiter that sees its grant through the horizon, without the
/// lock, reads the admission published with that grant (one in flight), never the word as it
/// was before (nothing in flight). Were the horizon published before what the grant was
/// admitted as, loom finds the interleaving where the claim reads the old word.
#[test]
fn a_claim_without_the_lock_reads_its_grants_admission() {
    loom::model(|| {
        let gate = gate(1);
        let held = hold(&gate);
        let waiter = {
            let gate = Arc::clone(&gate);
            thread::spawn(move || {
                let permit = acquire(&gate);
                assert_eq!(permit.admission().in_flight, 1, "admitted as of its grant");
                permit.success();
            })
        };
        held.success();
        waiter.join().unwrap();
        assert_eq!(gate.in_flight(), 0);
    });
}

/// Invariant 2 under a limit change: raising the limit from 1 to 2 while two tasks wait lets
/// exactly one of them in while the first permit is still held (the raise itself must wake it:
/// the holder waits for it before releasing); the other follows a release.
#[test]
fn raising_the_limit_admits_exactly_the_newly_admissible() {
    loom::model(|| {
        let gate = gate(1);
        let held = hold(&gate);
        let held_out = Arc::new(AtomicBool::new(true));
        let inside = Arc::new(AtomicUsize::new(0));
        let entered = Arc::new(AtomicUsize::new(0));
        let waiters: Vec<_> = (0..2)
            .map(|_| {
                let gate = Arc::clone(&gate);
                let (held_out, inside) = (Arc::clone(&held_out), Arc::clone(&inside));
                let entered = Arc::clone(&entered);
                thread::spawn(move || {
                    let permit = acquire(&gate);
                    let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                    if held_out.load(Ordering::SeqCst) {
                        assert_eq!(now, 1, "two waiters beside the held permit, limit 2");
                    }
                    entered.fetch_add(1, Ordering::SeqCst);
                    inside.fetch_sub(1, Ordering::SeqCst);
                    permit.success();
                })
            })
            .collect();
        gate.with_controller(|c| c.set_limit(2)).unwrap();
        // Spins forever (loom reports it) unless the raise admitted a waiter.
        wait_until(|| entered.load(Ordering::SeqCst) >= 1);
        held_out.store(false, Ordering::SeqCst);
        drop(held);
        for t in waiters {
            t.join().unwrap();
        }
        assert_eq!(gate.in_flight(), 0);
    });
}

/// Invariant 3 between wake batches (one waker per batch under loom): once two waiters are
/// queued, a newcomer's `try_acquire` may never take the capacity a raise made for them. If it
/// did, one waiter would wait forever while everyone else holds on: loom's deadlock.
#[test]
fn the_fast_path_never_overtakes_a_waiter() {
    the_fast_path_never_overtakes_a_waiter_with::<InlineQueue<4>>();
}

/// [`the_fast_path_never_overtakes_a_waiter`] with the queue on the heap.
#[cfg(feature = "std")]
#[test]
fn the_fast_path_never_overtakes_a_waiter_on_the_heap() {
    the_fast_path_never_overtakes_a_waiter_with::<HeapQueue>();
}

fn the_fast_path_never_overtakes_a_waiter_with<W: ModelQueue>() {
    loom::model(|| {
        let gate = gate_with::<W>(1);
        let held = hold(&gate);
        // Queue two waiters (the only slot is held), then let them wait on two threads.
        let queue = |gate: &Arc<LoomGate<W>>| {
            let mut acquire = Gate::acquire_owned(Arc::clone(gate));
            let first = Pin::new(&mut acquire).poll(&mut Context::from_waker(Waker::noop()));
            assert!(first.is_pending(), "the only slot is held");
            acquire
        };
        let (first, second) = (queue(&gate), queue(&gate));
        let second = thread::spawn(move || loom::future::block_on(second).expect("queued"));
        let newcomer = {
            let gate = Arc::clone(&gate);
            thread::spawn(move || Gate::try_acquire_owned(gate).ok())
        };
        gate.with_controller(|c| c.set_limit(3)).unwrap();
        // Every permit is kept until the end: only the raise may let both waiters in.
        let first = loom::future::block_on(first).expect("queued");
        let second = second.join().unwrap();
        let newcomer = newcomer.join().unwrap();
        assert!(
            newcomer.is_none(),
            "a newcomer got in while two waiters were queued"
        );
        drop((first, second, held));
        assert_eq!(gate.in_flight(), 0);
    });
}

/// Invariant 4 without waiting: `try_acquire` racing with record and release keeps the counters
/// consistent, and every permit is released exactly once.
#[test]
fn record_and_release_race_with_try_acquire() {
    loom::model(|| {
        let gate = gate(1);
        let admitted = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..2)
            .map(|i| {
                let (gate, admitted) = (Arc::clone(&gate), Arc::clone(&admitted));
                thread::spawn(move || {
                    for _ in 0..2 {
                        if let Ok(permit) = Gate::try_acquire_owned(Arc::clone(&gate)) {
                            admitted.fetch_add(1, Ordering::SeqCst);
                            if i == 0 {
                                permit.success();
                            } else {
                                drop(permit);
                            }
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let s = gate.snapshot();
        assert_eq!(s.in_flight, 0);
        assert_eq!(s.admitted as usize, admitted.load(Ordering::SeqCst));
        assert_eq!(s.admitted + s.at_limit, 4);
    });
}

/// Spins, yielding to loom's scheduler, until `done` holds.
fn wait_until(done: impl Fn() -> bool) {
    while !done() {
        thread::yield_now();
    }
}

/// Takes the gate's only free slot.
fn hold<W: ModelQueue>(gate: &Arc<LoomGate<W>>) -> Permit<Arc<LoomGate<W>>> {
    Gate::try_acquire_owned(Arc::clone(gate)).expect("the gate starts empty")
}

/// Scoped invariants 1 and 3: requests on two keys under one global ceiling, two of them on the
/// same congested key, all finish (a wait cycle would be loom's deadlock) and every gate is
/// empty afterwards.
#[test]
fn scoped_acquisitions_never_deadlock() {
    loom::model(|| {
        let (global, a, b) = (gate(1), gate(1), gate(1));
        let spawn_on = |key: &Arc<LoomGate>| {
            let (key, global) = (Arc::clone(key), Arc::clone(&global));
            thread::spawn(move || {
                loom::future::block_on(limiter_core::acquire_scoped(key, global))
                    .expect("queues have room")
                    .success();
            })
        };
        let others = [spawn_on(&a), spawn_on(&b)];
        loom::future::block_on(limiter_core::acquire_scoped(
            Arc::clone(&a),
            Arc::clone(&global),
        ))
        .expect("queues have room")
        .success();
        for t in others {
            t.join().unwrap();
        }
        for g in [&global, &a, &b] {
            let s = g.snapshot();
            assert_eq!((s.in_flight, s.queued), (0, 0));
        }
        assert_eq!(global.snapshot().admitted, 3);
    });
}

/// Scoped invariants 2 and 3: a request that holds its key permit and waits on the global gate
/// is cancelled; its key permit goes back, and a request for the same key, racing with the
/// release of the global permit, still gets through.
#[test]
fn a_cancelled_scoped_wait_releases_its_key_permit() {
    loom::model(|| {
        let (global, a) = (gate(1), gate(1));
        let held = hold(&global);
        let mut waiting = Box::pin(limiter_core::acquire_scoped(
            Arc::clone(&a),
            Arc::clone(&global),
        ));
        let first = waiting
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()));
        assert!(first.is_pending(), "the global slot is held");
        assert_eq!(
            a.in_flight(),
            1,
            "it holds its key permit while waiting on the global gate"
        );
        let other = {
            let (a, global) = (Arc::clone(&a), Arc::clone(&global));
            thread::spawn(move || {
                loom::future::block_on(limiter_core::acquire_scoped(a, global))
                    .expect("queues have room")
                    .success();
            })
        };
        drop(held);
        drop(waiting);
        other.join().unwrap();
        for g in [&global, &a] {
            let s = g.snapshot();
            assert_eq!((s.in_flight, s.queued), (0, 0));
        }
    });
}

/// Frozen time's timer: every deadline is now (the model below never waits).
impl limiter_core::Runtime for Frozen {
    type Sleep = core::future::Ready<()>;

    fn sleep_until(&self, _: Instant) -> Self::Sleep {
        core::future::ready(())
    }
}

/// The `Retry-After` admission hold (`Limiter::hold_admissions_for`, kept in the gate's state):
/// a newcomer that arrives after a hold was set is refused, whatever the interleaving, and one
/// admitted before it is released normally; the gate ends empty.
#[test]
fn a_hold_set_before_a_newcomer_refuses_it() {
    loom::model(|| {
        let limiter = Arc::new(limiter_core::Limiter::from_gate(gate(2)));
        let published = Arc::new(AtomicBool::new(false));
        let setter = {
            let (limiter, published) = (Arc::clone(&limiter), Arc::clone(&published));
            thread::spawn(move || {
                limiter.hold_admissions_for(core::time::Duration::from_secs(1));
                published.store(true, Ordering::SeqCst);
            })
        };
        let newcomer = {
            let (limiter, published) = (Arc::clone(&limiter), Arc::clone(&published));
            thread::spawn(move || {
                let after_hold = published.load(Ordering::SeqCst);
                let admitted = limiter.try_acquire_owned();
                assert!(
                    !(after_hold && admitted.is_ok()),
                    "admitted after a hold was set"
                );
                if let Ok(permit) = admitted {
                    permit.success();
                }
            })
        };
        setter.join().unwrap();
        newcomer.join().unwrap();
        assert!(limiter.try_acquire().is_err(), "the hold is in force");
        assert_eq!(limiter.in_flight(), 0);
    });
}

/// Time that moves only when a timer is waited on: a sleep jumps the clock to its deadline, as
/// if the timer had fired. Shared by the gate and the model's threads.
#[derive(Clone, Default)]
struct Jumping(Arc<loom::sync::atomic::AtomicU64>);

impl Clock for Jumping {
    fn now(&self) -> Instant {
        Instant::from_micros(self.0.load(Ordering::SeqCst))
    }
}

impl limiter_core::Runtime for Jumping {
    type Sleep = core::future::Ready<()>;

    fn sleep_until(&self, deadline: Instant) -> Self::Sleep {
        self.0.fetch_max(deadline.as_micros(), Ordering::SeqCst);
        core::future::ready(())
    }
}

/// The hold keeps queued waiters too: a waiter queued before a hold was set, and granted the
/// place released after it, gets its permit only once the hold's timer has fired, whatever the
/// interleaving; the gate ends empty.
#[test]
fn a_hold_keeps_a_queued_waiter_until_it_has_passed() {
    loom::model(|| {
        const HOLD: core::time::Duration = core::time::Duration::from_secs(1);
        let clock = Jumping::default();
        let gate: Gate<LoomRawMutex, Fixed, Jumping, InlineQueue<4>> =
            Gate::new(Fixed::new(1).unwrap(), clock.clone());
        let limiter = Arc::new(limiter_core::Limiter::from_gate(Arc::new(gate)));
        let answering = limiter.try_acquire_owned().expect("room for one");
        let waiter = {
            let (limiter, clock) = (Arc::clone(&limiter), clock.clone());
            thread::spawn(move || {
                let permit = loom::future::block_on(limiter.acquire_owned()).expect("room");
                assert!(
                    clock.now() >= Instant::ZERO.saturating_add(HOLD),
                    "a queued waiter got its permit at {:?}, during the hold",
                    permit.admission().at
                );
                permit.success();
            })
        };
        wait_until(|| limiter.snapshot().queued == 1);
        answering.hold_admissions_for(HOLD);
        answering.overload();
        waiter.join().unwrap();
        let s = limiter.snapshot();
        assert_eq!((s.in_flight, s.queued, s.admitted), (0, 0, 2));
    });
}
