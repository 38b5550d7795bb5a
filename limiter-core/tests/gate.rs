//! The gate's contract, driven by hand-polled futures on one thread: FIFO admission, a bounded
//! queue, exact wakeups, cancellation that passes the turn on, release on every path, the hard
//! limit, and latency measured from admission.

#![allow(clippy::many_single_char_names)]

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll, Waker};
use core::time::Duration;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Wake;

use limiter_core::InlineQueue;
use limiter_core::{
    Acquire, AimdConfig, AimdF32, AtLimit, Change, Controller, ControllerStats, Epoch, Fixed, Gate,
    HttpClassifier, Instant, ManualClock, NoopRawMutex, Outcome, Permit, QueueFull, Sample,
};

/// A waker that counts how often it was woken.
#[derive(Default)]
struct CountingWaker(AtomicUsize);

impl Wake for CountingWaker {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

struct Task<'g, G: limiter_core::GateRef + Unpin> {
    future: Acquire<G>,
    wakes: Arc<CountingWaker>,
    _gate: core::marker::PhantomData<&'g ()>,
}

impl<G: limiter_core::GateRef + Unpin> Task<'_, G> {
    fn new(future: Acquire<G>) -> Self {
        Task {
            future,
            wakes: Arc::default(),
            _gate: core::marker::PhantomData,
        }
    }

    fn poll(&mut self) -> Poll<Result<Permit<G>, QueueFull>> {
        let waker = Waker::from(self.wakes.clone());
        Pin::new(&mut self.future).poll(&mut Context::from_waker(&waker))
    }

    fn woken(&self) -> usize {
        self.wakes.0.load(Ordering::SeqCst)
    }
}

type FixedGate<'c, const Q: usize> = Gate<NoopRawMutex, Fixed, &'c ManualClock, InlineQueue<Q>>;

fn fixed_gate<const Q: usize>(clock: &ManualClock, limit: u32) -> FixedGate<'_, Q> {
    Gate::new(Fixed::new(limit).unwrap(), clock)
}

fn ready<G: limiter_core::GateRef + Unpin>(task: &mut Task<'_, G>) -> Permit<G> {
    match task.poll() {
        Poll::Ready(Ok(permit)) => permit,
        Poll::Ready(Err(e)) => panic!("rejected: {e}"),
        Poll::Pending => panic!("still pending"),
    }
}

#[test]
fn waiters_are_admitted_in_fifo_order() {
    let clock = ManualClock::new();
    let gate = fixed_gate::<8>(&clock, 1);
    let held = gate.try_acquire().unwrap();
    let mut tasks: Vec<_> = (0..4).map(|_| Task::new(gate.acquire())).collect();
    for t in &mut tasks {
        assert!(t.poll().is_pending());
    }
    let mut order = Vec::new();
    let mut current = held;
    for _ in 0..4 {
        current.success();
        // Exactly one waiter is woken: the oldest one still waiting.
        let woken: Vec<usize> = (0..4).filter(|&i| tasks[i].woken() == 1).collect();
        let next = *woken.iter().find(|i| !order.contains(*i)).unwrap();
        assert_eq!(woken.len(), order.len() + 1, "woken {woken:?}");
        order.push(next);
        // The others are still pending, even if polled.
        for (i, t) in tasks.iter_mut().enumerate() {
            if !order.contains(&i) {
                assert!(t.poll().is_pending());
            }
        }
        current = ready(&mut tasks[next]);
    }
    drop(current);
    assert_eq!(order, [0, 1, 2, 3]);
    assert_eq!(gate.in_flight(), 0);
}

#[test]
fn a_spent_future_stays_pending_and_changes_nothing() {
    let clock = ManualClock::new();
    let gate = fixed_gate::<2>(&clock, 2);
    let mut admitted = Task::new(gate.acquire());
    let permit = ready(&mut admitted);
    let mut refused = Task::new(gate.acquire());
    let _second = gate.try_acquire().unwrap();
    let mut third = Task::new(gate.acquire());
    assert!(third.poll().is_pending());
    let mut fourth = Task::new(gate.acquire());
    assert!(fourth.poll().is_pending());
    assert!(matches!(refused.poll(), Poll::Ready(Err(QueueFull))));
    // Polled again, neither the admitted nor the refused future admits, queues or counts.
    let before = gate.snapshot();
    assert!(admitted.poll().is_pending());
    assert!(refused.poll().is_pending());
    let after = gate.snapshot();
    assert_eq!(
        (after.in_flight, after.queued, after.queue_full),
        (before.in_flight, before.queued, before.queue_full)
    );
    drop(permit);
    assert_eq!(third.woken(), 1);
    assert_eq!((admitted.woken(), refused.woken()), (0, 0));
}

#[test]
fn a_full_queue_is_an_explicit_error() {
    let clock = ManualClock::new();
    let gate = fixed_gate::<2>(&clock, 1);
    let _held = gate.try_acquire().unwrap();
    let mut a = Task::new(gate.acquire());
    let mut b = Task::new(gate.acquire());
    let mut c = Task::new(gate.acquire());
    assert!(a.poll().is_pending());
    assert!(b.poll().is_pending());
    assert!(matches!(c.poll(), Poll::Ready(Err(QueueFull))));
    let s = gate.snapshot();
    assert_eq!((s.queued, s.queue_full), (2, 1));
    // A place freed by a cancelled waiter can be taken again.
    drop(a);
    let mut d = Task::new(gate.acquire());
    assert!(d.poll().is_pending());
    assert_eq!(gate.snapshot().queued, 2);
}

#[test]
fn try_acquire_sheds_at_the_limit_and_never_barges() {
    let clock = ManualClock::new();
    let gate = fixed_gate::<4>(&clock, 1);
    let held = gate.try_acquire().unwrap();
    assert_eq!(gate.try_acquire().unwrap_err(), AtLimit);
    let mut waiter = Task::new(gate.acquire());
    assert!(waiter.poll().is_pending());
    held.success();
    // Capacity went straight to the waiter; a newcomer cannot take it.
    assert_eq!(gate.try_acquire().unwrap_err(), AtLimit);
    let mut newcomer = Task::new(gate.acquire());
    assert!(newcomer.poll().is_pending());
    let permit = ready(&mut waiter);
    assert_eq!(gate.snapshot().at_limit, 2);
    drop(permit);
    assert!(ready(&mut newcomer).admission().in_flight == 1);
}

#[test]
fn raising_the_limit_wakes_exactly_the_newly_admissible_waiters() {
    let clock = ManualClock::new();
    let gate = fixed_gate::<16>(&clock, 1);
    let _held = gate.try_acquire().unwrap();
    let mut tasks: Vec<_> = (0..12).map(|_| Task::new(gate.acquire())).collect();
    for t in &mut tasks {
        assert!(t.poll().is_pending());
    }
    // More than one wake batch (8) becomes admissible at once.
    gate.with_controller(|c| c.set_limit(11)).unwrap();
    let woken: Vec<usize> = tasks.iter().map(Task::woken).collect();
    assert_eq!(woken, [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0]);
    assert_eq!(gate.in_flight(), 11);
    let permits: Vec<_> = tasks[..10].iter_mut().map(ready).collect();
    assert!(tasks[10].poll().is_pending());
    assert!(tasks[11].poll().is_pending());
    assert_eq!(gate.snapshot().queued, 2);
    drop(permits);
    assert_eq!(tasks[10].woken() + tasks[11].woken(), 2);
}

#[test]
fn a_waiter_cancelled_after_being_woken_passes_its_turn_on() {
    let clock = ManualClock::new();
    let gate = fixed_gate::<4>(&clock, 1);
    let held = gate.try_acquire().unwrap();
    let mut a = Task::new(gate.acquire());
    let mut b = Task::new(gate.acquire());
    assert!(a.poll().is_pending());
    assert!(b.poll().is_pending());
    held.success();
    assert_eq!((a.woken(), b.woken()), (1, 0));
    drop(a); // woken, never polled again
    assert_eq!(b.woken(), 1);
    let permit = ready(&mut b);
    assert_eq!(gate.in_flight(), 1);
    assert_eq!(gate.snapshot().cancelled, 1);
    drop(permit);
    assert_eq!(gate.in_flight(), 0);
}

#[test]
fn a_waiter_cancelled_before_its_turn_just_leaves() {
    let clock = ManualClock::new();
    let gate = fixed_gate::<4>(&clock, 1);
    let held = gate.try_acquire().unwrap();
    let mut a = Task::new(gate.acquire());
    let mut b = Task::new(gate.acquire());
    assert!(a.poll().is_pending());
    assert!(b.poll().is_pending());
    drop(a);
    held.success();
    assert_eq!(b.woken(), 1);
    drop(ready(&mut b));
    assert_eq!(gate.in_flight(), 0);
    assert_eq!(gate.snapshot().queued, 0);
}

#[test]
fn lowering_the_limit_revokes_nothing_and_admits_nobody_until_below_it() {
    let clock = ManualClock::new();
    let gate = fixed_gate::<4>(&clock, 4);
    let mut held: Vec<_> = (0..4).map(|_| gate.try_acquire().unwrap()).collect();
    gate.with_controller(|c| c.set_limit(2)).unwrap();
    assert_eq!(gate.in_flight(), 4);
    let mut waiter = Task::new(gate.acquire());
    assert!(waiter.poll().is_pending());
    held.pop().unwrap().success();
    held.pop().unwrap().success();
    assert_eq!(waiter.woken(), 0, "in flight 2 is not below the limit 2");
    held.pop().unwrap().success();
    assert_eq!(waiter.woken(), 1);
    let _p = ready(&mut waiter);
    assert_eq!(gate.in_flight(), 2);
}

#[test]
fn permits_are_released_on_every_path() {
    let clock = ManualClock::new();
    let gate = fixed_gate::<4>(&clock, 2);
    gate.try_acquire().unwrap().success();
    gate.try_acquire().unwrap().overload();
    gate.try_acquire().unwrap().ignore();
    gate.try_acquire().unwrap().record(Outcome::Success);
    drop(gate.try_acquire().unwrap());
    let early_return = || -> Result<(), &'static str> {
        let _permit = gate.try_acquire().map_err(|_| "shed")?;
        Err("the call failed before recording")?;
        Ok(())
    };
    assert!(early_return().is_err());
    let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _permit = gate.try_acquire().unwrap();
        panic!("the caller panicked");
    }));
    assert!(unwound.is_err());
    let s = gate.snapshot();
    assert_eq!((s.in_flight, s.admitted, s.cancelled), (0, 7, 3));
}

/// A controller that records what it is fed, with a limit the test sets.
struct Recorder {
    limit: Rc<RefCell<u32>>,
    samples: Rc<RefCell<Vec<Sample>>>,
}

impl Controller for Recorder {
    fn limit(&self) -> u32 {
        *self.limit.borrow()
    }
    fn epoch(&self) -> Epoch {
        Epoch(7)
    }
    fn on_sample(&mut self, sample: &Sample) -> Change {
        self.samples.borrow_mut().push(*sample);
        Change::Unchanged
    }
    fn stats(&self) -> ControllerStats {
        ControllerStats {
            limit: self.limit(),
            min: 1,
            max: 100,
            baseline_micros: None,
            increases: 0,
            decreases: 0,
            at_floor_since: None,
        }
    }
}

#[test]
fn latency_is_measured_from_admission_not_from_waiting() {
    let clock = ManualClock::new();
    let samples = Rc::default();
    let recorder = Recorder {
        limit: Rc::new(RefCell::new(1)),
        samples: Rc::clone(&samples),
    };
    let gate: Gate<NoopRawMutex, _, _, InlineQueue<4>> = Gate::new(recorder, &clock);
    let held = gate.try_acquire().unwrap();
    let mut waiter = Task::new(gate.acquire());
    assert!(waiter.poll().is_pending());
    clock.advance(Duration::from_millis(100)); // queued for 100 ms
    assert_eq!(gate.snapshot().oldest_wait_micros, Some(100_000));
    held.success();
    let permit = ready(&mut waiter);
    assert_eq!(permit.admission().at, Instant::from_millis(100));
    assert_eq!(permit.admission().epoch, Epoch(7));
    clock.advance(Duration::from_millis(5));
    permit.record(HttpClassifier::new().outcome(200));
    let samples = samples.borrow();
    assert_eq!(samples.len(), 2);
    assert_eq!(samples[0].latency_micros(), 100_000); // the one that held the gate
    assert_eq!(samples[1].latency_micros(), 5_000); // not 105 ms
    assert_eq!(samples[1].outcome, Outcome::Success);
}

#[test]
fn a_cancelled_permit_changes_nothing() {
    let clock = ManualClock::new();
    let mut aimd = AimdF32::new(AimdConfig::default().initial(4)).unwrap();
    let before = aimd.limit();
    let gate: Gate<NoopRawMutex, _, _, InlineQueue<4>> = Gate::new(&mut aimd, &clock);
    for _ in 0..50 {
        let p = gate.try_acquire().unwrap();
        clock.advance(Duration::from_secs(30));
        drop(p);
        let p = gate.try_acquire().unwrap();
        p.record(HttpClassifier::new().outcome(404));
    }
    drop(gate);
    assert_eq!(aimd.limit(), before);
    assert_eq!(aimd.stats().decreases, 0);
}

/// A waker that calls back into the gate when woken. The gate's mutex is a `RefCell` inside a
/// critical section, so waking it while the gate holds its lock would panic on the re-borrow.
struct ReentrantWaker {
    gate: Arc<CsGate>,
    seen: std::sync::Mutex<Vec<u32>>,
}

type CsGate = Gate<limiter_core::CriticalSectionRawMutex, Fixed, StdClock, InlineQueue<4>>;

impl Wake for ReentrantWaker {
    fn wake(self: Arc<Self>) {
        let in_flight = self.gate.snapshot().in_flight;
        self.seen.lock().unwrap().push(in_flight);
    }
}

#[test]
fn waiters_are_woken_outside_the_lock() {
    let gate: Arc<CsGate> = Arc::new(Gate::new(
        Fixed::new(1).unwrap(),
        StdClock(std::time::Instant::now()),
    ));
    let reentrant = Arc::new(ReentrantWaker {
        gate: Arc::clone(&gate),
        seen: std::sync::Mutex::default(),
    });
    let waker = Waker::from(Arc::clone(&reentrant));
    let mut cx = Context::from_waker(&waker);
    let held = gate.try_acquire().unwrap();
    let mut waiting = gate.acquire();
    assert!(Pin::new(&mut waiting).poll(&mut cx).is_pending());
    held.success();
    assert_eq!(*reentrant.seen.lock().unwrap(), [1]);
    assert!(matches!(
        Pin::new(&mut waiting).poll(&mut cx),
        Poll::Ready(Ok(_))
    ));
}

#[test]
fn the_hard_limit_holds_under_random_operation_sequences() {
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }
    for seed in 1..=if cfg!(miri) { 3 } else { 300u64 } {
        let mut rng = Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D));
        let clock = ManualClock::new();
        let gate = fixed_gate::<6>(&clock, 3);
        let mut permits = Vec::new();
        let mut tasks: Vec<Task<'_, &FixedGate<'_, 6>>> = Vec::new();
        for _ in 0..400 {
            let before = gate.in_flight();
            match rng.next() % 7 {
                0 => {
                    if let Ok(p) = gate.try_acquire() {
                        permits.push(p);
                    }
                }
                1 => {
                    let mut t = Task::new(gate.acquire());
                    match t.poll() {
                        Poll::Ready(Ok(p)) => permits.push(p),
                        Poll::Ready(Err(QueueFull)) => {
                            // Granted waiters leave the queue: only those still waiting fill it.
                            let waiting = tasks.iter().filter(|t| t.woken() == 0).count();
                            assert_eq!(waiting, 6, "seed {seed}: full below capacity");
                        }
                        Poll::Pending => tasks.push(t),
                    }
                }
                2 if !permits.is_empty() => {
                    let i = rng.next() as usize % permits.len();
                    let p = permits.swap_remove(i);
                    match rng.next() % 3 {
                        0 => p.success(),
                        1 => p.overload(),
                        _ => drop(p),
                    }
                }
                3 if !tasks.is_empty() => {
                    let i = rng.next() as usize % tasks.len();
                    drop(tasks.remove(i));
                }
                4 => {
                    let new = 1 + (rng.next() % 6) as u32;
                    gate.with_controller(|c| c.set_limit(new)).unwrap();
                }
                _ => {
                    // Poll every woken task; each must be admitted.
                    let mut i = 0;
                    while i < tasks.len() {
                        if tasks[i].woken() > 0 {
                            let mut t = tasks.remove(i);
                            permits.push(ready(&mut t));
                        } else {
                            i += 1;
                        }
                    }
                }
            }
            let s = gate.snapshot();
            let granted = tasks.iter().filter(|t| t.woken() > 0).count();
            assert_eq!(s.queued as usize, tasks.len() - granted, "seed {seed}");
            // Conservation: in-flight is exactly the permits plus granted, unclaimed waiters.
            assert_eq!(s.in_flight as usize, permits.len() + granted, "seed {seed}");
            // Hard limit: whatever was admitted in this step fit under the limit in force (a
            // lowered limit may leave more in flight, but then nothing is admitted).
            if s.in_flight > before {
                assert!(s.in_flight <= s.limit, "seed {seed}: over the limit");
            }
            // No idle capacity while someone waits, and no waiter woken twice.
            if s.queued > 0 {
                assert!(s.in_flight >= s.limit, "seed {seed}: idle capacity");
            }
            assert!(tasks.iter().all(|t| t.woken() <= 1), "seed {seed}");
        }
        drop(tasks);
        drop(permits);
        assert_eq!(gate.in_flight(), 0, "seed {seed}: leaked capacity");
    }
}

#[test]
fn bounds() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    type StdGate = Gate<limiter_core::StdRawMutex, AimdF32, StdClock, InlineQueue<8>>;
    send_sync::<StdGate>();
    send::<Permit<&StdGate>>();
    send::<Permit<Arc<StdGate>>>();
    send::<Acquire<Arc<StdGate>>>();
    send_sync::<limiter_core::Snapshot>();
}

/// A `Sync` clock for the `bounds` test.
struct StdClock(std::time::Instant);

impl limiter_core::Clock for StdClock {
    fn now(&self) -> Instant {
        Instant::from_micros(self.0.elapsed().as_micros() as u64)
    }
}

#[test]
fn an_owned_handle_works_across_threads() {
    let gate: Arc<Gate<limiter_core::StdRawMutex, Fixed, StdClock, InlineQueue<8>>> = Arc::new(
        Gate::new(Fixed::new(3).unwrap(), StdClock(std::time::Instant::now())),
    );
    let max_seen = Arc::new(AtomicUsize::new(0));
    let current = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (gate, max_seen, current) = (gate.clone(), max_seen.clone(), current.clone());
            std::thread::spawn(move || {
                let mut admitted = 0;
                while admitted < if cfg!(miri) { 20 } else { 2_000 } {
                    if let Ok(p) = Gate::try_acquire_owned(Arc::clone(&gate)) {
                        let now = current.fetch_add(1, Ordering::SeqCst) + 1;
                        max_seen.fetch_max(now, Ordering::SeqCst);
                        current.fetch_sub(1, Ordering::SeqCst);
                        p.success();
                        admitted += 1;
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert!(max_seen.load(Ordering::SeqCst) <= 3);
    let s = gate.snapshot();
    assert_eq!(
        (s.in_flight, s.admitted),
        (0, 4 * if cfg!(miri) { 20 } else { 2_000 })
    );
}

/// A clock that counts its reads.
struct CountingClock(std::cell::Cell<u64>);

impl limiter_core::Clock for CountingClock {
    fn now(&self) -> limiter_core::Instant {
        self.0.set(self.0.get() + 1);
        limiter_core::Instant::from_micros(self.0.get())
    }
}

/// The clock is never read to shed a request at the limit (the hot path under overload), and
/// once per poll of a waiting future: its arrival, each re-poll (which checks a `Retry-After`
/// hold against it), and the claim of a granted place.
#[test]
fn shedding_reads_no_clock_and_a_poll_reads_it_once() {
    let clock = CountingClock(std::cell::Cell::new(0));
    let gate: Gate<NoopRawMutex, _, _, InlineQueue<4>> = Gate::new(Fixed::new(1).unwrap(), &clock);
    let held = gate.try_acquire().unwrap();
    let reads = clock.0.get();
    assert_eq!(reads, 1, "one read to admit");
    for _ in 0..100 {
        assert!(gate.try_acquire().is_err());
    }
    assert_eq!(clock.0.get(), reads, "shedding read the clock");
    let mut waiting = Box::pin(gate.acquire());
    let mut cx = Context::from_waker(Waker::noop());
    assert!(waiting.as_mut().poll(&mut cx).is_pending());
    assert_eq!(clock.0.get(), reads + 1, "one read to queue");
    for _ in 0..100 {
        assert!(waiting.as_mut().poll(&mut cx).is_pending());
    }
    assert_eq!(clock.0.get(), reads + 101, "one read per re-poll");
    drop(held); // a cancellation: no read
    assert_eq!(clock.0.get(), reads + 101, "a cancellation read the clock");
    let Poll::Ready(Ok(permit)) = waiting.as_mut().poll(&mut cx) else {
        panic!("granted on release")
    };
    assert_eq!(
        clock.0.get(),
        reads + 102,
        "one read to claim the granted place"
    );
    assert_eq!(permit.admission().at.as_micros(), reads + 102);
    drop(permit);
}

/// A waker whose `wake` panics.
struct PanickingWaker;

impl Wake for PanickingWaker {
    fn wake(self: Arc<Self>) {
        panic!("a waker that panics");
    }
}

#[test]
fn a_waker_that_panics_does_not_leave_the_next_granted_waiter_asleep() {
    let clock = ManualClock::new();
    let gate = fixed_gate::<8>(&clock, 1);
    let held = gate.try_acquire().unwrap();
    let mut first = gate.acquire();
    let waker = Waker::from(Arc::new(PanickingWaker));
    assert!(
        Pin::new(&mut first)
            .poll(&mut Context::from_waker(&waker))
            .is_pending()
    );
    let mut second = Task::new(gate.acquire());
    assert!(second.poll().is_pending());
    // Room for both: both are granted in one batch, and the first waker panics.
    let raised = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        gate.with_controller(|c| c.set_limit(3)).unwrap();
    }));
    assert!(raised.is_err());
    assert_eq!(
        second.woken(),
        1,
        "the waker after the panicking one was woken"
    );
    ready(&mut second).success();
    drop((first, held));
    assert_eq!(gate.snapshot().in_flight, 0);
}

std::thread_local! {
    static LOCKS: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
}

/// [`NoopRawMutex`], counting how often the gate takes its lock (on this thread); with
/// `LOCK_FREE`, the gate counts in flight in its words (on one thread a `Cell`'s
/// read-modify-write is as good as an atomic's).
struct CountingRawMutex<const LOCK_FREE: bool = false>;

impl<const FREE: bool> limiter_core::RawMutex for CountingRawMutex<FREE> {
    const LOCK_FREE: bool = FREE;

    type Mutex<T> = RefCell<T>;
    type Word = core::cell::Cell<u64>;

    fn new<T>(value: T) -> RefCell<T> {
        NoopRawMutex::new(value)
    }

    fn lock<T, R>(mutex: &RefCell<T>, f: impl FnOnce(&mut T) -> R) -> R {
        LOCKS.with(|n| n.set(n.get() + 1));
        NoopRawMutex::lock(mutex, f)
    }

    fn new_word(value: u64) -> core::cell::Cell<u64> {
        NoopRawMutex::new_word(value)
    }

    fn load(word: &core::cell::Cell<u64>) -> u64 {
        NoopRawMutex::load(word)
    }

    fn store(word: &core::cell::Cell<u64>, value: u64) {
        NoopRawMutex::store(word, value);
    }

    fn raise(word: &core::cell::Cell<u64>, value: u64) {
        NoopRawMutex::raise(word, value);
    }

    fn clear(word: &core::cell::Cell<u64>, expected: u64) {
        NoopRawMutex::clear(word, expected);
    }

    fn compare_exchange(word: &core::cell::Cell<u64>, current: u64, new: u64) -> Result<u64, u64> {
        NoopRawMutex::compare_exchange(word, current, new)
    }

    fn fetch_add(word: &core::cell::Cell<u64>, value: u64) -> u64 {
        NoopRawMutex::fetch_add(word, value)
    }

    fn fetch_or(word: &core::cell::Cell<u64>, value: u64) -> u64 {
        NoopRawMutex::fetch_or(word, value)
    }

    fn fetch_and(word: &core::cell::Cell<u64>, value: u64) -> u64 {
        NoopRawMutex::fetch_and(word, value)
    }
}

fn locks_taken(f: impl FnOnce()) -> usize {
    let before = LOCKS.with(core::cell::Cell::get);
    f();
    LOCKS.with(core::cell::Cell::get) - before
}

#[test]
fn a_release_grants_the_next_waiter_under_its_own_lock_and_the_waiter_claims_without_one() {
    let clock = ManualClock::new();
    let gate: Gate<CountingRawMutex, Fixed, _, InlineQueue<8>> =
        Gate::new(Fixed::new(1).unwrap(), &clock);
    let held = gate.try_acquire().unwrap();
    let mut first = Task::new(gate.acquire());
    let mut second = Task::new(gate.acquire());
    assert!(first.poll().is_pending() && second.poll().is_pending());
    // The handoff: one lock for the release and the grant, none for a grant pass.
    assert_eq!(locks_taken(|| held.success()), 1);
    assert_eq!((first.woken(), second.woken()), (1, 0));
    // The granted waiter claims its place without the lock.
    let mut claimed = None;
    assert_eq!(locks_taken(|| claimed = Some(ready(&mut first))), 0);
    let permit = claimed.unwrap();
    // With nobody left waiting, a release is one lock too.
    let mut permit = Some(permit);
    assert_eq!(locks_taken(|| permit.take().unwrap().success()), 1);
    assert_eq!(second.woken(), 1);
    // Room for more than one waiter (a raised limit): the first under the operation's lock,
    // the rest in the grant pass.
    let mut third = Task::new(gate.acquire());
    let mut fourth = Task::new(gate.acquire());
    assert!(third.poll().is_pending() && fourth.poll().is_pending());
    let taken = locks_taken(|| gate.with_controller(|c| c.set_limit(3)).unwrap());
    assert_eq!(taken, 2);
    assert_eq!((third.woken(), fourth.woken()), (1, 1));
    drop((ready(&mut second), ready(&mut third), ready(&mut fourth)));
    assert_eq!(gate.snapshot().in_flight, 0);
}

/// Invariant 6, where the words count in flight: a newcomer is admitted, and a permit dropped
/// without an outcome released, without the lock; the lock is taken for an outcome (the
/// controller's sample), for a refusal (counted), and for a drop that finds someone waiting.
#[test]
fn where_the_words_count_in_flight_admission_and_a_drop_take_no_lock() {
    let clock = ManualClock::new();
    let gate: Gate<CountingRawMutex<true>, Fixed, _, InlineQueue<8>> =
        Gate::new(Fixed::new(2).unwrap(), &clock);
    let mut first = None;
    assert_eq!(locks_taken(|| first = gate.try_acquire().ok()), 0);
    let first = first.expect("below the limit");
    assert_eq!(first.admission().in_flight, 1);
    let second = gate.try_acquire().expect("below the limit");
    assert_eq!(second.admission().in_flight, 2);
    assert_eq!(locks_taken(|| assert!(gate.try_acquire().is_err())), 1);
    assert_eq!(locks_taken(|| drop(second)), 0);
    assert_eq!(locks_taken(|| first.success()), 1);
    // Someone waits: no newcomer gets in without the lock, and a drop grants under it.
    let (a, b) = (gate.try_acquire().unwrap(), gate.try_acquire().unwrap());
    let mut waiter = Task::new(gate.acquire());
    assert!(waiter.poll().is_pending());
    assert_eq!(locks_taken(|| drop(a)), 1);
    assert_eq!(waiter.woken(), 1);
    let granted = ready(&mut waiter);
    assert_eq!(granted.admission().in_flight, 2);
    // The queue is empty again: the fast path is back.
    drop(b);
    assert_eq!(locks_taken(|| drop(gate.try_acquire().unwrap())), 0);
    drop(granted);
    let s = gate.snapshot();
    assert_eq!(
        (s.in_flight, s.admitted, s.cancelled, s.at_limit),
        (0, 6, 5, 1)
    );
    // A completion hands its unit straight to a waiter: one lock, and the count in flight
    // does not move, but the waiter's admission is counted.
    let (a, b) = (gate.try_acquire().unwrap(), gate.try_acquire().unwrap());
    let mut waiter = Task::new(gate.acquire());
    assert!(waiter.poll().is_pending());
    assert_eq!(locks_taken(|| a.success()), 1);
    assert_eq!(waiter.woken(), 1);
    let granted = ready(&mut waiter);
    assert_eq!(granted.admission().in_flight, 2);
    let s = gate.snapshot();
    assert_eq!((s.in_flight, s.admitted, s.queued), (2, 9, 0));
    drop((granted, b));
    assert_eq!(locks_taken(|| drop(gate.try_acquire().unwrap())), 0);
    // So is the first poll of `acquire` that finds room and nobody waiting.
    let mut acquired = None;
    let mut waiting = Task::new(gate.acquire());
    assert_eq!(locks_taken(|| acquired = Some(ready(&mut waiting))), 0);
    assert_eq!(acquired.unwrap().admission().in_flight, 1);
}

/// A waiter granted its place is admitted as of its grant: the controller's epoch and the count
/// in flight then, not at the later moment it runs. A cut between the two leaves the waiter in
/// the round it was granted in (its congestion signal is that round's, already acted on).
#[test]
fn a_granted_waiter_is_admitted_as_of_its_grant() {
    let clock = ManualClock::new();
    let config = AimdConfig::default().initial(2).bounds(1, 8);
    let gate: Gate<NoopRawMutex, AimdF32, _, InlineQueue<4>> =
        Gate::new(AimdF32::new(config).unwrap(), &clock);
    let (first, second) = (gate.try_acquire().unwrap(), gate.try_acquire().unwrap());
    let mut waiter = Task::new(gate.acquire());
    assert!(waiter.poll().is_pending());
    let before_cut = gate.with_controller(|c| c.epoch());
    clock.advance(Duration::from_millis(5));
    first.success(); // grants the waiter: two in flight
    assert_eq!(waiter.woken(), 1);
    second.overload(); // a cut: a new epoch, one in flight
    assert_ne!(gate.with_controller(|c| c.epoch()), before_cut);
    assert_eq!((gate.limit(), gate.in_flight()), (1, 1));
    clock.advance(Duration::from_millis(3));
    let permit = ready(&mut waiter);
    let admission = permit.admission();
    assert_eq!((admission.epoch, admission.in_flight), (before_cut, 2));
    assert_eq!(
        admission.at,
        Instant::from_micros(8_000),
        "its latency counts from the claim"
    );
}
