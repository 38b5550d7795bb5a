//! Worker tasks call a simulated upstream through the limiter while its capacity drops and
//! recovers; the firmware checks on target that the limit follows the capacity, that in-flight
//! never exceeds the limit, that a cancelled call releases its permit and that client errors
//! leave the limit alone. It logs the limit over time and exits 0 only if every check passed.
#![no_std]
#![no_main]

use core::cell::Cell;
use core::sync::atomic::Ordering;

use portable_atomic::AtomicU32;

use embassy_executor::Spawner;
use embassy_sync::blocking_mutex::Mutex;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_time::{Duration, Instant, Timer};
use limiter_core::{AimdConfig, HttpClassifier, Outcome, classify_fn};
use limiter_embassy::Limiter;
use limiter_firmware::{BOARD, executor, exit, time_driver};

#[cfg(not(feature = "float"))]
type Aimd = limiter_core::AimdFixedCompact;
#[cfg(feature = "float")]
type Aimd = limiter_core::AimdF32;

type Shared = Limiter<Aimd, CriticalSectionRawMutex, 16>;

const WORKERS: usize = 10;
const BASE_MS: u64 = 5;
/// Capacity 8, then 2 from 2 s, then 8 again from 5 s; the run ends at 8 s.
const PHASES: [(u64, u32); 3] = [(0, 8), (2_000, 2), (5_000, 8)];
const END_MS: u64 = 8_000;

/// Built at compile time: an invalid configuration would stop the build.
static LIMITER: Shared = limiter_embassy::new(Aimd::new_const(
    AimdConfig::DEFAULT.initial(4).bounds(1, 16),
));
/// Calls inside the upstream, and the most ever seen there.
static UPSTREAM: Mutex<CriticalSectionRawMutex, Cell<(u32, u32)>> = Mutex::new(Cell::new((0, 0)));
/// Admissions seen with more in flight than the limit, no cut having happened since.
static OVER_LIMIT: AtomicU32 = AtomicU32::new(0);
static CALLS: AtomicU32 = AtomicU32::new(0);
/// The limit at the end of each phase.
static PHASE_LIMITS: Mutex<CriticalSectionRawMutex, Cell<[u32; 3]>> = Mutex::new(Cell::new([0; 3]));

fn capacity(now_ms: u64) -> u32 {
    PHASES
        .iter()
        .rev()
        .find(|(from, _)| now_ms >= *from)
        .map_or(8, |p| p.1)
}

/// One call to the upstream: 5 ms at or below capacity, 5 ms more per call above it.
async fn upstream_call() {
    let over = UPSTREAM.lock(|c| {
        let (now, peak) = c.get();
        c.set((now + 1, peak.max(now + 1)));
        (now + 1).saturating_sub(capacity(Instant::now().as_millis()))
    });
    Timer::after(Duration::from_millis(BASE_MS * (1 + u64::from(over)))).await;
    UPSTREAM.lock(|c| c.set((c.get().0 - 1, c.get().1)));
    CALLS.fetch_add(1, Ordering::Relaxed);
}

#[embassy_executor::task(pool_size = WORKERS)]
async fn worker(limiter: &'static Shared) {
    while Instant::now().as_millis() < END_MS {
        // If no cut happens while this request waits, every admission in that time was made
        // below a limit no higher than the current one, so in-flight is at most the limit.
        let cuts = limiter.snapshot().decreases;
        let permit = limiter
            .acquire()
            .await
            .expect("the queue holds every worker");
        let s = limiter.snapshot();
        if s.decreases == cuts && s.in_flight > s.limit {
            OVER_LIMIT.fetch_add(1, Ordering::Relaxed);
        }
        upstream_call().await;
        permit.success();
    }
}

#[embassy_executor::task]
async fn monitor(limiter: &'static Shared) {
    let mut next = 0;
    while next <= END_MS {
        Timer::at(Instant::from_millis(next)).await;
        let s = limiter.snapshot();
        defmt::info!(
            "capacity={=u32} limit={=u32} in_flight={=u32} queued={=u32} cuts={=u64}",
            capacity(next),
            s.limit,
            s.in_flight,
            s.queued,
            s.decreases
        );
        for (i, end) in [1_950, 4_950, 7_950].into_iter().enumerate() {
            if next <= end && end < next + 250 {
                Timer::at(Instant::from_millis(end)).await;
                let limit = limiter.limit();
                PHASE_LIMITS.lock(|p| {
                    let mut all = p.get();
                    all[i] = limit;
                    p.set(all);
                });
            }
        }
        next += 250;
    }
}

struct Tally {
    passed: u32,
    failed: u32,
}

impl Tally {
    fn check(&mut self, name: &str, ok: bool) {
        if ok {
            self.passed += 1;
            defmt::info!("ok: {=str}", name);
        } else {
            self.failed += 1;
            defmt::error!("FAILED: {=str}", name);
        }
    }
}

#[embassy_executor::task]
async fn judge(limiter: &'static Shared) {
    Timer::at(Instant::from_millis(END_MS + 100)).await;
    let mut t = Tally {
        passed: 0,
        failed: 0,
    };
    let [high, low, recovered] = PHASE_LIMITS.lock(Cell::get);
    defmt::info!(
        "limit at the end of each phase: {=u32} {=u32} {=u32}",
        high,
        low,
        recovered
    );
    t.check(
        "the limit falls after the capacity drop",
        low < high && low <= 4,
    );
    t.check(
        "the limit recovers after the capacity rises",
        recovered > low,
    );
    t.check(
        "in-flight never exceeds the limit",
        OVER_LIMIT.load(Ordering::Relaxed) == 0,
    );
    let (_, peak) = UPSTREAM.lock(Cell::get);
    t.check("the upstream never saw more than the ceiling", peak <= 16);
    t.check("calls were made", CALLS.load(Ordering::Relaxed) > 1_000);
    let s = limiter.snapshot();
    t.check("everything was released", s.in_flight == 0 && s.queued == 0);

    // A call cut short by a timeout releases its permit (as cancelled).
    let before = limiter.snapshot();
    let long = limiter.run(
        Timer::after(Duration::from_secs(5)),
        classify_fn(|(): &()| Outcome::Success),
    );
    let timed_out = embassy_time::with_timeout(Duration::from_millis(10), long)
        .await
        .is_err();
    let after = limiter.snapshot();
    t.check(
        "a timed-out call releases its permit",
        timed_out && after.in_flight == 0 && after.cancelled == before.cancelled + 1,
    );

    // Client errors leave the limit alone.
    let (limit, cuts) = (limiter.limit(), limiter.snapshot().decreases);
    for status in [400u16, 401, 403, 404, 409, 422] {
        limiter
            .run(async { status }, HttpClassifier::new())
            .await
            .expect("room");
    }
    t.check(
        "client errors leave the limit alone",
        limiter.limit() == limit && limiter.snapshot().decreases == cuts,
    );
    // And congestion does not.
    limiter
        .run(async { 503u16 }, HttpClassifier::new())
        .await
        .expect("room");
    t.check(
        "a 503 cuts the limit",
        limiter.snapshot().decreases == cuts + 1,
    );

    defmt::println!("{=u32} passed, {=u32} failed", t.passed, t.failed);
    exit(i32::from(t.failed != 0));
}

#[cortex_m_rt::entry]
fn main() -> ! {
    let core = cortex_m::Peripherals::take().expect("first and only take");
    time_driver::start(core.SYST);
    defmt::info!(
        "limiter on {=str}: {=usize} workers, capacity 8 -> 2 at 2 s -> 8 at 5 s",
        BOARD,
        WORKERS
    );
    defmt::info!(
        "size_of: limiter {=usize} B (controller {=usize} B, queue of 16)",
        core::mem::size_of::<Shared>(),
        core::mem::size_of::<Aimd>()
    );
    let limiter: &'static Shared = &LIMITER;
    executor::run(|spawner: Spawner| {
        for _ in 0..WORKERS {
            spawner.spawn(worker(limiter).expect("pool sized for the workers"));
        }
        spawner.spawn(monitor(limiter).expect("one monitor"));
        spawner.spawn(judge(limiter).expect("one judge"));
    })
}
