//! What every firmware image here shares: a SysTick time driver for embassy-time, an executor that
//! sleeps with WFI (so QEMU's `-icount sleep=off` warps time while it idles), and exits through
//! semihosting (0 on success; a HardFault or a panic exits non-zero).
#![no_std]

pub mod executor;
pub mod time_driver;

use defmt_semihosting as _;

defmt::timestamp!("{=u64:ms}", embassy_time::Instant::now().as_millis());

/// The board this image was built for.
pub const BOARD: &str = env!("BOARD");

/// Ends the emulation with `code` (0: success).
pub fn exit(code: i32) -> ! {
    semihosting::process::exit(code)
}

#[cortex_m_rt::exception]
unsafe fn HardFault(_frame: &cortex_m_rt::ExceptionFrame) -> ! {
    defmt::error!("HardFault");
    exit(3)
}
