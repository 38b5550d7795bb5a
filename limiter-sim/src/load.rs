//! Who calls: each client's arrivals, when it starts and stops, and how many calls it makes.

/// How a client's calls arrive.
#[derive(Clone, Debug)]
pub enum Arrivals {
    /// Open loop: `per_tick` calls every `tick_us`, whatever happens to them.
    Fixed {
        /// Calls per tick.
        per_tick: u32,
        /// The tick, µs.
        tick_us: u64,
    },
    /// Open loop with Poisson arrivals: `rate_per_s` on average (exponential gaps).
    Poisson {
        /// Mean arrivals per second.
        rate_per_s: f64,
    },
    /// Closed loop: `workers` callers, each calling again as soon as its call ends (a backlog
    /// that never runs dry).
    Closed {
        /// Concurrent callers.
        workers: u32,
    },
    /// Open loop at exactly these instants, µs after the client's start, in any order: any
    /// arrival process a scenario can write down (a burst is `vec![0; n]`).
    At(Vec<u64>),
}

/// One client's load: its arrivals within `[start_us, stop_us)`, at most `count` first attempts.
///
/// A client makes no call before `start_us` (a client that joins late) and no new first attempt
/// from `stop_us` on (a client that leaves); its calls in progress, and their retries, finish.
/// With a `count`, it stops after that many first attempts (a burst: "N calls, then stop").
///
/// ```
/// use limiter_sim::load::Load;
///
/// // 20 callers from 10 s to 30 s, at most 5,000 calls.
/// let late = Load::closed(20, 30_000_000).starting_at(10_000_000).count(5_000);
/// assert_eq!((late.start_us, late.stop_us, late.count), (10_000_000, 30_000_000, Some(5_000)));
/// ```
#[derive(Clone, Debug)]
pub struct Load {
    /// How calls arrive.
    pub arrivals: Arrivals,
    /// When the client starts calling, µs.
    pub start_us: u64,
    /// When it stops making new calls, µs.
    pub stop_us: u64,
    /// At most this many first attempts; `None`: no bound.
    pub count: Option<u64>,
}

impl Load {
    /// `workers` closed-loop callers from 0 until `stop_us`.
    pub fn closed(workers: u32, stop_us: u64) -> Self {
        Load::new(Arrivals::Closed { workers }, stop_us)
    }

    /// `per_tick` calls every `tick_us` from 0 until `stop_us`.
    pub fn fixed(per_tick: u32, tick_us: u64, stop_us: u64) -> Self {
        Load::new(Arrivals::Fixed { per_tick, tick_us }, stop_us)
    }

    /// Poisson arrivals at `rate_per_s` from 0 until `stop_us`.
    pub fn poisson(rate_per_s: f64, stop_us: u64) -> Self {
        Load::new(Arrivals::Poisson { rate_per_s }, stop_us)
    }

    /// `arrivals` from 0 until `stop_us`, without a count.
    pub fn new(arrivals: Arrivals, stop_us: u64) -> Self {
        Load {
            arrivals,
            start_us: 0,
            stop_us,
            count: None,
        }
    }

    /// The same load, starting at `start_us` instead (the stop stays where it was).
    #[must_use]
    pub fn starting_at(mut self, start_us: u64) -> Self {
        self.start_us = start_us;
        self
    }

    /// The same load, with at most `count` first attempts.
    #[must_use]
    pub fn count(mut self, count: u64) -> Self {
        self.count = Some(count);
        self
    }

    /// Whether the client is within its calling window at `now`.
    pub fn active_at(&self, now: u64) -> bool {
        (self.start_us..self.stop_us).contains(&now)
    }

    /// Whether a closed-loop caller, done with a call at `now` after `issued` first attempts,
    /// makes another.
    pub(crate) fn calls_again(&self, now: u64, issued: u64) -> bool {
        matches!(self.arrivals, Arrivals::Closed { .. })
            && self.active_at(now)
            && self.count.is_none_or(|c| issued < c)
    }

    /// How many of this client's calls can legitimately arrive at one instant: its callers, or
    /// its largest tick.
    pub(crate) fn callers(&self) -> u64 {
        match &self.arrivals {
            Arrivals::Fixed { per_tick, .. } => u64::from(*per_tick),
            Arrivals::Poisson { .. } => 1,
            Arrivals::Closed { workers } => u64::from(*workers),
            Arrivals::At(times) => times.len() as u64,
        }
    }

    /// The open-loop arrival instants (absolute µs), within the window and the count; closed
    /// loops give their callers' first calls, all at the start.
    pub(crate) fn first_arrivals(&self, rng: &mut crate::rng::Rng) -> Vec<u64> {
        let cap = self.count.unwrap_or(u64::MAX);
        let within = |t: u64| t < self.stop_us;
        let mut times: Vec<u64> = match &self.arrivals {
            Arrivals::Fixed { per_tick, tick_us } => {
                let tick = (*tick_us).max(1);
                let mut out = Vec::new();
                let mut t = self.start_us;
                while within(t) && (out.len() as u64) < cap {
                    for _ in 0..*per_tick {
                        out.push(t);
                    }
                    t += tick;
                }
                out
            }
            Arrivals::Poisson { rate_per_s } => {
                let mut out = Vec::new();
                // No arrivals (and no endless loop) for a rate that is not positive and finite.
                if *rate_per_s > 0.0 && rate_per_s.is_finite() {
                    let gap = 1e6 / rate_per_s;
                    let mut t = self.start_us as f64 + rng.exponential(gap);
                    while t < self.stop_us as f64 && (out.len() as u64) < cap {
                        out.push(t as u64);
                        t += rng.exponential(gap);
                    }
                }
                out
            }
            Arrivals::Closed { workers } => {
                if self.start_us < self.stop_us {
                    vec![self.start_us; *workers as usize]
                } else {
                    Vec::new()
                }
            }
            Arrivals::At(offsets) => {
                let mut out: Vec<u64> = offsets
                    .iter()
                    .map(|&o| self.start_us.saturating_add(o))
                    .filter(|&t| within(t))
                    .collect();
                out.sort_unstable();
                out
            }
        };
        times.truncate(usize::try_from(cap).unwrap_or(usize::MAX));
        times
    }
}
