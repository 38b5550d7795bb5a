//! Exercises every path of the fixed-point controller and the gate, so that anything they need
//! from the compiler's runtime shows up as an undefined symbol of this library.
#![no_std]
#![no_main]

use core::time::Duration;

use limiter_core::InlineQueue;
use limiter_core::{AimdConfig, Clock, Gate, HttpClassifier, Instant, NoopRawMutex, Ratio};

#[cfg(not(feature = "float"))]
type Controller = limiter_core::AimdFixed;
#[cfg(feature = "float")]
type Controller = limiter_core::AimdF32;

/// A microsecond counter register, as on a real board.
const TIMER: *const u32 = 0x4000_0000 as *const u32;

struct Ticks;

impl Clock for Ticks {
    fn now(&self) -> Instant {
        // SAFETY: a memory-mapped counter; the probe is linked, never run.
        Instant::from_micros(u64::from(unsafe { TIMER.read_volatile() }))
    }
}

/// The entry point: runs requests with statuses read from memory, so nothing is constant-folded.
#[unsafe(no_mangle)]
pub extern "C" fn _start() -> ! {
    let input = 0x2000_0000 as *const u32;
    // SAFETY: as above, never run.
    let (n, tolerance) = unsafe { (input.read_volatile(), input.add(1).read_volatile()) };
    let limit = probe_run(input.wrapping_add(2).cast(), n as usize, tolerance);
    // SAFETY: as above.
    unsafe { (0x2000_0100 as *mut u32).write_volatile(limit) };
    loop {}
}

/// Runs `n` requests with the given statuses and returns the final limit.
fn probe_run(statuses: *const u16, n: usize, tolerance_bits: u32) -> u32 {
    let config = AimdConfig::default().bounds(1, 100).baseline(
        Ratio::from_bits(tolerance_bits),
        10,
        Duration::from_secs(10),
    );
    let Ok(controller) = Controller::new(config) else {
        return 0;
    };
    let gate: Gate<NoopRawMutex, _, _, InlineQueue<4>> = Gate::new(controller, Ticks);
    for i in 0..n {
        // SAFETY: as above.
        let status = unsafe { statuses.add(i).read_volatile() };
        if let Ok(permit) = gate.try_acquire() {
            permit.record(HttpClassifier::new().outcome(status));
        }
    }
    let snapshot = gate.snapshot();
    // The float build also reads the limit as an `f32`, the only floating point `AimdF32` has.
    #[cfg(feature = "float")]
    let read = gate.with_controller(|c| c.limit_value().get()).to_bits();
    #[cfg(not(feature = "float"))]
    let read = 0;
    snapshot.limit + snapshot.utilisation_permille() + read
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {}
}
