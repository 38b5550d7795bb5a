//! [`GateRef`]: how permits and futures reach their gate, by reference or through an `Arc`.

use core::task::{Context, Poll};
use core::time::Duration;

use crate::controller::{Admission, Sample};
use crate::gate::error::{AtLimit, Refused};
use crate::time::clock::Instant;

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// A handle to a [`Gate`](crate::Gate): `&Gate`, `Arc<Gate>`, or any other `Deref` to one.
///
/// Implemented for every such handle; sealed. Its methods are the gate's internal protocol and
/// are not meant to be called directly.
pub trait GateRef: sealed::Sealed {
    #[doc(hidden)]
    fn now(&self) -> Instant;
    #[doc(hidden)]
    fn complete(&self, sample: Option<Sample>);
    #[doc(hidden)]
    fn hold_growth_for(&self, delay: Duration);
    #[doc(hidden)]
    fn hold_admissions_for(&self, delay: Duration);
    #[doc(hidden)]
    fn poll_acquire(
        &self,
        ticket: &mut Option<u64>,
        honour_hold: bool,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Admission, Refused>>;
    #[doc(hidden)]
    fn cancel_wait(&self, ticket: u64);
    #[doc(hidden)]
    fn try_admit(&self) -> Result<Admission, AtLimit>;
}
