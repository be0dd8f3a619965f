//! Unit co-simulation of the fetch unit (`hdl/src/fetch.rs`, docs/microarch/fetch.md): the
//! instruction memory with its sidecar, the per-warp fetch PCs and the per-warp I-buffers,
//! against [`FetchRef`], a Rust reference of the page written here.
//!
//! * `fetch_<preset>` (tiny, small; fermi `#[ignore]`d): the generated Verilog passes
//!   `verilator --lint-only -Wall` with no warning and yosys `hierarchy -check; proc; synth`
//!   (with `WARPFORGE_FULL=1`; by default the tiny unit is synthesized as part of the tiny GPU
//!   top by `top_lint.rs`; yosys runs in a thread beside the
//!   co-simulation, since generic `synth` maps the instruction memory to flip-flops and takes
//!   minutes: ~3 min for tiny, ~10 min CPU for fermi); then the whole instruction memory
//!   is loaded and the Verilated unit and the reference run in lock-step on seeded random
//!   stimulus (loads, redirects obeying the unit's precondition, TOS RPCs, pops of valid heads,
//!   rare ignored pops and loads, rare resets), comparing every output on every cycle.
//! * `edge_sizes`: 1, 3 and 64 warps, I-buffers of 1, 3 and 16 entries, the smallest
//!   instruction memory (lint and co-simulation).
//! * Directed: a straight-line block ending at a branch (exact fetch cycles), a block ending
//!   because `pc + 4 == tos_rpc`, an out-of-range fetch at the end of instruction memory, the
//!   round-robin order after reset.
//!
//! Cycles per random test: `WARPFORGE_UNIT_CYCLES` (default 20000). Seed: `WARPFORGE_SEED`
//! (default: fixed per test). A failure names cycle, warp, field, expected and actual values,
//! the inputs of the cycle and the command that reproduces it.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use warpforge_config::GpuConfig;
use warpforge_isa::{
    csr, decode, encode, sidecar_kind, AluOp, BranchOp, CsrOp, Instr, LoadOp, MulDivOp,
    Reconvergence, SimtOp, StoreOp,
};
use warpforge_testbench::unit::{build_unit, lint, unit_cycles, unit_seed, yosys_check};
use warpforge_testbench::verilator_model::{LoadedModel, PortId};

// ---------------------------------------------------------------------------------------------
// The reference (docs/microarch/fetch.md)

/// Opcodes that do not end a fetch block by themselves (LUI, AUIPC, OP, OP-IMM, LOAD, STORE,
/// MISC-MEM, SYSTEM).
const PLAIN: [u32; 8] = [0x37, 0x17, 0x33, 0x13, 0x03, 0x23, 0x0f, 0x73];
/// Opcodes that end a block on purpose: BRANCH, JAL, JALR, custom-0 (SIMT).
const CONTROL: [u32; 4] = [0x63, 0x6f, 0x67, 0x0b];

/// One I-buffer entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
struct Entry {
    pc: u32,
    word: u32,
    recon: u32,
    fault: bool,
    ends: bool,
    /// Issuing it faults: `fault`, or the word is illegal (docs/isa.md), `ecall` or `ebreak`.
    stops: bool,
    /// `head_dec`, the issue fields of `word` in `HEAD_PACKED_ORDER`; compared only for heads
    /// that do not stop (the issue stage uses no other field of those), 0 otherwise.
    dec: u64,
}

/// Inputs of one cycle.
#[derive(Clone, Debug, Default)]
struct Inputs {
    reset: bool,
    /// (word index, word, sidecar).
    load: Option<(u32, u32, u32)>,
    /// Per warp: redirect to this PC.
    redirect: Vec<Option<u32>>,
    tos_rpc: Vec<u32>,
    /// Pop the head of this warp (any 6-bit value).
    pop: Option<u8>,
    /// `read_warp`: the warp whose head PC and sidecar word the read port shows (any 6-bit
    /// value; a warp number ≥ `W` shows nothing checked).
    read: u8,
}

/// Outputs of one cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Outputs {
    heads: Vec<Option<Entry>>,
    /// `ev_fetch` / `ev_fetch_warp`.
    fetch: Option<usize>,
    /// `ev_fetch_warp` while `ev_fetch` is low (must be 0).
    idle_warp: u64,
}

/// The read issued in the previous cycle.
#[derive(Clone, Copy, Debug)]
struct InFlight {
    warp: usize,
    pc: u32,
    fault: bool,
    word: u32,
    recon: u32,
    /// The warp's TOS RPC in the read cycle: the unit compares `pc + 4` with it then.
    tos: u32,
}

/// An I-buffer head as the unit's ports show it: the PC and the whole sidecar word only through
/// the read port (`read`), otherwise PC 0 and, as the sidecar, 1 if it is a conditional branch
/// whose sidecar kind is `AtReturn` and 0 if not (`head_at_return`).
fn seen_through_ports(e: &Entry, read: bool) -> Entry {
    if read {
        *e
    } else {
        Entry {
            pc: 0,
            recon: at_return(e.word, e.recon).into(),
            ..*e
        }
    }
}

/// RV32I's major opcode of the conditional branches (`BRANCH`).
const OPCODE_BRANCH: u32 = 0x63;

/// `head_at_return`: a conditional branch (opcode `BRANCH`, whatever its other fields: the
/// pre-decoder looks at the opcode alone) whose sidecar kind is `AtReturn`
/// (docs/microarch/fetch.md).
fn at_return(word: u32, recon: u32) -> bool {
    word & 0x7f == OPCODE_BRANCH && recon & 3 == sidecar_kind::AT_RETURN
}

/// Whether issuing `word` stops the GPU (docs/isa.md): not an instruction, `ecall`, `ebreak`, a
/// CSR write or a CSR that does not exist.
/// The issue fields of a legal word (docs/microarch/fetch.md, "Pre-decoded bits"), bit `i` the
/// field `HEAD_PACKED_ORDER[i]`: destination written (`rd` ≠ 0), `rs1` and `rs2` read,
/// barrier, branch, result from the ALU / multiplier / divider, to the LSU, control.
fn issue_fields(word: u32) -> u64 {
    let (mut rd, mut rs1, mut rs2, mut bar, mut branch, mut control) =
        (0u8, false, false, false, false, false);
    // 1 ALU, 2 multiplier, 3 divider, 4 LSU.
    let mut unit = 0;
    match decode(word) {
        Ok(Instr::Lui { rd: d, .. } | Instr::Auipc { rd: d, .. }) => (rd, unit) = (d, 1),
        Ok(Instr::Jal { rd: d, .. }) => (rd, unit, control) = (d, 1, true),
        Ok(Instr::Jalr { rd: d, .. }) => (rd, rs1, unit, control) = (d, true, 1, true),
        Ok(Instr::Branch { .. }) => (rs1, rs2, branch, control) = (true, true, true, true),
        Ok(Instr::Load { rd: d, .. }) => (rd, rs1, unit) = (d, true, 4),
        Ok(Instr::Store { .. }) => (rs1, rs2, unit) = (true, true, 4),
        Ok(Instr::OpImm { op, rd: d, .. }) => {
            (rd, rs1, unit) = (d, true, if is_shift(op) { 2 } else { 1 })
        }
        Ok(Instr::Op { op, rd: d, .. }) => {
            (rd, rs1, rs2, unit) = (d, true, true, if is_shift(op) { 2 } else { 1 })
        }
        Ok(Instr::MulDiv { op, rd: d, .. }) => {
            let div = !matches!(
                op,
                MulDivOp::Mul | MulDivOp::Mulh | MulDivOp::Mulhsu | MulDivOp::Mulhu
            );
            (rd, rs1, rs2, unit) = (d, true, true, if div { 3 } else { 2 })
        }
        Ok(Instr::Csr { rd: d, .. }) => (rd, unit) = (d, 1),
        Ok(Instr::Simt { op, .. }) => match op {
            SimtOp::Exit => control = true,
            SimtOp::Bar => bar = true,
            SimtOp::Tmc => (rs1, control) = (true, true),
        },
        Ok(Instr::Fence | Instr::Ecall | Instr::Ebreak) | Err(_) => {}
    }
    let writes = rd != 0;
    [
        writes,
        rs1,
        rs2,
        bar,
        branch,
        writes && unit == 1,
        writes && unit == 2,
        writes && unit == 3,
        unit == 4,
        control,
    ]
    .iter()
    .enumerate()
    .map(|(i, &b)| u64::from(b) << i)
    .sum()
}

fn is_shift(op: AluOp) -> bool {
    matches!(op, AluOp::Sll | AluOp::Srl | AluOp::Sra)
}

/// The `dec` an entry shows: its issue fields unless it stops.
fn dec_unless_stops(stops: bool, dec: u64) -> u64 {
    if stops {
        0
    } else {
        dec
    }
}

fn stops_at_issue(word: u32) -> bool {
    match decode(word) {
        Err(_) | Ok(Instr::Ecall | Instr::Ebreak) => true,
        Ok(Instr::Csr { op, src, csr, .. }) => {
            let writes = match op {
                CsrOp::Rw | CsrOp::Rwi => true,
                CsrOp::Rs | CsrOp::Rc | CsrOp::Rsi | CsrOp::Rci => src != 0,
            };
            writes || csr::name(csr).is_none()
        }
        Ok(_) => false,
    }
}

/// Does the instruction end its fetch block (docs/microarch/sm.md "Fetch blocks")?
fn ends_block(word: u32, fault: bool, pc: u32, tos_rpc: u32) -> bool {
    !PLAIN.contains(&(word & 0x7f)) || fault || pc.wrapping_add(4) == tos_rpc
}

/// The fetch unit, cycle by cycle, written from docs/microarch/fetch.md.
struct FetchRef {
    warps: usize,
    depth: usize,
    imem_bytes: u32,
    words: Vec<u32>,
    recons: Vec<u32>,
    fpc: Vec<u32>,
    enabled: Vec<bool>,
    inflight: Option<InFlight>,
    ibuf: Vec<VecDeque<Entry>>,
    /// The candidate: the warp whose fetch PC is read this cycle if it is still fetching
    /// (chosen at the end of the previous cycle).
    cand: Option<usize>,
    /// The warp chosen last as candidate (round-robin pointer).
    last: usize,
}

impl FetchRef {
    fn new(cfg: &GpuConfig) -> Self {
        let warps = cfg.warps as usize;
        let nwords = (cfg.imem_bytes / 4) as usize;
        FetchRef {
            warps,
            depth: cfg.ibuffer_depth as usize,
            imem_bytes: cfg.imem_bytes,
            words: vec![0; nwords],
            recons: vec![0; nwords],
            fpc: vec![0; warps],
            enabled: vec![false; warps],
            inflight: None,
            ibuf: vec![VecDeque::new(); warps],
            cand: None,
            last: warps - 1,
        }
    }

    fn in_flight(&self, w: usize) -> bool {
        self.inflight.is_some_and(|f| f.warp == w)
    }

    /// The warp fetched in the current state: the candidate, unless it stopped fetching.
    fn choice(&self) -> Option<usize> {
        self.cand.filter(|&w| self.enabled[w])
    }

    /// The next cycle's candidate, from this cycle's state and inputs (docs/microarch/fetch.md,
    /// "Selection"): fetching after the edge ignoring an arriving block end, no read in flight
    /// after the edge, and room counted with this cycle's push and pop.
    fn next_candidate(&self, inp: &Inputs, fetched: Option<usize>) -> Option<usize> {
        if inp.reset {
            return None;
        }
        let redirected = |w: usize| inp.redirect.get(w).copied().flatten().is_some();
        let eligible = |w: usize| {
            let fetching = self.enabled[w] || redirected(w);
            let in_flight_next = fetched == Some(w) && !redirected(w);
            let popped = inp.pop == Some(w as u8) && !self.ibuf[w].is_empty();
            let occupancy =
                self.ibuf[w].len() + usize::from(self.in_flight(w)) - usize::from(popped);
            fetching && !in_flight_next && occupancy < self.depth
        };
        (1..=self.warps)
            .map(|k| (self.last + k) % self.warps)
            .find(|&w| eligible(w))
    }

    /// The outputs of the current state. Only warp `read`'s head shows its PC and sidecar
    /// word (the read port); every other head shows PC 0 and whether it is a branch whose
    /// sidecar's kind is `AtReturn` (`head_at_return`), as [`FetchRtl::cycle`] assembles them.
    fn outputs(&self, read: u8) -> Outputs {
        Outputs {
            heads: self
                .ibuf
                .iter()
                .enumerate()
                .map(|(w, b)| b.front().map(|e| seen_through_ports(e, w == read as usize)))
                .collect(),
            fetch: self.choice(),
            idle_warp: 0,
        }
    }

    /// One cycle: the outputs of the cycle, then the state after its clock edge.
    fn step(&mut self, inp: &Inputs) -> Outputs {
        let out = self.outputs(inp.read);
        let next = self.next_candidate(inp, out.fetch);
        let nwords = self.words.len();
        // Cycle c: the read of the chosen warp (the memory before this cycle's load).
        let read = out.fetch.map(|w| {
            let pc = self.fpc[w];
            let fault = pc >= self.imem_bytes;
            let a = (pc >> 2) as usize & (nwords - 1);
            InFlight {
                warp: w,
                pc,
                fault,
                word: if fault { 0 } else { self.words[a] },
                recon: if fault { 0 } else { self.recons[a] },
                tos: inp.tos_rpc.get(w).copied().unwrap_or(0),
            }
        });
        // Pop (decided on the registered heads).
        let pop = inp
            .pop
            .map(usize::from)
            .filter(|&p| p < self.warps && !self.ibuf[p].is_empty());
        // Cycle c+1 of the previous read: push, advance, maybe stop.
        if let Some(f) = self.inflight.take() {
            let tos = f.tos;
            let e = Entry {
                pc: f.pc,
                word: f.word,
                recon: f.recon,
                fault: f.fault,
                ends: ends_block(f.word, f.fault, f.pc, tos),
                stops: f.fault || stops_at_issue(f.word),
                dec: dec_unless_stops(f.fault || stops_at_issue(f.word), issue_fields(f.word)),
            };
            assert!(
                self.ibuf[f.warp].len() < self.depth,
                "reference: push into a full I-buffer"
            );
            self.ibuf[f.warp].push_back(e);
            self.fpc[f.warp] = f.pc.wrapping_add(4);
            if e.ends {
                self.enabled[f.warp] = false;
            }
        }
        if let Some(p) = pop {
            self.ibuf[p].pop_front();
        }
        for (w, r) in inp.redirect.iter().enumerate().take(self.warps) {
            if let Some(pc) = *r {
                self.fpc[w] = pc;
                self.enabled[w] = true;
            }
        }
        // A redirect of the chosen warp cancels its read.
        self.inflight = read.filter(|r| inp.redirect.get(r.warp).copied().flatten().is_none());
        self.cand = next;
        if let Some(w) = next {
            self.last = w;
        }
        if let Some((a, word, recon)) = inp.load {
            if (a as usize) < nwords {
                self.words[a as usize] = word;
                // A sidecar's PC lies in the text: the unit keeps only the bits below
                // `imem_bytes` (docs/microarch/fetch.md).
                self.recons[a as usize] = recon & (self.imem_bytes - 1);
            }
        }
        if inp.reset {
            self.enabled.fill(false);
            self.inflight = None;
            self.ibuf.iter_mut().for_each(VecDeque::clear);
            self.last = self.warps - 1;
        }
        out
    }
}

// ---------------------------------------------------------------------------------------------
// Generation, lint, synthesis check, build

fn preset(name: &str) -> GpuConfig {
    GpuConfig::preset(name).expect("preset")
}

fn fetch_verilog(cfg: &GpuConfig) -> String {
    warpforge_hdl::fetch::fetch_verilog(cfg, "fetch").unwrap_or_else(|e| panic!("{e}"))
}

/// `verilator --lint-only -Wall` must print nothing.
fn assert_lint_clean(verilog: &str, what: &str) {
    if let Err(e) = lint("fetch", verilog) {
        panic!("verilator --lint-only -Wall on fetch {what}:\n{e}");
    }
}

fn build(verilog: &str, what: &str) -> LoadedModel {
    build_unit("fetch", verilog, false).unwrap_or_else(|e| panic!("building fetch {what}: {e}"))
}

/// Verilator's C++ name of element `i` of a rust-hdl `Vec` port (`name$i`, `$` = `__024`).
fn vport(m: &LoadedModel, name: &str, i: usize) -> PortId {
    m.port(&format!("{name}__024{i}"))
        .unwrap_or_else(|e| panic!("port {name}[{i}]: {e}"))
}

fn vports(m: &LoadedModel, name: &str, n: usize) -> Vec<PortId> {
    (0..n).map(|i| vport(m, name, i)).collect()
}

fn port(m: &LoadedModel, name: &str) -> PortId {
    m.port(name).unwrap_or_else(|e| panic!("port {name}: {e}"))
}

/// The Verilated unit with the reference's input / output types.
struct FetchRtl {
    m: LoadedModel,
    warps: usize,
    clock: PortId,
    reset: PortId,
    load: [PortId; 4],
    redirect: Vec<PortId>,
    redirect_pc: Vec<PortId>,
    tos_rpc: Vec<PortId>,
    head: [Vec<PortId>; 7],
    /// `read_warp`, `read_pc`, `read_recon`.
    read: [PortId; 3],
    pop: PortId,
    pop_warp: PortId,
    ev_fetch: PortId,
    ev_fetch_warp: PortId,
    /// Varies the values put on data ports whose valid is low.
    junk: u64,
}

impl FetchRtl {
    fn new(m: LoadedModel, warps: usize) -> Self {
        FetchRtl {
            clock: port(&m, "clock"),
            reset: port(&m, "reset"),
            load: ["load_valid", "load_addr", "load_word", "load_recon"].map(|n| port(&m, n)),
            redirect: vports(&m, "redirect", warps),
            redirect_pc: vports(&m, "redirect_pc", warps),
            tos_rpc: vports(&m, "tos_rpc", warps),
            head: [
                "head_valid",
                "head_word",
                "head_at_return",
                "head_fault",
                "head_ends",
                "head_stops",
                "head_dec",
            ]
            .map(|n| vports(&m, n, warps)),
            read: ["read_warp", "read_pc", "read_recon"].map(|n| port(&m, n)),
            pop: port(&m, "pop"),
            pop_warp: port(&m, "pop_warp"),
            ev_fetch: port(&m, "ev_fetch"),
            ev_fetch_warp: port(&m, "ev_fetch_warp"),
            junk: 0x1234_5678_9abc_def1,
            warps,
            m,
        }
    }

    fn junk(&mut self) -> u64 {
        self.junk = self
            .junk
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.junk >> 16
    }

    /// One clock cycle: set the inputs, read the outputs, clock edge.
    fn cycle(&mut self, inp: &Inputs) -> Outputs {
        let j: Vec<u64> = (0..3 + 2 * self.warps).map(|_| self.junk()).collect();
        let m = &mut self.m;
        m.set(self.reset, inp.reset.into());
        let (lv, la, lw, lr) = match inp.load {
            Some((a, w, r)) => (1, a.into(), w.into(), r.into()),
            None => (
                0,
                j[0] & 0xffff_ffff,
                j[1] & 0xffff_ffff,
                j[2] & 0xffff_ffff,
            ),
        };
        for (p, v) in self.load.iter().zip([lv, la, lw, lr]) {
            m.set(*p, v);
        }
        for w in 0..self.warps {
            let r = inp.redirect.get(w).copied().flatten();
            m.set(self.redirect[w], r.is_some().into());
            m.set(
                self.redirect_pc[w],
                r.map_or(j[3 + w] & 0xffff_ffff, u64::from),
            );
            let t = inp
                .tos_rpc
                .get(w)
                .copied()
                .unwrap_or(j[3 + self.warps + w] as u32);
            m.set(self.tos_rpc[w], t.into());
        }
        m.set(self.pop, inp.pop.is_some().into());
        m.set(self.pop_warp, inp.pop.map_or(j[0] & 63, u64::from));
        m.set(self.read[0], inp.read.into());
        m.eval();
        let heads = (0..self.warps)
            .map(|w| {
                let read = w == inp.read as usize;
                (m.get(self.head[0][w]) != 0).then(|| Entry {
                    pc: if read { m.get(self.read[1]) as u32 } else { 0 },
                    word: m.get(self.head[1][w]) as u32,
                    recon: if read {
                        let r = m.get(self.read[2]) as u32;
                        assert_eq!(
                            u64::from(at_return(m.get(self.head[1][w]) as u32, r)),
                            m.get(self.head[2][w]),
                            "warp {w}: head_at_return differs from the read port's sidecar word"
                        );
                        r
                    } else {
                        m.get(self.head[2][w]) as u32
                    },
                    fault: m.get(self.head[3][w]) != 0,
                    ends: m.get(self.head[4][w]) != 0,
                    stops: m.get(self.head[5][w]) != 0,
                    dec: dec_unless_stops(m.get(self.head[5][w]) != 0, m.get(self.head[6][w])),
                })
            })
            .collect();
        let ev = m.get(self.ev_fetch) != 0;
        let ev_warp = m.get(self.ev_fetch_warp) as usize;
        m.tick(self.clock);
        Outputs {
            heads,
            fetch: ev.then_some(ev_warp),
            idle_warp: if ev { 0 } else { ev_warp as u64 },
        }
    }
}

fn show(e: &Option<Entry>) -> String {
    match e {
        None => "empty".into(),
        Some(e) => format!(
            "pc={:#x} word={:#010x} recon={:#x} fault={} ends={} stops={} dec={:#05x}",
            e.pc, e.word, e.recon, e.fault as u8, e.ends as u8, e.stops as u8, e.dec
        ),
    }
}

fn diff(rtl: &Outputs, exp: &Outputs) -> Vec<String> {
    let mut d = Vec::new();
    let ev = |f: Option<usize>| f.map_or("none".to_string(), |w| format!("warp {w}"));
    if rtl.fetch != exp.fetch {
        d.push(format!(
            "ev_fetch: expected {}, actual {}",
            ev(exp.fetch),
            ev(rtl.fetch)
        ));
    }
    if rtl.idle_warp != exp.idle_warp {
        d.push(format!(
            "ev_fetch_warp without a fetch: expected {}, actual {}",
            exp.idle_warp, rtl.idle_warp
        ));
    }
    for (w, (a, e)) in rtl.heads.iter().zip(&exp.heads).enumerate() {
        if a != e {
            d.push(format!(
                "warp {w} / head: expected {}, actual {}",
                show(e),
                show(a)
            ));
        }
    }
    d
}

fn describe(inp: &Inputs, r: &FetchRef) -> String {
    let mut s = format!(
        "reset={} load={:x?} pop={:?}; in flight before the cycle: {:x?}\n",
        inp.reset as u8, inp.load, inp.pop, r.inflight
    );
    for w in 0..r.warps {
        s.push_str(&format!(
            "  warp {w}: redirect={:x?} tos_rpc={:#x}; before: fpc={:#x} enabled={} ibuf={}\n",
            inp.redirect.get(w).copied().flatten(),
            inp.tos_rpc.get(w).copied().unwrap_or(0),
            r.fpc[w],
            r.enabled[w] as u8,
            r.ibuf[w].len()
        ));
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Random co-simulation

fn repro(test: &str, seed: u64) -> String {
    format!(
        "WARPFORGE_SEED={seed} cargo test -p warpforge-testbench --test unit_fetch {test} -- --exact"
    )
}

/// A random instruction word: mostly opcodes that continue the block (with random fields, so
/// many are illegal), some control transfers, some illegal opcodes, and the exact words whose
/// `head_stops` matters most: `ecall`, `ebreak`, reads of known CSRs (legal) and of unknown ones.
fn random_word(rng: &mut ChaCha8Rng) -> u32 {
    let rd = rng.gen_range(0..32) << 7;
    match rng.gen_range(0..100) {
        0 => return 0x0000_0073,
        1 => return 0x0010_0073,
        2..=4 => {
            let (num, _) = csr::ALL[rng.gen_range(0..csr::ALL.len())];
            return (u32::from(num) << 20) | (2 << 12) | rd | 0x73;
        }
        5 => return (0xC01 << 20) | (2 << 12) | rd | 0x73,
        _ => {}
    }
    let op = match rng.gen_range(0..100) {
        0..=79 => PLAIN[rng.gen_range(0..PLAIN.len())],
        80..=89 => CONTROL[rng.gen_range(0..CONTROL.len())],
        _ => rng.gen_range(0..128),
    };
    (rng.gen::<u32>() & !0x7f) | op
}

/// Words of the "hot" region where most fetches and loads happen (so that a load and a fetch
/// of the same word in one cycle are frequent).
const HOT_WORDS: u32 = 48;

/// Random stimulus; reads the reference's state to obey the unit's preconditions (redirect only
/// a warp with an empty I-buffer and nothing in flight; pop valid heads, except rare ignored
/// pops).
struct Stimulus {
    rng: ChaCha8Rng,
    warps: usize,
    imem_bytes: u32,
    tos: Vec<u32>,
    pop_rate: f64,
    /// Loads moved off the word fetched in their cycle (the precondition of rule 5).
    collisions_avoided: u64,
}

impl Stimulus {
    fn new(seed: u64, cfg: &GpuConfig) -> Self {
        Stimulus {
            rng: ChaCha8Rng::seed_from_u64(seed),
            warps: cfg.warps as usize,
            imem_bytes: cfg.imem_bytes,
            tos: vec![u32::MAX; cfg.warps as usize],
            pop_rate: 0.5,
            collisions_avoided: 0,
        }
    }

    fn redirect_pc(&mut self) -> u32 {
        let rng = &mut self.rng;
        let top = self.imem_bytes;
        let hot = HOT_WORDS.min(top / 4);
        match rng.gen_range(0..100) {
            0..=59 => 4 * rng.gen_range(0..hot),
            60..=74 => 4 * rng.gen_range(0..top / 4),
            75..=84 => top - 4 * rng.gen_range(1..5),
            85..=89 => top + 4 * rng.gen_range(0..4),
            90..=94 => rng.gen::<u32>() & !3,
            95..=97 => 0u32.wrapping_sub(4 * rng.gen_range(1..3)),
            // Misaligned (the SM never does this; the unit carries the low bits).
            _ => rng.gen_range(0..4 * hot),
        }
    }

    fn next(&mut self, cycle: u64, r: &FetchRef) -> Inputs {
        if cycle.is_multiple_of(128) {
            self.pop_rate = [0.0, 0.2, 0.5, 0.8, 1.0][self.rng.gen_range(0..5)];
        }
        // Redirects (precondition: empty I-buffer, nothing in flight): stopped warps restart
        // often, fetching warps are redirected rarely (their read of this cycle is cancelled).
        let mut redirect = vec![None; self.warps];
        for (w, rd) in redirect.iter_mut().enumerate() {
            if r.ibuf[w].is_empty() && !r.in_flight(w) {
                let p = if r.enabled[w] { 0.02 } else { 0.3 };
                if self.rng.gen_bool(p) {
                    *rd = Some(self.redirect_pc());
                }
            }
        }
        // TOS RPCs: now and then a value that ends the block soon.
        for w in 0..self.warps {
            if self.rng.gen_bool(0.1) {
                self.tos[w] = match self.rng.gen_range(0..4) {
                    0 | 1 => r.fpc[w].wrapping_add(4 * self.rng.gen_range(0..4)),
                    2 => u32::MAX,
                    _ => 4 * self.rng.gen_range(0..HOT_WORDS),
                };
            }
        }
        let rng = &mut self.rng;
        let nwords = self.imem_bytes / 4;
        let load = rng.gen_bool(0.08).then(|| {
            let a = match rng.gen_range(0..10) {
                0..=6 => rng.gen_range(0..HOT_WORDS.min(nwords)),
                7 | 8 => rng.gen_range(0..nwords),
                _ => nwords + rng.gen_range(0..u32::MAX - nwords), // ignored
            };
            (a, random_word(rng), rng.gen())
        });
        // Precondition (docs/microarch/fetch.md, rule 5): no load of the word the fetch reads
        // in the same cycle (its read data is undefined on the FPGA); such a load goes to the
        // next word instead.
        let load = load.map(|(a, w, rc)| match r.choice() {
            Some(f) if r.fpc[f] < self.imem_bytes && a == r.fpc[f] >> 2 => {
                self.collisions_avoided += 1;
                ((a + 1) % nwords, w, rc)
            }
            _ => (a, w, rc),
        });
        let rng = &mut self.rng;
        let valid: Vec<usize> = (0..self.warps).filter(|&w| !r.ibuf[w].is_empty()).collect();
        let pop = if rng.gen_bool(0.02) {
            Some(rng.gen_range(0..64)) // often an empty buffer or no such warp: ignored
        } else if !valid.is_empty() && rng.gen_bool(self.pop_rate) {
            Some(valid[rng.gen_range(0..valid.len())] as u8)
        } else {
            None
        };
        let read = if !valid.is_empty() && rng.gen_bool(0.9) {
            valid[rng.gen_range(0..valid.len())] as u8
        } else {
            rng.gen_range(0..64)
        };
        Inputs {
            reset: rng.gen_bool(0.001),
            load,
            redirect,
            tos_rpc: self.tos.clone(),
            pop,
            read,
        }
    }
}

/// What the random stimulus exercised.
#[derive(Debug, Default)]
struct Coverage {
    fetches: Vec<u64>,
    ends_control: u64,
    ends_illegal: u64,
    ends_tos: u64,
    faults: u64,
    cancelled: u64,
    /// A load and a fetch of the same word in one cycle: must stay 0 (rule 5's precondition).
    read_write_same_word: u64,
    push_pop_same_warp: u64,
    full_warp_cycles: u64,
    ignored_pops: u64,
    ignored_loads: u64,
    resets: u64,
}

/// Co-simulate the fetch unit of `cfg`; `checks` = also lint and yosys-check (yosys in a
/// thread) and require that the stimulus covered every case.
fn cosim(test: &str, cfg: &GpuConfig, lint_it: bool, yosys: bool, checks: bool) {
    let t = Instant::now();
    let verilog = fetch_verilog(cfg);
    let generate = t.elapsed();
    let unit = format!(
        "fetch {} ({} warps, E={}, {} words)",
        cfg.name,
        cfg.warps,
        cfg.ibuffer_depth,
        cfg.imem_bytes / 4
    );
    let yosys_thread = yosys.then(|| {
        let v = verilog.clone();
        std::thread::spawn(move || {
            let t = Instant::now();
            (yosys_check("fetch", &v), t.elapsed())
        })
    });
    let t = Instant::now();
    if lint_it {
        assert_lint_clean(&verilog, &cfg.name);
    }
    let lint_time = t.elapsed();
    let t = Instant::now();
    let mut rtl = FetchRtl::new(build(&verilog, &cfg.name), cfg.warps as usize);
    let build_time = t.elapsed();

    let mut reference = FetchRef::new(cfg);
    let seed = unit_seed(test);
    let mut stim = Stimulus::new(seed, cfg);
    let warps = cfg.warps as usize;
    let nwords = cfg.imem_bytes / 4;
    let mut cov = Coverage {
        fetches: vec![0; warps],
        ..Default::default()
    };
    let t = Instant::now();
    // Reset (cycle 0: the power-on state before it is not defined), then load every word.
    let mut schedule: Vec<Inputs> = vec![Inputs {
        reset: true,
        ..Default::default()
    }];
    for a in 0..nwords {
        let w = random_word(&mut stim.rng);
        let r = stim.rng.gen();
        schedule.push(Inputs {
            load: Some((a, w, r)),
            tos_rpc: vec![u32::MAX; warps],
            redirect: vec![None; warps],
            ..Default::default()
        });
    }
    let preload = schedule.len() as u64;
    let n = unit_cycles();
    for cycle in 0..preload + n {
        let inp = if cycle < preload {
            schedule[cycle as usize].clone()
        } else {
            stim.next(cycle, &reference)
        };
        let before = describe(&inp, &reference);
        // Coverage, from the reference state before the cycle.
        if cycle >= preload {
            if let Some(w) = reference.choice() {
                cov.fetches[w] += 1;
                if inp.redirect[w].is_some() {
                    cov.cancelled += 1;
                }
                let pc = reference.fpc[w];
                if pc < cfg.imem_bytes && inp.load.is_some_and(|(a, _, _)| a == pc >> 2) {
                    cov.read_write_same_word += 1;
                }
            }
            if let Some(f) = reference.inflight {
                if inp.pop == Some(f.warp as u8) && !reference.ibuf[f.warp].is_empty() {
                    cov.push_pop_same_warp += 1;
                }
                let op = f.word & 0x7f;
                if f.fault {
                    cov.faults += 1;
                } else if CONTROL.contains(&op) {
                    cov.ends_control += 1;
                } else if !PLAIN.contains(&op) {
                    cov.ends_illegal += 1;
                } else if f.pc.wrapping_add(4) == f.tos {
                    cov.ends_tos += 1;
                }
            }
            cov.full_warp_cycles += reference
                .ibuf
                .iter()
                .filter(|b| b.len() == reference.depth)
                .count() as u64;
            if let Some(p) = inp.pop {
                if p as usize >= warps || reference.ibuf[p as usize].is_empty() {
                    cov.ignored_pops += 1;
                }
            }
            if inp.load.is_some_and(|(a, _, _)| a >= nwords) {
                cov.ignored_loads += 1;
            }
            cov.resets += inp.reset as u64;
        }
        let got = rtl.cycle(&inp);
        let want = reference.step(&inp);
        if cycle == 0 {
            continue; // power-on state: defined only after the first reset
        }
        let d = diff(&got, &want);
        if !d.is_empty() {
            panic!(
                "{unit}: RTL differs from the reference at cycle {cycle} (seed {seed}):\n  {}\n\
                 inputs and state: {before}reproduce: {}",
                d.join("\n  "),
                repro(test, seed)
            );
        }
    }
    let cosim_time = t.elapsed();
    let yosys_time = yosys_thread.map(|h| {
        let (r, took) = h.join().expect("yosys thread");
        if let Err(e) = r {
            panic!("yosys rejects {unit}:\n{e}");
        }
        took
    });
    eprintln!(
        "{unit}: {} bytes, {} lines of Verilog; generate {generate:.1?}, lint {lint_time:.1?}, \
         verilate+build {build_time:.1?}, {} co-simulated cycles in {cosim_time:.1?}, \
         yosys {}; coverage {cov:?}",
        verilog.len(),
        verilog.lines().count(),
        preload + n,
        yosys_time.map_or("-".into(), |d: Duration| format!("{d:.1?}")),
    );
    if !checks {
        return;
    }
    let min = n / 2000;
    assert!(
        cov.fetches.iter().all(|&f| f > min)
            && cov.ends_control > min
            && cov.ends_illegal > min
            && cov.ends_tos > min
            && cov.faults > min
            && cov.cancelled > 0
            && cov.read_write_same_word == 0
            && stim.collisions_avoided > 0
            && cov.push_pop_same_warp > min
            && cov.full_warp_cycles > n / 10
            && cov.ignored_pops > min
            && cov.ignored_loads > min
            && cov.resets > 0,
        "{unit}: weak stimulus: {cov:?}"
    );
}

/// `WARPFORGE_FULL=1`: yosys-check every preset, not only tiny.
fn full() -> bool {
    warpforge_testbench::unit::full_tests()
}

#[test]
fn fetch_tiny() {
    // yosys: opt-in, since top_lint's `top_tiny_lint_and_yosys` synthesizes this same tiny
    // fetch unit inside the GPU top (saves ~2 CPU-minutes of CI).
    cosim("fetch_tiny", &preset("tiny"), true, full(), true);
}

#[test]
fn fetch_small() {
    cosim("fetch_small", &preset("small"), true, full(), true);
}

#[test]
#[ignore = "large preset: opt-in with `cargo test -- --ignored` (yosys with WARPFORGE_FULL=1)"]
fn fetch_fermi() {
    cosim("fetch_fermi", &preset("fermi"), true, full(), true);
}

/// Sizes the presets do not have: 1, 3, 5 and 64 warps; I-buffers of 1, 3 and 16 entries; the
/// smallest instruction memory (64 words). (64 warps × 16 entries works too but takes minutes
/// to generate and lint.) Lint and co-simulation (no yosys, no coverage
/// requirements).
#[test]
fn edge_sizes() {
    for (warps, depth, imem) in [(1, 1, 256), (3, 3, 256), (64, 1, 1024), (5, 16, 256)] {
        let mut cfg = preset("tiny");
        cfg.warps = warps;
        cfg.ibuffer_depth = depth;
        cfg.imem_bytes = imem;
        cfg.name = format!("w{warps}-e{depth}-i{imem}");
        cosim("edge_sizes", &cfg, true, false, false);
    }
}

// ---------------------------------------------------------------------------------------------
// Directed tests (expected values written out; the reference must agree on every cycle too)

/// RTL and reference side by side on directed inputs.
struct Bench {
    rtl: FetchRtl,
    reference: FetchRef,
    warps: usize,
    cycle: u64,
    tos: Vec<u32>,
}

impl Bench {
    fn new(cfg: &GpuConfig) -> Self {
        let rtl = FetchRtl::new(build(&fetch_verilog(cfg), &cfg.name), cfg.warps as usize);
        let warps = cfg.warps as usize;
        let mut b = Bench {
            rtl,
            reference: FetchRef::new(cfg),
            warps,
            cycle: 0,
            tos: vec![u32::MAX; warps],
        };
        b.rtl.cycle(&Inputs {
            reset: true,
            ..Default::default()
        });
        b.reference.step(&Inputs {
            reset: true,
            ..Default::default()
        });
        b
    }

    fn inputs(&self) -> Inputs {
        Inputs {
            redirect: vec![None; self.warps],
            tos_rpc: self.tos.clone(),
            ..Default::default()
        }
    }

    /// One cycle; checks the RTL against the reference and returns the RTL's outputs.
    fn step(&mut self, inp: Inputs) -> Outputs {
        let before = describe(&inp, &self.reference);
        let got = self.rtl.cycle(&inp);
        let want = self.reference.step(&inp);
        let d = diff(&got, &want);
        assert!(
            d.is_empty(),
            "directed cycle {}: RTL differs from the reference:\n  {}\ninputs and state: {before}",
            self.cycle,
            d.join("\n  ")
        );
        self.cycle += 1;
        got
    }

    fn load(&mut self, base: u32, words: &[u32], recon: impl Fn(u32) -> u32) {
        for (i, &w) in words.iter().enumerate() {
            let a = base + i as u32;
            let mut inp = self.inputs();
            inp.load = Some((a, w, recon(a)));
            self.step(inp);
        }
    }

    fn redirect(&mut self, warps: &[(usize, u32)]) -> Outputs {
        let mut inp = self.inputs();
        for &(w, pc) in warps {
            inp.redirect[w] = Some(pc);
        }
        self.step(inp)
    }

    /// Runs `n` cycles popping every valid head of `warp` as soon as it shows; returns the
    /// popped entries with their cycle and the cycles in which `warp` was fetched.
    fn drain(&mut self, warp: usize, n: usize) -> (Vec<(u64, Entry)>, Vec<u64>) {
        let (mut popped, mut fetched) = (vec![], vec![]);
        let mut pop_next = None;
        for _ in 0..n {
            let mut inp = self.inputs();
            inp.pop = pop_next;
            inp.read = warp as u8;
            let c = self.cycle;
            let out = self.step(inp.clone());
            if inp.pop.is_some() {
                // The head shown in this cycle was removed.
                popped.push((c, out.heads[warp].expect("popped a valid head")));
            }
            if out.fetch == Some(warp) {
                fetched.push(c);
            }
            // Pop in the next cycle whatever head the next cycle shows (decided from the
            // reference's state after this edge).
            pop_next = (!self.reference.ibuf[warp].is_empty()).then_some(warp as u8);
        }
        (popped, fetched)
    }
}

fn addi(rd: u8, rs1: u8, imm: i32) -> u32 {
    encode(&Instr::OpImm {
        op: AluOp::Add,
        rd,
        rs1,
        imm,
    })
}

/// addi, addi, add, lw, beq (ends), sw, sw, jal (ends).
fn program() -> Vec<u32> {
    vec![
        addi(1, 0, 1),
        addi(2, 0, 2),
        encode(&Instr::Op {
            op: AluOp::Add,
            rd: 3,
            rs1: 1,
            rs2: 2,
        }),
        encode(&Instr::Load {
            op: LoadOp::Lw,
            rd: 4,
            rs1: 3,
            imm: 0,
        }),
        encode(&Instr::Branch {
            op: BranchOp::Beq,
            rs1: 1,
            rs2: 2,
            imm: 8,
        }),
        encode(&Instr::Store {
            op: StoreOp::Sw,
            rs1: 3,
            rs2: 4,
            imm: 0,
        }),
        encode(&Instr::Store {
            op: StoreOp::Sw,
            rs1: 3,
            rs2: 4,
            imm: 4,
        }),
        jal(),
    ]
}

fn jal() -> u32 {
    encode(&Instr::Jal { rd: 0, imm: 0 })
}

/// Sidecar of the program: the branch at word 4 reconverges at 0x1c.
fn program_recon(a: u32) -> u32 {
    if a == 4 {
        Reconvergence::At(0x1c).to_word()
    } else {
        Reconvergence::None.to_word()
    }
}

#[test]
fn block_ends_at_branch() {
    let mut b = Bench::new(&preset("tiny"));
    let prog = program();
    b.load(0, &prog, program_recon);
    let t = b.cycle;
    let out = b.redirect(&[(1, 0)]);
    assert_eq!(out.fetch, None, "the redirect takes effect at the edge");
    let (popped, fetched) = b.drain(1, 30);
    // One fetch every other cycle (the warp is not eligible while its read is in flight); the
    // head shows two cycles after its fetch and is popped at once.
    assert_eq!(
        fetched,
        (0..5).map(|k| t + 1 + 2 * k).collect::<Vec<_>>(),
        "fetch cycles of pc 0..16"
    );
    let want: Vec<(u64, Entry)> = (0..5u32)
        .map(|k| {
            (
                t + 3 + 2 * k as u64,
                Entry {
                    pc: 4 * k,
                    word: prog[k as usize],
                    recon: program_recon(k),
                    fault: false,
                    ends: k == 4,
                    stops: false,
                    dec: issue_fields(prog[k as usize]),
                },
            )
        })
        .collect();
    assert_eq!(
        popped, want,
        "heads: the block is pc 0..16, the beq ends it"
    );
    assert!(!b.reference.enabled[1], "the warp stopped");
    // Redirect past the branch: fetching resumes at the new PC.
    let t = b.cycle;
    b.redirect(&[(1, 20)]);
    let (popped, fetched) = b.drain(1, 10);
    assert_eq!(fetched, vec![t + 1, t + 3, t + 5]);
    assert_eq!(
        popped
            .iter()
            .map(|(_, e)| (e.pc, e.ends))
            .collect::<Vec<_>>(),
        vec![(20, false), (24, false), (28, true)],
        "sw, sw, jal"
    );
}

#[test]
fn block_ends_before_reconvergence_point() {
    let mut b = Bench::new(&preset("tiny"));
    let prog = program();
    b.load(0, &prog, program_recon);
    // The TOS RPC is 12: the instruction at 8 (an add) is the last one of the block.
    b.tos[2] = 12;
    b.redirect(&[(2, 0)]);
    let (popped, fetched) = b.drain(2, 20);
    assert_eq!(fetched.len(), 3, "pc 0, 4, 8 fetched, then the warp stops");
    let heads: Vec<(u32, bool)> = popped.iter().map(|(_, e)| (e.pc, e.ends)).collect();
    assert_eq!(heads, vec![(0, false), (4, false), (8, true)]);
    // Without a pop the I-buffer fills (E = 2) and fetch waits for room.
    b.tos[2] = u32::MAX;
    b.redirect(&[(2, 0)]);
    let mut fetched = 0;
    for _ in 0..10 {
        let inp = b.inputs();
        fetched += (b.step(inp).fetch == Some(2)) as u32;
    }
    assert_eq!(fetched, 2, "a full I-buffer stops fetching");
    assert_eq!(b.reference.ibuf[2].len(), 2);
}

#[test]
fn out_of_range_fetch() {
    let cfg = preset("tiny");
    let top = cfg.imem_bytes;
    let nwords = top / 4;
    let mut b = Bench::new(&cfg);
    let last2 = [addi(5, 5, 1), addi(6, 6, 1)];
    b.load(nwords - 2, &last2, |_| 0x55);
    // An ignored load beyond the memory does not wrap onto word 0.
    b.load(nwords, &[addi(7, 7, 7)], |_| 0x77);
    b.load(0, &[0x0000_0013, jal()], |_| 0);
    b.redirect(&[(3, top - 8)]);
    let (popped, fetched) = b.drain(3, 20);
    assert_eq!(fetched.len(), 3);
    let heads: Vec<Entry> = popped.iter().map(|&(_, e)| e).collect();
    assert_eq!(
        heads,
        vec![
            Entry {
                pc: top - 8,
                word: last2[0],
                recon: 0x55,
                fault: false,
                ends: false,
                stops: false,
                dec: issue_fields(last2[0]),
            },
            Entry {
                pc: top - 4,
                word: last2[1],
                recon: 0x55,
                fault: false,
                ends: false,
                stops: false,
                dec: issue_fields(last2[1]),
            },
            Entry {
                pc: top,
                word: 0,
                recon: 0,
                fault: true,
                ends: true,
                stops: true,
                dec: 0,
            },
        ]
    );
    // A fetch far outside memory faults at once.
    b.redirect(&[(3, 0x8000_0000)]);
    let (popped, _) = b.drain(3, 6);
    assert_eq!(popped.len(), 1);
    assert!(popped[0].1.fault && popped[0].1.ends && popped[0].1.pc == 0x8000_0000);
    // Word 0 still holds what was loaded there.
    b.redirect(&[(3, 0)]);
    let (popped, _) = b.drain(3, 8);
    let words: Vec<u32> = popped.iter().map(|(_, e)| e.word).collect();
    assert_eq!(words, vec![0x0000_0013, jal()]);
}

#[test]
fn round_robin_order() {
    let mut b = Bench::new(&preset("tiny"));
    b.load(0, &[addi(1, 1, 1); 16], |_| 0);
    // After reset warp 0 comes first; a warp is skipped while its read is in flight.
    let out = b.redirect(&[(0, 0), (1, 0), (2, 0), (3, 0)]);
    assert_eq!(out.fetch, None);
    let mut order = vec![];
    for _ in 0..8 {
        let inp = b.inputs();
        order.push(b.step(inp).fetch);
    }
    // Each warp fetches twice and then its I-buffer (E = 2) is full.
    assert_eq!(
        order,
        [0, 1, 2, 3, 0, 1, 2, 3].map(Some).to_vec(),
        "round-robin from warp 0"
    );
    // Pops of warps 2 then 0: warp 2 fetches first (after warp 3, the last chosen), then 0.
    // A pop makes room for the candidate chosen at the end of its cycle.
    let mut inp = b.inputs();
    inp.pop = Some(2);
    assert_eq!(b.step(inp).fetch, None);
    let mut inp = b.inputs();
    inp.pop = Some(0);
    assert_eq!(b.step(inp).fetch, Some(2));
    let inp = b.inputs();
    assert_eq!(b.step(inp).fetch, Some(0));
    // Reset: every buffer empty, nothing fetches, pointer back to warp 0.
    let mut inp = b.inputs();
    inp.reset = true;
    b.step(inp);
    let out = b.redirect(&[(3, 0), (1, 0)]);
    assert!(out.heads.iter().all(Option::is_none) && out.fetch.is_none());
    let inp = b.inputs();
    assert_eq!(
        b.step(inp).fetch,
        Some(1),
        "after reset the lowest eligible warp first"
    );
    let inp = b.inputs();
    assert_eq!(b.step(inp).fetch, Some(3));
}
