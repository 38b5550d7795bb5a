//! [`ConfigError`]: why a controller's configuration was refused.

use core::fmt;

/// Why a controller configuration was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ConfigError {
    /// The floor is zero: the limiter could stop admitting anything, for good.
    MinIsZero,
    /// The floor is above the ceiling.
    MinAboveMax,
    /// The ceiling is above 2^24.
    MaxTooLarge,
    /// The initial limit is outside `[min, max]`.
    InitialOutOfBounds,
    /// The backoff is not strictly between 0 and 1.
    BackoffOutOfRange,
    /// The additive step is 0 or above 64.
    StepOutOfRange,
    /// The latency tolerance is not above 1.
    ToleranceOutOfRange,
    /// The growth tolerance is below 1 or above the tolerance.
    GrowthToleranceOutOfRange,
    /// `min_samples` is 0 or larger than the window.
    MinSamplesOutOfRange,
    /// The latency target is zero.
    TargetIsZero,
    /// A refresh period is zero.
    PeriodIsZero,
    /// Vegas' `alpha` is zero or not below `beta`.
    ThresholdsOutOfOrder,
    /// An EWMA weight is not strictly between 0 and 1.
    AlphaOutOfRange,

    /// The growth utilisation is above 1.
    UtilisationOutOfRange,
}

impl ConfigError {
    /// What is wrong, in a sentence; usable in `const` code (a failed const construction
    /// panics with it).
    ///
    /// ```
    /// use limiter_core::ConfigError;
    ///
    /// assert_eq!(ConfigError::MinIsZero.message(), "the minimum limit must be at least 1");
    /// ```
    pub const fn message(self) -> &'static str {
        match self {
            ConfigError::MinIsZero => "the minimum limit must be at least 1",
            ConfigError::MinAboveMax => "the minimum limit is above the maximum",
            ConfigError::MaxTooLarge => "the maximum limit is above 2^24",
            ConfigError::InitialOutOfBounds => "the initial limit is outside [min, max]",
            ConfigError::BackoffOutOfRange => "the backoff must be strictly between 0 and 1",
            ConfigError::StepOutOfRange => "the additive step must be above 0 and at most 64",
            ConfigError::ToleranceOutOfRange => "the latency tolerance must be above 1",
            ConfigError::GrowthToleranceOutOfRange => {
                "the growth tolerance must be at least 1 and at most the tolerance"
            }
            ConfigError::MinSamplesOutOfRange => "min_samples must be between 1 and the window",
            ConfigError::TargetIsZero => "the latency target must be above zero",
            ConfigError::PeriodIsZero => "the refresh period must be above zero",
            ConfigError::ThresholdsOutOfOrder => "alpha must be above zero and below beta",
            ConfigError::AlphaOutOfRange => "the EWMA weight must be strictly between 0 and 1",
            ConfigError::UtilisationOutOfRange => "the growth utilisation must be at most 1",
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl core::error::Error for ConfigError {}
