//! An embassy-time driver on SysTick: one tick per millisecond (`tick-hz-1_000`).
//!
//! The tick count and the timer queue live in critical-section mutexes; the SysTick exception
//! bumps the count and, when the earliest alarm is due, wakes the expired timers.

use core::cell::{Cell, RefCell};
use core::task::Waker;

use cortex_m::peripheral::SYST;
use cortex_m::peripheral::syst::SystClkSource;
use cortex_m_rt::exception;
use critical_section::Mutex;
use embassy_time_driver::Driver;
use embassy_time_queue_utils::Queue;

struct SysTickDriver {
    ticks: Mutex<Cell<u64>>,
    /// The earliest alarm, in ticks (`u64::MAX`: none).
    alarm: Mutex<Cell<u64>>,
    queue: Mutex<RefCell<Queue>>,
}

embassy_time_driver::time_driver_impl!(static DRIVER: SysTickDriver = SysTickDriver {
    ticks: Mutex::new(Cell::new(0)),
    alarm: Mutex::new(Cell::new(u64::MAX)),
    queue: Mutex::new(RefCell::new(Queue::new())),
});

impl Driver for SysTickDriver {
    fn now(&self) -> u64 {
        critical_section::with(|cs| self.ticks.borrow(cs).get())
    }

    fn schedule_wake(&self, at: u64, waker: &Waker) {
        critical_section::with(|cs| {
            let mut queue = self.queue.borrow_ref_mut(cs);
            if queue.schedule_wake(at, waker) {
                let now = self.ticks.borrow(cs).get();
                self.alarm.borrow(cs).set(queue.next_expiration(now));
            }
        });
    }
}

/// Starts SysTick at one interrupt per tick of embassy-time.
pub fn start(mut syst: SYST) {
    let hz: u32 = env!("SYSTICK_HZ").parse().unwrap_or(12_500_000);
    let tick_hz = embassy_time_driver::TICK_HZ as u32;
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(hz / tick_hz - 1);
    syst.clear_current();
    syst.enable_interrupt();
    syst.enable_counter();
}

#[exception]
fn SysTick() {
    critical_section::with(|cs| {
        let ticks = DRIVER.ticks.borrow(cs);
        let now = ticks.get() + 1;
        ticks.set(now);
        let alarm = DRIVER.alarm.borrow(cs);
        if now >= alarm.get() {
            let next = DRIVER.queue.borrow_ref_mut(cs).next_expiration(now);
            alarm.set(next);
        }
    });
}
