//! The limiters a scenario compares, behind one controller type.

use limiter_core::{
    AimdConfig, AimdF32, AimdFixed, AimdFixedCompact, Change, ConfigError, Controller,
    ControllerStats, Epoch, EwmaConfig, EwmaDeviation, Fixed, Gradient2, GradientConfig, Instant,
    Sample, Vegas, VegasConfig,
};

/// A limiter to compare.
#[derive(Clone, Debug)]
pub enum Limiter {
    /// A fixed limit (a semaphore).
    Fixed(u32),
    /// AIMD with an `f32` limit.
    AimdFloat(AimdConfig),
    /// AIMD with a fixed-point limit.
    AimdFixedPoint(AimdConfig),
    /// AIMD without the growth probe (`AimdFixedCompact`, the embassy adapter's default).
    AimdCompact(AimdConfig),
    /// AIMD with an `f32` limit, started fast (`Aimd::fast_start`).
    AimdFastStart(AimdConfig),
    /// Vegas: a queue estimate from the no-load latency.
    Vegas(VegasConfig),
    /// EWMA with a deviation band (Vector's signal).
    Ewma(EwmaConfig),
    /// Gradient2 with guards (Netflix's algorithm).
    Gradient(GradientConfig),
    /// Knows the upstream's true capacity at every moment: the physical bound of the comparison.
    Oracle,
}

impl Limiter {
    /// The controller to run.
    pub fn build(&self) -> Result<SimController, ConfigError> {
        Ok(match self {
            Limiter::Fixed(n) => SimController::Fixed(Fixed::new(*n)?),
            Limiter::AimdFloat(c) => SimController::Float(Box::new(AimdF32::new(*c)?)),
            Limiter::AimdFixedPoint(c) => SimController::FixedPoint(Box::new(AimdFixed::new(*c)?)),
            Limiter::AimdCompact(c) => SimController::Compact(Box::new(AimdFixedCompact::new(*c)?)),
            Limiter::AimdFastStart(c) => {
                SimController::Float(Box::new(AimdF32::new(*c)?.fast_start()))
            }
            Limiter::Vegas(c) => SimController::Vegas(Box::new(Vegas::new(*c)?)),
            Limiter::Ewma(c) => SimController::Ewma(Box::new(EwmaDeviation::new(*c)?)),
            Limiter::Gradient(c) => SimController::Gradient(Box::new(Gradient2::new(*c)?)),
            Limiter::Oracle => SimController::Oracle(Fixed::new(1)?),
        })
    }
}

/// Any of the compared controllers.
#[derive(Debug)]
pub enum SimController {
    /// See [`Limiter::Fixed`].
    Fixed(Fixed),
    /// See [`Limiter::AimdFloat`] and [`Limiter::AimdFastStart`].
    Float(Box<AimdF32>),
    /// See [`Limiter::AimdFixedPoint`].
    FixedPoint(Box<AimdFixed>),
    /// See [`Limiter::AimdCompact`].
    Compact(Box<AimdFixedCompact>),
    /// See [`Limiter::Vegas`].
    Vegas(Box<Vegas>),
    /// See [`Limiter::Ewma`].
    Ewma(Box<EwmaDeviation>),
    /// See [`Limiter::Gradient`].
    Gradient(Box<Gradient2>),
    /// See [`Limiter::Oracle`]; the engine sets its limit.
    Oracle(Fixed),
}

impl SimController {
    fn inner(&self) -> &dyn Controller {
        match self {
            SimController::Fixed(c) | SimController::Oracle(c) => c,
            SimController::Float(c) => c.as_ref(),
            SimController::FixedPoint(c) => c.as_ref(),
            SimController::Compact(c) => c.as_ref(),
            SimController::Vegas(c) => c.as_ref(),
            SimController::Ewma(c) => c.as_ref(),
            SimController::Gradient(c) => c.as_ref(),
        }
    }

    fn inner_mut(&mut self) -> &mut dyn Controller {
        match self {
            SimController::Fixed(c) | SimController::Oracle(c) => c,
            SimController::Float(c) => c.as_mut(),
            SimController::FixedPoint(c) => c.as_mut(),
            SimController::Compact(c) => c.as_mut(),
            SimController::Vegas(c) => c.as_mut(),
            SimController::Ewma(c) => c.as_mut(),
            SimController::Gradient(c) => c.as_mut(),
        }
    }
}

impl Controller for SimController {
    fn limit(&self) -> u32 {
        self.inner().limit()
    }
    fn epoch(&self) -> Epoch {
        self.inner().epoch()
    }
    fn on_sample(&mut self, sample: &Sample) -> Change {
        self.inner_mut().on_sample(sample)
    }
    fn hold_growth_until(&mut self, now: Instant, until: Instant) {
        self.inner_mut().hold_growth_until(now, until);
    }
    fn stats(&self) -> ControllerStats {
        self.inner().stats()
    }
}
