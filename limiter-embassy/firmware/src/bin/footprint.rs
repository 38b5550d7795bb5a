//! The same small firmware with and without the limiter, to measure what the limiter costs in
//! flash and RAM (`scripts/footprint.sh`): four tasks call a simulated upstream in a loop, either
//! directly (no feature) or through the limiter with the fixed-point (`fixed`) or the float
//! (`float`) AIMD. Runs for a second and exits 0.
#![no_std]
#![no_main]

use core::sync::atomic::Ordering;

use portable_atomic::AtomicU32;

use embassy_executor::Spawner;
use embassy_time::{Duration, Instant, Timer};
use limiter_firmware::{executor, exit, time_driver};

static CALLS: AtomicU32 = AtomicU32::new(0);

async fn upstream() {
    Timer::after(Duration::from_millis(5)).await;
    CALLS.fetch_add(1, Ordering::Relaxed);
}

#[cfg(any(feature = "fixed", feature = "float", feature = "gate-only"))]
mod limited {
    use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
    #[cfg(not(feature = "gate-only"))]
    use limiter_core::AimdConfig;
    use limiter_core::{Outcome, classify_fn};
    use limiter_embassy::Limiter;

    #[cfg(feature = "fixed")]
    type Aimd = limiter_core::AimdFixedCompact;
    #[cfg(all(feature = "float", not(feature = "fixed")))]
    type Aimd = limiter_core::AimdF32;
    #[cfg(all(feature = "gate-only", not(any(feature = "fixed", feature = "float"))))]
    type Aimd = limiter_core::Fixed;

    pub type Shared = Limiter<Aimd, CriticalSectionRawMutex, 8>;

    // The `fixed` variant, which carries the flash budget, is the embassy adapter's default
    // limiter: this stops compiling if that default changes.
    #[cfg(feature = "fixed")]
    const _: fn(Limiter) -> Shared = |limiter| limiter;

    #[cfg(feature = "gate-only")]
    static LIMITER: Shared = limiter_embassy::new(match Aimd::new(8) {
        Ok(fixed) => fixed,
        Err(e) => panic!("{}", e.message()),
    });
    #[cfg(not(feature = "gate-only"))]
    static LIMITER: Shared = limiter_embassy::new(Aimd::new_const(AimdConfig::DEFAULT));

    pub fn limiter() -> &'static Shared {
        &LIMITER
    }

    pub async fn call(limiter: &'static Shared) {
        let ok = classify_fn(|(): &()| Outcome::Success);
        // Four workers never fill a queue of eight; a full queue would skip the call.
        let _ = limiter.run(super::upstream(), ok).await;
    }
}

#[cfg(any(feature = "fixed", feature = "float", feature = "gate-only"))]
#[embassy_executor::task(pool_size = 4)]
async fn worker(limiter: &'static limited::Shared) {
    while Instant::now().as_millis() < 1_000 {
        limited::call(limiter).await;
    }
}

#[cfg(not(any(feature = "fixed", feature = "float", feature = "gate-only")))]
#[embassy_executor::task(pool_size = 4)]
async fn worker(unit: ()) {
    let () = unit;
    while Instant::now().as_millis() < 1_000 {
        upstream().await;
    }
}

#[embassy_executor::task]
async fn finish() {
    Timer::at(Instant::from_millis(1_100)).await;
    defmt::info!("{=u32} calls", CALLS.load(Ordering::Relaxed));
    // The float variant also reads its limit as an `f32`: the soft-float control.
    #[cfg(all(feature = "float", not(feature = "fixed")))]
    defmt::info!(
        "limit {=f32}",
        limited::limiter().with_controller(|c| c.limit_value().get())
    );
    exit(0);
}

#[cortex_m_rt::entry]
fn main() -> ! {
    let core = cortex_m::Peripherals::take().expect("first and only take");
    time_driver::start(core.SYST);
    #[cfg(any(feature = "fixed", feature = "float", feature = "gate-only"))]
    let shared = limited::limiter();
    #[cfg(not(any(feature = "fixed", feature = "float", feature = "gate-only")))]
    let shared = ();
    executor::run(|spawner: Spawner| {
        for _ in 0..4 {
            spawner.spawn(worker(shared).expect("pool of four"));
        }
        spawner.spawn(finish().expect("one"));
    })
}
