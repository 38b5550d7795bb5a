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
}

const N: usize = 7;
const PERIOD: u64 = 1_000;

/// Every operation on a 7-sample `MedianWindow` is mirrored in a `VecDeque` (of each sample as
/// the window keeps it: saturated, then rounded to 12 significant bits); after each one the median, min, max, sorted
/// contents and any quantile must equal what sorting the deque gives.
/// A `WindowedMin` is checked against the minimum of all samples of the current and previous
/// period, kept as a list.
pub fn window(data: &[u8]) {
    let u = Unstructured::new(data);
    let mut w = MedianWindow::<N>::new();
    let mut reference: VecDeque<u32> = VecDeque::new();
    let mut min = WindowedMin::new(core::time::Duration::from_micros(PERIOD));
    let mut min_samples: Vec<(u64, u32)> = Vec::new(); // (epoch, sample)
    let (mut now, mut epoch_start, mut epoch) = (0u64, 0u64, 0u64);
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
            Op::Min { dt, sample } => {
                // Backwards steps leave the epochs alone, like the real one.
                now = now.saturating_add_signed(i64::from(dt));
                // Epochs follow each other; after two idle periods a new one starts now.
                if now >= epoch_start.saturating_add(2 * PERIOD) {
                    epoch_start = now;
                    epoch += 2;
                } else if now >= epoch_start.saturating_add(PERIOD) {
                    epoch_start += PERIOD;
                    epoch += 1;
                }
                min.push(Instant::from_micros(now), u64::from(sample));
                min_samples.push((epoch, sample));
                let expected = min_samples
                    .iter()
                    .filter(|(e, _)| e + 1 >= epoch)
                    .map(|(_, s)| *s)
                    .min();
                assert_eq!(min.get(), expected, "windowed minimum at {now}");
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
