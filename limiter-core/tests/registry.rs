//! The registries against plain models, over random operation sequences.

use std::collections::HashMap;
use std::sync::Arc;

use limiter_core::{
    Fixed, Gate, KeyedGates, ManualClock, NoopRawMutex, Registry, RegistryFull, StdRawMutex,
};
use limiter_core::{HeapQueue, InlineQueue};

fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

fn runs(n: u64) -> u64 {
    if cfg!(miri) { 3 } else { n }
}

#[test]
fn the_fixed_registry_binds_the_first_n_keys_for_good() {
    for seed in 1..=runs(200) {
        let mut rng = seed;
        let clock = ManualClock::new();
        let registry: Registry<NoopRawMutex, u8, _, _, InlineQueue<2>, 4> =
            Registry::new(|| Fixed::new(3).unwrap(), &clock);
        let mut bound: Vec<u8> = Vec::new();
        let mut addresses: HashMap<u8, *const ()> = HashMap::new();
        for _ in 0..40 {
            let key = (xorshift(&mut rng) % 7) as u8;
            let got = registry.gate(key);
            if bound.contains(&key) || bound.len() < 4 {
                let gate = got.expect("bound, or room to bind");
                let address = std::ptr::from_ref(gate).cast::<()>();
                assert_eq!(
                    *addresses.entry(key).or_insert(address),
                    address,
                    "same key, same gate"
                );
                if !bound.contains(&key) {
                    bound.push(key);
                }
            } else {
                assert_eq!(got.err(), Some(RegistryFull));
            }
            assert_eq!(registry.len(), bound.len());
        }
        let distinct: std::collections::HashSet<_> = addresses.values().collect();
        assert_eq!(
            distinct.len(),
            addresses.len(),
            "distinct keys, distinct gates"
        );
    }
}

type KeyedGate = Arc<Gate<StdRawMutex, Fixed, &'static ManualClockSync, HeapQueue>>;

/// A `Sync` manual clock, for the std registry.
#[derive(Default)]
struct ManualClockSync(std::sync::atomic::AtomicU64);

impl limiter_core::Clock for ManualClockSync {
    fn now(&self) -> limiter_core::Instant {
        limiter_core::Instant::from_micros(self.0.load(std::sync::atomic::Ordering::SeqCst))
    }
}

#[test]
fn the_keyed_registry_never_evicts_a_key_in_use_and_refuses_only_when_all_are_busy() {
    for seed in 1..=runs(200) {
        let mut rng = seed;
        let clock: &'static ManualClockSync = Box::leak(Box::default());
        let gates: KeyedGates<u8, Fixed, _> = KeyedGates::new(3, |_| Fixed::new(2).unwrap(), clock);
        // Handles and permits the "application" keeps, per key.
        let mut handles: HashMap<u8, KeyedGate> = HashMap::new();
        let mut permits = Vec::new();
        for _ in 0..60 {
            clock.0.fetch_add(
                xorshift(&mut rng) % 1_000,
                std::sync::atomic::Ordering::SeqCst,
            );
            let key = (xorshift(&mut rng) % 6) as u8;
            match xorshift(&mut rng) % 5 {
                0 | 1 => {
                    let busy_before = (0..6u8)
                        .filter(|k| {
                            gates.contains(k)
                                && (handles.contains_key(k)
                                    || permits.iter().any(|(pk, _)| pk == k))
                        })
                        .count();
                    let Ok(gate) = gates.gate(key) else {
                        assert!(!gates.contains(&key));
                        assert_eq!(busy_before, 3, "refused while a key was idle");
                        continue;
                    };
                    if xorshift(&mut rng) % 2 == 0 {
                        if let Ok(p) = Gate::try_acquire_owned(Arc::clone(&gate)) {
                            permits.push((key, p));
                        }
                        handles.insert(key, gate);
                    }
                }
                2 => {
                    handles.remove(&key);
                }
                3 => {
                    if !permits.is_empty() {
                        let at = (xorshift(&mut rng) as usize) % permits.len();
                        permits.swap_remove(at).1.success();
                    }
                }
                _ => {
                    gates.evict_idle(xorshift(&mut rng) % 2_000);
                }
            }
            assert!(gates.len() <= 3);
            for (key, handle) in &handles {
                assert!(
                    gates.contains(key),
                    "key {key} evicted while its handle is held"
                );
                assert!(
                    Arc::ptr_eq(handle, &gates.gate(*key).unwrap()),
                    "a held key was replaced"
                );
            }
            for (key, _) in &permits {
                assert!(
                    gates.contains(key),
                    "key {key} evicted while a permit is out"
                );
            }
        }
    }
}
