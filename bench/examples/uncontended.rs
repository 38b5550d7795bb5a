//! The uncontended benches' variants run in turn, round after round, on one thread: the ratio of
//! each measure to its floor (or peer) *in the same round*, and its median over the rounds.
//!
//! ```text
//! cargo run --release -p limiter-bench --example uncontended          # 20 rounds
//! cargo run --release -p limiter-bench --example uncontended -- 50    # 50 rounds
//! ```
//!
//! Why beside criterion's `uncontended` and `cycle` groups: criterion measures each variant in
//! a block of its own, one after the other, and the machine's speed drifts between blocks by
//! as much as the differences the ratios are meant to show (the README's two runs of the same
//! code gave 1.24 and 1.30 for `try_acquire` + drop against its floor, and 1.35 and 1.62 for
//! the full cycle). Here every round times each variant over the same number of permits, back
//! to back, in an order that rotates from round to round, so a drift slower than a round moves
//! them alike and cancels in the round's ratios (as the `contended` example does for the
//! contended bench).
//!
//! The variants are the criterion benches' (`benches/permits.rs`), with the same limit (8), the
//! same controller (the std default, `AimdF32`, started at 8; one limiter for `try_acquire` +
//! drop and another for the full cycle) and the same clock (`TokioClock`); each round runs each
//! one `PERMITS` times, each in a loop of its own function.
//!
//! The ratios repeat from run to run within a few hundredths, but they are this binary's: the
//! same `try_acquire` + drop loop compiled into the `cycle` example (`time
//! target/release/examples/cycle try-drop 20000000`, and `floor-try` for its floor) takes the
//! floor's time there, about 33 ns each, where it takes about 41 ns here against the same
//! floor's 34. Instruction counts do not explain it (`valgrind --tool=callgrind` on the `cycle`
//! example, 100,000 permits: 25,067,547 instructions in all against the floor's 24,666,870).
//! Where the compiler puts the gate's admission (inlined there, a call here) is one
//! difference; marking it `#[inline]` made this runner's loop slower still (45 ns).

use std::hint::black_box;
use std::time::{Duration, Instant};

use congestion_limiter::limiter::{DefaultLimiter, Limiter as _, Outcome as PeerOutcome};
use congestion_limiter::limits::Aimd as PeerAimd;
use limiter_bench::{LIMIT, interleaved, quantile, ratio_quartiles, ready_now};
use limiter_core::{AimdConfig, AimdF32, Clock, Fixed};
use limiter_tokio::{Limiter, TokioClock};

/// Permits per variant per round.
const PERMITS: u32 = 1_000_000;

/// Everything a round times, made once.
struct Subjects {
    semaphore: tokio::sync::Semaphore,
    clock: TokioClock,
    aimd: Limiter<AimdF32>,
    aimd_try: Limiter<AimdF32>,
    fixed: Limiter<Fixed>,
    peer: DefaultLimiter<PeerAimd>,
}

/// The variants, in the order of the first round.
const VARIANTS: [&str; 6] = [
    "floor: semaphore + 1 clock read",
    "AIMD try_acquire + drop",
    "floor: semaphore + 2 clock reads",
    "AIMD full cycle",
    "Fixed(8) full cycle",
    "congestion-limiter cycle",
];

/// The ratios reported: (label, variant, against, the issue's target).
const RATIOS: [(&str, usize, usize, &str); 4] = [
    ("try_acquire + drop / its floor", 1, 0, "<= 1.1"),
    ("AIMD full cycle / its floor", 3, 2, "<= 1.25"),
    ("Fixed(8) full cycle / the floor", 4, 2, ""),
    ("AIMD full cycle / congestion-limiter's", 3, 5, "<= 0.6"),
];

/// `PERMITS` permits of variant `i`, timed. Each variant's loop is a function of its own, so
/// that each is compiled (inlined, laid out) as it would be alone.
fn run(s: &Subjects, i: usize) -> Duration {
    let variant: fn(&Subjects) = match i {
        0 => floor_try,
        1 => try_drop,
        2 => floor_cycle,
        3 => aimd_cycle,
        4 => fixed_cycle,
        _ => peer_cycle,
    };
    let start = Instant::now();
    variant(s);
    start.elapsed()
}

#[inline(never)]
fn floor_try(s: &Subjects) {
    for _ in 0..PERMITS {
        let permit = black_box(s.semaphore.try_acquire().expect("room"));
        black_box(s.clock.now());
        drop(permit);
    }
}

#[inline(never)]
fn try_drop(s: &Subjects) {
    for _ in 0..PERMITS {
        drop(black_box(s.aimd_try.try_acquire().expect("room")));
    }
}

#[inline(never)]
fn floor_cycle(s: &Subjects) {
    for _ in 0..PERMITS {
        let permit = black_box(s.semaphore.try_acquire().expect("room"));
        let admitted = black_box(s.clock.now());
        black_box(s.clock.now().micros_since(admitted));
        drop(permit);
    }
}

#[inline(never)]
fn aimd_cycle(s: &Subjects) {
    for _ in 0..PERMITS {
        black_box(s.aimd.try_acquire().expect("room")).success();
    }
}

#[inline(never)]
fn fixed_cycle(s: &Subjects) {
    for _ in 0..PERMITS {
        black_box(s.fixed.try_acquire().expect("room")).success();
    }
}

#[inline(never)]
fn peer_cycle(s: &Subjects) {
    for _ in 0..PERMITS {
        let token = ready_now(s.peer.try_acquire()).expect("room");
        black_box(ready_now(s.peer.release(token, Some(PeerOutcome::Success))));
    }
}

fn main() {
    let rounds = limiter_bench::rounds_argument("uncontended");
    // tokio's clock needs a runtime's context.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let _entered = runtime.enter();
    let subjects = Subjects {
        semaphore: tokio::sync::Semaphore::new(LIMIT as usize),
        clock: TokioClock::new(),
        aimd: Limiter::new(AimdF32::new(AimdConfig::default().initial(LIMIT)).expect("valid")),
        aimd_try: Limiter::new(AimdF32::new(AimdConfig::default().initial(LIMIT)).expect("valid")),
        fixed: Limiter::new(Fixed::new(LIMIT).expect("valid")),
        peer: DefaultLimiter::new(PeerAimd::new_with_initial_limit(LIMIT as usize)),
    };
    // The warm-up round warms caches and branch predictors.
    let times = interleaved(VARIANTS.len(), rounds, |i| run(&subjects, i));
    // Each limiter's limit is still 8: nothing above measured another limit.
    let limits = [&subjects.aimd, &subjects.aimd_try].map(Limiter::limit);
    assert_eq!((limits, subjects.fixed.limit()), ([LIMIT; 2], LIMIT));
    println!(
        "{rounds} rounds of {PERMITS} permits per variant, one thread, limit {LIMIT}, \
         clock TokioClock, AIMD = AimdF32 started at {LIMIT}"
    );
    println!("{:<34} {:>16}", "variant", "median ns/permit");
    for (name, t) in VARIANTS.iter().zip(&times) {
        let mut ns: Vec<f64> = t
            .iter()
            .map(|t| t.as_secs_f64() * 1e9 / f64::from(PERMITS))
            .collect();
        println!("{name:<34} {:>16.1}", quantile(&mut ns, 0.5));
    }
    println!(
        "{:<40} {:>26}  target",
        "ratio, round by round", "q1 median q3"
    );
    for (label, a, b, target) in RATIOS {
        let (q1, med, q3) = ratio_quartiles(&times[a], &times[b]);
        println!("{label:<40} {q1:>8.2} {med:>8.2} {q3:>8.2}  {target}");
    }
}
