//! Unit co-simulation of the load/store unit (`hdl/src/load_store_unit.rs`,
//! docs/microarch/load_store_unit.md) against a Rust reference of that page written here.
//!
//! * The generated Verilog passes `verilator --lint-only -Wall` with no warning (tiny, small,
//!   fermi) and yosys `hierarchy -check; proc; synth` (tiny by default, every preset with
//!   `WARPFORGE_FULL=1`).
//! * Random co-simulation (`random_tiny`, `random_small`, `random_fermi` opt-in): the Verilated
//!   LSU runs in lock-step with [`CycleRef`], a cycle model of the documented timing, and a
//!   functional reference ([`execute`], the golden model's load/store semantics) on seeded
//!   random instructions: random masks, sizes, signedness, addresses mostly aligned and inside a
//!   small global window or a CTA's shared window, a fifth of the instructions with a hostile
//!   lane (misaligned, instruction memory, past the end of global memory or of the shared
//!   window, anywhere). A Rust memory model serves the memory port with random `mem_req_ready`
//!   back-pressure, random response latency and gaps, and garbage in the upper bits of
//!   sub-word responses; `out_ready` is random; shared-memory clears (also ignored ones while a
//!   clear runs, and one in the cycle an instruction is accepted) and rare resets are mixed in.
//!   Every cycle `in_ready`, `clear_busy`, the memory request (valid, and all fields when
//!   valid — so the exact request sequence), the completion (valid, and every field of every
//!   lane when valid) and the fault pulse (valid, and every field) are compared. At the end
//!   the whole shared memory is read back through the unit and the whole global memory is
//!   compared with the functional reference.
//! * Directed: sub-word sign/zero extension from global and shared memory at every byte offset,
//!   the shared clear (exact `clear_busy` cycles, contents), fault precedence (lowest faulting
//!   lane, misaligned before out-of-range, boundaries of both windows) with the exact cycles of
//!   the page, and the timing examples of the page.
//! * `reference_matches_golden_model`: the functional reference of this file against the
//!   golden model itself (`warpforge_sim::Gpu` executing the same load/store on a one-warp
//!   kernel): same fault (cause, lane, address), same loaded values, same store records, same
//!   global memory.
//! * `checker_catches_wrong_reference`: the checker is not vacuous; mutated references are
//!   reported.
//!
//! Seed: `WARPFORGE_SEED` (default fixed per test); random instructions per test:
//! `WARPFORGE_LSU_OPS` (default 3000). A failure names the configuration, seed, cycle, field,
//! expected and actual values and the instruction in flight.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use warpforge_config::GpuConfig;
use warpforge_hdl::load_store_unit::load_store_unit_verilog;
use warpforge_hdl::mem_port::mem_port_name;
use warpforge_isa::memmap::{GMEM_BASE, SMEM_BASE};
use warpforge_isa::FaultCause;
use warpforge_testbench::unit::{assert_yosys_accepts, build_unit, lint, unit_seed};
use warpforge_testbench::verilator_model::{LoadedModel, PortId};

// ---------------------------------------------------------------------------------------------
// Generation, lint, synthesis check, build

fn random_ops() -> usize {
    std::env::var("WARPFORGE_LSU_OPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3000)
}

fn top_name(cfg: &GpuConfig) -> String {
    format!("wf_lsu_{}", cfg.name)
}

fn verilog(cfg: &GpuConfig) -> String {
    load_store_unit_verilog(cfg, &top_name(cfg)).unwrap_or_else(|e| panic!("{e}"))
}

/// Lint (always), yosys (tiny, or every preset with `WARPFORGE_FULL=1`), build.
fn prepare(cfg: &GpuConfig) -> LoadedModel {
    let top = top_name(cfg);
    let t = Instant::now();
    let v = verilog(cfg);
    let generate = t.elapsed();
    let t = Instant::now();
    if let Err(e) = lint(&top, &v) {
        panic!("verilator --lint-only -Wall rejects {top}:\n{e}");
    }
    let lint_time = t.elapsed();
    let t = Instant::now();
    if cfg.name == "tiny" || warpforge_testbench::unit::full_tests() {
        assert_yosys_accepts(&top, &v);
    }
    let yosys_time = t.elapsed();
    let t = Instant::now();
    let m = build_unit(&top, &v, false).unwrap_or_else(|e| panic!("building {top}: {e}"));
    eprintln!(
        "{top}: {} lines, {} modules of Verilog; generate {generate:.1?}, lint {lint_time:.1?}, \
         yosys {yosys_time:.1?}, verilate+build {:.1?}",
        v.lines().count(),
        v.lines().filter(|l| l.starts_with("module ")).count(),
        t.elapsed()
    );
    m
}

// ---------------------------------------------------------------------------------------------
// Instructions and the functional reference (the golden model's semantics)

/// One warp-instruction offered to the LSU.
#[derive(Clone, Debug)]
struct Instr {
    tag: u8,
    warp: u8,
    store: bool,
    /// `in_size` as driven (3 is treated as a word).
    size: u8,
    unsigned: bool,
    mask: u32,
    base: Vec<u32>,
    offset: u32,
    data: Vec<u32>,
    smem_base: u32,
    smem_size: u32,
}

impl Instr {
    fn name(&self) -> String {
        let op = match (self.store, norm_size(self.size), self.unsigned) {
            (true, 0, _) => "sb",
            (true, 1, _) => "sh",
            (true, _, _) => "sw",
            (false, 0, false) => "lb",
            (false, 0, true) => "lbu",
            (false, 1, false) => "lh",
            (false, 1, true) => "lhu",
            (false, _, _) => "lw",
        };
        format!(
            "{op} (size code {}, tag {:#04x}, warp {}, mask {:#010x}, offset {:#010x}, shared \
             region {:#x}+{:#x})",
            self.size, self.tag, self.warp, self.mask, self.offset, self.smem_base, self.smem_size
        )
    }

    fn addr(&self, l: usize) -> u32 {
        self.base[l].wrapping_add(self.offset)
    }
}

/// A fault as the LSU reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct FaultRec {
    tag: u8,
    warp: u8,
    cause: u8,
    lane: u8,
    addr: u32,
}

/// A completion as the LSU reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Completion {
    tag: u8,
    warp: u8,
    store: bool,
    size: u8,
    mask: u32,
    data: Vec<u32>,
    addr: Vec<u32>,
    sdata: Vec<u32>,
}

#[derive(Clone, Debug)]
enum Outcome {
    Fault(FaultRec),
    Done(Completion),
}

const CAUSE_MISALIGNED_LOAD: u8 = FaultCause::MisalignedLoad.code();
const CAUSE_MISALIGNED_STORE: u8 = FaultCause::MisalignedStore.code();
const CAUSE_OUT_OF_RANGE_LOAD: u8 = FaultCause::OutOfRangeLoad.code();
const CAUSE_OUT_OF_RANGE_STORE: u8 = FaultCause::OutOfRangeStore.code();

fn norm_size(size: u8) -> u8 {
    if size & 2 != 0 {
        2
    } else {
        size & 1
    }
}

fn size_bytes(size: u8) -> u32 {
    1 << norm_size(size)
}

/// Where a lane's access goes: a byte offset in global memory or in the SM's shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Global(usize),
    Shared(usize),
}

/// Deliberate errors in the reference, to show that the checker notices them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mutation {
    None,
    /// Out-of-range checked before alignment.
    RangeBeforeAlign,
    /// The highest faulting lane is reported.
    HighestFaultLane,
    /// lb/lh zero-extend.
    NoSignExtension,
    /// The shared window is one byte shorter.
    SharedWindowShort,
}

/// The address map of docs/isa.md §5 as the golden model decodes it (`sim/src/execute.rs`
/// `resolve`): global memory first, then the CTA's shared window; `n` bytes must fit.
fn resolve(cfg: &GpuConfig, i: &Instr, addr: u32, n: u32, m: Mutation) -> Option<Target> {
    if addr >= GMEM_BASE && u64::from(addr - GMEM_BASE) + u64::from(n) <= u64::from(cfg.gmem_bytes)
    {
        return Some(Target::Global((addr - GMEM_BASE) as usize));
    }
    let window = if m == Mutation::SharedWindowShort {
        i.smem_size.saturating_sub(1)
    } else {
        i.smem_size
    };
    if addr >= SMEM_BASE && u64::from(addr - SMEM_BASE) + u64::from(n) <= u64::from(window) {
        let off = (i.smem_base & !3).wrapping_add(addr - SMEM_BASE) % cfg.smem_bytes;
        return Some(Target::Shared(off as usize));
    }
    None
}

fn read_le(mem: &[u8], off: usize, n: u32) -> u32 {
    (0..n as usize).fold(0, |v, k| v | u32::from(mem[off + k]) << (8 * k))
}

fn write_le(mem: &mut [u8], off: usize, n: u32, v: u32) {
    for k in 0..n as usize {
        mem[off + k] = (v >> (8 * k)) as u8;
    }
}

fn extend(raw: u32, size: u8, unsigned: bool, m: Mutation) -> u32 {
    let signed = !unsigned && m != Mutation::NoSignExtension;
    match (norm_size(size), signed) {
        (0, true) => raw as u8 as i8 as i32 as u32,
        (0, false) => raw & 0xff,
        (1, true) => raw as u16 as i16 as i32 as u32,
        (1, false) => raw & 0xffff,
        _ => raw,
    }
}

/// Global and shared memory as the functional reference sees them.
#[derive(Clone)]
struct Memories {
    gmem: Vec<u8>,
    smem: Vec<u8>,
}

/// The golden model's load/store semantics (`sim/src/execute.rs`): active lanes in increasing
/// order, alignment then region; the first faulting lane faults the instruction (no effect);
/// otherwise loads read and extend, stores write in lane order.
fn execute(cfg: &GpuConfig, i: &Instr, mem: &mut Memories, m: Mutation) -> Outcome {
    let lanes = cfg.lanes as usize;
    let n = size_bytes(i.size);
    let mut targets = vec![None; lanes];
    let mut fault = None;
    let order: Vec<usize> = if m == Mutation::HighestFaultLane {
        (0..lanes).rev().collect()
    } else {
        (0..lanes).collect()
    };
    for &l in &order {
        if i.mask >> l & 1 == 0 {
            continue;
        }
        let addr = i.addr(l);
        let misaligned = !addr.is_multiple_of(n);
        let target = resolve(cfg, i, addr, n, m);
        let cause = match (misaligned, target, m == Mutation::RangeBeforeAlign) {
            (_, None, true) => Some(false),
            (true, _, _) => Some(true),
            (false, None, _) => Some(false),
            _ => None,
        };
        if let Some(mis) = cause {
            let cause = match (i.store, mis) {
                (false, true) => CAUSE_MISALIGNED_LOAD,
                (true, true) => CAUSE_MISALIGNED_STORE,
                (false, false) => CAUSE_OUT_OF_RANGE_LOAD,
                (true, false) => CAUSE_OUT_OF_RANGE_STORE,
            };
            fault = Some(FaultRec {
                tag: i.tag,
                warp: i.warp,
                cause,
                lane: l as u8,
                addr,
            });
            break;
        }
        targets[l] = target;
    }
    if let Some(f) = fault {
        return Outcome::Fault(f);
    }
    let mut c = Completion {
        tag: i.tag,
        warp: i.warp,
        store: i.store,
        size: norm_size(i.size),
        mask: i.mask,
        data: vec![0; lanes],
        addr: vec![0; lanes],
        sdata: vec![0; lanes],
    };
    for (l, t) in targets.iter().enumerate() {
        let Some(t) = *t else { continue };
        c.addr[l] = i.addr(l);
        if i.store {
            let v = if n == 4 {
                i.data[l]
            } else {
                i.data[l] & ((1 << (8 * n)) - 1)
            };
            c.sdata[l] = v;
            match t {
                Target::Global(off) => write_le(&mut mem.gmem, off, n, v),
                Target::Shared(off) => write_le(&mut mem.smem, off, n, v),
            }
        } else {
            let raw = match t {
                Target::Global(off) => read_le(&mem.gmem, off, n),
                Target::Shared(off) => read_le(&mem.smem, off, n),
            };
            c.data[l] = extend(raw, i.size, i.unsigned, m);
        }
    }
    Outcome::Done(c)
}

// ---------------------------------------------------------------------------------------------
// The cycle reference (docs/microarch/load_store_unit.md)

/// A memory request on the port.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Req {
    write: bool,
    addr: u32,
    size: u8,
    data: u32,
}

/// The instruction in flight.
#[derive(Clone, Debug)]
struct Busy {
    instr: Instr,
    expect: Completion,
    /// Lanes whose access is not performed yet.
    pend: u32,
    /// Global load lanes waiting for their response.
    rpend: u32,
    /// Lanes that go to shared memory.
    shared: u32,
    /// A shared read was performed in the previous cycle / two cycles ago (its word is
    /// registered before it is extended into the lane's data).
    sread: bool,
    sread2: bool,
    /// A load's accesses are all performed (set at the edge after which they are, so a load
    /// completes when it would unregistered, except an empty mask's, a cycle later; a store
    /// completes on `performed`; docs/microarch/load_store_unit.md).
    done: bool,
}

impl Busy {
    /// Every access performed, every response and shared word in its register.
    fn performed(&self) -> bool {
        self.pend == 0 && self.rpend == 0 && !self.sread && !self.sread2
    }
}

/// Inputs of one cycle.
#[derive(Clone, Debug, Default)]
struct Inputs {
    reset: bool,
    in_valid: bool,
    mem_req_ready: bool,
    mem_resp_valid: bool,
    mem_resp_data: u32,
    out_ready: bool,
    clear_valid: bool,
    clear_base: u32,
    clear_bytes: u32,
}

/// Outputs of one cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Outputs {
    in_ready: bool,
    req: Option<Req>,
    out: Option<Completion>,
    fault: Option<FaultRec>,
    clear_busy: bool,
}

struct CycleRef {
    cfg: GpuConfig,
    lanes: usize,
    smem_bytes: u32,
    busy: Option<Busy>,
    /// A faulting instruction accepted in the previous cycle, in its check cycle (its fault
    /// pulse follows).
    chk: Option<FaultRec>,
    /// Fault pulse of this cycle.
    fault: Option<FaultRec>,
    clr_left: u32,
    clr_ptr: u32,
    /// Shared memory, written in the cycle the unit writes it.
    smem: Vec<u8>,
}

fn lowest(bits: u32) -> Option<usize> {
    (bits != 0).then(|| bits.trailing_zeros() as usize)
}

impl CycleRef {
    fn new(cfg: &GpuConfig) -> Self {
        CycleRef {
            cfg: cfg.clone(),
            lanes: cfg.lanes as usize,
            smem_bytes: cfg.smem_bytes,
            busy: None,
            chk: None,
            fault: None,
            clr_left: 0,
            clr_ptr: 0,
            smem: vec![0; cfg.smem_bytes as usize],
        }
    }

    fn clearing(&self) -> bool {
        self.clr_left != 0
    }

    fn in_ready(&self, reset: bool) -> bool {
        self.busy.is_none()
            && self.chk.is_none()
            && self.fault.is_none()
            && !self.clearing()
            && !reset
    }

    /// The lane served this cycle and whether it is a shared lane.
    fn selected(&self) -> Option<(usize, bool)> {
        let b = self.busy.as_ref()?;
        let l = lowest(b.pend)?;
        Some((l, b.shared >> l & 1 == 1))
    }

    fn outputs(&self, reset: bool) -> Outputs {
        let req = match (self.selected(), &self.busy) {
            (Some((l, false)), Some(b)) if !reset => Some(Req {
                write: b.instr.store,
                addr: b.expect.addr[l],
                size: b.expect.size,
                data: b.expect.sdata[l],
            }),
            _ => None,
        };
        let out = self
            .busy
            .as_ref()
            .and_then(|b| (b.done || (b.instr.store && b.performed())).then(|| b.expect.clone()));
        Outputs {
            in_ready: self.in_ready(reset),
            req,
            out,
            fault: self.fault.clone(),
            clear_busy: self.clearing(),
        }
    }

    /// The clock edge. `accepted` is the functional outcome of the instruction accepted in this
    /// cycle (the caller decides acceptance from `in_ready & in_valid`).
    fn step(&mut self, inp: &Inputs, accepted: Option<(Instr, Outcome)>) {
        let outs = self.outputs(inp.reset);
        let clearing = self.clearing();
        let sel = self.selected();
        let sh_go = matches!(sel, Some((_, true))) && !clearing && !inp.reset;
        let gl_fire = outs.req.is_some() && inp.mem_req_ready;
        let fault_next = self.chk.take();
        if let Some(b) = self.busy.as_mut() {
            let (l, _) = sel.unwrap_or((0, false));
            if sh_go && b.instr.store {
                let n = size_bytes(b.instr.size);
                let off = (b.instr.smem_base & !3).wrapping_add(b.expect.addr[l]) % self.smem_bytes;
                write_le(&mut self.smem, off as usize, n, b.expect.sdata[l]);
            }
            if sh_go || gl_fire {
                b.pend &= !(1 << l);
            }
            // A global load request serves every pending global lane of the same address; its
            // response completes every waiting lane of that address.
            let lanes = self.lanes;
            let same = |b: &Busy, bits: u32, addr: u32| {
                (0..lanes)
                    .filter(|&k| bits >> k & 1 == 1 && b.expect.addr[k] == addr)
                    .fold(0u32, |m, k| m | 1 << k)
            };
            if gl_fire && !b.instr.store {
                b.pend &= !same(b, b.pend & !b.shared, b.expect.addr[l]);
            }
            if inp.mem_resp_valid {
                if let Some(r) = lowest(b.rpend) {
                    b.rpend &= !same(b, b.rpend, b.expect.addr[r]);
                }
            }
            b.sread2 = b.sread;
            b.sread = sh_go && !b.instr.store;
            b.done = b.performed() && !b.instr.store && !(b.done && inp.out_ready);
            if outs.out.is_some() && inp.out_ready {
                self.busy = None;
            }
        }
        if let Some((instr, outcome)) = accepted {
            assert!(self.busy.is_none() && outs.in_ready);
            match outcome {
                Outcome::Fault(f) => self.chk = Some(f),
                Outcome::Done(c) => {
                    let mut shared = 0;
                    let mut rpend = 0;
                    for l in 0..self.lanes {
                        if instr.mask >> l & 1 == 0 {
                            continue;
                        }
                        let n = size_bytes(instr.size);
                        match resolve(&self.cfg, &instr, instr.addr(l), n, Mutation::None) {
                            Some(Target::Shared(_)) => shared |= 1 << l,
                            _ if !instr.store => rpend |= 1 << l,
                            _ => {}
                        }
                    }
                    self.busy = Some(Busy {
                        pend: instr.mask,
                        rpend,
                        shared,
                        sread: false,
                        sread2: false,
                        done: false,
                        expect: c,
                        instr,
                    });
                }
            }
        }
        self.fault = fault_next;
        if clearing {
            if !inp.reset {
                let off = (self.clr_ptr % self.smem_bytes) as usize;
                self.smem[off..off + 4].fill(0);
            }
            self.clr_ptr = self.clr_ptr.wrapping_add(4);
            self.clr_left -= 1;
        } else if inp.clear_valid {
            self.clr_ptr = inp.clear_base & !3;
            self.clr_left = inp.clear_bytes >> 2;
        }
        if inp.reset {
            self.busy = None;
            self.chk = None;
            self.fault = None;
            self.clr_left = 0;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The Verilated unit

/// The ports of the unit. Per-lane ports are `name$l` in the Verilog, which Verilator's C++
/// spells `name__024l`.
struct Ports {
    clock: PortId,
    reset: PortId,
    in_valid: PortId,
    in_ready: PortId,
    in_tag: PortId,
    in_warp: PortId,
    in_store: PortId,
    in_size: PortId,
    in_unsigned: PortId,
    in_mask: Vec<PortId>,
    in_base: Vec<PortId>,
    in_offset: PortId,
    in_data: Vec<PortId>,
    in_smem_base: PortId,
    in_smem_size: PortId,
    mem_req_valid: PortId,
    mem_req_ready: PortId,
    mem_req_write: PortId,
    mem_req_addr: PortId,
    mem_req_size: PortId,
    mem_req_data: PortId,
    mem_resp_valid: PortId,
    mem_resp_data: PortId,
    out_valid: PortId,
    out_ready: PortId,
    out_tag: PortId,
    out_warp: PortId,
    out_store: PortId,
    out_size: PortId,
    out_mask: Vec<PortId>,
    out_data: Vec<PortId>,
    out_addr: Vec<PortId>,
    out_sdata: Vec<PortId>,
    fault_valid: PortId,
    fault_tag: PortId,
    fault_warp: PortId,
    fault_cause: PortId,
    fault_lane: PortId,
    fault_addr: PortId,
    clear_valid: PortId,
    clear_base: PortId,
    clear_bytes: PortId,
    clear_busy: PortId,
}

impl Ports {
    fn new(m: &LoadedModel, lanes: usize) -> Ports {
        let one = |n: &str| m.port(n).unwrap_or_else(|e| panic!("port {n}: {e}"));
        // The memory port bundle: `mem$field` in Verilog, `mem__024field` in Verilator's C++.
        let mem = |field: &str| one(&mem_port_name(field).replace('$', "__024"));
        let per_lane = |n: &str| -> Vec<PortId> {
            (0..lanes)
                .map(|l| {
                    m.port(&format!("{n}__024{l}"))
                        .or_else(|_| m.port(&format!("{n}${l}")))
                        .unwrap_or_else(|e| panic!("port {n}${l}: {e}"))
                })
                .collect()
        };
        Ports {
            clock: one("clock"),
            reset: one("reset"),
            in_valid: one("in_valid"),
            in_ready: one("in_ready"),
            in_tag: one("in_tag"),
            in_warp: one("in_warp"),
            in_store: one("in_store"),
            in_size: one("in_size"),
            in_unsigned: one("in_unsigned"),
            in_mask: per_lane("in_mask"),
            in_base: per_lane("in_base"),
            in_offset: one("in_offset"),
            in_data: per_lane("in_data"),
            in_smem_base: one("in_smem_base"),
            in_smem_size: one("in_smem_size"),
            mem_req_valid: mem("req_valid"),
            mem_req_ready: mem("req_ready"),
            mem_req_write: mem("req_write"),
            mem_req_addr: mem("req_addr"),
            mem_req_size: mem("req_size"),
            mem_req_data: mem("req_data"),
            mem_resp_valid: mem("resp_valid"),
            mem_resp_data: mem("resp_data"),
            out_valid: one("out_valid"),
            out_ready: one("out_ready"),
            out_tag: one("out_tag"),
            out_warp: one("out_warp"),
            out_store: one("out_store"),
            out_size: one("out_size"),
            out_mask: per_lane("out_mask"),
            out_data: per_lane("out_data"),
            out_addr: per_lane("out_addr"),
            out_sdata: per_lane("out_sdata"),
            fault_valid: one("fault_valid"),
            fault_tag: one("fault_tag"),
            fault_warp: one("fault_warp"),
            fault_cause: one("fault_cause"),
            fault_lane: one("fault_lane"),
            fault_addr: one("fault_addr"),
            clear_valid: one("clear_valid"),
            clear_base: one("clear_base"),
            clear_bytes: one("clear_bytes"),
            clear_busy: one("clear_busy"),
        }
    }
}

struct Rtl {
    m: LoadedModel,
    p: Ports,
    lanes: usize,
}

impl Rtl {
    fn new(cfg: &GpuConfig) -> Rtl {
        let m = prepare(cfg);
        let p = Ports::new(&m, cfg.lanes as usize);
        Rtl {
            m,
            p,
            lanes: cfg.lanes as usize,
        }
    }

    /// Drive the inputs of one cycle; `instr` fills the instruction fields (valid or not).
    fn drive(&mut self, inp: &Inputs, instr: &Instr) {
        let (m, p) = (&mut self.m, &self.p);
        m.set(p.reset, u64::from(inp.reset));
        m.set(p.in_valid, u64::from(inp.in_valid));
        m.set(p.in_tag, u64::from(instr.tag));
        m.set(p.in_warp, u64::from(instr.warp));
        m.set(p.in_store, u64::from(instr.store));
        m.set(p.in_size, u64::from(instr.size));
        m.set(p.in_unsigned, u64::from(instr.unsigned));
        for l in 0..self.lanes {
            m.set(p.in_mask[l], u64::from(instr.mask >> l & 1));
            m.set(p.in_base[l], u64::from(instr.base[l]));
            m.set(p.in_data[l], u64::from(instr.data[l]));
        }
        m.set(p.in_offset, u64::from(instr.offset));
        m.set(p.in_smem_base, u64::from(instr.smem_base));
        m.set(p.in_smem_size, u64::from(instr.smem_size));
        m.set(p.mem_req_ready, u64::from(inp.mem_req_ready));
        m.set(p.mem_resp_valid, u64::from(inp.mem_resp_valid));
        m.set(p.mem_resp_data, u64::from(inp.mem_resp_data));
        m.set(p.out_ready, u64::from(inp.out_ready));
        m.set(p.clear_valid, u64::from(inp.clear_valid));
        m.set(p.clear_base, u64::from(inp.clear_base));
        m.set(p.clear_bytes, u64::from(inp.clear_bytes));
        m.eval();
    }

    fn outputs(&self) -> Outputs {
        let (m, p) = (&self.m, &self.p);
        let g = |id: PortId| m.get(id);
        let req = (g(p.mem_req_valid) != 0).then(|| Req {
            write: g(p.mem_req_write) != 0,
            addr: g(p.mem_req_addr) as u32,
            size: g(p.mem_req_size) as u8,
            data: g(p.mem_req_data) as u32,
        });
        let out = (g(p.out_valid) != 0).then(|| Completion {
            tag: g(p.out_tag) as u8,
            warp: g(p.out_warp) as u8,
            store: g(p.out_store) != 0,
            size: g(p.out_size) as u8,
            mask: (0..self.lanes).fold(0, |mk, l| mk | (g(p.out_mask[l]) as u32 & 1) << l),
            data: p.out_data.iter().map(|&id| g(id) as u32).collect(),
            addr: p.out_addr.iter().map(|&id| g(id) as u32).collect(),
            sdata: p.out_sdata.iter().map(|&id| g(id) as u32).collect(),
        });
        let fault = (g(p.fault_valid) != 0).then(|| FaultRec {
            tag: g(p.fault_tag) as u8,
            warp: g(p.fault_warp) as u8,
            cause: g(p.fault_cause) as u8,
            lane: g(p.fault_lane) as u8,
            addr: g(p.fault_addr) as u32,
        });
        Outputs {
            in_ready: g(p.in_ready) != 0,
            req,
            out,
            fault,
            clear_busy: g(p.clear_busy) != 0,
        }
    }

    fn tick(&mut self) {
        self.m.tick(self.p.clock);
    }
}

/// Field-by-field differences (expected vs actual), empty if equal.
fn diff_outputs(e: &Outputs, g: &Outputs) -> String {
    let mut s = String::new();
    let mut field = |name: &str, e: String, g: String| {
        if e != g {
            let _ = writeln!(s, "  {name:<16} expected {e:<12} got {g}");
        }
    };
    field("in_ready", e.in_ready.to_string(), g.in_ready.to_string());
    field(
        "clear_busy",
        e.clear_busy.to_string(),
        g.clear_busy.to_string(),
    );
    field(
        "mem_req_valid",
        e.req.is_some().to_string(),
        g.req.is_some().to_string(),
    );
    if let (Some(e), Some(g)) = (&e.req, &g.req) {
        field("mem_req_write", e.write.to_string(), g.write.to_string());
        field(
            "mem_req_addr",
            format!("{:#010x}", e.addr),
            format!("{:#010x}", g.addr),
        );
        field("mem_req_size", e.size.to_string(), g.size.to_string());
        field(
            "mem_req_data",
            format!("{:#010x}", e.data),
            format!("{:#010x}", g.data),
        );
    }
    field(
        "out_valid",
        e.out.is_some().to_string(),
        g.out.is_some().to_string(),
    );
    if let (Some(e), Some(g)) = (&e.out, &g.out) {
        field(
            "out_tag",
            format!("{:#04x}", e.tag),
            format!("{:#04x}", g.tag),
        );
        field("out_warp", e.warp.to_string(), g.warp.to_string());
        field("out_store", e.store.to_string(), g.store.to_string());
        field("out_size", e.size.to_string(), g.size.to_string());
        field(
            "out_mask",
            format!("{:#010x}", e.mask),
            format!("{:#010x}", g.mask),
        );
        for l in 0..e.data.len() {
            for (name, ev, gv) in [
                ("out_data", e.data[l], g.data[l]),
                ("out_addr", e.addr[l], g.addr[l]),
                ("out_sdata", e.sdata[l], g.sdata[l]),
            ] {
                field(
                    &format!("{name}[{l}]"),
                    format!("{ev:#010x}"),
                    format!("{gv:#010x}"),
                );
            }
        }
    }
    field(
        "fault_valid",
        e.fault.is_some().to_string(),
        g.fault.is_some().to_string(),
    );
    if let (Some(e), Some(g)) = (&e.fault, &g.fault) {
        field(
            "fault_tag",
            format!("{:#04x}", e.tag),
            format!("{:#04x}", g.tag),
        );
        field("fault_warp", e.warp.to_string(), g.warp.to_string());
        field("fault_cause", e.cause.to_string(), g.cause.to_string());
        field("fault_lane", e.lane.to_string(), g.lane.to_string());
        field(
            "fault_addr",
            format!("{:#010x}", e.addr),
            format!("{:#010x}", g.addr),
        );
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Memory model, stimulus knobs, the lock-step run

/// Global memory behind the port: writes are performed when accepted; a read is answered after
/// a random latency (at least one cycle), in order, one response per cycle at most, with random
/// gaps and garbage above the loaded bytes.
struct MemModel {
    gmem: Vec<u8>,
    /// (first cycle the response may be given, data)
    queue: VecDeque<(u64, u32)>,
    last_due: u64,
}

impl MemModel {
    fn accept(
        &mut self,
        cfg: &GpuConfig,
        cycle: u64,
        r: &Req,
        lat: u64,
        junk: u32,
    ) -> Result<(), String> {
        let n = size_bytes(r.size);
        let off = r.addr.wrapping_sub(GMEM_BASE);
        if r.addr < GMEM_BASE || u64::from(off) + u64::from(n) > u64::from(cfg.gmem_bytes) {
            return Err(format!("memory request outside global memory: {r:?}"));
        }
        if r.write {
            write_le(&mut self.gmem, off as usize, n, r.data);
        } else {
            let v = read_le(&self.gmem, off as usize, n);
            let v = if n == 4 { v } else { v | (junk << (8 * n)) };
            let due = (cycle + lat).max(self.last_due);
            self.last_due = due;
            self.queue.push_back((due, v));
        }
        Ok(())
    }
}

/// Randomness of the environment.
#[derive(Clone, Copy, Debug)]
struct Knobs {
    /// Probability that the next instruction / clear is offered in a cycle.
    offer: f64,
    /// Probability of `mem_req_ready`.
    ready: f64,
    /// Probability of `out_ready`.
    out_ready: f64,
    /// Response latency range (cycles after the accepting cycle).
    lat: (u64, u64),
    /// Probability that a due response is held back a cycle.
    gap: f64,
    /// Probability of a reset in a cycle.
    reset: f64,
    /// Probability of an (ignored) `clear_valid` while a clear runs.
    junk_clear: f64,
    /// Re-draw the knobs from [`PROFILES`] now and then.
    vary: bool,
}

const IDEAL: Knobs = Knobs {
    offer: 1.0,
    ready: 1.0,
    out_ready: 1.0,
    lat: (1, 1),
    gap: 0.0,
    reset: 0.0,
    junk_clear: 0.0,
    vary: false,
};

const PROFILES: [Knobs; 4] = [
    IDEAL,
    Knobs {
        offer: 0.7,
        ready: 0.6,
        out_ready: 0.6,
        lat: (1, 6),
        gap: 0.2,
        reset: 0.001,
        junk_clear: 0.1,
        vary: true,
    },
    Knobs {
        offer: 0.3,
        ready: 0.25,
        out_ready: 0.3,
        lat: (1, 25),
        gap: 0.4,
        reset: 0.001,
        junk_clear: 0.2,
        vary: true,
    },
    Knobs {
        offer: 1.0,
        ready: 0.9,
        out_ready: 0.9,
        lat: (3, 3),
        gap: 0.0,
        reset: 0.0,
        junk_clear: 0.0,
        vary: true,
    },
];

/// One thing to present to the unit.
#[derive(Clone, Debug)]
enum Op {
    Instr(Instr),
    Clear { base: u32, bytes: u32 },
}

/// What happened in a run, with cycle numbers (for the directed tests).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Ev {
    /// Op `i` (an instruction) accepted.
    Accept(usize),
    /// Op `i` (a clear) accepted.
    ClearStart(usize),
    Req(Req),
    Resp(u32),
    Done(Completion),
    Fault(FaultRec),
    ClearBusy,
}

#[derive(Debug, Default)]
struct Stats {
    cycles: u64,
    instrs: u64,
    completions: u64,
    faults: u64,
    requests: u64,
    shared_lanes: u64,
    clears: u64,
    resets: u64,
}

struct Bench<'a> {
    cfg: GpuConfig,
    rtl: &'a mut Rtl,
    cref: CycleRef,
    func: Memories,
    mem: MemModel,
    mutation: Mutation,
    knobs: Knobs,
    log: Vec<(u64, Ev)>,
    stats: Stats,
    cycle: u64,
    /// Probability that an instruction right after a clear is offered in the clear's cycle.
    pair: f64,
}

impl<'a> Bench<'a> {
    /// A bench with `gmem` as the initial global memory; the unit is reset for two cycles.
    fn new(
        cfg: &GpuConfig,
        rtl: &'a mut Rtl,
        gmem: Vec<u8>,
        knobs: Knobs,
        mutation: Mutation,
    ) -> Self {
        let lanes = cfg.lanes as usize;
        let idle = Instr {
            tag: 0,
            warp: 0,
            store: false,
            size: 0,
            unsigned: false,
            mask: 0,
            base: vec![0; lanes],
            offset: 0,
            data: vec![0; lanes],
            smem_base: 0,
            smem_size: 0,
        };
        let reset = Inputs {
            reset: true,
            ..Default::default()
        };
        rtl.drive(&reset, &idle);
        rtl.tick();
        rtl.tick();
        Bench {
            cfg: cfg.clone(),
            cref: CycleRef::new(cfg),
            func: Memories {
                gmem: gmem.clone(),
                smem: vec![0; cfg.smem_bytes as usize],
            },
            mem: MemModel {
                gmem,
                queue: VecDeque::new(),
                last_due: 0,
            },
            rtl,
            mutation,
            knobs,
            log: Vec::new(),
            stats: Stats::default(),
            cycle: 0,
            pair: 0.25,
        }
    }

    /// Present `ops` in order and run until everything has completed; every cycle compared.
    fn run(&mut self, ops: &[Op], rng: &mut ChaCha8Rng) -> Result<(), String> {
        let lanes = self.cfg.lanes as usize;
        let limit = self.cycle + 10_000 + 400 * ops.len() as u64;
        let mut next = 0;
        let mut last: Option<(usize, Instr)> = None;
        while next < ops.len()
            || self.cref.busy.is_some()
            || self.cref.chk.is_some()
            || self.cref.fault.is_some()
            || self.cref.clearing()
        {
            if self.cycle > limit {
                return Err(format!(
                    "cycle {}: no progress (op {next} of {}), the unit seems stuck",
                    self.cycle,
                    ops.len()
                ));
            }
            if self.knobs.vary && rng.gen_range(0..300) == 0 {
                self.knobs = PROFILES[rng.gen_range(0..PROFILES.len())];
            }
            let k = self.knobs;
            let mut inp = Inputs {
                reset: k.reset > 0.0 && rng.gen_bool(k.reset),
                mem_req_ready: rng.gen_bool(k.ready),
                out_ready: rng.gen_bool(k.out_ready),
                ..Default::default()
            };
            // The instruction fields: the next instruction, or garbage while none is offered.
            let mut offer_instr: Option<usize> = None;
            let mut offer_clear: Option<usize> = None;
            match ops.get(next) {
                Some(Op::Clear { base, bytes })
                    if self.cref.busy.is_none()
                        && self.cref.chk.is_none()
                        && rng.gen_bool(k.offer) =>
                {
                    inp.clear_valid = true;
                    inp.clear_base = *base;
                    inp.clear_bytes = *bytes;
                    offer_clear = Some(next);
                    // Now and then the next instruction in the same cycle.
                    if matches!(ops.get(next + 1), Some(Op::Instr(_)))
                        && self.pair > 0.0
                        && rng.gen_bool(self.pair)
                    {
                        offer_instr = Some(next + 1);
                    }
                }
                Some(Op::Instr(_)) if rng.gen_bool(k.offer) => offer_instr = Some(next),
                _ => {}
            }
            if offer_clear.is_none()
                && self.cref.clearing()
                && k.junk_clear > 0.0
                && rng.gen_bool(k.junk_clear)
            {
                inp.clear_valid = true;
                inp.clear_base = rng.gen::<u32>() & !3;
                inp.clear_bytes = rng.gen::<u32>() & 0xfc;
            }
            if let Some(&(due, data)) = self.mem.queue.front() {
                if due <= self.cycle && !(k.gap > 0.0 && rng.gen_bool(k.gap)) {
                    inp.mem_resp_valid = true;
                    inp.mem_resp_data = data;
                }
            }
            if !inp.mem_resp_valid && rng.gen_bool(0.5) {
                inp.mem_resp_data = rng.gen();
            }
            inp.in_valid = offer_instr.is_some();
            let garbage;
            let shown = match offer_instr.map(|i| &ops[i]) {
                Some(Op::Instr(i)) => i,
                _ => {
                    garbage = random_garbage(rng, lanes);
                    &garbage
                }
            };
            self.rtl.drive(&inp, shown);
            let expect = self.cref.outputs(inp.reset);
            let got = self.rtl.outputs();
            let d = diff_outputs(&expect, &got);
            if !d.is_empty() {
                let mut msg = format!(
                    "cycle {}: outputs differ (reset = {}, mem_req_ready = {}, mem_resp_valid = {}, \
                     out_ready = {}, in_valid = {}, clear_valid = {}):\n{d}",
                    self.cycle,
                    inp.reset,
                    inp.mem_req_ready,
                    inp.mem_resp_valid,
                    inp.out_ready,
                    inp.in_valid,
                    inp.clear_valid
                );
                if let Some(b) = &self.cref.busy {
                    let _ = writeln!(
                        msg,
                        "  in flight: {} (lanes pending {:#x}, responses pending {:#x}, shared lanes {:#x})",
                        b.instr.name(),
                        b.pend,
                        b.rpend,
                        b.shared
                    );
                    for l in 0..lanes {
                        if b.instr.mask >> l & 1 == 1 {
                            let _ = writeln!(
                                msg,
                                "    lane {l}: addr {:#010x} data {:#010x}",
                                b.instr.addr(l),
                                b.instr.data[l]
                            );
                        }
                    }
                } else if let Some((idx, i)) = &last {
                    let _ = writeln!(msg, "  last accepted: op {idx}: {}", i.name());
                }
                return Err(msg);
            }
            // Handshakes of this cycle (the reference's outputs equal the unit's).
            let clear_accepted = inp.clear_valid && !self.cref.clearing() && !inp.reset;
            if clear_accepted {
                let words = inp.clear_bytes >> 2;
                for w in 0..words {
                    let a = (inp.clear_base & !3).wrapping_add(4 * w) % self.cfg.smem_bytes;
                    self.func.smem[a as usize..a as usize + 4].fill(0);
                }
                if let Some(i) = offer_clear {
                    self.log.push((self.cycle, Ev::ClearStart(i)));
                    self.stats.clears += 1;
                    next = i + 1;
                }
            }
            let mut accepted = None;
            if expect.in_ready && inp.in_valid {
                let idx = offer_instr.expect("offered");
                let Op::Instr(i) = &ops[idx] else {
                    unreachable!()
                };
                let outcome = execute(&self.cfg, i, &mut self.func, self.mutation);
                self.log.push((self.cycle, Ev::Accept(idx)));
                self.stats.instrs += 1;
                accepted = Some((i.clone(), outcome));
                last = Some((idx, i.clone()));
                next = idx + 1;
            }
            if let Some(r) = &expect.req {
                if inp.mem_req_ready {
                    let lat = rng.gen_range(k.lat.0..=k.lat.1);
                    self.mem.accept(&self.cfg, self.cycle, r, lat, rng.gen())?;
                    self.log.push((self.cycle, Ev::Req(r.clone())));
                    self.stats.requests += 1;
                }
            }
            if inp.mem_resp_valid {
                self.mem.queue.pop_front();
                self.log.push((self.cycle, Ev::Resp(inp.mem_resp_data)));
            }
            if let Some(c) = &expect.out {
                if inp.out_ready && !inp.reset {
                    self.log.push((self.cycle, Ev::Done(c.clone())));
                    self.stats.completions += 1;
                }
            }
            if let Some(f) = &expect.fault {
                self.log.push((self.cycle, Ev::Fault(f.clone())));
                self.stats.faults += 1;
            }
            if expect.clear_busy {
                self.log.push((self.cycle, Ev::ClearBusy));
            }
            if let Some((l, true)) = self.cref.selected() {
                let _ = l;
                if !self.cref.clearing() && !inp.reset {
                    self.stats.shared_lanes += 1;
                }
            }
            self.cref.step(&inp, accepted);
            if inp.reset {
                // Everything in flight is abandoned; the references restart from what the
                // memories hold now.
                self.mem.queue.clear();
                self.mem.last_due = 0;
                self.func.gmem.clone_from(&self.mem.gmem);
                self.func.smem.clone_from(&self.cref.smem);
                self.stats.resets += 1;
            }
            self.rtl.tick();
            self.cycle += 1;
            self.stats.cycles += 1;
        }
        Ok(())
    }

    /// The whole global memory of the port equals the functional reference's.
    fn check_global(&self) -> Result<(), String> {
        if self.mem.gmem == self.func.gmem {
            return Ok(());
        }
        let k = (0..self.mem.gmem.len())
            .find(|&k| self.mem.gmem[k] != self.func.gmem[k])
            .unwrap_or(0);
        Err(format!(
            "global memory differs first at {:#010x}: expected {:#04x}, got {:#04x}",
            GMEM_BASE + k as u32,
            self.func.gmem[k],
            self.mem.gmem[k]
        ))
    }
}

fn random_garbage(rng: &mut ChaCha8Rng, lanes: usize) -> Instr {
    Instr {
        tag: rng.gen(),
        warp: rng.gen_range(0..64),
        store: rng.gen(),
        size: rng.gen_range(0..4),
        unsigned: rng.gen(),
        mask: rng.gen::<u32>() & full_mask(lanes),
        base: (0..lanes).map(|_| rng.gen()).collect(),
        offset: rng.gen(),
        data: (0..lanes).map(|_| rng.gen()).collect(),
        smem_base: rng.gen(),
        smem_size: rng.gen(),
    }
}

fn full_mask(lanes: usize) -> u32 {
    if lanes == 32 {
        u32::MAX
    } else {
        (1 << lanes) - 1
    }
}

// ---------------------------------------------------------------------------------------------
// Random stimulus

/// Bytes of global memory (from `GMEM_BASE`) that most random addresses fall into.
const GWIN: u32 = 256;

struct Gen {
    cfg: GpuConfig,
    lanes: usize,
}

fn align(v: u32, n: u32) -> u32 {
    v & !(n - 1)
}

impl Gen {
    fn new(cfg: &GpuConfig) -> Gen {
        Gen {
            cfg: cfg.clone(),
            lanes: cfg.lanes as usize,
        }
    }

    fn gmem_end(&self) -> u32 {
        GMEM_BASE.wrapping_add(self.cfg.gmem_bytes)
    }

    /// Initial global memory: random bytes in the window and at the top.
    fn gmem(&self, rng: &mut ChaCha8Rng) -> Vec<u8> {
        let mut g = vec![0u8; self.cfg.gmem_bytes as usize];
        rng.fill(&mut g[..GWIN as usize]);
        let top = g.len() - 64;
        rng.fill(&mut g[top..]);
        g
    }

    fn mask(&self, rng: &mut ChaCha8Rng) -> u32 {
        let full = full_mask(self.lanes);
        match rng.gen_range(0..10) {
            0..=3 => full,
            4 => 0,
            5 => 1 << rng.gen_range(0..self.lanes),
            6 => full & !(1 << rng.gen_range(0..self.lanes)),
            _ => rng.gen::<u32>() & full,
        }
    }

    /// A CTA region of the shared memory: (base, size).
    fn region(&self, rng: &mut ChaCha8Rng) -> (u32, u32) {
        let s = self.cfg.smem_bytes;
        let q = s / 4;
        let base = q * rng.gen_range(0..4);
        match rng.gen_range(0..10) {
            0..=5 => (base, q),
            6 | 7 => (base, q - rng.gen_range(1..4)),
            8 => (base, rng.gen_range(0..16)),
            _ => (0, s),
        }
    }

    /// A valid, aligned address of an `n`-byte access.
    fn good_addr(&self, rng: &mut ChaCha8Rng, n: u32, smem_size: u32) -> u32 {
        if smem_size >= n && rng.gen_bool(0.5) {
            return SMEM_BASE + align(rng.gen_range(0..=smem_size - n), n);
        }
        if rng.gen_range(0..10) == 0 {
            return self.gmem_end() - align(rng.gen_range(n..=32), n);
        }
        GMEM_BASE + align(rng.gen_range(0..GWIN), n)
    }

    /// An address that faults (misaligned and / or out of range).
    fn bad_addr(&self, rng: &mut ChaCha8Rng, n: u32, smem_size: u32) -> u32 {
        let kind = rng.gen_range(0..9);
        match kind {
            0 | 1 if n > 1 => self.good_addr(rng, n, smem_size) + rng.gen_range(1..n),
            0 | 1 => self.gmem_end() + rng.gen_range(0..8),
            2 => align(rng.gen_range(0..self.cfg.imem_bytes), n),
            3 => self.gmem_end() + align(rng.gen_range(0..64), n),
            4 => {
                SMEM_BASE
                    + align(smem_size.saturating_sub(n) + 1 + rng.gen_range(0..8), n).max(
                        // a window smaller than the access: any offset faults
                        if smem_size < n { 0 } else { smem_size - n + 1 },
                    )
            }
            5 => SMEM_BASE - align(rng.gen_range(1..=64), n).max(n),
            6 => rng.gen(),
            7 => [
                0x2000_0000,
                0x7fff_fffc,
                0xffff_fffc,
                0x0fff_fffc,
                GMEM_BASE - 4,
            ][rng.gen_range(0..5)],
            _ => self.gmem_end() + 1 + rng.gen_range(0..64),
        }
    }

    fn data(&self, rng: &mut ChaCha8Rng) -> u32 {
        match rng.gen_range(0..8) {
            0 => 0x80 | rng.gen::<u32>() << 8,
            1 => 0x8000 | rng.gen::<u32>() << 16,
            2 => rng.gen_range(0..256),
            3 => u32::MAX,
            _ => rng.gen(),
        }
    }

    /// A random instruction; with probability `hostile` one to three lanes get a faulting
    /// address (they may be inactive).
    fn instr(&self, rng: &mut ChaCha8Rng, hostile: f64) -> Instr {
        let size = if rng.gen_range(0..50) == 0 {
            3
        } else {
            rng.gen_range(0..3)
        };
        let n = size_bytes(size);
        let (smem_base, smem_size) = self.region(rng);
        let mut addrs: Vec<u32> = if rng.gen_range(0..10) == 0 {
            let a = self.good_addr(rng, n, smem_size);
            vec![a; self.lanes]
        } else {
            (0..self.lanes)
                .map(|_| self.good_addr(rng, n, smem_size))
                .collect()
        };
        if rng.gen_bool(hostile) {
            for _ in 0..rng.gen_range(1..=3) {
                let l = rng.gen_range(0..self.lanes);
                addrs[l] = self.bad_addr(rng, n, smem_size);
            }
        }
        let offset = match rng.gen_range(0..10) {
            0..=3 => 0,
            4..=7 => align(rng.gen_range(-64i32..64) as u32, n),
            _ => rng.gen(),
        };
        Instr {
            tag: rng.gen(),
            warp: rng.gen_range(0..64),
            store: rng.gen(),
            size,
            unsigned: rng.gen(),
            mask: self.mask(rng),
            base: addrs.iter().map(|a| a.wrapping_sub(offset)).collect(),
            offset,
            data: (0..self.lanes).map(|_| self.data(rng)).collect(),
            smem_base,
            smem_size,
        }
    }

    /// Word accesses covering the whole shared memory (full mask, region = all of it).
    fn sweep(&self, rng: &mut ChaCha8Rng, store: bool) -> Vec<Op> {
        let words = self.cfg.smem_bytes / 4;
        let per = self.lanes as u32;
        (0..words.div_ceil(per))
            .map(|k| {
                let offset = if rng.gen_bool(0.5) { 0 } else { 4 * per * k };
                Op::Instr(Instr {
                    tag: rng.gen(),
                    warp: rng.gen_range(0..64),
                    store,
                    size: 2,
                    unsigned: false,
                    mask: full_mask(self.lanes),
                    base: (0..per)
                        .map(|l| (SMEM_BASE + 4 * ((per * k + l) % words)).wrapping_sub(offset))
                        .collect(),
                    offset,
                    data: (0..self.lanes).map(|_| rng.gen()).collect(),
                    smem_base: 0,
                    smem_size: self.cfg.smem_bytes,
                })
            })
            .collect()
    }

    /// A random clear of a region (multiples of 4, inside the shared memory, sometimes empty).
    fn clear(&self, rng: &mut ChaCha8Rng) -> Op {
        let s = self.cfg.smem_bytes;
        let base = align(rng.gen_range(0..s), 4);
        let bytes = match rng.gen_range(0..6) {
            0 => 0,
            1 => 4,
            _ => align(rng.gen_range(0..=(s - base).min(256)), 4),
        };
        Op::Clear { base, bytes }
    }
}

/// Clear everything, fill the shared memory with random words, `n` random instructions with
/// clears mixed in, read the whole shared memory back.
fn random_ops_for(cfg: &GpuConfig, rng: &mut ChaCha8Rng, n: usize) -> Vec<Op> {
    let g = Gen::new(cfg);
    let mut ops = vec![Op::Clear {
        base: 0,
        bytes: cfg.smem_bytes,
    }];
    ops.extend(g.sweep(rng, true));
    for _ in 0..n {
        if rng.gen_range(0..60) == 0 {
            ops.push(g.clear(rng));
        }
        ops.push(Op::Instr(g.instr(rng, 0.2)));
    }
    ops.extend(g.sweep(rng, false));
    ops
}

fn run_random(
    test: &str,
    cfg: &GpuConfig,
    rtl: &mut Rtl,
    n: usize,
    mutation: Mutation,
) -> Result<Stats, String> {
    let seed = unit_seed(test);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let gmem = Gen::new(cfg).gmem(&mut rng);
    let ops = random_ops_for(cfg, &mut rng, n);
    let t = Instant::now();
    let mut b = Bench::new(cfg, rtl, gmem, PROFILES[1], mutation);
    let r = b.run(&ops, &mut rng).and_then(|_| b.check_global());
    let stats = std::mem::take(&mut b.stats);
    r.map_err(|e| {
        format!(
            "load/store unit `{}` ({} lanes), seed {seed} (rerun: WARPFORGE_SEED={seed} cargo test \
             -p warpforge-testbench --test unit_load_store_unit {test}):\n{e}",
            cfg.name, cfg.lanes
        )
    })?;
    eprintln!("{test}: {stats:?} in {:.2?}", t.elapsed());
    Ok(stats)
}

fn check_random(test: &str, cfg: &GpuConfig) {
    let mut rtl = Rtl::new(cfg);
    let s = run_random(test, cfg, &mut rtl, random_ops(), Mutation::None)
        .unwrap_or_else(|e| panic!("{e}"));
    // The stimulus reached what it is meant to reach.
    assert!(s.faults > 50, "{s:?}");
    assert!(s.completions > 1000, "{s:?}");
    assert!(s.shared_lanes > 1000 && s.requests > 1000, "{s:?}");
    assert!(s.clears > 10, "{s:?}");
}

#[test]
fn random_tiny() {
    check_random("random_tiny", &GpuConfig::tiny());
}

#[test]
fn random_small() {
    check_random("random_small", &GpuConfig::small());
}

#[test]
#[ignore = "large preset: opt-in with `cargo test -- --ignored`"]
fn random_fermi() {
    check_random("random_fermi", &GpuConfig::fermi());
}

// ---------------------------------------------------------------------------------------------
// Directed tests

/// An instruction on the first `addrs.len()` lanes (`mask` selects among them).
#[allow(clippy::too_many_arguments)]
fn ins(
    cfg: &GpuConfig,
    store: bool,
    size: u8,
    unsigned: bool,
    mask: u32,
    addrs: &[u32],
    data: &[u32],
    smem: (u32, u32),
) -> Instr {
    let lanes = cfg.lanes as usize;
    assert!(addrs.len() <= lanes);
    let mut base = vec![GMEM_BASE; lanes];
    base[..addrs.len()].copy_from_slice(addrs);
    let mut d = vec![0; lanes];
    d[..data.len()].copy_from_slice(data);
    Instr {
        tag: 0x5a,
        warp: 7,
        store,
        size,
        unsigned,
        mask,
        base,
        offset: 0,
        data: d,
        smem_base: smem.0,
        smem_size: smem.1,
    }
}

/// A store on the first `addrs.len()` lanes.
fn st(cfg: &GpuConfig, size: u8, mask: u32, addrs: &[u32], data: &[u32], r: (u32, u32)) -> Instr {
    ins(cfg, true, size, false, mask, addrs, data, r)
}

/// A load on the first `addrs.len()` lanes.
fn ld(cfg: &GpuConfig, size: u8, unsigned: bool, mask: u32, addrs: &[u32], r: (u32, u32)) -> Instr {
    ins(cfg, false, size, unsigned, mask, addrs, &[], r)
}

/// Per instruction op, in order: (accept cycle, completion or fault, cycle of the completion
/// handshake / fault pulse).
type Result3 = (u64, Result<Completion, FaultRec>, u64);

fn results(log: &[(u64, Ev)]) -> Vec<Result3> {
    let mut out: Vec<Result3> = Vec::new();
    let mut open: Option<u64> = None;
    for (c, e) in log {
        match e {
            Ev::Accept(_) => open = Some(*c),
            Ev::Done(d) => out.push((open.take().expect("accepted"), Ok(d.clone()), *c)),
            Ev::Fault(f) => out.push((open.take().expect("accepted"), Err(f.clone()), *c)),
            _ => {}
        }
    }
    out
}

fn cycles_of(log: &[(u64, Ev)], pred: impl Fn(&Ev) -> bool) -> Vec<u64> {
    log.iter()
        .filter(|(_, e)| pred(e))
        .map(|(c, _)| *c)
        .collect()
}

/// Run `ops` on a fresh bench (all-zero global memory); returns the event log and the
/// functional reference's memories at the end.
fn directed(
    cfg: &GpuConfig,
    rtl: &mut Rtl,
    ops: &[Op],
    knobs: Knobs,
    pair: f64,
) -> (Vec<(u64, Ev)>, Memories) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let gmem = vec![0u8; cfg.gmem_bytes as usize];
    let mut b = Bench::new(cfg, rtl, gmem, knobs, Mutation::None);
    b.pair = pair;
    if let Err(e) = b.run(ops, &mut rng).and_then(|_| b.check_global()) {
        panic!("directed run on `{}`: {e}", cfg.name);
    }
    (std::mem::take(&mut b.log), b.func.clone())
}

fn done(r: &Result3) -> &Completion {
    match &r.1 {
        Ok(c) => c,
        Err(f) => panic!("expected a completion, got fault {f:?}"),
    }
}

fn fault(r: &Result3) -> &FaultRec {
    match &r.1 {
        Err(f) => f,
        Ok(c) => panic!("expected a fault, got completion {c:?}"),
    }
}

/// Sub-word loads from global and shared memory at every byte offset, sign and zero extension;
/// sub-word stores (byte enables, truncated store data, data on the port); several lanes storing
/// to one address (the highest lane's data stays).
#[test]
fn sub_word_access_and_extension() {
    let cfg = GpuConfig::tiny();
    let mut rtl = Rtl::new(&cfg);
    let w = [0x80ff_7f01u32, 0x0080_7fff];
    let g = GMEM_BASE + 0x40;
    let s = SMEM_BASE + 0x10;
    let region = (0x100, 0x80);
    let mut ops = vec![
        Op::Instr(st(&cfg, 2, 0b11, &[g, g + 4], &w, region)),
        Op::Instr(st(&cfg, 2, 0b11, &[s, s + 4], &w, region)),
    ];
    // (size, unsigned, byte offsets of lanes 0..3, expected values)
    #[allow(clippy::type_complexity)]
    let loads: [(u8, bool, [u32; 4], [u32; 4]); 7] = [
        (
            0,
            false,
            [0, 1, 2, 3],
            [0x1, 0x7f, 0xffff_ffff, 0xffff_ff80],
        ),
        (0, true, [0, 1, 2, 3], [0x1, 0x7f, 0xff, 0x80]),
        (
            0,
            false,
            [4, 5, 6, 7],
            [0xffff_ffff, 0x7f, 0xffff_ff80, 0x0],
        ),
        (0, true, [4, 5, 6, 7], [0xff, 0x7f, 0x80, 0x0]),
        (1, false, [0, 2, 4, 6], [0x7f01, 0xffff_80ff, 0x7fff, 0x80]),
        (1, true, [0, 2, 4, 6], [0x7f01, 0x80ff, 0x7fff, 0x80]),
        (
            2,
            true,
            [0, 4, 0, 4],
            [0x80ff_7f01, 0x0080_7fff, 0x80ff_7f01, 0x0080_7fff],
        ),
    ];
    for base in [g, s] {
        for (size, unsigned, offs, _) in &loads {
            let addrs: Vec<u32> = offs.iter().map(|o| base + o).collect();
            ops.push(Op::Instr(ld(&cfg, *size, *unsigned, 0xf, &addrs, region)));
        }
    }
    // Sub-word stores into one word, then read it back; in both spaces.
    for base in [g + 0x20, s + 0x20] {
        ops.push(Op::Instr(st(&cfg, 2, 1, &[base], &[0], region)));
        ops.push(Op::Instr(st(
            &cfg,
            0,
            1,
            &[base + 1],
            &[0x1234_56ab],
            region,
        )));
        ops.push(Op::Instr(st(
            &cfg,
            1,
            1,
            &[base + 2],
            &[0xffff_cdef],
            region,
        )));
        ops.push(Op::Instr(st(&cfg, 0, 1, &[base], &[0x5a], region)));
        ops.push(Op::Instr(ld(&cfg, 2, false, 1, &[base], region)));
        // Four lanes, four bytes of one word; then four lanes storing one word.
        let b4 = base + 0x10;
        ops.push(Op::Instr(st(
            &cfg,
            0,
            0xf,
            &[b4, b4 + 1, b4 + 2, b4 + 3],
            &[0xee11, 0xdd22, 0xcc33, 0xbb44],
            region,
        )));
        ops.push(Op::Instr(ld(&cfg, 2, false, 1, &[b4], region)));
        ops.push(Op::Instr(st(
            &cfg,
            2,
            0xf,
            &[b4 + 4; 4],
            &[1, 2, 3, 4],
            region,
        )));
        ops.push(Op::Instr(ld(&cfg, 2, false, 1, &[b4 + 4], region)));
    }
    let (log, mem) = directed(&cfg, &mut rtl, &ops, IDEAL, 0.0);
    let r = results(&log);
    assert_eq!(r.len(), ops.len());
    for (k, (_, _, _, want)) in loads.iter().enumerate() {
        for (space, first) in [("global", 2), ("shared", 2 + loads.len())] {
            let c = done(&r[first + k]);
            assert_eq!(&c.data[..4], want, "{space} load #{k}");
        }
    }
    for (space, first) in [
        ("global", 2 + 2 * loads.len()),
        ("shared", 2 + 2 * loads.len() + 9),
    ] {
        assert_eq!(
            done(&r[first + 1]).sdata[0],
            0xab,
            "{space}: sb store data truncated"
        );
        assert_eq!(
            done(&r[first + 2]).sdata[0],
            0xcdef,
            "{space}: sh store data truncated"
        );
        assert_eq!(
            done(&r[first + 4]).data[0],
            0xcdef_ab5a,
            "{space}: byte enables"
        );
        assert_eq!(
            done(&r[first + 6]).data[0],
            0x4433_2211,
            "{space}: 4 lanes, 4 bytes"
        );
        assert_eq!(
            done(&r[first + 8]).data[0],
            4,
            "{space}: the highest lane's store stays"
        );
    }
    // On the port: sb carries the byte in the low bits, zeros above.
    let reqs: Vec<Req> = log
        .iter()
        .filter_map(|(_, e)| match e {
            Ev::Req(r) if r.write && r.size != 2 => Some(r.clone()),
            _ => None,
        })
        .collect();
    assert!(reqs.contains(&Req {
        write: true,
        addr: g + 0x21,
        size: 0,
        data: 0xab
    }));
    assert!(reqs.contains(&Req {
        write: true,
        addr: g + 0x22,
        size: 1,
        data: 0xcdef
    }));
    // Shared memory holds the region at base 0x100: the words landed at 0x110 and 0x114.
    assert_eq!(read_le(&mem.smem, 0x110, 4), w[0]);
    assert_eq!(read_le(&mem.smem, 0x114, 4), w[1]);
}

/// The cycles of docs/microarch/load_store_unit.md "Examples" (ideal environment:
/// `mem_req_ready` and `out_ready` always 1, read latency 1, an instruction offered every cycle).
#[test]
fn timing_examples() {
    let cfg = GpuConfig::tiny();
    let mut rtl = Rtl::new(&cfg);
    let g = GMEM_BASE + 0x80;
    let s = SMEM_BASE + 0x40;
    let region = (0, 0x100);
    let d = [1, 2, 3, 4];
    let ops = vec![
        // 0: global store, lanes 0, 1, 3
        Op::Instr(st(&cfg, 2, 0b1011, &[g, g + 4, g + 8, g + 12], &d, region)),
        // 1: global load, 4 lanes
        Op::Instr(ld(&cfg, 2, false, 0xf, &[g, g + 4, g + 8, g + 12], region)),
        // 2: shared load, 4 lanes
        Op::Instr(ld(&cfg, 2, false, 0xf, &[s, s + 4, s + 8, s + 12], region)),
        // 3: shared store, 4 lanes
        Op::Instr(st(&cfg, 2, 0xf, &[s, s + 4, s + 8, s + 12], &d, region)),
        // 4: empty mask
        Op::Instr(ld(&cfg, 2, false, 0, &[], region)),
        // 5: mixed load: shared, global, shared, global
        Op::Instr(ld(&cfg, 2, false, 0xf, &[s, g, s + 4, g + 4], region)),
        // 6: fault (lane 2 misaligned)
        Op::Instr(ld(&cfg, 2, false, 0xf, &[g, g, g + 2, g], region)),
        // 7: a global store after the fault
        Op::Instr(st(&cfg, 2, 1, &[g], &d, region)),
        // 8: a uniform global load: one request for all lanes
        Op::Instr(ld(&cfg, 2, false, 0xf, &[g, g, g, g], region)),
        // 9: two addresses, interleaved: two requests
        Op::Instr(ld(&cfg, 1, true, 0xf, &[g + 6, g, g + 6, g], region)),
        // 10: a uniform global store: one request per lane (the highest lane's data stays)
        Op::Instr(st(&cfg, 2, 0xf, &[g, g, g, g], &d, region)),
    ];
    let (log, _) = directed(&cfg, &mut rtl, &ops, IDEAL, 0.0);
    let r = results(&log);
    let t: Vec<u64> = r.iter().map(|x| x.0).collect();
    let reqs = cycles_of(&log, |e| matches!(e, Ev::Req(_)));
    let resps = cycles_of(&log, |e| matches!(e, Ev::Resp(_)));
    // A load's completion is a register set at the edge after which every access is
    // performed: the same cycles as unregistered, but for an empty mask.
    // 0: requests t+1, t+2, t+3; completion t+4; next accept t+5.
    assert_eq!(&reqs[..3], &[t[0] + 1, t[0] + 2, t[0] + 3]);
    assert_eq!(r[0].2, t[0] + 4);
    assert_eq!(t[1], t[0] + 5);
    // 1: requests t+1..t+4, responses t+2..t+5, completion t+6.
    assert_eq!(&reqs[3..7], &[t[1] + 1, t[1] + 2, t[1] + 3, t[1] + 4]);
    assert_eq!(&resps[..4], &[t[1] + 2, t[1] + 3, t[1] + 4, t[1] + 5]);
    assert_eq!(r[1].2, t[1] + 6);
    assert_eq!(t[2], t[1] + 7);
    // 2: shared reads t+1..t+4, completion t+7 (the last word is registered at t+5's end and
    // extended into the lane at t+6's).
    assert_eq!(r[2].2, t[2] + 7);
    // 3: shared writes t+1..t+4, completion t+5.
    assert_eq!(r[3].2, t[3] + 5);
    // 4: empty mask, completion t+2 (a cycle later than unregistered: nothing to wait for,
    // but the register is set from the first busy cycle).
    assert_eq!(r[4].2, t[4] + 2);
    // 5: shared t+1, request t+2, shared t+3, request t+4, response t+5, completion t+6.
    assert_eq!(&reqs[7..9], &[t[5] + 2, t[5] + 4]);
    assert_eq!(r[5].2, t[5] + 6);
    // 6: fault pulse t+2 (checked in t+1, no access); the next instruction is accepted at t+3.
    assert_eq!(r[6].2, t[6] + 2);
    assert_eq!(t[7], t[6] + 3);
    assert_eq!(
        reqs[9],
        t[7] + 1,
        "the faulting instruction makes no request"
    );
    assert_eq!(r[7].2, t[7] + 2);
    // 8: request t+1, response t+2, completion t+3.
    assert_eq!(reqs[10], t[8] + 1);
    assert_eq!(r[8].2, t[8] + 3);
    // 9: requests t+1 (lanes 0, 2), t+2 (lanes 1, 3); completion t+4.
    assert_eq!(&reqs[11..13], &[t[9] + 1, t[9] + 2]);
    assert_eq!(r[9].2, t[9] + 4);
    // 10: four requests t+1..t+4.
    assert_eq!(&reqs[13..], &[t[10] + 1, t[10] + 2, t[10] + 3, t[10] + 4]);
    let f = fault(&r[6]);
    assert_eq!((f.cause, f.lane, f.addr), (CAUSE_MISALIGNED_LOAD, 2, g + 2));
}

/// Clearing: one word per cycle, `clear_busy` for exactly `bytes / 4` cycles from the cycle
/// after `clear_valid`, `in_ready` low meanwhile, contents zeroed in the range only; an
/// instruction accepted in the clear's cycle waits for it with its shared lanes only.
#[test]
fn shared_clear() {
    let cfg = GpuConfig::tiny();
    let mut rtl = Rtl::new(&cfg);
    let mut rng = ChaCha8Rng::seed_from_u64(unit_seed("shared_clear"));
    let gen = Gen::new(&cfg);
    let g = GMEM_BASE + 0x80;
    let full = (0, cfg.smem_bytes);
    let mut ops = gen.sweep(&mut rng, true);
    let fill = ops.len();
    ops.push(Op::Clear {
        base: 64,
        bytes: 40,
    });
    ops.push(Op::Instr(ld(&cfg, 2, false, 0xf, &[g, g, g, g], full)));
    ops.push(Op::Clear { base: 8, bytes: 0 });
    ops.push(Op::Instr(ld(&cfg, 2, false, 1, &[g], full)));
    ops.extend(gen.sweep(&mut rng, false));
    let (log, mem) = directed(&cfg, &mut rtl, &ops, IDEAL, 0.0);
    let starts = cycles_of(&log, |e| matches!(e, Ev::ClearStart(_)));
    let busy = cycles_of(&log, |e| matches!(e, Ev::ClearBusy));
    let accepts: Vec<(u64, usize)> = log
        .iter()
        .filter_map(|(c, e)| match e {
            Ev::Accept(i) => Some((*c, *i)),
            _ => None,
        })
        .collect();
    let accept_of = |i: usize| accepts.iter().find(|a| a.1 == i).expect("accepted").0;
    let c0 = starts[0];
    assert_eq!(busy, (c0 + 1..=c0 + 10).collect::<Vec<_>>());
    assert_eq!(accept_of(fill + 1), c0 + 11, "in_ready low while clearing");
    // An empty clear: no busy cycle, the next instruction right after.
    assert_eq!(accept_of(fill + 3), starts[1] + 1);
    // Contents (readback compared by the bench too): the cleared words are zero.
    for a in (64..104).step_by(4) {
        assert_eq!(read_le(&mem.smem, a, 4), 0);
    }
    let r = results(&log);
    let back = &r[r.len() - gen.sweep(&mut rng, false).len()..];
    let lanes = cfg.lanes as usize;
    for (k, x) in back.iter().enumerate() {
        let c = done(x);
        for l in 0..lanes {
            let a = 4 * (k * lanes + l);
            let want = if (64..104).contains(&a) {
                0
            } else {
                read_le(&mem.smem, a, 4)
            };
            assert_eq!(c.data[l], want, "word {a:#x}");
            if !(64..104).contains(&a) {
                assert_ne!(want, 0, "fill data should be non-zero at {a:#x} (seeded)");
            }
        }
    }

    // An instruction in the clear's own cycle: its global lanes proceed, its shared lanes wait.
    let ops = vec![
        Op::Clear { base: 0, bytes: 8 },
        Op::Instr(st(&cfg, 2, 0b11, &[g, SMEM_BASE], &[9, 9], full)),
    ];
    let (log, _) = directed(&cfg, &mut rtl, &ops, IDEAL, 1.0);
    let c0 = cycles_of(&log, |e| matches!(e, Ev::ClearStart(_)))[0];
    let r = results(&log);
    assert_eq!(r[0].0, c0, "accepted in the clear's cycle");
    assert_eq!(cycles_of(&log, |e| matches!(e, Ev::Req(_))), vec![c0 + 1]);
    assert_eq!(
        cycles_of(&log, |e| matches!(e, Ev::ClearBusy)),
        vec![c0 + 1, c0 + 2]
    );
    // shared write in c0 + 3, completion c0 + 4
    assert_eq!(r[0].2, c0 + 4);
}

/// An instruction and its expected fault (cause, lane, address), `None` = completes.
type Case = (Instr, Option<(u8, u8, u32)>);

/// The golden model's fault precedence: active lanes in increasing order, for each lane the
/// alignment first and then the region; the first faulting lane decides; its address is
/// reported; inactive lanes never fault. Boundaries of both windows; the exact pulse cycle.
fn precedence_cases(cfg: &GpuConfig) -> Vec<Case> {
    let gend = GMEM_BASE.wrapping_add(cfg.gmem_bytes);
    let g = GMEM_BASE + 0x40;
    let s = SMEM_BASE;
    let r6 = (0x200, 6);
    let mut v = vec![
        // lane 0 out of range (instruction memory), lane 1 misaligned: lane 0 wins
        (
            ld(cfg, 2, false, 0b11, &[0x100, g + 2], r6),
            Some((CAUSE_OUT_OF_RANGE_LOAD, 0, 0x100)),
        ),
        (
            st(cfg, 2, 0b11, &[0x100, g + 2], &[], r6),
            Some((CAUSE_OUT_OF_RANGE_STORE, 0, 0x100)),
        ),
        // the faulting lane 0 is inactive: lane 1 (misaligned) is reported
        (
            ld(cfg, 2, false, 0b10, &[0x100, g + 2], r6),
            Some((CAUSE_MISALIGNED_LOAD, 1, g + 2)),
        ),
        (
            st(cfg, 1, 0b10, &[0x100, g + 1], &[], r6),
            Some((CAUSE_MISALIGNED_STORE, 1, g + 1)),
        ),
        // misaligned and out of range in one lane: misaligned
        (
            ld(cfg, 2, false, 0b100, &[g, g, 0x102], r6),
            Some((CAUSE_MISALIGNED_LOAD, 2, 0x102)),
        ),
        (
            st(cfg, 1, 0b100, &[g, g, gend + 1], &[], r6),
            Some((CAUSE_MISALIGNED_STORE, 2, gend + 1)),
        ),
        // every lane faults: the lowest
        (
            ld(cfg, 0, false, 0b1110, &[1, 2, 3, 4], r6),
            Some((CAUSE_OUT_OF_RANGE_LOAD, 1, 2)),
        ),
        // shared window of 6 bytes: half at 4 fits, word at 4 does not, byte at 5 fits, at 6 not
        (ld(cfg, 1, false, 1, &[s + 4], r6), None),
        (
            ld(cfg, 2, false, 1, &[s + 4], r6),
            Some((CAUSE_OUT_OF_RANGE_LOAD, 0, s + 4)),
        ),
        (st(cfg, 0, 1, &[s + 5], &[], r6), None),
        (
            st(cfg, 0, 1, &[s + 6], &[], r6),
            Some((CAUSE_OUT_OF_RANGE_STORE, 0, s + 6)),
        ),
        // an empty window; just below the window
        (
            ld(cfg, 0, false, 1, &[s], (0, 0)),
            Some((CAUSE_OUT_OF_RANGE_LOAD, 0, s)),
        ),
        (
            ld(cfg, 0, false, 1, &[s - 1], r6),
            Some((CAUSE_OUT_OF_RANGE_LOAD, 0, s - 1)),
        ),
        // the end of global memory: the last word fits, the byte after it does not
        (ld(cfg, 2, false, 1, &[gend - 4], r6), None),
        (
            st(cfg, 0, 1, &[gend], &[], r6),
            Some((CAUSE_OUT_OF_RANGE_STORE, 0, gend)),
        ),
        (
            ld(cfg, 2, false, 1, &[GMEM_BASE - 4], r6),
            Some((CAUSE_OUT_OF_RANGE_LOAD, 0, GMEM_BASE - 4)),
        ),
        // a misaligned lane behind an out-of-range one, both active, stores
        (
            st(cfg, 2, 0b11, &[gend, g + 1], &[], r6),
            Some((CAUSE_OUT_OF_RANGE_STORE, 0, gend)),
        ),
        // a valid mix
        (
            st(cfg, 2, 0xf, &[g, s, g + 4, s + 4], &[], (0x200, 8)),
            None,
        ),
    ];
    // The address wraps: base 0xffff_ffff + offset 1 = 0 (instruction memory).
    let mut w = ld(cfg, 0, false, 1, &[0xffff_ffff], r6);
    w.offset = 1;
    v.push((w, Some((CAUSE_OUT_OF_RANGE_LOAD, 0, 0))));
    // base + offset is what is checked and reported: base in range, offset takes it out.
    let mut o = st(cfg, 2, 1, &[GMEM_BASE], &[], r6);
    o.offset = (-4i32) as u32;
    v.push((o, Some((CAUSE_OUT_OF_RANGE_STORE, 0, GMEM_BASE - 4))));
    v
}

#[test]
fn fault_precedence() {
    let cfg = GpuConfig::tiny();
    let mut rtl = Rtl::new(&cfg);
    let cases = precedence_cases(&cfg);
    let ops: Vec<Op> = cases.iter().map(|(i, _)| Op::Instr(i.clone())).collect();
    let (log, _) = directed(&cfg, &mut rtl, &ops, IDEAL, 0.0);
    let r = results(&log);
    assert_eq!(r.len(), cases.len());
    for (k, ((i, want), got)) in cases.iter().zip(&r).enumerate() {
        match want {
            Some((cause, lane, addr)) => {
                let f = fault(got);
                assert_eq!(
                    (f.cause, f.lane, f.addr, f.tag, f.warp),
                    (*cause, *lane, *addr, i.tag, i.warp),
                    "case {k}: {}",
                    i.name()
                );
                assert_eq!(
                    got.2,
                    got.0 + 2,
                    "case {k}: the pulse follows the check cycle (accept + 1)"
                );
            }
            None => {
                done(got);
            }
        }
    }
    // A faulting instruction makes no request and touches no memory: only the non-faulting
    // instructions' lanes appear on the port.
    let global_lanes: u32 = cases
        .iter()
        .filter(|(_, w)| w.is_none())
        .map(|(i, _)| {
            (0..4)
                .filter(|&l| i.mask >> l & 1 == 1 && i.addr(l) >= GMEM_BASE)
                .count() as u32
        })
        .sum();
    assert_eq!(
        cycles_of(&log, |e| matches!(e, Ev::Req(_))).len() as u32,
        global_lanes
    );
}

// ---------------------------------------------------------------------------------------------
// The functional reference against the golden model

fn cause_code(c: warpforge_sim::FaultCause) -> u8 {
    use warpforge_sim::FaultCause as F;
    match c {
        F::MisalignedLoad | F::MisalignedStore | F::OutOfRangeLoad | F::OutOfRangeStore => c.code(),
        other => panic!("the load/store unit raised {other:?}"),
    }
}

/// Execute `i` (offset a 12-bit immediate, mask non-zero) on the golden model: a one-warp
/// kernel loads each lane's base and data from tables at `GMEM_BASE`, narrows the mask with
/// `wf.tmc`, then executes the load (`x9`) or store. Compares fault, values, store record and
/// global memory with [`execute`] run on the same memory.
/// Returns whether the instruction faulted.
fn golden_case(cfg: &GpuConfig, i: &Instr, shared_bytes: u32) -> Result<bool, String> {
    use warpforge_isa::{csr, encode, AluOp, CsrOp, Instr as I, LoadOp, SimtOp, StoreOp};
    let lanes = cfg.lanes as usize;
    let imm = i.offset as i32;
    assert!((-2048..2048).contains(&imm) && i.mask != 0);
    let op = if i.store {
        I::Store {
            op: [StoreOp::Sb, StoreOp::Sh, StoreOp::Sw][norm_size(i.size) as usize],
            rs1: 7,
            rs2: 8,
            imm,
        }
    } else {
        let op = match (norm_size(i.size), i.unsigned) {
            (0, false) => LoadOp::Lb,
            (0, true) => LoadOp::Lbu,
            (1, false) => LoadOp::Lh,
            (1, true) => LoadOp::Lhu,
            _ => LoadOp::Lw,
        };
        I::Load {
            op,
            rd: 9,
            rs1: 7,
            imm,
        }
    };
    let prog = [
        I::Csr {
            op: CsrOp::Rs,
            rd: 5,
            src: 0,
            csr: csr::LANEID,
        },
        I::OpImm {
            op: AluOp::Sll,
            rd: 5,
            rs1: 5,
            imm: 2,
        },
        I::Lui {
            rd: 6,
            imm: GMEM_BASE as i32,
        },
        I::Op {
            op: AluOp::Add,
            rd: 6,
            rs1: 6,
            rs2: 5,
        },
        I::Load {
            op: LoadOp::Lw,
            rd: 7,
            rs1: 6,
            imm: 0,
        },
        I::Load {
            op: LoadOp::Lw,
            rd: 8,
            rs1: 6,
            imm: 128,
        },
        I::Load {
            op: LoadOp::Lw,
            rd: 10,
            rs1: 6,
            imm: 256,
        },
        I::Simt {
            op: SimtOp::Tmc,
            rs1: 10,
        },
        op,
        I::Simt {
            op: SimtOp::Exit,
            rs1: 0,
        },
    ];
    let words: Vec<u32> = prog.iter().map(encode).collect();
    let mut image =
        warpforge_loader::from_words(0, words, &[0]).map_err(|e| format!("loader: {e}"))?;
    image.shared_bytes = shared_bytes;
    let mut gpu = warpforge_sim::Gpu::new(cfg, &image).map_err(|e| e.to_string())?;
    let mut tables = vec![0u8; 384];
    for l in 0..lanes {
        write_le(&mut tables, 4 * l, 4, i.base[l]);
        write_le(&mut tables, 128 + 4 * l, 4, i.data[l]);
        write_le(&mut tables, 256 + 4 * l, 4, i.mask);
    }
    gpu.write(GMEM_BASE, &tables).map_err(|e| e.to_string())?;
    gpu.launch_driven(1, cfg.lanes, GMEM_BASE + 0x1000)
        .map_err(|e| e.to_string())?;
    gpu.dispatch_cta(0).map_err(|e| e.to_string())?;
    for _ in 0..8 {
        let c = gpu.step(0, 0).map_err(|e| e.to_string())?;
        if let Some(f) = &c.fault {
            return Err(format!("kernel prologue faulted: {f}"));
        }
    }
    // The model's CTA window is the `.shared` size rounded up to a word.
    let mut ri = i.clone();
    ri.smem_base = 0;
    ri.smem_size = shared_bytes.next_multiple_of(4);
    let mut mem = Memories {
        gmem: gpu.global_memory().to_vec(),
        smem: vec![0; cfg.smem_bytes as usize],
    };
    let mine = execute(cfg, &ri, &mut mem, Mutation::None);
    let commit = gpu.step(0, 0).map_err(|e| e.to_string())?.clone();
    match (&mine, &commit.fault) {
        (Outcome::Fault(f), Some(g)) => {
            let got = (cause_code(g.cause), g.lane.map(|l| l as u8), g.addr);
            if got != (f.cause, Some(f.lane), Some(f.addr)) {
                return Err(format!("fault: reference {f:?}, golden model {g}"));
            }
        }
        (Outcome::Done(c), None) => {
            for l in 0..lanes {
                if i.mask >> l & 1 == 0 {
                    continue;
                }
                if i.store {
                    let rec = commit
                        .store
                        .as_ref()
                        .ok_or("golden model: no store record")?;
                    if (rec.addr[l], rec.data[l]) != (c.addr[l], c.sdata[l]) {
                        return Err(format!(
                            "lane {l}: store record reference ({:#x}, {:#x}), golden model ({:#x}, {:#x})",
                            c.addr[l], c.sdata[l], rec.addr[l], rec.data[l]
                        ));
                    }
                } else {
                    let v = gpu.reg(0, 0, l as u32, 9);
                    if v != c.data[l] {
                        return Err(format!(
                            "lane {l}: loaded value reference {:#x}, golden model {v:#x}",
                            c.data[l]
                        ));
                    }
                }
            }
            if gpu.global_memory() != &mem.gmem[..] {
                return Err("global memory differs after the store".into());
            }
        }
        (m, g) => return Err(format!("reference {m:?}, golden model fault {g:?}")),
    }
    Ok(matches!(mine, Outcome::Fault(_)))
}

/// The functional reference of this file is the golden model's: random and directed
/// instructions executed by both give the same fault, values and memory.
#[test]
fn reference_matches_golden_model() {
    let cfg = GpuConfig::tiny();
    let mut rng = ChaCha8Rng::seed_from_u64(unit_seed("reference_matches_golden_model"));
    let gen = Gen::new(&cfg);
    let mut cases: Vec<(Instr, u32)> = precedence_cases(&cfg)
        .into_iter()
        .filter(|(i, _)| i.mask != 0)
        .map(|(i, _)| {
            let sb = i.smem_size;
            (i, sb)
        })
        .collect();
    let mut faults = 0usize;
    for _ in 0..600 {
        let mut i = gen.instr(&mut rng, 0.5);
        if i.mask == 0 {
            i.mask = 1;
        }
        // a 12-bit immediate
        let new_off = (rng.gen_range(-2048i32..2048) as u32) & !3;
        for l in 0..cfg.lanes as usize {
            let a = i.addr(l);
            i.base[l] = a.wrapping_sub(new_off);
        }
        i.offset = new_off;
        // `.shared` sizes that are not a multiple of 4 are rounded up by the model
        let sb = match rng.gen_range(0..4) {
            0 => i.smem_size.saturating_sub(rng.gen_range(0..4)),
            _ => i.smem_size,
        };
        i.smem_size = sb;
        cases.push((i, sb));
    }
    for (k, (i, sb)) in cases.iter().enumerate() {
        match golden_case(&cfg, i, *sb) {
            Ok(f) => faults += usize::from(f),
            Err(e) => panic!("case {k}: {} with .shared = {sb}: {e}\n{i:?}", i.name()),
        }
    }
    // Both outcomes are well represented.
    assert!(
        faults > 100 && cases.len() - faults > 100,
        "{faults} faults in {} cases",
        cases.len()
    );
}

// ---------------------------------------------------------------------------------------------
// Lint of every preset and the checker's self-test

/// verilator -Wall on every preset (yosys: tiny here, every preset with `WARPFORGE_FULL=1`).
#[test]
fn lint_presets() {
    for cfg in [GpuConfig::tiny(), GpuConfig::small(), GpuConfig::fermi()] {
        let top = top_name(&cfg);
        let v = verilog(&cfg);
        if let Err(e) = lint(&top, &v) {
            panic!("verilator --lint-only -Wall rejects {top}:\n{e}");
        }
        if cfg.name == "tiny" || warpforge_testbench::unit::full_tests() {
            assert_yosys_accepts(&top, &v);
        }
    }
}

/// The checker is not vacuous: references with one deliberate error each are caught.
#[test]
fn checker_catches_wrong_reference() {
    let cfg = GpuConfig::tiny();
    let mut rtl = Rtl::new(&cfg);
    for (m, field) in [
        (Mutation::RangeBeforeAlign, "fault_cause"),
        (Mutation::HighestFaultLane, "fault_lane"),
        (Mutation::NoSignExtension, "out_data"),
        (Mutation::SharedWindowShort, "_valid"),
    ] {
        let e = run_random("checker_catches_wrong_reference", &cfg, &mut rtl, 600, m)
            .expect_err(&format!("{m:?} must be caught"));
        assert!(e.contains(field), "{m:?}: {e}");
    }
}
