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
    // A wide multiply, used in several places: one copy in firmware; inlined elsewhere, where
    // two of them run on every sample.
    #[cfg_attr(target_os = "none", inline(never))]
    pub const fn mul_u64(self, value: u64) -> u64 {
        let wide = (value as u128 * self.0 as u128) >> 16;
        if wide > u64::MAX as u128 {
            u64::MAX
        } else {
            wide as u64
        }
    }

    /// `value × self` as a whole number, rounded down, where a product within the factor's own
    /// representation error of a whole number is that whole number; saturating.
    ///
    /// This is the rule by which every controller turns a fraction of a limit into a whole
    /// number (a cut, a utilisation threshold). A `Ratio` holds its factor to the nearest
    /// 1/65536, so 0.9 is stored as 58,982/65,536, six millionths low, and 30 × 0.9 computes as
    /// 26.9998: rounded down plainly, a cut by 0.9 would take 30 to 26. The stored factor is off
    /// by at most half a unit (2^-17), so the product is off by at most `value × 2^-17`: a
    /// product that close to a whole number is taken as exactly it. The tolerance stops growing
    /// at 1/256 of a unit, which it reaches at values of 512: beyond, a product a little further
    /// below a whole number is rounded down (at most one low, in a limit of 512 or more), and a
    /// limit kept in `f32` and one kept in fixed point still agree on which products snap.
    ///
    /// ```
    /// # use limiter_core::Ratio;
    /// let nine_tenths = Ratio::from_fraction(9, 10).unwrap();
    /// assert_eq!(nine_tenths.mul_u64(30), 26); // 26.9998, rounded down
    /// assert_eq!(nine_tenths.mul_whole_floor(30), 27); // the exact product is whole
    /// assert_eq!(nine_tenths.mul_whole_floor(25), 22); // 22.5: rounded down
    /// ```
    pub const fn mul_whole_floor(self, value: u32) -> u32 {
        let (product, tolerance) = self.product(value);
        saturate((product + tolerance) >> 16)
    }

    /// `value × self` as a whole number, rounded up, by the rule of [`Ratio::mul_whole_floor`]:
    /// a product within the factor's representation error of a whole number is that number;
    /// saturating.
    ///
    /// ```
    /// # use limiter_core::Ratio;
    /// let nine_tenths = Ratio::from_fraction(9, 10).unwrap();
    /// assert_eq!(nine_tenths.mul_whole_ceil(2), 2); // 1.8, rounded up
    /// let eight_tenths = Ratio::from_fraction(8, 10).unwrap(); // stored just above 0.8
    /// assert_eq!(eight_tenths.mul_whole_ceil(10), 8); // 8.00001 is 8, not 9
    /// ```
    pub const fn mul_whole_ceil(self, value: u32) -> u32 {
        let (product, tolerance) = self.product(value);
        saturate((product.saturating_sub(tolerance) + 0xffff) >> 16)
    }

    /// `value × self` in 1/65536ths, and the error the stored factor can have put into it, in
    /// the same units (see `mul_whole_floor`): the product plus its tolerance, rounded down, and
    /// less its tolerance, rounded up, are the two snapped products. A 32 × 32-bit product: no
    /// 128-bit arithmetic on a microcontroller.
    const fn product(self, value: u32) -> (u64, u64) {
        // A product of a whole number of units is off by at most value/2 units: value / 2, at
        // most 1/256 of a unit.
        let tolerance = value / 2;
        let tolerance = if tolerance > SNAP_MAX_UNITS {
            SNAP_MAX_UNITS
        } else {
            tolerance
        };
        (value as u64 * self.0 as u64, tolerance as u64)
    }
}

/// The largest snapping tolerance, in 1/65536ths: 1/256 of a unit.
const SNAP_MAX_UNITS: u32 = 256;

/// `value`, or `u32::MAX` if it does not fit.
const fn saturate(value: u64) -> u32 {
    if value > u32::MAX as u64 {
        u32::MAX
    } else {
        value as u32
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

    /// Every product `limit × k/10` that is whole, for limits 1–64: 104 of them, 36 of which a
    /// plain rounded-down product gets one low (every one with 0.2, 0.4, 0.7 or 0.9, which are
    /// stored just below their value).
    #[test]
    fn whole_products_land_on_their_value() {
        let mut whole = 0;
        let mut plain_low = 0;
        for k in 1..10u32 {
            let ratio = Ratio::from_fraction(k, 10).unwrap();
            for limit in 1..=64u32 {
                if limit * k % 10 != 0 {
                    let (floor, ceil) = (limit * k / 10, limit * k / 10 + 1);
                    assert_eq!(ratio.mul_whole_floor(limit), floor, "{limit} × 0.{k}");
                    assert_eq!(ratio.mul_whole_ceil(limit), ceil, "{limit} × 0.{k}");
                    continue;
                }
                whole += 1;
                let exact = limit * k / 10;
                plain_low += u32::from(ratio.mul_u64(u64::from(limit)) != u64::from(exact));
                assert_eq!(ratio.mul_whole_floor(limit), exact, "{limit} × 0.{k}");
                assert_eq!(ratio.mul_whole_ceil(limit), exact, "{limit} × 0.{k}");
            }
        }
        assert_eq!((whole, plain_low), (104, 36));
        assert_eq!(Ratio::from_fraction(9, 10).unwrap().mul_whole_floor(30), 27);
        assert_eq!(Ratio::from_fraction(8, 10).unwrap().mul_whole_ceil(10), 8);
        assert_eq!(Ratio::from_fraction(9, 10).unwrap().mul_whole_ceil(2), 2);
        assert_eq!(Ratio::from_fraction(9, 10).unwrap().mul_whole_ceil(10), 9);
        assert_eq!(Ratio::from_int(2).mul_whole_floor(u32::MAX), u32::MAX);
        assert_eq!(Ratio::from_int(2).mul_whole_ceil(u32::MAX), u32::MAX);
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
