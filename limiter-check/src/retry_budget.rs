//! `RetryBudget` against per-period counts kept independently.

use arbitrary::{Arbitrary, Unstructured};
use core::time::Duration;
use limiter_core::{Instant, Ratio, RetryBudget};
use std::collections::BTreeMap;

#[derive(Arbitrary, Debug)]
enum Op {
    /// A first attempt, after `dt` µs.
    Deposit(u16),
    /// A retry asked for, after `dt` µs.
    Withdraw(u16),
}

const PERIOD: u64 = 10_000;

/// Time only moves forward here, so period `k` is `[k × PERIOD, (k + 1) × PERIOD)`. A retry must
/// be granted exactly when `reserve + ratio × (first attempts of this and the previous period)`
/// exceeds the retries already granted in those two periods.
pub fn retry_budget(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let (Ok(ratio_bits), Ok(reserve)) = (u16::arbitrary(&mut u), u8::arbitrary(&mut u)) else {
        return;
    };
    let ratio = Ratio::from_bits(u32::from(ratio_bits) * 2); // 0 to 2
    let reserve = u32::from(reserve % 16);
    let mut budget =
        RetryBudget::new(ratio, reserve, Duration::from_micros(PERIOD)).expect("a period");
    let ops: Vec<Op> = crate::sequence(u);
    let mut now = 0u64;
    // Per period index: (first attempts, retries granted).
    let mut counts: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    for op in ops {
        let (dt, deposit) = match op {
            Op::Deposit(dt) => (dt, true),
            Op::Withdraw(dt) => (dt, false),
        };
        now += u64::from(dt);
        let k = now / PERIOD;
        let window = |c: &BTreeMap<u64, (u64, u64)>| {
            let get = |i: u64| c.get(&i).copied().unwrap_or((0, 0));
            let (a, b) = (get(k.wrapping_sub(1)), get(k));
            (a.0 + b.0, a.1 + b.1)
        };
        if deposit {
            budget.deposit(Instant::from_micros(now));
            counts.entry(k).or_default().0 += 1;
        } else {
            let (deposits, granted) = window(&counts);
            let allowed = ratio.mul_u64(deposits) + u64::from(reserve) > granted;
            assert_eq!(
                budget.try_withdraw(Instant::from_micros(now)),
                allowed,
                "at {now}"
            );
            if allowed {
                counts.entry(k).or_default().1 += 1;
            }
        }
    }
}
