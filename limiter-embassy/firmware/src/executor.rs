//! A thread-mode embassy executor that idles with WFI.
//!
//! The stock Cortex-M executor idles with WFE, on which QEMU does not sleep; with WFI, and
//! `-icount shift=0,sleep=off`, QEMU skips idle time instead of spinning through it, so timer-heavy
//! tests run in a fraction of their firmware time and their logs repeat byte for byte.

use core::sync::atomic::{AtomicBool, Ordering};

use embassy_executor::{Spawner, raw};
use static_cell::StaticCell;

/// Set by any wake (from a task or an interrupt): the executor has work.
static PENDING: AtomicBool = AtomicBool::new(true);

#[unsafe(no_mangle)]
fn __pender(_context: *mut ()) {
    PENDING.store(true, Ordering::SeqCst);
}

/// Runs the executor forever after `init` has spawned the first tasks.
pub fn run(init: impl FnOnce(Spawner)) -> ! {
    static EXECUTOR: StaticCell<raw::Executor> = StaticCell::new();
    let executor = EXECUTOR.init(raw::Executor::new(core::ptr::null_mut()));
    init(executor.spawner());
    loop {
        // Sleep only if no wake arrived since the last poll; an interrupt that becomes pending
        // while interrupts are masked still ends the WFI, and runs once they are unmasked.
        cortex_m::interrupt::free(|_| {
            if !PENDING.load(Ordering::SeqCst) {
                cortex_m::asm::wfi();
            }
            PENDING.store(false, Ordering::SeqCst);
        });
        // SAFETY: `poll` is only ever called from this loop, in thread mode, never re-entrantly,
        // and the executor lives in a static for the rest of the program.
        unsafe { executor.poll() };
    }
}
