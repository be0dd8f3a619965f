//! Unit co-simulation of the SIMT stack RTL (`hdl/src/simt_stack.rs`, docs/microarch/simt_stack.md)
//! against the golden model's stack (`warpforge_sim::simt_stack::SimtStack`).
//!
//! * `lint_*` / `yosys_*`: the generated Verilog passes `verilator --lint-only -Wall` (tiny,
//!   small, fermi with 8 warps) and yosys `synth` (tiny and small only: slow on larger ones).
//! * `random_*`: thousands of seeded random command sequences per configuration; after every
//!   command (one clock edge) the RTL's whole architectural state must equal the reference after
//!   the same command and a complete `settle()`: every warp's TOS pc / mask, depth, empty, full,
//!   and every entry (valid, RPC, PC, mask) of the commanded warp through the debug read port;
//!   every entry of every warp at the end of a sequence. `overflow` must pulse exactly in the
//!   cycle after an overflowing split. Reproduce one failing sequence with
//!   `WARPFORGE_SIMT_SEED=<seed> cargo test -p warpforge-testbench --test unit_simt_stack <test>`.
//! * `fig_3_4_d`: the book's Fig. 3.4 walk (states (c), (d), (e)) on one warp.
//! * `timing_*`: the documented cycle behaviour (settle in the command cycle, outputs registered,
//!   overflow pulse, synchronous reset, ignored commands).
//!
//! The fermi preset has 48 warps × depth 32: its Verilog (7.3 MB, 7 730 modules: rust-hdl emits
//! one module per flip-flop instance) takes 5–15 minutes to Verilate and compile on two cores,
//! so the default tests use fermi's lanes (32) and depth (32) with 8 warps (`fermi-w8`); the full
//! preset is in the ignored tests `lint_fermi` and `random_fermi` (`-- --ignored`).

use std::collections::{BTreeSet, VecDeque};
use std::fmt;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use warpforge_config::GpuConfig;
use warpforge_hdl::simt_stack::{
    simt_stack_verilog, OP_EXIT, OP_NOP, OP_RESET, OP_SET_PC, OP_SPLIT,
};
use warpforge_sim::simt_stack::{SimtStack as RefStack, StackEntry, RPC_NONE};
use warpforge_testbench::unit::{build_unit, lint, yosys_check, yosys_memory_count};
use warpforge_testbench::verilator_model::{LoadedModel, PortId};

// ---------------------------------------------------------------------------------------------
// Configurations

fn tiny() -> GpuConfig {
    GpuConfig::tiny()
}

fn small() -> GpuConfig {
    GpuConfig::small()
}

/// fermi's lanes and stack depth, 8 of its 48 warps (see the module comment).
fn fermi_w8() -> GpuConfig {
    let mut cfg = GpuConfig::fermi();
    cfg.warps = 8;
    cfg.name = "fermi-w8".into();
    cfg
}

fn top_name(cfg: &GpuConfig) -> String {
    format!("simt_stack_{}", cfg.name.replace('-', "_"))
}

fn verilog(cfg: &GpuConfig) -> String {
    simt_stack_verilog(cfg, &top_name(cfg)).unwrap_or_else(|e| panic!("{}: {e}", cfg.name))
}

/// `verilator --lint-only -Wall` must print nothing.
fn lint_cfg(cfg: &GpuConfig) {
    let v = verilog(cfg);
    if let Err(e) = lint(&top_name(cfg), &v) {
        panic!("verilator --lint-only -Wall on {}:\n{e}", cfg.name);
    }
}

#[test]
fn lint_tiny() {
    lint_cfg(&tiny());
}

#[test]
fn lint_small() {
    lint_cfg(&small());
}

#[test]
fn lint_fermi_w8() {
    lint_cfg(&fermi_w8());
}

/// The full fermi preset (48 warps, 7.3 MB of Verilog): about a minute; run with `--ignored`.
#[test]
#[ignore]
fn lint_fermi() {
    lint_cfg(&GpuConfig::fermi());
}

#[test]
fn yosys_tiny() {
    let cfg = tiny();
    yosys_check(&top_name(&cfg), &verilog(&cfg)).unwrap_or_else(|e| panic!("yosys on tiny:\n{e}"));
}

/// The entries below the top are RAM: yosys infers eight memories (rpc, pc, mask and the
/// `pc == rpc` flag, for the even and the odd levels), not `warps × depth` registers.
#[test]
fn entries_are_inferred_as_memories() {
    for cfg in [tiny(), small()] {
        let n = yosys_memory_count(&top_name(&cfg), &verilog(&cfg))
            .unwrap_or_else(|e| panic!("{}: {e}", cfg.name));
        assert_eq!(n, 8, "{}: {n} memories", cfg.name);
    }
}

#[test]
#[ignore = "yosys synth of small takes minutes: opt-in with `cargo test -- --ignored`"]
fn yosys_small() {
    let cfg = small();
    yosys_check(&top_name(&cfg), &verilog(&cfg)).unwrap_or_else(|e| panic!("yosys on small:\n{e}"));
}

// ---------------------------------------------------------------------------------------------
// Commands

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cmd {
    Nop,
    Reset {
        warp: u32,
        pc: u32,
        mask: u32,
    },
    SetPc {
        warp: u32,
        pc: u32,
    },
    Split {
        warp: u32,
        rpc: u32,
        first: (u32, u32),
        second: (u32, u32),
    },
    Exit {
        warp: u32,
        mask: u32,
    },
    /// Raw encoding (undefined op codes, warp numbers >= warps): must change nothing.
    Raw {
        op: u64,
        warp: u32,
        pc: u32,
        mask: u32,
    },
}

impl Cmd {
    fn warp(&self) -> Option<u32> {
        match *self {
            Cmd::Nop | Cmd::Raw { .. } => None,
            Cmd::Reset { warp, .. }
            | Cmd::SetPc { warp, .. }
            | Cmd::Split { warp, .. }
            | Cmd::Exit { warp, .. } => Some(warp),
        }
    }
}

impl fmt::Display for Cmd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Cmd::Nop => write!(f, "nop"),
            Cmd::Reset { warp, pc, mask } => {
                write!(f, "reset(w{warp}, pc={pc:#x}, mask={mask:#x})")
            }
            Cmd::SetPc { warp, pc } => write!(f, "set_pc(w{warp}, pc={pc:#x})"),
            Cmd::Split {
                warp,
                rpc,
                first,
                second,
            } => write!(
                f,
                "split(w{warp}, rpc={rpc:#x}, first=({:#x}, {:#x}), second=({:#x}, {:#x}))",
                first.0, first.1, second.0, second.1
            ),
            Cmd::Exit { warp, mask } => write!(f, "exit(w{warp}, mask={mask:#x})"),
            Cmd::Raw { op, warp, pc, mask } => {
                write!(f, "raw(op={op}, warp={warp}, pc={pc:#x}, mask={mask:#x})")
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Reference: the golden model's stack per warp, settled after every command.

struct Reference {
    stacks: Vec<RefStack>,
    depth: usize,
}

impl Reference {
    fn new(cfg: &GpuConfig) -> Self {
        Reference {
            stacks: (0..cfg.warps)
                .map(|_| RefStack::new(cfg.simt_stack_depth))
                .collect(),
            depth: cfg.simt_stack_depth as usize,
        }
    }

    fn clear(&mut self) {
        let d = self.depth as u32;
        for s in &mut self.stacks {
            *s = RefStack::new(d);
        }
    }

    /// Apply `cmd` and settle; returns whether a split overflowed.
    fn apply(&mut self, cmd: &Cmd) -> bool {
        let mut overflow = false;
        match *cmd {
            Cmd::Nop | Cmd::Raw { .. } => {}
            Cmd::Reset { warp, pc, mask } => self.stacks[warp as usize].reset(pc, mask),
            Cmd::SetPc { warp, pc } => self.stacks[warp as usize].set_pc(pc),
            Cmd::Split {
                warp,
                rpc,
                first,
                second,
            } => {
                overflow = self.stacks[warp as usize]
                    .split(rpc, first, second)
                    .is_err()
            }
            Cmd::Exit { warp, mask } => self.stacks[warp as usize].exit(mask),
        }
        if let Some(w) = cmd.warp() {
            self.stacks[w as usize].settle();
        }
        overflow
    }
}

// ---------------------------------------------------------------------------------------------
// The Verilated unit.

struct Dut {
    m: LoadedModel,
    warps: usize,
    depth: usize,
    lanes: u32,
    clk: PortId,
    rst: PortId,
    op: PortId,
    warp: PortId,
    /// `cmd_sel[w]`: the one-hot form of `cmd_warp` (the SM's stack port registers both).
    sel: Vec<PortId>,
    rpc: PortId,
    pc_a: PortId,
    mask_a: PortId,
    pc_b: PortId,
    mask_b: PortId,
    /// The command's PC compares (`cmd_eq_a`, `cmd_eq_b`, `cmd_eq_o`, `cmd_eq_s`), which the
    /// owner makes a cycle ahead: the bench makes them from the command and the warp's
    /// `tos_rpc` output, as the SM's branch unit does.
    eq: [PortId; 4],
    tos_rpc: Vec<PortId>,
    dbg_warp: PortId,
    dbg_entry: PortId,
    tos_pc: Vec<PortId>,
    tos_mask: Vec<PortId>,
    empty: Vec<PortId>,
    full: Vec<PortId>,
    depth_out: Vec<PortId>,
    busy: Vec<PortId>,
    overflow: PortId,
    dbg_valid: PortId,
    dbg_rpc: PortId,
    dbg_pc: PortId,
    dbg_mask: PortId,
    dbg_eq: PortId,
    /// Rising clock edges so far: inputs set now are sampled at the end of cycle `cycle`.
    cycle: u64,
    /// Warps whose entries are to be compared once they are no longer busy.
    deferred: BTreeSet<usize>,
    /// Cycles spent waiting for busy warps before commanding them.
    waited: u64,
}

/// Observed state of one warp.
#[derive(Clone, Debug, PartialEq, Eq)]
struct WarpView {
    tos_pc: u32,
    tos_mask: u32,
    empty: bool,
    full: bool,
    depth: u32,
}

impl Dut {
    fn new(cfg: &GpuConfig) -> Dut {
        let top = top_name(cfg);
        let m = build_unit(&top, &verilog(cfg), false)
            .unwrap_or_else(|e| panic!("building {top}: {e}"));
        let p = |name: &str| {
            m.port(name)
                .unwrap_or_else(|e| panic!("{top}: {e}; ports: {:?}", m.ports()))
        };
        // rust-hdl names element w of a Vec port `name$w`; Verilator encodes `$` as `__024`.
        let pv = |name: &str| -> Vec<PortId> {
            (0..cfg.warps)
                .map(|w| p(&format!("{name}__024{w}")))
                .collect()
        };
        let mut d = Dut {
            warps: cfg.warps as usize,
            depth: cfg.simt_stack_depth as usize,
            lanes: cfg.lanes,
            clk: p("clock"),
            rst: p("rst"),
            op: p("cmd_op"),
            warp: p("cmd_warp"),
            sel: pv("cmd_sel"),
            rpc: p("cmd_rpc"),
            pc_a: p("cmd_pc_a"),
            mask_a: p("cmd_mask_a"),
            pc_b: p("cmd_pc_b"),
            mask_b: p("cmd_mask_b"),
            eq: ["cmd_eq_a", "cmd_eq_b", "cmd_eq_o", "cmd_eq_s"].map(p),
            tos_rpc: pv("tos_rpc"),
            dbg_warp: p("dbg_warp"),
            dbg_entry: p("dbg_entry"),
            tos_pc: pv("tos_pc"),
            tos_mask: pv("tos_mask"),
            empty: pv("empty"),
            full: pv("full"),
            depth_out: pv("depth"),
            busy: pv("busy"),
            overflow: p("overflow"),
            dbg_valid: p("dbg_valid"),
            dbg_rpc: p("dbg_rpc"),
            dbg_pc: p("dbg_pc"),
            dbg_mask: p("dbg_mask"),
            dbg_eq: p("dbg_eq"),
            m,
            cycle: 0,
            deferred: BTreeSet::new(),
            waited: 0,
        };
        d.sync_reset();
        d
    }

    /// One cycle with `rst` high (and no command).
    fn sync_reset(&mut self) {
        self.drive(&Cmd::Nop);
        self.m.set(self.rst, 1);
        self.tick();
        self.m.set(self.rst, 0);
        self.m.eval();
    }

    fn drive(&mut self, cmd: &Cmd) {
        let (op, warp, rpc, a, b) = match *cmd {
            Cmd::Nop => (OP_NOP, 0, 0, (0, 0), (0, 0)),
            Cmd::Reset { warp, pc, mask } => (OP_RESET, warp, 0, (pc, mask), (0, 0)),
            Cmd::SetPc { warp, pc } => (OP_SET_PC, warp, 0, (pc, 0), (0, 0)),
            Cmd::Split {
                warp,
                rpc,
                first,
                second,
            } => (OP_SPLIT, warp, rpc, first, second),
            Cmd::Exit { warp, mask } => (OP_EXIT, warp, 0, (0, mask), (0, 0)),
            Cmd::Raw { op, warp, pc, mask } => (op, warp, pc, (pc, mask), (pc, mask)),
        };
        self.m.set(self.op, op);
        self.m.set(self.warp, u64::from(warp));
        for (w, &port) in self.sel.iter().enumerate() {
            self.m.set(port, u64::from(w as u64 == u64::from(warp)));
        }
        self.m.set(self.rpc, u64::from(rpc));
        self.m.set(self.pc_a, u64::from(a.0));
        self.m.set(self.mask_a, u64::from(a.1));
        self.m.set(self.pc_b, u64::from(b.0));
        self.m.set(self.mask_b, u64::from(b.1));
        let tos_rpc = self
            .tos_rpc
            .get(warp as usize)
            .map(|&port| self.m.get(port) as u32);
        let eq = [
            a.0 == rpc,
            b.0 == rpc,
            tos_rpc == Some(rpc),
            tos_rpc == Some(a.0),
        ];
        for (&port, e) in self.eq.iter().zip(eq) {
            self.m.set(port, u64::from(e));
        }
    }

    fn tick(&mut self) {
        self.m.tick(self.clk);
        self.cycle += 1;
    }

    /// Present `cmd` for one cycle (one rising edge), then idle inputs.
    fn command(&mut self, cmd: &Cmd) {
        self.drive(cmd);
        self.tick();
        self.drive(&Cmd::Nop);
        self.m.eval();
    }

    fn view(&self, w: usize) -> WarpView {
        WarpView {
            tos_pc: self.m.get(self.tos_pc[w]) as u32,
            tos_mask: self.m.get(self.tos_mask[w]) as u32,
            empty: self.m.get(self.empty[w]) != 0,
            full: self.m.get(self.full[w]) != 0,
            depth: self.m.get(self.depth_out[w]) as u32,
        }
    }

    /// Entry `e` of warp `w` through the debug read port: (valid, entry).
    fn entry(&mut self, w: usize, e: usize) -> (bool, StackEntry) {
        let (valid, entry, _) = self.entry_eq(w, e);
        (valid, entry)
    }

    /// [`Self::entry`] and the entry's `pc == rpc` flag as the stack keeps it (`dbg_eq`).
    fn entry_eq(&mut self, w: usize, e: usize) -> (bool, StackEntry, bool) {
        self.m.set(self.dbg_warp, w as u64);
        self.m.set(self.dbg_entry, e as u64);
        self.m.eval();
        (
            self.m.get(self.dbg_valid) != 0,
            StackEntry {
                rpc: self.m.get(self.dbg_rpc) as u32,
                pc: self.m.get(self.dbg_pc) as u32,
                mask: self.m.get(self.dbg_mask) as u32,
            },
            self.m.get(self.dbg_eq) != 0,
        )
    }

    fn is_busy(&self, w: usize) -> bool {
        self.m.get(self.busy[w]) != 0
    }

    /// Idle cycles until warp `w` is not busy (a refill takes two cycles per popped level).
    fn wait_not_busy(&mut self, w: usize) -> Result<u64, String> {
        let limit = 2 * self.depth as u64 + 2;
        let mut n = 0;
        while self.is_busy(w) {
            if n == limit {
                return Err(format!(
                    "cycle {}: warp {w} still busy after {limit} idle cycles",
                    self.cycle
                ));
            }
            self.tick();
            self.drive(&Cmd::Nop);
            self.m.eval();
            n += 1;
        }
        self.waited += n;
        Ok(n)
    }

    /// Idle cycles until no warp is busy.
    fn settle_all(&mut self) -> Result<(), String> {
        for w in 0..self.warps {
            self.wait_not_busy(w)?;
        }
        Ok(())
    }

    fn overflow(&self) -> bool {
        self.m.get(self.overflow) != 0
    }

    fn full_mask(&self) -> u32 {
        if self.lanes == 32 {
            u32::MAX
        } else {
            (1 << self.lanes) - 1
        }
    }

    /// Compare the per-warp outputs of every warp, and every entry of the warps in `entries`,
    /// with the reference. Errors name the cycle, warp, entry and field, followed by both stacks
    /// of that warp.
    fn check(&mut self, r: &Reference, entries: &[usize]) -> Result<(), String> {
        self.check_fields(r, entries)
            .map_err(|(w, msg)| format!("{msg}\n{}", self.dump(r, w)))
    }

    /// Both stacks of warp `w`, entry by entry.
    fn dump(&mut self, r: &Reference, w: usize) -> String {
        let mut out = format!(
            "warp {w}:  entry | expected rpc, pc, mask             | RTL valid, rpc, pc, mask"
        );
        let s = r.stacks[w].entries();
        for e in (0..self.depth).rev() {
            let (valid, got) = self.entry(w, e);
            if !valid && e >= s.len() {
                continue;
            }
            let exp = s
                .get(e)
                .map(|x| format!("{:#010x}, {:#010x}, {:#010x}", x.rpc, x.pc, x.mask))
                .unwrap_or_else(|| "-".into());
            out += &format!(
                "\n  {e:>5} | {exp:<34} | {}, {:#010x}, {:#010x}, {:#010x}",
                u8::from(valid),
                got.rpc,
                got.pc,
                got.mask
            );
        }
        out
    }

    fn check_fields(&mut self, r: &Reference, entries: &[usize]) -> Result<(), (usize, String)> {
        let cycle = self.cycle;
        let mismatch = |w: usize, what: &str, exp: u64, act: u64| {
            (
                w,
                format!(
                    "cycle {cycle} (state after the command of cycle {}), warp {w}, {what}: \
                 expected {exp:#x}, actual {act:#x}",
                    cycle - 1
                ),
            )
        };
        for w in 0..self.warps {
            if self.is_busy(w) {
                continue;
            }
            let s = &r.stacks[w];
            let mut v = self.view(w);
            let top = s.top().copied().unwrap_or(StackEntry {
                rpc: 0,
                pc: 0,
                mask: 0,
            });
            if s.is_empty() {
                // The TOS outputs mean nothing when the stack is empty.
                v.tos_pc = 0;
                v.tos_mask = 0;
            }
            let exp = WarpView {
                tos_pc: top.pc,
                tos_mask: top.mask,
                empty: s.is_empty(),
                full: s.len() + 2 > self.depth,
                depth: s.len() as u32,
            };
            if v != exp {
                for (name, e, a) in [
                    ("depth", u64::from(exp.depth), u64::from(v.depth)),
                    ("empty", u64::from(exp.empty), u64::from(v.empty)),
                    ("full", u64::from(exp.full), u64::from(v.full)),
                    ("tos_pc", u64::from(exp.tos_pc), u64::from(v.tos_pc)),
                    ("tos_mask", u64::from(exp.tos_mask), u64::from(v.tos_mask)),
                ] {
                    if e != a {
                        return Err(mismatch(w, name, e, a));
                    }
                }
            }
        }
        let mut compare: BTreeSet<usize> = entries.iter().copied().collect();
        compare.extend(self.deferred.iter().copied());
        self.deferred.clear();
        for w in compare {
            if self.is_busy(w) {
                self.deferred.insert(w);
                continue;
            }
            let s = r.stacks[w].entries();
            for e in 0..self.depth {
                let (valid, got, got_eq) = self.entry_eq(w, e);
                let exp = s.get(e);
                if valid != exp.is_some() {
                    return Err(mismatch(
                        w,
                        &format!("entry {e}, field valid"),
                        u64::from(exp.is_some()),
                        u64::from(valid),
                    ));
                }
                if let Some(x) = exp {
                    for (name, ex, ac) in [
                        ("rpc", x.rpc, got.rpc),
                        ("pc", x.pc, got.pc),
                        ("mask", x.mask, got.mask),
                    ] {
                        if ex != ac {
                            return Err(mismatch(
                                w,
                                &format!("entry {e}, field {name}"),
                                u64::from(ex),
                                u64::from(ac),
                            ));
                        }
                    }
                    // The flag a refill pops by, written with the entry (`ram_eq`).
                    if got_eq != (x.pc == x.rpc) {
                        return Err(mismatch(
                            w,
                            &format!("entry {e}, field eq (pc == rpc)"),
                            u64::from(x.pc == x.rpc),
                            u64::from(got_eq),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Apply one command to both and compare: the settled state and the overflow pulse are visible
/// right after the rising edge that ends the command cycle.
fn step(dut: &mut Dut, r: &mut Reference, cmd: &Cmd) -> Result<(), String> {
    // The SM never commands a busy warp (docs/microarch/simt_stack.md): wait for it.
    if let Some(w) = cmd.warp() {
        if (w as usize) < dut.warps {
            dut.wait_not_busy(w as usize)?;
        }
    }
    let exp_ovf = r.apply(cmd);
    dut.command(cmd);
    if dut.overflow() != exp_ovf {
        return Err(format!(
            "cycle {}, overflow: expected {}, actual {}",
            dut.cycle,
            u8::from(exp_ovf),
            u8::from(dut.overflow())
        ));
    }
    let entries: Vec<usize> = cmd.warp().map(|w| w as usize).into_iter().collect();
    dut.check(r, &entries)
}

// ---------------------------------------------------------------------------------------------
// Random command sequences.

/// How a sequence builds its splits.
#[derive(Clone, Copy, Debug)]
enum Mode {
    /// Masks partition the TOS mask; larger side first (tie: not-taken first) most of the time.
    Realistic,
    /// Deep nesting: masks are sub-masks of the TOS mask that need not partition it (so the
    /// stack can reach its depth limit on configurations where partitions cannot) and sides are
    /// pushed in either order.
    Deep,
}

struct Gen {
    rng: ChaCha8Rng,
    warps: u32,
    full: u32,
    mode: Mode,
    /// Percent of commands that are splits.
    p_split: u32,
    focus: u32,
}

impl Gen {
    fn pc(&mut self) -> u32 {
        self.rng.gen_range(0..0x1000u32) * 4
    }

    fn nonzero_submask(&mut self, m: u32) -> u32 {
        debug_assert!(m != 0);
        loop {
            let s = m & self.rng.gen::<u32>();
            if s != 0 {
                return s;
            }
        }
    }

    /// A non-empty proper subset of `m` (popcount(m) >= 2).
    fn proper_submask(&mut self, m: u32) -> u32 {
        loop {
            let s = self.nonzero_submask(m);
            if s != m {
                return s;
            }
        }
    }

    fn cmd(&mut self, r: &Reference) -> Cmd {
        let x = self.rng.gen_range(0..1000);
        if x < 15 {
            return Cmd::Nop;
        }
        if x < 20 {
            // Undefined op codes and warp numbers outside the unit: no effect.
            let op = if self.warps == 64 || self.rng.gen_bool(0.5) {
                self.rng.gen_range(5..8)
            } else {
                self.rng.gen_range(1..5)
            };
            let warp = if op >= 5 {
                self.rng.gen_range(0..64)
            } else {
                self.rng.gen_range(self.warps..64)
            };
            return Cmd::Raw {
                op,
                warp,
                pc: self.pc(),
                mask: self.rng.gen::<u32>() & self.full,
            };
        }
        let warp = if self.rng.gen_bool(0.6) {
            self.focus
        } else {
            self.rng.gen_range(0..self.warps)
        };
        if self.rng.gen_bool(0.02) {
            self.focus = self.rng.gen_range(0..self.warps);
        }
        let s = &r.stacks[warp as usize];
        let Some(top) = s.top().copied() else {
            // Finished / never launched warp: launch it, rarely anything else (no-ops, or a
            // split that pushes onto the empty stack exactly as the reference does).
            return match self.rng.gen_range(0..100) {
                0..=2 => Cmd::SetPc {
                    warp,
                    pc: self.pc(),
                },
                3..=5 => Cmd::Exit {
                    warp,
                    mask: self.full,
                },
                6 => Cmd::Split {
                    warp,
                    rpc: self.pc(),
                    first: (self.pc(), 1),
                    second: (self.pc(), self.full),
                },
                7..=9 => Cmd::Reset {
                    warp,
                    pc: self.pc(),
                    mask: self.rng.gen::<u32>() & self.full,
                },
                _ => Cmd::Reset {
                    warp,
                    pc: self.pc(),
                    mask: if self.rng.gen_bool(0.5) {
                        self.full
                    } else {
                        self.nonzero_submask(self.full)
                    },
                },
            };
        };
        let y = self.rng.gen_range(0..100);
        let can_split = match self.mode {
            Mode::Realistic => top.mask.count_ones() >= 2,
            Mode::Deep => true,
        };
        if y < self.p_split && can_split {
            return self.split(warp, top);
        }
        match self.rng.gen_range(0..100) {
            // Reach the reconvergence point.
            0..=29 if top.rpc != RPC_NONE => Cmd::SetPc { warp, pc: top.rpc },
            0..=64 => Cmd::SetPc {
                warp,
                pc: top.pc.wrapping_add(4),
            },
            65..=74 => Cmd::SetPc {
                warp,
                pc: self.pc(),
            },
            // wf.exit: the active threads.
            75..=84 => Cmd::Exit {
                warp,
                mask: top.mask,
            },
            // wf.tmc: some of them.
            85..=92 => Cmd::Exit {
                warp,
                mask: self.nonzero_submask(top.mask),
            },
            // Any threads, also of entries below.
            93..=97 => Cmd::Exit {
                warp,
                mask: self.rng.gen::<u32>() & self.full,
            },
            // Relaunch a running warp.
            _ => Cmd::Reset {
                warp,
                pc: self.pc(),
                mask: self.full,
            },
        }
    }

    fn split(&mut self, warp: u32, top: StackEntry) -> Cmd {
        let rpc = match self.rng.gen_range(0..100) {
            // Nested branch reconverging where the enclosing one does.
            0..=19 => top.rpc,
            20..=34 => RPC_NONE,
            _ => top.pc.wrapping_add(4 * self.rng.gen_range(2..64)),
        };
        let (taken, not_taken) = match self.mode {
            Mode::Realistic => {
                let t = self.proper_submask(top.mask);
                (t, top.mask & !t)
            }
            Mode::Deep => {
                let m = if top.mask == 0 { self.full } else { top.mask };
                (self.nonzero_submask(m), self.nonzero_submask(m))
            }
        };
        // if-then without else: one side goes straight to the reconvergence point.
        let taken_pc = if self.rng.gen_bool(0.25) {
            rpc
        } else {
            self.pc()
        };
        let not_taken_pc = if self.rng.gen_bool(0.1) {
            rpc
        } else {
            top.pc.wrapping_add(4)
        };
        let t = (taken_pc, taken);
        let n = (not_taken_pc, not_taken);
        let larger_first = if taken.count_ones() > not_taken.count_ones() {
            (t, n)
        } else {
            (n, t)
        };
        let (first, second) = match self.mode {
            Mode::Realistic if self.rng.gen_bool(0.85) => larger_first,
            _ if self.rng.gen_bool(0.5) => larger_first,
            _ => (larger_first.1, larger_first.0),
        };
        Cmd::Split {
            warp,
            rpc,
            first,
            second,
        }
    }
}

struct Stats {
    sequences: u64,
    commands: u64,
    splits: u64,
    overflows: u64,
    max_depth: usize,
    multi_pops: u64,
}

fn run_random(cfg: &GpuConfig, base_seed: u64, sequences: u64) {
    let t0 = std::time::Instant::now();
    let mut dut = Dut::new(cfg);
    let build = t0.elapsed();
    let mut r = Reference::new(cfg);
    let only: Option<u64> = std::env::var("WARPFORGE_SIMT_SEED")
        .ok()
        .map(|s| s.parse().expect("WARPFORGE_SIMT_SEED must be a number"));
    let seeds: Vec<u64> = match only {
        Some(s) => vec![s],
        None => (0..sequences).map(|i| base_seed + i).collect(),
    };
    let all_warps: Vec<usize> = (0..cfg.warps as usize).collect();
    let mut st = Stats {
        sequences: 0,
        commands: 0,
        splits: 0,
        overflows: 0,
        max_depth: 0,
        multi_pops: 0,
    };
    for seed in seeds {
        let mut g = Gen {
            rng: ChaCha8Rng::seed_from_u64(seed),
            warps: cfg.warps,
            full: dut.full_mask(),
            mode: Mode::Realistic,
            p_split: 0,
            focus: 0,
        };
        g.mode = if g.rng.gen_bool(0.7) {
            Mode::Realistic
        } else {
            Mode::Deep
        };
        g.p_split = [10, 25, 40, 60][g.rng.gen_range(0..4)];
        g.focus = g.rng.gen_range(0..cfg.warps);
        let len = g.rng.gen_range(20..200);
        let start_cycle = dut.cycle;
        dut.sync_reset();
        r.clear();
        let mut last: VecDeque<(u64, Cmd)> = VecDeque::new();
        let mode = g.mode;
        let fail = |last: &VecDeque<(u64, Cmd)>, msg: String| -> String {
            let hist: String = last
                .iter()
                .map(|(c, cmd)| format!("\n  cycle {c}: {cmd}"))
                .collect();
            format!(
                "SIMT stack mismatch ({}, seed {seed}, mode {mode:?}, sequence started at cycle \
                 {start_cycle}): {msg}\nlast commands (cycle = the command's cycle):{hist}\n\
                 reproduce: WARPFORGE_SIMT_SEED={seed} cargo test -p warpforge-testbench --test \
                 unit_simt_stack random_{}",
                cfg.name,
                cfg.name.replace('-', "_"),
            )
        };
        if let Err(m) = dut.check(&r, &all_warps) {
            panic!("{}", fail(&last, format!("after synchronous reset: {m}")));
        }
        for _ in 0..len {
            let cmd = g.cmd(&r);
            let before = cmd.warp().map(|w| r.stacks[w as usize].len());
            if last.len() == 12 {
                last.pop_front();
            }
            last.push_back((dut.cycle, cmd));
            if let Err(m) = step(&mut dut, &mut r, &cmd) {
                panic!("{}", fail(&last, m));
            }
            st.commands += 1;
            let overflowed = dut.overflow();
            if let Cmd::Split { .. } = cmd {
                st.splits += 1;
                st.overflows += u64::from(overflowed);
            }
            if let (Some(b), Some(w)) = (before, cmd.warp()) {
                let after = r.stacks[w as usize].len();
                let pops = match cmd {
                    Cmd::Reset { .. } => 0,
                    Cmd::Split { .. } if !overflowed => b + 2 - after,
                    _ => b - after,
                };
                st.multi_pops += u64::from(pops >= 2);
                st.max_depth = st.max_depth.max(after);
            }
        }
        // Every refill finished, one idle cycle (nothing may move); then every entry of every
        // warp.
        if let Err(m) = dut.settle_all() {
            panic!("{}", fail(&last, m));
        }
        let cmd = Cmd::Nop;
        last.push_back((dut.cycle, cmd));
        if let Err(m) = step(&mut dut, &mut r, &cmd) {
            panic!("{}", fail(&last, m));
        }
        if let Err(m) = dut.check(&r, &all_warps) {
            panic!("{}", fail(&last, format!("end of sequence: {m}")));
        }
        st.sequences += 1;
    }
    println!(
        "{}: {} sequences, {} commands ({} splits, {} overflows, {} multi-entry pops, max depth \
         {}/{}), {} cycles ({} waiting for busy warps); model build {:.1?}, total {:.1?}",
        cfg.name,
        st.sequences,
        st.commands,
        st.splits,
        st.overflows,
        st.multi_pops,
        st.max_depth,
        cfg.simt_stack_depth,
        dut.cycle,
        dut.waited,
        build,
        t0.elapsed()
    );
    if only.is_none() {
        assert!(st.overflows > 0, "no overflow was exercised");
        assert!(
            st.max_depth + 1 >= cfg.simt_stack_depth as usize,
            "the stack never got within one entry of its depth"
        );
        assert!(st.multi_pops > 0, "no multi-entry settle was exercised");
    }
}

#[test]
fn random_tiny() {
    run_random(&tiny(), 0x5117_0000, 3000);
}

#[test]
fn random_small() {
    run_random(&small(), 0x5117_1000_0000, 3000);
}

#[test]
#[ignore = "32-lane model takes minutes to build: opt-in with `cargo test -- --ignored`"]
fn random_fermi_w8() {
    run_random(&fermi_w8(), 0x5117_2000_0000, 2000);
}

/// The full fermi preset (48 warps); its model takes many minutes to build:
/// `cargo test -p warpforge-testbench --test unit_simt_stack -- --ignored`.
#[test]
#[ignore]
fn random_fermi() {
    run_random(&GpuConfig::fermi(), 0x5117_3000_0000, 500);
}

// ---------------------------------------------------------------------------------------------
// Book Fig. 3.4 on warp 2 of tiny (4 lanes). Masks are written as in the book, thread 1 first:
// "1110" = threads 1-3 = lanes 0-2. PCs are those of Fig. 3.3 (line n at 4·(n-1)).

fn book_mask(s: &str) -> u32 {
    s.bytes()
        .enumerate()
        .map(|(i, b)| u32::from(b == b'1') << i)
        .sum()
}

const A: u32 = 0x00;
const B: u32 = 0x18;
const C: u32 = 0x24;
const D: u32 = 0x2c;
const E: u32 = 0x30;
const F: u32 = 0x34;
const G: u32 = 0x38;

fn expect_stack(dut: &mut Dut, r: &Reference, w: usize, rows: &[(u32, u32, &str)], what: &str) {
    let exp: Vec<StackEntry> = rows
        .iter()
        .map(|&(rpc, pc, m)| StackEntry {
            rpc,
            pc,
            mask: book_mask(m),
        })
        .collect();
    assert_eq!(
        r.stacks[w].entries(),
        &exp[..],
        "reference model disagrees with the book at {what}"
    );
    if let Err(m) = dut.check(r, &[w]) {
        panic!("Fig. 3.4 {what}: {m}");
    }
}

#[test]
fn fig_3_4_d() {
    let cfg = tiny();
    let mut dut = Dut::new(&cfg);
    let mut r = Reference::new(&cfg);
    let warp = 2;
    let w = warp as usize;
    let n = RPC_NONE;
    let go = |dut: &mut Dut, r: &mut Reference, cmd: Cmd| {
        if let Err(m) = step(dut, r, &cmd) {
            panic!("Fig. 3.4 at {cmd}: {m}");
        }
    };
    // A, lines 1-6, all four threads.
    go(
        &mut dut,
        &mut r,
        Cmd::Reset {
            warp,
            pc: A,
            mask: book_mask("1111"),
        },
    );
    for pc in [0x04, 0x08, 0x0c, 0x10, 0x14] {
        go(&mut dut, &mut r, Cmd::SetPc { warp, pc });
    }
    expect_stack(&mut dut, &r, w, &[(n, 0x14, "1111")], "A");
    // Line 6 `@p1 bra F`: thread 4 to F, threads 1-3 fall through to B; reconvergence at G.
    // (c) pushes F first (the figure's order in part (c)).
    go(
        &mut dut,
        &mut r,
        Cmd::Split {
            warp,
            rpc: G,
            first: (F, book_mask("0001")),
            second: (B, book_mask("1110")),
        },
    );
    expect_stack(
        &mut dut,
        &r,
        w,
        &[(n, G, "1111"), (G, F, "0001"), (G, B, "1110")],
        "(c)",
    );
    go(&mut dut, &mut r, Cmd::SetPc { warp, pc: 0x1c });
    go(&mut dut, &mut r, Cmd::SetPc { warp, pc: 0x20 });
    // Line 9 `@p2 bra D`: threads 2-3 to D, thread 1 to C; reconvergence at E; the larger side
    // (D) is pushed first, so C executes first: part (d).
    go(
        &mut dut,
        &mut r,
        Cmd::Split {
            warp,
            rpc: E,
            first: (D, book_mask("0110")),
            second: (C, book_mask("1000")),
        },
    );
    expect_stack(
        &mut dut,
        &r,
        w,
        &[
            (n, G, "1111"),
            (G, F, "0001"),
            (G, E, "1110"),
            (E, D, "0110"),
            (E, C, "1000"),
        ],
        "(d)",
    );
    // C: `add`, `bra E` -> reconverges, D executes.
    go(&mut dut, &mut r, Cmd::SetPc { warp, pc: 0x28 });
    go(&mut dut, &mut r, Cmd::SetPc { warp, pc: E });
    expect_stack(
        &mut dut,
        &r,
        w,
        &[
            (n, G, "1111"),
            (G, F, "0001"),
            (G, E, "1110"),
            (E, D, "0110"),
        ],
        "C done",
    );
    // D: `add` falls through to E -> reconverges: part (e).
    go(&mut dut, &mut r, Cmd::SetPc { warp, pc: E });
    expect_stack(
        &mut dut,
        &r,
        w,
        &[(n, G, "1111"), (G, F, "0001"), (G, E, "1110")],
        "(e)",
    );
    // E: `bra G` -> F runs; F falls through to G -> all four threads at G.
    go(&mut dut, &mut r, Cmd::SetPc { warp, pc: G });
    expect_stack(&mut dut, &r, w, &[(n, G, "1111"), (G, F, "0001")], "E done");
    go(&mut dut, &mut r, Cmd::SetPc { warp, pc: G });
    expect_stack(&mut dut, &r, w, &[(n, G, "1111")], "G");
    // G: loop back uniformly, then all threads exit.
    go(&mut dut, &mut r, Cmd::SetPc { warp, pc: 0x3c });
    go(&mut dut, &mut r, Cmd::SetPc { warp, pc: 0x40 });
    go(&mut dut, &mut r, Cmd::SetPc { warp, pc: A });
    expect_stack(&mut dut, &r, w, &[(n, A, "1111")], "loop");
    go(
        &mut dut,
        &mut r,
        Cmd::Exit {
            warp,
            mask: book_mask("1111"),
        },
    );
    expect_stack(&mut dut, &r, w, &[], "exit");
    // The other warps were never touched.
    dut.check(&r, &[0, 1, 3]).unwrap();
}

// ---------------------------------------------------------------------------------------------
// Cycle behaviour (docs/microarch/simt_stack.md "Timing").

#[test]
fn timing_settle_overflow_reset() {
    let cfg = tiny();
    let mut dut = Dut::new(&cfg);
    let mut r = Reference::new(&cfg);
    let all: Vec<usize> = (0..cfg.warps as usize).collect();
    let ok = |res: Result<(), String>| res.unwrap_or_else(|m| panic!("{m}"));

    // After the synchronous reset every warp is empty.
    ok(dut.check(&r, &all));

    // Build warp 1: base, then three nested splits whose RPCs all equal 0x100, each pushing
    // one side that already sits at the RPC (popped at once, in the command cycle).
    ok(step(
        &mut dut,
        &mut r,
        &Cmd::Reset {
            warp: 1,
            pc: 0x10,
            mask: 0xf,
        },
    ));
    ok(step(
        &mut dut,
        &mut r,
        &Cmd::Split {
            warp: 1,
            rpc: 0x100,
            first: (0x20, 0x7),
            second: (0x30, 0x8),
        },
    ));
    ok(step(
        &mut dut,
        &mut r,
        &Cmd::Split {
            warp: 1,
            rpc: 0x100,
            first: (0x40, 0x8),
            second: (0x100, 0x8),
        },
    ));
    assert_eq!(
        r.stacks[1].len(),
        4,
        "second split: the second side is popped at once"
    );
    ok(step(
        &mut dut,
        &mut r,
        &Cmd::Split {
            warp: 1,
            rpc: 0x100,
            first: (0x50, 0x8),
            second: (0x60, 0x8),
        },
    ));
    assert_eq!(r.stacks[1].len(), 6);

    // set_pc to the RPC pops the TOS (0x60): the entry below (0x50) is read from RAM, so the
    // warp is busy for two cycles (pick + read), then shows the reference's state.
    let cmd = Cmd::SetPc { warp: 1, pc: 0x100 };
    r.apply(&cmd);
    dut.command(&cmd);
    assert_eq!(r.stacks[1].len(), 5);
    for i in 0..2 {
        assert!(dut.is_busy(1), "busy in cycle {i} after a one-level refill");
        dut.tick();
        dut.m.eval();
    }
    assert!(!dut.is_busy(1), "a one-level refill takes two cycles");
    ok(dut.check(&r, &all));

    // A command is invisible until the rising edge that ends its cycle (outputs come from
    // flip-flops) ...
    let before = dut.view(1);
    let cmd = Cmd::SetPc { warp: 1, pc: 0x100 };
    dut.drive(&cmd);
    dut.m.eval();
    assert_eq!(
        dut.view(1),
        before,
        "outputs changed combinationally with the command inputs"
    );
    // ... after that edge the TOS (0x50) has reconverged, and so have the two entries below it
    // (the splits set their PC to the same RPC): three levels read back from RAM, two cycles
    // each, down to the entry at 0x20. Meanwhile another warp is commanded and settles at once.
    r.apply(&cmd);
    dut.tick();
    dut.drive(&Cmd::Nop);
    dut.m.eval();
    assert_eq!(r.stacks[1].len(), 2, "reference: three entries popped");
    assert!(dut.is_busy(1));
    ok(step(
        &mut dut,
        &mut r,
        &Cmd::Reset {
            warp: 2,
            pc: 0x80,
            mask: 0x5,
        },
    ));
    assert_eq!(
        dut.view(2).tos_pc,
        0x80,
        "a free warp is commanded while warp 1 is busy"
    );
    let mut busy_cycles = 1;
    while dut.is_busy(1) && busy_cycles < 20 {
        dut.tick();
        dut.m.eval();
        busy_cycles += 1;
    }
    assert_eq!(busy_cycles, 6, "three refilled levels: two cycles each");
    ok(dut.check(&r, &all));
    // Further idle cycles change nothing.
    for _ in 0..3 {
        ok(step(&mut dut, &mut r, &Cmd::Nop));
    }

    // Overflow: fill warp 0 to depth 7 of 8, then split: no change, `overflow` high in exactly
    // the next cycle.
    ok(step(
        &mut dut,
        &mut r,
        &Cmd::Reset {
            warp: 0,
            pc: 0,
            mask: 0xf,
        },
    ));
    for i in 0..3 {
        ok(step(
            &mut dut,
            &mut r,
            &Cmd::Split {
                warp: 0,
                rpc: 0x200 + i * 0x40,
                first: (0x8, 0xf),
                second: (0xc, 0xf),
            },
        ));
    }
    assert_eq!(r.stacks[0].len(), 7);
    assert!(dut.view(0).full);
    let cmd = Cmd::Split {
        warp: 0,
        rpc: 0x400,
        first: (0x8, 0x1),
        second: (0xc, 0x2),
    };
    dut.drive(&cmd);
    dut.m.eval();
    assert!(
        !dut.overflow(),
        "overflow must be registered, not combinational"
    );
    assert!(r.apply(&cmd));
    dut.tick();
    dut.drive(&Cmd::Nop);
    dut.m.eval();
    assert!(
        dut.overflow(),
        "overflow pulse in the cycle after the split"
    );
    ok(dut.check(&r, &all));
    dut.tick();
    assert!(!dut.overflow(), "overflow lasts one cycle");
    // Two overflowing splits back to back: two cycles high.
    for _ in 0..2 {
        ok(step(&mut dut, &mut r, &cmd));
        assert!(dut.overflow());
    }
    ok(step(&mut dut, &mut r, &Cmd::Nop));
    assert!(!dut.overflow());

    // Exit of threads in every entry pops all emptied entries at once.
    ok(step(&mut dut, &mut r, &Cmd::Exit { warp: 0, mask: 0xf }));
    assert!(r.stacks[0].is_empty());
    ok(dut.check(&r, &all));

    // Undefined op codes and warps >= warps change nothing.
    for op in 5..8 {
        ok(step(
            &mut dut,
            &mut r,
            &Cmd::Raw {
                op,
                warp: 1,
                pc: 0x100,
                mask: 0xf,
            },
        ));
    }
    for warp in [4, 5, 63] {
        ok(step(
            &mut dut,
            &mut r,
            &Cmd::Raw {
                op: OP_EXIT,
                warp,
                pc: 0,
                mask: 0xf,
            },
        ));
    }
    ok(dut.check(&r, &all));

    // Synchronous reset with a command present: every warp empty, no overflow, command lost.
    dut.drive(&Cmd::Split {
        warp: 1,
        rpc: 0x500,
        first: (0x8, 0x1),
        second: (0xc, 0x2),
    });
    dut.m.set(dut.rst, 1);
    dut.tick();
    dut.m.set(dut.rst, 0);
    dut.drive(&Cmd::Nop);
    dut.m.eval();
    r.clear();
    assert!(!dut.overflow());
    ok(dut.check(&r, &all));
}
