//! Memory budgets of the core's state. The controller and window hold no pointers and no
//! `usize`, so these sizes are the same on a 32-bit microcontroller as on this host. Run with
//! `--nocapture` to see the figures.

use core::mem::size_of;

use limiter_core::{
    AimdF32, AimdFixed, AimdFixedCompact, Fixed, Gate, InlineQueue, ManualClock, MedianWindow,
    NoopRawMutex, Snapshot, WindowedMin,
};

#[test]
fn controller_state_fits_its_budget() {
    let sizes = [
        ("MedianWindow<32>", size_of::<MedianWindow<32>>()),
        ("WindowedMin", size_of::<WindowedMin>()),
        ("AimdFixed (32-sample window)", size_of::<AimdFixed>()),
        (
            "AimdFixedCompact (no growth probe)",
            size_of::<AimdFixedCompact>(),
        ),
        ("AimdF32 (32-sample window)", size_of::<AimdF32>()),
        ("Fixed", size_of::<Fixed>()),
        ("Snapshot", size_of::<Snapshot>()),
        (
            "Gate<NoopRawMutex, AimdFixed, &ManualClock, InlineQueue<8>>",
            size_of::<Gate<NoopRawMutex, AimdFixed, &ManualClock, InlineQueue<8>>>(),
        ),
    ];
    for (name, bytes) in sizes {
        println!("{name:>48}: {bytes} bytes");
    }
    // 32 16-bit samples, 32 one-byte indices, two u16 cursors and whether the order is
    // settled, with one byte of padding: nothing else.
    assert_eq!(size_of::<MedianWindow<32>>(), 32 * 2 + 32 + 4 + 1 + 1);
    // The budget: a whole AIMD controller with its 32-sample window and its knee (the knee, the
    // dwell below it and its round counter: a struct of its own, 24 bytes with its padding) in
    // 272 bytes, and 112 more for the growth probe (with its drain, its low rounds, the band
    // it measures, the held round and the failed tries it counts: 56), the tally of the last cut round (20), the
    // window's count below the remembered median (8) and the client's share of a quota (24).
    // The window dominates; configuration, limit, clocks and counters take the rest.
    assert!(size_of::<AimdFixedCompact>() <= 272);
    let overhead = size_of::<AimdFixedCompact>() - size_of::<MedianWindow<32>>();
    assert!(
        overhead <= 172,
        "AIMD state besides its window: {overhead} bytes"
    );
    let probe = size_of::<AimdFixed>() - size_of::<AimdFixedCompact>();
    assert!(
        probe <= 112,
        "the growth probe, the cut tally, the count and the share: {probe} bytes"
    );
    assert!(size_of::<AimdF32>() <= size_of::<AimdFixed>());
}

#[test]
fn a_waiting_slot_is_a_waker_a_ticket_and_a_time() {
    type Queued<const Q: usize> = Gate<NoopRawMutex, Fixed, &'static ManualClock, InlineQueue<Q>>;
    let per_slot = (size_of::<Queued<16>>() - size_of::<Queued<0>>()) / 16;
    println!("one waiting slot: {per_slot} bytes");
    // No tag beside the waker: the queue's length says which slots are in use.
    assert_eq!(per_slot, size_of::<core::task::Waker>() + 8 + 8);
}

#[cfg(feature = "std")]
mod heap_queue {
    use core::mem::size_of;
    use core::pin::pin;
    use core::task::{Context, Poll, Waker};
    use std::sync::Arc;

    use limiter_core::{AimdF32, Fixed, Gate, HeapQueue, KeyedGates, Queue, StdClock, StdRawMutex};

    /// What a `std` adapter shares: the gate behind an `Arc`, its queue on the heap.
    type StdGate<C> = Gate<StdRawMutex, C, StdClock, HeapQueue>;

    /// An `Arc`'s allocation: two counts and the value.
    fn arc_bytes<T>() -> usize {
        2 * size_of::<usize>() + size_of::<T>()
    }

    #[test]
    fn an_idle_std_limiter_costs_under_a_kibibyte_whatever_its_bound() {
        let gate: Arc<StdGate<_>> = Arc::new(Gate::with_queue(
            AimdF32::new(limiter_core::AimdConfig::DEFAULT).unwrap(),
            StdClock::new(),
            HeapQueue::new(1_000_000),
        ));
        let idle = arc_bytes::<StdGate<AimdF32>>();
        println!("an idle std limiter (AIMD in f32, a bound of 1,000,000 waiters): {idle} bytes");
        assert!(idle <= 1024, "{idle} bytes");
        assert_eq!(gate.queue_bound(), 1_000_000);
        // The queue holds no buffer until a request waits (the only heap the gate has).
        assert_eq!(HeapQueue::new(1_000_000).capacity(), 0);
    }

    #[test]
    fn a_limiter_with_a_bound_of_a_million_builds_and_queues_on_a_2_mib_thread() {
        let waited = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(|| {
                let gate: Arc<StdGate<_>> = Arc::new(Gate::with_queue(
                    Fixed::new(1).unwrap(),
                    StdClock::new(),
                    HeapQueue::new(1_000_000),
                ));
                let _held = gate.try_acquire().unwrap();
                let mut cx = Context::from_waker(Waker::noop());
                let mut queued = 0;
                for _ in 0..if cfg!(miri) { 8 } else { 2_000 } {
                    let mut waiting = pin!(gate.acquire());
                    if waiting.as_mut().poll(&mut cx).is_pending() {
                        queued += 1;
                    }
                    // Dropped here: it leaves the queue.
                }
                (queued, gate.snapshot().queued)
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(waited.1, 0);
        assert!(waited.0 > 0);
    }

    #[test]
    fn ten_thousand_idle_keyed_gates_stay_within_ten_mebibytes() {
        let keys = if cfg!(miri) { 50 } else { 10_000 };
        let gates = KeyedGates::new(
            keys,
            |_: &u64| AimdF32::new(limiter_core::AimdConfig::DEFAULT).unwrap(),
            StdClock::new(),
        )
        .with_queue_bound(1_000_000);
        for key in 0..keys as u64 {
            let gate = gates.gate(key).unwrap();
            let _ = gate.try_acquire().unwrap(); // used once, then idle
        }
        assert_eq!(gates.len(), keys);
        // Per key: the gate's `Arc` allocation, and the map's entry (the key, the `Arc`, the
        // last use) with hashbrown's control byte, at its worst load (half full after a grow).
        let entry = size_of::<u64>() + size_of::<usize>() + 8 + 1;
        let per_key = arc_bytes::<StdGate<AimdF32>>() + 2 * entry;
        let total = per_key * 10_000;
        println!("10,000 idle keyed gates: at most {total} bytes ({per_key} per key)");
        assert!(total <= 10 << 20, "{total} bytes");
    }

    #[test]
    fn a_heap_queue_is_bounded_at_run_time() {
        let gate = Gate::<StdRawMutex, _, _, _>::with_queue(
            Fixed::new(1).unwrap(),
            StdClock::new(),
            HeapQueue::new(2),
        );
        let _held = gate.try_acquire().unwrap();
        let mut cx = Context::from_waker(Waker::noop());
        let mut a = pin!(gate.acquire());
        let mut b = pin!(gate.acquire());
        let mut c = pin!(gate.acquire());
        assert!(a.as_mut().poll(&mut cx).is_pending());
        assert!(b.as_mut().poll(&mut cx).is_pending());
        assert!(matches!(c.as_mut().poll(&mut cx), Poll::Ready(Err(_))));
        assert_eq!(gate.snapshot().queue_full, 1);
        assert_eq!(HeapQueue::new(2).bound(), 2);
    }
}
