//! The deterministic memory model behind the GPU's memory ports in co-simulation.
//!
//! It owns global memory (`GMEM_BASE .. GMEM_BASE + gmem_bytes`, a byte array) and serves one
//! memory port per SM with the protocol of docs/microarch/sm.md:
//!
//! * a request is `mem$s$req_valid` with `write`, a byte `addr`, `size` (0 byte, 1 half,
//!   2 word) and, for a write, the data in the low bits (upper bits zero); it is *accepted* in a
//!   cycle in which `mem$s$req_valid` and `mem$s$req_ready` are both high (sampled at the rising
//!   clock edge that ends the cycle);
//! * a read gets exactly one response, `mem$s$resp_valid` with the loaded bytes in the low bits
//!   of `mem$s$resp_data`, responses in request order, at most one per cycle; the GPU always
//!   accepts a response (there is no response-ready);
//! * a write gets no response; it is applied to memory when it is accepted.
//!
//! # Timing (per SM port; `c` is the cycle in which the request is accepted)
//!
//! * **latency** `L`: the response of a read accepted in cycle `c` is driven in cycle
//!   `c + 1 + L` at the earliest. `L = 0` therefore means the response is visible in the cycle
//!   right after acceptance. With `jitter` `J > 0`, each read draws `L` uniformly from
//!   `latency ..= latency + J`; responses still come back in request order (a response is
//!   driven in the cycle after the previous one at the earliest, so a short latency behind a
//!   long one waits).
//! * **data**: a read returns memory as it is when the read is *accepted* (after every write
//!   accepted before it, from any SM; within one cycle, SMs in index order). This is exactly
//!   in-order memory: a later write cannot change an earlier read's data.
//! * **bandwidth** `B`: at most `B` requests (reads and writes) are accepted per SM in each
//!   aligned window of [`BANDWIDTH_WINDOW`] cycles (cycles `16k .. 16k+15`); once `B` have been
//!   accepted, `mem$s$req_ready` stays low until the window ends. `B = 0` (or `B ≥ 16`) is
//!   unlimited: one request per cycle, the most a single valid/ready port can carry.
//! * **back-pressure** `p`: in every cycle, independently per SM, `mem$s$req_ready` is low with
//!   probability `p` (drawn whether or not a request is waiting, so the pattern does not depend
//!   on the GPU's behaviour).
//! * **seed**: every random draw comes from ChaCha8 streams seeded from `seed` and the SM index
//!   (one stream for back-pressure, one for latencies): a run is reproducible from its settings.
//!
//! Presets ([`MemorySettings::preset`]): `zero` (latency 0, no back-pressure, unlimited),
//! `long` (latency 100, no back-pressure, unlimited), `random` (latency 1..=50 per read, order
//! kept, back-pressure 0.3, unlimited).

use std::collections::VecDeque;
use std::fmt;
use std::str::FromStr;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use warpforge_isa::memmap::GMEM_BASE;

/// Cycles of the aligned window in which [`MemorySettings::bandwidth`] requests are accepted.
pub const BANDWIDTH_WINDOW: u64 = 16;

/// Names of the memory presets, in the order `regress` runs them.
pub const MEMORY_PRESETS: &[&str] = &["zero", "long", "random"];

/// Timing parameters of the memory model (see the module documentation for the exact rules).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MemorySettings {
    /// Preset name, or `custom` (informational: shown in reports).
    pub name: String,
    /// Minimum read latency in cycles (0 = the response is driven in the cycle after
    /// acceptance).
    pub latency: u32,
    /// Each read's latency is `latency + uniform(0 ..= jitter)`; order is kept.
    pub jitter: u32,
    /// Requests accepted per SM per aligned window of [`BANDWIDTH_WINDOW`] cycles; 0 =
    /// unlimited (one per cycle).
    pub bandwidth: u32,
    /// Probability, in `[0, 1)`, that `mem_req_ready` is low in a cycle.
    pub backpressure: f64,
    /// Seed of every random draw.
    pub seed: u64,
}

impl Default for MemorySettings {
    fn default() -> Self {
        MemorySettings::zero()
    }
}

impl MemorySettings {
    /// Latency 0 (response in the cycle after acceptance), always ready, unlimited bandwidth.
    pub fn zero() -> Self {
        MemorySettings {
            name: "zero".into(),
            latency: 0,
            jitter: 0,
            bandwidth: 0,
            backpressure: 0.0,
            seed: 0,
        }
    }

    /// Latency 100, always ready, unlimited bandwidth.
    pub fn long() -> Self {
        MemorySettings {
            name: "long".into(),
            latency: 100,
            ..MemorySettings::zero()
        }
    }

    /// Latency 1..=50 drawn per read (order kept), ready low with probability 0.3.
    pub fn random() -> Self {
        MemorySettings {
            name: "random".into(),
            latency: 1,
            jitter: 49,
            backpressure: 0.3,
            ..MemorySettings::zero()
        }
    }

    /// A preset by name (`zero`, `long`, `random`).
    pub fn preset(name: &str) -> Result<Self, MemorySettingsError> {
        match name {
            "zero" => Ok(MemorySettings::zero()),
            "long" => Ok(MemorySettings::long()),
            "random" => Ok(MemorySettings::random()),
            _ => Err(MemorySettingsError(format!(
                "unknown memory setting `{name}`; known: {} (or key=value pairs such as `latency=20,jitter=5,backpressure=0.1,bandwidth=4,seed=3`)",
                MEMORY_PRESETS.join(", ")
            ))),
        }
    }

    /// The same settings with another seed.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Refuse values the model cannot run with.
    pub fn validate(&self) -> Result<(), MemorySettingsError> {
        if !(0.0..1.0).contains(&self.backpressure) {
            return Err(MemorySettingsError(format!(
                "memory back-pressure {} must be in [0, 1) (1 would never accept a request)",
                self.backpressure
            )));
        }
        if self.latency.checked_add(self.jitter).is_none() {
            return Err(MemorySettingsError(
                "memory latency + jitter overflows".into(),
            ));
        }
        Ok(())
    }

    /// Whether the bandwidth limit is in effect.
    pub fn bandwidth_limited(&self) -> bool {
        self.bandwidth != 0 && u64::from(self.bandwidth) < BANDWIDTH_WINDOW
    }

    /// Largest read latency of these settings.
    pub fn max_latency(&self) -> u32 {
        self.latency.saturating_add(self.jitter)
    }
}

impl fmt::Display for MemorySettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (latency ", self.name)?;
        if self.jitter == 0 {
            write!(f, "{}", self.latency)?;
        } else {
            write!(f, "{}..={}", self.latency, self.max_latency())?;
        }
        if self.bandwidth_limited() {
            write!(
                f,
                ", bandwidth {} per {BANDWIDTH_WINDOW} cycles",
                self.bandwidth
            )?;
        } else {
            f.write_str(", bandwidth unlimited")?;
        }
        write!(
            f,
            ", back-pressure {:.2}, seed {})",
            self.backpressure, self.seed
        )
    }
}

/// A memory setting that cannot be parsed or used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct MemorySettingsError(pub String);

/// `zero`, `long`, `random`, or `key=value` pairs separated by `,` or `;`, starting from `zero`
/// or from a preset given first (`random;seed=3`, `latency=20,jitter=5`).
impl FromStr for MemorySettings {
    type Err = MemorySettingsError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        let mut parts = s.split([',', ';']).map(str::trim).peekable();
        let mut m = match parts.peek() {
            Some(p) if !p.contains('=') => {
                let m = MemorySettings::preset(p)?;
                parts.next();
                m
            }
            _ => MemorySettings {
                name: "custom".into(),
                ..MemorySettings::zero()
            },
        };
        let mut custom = false;
        for p in parts.filter(|p| !p.is_empty()) {
            let Some((k, v)) = p.split_once('=') else {
                return Err(MemorySettingsError(format!(
                    "`{p}` in memory setting `{s}`: expected key=value"
                )));
            };
            let bad =
                |what: &str| MemorySettingsError(format!("`{p}` in memory setting `{s}`: {what}"));
            let int = |v: &str| v.trim().parse::<u64>().map_err(|_| bad("not a number"));
            let small =
                |v: &str| int(v).and_then(|n| u32::try_from(n).map_err(|_| bad("too large")));
            match k.trim() {
                "latency" => m.latency = small(v)?,
                "jitter" => m.jitter = small(v)?,
                "bandwidth" => m.bandwidth = small(v)?,
                "backpressure" | "back-pressure" => {
                    m.backpressure = v.trim().parse().map_err(|_| bad("not a number"))?
                }
                "seed" => {
                    m.seed = int(v)?;
                    continue; // a seed alone keeps the preset's name
                }
                other => {
                    return Err(bad(&format!(
                        "unknown key `{other}` (latency, jitter, bandwidth, backpressure, seed)"
                    )))
                }
            }
            custom = true;
        }
        if custom && m.name != "custom" {
            m.name = format!("{}*", m.name);
        }
        m.validate()?;
        Ok(m)
    }
}

/// One request on a memory port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemRequest {
    pub write: bool,
    /// Byte address.
    pub addr: u32,
    /// 0 byte, 1 half-word, 2 word.
    pub size: u8,
    /// Store data in the low bits (upper bits zero); ignored for reads.
    pub data: u32,
}

impl MemRequest {
    /// Access size in bytes (0 for an invalid `size`).
    pub fn bytes(&self) -> u32 {
        match self.size {
            0 => 1,
            1 => 2,
            2 => 4,
            _ => 0,
        }
    }
}

impl fmt::Display for MemRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.write {
            write!(
                f,
                "write size {} addr 0x{:08x} data 0x{:08x}",
                self.size, self.addr, self.data
            )
        } else {
            write!(f, "read size {} addr 0x{:08x}", self.size, self.addr)
        }
    }
}

/// A request that breaks the port protocol (the GPU must never send one: addresses are checked
/// and faults raised before a request reaches the port).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("SM {sm} memory port, cycle {cycle}: {request}: {why}")]
pub struct MemProtocolError {
    pub sm: u32,
    pub cycle: u64,
    pub request: MemRequest,
    pub why: String,
}

/// Counters of one port.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PortStats {
    pub reads: u64,
    pub writes: u64,
    /// Cycles with a valid request that was not accepted.
    pub stall_cycles: u64,
    /// Most reads waiting for their response at once.
    pub max_outstanding: usize,
}

struct Port {
    ready_rng: ChaCha8Rng,
    latency_rng: ChaCha8Rng,
    /// `ready` of the current cycle.
    ready: bool,
    /// Window index and requests accepted in it.
    window: u64,
    in_window: u32,
    /// Reads in flight: (cycle the response is driven, data).
    queue: VecDeque<(u64, u32)>,
    /// Cycle of the last response scheduled.
    last_due: Option<u64>,
    /// Response driven in the current cycle.
    response: Option<u32>,
    stats: PortStats,
}

/// Global memory and the memory ports of all SMs.
pub struct MemoryModel {
    settings: MemorySettings,
    gmem: Vec<u8>,
    ports: Vec<Port>,
    cycle: u64,
}

impl MemoryModel {
    /// `sms` ports in front of `initial` (global memory from `GMEM_BASE`).
    pub fn new(settings: &MemorySettings, sms: u32, initial: Vec<u8>) -> Self {
        let stream = |sm: u32, which: u64| {
            let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
            rng.set_stream(u64::from(sm) * 2 + which);
            rng
        };
        MemoryModel {
            settings: settings.clone(),
            gmem: initial,
            ports: (0..sms)
                .map(|sm| Port {
                    ready_rng: stream(sm, 0),
                    latency_rng: stream(sm, 1),
                    ready: false,
                    window: 0,
                    in_window: 0,
                    queue: VecDeque::new(),
                    last_due: None,
                    response: None,
                    stats: PortStats::default(),
                })
                .collect(),
            cycle: 0,
        }
    }

    pub fn settings(&self) -> &MemorySettings {
        &self.settings
    }

    /// Start cycle `cycle` (strictly increasing from call to call): decide every port's
    /// `ready` and take the response each port drives in this cycle.
    pub fn begin_cycle(&mut self, cycle: u64) {
        self.cycle = cycle;
        let s = &self.settings;
        let window = cycle / BANDWIDTH_WINDOW;
        for p in &mut self.ports {
            if p.window != window {
                p.window = window;
                p.in_window = 0;
            }
            let pressed = s.backpressure > 0.0 && p.ready_rng.gen_bool(s.backpressure);
            let full = s.bandwidth_limited() && p.in_window >= s.bandwidth;
            p.ready = !pressed && !full;
            p.response = match p.queue.front() {
                Some(&(due, data)) if due <= cycle => {
                    p.queue.pop_front();
                    Some(data)
                }
                _ => None,
            };
        }
    }

    /// `mem$sm$req_ready` in the current cycle.
    pub fn ready(&self, sm: u32) -> bool {
        self.ports[sm as usize].ready
    }

    /// The response driven on `mem$sm$resp_*` in the current cycle, if any.
    pub fn response(&self, sm: u32) -> Option<u32> {
        self.ports[sm as usize].response
    }

    /// The port of `sm` shows `req` with `mem_req_valid` high in the current cycle. It is
    /// accepted when the port is ready (returns whether it was). Writes are applied now, reads
    /// sample memory now and are queued for their response.
    pub fn offer(&mut self, sm: u32, req: MemRequest) -> Result<bool, MemProtocolError> {
        let cycle = self.cycle;
        let err = |why: String| MemProtocolError {
            sm,
            cycle,
            request: req,
            why,
        };
        let p = &mut self.ports[sm as usize];
        if !p.ready {
            p.stats.stall_cycles += 1;
            return Ok(false);
        }
        let bytes = req.bytes();
        if bytes == 0 {
            return Err(err(format!("size {} is not 0, 1 or 2", req.size)));
        }
        if !req.addr.is_multiple_of(bytes) {
            return Err(err(format!("address not aligned to {bytes} bytes")));
        }
        let off = match req.addr.checked_sub(GMEM_BASE) {
            Some(o) if o as usize + bytes as usize <= self.gmem.len() => o as usize,
            _ => {
                return Err(err(format!(
                    "address outside global memory 0x{GMEM_BASE:08x}..0x{:08x}",
                    GMEM_BASE as u64 + self.gmem.len() as u64
                )))
            }
        };
        if req.write && bytes < 4 && req.data >> (8 * bytes) != 0 {
            return Err(err(format!(
                "store data has bits set above its {bytes} byte(s) (the upper bits must be zero)"
            )));
        }
        p.in_window += 1;
        let b = bytes as usize;
        if req.write {
            self.gmem[off..off + b].copy_from_slice(&req.data.to_le_bytes()[..b]);
            p.stats.writes += 1;
        } else {
            let mut w = [0u8; 4];
            w[..b].copy_from_slice(&self.gmem[off..off + b]);
            let lat = if self.settings.jitter > 0 {
                self.settings.latency + p.latency_rng.gen_range(0..=self.settings.jitter)
            } else {
                self.settings.latency
            };
            let mut due = cycle + 1 + u64::from(lat);
            if let Some(last) = p.last_due {
                due = due.max(last + 1);
            }
            p.last_due = Some(due);
            p.queue.push_back((due, u32::from_le_bytes(w)));
            p.stats.reads += 1;
            p.stats.max_outstanding = p.stats.max_outstanding.max(p.queue.len());
        }
        Ok(true)
    }

    /// Reads of `sm` accepted and not yet answered.
    pub fn outstanding(&self, sm: u32) -> usize {
        self.ports[sm as usize].queue.len()
    }

    pub fn port_stats(&self, sm: u32) -> &PortStats {
        &self.ports[sm as usize].stats
    }

    /// Global memory from `GMEM_BASE`.
    pub fn global_memory(&self) -> &[u8] {
        &self.gmem
    }

    pub fn into_global_memory(self) -> Vec<u8> {
        self.gmem
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rd(addr: u32, size: u8) -> MemRequest {
        MemRequest {
            write: false,
            addr,
            size,
            data: 0,
        }
    }

    fn wr(addr: u32, size: u8, data: u32) -> MemRequest {
        MemRequest {
            write: true,
            addr,
            size,
            data,
        }
    }

    fn mem(settings: &MemorySettings, sms: u32) -> MemoryModel {
        let init: Vec<u8> = (0..256u32).map(|i| i as u8).collect();
        MemoryModel::new(settings, sms, init)
    }

    /// Offer `reqs` on SM 0, one per cycle from cycle 0 (retrying while not ready), then run
    /// until every response came back. Returns (cycle accepted, cycle answered, data) per read.
    fn drive(m: &mut MemoryModel, reqs: &[MemRequest]) -> Vec<(u64, u64, u32)> {
        drive_spaced(m, reqs, 1)
    }

    /// [`drive`] with at least `gap` cycles between two acceptances.
    fn drive_spaced(m: &mut MemoryModel, reqs: &[MemRequest], gap: u64) -> Vec<(u64, u64, u32)> {
        let mut accepted = Vec::new();
        let mut answers = Vec::new();
        let mut next = 0;
        let mut cycle = 0;
        let mut allowed = 0;
        while next < reqs.len() || m.outstanding(0) > 0 || m.response(0).is_some() {
            m.begin_cycle(cycle);
            if let Some(d) = m.response(0) {
                answers.push((cycle, d));
            }
            if next < reqs.len() && cycle >= allowed && m.offer(0, reqs[next]).unwrap() {
                if !reqs[next].write {
                    accepted.push(cycle);
                }
                next += 1;
                allowed = cycle + gap;
            }
            cycle += 1;
            assert!(cycle < 100_000);
        }
        // The last response was seen in the final begin_cycle.
        accepted
            .into_iter()
            .zip(answers)
            .map(|(a, (c, d))| (a, c, d))
            .collect()
    }

    #[test]
    fn zero_latency_answers_in_the_next_cycle() {
        let mut m = mem(&MemorySettings::zero(), 1);
        let r = drive(
            &mut m,
            &[rd(GMEM_BASE, 2), rd(GMEM_BASE + 5, 0), rd(GMEM_BASE + 6, 1)],
        );
        assert_eq!(r, vec![(0, 1, 0x0302_0100), (1, 2, 0x05), (2, 3, 0x0706)]);
    }

    #[test]
    fn long_latency_is_exact_and_pipelined() {
        let mut m = mem(&MemorySettings::long(), 1);
        let r = drive(&mut m, &[rd(GMEM_BASE, 2), rd(GMEM_BASE + 4, 2)]);
        assert_eq!(r, vec![(0, 101, 0x0302_0100), (1, 102, 0x0706_0504)]);
    }

    #[test]
    fn writes_are_applied_at_acceptance_and_seen_by_later_reads() {
        let mut m = mem(&MemorySettings::long(), 1);
        let r = drive(
            &mut m,
            &[
                rd(GMEM_BASE + 8, 2),
                wr(GMEM_BASE + 8, 0, 0xaa),
                wr(GMEM_BASE + 10, 1, 0xbbcc),
                rd(GMEM_BASE + 8, 2),
            ],
        );
        assert_eq!(r[0].2, 0x0b0a_0908, "the earlier read sees the old data");
        assert_eq!(r[1].2, 0xbbcc_09aa);
        assert_eq!(&m.global_memory()[8..12], &[0xaa, 0x09, 0xcc, 0xbb]);
        assert_eq!(m.port_stats(0).writes, 2);
        assert_eq!(m.port_stats(0).reads, 2);
    }

    #[test]
    fn random_latency_keeps_order_and_stays_in_range() {
        let s = MemorySettings::random().with_seed(7);
        let mut m = mem(&s, 1);
        let reqs: Vec<_> = (0..200).map(|i| rd(GMEM_BASE + 4 * (i % 64), 2)).collect();
        let r = drive(&mut m, &reqs);
        assert_eq!(r.len(), 200);
        check_order(&r);
        // Back to back, later reads queue behind slow ones; spaced out, every latency shows.
        let mut m = mem(&s, 1);
        let r = drive_spaced(&mut m, &reqs, 60);
        let spread = check_order(&r);
        assert!(spread.len() > 40, "latencies vary: {spread:?}");
        assert_eq!(spread.first(), Some(&2));
        assert_eq!(spread.last(), Some(&51));
    }

    /// Data, order and latency bounds of a run over `rd(4 * (i % 64))`; the set of latencies.
    fn check_order(r: &[(u64, u64, u32)]) -> Vec<u64> {
        let mut last = 0;
        let mut spread = std::collections::BTreeSet::new();
        for (i, &(acc, ans, data)) in r.iter().enumerate() {
            let off = 4 * (i as u32 % 64);
            assert_eq!(
                data,
                u32::from_le_bytes([0, 1, 2, 3].map(|k| (off + k) as u8))
            );
            assert!(ans > last, "in order, one per cycle");
            assert!(ans >= acc + 2, "latency at least 1");
            last = ans;
            spread.insert(ans - acc);
        }
        spread.into_iter().collect()
    }

    #[test]
    fn backpressure_rate_and_determinism() {
        let s = MemorySettings::random().with_seed(3);
        let pattern = |s: &MemorySettings| {
            let mut m = mem(s, 2);
            (0..4000u64)
                .map(|c| {
                    m.begin_cycle(c);
                    (m.ready(0), m.ready(1))
                })
                .collect::<Vec<_>>()
        };
        let a = pattern(&s);
        assert_eq!(a, pattern(&s), "same seed, same pattern");
        assert_ne!(a, pattern(&s.clone().with_seed(4)));
        let low0 = a.iter().filter(|r| !r.0).count() as f64 / a.len() as f64;
        let low1 = a.iter().filter(|r| !r.1).count() as f64 / a.len() as f64;
        assert!((0.27..0.33).contains(&low0), "{low0}");
        assert!((0.27..0.33).contains(&low1), "{low1}");
        assert!(a.iter().any(|r| r.0 != r.1), "SMs draw independently");
        // Zero back-pressure: always ready.
        let z = pattern(&MemorySettings::zero());
        assert!(z.iter().all(|r| r.0 && r.1));
    }

    #[test]
    fn bandwidth_limits_requests_per_window() {
        let s: MemorySettings = "bandwidth=3".parse().unwrap();
        assert_eq!(s.name, "custom");
        let mut m = mem(&s, 1);
        let reqs: Vec<_> = (0..9).map(|_| wr(GMEM_BASE, 2, 1)).collect();
        let mut accepted = Vec::new();
        let mut next = 0;
        for c in 0..64 {
            m.begin_cycle(c);
            if next < reqs.len() && m.offer(0, reqs[next]).unwrap() {
                accepted.push(c);
                next += 1;
            }
        }
        assert_eq!(accepted, vec![0, 1, 2, 16, 17, 18, 32, 33, 34]);
        assert_eq!(m.port_stats(0).stall_cycles, 13 * 2);
    }

    #[test]
    fn protocol_violations_are_reported() {
        let mut m = mem(&MemorySettings::zero(), 1);
        m.begin_cycle(0);
        let e = |m: &mut MemoryModel, r| m.offer(0, r).unwrap_err().why;
        assert!(e(&mut m, rd(GMEM_BASE + 2, 2)).contains("not aligned to 4"));
        assert!(e(&mut m, rd(GMEM_BASE + 256, 0)).contains("outside global memory"));
        assert!(e(&mut m, rd(0x1000_0000, 0)).contains("outside global memory"));
        assert!(e(&mut m, rd(GMEM_BASE, 3)).contains("size 3"));
        assert!(e(&mut m, wr(GMEM_BASE, 0, 0x100)).contains("upper bits must be zero"));
        let full = m.offer(0, wr(GMEM_BASE + 252, 2, 0xffff_ffff));
        assert_eq!(full, Ok(true));
        let msg = m.offer(0, rd(GMEM_BASE + 1, 1)).unwrap_err().to_string();
        assert!(
            msg.starts_with("SM 0 memory port, cycle 0: read size 1 addr 0x80000001"),
            "{msg}"
        );
    }

    #[test]
    fn settings_parse_print_and_serialize() {
        assert_eq!(
            "zero".parse::<MemorySettings>().unwrap(),
            MemorySettings::zero()
        );
        let r: MemorySettings = "random;seed=9".parse().unwrap();
        assert_eq!(r, MemorySettings::random().with_seed(9));
        assert_eq!(
            r.to_string(),
            "random (latency 1..=50, bandwidth unlimited, back-pressure 0.30, seed 9)"
        );
        let c: MemorySettings = "long,latency=20,bandwidth=4".parse().unwrap();
        assert_eq!((c.name.as_str(), c.latency, c.bandwidth), ("long*", 20, 4));
        assert_eq!(
            c.to_string(),
            "long* (latency 20, bandwidth 4 per 16 cycles, back-pressure 0.00, seed 0)"
        );
        for bad in [
            "fast",
            "latency",
            "latency=x",
            "backpressure=1",
            "colour=red",
        ] {
            assert!(bad.parse::<MemorySettings>().is_err(), "{bad}");
        }
        assert!("fast"
            .parse::<MemorySettings>()
            .unwrap_err()
            .to_string()
            .contains("known: zero, long, random"));
        let json = serde_json::to_string(&MemorySettings::random()).unwrap();
        let back: MemorySettings = serde_json::from_str(&json).unwrap();
        assert_eq!(back, MemorySettings::random());
        let partial: MemorySettings = serde_json::from_str(r#"{"latency": 7}"#).unwrap();
        assert_eq!(partial.latency, 7);
    }
}
