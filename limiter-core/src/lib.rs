#![cfg_attr(not(test), no_std)]
#![doc = include_str!("../README.md")]
// docs.rs marks every item that needs a feature with that feature.
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(any(feature = "std", feature = "http", loom))]
extern crate std;

// The layers, each using only those above it in this list: numbers and configuration errors,
// time, signals, controllers, the gate, the limiter and its registries, policies. Every public
// item is named once, from the crate root (`scripts/layers.py` checks both rules).
mod config;
mod controller;
mod gate;
mod limiter;
mod num;
mod policy;
mod signal;
mod time;

pub use config::ConfigError;
pub use controller::window::{MedianWindow, WindowedMin};
pub use controller::{
    Admission, Aimd, AimdConfig, AimdF32, AimdFixed, AimdFixedCompact, Change, Controller,
    ControllerStats, DEFAULT_WINDOW, Epoch, EwmaConfig, EwmaDeviation, F32, Fixed, Gradient2,
    GradientConfig, LatencySignal, LimitValue, MAX_LIMIT, Q32, Sample, Vegas, VegasConfig,
};
pub use gate::error::{AcquireError, AtLimit, QueueFull, TryAcquireError};
pub use gate::future::Acquire;
pub use gate::handle::GateRef;
#[cfg(feature = "critical-section")]
pub use gate::mutex::CriticalSectionRawMutex;
#[cfg(loom)]
pub use gate::mutex::LoomRawMutex;
#[cfg(feature = "std")]
pub use gate::mutex::StdRawMutex;
pub use gate::mutex::{NoopRawMutex, RawMutex};
pub use gate::permit::Permit;
pub use gate::scoped::{AcquireScoped, ScopedPermit, acquire_scoped, try_acquire_scoped};
pub use gate::snapshot::Snapshot;
#[cfg(feature = "std")]
pub use gate::waiters::HeapQueue;
pub use gate::waiters::{InlineQueue, Queue};
pub use gate::{GATE_WORDS, Gate, GateState};
#[cfg(feature = "metrics")]
pub use limiter::metrics::metrics_hook;
#[cfg(feature = "std")]
pub use limiter::registry::KeyedGates;
pub use limiter::registry::{Registry, RegistryFull};
pub use limiter::{Admit, InPlace, Limiter, Pace};
pub use num::ratio::{InvalidRatio, Ratio};
pub use policy::backoff::Backoff;
pub use policy::persist::{LimitRecord, RecordError};
pub use policy::quota::{Gcra, QuotaError};
pub use policy::retry_budget::RetryBudget;
#[cfg(feature = "std")]
pub use policy::shared::SharedQuota;
pub use signal::classify::{Classify, ErrorsAreOverload, FnClassifier, Verdict, classify_fn};
pub use signal::http::HttpClassifier;
pub use signal::outcome::{Cause, Outcome};
pub use signal::quota_hint::{
    QuotaAdvice, QuotaHint, QuotaHintError, QuotaLeft, parse_quota_count, parse_quota_reset,
    parse_ratelimit,
};
pub use signal::retry_after::{RetryAfter, RetryAfterError, parse_http_date, parse_retry_after};
#[cfg(feature = "std")]
pub use time::clock::StdClock;
pub use time::clock::{
    Clock, FAR_FUTURE, Instant, ManualClock, duration_to_micros, micros_to_ticks_ceil,
};
pub use time::runtime::Runtime;
