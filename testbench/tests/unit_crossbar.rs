//! Unit co-simulation of the crossbar (hdl/src/crossbar.rs) against its reference
//! `warpforge_sim::crossbar::Crossbar` (both written from docs/microarch/crossbar.md).
//!
//! * Every geometry's Verilog passes `verilator --lint-only -Wall` and yosys `synth`.
//! * Random lock-step runs on `tiny` (1 × 1), `small` (2 × 2), 4 SMs × 2 partitions, 3 SMs × 4
//!   partitions (`S` not a power of two: responses naming SM 3 are dropped; on tiny, SM 1) and `fermi`
//!   (4 × 4, 1,024-bit lines): random `valid` on every input port with random fields (also
//!   while not valid: the crossbar must sample them only at a transfer), line numbers from a
//!   few lines so the partitions collide (and sometimes any 32-bit value), random `ready` on
//!   both sides in phases of different densities, rare resets. Every `ready`, `valid` and
//!   grant output is compared every cycle, a valid output's fields while it is valid,
//!   `resp_gnt_part` while `resp_gnt` is high (the page defines them only then). The page's
//!   handshake rule (a valid output holds its fields until its transfer) is checked on the
//!   RTL alone, and the run must have exercised stalls, conflicts and drops.
//! * Directed, with the page's numbers measured on the RTL's ports (and still in lock-step):
//!   the 2-cycle latency of one request and one response for every SM × partition pair; all
//!   SMs streaming to one partition (grants round robin, the measured worst wait of a head =
//!   `S − 1`, transfer to `part_req` ≤ `2S + 1`); all partitions answering one SM (`P − 1`,
//!   `2P + 1`); back-pressure holding both outputs unchanged and filling the queues (the
//!   page's `S = 2` example, cycle by cycle).
//!
//! A failure names the geometry, seed and cycle; `WARPFORGE_SEED` / `WARPFORGE_UNIT_CYCLES`
//! reproduce or lengthen a run (testbench/src/unit.rs).

// The port loops index several per-port arrays in step (inputs, outputs, counts).
#![allow(clippy::needless_range_loop)]

use std::collections::VecDeque;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use warpforge_hdl::crossbar::crossbar_verilog_with;
use warpforge_sim::crossbar::{
    Crossbar, CrossbarInputs, CrossbarOutputs, LineReq, LineResp, PartReq, PartResp, XbarGeometry,
};
use warpforge_testbench::unit::{checked_unit, unit_cycles, unit_seed};
use warpforge_testbench::verilator_model::{LoadedModel, PortId};

const TEST: &str = "cargo test --release -p warpforge-testbench --test unit_crossbar";

/// The geometries: (name, S, P, B).
const TINY: (&str, usize, usize, u32) = ("tiny", 1, 1, 16);
const SMALL: (&str, usize, usize, u32) = ("small", 2, 2, 32);
const S4P2: (&str, usize, usize, u32) = ("s4p2", 4, 2, 16);
const S3P4: (&str, usize, usize, u32) = ("s3p4", 3, 4, 32);
const FERMI: (&str, usize, usize, u32) = ("fermi", 4, 4, 128);

fn port(m: &LoadedModel, name: &str) -> PortId {
    m.port(name)
        .or_else(|_| m.port(&name.replace('$', "__024")))
        .unwrap_or_else(|e| panic!("port {name}: {e}"))
}

/// 32-bit words of a bit vector, bit `k` = `bits[k]`.
fn bool_words(bits: &[bool]) -> Vec<u32> {
    let mut w = vec![0u32; bits.len().div_ceil(32)];
    for (k, &b) in bits.iter().enumerate() {
        w[k / 32] |= u32::from(b) << (k % 32);
    }
    w
}

/// 32-bit words of a byte vector, byte `k` in bits `8k+7 … 8k`.
fn byte_words(bytes: &[u8]) -> Vec<u32> {
    let mut w = vec![0u32; bytes.len().div_ceil(4)];
    for (k, &b) in bytes.iter().enumerate() {
        w[k / 4] |= u32::from(b) << (8 * (k % 4));
    }
    w
}

struct SmPorts {
    req_valid: PortId,
    req_ready: PortId,
    req_write: PortId,
    req_line: PortId,
    req_mask: PortId,
    req_data: PortId,
    req_id: PortId,
    resp_valid: PortId,
    resp_ready: PortId,
    resp_write: PortId,
    resp_id: PortId,
    resp_data: PortId,
    gnt: PortId,
    gnt_part: PortId,
}

struct PartPorts {
    req_valid: PortId,
    req_ready: PortId,
    req_sm: PortId,
    req_write: PortId,
    req_line: PortId,
    req_mask: PortId,
    req_data: PortId,
    req_id: PortId,
    resp_valid: PortId,
    resp_ready: PortId,
    resp_sm: PortId,
    resp_write: PortId,
    resp_id: PortId,
    resp_data: PortId,
    gnt: PortId,
}

/// The Verilated unit of one geometry, stepped in lock-step with the reference.
struct Dut {
    m: LoadedModel,
    g: XbarGeometry,
    name: String,
    clock: PortId,
    reset: PortId,
    sm: Vec<SmPorts>,
    part: Vec<PartPorts>,
    xb: Crossbar,
    cycle: u64,
    /// Context of a failure (seed, test).
    ctx: String,
}

impl Dut {
    /// Generate, lint, check in yosys and build the unit of one geometry.
    fn new((name, s, p, b): (&str, usize, usize, u32), ctx: &str) -> Dut {
        let top = format!("crossbar_{name}");
        let verilog = crossbar_verilog_with(s, p, b, &top).unwrap_or_else(|e| panic!("{e}"));
        // Lint and yosys once per geometry and process.
        let m = checked_unit(&top, &verilog);
        let q = |n: &str, i: usize| port(&m, &format!("{n}${i}"));
        let sm = (0..s)
            .map(|i| SmPorts {
                req_valid: q("sm_req_valid", i),
                req_ready: q("sm_req_ready", i),
                req_write: q("sm_req_write", i),
                req_line: q("sm_req_line", i),
                req_mask: q("sm_req_mask", i),
                req_data: q("sm_req_data", i),
                req_id: q("sm_req_id", i),
                resp_valid: q("sm_resp_valid", i),
                resp_ready: q("sm_resp_ready", i),
                resp_write: q("sm_resp_write", i),
                resp_id: q("sm_resp_id", i),
                resp_data: q("sm_resp_data", i),
                gnt: q("resp_gnt", i),
                gnt_part: q("resp_gnt_part", i),
            })
            .collect();
        let part = (0..p)
            .map(|i| PartPorts {
                req_valid: q("part_req_valid", i),
                req_ready: q("part_req_ready", i),
                req_sm: q("part_req_sm", i),
                req_write: q("part_req_write", i),
                req_line: q("part_req_line", i),
                req_mask: q("part_req_mask", i),
                req_data: q("part_req_data", i),
                req_id: q("part_req_id", i),
                resp_valid: q("part_resp_valid", i),
                resp_ready: q("part_resp_ready", i),
                resp_sm: q("part_resp_sm", i),
                resp_write: q("part_resp_write", i),
                resp_id: q("part_resp_id", i),
                resp_data: q("part_resp_data", i),
                gnt: q("req_gnt", i),
            })
            .collect();
        let g = XbarGeometry::with(s, p, b);
        let mut d = Dut {
            clock: port(&m, "clock"),
            reset: port(&m, "reset"),
            m,
            g,
            name: name.to_string(),
            sm,
            part,
            xb: Crossbar::with_geometry(g),
            cycle: 0,
            ctx: ctx.to_string(),
        };
        // The power-on state is not the reset state: one reset cycle first.
        let mut inp = CrossbarInputs::idle(&g);
        inp.reset = true;
        d.step(&inp, None, None);
        d
    }

    fn words(&self, p: PortId) -> Vec<u32> {
        let mut w = vec![0; self.m.port_info(p).words()];
        self.m.get_words(p, &mut w);
        w
    }

    fn bools(&self, p: PortId, n: usize) -> Vec<bool> {
        let w = self.words(p);
        (0..n).map(|k| w[k / 32] >> (k % 32) & 1 == 1).collect()
    }

    fn bytes(&self, p: PortId, n: usize) -> Vec<u8> {
        let w = self.words(p);
        (0..n).map(|k| (w[k / 4] >> (8 * (k % 4))) as u8).collect()
    }

    /// Drive one cycle's inputs. `junk_req[s]` / `junk_resp[p]`: the fields driven while the
    /// port is not valid (the crossbar must not look at them).
    fn drive(
        &mut self,
        inp: &CrossbarInputs,
        junk_req: Option<&[LineReq]>,
        junk_resp: Option<&[PartResp]>,
    ) {
        let b = self.g.line_bytes as usize;
        self.m.set(self.reset, u64::from(inp.reset));
        for s in 0..self.g.sms {
            let offered = inp.sm_req.get(s).cloned().flatten();
            let r = offered
                .clone()
                .or_else(|| junk_req.map(|j| j[s].clone()))
                .unwrap_or_default();
            let sp = &self.sm[s];
            let (valid, write, line, id) = (sp.req_valid, sp.req_write, sp.req_line, sp.req_id);
            let (mask, data, ready) = (sp.req_mask, sp.req_data, sp.resp_ready);
            self.m.set(valid, u64::from(offered.is_some()));
            self.m.set(write, u64::from(r.write));
            self.m.set(line, u64::from(r.line));
            let mut mk = r.mask.clone();
            mk.resize(b, false);
            let mut dt = r.data.clone();
            dt.resize(b, 0);
            self.m.set_words(mask, &bool_words(&mk));
            self.m.set_words(data, &byte_words(&dt));
            self.m.set(id, u64::from(r.id));
            let rdy = inp.sm_resp_ready.get(s).copied().unwrap_or(false);
            self.m.set(ready, u64::from(rdy));
        }
        for p in 0..self.g.partitions {
            let offered = inp.part_resp.get(p).cloned().flatten();
            let r = offered
                .clone()
                .or_else(|| junk_resp.map(|j| j[p].clone()))
                .unwrap_or_default();
            let pp = &self.part[p];
            let (valid, sm, write, id, data) = (
                pp.resp_valid,
                pp.resp_sm,
                pp.resp_write,
                pp.resp_id,
                pp.resp_data,
            );
            let ready = pp.req_ready;
            self.m.set(valid, u64::from(offered.is_some()));
            self.m.set(sm, r.sm as u64);
            self.m.set(write, u64::from(r.resp.write));
            self.m.set(id, u64::from(r.resp.id));
            let mut dt = r.resp.data.clone();
            dt.resize(b, 0);
            self.m.set_words(data, &byte_words(&dt));
            let rdy = inp.part_req_ready.get(p).copied().unwrap_or(false);
            self.m.set(ready, u64::from(rdy));
        }
        self.m.eval();
    }

    /// The RTL's outputs of this cycle, fields only where the page defines them.
    fn read(&self) -> CrossbarOutputs {
        let b = self.g.line_bytes as usize;
        let on = |p: PortId| self.m.get(p) != 0;
        CrossbarOutputs {
            sm_req_ready: self.sm.iter().map(|sp| on(sp.req_ready)).collect(),
            sm_resp: self
                .sm
                .iter()
                .map(|sp| {
                    on(sp.resp_valid).then(|| LineResp {
                        write: on(sp.resp_write),
                        id: self.m.get(sp.resp_id) as u16,
                        data: self.bytes(sp.resp_data, b),
                    })
                })
                .collect(),
            part_req: self
                .part
                .iter()
                .map(|pp| {
                    on(pp.req_valid).then(|| PartReq {
                        sm: self.m.get(pp.req_sm) as usize,
                        req: LineReq {
                            write: on(pp.req_write),
                            line: self.m.get(pp.req_line) as u32,
                            mask: self.bools(pp.req_mask, b),
                            data: self.bytes(pp.req_data, b),
                            id: self.m.get(pp.req_id) as u16,
                        },
                    })
                })
                .collect(),
            part_resp_ready: self.part.iter().map(|pp| on(pp.resp_ready)).collect(),
            req_gnt: self.part.iter().map(|pp| on(pp.gnt)).collect(),
            resp_gnt: self
                .sm
                .iter()
                .map(|sp| on(sp.gnt).then(|| self.m.get(sp.gnt_part) as usize))
                .collect(),
        }
    }

    /// One cycle in lock-step: drive, compare every output with the reference, clock edge.
    /// Returns the RTL's outputs of the cycle.
    fn step(
        &mut self,
        inp: &CrossbarInputs,
        junk_req: Option<&[LineReq]>,
        junk_resp: Option<&[PartResp]>,
    ) -> CrossbarOutputs {
        self.drive(inp, junk_req, junk_resp);
        let got = self.read();
        let want = self.xb.step(inp);
        if got != want {
            panic!(
                "{}: RTL and reference differ in cycle {} ({}); reproduce with `{TEST}`\n{}",
                self.name,
                self.cycle,
                self.ctx,
                diff(&got, &want)
            );
        }
        self.m.tick(self.clock);
        self.cycle += 1;
        got
    }
}

/// The differing output fields, one per line.
fn diff(got: &CrossbarOutputs, want: &CrossbarOutputs) -> String {
    let mut t = String::new();
    let mut field = |name: String, g: String, w: String| {
        if g != w {
            t.push_str(&format!("  {name}: RTL {g}, reference {w}\n"));
        }
    };
    for s in 0..want.sm_req_ready.len() {
        field(
            format!("sm_req_ready${s}"),
            format!("{:?}", got.sm_req_ready[s]),
            format!("{:?}", want.sm_req_ready[s]),
        );
        field(
            format!("sm_resp${s}"),
            format!("{:x?}", got.sm_resp[s]),
            format!("{:x?}", want.sm_resp[s]),
        );
        field(
            format!("resp_gnt${s}"),
            format!("{:?}", got.resp_gnt[s]),
            format!("{:?}", want.resp_gnt[s]),
        );
    }
    for p in 0..want.part_req.len() {
        field(
            format!("part_req${p}"),
            format!("{:x?}", got.part_req[p]),
            format!("{:x?}", want.part_req[p]),
        );
        field(
            format!("part_resp_ready${p}"),
            format!("{:?}", got.part_resp_ready[p]),
            format!("{:?}", want.part_resp_ready[p]),
        );
        field(
            format!("req_gnt${p}"),
            format!("{:?}", got.req_gnt[p]),
            format!("{:?}", want.req_gnt[p]),
        );
    }
    t
}

fn random_req(rng: &mut ChaCha8Rng, g: &XbarGeometry) -> LineReq {
    let b = g.line_bytes as usize;
    // A few lines, so every partition is asked for by several SMs; sometimes any line
    // (bits above LW do not exist on the port).
    let line = if rng.gen_bool(0.1) {
        rng.gen::<u32>()
    } else {
        rng.gen_range(0..4 * g.partitions as u32) | (rng.gen_range(0..4u32) << 20)
    };
    LineReq {
        write: rng.gen(),
        line: line & g.line_mask(),
        mask: (0..b).map(|_| rng.gen()).collect(),
        data: (0..b).map(|_| rng.gen()).collect(),
        id: rng.gen(),
    }
}

fn random_resp(rng: &mut ChaCha8Rng, g: &XbarGeometry) -> PartResp {
    let b = g.line_bytes as usize;
    PartResp {
        // Any SW-bit index: for S not a power of two, some name no SM and are dropped.
        sm: rng.gen_range(0..1usize << g.sm_bits()),
        resp: LineResp {
            write: rng.gen(),
            id: rng.gen(),
            data: (0..b).map(|_| rng.gen()).collect(),
        },
    }
}

/// Random lock-step run of one geometry.
fn random_run(geom: (&str, usize, usize, u32), cycles: u64) {
    let seed = unit_seed(&format!("unit_crossbar_random_{}", geom.0));
    let mut dut = Dut::new(geom, &format!("seed {seed}, WARPFORGE_SEED={seed}"));
    let g = dut.g;
    let (ns, np) = (g.sms, g.partitions);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let densities = [0.0, 0.2, 0.5, 0.8, 1.0];
    let mut dens = [1.0; 4];
    let mut prev: Option<(CrossbarInputs, CrossbarOutputs)> = None;
    let mut held = 0u64;
    for c in 0..cycles {
        if c % 150 == 0 {
            for d in &mut dens {
                *d = densities[rng.gen_range(0..densities.len())];
            }
        }
        let [req_v, preq_rdy, resp_v, sresp_rdy] = dens;
        let junk_req: Vec<LineReq> = (0..ns).map(|_| random_req(&mut rng, &g)).collect();
        let junk_resp: Vec<PartResp> = (0..np).map(|_| random_resp(&mut rng, &g)).collect();
        let inp = CrossbarInputs {
            reset: rng.gen_bool(0.002),
            sm_req: (0..ns)
                .map(|_| rng.gen_bool(req_v).then(|| random_req(&mut rng, &g)))
                .collect(),
            sm_resp_ready: (0..ns).map(|_| rng.gen_bool(sresp_rdy)).collect(),
            part_req_ready: (0..np).map(|_| rng.gen_bool(preq_rdy)).collect(),
            part_resp: (0..np)
                .map(|_| rng.gen_bool(resp_v).then(|| random_resp(&mut rng, &g)))
                .collect(),
        };
        let out = dut.step(&inp, Some(&junk_req), Some(&junk_resp));
        // Handshake rule on the RTL alone: a valid output not taken holds every field.
        if let Some((pi, po)) = &prev {
            if !inp.reset && !pi.reset {
                for p in 0..np {
                    if po.part_req[p].is_some() && !pi.part_req_ready[p] {
                        assert_eq!(
                            out.part_req[p], po.part_req[p],
                            "{}: part_req${p} changed before its transfer, cycle {}",
                            dut.name, dut.cycle
                        );
                        held += 1;
                    }
                }
                for s in 0..ns {
                    if po.sm_resp[s].is_some() && !pi.sm_resp_ready[s] {
                        assert_eq!(
                            out.sm_resp[s], po.sm_resp[s],
                            "{}: sm_resp${s} changed before its transfer, cycle {}",
                            dut.name, dut.cycle
                        );
                        held += 1;
                    }
                }
            }
        }
        prev = Some((inp, out));
    }
    // The run exercised what it is meant to.
    let st = dut.xb.stats().clone();
    let sum = |v: &[u64]| v.iter().sum::<u64>();
    let name = &dut.name;
    let preq: u64 = st.part_req.iter().map(|c| c.transfers).sum();
    let sresp: u64 = st.sm_resp.iter().map(|c| c.transfers).sum();
    assert!(preq > cycles / 10, "{name}: only {preq} requests delivered");
    assert!(
        sresp > cycles / 10,
        "{name}: only {sresp} responses delivered"
    );
    assert!(held > 100, "{name}: only {held} held outputs");
    assert!(
        st.sm_req.iter().all(|c| c.stalls > 0),
        "{name}: an SM never stalled"
    );
    assert!(
        st.part_resp.iter().all(|c| c.stalls > 0),
        "{name}: a partition never stalled"
    );
    if ns > 1 {
        assert!(sum(&st.req_conflicts) > 0, "{name}: no request conflict");
        assert!(st.max_req_wait >= 1, "{name}: no request waited");
    }
    if np > 1 {
        assert!(sum(&st.resp_conflicts) > 0, "{name}: no response conflict");
        assert!(st.max_resp_wait >= 1, "{name}: no response waited");
    }
    // An SW-bit index can name no SM when 2^SW > S (S not a power of two, or S = 1: SW = 1).
    if 1 << g.sm_bits() > ns {
        assert!(sum(&st.dropped) > 0, "{name}: no response dropped");
    } else {
        assert_eq!(sum(&st.dropped), 0, "{name}: a response dropped");
    }
}

#[test]
fn random_tiny() {
    random_run(TINY, unit_cycles());
}

#[test]
fn random_small() {
    random_run(SMALL, unit_cycles());
}

#[test]
fn random_4_sms_2_partitions() {
    random_run(S4P2, unit_cycles());
}

#[test]
fn random_3_sms_4_partitions() {
    random_run(S3P4, unit_cycles());
}

#[test]
fn random_fermi() {
    random_run(FERMI, unit_cycles() / 4);
}

/// A request of SM `s` for line `line` with an id naming it.
fn req(g: &XbarGeometry, line: u32, id: u16) -> LineReq {
    let b = g.line_bytes as usize;
    LineReq {
        write: id & 1 == 1,
        line,
        mask: (0..b)
            .map(|k| !(k + id as usize).is_multiple_of(3))
            .collect(),
        data: (0..b).map(|k| (k as u16 * 7 + id) as u8).collect(),
        id,
    }
}

fn resp(g: &XbarGeometry, sm: usize, id: u16) -> PartResp {
    let b = g.line_bytes as usize;
    PartResp {
        sm,
        resp: LineResp {
            write: id & 1 == 0,
            id,
            data: (0..b).map(|k| (k as u16 * 5 + id) as u8).collect(),
        },
    }
}

/// No contention: one request and one response, every SM × partition pair: shown 2 cycles
/// after the transfer, with the grant outputs, gone after the partition / SM takes it.
#[test]
fn latency_is_two_cycles_each_way() {
    for geom in [TINY, SMALL, S4P2, S3P4] {
        let mut dut = Dut::new(geom, "latency");
        let g = dut.g;
        for s in 0..g.sms {
            for p in 0..g.partitions {
                let ctx = format!("{} SM {s} partition {p}", geom.0);
                let mut inp = CrossbarInputs::idle(&g);
                inp.reset = true;
                dut.step(&inp, None, None);
                let line = p as u32 + g.partitions as u32 * (7 + s as u32);
                let id = (s * 64 + p) as u16 + 0x100;
                let mut inp = CrossbarInputs::idle(&g);
                inp.sm_req[s] = Some(req(&g, line, id));
                inp.part_resp[p] = Some(resp(&g, s, id ^ 0x8000));
                // Cycle t: the transfers.
                let o = dut.step(&inp, None, None);
                assert!(o.sm_req_ready[s] && o.part_resp_ready[p], "{ctx}: t ready");
                let idle = CrossbarInputs::idle(&g);
                // t + 1: granted, nothing shown yet.
                let o = dut.step(&idle, None, None);
                assert!(
                    o.part_req[p].is_none() && !o.req_gnt[p],
                    "{ctx}: t+1 request"
                );
                assert!(
                    o.sm_resp[s].is_none() && o.resp_gnt[s].is_none(),
                    "{ctx}: t+1 resp"
                );
                // t + 2: shown, with the grant outputs.
                let o = dut.step(&idle, None, None);
                let r = o.part_req[p]
                    .as_ref()
                    .unwrap_or_else(|| panic!("{ctx}: t+2 request"));
                assert_eq!((r.sm, r.req.line, r.req.id), (s, line, id), "{ctx}");
                assert!(o.req_gnt[p], "{ctx}: req_gnt");
                let a = o.sm_resp[s]
                    .as_ref()
                    .unwrap_or_else(|| panic!("{ctx}: t+2 resp"));
                assert_eq!(a.id, id ^ 0x8000, "{ctx}");
                assert_eq!(o.resp_gnt[s], Some(p), "{ctx}: resp_gnt_part");
                // t + 3: taken in t + 2.
                let o = dut.step(&idle, None, None);
                assert!(
                    o.part_req[p].is_none() && o.sm_resp[s].is_none(),
                    "{ctx}: t+3"
                );
            }
        }
    }
}

/// Every SM streams to partition 0 (requests) / every partition streams to SM 0 (responses),
/// consumers always ready: grants in round robin, one per cycle, and the worst wait of a head
/// measured on the ports is exactly the page's bound `N − 1`; transfer to output ≤ `2N + 1`.
#[test]
fn full_contention_is_served_within_the_bound() {
    for geom in [SMALL, S4P2, S3P4] {
        let mut dut = Dut::new(geom, "full contention");
        let g = dut.g;
        let (ns, np) = (g.sms, g.partitions);
        // ---- requests: all SMs to partition 0 ----
        let mut sent: Vec<VecDeque<u64>> = vec![VecDeque::new(); ns];
        let mut last_grant: Vec<Option<u64>> = vec![None; ns];
        let (mut worst_wait, mut worst_latency, mut grants) = (0u64, 0u64, 0usize);
        let t = dut.cycle;
        let mut n = vec![0u32; ns];
        for _ in 0..20 * ns {
            let c = dut.cycle;
            let mut inp = CrossbarInputs::idle(&g);
            for s in 0..ns {
                inp.sm_req[s] = Some(req(&g, np as u32 * n[s], s as u16));
            }
            let o = dut.step(&inp, None, None);
            for s in 0..ns {
                if o.sm_req_ready[s] {
                    sent[s].push_back(c);
                    n[s] += 1;
                }
            }
            if c > t + 1 {
                // From t + 2 on: one grant every cycle, SMs 0, 1, …, S−1, 0, …
                let r = o.part_req[0].as_ref();
                assert!(o.req_gnt[0], "{}: a gap in the grants, cycle {c}", geom.0);
                let sm = r.map(|r| r.sm);
                assert_eq!(
                    sm,
                    Some(grants % ns),
                    "{}: grant {grants} in cycle {c}",
                    geom.0
                );
            }
            if let Some(r) = &o.part_req[0] {
                if o.req_gnt[0] {
                    let gc = c - 1;
                    let x = sent[r.sm].pop_front().expect("a request that was sent");
                    let head = (x + 1).max(last_grant[r.sm].map_or(0, |l| l + 1));
                    worst_wait = worst_wait.max(gc - head);
                    worst_latency = worst_latency.max(c - x);
                    last_grant[r.sm] = Some(gc);
                    grants += 1;
                }
            }
        }
        let name = geom.0;
        assert!(grants >= 19 * ns, "{name}: {grants} grants");
        assert_eq!(worst_wait, ns as u64 - 1, "{name}: worst request wait");
        assert!(
            worst_latency <= 2 * ns as u64 + 1,
            "{name}: latency {worst_latency}"
        );
        assert_eq!(
            dut.xb.stats().max_req_wait,
            ns as u64 - 1,
            "{name}: reference"
        );

        // ---- responses: all partitions to SM 0 ----
        let mut inp = CrossbarInputs::idle(&g);
        inp.reset = true;
        dut.step(&inp, None, None);
        let mut sent: Vec<VecDeque<u64>> = vec![VecDeque::new(); np];
        let mut last_grant: Vec<Option<u64>> = vec![None; np];
        let (mut worst_wait, mut worst_latency, mut grants) = (0u64, 0u64, 0usize);
        let t = dut.cycle;
        for _ in 0..20 * np {
            let c = dut.cycle;
            let mut inp = CrossbarInputs::idle(&g);
            for p in 0..np {
                inp.part_resp[p] = Some(resp(&g, 0, p as u16));
            }
            let o = dut.step(&inp, None, None);
            for p in 0..np {
                if o.part_resp_ready[p] {
                    sent[p].push_back(c);
                }
            }
            if let Some(part) = o.resp_gnt[0] {
                if c > t + 1 {
                    assert_eq!(part, grants % np, "{name}: response grant {grants}");
                }
                let gc = c - 1;
                let x = sent[part].pop_front().expect("a response that was sent");
                let head = (x + 1).max(last_grant[part].map_or(0, |l| l + 1));
                worst_wait = worst_wait.max(gc - head);
                worst_latency = worst_latency.max(c - x);
                last_grant[part] = Some(gc);
                grants += 1;
            } else if c > t + 1 {
                panic!("{name}: a gap in the response grants, cycle {c}");
            }
        }
        assert!(grants >= 19 * np, "{name}: {grants} response grants");
        assert_eq!(worst_wait, np as u64 - 1, "{name}: worst response wait");
        assert!(
            worst_latency <= 2 * np as u64 + 1,
            "{name}: latency {worst_latency}"
        );
    }
}

/// The page's example: `S = 2`, both SMs stream to partition 0, `part_req_ready = 0` in
/// `t … t+7`: SM 0's first request shown `t+2 … t+8` unchanged and taken in `t+8`; accepted
/// SM 0 `t, t+1, t+2`, SM 1 `t, t+1`; the next shown is SM 1's first. Likewise an SM not
/// taking responses: `sm_resp` holds, the partitions' queues fill.
#[test]
fn back_pressure_holds_the_payload() {
    let mut dut = Dut::new(SMALL, "back-pressure");
    let g = dut.g;
    let t = dut.cycle;
    let mut accepted: Vec<Vec<u64>> = vec![Vec::new(); 2];
    let mut n = [0u16; 2];
    let mut first: Option<PartReq> = None;
    for _ in 0..12 {
        let c = dut.cycle;
        let mut inp = CrossbarInputs::idle(&g);
        for s in 0..2 {
            inp.sm_req[s] = Some(req(&g, 2 * u32::from(n[s]), (s as u16) << 8 | n[s]));
        }
        inp.part_req_ready[0] = c >= t + 8;
        let o = dut.step(&inp, None, None);
        for s in 0..2 {
            if o.sm_req_ready[s] {
                accepted[s].push(c - t);
                n[s] += 1;
            }
        }
        match c - t {
            0 | 1 => assert!(o.part_req[0].is_none(), "cycle t+{}", c - t),
            2..=8 => {
                let r = o.part_req[0].clone().expect("held request");
                assert_eq!(o.req_gnt[0], c == t + 2, "req_gnt in t+{}", c - t);
                match &first {
                    None => {
                        assert_eq!((r.sm, r.req.id), (0, 0), "SM 0's first");
                        first = Some(r);
                    }
                    Some(f) => assert_eq!(&r, f, "changed while held, t+{}", c - t),
                }
            }
            9 => {
                let r = o.part_req[0].clone().expect("the next request");
                assert_eq!((r.sm, r.req.id), (1, 0x100), "SM 1's first next");
                assert!(o.req_gnt[0]);
            }
            _ => {}
        }
    }
    assert_eq!(&accepted[0][..3], &[0, 1, 2], "SM 0 acceptances");
    assert_eq!(&accepted[1][..2], &[0, 1], "SM 1 acceptances");
    assert!(
        accepted[0].iter().all(|&c| !(3..9).contains(&c)),
        "{:?}",
        accepted[0]
    );
    assert!(
        accepted[1].iter().all(|&c| !(2..9).contains(&c)),
        "{:?}",
        accepted[1]
    );

    // Responses: both partitions send to SM 1, which does not take them for 8 cycles.
    let mut inp = CrossbarInputs::idle(&g);
    inp.reset = true;
    dut.step(&inp, None, None);
    let t = dut.cycle;
    let mut taken = [0u32; 2];
    let mut shown: Option<LineResp> = None;
    for _ in 0..10 {
        let c = dut.cycle;
        let mut inp = CrossbarInputs::idle(&g);
        for p in 0..2 {
            inp.part_resp[p] = Some(resp(&g, 1, (p as u16) << 8 | taken[p] as u16));
        }
        inp.sm_resp_ready[1] = c >= t + 8;
        let o = dut.step(&inp, None, None);
        for p in 0..2 {
            if o.part_resp_ready[p] {
                taken[p] += 1;
            }
        }
        if (2..=8).contains(&(c - t)) {
            let r = o.sm_resp[1].clone().expect("held response");
            assert_eq!(o.resp_gnt[1], (c == t + 2).then_some(0));
            match &shown {
                None => shown = Some(r),
                Some(f) => assert_eq!(&r, f, "response changed while held, t+{}", c - t),
            }
        }
        if c == t + 7 {
            // RQ[0] and RQ[1] full: 2 + 2 queued, one in RO.
            assert!(
                !o.part_resp_ready[0] && !o.part_resp_ready[1],
                "queues full"
            );
            assert_eq!(taken, [3, 2], "responses accepted while the SM is stalled");
        }
    }
}
