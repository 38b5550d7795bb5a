//! The number a controller keeps its fractional limit in: [`Q32`] fixed point, or the same value
//! read as an `f32` ([`F32`]).
//!
//! Additive increase adds `step / limit` per sample, so the limit needs a fractional part. [`Q32`]
//! keeps it in integers: on a Cortex-M0, where every `f32` operation is a call into a soft-float
//! routine, it links none, and it is also the smaller image on a Cortex-M4F. [`F32`] is the same
//! arithmetic with an `f32` reading, so the two controllers take the same decisions.

use core::fmt::Debug;

use crate::num::ratio::Ratio;

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::F32 {}
    impl Sealed for super::Q32 {}
}

/// Arithmetic on a fractional concurrency limit. Implemented by [`F32`] and [`Q32`]; sealed.
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
    /// `self × backoff`: one multiplicative decrease. A product within the factor's
    /// representation error of a whole number is that whole number (the rule of
    /// [`Ratio::mul_whole_floor`]): 30 × 0.9 is 27, not the 26.9998 that 0.9's 16.16 bits give.
    #[must_use]
    fn shrink(self, backoff: Ratio) -> Self;
    /// The value clamped to `[min, max]`.
    #[must_use]
    fn clamp_to(self, min: u32, max: u32) -> Self;
    /// The value in 1/65536ths, rounded down, saturating (for comparing representations).
    fn to_q16(self) -> u64;
}

/// A limit read as an `f32`, kept in the same 32.32 fixed point as [`Q32`].
///
/// Summing the additive steps in `f32` drifts from the fixed-point sum by a few millionths of a
/// unit over thousands of samples; a limit that then passes close to a whole number reads as
/// one unit more in one representation than in the other, and two controllers fed the same
/// samples take different decisions from there on. So `F32` does its arithmetic in [`Q32`]:
/// [`AimdF32`](crate::AimdF32) and [`AimdFixed`](crate::AimdFixed) decide identically, sample
/// for sample, on every core, and only [`F32::get`] uses floating point.
///
/// # Examples
///
/// ```
/// use limiter_core::{LimitValue, Q32, Ratio, F32};
///
/// let mut l = F32::from_u32(4097);
/// let mut q = Q32::from_u32(4097);
/// for _ in 0..5_000 {
///     l = l.grow(Ratio::ONE);
///     q = q.grow(Ratio::ONE);
/// }
/// assert_eq!(l.whole(), 4097 + 1);
/// assert_eq!(l.to_q16(), q.to_q16());
/// assert!((l.get() - 4098.22).abs() < 0.01);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct F32(Q32);

impl F32 {
    /// The whole number `n`, in `const` code.
    pub const fn from_whole(n: u32) -> Self {
        F32(Q32::from_whole(n))
    }

    /// The limit as a plain `f32` (to the nearest `f32`).
    pub fn get(self) -> f32 {
        // Whole and fractional parts apart: each converts exactly or to the nearest.
        (self.0.0 >> 32) as f32 + (self.0.0 & 0xffff_ffff) as f32 * (1.0 / 4_294_967_296.0)
    }
}

impl LimitValue for F32 {
    fn from_u32(n: u32) -> Self {
        F32::from_whole(n)
    }
    fn whole(self) -> u32 {
        self.0.whole()
    }
    fn grow(self, step: Ratio) -> Self {
        F32(self.0.grow(step))
    }
    fn shrink(self, backoff: Ratio) -> Self {
        F32(self.0.shrink(backoff))
    }
    fn clamp_to(self, min: u32, max: u32) -> Self {
        F32(self.0.clamp_to(min, max))
    }
    fn to_q16(self) -> u64 {
        self.0.to_q16()
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

impl Q32 {
    /// The whole number `n`, in `const` code.
    pub const fn from_whole(n: u32) -> Self {
        Q32((n as u64) << 32)
    }
}

/// One in [`Q32`].
const Q32_WHOLE: u64 = 1 << 32;

impl LimitValue for Q32 {
    fn from_u32(n: u32) -> Self {
        Q32::from_whole(n)
    }
    fn whole(self) -> u32 {
        (self.0 >> 32) as u32
    }
    fn grow(self, step: Ratio) -> Self {
        // step / limit in 32.32 = step_bits · 2^32 / (limit in 32.16). step_bits < 2^32, so the
        // numerator fits a u64; the divisor is at least 1.0 in 32.16.
        let divisor = (self.0 >> 16).max(1 << 16);
        let increment = crate::num::divide::div_u64(u64::from(step.to_bits()) << 32, divisor);
        Q32(self.0.saturating_add(increment))
    }
    fn shrink(self, backoff: Ratio) -> Self {
        // (limit · b) >> 16, split into halves so nothing needs 128 bits:
        // (hi·2^32 + lo) · b >> 16 = (hi·b) << 16 + (lo·b) >> 16.
        let b = u64::from(backoff.to_bits());
        let (hi, lo) = (self.0 >> 32, self.0 & 0xffff_ffff);
        let high = hi.checked_mul(b).filter(|&p| p < 1 << 48).map(|p| p << 16);
        let Some(high) = high else {
            // backoff ≥ 1 on a huge limit: only possible with an unvalidated Ratio.
            return Q32(u64::MAX);
        };
        let product = high.saturating_add((lo * b) >> 16);
        // The factor is off by at most 2^-17, so the product by at most self × 2^-17 (plus the
        // unit the shift drops): that close to a whole number, it is that number. `near` is the
        // largest whole number at most `tolerance` above the product; it is the answer if it is
        // also at most `tolerance` below.
        // At most 1/256 of a unit, like `Ratio`'s (see `Ratio::mul_whole_floor`).
        let tolerance = ((self.0 >> 17) + 1).min(Q32_WHOLE >> 8);
        let near = product.saturating_add(tolerance) & !(Q32_WHOLE - 1);
        Q32(if near.saturating_add(tolerance) >= product {
            near
        } else {
            product
        })
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
    fn the_float_reading_is_the_fixed_point_value() {
        let mut f = F32::from_u32(1_000);
        let mut q = Q32::from_u32(1_000);
        let steps = if cfg!(miri) { 500 } else { 50_000 };
        for _ in 0..steps {
            f = f.grow(Ratio::ONE);
            q = q.grow(Ratio::ONE);
        }
        assert_eq!(f.to_q16(), q.to_q16());
        let exact = q.0 as f64 / 4_294_967_296.0;
        assert!(
            (f64::from(f.get()) - exact).abs() < 1e-4,
            "{} vs {exact}",
            f.get()
        );
        assert_eq!(F32::from_u32(u32::MAX).get(), u32::MAX as f32);
    }

    /// A cut whose exact product is whole lands on it, in both representations, and leaves no
    /// fraction behind: limits 1–64 by 0.8 and 0.9 (0.8 is stored just above its value, 0.9 just
    /// below).
    #[test]
    fn whole_cuts_land_exactly() {
        for (k, stored) in [(8u32, 52_429u32), (9, 58_982)] {
            let ratio = Ratio::from_fraction(k, 10).unwrap();
            assert_eq!(ratio.to_bits(), stored);
            for limit in 1..=64u32 {
                let (f, q) = (
                    F32::from_u32(limit).shrink(ratio),
                    Q32::from_u32(limit).shrink(ratio),
                );
                if limit * k % 10 == 0 {
                    let exact = limit * k / 10;
                    assert_eq!(q, Q32::from_u32(exact), "Q32 {limit} × 0.{k}");
                    assert_eq!(f, F32::from_u32(exact), "F32 {limit} × 0.{k}");
                } else {
                    assert_eq!(q.whole(), limit * k / 10, "Q32 {limit} × 0.{k}");
                    assert_eq!(f.whole(), limit * k / 10, "F32 {limit} × 0.{k}");
                }
            }
        }
        let nine_tenths = Ratio::from_fraction(9, 10).unwrap();
        assert_eq!(Q32::from_u32(30).shrink(nine_tenths).whole(), 27);
        assert_eq!(F32::from_u32(30).shrink(nine_tenths).whole(), 27);
        // A fraction that is not near a whole number is kept: 30.5 × 0.9 = 27.45.
        let q = Q32(30 << 32 | 1 << 31).shrink(nine_tenths);
        assert_eq!((q.whole(), q.to_q16() & 0xffff > 29_000), (27, true));
    }

    #[test]
    fn shrink_handles_the_whole_range() {
        let half = Ratio::from_fraction(1, 2).unwrap();
        assert_eq!(Q32::from_u32(u32::MAX).shrink(half).whole(), u32::MAX / 2);
        assert_eq!(Q32(u64::MAX).shrink(Ratio::from_int(2)), Q32(u64::MAX));
        assert_eq!(Q32::from_u32(0).shrink(half), Q32(0));
        assert_eq!(Q32::from_u32(7).clamp_to(1, 4).whole(), 4);
        assert_eq!(Q32(0).clamp_to(2, 4).whole(), 2);
        assert_eq!(F32::from_u32(9).clamp_to(2, 4).whole(), 4);
        assert_eq!(F32::from_u32(0).clamp_to(2, 4).whole(), 2);
    }
}
