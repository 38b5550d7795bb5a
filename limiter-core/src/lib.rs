#![cfg_attr(not(test), no_std)]
#![doc = include_str!("../README.md")]
// docs.rs marks every item that needs a feature with that feature.
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(any(feature = "std", feature = "http", loom))]
extern crate std;

mod backoff;
mod classify;
pub mod clock;
pub mod controller;
mod divide;
mod future;
mod gate;
mod limiter;
mod mutex;
pub mod outcome;
mod permit;
mod persist;
mod quota;
mod ratio;
mod registry;
pub mod retry_after;
mod retry_budget;
mod runtime;
mod scoped;
#[cfg(feature = "std")]
mod shared;
mod snapshot;
mod waiters;
pub mod window;

pub use backoff::Backoff;
pub use classify::{Classify, ErrorsAreOverload, FnClassifier, Verdict, classify_fn};
#[cfg(feature = "std")]
pub use clock::StdClock;
pub use clock::{Clock, Instant, ManualClock};
pub use controller::{
    Admission, Aimd, AimdConfig, AimdF32, AimdFixed, AimdFixedCompact, Change, ConfigError,
    Controller, ControllerStats, Epoch, EwmaConfig, EwmaDeviation, F32, Fixed, Gradient2,
    GradientConfig, LatencySignal, LimitValue, Q32, Sample, Vegas, VegasConfig,
};
pub use future::Acquire;
pub use gate::{AcquireError, AtLimit, Gate, GateState, QueueFull};
pub use limiter::{Admit, InPlace, Limiter, Pace};
#[cfg(feature = "critical-section")]
pub use mutex::CriticalSectionRawMutex;
#[cfg(loom)]
pub use mutex::LoomRawMutex;
#[cfg(feature = "std")]
pub use mutex::StdRawMutex;
pub use mutex::{NoopRawMutex, RawMutex};
pub use outcome::{Cause, HttpClassifier, Outcome};
pub use permit::{GateRef, Permit};
pub use persist::{LimitRecord, RecordError};
pub use quota::{Gcra, QuotaError};
pub use ratio::{InvalidRatio, Ratio};
#[cfg(feature = "std")]
pub use registry::KeyedGates;
pub use registry::{Registry, RegistryFull};
pub use retry_after::{RetryAfter, RetryAfterError, parse_retry_after};
pub use retry_budget::RetryBudget;
pub use runtime::Runtime;
pub use scoped::{AcquireScoped, ScopedPermit, acquire_scoped, try_acquire_scoped};
#[cfg(feature = "std")]
pub use shared::SharedQuota;
pub use snapshot::Snapshot;
#[cfg(feature = "std")]
pub use waiters::HeapQueue;
pub use waiters::{InlineQueue, Queue};
pub use window::{MedianWindow, WindowedMin};
