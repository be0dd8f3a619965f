//! Unit co-simulation of the operand collector + banked register file
//! (`warpforge_hdl::operand_collector`) against its Rust reference
//! (`warpforge_sim::operand_collector`), see docs/microarch/operand_collector.md.
//!
//! * every variant (tiny / small / a 32-lane configuration × naive / swizzled layout, plus the
//!   3-source parallel-read shape): `verilator --lint-only -Wall` clean and yosys `synth` passes;
//! * random co-simulation: every output compared every cycle (issue ready, allocation, dispatch
//!   valid / CU / warp / payload / every lane of every operand, per-bank grant / conflict /
//!   write), plus an end-to-end property: a dispatched operand equals the last value written to
//!   its register (writebacks are kept off registers an in-flight instruction still reads,
//!   as the scoreboard would, except for a few deliberate hazards whose values are then only
//!   compared against the reference);
//! * the bank schedules of book Figs 3.14 (naive layout) and 3.17 (swizzled), cycle by cycle,
//!   for the RTL and the reference.

use std::collections::HashMap;
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use warpforge_config::{GpuConfig, RfLayout};
use warpforge_hdl::operand_collector as hdl;
use warpforge_hdl::{rename_top, verilog_of};
use warpforge_sim::operand_collector::{
    BankEvent, Dispatch, IssueIn, OcInputs, OcOutputs, OcShape, OperandCollector, ReadPolicy,
    WritePort, WritebackIn, MAX_SOURCES,
};
use warpforge_testbench::unit::{build_unit, lint, yosys_check, yosys_memory_count};
use warpforge_testbench::verilator_model::{LoadedModel, PortId};

const TOP: &str = "operand_collector";

// ------------------------------------------------------------------------------------------
// Variants

#[derive(Clone, Debug)]
struct Variant {
    name: String,
    cfg: GpuConfig,
    shape: OcShape,
}

fn with_layout(mut cfg: GpuConfig, layout: RfLayout) -> GpuConfig {
    cfg.rf_layout = layout;
    cfg
}

/// A 32-lane configuration small enough for test time: Fermi's lanes and banks, 4 warps,
/// 4 collector units.
fn wide32() -> GpuConfig {
    let mut c = GpuConfig::fermi();
    c.name = "wide32".into();
    c.warps = 4;
    c.collectors = 4;
    c
}

/// A configuration with the given sizes (named after them).
fn odd(warps: u32, lanes: u32, banks: u32, collectors: u32) -> GpuConfig {
    let mut c = GpuConfig::tiny();
    c.name = format!("w{warps}l{lanes}b{banks}c{collectors}");
    c.warps = warps;
    c.lanes = lanes;
    c.rf_banks = banks;
    c.collectors = collectors;
    c
}

fn variant(cfg: GpuConfig, layout: RfLayout, shape: OcShape) -> Variant {
    let cfg = with_layout(cfg, layout);
    cfg.validate().expect("test configuration is valid");
    let policy = match shape.policy {
        ReadPolicy::InOrder => "inorder",
        ReadPolicy::Parallel => "parallel",
    };
    let port = match shape.write_port {
        WritePort::Shared => "",
        WritePort::Dedicated => "-wport",
    };
    Variant {
        name: format!(
            "{}-{}-{}src-{policy}{port}",
            cfg.name,
            match layout {
                RfLayout::Naive => "naive",
                RfLayout::Swizzled => "swizzled",
            },
            shape.sources
        ),
        cfg,
        shape,
    }
}

const LAYOUTS: [RfLayout; 2] = [RfLayout::Naive, RfLayout::Swizzled];

fn default_shape() -> OcShape {
    OcShape::default()
}

fn parallel3() -> OcShape {
    OcShape {
        sources: 3,
        policy: ReadPolicy::Parallel,
        ..OcShape::default()
    }
}

/// The SM's shape (`hdl::SM_SHAPE`): 3 sources, in-order reads, a write port per bank.
fn sm_shape() -> OcShape {
    let s = hdl::SM_SHAPE;
    OcShape {
        sources: s.sources,
        policy: match s.policy {
            hdl::ReadPolicy::InOrder => ReadPolicy::InOrder,
            hdl::ReadPolicy::Parallel => ReadPolicy::Parallel,
        },
        write_port: match s.write_port {
            hdl::WritePort::Shared => WritePort::Shared,
            hdl::WritePort::Dedicated => WritePort::Dedicated,
        },
    }
}

fn hdl_shape(s: OcShape) -> hdl::OcShape {
    hdl::OcShape {
        sources: s.sources,
        policy: match s.policy {
            ReadPolicy::InOrder => hdl::ReadPolicy::InOrder,
            ReadPolicy::Parallel => hdl::ReadPolicy::Parallel,
        },
        write_port: match s.write_port {
            WritePort::Shared => hdl::WritePort::Shared,
            WritePort::Dedicated => hdl::WritePort::Dedicated,
        },
    }
}

fn verilog(v: &Variant) -> String {
    let mut uut = hdl::OperandCollector::with_shape(&v.cfg, hdl_shape(v.shape));
    let text = verilog_of(TOP, &mut uut).unwrap_or_else(|e| panic!("{}: {e}", v.name));
    rename_top(&text, TOP)
}

/// Lint (zero warnings) and yosys. The Verilog goes to a content-named cache file, which
/// Verilator's DECLFILENAME rule (file name = module name) would flag; that rule is about the
/// harness's file naming, not the design, so it alone is switched off.
fn check_static(v: &Variant) {
    let text = verilog(v);
    let t = Instant::now();
    lint(TOP, &text).unwrap_or_else(|e| panic!("{}: verilator --lint-only -Wall:\n{e}", v.name));
    let lint_time = t.elapsed();
    let t = Instant::now();
    yosys_check(TOP, &text).unwrap_or_else(|e| panic!("{}: yosys:\n{e}", v.name));
    eprintln!(
        "{}: {} lines of Verilog, {} modules; lint {:.1?}, yosys {:.1?}",
        v.name,
        text.lines().count(),
        text.matches("\nmodule ").count(),
        lint_time,
        t.elapsed()
    );
}

#[test]
fn static_checks_tiny() {
    for l in LAYOUTS {
        check_static(&variant(GpuConfig::tiny(), l, default_shape()));
        check_static(&variant(GpuConfig::tiny(), l, parallel3()));
        check_static(&variant(GpuConfig::tiny(), l, sm_shape()));
    }
}

/// The collected operands are RAMs, not flip-flops: one per source and origin (each bank and,
/// with a shared write port, the writeback), besides the register file's `B * L` bank RAMs
/// (docs/microarch/operand_collector.md, "Operand storage").
#[test]
fn operand_storage_is_memory() {
    for (cfg, shape) in [
        (GpuConfig::tiny(), default_shape()),
        (GpuConfig::tiny(), parallel3()),
        (GpuConfig::small(), default_shape()),
        (GpuConfig::small(), sm_shape()),
    ] {
        let v = variant(cfg, RfLayout::Swizzled, shape);
        let (b, l, s) = (
            v.cfg.rf_banks as usize,
            v.cfg.lanes as usize,
            v.shape.sources,
        );
        let n = yosys_memory_count(TOP, &verilog(&v)).unwrap_or_else(|e| panic!("{e}"));
        let origins = b + usize::from(v.shape.write_port == WritePort::Shared);
        assert_eq!(n, s * origins + b * l, "{}: {n} memories", v.name);
    }
}

#[test]
#[ignore = "yosys synth of the larger presets takes minutes: opt-in with `cargo test -- --ignored`"]
fn static_checks_small() {
    for l in LAYOUTS {
        check_static(&variant(GpuConfig::small(), l, default_shape()));
    }
}

/// Corner configurations (one bank / one warp / one lane / one collector; 32 banks and 64
/// warps; sizes that are not powers of two): lint only.
#[test]
fn lint_corner_configurations() {
    let corners = [
        (1, 1, 1, 1, parallel3()),
        (64, 2, 32, 3, default_shape()),
        (
            3,
            2,
            2,
            5,
            OcShape {
                sources: 1,
                policy: ReadPolicy::InOrder,
                write_port: WritePort::Dedicated,
            },
        ),
        (
            48,
            4,
            8,
            7,
            OcShape {
                sources: 2,
                policy: ReadPolicy::Parallel,
                write_port: WritePort::Dedicated,
            },
        ),
    ];
    // The register file on its own, as the generator may emit it.
    for cfg in [GpuConfig::tiny(), GpuConfig::small()] {
        for write_first in [false, true] {
            let mut rf = warpforge_hdl::register_file::RegisterFile::with_ports(
                warpforge_hdl::register_file::RfGeometry::new(&cfg),
                write_first,
            );
            let text = rename_top(
                &verilog_of("register_file", &mut rf).expect("register file"),
                "register_file",
            );
            lint("register_file", &text).unwrap_or_else(|e| {
                panic!(
                    "register_file ({}, write-first {write_first}): {e}",
                    cfg.name
                )
            });
        }
    }
    for (warps, lanes, banks, collectors, shape) in corners {
        for l in LAYOUTS {
            let v = variant(odd(warps, lanes, banks, collectors), l, shape);
            let text = verilog(&v);
            lint(TOP, &text)
                .unwrap_or_else(|e| panic!("{}: verilator --lint-only -Wall:\n{e}", v.name));
        }
    }
}

#[test]
#[ignore = "large preset: opt-in with `cargo test -- --ignored`"]
fn static_checks_wide32() {
    for l in LAYOUTS {
        check_static(&variant(wide32(), l, default_shape()));
    }
}

// ------------------------------------------------------------------------------------------
// The Verilated unit

struct Ports {
    clock: PortId,
    reset: PortId,
    issue_valid: PortId,
    issue_ready: PortId,
    issue_warp: PortId,
    issue_src: Vec<PortId>,
    issue_need: Vec<PortId>,
    issue_payload: PortId,
    wb_valid: PortId,
    wb_warp: PortId,
    wb_rd: PortId,
    wb_mask: Vec<PortId>,
    wb_data: Vec<PortId>,
    disp_valid: PortId,
    disp_ready: PortId,
    disp_cu: PortId,
    disp_warp: PortId,
    disp_payload: PortId,
    disp_data: Vec<PortId>,
    ev_alloc: PortId,
    ev_alloc_cu: PortId,
    ev_grant: Vec<PortId>,
    ev_grant_cu: Vec<PortId>,
    ev_grant_src: Vec<PortId>,
    ev_conflict: Vec<PortId>,
    ev_write: Vec<PortId>,
}

struct Dut {
    m: LoadedModel,
    p: Ports,
    lanes: usize,
    sources: usize,
    banks: usize,
}

/// What the RTL drove in one cycle, as raw port values.
#[derive(Clone, Debug, Default)]
struct RtlOut {
    issue_ready: bool,
    ev_alloc: bool,
    ev_alloc_cu: u64,
    disp_valid: bool,
    disp_cu: u64,
    disp_warp: u64,
    disp_payload: u64,
    /// `[s][l]`
    disp_data: Vec<Vec<u32>>,
    /// Per bank.
    grant: Vec<bool>,
    grant_cu: Vec<u64>,
    grant_src: Vec<u64>,
    conflict: Vec<bool>,
    write: Vec<bool>,
}

impl Dut {
    fn new(v: &Variant) -> Dut {
        let t = Instant::now();
        let m = build_unit(TOP, &verilog(v), false)
            .unwrap_or_else(|e| panic!("{}: building the Verilated model: {e}", v.name));
        eprintln!(
            "{}: model ready in {:.1?} (cache hit: {})",
            v.name,
            t.elapsed(),
            m.build_report().cache_hit
        );
        let one = |n: &str| m.port(n).unwrap_or_else(|e| panic!("{e}"));
        // rust-hdl names vector element i `name$i`; Verilator spells `$` as `__024`.
        let many = |n: &str, k: usize| -> Vec<PortId> {
            (0..k).map(|i| one(&format!("{n}__024{i}"))).collect()
        };
        let (l, s, b) = (
            v.cfg.lanes as usize,
            v.shape.sources,
            v.cfg.rf_banks as usize,
        );
        let p = Ports {
            clock: one("clock"),
            reset: one("reset"),
            issue_valid: one("issue_valid"),
            issue_ready: one("issue_ready"),
            issue_warp: one("issue_warp"),
            issue_src: many("issue_src", s),
            issue_need: many("issue_need", s),
            issue_payload: one("issue_payload"),
            wb_valid: one("wb_valid"),
            wb_warp: one("wb_warp"),
            wb_rd: one("wb_rd"),
            wb_mask: many("wb_mask", l),
            wb_data: many("wb_data", l),
            disp_valid: one("disp_valid"),
            disp_ready: one("disp_ready"),
            disp_cu: one("disp_cu"),
            disp_warp: one("disp_warp"),
            disp_payload: one("disp_payload"),
            disp_data: many("disp_data", s * l),
            ev_alloc: one("ev_alloc"),
            ev_alloc_cu: one("ev_alloc_cu"),
            ev_grant: many("ev_grant", b),
            ev_grant_cu: many("ev_grant_cu", b),
            ev_grant_src: many("ev_grant_src", b),
            ev_conflict: many("ev_conflict", b),
            ev_write: many("ev_write", b),
        };
        Dut {
            m,
            p,
            lanes: l,
            sources: s,
            banks: b,
        }
    }

    /// Drive one cycle: set the inputs, settle, sample the outputs, clock.
    fn cycle(&mut self, inp: &OcInputs) -> RtlOut {
        let (m, p) = (&mut self.m, &self.p);
        m.set(p.reset, inp.reset as u64);
        m.set(p.issue_valid, inp.issue.valid as u64);
        m.set(p.issue_warp, inp.issue.warp as u64);
        for s in 0..self.sources {
            m.set(p.issue_src[s], inp.issue.src[s] as u64);
            m.set(p.issue_need[s], inp.issue.need[s] as u64);
        }
        m.set(p.issue_payload, inp.issue.payload as u64);
        m.set(p.wb_valid, inp.wb.valid as u64);
        m.set(p.wb_warp, inp.wb.warp as u64);
        m.set(p.wb_rd, inp.wb.rd as u64);
        for l in 0..self.lanes {
            m.set(p.wb_mask[l], (inp.wb.mask >> l & 1) as u64);
            m.set(
                p.wb_data[l],
                inp.wb.data.get(l).copied().unwrap_or(0) as u64,
            );
        }
        m.set(p.disp_ready, inp.disp_ready as u64);
        m.eval();
        let b = |id: PortId| m.get(id) != 0;
        let out = RtlOut {
            issue_ready: b(p.issue_ready),
            ev_alloc: b(p.ev_alloc),
            ev_alloc_cu: m.get(p.ev_alloc_cu),
            disp_valid: b(p.disp_valid),
            disp_cu: m.get(p.disp_cu),
            disp_warp: m.get(p.disp_warp),
            disp_payload: m.get(p.disp_payload),
            disp_data: (0..self.sources)
                .map(|s| {
                    (0..self.lanes)
                        .map(|l| m.get(p.disp_data[s * self.lanes + l]) as u32)
                        .collect()
                })
                .collect(),
            grant: p.ev_grant.iter().map(|&x| b(x)).collect(),
            grant_cu: p.ev_grant_cu.iter().map(|&x| m.get(x)).collect(),
            grant_src: p.ev_grant_src.iter().map(|&x| m.get(x)).collect(),
            conflict: p.ev_conflict.iter().map(|&x| b(x)).collect(),
            write: p.ev_write.iter().map(|&x| b(x)).collect(),
        };
        m.tick(p.clock);
        out
    }
}

/// The raw port values the RTL must drive for the reference outputs `r` (every event output
/// is 0 when its event does not happen, every dispatch field 0 when nothing is offered).
fn expected_raw(r: &OcOutputs, sources: usize, lanes: usize) -> RtlOut {
    let d = r.dispatch.as_ref();
    RtlOut {
        issue_ready: r.issue_ready,
        ev_alloc: r.alloc.is_some(),
        ev_alloc_cu: r.alloc.unwrap_or(0) as u64,
        disp_valid: d.is_some(),
        disp_cu: d.map_or(0, |d| d.cu as u64),
        disp_warp: d.map_or(0, |d| d.warp as u64),
        disp_payload: d.map_or(0, |d| d.payload as u64),
        disp_data: d.map_or(vec![vec![0; lanes]; sources], |d| d.data.clone()),
        grant: r.banks.iter().map(|e| e.grant.is_some()).collect(),
        grant_cu: r
            .banks
            .iter()
            .map(|e| e.grant.map_or(0, |g| g.0 as u64))
            .collect(),
        grant_src: r
            .banks
            .iter()
            .map(|e| e.grant.map_or(0, |g| g.1 as u64))
            .collect(),
        conflict: r.banks.iter().map(|e| e.conflict).collect(),
        write: r.banks.iter().map(|e| e.write).collect(),
    }
}

/// Every difference between the RTL and the reference in one cycle, one line each:
/// cycle, where (CU / bank / source / lane), field, expected, actual.
fn diff(cycle: u64, exp: &OcOutputs, got: &RtlOut, sources: usize, lanes: usize) -> Vec<String> {
    let mut v = diff_all(cycle, exp, got, sources, lanes);
    const MAX_LINES: usize = 24;
    if v.len() > MAX_LINES {
        let more = v.len() - MAX_LINES;
        v.truncate(MAX_LINES);
        v.push(format!("... and {more} more differences in this cycle"));
    }
    v
}

fn diff_all(
    cycle: u64,
    exp: &OcOutputs,
    got: &RtlOut,
    sources: usize,
    lanes: usize,
) -> Vec<String> {
    let e = expected_raw(exp, sources, lanes);
    let mut v = vec![];
    let mut field = |where_: String, name: &str, ex: String, ac: String| {
        if ex != ac {
            v.push(format!(
                "cycle {cycle}, {where_}: field `{name}`: expected {ex}, actual {ac}"
            ));
        }
    };
    field(
        "issue port".into(),
        "issue_ready",
        e.issue_ready.to_string(),
        got.issue_ready.to_string(),
    );
    field(
        "issue port".into(),
        "ev_alloc",
        e.ev_alloc.to_string(),
        got.ev_alloc.to_string(),
    );
    field(
        "issue port".into(),
        "ev_alloc_cu",
        format!("CU {}", e.ev_alloc_cu),
        format!("CU {}", got.ev_alloc_cu),
    );
    let cu = format!("dispatch (expected CU {})", e.disp_cu);
    field(
        cu.clone(),
        "disp_valid",
        e.disp_valid.to_string(),
        got.disp_valid.to_string(),
    );
    // The other dispatch fields are meaningful only with `disp_valid` (in a reset cycle the
    // RTL shows the choice it would make; docs/microarch/operand_collector.md).
    if e.disp_valid || got.disp_valid {
        field(
            cu.clone(),
            "disp_cu",
            e.disp_cu.to_string(),
            got.disp_cu.to_string(),
        );
        field(
            cu.clone(),
            "disp_warp",
            e.disp_warp.to_string(),
            got.disp_warp.to_string(),
        );
        field(
            cu.clone(),
            "disp_payload",
            format!("{:#06x}", e.disp_payload),
            format!("{:#06x}", got.disp_payload),
        );
        for s in 0..sources {
            for l in 0..lanes {
                field(
                    format!("{cu}, source {s}, lane {l}"),
                    "disp_data",
                    format!("{:#010x}", e.disp_data[s][l]),
                    format!("{:#010x}", got.disp_data[s][l]),
                );
            }
        }
    }
    let show = |g: bool, c: u64, s: u64| {
        if g {
            format!("grant to CU {c} source {s}")
        } else {
            format!("no grant (cu field {c}, src field {s})")
        }
    };
    for b in 0..e.grant.len() {
        field(
            format!("bank {b}"),
            "ev_grant/ev_grant_cu/ev_grant_src",
            show(e.grant[b], e.grant_cu[b], e.grant_src[b]),
            show(got.grant[b], got.grant_cu[b], got.grant_src[b]),
        );
        field(
            format!("bank {b}"),
            "ev_conflict",
            e.conflict[b].to_string(),
            got.conflict[b].to_string(),
        );
        field(
            format!("bank {b}"),
            "ev_write",
            e.write[b].to_string(),
            got.write[b].to_string(),
        );
    }
    v
}

// ------------------------------------------------------------------------------------------
// Random co-simulation

/// An issued instruction as the testbench remembers it (by payload).
#[derive(Clone, Debug)]
struct Instr {
    warp: u32,
    src: [u8; MAX_SOURCES],
    need: [bool; MAX_SOURCES],
    /// A deliberate hazard touched one of its sources: only the reference judges its values.
    hazard: bool,
}

struct Stats {
    cycles: u64,
    issued: u64,
    dispatched: u64,
    grants: u64,
    conflicts: u64,
    writes: u64,
    resets: u64,
    checked_operands: u64,
}

/// `storm`: sources and writebacks crowd onto 3 registers of 2 warps and a writeback hits a
/// register that collector units wait for half the time, so several units forward the same
/// writeback in one cycle (only the lowest-numbered one per source index is served).
fn random_cosim(v: &Variant, seed: u64, cycles: u64, storm: bool) -> Stats {
    let mut dut = Dut::new(v);
    assert_eq!(dut.banks, v.cfg.rf_banks as usize);
    let mut model = OperandCollector::new(&v.cfg, v.shape);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (warps, lanes, sources) = (v.cfg.warps, v.cfg.lanes as usize, v.shape.sources);
    let (use_warps, use_regs, hazard_ratio) = if storm {
        (warps.min(2), 4u8, (1, 2))
    } else {
        (warps, 32u8, (1, 20))
    };
    let full_mask = if lanes == 32 {
        u32::MAX
    } else {
        (1u32 << lanes) - 1
    };
    let mut st = Stats {
        cycles: 0,
        issued: 0,
        dispatched: 0,
        grants: 0,
        conflicts: 0,
        writes: 0,
        resets: 0,
        checked_operands: 0,
    };
    // The testbench's own register file (what was written last).
    let mut shadow: HashMap<(u32, u8), Vec<u32>> = HashMap::new();
    let mut instrs: HashMap<u16, Instr> = HashMap::new();
    // CU -> payload of the instruction it holds.
    let mut in_cu: HashMap<usize, u16> = HashMap::new();
    let mut pending_issue: Option<IssueIn> = None;
    let mut next_payload: u16 = 0;
    let init_cycles = u64::from(warps) * 31;
    let mut ready_bias = 0.8;
    let mut reset_left = 0u32;

    let report = |cycle: u64, lines: &[String], inp: &OcInputs| -> String {
        format!(
            "{}: RTL and reference differ (seed {seed:#x}):\n  {}\ninputs of that cycle: {inp:?}",
            v.name,
            lines.join("\n  ")
        ) + &format!("\n(first difference at cycle {cycle})")
    };

    for cycle in 0..init_cycles + cycles {
        let mut inp = OcInputs {
            disp_ready: true,
            ..Default::default()
        };
        if cycle < init_cycles {
            // Give every register of every warp a defined value in every lane.
            let (w, r) = ((cycle / 31) as u32, (cycle % 31 + 1) as u8);
            inp.wb = WritebackIn {
                valid: true,
                warp: w,
                rd: r,
                mask: full_mask,
                data: (0..lanes).map(|_| rng.gen()).collect(),
            };
        } else {
            if cycle % 500 == 0 {
                ready_bias = [0.2, 0.6, 0.9, 1.0][rng.gen_range(0..4)];
            }
            if reset_left == 0 && rng.gen_ratio(1, 1500) {
                reset_left = rng.gen_range(1..=2);
            }
            inp.reset = reset_left > 0;
            reset_left = reset_left.saturating_sub(1);
            inp.disp_ready = rng.gen_bool(ready_bias);
            // Issue: hold an offered instruction until it is accepted (valid/ready).
            if pending_issue.is_none() && rng.gen_bool(0.7) {
                let mut is = IssueIn {
                    valid: true,
                    warp: rng.gen_range(0..use_warps),
                    payload: next_payload,
                    ..Default::default()
                };
                next_payload = next_payload.wrapping_add(1);
                for s in 0..sources {
                    is.src[s] = if rng.gen_ratio(1, 16) {
                        0
                    } else {
                        rng.gen_range(1..use_regs)
                    };
                    is.need[s] = rng.gen_ratio(7, 8);
                }
                pending_issue = Some(is);
            }
            if let Some(is) = pending_issue {
                inp.issue = is;
            }
            // Writeback.
            if rng.gen_bool(0.45) {
                let warp = rng.gen_range(0..use_warps);
                let rd = if rng.gen_ratio(1, 32) {
                    0
                } else {
                    rng.gen_range(1..use_regs)
                };
                let readers: Vec<u16> = in_cu
                    .values()
                    .copied()
                    .filter(|p| {
                        let i = &instrs[p];
                        i.warp == warp && (0..sources).any(|s| i.need[s] && i.src[s] == rd)
                    })
                    .collect();
                if readers.is_empty() || rng.gen_ratio(hazard_ratio.0, hazard_ratio.1) {
                    for p in &readers {
                        instrs.get_mut(p).unwrap().hazard = true;
                    }
                    inp.wb = WritebackIn {
                        valid: true,
                        warp,
                        rd,
                        mask: if rng.gen_bool(0.5) {
                            full_mask
                        } else {
                            rng.gen::<u32>() & full_mask
                        },
                        data: (0..lanes).map(|_| rng.gen()).collect(),
                    };
                }
            }
        }

        let exp = model.step(&inp);
        let got = dut.cycle(&inp);
        let d = diff(cycle, &exp, &got, sources, lanes);
        if !d.is_empty() {
            panic!("{}", report(cycle, &d, &inp));
        }

        // End-to-end property of the offered instruction.
        if let Some(Dispatch {
            payload,
            data,
            accepted,
            cu,
            ..
        }) = &exp.dispatch
        {
            let i = &instrs[payload];
            if !i.hazard {
                for (s, got) in data.iter().enumerate() {
                    let want = if i.need[s] && i.src[s] != 0 {
                        shadow
                            .get(&(i.warp, i.src[s]))
                            .cloned()
                            .unwrap_or_else(|| vec![0; lanes])
                    } else {
                        vec![0; lanes]
                    };
                    assert_eq!(
                        *got, want,
                        "{}: cycle {cycle}, CU {cu}, source {s} (w{}:r{}): dispatched operand is \
                         not the value last written to the register (seed {seed:#x})",
                        v.name, i.warp, i.src[s]
                    );
                    st.checked_operands += 1;
                }
            }
            if *accepted {
                st.dispatched += 1;
                in_cu.remove(cu);
            }
        }
        if inp.reset {
            st.resets += 1;
            in_cu.clear();
        }
        if let Some(cu) = exp.alloc {
            st.issued += 1;
            let is = pending_issue
                .take()
                .expect("allocated an offered instruction");
            instrs.insert(
                is.payload,
                Instr {
                    warp: is.warp,
                    src: is.src,
                    need: is.need,
                    hazard: false,
                },
            );
            in_cu.insert(cu, is.payload);
        }
        for e in &exp.banks {
            st.grants += e.grant.is_some() as u64;
            st.conflicts += e.conflict as u64;
            st.writes += e.write as u64;
        }
        if !inp.reset && inp.wb.valid && inp.wb.rd != 0 {
            let reg = shadow
                .entry((inp.wb.warp, inp.wb.rd))
                .or_insert_with(|| vec![0; lanes]);
            for (l, x) in reg.iter_mut().enumerate() {
                if inp.wb.mask >> l & 1 == 1 {
                    *x = inp.wb.data[l];
                }
            }
        }
        st.cycles += 1;
    }
    assert!(
        st.dispatched > cycles / 20,
        "{}: too few dispatches",
        v.name
    );
    assert!(st.conflicts > 0, "{}: no bank conflict exercised", v.name);
    st
}

/// Warp programs through the unit with a scoreboard and execution units around it, as in the
/// SM: an instruction issues only when no earlier instruction of its warp still has to write
/// one of its sources or its destination (RAW, WAW); a dispatched instruction writes its
/// destination back 1..=6 cycles later (one writeback per cycle, oldest ready first). Every
/// dispatched operand must equal the register's value when the instruction issued: a younger
/// instruction of the same warp overwriting a source before it is read (WAR) fails this.
/// RTL and reference are compared every cycle as in the random test.
fn program_cosim(v: &Variant, seed: u64, cycles: u64) -> Stats {
    let mut dut = Dut::new(v);
    let mut model = OperandCollector::new(&v.cfg, v.shape);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (warps, lanes, sources) = (v.cfg.warps, v.cfg.lanes as usize, v.shape.sources);
    let full_mask = if lanes == 32 {
        u32::MAX
    } else {
        (1u32 << lanes) - 1
    };
    let mut st = Stats {
        cycles: 0,
        issued: 0,
        dispatched: 0,
        grants: 0,
        conflicts: 0,
        writes: 0,
        resets: 0,
        checked_operands: 0,
    };
    // Few registers, so that instructions of a warp often share them.
    let nregs = 8u8;
    let mut shadow: HashMap<(u32, u8), Vec<u32>> = HashMap::new();
    // Per warp: registers with a write in flight.
    let mut pending: Vec<Vec<u8>> = vec![vec![]; warps as usize];
    // payload -> (warp, rd, operand values at issue).
    let mut issued: HashMap<u16, (u32, u8, Vec<Vec<u32>>)> = HashMap::new();
    // (ready cycle, seq, warp, rd) waiting for the writeback port.
    let mut wbq: Vec<(u64, u64, u32, u8)> = vec![];
    let mut offer: Option<(IssueIn, u8)> = None;
    let mut next_payload: u16 = 0;
    let mut seq = 0u64;
    let mut ready_bias = 0.8;
    let value = |shadow: &HashMap<(u32, u8), Vec<u32>>, w: u32, r: u8| -> Vec<u32> {
        if r == 0 {
            vec![0; lanes]
        } else {
            shadow
                .get(&(w, r))
                .cloned()
                .unwrap_or_else(|| vec![0; lanes])
        }
    };
    for cycle in 0..cycles {
        if cycle % 400 == 0 {
            ready_bias = [0.3, 0.7, 1.0][rng.gen_range(0..3)];
        }
        let mut inp = OcInputs {
            disp_ready: rng.gen_bool(ready_bias),
            ..Default::default()
        };
        // Offer the next instruction of some warp once the scoreboard allows it.
        if offer.is_none() && rng.gen_bool(0.8) {
            let warp = rng.gen_range(0..warps);
            let mut is = IssueIn {
                valid: true,
                warp,
                payload: next_payload,
                ..Default::default()
            };
            for s in 0..sources {
                is.src[s] = rng.gen_range(0..nregs);
                is.need[s] = rng.gen_ratio(9, 10);
            }
            let rd = rng.gen_range(0..nregs);
            let p = &pending[warp as usize];
            let raw = (0..sources).any(|s| is.need[s] && p.contains(&is.src[s]));
            if !raw && !p.contains(&rd) {
                next_payload = next_payload.wrapping_add(1);
                offer = Some((is, rd));
            }
        }
        if let Some((is, _)) = offer {
            inp.issue = is;
        }
        // One writeback per cycle: the oldest ready one.
        wbq.sort();
        let mut wb_done = None;
        if let Some(k) = wbq.iter().position(|x| x.0 <= cycle) {
            let (_, _, warp, rd) = wbq.remove(k);
            inp.wb = WritebackIn {
                valid: true,
                warp,
                rd,
                mask: if rng.gen_bool(0.7) {
                    full_mask
                } else {
                    rng.gen::<u32>() & full_mask
                },
                data: (0..lanes).map(|_| rng.gen()).collect(),
            };
            wb_done = Some((warp, rd));
        }

        let exp = model.step(&inp);
        let got = dut.cycle(&inp);
        let d = diff(cycle, &exp, &got, sources, lanes);
        assert!(
            d.is_empty(),
            "{}: RTL and reference differ (program test, seed {seed:#x}):\n  {}\ninputs: {inp:?}",
            v.name,
            d.join("\n  ")
        );

        if let Some(disp) = &exp.dispatch {
            let (warp, rd, want) = &issued[&disp.payload];
            for (s, (got, want)) in disp.data.iter().zip(want).enumerate() {
                assert_eq!(
                    got, want,
                    "{}: cycle {cycle}, CU {}, source {s}: field `disp_data` of w{warp}: expected the \
                     value at issue, actual another (a write-after-read hazard?) (seed {seed:#x})",
                    v.name, disp.cu
                );
                st.checked_operands += 1;
            }
            if disp.accepted {
                st.dispatched += 1;
                if *rd != 0 {
                    seq += 1;
                    wbq.push((cycle + rng.gen_range(1..=6), seq, *warp, *rd));
                }
                issued.remove(&disp.payload);
            }
        }
        if let Some((w, rd)) = wb_done {
            let reg = shadow.entry((w, rd)).or_insert_with(|| vec![0; lanes]);
            for (l, x) in reg.iter_mut().enumerate() {
                if inp.wb.mask >> l & 1 == 1 {
                    *x = inp.wb.data[l];
                }
            }
            pending[w as usize].retain(|&r| r != rd);
            st.writes += 1;
        }
        if exp.alloc.is_some() {
            let (is, rd) = offer.take().expect("allocated the offered instruction");
            let want = (0..sources)
                .map(|s| {
                    if is.need[s] {
                        value(&shadow, is.warp, is.src[s])
                    } else {
                        vec![0; lanes]
                    }
                })
                .collect();
            issued.insert(is.payload, (is.warp, rd, want));
            if rd != 0 {
                pending[is.warp as usize].push(rd);
            }
            st.issued += 1;
        }
        for e in &exp.banks {
            st.grants += e.grant.is_some() as u64;
            st.conflicts += e.conflict as u64;
        }
        st.cycles += 1;
    }
    assert!(
        st.dispatched > cycles / 20,
        "{}: too few dispatches",
        v.name
    );
    st
}

fn cosim_all(variants: &[Variant], cycles: u64) {
    for (k, v) in variants.iter().enumerate() {
        for (kind, st, t) in [
            {
                let t = Instant::now();
                (
                    "random",
                    random_cosim(v, 0x0c0f_fee0 + k as u64, cycles, false),
                    t,
                )
            },
            {
                let t = Instant::now();
                (
                    "storm",
                    random_cosim(v, 0x5707_0000 + k as u64, cycles / 4, true),
                    t,
                )
            },
            {
                let t = Instant::now();
                (
                    "program",
                    program_cosim(v, 0x5c0e_b0a0 + k as u64, cycles),
                    t,
                )
            },
        ] {
            eprintln!(
            "{} ({kind}): {} cycles in {:.1?}: {} issued, {} dispatched, {} grants, {} conflicts, \
             {} writes, {} resets, {} operands checked end to end",
            v.name,
            st.cycles,
            t.elapsed(),
            st.issued,
            st.dispatched,
            st.grants,
            st.conflicts,
            st.writes,
            st.resets,
            st.checked_operands
        );
        }
    }
}

#[test]
fn cosim_random_tiny() {
    let mut vs = vec![];
    for l in LAYOUTS {
        vs.push(variant(GpuConfig::tiny(), l, default_shape()));
        vs.push(variant(GpuConfig::tiny(), l, parallel3()));
        vs.push(variant(GpuConfig::tiny(), l, sm_shape()));
    }
    // Sizes that are not powers of two: round-robin wrap-around, unused RAM rows.
    for write_port in [WritePort::Shared, WritePort::Dedicated] {
        vs.push(variant(
            odd(3, 2, 2, 3),
            RfLayout::Swizzled,
            OcShape {
                sources: 2,
                policy: ReadPolicy::Parallel,
                write_port,
            },
        ));
    }
    cosim_all(&vs, 20_000);
}

#[test]
fn cosim_random_small() {
    // The book's shape on one layout, the SM's on the other.
    let vs = [
        variant(GpuConfig::small(), RfLayout::Naive, default_shape()),
        variant(GpuConfig::small(), RfLayout::Swizzled, sm_shape()),
    ];
    cosim_all(&vs, 20_000);
}

#[test]
#[ignore = "large preset: opt-in with `cargo test -- --ignored`"]
fn cosim_random_wide32() {
    let vs: Vec<_> = LAYOUTS
        .iter()
        .map(|&l| variant(wide32(), l, default_shape()))
        .collect();
    cosim_all(&vs, 20_000);
}

// ------------------------------------------------------------------------------------------
// Book figures

/// One instruction of a figure: warp, sources (all needed), destination.
struct FigInstr {
    warp: u32,
    src: Vec<u8>,
    rd: u8,
}

/// Per-cycle record of a figure run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Cycle {
    /// Per bank: "w3:r4" (read), "w3:r2 wb" (writeback) or "".
    bank: Vec<String>,
    conflict: Vec<bool>,
    /// "w1" of the instruction allocated / dispatched this cycle.
    alloc: String,
    dispatch: String,
}

/// Run a figure's instructions through one side (RTL or reference): issued in order as fast as
/// the issue port accepts them, dispatch always ready, each result written back one cycle after
/// its dispatch (a 1-cycle ALU), all lanes. `step` runs one cycle and returns the reference-
/// shaped outputs.
fn run_figure(
    prog: &[FigInstr],
    lanes: usize,
    cycles: u64,
    mut step: impl FnMut(&OcInputs) -> OcOutputs,
) -> Vec<Cycle> {
    let mut next = 0;
    let mut in_cu: HashMap<usize, usize> = HashMap::new();
    let mut wb_at: HashMap<u64, usize> = HashMap::new();
    let mut rec = vec![];
    for cycle in 0..cycles {
        let mut inp = OcInputs {
            disp_ready: true,
            ..Default::default()
        };
        if let Some(ins) = prog.get(next) {
            inp.issue.valid = true;
            inp.issue.warp = ins.warp;
            inp.issue.payload = next as u16;
            for (s, &r) in ins.src.iter().enumerate() {
                inp.issue.src[s] = r;
                inp.issue.need[s] = true;
            }
        }
        if let Some(&k) = wb_at.get(&cycle) {
            inp.wb = WritebackIn {
                valid: true,
                warp: prog[k].warp,
                rd: prog[k].rd,
                mask: u32::MAX >> (32 - lanes),
                data: vec![0x1000 * k as u32 + cycle as u32; lanes],
            };
        }
        let o = step(&inp);
        let mut c = Cycle {
            bank: vec![String::new(); o.banks.len()],
            conflict: o.banks.iter().map(|e| e.conflict).collect(),
            ..Default::default()
        };
        for (b, e) in o.banks.iter().enumerate() {
            if e.write {
                c.bank[b] = format!("w{}:r{} wb", inp.wb.warp, inp.wb.rd);
            } else if let Some((cu, s)) = e.grant {
                let ins = &prog[in_cu[&cu]];
                c.bank[b] = format!("w{}:r{}", ins.warp, ins.src[s]);
            }
        }
        if let Some(d) = &o.dispatch {
            let k = d.payload as usize;
            c.dispatch = format!("w{}", prog[k].warp);
            in_cu.remove(&d.cu);
            wb_at.insert(cycle + 1, k);
        }
        if let Some(cu) = o.alloc {
            c.alloc = format!("w{}", prog[next].warp);
            in_cu.insert(cu, next);
            next += 1;
        }
        rec.push(c);
    }
    rec
}

/// Reference-shaped outputs from the RTL's raw outputs (checking the zero-when-idle rule on
/// the way is left to the random co-simulation).
fn rtl_outputs(r: &RtlOut) -> OcOutputs {
    OcOutputs {
        issue_ready: r.issue_ready,
        alloc: r.ev_alloc.then_some(r.ev_alloc_cu as usize),
        dispatch: r.disp_valid.then(|| Dispatch {
            cu: r.disp_cu as usize,
            warp: r.disp_warp as u32,
            payload: r.disp_payload as u16,
            data: r.disp_data.clone(),
            accepted: true,
        }),
        banks: (0..r.grant.len())
            .map(|b| BankEvent {
                grant: r.grant[b].then_some((r.grant_cu[b] as usize, r.grant_src[b] as usize)),
                conflict: r.conflict[b],
                write: r.write[b],
            })
            .collect(),
    }
}

/// Expected schedule: per cycle, the non-empty bank cells `(bank, text)`, the conflicting
/// banks, the allocated and the dispatched warp.
struct Expect {
    cycle: u64,
    cells: &'static [(usize, &'static str)],
    conflicts: &'static [usize],
    alloc: &'static str,
    dispatch: &'static str,
}

fn check_schedule(fig: &str, side: &str, got: &[Cycle], expect: &[Expect]) {
    let mut errs = vec![];
    for e in expect {
        let c = &got[e.cycle as usize];
        for b in 0..c.bank.len() {
            let want = e
                .cells
                .iter()
                .find(|x| x.0 == b)
                .map_or("", |x| x.1)
                .to_string();
            if c.bank[b] != want {
                errs.push(format!(
                    "cycle {}, bank {b}: field `access`: expected `{want}`, actual `{}`",
                    e.cycle, c.bank[b]
                ));
            }
            let conflict = e.conflicts.contains(&b);
            if c.conflict[b] != conflict {
                errs.push(format!(
                    "cycle {}, bank {b}: field `conflict`: expected {conflict}, actual {}",
                    e.cycle, c.conflict[b]
                ));
            }
        }
        if c.alloc != e.alloc {
            errs.push(format!(
                "cycle {}, issue: field `alloc`: expected `{}`, actual `{}`",
                e.cycle, e.alloc, c.alloc
            ));
        }
        if c.dispatch != e.dispatch {
            errs.push(format!(
                "cycle {}, dispatch: field `dispatch`: expected `{}`, actual `{}`",
                e.cycle, e.dispatch, c.dispatch
            ));
        }
    }
    assert!(
        errs.is_empty(),
        "{fig} ({side}): schedule differs from the book:\n  {}\nfull schedule:\n{}",
        errs.join("\n  "),
        table(got)
    );
}

/// The schedule as a text table (for failure messages and the log).
fn table(got: &[Cycle]) -> String {
    let mut s = String::new();
    for (k, c) in got.iter().enumerate() {
        s += &format!("  cycle {k:>2}:");
        for (b, cell) in c.bank.iter().enumerate() {
            let x = if c.conflict[b] { "*" } else { " " };
            s += &format!(" | b{b}{x} {cell:<10}");
        }
        s += &format!(" | alloc {:<3} | dispatch {}\n", c.alloc, c.dispatch);
    }
    s
}

/// Run a figure on both the RTL and the reference, compare them cycle by cycle with each
/// other and with the book's schedule.
fn figure(name: &str, cfg: GpuConfig, shape: OcShape, prog: &[FigInstr], expect: &[Expect]) {
    let v = Variant {
        name: name.into(),
        cfg,
        shape,
    };
    let lanes = v.cfg.lanes as usize;
    let cycles = expect.iter().map(|e| e.cycle).max().unwrap() + 3;
    let mut model = OperandCollector::new(&v.cfg, shape);
    let reference = run_figure(prog, lanes, cycles, |inp| model.step(inp));
    let mut dut = Dut::new(&v);
    let mut model2 = OperandCollector::new(&v.cfg, shape);
    let mut cyc = 0;
    let rtl = run_figure(prog, lanes, cycles, |inp| {
        let got = dut.cycle(inp);
        let exp = model2.step(inp);
        let d = diff(cyc, &exp, &got, shape.sources, lanes);
        assert!(
            d.is_empty(),
            "{name}: RTL vs reference:\n  {}",
            d.join("\n  ")
        );
        cyc += 1;
        rtl_outputs(&got)
    });
    eprintln!("{name} (RTL; * = conflict):\n{}", table(&rtl));
    check_schedule(name, "reference", &reference, expect);
    check_schedule(name, "RTL", &rtl, expect);
    // Nothing happens after the expected window.
    for c in &rtl[expect.iter().map(|e| e.cycle).max().unwrap() as usize + 1..] {
        assert!(
            c.bank.iter().all(String::is_empty) && c.dispatch.is_empty() && c.alloc.is_empty(),
            "{name}: activity after the expected schedule:\n{}",
            table(&rtl)
        );
    }
}

/// The figures' machine: 4 banks, 4 warps (w0..w3).
fn figure_cfg(layout: RfLayout, collectors: u32) -> GpuConfig {
    let mut c = GpuConfig::tiny();
    c.name = "figure".into();
    c.rf_banks = 4;
    c.warps = 4;
    c.rf_layout = layout;
    c.collectors = collectors;
    c.validate().expect("figure configuration");
    c
}

/// Book Fig. 3.14, naive layout: `i1: mad r2, r5, r4, r6` (w3), `i2: add r5, r5, r1` (w0, w1).
/// The figure's register-read stage has a staging register that reads all sources of an
/// instruction in parallel: 3-source parallel-read shape, 2 collector units (w3's and w0's
/// instructions overlap). Cycles 1–6 are the figure's bank rows; w1's issue waits for a free
/// collector unit until cycle 3 (the figure's issue table says 4, which contradicts its own
/// bank rows: every instruction there reads one cycle after issue, and w1 reads r5 in cycle 4).
#[test]
fn figure_3_14_naive_layout_bank_conflicts() {
    let prog = [
        FigInstr {
            warp: 3,
            src: vec![5, 4, 6],
            rd: 2,
        },
        FigInstr {
            warp: 0,
            src: vec![5, 1],
            rd: 5,
        },
        FigInstr {
            warp: 1,
            src: vec![5, 1],
            rd: 5,
        },
    ];
    let expect = [
        Expect {
            cycle: 0,
            cells: &[],
            conflicts: &[],
            alloc: "w3",
            dispatch: "",
        },
        Expect {
            cycle: 1,
            cells: &[(0, "w3:r4"), (1, "w3:r5"), (2, "w3:r6")],
            conflicts: &[],
            alloc: "w0",
            dispatch: "",
        },
        Expect {
            cycle: 2,
            cells: &[(1, "w0:r5")],
            conflicts: &[1],
            alloc: "",
            dispatch: "w3",
        },
        Expect {
            cycle: 3,
            cells: &[(1, "w0:r1"), (2, "w3:r2 wb")],
            conflicts: &[],
            alloc: "w1",
            dispatch: "",
        },
        Expect {
            cycle: 4,
            cells: &[(1, "w1:r5")],
            conflicts: &[1],
            alloc: "",
            dispatch: "w0",
        },
        Expect {
            cycle: 5,
            cells: &[(1, "w0:r5 wb")],
            conflicts: &[1],
            alloc: "",
            dispatch: "",
        },
        Expect {
            cycle: 6,
            cells: &[(1, "w1:r1")],
            conflicts: &[],
            alloc: "",
            dispatch: "",
        },
        Expect {
            cycle: 7,
            cells: &[],
            conflicts: &[],
            alloc: "",
            dispatch: "w1",
        },
        Expect {
            cycle: 8,
            cells: &[(1, "w1:r5 wb")],
            conflicts: &[],
            alloc: "",
            dispatch: "",
        },
    ];
    figure(
        "Fig. 3.14",
        figure_cfg(RfLayout::Naive, 2),
        parallel3(),
        &prog,
        &expect,
    );
}

/// Book Fig. 3.17, swizzled layout: `i1: add r1, r2, r5` (w1, w2, w3), `i2: mad r4, r3, r7, r1`
/// (w0); operand collector with one read per collector unit per cycle, 4 collector units.
/// Cycles 1–6 are the figure's bank rows and cycles 3–5 its EU row; cycles 7–9 complete w0's
/// instruction, which the figure leaves unfinished.
#[test]
fn figure_3_17_swizzled_layout_operand_collector() {
    let prog = [
        FigInstr {
            warp: 1,
            src: vec![2, 5],
            rd: 1,
        },
        FigInstr {
            warp: 2,
            src: vec![2, 5],
            rd: 1,
        },
        FigInstr {
            warp: 3,
            src: vec![2, 5],
            rd: 1,
        },
        FigInstr {
            warp: 0,
            src: vec![3, 7, 1],
            rd: 4,
        },
    ];
    let expect = [
        Expect {
            cycle: 0,
            cells: &[],
            conflicts: &[],
            alloc: "w1",
            dispatch: "",
        },
        Expect {
            cycle: 1,
            cells: &[(3, "w1:r2")],
            conflicts: &[],
            alloc: "w2",
            dispatch: "",
        },
        Expect {
            cycle: 2,
            cells: &[(0, "w2:r2"), (2, "w1:r5")],
            conflicts: &[],
            alloc: "w3",
            dispatch: "",
        },
        Expect {
            cycle: 3,
            cells: &[(1, "w3:r2"), (3, "w2:r5")],
            conflicts: &[],
            alloc: "w0",
            dispatch: "w1",
        },
        Expect {
            cycle: 4,
            cells: &[(0, "w3:r5"), (2, "w1:r1 wb"), (3, "w0:r3")],
            conflicts: &[],
            alloc: "",
            dispatch: "w2",
        },
        Expect {
            cycle: 5,
            cells: &[(3, "w2:r1 wb")],
            conflicts: &[3],
            alloc: "",
            dispatch: "w3",
        },
        Expect {
            cycle: 6,
            cells: &[(0, "w3:r1 wb"), (3, "w0:r7")],
            conflicts: &[],
            alloc: "",
            dispatch: "",
        },
        Expect {
            cycle: 7,
            cells: &[(1, "w0:r1")],
            conflicts: &[],
            alloc: "",
            dispatch: "",
        },
        Expect {
            cycle: 8,
            cells: &[],
            conflicts: &[],
            alloc: "",
            dispatch: "w0",
        },
        Expect {
            cycle: 9,
            cells: &[(0, "w0:r4 wb")],
            conflicts: &[],
            alloc: "",
            dispatch: "",
        },
    ];
    figure(
        "Fig. 3.17",
        figure_cfg(RfLayout::Swizzled, 4),
        OcShape {
            sources: 3,
            policy: ReadPolicy::InOrder,
            write_port: WritePort::Shared,
        },
        &prog,
        &expect,
    );
}
