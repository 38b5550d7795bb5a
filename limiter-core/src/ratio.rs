//! [`Ratio`]: an unsigned 16.16 fixed-point factor, so configuration needs no floating point.

use core::fmt;

/// A non-negative factor in 16.16 fixed point (a resolution of 1/65536, at most 65535.99…).
///
/// Backoff factors, tolerances and steps are `Ratio`s, so a controller configured on a Cortex-M0
/// links no soft-float routines. [`Ratio::from_f32`] exists for convenience where floats are cheap.
///
/// # Examples
///
/// ```
/// use limiter_core::Ratio;
///
/// let three_quarters = Ratio::from_fraction(3, 4).unwrap();
/// assert_eq!(three_quarters, Ratio::from_f32(0.75).unwrap());
/// assert_eq!(three_quarters.to_bits(), 49_152);
/// assert!(Ratio::from_f32(f32::NAN).is_err());
/// assert!(Ratio::from_fraction(1, 0).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Ratio(u32);

/// A value that cannot be a [`Ratio`]: NaN, infinite, negative, too large, or a zero denominator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct InvalidRatio;

impl fmt::Display for InvalidRatio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a finite, non-negative factor below 65536")
    }
}

impl core::error::Error for InvalidRatio {}

impl Ratio {
    /// Fractional bits.
    pub const SHIFT: u32 = 16;
    /// The factor 1.
    pub const ONE: Ratio = Ratio(1 << 16);
    /// The factor 0.
    pub const ZERO: Ratio = Ratio(0);

    /// A ratio from its raw 16.16 bits.
    pub const fn from_bits(bits: u32) -> Self {
        Ratio(bits)
    }

    /// The raw 16.16 bits.
    pub const fn to_bits(self) -> u32 {
        self.0
    }

    /// `numerator / denominator`, rounded to the nearest 1/65536.
    pub const fn from_fraction(numerator: u32, denominator: u32) -> Result<Self, InvalidRatio> {
        if denominator == 0 {
            return Err(InvalidRatio);
        }
        let scaled = ((numerator as u64) << 16) + (denominator as u64 / 2);
        let bits = scaled / denominator as u64;
        if bits > u32::MAX as u64 {
            return Err(InvalidRatio);
        }
        Ok(Ratio(bits as u32))
    }

    /// A whole number.
    pub const fn from_int(n: u16) -> Self {
        Ratio((n as u32) << 16)
    }

    /// `value`, rounded to the nearest 1/65536. NaN, infinities, negatives and values of 65536 or
    /// more are rejected.
    pub fn from_f32(value: f32) -> Result<Self, InvalidRatio> {
        if !(0.0..65_536.0).contains(&value) {
            return Err(InvalidRatio);
        }
        let bits = value * 65_536.0 + 0.5;
        Ok(Ratio(bits as u32))
    }

    /// The factor as an `f32` (exact: 16.16 values fit an `f32` mantissa up to 256).
    pub fn to_f32(self) -> f32 {
        self.0 as f32 / 65_536.0
    }

    /// `value × self`, rounded down, saturating.
    ///
    /// ```
    /// # use limiter_core::Ratio;
    /// assert_eq!(Ratio::from_fraction(3, 2).unwrap().mul_u64(10), 15);
    /// assert_eq!(Ratio::from_int(2).mul_u64(u64::MAX), u64::MAX);
    /// ```
    #[inline(never)] // a wide multiply, used in several places: one copy in firmware
    pub const fn mul_u64(self, value: u64) -> u64 {
        let wide = (value as u128 * self.0 as u128) >> 16;
        if wide > u64::MAX as u128 {
            u64::MAX
        } else {
            wide as u64
        }
    }
}

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let thousandths = (u64::from(self.0) * 1_000 + 32_768) >> 16;
        write!(f, "{}.{:03}", thousandths / 1_000, thousandths % 1_000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_what_is_not_a_factor() {
        for v in [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            -0.1,
            65_536.0,
            1e30,
        ] {
            assert_eq!(Ratio::from_f32(v), Err(InvalidRatio), "{v}");
        }
        assert_eq!(Ratio::from_fraction(u32::MAX, 1), Err(InvalidRatio));
        assert_eq!(Ratio::from_fraction(7, 0), Err(InvalidRatio));
    }

    #[test]
    fn float_and_fraction_agree() {
        assert_eq!(Ratio::from_f32(0.5), Ratio::from_fraction(1, 2));
        assert_eq!(Ratio::from_f32(2.0), Ok(Ratio::from_int(2)));
        assert_eq!(Ratio::from_f32(0.9).unwrap().to_f32(), 58_982.0 / 65_536.0);
    }

    #[test]
    fn displays_three_decimals() {
        assert_eq!(
            std::format!("{}", Ratio::from_fraction(3, 4).unwrap()),
            "0.750"
        );
        assert_eq!(std::format!("{}", Ratio::from_int(2)), "2.000");
        assert_eq!(std::format!("{}", Ratio::from_bits(65_535)), "1.000");
        assert_eq!(std::format!("{}", Ratio::from_bits(u32::MAX)), "65536.000");
    }
}
