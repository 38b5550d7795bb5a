//! What a run measured, and the recorder the engine feeds as the run goes.
//!
//! Field names of [`Metrics`] are the JSON output's (`--format json`), and they are stable:
//! a new measurement adds a field, never renames one.

use serde::Serialize;

use crate::load::Load;

/// The granularity of per-client served counts (for shares over time and the converged window).
const BUCKET_US: u64 = 100_000;
/// The window over which a late joiner's share is measured, and the step between windows.
const SHARE_WINDOW_US: u64 = 1_000_000;
/// How far from its fair share a client may be and still count as fair: ±20 %.
const FAIR_BAND: (f64, f64) = (0.8, 1.2);
/// Clients whose limit series are kept; with more, this many spread evenly (and every late
/// joiner).
const SERIES_CLIENTS: usize = 20;

/// What one run measured.
#[derive(Clone, Debug, Serialize)]
pub struct Metrics {
    /// Calls served.
    pub ok: u64,
    /// Calls served by the end of the load (the goodput the oracle comparison uses: calls that
    /// complete in the drain were admitted while the load ran, possibly beyond what the
    /// dependency could serve in time).
    pub ok_during_load: u64,
    /// Calls served over the converged window (the second half of the load, as for
    /// [`fairness_converged`](Self::fairness_converged)), all clients together: what the
    /// oracle comparison of the steady state uses, apart from the start-up.
    pub ok_second_half: u64,
    /// Calls refused by the dependency (429 or 503).
    pub throttled: u64,
    /// Calls that timed out (reported by the dependency, or given up by the client).
    pub timed_out: u64,
    /// Calls that failed in a way that says nothing about load (500s).
    pub failed: u64,
    /// Calls the limiter turned away because its queue of waiters was full.
    pub queue_full: u64,
    /// Attempts that were retries.
    pub retries: u64,
    /// All attempts per first attempt (1 without retries).
    pub retry_amplification: f64,
    /// Calls served per second, over the whole run (the load, then the drain of what it left).
    pub throughput_per_s: f64,
    /// Mean service time of served calls (admission to answer), ms.
    pub rtt_mean_ms: f64,
    /// Service time of served calls, percentiles, ms.
    pub p50_ms: f64,
    /// 95th percentile, ms.
    pub p95_ms: f64,
    /// 99th percentile, ms.
    pub p99_ms: f64,
    /// Time spent queued in the limiter, 95th percentile, ms.
    pub wait_p95_ms: f64,
    /// Each client's limit, averaged over time from its start until its last call ended, then
    /// over clients.
    pub limit_mean: f64,
    /// The standard deviation over time of each client's limit, averaged over clients.
    pub limit_sd: f64,
    /// Each client's limit quartiles over time, from its start until its last call ended:
    /// `[q1, median, q3]` per client.
    pub limit_quartiles: Vec<[u32; 3]>,
    /// The median over clients of each quartile (what the table shows).
    pub limit_quartiles_median: [u32; 3],
    /// The limit at the end of the load (averaged over clients).
    pub final_limit: u32,
    /// Each client's limit at the end of the load.
    pub final_limit_per_client: Vec<u32>,
    /// Cuts of the limit, over all clients.
    pub decreases: u64,
    /// When the last call ended, ms.
    pub drained_at_ms: f64,
    /// Time to stabilise: from the last change of the first client's oracle limit (the true
    /// capacity, or the start if it never changes) until the first client's limit stays within
    /// half and one and a half times it, ms. A limit that never settles counts until the load
    /// ends.
    pub settle_ms: f64,
    /// The refusals a causal controller cannot avoid: at each fall of a client's oracle limit
    /// during the load (a quota or a capacity that dropped, a share that shrank as a client
    /// joined), the calls above the new limit that the client held at the old one. Those were
    /// admitted before anything could show the fall, and the signal that shows it is their
    /// refusal: one round trip of excess calls per fall.
    pub refusal_bound: u64,
    /// Calls served, per client.
    pub ok_per_client: Vec<u64>,
    /// Jain's fairness index of the calls served per client over the whole run: 1 when all got
    /// the same, 1/n when one got everything.
    pub fairness: f64,
    /// Jain's index of each client's served calls per second over the converged window (the
    /// second half of the load, each client counted over the part of it it was active).
    pub fairness_converged: f64,
    /// With a global ceiling: the most calls ever inside it at once.
    pub global_peak: Option<u32>,
    /// The most calls in flight at the dependency at once.
    pub server_in_flight_max: u32,
    /// Calls in flight at the dependency, averaged over time from the first call until the run
    /// drained.
    pub server_in_flight_mean: f64,
    /// Clients that joined after the first ones started: how their share of the served calls
    /// evolved.
    pub late_joiners: Vec<LateJoiner>,
    /// Every client's limit over the whole run, the drain included, sampled at a fixed period.
    pub limit_series: LimitSeries,
    /// Every served call: (completed at, service time), µs, in completion order.
    #[serde(skip)]
    pub served: Vec<(u64, u64)>,
}

/// A client that joined late, against its fair share. Its share at `t` is its served calls per
/// second over `(t − 1 s, t]` against the mean of the clients active over that whole second.
#[derive(Clone, Debug, Serialize)]
pub struct LateJoiner {
    /// The client.
    pub client: usize,
    /// When it joined, ms.
    pub joined_ms: f64,
    /// Its share 2 s after joining (1 is fair).
    pub share_at_2s: Option<f64>,
    /// Its share 5 s after joining.
    pub share_at_5s: Option<f64>,
    /// How long after joining its share came within ±20 % of fair and stayed there: the end of
    /// the first one-second window from which every window (one every 100 ms, until it stopped
    /// or the load ended) is fair, ms after joining; `None`: never.
    pub fair_after_ms: Option<f64>,
}

/// Limits sampled every `period_ms`, from 0 until the run drained.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LimitSeries {
    /// The sampling period, ms.
    pub period_ms: f64,
    /// The clients sampled: all of them up to 20, else 20 spread evenly (the first, the last
    /// and every late joiner among them).
    pub clients: Vec<usize>,
    /// For each sampled client, its limit at each sample.
    pub limits: Vec<Vec<u32>>,
}

impl LimitSeries {
    /// One client's series as `(µs, limit)` points, if it was sampled.
    pub fn of(&self, client: usize) -> Option<Vec<(u64, u32)>> {
        let i = self.clients.iter().position(|&c| c == client)?;
        let period = (self.period_ms * 1e3) as u64;
        Some(
            self.limits[i]
                .iter()
                .enumerate()
                .map(|(k, &l)| (k as u64 * period, l))
                .collect(),
        )
    }
}

/// A client's limit over time: time-weighted moments and a histogram, from its start until
/// its last observation.
#[derive(Clone, Debug)]
struct LimitTrace {
    from: u64,
    last: (u64, u32),
    sum: f64,
    sum_sq: f64,
    /// Time spent at each limit, µs.
    time_at: Vec<u64>,
}

impl LimitTrace {
    fn new(from: u64, limit: u32) -> Self {
        LimitTrace {
            from,
            last: (from, limit),
            sum: 0.0,
            sum_sq: 0.0,
            time_at: Vec::new(),
        }
    }

    /// The limit becomes `limit` at `now` (observations before the start only set the value).
    fn observe(&mut self, now: u64, limit: u32) {
        let now = now.max(self.from);
        let dt = now.saturating_sub(self.last.0);
        if dt > 0 {
            let l = self.last.1;
            self.sum += f64::from(l) * dt as f64;
            self.sum_sq += f64::from(l) * f64::from(l) * dt as f64;
            let slot = l as usize;
            if self.time_at.len() <= slot {
                self.time_at.resize(slot + 1, 0);
            }
            self.time_at[slot] += dt;
        }
        self.last = (now, limit);
    }

    fn span(&self) -> u64 {
        self.last.0 - self.from
    }

    fn mean_sd(&self) -> (f64, f64) {
        let span = self.span() as f64;
        if span == 0.0 {
            return (f64::from(self.last.1), 0.0);
        }
        let mean = self.sum / span;
        (mean, (self.sum_sq / span - mean * mean).max(0.0).sqrt())
    }

    /// Time-weighted quartiles.
    fn quartiles(&self) -> [u32; 3] {
        let total: u64 = self.time_at.iter().sum();
        if total == 0 {
            return [self.last.1; 3];
        }
        let at = |q: f64| {
            let target = (total as f64 * q).ceil().max(1.0) as u64;
            let mut seen = 0;
            for (limit, &t) in self.time_at.iter().enumerate() {
                seen += t;
                if seen >= target {
                    return limit as u32;
                }
            }
            self.last.1
        };
        [at(0.25), at(0.5), at(0.75)]
    }
}

/// One client's counts.
#[derive(Clone, Debug, Default)]
struct ClientRecord {
    served: u64,
    served_during_load: u64,
    throttled: u64,
    timed_out: u64,
    failed: u64,
    queue_full: u64,
    /// Served calls per 100 ms.
    buckets: Vec<u32>,
    /// The current limit, and the one at the end of the load.
    limit: u32,
    final_limit: Option<u32>,
}

/// What the engine feeds as the run goes.
#[derive(Debug)]
pub(crate) struct Recorder {
    until: u64,
    starts: Vec<u64>,
    stops: Vec<u64>,
    clients: Vec<ClientRecord>,
    traces: Vec<LimitTrace>,
    service: Vec<u64>,
    served: Vec<(u64, u64)>,
    waits: Vec<u64>,
    /// Calls in flight at the dependency, the time of the last change, and the integral.
    in_flight: (u32, u64, f64),
    in_flight_max: u32,
    first_start: Option<u64>,
    period: u64,
    next_sample: u64,
    sampled: Vec<usize>,
    samples: Vec<Vec<u32>>,
    /// (time, first client's limit, its oracle limit) at every change of either.
    first_vs_oracle: Vec<(u64, u32, u32)>,
    oracle_first: u32,
    /// Each client's oracle limit while it is active (`None` while it is not).
    oracle_limits: Vec<Option<u32>>,
    /// See [`Metrics::refusal_bound`].
    refusal_bound: u64,
}

impl Recorder {
    pub(crate) fn new(loads: &[Load], until: u64, initial: &[u32]) -> Self {
        let n = loads.len();
        let starts: Vec<u64> = loads.iter().map(|l| l.start_us).collect();
        let first_start = starts.iter().copied().min().unwrap_or(0);
        let mut sampled: Vec<usize> = if n <= SERIES_CLIENTS {
            (0..n).collect()
        } else {
            (0..SERIES_CLIENTS)
                .map(|k| k * (n - 1) / (SERIES_CLIENTS - 1))
                .collect()
        };
        sampled.extend((0..n).filter(|&c| starts[c] > first_start));
        sampled.sort_unstable();
        sampled.dedup();
        // About 200 samples over the load, never finer than a millisecond.
        let period = (until / 200).max(1_000);
        Recorder {
            until,
            stops: loads.iter().map(|l| l.stop_us).collect(),
            clients: initial
                .iter()
                .map(|&limit| ClientRecord {
                    limit,
                    ..ClientRecord::default()
                })
                .collect(),
            traces: starts
                .iter()
                .zip(initial)
                .map(|(&s, &l)| LimitTrace::new(s, l))
                .collect(),
            starts,
            service: Vec::new(),
            served: Vec::new(),
            waits: Vec::new(),
            in_flight: (0, 0, 0.0),
            in_flight_max: 0,
            first_start: None,
            period,
            next_sample: 0,
            samples: vec![Vec::new(); sampled.len()],
            sampled,
            first_vs_oracle: Vec::new(),
            oracle_first: 0,
            oracle_limits: vec![None; n],
            refusal_bound: 0,
        }
    }

    /// Time moves to `now`: samples every period boundary passed (the limits in force before
    /// this instant's events) and notes the limits at the end of the load.
    pub(crate) fn advance(&mut self, now: u64) {
        while self.next_sample <= now {
            self.sample();
        }
        if now > self.until {
            for c in &mut self.clients {
                c.final_limit.get_or_insert(c.limit);
            }
        }
    }

    fn sample(&mut self) {
        for (k, &client) in self.sampled.iter().enumerate() {
            self.samples[k].push(self.clients[client].limit);
        }
        self.next_sample += self.period;
    }

    /// `client`'s limit is `limit` after an event at `now`.
    pub(crate) fn limit(&mut self, client: usize, now: u64, limit: u32) {
        if self.clients[client].limit == limit {
            return;
        }
        self.clients[client].limit = limit;
        self.traces[client].observe(now, limit);
        if client == 0 {
            self.first_vs_oracle.push((now, limit, self.oracle_first));
        }
    }

    /// Every client's oracle limit at `now`, and which clients are active: a fall of an active
    /// client's limit during the load adds the calls above the new limit to the refusal bound
    /// (see [`Metrics::refusal_bound`]).
    pub(crate) fn oracle_limits(&mut self, now: u64, limits: &[u32], active: &[bool]) {
        for ((last, &limit), &active) in self.oracle_limits.iter_mut().zip(limits).zip(active) {
            if !active {
                *last = None;
                continue;
            }
            if let Some(before) = last.replace(limit) {
                if now <= self.until {
                    self.refusal_bound += u64::from(before.saturating_sub(limit));
                }
            }
        }
        if let Some(&first) = limits.first() {
            self.oracle_of_first(now, first);
        }
    }

    /// The first client's oracle limit at `now`.
    fn oracle_of_first(&mut self, now: u64, oracle: u32) {
        if self.first_vs_oracle.is_empty() || self.oracle_first != oracle {
            self.oracle_first = oracle;
            self.first_vs_oracle
                .push((now, self.clients.first().map_or(0, |c| c.limit), oracle));
        }
    }

    pub(crate) fn started(&mut self, _client: usize, now: u64, waited: u64) {
        self.waits.push(waited);
        self.first_start.get_or_insert(now);
        self.move_in_flight(now, 1);
    }

    pub(crate) fn ended(&mut self, client: usize, now: u64) {
        self.move_in_flight(now, -1);
        // The client's last observation is its last call's end: its trace covers until then.
        let limit = self.clients[client].limit;
        self.traces[client].observe(now, limit);
    }

    fn move_in_flight(&mut self, now: u64, by: i32) {
        let (n, since, area) = self.in_flight;
        let area = area + f64::from(n) * now.saturating_sub(since) as f64;
        let n = n.saturating_add_signed(by);
        self.in_flight = (n, now, area);
        self.in_flight_max = self.in_flight_max.max(n);
    }

    pub(crate) fn served(&mut self, client: usize, now: u64, service: u64) {
        let c = &mut self.clients[client];
        c.served += 1;
        c.served_during_load += u64::from(now <= self.until);
        let bucket = (now / BUCKET_US) as usize;
        if c.buckets.len() <= bucket {
            c.buckets.resize(bucket + 1, 0);
        }
        c.buckets[bucket] += 1;
        self.service.push(service);
        self.served.push((now, service));
    }

    pub(crate) fn throttled(&mut self, client: usize) {
        self.clients[client].throttled += 1;
    }

    pub(crate) fn timed_out(&mut self, client: usize) {
        self.clients[client].timed_out += 1;
    }

    pub(crate) fn failed(&mut self, client: usize) {
        self.clients[client].failed += 1;
    }

    pub(crate) fn queue_full(&mut self, client: usize) {
        self.clients[client].queue_full += 1;
    }

    /// The run drained at `end`: the totals. (Cuts, retries and the ceiling's peak are the
    /// engine's to fill in.)
    pub(crate) fn finish(mut self, end: u64) -> Metrics {
        while self.next_sample <= end {
            self.sample();
        }
        for c in &mut self.clients {
            c.final_limit.get_or_insert(c.limit);
        }
        let n = self.clients.len();
        let mut service = std::mem::take(&mut self.service);
        service.sort_unstable();
        self.waits.sort_unstable();
        let (mut limit_mean, mut limit_sd) = (0.0, 0.0);
        for trace in &self.traces {
            let (mean, sd) = trace.mean_sd();
            limit_mean += mean / n.max(1) as f64;
            limit_sd += sd / n.max(1) as f64;
        }
        let limit_quartiles: Vec<[u32; 3]> =
            self.traces.iter().map(LimitTrace::quartiles).collect();
        let median_of = |q: usize| {
            let mut v: Vec<u32> = limit_quartiles.iter().map(|qs| qs[q]).collect();
            v.sort_unstable();
            v.get(v.len() / 2).copied().unwrap_or(0)
        };
        let ok_per_client: Vec<u64> = self.clients.iter().map(|c| c.served).collect();
        let ok: u64 = ok_per_client.iter().sum();
        let final_limits: Vec<u32> = self
            .clients
            .iter()
            .map(|c| c.final_limit.unwrap_or(c.limit))
            .collect();
        let (count, since, area) = self.in_flight;
        let area = area + f64::from(count) * end.saturating_sub(since) as f64;
        let busy = end.saturating_sub(self.first_start.unwrap_or(end));
        let sum = |f: fn(&ClientRecord) -> u64| self.clients.iter().map(f).sum::<u64>();
        Metrics {
            ok,
            ok_during_load: sum(|c| c.served_during_load),
            ok_second_half: {
                let (from, to) = self.converged_window();
                (0..n).map(|c| self.served_in(c, from, to)).sum()
            },
            throttled: sum(|c| c.throttled),
            timed_out: sum(|c| c.timed_out),
            failed: sum(|c| c.failed),
            queue_full: sum(|c| c.queue_full),
            retries: 0,
            retry_amplification: 1.0,
            throughput_per_s: ok as f64 / (self.until.max(end).max(1) as f64 / 1e6),
            rtt_mean_ms: if service.is_empty() {
                0.0
            } else {
                service.iter().sum::<u64>() as f64 / service.len() as f64 / 1e3
            },
            p50_ms: percentile_ms(&service, 0.50),
            p95_ms: percentile_ms(&service, 0.95),
            p99_ms: percentile_ms(&service, 0.99),
            wait_p95_ms: percentile_ms(&self.waits, 0.95),
            limit_mean,
            limit_sd,
            limit_quartiles_median: [median_of(0), median_of(1), median_of(2)],
            limit_quartiles,
            final_limit: (final_limits.iter().map(|&l| u64::from(l)).sum::<u64>()
                / final_limits.len().max(1) as u64) as u32,
            final_limit_per_client: final_limits,
            decreases: 0,
            refusal_bound: self.refusal_bound,
            drained_at_ms: end as f64 / 1e3,
            settle_ms: {
                let during: Vec<_> = self
                    .first_vs_oracle
                    .iter()
                    .copied()
                    .take_while(|e| e.0 <= self.until)
                    .collect();
                settle_time(&during, self.until)
            },
            fairness: jain(&ok_per_client.iter().map(|&x| x as f64).collect::<Vec<_>>()),
            fairness_converged: self.converged_fairness(),
            ok_per_client,
            global_peak: None,
            server_in_flight_max: self.in_flight_max,
            server_in_flight_mean: if busy == 0 { 0.0 } else { area / busy as f64 },
            late_joiners: self.late_joiners(),
            limit_series: LimitSeries {
                period_ms: self.period as f64 / 1e3,
                clients: self.sampled,
                limits: self.samples,
            },
            served: self.served,
        }
    }

    /// Served calls of `client` in the buckets covering `[from, to)` (whole buckets).
    fn served_in(&self, client: usize, from: u64, to: u64) -> u64 {
        let b = &self.clients[client].buckets;
        let (first, last) = ((from / BUCKET_US) as usize, (to / BUCKET_US) as usize);
        b.iter().take(last).skip(first).map(|&x| u64::from(x)).sum()
    }

    /// The converged window, `[from, to)` in whole buckets: the second half of the load.
    fn converged_window(&self) -> (u64, u64) {
        (
            self.until / 2 / BUCKET_US * BUCKET_US,
            self.until / BUCKET_US * BUCKET_US,
        )
    }

    /// See [`Metrics::fairness_converged`].
    fn converged_fairness(&self) -> f64 {
        let (from, to) = self.converged_window();
        let rates: Vec<f64> = (0..self.clients.len())
            .filter_map(|c| {
                let (a, b) = (self.starts[c].max(from), self.stops[c].min(to));
                let (a, b) = (a.div_ceil(BUCKET_US) * BUCKET_US, b / BUCKET_US * BUCKET_US);
                (b > a).then(|| self.served_in(c, a, b) as f64 / (b - a) as f64)
            })
            .collect();
        jain(&rates)
    }

    /// `client`'s share over the second ending at `t`, against the clients active over it.
    fn share_at(&self, client: usize, t: u64) -> Option<f64> {
        let from = t.checked_sub(SHARE_WINDOW_US)?;
        let active: Vec<usize> = (0..self.clients.len())
            .filter(|&c| self.starts[c] <= from && self.stops[c] >= t)
            .collect();
        if !active.contains(&client) {
            return None;
        }
        let total: u64 = active.iter().map(|&c| self.served_in(c, from, t)).sum();
        let mean = total as f64 / active.len() as f64;
        (mean > 0.0).then(|| self.served_in(client, from, t) as f64 / mean)
    }

    /// See [`Metrics::late_joiners`].
    fn late_joiners(&self) -> Vec<LateJoiner> {
        let first = self.starts.iter().copied().min().unwrap_or(0);
        (0..self.clients.len())
            .filter(|&c| self.starts[c] > first)
            .map(|client| {
                let joined = self.starts[client].div_ceil(BUCKET_US) * BUCKET_US;
                let end = self.stops[client].min(self.until);
                let first_window = joined + SHARE_WINDOW_US;
                let grid: Vec<(u64, Option<f64>)> = if end < first_window {
                    Vec::new()
                } else {
                    (0..=(end - first_window) / BUCKET_US)
                        .map(|k| first_window + k * BUCKET_US)
                        .map(|t| (t, self.share_at(client, t)))
                        .collect()
                };
                let fair =
                    |s: &Option<f64>| s.is_some_and(|s| (FAIR_BAND.0..=FAIR_BAND.1).contains(&s));
                // The first window from which every later one is fair.
                let first_fair = match grid.iter().rposition(|(_, s)| !fair(s)) {
                    None if grid.is_empty() => None,
                    None => Some(0),
                    Some(i) if i + 1 < grid.len() => Some(i + 1),
                    Some(_) => None,
                };
                let settled = first_fair.map(|i| (grid[i].0 - joined) as f64 / 1e3);
                let share_after = |after: u64| self.share_at(client, joined + after);
                LateJoiner {
                    client,
                    joined_ms: self.starts[client] as f64 / 1e3,
                    share_at_2s: share_after(2_000_000),
                    share_at_5s: share_after(5_000_000),
                    fair_after_ms: settled,
                }
            })
            .collect()
    }
}

/// See [`Metrics::settle_ms`]: over the change points of (limit, oracle) of the first client.
fn settle_time(trace: &[(u64, u32, u32)], until: u64) -> f64 {
    let changed = trace
        .windows(2)
        .filter(|w| w[0].2 != w[1].2)
        .map(|w| w[1].0)
        .next_back()
        .unwrap_or(0);
    let outside = |&(_, limit, oracle): &(u64, u32, u32)| {
        let (l, o) = (f64::from(limit), f64::from(oracle));
        l < 0.5 * o || l > 1.5 * o
    };
    // The state in force at `changed`, then every change after it.
    let from = trace.iter().rposition(|e| e.0 <= changed).unwrap_or(0);
    let after = &trace[from..];
    match after.iter().rposition(outside) {
        None => 0.0,
        Some(i) if i + 1 == after.len() => until.saturating_sub(changed) as f64 / 1e3,
        Some(i) => after[i + 1].0.saturating_sub(changed) as f64 / 1e3,
    }
}

/// Jain's fairness index: (Σx)² / (n Σx²); 1 for no values.
pub fn jain(xs: &[f64]) -> f64 {
    let sum: f64 = xs.iter().sum();
    let sum_sq: f64 = xs.iter().map(|x| x * x).sum();
    if sum_sq == 0.0 {
        1.0
    } else {
        sum * sum / (xs.len() as f64 * sum_sq)
    }
}

/// Nearest-rank percentile of sorted µs values, in ms (0 for none).
pub fn percentile_ms(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64 / 1e3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quartiles_are_weighted_by_time() {
        let mut t = LimitTrace::new(0, 10);
        t.observe(1_000, 20); // 10 for 1 ms
        t.observe(4_000, 30); // 20 for 3 ms
        t.observe(5_000, 30); // 30 for 1 ms
        assert_eq!(t.quartiles(), [20, 20, 20]);
        assert_eq!(t.mean_sd().0, (10.0 + 60.0 + 30.0) / 5.0);
    }

    #[test]
    fn a_limit_that_settles_after_the_last_change() {
        // Oracle 10 from 0, 4 from 100; the limit is 10, then 9 (outside 2..6) until 300, then 5.
        let trace = [(0, 10, 10), (100, 10, 4), (150, 9, 4), (300, 5, 4)];
        assert_eq!(settle_time(&trace, 1_000_000), 0.2);
        // Never settles: counted until the load ends.
        let trace = [(0, 10, 10), (100, 10, 4)];
        assert_eq!(settle_time(&trace, 1_000_100), 1_000.0);
        // Always within: 0.
        assert_eq!(settle_time(&[(0, 10, 10)], 5_000), 0.0);
    }

    #[test]
    fn the_second_half_counts_the_calls_served_in_it() {
        // Two clients over 10 s: the second half is [5 s, 10 s), whole buckets of 100 ms.
        let loads = [
            crate::load::Load::closed(1, 10_000_000),
            crate::load::Load::closed(1, 10_000_000),
        ];
        let mut r = Recorder::new(&loads, 10_000_000, &[1, 1]);
        for (client, at) in [
            (0, 1_000_000),
            (1, 4_999_999),
            (0, 5_000_000),
            (1, 7_500_000),
            (1, 9_999_999),
            (0, 10_000_000),
        ] {
            r.served(client, at, 1_000);
        }
        let m = r.finish(10_000_000);
        // Not the first two (before 5 s) nor the last (at 10 s, past the window).
        assert_eq!((m.ok, m.ok_second_half), (6, 3));
    }

    #[test]
    fn jain_is_one_for_equal_shares_and_one_over_n_for_one_taker() {
        assert_eq!(jain(&[3.0, 3.0, 3.0]), 1.0);
        assert_eq!(jain(&[4.0, 0.0, 0.0, 0.0]), 0.25);
    }
}
