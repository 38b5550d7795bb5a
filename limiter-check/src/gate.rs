//! The gate against a model of its protocol: FIFO queue, bounded, hard limit, conservation.

use arbitrary::{Arbitrary, Unstructured};
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll, Waker};
use core::time::Duration;
use limiter_core::{
    Acquire, AimdConfig, AimdFixed, Controller, Fixed, Gate, HeapQueue, InlineQueue, ManualClock,
    NoopRawMutex, Permit, Queue,
};
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Wake;

/// More than one wake batch (8) can be granted at once.
const Q: usize = 12;

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Op {
    TryAcquire,
    /// A new task polls `acquire()` once.
    Acquire,
    /// Every woken task runs; each must come out with a permit.
    PollWoken,
    /// Every task is polled, woken or not (spurious polls).
    PollAll,
    /// A task is dropped, whether it was woken or not.
    Cancel(u8),
    /// A permit ends: success, overload, ignore or a plain drop.
    Finish {
        which: u8,
        how: u8,
    },
    /// The limit is set (fixed controller only).
    SetLimit(u8),
    Advance(u16),
}

#[derive(Default)]
struct Wakes(AtomicUsize);

impl Wake for Wakes {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

type G<'c, C, W> = Gate<NoopRawMutex, C, &'c ManualClock, W>;

struct Task<'g, 'c, C: Controller, W: Queue> {
    id: u64,
    future: Acquire<&'g G<'c, C, W>>,
    wakes: Arc<Wakes>,
}

impl<C: Controller, W: Queue> Task<'_, '_, C, W> {
    fn woken(&self) -> usize {
        self.wakes.0.load(Ordering::SeqCst)
    }
}

/// What the gate should be doing, in the plainest terms.
#[derive(Default)]
struct Model {
    in_flight: u32,
    waiting: VecDeque<u64>,
    granted: Vec<u64>,
}

impl Model {
    fn admits_newcomer(&self, limit: u32) -> bool {
        self.waiting.is_empty() && self.in_flight < limit
    }

    fn grant(&mut self, limit: u32) {
        while self.in_flight < limit {
            let Some(id) = self.waiting.pop_front() else {
                break;
            };
            self.granted.push(id);
            self.in_flight += 1;
        }
    }
}

/// Runs an arbitrary operation sequence against a gate with a fixed limit, then against one
/// driven by AIMD, each with its queue inside the gate and with it on the heap, each in lockstep
/// with a plain model of the protocol. After every operation: results agree with the
/// model, exactly the granted tasks were woken (once), in-flight equals permits plus granted
/// tasks, nothing was admitted above the limit, and at the end no capacity has leaked.
pub fn gate(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(initial) = u8::arbitrary(&mut u) else {
        return;
    };
    let ops: Vec<Op> = crate::sequence(u);
    let fixed = || Fixed::new(u32::from(initial % 5) + 1).expect("at least 1");
    let set_fixed = |c: &mut Fixed, limit| {
        c.set_limit(limit).expect("at least 1");
    };
    run(fixed(), InlineQueue::<Q>::new(), &ops, set_fixed);
    run(fixed(), HeapQueue::new(Q), &ops, set_fixed);
    let aimd = || AimdFixed::new(AimdConfig::default().initial(2).bounds(1, 5)).expect("valid");
    run(aimd(), InlineQueue::<Q>::new(), &ops, |_, _| {});
    run(aimd(), HeapQueue::new(Q), &ops, |_, _| {});
}

fn run<C: Controller, W: Queue>(
    controller: C,
    queue: W,
    ops: &[Op],
    set_limit: impl Fn(&mut C, u32),
) {
    let clock = ManualClock::new();
    let gate: G<'_, C, W> = Gate::with_queue(controller, &clock, queue);
    let mut model = Model::default();
    let mut tasks: Vec<Task<'_, '_, C, W>> = Vec::new();
    let mut permits: Vec<Permit<&G<'_, C, W>>> = Vec::new();
    let mut next_id = 0;

    for &op in ops {
        let in_flight_before = gate.in_flight();
        match op {
            Op::TryAcquire => {
                let expected = model.admits_newcomer(gate.limit());
                match gate.try_acquire() {
                    Ok(p) => {
                        assert!(expected, "try_acquire admitted against the model");
                        model.in_flight += 1;
                        permits.push(p);
                    }
                    Err(_) => assert!(!expected, "try_acquire refused with room and no queue"),
                }
            }
            Op::Acquire => {
                let wakes = Arc::new(Wakes::default());
                let mut future = gate.acquire();
                let task_waker = Waker::from(Arc::clone(&wakes));
                let direct = model.admits_newcomer(gate.limit());
                // Only the requests still waiting fill the queue: a granted one has left it.
                let full = model.waiting.len() == Q;
                match Pin::new(&mut future).poll(&mut Context::from_waker(&task_waker)) {
                    Poll::Ready(Ok(p)) => {
                        assert!(direct, "a first poll was admitted against the model");
                        model.in_flight += 1;
                        permits.push(p);
                    }
                    Poll::Ready(Err(_)) => assert!(!direct && full, "rejected with room"),
                    Poll::Pending => {
                        assert!(!direct && !full, "queued against the model");
                        model.waiting.push_back(next_id);
                        tasks.push(Task {
                            id: next_id,
                            future,
                            wakes,
                        });
                        next_id += 1;
                    }
                }
            }
            Op::PollWoken | Op::PollAll => {
                let mut i = 0;
                while i < tasks.len() {
                    let woken = tasks[i].woken() > 0;
                    if !woken && matches!(op, Op::PollWoken) {
                        i += 1;
                        continue;
                    }
                    let waker = Waker::from(Arc::clone(&tasks[i].wakes));
                    let polled =
                        Pin::new(&mut tasks[i].future).poll(&mut Context::from_waker(&waker));
                    match polled {
                        Poll::Ready(Ok(p)) => {
                            assert!(woken, "admitted without a wakeup");
                            let id = tasks.remove(i).id;
                            model.granted.retain(|g| *g != id);
                            permits.push(p);
                        }
                        Poll::Ready(Err(_)) => panic!("a queued task was rejected"),
                        Poll::Pending => {
                            assert!(!woken, "woken, but not admitted");
                            i += 1;
                        }
                    }
                }
            }
            Op::Cancel(i) if !tasks.is_empty() => {
                let task = tasks.remove(usize::from(i) % tasks.len());
                if let Some(at) = model.granted.iter().position(|g| *g == task.id) {
                    model.granted.remove(at);
                    model.in_flight -= 1;
                } else {
                    model.waiting.retain(|w| *w != task.id);
                }
                drop(task);
            }
            Op::Finish { which, how } if !permits.is_empty() => {
                let p = permits.swap_remove(usize::from(which) % permits.len());
                match how % 4 {
                    0 => p.success(),
                    1 => p.overload(),
                    2 => p.ignore(),
                    _ => drop(p),
                }
                model.in_flight -= 1;
            }
            Op::SetLimit(n) => gate.with_controller(|c| set_limit(c, u32::from(n % 16) + 1)),
            Op::Advance(ms) => clock.advance(Duration::from_millis(u64::from(ms))),
            Op::Cancel(_) | Op::Finish { .. } => {}
        }
        let limit = gate.limit();
        model.grant(limit);

        let in_flight = gate.in_flight();
        assert_eq!(
            in_flight, model.in_flight,
            "in-flight disagrees with the model"
        );
        assert_eq!(
            in_flight as usize,
            permits.len() + model.granted.len(),
            "capacity not accounted for by permits and granted waiters"
        );
        if in_flight > in_flight_before {
            assert!(
                in_flight <= limit,
                "admitted above the limit: {in_flight} > {limit}"
            );
        }
        for t in &tasks {
            let granted = model.granted.contains(&t.id);
            assert_eq!(
                t.woken(),
                usize::from(granted),
                "task {} woken wrongly",
                t.id
            );
        }
        let s = gate.snapshot();
        assert_eq!(s.queued as usize, model.waiting.len());
        assert!(model.waiting.len() <= Q);
    }
    drop(tasks);
    drop(permits);
    assert_eq!(gate.in_flight(), 0, "capacity leaked");
}
