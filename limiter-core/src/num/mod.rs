//! Numbers: the integer helpers every layer above uses (64-bit division without the general
//! routine on 32-bit cores, saturating narrowing) and [`Ratio`], the 16.16 factor
//! configurations are written in.

pub(crate) mod divide;
pub(crate) mod ratio;

/// `value`, or `u32::MAX` if it does not fit: how 32-bit fields keep microseconds, seconds and
/// samples.
pub(crate) const fn saturating_u32(value: u64) -> u32 {
    if value > u32::MAX as u64 {
        u32::MAX
    } else {
        value as u32
    }
}
