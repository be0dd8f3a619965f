//! Unit co-simulation of the memory partition (hdl/src/memory_partition.rs) against its
//! reference `warpforge_sim::memory_partition::MemoryPartition` (both written from
//! docs/microarch/memory_partition.md).
//!
//! * Verilator `--lint-only -Wall` (no warning) and yosys `synth` on every configuration, and
//!   yosys infers the five queue memories (so the queues do not turn into flip-flops unnoticed).
//! * Random lock-step runs on `tiny`, `small`, `fermi` and `s4_p2` (small with 4 SMs and 2
//!   partitions: a 2-bit SM index): random `in_valid` with random requests (garbage on the
//!   `in_*` ports while it is low), a line memory built to the page's memory-port rules
//!   ("The memory port": random `mem_req_ready`, latency and jitter in phases, responses held
//!   until taken, sometimes a response offered with nothing outstanding, which must be refused),
//!   random `out_ready`, rare resets. Every output is compared in every cycle (the payload of
//!   `mem_req_*` and `out_*` while valid, the page defines it only then); in every cycle the
//!   outputs are also read once with other, random inputs before the real ones, and must not
//!   change (no input reaches an output). Independently of the reference: responses come back
//!   in acceptance order with their `sm`, `id`, `write`, loads with the data of a memory written
//!   in acceptance order; a refused memory request is offered again unchanged; `outstanding`
//!   equals the memory's unanswered requests; a monitor of the RTL's ports counts the page's
//!   counters exactly as the reference does.
//! * Directed, with the page's exact cycles ("Examples"): a store then a load (`3 + L`, the
//!   completion, the merged bytes) for `L` = 0, 1, 5, 100; a stream of 30 requests (one per
//!   cycle, `occupancy` 1, `outstanding` `L + 1`); a refusing memory (the queue full, its head
//!   held unchanged); the pending-tag limit at `L = 100`; response back-pressure; a response
//!   with nothing outstanding; reset.
//!
//! A failure names the configuration, the cycle, the field, expected and actual values, and
//! the command that reproduces it (`WARPFORGE_SEED`, `WARPFORGE_UNIT_CYCLES`).

// The port loops index several per-port arrays in step (inputs, outputs, counts).
#![allow(clippy::needless_range_loop)]

use std::collections::VecDeque;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use warpforge_config::GpuConfig;
use warpforge_hdl::memory_partition::memory_partition_verilog;
use warpforge_sim::crossbar::{LineReq, LineResp, PartReq, PartResp, XbarGeometry};
use warpforge_sim::memory_partition::{
    LineStore, MemLineReq, MemoryPartition, PartitionInputs, PartitionOutputs, PartitionParams,
    PartitionStats, PENDING_DEPTH, REQ_QUEUE_DEPTH, RESP_QUEUE_DEPTH,
};
use warpforge_testbench::unit::{
    checked_unit_with, fnv1a, unit_cycles, unit_seed, yosys_memory_count, FNV_OFFSET,
};
use warpforge_testbench::verilator_model::{LoadedModel, PortId};

const TEST: &str = "cargo test --release -p warpforge-testbench --test unit_memory_partition";

/// The configurations: the presets and `s4_p2` (small with `sms = 4`, `partitions = 2`).
fn config(name: &str) -> GpuConfig {
    if name == "s4_p2" {
        let mut cfg = GpuConfig::preset("small").expect("small");
        cfg.sms = 4;
        cfg.partitions = 2;
        return cfg;
    }
    GpuConfig::preset(name).unwrap_or_else(|e| panic!("preset {name}: {e}"))
}

fn port(m: &LoadedModel, name: &str) -> PortId {
    m.port(name).unwrap_or_else(|e| panic!("port {name}: {e}"))
}

fn bytes_to_words(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| c.iter().rev().fold(0u32, |w, &x| w << 8 | u32::from(x)))
        .collect()
}

fn bools_to_words(b: &[bool]) -> Vec<u32> {
    b.chunks(32)
        .map(|c| c.iter().rev().fold(0u32, |w, &x| w << 1 | u32::from(x)))
        .collect()
}

/// The Verilated unit of one configuration and its ports.
struct Dut {
    m: LoadedModel,
    g: XbarGeometry,
    name: String,
    clock: PortId,
    reset: PortId,
    in_valid: PortId,
    in_ready: PortId,
    in_sm: PortId,
    in_write: PortId,
    in_line: PortId,
    in_mask: PortId,
    in_data: PortId,
    in_id: PortId,
    out_valid: PortId,
    out_ready: PortId,
    out_sm: PortId,
    out_write: PortId,
    out_id: PortId,
    out_data: PortId,
    mem_req_valid: PortId,
    mem_req_ready: PortId,
    mem_req_write: PortId,
    mem_req_line: PortId,
    mem_req_mask: PortId,
    mem_req_data: PortId,
    mem_resp_valid: PortId,
    mem_resp_ready: PortId,
    mem_resp_data: PortId,
    occupancy: PortId,
    outstanding: PortId,
}

/// One cycle's inputs, with the values on the ports whose valid is low (garbage for the unit).
#[derive(Clone, Debug)]
struct Stim {
    reset: bool,
    in_valid: bool,
    req: PartReq,
    out_ready: bool,
    mem_req_ready: bool,
    mem_resp_valid: bool,
    mem_resp_data: Vec<u8>,
}

impl Stim {
    fn idle(g: &XbarGeometry) -> Stim {
        let b = g.line_bytes as usize;
        Stim {
            reset: false,
            in_valid: false,
            req: PartReq {
                sm: 0,
                req: LineReq {
                    write: false,
                    line: 0,
                    mask: vec![false; b],
                    data: vec![0; b],
                    id: 0,
                },
            },
            out_ready: false,
            mem_req_ready: false,
            mem_resp_valid: false,
            mem_resp_data: vec![0; b],
        }
    }

    fn model_inputs(&self) -> PartitionInputs {
        PartitionInputs {
            reset: self.reset,
            input: self.in_valid.then(|| self.req.clone()),
            out_ready: self.out_ready,
            mem_req_ready: self.mem_req_ready,
            mem_resp: self.mem_resp_valid.then(|| self.mem_resp_data.clone()),
        }
    }
}

impl Dut {
    /// Generate, lint (`verilator --lint-only -Wall`), check in yosys and build the unit of
    /// configuration `name` ([`config`]).
    fn new(name: &str) -> Dut {
        let cfg = config(name);
        let g = XbarGeometry::new(&cfg);
        let top = format!("memory_partition_{name}");
        let verilog = memory_partition_verilog(&cfg, &top).unwrap_or_else(|e| panic!("{e}"));
        // RQ (tag, body), PT, RB (tag, data): five memories, not flip-flops.
        let m = checked_unit_with(&top, &verilog, || {
            let n = yosys_memory_count(&top, &verilog).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(n, 5, "{top}: memories yosys infers");
        });
        let p = |n: &str| port(&m, n);
        Dut {
            clock: p("clock"),
            reset: p("reset"),
            in_valid: p("in_valid"),
            in_ready: p("in_ready"),
            in_sm: p("in_sm"),
            in_write: p("in_write"),
            in_line: p("in_line"),
            in_mask: p("in_mask"),
            in_data: p("in_data"),
            in_id: p("in_id"),
            out_valid: p("out_valid"),
            out_ready: p("out_ready"),
            out_sm: p("out_sm"),
            out_write: p("out_write"),
            out_id: p("out_id"),
            out_data: p("out_data"),
            mem_req_valid: p("mem_req_valid"),
            mem_req_ready: p("mem_req_ready"),
            mem_req_write: p("mem_req_write"),
            mem_req_line: p("mem_req_line"),
            mem_req_mask: p("mem_req_mask"),
            mem_req_data: p("mem_req_data"),
            mem_resp_valid: p("mem_resp_valid"),
            mem_resp_ready: p("mem_resp_ready"),
            mem_resp_data: p("mem_resp_data"),
            occupancy: p("occupancy"),
            outstanding: p("outstanding"),
            m,
            g,
            name: name.to_string(),
        }
    }

    /// Put `s` on the input ports, evaluate, read the outputs (the edge is [`Dut::tick`]).
    fn drive(&mut self, s: &Stim) -> PartitionOutputs {
        let m = &mut self.m;
        m.set(self.reset, u64::from(s.reset));
        m.set(self.in_valid, u64::from(s.in_valid));
        m.set(self.in_sm, s.req.sm as u64);
        m.set(self.in_write, u64::from(s.req.req.write));
        m.set(self.in_line, u64::from(s.req.req.line));
        m.set_words(self.in_mask, &bools_to_words(&s.req.req.mask));
        m.set_words(self.in_data, &bytes_to_words(&s.req.req.data));
        m.set(self.in_id, u64::from(s.req.req.id));
        m.set(self.out_ready, u64::from(s.out_ready));
        m.set(self.mem_req_ready, u64::from(s.mem_req_ready));
        m.set(self.mem_resp_valid, u64::from(s.mem_resp_valid));
        m.set_words(self.mem_resp_data, &bytes_to_words(&s.mem_resp_data));
        m.eval();
        self.read()
    }

    fn bytes(&self, p: PortId) -> Vec<u8> {
        let b = self.g.line_bytes as usize;
        let mut w = vec![0u32; b / 4];
        self.m.get_words(p, &mut w);
        (0..b).map(|k| (w[k / 4] >> (8 * (k % 4))) as u8).collect()
    }

    fn read(&self) -> PartitionOutputs {
        let m = &self.m;
        let b = self.g.line_bytes as usize;
        let mem_req = (m.get(self.mem_req_valid) != 0).then(|| {
            let mut mask = vec![0u32; b.div_ceil(32)];
            m.get_words(self.mem_req_mask, &mut mask);
            MemLineReq {
                write: m.get(self.mem_req_write) != 0,
                line: m.get(self.mem_req_line) as u32,
                mask: (0..b).map(|k| mask[k / 32] >> (k % 32) & 1 == 1).collect(),
                data: self.bytes(self.mem_req_data),
            }
        });
        let out = (m.get(self.out_valid) != 0).then(|| PartResp {
            sm: m.get(self.out_sm) as usize,
            resp: LineResp {
                write: m.get(self.out_write) != 0,
                id: m.get(self.out_id) as u16,
                data: self.bytes(self.out_data),
            },
        });
        PartitionOutputs {
            in_ready: m.get(self.in_ready) != 0,
            out,
            mem_req,
            mem_resp_ready: m.get(self.mem_resp_ready) != 0,
            occupancy: m.get(self.occupancy) as usize,
            outstanding: m.get(self.outstanding) as usize,
        }
    }

    fn tick(&mut self) {
        self.m.tick(self.clock);
    }
}

/// `items` joined, at most the first 8.
fn first8(items: Vec<String>) -> String {
    let more = items.len().saturating_sub(8);
    let mut t = items.into_iter().take(8).collect::<Vec<_>>().join("; ");
    if more > 0 {
        t.push_str(&format!("; … {more} more"));
    }
    t
}

fn byte_diff(name: &str, w: &[u8], a: &[u8]) -> Option<String> {
    let d: Vec<String> = (0..w.len().max(a.len()))
        .filter(|&k| w.get(k) != a.get(k))
        .map(|k| {
            format!(
                "byte {k}: expected {:02x?}, actual {:02x?}",
                w.get(k),
                a.get(k)
            )
        })
        .collect();
    (!d.is_empty()).then(|| format!("{name}: {}", first8(d)))
}

/// The differences of `got` from `want`, field by field (payloads only while valid).
fn diff(want: &PartitionOutputs, got: &PartitionOutputs) -> Vec<String> {
    let mut d = Vec::new();
    let mut scalar = |name: &str, x: u64, y: u64| {
        if x != y {
            d.push(format!("{name}: expected {x:#x}, actual {y:#x}"));
        }
    };
    scalar("in_ready", want.in_ready.into(), got.in_ready.into());
    scalar(
        "mem_resp_ready",
        want.mem_resp_ready.into(),
        got.mem_resp_ready.into(),
    );
    scalar("occupancy", want.occupancy as u64, got.occupancy as u64);
    scalar(
        "outstanding",
        want.outstanding as u64,
        got.outstanding as u64,
    );
    scalar(
        "mem_req_valid",
        want.mem_req.is_some().into(),
        got.mem_req.is_some().into(),
    );
    scalar(
        "out_valid",
        want.out.is_some().into(),
        got.out.is_some().into(),
    );
    if let (Some(w), Some(a)) = (&want.mem_req, &got.mem_req) {
        scalar("mem_req_write", w.write.into(), a.write.into());
        scalar("mem_req_line", w.line.into(), a.line.into());
        if w.mask != a.mask {
            let bits: Vec<String> = (0..w.mask.len())
                .filter(|&k| w.mask[k] != a.mask[k])
                .map(|k| format!("bit {k}: expected {}", w.mask[k] as u8))
                .collect();
            d.push(format!("mem_req_mask: {}", first8(bits)));
        }
        d.extend(byte_diff("mem_req_data", &w.data, &a.data));
    }
    if let (Some(w), Some(a)) = (&want.out, &got.out) {
        if w.sm != a.sm {
            d.push(format!("out_sm: expected {}, actual {}", w.sm, a.sm));
        }
        if w.resp.write != a.resp.write || w.resp.id != a.resp.id {
            d.push(format!(
                "out_write/out_id: expected {}/{:#x}, actual {}/{:#x}",
                w.resp.write as u8, w.resp.id, a.resp.write as u8, a.resp.id
            ));
        }
        d.extend(byte_diff("out_data", &w.resp.data, &a.resp.data));
    }
    d
}

/// The RTL and the reference in lock-step; every cycle compared.
struct Lockstep {
    dut: Dut,
    model: MemoryPartition,
    /// Cycles since the start (the reset cycles included).
    cycle: u64,
    repro: String,
    /// The page's counters, from a monitor of the RTL's ports.
    seen: PartitionStats,
    history: Vec<String>,
}

impl Lockstep {
    fn new(name: &str, repro: String) -> Lockstep {
        let dut = Dut::new(name);
        let model = MemoryPartition::with_params(PartitionParams::with_geometry(dut.g));
        let mut ls = Lockstep {
            seen: PartitionStats {
                occupancy_cycles: vec![0; REQ_QUEUE_DEPTH + 1],
                outstanding_cycles: vec![0; PENDING_DEPTH + 1],
                ..Default::default()
            },
            model,
            dut,
            cycle: 0,
            repro,
            history: Vec::new(),
        };
        let mut s = Stim::idle(&ls.dut.g);
        s.reset = true;
        ls.step(&s);
        ls
    }

    fn fail(&self, what: &str) -> ! {
        panic!(
            "memory partition `{}`, cycle {}: {what}\nlast cycles (RTL):\n  {}\nreproduce: {}",
            self.dut.name,
            self.cycle,
            self.history.join("\n  "),
            self.repro
        )
    }

    /// One cycle: drive both, compare, count, clock. Returns the (equal) outputs.
    fn step(&mut self, s: &Stim) -> PartitionOutputs {
        let got = self.dut.drive(s);
        let want = self.model.step(&s.model_inputs());
        self.history.push(format!(
            "cycle {}: reset {} in_valid {} out_ready {} mem_req_ready {} mem_resp_valid {} | \
             in_ready {} mem_req_valid {} mem_resp_ready {} out_valid {}{} occupancy {} \
             outstanding {}",
            self.cycle,
            s.reset as u8,
            s.in_valid as u8,
            s.out_ready as u8,
            s.mem_req_ready as u8,
            s.mem_resp_valid as u8,
            got.in_ready as u8,
            got.mem_req.is_some() as u8,
            got.mem_resp_ready as u8,
            got.out.is_some() as u8,
            got.out
                .as_ref()
                .map(|o| format!(
                    " (sm {} write {} id {:#x})",
                    o.sm, o.resp.write as u8, o.resp.id
                ))
                .unwrap_or_default(),
            got.occupancy,
            got.outstanding,
        ));
        if self.history.len() > 10 {
            self.history.remove(0);
        }
        let d = diff(&want, &got);
        if !d.is_empty() {
            self.fail(&d.join("\n"));
        }
        if !s.reset {
            let st = &mut self.seen;
            if s.in_valid {
                if got.in_ready {
                    if s.req.req.write {
                        st.writes += 1;
                    } else {
                        st.reads += 1;
                    }
                } else {
                    st.in_stalls += 1;
                }
            }
            if got.mem_req.is_some() {
                if s.mem_req_ready {
                    st.issued += 1;
                } else {
                    st.mem_req_stalls += 1;
                }
            } else if got.occupancy > 0 && got.outstanding == PENDING_DEPTH {
                st.credit_stalls += 1;
            }
            if s.mem_resp_valid {
                if got.mem_resp_ready {
                    st.mem_responses += 1;
                } else {
                    st.mem_resp_stalls += 1;
                }
            }
            if got.out.is_some() {
                if s.out_ready {
                    st.responses += 1;
                } else {
                    st.out_stalls += 1;
                }
            }
            st.occupancy_cycles[got.occupancy] += 1;
            st.outstanding_cycles[got.outstanding] += 1;
        }
        self.dut.tick();
        self.cycle += 1;
        got
    }
}

/// The initial content of line `n`, byte `k`.
fn initial(n: u32, k: usize) -> u8 {
    (n.wrapping_mul(29) as usize ^ (k * 11 + 3)) as u8
}

/// The memory side as the page's "The memory port" asks: whole lines; a request taken in a
/// cycle with valid and ready, a read sampling the line and a write applying its masked bytes
/// then; one response per request, in order, offered from `c + 1 + latency (+ jitter)` and held
/// until taken, zeros for a write. Checks that a request not taken is offered again unchanged.
struct Memory {
    store: LineStore,
    /// Responses owed: (first cycle offered, data).
    pending: VecDeque<(u64, Vec<u8>)>,
    latency: u64,
    jitter: u64,
    rng: ChaCha8Rng,
    /// Offered while nothing is owed (a protocol error the partition must refuse).
    spurious: Option<Vec<u8>>,
    /// The request refused in the previous cycle.
    refused: Option<MemLineReq>,
    /// Requests taken: (cycle, request).
    taken: Vec<(u64, MemLineReq)>,
    /// Responses taken by the partition: cycles.
    answered: Vec<u64>,
}

impl Memory {
    fn new(g: &XbarGeometry, latency: u64, seed: u64) -> Memory {
        Memory {
            store: LineStore::new(g.line_bytes as usize, initial),
            pending: VecDeque::new(),
            latency,
            jitter: 0,
            rng: ChaCha8Rng::seed_from_u64(seed),
            spurious: None,
            refused: None,
            taken: Vec::new(),
            answered: Vec::new(),
        }
    }

    /// The response offered in cycle `c`.
    fn offer(&self, c: u64) -> Option<Vec<u8>> {
        match self.pending.front() {
            Some((due, data)) => (*due <= c).then(|| data.clone()),
            None => self.spurious.clone(),
        }
    }

    /// End of cycle `c`: the handshakes with the partition's outputs `out`.
    fn end(&mut self, c: u64, s: &Stim, out: &PartitionOutputs) -> Result<(), String> {
        if s.reset {
            // The partitions forget what was outstanding; so does the memory (page).
            self.pending.clear();
            self.refused = None;
            return Ok(());
        }
        if let Some(r) = self.refused.take() {
            if out.mem_req.as_ref() != Some(&r) {
                return Err(format!(
                    "mem_req refused in cycle {} not offered again unchanged: {r:x?} then {:x?}",
                    c - 1,
                    out.mem_req
                ));
            }
        }
        if s.mem_resp_valid && out.mem_resp_ready {
            if self.pending.pop_front().is_none() {
                return Err("a response offered with nothing outstanding was taken".into());
            }
            self.answered.push(c);
        }
        if let Some(r) = &out.mem_req {
            if s.mem_req_ready {
                let data = self.store.perform(r.write, r.line, &r.mask, &r.data);
                let j = if self.jitter > 0 {
                    self.rng.gen_range(0..=self.jitter)
                } else {
                    0
                };
                self.pending.push_back((c + 1 + self.latency + j, data));
                self.taken.push((c, r.clone()));
            } else {
                self.refused = Some(r.clone());
            }
        }
        Ok(())
    }
}

fn fnv(s: &str) -> u64 {
    fnv1a(FNV_OFFSET, s.as_bytes())
}

/// A random request of `g`'s shape on one of a few lines of partition 0 (so that loads see
/// earlier stores), sometimes anywhere.
fn random_req(rng: &mut ChaCha8Rng, g: &XbarGeometry) -> PartReq {
    let b = g.line_bytes as usize;
    let p = g.partitions as u32;
    let line = if rng.gen_bool(0.1) {
        rng.gen::<u32>() & g.line_mask()
    } else {
        (0x8000_0000u32 >> g.offset_bits()) + p * rng.gen_range(0..6)
    };
    let write = rng.gen_bool(0.5);
    let mask: Vec<bool> = match rng.gen_range(0..6) {
        0 => vec![true; b],
        1 => vec![false; b],
        _ => (0..b).map(|_| rng.gen_bool(0.5)).collect(),
    };
    PartReq {
        sm: rng.gen_range(0..1usize << g.sm_bits()),
        req: LineReq {
            write,
            line,
            mask,
            data: (0..b).map(|_| rng.gen()).collect(),
            id: rng.gen(),
        },
    }
}

/// What a response must carry, from the accepted request and a memory written in acceptance
/// order (the partition and the memory are in order end to end).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Expect {
    sm: usize,
    write: bool,
    id: u16,
    data: Vec<u8>,
}

/// `unit_cycles()` random cycles of configuration `name`.
fn random_run(name: &str, test: &str) {
    let seed = unit_seed("unit_memory_partition") ^ fnv(name);
    let cycles = unit_cycles();
    let repro = format!(
        "WARPFORGE_SEED={} WARPFORGE_UNIT_CYCLES={cycles} {TEST} {test} (seed {seed:#x} = that ^ FNV-1a of the configuration)",
        unit_seed("unit_memory_partition")
    );
    let mut ls = Lockstep::new(name, repro);
    let g = ls.dut.g;
    let b = g.line_bytes as usize;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut mem = Memory::new(&g, 0, seed ^ 1);
    // The memory as written in acceptance order (reset: as the real memory is).
    let mut shadow = LineStore::new(b, initial);
    let mut expect: VecDeque<Expect> = VecDeque::new();
    let mut offered = random_req(&mut rng, &g);
    let (mut p_valid, mut p_out, mut p_mem) = (0.7, 0.7, 0.7);
    let mut p_spurious = 0.0;
    let mut resets = 0u64;
    for c in 0..cycles {
        if c % 256 == 0 {
            p_valid = [0.3, 0.8, 1.0][rng.gen_range(0..3)];
            p_out = [0.1, 0.5, 0.9, 1.0][rng.gen_range(0..4)];
            p_mem = [0.3, 0.7, 1.0][rng.gen_range(0..3)];
            mem.latency = [0, 1, 2, 5, 14, 20, 40][rng.gen_range(0..7)];
            mem.jitter = [0, 0, 3][rng.gen_range(0..3)];
            p_spurious = [0.0, 0.0, 0.3][rng.gen_range(0..3)];
        }
        let cyc = ls.cycle;
        mem.spurious = rng
            .gen_bool(p_spurious)
            .then(|| (0..b).map(|_| rng.gen()).collect());
        let resp = mem.offer(cyc);
        let in_valid = rng.gen_bool(p_valid);
        let s = Stim {
            reset: rng.gen_bool(0.002),
            in_valid,
            req: if in_valid || rng.gen_bool(0.5) {
                offered.clone()
            } else {
                random_req(&mut rng, &g)
            },
            out_ready: rng.gen_bool(p_out),
            mem_req_ready: rng.gen_bool(p_mem),
            mem_resp_valid: resp.is_some(),
            mem_resp_data: resp.unwrap_or_else(|| (0..b).map(|_| rng.gen()).collect()),
        };
        resets += u64::from(s.reset);

        // No input reaches an output: the outputs with other, random inputs first.
        let other = Stim {
            reset: s.reset,
            in_valid: rng.gen(),
            req: random_req(&mut rng, &g),
            out_ready: rng.gen(),
            mem_req_ready: rng.gen(),
            mem_resp_valid: rng.gen(),
            mem_resp_data: (0..b).map(|_| rng.gen()).collect(),
        };
        let before = ls.dut.drive(&other);

        let out = ls.step(&s);
        if before != out {
            ls.fail(&format!(
                "outputs changed with the inputs: {}",
                diff(&before, &out).join("; ")
            ));
        }
        if let Err(e) = mem.end(cyc, &s, &out) {
            ls.fail(&e);
        }
        if s.reset {
            expect.clear();
            shadow = mem.store.clone();
        } else {
            if let Some(o) = &out.out {
                if s.out_ready {
                    let want = expect
                        .pop_front()
                        .unwrap_or_else(|| ls.fail("a response with no request accepted"));
                    let got = Expect {
                        sm: o.sm,
                        write: o.resp.write,
                        id: o.resp.id,
                        data: o.resp.data.clone(),
                    };
                    if got != want {
                        ls.fail(&format!(
                            "response out of order or wrong: expected {want:x?}, actual {got:x?}"
                        ));
                    }
                }
            }
            if s.in_valid && out.in_ready {
                let r = &s.req.req;
                let data = shadow.perform(r.write, r.line, &r.mask, &r.data);
                expect.push_back(Expect {
                    sm: s.req.sm,
                    write: r.write,
                    id: r.id,
                    data,
                });
                offered = random_req(&mut rng, &g);
            } else if rng.gen_bool(0.05) {
                offered = random_req(&mut rng, &g);
            }
        }
        // `outstanding` of the next cycle = requests the memory owes after this edge.
        let next = ls.dut.read();
        if !s.reset && next.outstanding != mem.pending.len() {
            ls.fail(&format!(
                "outstanding {} after the edge, the memory owes {}",
                next.outstanding,
                mem.pending.len()
            ));
        }
    }
    let want = ls.model.stats().clone();
    assert_eq!(
        ls.seen, want,
        "memory partition `{name}`: counters of a monitor of the RTL's ports vs the reference's\nreproduce: {}",
        ls.repro
    );
    // The stimulus reached what it is meant to (a short run need not reach the rare ones).
    let (often, short) = (cycles / 200, cycles < 5_000);
    assert!(
        want.reads > often
            && want.writes > often
            && want.in_stalls > often
            && want.mem_req_stalls > often
            && (want.credit_stalls > 0 || short)
            && want.mem_resp_stalls > often
            && want.out_stalls > often
            && (want.max_occupancy() == REQ_QUEUE_DEPTH || short)
            && (want.max_outstanding() == PENDING_DEPTH || short)
            && (resets > 0 || short),
        "memory partition `{name}`: weak stimulus: {want:?}, {resets} resets"
    );
}

#[test]
fn random_lockstep_tiny() {
    random_run("tiny", "random_lockstep_tiny");
}

#[test]
fn random_lockstep_small() {
    random_run("small", "random_lockstep_small");
}

#[test]
fn random_lockstep_s4_p2() {
    random_run("s4_p2", "random_lockstep_s4_p2");
}

#[test]
fn random_lockstep_fermi() {
    random_run("fermi", "random_lockstep_fermi");
}

// ---------------------------------------------------------------------------------------------
// Directed scenarios: the page's "Examples", cycle by cycle.

const CONFIGS: [&str; 3] = ["tiny", "small", "s4_p2"];

/// Request `n` of a scenario: SM `n mod 2^SW`, id `0x100 + n`, a mask and data that name it.
fn req(g: &XbarGeometry, n: usize, line: u32, write: bool) -> PartReq {
    let b = g.line_bytes as usize;
    PartReq {
        sm: n % (1 << g.sm_bits()),
        req: LineReq {
            write,
            line,
            mask: (0..b).map(|k| (k * 3 + n) % 4 != 2).collect(),
            data: (0..b)
                .map(|k| if write { (0x90 + n * 5 + k) as u8 } else { 0 })
                .collect(),
            id: 0x100 + n as u16,
        },
    }
}

/// What a scenario saw, in cycles counted from `t = 0`, the first cycle after its reset.
#[derive(Default, Debug)]
struct Seen {
    /// Cycle each request was accepted.
    accepted: Vec<u64>,
    /// Cycles the memory took a request.
    issued: Vec<u64>,
    /// Cycles the partition took a memory response.
    returned: Vec<u64>,
    /// Responses the crossbar took: (cycle, response).
    taken: Vec<(u64, PartResp)>,
    /// Per cycle: the outputs.
    outs: Vec<PartitionOutputs>,
}

impl Seen {
    fn cycles(&self, f: impl Fn(&PartitionOutputs) -> bool) -> Vec<u64> {
        (0..self.outs.len() as u64)
            .filter(|&c| f(&self.outs[c as usize]))
            .collect()
    }
}

/// Reset, then `cycles` cycles: `reqs` offered in order from cycle 0 (each while `in_ready` is
/// low until accepted), a memory of latency `latency` whose `mem_req_ready` is `mem_ready(c)`,
/// `out_ready(c)`; in lock-step with the reference.
fn scenario(
    ls: &mut Lockstep,
    reqs: &[PartReq],
    latency: u64,
    cycles: u64,
    mem_ready: impl Fn(u64) -> bool,
    out_ready: impl Fn(u64) -> bool,
) -> Seen {
    let g = ls.dut.g;
    let mut s = Stim::idle(&g);
    s.reset = true;
    ls.step(&s);
    let mut mem = Memory::new(&g, latency, 7);
    let base = ls.cycle;
    let mut next = 0;
    let mut seen = Seen::default();
    for t in 0..cycles {
        let resp = mem.offer(ls.cycle);
        let mut s = Stim::idle(&g);
        if let Some(r) = reqs.get(next) {
            s.in_valid = true;
            s.req = r.clone();
        }
        s.out_ready = out_ready(t);
        s.mem_req_ready = mem_ready(t);
        s.mem_resp_valid = resp.is_some();
        if let Some(d) = resp {
            s.mem_resp_data = d;
        }
        let c = ls.cycle;
        let out = ls.step(&s);
        if let Err(e) = mem.end(c, &s, &out) {
            ls.fail(&e);
        }
        if s.in_valid && out.in_ready {
            seen.accepted.push(t);
            next += 1;
        }
        if let Some(o) = &out.out {
            if s.out_ready {
                seen.taken.push((t, o.clone()));
            }
        }
        seen.outs.push(out);
    }
    seen.issued = mem.taken.iter().map(|(c, _)| c - base).collect();
    seen.returned = mem.answered.iter().map(|c| c - base).collect();
    seen
}

fn for_each_config(test: &str, f: impl Fn(&mut Lockstep)) {
    for name in CONFIGS {
        let mut ls = Lockstep::new(name, format!("{TEST} {test} (configuration {name})"));
        f(&mut ls);
    }
}

fn range(a: u64, b: u64) -> Vec<u64> {
    (a..=b).collect()
}

#[test]
fn the_reference_has_the_pages_depths() {
    assert_eq!(
        (REQ_QUEUE_DEPTH, PENDING_DEPTH, RESP_QUEUE_DEPTH),
        (
            warpforge_hdl::memory_partition::REQ_QUEUE_DEPTH,
            warpforge_hdl::memory_partition::PENDING_DEPTH,
            warpforge_hdl::memory_partition::RESP_QUEUE_DEPTH
        )
    );
    assert_eq!(
        (REQ_QUEUE_DEPTH, PENDING_DEPTH, RESP_QUEUE_DEPTH),
        (4, 16, 2)
    );
}

/// A store accepted in 0 is on `mem_req` in 1 and completed on `out` in `3 + L`; a load of the
/// same line accepted in 1 is answered in `4 + L` with the store's bytes merged into the line.
#[test]
fn a_store_then_a_load_take_three_cycles_plus_the_latency() {
    for_each_config(
        "a_store_then_a_load_take_three_cycles_plus_the_latency",
        |ls| {
            let g = ls.dut.g;
            let b = g.line_bytes as usize;
            let name = ls.dut.name.clone();
            let line = (0x8000_1000u32 >> g.offset_bits()) & g.line_mask();
            for l in [0u64, 1, 5, 100] {
                let st = req(&g, 1, line, true);
                let ld = req(&g, 2, line, false);
                let seen = scenario(ls, &[st.clone(), ld.clone()], l, l + 8, |_| true, |_| true);
                assert_eq!(seen.accepted, vec![0, 1], "{name}, L = {l}: accepted");
                assert_eq!(
                    seen.issued,
                    vec![1, 2],
                    "{name}, L = {l}: on mem_req and taken"
                );
                assert_eq!(
                    seen.outs[1].mem_req.as_ref().map(|r| (r.write, r.line)),
                    Some((true, line)),
                    "{name}, L = {l}: the store on mem_req in 1"
                );
                let cycles: Vec<u64> = seen.taken.iter().map(|(c, _)| *c).collect();
                assert_eq!(cycles, vec![3 + l, 4 + l], "{name}, L = {l}: on out");
                let (_, done) = &seen.taken[0];
                assert_eq!(
                    (
                        done.sm,
                        done.resp.write,
                        done.resp.id,
                        done.resp.data.clone()
                    ),
                    (st.sm, true, st.req.id, vec![0; b]),
                    "{name}, L = {l}: the store's completion"
                );
                let (_, load) = &seen.taken[1];
                let merged: Vec<u8> = (0..b)
                    .map(|k| {
                        if st.req.mask[k] {
                            st.req.data[k]
                        } else {
                            initial(line, k)
                        }
                    })
                    .collect();
                assert_eq!(
                    (
                        load.sm,
                        load.resp.write,
                        load.resp.id,
                        load.resp.data.clone()
                    ),
                    (ld.sm, false, ld.req.id, merged),
                    "{name}, L = {l}: the load sees the store"
                );
            }
        },
    );
}

/// 30 requests offered from 0: accepted 0 … 29, taken by the memory 1 … 30, on `out`
/// `3 + L … 32 + L`; `occupancy` 1 and `outstanding` `L + 1` in the steady state; no credit
/// stall.
#[test]
fn a_stream_moves_one_request_per_cycle() {
    for_each_config("a_stream_moves_one_request_per_cycle", |ls| {
        let g = ls.dut.g;
        let name = ls.dut.name.clone();
        let reqs: Vec<PartReq> = (0..30)
            .map(|n| req(&g, n, 0x40 + 2 * n as u32, n % 3 == 0))
            .collect();
        for l in [0u64, 3, 14] {
            let seen = scenario(ls, &reqs, l, 40 + l, |_| true, |_| true);
            assert_eq!(seen.accepted, range(0, 29), "{name}, L = {l}: accepted");
            assert_eq!(seen.issued, range(1, 30), "{name}, L = {l}: issued");
            let cycles: Vec<u64> = seen.taken.iter().map(|(c, _)| *c).collect();
            assert_eq!(cycles, range(3 + l, 32 + l), "{name}, L = {l}: on out");
            let ids: Vec<u16> = seen.taken.iter().map(|(_, r)| r.resp.id).collect();
            assert_eq!(
                ids,
                (0x100..0x100 + 30).collect::<Vec<u16>>(),
                "{name}: order"
            );
            assert_eq!(
                seen.cycles(|o| o.occupancy == 1),
                range(1, 30),
                "{name}, L = {l}: occupancy 1"
            );
            assert_eq!(
                seen.cycles(|o| o.outstanding == l as usize + 1),
                range(l + 2, 31),
                "{name}, L = {l}: outstanding L + 1"
            );
            assert!(
                seen.outs
                    .iter()
                    .all(|o| o.mem_req.is_some() == (o.occupancy > 0)),
                "{name}, L = {l}: a credit stall"
            );
        }
    });
}

/// 8 requests, the memory refusing in 0 … 9: accepted 0 … 3, `in_ready` low 4 … 10 with
/// `occupancy` 4, accepted 11 … 14; the first request on `mem_req` 1 … 10 unchanged, taken in
/// 10, the next five in 11 … 15.
#[test]
fn a_full_queue_refuses_and_holds_its_head() {
    for_each_config("a_full_queue_refuses_and_holds_its_head", |ls| {
        let g = ls.dut.g;
        let name = ls.dut.name.clone();
        let reqs: Vec<PartReq> = (0..8)
            .map(|n| req(&g, n, 0x200 + n as u32, n % 2 == 0))
            .collect();
        let seen = scenario(ls, &reqs, 2, 30, |c| c >= 10, |_| true);
        assert_eq!(
            seen.accepted,
            vec![0, 1, 2, 3, 11, 12, 13, 14],
            "{name}: accepted"
        );
        assert_eq!(
            seen.cycles(|o| !o.in_ready)[..7],
            range(4, 10),
            "{name}: in_ready low"
        );
        assert_eq!(
            seen.cycles(|o| o.occupancy == 4)[..7],
            range(4, 10),
            "{name}: full"
        );
        let head = &reqs[0].req;
        for c in 1..=10 {
            let r = seen.outs[c].mem_req.as_ref();
            assert_eq!(
                r.map(|r| (r.write, r.line, &r.mask, &r.data)),
                Some((head.write, head.line, &head.mask, &head.data)),
                "{name}: the head on mem_req in {c}"
            );
        }
        assert_eq!(
            seen.issued[..6],
            range(10, 15),
            "{name}: taken by the memory"
        );
    });
}

/// The pending-tag limit: a stream at `L = 100` with `K = 16` is taken by the memory in
/// 1 … 16, 103 … 118, 205 … 220, with `mem_req_valid` low (a credit stall) in between.
#[test]
fn pending_tags_bound_the_requests_outstanding() {
    for_each_config("pending_tags_bound_the_requests_outstanding", |ls| {
        let g = ls.dut.g;
        let name = ls.dut.name.clone();
        let reqs: Vec<PartReq> = (0..52)
            .map(|n| req(&g, n, 0x300 + n as u32, n % 5 == 0))
            .collect();
        let seen = scenario(ls, &reqs, 100, 230, |_| true, |_| true);
        let want: Vec<u64> = [1u64, 103, 205].iter().flat_map(|&s| s..s + 16).collect();
        assert_eq!(seen.issued[..48], want, "{name}: issue cycles");
        for c in 17..=102 {
            let o = &seen.outs[c];
            assert!(
                o.mem_req.is_none() && o.outstanding == 16 && o.occupancy > 0,
                "{name}: cycle {c}: a credit stall expected, {o:?}"
            );
        }
        // The first response in 102 frees a tag for 103, not for 102 (credits are registered).
        assert_eq!(seen.returned[0], 102, "{name}: first response");
    });
}

/// 4 loads, `L = 0`, `out_ready` low in 0 … 11: the memory answers from 2; `RB` takes 2 and 3,
/// `mem_resp_ready` low 4 … 12; on `out` from 3, taken 12, 13, 14, 15.
#[test]
fn response_back_pressure_fills_the_buffer_then_holds_the_memory() {
    for_each_config(
        "response_back_pressure_fills_the_buffer_then_holds_the_memory",
        |ls| {
            let g = ls.dut.g;
            let name = ls.dut.name.clone();
            let reqs: Vec<PartReq> = (0..4).map(|n| req(&g, n, 0x20 + n as u32, false)).collect();
            let seen = scenario(ls, &reqs, 0, 20, |_| true, |c| c >= 12);
            assert_eq!(seen.issued, vec![1, 2, 3, 4], "{name}: issued");
            assert_eq!(seen.returned, vec![2, 3, 13, 14], "{name}: responses taken");
            let low: Vec<u64> = seen
                .cycles(|o| !o.mem_resp_ready && o.outstanding > 0)
                .into_iter()
                .collect();
            assert_eq!(low, range(4, 12), "{name}: mem_resp_ready low");
            assert_eq!(
                seen.cycles(|o| o.out.is_some())[0],
                3,
                "{name}: on out from"
            );
            let cycles: Vec<u64> = seen.taken.iter().map(|(c, _)| *c).collect();
            assert_eq!(cycles, vec![12, 13, 14, 15], "{name}: taken");
        },
    );
}

/// A response the memory offers with nothing outstanding is never taken.
#[test]
fn a_response_with_nothing_outstanding_is_refused() {
    for_each_config("a_response_with_nothing_outstanding_is_refused", |ls| {
        let g = ls.dut.g;
        let b = g.line_bytes as usize;
        let mut s = Stim::idle(&g);
        s.reset = true;
        ls.step(&s);
        for c in 0..20u64 {
            let mut s = Stim::idle(&g);
            s.mem_resp_valid = true;
            s.mem_resp_data = vec![c as u8; b];
            s.out_ready = true;
            s.mem_req_ready = true;
            let o = ls.step(&s);
            assert!(
                !o.mem_resp_ready && o.out.is_none() && o.outstanding == 0,
                "{}: cycle {c}: {o:?}",
                ls.dut.name
            );
        }
    });
}

/// Reset wins: with requests in all three queues and a request and a response offered, the
/// reset cycle shows every ready and valid low; afterwards the partition is idle, the memory's
/// late response is refused, and a new request takes `3 + L` again.
#[test]
fn reset_empties_every_queue() {
    for_each_config("reset_empties_every_queue", |ls| {
        let g = ls.dut.g;
        let b = g.line_bytes as usize;
        let name = ls.dut.name.clone();
        // 8 loads, L = 2, out_ready low: RB fills, PT holds some, RQ the rest.
        let reqs: Vec<PartReq> = (0..8).map(|n| req(&g, n, 0x60 + n as u32, false)).collect();
        let seen = scenario(ls, &reqs, 2, 9, |_| true, |_| false);
        let last = seen.outs.last().unwrap().clone();
        assert!(
            last.occupancy > 0 && last.outstanding > 0 && last.out.is_some(),
            "{name}: queues not filled: {last:?}"
        );
        let mut s = Stim::idle(&g);
        s.reset = true;
        s.in_valid = true;
        s.req = req(&g, 9, 0x99, true);
        s.out_ready = true;
        s.mem_req_ready = true;
        s.mem_resp_valid = true;
        s.mem_resp_data = vec![0xee; b];
        let o = ls.step(&s);
        assert!(
            !o.in_ready && o.mem_req.is_none() && !o.mem_resp_ready && o.out.is_none(),
            "{name}: outputs in the reset cycle: {o:?}"
        );
        // The memory still offers a late response: refused; nothing else happens.
        for c in 0..6 {
            let mut s = Stim::idle(&g);
            s.out_ready = true;
            s.mem_req_ready = true;
            s.mem_resp_valid = true;
            s.mem_resp_data = vec![0xee; b];
            let o = ls.step(&s);
            assert!(
                o.in_ready
                    && o.mem_req.is_none()
                    && !o.mem_resp_ready
                    && o.out.is_none()
                    && o.occupancy == 0
                    && o.outstanding == 0,
                "{name}: cycle {c} after reset: {o:?}"
            );
        }
        let seen = scenario(ls, &[req(&g, 3, 0x61, false)], 4, 12, |_| true, |_| true);
        let cycles: Vec<u64> = seen.taken.iter().map(|(c, _)| *c).collect();
        assert_eq!(cycles, vec![7], "{name}: 3 + L after reset");
    });
}
