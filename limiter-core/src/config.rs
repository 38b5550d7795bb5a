//! [`ConfigError`]: why a controller's configuration was refused.

use core::fmt;

/// Why a configuration was rejected: each variant is one field and the rule it broke
/// ([`ConfigError::field`], [`ConfigError::message`]).
///
/// ```
/// use limiter_core::{AimdConfig, AimdFixed, ConfigError, Ratio};
///
/// let err = AimdFixed::new(AimdConfig::DEFAULT.deepest_cut(Ratio::ONE)).unwrap_err();
/// assert_eq!(err, ConfigError::DeepestCutOutOfRange);
/// assert_eq!(err.field(), "deepest_cut");
/// assert_eq!(err.to_string(), "`deepest_cut` must be strictly between 0 and 1");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ConfigError {
    /// `min` is zero: the limiter could stop admitting anything, for good.
    MinIsZero,
    /// `min` is above `max`.
    MinAboveMax,
    /// `max` is above 2^24.
    MaxTooLarge,
    /// `initial` is outside `[min, max]`.
    InitialOutOfBounds,
    /// A fixed `limit` is zero.
    LimitIsZero,
    /// `backoff` (the cut on an overload) is not strictly between 0 and 1.
    BackoffOutOfRange,
    /// AIMD's `deepest_cut` is not strictly between 0 and 1.
    DeepestCutOutOfRange,
    /// EWMA-deviation's `decrease` is not strictly between 0 and 1.
    DecreaseOutOfRange,
    /// AIMD's additive `step` is 0 or above 64.
    StepOutOfRange,
    /// AIMD's baseline `tolerance` is not above 1.
    ToleranceOutOfRange,
    /// Gradient2's `tolerance` is below 1.
    ToleranceBelowOne,
    /// AIMD's `growth_tolerance` is below 1 or above its `tolerance`.
    GrowthToleranceOutOfRange,
    /// AIMD's `min_samples` is 0 or larger than the window.
    MinSamplesOutOfRange,
    /// AIMD's latency `target` is zero.
    TargetIsZero,
    /// AIMD's `growth_utilisation` is above 1.
    UtilisationOutOfRange,
    /// Gradient2's `smoothing` is 0 or above 1.
    SmoothingOutOfRange,
    /// Gradient2's `long_window` is below 10 samples.
    LongWindowTooShort,
    /// Vegas' `alpha` is zero or not below `beta`.
    ThresholdsOutOfOrder,
    /// Vegas' `probe_period` is zero.
    ProbePeriodIsZero,
    /// EWMA-deviation's weight `alpha` is not strictly between 0 and 1.
    AlphaOutOfRange,
    /// A retry budget's `period` is zero.
    PeriodIsZero,
}

impl ConfigError {
    /// The field at fault, as its builder method is named.
    ///
    /// ```
    /// use limiter_core::{ConfigError, Gradient2, GradientConfig};
    ///
    /// let err = Gradient2::new(GradientConfig::DEFAULT.long_window(5)).unwrap_err();
    /// assert_eq!(err.field(), "long_window");
    /// ```
    pub const fn field(self) -> &'static str {
        match self {
            ConfigError::MinIsZero | ConfigError::MinAboveMax => "min",
            ConfigError::MaxTooLarge => "max",
            ConfigError::InitialOutOfBounds => "initial",
            ConfigError::LimitIsZero => "limit",
            ConfigError::BackoffOutOfRange => "backoff",
            ConfigError::DeepestCutOutOfRange => "deepest_cut",
            ConfigError::DecreaseOutOfRange => "decrease",
            ConfigError::StepOutOfRange => "step",
            ConfigError::ToleranceOutOfRange | ConfigError::ToleranceBelowOne => "tolerance",
            ConfigError::GrowthToleranceOutOfRange => "growth_tolerance",
            ConfigError::MinSamplesOutOfRange => "min_samples",
            ConfigError::TargetIsZero => "target",
            ConfigError::UtilisationOutOfRange => "growth_utilisation",
            ConfigError::SmoothingOutOfRange => "smoothing",
            ConfigError::LongWindowTooShort => "long_window",
            ConfigError::ThresholdsOutOfOrder | ConfigError::AlphaOutOfRange => "alpha",
            ConfigError::ProbePeriodIsZero => "probe_period",
            ConfigError::PeriodIsZero => "period",
        }
    }

    /// The field and the rule it broke, in a sentence; usable in `const` code (a failed const
    /// construction panics with it).
    ///
    /// ```
    /// use limiter_core::ConfigError;
    ///
    /// assert_eq!(ConfigError::MinIsZero.message(), "`min` must be at least 1");
    /// ```
    pub const fn message(self) -> &'static str {
        match self {
            ConfigError::MinIsZero => "`min` must be at least 1",
            ConfigError::MinAboveMax => "`min` must be at most `max`",
            ConfigError::MaxTooLarge => "`max` must be at most 2^24",
            ConfigError::InitialOutOfBounds => "`initial` must be within [`min`, `max`]",
            ConfigError::LimitIsZero => "`limit` must be at least 1",
            ConfigError::BackoffOutOfRange => "`backoff` must be strictly between 0 and 1",
            ConfigError::DeepestCutOutOfRange => "`deepest_cut` must be strictly between 0 and 1",
            ConfigError::DecreaseOutOfRange => "`decrease` must be strictly between 0 and 1",
            ConfigError::StepOutOfRange => "`step` must be above 0 and at most 64",
            ConfigError::ToleranceOutOfRange => "`tolerance` must be above 1",
            ConfigError::ToleranceBelowOne => "`tolerance` must be at least 1",
            ConfigError::GrowthToleranceOutOfRange => {
                "`growth_tolerance` must be at least 1 and at most `tolerance`"
            }
            ConfigError::MinSamplesOutOfRange => {
                "`min_samples` must be at least 1 and at most the window's size"
            }
            ConfigError::TargetIsZero => "`target` must be above zero",
            ConfigError::UtilisationOutOfRange => "`growth_utilisation` must be at most 1",
            ConfigError::SmoothingOutOfRange => "`smoothing` must be above 0 and at most 1",
            ConfigError::LongWindowTooShort => "`long_window` must be at least 10 samples",
            ConfigError::ThresholdsOutOfOrder => "`alpha` must be above zero and below `beta`",
            ConfigError::ProbePeriodIsZero => "`probe_period` must be above zero",
            ConfigError::AlphaOutOfRange => "`alpha` must be strictly between 0 and 1",
            ConfigError::PeriodIsZero => "`period` must be above zero",
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl core::error::Error for ConfigError {}
