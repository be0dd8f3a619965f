//! Unit co-simulation of the execution units (hdl/src/{alu,multiplier,divider}.rs) against the
//! golden model's lane functions (`warpforge_sim::alu::{alu, muldiv, branch_taken}`).
//!
//! For each unit and each preset (tiny = 4 lanes, small = 8, fermi = 32; plus a few latency
//! variants) the test generates the Verilog, requires `verilator --lint-only -Wall` and yosys to
//! accept it, builds the Verilated model (cached in target/verilator-cache) and drives it with
//! seeded stimulus: first every pair of edge operands for every op, then random ops, operands
//! biased toward edge values, random lane masks, random issue timing (back-to-back for the
//! pipelined units, random `in_valid` against `in_ready` for the divider) and rare random
//! resets. Every output of every cycle is compared: `out_valid` must be high exactly in the
//! cycle the reference timing predicts, and then the tag, mask and every lane's result (and
//! branch outcome) must match.
//!
//! A failure names the configuration, seed, cycle, lane, op, operands, expected and actual
//! values; rerun one test with another seed with `WARPFORGE_SEED=<n> cargo test -p
//! warpforge-testbench --test unit_execution <test>`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use warpforge_config::GpuConfig;
use warpforge_hdl::alu::{alu_op_code, branch_cmp_code, Alu};
use warpforge_hdl::divider::{div_op_code, Divider, MIN_DIV_LATENCY};
use warpforge_hdl::multiplier::{mul_op_code, shift_op_code, Multiplier};
use warpforge_hdl::{rename_top, verilog_of};
use warpforge_isa::{AluOp, BranchOp, MulDivOp};
use warpforge_sim::alu::{alu, branch_taken, muldiv};
use warpforge_testbench::unit::{assert_yosys_accepts, build_unit, lint, unit_seed};
use warpforge_testbench::{LoadedModel, PortId};

/// The ALU's functions (shifts are the multiplier's: `SHIFT_OPS`).
const ALU_OPS: [AluOp; 7] = [
    AluOp::Add,
    AluOp::Sub,
    AluOp::Slt,
    AluOp::Sltu,
    AluOp::Xor,
    AluOp::Or,
    AluOp::And,
];
/// Shifts, multiplications by a power of two in the multiplier.
const SHIFT_OPS: [AluOp; 3] = [AluOp::Sll, AluOp::Srl, AluOp::Sra];
const BRANCH_OPS: [BranchOp; 6] = [
    BranchOp::Beq,
    BranchOp::Bne,
    BranchOp::Blt,
    BranchOp::Bge,
    BranchOp::Bltu,
    BranchOp::Bgeu,
];
const MUL_OPS: [MulDivOp; 4] = [
    MulDivOp::Mul,
    MulDivOp::Mulh,
    MulDivOp::Mulhsu,
    MulDivOp::Mulhu,
];
const DIV_OPS: [MulDivOp; 4] = [MulDivOp::Div, MulDivOp::Divu, MulDivOp::Rem, MulDivOp::Remu];
/// ALU `op` codes no function uses (the ALU returns 0), the shifts' among them.
const ALU_RESERVED: [u8; 9] = [
    0b0001, 0b0101, 0b1101, 0b1001, 0b1010, 0b1011, 0b1100, 0b1110, 0b1111,
];
/// Branch `cmp` codes no comparison uses (taken = 0).
const CMP_RESERVED: [u8; 2] = [0b010, 0b011];

/// Operands every op is tried with in all combinations.
const EDGE: [u32; 12] = [
    0,
    1,
    2,
    31,
    0xffff_ffff,
    0xffff_fffe,
    0x8000_0000,
    0x7fff_ffff,
    0x8000_0001,
    0x0000_ffff,
    0xffff_0000,
    0x1234_5678,
];

// ------------------------------------------------------------------------------------------
// Generation, lint, build
// ------------------------------------------------------------------------------------------

/// `lint` (verilator --lint-only -Wall) must pass with no warning at all.
fn assert_lint_clean(top: &str, verilog: &str) {
    if let Err(text) = lint(top, verilog) {
        panic!("verilator --lint-only -Wall rejects {top}:\n{text}");
    }
}

/// Generate, lint, yosys-check and build one unit; returns the model and the Verilog size.
fn prepare<B: rust_hdl::prelude::Block>(top: &str, mut uut: B) -> (LoadedModel, usize) {
    let verilog = verilog_of(top, &mut uut).unwrap_or_else(|e| panic!("{e}"));
    let verilog = rename_top(&verilog, top);
    assert_lint_clean(top, &verilog);
    // yosys `synth` takes most of a minute per unit on the larger presets: by default only the
    // tiny variants are synthesized; WARPFORGE_FULL=1 synthesizes every variant.
    if top.contains("tiny") || warpforge_testbench::unit::full_tests() {
        assert_yosys_accepts(top, &verilog);
    }
    let model = build_unit(top, &verilog, false).unwrap_or_else(|e| panic!("{e}"));
    (model, verilog.lines().count())
}

// ------------------------------------------------------------------------------------------
// Ports
// ------------------------------------------------------------------------------------------

/// The ports of one execution unit. Per-lane ports are `name$i` in the Verilog, which
/// Verilator's C++ spells `name__024i`.
struct Ports {
    clock: PortId,
    reset: PortId,
    in_valid: PortId,
    in_op: PortId,
    in_tag: PortId,
    in_mask: Vec<PortId>,
    in_a: Vec<PortId>,
    in_b: Vec<PortId>,
    out_valid: PortId,
    out_tag: PortId,
    out_mask: Vec<PortId>,
    out_result: Vec<PortId>,
    /// ALU only.
    in_cmp: Option<PortId>,
    out_taken: Vec<PortId>,
    /// Divider only.
    in_ready: Option<PortId>,
    /// Multiplier only: the op is a shift, and its per-lane exponent.
    in_shift: Option<PortId>,
    in_expo: Vec<PortId>,
}

impl Ports {
    fn new(m: &LoadedModel, lanes: usize) -> Ports {
        let one = |n: &str| m.port(n).unwrap_or_else(|e| panic!("{e}"));
        let opt = |n: &str| m.port(n).ok();
        let per_lane = |n: &str| -> Vec<PortId> {
            (0..lanes)
                .filter_map(|i| {
                    m.port(&format!("{n}__024{i}"))
                        .or_else(|_| m.port(&format!("{n}${i}")))
                        .ok()
                })
                .collect()
        };
        let p = Ports {
            clock: one("clock"),
            reset: one("reset"),
            in_valid: one("in_valid"),
            in_op: one("in_op"),
            in_tag: one("in_tag"),
            in_mask: per_lane("in_mask"),
            in_a: per_lane("in_a"),
            in_b: per_lane("in_b"),
            out_valid: one("out_valid"),
            out_tag: one("out_tag"),
            out_mask: per_lane("out_mask"),
            out_result: per_lane("out_result"),
            in_cmp: opt("in_cmp"),
            out_taken: per_lane("out_taken"),
            in_ready: opt("in_ready"),
            in_shift: opt("in_shift"),
            in_expo: per_lane("in_expo"),
        };
        for (name, v) in [
            ("in_mask", &p.in_mask),
            ("in_a", &p.in_a),
            ("in_b", &p.in_b),
            ("out_mask", &p.out_mask),
            ("out_result", &p.out_result),
        ] {
            assert_eq!(v.len(), lanes, "per-lane port {name} missing for some lane");
        }
        if p.in_cmp.is_some() {
            assert_eq!(p.out_taken.len(), lanes, "per-lane port out_taken missing");
        }
        if p.in_shift.is_some() {
            assert_eq!(p.in_expo.len(), lanes, "per-lane port in_expo missing");
        }
        p
    }

    /// Drive one op's inputs (valid or not).
    fn drive(&self, m: &mut LoadedModel, valid: bool, op: &Issue) {
        m.set(self.in_valid, u64::from(valid));
        m.set(self.in_op, u64::from(op.op_code));
        if let Some(cmp) = self.in_cmp {
            m.set(cmp, u64::from(op.cmp_code));
        }
        if let Some(shift) = self.in_shift {
            m.set(shift, u64::from(op.shift));
        }
        m.set(self.in_tag, u64::from(op.tag));
        for i in 0..self.in_a.len() {
            m.set(self.in_mask[i], u64::from(op.mask >> i & 1));
            m.set(self.in_a[i], u64::from(op.a[i]));
            m.set(self.in_b[i], u64::from(op.b[i]));
        }
        // What the dispatch register holds for a shift (hdl/src/multiplier.rs): the amount
        // `b[4:0]`, inverted (31 − amount) when the op code is not `mul`'s (a right shift).
        // Other ops get the same function of `b`, which they must ignore.
        let right = Some(op.op_code) != mul_op_code(MulDivOp::Mul);
        for i in 0..self.in_expo.len() {
            let amount = op.b[i] & 31;
            m.set(
                self.in_expo[i],
                u64::from(if right { 31 - amount } else { amount }),
            );
        }
    }

    /// Assert the reset for two cycles with no op offered.
    fn reset(&self, m: &mut LoadedModel) {
        m.set(self.reset, 1);
        m.set(self.in_valid, 0);
        m.tick(self.clock);
        m.tick(self.clock);
        m.set(self.reset, 0);
        m.eval();
    }
}

// ------------------------------------------------------------------------------------------
// Stimulus and expectations
// ------------------------------------------------------------------------------------------

/// One warp-op offered to a unit, with the reference results.
#[derive(Clone, Debug)]
struct Issue {
    /// Human-readable op (`add/bltu`, `mulhsu`, `rem`, `reserved op 1011`).
    name: String,
    op_code: u8,
    cmp_code: u8,
    /// Multiplier only: a shift (`op_code` from `shift_op_code`).
    shift: bool,
    tag: u8,
    mask: u32,
    a: Vec<u32>,
    b: Vec<u32>,
    /// Expected `out_result` per lane (0 for inactive lanes).
    result: Vec<u32>,
    /// Expected `out_taken` per lane (ALU only).
    taken: Vec<bool>,
}

/// The lane functions the RTL is checked against (the golden model's, or a broken one to prove
/// that the checker notices).
#[derive(Clone, Copy)]
struct Reference {
    alu: fn(AluOp, u32, u32) -> u32,
    branch: fn(BranchOp, u32, u32) -> bool,
    muldiv: fn(MulDivOp, u32, u32) -> u32,
}

const GOLDEN: Reference = Reference {
    alu,
    branch: branch_taken,
    muldiv,
};

/// An operand biased toward the values where integer units go wrong.
fn operand(rng: &mut ChaCha8Rng) -> u32 {
    match rng.gen_range(0..16) {
        0 => 0,
        1 => 1,
        2 => u32::MAX,
        3 => 0x8000_0000,
        4 => 0x7fff_ffff,
        5 => rng.gen_range(0..32),
        6 => rng.gen_range(-32i32..32) as u32,
        7 => 1u32 << rng.gen_range(0..32),
        8 => (1u32 << rng.gen_range(0..32)).wrapping_neg(),
        9 => EDGE[rng.gen_range(0..EDGE.len())],
        10 => rng.gen::<u32>() >> rng.gen_range(0..32),
        _ => rng.gen(),
    }
}

fn full_mask(lanes: usize) -> u32 {
    if lanes == 32 {
        u32::MAX
    } else {
        (1u32 << lanes) - 1
    }
}

fn random_mask(rng: &mut ChaCha8Rng, lanes: usize) -> u32 {
    let full = full_mask(lanes);
    match rng.gen_range(0..10) {
        0..=3 => full,
        4 => 0,
        5 => 1 << rng.gen_range(0..lanes),
        6 => full & !(1 << rng.gen_range(0..lanes)),
        _ => rng.gen::<u32>() & full,
    }
}

/// Operand pairs for one op: directed (`pairs` of edge values, one per lane) or random.
fn operands(
    rng: &mut ChaCha8Rng,
    lanes: usize,
    pairs: Option<&[(u32, u32)]>,
) -> (Vec<u32>, Vec<u32>) {
    match pairs {
        Some(p) => (0..lanes)
            .map(|i| p.get(i).copied().unwrap_or((0, 0)))
            .unzip(),
        None => (0..lanes)
            .map(|_| {
                let a = operand(rng);
                let b = if rng.gen_range(0..10) == 0 {
                    a
                } else {
                    operand(rng)
                };
                (a, b)
            })
            .unzip(),
    }
}

fn edge_pairs() -> Vec<(u32, u32)> {
    EDGE.iter()
        .flat_map(|&a| EDGE.iter().map(move |&b| (a, b)))
        .collect()
}

fn alu_issue(
    rng: &mut ChaCha8Rng,
    lanes: usize,
    reference: Reference,
    op: Option<AluOp>,
    pairs: Option<&[(u32, u32)]>,
) -> Issue {
    // An op of the encoding (5% reserved codes) and a comparison (5% reserved codes).
    let op = match op {
        Some(op) => Ok(op),
        None if rng.gen_range(0..20) == 0 => {
            Err(ALU_RESERVED[rng.gen_range(0..ALU_RESERVED.len())])
        }
        None => Ok(ALU_OPS[rng.gen_range(0..ALU_OPS.len())]),
    };
    let cmp = if pairs.is_none() && rng.gen_range(0..20) == 0 {
        Err(CMP_RESERVED[rng.gen_range(0..2)])
    } else {
        Ok(BRANCH_OPS[rng.gen_range(0..BRANCH_OPS.len())])
    };
    let mask = if pairs.is_some() {
        full_mask(lanes)
    } else {
        random_mask(rng, lanes)
    };
    let (a, b) = operands(rng, lanes, pairs);
    let active = |i: usize| mask >> i & 1 == 1;
    let result = (0..lanes)
        .map(|i| match op {
            Ok(op) if active(i) => (reference.alu)(op, a[i], b[i]),
            _ => 0,
        })
        .collect();
    let taken = (0..lanes)
        .map(|i| match cmp {
            Ok(cmp) => active(i) && (reference.branch)(cmp, a[i], b[i]),
            Err(_) => false,
        })
        .collect();
    let op_name = match op {
        Ok(op) => format!("{op:?}").to_lowercase(),
        Err(code) => format!("reserved op {code:04b}"),
    };
    let cmp_name = match cmp {
        Ok(cmp) => format!("{cmp:?}").to_lowercase(),
        Err(code) => format!("reserved cmp {code:03b}"),
    };
    Issue {
        name: format!("{op_name} / {cmp_name}"),
        op_code: op.map_or_else(|c| c, alu_op_code),
        cmp_code: cmp.map_or_else(|c| c, branch_cmp_code),
        shift: false,
        tag: rng.gen(),
        mask,
        a,
        b,
        result,
        taken,
    }
}

fn muldiv_issue(
    rng: &mut ChaCha8Rng,
    lanes: usize,
    reference: Reference,
    op: MulDivOp,
    code: u8,
    pairs: Option<&[(u32, u32)]>,
) -> Issue {
    let name = format!("{op:?}").to_lowercase();
    lane_issue(rng, lanes, name, code, false, pairs, |a, b| {
        (reference.muldiv)(op, a, b)
    })
}

/// A shift for the multiplier: `b`'s low five bits are the amount.
fn shift_issue(
    rng: &mut ChaCha8Rng,
    lanes: usize,
    reference: Reference,
    op: AluOp,
    pairs: Option<&[(u32, u32)]>,
) -> Issue {
    let name = format!("{op:?} (in the multiplier)").to_lowercase();
    let code = shift_op_code(op).expect("a shift");
    lane_issue(rng, lanes, name, code, true, pairs, |a, b| {
        (reference.alu)(op, a, b)
    })
}

/// A warp-op of a unit without comparisons: its mask, operands and per-lane results (0 for
/// inactive lanes).
fn lane_issue(
    rng: &mut ChaCha8Rng,
    lanes: usize,
    name: String,
    op_code: u8,
    shift: bool,
    pairs: Option<&[(u32, u32)]>,
    f: impl Fn(u32, u32) -> u32,
) -> Issue {
    let mask = if pairs.is_some() {
        full_mask(lanes)
    } else {
        random_mask(rng, lanes)
    };
    let (a, b) = operands(rng, lanes, pairs);
    let result = (0..lanes)
        .map(|i| if mask >> i & 1 == 1 { f(a[i], b[i]) } else { 0 })
        .collect();
    Issue {
        name,
        op_code,
        cmp_code: 0,
        shift,
        tag: rng.gen(),
        mask,
        a,
        b,
        result,
        taken: Vec::new(),
    }
}

/// The directed ops: every op with every pair of edge operands, `lanes` pairs per warp-op.
fn directed_ops<'a, T: Copy + 'a>(
    ops: &'a [T],
    lanes: usize,
) -> impl Iterator<Item = (T, Vec<(u32, u32)>)> + 'a {
    let pairs = edge_pairs();
    ops.iter().flat_map(move |&op| {
        pairs
            .chunks(lanes)
            .map(|c| (op, c.to_vec()))
            .collect::<Vec<_>>()
    })
}

// ------------------------------------------------------------------------------------------
// Checking
// ------------------------------------------------------------------------------------------

/// How much a run checked.
#[derive(Debug, Default)]
struct Stats {
    cycles: u64,
    ops: u64,
    lane_results: u64,
    resets: u64,
}

/// Compare the outputs of the current cycle with the op expected to complete in it.
fn check_outputs(
    m: &LoadedModel,
    p: &Ports,
    cycle: u64,
    expected: Option<&(u64, Issue)>,
    stats: &mut Stats,
) -> Result<(), String> {
    let valid = m.get(p.out_valid) != 0;
    let Some((issued, e)) = expected else {
        return if valid {
            Err(format!(
                "cycle {cycle}: out_valid = 1 but no op completes in this cycle (out_tag = {:#04x})",
                m.get(p.out_tag)
            ))
        } else {
            Ok(())
        };
    };
    let what = format!(
        "cycle {cycle}: op `{}` (tag {:#04x}, mask {:#010x}, issued in cycle {issued})",
        e.name, e.tag, e.mask
    );
    if !valid {
        return Err(format!("{what}: expected out_valid = 1, got 0"));
    }
    let tag = m.get(p.out_tag) as u8;
    if tag != e.tag {
        return Err(format!(
            "{what}: out_tag expected {:#04x}, got {tag:#04x}",
            e.tag
        ));
    }
    let mut errors = String::new();
    for i in 0..p.out_result.len() {
        let lane = format!(
            "{what}: lane {i}: a = {:#010x} ({}), b = {:#010x} ({})",
            e.a[i], e.a[i] as i32, e.b[i], e.b[i] as i32
        );
        let mask = m.get(p.out_mask[i]) as u32;
        if mask != e.mask >> i & 1 {
            let _ = writeln!(
                errors,
                "{lane}: out_mask expected {}, got {mask}",
                e.mask >> i & 1
            );
        }
        let got = m.get(p.out_result[i]) as u32;
        if got != e.result[i] {
            let _ = writeln!(
                errors,
                "{lane}: result expected {:#010x}, got {got:#010x}",
                e.result[i]
            );
        }
        if let Some(&want) = e.taken.get(i) {
            let got = m.get(p.out_taken[i]) != 0;
            if got != want {
                let _ = writeln!(errors, "{lane}: taken expected {want}, got {got}");
            }
        }
        stats.lane_results += 1;
    }
    stats.ops += 1;
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Drive a pipelined unit (ALU, multiplier): `ops` issued at random times (back-to-back runs
/// and gaps), every completion checked at issue cycle + `latency`.
fn run_pipelined(
    m: &mut LoadedModel,
    p: &Ports,
    latency: impl Fn(&Issue) -> u64,
    rng: &mut ChaCha8Rng,
    mut next_op: impl FnMut(&mut ChaCha8Rng) -> Option<Issue>,
) -> Result<Stats, String> {
    let mut stats = Stats::default();
    p.reset(m);
    let mut pending: BTreeMap<u64, (u64, Issue)> = BTreeMap::new();
    let mut current: Option<Issue> = next_op(rng);
    // Issue probability, re-drawn now and then: bursts of back-to-back ops and sparse phases.
    let mut density = 1.0;
    let mut cycle = 0u64;
    check_outputs(m, p, cycle, None, &mut stats)?;
    while current.is_some() || !pending.is_empty() {
        if rng.gen_range(0..200) == 0 {
            density = [1.0, 1.0, 0.7, 0.3][rng.gen_range(0..4)];
        }
        let reset = rng.gen_range(0..1000) == 0;
        // An op whose result would complete in the same cycle as an earlier one's waits (the
        // SM reserves writeback slots the same way): only with ops of different latencies.
        let issue = current
            .as_ref()
            .is_some_and(|op| !pending.contains_key(&(cycle + latency(op))))
            && rng.gen_bool(density);
        m.set(p.reset, u64::from(reset));
        match &current {
            Some(op) => p.drive(m, issue, op),
            None => m.set(p.in_valid, 0),
        }
        if reset {
            // Everything that would complete after this cycle is dropped, including this
            // cycle's op (it is re-offered later).
            pending.retain(|&done, _| done <= cycle);
            stats.resets += 1;
        } else if issue {
            let op = current.take().expect("op");
            pending.insert(cycle + latency(&op), (cycle, op));
            current = next_op(rng);
        }
        m.tick(p.clock);
        cycle += 1;
        let expected = pending.remove(&cycle);
        check_outputs(m, p, cycle, expected.as_ref(), &mut stats)?;
    }
    stats.cycles = cycle;
    Ok(stats)
}

/// Drive the divider: random `in_valid` against `in_ready`, every completion checked at
/// accepting cycle + `latency`, `in_ready` checked every cycle.
fn run_divider(
    m: &mut LoadedModel,
    p: &Ports,
    latency: u64,
    rng: &mut ChaCha8Rng,
    mut next_op: impl FnMut(&mut ChaCha8Rng) -> Option<Issue>,
) -> Result<Stats, String> {
    let in_ready = p.in_ready.expect("divider has in_ready");
    let mut stats = Stats::default();
    p.reset(m);
    // The op in flight: (accepting cycle, op).
    let mut inflight: Option<(u64, Issue)> = None;
    let mut current = next_op(rng);
    let mut offer_rate = 1.0;
    let mut cycle = 0u64;
    check_outputs(m, p, cycle, None, &mut stats)?;
    while current.is_some() || inflight.is_some() {
        if rng.gen_range(0..100) == 0 {
            offer_rate = [1.0, 0.5, 0.1][rng.gen_range(0..3)];
        }
        let reset = rng.gen_range(0..2000) == 0;
        let valid = current.is_some() && rng.gen_bool(offer_rate);
        m.set(p.reset, u64::from(reset));
        match &current {
            Some(op) => p.drive(m, valid, op),
            None => m.set(p.in_valid, 0),
        }
        m.eval();
        let busy = inflight.as_ref().is_some_and(|(t, _)| cycle < t + latency);
        let ready_expected = !busy && !reset;
        let ready = m.get(in_ready) != 0;
        if ready != ready_expected {
            return Err(format!(
                "cycle {cycle}: in_ready expected {ready_expected}, got {ready} (reset = {reset}, \
                 op in flight accepted in cycle {:?})",
                inflight.as_ref().map(|(t, _)| *t)
            ));
        }
        if reset {
            if busy {
                inflight = None;
            }
            stats.resets += 1;
        } else if valid && ready {
            let op = current.take().expect("op");
            inflight = Some((cycle, op));
            current = next_op(rng);
        }
        m.tick(p.clock);
        cycle += 1;
        let completes = inflight.as_ref().is_some_and(|(t, _)| t + latency == cycle);
        if completes {
            let done = inflight.take();
            check_outputs(m, p, cycle, done.as_ref(), &mut stats)?;
        } else {
            check_outputs(m, p, cycle, None, &mut stats)?;
        }
    }
    stats.cycles = cycle;
    Ok(stats)
}

// ------------------------------------------------------------------------------------------
// The units
// ------------------------------------------------------------------------------------------

fn cfg_with(preset: &str, edit: impl FnOnce(&mut GpuConfig)) -> GpuConfig {
    let mut cfg = GpuConfig::preset(preset).expect("preset");
    edit(&mut cfg);
    cfg
}

/// Random ALU ops after the directed ones.
const ALU_RANDOM_OPS: usize = 10_000;
const MUL_RANDOM_OPS: usize = 10_000;
const DIV_RANDOM_OPS: usize = 1500;

fn check_alu(test: &str, cfg: &GpuConfig, reference: Reference) -> Result<Stats, String> {
    let lanes = cfg.lanes as usize;
    let top = format!("wf_alu_l{}_d{}", cfg.lanes, cfg.alu_latency);
    let (mut m, lines) = prepare(&top, Alu::new(cfg).expect("ALU config"));
    let p = Ports::new(&m, lanes);
    let seed = unit_seed(test);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut directed = directed_ops(&ALU_OPS, lanes);
    let mut random_left = ALU_RANDOM_OPS;
    let t = Instant::now();
    let stats = run_pipelined(
        &mut m,
        &p,
        |_| u64::from(cfg.alu_latency),
        &mut rng,
        |rng| {
            if let Some((op, pairs)) = directed.next() {
                return Some(alu_issue(rng, lanes, reference, Some(op), Some(&pairs)));
            }
            (random_left > 0).then(|| {
                random_left -= 1;
                alu_issue(rng, lanes, reference, None, None)
            })
        },
    )
    .map_err(|e| format!("ALU `{}` ({lanes} lanes, seed {seed}): {e}", cfg.name))?;
    println!(
        "{test}: {lines} lines of Verilog, {stats:?}, {:.2} s",
        t.elapsed().as_secs_f64()
    );
    Ok(stats)
}

fn check_multiplier(test: &str, cfg: &GpuConfig, reference: Reference) -> Result<Stats, String> {
    let lanes = cfg.lanes as usize;
    let top = format!("wf_mul_l{}_d{}", cfg.lanes, cfg.mul_latency);
    let (mut m, lines) = prepare(&top, Multiplier::new(cfg).expect("multiplier config"));
    let p = Ports::new(&m, lanes);
    let seed = unit_seed(test);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut directed = directed_ops(&MUL_OPS, lanes);
    let mut directed_shifts = directed_ops(&SHIFT_OPS, lanes);
    let mut random_left = MUL_RANDOM_OPS;
    let t = Instant::now();
    // docs/microarch/execution_units.md: a shift completes after min(mul_latency, 2) cycles.
    let mul_latency = u64::from(cfg.mul_latency);
    let latency = |op: &Issue| {
        if op.shift {
            mul_latency.min(2)
        } else {
            mul_latency
        }
    };
    let stats = run_pipelined(&mut m, &p, latency, &mut rng, |rng| {
        if let Some((op, pairs)) = directed_shifts.next() {
            return Some(shift_issue(rng, lanes, reference, op, Some(&pairs)));
        }
        let (op, pairs) = match directed.next() {
            Some((op, pairs)) => (op, Some(pairs)),
            None if random_left > 0 => {
                random_left -= 1;
                // A third of the random ops are shifts.
                if rng.gen_range(0..3) == 0 {
                    let op = SHIFT_OPS[rng.gen_range(0..SHIFT_OPS.len())];
                    return Some(shift_issue(rng, lanes, reference, op, None));
                }
                (MUL_OPS[rng.gen_range(0..4)], None)
            }
            None => return None,
        };
        let code = mul_op_code(op).expect("mul op");
        Some(muldiv_issue(
            rng,
            lanes,
            reference,
            op,
            code,
            pairs.as_deref(),
        ))
    })
    .map_err(|e| {
        format!(
            "multiplier `{}` ({lanes} lanes, seed {seed}): {e}",
            cfg.name
        )
    })?;
    println!(
        "{test}: {lines} lines of Verilog, {stats:?}, {:.2} s",
        t.elapsed().as_secs_f64()
    );
    Ok(stats)
}

fn check_divider(test: &str, cfg: &GpuConfig, reference: Reference) -> Result<Stats, String> {
    let lanes = cfg.lanes as usize;
    let top = format!("wf_div_l{}_d{}", cfg.lanes, cfg.div_latency);
    let (mut m, lines) = prepare(&top, Divider::new(cfg).expect("divider config"));
    let p = Ports::new(&m, lanes);
    let seed = unit_seed(test);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut directed = directed_ops(&DIV_OPS, lanes);
    let mut random_left = DIV_RANDOM_OPS;
    let t = Instant::now();
    let stats = run_divider(&mut m, &p, u64::from(cfg.div_latency), &mut rng, |rng| {
        let (op, pairs) = match directed.next() {
            Some((op, pairs)) => (op, Some(pairs)),
            None if random_left > 0 => {
                random_left -= 1;
                (DIV_OPS[rng.gen_range(0..4)], None)
            }
            None => return None,
        };
        let code = div_op_code(op).expect("div op");
        Some(muldiv_issue(
            rng,
            lanes,
            reference,
            op,
            code,
            pairs.as_deref(),
        ))
    })
    .map_err(|e| format!("divider `{}` ({lanes} lanes, seed {seed}): {e}", cfg.name))?;
    println!(
        "{test}: {lines} lines of Verilog, {stats:?}, {:.2} s",
        t.elapsed().as_secs_f64()
    );
    Ok(stats)
}

fn pass(r: Result<Stats, String>) -> Stats {
    r.unwrap_or_else(|e| panic!("{e}"))
}

// ALU ---------------------------------------------------------------------------------------

#[test]
fn alu_tiny() {
    pass(check_alu("alu_tiny", &GpuConfig::tiny(), GOLDEN));
}

#[test]
fn alu_small() {
    pass(check_alu("alu_small", &GpuConfig::small(), GOLDEN));
}

#[test]
#[ignore = "large preset: opt-in with `cargo test -- --ignored`"]
fn alu_fermi() {
    pass(check_alu("alu_fermi", &GpuConfig::fermi(), GOLDEN));
}

#[test]
fn alu_tiny_latency_2() {
    let cfg = cfg_with("tiny", |c| c.alu_latency = 2);
    pass(check_alu("alu_tiny_latency_2", &cfg, GOLDEN));
}

// Multiplier --------------------------------------------------------------------------------

#[test]
fn multiplier_tiny() {
    pass(check_multiplier(
        "multiplier_tiny",
        &GpuConfig::tiny(),
        GOLDEN,
    ));
}

#[test]
fn multiplier_small() {
    pass(check_multiplier(
        "multiplier_small",
        &GpuConfig::small(),
        GOLDEN,
    ));
}

#[test]
#[ignore = "large preset: opt-in with `cargo test -- --ignored`"]
fn multiplier_fermi() {
    pass(check_multiplier(
        "multiplier_fermi",
        &GpuConfig::fermi(),
        GOLDEN,
    ));
}

/// Latency 1: partial products and sum in the issue cycle (no stage-1 registers).
#[test]
fn multiplier_tiny_latency_1() {
    let cfg = cfg_with("tiny", |c| c.mul_latency = 1);
    pass(check_multiplier("multiplier_tiny_latency_1", &cfg, GOLDEN));
}

/// Latency 2 (`small`'s): the sum in one stage and shifts on the multiplication path; 4: the
/// high word's last addition in its own stage and one result register more, shifts on their
/// own two-cycle path (`tiny` has 3; fermi has 4, its whole preset being opt-in).
#[test]
fn multiplier_tiny_latency_2_and_4() {
    for latency in [2, 4] {
        let cfg = cfg_with("tiny", |c| c.mul_latency = latency);
        pass(check_multiplier(
            &format!("multiplier_tiny_latency_{latency}"),
            &cfg,
            GOLDEN,
        ));
    }
}

// Divider -----------------------------------------------------------------------------------

#[test]
fn divider_tiny() {
    pass(check_divider("divider_tiny", &GpuConfig::tiny(), GOLDEN));
}

#[test]
fn divider_small() {
    pass(check_divider("divider_small", &GpuConfig::small(), GOLDEN));
}

#[test]
#[ignore = "large preset: opt-in with `cargo test -- --ignored`"]
fn divider_fermi() {
    pass(check_divider("divider_fermi", &GpuConfig::fermi(), GOLDEN));
}

/// A latency above the minimum: the result waits in the divider until its exact cycle.
#[test]
fn divider_tiny_latency_41() {
    let cfg = cfg_with("tiny", |c| c.div_latency = 41);
    pass(check_divider("divider_tiny_latency_41", &cfg, GOLDEN));
}

/// Two lane dividers for four lanes: two rounds (lanes 0–1, then 2–3), the second round's
/// operands kept from the accepting cycle.
#[test]
fn divider_tiny_two_rounds() {
    let cfg = cfg_with("tiny", |c| c.div_latency = 67);
    assert_eq!(Divider::new(&cfg).expect("divider").lane_dividers(), 2);
    pass(check_divider("divider_tiny_two_rounds", &cfg, GOLDEN));
}

/// One lane divider, eight rounds, and a latency above their minimum (265).
#[test]
fn divider_small_one_lane_divider() {
    let cfg = cfg_with("small", |c| c.div_latency = 270);
    assert_eq!(Divider::new(&cfg).expect("divider").lane_dividers(), 1);
    pass(check_divider(
        "divider_small_one_lane_divider",
        &cfg,
        GOLDEN,
    ));
}

// Configuration errors and checker self-test -------------------------------------------------

#[test]
fn constructors_refuse_unbuildable_configs() {
    let cfg = cfg_with("tiny", |c| c.div_latency = MIN_DIV_LATENCY - 1);
    let e = Divider::new(&cfg)
        .err()
        .expect("div_latency 33 must be refused");
    let msg = e.to_string();
    assert!(
        msg.contains("div_latency") && msg.contains("33") && msg.contains("34"),
        "{msg}"
    );
    let cfg = cfg_with("tiny", |c| c.lanes = 64);
    for msg in [
        Alu::new(&cfg).err().map(|e| e.to_string()),
        Multiplier::new(&cfg).err().map(|e| e.to_string()),
        Divider::new(&cfg).err().map(|e| e.to_string()),
    ] {
        let msg = msg.expect("64 lanes must be refused");
        assert!(msg.contains("lanes") && msg.contains("64"), "{msg}");
    }
    let cfg = cfg_with("tiny", |c| c.alu_latency = 0);
    assert!(Alu::new(&cfg).is_err());
    let cfg = cfg_with("tiny", |c| c.mul_latency = 0);
    assert!(Multiplier::new(&cfg).is_err());
}

fn sra_as_srl(op: AluOp, a: u32, b: u32) -> u32 {
    match op {
        AluOp::Sra => a >> (b & 31),
        _ => alu(op, a, b),
    }
}

fn bge_as_bgeu(op: BranchOp, a: u32, b: u32) -> bool {
    match op {
        BranchOp::Bge => a >= b,
        _ => branch_taken(op, a, b),
    }
}

fn rem_by_zero_is_zero(op: MulDivOp, a: u32, b: u32) -> u32 {
    match op {
        MulDivOp::Rem | MulDivOp::Remu if b == 0 => 0,
        _ => muldiv(op, a, b),
    }
}

fn mulhsu_as_mulh(op: MulDivOp, a: u32, b: u32) -> u32 {
    match op {
        MulDivOp::Mulhsu => muldiv(MulDivOp::Mulh, a, b),
        _ => muldiv(op, a, b),
    }
}

/// The checker is not vacuous: against subtly wrong references it reports the difference,
/// naming the op.
#[test]
fn checker_catches_wrong_reference() {
    let tiny = GpuConfig::tiny();
    let e = check_multiplier(
        "checker_mul_sra",
        &tiny,
        Reference {
            alu: sra_as_srl,
            ..GOLDEN
        },
    )
    .expect_err("sra vs srl must be caught");
    assert!(
        e.contains("op `sra") && e.contains("result expected"),
        "{e}"
    );
    let e = check_alu(
        "checker_alu_bge",
        &tiny,
        Reference {
            branch: bge_as_bgeu,
            ..GOLDEN
        },
    )
    .expect_err("bge vs bgeu must be caught");
    assert!(e.contains("/ bge`") && e.contains("taken expected"), "{e}");
    let e = check_multiplier(
        "checker_mul",
        &tiny,
        Reference {
            muldiv: mulhsu_as_mulh,
            ..GOLDEN
        },
    )
    .expect_err("mulhsu vs mulh must be caught");
    assert!(e.contains("op `mulhsu`"), "{e}");
    let e = check_divider(
        "checker_div",
        &tiny,
        Reference {
            muldiv: rem_by_zero_is_zero,
            ..GOLDEN
        },
    )
    .expect_err("rem by zero must be caught");
    assert!(e.contains("op `rem") && e.contains("b = 0x00000000"), "{e}");
}
