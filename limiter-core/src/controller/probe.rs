//! How fast additive increase may go (an eighth of a step per round just below the last
//! congestion point, doubling steps above it where the dependency shows it has room), and the
//! drains and low rounds that keep a remembered baseline honest.
//!
//! Additive increase of one per round trip is the right speed near the point where congestion
//! last appeared, and far too slow when capacity comes back: after a quota returns from 5 to 50
//! calls per window, +1 per round needs 45 round trips. [`Probe`] lets the step grow while two
//! things hold, and only then:
//!
//! 1. **The limit is at or above the last congestion point**, the knee (CUBIC's `W_max`): the
//!    concurrency the last cut's signal was seen at, that is the cut sample's in-flight count,
//!    at most the limit (a noisy sample at low load says nothing about the limit). Below it the
//!    controller is returning to a level it knows to be congested, and it approaches that level
//!    one step per round, as classic AIMD does; except below a knee found by a quick refusal,
//!    where the levels below were served and a try costs one refused call, or by the client's
//!    own try (a cut by latency or a late refusal seen at or above the knee, where the unit
//!    below was served just before it): there the step is at least the whole way back to the
//!    unit below the knee (see `Knee::quick_gap`).
//! 2. **The added concurrency was served.** A round is `limit` growth samples. At the end of
//!    each that started at a higher limit than the one before, the completion rate of the round
//!    (`limit / duration`) is compared with the previous round's: it must have risen by at least
//!    half as much, relatively, as the limit did. (A round that added no whole unit says
//!    nothing, and leaves the step as it is.) A quota or a server with spare capacity serves
//!    what it is sent, so the rate follows the limit (Little's law); at a knee, behind a hard
//!    cap, or where calls hang, it does not, and the step stays at one.
//!
//! While both hold, each round doubles the step (1, 2, 4, … per round), up to a quarter of the
//! limit per round (BBR's probing gain of 1.25). Where a quick refusal's cut moved the knee
//! down (a quota fell), a round served at or above the new knee shows the quota has room again,
//! and the limit then goes straight back to the level served before the fall (see
//! `Knee::return_to`). A congestion signal or a round whose rate did
//! not follow returns it to one step per round (the caller says so with [`Probe::restart`]); a
//! sample in the hold band does not grow and does not count, which on a noisy dependency is
//! the difference between finding a returned quota and not (a quarter of the healthy calls of
//! a dependency with ±20 % jitter land in the band).
//!
//! A round's duration runs from the call that ended the round before to the call that ends it,
//! so it carries the jitter of two calls' latencies. Where latency is uniform within ±20 %
//! (the simulator's `quota-jitter`, seed 1, counted with a temporary print in `round_end`),
//! rounds at a steady rate lasted 83 to 121 ms, 5 of the first 20 failed the test on noise
//! alone, and the step stayed near one: the limit reached 45 at 2.2 s, where without jitter
//! (`drop-and-recover`) it does at 1.7 s (`--trace AIMD`). Measured instead between the mean
//! instants at which two rounds' calls completed (about the mean latency of a round's calls,
//! and longer where calls hang), the test halfway between the durations a rate that follows
//! and a flat one predict, it reached 45 at 1.8 s there. Seeds 1 to 6, `bash scripts/sim-seeds.sh`:
//! quota-jitter 74.8 → 76.2 % of the oracle's goodput, capacity-rise 86.3 → 89.5 %; but the
//! step then doubles where clients share a quota too, and the start-up's race sets a split that
//! the return to the level served before the fall restores: Jain's index over the second half
//! of shared-quota-10 0.950 → 0.922 (seed 5: one client at 40 to 50, the others at 10 to 29),
//! of shared-quota-hints-10 0.958 → 0.926; 159 rows of 216 against 164. With no doubling above
//! a knee found by a quick refusal as well: 160 rows (the indexes 0.962 and 0.962, but
//! shared-quota-hints-10's goodput 93.6 → 87.2 % and quota-jitter's 72.5 %). Not kept: the
//! test's noise is, today, part of what keeps clients that share a quota even. Measured again
//! over 24 seeds of the quota rows (`limiter-sim --scenario S --seed N --format json`, seeds 1
//! to 24, `scripts/sim-bars.py --seeds`), the loss of evenness is not the luck of six seeds:
//! shared-quota-hints-10 met every bar on 19 → 7 seeds, shared-quota-10 on 9 → 4, for
//! quota-jitter 73.7 → 74.7 % and capacity-rise 87.8 → 88.6 %.
//!
//! 3. **A dwell below the knee, as long as a try there costs.** In the one unit of limit just
//!    below the knee, the step is an eighth: about eight rounds at the highest level known to be
//!    uncongested before the knee is tried again (CUBIC's plateau near `W_max`). That is for a
//!    knee found by a quick refusal (a 429, a 503): trying it again costs one refused
//!    call. A knee found by latency costs far more to try: past a sharp one, one call too many
//!    slows *every* call in flight for a round trip, and the cut that follows leaves the limit
//!    a fifth lower for a few more. So below a latency knee the step is a 128th, for at most
//!    4 s after the cut (then an eighth again): the knee is tried again after 128 rounds or
//!    4 s, whichever comes first. The rounds bound the cost (at most one try in 128 rounds);
//!    the time bounds how long capacity that came back goes unseen (the
//!    simulator's `capacity-rise`, 100 ms calls: 128 rounds would be 12.8 s). On a dependency
//!    shared by several clients the difference is larger still, because each client's tries
//!    slow all the others: an eighth held `fairness` (10 clients, one capacity of 40) at 61 %
//!    of the oracle's goodput with p95 3.9× its own; the 128th at 82 %, p95 1.6×; a single
//!    client behind a sharp knee (`hang`, `slow-no-429`) went from 90 % to 99 %.
//!    The 4 s is never less than 32 round trips of the baseline, a quarter of the 128 (see
//!    `knee::long_dwell`; under 125 ms a call, 4 s is the longer; `limiter-sim/tests/shapes.rs`
//!    pins it): chosen for calls of 100 ms,
//!    where it is 40 rounds, 4 s is 10 rounds of 400 ms calls, and clients sharing a knee
//!    tried it thirteen times as often as the 128 rounds say, each try slowing every call of
//!    every client. The `shapes` example of `limiter-sim` (seeds 1 to 6, means; its shapes
//!    with 20 ms calls print the same rows as before, and the suite's JSON is the same to the
//!    byte with no seed and seeds 1 to 6, but for the fast start's `shared-10-linear` on seed
//!    5, 74.7 → 77.3 %): thirty clients each with a share of 12, 400 ms calls, latency linear past the
//!    capacity, 77.9 → 86.7 % of the oracle's goodput (p95 1.34 → 1.15 times its own); three
//!    of them 88.6 → 92.0 % (p95 1.90 → 1.02, every bar met on all six seeds, two before);
//!    with a share of 2 each, thirty 46.4 → 60.1 % and three 59.4 → 71.3 %; the shapes
//!    meeting every bar 7 or 8 → 8 or 9 of 24 per seed.
//!    A refusal that came late (a client timeout) cost more still: each call of the try was
//!    held for the whole timeout. Its knee's 128th and 4 s are doubled once for each doubling
//!    of the congestion threshold within the refusal's latency, up to 8 times: a 1,024th of a
//!    step, 32 s (see `knee::doublings`; so are those of a cut by successes as slow). Seeds 1 / 2 / 3 of `cargo run --release -p
//!    limiter-sim -- --format json`: `hang-silent` (a server that stops answering past 10 in
//!    flight, no latency knee before it, 1 s timeout) 73.7 → 94.5 % of the oracle's goodput
//!    (56 → 12 timeouts); `shared-1000-linear` 41 / 40 / 42 → 63 / 63 / 63 %,
//!    `shared-100-linear` 65 / 68 / 60 → 69 / 68 / 67 % (with the refusal judged before the
//!    window holds `min_samples`, which these need: without it 51 / 47 / 51 % and
//!    59 / 67 / 57 %), and 75 / 76 / 67 % once another client's try, seen below a knee it
//!    leaves where it was, no longer cuts that dwell short; no other row moved.
//!    A late refusal of a round trip that an earlier cut answered (a call admitted before it)
//!    cuts nothing, but lengthens the dwell under way to what its own lateness asks, counted
//!    from its arrival (see `Knee::lengthen`): the first signal of an overload is often a slow
//!    success, and the timeouts of the same round come after it. Seeds 1 to 6 of `cargo run
//!    --release -p limiter-sim -- --format json --seed N`, means: `shared-100-linear` 83.5 →
//!    88.0 % of the oracle's goodput (over the second half of the load 93.6–97.3 → 99.8–100 %
//!    on every seed: the second collapse, about 5 s after the start-up's, is gone),
//!    `shared-1000-linear` 69.3 → 76.9 % (second half 72.4–90.4 → 99.5–99.7 %), p95 1.00 times
//!    the oracle's on both (up to 1.04 before); with `--clients 30` and `--clients 300`, seeds 1 / 2:
//!    `shared-30-linear` 83.0 / 83.2 → 88.6 / 88.3 %, `shared-300-linear` 82.4 / 84.7 → 87.5 /
//!    87.8 %. What is left of their loss is the start-up, where every client's first step
//!    past its share collapses the capacity before any signal can come back. No other row of
//!    the default AIMD moved; started fast, `shared-10-linear` and `shared-100-linear` lose
//!    0 to 2.6 points.
//!    There is no dwell at all below a knee found by latency where the healthy latencies
//!    spread widely (the test of the five-of-eight rule, `MedianWindow::spreads`): there a
//!    cut by latency is noise as often as a knee, and a dwell after each kept the limit a
//!    unit or more below a knee that was not there (the simulator's `heavy-tail`, 10 ms plus
//!    an exponential 10 ms, capacity 8: 78 % of the oracle's goodput with the dwell, 89 %
//!    without it; with no dwell anywhere, the sharp knees above fall back to 72 %).
//!    Whether the latencies spread is judged on a full window; a cut by latency that comes
//!    before the window is full (32 samples by default) is judged once the window holds a
//!    whole window of samples taken after it, and if those spread widely, its knee does not
//!    dwell either. Noise cuts early as often as late: on the simulator's `heavy-tail`, seed 5
//!    of `cargo run --release -p limiter-sim -- --format json --seed N`, cuts in the first
//!    0.25 s left the limit at 3 (capacity 8) for 4.3 s, 68.1 % of the oracle's goodput;
//!    94.7 % with the judgement. Samples taken after the cut, not the first full window: that
//!    one also holds the slow calls of the levels the cut left, a knee's own latencies, which
//!    look spread where a knee doubles the latency (judged on the first full window, `hang-low`,
//!    a server that stops answering past 5 in flight where 5 doubles the latency, tried its
//!    knee again in its first second on seed 2, 99.1 → 98.2 %, and started fast, the knees
//!    of `shared-10-linear` and `fairness` lost their dwells: 75 → 72 % and 97 → 93 % on seed
//!    3). No other row moved on seeds 1 to 6.
//!
//! 4. **A knee moves down on evidence.** A cut by latency seen below the knee moves the knee
//!    only halfway down to it (rounded up, so a knee one above stays), unless the cut before it
//!    was below the knee too, at most eight rounds earlier (then to one above the level it was
//!    seen at); a cut by a refusal, or one seen at or above the knee, sets it. On a dependency
//!    shared by several clients, each client sees the congestion another's try caused, at its
//!    own level below its knee: moving its knee down to that level kept it below its share for
//!    the whole long dwell (the simulator's `fairness`, 10 clients on one capacity of 40: 82 %
//!    of the oracle's goodput; 97 % and p95 1.03× the oracle's with the rule, Jain's index 0.99).
//!    Noise that cuts now and then would ratchet the knee down the same way. A capacity that
//!    really fell brings cuts round after round, and the second one moves the knee
//!    (`capacity-drop` is unchanged). Halfway rather than not at all: among 100 clients on one
//!    sharp knee (`shared-100-linear`) knees that never fell kept the shared knee over for
//!    longer (25 % of the oracle's goodput; 45 % halfway). A second cut below the knee four
//!    rounds or more after the first moves it to one above, not to, the level it was seen at:
//!    the limit held that level for four rounds before congestion came back, so the level was
//!    kept, not tried (another client's try), and a knee at it made the client dwell a unit
//!    below its share for the whole long dwell. Sooner than that, the level itself congests (a
//!    capacity that fell: `capacity-drop` re-tried its old level every 22 ms, 36 cuts in
//!    0.5 s, when every second cut lifted the knee). Seeds 1 / 2 / 3: `shared-100-linear`
//!    57 → 65, 58 → 68, 52 → 60 % (p95 at most 2.00× the oracle's); `shared-10-linear` 79 → 85 %
//!    on seed 1; `fairness` 94 → 96 % (Jain's index 0.80 → 0.94) and 94 → 97 % (0.83 → 1.00)
//!    on seeds 2 and 3; no other row moved.
//!
//!    **A knee is above a level a clean round served.** A cut by slow successes or by a late
//!    refusal (a client timeout) seen with no more calls in flight than the level the last
//!    whole round of growth samples started at, since the last congestion signal, is taken as
//!    seen one above where it came, if no success of that round was congested. Such a round
//!    came back at the baseline, so the client's own calls at that level were not what
//!    congested the dependency: the congestion came with more (its own try one above, or
//!    other clients' calls on a shared dependency). A knee set at the level served kept the
//!    client a unit below it for the whole dwell (up to 32 s after a timeout, see
//!    `knee::doublings`), and on a shared dependency the clients a unit below their shares
//!    left room that the others grew into: among 1,000 clients on one capacity that slows by
//!    a whole service time per call past it, each started at its share, all grew past it in
//!    the first round and every call timed out; 84 % of them saw nothing but timeouts of calls
//!    admitted at their share and dwelt a unit below it for the rest of the run, while the few
//!    whose knees came from slow successes grew to 21. The round must be clean: a congested
//!    success that does not cut yet (one of the last four) neither counts in a round nor
//!    restarts it, so a level whose latency doubles can complete one, and lifted there the
//!    knee of a client that starts fast behind a server that hangs past 5 in flight stayed
//!    above a level whose every try doubled the latency (`hang-low`, started fast: 91 → 72 %
//!    of the oracle's goodput). Quick refusals are left to the tally (see `tally`). Seeds 1 to
//!    9 of `cargo run --release -p limiter-sim -- --format json --seed N`, goodput against the
//!    oracle's (mean over the nine seeds) and Jain's index over the converged window (its
//!    lowest): `fairness` (ten clients, one capacity of 40) 96.0 → 97.0 %, 0.64 → 0.95;
//!    `shared-10-linear` 83.5 → 88.3 %, 0.72 → 0.93; `shared-100-linear` 69.3 → 78.7 %
//!    (lower on seed 3 only, 67.4 → 64.7 %), 0.73 → 0.94; `shared-1000-linear` 63.0 → 66.6 %,
//!    0.86 → 0.97, where every client now holds its share and the tries of the few whose
//!    knees are a unit above it now and then collapse the capacity for all: about 72 % on six
//!    seeds, 55 to 61 % on seeds 2, 4 and 7, p95 2.84 and 1.93 times the oracle's on seeds 4
//!    and 7 (1.00 before, when most clients dwelt a unit below their shares and left room for
//!    the tries). No other row of the default AIMD moved on seeds 1 to 3; started fast, its
//!    `shared-10-linear` p95 went 1.92 → 2.84× on seed 3.
//!
//! Two more rules correct a baseline learned on a queue that was already standing, the late
//! joiner's problem (a client that starts on a queue kept by others takes it for the no-load
//! latency and claims several times its share); they act only where the baseline is
//! remembered (a [`LatencySignal::Baseline`](super::LatencySignal) with memory):
//!
//! 5. **A drain every five seconds of standing queue.** When no success has been at or below
//!    the baseline for 5 s, the limit is halved for one round (until half a limit's worth of
//!    calls admitted after the halving have completed), then restored. The interval is fixed
//!    and restarts on every success at or below the baseline, as BBR v3's `ProbeRTT`: clients
//!    sharing a queue that started together drain together, the queue empties, and each sees
//!    the dependency's no-load latency at the same moment, which restarts all their intervals
//!    at once. Where there is no standing queue, successes at the baseline keep putting the
//!    drain off, and it costs nothing. The first interval starts at the controller's first
//!    success, not at the start of its clock: a client made early and first used later (the
//!    late joiner, built with the others) drained on its first calls, at a limit it had not
//!    grown yet, and halved it for nothing. A drain that halves the limit to the floor does
//!    not make its slow calls the dependency's new normal, as slow calls at the floor
//!    otherwise are: they were admitted on the queue it drains (a limit of 2 on a baseline of
//!    100 ms under a queue of 140 ms learned 140 ms, a baseline that lets it grow into that
//!    queue).
//!
//!    **A drain whose calls come back low holds for their round.** When the drain's round
//!    ends while its calls are coming back below `10/11` of the baseline (a low round of rule
//!    6 under way), the drain holds the halved limit once more, for as many calls as that low
//!    round still needs, and ends as soon as a call breaks the run. A drained round at a
//!    small limit is shorter than a low round (at least [`LOW_ROUND_LEAST`] calls), so the
//!    drain used to end, and refill the queue, before its calls could correct the baseline
//!    (`tests/aimd.rs`: `a_drain_whose_calls_come_back_low_holds_until_their_round_is_whole`,
//!    `a_held_drain_ends_when_its_calls_stop_coming_back_low`; on the simulator,
//!    `limiter-sim/tests/shapes.rs`). The baseline that needs it is one learned on a queue the client built itself with the
//!    others from their first calls, each started above its share: every call after the first
//!    few met that queue, and the window's median is its latency. The `shapes` example of
//!    `limiter-sim` (`cargo run --release -p limiter-sim --example shapes -- SEED`, seeds 1
//!    to 6, means): three clients each with a share of 2 (the initial limit is 4), 20 ms
//!    calls, latency linear past the capacity, 26.8 → 66.2 % of the oracle's goodput, p95
//!    10.97 → 6.88 times its own; the same with 400 ms calls 33.5 → 59.4 %, 9.01 → 5.56
//!    times; thirty clients with 400 ms calls 42.1 → 46.4 %. What a drain cannot do is line
//!    up clients whose intervals have drifted apart: on seeds 3, 5 and 6 one of the three
//!    began its drain (or a low round on the others') 0.2 to 0.3 s after them, 10 to 15 of
//!    its round trips, refilled the queue they were draining, and 37.0 to 55.2 % is left.
//!    Where latency grows in proportion to the load, the clients whose drains overlapped learn a lower baseline than
//!    those whose did not, and the split of the capacity follows the baselines (Vegas's
//!    unfairness): Jain's index over the converged window 0.964 → 0.845 with thirty clients
//!    and 20 ms calls, 0.943 → 0.657 where a fourth joins three with 400 ms calls, at the same
//!    goodput; those rows already missed the p95 bar (2.5 to 3 times the oracle's), and the
//!    shapes meeting every bar stay 7 or 8 of 24 per seed. Held again for each further low
//!    round its calls make (so a drain would go on while the latency keeps falling), the
//!    three clients with 20 ms calls got 72.8 % (66.2 % with the long dwell's floor of rule
//!    3), but with 400 ms calls 55.4 % (71.3 %): not kept. The interval is a trade too
//!    (measured with the hold, seeds 1 to 6): drains every 2.5 s let a client that joins three
//!    others, each with a share of 12, reach its share within 5 s (the shapes' `join 3 x12`
//!    rows met every bar on 5 and 3 seeds of 6, none before), but late-joiner-10 and
//!    late-joiner-100 then met them on no seed (5 and 6 before), 153 rows of the suite; only
//!    the first drain due 1 s after the last success at the baseline, 156 rows:
//!    shared-100-linear 88.0 → 67.8 % of the oracle's goodput, shared-1000-linear 76.9 →
//!    36.7 %, late-joiner-100 on no seed. With the hold as it is, no row of the suite meets
//!    or misses a bar it did not before, and only late-joiner-10 and -100 moved, in the fourth
//!    digit (`cargo run --release -p limiter-sim -- --format json --seed N`, seeds 1 to 6:
//!    164 of 216 rows meet every bar of `scripts/sim-bars.py` before and after).
//!    A first drain due early where start-up built a queue (once the first full window's
//!    median is twice its fastest call, as where each client's share is below the initial
//!    limit): the `shapes` example's `3 x2 20ms linear` (seed 1) 83.8 → 32.0 % of the
//!    oracle's goodput, p95 5.72 → 8.62 times its own, because the three clients' windows
//!    filled at different times and their drains did not line up; due 1 s after the first
//!    success instead (lined up as the others are), the same row; 8 of 24 shapes either way.
//!    Measured again with the drain held for its low round and the rules since (the shapes
//!    on seed 1, the suite on seeds 1 to 6): due 1 s after the first success, `3 x2 20ms
//!    linear` 83.8 → 89.5 % (p95 5.72 → 1.02 times the oracle's), 9 of 24 shapes, but a
//!    joiner's first drain is then out of line with the others': `join 3 x2 20ms
//!    proportional`'s joiner 0.93 → 2.29 times its share 2 s after joining, `join 30 x2 20ms`'s
//!    1.57 → 2.78; and where the first step past the share collapsed the capacity, drains
//!    in the collapse cost its recovery: `shared-100-linear` 88.1 → 79.3 %, `shared-1000-linear`
//!    77.1 → 51.3 % (166 rows of 216 either way).
//! 6. **A low round lowers the baseline, and the limit with it.** A whole round of successes in
//!    a row below `10/11` of the baseline makes the slowest of them a remembered baseline: as
//!    many as the limit was when the first of them came back, and at least
//!    [`LOW_ROUND_LEAST`] (6). That is how the late joiner learns, during the others' drain,
//!    what the dependency looks like without their queue; a rolling median of 32 would need
//!    half a window of such samples. Noise cannot do it: it takes a whole round in a row (for
//!    a latency spread uniformly ±20 % about the baseline, 27 % of calls come back under
//!    `10/11` of it, and 6 in a row start at one call in 2,400). The limit (and the one a drain
//!    under way returns to) is scaled by the new baseline over the old: it grew against a
//!    baseline that many times too high, and the corrected baseline alone would only hold it
//!    where it is (see `Aimd`'s `watch_baseline`).
//!
//!    A baseline less than a tenth too high is never corrected so, not even by a drain: the
//!    simulator's late-joiner-10, seed 2, keeps the joiner's at 111.6 ms where its drains with
//!    the others come back at 101.6 ms (`--trace AIMD`, `scripts/trace-summary.py --client
//!    10`). Any whole round below the baseline during the client's own drain (as BBR takes
//!    `ProbeRTT`'s measurement whatever it is), with `10/11` kept outside drains: 157 rows of
//!    216 against 164 (seeds 1 to 6, `scripts/sim-bars.py --seeds`), the late joiners fair on
//!    1 and 3 seeds (5 and 6 before): scaled down while the others keep their queue, the
//!    10-client joiner was 0.78 times fair 5 s after joining on seed 2, and within ±20 % for
//!    good only from 7.1 to 20 s after joining on seeds 1 to 3. With baselines that agree so,
//!    a drain that returns to its level scaled by the band's start over the window's median at
//!    its start (rule 10 tried it alone): 147 rows, `creep`'s upper quartile 7 and its Jain's
//!    index 0.88 (6 and 0.998 before), the joiners fair on no seed.
//!
//!    The round is the limit when the run began, not the limit when it ends: the others'
//!    drain shows the joiner the no-load latency for about one round trip, during which it
//!    completes the calls it had in flight, and grows on those fast calls; counted against the
//!    limit they had grown it to, its run was always one short (the simulator's
//!    late-joiner-10, seed 3: seven calls of 100 ms against a baseline of 146 ms, the limit
//!    from 7 to 8 during them). And at least 6 rather than 8: a joiner's round at a small limit
//!    is shorter than 8. Seeds 1 to 9 of `cargo run --release -p limiter-sim -- --scenario
//!    late-joiner-10 --scenario late-joiner-100 --format json`: the joiner's share 5 s after
//!    joining was 2.2 to 2.5 times fair in 7 of the 18 runs and within ±20 % in 9; with the
//!    rule and the first interval from the first success, within ±20 % in 16 and at most 1.30
//!    times; no other scenario's row moved on seeds 1 to 3.
//!
//!    The rescale also sets a knee at the level the limit stood at, as a cut by latency does
//!    (see `knee`): that level was found to stand on a queue, late, and growth back towards it
//!    dwells below it as below any latency knee. A joiner has no knee of its own (it has never
//!    been cut) where the clients it joins dwell below theirs: after each drain of theirs it
//!    grew at a full step into the room the drain opened, a unit at a time, and kept it.
//!    Seeds 1 to 9 of `--scenario late-joiner-10 --scenario late-joiner-100 --format json`,
//!    the joiner within ±20 % of its share from 1 to 1.7 s after joining and staying there in
//!    17 of the 18 runs, 9 without the knee (its share 5 s after joining at most 1.09 times
//!    fair, 1.30 without); seeds 1 to 6 of the whole suite, the rows meeting every target of
//!    `scripts/sim-bars.py` 154 → 159 of 216 (shared-quota-10's Jain's index falls under 0.95
//!    on seed 3).
//!
//! The simulator's late-joiner-10 (seed 1): the late client's share 2 s after joining went from
//! 1.95× fair without these rules to 1.37× with them (Jain's index over the converged window
//! 0.98), and to 1.20× with the rescale of rule 6; late-joiner-100: 2.59× to 1.19× (Jain
//! 0.996), and 0.89× with the rescale. Drains cost about 1 % of goodput where
//! a queue stands on purpose (creep, shallow-knee, slow-link).
//!
//! One more rule is left to the caller, because it trades one kind of dependency against another:
//!
//! 7. **A fast start, on request** ([`Aimd::fast_start`](super::Aimd::fast_start)).
//!    From the call on (a new controller's), until the first sign of congestion (any cut, or
//!    any success held above the growth band), each growth sample adds a whole unit: the limit
//!    doubles every round, as TCP's slow start. The first sign ends it for good, and undoes the last
//!    doubling: a held success halves the limit (under a new epoch, as every decrease; the
//!    level a round earlier was served at the baseline), and a cut goes at least to half
//!    (deeper if its own factor says so), setting the knee as any cut does.
//!
//!    Why it is not the default: before any signal a client knows nothing of its dependency,
//!    and the two cases a start-up must serve look the same to it. A quota of 50 calls per
//!    window of one latency is reached from 4 in about 15 rounds at a quarter per round at
//!    most, where doubling takes 4, and start-up is most of what the quota rows miss. Seeds
//!    1 / 2 / 3 of `cargo run --release -p limiter-sim -- --format json`, the `AIMD` and `AIMD
//!    fast start` rows, goodput against the oracle's: drop-and-recover 86.4 → 91.6 %,
//!    quota-window 85.0 → 90.3 % (refusals 4.6 → 3.9 % of the calls served),
//!    quota-window-hints 86.5 → 90.2 %, oscillating 84.2 → 88.0 %, retry-after 93.1 → 96.1 %,
//!    quota-phases 91.6 → 94.0 %, noisy-tenant 90.1 → 94.4 % on every seed (quota-jitter
//!    77.5 / 72.6 / 71.8 → 69.1 / 76.0 / 73.9 %: its noise decides more than the start). But a
//!    client that joins a queue others keep sees no sign while it doubles (its own calls are a
//!    small part of the queue, and its baseline was learned on it), and takes about twice its
//!    share until the next drain: late-joiner-10's joiner 1.04 → 2.01 times its fair share 2 s
//!    after joining and 1.14 → 1.55 at 5 s, late-joiner-100's 0.90 → 2.42 and 0.96 → 1.52 (seed
//!    1). Clients that start together at their share of one capacity all double past it at
//!    once: shared-10-linear 84.9 → 72.3 %, fairness 97.0 → 93.5 % (Jain's index over the
//!    second half 0.99 → 0.89). And one doubling past a knee costs a round trip above it:
//!    hang-low (a server that stops answering past 5 in flight) 98.2 → 91.2 %, capacity-rise
//!    90.4 → 88.0 %, capacity-drop's p95 10 → 15 ms. A provider's quota that a client has to
//!    itself is the first case; a backend shared with others the second.
//!
//!    A start-up between the two speeds makes the same trade. Seeds 1 to 6 of `cargo run
//!    --release -p limiter-sim -- --format json --seed N`, `python3 scripts/sim-bars.py --seeds`,
//!    against the rows as they are (drop-and-recover 86.4 %, quota-jitter 74.8 %; a late joiner
//!    fair, within ±20 % of its share within 5 s of joining and staying there, on 5 of 6 seeds
//!    with 10 clients and on 6 with 100; 164 of the 216 rows meet every bar):
//!    - A step doubled up to a quarter of the limit exactly, each round the rate follows (1.25
//!      times per round, BBR's probing gain), instead of the power of two that fits in a
//!      quarter (between an eighth and a quarter of the limit: from 4 to 44 in 17 rounds, `--trace
//!      AIMD --scenario drop-and-recover`): drop-and-recover 88.5 %, quota-jitter 76.9 %, and
//!      both late joiners fair on 1 seed of 6 (their shares 1.13 and 1.21 times fair 5 s after
//!      joining on seed 1); 150 rows.
//!    - The same only until the first sign of congestion, as the fast start's end: the late
//!      joiners the same (1 seed of 6 each), since a joiner's own start-up is what takes more
//!      than its share; 152 rows.
//!    - A power of two up to half the limit: drop-and-recover 88.2 %, the 10-client joiner
//!      fair on no seed; 143 rows.
//!
//!    A joiner cannot tell the two cases apart: its calls are a small part of a queue whose
//!    latency it learned as its baseline, and its rate follows its limit because it takes from
//!    the others what it adds.
//!
//! And one rule that needs the dependency's word, which is what lets it grow fast without that
//! trade-off:
//!
//! 8. **A stated pace, straight away.** A provider that sends its remaining-quota headers
//!    (`RateLimit`, `X-RateLimit-Remaining` with a reset) states how many calls it serves until
//!    its window resets. At a call's latency, the concurrency that spends them by then is
//!    `⌈remaining × latency / reset⌉` (Little's law; [`QuotaLeft::concurrency`](crate::QuotaLeft::concurrency)),
//!    which a recorded verdict passes on as the sample's [`pace`](crate::Sample::pace). A
//!    growth sample (a fast success, the limit in use, growth not held) below that pace takes
//!    the limit straight to it, up to the unit below the last knee, whatever found it: where
//!    the provider refused calls before, it refused what its own pace allowed, and where
//!    latency rose it was busy, and the knee knows better than the header (the limit goes on
//!    past the knee as growth does, not by the header's word). A pace at or below the limit
//!    does nothing more than the success it came with (the quota's hold when nearly spent and
//!    its pause when spent are the advice's, see [`QuotaHint::advice`](crate::QuotaHint::advice)),
//!    and a pace stated for a window about to reset (no longer than the call) is none: every
//!    call sent now lands in this window, and says nothing of the next; nor is a reset the
//!    header parser cut to its bound (a daily quota's: a pace over the bound would spend a
//!    day's calls in minutes). Seeds 1 / 2 / 3 of `cargo run --release -p limiter-sim --
//!    --format json`: quota-window-hints (500 calls per 1 s window, every answer with the
//!    headers) 86.5 → 97.3 % of the oracle's goodput, refusals 3.7 → 3.4 % of the calls
//!    served; the limit reaches the quota's concurrency one round trip after the start where
//!    additive growth took 1.9 s.
//!
//!    Where the answers also state the calls left ([`calls_left`](crate::Sample::calls_left)),
//!    the pace is the client's part of it, and a ceiling too (see the module `share`): a quota
//!    shared by several clients (one account, several services) counts every client's calls,
//!    so each one's pace is the whole account's, and a client measures its share of the
//!    account's calls from the count. Its part lowers a limit above it, alone or not (a client
//!    alone then spends its window evenly: quota-window-hints 97.3 → 99.3 %, refusals 3.4 →
//!    0.8 %), and only a client alone jumps straight to the pace; one that shares the quota
//!    jumps at most back to where the last window's ceilings found it.
//!
//! Two rules keep the standing queue that growth leaves no larger than the dependency's noise
//! asks for:
//!
//! 9. **A band as wide as the noise.** Growth holds above a band over the baseline: on a
//!    dependency whose latency rises gently with load, the limit settles where the band
//!    starts, so the band's width is the standing queue every client keeps. The band exists
//!    so that noise does not hold growth, and it need be no wider than the noise: each time
//!    the window is full and its median is remembered as the lowest (and once, the first time
//!    the window is full), the band's start is measured from it as `1 + 2 (q⅞ − m) / m`, with
//!    `m` the window's median and `q⅞` the sample at its upper eighth, at least `1 + 1/16` and
//!    at most the configured [`growth_tolerance`](crate::AimdConfig::growth_tolerance) (1.25
//!    by default). Twice the distance to the upper eighth holds about one healthy call in 30
//!    where the noise is exponential (of mean `μ`: the median is `0.69 μ` over the least
//!    latency, the upper eighth `2.08 μ`, so the band starts `3.47 μ` over it, and
//!    `e^−3.47` ≈ 3 % of calls come later), none where it is uniform within ±20 % (its upper
//!    eighth is 15 % over its median: 1.30, so the configured 1.25), and a sixteenth where
//!    there is none (one unit of limit past a knee still has to show above it). A full window (32 samples by default), not the first ten:
//!    the upper eighth of ten samples is one sample, and a client that drew a wide band from
//!    its first ten grew past its neighbours for the whole run (in a trial that measured it
//!    from the first ten, with two holds around drains since dropped, two of the 100 clients
//!    of `late-joiner-100`, seed 1, ended at 17 and 21 where the others held 4 to 7). Only where the baseline is remembered, as the drains and low rounds: without
//!    memory the baseline is the window's median, which follows the queue it would measure.
//!
//!    The first full window is taken while the limit still rises, and where latency rises
//!    with it that rise widens its upper eighth: `shallow-knee` (20 ms calls with an
//!    exponential millisecond, +10 % per call past 10) measured the configured 1.25 there, and
//!    grew to 13 on calls at 1.16 times the baseline on seeds 4 and 5 (p95 1.30 times the
//!    oracle's; 12 and 1.20 on the others). Measured from the lower eighth instead (the band's
//!    start at `1 + 2 (m − q⅛) / m`, which a rise above the median does not move), it stopped
//!    at 12 on every seed, but the band of skewed noise is then narrower than the noise (an
//!    exponential's lower eighth is 0.56 of its mean below the median, its upper eighth 1.39
//!    above), and held healthy calls: `capacity-rise` on 6 → 3 seeds (90.3 → 88.3 % of the
//!    oracle's goodput), 161 rows of 216 against 166 (`bash scripts/sim-seeds.sh`). The
//!    narrowest band until a full window measures one: 152 rows, late-joiner-100 fair on no
//!    seed (6 before). Its incumbents stop at 5 (the oracle's 4, p95 1.32 times its); the
//!    joiner learns its baseline on their queue (seed 1: 133.8 ms, the dependency's 100),
//!    grows on the fast calls of their drain from 6 to 8, and the low round rescales it to 7
//!    (1.4 times its share). With growth held as well while two successes or more in a row come back
//!    under `10/11` of the baseline (a low round under way, so that the joiner does not grow
//!    on the drain's fast calls): 151 rows, `creep` still at 6, the late joiners fair on 2
//!    and 1 seeds; the hold alone, 160 rows (shared-quota-10 at the bar on 3 → 0 seeds). A low round that rescales the limit its run began at rather
//!    than the one grown during it (rule 6; 6 rather than 8 there, so 4), with the band as it
//!    is: 162 rows, the joiners fair on 4 and 3 seeds of 6 (5 and 6 without it). Measured
//!    from the differences between samples that came one after the other (four thirds of
//!    their upper eighth: the same band for exponential noise, and a rise is a few large
//!    differences among many small ones, so a ramp does not widen it): 156 rows; `creep`
//!    still at 6, whose clients reach 6 before their first full window; `shallow-knee` on 4
//!    → 5 seeds, but `fairness` on 6 → 4, `late-joiner-100` on 6 → 3, `retry-storm` 97.6 →
//!    95.0 %.
//! 10. **A doubled step that overshot goes back.** Growth judges calls admitted a round trip
//!     earlier, so a doubled step past the band's start shows only once the calls it admitted
//!     come back, held above the band; and a held sample neither grows nor cuts, so the limit
//!     would stay there. A whole round of fresh successes in a row held above the band (as
//!     many as the limit) returns the limit to where the last round that grew with a doubled
//!     step began (its calls came back in the band: its growth is what the held round
//!     judges), or if the last round grew by one step, to where the round under way began if
//!     it grows with a doubled one; as a decrease without a cut (no knee, no tally), after
//!     which growth starts over at one step. The fast start's last doubling is undone the same
//!     way (rule 7), as BBR drains the queue its probing up built. A step of one is not
//!     undone: one unit past the band's start is the band's own resolution. Measured (seeds 1
//!     to 6, `python3 scripts/sim-bars.py --seeds`, 164 rows of 216 without either): the
//!     narrowest band (a sixteenth) from the first sample instead of the configured one until
//!     a full window measures it, 153 rows: `creep`'s hundred clients no longer step from 5 to
//!     6 on latencies about 1.25 times their baseline before their windows are full, and its
//!     upper quartile is 5 (the oracle's 4), but the late joiners are fair on 2 and 0 seeds (5
//!     and 6 before). With a step of one undone as a doubled one is as well, 147 rows:
//!     `creep` still at 5, Jain's index 0.998 → 0.935, both late joiners fair on no seed; and
//!     with a knee where the undone step stood, as a cut by latency sets one, 135 rows
//!     (`creep` at 5, its Jain's index 0.895).
//!
//! Seeds 1 to 6 of `cargo run --release -p limiter-sim -- --format json --seed N`, the rows
//! of the default AIMD that meet every target of `scripts/sim-bars.py`: 139 of 216 without
//! rules 9 and 10, 147 with rule 9, 154 with both. `slow-link` (no noise; 105 ms up to 21 in
//! flight, 5 ms more per call past it): p95 1.33 times the oracle's on every seed, 1.29 with
//! rule 9 (a doubled step held it at 27), 1.10 with both (23). `shallow-knee` (+10 % per call
//! past 10, 20 ms plus an exponential 1 ms): 1.40 times on seeds 1 to 4 and 1.30 on 5 and 6,
//! now 1.20 on seeds 1, 2, 3 and 6 and 1.30 on 4 and 5 (a step of one past the band's start,
//! held there). A narrower band holds more healthy samples, and finds returned capacity a
//! little later: `capacity-rise` 87.3 → 86.3 % of the oracle's goodput (mean of the six
//! seeds), `cargo run --release -p limiter-sim --example rise-phase` 81.9 → 80.9 % (its
//! lowest 63.6 → 68.9 %). Where a standing queue grew before a full window measured the band,
//! neither rule takes the limit back below it: `creep` keeps 6 per client where the oracle
//! keeps 4, its p95 1.5 times the oracle's.
//!
//! Taking it back on latency alone costs the fairness that multiplicative cuts give. Tried on
//! seeds 1 to 6 (`python3 scripts/sim-bars.py --seeds`): a whole round held above the band with
//! no doubled step to undo, with the band measured again from the full window, scaled the
//! limit to where the round's fastest call would have come back at the band's start, with a
//! knee where it stood. Clients with small limits have short rounds, which are wholly held more
//! often, and were driven to the floor, where a slow sample re-learns the baseline higher:
//! `creep`'s limit quartiles went from 6 / 6 / 6 to 1 / 4–5 / 10–13, Jain's index of
//! `shared-100-proportional` 0.998 → 0.726, quota-jitter 74.8 → 67.1 %; 130 rows of 216 met
//! every bar where 164 do. Counting 32 held successes in a row and going down one unit at a
//! time: quartiles 2 / 3–4 / 5–7, Jain's index 0.743, the 10-client late joiner's 0.745 (138
//! rows): a joiner whose baseline was learned on the queue is not held, and takes what the
//! others give back (Vegas's known unfairness to flows with an inflated base RTT). A drain
//! that returns to its level scaled by the band's start over the window's median (the drain
//! lines clients up, so they would all scale together) left `creep` at 5 / 5 / 6 and the
//! 10-client joiner's index at 0.759 (153 rows): the joiner does not drain with the others.
//! Measured again with the drain held for its low round and the dwell's round-trip floor
//! (rules 5 and 3; the median at the drain's start, the band and baseline at its end; seeds 1
//! to 6): 148 rows of 216 against 164, `creep`'s upper quartile still 6 (the oracle's 4),
//! Jain's index of `shared-10-proportional` 0.999 → 0.944, of `late-joiner-100` 0.998 →
//! 0.918, and both late joiners fair on no seed. The same drain returning a fixed seven
//! eighths of its level whenever the median at its start was held (the same factor for every
//! client, as a cut's, so that the baselines' disagreement does not set it): 154 rows,
//! `creep` still at 6, the joiners fair on 1 and 0 seeds of 6 (5 and 6 before). Thirty
//! clients each with a share of 2 and latency in proportion to the load (the `shapes`
//! example's `30 x2 20ms proportional`, seed 1) keep limits that sum to 96 on a capacity of
//! 60 from 20 s on, their calls' median at 33 ms, 1.6 times baselines that are about right
//! (21 to 26 ms against the dependency's 20; `scripts/trace-summary.py --every 1000`): what
//! keeps them there is the band, not the baseline.
//! BBR's exit from `ProbeRTT`, a drain that returns to the bandwidth-delay product (its level
//! times the remembered baseline over the window's median when it began): 153 rows of 216
//! against 164, `creep`'s upper quartile still 6 on every seed, the 10-client joiner 1.26 to
//! 1.61 times its fair share 5 s after joining. In `creep` (`--trace AIMD`, seed 1) every
//! client returned from 6 to 4 and grew back to 6 within 0.3 s: the others were at 4 too, so
//! its calls came back within the band, which its first full window, taken while the limit
//! rose from 4 to 6, had measured at the configured 1.25. With the band measured again from
//! the full window each drain begins with (a steady level, one millisecond of noise: the
//! narrowest band), also 153 rows, `creep` at 5 on two seeds and 6 on four, and the joiner
//! 1.80 to 2.55 times fair (Jain's index 0.71 to 0.93): a return to the bandwidth-delay
//! product is a decrease in proportion, which keeps the clients' ratio, and with every client
//! held by its band a round after the drain, the additive growth that evens them out lasts
//! about a round per 5 s (seed 1: the joiner from 13 to 10 and back to 11, the others from 5
//! to 4 and back to 5).
//! A congestion threshold as narrow as the noise (four times the band's width over 1, within
//! 1.25 and the configured 2, with the band measured again every full window): the cuts are
//! then the signal every client sees at once, and on seeds 1 to 3 `creep` went to 5 / 5 / 5
//! with its p95 1.50 → 1.16 times the oracle's (`shallow-knee`'s 1.20 → 1.11–1.16); but the
//! joiner, whose baseline is the queue it found, does not see them, and took 2.9 to 3.0 times
//! its share 2 s after joining (late-joiner-10's Jain index 0.712; 149 rows).
//! With the drain held for its low round (rule 5), a whole round held above the band with no
//! doubled step to undo taking an eighth off the limit (at least one unit; no knee, under a
//! new epoch) met every bar in 130 rows of the suite's 216, against 164 without it, and in the
//! `shapes` example (seeds 1 to 6) missed a bar 91 times of 144 against 100: a client that
//! joins three with 400 ms calls came within ±20 % of its share 5 s after joining on every
//! seed (0.51 to 0.56 of it before), but three clients each with a share of 2 and 20 ms calls went
//! from 66.2 to 41.1 % of the oracle's goodput, and where latency grows in proportion to the
//! load, their p95 from 2.98 to 5.01 times the oracle's.
//! A sixteenth of a unit off the limit at every held success of the current epoch (so a
//! client at `L` loses `L/16` per round for each round all of whose calls are held: a
//! decrease in proportion to the limit, as a cut is, and gentle) met every bar in 128 rows
//! against 164:
//! `shallow-knee` on every seed (four before), but Jain's index of `shared-100-proportional`
//! 0.998 → 0.842 and of `late-joiner-10` 0.999 → 0.907. Where growth and these decreases
//! balance, the share of held calls `h` sets the limit at `16 (1 − h) / h`, and each client
//! counts its calls held against its own baseline: a few per cent between two clients'
//! baselines moves `h` by tenths where the latency sits at the band's edge, and the split of
//! the capacity with it. A decrease on latency is as fair as the clients' baselines agree.
//!
//! And one rule spaces the tries of a knee by what they cost:
//!
//! 11. **A try that failed backs off.** A cut by latency (or by a late refusal, not on spread
//!     latencies) with the limit at or above the knee is the client's own try that failed: it
//!     doubles the *rounds* the next long dwell below a knee spans (128, 256, 512, 1,024), not
//!     its *time* (4 s). A cut by latency with the limit below the knee, after it kept its level
//!     for [`KEPT_ROUNDS`] rounds (4), is another client's try of a knee they share (the
//!     client's own load had not changed): it doubles the dwell's time and rounds (8, 16,
//!     32 s). At most three doublings in all, with a late refusal's own; both counts are
//!     forgotten once growth takes the limit past a knee its own try found (the knee was
//!     tried and served), and a cut leaves the level kept.
//!
//!     Why: past a sharp knee, each try slows every call in flight for a round trip, and on a
//!     dependency shared by many clients every client's calls: one try a dwell per client
//!     is as many tries as there are clients: among 100 clients on one capacity that slows
//!     by a whole service time per call past it (`shared-100-linear`), each try of one cut
//!     nearly all the others, about every 5 s, at half a second of the goodput each time.
//!     The tries a client sees from others say how many share its knee, and stretching its
//!     own by them spaces the tries of all, as Ethernet's backoff spaces retransmissions by
//!     the collisions seen. Its own failed tries stretch only the rounds: where calls are
//!     fast, 128 rounds is much less than 4 s, and a client alone (or the one client that grew
//!     past its share while the others backed off) tried every 1.3 s; where they are slow,
//!     the time ends the dwell first, so a capacity that comes back is found as soon as
//!     before. With the time doubled too, a single client whose try failed once found a
//!     capacity that came back up to 4 s later (`cargo run --release -p limiter-sim --example
//!     rise-phase`: 80.9 → 69.6 % of the oracle's goodput on average; 80.6 % with the rounds
//!     alone). Seeds 1 to 6 of `cargo run --release -p limiter-sim -- --format json --seed N`,
//!     means: `fairness` 97.4 → 98.8 % of the oracle's goodput (Jain's index over the
//!     converged window 1.00 on every seed, 0.95 and 0.99 on seeds 4 and 5 before),
//!     `shared-100-linear` 78.9 → 83.5 % (p95 at most 1.04 times the oracle's, 1.89 before;
//!     Jain's index 0.978 → 0.949 on seed 1), `shared-10-linear` 88.4 → 89.7 %, `hang-low`
//!     98.7 → 99.3 %, `capacity-drop` p95 10 → 5 ms (its knee is not tried again before the
//!     load ends); `shared-1000-linear` unchanged (its timeouts' dwells are 32 s already); the
//!     rows that meet every target 159 → 162 of 216; the late joiners unchanged.
//!     The others' cuts are what such a try costs (`shared-10-linear`, seed 5, `--trace AIMD`
//!     and `scripts/trace-summary.py --every 1000`: tries at 5, 11 and 16 s, each cutting
//!     about every client and costing 260, 95 and 60 calls of the 390 a second the oracle
//!     serves), but letting the one who tried
//!     take it back alone is worse: a first cut by slow successes below the knee at a kept
//!     level held for a round instead (a new epoch, no decrease; the cut comes if the next
//!     round is congested too) met every bar in 150 rows of 216 against 166, `fairness`'s
//!     Jain index 1.000 → 0.873, `shared-10-linear` on no seed (5 before), and `capacity-drop`
//!     on none (6): a capacity that fell congests every kept level at once, and the
//!     multiplicative cut of every client is what evens them out.
//!
//! The knee and the dwell below it (rules 1, 3 and 4 read it) are kept in the module `knee`,
//! which also counts the rounds; this module holds the step's doubling, the drains, the
//! low rounds and the count of failed tries.
//!
//! All integer; the only wide operation is one 64-bit product pair per round.

use super::knee::{CutBy, DwellBackoff, KEPT_ROUNDS, MAX_DOUBLINGS};
use crate::num::ratio::Ratio;

/// The state of the step's growth, of the drain, of the low-round rule and of the tries' backoff.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Probe {
    /// The step is `step << shift`.
    shift: u8,
    /// The limit when the current round started, and the elapsed time then.
    round_limit: u32,
    round_start: u64,
    /// The previous round's limit and duration (µs); a limit of 0: no previous round.
    last_limit: u32,
    last_micros: u32,
    /// Elapsed µs from which a drain is due, unless a success confirms the baseline first; 0
    /// before the first success.
    drain_at: u64,
    /// While draining, the limit to return to; 0 otherwise.
    drain_saved: u32,
    /// Samples admitted during the drain still to complete before it ends.
    drain_left: u32,
    /// Successes still needed below the band to make a low round, counted down from the limit
    /// when the run began (at least [`LOW_ROUND_LEAST`]); 0: no run under way. And the slowest
    /// success of the run (µs).
    low_left: u32,
    low_max: u32,
    /// [`FOLLOWED`], [`STARTING`], [`ROUND_CLEAN`], [`LAST_CLEAN`], [`UNDO_LAST`],
    /// [`UNDO_ROUND`] and [`DRAIN_HELD`], one bit each.
    flags: u8,
    /// The growth band's start measured from the noise (rule 9), its part over 1 in 16.16
    /// bits (at least 1): 0 before a full window's is measured, `u16::MAX` for a band of 2 or
    /// more, which narrows nothing.
    band: u16,
    /// Successes of the current epoch in a row held above the growth band (rule 10),
    /// saturating: a round longer than 65,535 calls is never held whole.
    held: u16,
    /// Samples the window is still to take before its spread judges the last cut (rule 3); 0:
    /// nothing to judge.
    unjudged: u16,
    /// Rounds in a row that ended at the whole limit they began at, saturating (rule 11).
    kept_rounds: u8,
    /// Other clients' tries seen, and the client's own tries of the knee that failed, since
    /// the limit last grew past its knee: each at most [`MAX_DOUBLINGS`] (rule 11).
    tries_seen: u8,
    tries_failed: u8,
}

/// Whether the last round judged (one that added a whole unit of limit) served its added
/// concurrency; clear after a restart.
const FOLLOWED: u8 = 1;
/// Whether the fast start (rule 7, on request) is under way: no sign of congestion yet.
const STARTING: u8 = 1 << 1;
/// Whether no success of the round under way has been congested.
const ROUND_CLEAN: u8 = 1 << 2;
/// Whether no success of the last whole round was congested: its level was served at the
/// baseline (see [`Probe::served`]).
const LAST_CLEAN: u8 = 1 << 3;
/// Whether the last whole round grew with a doubled step: a whole held round goes back to the
/// level it began at, `last_limit` (rule 10).
const UNDO_LAST: u8 = 1 << 4;
/// Whether the round under way grows with a doubled step (and the last did not): a whole held
/// round goes back to the level it began at, `round_limit` (rule 10).
const UNDO_ROUND: u8 = 1 << 5;
/// Whether the drain under way has been held for the low round its calls began (rule 5).
const DRAIN_HELD: u8 = 1 << 6;

/// A drain is due after this long without a success at or below the baseline: 5 s, fixed, not
/// jittered (BBR v3's `ProbeRTT` interval), so that clients sharing a queue drain together.
pub(crate) const DRAIN_EVERY_MICROS: u64 = 5_000_000;

/// The fewest successes in a row below the band that make a low round (rule 6).
pub(crate) const LOW_ROUND_LEAST: u32 = 6;

/// The narrowest growth band, over 1 in 16.16 bits: a sixteenth (rule 9).
const NARROWEST_BAND: u32 = 1 << 12;

/// The largest step, as a fraction of the limit per round: a quarter.
const MAX_STEP_SHARE: u32 = 4;

impl Probe {
    /// No round compared yet: the first starts at `limit`, at time 0. (With no knee known,
    /// the [`Knee`](super::knee::Knee) is at zero: a controller starting up probes like one
    /// whose last congestion was at zero.)
    pub(crate) const fn new(limit: u32) -> Self {
        Probe {
            shift: 0,
            round_limit: limit,
            round_start: 0,
            last_limit: 0,
            last_micros: 0,
            drain_at: 0,
            drain_saved: 0,
            drain_left: 0,
            low_left: 0,
            low_max: 0,
            flags: ROUND_CLEAN,
            band: 0,
            held: 0,
            unjudged: 0,
            kept_rounds: 0,
            tries_seen: 0,
            tries_failed: 0,
        }
    }

    /// The same probe with the fast start under way (rule 7), until [`Probe::end_start`].
    pub(crate) const fn starting_fast(mut self) -> Self {
        self.flags |= STARTING;
        self
    }

    /// Whether the fast start is under way (rule 7): each growth sample may add a whole unit.
    pub(crate) const fn starting(&self) -> bool {
        self.flags & STARTING != 0
    }

    /// Ends the fast start: returns whether it was under way, that is whether this is the first
    /// sign of congestion since it began.
    pub(crate) fn end_start(&mut self) -> bool {
        let was = self.starting();
        self.flags &= !STARTING;
        was
    }

    /// Notes a success of `latency` against `baseline` at `elapsed`, with the limit at `limit`:
    /// the first success, and then one at or below the baseline, puts the next drain off; a
    /// whole round in a row below `baseline × 10/11` (as many successes as the limit was at the
    /// first of them, at least [`LOW_ROUND_LEAST`]), none of them zero, returns the slowest of
    /// them, the baseline the caller should remember. Not under a baseline at or below `floor`
    /// (the baseline floor): no round counts there.
    // Inlined into the sample of a controller built in another crate, off microcontrollers.
    #[cfg_attr(not(target_os = "none"), inline)]
    pub(crate) fn success(
        &mut self,
        latency: u64,
        baseline: u32,
        floor: u32,
        limit: u32,
        elapsed: u64,
    ) -> Option<u64> {
        if self.drain_at == 0 || latency <= u64::from(baseline) {
            // `elapsed` plus 5 s is never 0: the first success is seen once.
            self.drain_at = elapsed.saturating_add(DRAIN_EVERY_MICROS);
        }
        // A zero is what a clock that stepped back gives every call in flight (a whole round
        // of them): it says nothing about the dependency, and would remember a baseline of 0.
        if baseline <= floor
            || latency == 0
            || latency.saturating_mul(11) > u64::from(baseline) * 10
        {
            self.low_left = 0;
            self.low_max = 0;
            return None;
        }
        if self.low_left == 0 {
            self.low_left = limit.max(LOW_ROUND_LEAST);
        }
        self.low_left -= 1;
        self.low_max = self.low_max.max(u32::try_from(latency).unwrap_or(u32::MAX));
        if self.low_left > 0 {
            return None;
        }
        let slowest = u64::from(self.low_max);
        self.low_max = 0;
        Some(slowest)
    }

    /// Scales the limit a drain under way returns to by `factor` (below 1), at least 1: the
    /// baseline it was grown against was just shown to be too high (see `Aimd`'s rescale).
    pub(crate) fn scale_saved(&mut self, factor: Ratio) {
        if self.drain_saved != 0 {
            self.drain_saved = factor.mul_whole_floor(self.drain_saved).max(1);
        }
    }

    /// Whether a drain is under way.
    pub(crate) const fn draining(&self) -> bool {
        self.drain_saved != 0
    }

    /// Whether a drain is due at `elapsed` (never before the first success).
    pub(crate) const fn drain_due(&self, elapsed: u64) -> bool {
        !self.draining() && self.drain_at != 0 && elapsed >= self.drain_at
    }

    /// Starts a drain from `limit` to `drained`: it ends once `drained` samples admitted from
    /// now on have completed (or later, see [`Probe::finish_drain`]).
    pub(crate) fn start_drain(&mut self, limit: u32, drained: u32) {
        self.flags &= !DRAIN_HELD;
        self.drain_saved = limit.max(1);
        self.drain_left = drained.max(1);
    }

    /// Measures the growth band's start from a full window whose median is `median` and whose
    /// upper eighth starts at `high` (µs): `1 + 2 (high − median) / median`, at least
    /// `1 + 1/16` and at most `widest` (16.16 bits) (rule 9).
    pub(crate) fn measure_band(&mut self, median: u32, high: u32, widest: u32) {
        let spread = crate::num::divide::div_u64(
            u64::from(high.saturating_sub(median)) << 17,
            u64::from(median.max(1)),
        );
        let over = spread
            .max(u64::from(NARROWEST_BAND))
            .min(u64::from(widest.saturating_sub(Ratio::ONE.to_bits())));
        self.band = u16::try_from(over).unwrap_or(u16::MAX).max(1);
    }

    /// The growth band's start measured by [`Probe::measure_band`] (16.16 bits), if one is;
    /// `u32::MAX` for a band of 2 or more.
    pub(crate) const fn band(&self) -> Option<u32> {
        match self.band {
            0 => None,
            u16::MAX => Some(u32::MAX),
            over => Some(Ratio::ONE.to_bits() + over as u32),
        }
    }

    /// Counts a success of the current epoch held above the growth band at `limit` (rule 10):
    /// once a whole round of them has come in a row, the level to go back to if a doubled step
    /// brought the limit there (see [`UNDO_LAST`] and [`UNDO_ROUND`]); counting starts over
    /// either way.
    pub(crate) fn held(&mut self, limit: u32) -> Option<u32> {
        self.held = self.held.saturating_add(1);
        if u32::from(self.held) < limit.max(1) {
            return None;
        }
        self.held = 0;
        let to = if self.flags & UNDO_LAST != 0 {
            self.last_limit
        } else if self.flags & UNDO_ROUND != 0 {
            self.round_limit
        } else {
            0
        };
        (to != 0 && to < limit).then_some(to)
    }

    /// A success of the current epoch that was not held, or a new epoch: the held round
    /// starts over (rule 10).
    pub(crate) fn unheld(&mut self) {
        self.held = 0;
    }

    /// Counts a completed sample admitted during the drain.
    pub(crate) fn drained(&mut self) {
        self.drain_left = self.drain_left.saturating_sub(1);
    }

    /// The limit to return to, once the drain has run its round; the drain is then over and
    /// the next one due `DRAIN_EVERY_MICROS` after `elapsed`. A drain whose round ends with a
    /// low round under way holds instead, once, for the calls that round still needs, and
    /// ends sooner if the run breaks (rule 5).
    pub(crate) fn finish_drain(&mut self, elapsed: u64) -> Option<u32> {
        let held = self.flags & DRAIN_HELD != 0;
        if !self.draining() || (self.drain_left > 0 && !(held && self.low_left == 0)) {
            return None;
        }
        if self.low_left > 0 && !held {
            self.flags |= DRAIN_HELD;
            self.drain_left = self.low_left;
            return None;
        }
        let saved = self.drain_saved;
        self.stop_drain(elapsed);
        Some(saved)
    }

    /// Ends a drain without returning to its limit (a cut came first), or puts off one that
    /// cannot lower the limit.
    pub(crate) fn stop_drain(&mut self, elapsed: u64) {
        self.drain_saved = 0;
        self.drain_left = 0;
        self.drain_at = elapsed.saturating_add(DRAIN_EVERY_MICROS);
    }

    /// How far to shift the configured step for a growth sample at `limit`, with the knee at
    /// `knee` (see [`Knee`](super::knee::Knee)).
    pub(crate) const fn shift(&self, limit: u32, knee: u32) -> u8 {
        if limit >= knee { self.shift } else { 0 }
    }

    /// Ends a round whose last growth sample, at `limit`, completed at `elapsed` µs (the
    /// [`Knee`](super::knee::Knee) counts the rounds and says when one ends; `knee` is where
    /// it stands): returns the step to one if the round's rate did not follow the limit, and
    /// doubles it if it did, the limit is at or above the knee and the doubled step stays
    /// within a quarter of the limit.
    pub(crate) fn round_end(&mut self, limit: u32, elapsed: u64, knee: u32) {
        let micros = u32::try_from(elapsed.saturating_sub(self.round_start))
            .unwrap_or(u32::MAX)
            .max(1);
        // Where a held round goes back to (rule 10): this round's start if it grew with a
        // doubled step (its calls came back in the band, its growth is not yet judged), else
        // the next round's if that one will.
        let doubled = self.shift > 0;
        // A round that added no whole unit of limit says nothing about the added concurrency:
        // the step stays as it is.
        if self.last_limit != 0 && self.round_limit > self.last_limit {
            let followed = self.rate_followed(micros);
            self.set(FOLLOWED, followed);
            if !followed {
                self.shift = 0;
            } else if limit >= knee && (2u32 << self.shift) <= limit / MAX_STEP_SHARE {
                self.shift += 1;
            }
        }
        self.kept_rounds = if limit == self.round_limit {
            self.kept_rounds.saturating_add(1)
        } else {
            0
        };
        self.last_limit = self.round_limit;
        self.set(UNDO_LAST, doubled);
        self.set(UNDO_ROUND, !doubled && self.shift > 0);
        self.last_micros = micros;
        self.set(LAST_CLEAN, self.flags & ROUND_CLEAN != 0);
        self.start(limit, elapsed);
    }

    /// Counts a cut by `by` with the limit at `limit` and the knee at `knee` (before the cut
    /// moves it) as a try that failed: the client's own, at or above a knee, or another
    /// client's, below it after the limit kept its level for [`KEPT_ROUNDS`] rounds; only
    /// for a cut by latency or by a late refusal, of a dwell (not on spread latencies). Returns
    /// how much more the cut's long dwell is doubled (rule 11).
    pub(crate) fn back_off(&mut self, limit: u32, knee: u32, by: CutBy) -> DwellBackoff {
        if matches!(by, CutBy::Latency { .. } | CutBy::LateRefusal { .. }) && knee > 0 {
            if limit >= knee {
                self.tries_failed = (self.tries_failed + 1).min(MAX_DOUBLINGS);
            } else if self.kept_rounds >= KEPT_ROUNDS {
                self.tries_seen = (self.tries_seen + 1).min(MAX_DOUBLINGS);
            }
        }
        // The cut changes the limit: the level it kept is left.
        self.kept_rounds = 0;
        DwellBackoff {
            time: self.tries_seen,
            rounds: self.tries_failed,
        }
    }

    /// Notes a cut, and how many samples the window must take after it before its spread
    /// judges the cut (rule 3): a whole window's after a cut by latency that came before the
    /// window was full, 0 (nothing to judge) after any other.
    pub(crate) const fn judge_after(&mut self, samples: u16) {
        self.unjudged = samples;
    }

    /// Counts a sample the window took: whether the window now holds only samples taken after
    /// a cut it is to judge (see [`Probe::judge_after`]).
    pub(crate) const fn pushed(&mut self) -> bool {
        if self.unjudged == 0 {
            return false;
        }
        self.unjudged -= 1;
        self.unjudged == 0
    }

    /// A growth sample took the limit to `limit`: past the knee at `knee`, one the limit's own
    /// try found (not one another client's try `lowered`), the knee was tried and served, and
    /// the tries counted before it are forgotten (rule 11).
    pub(crate) fn grown_to(&mut self, limit: u32, knee: u32, lowered: bool) {
        if knee > 0 && limit > knee && !lowered {
            self.tries_seen = 0;
            self.tries_failed = 0;
        }
    }

    /// Whether the last round judged served its added concurrency (see [`Probe::round_end`]):
    /// the dependency had room above the limit it started at.
    pub(crate) const fn followed(&self) -> bool {
        self.flags & FOLLOWED != 0
    }

    /// Whether the round that took `micros` served its added concurrency: with `l0, d0` the
    /// previous round's limit and duration and `l1, d1` this one's, the rate ratio
    /// `(l1 / d1) / (l0 / d0)` is at least `1 + (l1 - l0) / (2 l0)`, that is
    /// `2 l1 d0 >= (l0 + l1) d1` (products below 2^57: no overflow).
    fn rate_followed(&self, micros: u32) -> bool {
        let (l0, l1) = (u64::from(self.last_limit), u64::from(self.round_limit));
        2 * l1 * u64::from(self.last_micros) >= (l0 + l1) * u64::from(micros)
    }

    /// Notes a congested success: the round under way was not served at the baseline.
    pub(crate) fn congested(&mut self) {
        self.flags &= !ROUND_CLEAN;
    }

    /// The level the last whole round started at, if none of its successes was congested:
    /// that level was served at the baseline; 0 otherwise, and when no whole round has ended
    /// since growth last started over (at a congestion signal, answered or not). (A round is
    /// `limit` growth samples without a cut; a congested success that does not cut yet neither
    /// counts nor restarts it, so a level whose latency doubles can still complete one.)
    pub(crate) const fn served(&self) -> u32 {
        if self.flags & LAST_CLEAN != 0 {
            self.last_limit
        } else {
            0
        }
    }

    const fn set(&mut self, flag: u8, on: bool) {
        if on {
            self.flags |= flag;
        } else {
            self.flags &= !flag;
        }
    }

    fn start(&mut self, limit: u32, elapsed: u64) {
        self.flags |= ROUND_CLEAN;
        self.round_limit = limit;
        self.round_start = elapsed;
    }

    /// Back to one step per round, and a new round from `limit` at `elapsed` with no previous
    /// one to compare: after a sample that did not allow growth.
    pub(crate) fn restart(&mut self, limit: u32, elapsed: u64) {
        self.shift = 0;
        self.flags &= !(FOLLOWED | LAST_CLEAN | UNDO_LAST | UNDO_ROUND);
        self.last_limit = 0;
        self.start(limit, elapsed);
    }
}

#[cfg(test)]
mod tests {
    use super::super::knee::{CutBy, Knee};
    use super::*;

    /// Runs `n` rounds at a limit growing by `1 << shift` per round, each taking
    /// `micros(limit)`, counted by `knee`; returns the limits at each round's start.
    fn rounds(
        probe: &mut Probe,
        knee: &mut Knee,
        mut limit: u32,
        n: usize,
        micros: impl Fn(u32) -> u64,
    ) -> std::vec::Vec<u32> {
        let mut elapsed = 0;
        let mut out = std::vec::Vec::new();
        probe.restart(limit, elapsed);
        knee.restart(limit);
        for _ in 0..n {
            out.push(limit);
            let round = micros(limit);
            let step = 1u32 << probe.shift(limit, knee.at());
            for i in 0..limit {
                elapsed +=
                    round / u64::from(limit) + u64::from(i == 0) * (round % u64::from(limit));
                if knee.count(limit) {
                    probe.round_end(limit, elapsed, knee.at());
                }
            }
            limit += step;
        }
        out
    }

    #[test]
    fn a_served_rate_doubles_the_step_up_to_a_quarter_of_the_limit() {
        // Every round takes 100 ms whatever the limit: the rate follows the limit exactly.
        let (mut probe, mut knee) = (Probe::new(5), Knee::new(5));
        let limits = rounds(&mut probe, &mut knee, 5, 12, |_| 100_000);
        // The first round has no predecessor; a step of 2 needs a limit of 8, 4 needs 16.
        assert_eq!(limits, [5, 6, 7, 8, 9, 11, 13, 15, 17, 19, 23, 27]);
    }

    #[test]
    fn a_flat_rate_keeps_one_step_per_round() {
        // The rate is capped: a round of `l` samples takes `l` ms.
        let (mut probe, mut knee) = (Probe::new(5), Knee::new(5));
        let limits = rounds(&mut probe, &mut knee, 5, 6, |l| u64::from(l) * 1_000);
        assert_eq!(limits, [5, 6, 7, 8, 9, 10]);
    }

    #[test]
    fn below_the_knee_the_step_is_one() {
        let (mut probe, mut knee) = (Probe::new(5), Knee::new(5));
        knee.cut_from::<true>(30, CutBy::Refusal, 0);
        let limits = rounds(&mut probe, &mut knee, 20, 15, |_| 100_000);
        // One step per round up to the knee, then doubling once the rounds have shown room.
        assert_eq!(
            limits,
            [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 33, 37, 45]
        );
        assert_eq!(probe.shift(29, knee.at()), 0, "below the knee");
    }

    #[test]
    fn a_whole_round_below_the_band_returns_its_slowest_latency() {
        let mut probe = Probe::new(4);
        // Baseline 100 ms: the band starts at 100 × 10/11 = 90.9 ms below it.
        for (i, ms) in [80, 85, 90, 82, 81].into_iter().enumerate() {
            assert_eq!(
                probe.success(ms * 1_000, 100_000, 1_000, 4, 0),
                None,
                "sample {i}"
            );
        }
        // A round is the limit, but at least 6 successes.
        assert_eq!(probe.success(88_000, 100_000, 1_000, 4, 0), Some(90_000));
        // One success in or above the band starts the count again.
        for ms in [80, 80, 80, 95, 80, 80, 80, 80, 80] {
            assert_eq!(probe.success(ms * 1_000, 100_000, 1_000, 4, 0), None);
        }
        assert_eq!(probe.success(80_000, 100_000, 1_000, 4, 0), Some(80_000));
        // Zeros (a clock that stepped back) never make a round.
        for _ in 0..20 {
            assert_eq!(probe.success(0, 100_000, 1_000, 4, 0), None);
        }
        // The round is the limit when the run began (7), though the limit grows during it.
        for (i, limit) in [7, 7, 8, 8, 8, 8].into_iter().enumerate() {
            assert_eq!(
                probe.success(100_000, 146_000, 1_000, limit, 0),
                None,
                "sample {i}"
            );
        }
        assert_eq!(probe.success(101_000, 146_000, 1_000, 8, 0), Some(101_000));
        // A run that began at 9 needs 9.
        for _ in 0..8 {
            assert_eq!(probe.success(100_000, 146_000, 1_000, 9, 0), None);
        }
        assert_eq!(probe.success(100_000, 146_000, 1_000, 5, 0), Some(100_000));
        // Under a baseline at the floor (1 ms) no round counts, however long the run; a
        // baseline above it counts the run from its start.
        for _ in 0..20 {
            assert_eq!(probe.success(10, 1_000, 1_000, 4, 0), None);
        }
        for _ in 0..5 {
            assert_eq!(probe.success(10, 1_001, 1_000, 4, 0), None);
        }
        assert_eq!(probe.success(10, 1_001, 1_000, 4, 0), Some(10));
    }

    #[test]
    fn a_drain_is_put_off_by_a_success_at_the_baseline_and_lasts_one_round() {
        let mut probe = Probe::new(10);
        // Never before the first success, however late it comes.
        assert!(!probe.drain_due(4_999_999));
        assert!(!probe.drain_due(DRAIN_EVERY_MICROS));
        assert!(!probe.drain_due(u64::MAX));
        // The first success, above the baseline, at 2 s: due at 7 s.
        probe.success(150_000, 100_000, 1_000, 10, 2_000_000);
        assert!(!probe.drain_due(6_999_999));
        assert!(probe.drain_due(7_000_000));
        // One above the baseline puts nothing off; one at it, at 4 s: due at 9 s.
        probe.success(150_000, 100_000, 1_000, 10, 3_000_000);
        assert!(probe.drain_due(7_000_000));
        probe.success(100_000, 100_000, 1_000, 10, 4_000_000);
        assert!(!probe.drain_due(8_999_999));
        assert!(probe.drain_due(9_000_000));
        probe.start_drain(10, 5);
        assert!(probe.draining() && !probe.drain_due(20_000_000));
        for _ in 0..4 {
            probe.drained();
            assert_eq!(probe.finish_drain(9_100_000), None);
        }
        probe.drained();
        assert_eq!(probe.finish_drain(9_200_000), Some(10));
        assert!(!probe.draining());
        assert!(!probe.drain_due(14_199_999));
        assert!(probe.drain_due(14_200_000));
    }

    #[test]
    fn a_rescale_scales_the_limit_a_drain_returns_to() {
        let mut probe = Probe::new(21);
        // No drain under way: nothing to scale.
        probe.scale_saved(Ratio::from_fraction(5, 6).unwrap());
        assert!(!probe.draining());
        probe.start_drain(21, 10);
        probe.scale_saved(Ratio::from_fraction(5, 6).unwrap());
        for _ in 0..10 {
            probe.drained();
        }
        assert_eq!(
            probe.finish_drain(1_000_000),
            Some(17),
            "21 x 5/6, rounded down"
        );
        // Never below one.
        probe.start_drain(1, 1);
        probe.scale_saved(Ratio::from_fraction(1, 2).unwrap());
        probe.drained();
        assert_eq!(probe.finish_drain(2_000_000), Some(1));
    }

    #[test]
    fn a_restart_returns_to_one_step() {
        let (mut probe, mut knee) = (Probe::new(8), Knee::new(8));
        rounds(&mut probe, &mut knee, 8, 5, |_| 100_000);
        assert!(probe.shift(20, 0) > 0);
        probe.restart(20, 1_000_000);
        assert_eq!(probe.shift(20, 0), 0);
    }

    #[test]
    fn durations_past_u32_and_zero_durations_do_not_overflow() {
        let mut probe = Probe::new(1);
        probe.round_end(1, u64::MAX, 0);
        probe.round_end(1, u64::MAX, 0);
        probe.round_end(1, 0, 0);
        assert_eq!(probe.shift(1, 0), 0); // a quarter of 1 allows no doubling
    }
}
