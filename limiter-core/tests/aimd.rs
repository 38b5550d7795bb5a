//! The AIMD controller against the "Verify" paragraphs of seed 000 (adaptive concurrency limits
//! with AIMD), with its numbers, plus the contract of DESIGN.md: bounds, one cut per round trip,
//! growth only while used, holds, and float/fixed agreement.

use core::time::Duration;

use limiter_core::{
    Admission, Aimd, AimdConfig, AimdF32, AimdFixed, AimdFixedCompact, Change, ConfigError,
    Controller, F32, Instant, LatencySignal, LimitValue, Outcome, Q32, Ratio, Sample,
};

const MS: u64 = 1_000;

/// How many seeds a randomised test runs: a few under miri, which interprets every step.
fn seeds(n: u64) -> u64 {
    if cfg!(miri) { 2 } else { n }
}

/// A sample of `c`'s current epoch: admitted at `at` µs with `in_flight` calls, completed
/// `latency` µs later with `outcome`.
fn sample_of<C: Controller>(
    c: &C,
    at: u64,
    latency: u64,
    in_flight: u32,
    outcome: Outcome,
) -> Sample {
    let admitted = Admission::new(c, Instant::from_micros(at), in_flight);
    Sample::new(admitted, Instant::from_micros(at + latency), outcome)
}

fn complete_with<C: Controller>(c: &mut C, at: u64, latency: u64, in_flight: u32) -> Change {
    c.on_sample(&sample_of(c, at, latency, in_flight, Outcome::Success))
}

fn complete<C: Controller>(c: &mut C, at: u64, latency: u64, outcome: Outcome) -> Change {
    c.on_sample(&sample_of(c, at, latency, c.limit(), outcome))
}

/// The seed's controller: initial 8 in [2, 32], backoff 0.75, a 20 ms latency target.
fn seed_config() -> AimdConfig {
    AimdConfig::default()
        .initial(8)
        .bounds(2, 32)
        .backoff(Ratio::from_fraction(3, 4).unwrap())
        .target(Duration::from_millis(20))
}

#[test]
fn from_4_fast_successes_pass_5_within_a_few_rounds_and_one_failure_cuts_to_75_percent() {
    let seed = AimdConfig::default().backoff(Ratio::from_fraction(3, 4).unwrap());
    let mut aimd = AimdF32::new(seed.initial(4)).unwrap();
    let mut samples = 0;
    while aimd.limit_value().get() <= 5.0 {
        complete(&mut aimd, samples * 10 * MS, 5 * MS, Outcome::Success);
        samples += 1;
        assert!(samples <= 4 + 5 + 6, "not past 5 within three rounds");
    }
    // One round of the limit adds about one: 4 → 5 takes 4 samples, 5 → past 5 a few more.
    assert!(samples >= 5, "additive increase is slow: {samples} samples");
    let before = aimd.limit_value().get();
    assert_eq!(
        complete(&mut aimd, 1_000 * MS, 5 * MS, Outcome::Overload),
        Change::Decreased
    );
    let after = aimd.limit_value().get();
    assert!((after - before * 0.75).abs() < 1e-5, "{before} -> {after}");
}

#[test]
fn two_hundred_healthy_samples_raise_8_to_about_21() {
    fn run<V: LimitValue>() -> Aimd<V, 32> {
        let mut aimd = Aimd::<V, 32>::new(seed_config()).unwrap();
        for i in 0..200 {
            complete(&mut aimd, i * 10 * MS, 5 * MS, Outcome::Success);
        }
        aimd
    }
    let float = run::<F32>();
    let fixed = run::<Q32>();
    assert_eq!(float.limit(), 21);
    assert_eq!(fixed.limit(), 21);
    assert!((21.0..22.0).contains(&float.limit_value().get()));
    assert_eq!(float.stats().increases, 200);
}

#[test]
fn five_failures_spaced_past_the_cooldown_walk_21_down_to_about_5() {
    let config = seed_config().cooldown(Duration::from_millis(40));
    let mut aimd = AimdF32::new(config).unwrap();
    for i in 0..200 {
        complete(&mut aimd, i * 10 * MS, 5 * MS, Outcome::Success);
    }
    assert_eq!(aimd.limit(), 21);
    let mut t = 3_000 * MS;
    for _ in 0..5 {
        assert_eq!(
            complete(&mut aimd, t, 5 * MS, Outcome::Overload),
            Change::Decreased
        );
        t += 50 * MS;
    }
    assert_eq!(aimd.limit(), 5);
    assert!((5.0..5.5).contains(&aimd.limit_value().get()));
    assert_eq!(aimd.stats().decreases, 5);
    // Spaced-out failures keep cutting, but never below the floor of 2.
    for _ in 0..20 {
        complete(&mut aimd, t, 5 * MS, Outcome::Overload);
        t += 50 * MS;
    }
    assert_eq!(aimd.limit(), 2);
    assert!(aimd.stats().at_floor_since.is_some());
}

/// A trace of rounds: each round admits `limit` requests at once, under the current epoch, and
/// completes them with the given latencies. Returns the decreases it caused.
fn replay_rounds<C: Controller>(c: &mut C, t: &mut u64, latencies: &mut dyn Iterator<Item = u64>) {
    loop {
        let n = c.limit();
        let admissions: Vec<Admission> = (0..n)
            .map(|i| Admission::new(c, Instant::from_micros(*t), i + 1))
            .collect();
        let mut done = 0;
        let mut round_end = *t;
        for a in admissions {
            let Some(latency) = latencies.next() else {
                return;
            };
            round_end = round_end.max(*t + latency);
            c.on_sample(&Sample::new(
                a,
                Instant::from_micros(*t + latency),
                Outcome::Success,
            ));
            done += 1;
        }
        assert_eq!(done, n);
        *t = round_end;
    }
}

/// Healthy but noisy: 15–25 ms, and one call in twenty slow at 35 ms.
fn noisy_healthy(count: usize) -> impl Iterator<Item = u64> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..count).map(move |i| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if i % 20 == 19 {
            35 * MS
        } else {
            15 * MS + x % (10 * MS)
        }
    })
}

#[test]
fn occasional_slow_calls_cut_far_less_with_the_median_baseline_than_with_a_fixed_target() {
    let base = AimdConfig::default().initial(8).bounds(2, 64);
    let mut fixed_target = AimdF32::new(base.target(Duration::from_millis(20))).unwrap();
    let mut median = AimdF32::new(base).unwrap(); // the default baseline

    let (mut t1, mut t2) = (0, 0);
    replay_rounds(&mut fixed_target, &mut t1, &mut noisy_healthy(2_000));
    replay_rounds(&mut median, &mut t2, &mut noisy_healthy(2_000));
    let target_cuts = fixed_target.stats().decreases;
    let median_cuts = median.stats().decreases;
    assert!(
        target_cuts >= 20 && median_cuts * 10 <= target_cuts,
        "fixed target cut {target_cuts} times, median baseline {median_cuts}"
    );
    let healthy_limit = median.limit();
    eprintln!(
        "decreases over 2000 noisy healthy calls: fixed target {target_cuts}, median {median_cuts}; limit {healthy_limit}"
    );

    // A sustained slowdown (everything at 100 ms) still shrinks the limit.
    replay_rounds(
        &mut median,
        &mut t2,
        &mut core::iter::repeat_n(100 * MS, 16),
    );
    assert!(
        median.limit() < healthy_limit,
        "limit {} after slowdown, {healthy_limit} before",
        median.limit()
    );
    assert!(median.stats().decreases > median_cuts);
    eprintln!("after a sustained slowdown: limit {}", median.limit());
}

/// Rounds against a dependency with capacity 4: each call takes 5 ms × (1 + calls above 4 / 2),
/// so each step up adds less than the tolerance.
fn replay_queueing<C: Controller>(c: &mut C, rounds: usize) {
    let mut t = 0;
    for _ in 0..rounds {
        let n = c.limit();
        let latency = 5 * MS * (2 + u64::from(n.saturating_sub(4))) / 2;
        replay_rounds(c, &mut t, &mut core::iter::repeat_n(latency, n as usize));
    }
}

#[test]
fn a_gradual_climb_into_queueing_is_cut_when_the_baseline_remembers() {
    let config = AimdConfig::default().initial(4).bounds(1, 64);
    let mut bare = AimdF32::new(config.baseline(Ratio::from_int(2), 10, Duration::ZERO)).unwrap();
    let mut remembering = AimdF32::new(config).unwrap(); // the default: 10 s of memory
    replay_queueing(&mut bare, 300);
    replay_queueing(&mut remembering, 300);
    // Each step up adds less than the tolerance, so a bare median follows the queue up...
    assert!(bare.limit() >= 20, "bare median: {}", bare.limit());
    // ...while the remembered low median knows what the uncongested dependency looks like.
    assert!(
        (4..=6).contains(&remembering.limit()),
        "remembering: {}",
        remembering.limit()
    );
    assert_eq!(remembering.stats().baseline_micros, Some(5_000));
}

#[test]
fn the_baseline_follows_a_dependency_that_became_uniformly_slower() {
    // Healthy at 10 ms, then 3x slower for good (a deploy), whatever the load.
    let config = AimdConfig::default().initial(8).bounds(2, 64);
    let mut aimd = AimdF32::new(config).unwrap();
    let mut t = 0;
    replay_rounds(&mut aimd, &mut t, &mut core::iter::repeat_n(10 * MS, 200));
    let before = aimd.limit();
    replay_rounds(&mut aimd, &mut t, &mut core::iter::repeat_n(30 * MS, 100));
    let cut = aimd.limit();
    assert!(cut < before, "a sudden 3x slowdown is cut first");
    // Seconds later the slower latency is the new normal (forgotten at the floor, not after the
    // 10-minute memory), and growth resumes.
    replay_rounds(&mut aimd, &mut t, &mut core::iter::repeat_n(30 * MS, 5_000));
    assert_eq!(aimd.stats().baseline_micros, Some(30_000));
    assert!(
        aimd.limit() > cut,
        "growth resumed: {cut} -> {}",
        aimd.limit()
    );
    assert!(t < 600_000 * MS, "within the memory: {t} µs");
}

#[test]
fn client_errors_and_cancellations_never_change_the_limit() {
    let mut aimd = AimdFixed::new(seed_config()).unwrap();
    for i in 0..50 {
        assert_eq!(
            complete(&mut aimd, i * MS, 500 * MS, Outcome::Ignore),
            Change::Unchanged
        );
    }
    assert_eq!(aimd.limit_value(), Q32::from_u32(8));
    assert_eq!(aimd.stats().decreases, 0);
    assert_eq!(aimd.stats().increases, 0);
}

#[test]
fn one_cut_per_round_trip() {
    let mut aimd = AimdF32::new(seed_config()).unwrap();
    let at = Instant::from_millis(0);
    let round: Vec<Admission> = (1..=8).map(|n| Admission::new(&aimd, at, n)).collect();
    let mut changes = Vec::new();
    for a in round {
        // Quick refusals (under the 20 ms target): each cut is the backoff's.
        let s = Sample::new(a, Instant::from_millis(10), Outcome::Overload);
        changes.push(aimd.on_sample(&s));
    }
    assert_eq!(changes[0], Change::Decreased);
    assert!(changes[1..].iter().all(|c| *c == Change::Unchanged));
    assert_eq!(aimd.limit(), 6);
    // A request admitted after the cut is a new round trip: it may cut again, and as the round
    // before kept none of its 8 calls, this cut goes to the floor.
    assert_eq!(
        complete(&mut aimd, 40 * MS, 10 * MS, Outcome::Overload),
        Change::Decreased
    );
    assert_eq!(aimd.limit(), 2);
}

/// One round trip of a quota that fell from 50 to 5 calls: `ok` successes, then refusals for
/// the rest of `in_flight`, all admitted at `at` ms and back 100 ms later; the changes.
fn quota_round(aimd: &mut AimdF32, at: u64, in_flight: u32, ok: u32) -> Vec<Change> {
    let admitted: Vec<Admission> = (1..=in_flight)
        .map(|n| Admission::new(aimd, Instant::from_millis(at), n))
        .collect();
    let done = Instant::from_millis(at + 100);
    admitted
        .into_iter()
        .enumerate()
        .map(|(i, a)| {
            let outcome = if (i as u32) < ok {
                Outcome::Success
            } else {
                Outcome::Overload
            };
            aimd.on_sample(&Sample::new(a, done, outcome))
        })
        .collect()
}

#[test]
fn a_round_that_kept_few_of_its_calls_sizes_the_next_cut() {
    let config = AimdConfig::default().initial(50).bounds(1, 64);
    let mut aimd = AimdF32::new(config).unwrap();
    // The first round at the drop: one cut by the backoff, 50 × 0.8.
    let changes = quota_round(&mut aimd, 0, 50, 5);
    assert_eq!(
        changes.iter().filter(|c| **c == Change::Decreased).count(),
        1
    );
    assert_eq!(aimd.limit(), 40);
    // The next round is cut too: to the 5 the round before kept, not to 32.
    let changes = quota_round(&mut aimd, 100, 40, 5);
    assert_eq!(
        changes.iter().filter(|c| **c == Change::Decreased).count(),
        1
    );
    assert_eq!(aimd.limit(), 5);
}

#[test]
fn a_window_spent_from_the_first_call_is_not_sized_by_the_round_before() {
    // A quota of calls per window, spent partway through a round of 60: 25 served, 35 refused.
    let config = AimdConfig::default().initial(60).bounds(1, 64);
    let mut aimd = AimdF32::new(config).unwrap();
    quota_round(&mut aimd, 0, 60, 25);
    assert_eq!(aimd.limit(), 48);
    // The next round is refused from its first call (the window is still spent): a level the
    // round before served is refused, so its 25 were not a level. Cut by the backoff, 48 × 0.8,
    // where sizing by the round before would leave 25.
    let changes = quota_round(&mut aimd, 100, 48, 0);
    assert_eq!(
        changes.iter().filter(|c| **c == Change::Decreased).count(),
        1
    );
    assert_eq!(aimd.limit(), 38);
}

/// A busy round at `at` ms: `in_flight` calls, each admitted with `in_flight` in flight and
/// back 100 ms later, the first `ok` of them served and the rest refused at once (a quota).
fn busy_round<C: Controller>(c: &mut C, at: u64, in_flight: u32, ok: u32) {
    let admitted: Vec<Admission> = (0..in_flight)
        .map(|_| Admission::new(c, Instant::from_millis(at), in_flight))
        .collect();
    let done = Instant::from_millis(at + 100);
    for (i, a) in admitted.into_iter().enumerate() {
        let outcome = if (i as u32) < ok {
            Outcome::Success
        } else {
            Outcome::Overload
        };
        c.on_sample(&Sample::new(a, done, outcome));
    }
}

/// The fixed-point AIMD with the growth probe and the compact one, both starting at `initial`
/// within `[1, 64]`, to run side by side.
fn probing_and_compact(initial: u32) -> (AimdFixed, AimdFixedCompact) {
    let config = AimdConfig::default().initial(initial).bounds(1, 64);
    (
        AimdFixed::new(config).unwrap(),
        AimdFixedCompact::new(config).unwrap(),
    )
}

/// Rounds of the limit's calls (each admitted with the limit in flight) under a quota of `quota`
/// concurrent calls, from `t` (ms, moved on by 100 a round): the limits after each.
fn under_quota<C: Controller>(c: &mut C, t: &mut u64, quota: u32, rounds: usize) -> Vec<u32> {
    (0..rounds)
        .map(|_| {
            let limit = c.limit();
            busy_round(c, *t, limit, limit.min(quota));
            *t += 100;
            c.limit()
        })
        .collect()
}

#[test]
fn below_a_quick_refusals_knee_the_limit_returns_in_rounds_and_a_sized_cut_sets_the_knee() {
    let (mut probing, mut compact) = probing_and_compact(50);
    let (mut t, mut tc) = (0, 0);
    // A quota of 50 calls: the third round tries 51, one call is refused, and the cut by the
    // backoff leaves 42 (51 x 0.8, and the growth of the round's successes before it), the
    // knee at 51. With the probe the next round closes about two thirds of the way back to the
    // unit below the knee (the step is the whole way, worked out again at each sample).
    assert_eq!(under_quota(&mut probing, &mut t, 50, 4), [50, 51, 42, 47]);
    assert_eq!(under_quota(&mut compact, &mut tc, 50, 4), [50, 51, 42, 43]);
    // Back at 50 a round later, it dwells there (an eighth of a step per round) and tries 51
    // again eight rounds on: refused at the knee, the try takes back the unit it tried (50),
    // not the backoff's fifth (41; see `Knee::tried_back`). The compact AIMD returns one step
    // per round.
    assert_eq!(
        under_quota(&mut probing, &mut t, 50, 12),
        [49, 50, 50, 50, 50, 50, 50, 50, 50, 51, 50, 50]
    );
    assert_eq!(
        under_quota(&mut compact, &mut tc, 50, 12),
        [44, 45, 46, 47, 48, 49, 50, 50, 50, 50, 50, 50]
    );
    // The quota falls to 5. The first round is cut by the backoff; the second down to what the
    // first kept (5), and the knee goes to one above that, not to the 40 in flight: the limit
    // dwells at 5 and tries 6 eight rounds later, where a knee at 40 would have brought it back
    // towards 39 within a few rounds, into a round of refusals.
    assert_eq!(under_quota(&mut probing, &mut t, 5, 2), [40, 5]);
    assert_eq!(
        under_quota(&mut probing, &mut t, 5, 10),
        [5, 5, 5, 5, 5, 5, 5, 5, 6, 5]
    );
    // The quota comes back to 50. The knee the fall left (6) is tried at the end of the dwell,
    // served, and the round past it shows its added calls served: the limit goes straight
    // back to 50, the unit below the knee the fall moved down from (51). Above the knee (6)
    // the probe tries 51 next, which is refused, and the limit returns below it in rounds.
    // A step of the whole way per growth sample took 9 rounds to reach 48
    // (`[5, 5, 5, 5, 6, 7, 13, 18, 24, 26, 33, 39, 43, 48, 54, 48]`: each sample adds a
    // limit's share of the step, and the calls admitted before a rise hold the growth back
    // until they complete); one step per round with the probe's doubling took 16 rounds to
    // reach 31 (`[5, 5, 5, 5, 6, 7, 8, 10, 11, 13, 15, 17, 20, 24, 27, 31]`).
    let (mut partial, mut tp) = (probing.clone(), t);
    assert_eq!(
        under_quota(&mut probing, &mut t, 50, 16),
        [5, 5, 5, 5, 6, 7, 50, 51, 44, 48, 49, 50, 50, 50, 50, 50]
    );
    // A quota that comes back only to 20: the return to 50 is refused (30 calls of the round),
    // the cut by the backoff answers it (40), the next round is cut down to what that one kept
    // (20), and the limit holds 20 from the 9th round. (The return in rounds was refused at 24
    // and held 20 from the 17th; without the return, from the 18th.) One refused round is
    // what a return too far costs, as the fall did.
    assert_eq!(
        under_quota(&mut partial, &mut tp, 20, 18),
        [
            5, 5, 5, 5, 6, 7, 50, 40, 20, 20, 20, 20, 20, 20, 20, 20, 20, 21
        ]
    );
}

#[test]
fn a_refused_try_of_the_knee_tallies_its_round_under_the_limit_it_took_back_to() {
    let (mut probing, _) = probing_and_compact(50);
    let mut t = 0;
    // A quota of 50: the knee is found at 51, and the limit dwells at 50 until it tries 51
    // again (as in the test above).
    assert_eq!(under_quota(&mut probing, &mut t, 50, 4), [50, 51, 42, 47]);
    assert_eq!(
        under_quota(&mut probing, &mut t, 50, 10),
        [49, 50, 50, 50, 50, 50, 50, 50, 50, 51]
    );
    // The quota falls to 5 as 51 is tried: the try takes back only the unit it tried (50, not
    // the backoff's 40), and its round is tallied: 51 in flight, 46 refused.
    assert_eq!(under_quota(&mut probing, &mut t, 5, 1), [50]);
    // The next round serves 45 before a refusal: within the 50 successes of the limit the try
    // left, so the cut is sized by the tallied round, down to the 5 it kept. (Tallied under the
    // backoff's 40 instead, those 45 successes would have closed the tally, and the cut been
    // the backoff's: 40.)
    assert_eq!(under_quota(&mut probing, &mut t, 45, 1), [5]);
}

#[test]
fn a_few_refusals_or_a_cut_a_round_later_cut_by_the_backoff() {
    let config = AimdConfig::default().initial(50).bounds(1, 64);
    let mut aimd = AimdF32::new(config).unwrap();
    // A round of 50 with 2 refusals kept 48: the next cut is the backoff's. (Its successes
    // admitted with 32 or more in flight first take the limit from 40 back towards the quick
    // refusal's knee at 50, to 42: 42 × 0.8.)
    quota_round(&mut aimd, 0, 50, 48);
    assert_eq!(aimd.limit(), 40);
    quota_round(&mut aimd, 100, 40, 39);
    assert_eq!(aimd.limit(), 33);
    // A round that kept nothing, then a whole round of successes: the tally is stale, and the
    // next cut is the backoff's again.
    quota_round(&mut aimd, 200, 32, 0);
    assert_eq!(aimd.limit(), 26);
    quota_round(&mut aimd, 300, 26, 26);
    quota_round(&mut aimd, 400, 26, 0);
    assert_eq!(aimd.limit(), 21);
}

#[test]
fn an_idle_client_does_not_inflate_its_limit() {
    let mut aimd = AimdF32::new(seed_config()).unwrap();
    for i in 0..1_000 {
        let a = Admission::new(&aimd, Instant::from_micros(i * MS), 1);
        aimd.on_sample(&Sample::new(
            a,
            Instant::from_micros(i * MS + 5 * MS),
            Outcome::Success,
        ));
    }
    assert_eq!(aimd.limit(), 8);
    // Growth needs in-flight near the limit: 80% by default, exactly (0.8 × 8 = 6.4: seven).
    let grows = |in_flight| {
        let mut c = aimd.clone();
        let a = Admission::new(&c, Instant::from_millis(2_000), in_flight);
        c.on_sample(&Sample::new(
            a,
            Instant::from_millis(2_005),
            Outcome::Success,
        ))
    };
    assert_eq!(grows(6), Change::Unchanged);
    assert_eq!(grows(7), Change::Increased);
    assert_eq!(grows(8), Change::Increased);
}

/// The limit after `n` fast successes, one a millisecond from `from` ms, each admitted with
/// `in_flight` calls.
fn grown_with<C: Controller>(c: &mut C, from: u64, n: u64, in_flight: u32) -> u32 {
    for i in 0..n {
        complete_with(c, (from + i) * MS, 5 * MS, in_flight);
    }
    c.limit()
}

#[test]
fn the_calls_growth_needs_follow_the_limit_up_and_down() {
    fn run<V: LimitValue>() {
        let mut aimd = Aimd::<V, 32>::new(seed_config()).unwrap();
        // 80 % of the limit, rounded up: 7 calls grow 8 (6.4) but not 9 (7.2), 8 calls grow 10
        // (8.0) but not 11 (8.8).
        assert_eq!(grown_with(&mut aimd, 0, 200, 7), 9);
        assert_eq!(grown_with(&mut aimd, 200, 200, 8), 11);
        // A refusal cuts by the backoff (0.75 of 11: 8); past the cooldown, 7 calls grow it
        // again, and again only to 9.
        complete(&mut aimd, 400 * MS, 5 * MS, Outcome::Overload);
        assert_eq!(aimd.limit(), 8);
        assert_eq!(grown_with(&mut aimd, 10_000, 200, 7), 9);
    }
    run::<F32>();
    run::<Q32>();
}

#[test]
fn growth_waits_out_the_cooldown_and_retry_after_hints() {
    let config = seed_config().cooldown(Duration::from_millis(100));
    let mut aimd = AimdF32::new(config).unwrap();
    complete(&mut aimd, 0, 5 * MS, Outcome::Overload); // cut at 5 ms
    assert_eq!(
        complete(&mut aimd, 10 * MS, 5 * MS, Outcome::Success),
        Change::Unchanged
    );
    assert_eq!(
        complete(&mut aimd, 100 * MS, 6 * MS, Outcome::Success),
        Change::Increased
    );

    aimd.hold_growth_until(Instant::from_millis(200), Instant::from_millis(1_200));
    assert_eq!(
        complete(&mut aimd, 1_000 * MS, 5 * MS, Outcome::Success),
        Change::Unchanged
    );
    assert_eq!(
        complete(&mut aimd, 1_200 * MS, 5 * MS, Outcome::Success),
        Change::Increased
    );
}

#[test]
fn a_clock_that_goes_backwards_does_not_stretch_a_hold() {
    let config = seed_config().cooldown(Duration::from_millis(100));
    let mut aimd = AimdF32::new(config).unwrap();
    complete(&mut aimd, 1_000_000 * MS, 5 * MS, Outcome::Overload);
    // The clock is reset far back; 100 ms of its new time is enough to end the cooldown.
    assert_eq!(
        complete(&mut aimd, 0, 5 * MS, Outcome::Success),
        Change::Unchanged
    );
    assert_eq!(
        complete(&mut aimd, 100 * MS, 5 * MS, Outcome::Success),
        Change::Increased
    );
    // A sample that completes "before" it was admitted has zero latency, not a huge one.
    let a = Admission::new(&aimd, Instant::from_millis(500), 8);
    let s = Sample::new(a, Instant::from_millis(400), Outcome::Success);
    assert_eq!(s.latency_micros(), 0);
    aimd.on_sample(&s);
}

#[test]
fn a_far_future_timestamp_does_not_freeze_time() {
    let config = seed_config().cooldown(Duration::from_millis(100));
    let mut aimd = AimdF32::new(config).unwrap();
    let a = Admission::new(&aimd, Instant::ZERO, 8);
    aimd.on_sample(&Sample::new(a, Instant::MAX, Outcome::Ignore));
    aimd.hold_growth_until(Instant::MAX, Instant::MAX);
    // The clock comes back to sane values: the cooldown still holds growth for 100 ms.
    complete(&mut aimd, 1_000 * MS, 5 * MS, Outcome::Overload);
    assert_eq!(
        complete(&mut aimd, 1_050 * MS, 5 * MS, Outcome::Success),
        Change::Unchanged
    );
    assert_eq!(
        complete(&mut aimd, 1_100 * MS, 5 * MS, Outcome::Success),
        Change::Increased
    );
}

#[test]
fn out_of_order_completions_do_not_shorten_a_hold() {
    let config = seed_config().cooldown(Duration::from_millis(100));
    let mut aimd = AimdF32::new(config).unwrap();
    complete(&mut aimd, 995 * MS, 5 * MS, Outcome::Overload); // cut at 1000 ms
    for (admitted, completed) in [(1_040, 1_050), (990, 999), (1_088, 1_099)] {
        let a = Admission::new(&aimd, Instant::from_millis(admitted), 8);
        let s = Sample::new(a, Instant::from_millis(completed), Outcome::Success);
        assert_eq!(aimd.on_sample(&s), Change::Unchanged, "at {completed} ms");
    }
    assert_eq!(
        complete(&mut aimd, 1_095 * MS, 5 * MS, Outcome::Success),
        Change::Increased
    );
}

#[test]
fn a_coarse_clock_does_not_make_every_tick_congestion() {
    // A 1 kHz tick: most calls measure 0 ms, some 1 ms.
    let mut aimd = AimdF32::new(AimdConfig::default().initial(8)).unwrap();
    for i in 0..500 {
        let latency = if i % 3 == 0 { MS } else { 0 };
        assert_ne!(
            complete(&mut aimd, i * 10 * MS, latency, Outcome::Success),
            Change::Decreased,
            "sample {i}"
        );
    }
    // A median of 0 is remembered as the floor, which the thresholds compare with anyway.
    assert_eq!(aimd.stats().baseline_micros, Some(1_000));
    // 1 ms is within twice the 1 ms floor; 2 ms, twice the floor, is not
    // (two of the last four: one is noise).
    assert_ne!(
        complete(&mut aimd, 9_000 * MS, MS, Outcome::Success),
        Change::Decreased
    );
    assert_eq!(
        complete(&mut aimd, 9_100 * MS, 2 * MS, Outcome::Success),
        Change::Unchanged
    );
    assert_eq!(
        complete(&mut aimd, 9_200 * MS, 2 * MS, Outcome::Success),
        Change::Decreased
    );
}

/// Feeds `latencies` as successes 1 ms apart from `*t`, the limit fully used; returns the
/// changes.
fn feed<C: Controller>(c: &mut C, t: &mut u64, latencies: &[u64]) -> Vec<Change> {
    latencies
        .iter()
        .map(|&latency| {
            *t += MS;
            complete(c, *t, latency, Outcome::Success)
        })
        .collect()
}

#[test]
fn a_widely_spread_dependency_needs_five_slow_calls_of_eight_to_cut() {
    // A window of 32 healthy latencies, four each of 8, 10, …, 22 ms: the upper quartile (rank
    // 24: 20 ms) is more than 1.5 times the lowest eighth (rank 4: 10 ms). The baseline is the
    // lowest median since the window held 10 samples, 12 ms (24 ms is congestion). The healthy
    // calls among the slow ones below push out an 8, a 10 and a 12 ms one: the spread stays.
    let healthy: Vec<u64> = (0..32).map(|i| (8 + 2 * (i % 8)) * MS).collect();
    let mut spread = AimdF32::new(AimdConfig::default().initial(8)).unwrap();
    let mut t = 0;
    feed(&mut spread, &mut t, &healthy);
    assert_eq!(spread.stats().baseline_micros, Some(12_000));
    // Four slow calls among eight hold; the fifth cuts.
    let (slow, ok) = (35 * MS, 15 * MS);
    let calls = [slow, ok, slow, ok, slow, ok, slow, slow];
    let changes = feed(&mut spread, &mut t, &calls);
    let cuts = changes.iter().filter(|&&c| c == Change::Decreased).count();
    assert_eq!((cuts, changes[7]), (1, Change::Decreased), "{changes:?}");

    // The same calls after a window of 15 ms only: two slow among four cut.
    let mut narrow = AimdF32::new(AimdConfig::default().initial(8)).unwrap();
    let mut t = 0;
    feed(&mut narrow, &mut t, &[15 * MS; 32]);
    let changes = feed(&mut narrow, &mut t, &calls[..3]);
    assert_eq!(changes[2], Change::Decreased, "{changes:?}");
}

#[test]
fn no_latency_verdict_until_the_window_has_min_samples() {
    let config = AimdConfig::default().initial(8).bounds(1, 64).baseline(
        Ratio::from_int(2),
        10,
        Duration::from_secs(10),
    );
    let mut aimd = AimdF32::new(config).unwrap();
    // Wildly varying latencies while the window fills: never a cut.
    // (Within seconds: 5 s without a success at the baseline would start a drain.)
    for (i, ms) in [1, 100, 2, 300, 1, 50, 2, 900, 3].iter().enumerate() {
        let c = complete(&mut aimd, i as u64 * 100 * MS, ms * MS, Outcome::Success);
        assert_ne!(c, Change::Decreased, "sample {i}");
    }
    complete(&mut aimd, 1_000 * MS, 2 * MS, Outcome::Success); // 10th sample: median is 2.5 ms
    assert_eq!(aimd.stats().baseline_micros, Some(2_500));
    assert_eq!(
        complete(&mut aimd, 2_000 * MS, 6 * MS, Outcome::Success),
        Change::Unchanged,
        "one slow success is not yet congestion"
    );
    assert_eq!(
        complete(&mut aimd, 2_100 * MS, 6 * MS, Outcome::Success),
        Change::Decreased
    );
}

#[test]
fn latency_signal_off_cuts_only_on_overload() {
    let config = seed_config().signal(LatencySignal::Off);
    let mut aimd = AimdF32::new(config).unwrap();
    for i in 0..100 {
        assert_ne!(
            complete(&mut aimd, i * 10 * MS, (i + 1) * 100 * MS, Outcome::Success),
            Change::Decreased
        );
    }
    assert_eq!(aimd.stats().decreases, 0);
}

#[test]
fn invalid_configurations_are_rejected_at_construction() {
    let ok = AimdConfig::default();
    let cases = [
        (ok.min(0), ConfigError::MinIsZero),
        (ok.bounds(10, 5), ConfigError::MinAboveMax),
        (ok.max((1 << 24) + 1), ConfigError::MaxTooLarge),
        (ok.initial(100), ConfigError::InitialOutOfBounds),
        (ok.backoff(Ratio::ONE), ConfigError::BackoffOutOfRange),
        (ok.backoff(Ratio::ZERO), ConfigError::BackoffOutOfRange),
        (ok.step(Ratio::ZERO), ConfigError::StepOutOfRange),
        (ok.step(Ratio::from_int(65)), ConfigError::StepOutOfRange),
        (
            ok.baseline(Ratio::ONE, 10, Duration::ZERO),
            ConfigError::ToleranceOutOfRange,
        ),
        (
            ok.baseline(Ratio::from_int(2), 0, Duration::ZERO),
            ConfigError::MinSamplesOutOfRange,
        ),
        (
            ok.baseline(Ratio::from_int(2), 33, Duration::ZERO),
            ConfigError::MinSamplesOutOfRange,
        ),
        (ok.target(Duration::ZERO), ConfigError::TargetIsZero),
        (
            ok.growth_utilisation(Ratio::from_int(2)),
            ConfigError::UtilisationOutOfRange,
        ),
    ];
    for (config, error) in cases {
        assert_eq!(AimdF32::new(config).unwrap_err(), error, "{config:?}");
        assert_eq!(AimdFixed::new(config).unwrap_err(), error, "{config:?}");
    }
    // A bigger window accepts more min_samples.
    assert!(Aimd::<F32, 64>::new(ok.baseline(Ratio::from_int(2), 33, Duration::ZERO)).is_ok());
    // NaN never becomes a configuration.
    assert!(Ratio::from_f32(f32::NAN).is_err());
}

/// A deterministic event stream with everything hostile in it: jumps, backwards time, huge and
/// zero latencies, stale epochs, every outcome, huge hints.
struct Chaos(u64);

impl Chaos {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn time(&mut self, now: &mut u64) -> u64 {
        *now = match self.next() % 10 {
            0 => now.saturating_sub(self.next() % (1_000 * MS)),
            1 => self.next(),
            2 => u64::MAX - self.next() % 1_000,
            _ => now.saturating_add(self.next() % (50 * MS)),
        };
        *now
    }
}

fn chaos_step<C: Controller>(c: &mut C, rng: &mut Chaos, now: &mut u64, epochs: &mut Vec<u32>) {
    let admitted_at = rng.time(now);
    let epoch = if rng.next() % 4 == 0 {
        epochs[(rng.next() as usize) % epochs.len()]
    } else {
        c.epoch().0
    };
    let in_flight = (rng.next() % u64::from(c.limit() * 2 + 1)) as u32;
    let completed_at = rng.time(now);
    let outcome = match rng.next() % 5 {
        0 => Outcome::Overload,
        1 => Outcome::Ignore,
        _ => Outcome::Success,
    };
    let admission = Admission {
        at: Instant::from_micros(admitted_at),
        epoch: limiter_core::Epoch(epoch),
        in_flight,
    };
    c.on_sample(&Sample::new(
        admission,
        Instant::from_micros(completed_at),
        outcome,
    ));
    if rng.next() % 50 == 0 {
        let at = Instant::from_micros(rng.time(now));
        c.hold_growth_until(at, Instant::from_micros(rng.next()));
    }
    epochs.push(c.epoch().0);
}

#[test]
fn hostile_event_streams_keep_the_limit_within_bounds() {
    for seed in 1..=seeds(200) {
        let mut rng = Chaos(seed.wrapping_mul(0x2545_F491_4F6C_DD1D));
        let min = 1 + (rng.next() % 4) as u32;
        let max = min + (rng.next() % 100) as u32;
        let config = AimdConfig::default()
            .initial(min)
            .bounds(min, max)
            .cooldown(Duration::from_micros(rng.next() % (100 * MS)));
        let mut float = AimdF32::new(config).unwrap();
        let mut fixed = AimdFixed::new(config).unwrap();
        let (mut now_f, mut now_q) = (0, 0);
        let (mut rng_f, mut rng_q) = (Chaos(rng.0), Chaos(rng.0));
        let (mut ep_f, mut ep_q) = (vec![0], vec![0]);
        for _ in 0..500 {
            chaos_step(&mut float, &mut rng_f, &mut now_f, &mut ep_f);
            chaos_step(&mut fixed, &mut rng_q, &mut now_q, &mut ep_q);
            for limit in [float.limit(), fixed.limit()] {
                assert!((min..=max).contains(&limit), "seed {seed}: {limit}");
            }
            assert!(float.limit_value().get().is_finite());
        }
    }
}

#[test]
fn float_and_fixed_agree_within_one_unit_on_the_same_sequence() {
    for seed in 1..=seeds(100) {
        let mut rng = Chaos(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let config = AimdConfig::default()
            .initial(10)
            .bounds(2, 200)
            .backoff(Ratio::from_fraction(7, 10).unwrap())
            .cooldown(Duration::from_millis(rng.next() % 50));
        let mut float = AimdF32::new(config).unwrap();
        let mut fixed = AimdFixed::new(config).unwrap();
        let mut now = 0u64;
        for step in 0..3_000 {
            // Both see the same admission facts; in-flight follows the float limit.
            now += rng.next() % (20 * MS);
            let latency = match rng.next() % 10 {
                0 => rng.next() % (500 * MS),
                _ => 5 * MS + rng.next() % (5 * MS),
            };
            let in_flight = (rng.next() % u64::from(float.limit() + 1)) as u32;
            let outcome = match rng.next() % 20 {
                0 => Outcome::Overload,
                1 => Outcome::Ignore,
                _ => Outcome::Success,
            };
            for c in [&mut float as &mut dyn Controller, &mut fixed] {
                let a = Admission {
                    at: Instant::from_micros(now),
                    epoch: c.epoch(),
                    in_flight,
                };
                c.on_sample(&Sample::new(
                    a,
                    Instant::from_micros(now + latency),
                    outcome,
                ));
            }
            let (f, q) = (float.limit(), fixed.limit());
            assert!(f.abs_diff(q) <= 1, "seed {seed} step {step}: {f} vs {q}");
        }
    }
}

#[test]
fn latency_far_over_the_threshold_cuts_deeper_within_the_deepest_cut() {
    // A 10 ms target: 11 ms is barely over (the backoff, 0.8); 40 ms is 4x over (1/4, held at
    // the deepest cut, 0.5). A refusal is sized the same way by how late it came (a timeout
    // 4x over the threshold cuts to 0.5), except in the compact AIMD; a quick one uses the
    // backoff.
    let config = AimdConfig::default()
        .initial(20)
        .bounds(1, 64)
        .target(Duration::from_millis(10));
    let cut_by = |latency: u64, outcome: Outcome, config: AimdConfig| {
        let mut aimd = AimdFixed::new(config).unwrap();
        if outcome == Outcome::Success {
            // Latency congestion takes two slow successes among the last four.
            assert_eq!(complete(&mut aimd, 0, latency, outcome), Change::Unchanged);
        }
        assert_eq!(complete(&mut aimd, 0, latency, outcome), Change::Decreased);
        f64::from(aimd.stats().limit) / 20.0
    };
    assert_eq!(cut_by(11 * MS, Outcome::Success, config), 0.8);
    assert_eq!(cut_by(16 * MS, Outcome::Success, config), 0.6); // 10/16 = 0.625 -> 12.5
    assert_eq!(cut_by(40 * MS, Outcome::Success, config), 0.5);
    assert_eq!(cut_by(40 * MS, Outcome::Overload, config), 0.5);
    assert_eq!(cut_by(16 * MS, Outcome::Overload, config), 0.6);
    assert_eq!(
        cut_by(10 * MS, Outcome::Overload, config),
        0.8,
        "at the target"
    );
    assert_eq!(cut_by(MS, Outcome::Overload, config), 0.8);
    let mut compact = AimdFixedCompact::new(config).unwrap();
    assert_eq!(
        complete(&mut compact, 0, 40 * MS, Outcome::Overload),
        Change::Decreased
    );
    assert_eq!(
        compact.stats().limit,
        16,
        "the compact AIMD cuts by the backoff"
    );
    let plain = config.deepest_cut(Ratio::from_fraction(9, 10).unwrap());
    assert_eq!(
        cut_by(40 * MS, Outcome::Success, plain),
        0.8,
        "a fixed decrease when asked"
    );
    for bad in [Ratio::ZERO, Ratio::ONE] {
        assert_eq!(
            AimdFixed::new(config.deepest_cut(bad)).unwrap_err(),
            ConfigError::DeepestCutOutOfRange
        );
    }
}

#[test]
fn durations_beyond_71_minutes_saturate_at_u32_max_micros() {
    let config = AimdConfig::DEFAULT
        .initial(8)
        .target(Duration::from_secs(10_000));
    assert_eq!(
        config,
        AimdConfig::DEFAULT
            .initial(8)
            .target(Duration::from_micros(u64::from(u32::MAX)))
    );
    let mut aimd = AimdFixed::new(config).unwrap();
    let max = u64::from(u32::MAX);
    assert_ne!(
        complete(&mut aimd, 0, max, Outcome::Success),
        Change::Decreased
    );
    assert_eq!(
        complete(&mut aimd, 2 * max, max + 1, Outcome::Success),
        Change::Unchanged
    );
    assert_eq!(
        complete(&mut aimd, 4 * max, max + 1, Outcome::Success),
        Change::Decreased
    );
}

/// Rounds of `limit` calls of 100 ms each, every call admitted with the limit in use (a quota
/// or a server with room: the rate follows the limit), until the limit reaches `target`;
/// returns the number of rounds.
fn rounds_to_reach<C: Controller>(c: &mut C, t: &mut u64, target: u32) -> usize {
    let mut rounds = 0;
    while c.limit() < target && rounds < 1_000 {
        let n = c.limit();
        for _ in 0..n {
            let admitted = Admission::new(c, Instant::from_micros(*t), n);
            c.on_sample(&Sample::new(
                admitted,
                Instant::from_micros(*t + 100 * MS),
                Outcome::Success,
            ));
        }
        *t += 100 * MS;
        rounds += 1;
    }
    rounds
}

#[test]
fn the_growth_probe_finds_returned_capacity_in_25_rounds_where_one_step_needs_56() {
    // A quota of 5 per window throttles at a limit of 6 (cut to 4); then it returns to 50.
    fn recovery<C: Controller>(mut c: C) -> (usize, u32) {
        let mut t = 0;
        assert_eq!(
            complete(&mut c, t, 100 * MS, Outcome::Overload),
            Change::Decreased
        );
        t += 100 * MS;
        let rounds = rounds_to_reach(&mut c, &mut t, 50);
        (rounds, c.limit())
    }
    let config = AimdConfig::default().initial(6);
    let probing = recovery(AimdFixed::new(config).unwrap());
    let compact = recovery(Aimd::<Q32, 32, 0>::new(config).unwrap());
    assert_eq!(
        compact,
        (56, 50),
        "a little under one step per round from 4.8, eight rounds in the unit below the knee"
    );
    // The same eight rounds below the knee at 6, then doubling steps above it.
    assert_eq!(probing, (25, 55));
    // The float and fixed-point limits take the same path.
    assert_eq!(recovery(AimdF32::new(config).unwrap()), probing);
}

#[test]
fn the_growth_probe_stays_at_one_step_when_the_rate_does_not_follow() {
    // A server that completes 4 calls per 100 ms whatever the limit: each round of `n` calls
    // takes n × 25 ms. The limit grows one step per round, never faster.
    let mut aimd =
        AimdFixed::new(AimdConfig::default().initial(8).signal(LatencySignal::Off)).unwrap();
    let mut t = 0;
    let mut last = aimd.limit();
    for round in 0..30u32 {
        let n = aimd.limit();
        assert!(n <= last + 1, "round {round}: {last} -> {n}");
        last = n;
        let took = u64::from(n) * 25 * MS;
        for i in 0..n {
            let admitted = Admission::new(&aimd, Instant::from_micros(t), n);
            let done = t + took * u64::from(i + 1) / u64::from(n);
            aimd.on_sample(&Sample::new(
                admitted,
                Instant::from_micros(done),
                Outcome::Success,
            ));
        }
        t += took;
    }
    assert!(aimd.limit() >= 8 + 25, "still growing: {}", aimd.limit());
}

#[test]
fn a_congestion_signal_returns_the_probe_to_one_step_and_a_held_sample_does_not() {
    let probing = || {
        let mut aimd = AimdFixed::new(AimdConfig::default().initial(16)).unwrap();
        let mut t = 0;
        // Fast rounds at 100 ms: the step grows past one.
        rounds_to_reach(&mut aimd, &mut t, 30);
        (aimd, t)
    };
    // The next two rounds grow by exactly one step each (a round with no predecessor, then the
    // first comparison) after an overload; by more after a sample in the hold band.
    let two_rounds = |aimd: &mut AimdFixed, t: &mut u64| {
        let start = aimd.limit();
        rounds_to_reach(aimd, t, start + 1);
        rounds_to_reach(aimd, t, start + 2);
        aimd.limit() - start
    };
    // (Timeouts, four times the baseline. The first is the client's own try of the level it
    // stood at, and below the knee it found the limit returns to the unit below it within a
    // round, as below a quick refusal's knee, which is not the probe's speed; the second,
    // seen at the level the first cut left, below that knee, is not a try of its own.)
    let (mut overloaded, mut t) = probing();
    for _ in 0..2 {
        assert_eq!(
            complete(&mut overloaded, t, 400 * MS, Outcome::Overload),
            Change::Decreased
        );
        t += 400 * MS;
    }
    assert_eq!(two_rounds(&mut overloaded, &mut t), 2);

    let (mut held, mut t) = probing();
    let limit = held.limit();
    // One call at 1.5 times the baseline (inside the 1.25-2 band) holds the limit...
    let admitted = Admission::new(&held, Instant::from_micros(t), limit);
    let sample = Sample::new(
        admitted,
        Instant::from_micros(t + 150 * MS),
        Outcome::Success,
    );
    assert_eq!(held.on_sample(&sample), Change::Unchanged);
    t += 150 * MS;
    // ...and the probe keeps its speed.
    assert!(two_rounds(&mut held, &mut t) > 2);
}

/// One success admitted at `at` with the limit in use, taking `latency`; returns the change.
fn success_at<C: Controller>(c: &mut C, at: u64, latency: u64) -> Change {
    complete(c, at, latency, Outcome::Success)
}

/// `n` successes of `latency`, admitted 10 ms apart from `*t` on.
fn successes<C: Controller>(c: &mut C, t: &mut u64, n: usize, latency: u64) {
    for _ in 0..n {
        success_at(c, *t, latency);
        *t += 10 * MS;
    }
}

#[test]
fn a_standing_queue_is_drained_for_one_round_every_five_seconds() {
    let mut aimd = AimdFixed::new(AimdConfig::default().initial(16)).unwrap();
    // A baseline of 100 ms, then a standing queue: 140 ms, inside the hold band.
    let mut t = 0;
    successes(&mut aimd, &mut t, 10, 100 * MS);
    assert_eq!(aimd.stats().baseline_micros, Some(100_000));
    let last_at_baseline = t; // the 10th success ended at t - 10 ms + 100 ms
    let mut drained_at = None;
    while t < 10_000 * MS {
        if success_at(&mut aimd, t, 140 * MS) == Change::Decreased {
            drained_at = Some(t);
            break;
        }
        t += 10 * MS;
    }
    let drained_at = drained_at.expect("a drain");
    // Five seconds after the last success at the baseline, the limit halves under a new epoch.
    let since = drained_at + 140 * MS - (last_at_baseline + 90 * MS);
    assert!(
        (5_000 * MS..5_010 * MS).contains(&since),
        "after {since} µs"
    );
    assert_eq!(aimd.limit(), 8);
    // Samples admitted before the drain do not end it; eight admitted after it do.
    let epoch = aimd.epoch();
    for i in 0..7 {
        let admitted = Admission::new(&aimd, Instant::from_micros(t + i * MS), 8);
        let done = Sample::new(
            admitted,
            Instant::from_micros(t + 130 * MS + i * MS),
            Outcome::Success,
        );
        assert_eq!(
            aimd.on_sample(&done),
            Change::Unchanged,
            "drained sample {i}"
        );
    }
    assert_eq!(aimd.epoch(), epoch);
    let admitted = Admission::new(&aimd, Instant::from_micros(t + 8 * MS), 8);
    let done = Sample::new(
        admitted,
        Instant::from_micros(t + 140 * MS),
        Outcome::Success,
    );
    assert_eq!(aimd.on_sample(&done), Change::Increased);
    assert_eq!(aimd.limit(), 16, "back where it was");
}

/// A controller whose baseline, 100 ms, was learned on a queue it built with others from its
/// first calls (started at 6, grown to 7 on them), then drained from a standing queue of
/// 160 ms (in the hold band) to 3; and the time after the drain began.
fn drained_on_a_queue_of_its_own_making() -> (AimdFixed, u64) {
    let mut aimd = AimdFixed::new(AimdConfig::default().initial(6)).unwrap();
    let mut t = 0;
    successes(&mut aimd, &mut t, 10, 100 * MS);
    assert_eq!(aimd.stats().baseline_micros, Some(100_000));
    assert_eq!(aimd.limit(), 7);
    while success_at(&mut aimd, t, 160 * MS) != Change::Decreased {
        t += 10 * MS;
        assert!(t < 10_000 * MS, "no drain");
    }
    assert_eq!(aimd.limit(), 3);
    (aimd, t + 160 * MS)
}

#[test]
fn a_drain_whose_calls_come_back_low_holds_until_their_round_is_whole() {
    // Its drained calls come back at 30 ms, under 10/11 of the baseline. The drain's own round
    // (3 calls) ends with the third, but the low round they began (6 calls at least) is under
    // way: the drain holds the limit at 3 until it is whole (the limit went back to 7 at the
    // third before the hold).
    let (mut aimd, mut t) = drained_on_a_queue_of_its_own_making();
    let mut limits = Vec::new();
    let changes: Vec<Change> = (0..6)
        .map(|_| {
            let change = complete_with(&mut aimd, t, 30 * MS, 3);
            t += 30 * MS;
            limits.push(aimd.limit());
            change
        })
        .collect();
    assert_eq!(&changes[..5], &[Change::Unchanged; 5]);
    assert_eq!(&limits[..5], &[3; 5]);
    // The sixth makes it a low round: the baseline is 30 ms, and the limit and the level the
    // drain returns to are scaled by 30/100 (3 to 0.9 and 7 to 2.1: the floor, 1, and 2).
    assert_eq!(changes[5], Change::Decreased);
    assert_eq!(aimd.stats().baseline_micros, Some(30_000));
    assert_eq!(aimd.limit(), 1);
    // The next call ends the drain, at the level it returns to.
    assert_eq!(complete_with(&mut aimd, t, 30 * MS, 1), Change::Increased);
    assert_eq!(aimd.limit(), 2);
}

#[test]
fn a_held_drain_ends_when_its_calls_stop_coming_back_low() {
    // Three calls at 30 ms hold the drain past its round; the fourth, at 120 ms, ends the low
    // run (it is not under 10/11 of 100 ms), and with it the drain: back to 7.
    let (mut aimd, mut t) = drained_on_a_queue_of_its_own_making();
    for _ in 0..3 {
        assert_eq!(complete_with(&mut aimd, t, 30 * MS, 3), Change::Unchanged);
        t += 30 * MS;
    }
    assert_eq!(complete_with(&mut aimd, t, 120 * MS, 3), Change::Increased);
    assert_eq!(aimd.limit(), 7);
    assert_eq!(aimd.stats().baseline_micros, Some(100_000));
}

#[test]
fn a_round_below_the_band_lowers_an_inflated_baseline() {
    // A client that joined a queue others keep: it learned 150 ms as its baseline.
    let mut aimd = AimdFixed::new(AimdConfig::default().initial(8)).unwrap();
    let mut t = 0;
    successes(&mut aimd, &mut t, 20, 150 * MS);
    let learned = aimd.stats().baseline_micros.unwrap();
    assert!((149_000..=150_000).contains(&learned), "{learned} µs"); // 12 significant bits
    // The queue empties for a moment: a round (its limit, which grows meanwhile) at 100-105 ms.
    let round = aimd.limit();
    assert!(round > 8);
    for i in 0..u64::from(round) + 2 {
        success_at(&mut aimd, t, (100 + i % 6) * MS);
        t += 10 * MS;
    }
    assert_eq!(aimd.stats().baseline_micros, Some(105_000));
    // The queue returns: 150 ms is now in the hold band, and the limit stops growing.
    let limit = aimd.limit();
    for _ in 0..20 {
        assert_ne!(success_at(&mut aimd, t, 150 * MS), Change::Increased);
        t += 10 * MS;
    }
    assert_eq!(aimd.limit(), limit);
}

#[test]
fn a_round_below_the_band_scales_the_limit_by_the_corrected_baseline() {
    let (mut probing, mut compact) = probing_and_compact(13);
    let (mut t, mut tc) = (0, 0);
    // A baseline learned on a queue others keep: 144 ms.
    one_at_a_time(&mut probing, &mut t, 40, 144 * MS);
    one_at_a_time(&mut compact, &mut tc, 40, 144 * MS);
    assert_eq!(probing.baseline_micros(), Some(144_000));
    assert_eq!((probing.limit(), compact.limit()), (13, 13));
    // Their drain shows 120 ms, under 10/11 of it, for a whole round of the limit (13 calls,
    // before the rolling median of 32 moves): the last one lowers the baseline to 120 ms and
    // scales the limit by 120 / 144, to 10.8.
    let changes = one_at_a_time(&mut probing, &mut t, 13, 120 * MS);
    assert_eq!(&changes[..12], &[Change::Unchanged; 12]);
    assert_eq!(changes[12], Change::Decreased);
    assert_eq!(probing.baseline_micros(), Some(120_000));
    assert_eq!(probing.limit(), 10);
    // The compact AIMD has no low rounds: its baseline falls only with its rolling median.
    one_at_a_time(&mut compact, &mut tc, 13, 120 * MS);
    assert_eq!(
        (compact.limit(), compact.baseline_micros()),
        (13, Some(144_000))
    );
    // Another whole round at 120 ms is not under 10/11 of the new baseline: nothing more.
    assert!(
        one_at_a_time(&mut probing, &mut t, 40, 120 * MS)
            .iter()
            .all(|&c| c == Change::Unchanged)
    );
    assert_eq!(probing.limit(), 10);
}

/// `n` calls of `micros`, one after another, each admitted with one call in flight (too few
/// for growth): the changes.
fn one_at_a_time<C: Controller>(c: &mut C, t: &mut u64, n: usize, micros: u64) -> Vec<Change> {
    back_to_back(c, t, n, micros, |_| 1)
}

/// `n` successes of `micros` each, one after another from `*t`, each admitted with
/// `in_flight(c)` calls in flight.
fn back_to_back<C: Controller>(
    c: &mut C,
    t: &mut u64,
    n: usize,
    micros: u64,
    in_flight: impl Fn(&C) -> u32,
) -> Vec<Change> {
    (0..n)
        .map(|_| {
            let change = complete_with(c, *t, micros, in_flight(c));
            *t += micros;
            change
        })
        .collect()
}

#[test]
fn a_round_under_the_baseline_floor_is_the_clocks_resolution_not_a_queue() {
    // Calls of 900 µs, under the floor of 1 ms: the baseline remembered is the floor, whose
    // thresholds are the ones that hold, and a round of calls at 500 µs moves neither the
    // limit nor the baseline.
    let (mut probing, mut compact) = probing_and_compact(13);
    let mut t = 0;
    one_at_a_time(&mut probing, &mut t, 40, 900);
    assert_eq!(probing.baseline_micros(), Some(1_000));
    // The compact AIMD remembers its medians as they are.
    let mut tc = 0;
    one_at_a_time(&mut compact, &mut tc, 40, 900);
    assert_eq!(compact.baseline_micros(), Some(900));
    let changes = one_at_a_time(&mut probing, &mut t, 13, 500);
    assert!(
        changes.iter().all(|&c| c == Change::Unchanged),
        "{changes:?}"
    );
    assert_eq!(
        (probing.limit(), probing.baseline_micros()),
        (13, Some(1_000))
    );
    // A baseline of 3 ms and a round at 500 µs: the thresholds move from 3 ms down to the
    // floor's 1 ms, so the limit is scaled by 1/3 (13 to 4.3), not by 1/6; the baseline
    // remembered is the floor.
    let (mut probing, _) = probing_and_compact(13);
    let mut t = 0;
    one_at_a_time(&mut probing, &mut t, 40, 3 * MS);
    let changes = one_at_a_time(&mut probing, &mut t, 13, 500);
    assert_eq!(changes[12], Change::Decreased);
    assert_eq!(
        (probing.limit(), probing.baseline_micros()),
        (4, Some(1_000))
    );
}

#[test]
fn under_the_baseline_floor_a_standing_queue_is_not_drained() {
    // Calls of 300 µs, then of 600 µs (twice as slow, both under the 1 ms floor): the
    // baseline remembered is the floor, every success is at or below it, and no drain comes,
    // as none could show a queue the thresholds see. A baseline remembered as the 300 µs
    // median would drain 5 s into the 600 µs calls.
    let mut aimd = AimdFixed::new(AimdConfig::default().initial(16)).unwrap();
    let mut t = 0;
    successes(&mut aimd, &mut t, 40, 300);
    assert_eq!(aimd.stats().baseline_micros, Some(1_000));
    while t < 12_000 * MS {
        assert_ne!(success_at(&mut aimd, t, 600), Change::Decreased, "at {t}");
        t += 10 * MS;
    }
    // Above the floor, the same standing queue is drained (see the test above).
    let mut aimd = AimdFixed::new(AimdConfig::default().initial(16)).unwrap();
    let mut t = 0;
    successes(&mut aimd, &mut t, 40, 3 * MS);
    let mut drained = false;
    while t < 12_000 * MS && !drained {
        drained = success_at(&mut aimd, t, 6 * MS) == Change::Decreased;
        t += 10 * MS;
    }
    assert!(drained);
}

#[test]
fn the_compact_aimd_never_drains() {
    let mut aimd = Aimd::<Q32, 32, 0>::new(AimdConfig::default().initial(16)).unwrap();
    let mut t = 0;
    successes(&mut aimd, &mut t, 10, 100 * MS);
    while t < 20_000 * MS {
        assert_ne!(
            success_at(&mut aimd, t, 140 * MS),
            Change::Decreased,
            "at {t}"
        );
        t += 10 * MS;
    }
}

/// Growth samples from the first at `from` until the limit reaches `to`, each at 10 ms.
fn samples_from_to<C: Controller>(c: &mut C, t: &mut u64, from: u32, to: u32) -> u32 {
    while c.limit() < from {
        successes(c, t, 1, 10 * MS);
    }
    let mut n = 0;
    while c.limit() < to {
        successes(c, t, 1, 10 * MS);
        n += 1;
    }
    n
}

#[test]
fn the_compact_aimd_dwells_below_the_knee_it_found() {
    let mut aimd = Aimd::<Q32, 32, 0>::new(AimdConfig::default().initial(8)).unwrap();
    let mut t = 0;
    // Healthy growth, one step per round: the unit from 8 to 9 takes nine samples (each adds
    // one over the limit as it stands, 8 and a fraction).
    assert_eq!(samples_from_to(&mut aimd, &mut t, 8, 9), 9);
    // A refusal with 12 in flight: the knee is 12, the limit cut to 0.8 of it.
    while aimd.limit() < 12 {
        successes(&mut aimd, &mut t, 1, 10 * MS);
    }
    let admitted = Admission::new(&aimd, Instant::from_micros(t), 12);
    let refused = Sample::new(
        admitted,
        Instant::from_micros(t + 10 * MS),
        Outcome::Overload,
    );
    assert_eq!(aimd.on_sample(&refused), Change::Decreased);
    assert_eq!(aimd.limit(), 9);
    // Up to the unit below the knee as before (11 samples from 10 to 11), then an eighth of a
    // step per sample: 86 samples from 11 to 12 instead of 12, so the knee is tried again only
    // every eight rounds.
    assert_eq!(samples_from_to(&mut aimd, &mut t, 10, 11), 11);
    assert_eq!(samples_from_to(&mut aimd, &mut t, 11, 12), 86);
}

/// From a limit of 12 on a 10 ms dependency, calls of `outcome` admitted with 12 in flight that
/// come back after `latency`, until one cuts (a refusal at once, slow successes at the second);
/// then the limit after the cut and the growth samples from 11 to 12 (the unit below the knee).
fn dwell_after(outcome: Outcome, latency: u64) -> (u32, u32) {
    let mut aimd = AimdFixed::new(AimdConfig::default().initial(12)).unwrap();
    let mut t = 0;
    successes(&mut aimd, &mut t, 10, 10 * MS);
    let admitted = Admission::new(&aimd, Instant::from_micros(t), 12);
    let call = Sample::new(admitted, Instant::from_micros(t + latency), outcome);
    assert!((0..2).any(|_| aimd.on_sample(&call) == Change::Decreased));
    let cut_to = aimd.limit();
    t += latency;
    (cut_to, samples_from_to(&mut aimd, &mut t, 11, 12))
}

fn dwell_after_refusal(latency: u64) -> (u32, u32) {
    dwell_after(Outcome::Overload, latency)
}

#[test]
fn a_late_refusal_cuts_and_dwells_as_a_latency_knee_does() {
    // A quick refusal (10 ms, the baseline; the threshold is 20 ms): the backoff (12.8 × 0.8),
    // and an eighth of a step in the unit below its knee.
    assert_eq!(dwell_after_refusal(10 * MS), (10, 92));
    // A refusal 1.5 times the threshold (30 ms): cut by threshold / latency (12 × 2/3), and
    // the long dwell of a latency knee: a 128th of a step for 4 s (400 samples of 10 ms, about
    // a third of the unit), then an eighth. The cut was the client's own try of 12, so the
    // limit is back at 11 within a round of it (443 samples in the unit when it came back one
    // step a round, with less of the dwell's time left; 825 and 3,225 below).
    assert_eq!(dwell_after_refusal(30 * MS), (8, 450));
    // 2.5 times (50 ms): the deepest cut, half; the threshold doubles once within it, so a
    // 256th for 8 s.
    assert_eq!(dwell_after_refusal(50 * MS), (6, 840));
    // A timeout 25 times the threshold (500 ms): three doublings, a 1,024th for 32 s.
    assert_eq!(dwell_after_refusal(500 * MS), (6, 3239));
}

#[test]
fn a_cut_by_latency_dwells_as_long_as_its_slow_calls_took() {
    // 30 ms, 1.5 times the threshold of 20 ms: the long dwell of a latency knee, a 128th of a
    // step for 4 s, as a refusal as late (see above).
    assert_eq!(dwell_after(Outcome::Success, 30 * MS), (8, 450));
    // 50 ms, 2.5 times: the threshold doubles once within it, a 256th for 8 s (as a refusal
    // as late: 840); 427 samples without the doubling, before the limit came back to 11
    // within a round of a cut of its own try.
    assert_eq!(dwell_after(Outcome::Success, 50 * MS), (6, 840));
    // 500 ms, 25 times: three doublings, a 1,024th for 32 s.
    assert_eq!(dwell_after(Outcome::Success, 500 * MS), (6, 3239));
}

/// From a limit of 12 on a 10 ms dependency, two calls admitted with 12 in flight are refused:
/// the first `first` after its admission, which cuts, and the second `second` after it, whose
/// round trip that cut answered. Returns the growth samples from 11 to 12 (the unit below the
/// knee) once both have come back.
fn dwell_after_two_refusals(first: u64, second: u64) -> u32 {
    let mut aimd = AimdFixed::new(AimdConfig::default().initial(12)).unwrap();
    let mut t = 0;
    successes(&mut aimd, &mut t, 10, 10 * MS);
    let admitted = Admission::new(&aimd, Instant::from_micros(t), 12);
    let refused = |late| Sample::new(admitted, Instant::from_micros(t + late), Outcome::Overload);
    assert_eq!(aimd.on_sample(&refused(first)), Change::Decreased);
    assert_eq!(
        aimd.on_sample(&refused(second)),
        Change::Unchanged,
        "one cut per round trip"
    );
    t += first.max(second);
    samples_from_to(&mut aimd, &mut t, 11, 12)
}

#[test]
fn a_timeout_of_a_round_trip_already_answered_lengthens_the_dwell_it_asks_for() {
    // A refusal 1.5 times the threshold (30 ms) cuts, with a latency knee's long dwell: 450
    // samples from 11 to 12, as after it alone (see above). A second as late asks for no
    // more.
    assert_eq!(dwell_after_two_refusals(30 * MS, 30 * MS), 450);
    // A second 500 ms late (25 thresholds, three doublings) asks for a 1,024th of a step for
    // 32 s from its arrival, as a cut by it would have (399 samples without the rule; the
    // limit, cut to 8 rather than 6, reaches 11 a little sooner than after such a cut).
    assert_eq!(dwell_after_two_refusals(30 * MS, 500 * MS), 3249);
    // After a cut by the timeout itself (3,239 samples, see above), a later refusal of the
    // same round trip that asks for less leaves the dwell as it is.
    assert_eq!(dwell_after_two_refusals(500 * MS, 530 * MS), 3239);
}

/// `calls` calls of 100 ms at an initial limit of 4 (a baseline needs ten; a whole round is
/// four), then one refusal `late` after its admission with `in_flight` calls in flight (`None`:
/// the limit in use); then rounds of 100 ms calls until the limit is back at the level the
/// refusal found. Returns that level, the rounds and the seconds the return took.
fn refused_after(calls: usize, late: u64, in_flight: Option<u32>) -> (u32, usize, u64) {
    let mut aimd = AimdFixed::new(AimdConfig::default().initial(4)).unwrap();
    let mut t = 0;
    for _ in 0..calls {
        complete(&mut aimd, t, 100 * MS, Outcome::Success);
    }
    t += 100 * MS;
    let found = aimd.limit();
    let in_flight = in_flight.unwrap_or(found);
    let refusal = sample_of(&aimd, t, late, in_flight, Outcome::Overload);
    assert_eq!(aimd.on_sample(&refusal), Change::Decreased);
    t += late;
    let start = t;
    let rounds = rounds_to_reach(&mut aimd, &mut t, found);
    (found, rounds, (t - start) / 1_000_000)
}

#[test]
fn a_timeout_dwells_below_its_knee_as_long_as_it_held_the_call_even_before_a_baseline() {
    let after_refusal = |calls, late| refused_after(calls, late, None);
    // A quick refusal (as fast as the calls) after a whole round of four: its knee is one above
    // what the round before kept (4), and the return below a quick knee takes the limit
    // straight back to 4.
    assert_eq!(after_refusal(4, 100 * MS), (4, 1, 0));
    // After three calls, short of a whole round (after one, a timeout at the level it served
    // is seen one above it: see the next test).
    // 300 ms, 1.5 times the threshold of 200 ms (twice the calls' median): a late refusal,
    // whose knee dwells as a latency knee's: a 128th of a step per round at 3 for 4 s, then
    // an eighth.
    assert_eq!(after_refusal(3, 300 * MS), (4, 45, 4));
    // A client timeout of 2 s, 10 thresholds: three doublings, a 1,024th of a step per round
    // for 32 s. Before the tenth call as after it: taken for a quick refusal, it came back in
    // one round.
    assert_eq!(after_refusal(3, 2_000 * MS), (4, 325, 32));
    // Four doublings would be 64 s: the dwell stops at eight times.
    assert_eq!(after_refusal(3, 20_000 * MS), (4, 325, 32));
}

#[test]
fn a_timeout_at_a_level_a_whole_round_served_sets_its_knee_one_above_that_level() {
    // `served` calls, then a client timeout of 2 s of a call admitted with `in_flight` in
    // flight (see `refused_after`): the limit it found, the rounds and seconds back to it.
    let after_timeout = |served, in_flight| refused_after(served, 2_000 * MS, Some(in_flight));
    // A whole round at 4 came back at the baseline; the timeout of a call admitted with 4 in
    // flight is seen at 5, where that level was first passed: the knee is 5, and the limit,
    // cut by the timeout, is back at 4 in two rounds (one step per round below a knee found
    // by latency).
    assert_eq!(after_timeout(4, 4), (4, 2, 0));
    // Three calls of four, no whole round: nothing says the level was served. The knee is 4,
    // and the limit dwells a unit below it, at 3, for 32 s (a 1,024th of a step per round).
    assert_eq!(after_timeout(3, 4), (4, 325, 32));
    // The whole round, and a timeout seen with fewer in flight (3): still one above the level
    // it was seen at, so the knee is 4 and the dwell at 3 as long.
    assert_eq!(after_timeout(4, 3), (4, 325, 32));
}

#[test]
fn a_cut_by_latency_at_a_level_a_clean_round_served_sets_its_knee_one_above_it() {
    // Twenty calls of 100 ms with the limit in use (a baseline of 100 ms; the limit grows to
    // 7), then one of `odd` µs and seven of 100 ms (a whole round at 7), then two calls of
    // 300 ms admitted with 7 in flight, which cut. Returns the limit before the cut, after it,
    // and the rounds of 100 ms calls back to 7.
    fn after_cut(odd: u64) -> (u32, u32, usize) {
        let mut aimd = AimdFixed::new(AimdConfig::default().initial(4)).unwrap();
        let mut t = 0;
        for _ in 0..20 {
            complete(&mut aimd, t, 100 * MS, Outcome::Success);
            t += 10 * MS;
        }
        complete(&mut aimd, t, odd, Outcome::Success);
        for _ in 0..7 {
            complete(&mut aimd, t, 100 * MS, Outcome::Success);
        }
        t += 10 * MS;
        let before = aimd.limit();
        complete_with(&mut aimd, t, 300 * MS, 7);
        assert_eq!(complete_with(&mut aimd, t, 300 * MS, 7), Change::Decreased);
        let after = aimd.limit();
        t += 300 * MS;
        (before, after, rounds_to_reach(&mut aimd, &mut t, 7))
    }
    // The whole round at 7 came back at the baseline; the cut is seen with 7 in flight, so at
    // 8: the knee is 8, and the limit, cut from 8 to 5, is back at 7 in two rounds.
    assert_eq!(after_cut(100 * MS), (8, 5, 2));
    // A congested success in that round (300 ms, three times the baseline; one alone does not
    // cut): nothing says 7 was served. The knee is 7, and the limit dwells at 6 for 4 s (a
    // 128th of a step per round) before it tries 7 again.
    assert_eq!(after_cut(300 * MS), (8, 5, 45));
}

/// Started fast, every growth sample admitted with the limit in use (`growth_utilisation` 0
/// here, so that each round's calls, admitted together, all count) adds a whole unit.
fn fast_start(initial: u32) -> AimdFixed {
    let config = AimdConfig::default()
        .initial(initial)
        .bounds(1, 64)
        .growth_utilisation(Ratio::ZERO);
    AimdFixed::new(config).unwrap().fast_start()
}

/// One round of `limit` calls of `latency`, admitted together at `*t` with the limit in use;
/// returns the limit after it.
fn round_of<C: Controller>(c: &mut C, t: &mut u64, latency: u64) -> u32 {
    let n = c.limit();
    let admitted: Vec<Admission> = (0..n)
        .map(|_| Admission::new(c, Instant::from_micros(*t), n))
        .collect();
    for a in admitted {
        c.on_sample(&Sample::new(
            a,
            Instant::from_micros(*t + latency),
            Outcome::Success,
        ));
    }
    *t += latency;
    c.limit()
}

#[test]
fn the_fast_start_doubles_every_round_and_a_held_success_ends_it_at_half() {
    let mut aimd = fast_start(4);
    let mut t = 0;
    let limits: Vec<u32> = (0..3)
        .map(|_| round_of(&mut aimd, &mut t, 100 * MS))
        .collect();
    assert_eq!(limits, [8, 16, 32]);
    // Without it, the first rounds add a little under one step each (each sample adds
    // `1 / limit` of a limit that grows under it; the probe's doubling needs rounds whose rate
    // followed, and stays within a quarter of the limit).
    let mut slow = AimdFixed::new(
        AimdConfig::default()
            .initial(4)
            .bounds(1, 64)
            .growth_utilisation(Ratio::ZERO),
    )
    .unwrap();
    let mut s = 0;
    let slow_limits: Vec<u32> = (0..3)
        .map(|_| round_of(&mut slow, &mut s, 100 * MS))
        .collect();
    assert_eq!(slow_limits, [4, 5, 6]);

    // A success held in the band (1.5 times the baseline of 100 ms): the last doubling undone,
    // under a new epoch.
    let epoch = aimd.epoch();
    assert_eq!(success_at(&mut aimd, t, 150 * MS), Change::Decreased);
    assert_eq!(aimd.limit(), 16);
    assert_ne!(aimd.epoch(), epoch);
    t += 150 * MS;
    // For good: the next rounds grow by a little under one step, as without the fast start.
    let after: Vec<u32> = (0..2)
        .map(|_| round_of(&mut aimd, &mut t, 100 * MS))
        .collect();
    assert_eq!(after, [16, 17]);
    // A second held success only holds.
    assert_eq!(success_at(&mut aimd, t, 150 * MS), Change::Unchanged);
}

#[test]
fn a_refusal_ends_the_fast_start_with_a_cut_to_half_at_least() {
    let mut aimd = fast_start(4);
    let mut t = 0;
    assert_eq!(round_of(&mut aimd, &mut t, 100 * MS), 8);
    assert_eq!(round_of(&mut aimd, &mut t, 100 * MS), 16);
    // A quick 429: half, where the backoff alone would leave 12.8.
    assert_eq!(
        complete(&mut aimd, t, 10 * MS, Outcome::Overload),
        Change::Decreased
    );
    assert_eq!(aimd.limit(), 8);
    // A cut that would go deeper than half keeps its own depth: a timeout of 1 s against the
    // threshold of 200 ms (twice the baseline) cuts to a fifth, with a deepest cut of a tenth.
    let mut deep = AimdFixed::new(
        AimdConfig::default()
            .initial(4)
            .bounds(1, 64)
            .growth_utilisation(Ratio::ZERO)
            .deepest_cut(Ratio::from_fraction(1, 10).unwrap()),
    )
    .unwrap()
    .fast_start();
    let mut t = 0;
    for _ in 0..3 {
        round_of(&mut deep, &mut t, 100 * MS);
    }
    assert_eq!(deep.limit(), 32);
    assert_eq!(
        complete(&mut deep, t, 1_000 * MS, Outcome::Overload),
        Change::Decreased
    );
    assert_eq!(deep.limit(), 6);
    // And a first slow success, held (one alone does not cut), halves.
    let mut held = fast_start(4);
    let mut t = 0;
    for _ in 0..3 {
        round_of(&mut held, &mut t, 100 * MS);
    }
    assert_eq!(success_at(&mut held, t, 500 * MS), Change::Decreased);
    assert_eq!(held.limit(), 16);
}

#[test]
fn client_errors_and_answered_signals_do_not_end_the_fast_start_at_half_again() {
    let mut aimd = fast_start(4);
    let mut t = 0;
    assert_eq!(round_of(&mut aimd, &mut t, 100 * MS), 8);
    // A cancellation or a client error is no sign of congestion: the start goes on.
    let admitted = Admission::new(&aimd, Instant::from_micros(t), 8);
    aimd.on_sample(&Sample::new(
        admitted,
        Instant::from_micros(t + 100 * MS),
        Outcome::Ignore,
    ));
    assert_eq!(round_of(&mut aimd, &mut t, 100 * MS), 16);
    // A held success admitted before the last decrease (an older epoch) ends it without a
    // second decrease: that round trip was answered.
    let stale = Admission::new(&aimd, Instant::from_micros(t), 16);
    assert_eq!(
        complete(&mut aimd, t, 10 * MS, Outcome::Overload),
        Change::Decreased
    );
    assert_eq!(aimd.limit(), 8);
    assert_eq!(
        aimd.on_sample(&Sample::new(
            stale,
            Instant::from_micros(t + 150 * MS),
            Outcome::Success
        )),
        Change::Unchanged
    );
    assert_eq!(aimd.limit(), 8);
}

#[test]
fn the_float_and_fixed_point_aimd_start_fast_alike() {
    let config = AimdConfig::default()
        .initial(4)
        .bounds(1, 64)
        .growth_utilisation(Ratio::ZERO);
    let mut float = AimdF32::new(config).unwrap().fast_start();
    let mut fixed = AimdFixed::new(config).unwrap().fast_start();
    let (mut t, mut u) = (0, 0);
    for _ in 0..3 {
        assert_eq!(
            round_of(&mut float, &mut t, 100 * MS),
            round_of(&mut fixed, &mut u, 100 * MS)
        );
    }
    assert_eq!(float.limit(), 32);
    assert_eq!(success_at(&mut float, t, 150 * MS), Change::Decreased);
    assert_eq!(success_at(&mut fixed, u, 150 * MS), Change::Decreased);
    assert_eq!((float.limit(), fixed.limit()), (16, 16));
}

#[test]
fn the_fast_starts_halving_waits_out_the_cooldown_as_a_cut_does() {
    let config = AimdConfig::default()
        .initial(4)
        .bounds(1, 64)
        .growth_utilisation(Ratio::ZERO)
        .cooldown(Duration::from_secs(1));
    let mut aimd = AimdFixed::new(config).unwrap().fast_start();
    let mut t = 0;
    assert_eq!(round_of(&mut aimd, &mut t, 100 * MS), 8);
    assert_eq!(round_of(&mut aimd, &mut t, 100 * MS), 16);
    assert_eq!(success_at(&mut aimd, t, 150 * MS), Change::Decreased);
    assert_eq!(aimd.limit(), 8);
    let held_until = t + 150 * MS + 1_000 * MS;
    t += 150 * MS;
    // Within the second after it, fast rounds do not grow the limit.
    while t + 100 * MS < held_until {
        assert_eq!(round_of(&mut aimd, &mut t, 100 * MS), 8);
    }
    // After it, they do again (by one step a round: the fast start is over).
    let after: Vec<u32> = (0..3)
        .map(|_| round_of(&mut aimd, &mut t, 100 * MS))
        .collect();
    assert!(after[2] > 8 && after[2] <= 10, "{after:?}");
}

/// A success admitted at `at` µs with `in_flight` in flight, 100 ms long, stating `pace`.
fn paced<C: Controller>(c: &mut C, at: u64, in_flight: u32, pace: u32) -> Change {
    c.on_sample(&sample_of(c, at, 100 * MS, in_flight, Outcome::Success).with_pace(pace))
}

#[test]
fn a_stated_pace_takes_the_limit_straight_to_it_up_to_the_unit_below_the_knee() {
    let config = AimdConfig::default().initial(4).bounds(1, 200);
    let mut aimd = AimdF32::new(config).unwrap();
    // The provider says 56 calls in flight spend its quota by the reset: straight there.
    assert_eq!(paced(&mut aimd, 0, 4, 56), Change::Increased);
    assert_eq!(aimd.limit(), 56);
    // A pace at or below the limit is only a success: one growth sample's share of a step.
    paced(&mut aimd, 100 * MS, 56, 30);
    assert_eq!(aimd.limit(), 56);
    // A quick refusal with the limit in use: the knee is 56, and a later pace of 150 takes
    // the limit to 55, the unit below it, not to 150: the provider refused what its own pace
    // allowed (a quota shared with others counts their calls too).
    complete_refusal(&mut aimd, 200 * MS, 56);
    assert_eq!(aimd.limit(), 44);
    assert_eq!(paced(&mut aimd, 2_000 * MS, 44, 150), Change::Increased);
    assert_eq!(aimd.limit(), 55);
    // Below the knee, a pace below it is taken as it is.
    complete_refusal(&mut aimd, 2_200 * MS, 55);
    let cut = aimd.limit();
    assert_eq!(
        paced(&mut aimd, 4_000 * MS, cut, cut + 3),
        Change::Increased
    );
    assert_eq!(aimd.limit(), cut + 3);
    // The fixed-point AIMD alike; the compact one has no probe, and takes a step's share only.
    let mut fixed = AimdFixed::new(config).unwrap();
    paced(&mut fixed, 0, 4, 56);
    assert_eq!(fixed.limit(), 56);
    let mut compact = AimdFixedCompact::new(config).unwrap();
    paced(&mut compact, 0, 4, 56);
    assert_eq!(compact.limit(), 4);
}

/// A success admitted at `at` µs with `in_flight` in flight, 100 ms long, stating `pace` for
/// `left` calls left in the provider's window.
fn counted<C: Controller>(c: &mut C, at: u64, in_flight: u32, pace: u32, left: u32) -> Change {
    let sample = sample_of(c, at, 100 * MS, in_flight, Outcome::Success);
    c.on_sample(&sample.with_pace(pace).with_calls_left(left))
}

#[test]
fn a_client_that_spends_a_tenth_of_an_accounts_quota_takes_a_tenth_of_its_pace() {
    let config = AimdConfig::default().initial(30).bounds(1, 500);
    let mut aimd = AimdF32::new(config).unwrap();
    // The account's count falls by ten for each answer of this client's; until four of its own
    // answers after the first measure that, a pace of 400 is the client's own: straight to it.
    assert_eq!(counted(&mut aimd, 0, 30, 400, 1_000), Change::Increased);
    assert_eq!(aimd.limit(), 400);
    for left in [990, 980, 970] {
        counted(&mut aimd, 0, 400, 400, left);
    }
    assert_eq!(aimd.limit(), 400);
    // The fourth measures a tenth: the part, 40, is a ceiling, which lowers the limit above it,
    // as a decrease (a new epoch).
    let epoch = aimd.epoch();
    assert_eq!(counted(&mut aimd, 0, 400, 400, 960), Change::Decreased);
    assert_eq!((aimd.limit(), aimd.epoch().0), (40, epoch.0 + 1));
    // Later in the window the account is left less than it spends: a pace of 18 for the
    // account, a part of 2. A sample admitted before the last decrease does not lower again;
    // one of the current round trip does.
    let stale = Sample::new(
        Admission {
            epoch,
            ..Admission::new(&aimd, Instant::from_millis(100), 400)
        },
        Instant::from_millis(200),
        Outcome::Success,
    );
    assert_eq!(
        aimd.on_sample(&stale.with_pace(18).with_calls_left(950)),
        Change::Unchanged
    );
    assert_eq!(aimd.limit(), 40);
    assert_eq!(counted(&mut aimd, 300 * MS, 40, 18, 940), Change::Decreased);
    assert_eq!(aimd.limit(), 2);
    // Back at a pace whose part is 40: growth from 2, but no jump within the window.
    assert_eq!(counted(&mut aimd, 400 * MS, 2, 400, 930), Change::Increased);
    assert!(aimd.limit() < 4);
    // The window resets (the count is back near the quota): straight to the part of a new
    // pace (a hundred of 1,000), not to the account's pace; and up to the highest level the
    // last window's ceilings lowered (400) where the part is above it (800 of 8,000).
    assert_eq!(
        counted(&mut aimd, 1_500 * MS, 3, 1_000, 1_990),
        Change::Increased
    );
    assert_eq!(aimd.limit(), 100);
    // At the part, successes do not grow past it.
    for left in [1_985, 1_984, 1_983] {
        counted(&mut aimd, 1_550 * MS, 100, 1_000, left);
        assert_eq!(aimd.limit(), 100);
    }
    assert_eq!(
        counted(&mut aimd, 1_600 * MS, 100, 8_000, 1_980),
        Change::Increased
    );
    assert_eq!(aimd.limit(), 400);
    // An ignored answer (a client error) moves nothing, even with a pace whose part is below
    // the limit; but its count is the quota's, and counts.
    let (limit, epoch) = (aimd.limit(), aimd.epoch());
    let ignored = sample_of(&aimd, 1_700 * MS, 100 * MS, 400, Outcome::Ignore);
    assert_eq!(
        aimd.on_sample(&ignored.with_pace(1).with_calls_left(1_970)),
        Change::Unchanged
    );
    assert_eq!((aimd.limit(), aimd.epoch()), (limit, epoch));
    // Six answers of its own since the window's mark (1,990), the ignored one among them, as
    // the account spent 30: a fifth, whose part of 1,000 (200) lowers the limit. Without the
    // ignored answer it would be a sixth (167).
    assert_eq!(
        counted(&mut aimd, 1_800 * MS, 400, 1_000, 1_960),
        Change::Decreased
    );
    assert_eq!(aimd.limit(), 200);
    // The compact AIMD has no probe: neither a jump nor a ceiling.
    let mut compact = AimdFixedCompact::new(config).unwrap();
    for left in [1_000, 990, 980, 970, 960, 950] {
        counted(&mut compact, 0, 30, 20, left);
    }
    assert_eq!(compact.limit(), 30);
}

/// A quick refusal admitted at `at` µs with `in_flight` in flight, answered 1 ms later.
fn complete_refusal<C: Controller>(c: &mut C, at: u64, in_flight: u32) -> Change {
    c.on_sample(&sample_of(c, at, MS, in_flight, Outcome::Overload))
}

#[test]
fn a_stated_pace_is_growth_held_idle_above_the_band_and_at_the_ceiling_as_growth_is() {
    let config = AimdConfig::default().initial(10).bounds(1, 40);
    // An idle client (2 of 10 in flight) does not jump.
    let mut idle = AimdF32::new(config).unwrap();
    assert_eq!(paced(&mut idle, 0, 2, 30), Change::Unchanged);
    assert_eq!(idle.limit(), 10);
    // During a Retry-After's growth hold: no jump.
    let mut held = AimdF32::new(config).unwrap();
    held.hold_growth_until(Instant::ZERO, Instant::from_millis(500));
    assert_eq!(paced(&mut held, 0, 10, 30), Change::Unchanged);
    assert_eq!(held.limit(), 10);
    // A slow answer (in the hold band, 1.5 times a baseline of 100 ms) does not jump either.
    let baseline = config.baseline(Ratio::from_int(2), 1, Duration::ZERO);
    let mut slow = AimdF32::new(baseline).unwrap();
    let mut t = 0;
    for _ in 0..8 {
        complete_with(&mut slow, t, 100 * MS, 10);
        t += 100 * MS;
    }
    let before = slow.limit();
    let admitted = Admission::new(&slow, Instant::from_micros(t), before);
    let late = Sample::new(
        admitted,
        Instant::from_micros(t + 150 * MS),
        Outcome::Success,
    );
    assert_eq!(slow.on_sample(&late.with_pace(39)), Change::Unchanged);
    assert_eq!(slow.limit(), before);
    // No higher than the ceiling.
    let mut capped = AimdF32::new(config).unwrap();
    paced(&mut capped, 0, 10, 1_000);
    assert_eq!(capped.limit(), 40);
}

/// `n` successes of `latency`, each admitted at `*t` with the limit in use, one after another.
fn in_use<C: Controller>(c: &mut C, t: &mut u64, n: usize, latency: u64) -> Vec<Change> {
    back_to_back(c, t, n, latency, C::limit)
}

#[test]
fn the_growth_band_narrows_to_a_sixteenth_where_a_full_window_shows_no_noise() {
    // 32 calls of exactly 10 ms fill the window: the band that holds growth starts at
    // 1 + 1/16 of the baseline (10,625 µs) with the probe, at 1.25 (12,500 µs) without.
    let (mut probing, mut compact) = probing_and_compact(4);
    let mut t = 0;
    in_use(&mut probing, &mut t, 32, 10 * MS);
    let mut u = 0;
    in_use(&mut compact, &mut u, 32, 10 * MS);
    assert_eq!(probing.baseline_micros(), Some(10_000));
    assert_eq!(in_use(&mut probing, &mut t, 1, 10_625), [Change::Increased]);
    assert_eq!(in_use(&mut probing, &mut t, 1, 10_626), [Change::Unchanged]);
    assert_eq!(in_use(&mut compact, &mut u, 1, 10_626), [Change::Increased]);
    assert_eq!(in_use(&mut compact, &mut u, 1, 12_501), [Change::Unchanged]);
}

#[test]
fn a_noisy_window_measures_a_wider_band_within_the_configured_one() {
    // Calls of 8 to 12 ms in a repeating order: a full window's median is 10,250 µs and its
    // upper eighth starts at 11,500, so the band measured is 1 + 2 × 1,250 / 10,250 (81,520
    // in 16.16 bits) over the baseline of 10 ms (the lowest median, of the first ten): growth
    // holds above 12,438 µs. Configured narrower (1.2, 78,643 in 16.16 bits), the configured
    // band holds from 12,000 µs.
    let noisy = |growth: Ratio| {
        let config = AimdConfig::default().initial(4).growth_tolerance(growth);
        let mut aimd = AimdFixed::new(config).unwrap();
        let mut t = 0;
        for _ in 0..4 {
            for latency in [8_000, 11_500, 9_000, 12_000, 10_000, 8_500, 11_000, 10_500] {
                success_at(&mut aimd, t, latency);
                t += latency;
            }
        }
        assert_eq!(aimd.baseline_micros(), Some(10_000));
        (aimd, t)
    };
    let (mut aimd, mut t) = noisy(Ratio::from_fraction(5, 4).unwrap());
    assert_eq!(in_use(&mut aimd, &mut t, 1, 12_438), [Change::Increased]);
    assert_eq!(in_use(&mut aimd, &mut t, 1, 12_439), [Change::Unchanged]);
    let (mut aimd, mut t) = noisy(Ratio::from_fraction(6, 5).unwrap());
    assert_eq!(in_use(&mut aimd, &mut t, 1, 11_999), [Change::Increased]);
    assert_eq!(in_use(&mut aimd, &mut t, 1, 12_000), [Change::Unchanged]);
}

#[test]
fn a_whole_round_held_after_a_doubled_step_goes_back_to_where_that_round_began() {
    // Rounds of 100 ms calls from 16, the rate following the limit: 17, 18, 20, 24, 27 and 31,
    // the steps doubling. A whole round of 31 calls of 150 ms (above the band, below the
    // congestion threshold of 200 ms) goes back to 27, where the round that grew to 31 began;
    // one call fewer holds.
    let mut aimd = AimdFixed::new(AimdConfig::default().initial(16)).unwrap();
    let mut t = 0;
    rounds_to_reach(&mut aimd, &mut t, 30);
    assert_eq!(aimd.limit(), 31);
    let held = in_use(&mut aimd, &mut t, 31, 150 * MS);
    assert!(held[..30].iter().all(|&c| c == Change::Unchanged));
    assert_eq!(held[30], Change::Decreased);
    assert_eq!(aimd.limit(), 27);
    // Growth starts over at one step (a round with no predecessor): 28 after a round at 100 ms.
    rounds_to_reach(&mut aimd, &mut t, 28);
    assert_eq!(aimd.limit(), 28);

    // The compact AIMD, one step per round, holds.
    let mut compact = AimdFixedCompact::new(AimdConfig::default().initial(16)).unwrap();
    let mut t = 0;
    rounds_to_reach(&mut compact, &mut t, 30);
    let limit = compact.limit();
    let held = in_use(&mut compact, &mut t, limit as usize, 150 * MS);
    assert!(held.iter().all(|&c| c == Change::Unchanged));
}

#[test]
fn the_band_is_measured_only_for_a_remembered_baseline_and_never_where_none_is_asked_for() {
    // The same 32 calls of 10 ms as above; a call of 10,626 µs (over 1 + 1/16 of them) grows
    // where the band keeps its configured 1.25: without memory (the baseline is the window's
    // median, which follows a queue), and with no band at all (`growth_tolerance` at the
    // tolerance); it holds only where the band was measured.
    let grows = |config: AimdConfig| {
        let mut aimd = AimdFixed::new(config.initial(4)).unwrap();
        let mut t = 0;
        in_use(&mut aimd, &mut t, 32, 10 * MS);
        in_use(&mut aimd, &mut t, 1, 10_626) == [Change::Increased]
    };
    let two = Ratio::from_int(2);
    assert!(!grows(AimdConfig::default()));
    assert!(grows(AimdConfig::default().baseline(
        two,
        10,
        Duration::ZERO
    )));
    assert!(grows(AimdConfig::default().growth_tolerance(two)));
}

#[test]
fn a_round_below_the_band_sets_a_knee_where_the_limit_stood_on_the_queue() {
    // The rescale above (13 → 10 on a baseline corrected from 144 to 120 ms) takes 13 as a
    // level found congested by latency: growth at the corrected baseline returns to the unit
    // below it and dwells there a 128th of a step per round for 4 s, as below any latency knee.
    let mut aimd = AimdFixed::new(AimdConfig::default().initial(13).bounds(1, 64)).unwrap();
    let mut t = 0;
    one_at_a_time(&mut aimd, &mut t, 40, 144 * MS);
    one_at_a_time(&mut aimd, &mut t, 13, 120 * MS);
    assert_eq!(aimd.limit(), 10);
    let rescaled = t;
    // Calls of 120 ms, one after another, each admitted with the limit in use: the first
    // time (ms after the rescale) the limit reaches each level.
    let mut reached = vec![(0, 10)];
    while t < rescaled + 30_000 * MS && aimd.limit() < 14 {
        in_use(&mut aimd, &mut t, 1, 120 * MS);
        if reached
            .last()
            .is_some_and(|&(_, limit)| limit < aimd.limit())
        {
            reached.push(((t - rescaled) / MS, aimd.limit()));
        }
    }
    // 11 and 12 within a round each (from 10.8; 11 at the first call, as below any knee of a
    // cut seen at or above it, `Knee::quick_gap`); 13, the knee, only after the 4 s dwell and
    // eight rounds at an eighth of a step (a round of 12 calls of 120 ms is 1.44 s); then on.
    assert_eq!(
        reached,
        [(0, 10), (120, 11), (1_560, 12), (15_120, 13), (16_800, 14)]
    );
}

/// Calls one after another on a dependency with a sharp knee, for `until` ms: it answers in
/// `base` µs up to `cap(ms)` calls in flight and in three times that past it; each call is
/// admitted with the limit in use, and the next one `1 / limit` of its latency later. Calls
/// admitted within one of the `others` windows (ms) are slow whatever the limit, as another
/// client's try of a shared knee makes them. Returns when (ms) each try of the knee began: each
/// time the limit went past the capacity.
fn tries_of_a_sharp_knee<C: Controller>(
    c: &mut C,
    cap: impl Fn(u64) -> u32,
    base: u64,
    until: u64,
    others: &[(u64, u64)],
) -> Vec<u64> {
    let (mut t, mut tries, mut over) = (0, Vec::new(), false);
    while t < until * MS {
        let (n, ms) = (c.limit(), t / MS);
        if n > cap(ms) && !over {
            tries.push(ms);
        }
        over = n > cap(ms);
        let slow = over || others.iter().any(|&(from, to)| (from..to).contains(&ms));
        let latency = if slow { 3 * base } else { base };
        let ch = complete_with(c, t, latency, n);
        if (2900..21000).contains(&ms)
            && others.len() == 1
            && ch != Change::Unchanged
            && c.limit() != n
        {
            print!("[{ms} {n}->{} {latency}] ", c.limit());
        }
        t += latency / u64::from(n);
    }
    tries
}

#[test]
fn each_failed_try_of_a_latency_knee_doubles_the_dwells_rounds_up_to_its_time() {
    // 10 ms calls past a capacity of 8: the limit tries 9 and is cut. The dwell below the knee
    // spans 128 rounds or 4 s, whichever ends first: here 128 rounds (1.3 s) came first, and
    // without the backoff the knee was tried every 1.37 s (15 tries in 20 s). Each try that
    // fails doubles the rounds: 256 (2.7 s), then 512, longer than 4 s, which the time ends.
    // (Each cut is the client's own try, so the limit is back at the unit below the knee
    // within a round of it, and each dwell begins a few rounds sooner than when it came back
    // one step a round: 1,437, 4,139, 8,184, … ms; with 100 ms calls below, 10,316, 15,337, …)
    let mut aimd = AimdFixed::new(AimdConfig::default().initial(4)).unwrap();
    let tries = tries_of_a_sharp_knee(&mut aimd, |_| 8, 10 * MS, 20_000, &[]);
    assert_eq!(tries, [51, 1_419, 4_072, 8_117, 12_192, 16_268]);
    // 100 ms calls: 4 s is 40 rounds, and the time ends every dwell, failed tries or not
    // (every 4.8 s without the backoff; the smaller step of the 4 s spends a few more rounds
    // at an eighth after it).
    let mut aimd = AimdFixed::new(AimdConfig::default().initial(4)).unwrap();
    let tries = tries_of_a_sharp_knee(&mut aimd, |_| 8, 100 * MS, 30_000, &[]);
    assert_eq!(tries, [516, 5_358, 10_302, 15_308, 20_352, 25_396]);
}

#[test]
fn another_clients_try_doubles_the_dwells_time_until_a_try_of_its_own_is_served() {
    // 100 ms calls past a capacity of 8, which rises to 16 at 25 s. At 3 s, with the limit
    // dwelling at 8 for a second and more, three calls are slow: another client tried the
    // knee they share, and the cut it brings doubles the dwell's time: 8 s, and the knee is
    // tried at 12 s (at 8 s without the backoff), and again 8 s after that try failed.
    let mut aimd = AimdFixed::new(AimdConfig::default().initial(4)).unwrap();
    let rises = |ms| if ms < 25_000 { 8 } else { 16 };
    let tries = tries_of_a_sharp_knee(&mut aimd, rises, 100 * MS, 45_000, &[(3_000, 3_100)]);
    // The try at 30.5 s is served (the capacity is 16): the limit grows past its knee, the
    // tries counted before are forgotten, and the knee found at 17 is tried every 5 s again.
    assert_eq!(tries, [516, 11_989, 20_921, 30_430, 35_358, 40_305]);
    // The compact AIMD has no backoff: its knee is tried 4 s after the other client's try, and
    // then every 4.8 s.
    let mut compact = AimdFixedCompact::new(AimdConfig::default().initial(4)).unwrap();
    let tries = tries_of_a_sharp_knee(&mut compact, |_| 8, 100 * MS, 30_000, &[(3_000, 3_100)]);
    assert_eq!(tries, [554, 8_223, 13_044, 17_877, 22_710, 27_544]);
}

#[test]
fn a_drain_to_the_floor_keeps_the_remembered_baseline() {
    // A limit of 2 on a baseline of 100 ms, then a standing queue of 140 ms that others keep
    // (inside the hold band): the drain five seconds on halves the limit to the floor, 1. The
    // slow calls that complete during it were admitted on the queue, not at the floor: they
    // are not a new normal, and the baseline stays 100 ms.
    let mut aimd = AimdFixed::new(AimdConfig::default().initial(2).bounds(1, 2)).unwrap();
    let mut t = 0;
    successes(&mut aimd, &mut t, 10, 100 * MS);
    assert_eq!(aimd.stats().baseline_micros, Some(100_000));
    let mut drained = false;
    while t < 10_000 * MS {
        let change = success_at(&mut aimd, t, 140 * MS);
        t += 10 * MS;
        if change == Change::Decreased {
            drained = true;
            break;
        }
    }
    assert!(drained, "a drain");
    assert_eq!(aimd.limit(), 1);
    // The calls admitted before the drain complete at 140 ms, and more after it.
    successes(&mut aimd, &mut t, 40, 140 * MS);
    assert_eq!(aimd.stats().baseline_micros, Some(100_000));
}

/// From a limit of 8, ten calls of `pattern`, then two of 40 ms: a cut by latency while the
/// window of 32 is not yet full, with its knee at 9 (a whole round at 8 came back at the
/// baseline). Then calls of `pattern`, each admitted with the limit in use, until the limit
/// reaches the knee: the limit after the cut, and how many calls the way back took.
fn back_after_an_early_cut(pattern: &[u64]) -> (u32, usize) {
    let mut aimd = AimdFixed::new(AimdConfig::default().initial(8)).unwrap();
    let mut t = 0;
    let mut calls = pattern.iter().copied().cycle();
    for latency in calls.by_ref().take(10) {
        in_use(&mut aimd, &mut t, 1, latency);
    }
    let cut = in_use(&mut aimd, &mut t, 2, 40 * MS);
    assert_eq!(cut, [Change::Unchanged, Change::Decreased]);
    let after = aimd.limit();
    let mut n = 0;
    while aimd.limit() < 9 && n < 10_000 {
        in_use(&mut aimd, &mut t, 1, calls.next().unwrap());
        n += 1;
    }
    (after, n)
}

#[test]
fn a_cut_before_the_window_is_full_dwells_unless_the_first_full_window_spreads() {
    // Calls of exactly 14 ms: the first full window does not spread, and the unit below the
    // knee dwells for 4 s after the cut (330 calls of 14 ms; 331 when the way back to the unit
    // below it took one step a round, before `Knee::quick_gap` took it within one).
    assert_eq!(back_after_an_early_cut(&[14 * MS]), (6, 330));
    // Calls from 10 to 24 ms about a median of 14 ms, none of them congested: once the window
    // holds 32 calls taken after the cut, it spreads (its upper quartile, 20 ms, over 1.5 times
    // its lowest eighth, 10 ms), the cut is judged noise after all, and the knee is passed in
    // 43 calls (328 without the judgement).
    let spread = [10 * MS, 16 * MS, 12 * MS, 20 * MS, 14 * MS, 24 * MS];
    assert_eq!(back_after_an_early_cut(&spread), (6, 43));
}
