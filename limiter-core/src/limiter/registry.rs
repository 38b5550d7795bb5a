//! One gate per dependency key: [`Registry`] (fixed capacity, `no_std`) and, with the `std`
//! feature, [`KeyedGates`] (bounded, evicting idle keys).
//!
//! A key names what shares a capacity at the dependency: provider, account, endpoint class,
//! credential. One throttled account then shrinks its own limit only. A new key starts from the
//! controller the registry makes for it (the conservative initial limit), and so does a key that
//! was evicted while idle and comes back.

/// The registry holds as many keys as it can; the request's key is not among them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RegistryFull;

impl core::fmt::Display for RegistryFull {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("the limiter registry is full")
    }
}

impl core::error::Error for RegistryFull {}

use crate::controller::Controller;
use crate::gate::Gate;
use crate::gate::mutex::RawMutex;
use crate::gate::waiters::Queue;
use crate::time::clock::Clock;

/// Up to `N` keys, each with its own [`Gate`], in fixed storage: no allocation, no eviction.
///
/// The gates are built up front (`N` controllers from `make`), and a key is bound to the first
/// free one when it is first seen; a key beyond `N` is refused with [`RegistryFull`]. Keys are
/// compared with `==`, in a linear scan (`N` is small on the devices this is for).
///
/// ```
/// use limiter_core::{Fixed, InlineQueue, ManualClock, NoopRawMutex, Registry, RegistryFull};
///
/// let clock = ManualClock::new();
/// let registry: Registry<NoopRawMutex, &str, _, _, InlineQueue<4>, 2> =
///     Registry::new(|| Fixed::new(2).unwrap(), &clock);
///
/// let a = registry.gate("account-a").unwrap();
/// let _p = a.try_acquire().unwrap();
/// assert_eq!(registry.gate("account-a").unwrap().in_flight(), 1); // the same gate
/// assert_eq!(registry.gate("account-b").unwrap().in_flight(), 0); // its own gate
/// assert_eq!(registry.gate("account-c").err(), Some(RegistryFull));
/// ```
pub struct Registry<M: RawMutex, K, C, T, Q: Queue, const N: usize> {
    keys: M::Mutex<[Option<K>; N]>,
    gates: [Gate<M, C, T, Q>; N],
}

impl<M, K, C, T, Q: Queue, const N: usize> Registry<M, K, C, T, Q, N>
where
    M: RawMutex,
    K: PartialEq,
    C: Controller,
    T: Clock + Clone,
{
    /// `N` gates, each with a controller from `make`, a copy of `clock` and an empty queue.
    pub fn new(mut make: impl FnMut() -> C, clock: T) -> Self
    where
        Q: Default,
    {
        Registry {
            keys: M::new([const { None }; N]),
            gates: core::array::from_fn(|_| Gate::new(make(), clock.clone())),
        }
    }

    /// The gate of `key`, binding it to a free gate the first time; [`RegistryFull`] if all `N`
    /// are bound to other keys.
    pub fn gate(&self, key: K) -> Result<&Gate<M, C, T, Q>, RegistryFull> {
        let slot = M::lock(&self.keys, |keys| {
            if let Some(at) = keys.iter().position(|k| k.as_ref() == Some(&key)) {
                return Ok(at);
            }
            let free = keys.iter().position(Option::is_none).ok_or(RegistryFull)?;
            keys[free] = Some(key);
            Ok(free)
        })?;
        Ok(&self.gates[slot])
    }

    /// The gate of `key` if it is bound; never binds.
    pub fn get(&self, key: &K) -> Option<&Gate<M, C, T, Q>> {
        let slot = M::lock(&self.keys, |keys| {
            keys.iter().position(|k| k.as_ref() == Some(key))
        })?;
        Some(&self.gates[slot])
    }

    /// How many keys are bound.
    pub fn len(&self) -> usize {
        M::lock(&self.keys, |keys| {
            keys.iter().filter(|k| k.is_some()).count()
        })
    }

    /// Whether no key is bound yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The bound keys and their capacity; each gate's state is its own `Debug`.
impl<M, K, C, T, Q: Queue, const N: usize> core::fmt::Debug for Registry<M, K, C, T, Q, N>
where
    M: RawMutex,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let bound = M::lock(&self.keys, |keys| {
            keys.iter().filter(|k| k.is_some()).count()
        });
        f.debug_struct("Registry")
            .field("keys", &bound)
            .field("capacity", &N)
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "std")]
pub use keyed::KeyedGates;

#[cfg(feature = "std")]
mod keyed {
    use std::boxed::Box;
    use std::collections::HashMap;
    use std::hash::Hash;
    use std::sync::{Arc, Mutex, PoisonError};

    use super::RegistryFull;
    use crate::controller::Controller;
    use crate::gate::Gate;
    use crate::gate::mutex::StdRawMutex;
    use crate::gate::waiters::HeapQueue;
    use crate::time::clock::{Clock, Instant};

    /// The gate a [`KeyedGates`] keeps per key.
    type KeyGate<C, T> = Gate<StdRawMutex, C, T, HeapQueue>;

    struct Entry<C, T> {
        gate: Arc<KeyGate<C, T>>,
        last_used: Instant,
    }

    /// A gate per key, created on first use, at most `capacity` keys at once (feature `std`).
    ///
    /// When a new key arrives at capacity, the least recently used *idle* key is evicted: one
    /// with nothing in flight, nobody waiting, and no handle left outside the registry (so no
    /// request can be using a gate that is dropped). Only if every key is busy is the new one
    /// refused with [`RegistryFull`]. An evicted key that comes back starts again from the
    /// controller `make` builds for it: the conservative initial limit.
    ///
    /// Each gate's waiting queue is a [`HeapQueue`]: an idle key costs its gate and no waiting
    /// slots, whatever the bound ([`KeyedGates::with_queue_bound`]; 1,024 by default).
    ///
    /// ```
    /// use limiter_core::{Fixed, KeyedGates, StdClock};
    ///
    /// let gates = KeyedGates::new(2, |_key: &&str| Fixed::new(4).unwrap(), StdClock::new());
    /// let a = gates.gate("a").unwrap();
    /// let held = a.try_acquire().unwrap();
    /// drop(gates.gate("b").unwrap()); // idle, no handle kept: evictable
    /// let c = gates.gate("c").unwrap(); // "b" goes, "a" is busy and stays
    /// assert!(gates.contains(&"a") && !gates.contains(&"b") && gates.contains(&"c"));
    /// held.success();
    /// # drop((a, c));
    /// ```
    pub struct KeyedGates<K, C, T> {
        entries: Mutex<HashMap<K, Entry<C, T>>>,
        capacity: usize,
        queue_bound: usize,
        make: Box<dyn Fn(&K) -> C + Send + Sync>,
        clock: T,
    }

    impl<K, C, T> KeyedGates<K, C, T>
    where
        K: Eq + Hash + Clone,
        C: Controller,
        T: Clock + Clone,
    {
        /// At most `capacity` keys (at least one), each gate with a controller from `make`.
        pub fn new(
            capacity: usize,
            make: impl Fn(&K) -> C + Send + Sync + 'static,
            clock: T,
        ) -> Self {
            KeyedGates {
                entries: Mutex::new(HashMap::new()),
                capacity: capacity.max(1),
                queue_bound: HeapQueue::DEFAULT_BOUND,
                make: Box::new(make),
                clock,
            }
        }

        /// At most `bound` requests wait at each key's gate (gates created from now on).
        #[must_use]
        pub fn with_queue_bound(mut self, bound: usize) -> Self {
            self.queue_bound = bound;
            self
        }

        /// The gate of `key`, created (after evicting the least recently used idle key, at
        /// capacity) if it has none.
        pub fn gate(&self, key: K) -> Result<Arc<KeyGate<C, T>>, RegistryFull> {
            let now = self.clock.now();
            let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(entry) = entries.get_mut(&key) {
                entry.last_used = now;
                return Ok(Arc::clone(&entry.gate));
            }
            if entries.len() >= self.capacity {
                let victim = entries
                    .iter()
                    .filter(|(_, e)| is_idle(&e.gate))
                    .min_by_key(|(_, e)| e.last_used)
                    .map(|(k, _)| k.clone())
                    .ok_or(RegistryFull)?;
                entries.remove(&victim);
            }
            let queue = HeapQueue::new(self.queue_bound);
            let gate = Arc::new(Gate::with_queue(
                (self.make)(&key),
                self.clock.clone(),
                queue,
            ));
            entries.insert(
                key,
                Entry {
                    gate: Arc::clone(&gate),
                    last_used: now,
                },
            );
            Ok(gate)
        }

        /// Drops every idle key not used for `idle_micros` microseconds; returns how many.
        pub fn evict_idle(&self, idle_micros: u64) -> usize {
            let now = self.clock.now();
            let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
            let before = entries.len();
            entries
                .retain(|_, e| !(is_idle(&e.gate) && now.micros_since(e.last_used) >= idle_micros));
            before - entries.len()
        }

        /// Whether `key` has a gate now.
        pub fn contains(&self, key: &K) -> bool {
            let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
            entries.contains_key(key)
        }

        /// How many keys have a gate.
        pub fn len(&self) -> usize {
            self.entries
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .len()
        }

        /// Whether no key has a gate.
        pub fn is_empty(&self) -> bool {
            self.len() == 0
        }
    }

    /// How many keys have a gate, and the bound on them.
    impl<K, C, T> core::fmt::Debug for KeyedGates<K, C, T> {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            let keys = self
                .entries
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .len();
            f.debug_struct("KeyedGates")
                .field("keys", &keys)
                .field("capacity", &self.capacity)
                .finish_non_exhaustive()
        }
    }

    /// Nothing in flight, nobody queued, and no handle outside the registry.
    fn is_idle<C: Controller, T: Clock>(gate: &Arc<KeyGate<C, T>>) -> bool {
        if Arc::strong_count(gate) > 1 {
            return false;
        }
        let s = gate.snapshot();
        s.in_flight == 0 && s.queued == 0
    }
}
