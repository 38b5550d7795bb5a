//! Where congestion last appeared, and how long growth dwells just below it: rules 3 and 4 of
//! the growth probe (see the module `probe` for the reasons and the measurements).
//!
//! - **The knee** is the concurrency the last cut's signal was seen at. A cut by a refusal, or
//!   one seen at or above the knee, sets it; a first cut by latency seen below it moves it only
//!   halfway down (rounded up), and a second one within [`KNEE_ROUNDS`] rounds all the way:
//!   to the level it was seen at if it came within [`KEPT_ROUNDS`] rounds of the first (the
//!   level itself congests: a capacity that fell), and, with the growth probe, to one above it
//!   if it came later (the limit held the level for that long before congestion came back:
//!   another client's try), so the dwell is at that level rather than a unit below it. The
//!   compact AIMD, whose timeouts cut by the backoff and set quick knees, sets the level: with
//!   the lift its `shared-100-linear` went 43 → 30 % and 46 → 41 % on seeds 2 and 3 (42 → 47 %
//!   on seed 1).
//!   A refusal that came as late as a congested success (a timeout) counts as a cut by latency
//!   here: what a try of its knee costs is the time the call is held, not the refusal. (With
//!   the growth probe, a cut by latency or a late refusal is seen one above where it came
//!   when a whole round served that level at the baseline: see the module `probe`, rule 4.)
//! - **The dwell**: in the one unit of limit just below the knee, the step is shifted down, by
//!   [`SLOW`] (an eighth) below a knee found by a refusal, by [`LATENCY_SLOW`] (a 128th) for
//!   [`LONG_DWELL_MICROS`] after a cut by latency, with the growth probe at least
//!   [`LONG_DWELL_ROUNDS`] round trips of the baseline (both doubled once for each doubling of the
//!   congestion threshold within a late refusal's latency, up to 8 times: see [`doublings`];
//!   with the growth probe, also once for each try of the knee that failed, see [`DwellBackoff`];
//!   a later cut by latency that leaves the knee where it was does not shorten such a dwell),
//!   and not at all below a knee found by latency while the healthy latencies spread widely.
//! - **The return below a quick knee** (with the growth probe): below a knee found by a quick
//!   refusal, or by a cut by latency or a late refusal seen at or above it (the client's own
//!   try), more than one unit down, the step is at least the whole distance to the unit below
//!   the knee, worked out again at each sample, so each round closes about two thirds of what
//!   is left (CUBIC's concave approach to `W_max`; see [`Knee::quick_gap`]).
//!
//! - **A try refused** (with the growth probe): a quick refusal seen at or above the knee is
//!   what a try of it costs; the cut goes no deeper than the unit below the knee, which was
//!   served (see [`Knee::tried_back`]).
//!
//! - **The return to a level served before a fall** (with the growth probe): when a quick
//!   refusal's cut moves the knee down (a quota fell), the knee it leaves is remembered as the
//!   level the dependency served until then. Once a round at or above the new knee has shown
//!   its added calls served (the probe's rate test: the quota has room again), the limit goes
//!   straight back to the unit below that level (see [`Knee::return_to`]).
//!
//! Rounds are counted here (a round is `limit` growth samples), so that the rule needs nothing
//! else to run; the probe's rate test runs at the same round ends. Every AIMD has a knee, the
//! compact one (`PROBES = 0`, without the probe's doubling, drains and tally) included: on a
//! sharp knee it is what keeps one step per round from returning to it every few rounds (the
//! simulator's `slow-no-429`: 74 % → 99 % of the oracle's goodput; `fairness`, ten clients
//! sharing a capacity: 40 % → 97 %).

/// What a cut's signal was, as the knee and the dwell below it take it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CutBy {
    /// A quick refusal (a 429, a 503, a timeout sooner than the latency threshold): trying
    /// the knee again costs one refused call.
    Refusal,
    /// A refusal that came as late as a congested success (a client timeout, a slow 504):
    /// trying that knee again costs a call held for as long, so the knee takes it as a cut by
    /// latency (its long dwell, and a knee that moves down only on evidence); the tally still
    /// counts it as refused. `doublings` is how many times the congestion threshold doubles
    /// within the refusal's latency, at most [`MAX_DOUBLINGS`] (see [`doublings`]): the long
    /// dwell below its knee is `2^doublings` times as long.
    LateRefusal {
        /// `⌊log2(latency / threshold)⌋`, within `0..=MAX_DOUBLINGS`.
        doublings: u8,
    },
    /// Slow successes: past a sharp knee, one call too many slows every call in flight.
    /// `doublings` (with the growth probe) is how many times the congestion threshold doubles
    /// within the latency of the success that cut, at most [`MAX_DOUBLINGS`]: as for a late
    /// refusal, the long dwell below its knee is `2^doublings` times as long.
    Latency {
        /// `⌊log2(latency / threshold)⌋`, within `0..=MAX_DOUBLINGS`; 0 without the probe.
        doublings: u8,
    },
    /// Slow successes where the healthy latencies spread widely (see
    /// `MedianWindow::spreads`): noise as often as a knee.
    SpreadLatency,
}

/// Below a knee found by a refusal the step is shifted down by this much: an eighth.
const SLOW: u8 = 3;
/// Below a knee found by latency, for `LONG_DWELL_MICROS` after the cut: a 128th.
const LATENCY_SLOW: u8 = 7;
/// How long the dwell below a latency knee is long: 4 s, or with the growth probe at least
/// [`LONG_DWELL_ROUNDS`] round trips.
const LONG_DWELL_MICROS: u32 = 4_000_000;
/// With the growth probe, the fewest round trips (of the baseline's latency) the long dwell
/// below a latency knee lasts: 32, a quarter of the 128 rounds its step takes to cross the
/// unit (see [`long_dwell`]).
const LONG_DWELL_ROUNDS: u64 = 32;

/// How long the dwell below a latency knee is long, doubled `doublings` times (µs): with the
/// growth probe (`PROBE`), 4 s or [`LONG_DWELL_ROUNDS`] round trips of `round_micros` (the
/// baseline; 0 where none is known), whichever is longer; 4 s without it.
///
/// Why the round trips: the 128th's step bounds how often the knee is tried in rounds (one try
/// in 128), and the 4 s how long capacity that came back goes unseen (see the module `probe`,
/// rule 3). Chosen for calls of 100 ms, where 4 s is 40 rounds; with calls of 400 ms it is
/// 10, and each client tried a shared knee thirteen times as often as the 128 rounds say.
/// The floor keeps at least a quarter of them: under 125 ms a round, 4 s is the longer.
/// Half of both (2 s and 16 round trips), with one more doubling allowed so that a timeout's
/// dwell still reaches 32 s, for a client alone to find a rise sooner while another client's
/// tries still double it (rule 11): 149 rows of 216 against 165 (`bash scripts/sim-seeds.sh`),
/// `capacity-rise` 90.3 → 84.8 % itself (each try of its sharp knee doubles every call's
/// latency), `hang-silent` 94.6 → 89.4 %, `shared-10-linear` on 5 → 1 seeds. Not kept.
/// Without the probe, in 32 bits (at most 32 s): no 64-bit shift routine on a Cortex-M0.
const fn long_dwell<const PROBE: bool>(round_micros: u32, doublings: u8) -> u64 {
    if PROBE {
        let rounds = round_micros as u64 * LONG_DWELL_ROUNDS;
        let long = if rounds > LONG_DWELL_MICROS as u64 {
            rounds
        } else {
            LONG_DWELL_MICROS as u64
        };
        long << doublings
    } else {
        (LONG_DWELL_MICROS << doublings) as u64
    }
}

/// The most a late refusal's long dwell is doubled: 8 times, 32 s (longer where 32 round trips
/// outlast 4 s) and 1,024 rounds.
pub(crate) const MAX_DOUBLINGS: u8 = 3;

/// How many times `threshold` doubles and stays at or below `latency`, at most
/// [`MAX_DOUBLINGS`]: 0 for a latency below twice the threshold, 3 for a client timeout of 2 s
/// against a threshold of 200 ms (a threshold of 0 counts as 1 µs).
///
/// Why a late refusal's dwell grows with it: the dwell below a knee is as long as a try of the
/// knee costs (see the module `probe`, rule 3). A try of a latency knee costs about one
/// threshold per call it slows; a try that ends in a client timeout holds each call it sends
/// for the whole timeout, many thresholds, and, on a dependency whose throughput collapses
/// past its knee, every other client's calls with it. After such a knee the long dwell of 4 s
/// (and 128 rounds) let the limit try it again every few seconds: on one dependency that
/// stops answering past 10 in flight (1 s client timeout, 20 ms calls) the limit spent a
/// quarter of the oracle's goodput on tries; among 1,000 clients whose shared dependency
/// slows by a whole service time per call past its capacity, each try timed out every
/// client's calls for 2 s. A dwell that doubles with the refusal's lateness bounds each try's
/// cost the same way a latency knee's dwell does, up to 8 times as long (32 s): how long
/// capacity that came back can go unseen past such a knee.
///
/// With the growth probe the same holds for a cut by slow successes: a try whose calls took
/// several thresholds cost that many per call, and its knee's dwell doubles by the same rule
/// (a success is never later than its client's timeout, so at most as long as a timeout's).
/// Among ten clients whose shared dependency slows by a whole service time per call past its
/// capacity, the cuts whose successes took two to eight thresholds (8 and 9 of the 49 and 48
/// cuts by latency on seeds 1 and 3, counted from `--trace AIMD --scenario shared-10-linear`)
/// came with three calls or more past the capacity (400 ms or more, on a baseline of 100 ms),
/// and at 4 s the tries came often enough to
/// keep the p95 at 1.9 times the oracle's on a seed in six (`cargo run --release -p
/// limiter-sim -- --format json --seed N`,
/// `shared-10-linear`, seeds 1 to 6: 89.9 / 90.1 / 85.4 / 90.8 / 91.2 / 90.9 → 90.6 / 91.5 /
/// 90.9 / 91.5 / 90.8 / 91.2 % of the oracle's goodput, p95 at most 1.90 → 1.02 times its,
/// Jain's index on seed 3 0.943 → 1.000; `fairness` 98.8 → 99.0 %; no other row's goodput,
/// p95 or refusals moved).
///
/// A cut by latency that leaves the knee where it was (another client's try, seen a unit below
/// the knee, moves it only halfway, rounded up) keeps such a dwell rather than starting a 4 s
/// one: the knee still costs a timeout to try. Without that, among clients on a collapsing
/// knee, those whose long dwell another's try cut short to 4 s passed their knees into the
/// room the others left and grew past their shares (`--clients 300 --scenario
/// shared-300-linear`, seeds 1 / 2: 66 → 79 % of the oracle's goodput; shared-100-linear, seeds
/// 1 to 6: 68.8 / 67.8 / 67.1 / 63.8 / 72.0 / 64.7 → 74.6 / 76.3 / 67.4 / 63.1 / 66.7 / 66.1 %).
pub(crate) const fn doublings(threshold: u64, latency: u64) -> u8 {
    // `latency >> k >= threshold` is `latency >= threshold × 2^k`, without an overflow; a
    // threshold of 0 counts as 1 µs. Unrolled: a loop of 64-bit arithmetic is about 150 bytes
    // of code on a Cortex-M0.
    let threshold = if threshold == 0 { 1 } else { threshold };
    if latency >> 3 >= threshold {
        3
    } else if latency >> 2 >= threshold {
        2
    } else if latency >> 1 >= threshold {
        1
    } else {
        0
    }
}
/// A second cut by latency below the knee within this many rounds of the first moves it.
const KNEE_ROUNDS: u8 = 8;
/// A second cut below the knee at least this many rounds after the first lifts the knee one
/// above its level (with the probe): the level was held that long before congestion came back.
/// (And congestion that comes after the limit kept its level for this many rounds is another
/// client's try: see the module `probe`, rule 11.)
pub(crate) const KEPT_ROUNDS: u8 = 4;

/// How many more times a cut's long dwell is doubled, besides a late refusal's own doublings,
/// after tries of the knee that failed (see the module `probe`, rule 11): `time` doubles both
/// how long the dwell lasts and how many rounds it spans, `rounds` only how many rounds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DwellBackoff {
    /// Doublings of the dwell's time and rounds: other clients' tries seen.
    pub(crate) time: u8,
    /// Doublings of the dwell's rounds alone: the client's own tries that failed.
    pub(crate) rounds: u8,
}

impl DwellBackoff {
    /// No more doublings.
    pub(crate) const NONE: DwellBackoff = DwellBackoff { time: 0, rounds: 0 };
}

/// The knee, the dwell below it, and the rounds they are counted in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Knee {
    /// The concurrency congestion was last seen at (see [`Knee::cut_from`]); 0 before any cut.
    at: u32,
    /// Rounds since the last cut, if it was by latency and seen below the knee; `u8::MAX`
    /// (saturated) otherwise.
    since_below: u8,
    /// For a knee found by latency, the elapsed µs until which the dwell below it is long; 0
    /// for one found by a refusal.
    long_until: u64,
    /// For a knee found by a late refusal, its [`doublings`] (the long dwell is that many times
    /// doubled, in time and in rounds), with the probe plus the [`DwellBackoff`]'s (in rounds; its
    /// `time` in `long_until` too); 0 otherwise.
    doublings: u8,
    /// Whether the unit below the knee dwells: not after a cut on latency alone while the
    /// healthy latencies spread widely.
    dwell: bool,
    /// Growth samples left in the current round.
    left: u32,
    /// With the growth probe, the knee a quick refusal's cut moved down from (the quota was
    /// served below it until it fell), while the limit has not returned to it; 0: none.
    served_before: u32,
    /// Whether the step has taken the return to `served_before` since the last cut.
    returning: bool,
}

impl Knee {
    /// No knee known, and a first round of `limit` growth samples.
    pub(crate) const fn new(limit: u32) -> Self {
        Knee {
            at: 0,
            since_below: u8::MAX,
            long_until: 0,
            doublings: 0,
            dwell: true,
            left: if limit == 0 { 1 } else { limit },
            served_before: 0,
            returning: false,
        }
    }

    /// Whether the last cut was by latency on a widely spread window: the next judgement of
    /// the window takes it as spread on a lower bar (see `MedianWindow::spreads`).
    pub(crate) const fn spread(&self) -> bool {
        !self.dwell
    }

    /// Whether the last cut moved the knee down from where the limit's own tries had found it
    /// (a cut by latency seen below it), within the last 254 rounds.
    pub(crate) const fn lowered(&self) -> bool {
        self.since_below != u8::MAX
    }

    /// The cut by latency that set the knee came before the window was full, and a whole window
    /// of latencies taken after it spreads widely: no dwell below the knee, as after a cut on
    /// spread latencies (see the module `probe`, rule 3).
    pub(crate) const fn found_spread(&mut self) {
        self.dwell = false;
    }

    /// A late refusal (a client timeout) at `elapsed`, of a call admitted before the last cut:
    /// that cut answered its round trip, so it cuts nothing, but its lateness says what a try
    /// of the knee costs, as a fresh one's does. From now, the long dwell below the knee lasts
    /// as long as its `doublings` ask (4 s, doubled once for each; see [`doublings`]), with a
    /// step as small, where that ends later than the dwell under way; the unit below the knee
    /// then dwells whatever the window's spread (a timeout is not noise). Nothing without a
    /// knee. (With the growth probe: the only AIMD whose refusals can come late.)
    ///
    /// Why: the cut that answers an overload comes with its round trip's first signal, often a
    /// success slower than the threshold; the calls of the same round that time out come
    /// after it, and only they show that a try of that knee holds each call for a whole
    /// timeout. A knee that kept the first signal's 4 s was tried again 4 s later, and on a
    /// dependency shared by many clients every such try collapsed it for all (the simulator's
    /// `shared-100-linear`, seed 1: 18 of the 100 clients were first cut by a slow success
    /// after the start-up's overload, 12 of them then saw stale timeouts, and their tries at
    /// about 5.5 s cost a second collapse; see the module `probe`, rule 3, for the figures).
    pub(crate) fn lengthen(&mut self, doublings: u8, elapsed: u64, round_micros: u32) {
        if self.at == 0 {
            return;
        }
        let d = doublings.min(MAX_DOUBLINGS);
        let until = elapsed.saturating_add(long_dwell::<true>(round_micros, d));
        if until > self.long_until {
            self.long_until = until;
            self.doublings = self.doublings.max(d);
            self.dwell = true;
        }
    }

    /// The knee: the concurrency congestion was last seen at, 0 before any cut.
    pub(crate) const fn at(&self) -> u32 {
        self.at
    }

    /// How far to shift the step down at `limit` at `elapsed`: in the unit just below the knee,
    /// by 7 (a 128th) while a latency knee's long dwell lasts (by 7 plus the [`doublings`] of a
    /// late refusal's knee and the [`DwellBackoff`]'s: down to a 1,024th), by 3 (an eighth)
    /// otherwise; not at all below a knee found on spread latencies.
    /// (`PROBE`: the growth probe's AIMD, the only one whose refusals can come late.)
    pub(crate) const fn slow<const PROBE: bool>(&self, limit: u32, elapsed: u64) -> u8 {
        if self.dwell && limit < self.at && limit + 1 >= self.at {
            if elapsed < self.long_until {
                // A constant shift without the probe: no 64-bit shift by a variable on a
                // Cortex-M0 where it cannot be used.
                LATENCY_SLOW + if PROBE { self.doublings } else { 0 }
            } else {
                SLOW
            }
        } else {
            0
        }
    }

    /// Below a knee found by a quick refusal, or by a cut by latency or a late refusal seen at
    /// or above the knee, the distance from `limit` to the unit just below the knee (`knee - 1 -
    /// limit`); 0 at that unit, at or above the knee, and below a knee [`lowered`](Self::lowered)
    /// by a cut by latency seen below it (within 254 rounds of that cut). With the growth probe,
    /// a round's step is at least this much.
    ///
    /// Why: a quick refusal (a 429, a 503) says the calls in flight went past what the
    /// dependency accepts *at the knee*; the levels below it were served. The cut by the backoff
    /// (0.8) answers the calls in flight, and one step per round back to the knee then spent
    /// about ten rounds a few units below it after each try of a quota (the simulator's
    /// `drop-and-recover`: 51 → 40, then one a round back to 50). Returning in two or three
    /// rounds costs nothing more where the knee still holds: the unit below it dwells as
    /// before, so the knee is tried as often. Where the quota fell, the cut sized by the round
    /// before (the module `tally`) sets the knee to one above what that round kept, so the
    /// return stops where the dependency now refuses. A knee found by latency keeps one step
    /// per round below it: a return to one that is wrong slows every call in flight, and on a
    /// dependency shared by many clients their fast returns would land together. Seeds 1 / 2 /
    /// 3 of `cargo run --release -p limiter-sim -- --format json`, with the knee set from what
    /// the round kept: `oscillating` 69 → 74 % of the oracle's goodput (refusals 10.2 → 9.6 %
    /// of the calls served), `drop-and-recover` 78 → 80 %, `noisy-tenant` 88 → 90 %,
    /// `fast-backpressure` 96.5 → 98 %, `quota-jitter` 62 / 63 / 63 → 65 / 63 / 60 %,
    /// `quota-phases` 91.3 → 90.9 %; no other row moved by more than half a point.
    ///
    /// The same below a knee that a cut by latency (or a late refusal) found at or above it:
    /// the client's own try of the knee failed, and the unit below it, where the limit stood
    /// before the try, was served. A return there is not to a level that is wrong, and clients
    /// sharing a dependency each return to their own level below their own try. A cut seen
    /// below the knee (the capacity fell, or another client tried it) keeps one step per round.
    /// Seeds 1 to 6, `SIM_AGAINST` of `scripts/sim-seeds.sh` (164 → 166 rows of 216 meeting
    /// every bar): `capacity-rise` 86.3 → 90.3 % of the oracle's goodput (every bar on 3 → 6
    /// seeds; seed 4, where a cut right after the rise had left the limit at 8 until 9.7 s,
    /// 68.6 → 90.1 %), `heavy-tail` 93.1 → 93.6 %, `shared-10-linear` 91.1 → 90.6 % (every bar
    /// on 6 → 5 seeds), `capacity-drop` unchanged (p95 5 ms; with the return below every
    /// latency knee, 10 ms: after the fall, the unit below the old knee was no longer served).
    /// Without the quick return below a knee that a refusal seen below it set (another
    /// client's call on a shared quota, or a fall), so that clients sharing a quota grow back
    /// by one step per round, as AIMD evens them out: shared-quota-10 met every bar on 9 → 13
    /// of 24 seeds, but `noisy-tenant` 90.3 → 88.6 % of the oracle's goodput (every bar on 6
    /// → 0 of seeds 1 to 6), `quota-phases` 93.8 → 92.9 %, `oscillating` 84.3 → 83.0 %; 158
    /// rows of 216 against 165. Not kept.
    pub(crate) const fn quick_gap(&self, limit: u32) -> u32 {
        if (self.long_until == 0 || !self.lowered()) && limit.saturating_add(1) < self.at {
            self.at - 1 - limit
        } else {
            0
        }
    }

    /// For a quick refusal seen at `seen` calls in flight, at or above the knee: the unit below
    /// the knee, which the cut goes no deeper than (unless the cut before sized it by what its
    /// round kept, see the module `tally`); `None` below the knee or with none known.
    ///
    /// Why: a quick refusal at the knee is what a try of it costs when the knee still holds:
    /// one refused call for the one call tried. The unit below was served a round ago, and
    /// the backoff's fifth of the limit on top (51 → 40 at a quota of 50 per round trip) took
    /// away calls the dependency would have served, at every try: under a steady quota that
    /// is one cut every eight rounds or so (the dwell). Where the quota fell, the next round
    /// is refused too, and the cut the tally sizes goes down to what it kept: a fall costs the
    /// refusals of a round at the unit below the knee instead of at four fifths of the limit
    /// (drop-and-recover's refusals 2.6 % of the calls served either way). Seeds 1 to 6 of
    /// `bash scripts/sim-seeds.sh`, means: `quota-phases` 91.6 → 93.8 % of the oracle's
    /// goodput (93.5 → 98.4 % over the second half of the load; refusals 2.6 → 1.9 % of the
    /// calls served), `fast-backpressure` 97.9 → 99.2 %, `drop-and-recover` 86.4 → 86.8 %,
    /// `retry-after` 93.1 → 93.5 %, `noisy-tenant` 90.1 → 90.3 %; `quota-jitter` 74.8 → 74.1 %
    /// (and over where its quota's return falls, `cargo run --release -p limiter-sim --example
    /// return-phase`, 75.7 → 74.8 %; drop-and-recover 84.1 → 84.5 %). `shared-quota-10`'s Jain
    /// index over the second half 0.950 → 0.930, every bar on 4 → 3 seeds, 165 rows of 216
    /// meeting every bar against 166; over seeds 1 to 12 the index is 0.941 before and 0.936
    /// after, every bar on 4 of 12 either way (it moves both ways with any rule, see the
    /// README). Only with the growth probe: in the compact AIMD the same rule lifts
    /// `fast-backpressure` 96.3 → 99.0 % and `noisy-tenant` 81.5 → 82.7 % (seeds 1 to 3), but
    /// costs 92 bytes of the M0 image, over its 5 KiB budget (`bash scripts/footprint.sh`: 5,188
    /// bytes).
    pub(crate) const fn tried_back(&self, seen: u32) -> Option<u32> {
        if self.at > 1 && seen >= self.at {
            Some(self.at - 1)
        } else {
            None
        }
    }

    /// At or above the knee, once a round there has shown its added calls served (`served`,
    /// the probe's rate test), the unit below the level a quick refusal's cut last moved the
    /// knee down from; 0 where there is none, below the knee, and once the limit is back at
    /// that unit (which forgets the level). With the growth probe, a growth sample takes the
    /// limit straight there.
    ///
    /// Why: a quota that fell and came back serves again what it served before (the simulator's
    /// `drop-and-recover`: 50 calls per tick, 5 from 5 s, 50 again from 10 s; `oscillating`: 40
    /// and 10 alternating every 2 s). Above the knee the fall left, the probe's doubling, capped
    /// at a quarter of the limit per round, took about 1.5 s to climb from 5 back to 50; the
    /// rate test passing above the knee is the sign the quota has room again, and one refused
    /// round is what a return too far costs, as it is what the fall cost. A knee found by
    /// latency forgets the level: a return to a wrong one slows every call in flight, and many
    /// clients' returns would land together. A return that is refused moves the level halfway
    /// down to where the refusal was seen, so a quota that came back only part of the way is
    /// found in halves, and a refusal by chance near the old level (a latency that varies)
    /// costs little. Seeds 1 / 2 / 3 of `cargo run --release -p limiter-sim -- --format json`:
    /// `drop-and-recover` 80 → 84 %, `oscillating` 74 → 79 % (refusals 9.6 → 8.7 % of the calls
    /// served), `quota-jitter` 65 / 63 / 60 → 73 / 64 / 70 %, `retry-storm` 96 → 97 %,
    /// `quota-window` 82.7 → 83.2 %, `quota-phases` 90.9 → 91.2 % (refusals 1.7 → 1.8 %),
    /// `noisy-tenant` one call fewer (refusals 71 → 73); no other row moved.
    ///
    /// Straight back in one sample, not a step of the whole way: a step is spread over a round
    /// (each growth sample adds its share, `step / limit`), the calls admitted before a rise
    /// hold growth back (it needs most of the limit in flight) and the rate test back (its
    /// round shows the old concurrency) until they complete, so the return took about eight
    /// round trips in `oscillating` where the fall took two. Seeds 1 / 2 / 3:
    /// `oscillating` 78.7 → 84.2 % (refusals 8.7 → 7.4 % of the calls served),
    /// `drop-and-recover` 83.5 → 86.4 % (2.8 → 2.6 %), `quota-jitter` 72.7 / 63.9 / 70.0 →
    /// 77.5 / 72.6 / 71.8 % (3.2 / 3.2 / 3.1 → 4.4 / 4.8 / 3.2 %), `quota-phases` 91.2 → 91.6 %
    /// (1.8 → 2.6 %: its quota comes back from 10 to 30 of 40, and the return to 40 is
    /// refused once), `retry-storm` 96.7 → 97.1 %; `quota-window` 83.2 → 82.5 % (5.5 → 5.9 %),
    /// `noisy-tenant` refusals 1.7 → 1.9 %; no other row moved.
    ///
    /// Where calls vary, the evidence is weak: at a quota of 5 calls per tick and latencies
    /// within ±20 %, a round at 6 is often served (6 calls of 120 ms send 5 per tick), and the
    /// rate test passes on noise. On `quota-jitter` (`--trace AIMD`, seeds 1 to 6), six
    /// returns in the low phase were refused (two on seeds 1 and 4, one on 5 and 6), each
    /// moving the level down: on seed 5 the one at 9.8 s left 27 of 50 to return to, at
    /// 11.4 s. On `shared-quota-10`, seed 6, 18 of the 24 jumps to twice the limit or more
    /// were refused within 200 ms (another client's room, not the quota's return). Stronger
    /// evidence was measured and not kept, before `Knee::tried_back` (rows meeting every bar
    /// of `bash scripts/sim-seeds.sh`, 166 of 216 without them; `cargo run --release -p
    /// limiter-sim --example return-phase` for the means over where the return falls, 84.1
    /// and 75.7 % without them):
    /// - two judged rounds in a row served: 160 rows, quota-jitter 74.8 → 70.9 % (means of
    ///   seeds 1 to 6), oscillating 84.2 → 82.1 %, shared-quota-10 on 4 → 1 seeds;
    /// - the level remembered only for a fall the tally confirmed (the round that lost most of
    ///   its calls, see `tally`), not for a refusal below the knee alone: 160 rows,
    ///   shared-quota-10's Jain index 0.950 → 0.912 (the false returns kept its clients mixing);
    /// - on a dependency whose band says its latencies are noisy (over 1 + 1/8), a return in
    ///   stages of twice the limit, each after a round judged served: 161 rows, quota-jitter
    ///   74.8 → 71.0 %: each stage waits for a whole round at its level, and what decides
    ///   when the return starts is the dwell below the low quota's knee (seed 2: the limit at
    ///   4 from 9.7 to 11.0 s, the quota back at 10 s), not the return;
    /// - a return only from one above the knee: return-phase's quota-jitter 75.7 → 74.5 %.
    pub(crate) fn return_to(&mut self, limit: u32, served: bool) -> u32 {
        if !served || self.served_before == 0 || limit < self.at {
            return 0;
        }
        if limit.saturating_add(1) >= self.served_before {
            self.served_before = 0; // returned
            return 0;
        }
        self.returning = true;
        self.served_before - 1
    }

    /// A cut at `elapsed` whose signal, `by`, was seen at `seen` calls in flight. The knee
    /// becomes `seen` if the cut was by a refusal or at or above the knee, or by latency below
    /// it right after another such cut (the cut before was below it too and at most
    /// `KNEE_ROUNDS` rounds ago) — `seen + 1` with `PROBE` (the growth probe) if that cut was
    /// `KEPT_ROUNDS` rounds ago or more; a first cut by latency below the knee moves it halfway
    /// down to `seen`, rounded up. The unit below the new knee dwells, long after a cut by
    /// latency, except one where the latencies spread. With `PROBE`, a quick refusal seen below
    /// the knee remembers the knee as a level served before the fall (the higher of it and one
    /// remembered already), one seen during a return moves that level halfway down to `seen`,
    /// and a cut by latency forgets it (see [`Knee::return_to`]).
    pub(crate) fn cut_from<const PROBE: bool>(&mut self, seen: u32, by: CutBy, elapsed: u64) {
        self.cut_backing_off::<PROBE>(seen, by, elapsed, DwellBackoff::NONE, 0);
    }

    /// [`Knee::cut_from`], with the long dwell below the knee doubled more by `backoff`, after
    /// tries that failed (see the module `probe`, rule 11); in all at most [`MAX_DOUBLINGS`]
    /// times, with a late refusal's own doublings.
    pub(crate) fn cut_backing_off<const PROBE: bool>(
        &mut self,
        seen: u32,
        by: CutBy,
        elapsed: u64,
        backoff: DwellBackoff,
        round_micros: u32,
    ) {
        if PROBE {
            self.remember_served(seen, by);
        }
        let by_latency = !matches!(by, CutBy::Refusal);
        let knee_before = self.at;
        self.dwell = !matches!(by, CutBy::SpreadLatency);
        let again = self.since_below <= KNEE_ROUNDS;
        let kept = self.since_below >= KEPT_ROUNDS;
        let below = by_latency && seen < self.at;
        let moved = !below || again;
        self.since_below = if below { 0 } else { u8::MAX };
        self.at = if moved {
            // With the lift, a second cut below `KEPT_ROUNDS` after the first: congestion came
            // while the limit held `seen`, a level it kept, not one it tried. (`seen` is then
            // below the knee: one more cannot overflow.)
            seen + u32::from(PROBE && below && kept)
        } else {
            // Half the evidence, half the way down (rounded up: a knee one above stays).
            seen + (self.at - seen).div_ceil(2)
        };
        // Only the probing AIMD judges how late a refusal came (the compact one's are all quick).
        let late = match by {
            CutBy::LateRefusal { doublings } | CutBy::Latency { doublings } if PROBE => doublings,
            _ => 0,
        };
        // Doublings of the dwell's time and rounds, and of its rounds alone (see `DwellBackoff`).
        let timed = late.saturating_add(backoff.time).min(MAX_DOUBLINGS);
        let doublings = timed.saturating_add(backoff.rounds).min(MAX_DOUBLINGS);
        let long_until = if by_latency {
            elapsed.saturating_add(long_dwell::<PROBE>(round_micros, timed))
        } else {
            0
        };
        // A cut by latency that leaves the knee where it was keeps a longer dwell under way (a
        // timeout's, see `doublings`): trying that knee costs what the cut that found it said.
        // (Without the probe every long dwell is 4 s from its cut: a later one is never shorter.)
        let keep = PROBE && by_latency && self.at == knee_before && self.long_until > long_until;
        if !keep {
            self.doublings = doublings;
            self.long_until = long_until;
        }
    }

    /// The level served before a fall, as a cut seen at `seen` by `by` leaves it (see
    /// [`Knee::cut_from`]); called before the knee moves.
    fn remember_served(&mut self, seen: u32, by: CutBy) {
        if !matches!(by, CutBy::Refusal) {
            self.served_before = 0;
        } else if seen < self.at {
            self.served_before = self.served_before.max(self.at);
        } else if self.returning && self.served_before > seen {
            self.served_before = seen + (self.served_before - seen) / 2;
        }
        self.returning = false;
    }

    /// Counts one growth sample at `limit`. At the end of a round, returns true and starts the
    /// next one, of `limit` samples.
    // Inlined off microcontrollers: every growth sample counts, and a controller built in
    // another crate called it (see `Aimd::on_sample`; the bench crate's `cycle
    // contended-local-aimd`, whose samples grow at the ceiling: 2,135 → 2,128 instructions
    // per acquisition).
    #[cfg_attr(not(target_os = "none"), inline)]
    pub(crate) fn count(&mut self, limit: u32) -> bool {
        self.left = self.left.saturating_sub(1);
        if self.left > 0 {
            return false;
        }
        self.since_below = self.since_below.saturating_add(1);
        self.left = limit.max(1);
        true
    }

    /// A new round of `limit` samples, nothing counted: after a sample that did not allow
    /// growth.
    pub(crate) fn restart(&mut self, limit: u32) {
        self.left = limit.max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts `n` growth samples at a limit of 1: once the round under way has ended, each
    /// one is a round.
    fn rounds(knee: &mut Knee, n: usize) {
        for _ in 0..n {
            knee.count(1);
        }
    }

    #[test]
    fn a_round_is_limit_growth_samples() {
        let mut knee = Knee::new(3);
        assert_eq!(
            [knee.count(3), knee.count(3), knee.count(5)],
            [false, false, true]
        );
        // The next round has the limit at its start: five samples.
        assert_eq!((0..5).map(|_| knee.count(9)).filter(|&end| end).count(), 1);
        knee.restart(2);
        assert_eq!([knee.count(2), knee.count(2)], [false, true]);
        let mut zero = Knee::new(0);
        assert!(zero.count(0), "a limit of 0 still makes rounds of one");
        assert!(zero.count(0));
    }

    #[test]
    fn the_unit_below_the_knee_grows_by_an_eighth() {
        let mut knee = Knee::new(5);
        assert_eq!(knee.slow::<true>(5, 0), 0, "no knee yet");
        knee.cut_from::<true>(10, CutBy::Refusal, 0);
        assert_eq!(
            [
                knee.slow::<true>(8, 0),
                knee.slow::<true>(9, 0),
                knee.slow::<true>(10, 0)
            ],
            [0, 3, 0]
        );
        knee.cut_from::<true>(u32::MAX, CutBy::Refusal, 0);
        assert_eq!(knee.slow::<true>(u32::MAX - 1, 0), 3);
    }

    #[test]
    fn a_level_served_before_a_fall_is_returned_to_once_a_round_above_the_knee_is_served() {
        let mut knee = Knee::new(5);
        knee.cut_from::<true>(51, CutBy::Refusal, 0);
        assert_eq!(knee.return_to(51, true), 0, "no fall yet");
        // The quota falls: a quick refusal seen at 6 moves the knee down from 51.
        knee.cut_from::<true>(6, CutBy::Refusal, 0);
        assert_eq!(knee.at(), 6);
        // Below the knee, or before a round there was served: nothing.
        assert_eq!(knee.return_to(5, true), 0);
        assert_eq!(knee.return_to(6, false), 0);
        // At or above it, once served: straight to 50, the unit below 51.
        assert_eq!(
            [knee.return_to(6, true), knee.return_to(30, true)],
            [50, 50]
        );
        // A refusal during the return, seen at 31: the level moves halfway down, to 41.
        knee.cut_from::<true>(31, CutBy::Refusal, 0);
        assert_eq!(knee.return_to(31, true), 40);
        // Back at the unit below it: forgotten.
        assert_eq!(knee.return_to(40, true), 0);
        assert_eq!(knee.return_to(31, true), 0);
        // A refusal not during a return leaves the level as it is; a second fall keeps the
        // higher level.
        knee.cut_from::<true>(60, CutBy::Refusal, 0);
        knee.cut_from::<true>(10, CutBy::Refusal, 0);
        knee.cut_from::<true>(12, CutBy::Refusal, 0);
        knee.cut_from::<true>(5, CutBy::Refusal, 0);
        assert_eq!(knee.return_to(5, true), 59);
        // Any cut by latency forgets it; so does a late refusal.
        for by in [
            CutBy::Latency { doublings: 0 },
            CutBy::LateRefusal { doublings: 0 },
            CutBy::SpreadLatency,
        ] {
            let mut k = knee;
            k.cut_from::<true>(4, by, 0);
            assert_eq!(k.return_to(4, true), 0, "{by:?}");
        }
        // Without the probe (the compact AIMD) no level is remembered.
        let mut compact = Knee::new(5);
        compact.cut_from::<false>(51, CutBy::Refusal, 0);
        compact.cut_from::<false>(6, CutBy::Refusal, 0);
        assert_eq!(compact.return_to(6, true), 0);
    }

    #[test]
    fn below_a_quick_knee_the_gap_to_the_unit_below_it_is_returned() {
        let mut knee = Knee::new(5);
        assert_eq!(knee.quick_gap(3), 0, "no knee yet");
        knee.cut_from::<true>(51, CutBy::Refusal, 0);
        assert_eq!(
            [knee.quick_gap(40), knee.quick_gap(49), knee.quick_gap(50)],
            [10, 1, 0]
        );
        assert_eq!([knee.quick_gap(51), knee.quick_gap(60)], [0, 0]);
        // Below a knee found by latency, a late refusal's or a spread one's: where the cut was
        // seen at or above the knee (the client's own try), the same gap; where it was seen
        // below it, none.
        for by in [
            CutBy::Latency { doublings: 0 },
            CutBy::LateRefusal { doublings: 0 },
            CutBy::SpreadLatency,
        ] {
            let mut own = knee;
            own.cut_from::<true>(51, by, 1);
            assert_eq!([own.quick_gap(40), own.quick_gap(50)], [10, 0], "{by:?}");
            let mut other = own;
            other.cut_from::<true>(45, by, 2);
            assert_eq!(other.at(), 48, "halfway down, rounded up");
            assert_eq!(other.quick_gap(40), 0, "{by:?}");
            // The lowering is forgotten 255 rounds after that cut (see `Knee::lowered`).
            let mut rounds = 0;
            while rounds < 254 {
                rounds += u32::from(other.count(1));
            }
            assert_eq!(other.quick_gap(40), 0, "{by:?}");
            while !other.count(1) {}
            assert_eq!(other.quick_gap(40), 7, "{by:?}");
        }
        // A quick refusal's knee again; no overflow at the ends of the range.
        knee.cut_from::<true>(u32::MAX, CutBy::Refusal, 0);
        assert_eq!(knee.quick_gap(0), u32::MAX - 1);
        assert_eq!(knee.quick_gap(u32::MAX), 0);
    }

    #[test]
    fn a_quick_refusal_at_or_above_the_knee_takes_back_the_unit_below_it() {
        let mut knee = Knee::new(5);
        assert_eq!(knee.tried_back(9), None, "no knee yet");
        knee.cut_from::<true>(51, CutBy::Refusal, 0);
        assert_eq!(
            [
                knee.tried_back(50),
                knee.tried_back(51),
                knee.tried_back(60)
            ],
            [None, Some(50), Some(50)]
        );
        // A knee of 1 has no unit below it; none at the end of the range overflows.
        knee.cut_from::<true>(1, CutBy::Refusal, 1);
        assert_eq!(knee.tried_back(1), None);
        knee.cut_from::<true>(u32::MAX, CutBy::Refusal, 2);
        assert_eq!(knee.tried_back(u32::MAX), Some(u32::MAX - 1));
    }

    #[test]
    fn below_a_latency_knee_the_step_is_a_128th_for_four_seconds() {
        let mut knee = Knee::new(5);
        knee.cut_from::<true>(10, CutBy::Latency { doublings: 0 }, 1_000_000);
        assert_eq!(
            [
                knee.slow::<true>(8, 1_000_000),
                knee.slow::<true>(9, 1_000_000)
            ],
            [0, 7]
        );
        assert_eq!(knee.slow::<true>(9, 4_999_999), 7);
        assert_eq!(knee.slow::<true>(9, 5_000_000), 3, "an eighth after 4 s");
        assert_eq!(knee.slow::<true>(10, 1_000_000), 0, "at the knee");
        // A refusal's knee: an eighth at once, and it ends a latency knee's long dwell.
        knee.cut_from::<true>(10, CutBy::Refusal, 2_000_000);
        assert_eq!(knee.slow::<true>(9, 2_000_000), 3);
        // Elapsed time near its end does not overflow.
        knee.cut_from::<true>(10, CutBy::Latency { doublings: 0 }, u64::MAX - 1);
        assert_eq!(knee.slow::<true>(9, u64::MAX - 1), 7);
    }

    #[test]
    fn with_the_probe_a_long_dwell_lasts_at_least_32_round_trips() {
        // 32 round trips of 100 ms are 3.2 s: the 4 s hold. Of 400 ms, 12.8 s; doubled three
        // times, 102.4 s. Without the probe, 4 s whatever the round trip.
        assert_eq!(long_dwell::<true>(100_000, 0), 4_000_000);
        assert_eq!(long_dwell::<true>(125_000, 0), 4_000_000);
        assert_eq!(long_dwell::<true>(400_000, 0), 12_800_000);
        assert_eq!(long_dwell::<true>(400_000, 3), 102_400_000);
        assert_eq!(
            long_dwell::<true>(u32::MAX, 3),
            u64::from(u32::MAX) * 32 * 8
        );
        assert_eq!(long_dwell::<true>(0, 1), 8_000_000);
        assert_eq!(long_dwell::<false>(400_000, 0), 4_000_000);
        assert_eq!(long_dwell::<false>(400_000, 3), 32_000_000);
        // A 128th of a step below a knee found by latency with 400 ms round trips, for 12.8 s
        // from the cut; then an eighth.
        let mut knee = Knee::new(5);
        let by = CutBy::Latency { doublings: 0 };
        knee.cut_backing_off::<true>(10, by, 1_000_000, DwellBackoff::NONE, 400_000);
        assert_eq!(knee.slow::<true>(9, 13_799_999), 7);
        assert_eq!(knee.slow::<true>(9, 13_800_000), 3);
        // A late refusal of a round trip already answered lengthens it the same way: a 256th
        // for 25.6 s from its arrival.
        knee.lengthen(1, 2_000_000, 400_000);
        assert_eq!(knee.slow::<true>(9, 27_599_999), 8);
        assert_eq!(knee.slow::<true>(9, 27_600_000), 3);
    }

    #[test]
    fn a_late_refusals_long_dwell_doubles_with_how_late_it_came() {
        // Doublings of the threshold within the latency: none below twice it, at most three.
        assert_eq!(
            [199, 200, 399, 400, 799, 800, 1_599, 1_600, 1_000_000].map(|l| doublings(100, l)),
            [0, 1, 1, 2, 2, 3, 3, 3, 3]
        );
        assert_eq!(
            [doublings(0, 1), doublings(0, 2), doublings(0, 1_000)],
            [0, 1, 3]
        );
        assert_eq!(
            [
                doublings(u64::MAX, u64::MAX),
                doublings(u64::MAX / 2, u64::MAX)
            ],
            [0, 1]
        );
        let late = |doublings: u8, elapsed: u64| {
            let mut knee = Knee::new(5);
            knee.cut_from::<true>(10, CutBy::LateRefusal { doublings }, elapsed);
            knee
        };
        // A 1,024th of a step for 32 s, then an eighth.
        let knee = late(3, 1_000_000);
        assert_eq!(knee.slow::<true>(9, 32_999_999), 10);
        assert_eq!(knee.slow::<true>(9, 33_000_000), 3);
        // One doubling: a 256th for 8 s.
        let knee = late(1, 0);
        assert_eq!(
            [
                knee.slow::<true>(9, 7_999_999),
                knee.slow::<true>(9, 8_000_000)
            ],
            [8, 3]
        );
        // Out of range: at most three; once its dwell is over, a cut by latency at the same
        // knee has the plain long dwell.
        let mut knee = late(9, 0);
        assert_eq!(knee.slow::<true>(9, 0), 10);
        knee.cut_from::<true>(10, CutBy::Latency { doublings: 0 }, 40_000_000);
        assert_eq!(
            [
                knee.slow::<true>(9, 43_999_999),
                knee.slow::<true>(9, 44_000_000)
            ],
            [7, 3]
        );
        // The end of the clock does not overflow.
        let knee = late(3, u64::MAX - 1);
        assert_eq!(knee.slow::<true>(9, u64::MAX - 1), 10);
    }

    #[test]
    fn a_latency_cut_that_leaves_the_knee_keeps_a_late_refusals_longer_dwell() {
        let mut knee = Knee::new(5);
        knee.cut_from::<true>(10, CutBy::LateRefusal { doublings: 3 }, 0);
        // Another client's try, seen a unit below the knee at 5 s: the knee stays at 10
        // (halfway, rounded up), and so does the timeout's dwell of 32 s.
        knee.cut_from::<true>(9, CutBy::Latency { doublings: 0 }, 5_000_000);
        assert_eq!(knee.at(), 10);
        assert_eq!(knee.slow::<true>(9, 31_999_999), 10);
        assert_eq!(knee.slow::<true>(9, 32_000_000), 3);
        // One that moves the knee starts its own dwell: 4 s, a 128th.
        let mut moved = Knee::new(5);
        moved.cut_from::<true>(10, CutBy::LateRefusal { doublings: 3 }, 0);
        moved.cut_from::<true>(7, CutBy::Latency { doublings: 0 }, 5_000_000);
        assert_eq!(moved.at(), 9, "halfway down to 7, rounded up");
        assert_eq!(
            [
                moved.slow::<true>(8, 8_999_999),
                moved.slow::<true>(8, 9_000_000)
            ],
            [7, 3]
        );
        // A quick refusal at the knee ends the dwell, as it ends any long one.
        knee.cut_from::<true>(10, CutBy::Refusal, 6_000_000);
        assert_eq!(knee.slow::<true>(9, 6_000_000), 3);
    }

    #[test]
    fn below_a_knee_found_on_spread_latencies_there_is_no_dwell() {
        let mut knee = Knee::new(5);
        knee.cut_from::<true>(10, CutBy::SpreadLatency, 1_000_000);
        assert_eq!(knee.at(), 10, "the knee is still set");
        assert_eq!(
            [
                knee.slow::<true>(9, 1_000_000),
                knee.slow::<true>(9, 9_000_000)
            ],
            [0, 0]
        );
        // The next cut decides again.
        knee.cut_from::<true>(10, CutBy::Latency { doublings: 0 }, 2_000_000);
        assert_eq!(knee.slow::<true>(9, 2_000_000), 7);
        knee.cut_from::<true>(10, CutBy::SpreadLatency, 3_000_000);
        assert_eq!(knee.slow::<true>(9, 3_000_000), 0);
        knee.cut_from::<true>(10, CutBy::Refusal, 4_000_000);
        assert_eq!(knee.slow::<true>(9, 4_000_000), 3);
    }

    #[test]
    fn a_latency_cut_below_the_knee_moves_it_only_when_another_follows_within_eight_rounds() {
        let mut knee = Knee::new(4);
        knee.cut_from::<true>(10, CutBy::Latency { doublings: 0 }, 0);
        assert_eq!(knee.at(), 10, "from no knee");
        // A cut by latency seen at 8: the knee goes halfway down (another client's try, or
        // noise)...
        knee.cut_from::<true>(8, CutBy::Latency { doublings: 0 }, 0);
        assert_eq!(knee.at(), 9);
        // ...and a second one within eight rounds moves it: eight rounds on, to one above the
        // level it was seen at (held there until the congestion came back)...
        rounds(&mut knee, 8);
        let mut compact = knee;
        knee.cut_from::<true>(7, CutBy::Latency { doublings: 0 }, 0);
        assert_eq!(knee.at(), 8);
        // (without the lift, the compact AIMD's, to the level itself)
        compact.cut_from::<false>(7, CutBy::Latency { doublings: 0 }, 0);
        assert_eq!(compact.at(), 7);
        // ...and within four rounds, to the level: cuts that keep coming keep moving it down.
        knee.cut_from::<true>(6, CutBy::Latency { doublings: 0 }, 0);
        assert_eq!(knee.at(), 6);
        rounds(&mut knee, 3);
        knee.cut_from::<true>(5, CutBy::Latency { doublings: 0 }, 0);
        assert_eq!(knee.at(), 5);
        rounds(&mut knee, 4);
        knee.cut_from::<true>(3, CutBy::Latency { doublings: 0 }, 0);
        assert_eq!(knee.at(), 4, "four rounds on: lifted");
        // Nine rounds later, a cut below is a first one again: halfway, rounded up.
        rounds(&mut knee, 9);
        knee.cut_from::<true>(3, CutBy::Latency { doublings: 0 }, 0);
        assert_eq!(knee.at(), 4);
        rounds(&mut knee, 9);
        knee.cut_from::<true>(1, CutBy::Latency { doublings: 0 }, 0);
        assert_eq!(knee.at(), 3);
        // A cut at or above the knee sets it, and so does a refusal anywhere.
        knee.cut_from::<true>(12, CutBy::Latency { doublings: 0 }, 0);
        assert_eq!(knee.at(), 12);
        knee.cut_from::<true>(3, CutBy::Refusal, 0);
        assert_eq!(knee.at(), 3);
        knee.cut_from::<true>(2, CutBy::Latency { doublings: 0 }, 0);
        assert_eq!(
            knee.at(),
            3,
            "a refusal's knee does not count as a cut below it"
        );
        // Rounds saturate without overflow.
        rounds(&mut knee, 300);
        knee.cut_from::<true>(1, CutBy::Latency { doublings: 0 }, 0);
        assert_eq!(knee.at(), 2, "a first cut below again: halfway");
    }
}
