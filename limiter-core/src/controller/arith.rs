//! The number a controller keeps its fractional limit in: `f32`, or [`Q32`] fixed point.
//!
//! Additive increase adds `step / limit` per sample, so the limit needs a fractional part. Where
//! an FPU exists, `f32` is the natural choice; on a Cortex-M0 every `f32` operation is a call into
//! a soft-float routine, so [`Q32`] does the same arithmetic in integers and links none.

use core::fmt::Debug;

use crate::Ratio;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for super::Q32 {}
}

/// Arithmetic on a fractional concurrency limit. Implemented by `f32` and [`Q32`]; sealed.
///
/// Every operation keeps the value finite and non-negative; callers clamp to their bounds.
pub trait LimitValue: Copy + Debug + PartialEq + sealed::Sealed {
    /// The whole number `n`.
    fn from_u32(n: u32) -> Self;
    /// The value rounded down, saturating at `u32::MAX`.
    fn whole(self) -> u32;
    /// `self + step / max(self, 1)`: one additive-increase step.
    #[must_use]
    fn grow(self, step: Ratio) -> Self;
    /// `self × backoff`: one multiplicative decrease.
    #[must_use]
    fn shrink(self, backoff: Ratio) -> Self;
    /// The value clamped to `[min, max]`.
    #[must_use]
    fn clamp_to(self, min: u32, max: u32) -> Self;
    /// The value in 1/65536ths, rounded down, saturating (for comparing representations).
    fn to_q16(self) -> u64;
}

impl LimitValue for f32 {
    fn from_u32(n: u32) -> Self {
        n as f32
    }
    fn whole(self) -> u32 {
        // `as` saturates, and maps NaN to 0.
        self as u32
    }
    fn grow(self, step: Ratio) -> Self {
        self + step.to_f32() / self.max(1.0)
    }
    fn shrink(self, backoff: Ratio) -> Self {
        self * backoff.to_f32()
    }
    fn clamp_to(self, min: u32, max: u32) -> Self {
        // `max`/`min` return the other operand for NaN, so a NaN cannot survive this.
        self.max(min as f32).min(max as f32)
    }
    fn to_q16(self) -> u64 {
        (self * 65_536.0) as u64
    }
}

/// An unsigned 32.32 fixed-point number: a limit with 32 fractional bits, in integer arithmetic
/// only.
///
/// # Examples
///
/// ```
/// use limiter_core::{LimitValue, Q32, Ratio};
///
/// let l = Q32::from_u32(8);
/// let grown = l.grow(Ratio::ONE); // 8 + 1/8
/// assert_eq!(grown.to_q16(), 8 * 65_536 + 8_192);
/// let cut = grown.shrink(Ratio::from_fraction(1, 2).unwrap());
/// assert_eq!(cut.whole(), 4);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Q32(pub u64);

impl LimitValue for Q32 {
    fn from_u32(n: u32) -> Self {
        Q32(u64::from(n) << 32)
    }
    fn whole(self) -> u32 {
        (self.0 >> 32) as u32
    }
    fn grow(self, step: Ratio) -> Self {
        // step / limit in 32.32 = step_bits · 2^32 / (limit in 32.16). step_bits < 2^32, so the
        // numerator fits a u64; the divisor is at least 1.0 in 32.16.
        let divisor = (self.0 >> 16).max(1 << 16);
        let increment = (u64::from(step.to_bits()) << 32) / divisor;
        Q32(self.0.saturating_add(increment))
    }
    fn shrink(self, backoff: Ratio) -> Self {
        // (limit · b) >> 16, split into halves so nothing needs 128 bits:
        // (hi·2^32 + lo) · b >> 16 = (hi·b) << 16 + (lo·b) >> 16.
        let b = u64::from(backoff.to_bits());
        let (hi, lo) = (self.0 >> 32, self.0 & 0xffff_ffff);
        let high = hi.checked_mul(b).filter(|&p| p < 1 << 48).map(|p| p << 16);
        match high {
            Some(high) => Q32(high.saturating_add((lo * b) >> 16)),
            // backoff ≥ 1 on a huge limit: only possible with an unvalidated Ratio.
            None => Q32(u64::MAX),
        }
    }
    fn clamp_to(self, min: u32, max: u32) -> Self {
        Q32(self
            .0
            .clamp(u64::from(min) << 32, u64::from(max.max(min)) << 32))
    }
    fn to_q16(self) -> u64 {
        self.0 >> 16
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_and_float_grow_alike() {
        let mut f = 1.0f32;
        let mut q = Q32::from_u32(1);
        for _ in 0..5_000 {
            f = f.grow(Ratio::ONE);
            q = q.grow(Ratio::ONE);
            let diff = f.to_q16().abs_diff(q.to_q16());
            assert!(diff < 16, "f={f} q={q:?}");
        }
        assert_eq!(f.whole(), q.whole());
    }

    #[test]
    fn shrink_handles_the_whole_range() {
        let half = Ratio::from_fraction(1, 2).unwrap();
        assert_eq!(Q32::from_u32(u32::MAX).shrink(half).whole(), u32::MAX / 2);
        assert_eq!(Q32(u64::MAX).shrink(Ratio::from_int(2)), Q32(u64::MAX));
        assert_eq!(Q32::from_u32(0).shrink(half), Q32(0));
        assert_eq!(Q32::from_u32(7).clamp_to(1, 4).whole(), 4);
        assert_eq!(Q32(0).clamp_to(2, 4).whole(), 2);
        assert_eq!(f32::NAN.clamp_to(2, 4), 2.0);
    }
}
