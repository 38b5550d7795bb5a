//! `MedianWindow` and `WindowedMin` against sort-based references.

use arbitrary::{Arbitrary, Unstructured};
use limiter_core::{Instant, MedianWindow, WindowedMin};
use std::collections::VecDeque;

#[derive(Arbitrary, Debug)]
enum Op {
    Push(u64),
    PushMedium(u16),
    PushSmall(u8),
    Clear,
    Quantile(u16),
    /// A `WindowedMin` sample at a time step (may be backwards).
    Min {
        dt: i32,
        sample: u32,
    },
    /// The same with a step of a few periods at most, where the epochs' edges are.
    MinNear {
        dt: i16,
        sample: u32,
    },
}

const N: usize = 7;
const PERIOD: u64 = 1_000;

/// Every operation on a 7-sample `MedianWindow` is mirrored in a `VecDeque` (of each sample as
/// the window keeps it: saturated, then rounded to 12 significant bits); after each one the
/// median, min, max, sorted contents and any quantile must equal what sorting the deque gives.
/// A `WindowedMin` is checked against what it promises, from a list of every sample: its minimum
/// is at most the minimum of the last period and at least that of the last two periods.
pub fn window(data: &[u8]) {
    let u = Unstructured::new(data);
    let mut w = MedianWindow::<N>::new();
    let mut reference: VecDeque<u32> = VecDeque::new();
    let mut min = MinCheck {
        min: WindowedMin::new(core::time::Duration::from_micros(PERIOD)),
        samples: Vec::new(),
        now: 0,
        latest: 0,
    };
    let ops: Vec<Op> = crate::sequence(u);
    for op in ops {
        match op {
            Op::Push(v) => push(&mut w, &mut reference, v),
            Op::PushMedium(v) => push(&mut w, &mut reference, u64::from(v)),
            Op::PushSmall(v) => push(&mut w, &mut reference, u64::from(v % 8)),
            Op::Clear => {
                w.clear();
                reference.clear();
            }
            Op::Quantile(p) => {
                // Mostly within 0..=1000, sometimes beyond (clamped to the maximum).
                let p = if p % 16 == 0 { p } else { p % 1_001 };
                let mut sorted: Vec<u32> = reference.iter().copied().collect();
                sorted.sort_unstable();
                let expected = (!sorted.is_empty()).then(|| {
                    let rank = (usize::from(p.min(1_000)) * sorted.len())
                        .div_ceil(1_000)
                        .max(1);
                    sorted[rank - 1]
                });
                assert_eq!(
                    w.quantile_permille(p),
                    expected,
                    "quantile {p} of {sorted:?}"
                );
            }
            Op::Min { dt, sample } => min.step(i64::from(dt), sample),
            Op::MinNear { dt, sample } => {
                min.step(i64::from(dt) % (7 * PERIOD as i64 / 2), sample);
            }
        }
        let mut sorted: Vec<u32> = reference.iter().copied().collect();
        sorted.sort_unstable();
        assert!(w.sorted().eq(sorted.iter().copied()), "the window's order");
        assert_eq!(w.len(), sorted.len());
        assert_eq!(w.min(), sorted.first().copied());
        assert_eq!(w.max(), sorted.last().copied());
        let n = sorted.len();
        let median = (n > 0).then(|| {
            if n % 2 == 1 {
                sorted[n / 2]
            } else {
                u64::midpoint(u64::from(sorted[n / 2 - 1]), u64::from(sorted[n / 2])) as u32
            }
        });
        assert_eq!(w.median(), median);
    }
}

fn push(w: &mut MedianWindow<N>, reference: &mut VecDeque<u32>, v: u64) {
    w.push(v);
    reference.push_back(crate::stored_latency(v));
    if reference.len() > N {
        reference.pop_front();
    }
}

/// A `WindowedMin` and every sample it was given, with the time it counts from.
struct MinCheck {
    min: WindowedMin,
    samples: Vec<(u64, u32)>,
    now: u64,
    latest: u64,
}

impl MinCheck {
    /// Moves the clock by `dt` µs (maybe backwards), pushes `sample`, and checks the minimum.
    fn step(&mut self, dt: i64, sample: u32) {
        self.now = self.now.saturating_add_signed(dt);
        // A sample taken at a time before the latest one counts as taken at the latest: time
        // going backwards never takes the minimum's epochs back.
        self.latest = self.latest.max(self.now);
        self.min
            .push(Instant::from_micros(self.now), u64::from(sample));
        self.samples.push((self.latest, sample));
        // What the documentation promises, whatever the epochs: the minimum covers at least the
        // last period and at most the last two.
        let latest = self.latest;
        let over = |span: u64| {
            self.samples
                .iter()
                .filter(|(at, _)| latest - at < span)
                .map(|(_, s)| *s)
                .min()
                .expect("the sample just pushed")
        };
        let got = self.min.get().expect("a sample was just pushed");
        let now = self.now;
        assert!(
            got <= over(PERIOD),
            "minimum {got} at {now}: misses the last period"
        );
        assert!(
            got >= over(2 * PERIOD),
            "minimum {got} at {now}: older than two periods"
        );
    }
}
