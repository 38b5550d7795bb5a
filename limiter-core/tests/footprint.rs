//! Memory budgets of the core's state. The controller and window hold no pointers and no
//! `usize`, so these sizes are the same on a 32-bit microcontroller as on this host. Run with
//! `--nocapture` to see the figures.

use core::mem::size_of;

use limiter_core::{
    AimdF32, AimdFixed, AimdFixedCompact, Fixed, Gate, ManualClock, MedianWindow, NoopRawMutex,
    Snapshot, WindowedMin,
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
            "Gate<NoopRawMutex, AimdFixed, &ManualClock, 8>",
            size_of::<Gate<NoopRawMutex, AimdFixed, &ManualClock, 8>>(),
        ),
    ];
    for (name, bytes) in sizes {
        println!("{name:>48}: {bytes} bytes");
    }
    // 32 16-bit samples, 32 one-byte indices and two u16 cursors: nothing else.
    assert_eq!(size_of::<MedianWindow<32>>(), 32 * 2 + 32 + 4);
    // The budget: a whole AIMD controller with its 32-sample window in 256 bytes, and 80 more
    // for the growth probe (56, with its drain and low rounds) and the tally of the last cut
    // round (20). The window dominates; configuration, limit, clocks and counters take the
    // rest.
    assert!(size_of::<AimdFixedCompact>() <= 256);
    let overhead = size_of::<AimdFixedCompact>() - size_of::<MedianWindow<32>>();
    assert!(
        overhead <= 148,
        "AIMD state besides its window: {overhead} bytes"
    );
    let probe = size_of::<AimdFixed>() - size_of::<AimdFixedCompact>();
    assert!(
        probe <= 80,
        "the growth probe and the cut tally: {probe} bytes"
    );
    assert!(size_of::<AimdF32>() <= size_of::<AimdFixed>());
}

#[test]
fn a_waiting_slot_is_a_waker_a_ticket_and_a_time() {
    type Queued<const Q: usize> = Gate<NoopRawMutex, Fixed, &'static ManualClock, Q>;
    let per_slot = (size_of::<Queued<16>>() - size_of::<Queued<0>>()) / 16;
    println!("one waiting slot: {per_slot} bytes");
    // No tag beside the waker: the queue's length says which slots are in use.
    assert_eq!(per_slot, size_of::<core::task::Waker>() + 8 + 8);
}
