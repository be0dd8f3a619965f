//! Unit co-simulation of the warp scheduler and the scoreboard RTL (`hdl/src/scheduler.rs`,
//! `hdl/src/scoreboard.rs`, docs/microarch/scheduler.md) against their cycle-accurate Rust
//! references (`warpforge_sim::scheduler`, `warpforge_sim::scoreboard`).
//!
//! * `scheduler_<policy>_<preset>` (LRR, GTO, two-level × tiny, small, fermi) and
//!   `scoreboard_<preset>`: the generated Verilog passes `verilator --lint-only -Wall` with no
//!   warning and yosys `hierarchy -check; proc; synth`; then the Verilated unit and the reference
//!   run in lock-step on seeded random stimulus and every output is compared on every cycle.
//! * Directed tests: LRR rotation, GTO greedy-then-oldest, the two-level swap, scoreboard RAW /
//!   WAW blocking, full entries, same-cycle rules.
//!
//! Cycles per random test: `WARPFORGE_UNIT_CYCLES` (default 20000). Seed: `WARPFORGE_SEED`
//! (default: fixed per test). A failure names cycle, warp, field, expected and actual values,
//! the inputs of the cycle and the command that reproduces it.

use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use warpforge_config::{GpuConfig, SchedulerPolicy};
use warpforge_sim::scheduler::{Scheduler, SchedulerInputs, SchedulerOutputs};
use warpforge_sim::scoreboard::{
    CheckRequest, RegWrite, Scoreboard, ScoreboardInputs, ScoreboardOutputs,
};
use warpforge_testbench::unit::{build_unit, lint, unit_cycles, unit_seed, yosys_check};
use warpforge_testbench::verilator_model::{LoadedModel, PortId};

// ---------------------------------------------------------------------------------------------
// Generation, lint, synthesis check, build

fn preset(name: &str) -> GpuConfig {
    GpuConfig::preset(name).expect("preset")
}

fn with_policy(name: &str, policy: SchedulerPolicy) -> GpuConfig {
    let mut cfg = preset(name);
    cfg.scheduler = policy;
    cfg
}

fn policy_name(p: SchedulerPolicy) -> &'static str {
    match p {
        SchedulerPolicy::Lrr => "lrr",
        SchedulerPolicy::Gto => "gto",
        SchedulerPolicy::TwoLevel => "two_level",
    }
}

/// Sizes and times of one generated unit (printed with `--nocapture`).
struct Report {
    unit: String,
    bytes: usize,
    lines: usize,
    modules: usize,
    generate: Duration,
    lint: Duration,
    yosys: Duration,
    build: Duration,
}

impl Report {
    fn print(&self, cosim: Duration, cycles: u64) {
        eprintln!(
            "{}: {} bytes, {} lines, {} modules of Verilog; generate {:.1?}, lint {:.1?}, \
             yosys {:.1?}, verilate+build {:.1?}, {cycles} co-simulated cycles in {:.1?}",
            self.unit,
            self.bytes,
            self.lines,
            self.modules,
            self.generate,
            self.lint,
            self.yosys,
            self.build,
            cosim
        );
    }
}

/// `verilator --lint-only -Wall` must print nothing.
fn assert_lint_clean(top: &str, verilog: &str) {
    if let Err(e) = lint(top, verilog) {
        panic!("verilator --lint-only -Wall on {top}:\n{e}");
    }
}

/// Lint, yosys-check and build `verilog` (top module `top`); `checks` = false only builds.
fn check_and_build(
    unit: String,
    top: &str,
    verilog: String,
    generate: Duration,
    checks: bool,
) -> (LoadedModel, Report) {
    let mut report = Report {
        unit,
        bytes: verilog.len(),
        lines: verilog.lines().count(),
        modules: verilog.lines().filter(|l| l.starts_with("module ")).count(),
        generate,
        lint: Duration::ZERO,
        yosys: Duration::ZERO,
        build: Duration::ZERO,
    };
    if checks {
        let t = Instant::now();
        assert_lint_clean(top, &verilog);
        report.lint = t.elapsed();
        let t = Instant::now();
        yosys_check(top, &verilog)
            .unwrap_or_else(|e| panic!("yosys rejects {}:\n{e}", report.unit));
        report.yosys = t.elapsed();
    }
    let t = Instant::now();
    let model = build_unit(top, &verilog, false)
        .unwrap_or_else(|e| panic!("building {}: {e}", report.unit));
    report.build = t.elapsed();
    (model, report)
}

fn scheduler_verilog(cfg: &GpuConfig) -> String {
    warpforge_hdl::scheduler::scheduler_verilog(cfg, "scheduler").unwrap_or_else(|e| panic!("{e}"))
}

fn scoreboard_verilog(cfg: &GpuConfig) -> String {
    warpforge_hdl::scoreboard::scoreboard_verilog(cfg, "scoreboard")
        .unwrap_or_else(|e| panic!("{e}"))
}

fn scheduler_model(cfg: &GpuConfig, checks: bool) -> (SchedRtl, Report) {
    let t = Instant::now();
    let top = "scheduler";
    let v = scheduler_verilog(cfg);
    let unit = format!("scheduler {} {}", policy_name(cfg.scheduler), cfg.name);
    let (m, report) = check_and_build(unit, top, v, t.elapsed(), checks);
    (SchedRtl::new(m, cfg), report)
}

fn scoreboard_model(cfg: &GpuConfig, checks: bool) -> (SbRtl, Report) {
    let t = Instant::now();
    let top = "scoreboard";
    let v = scoreboard_verilog(cfg);
    let unit = format!("scoreboard {}", cfg.name);
    let (m, report) = check_and_build(unit, top, v, t.elapsed(), checks);
    (SbRtl::new(m, cfg.warps as usize), report)
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

fn flag(v: &[bool], i: usize) -> bool {
    v.get(i).copied().unwrap_or(false)
}

// ---------------------------------------------------------------------------------------------
// Drivers: one clock cycle of the Verilated unit with the reference's input / output types

struct SchedRtl {
    m: LoadedModel,
    warps: usize,
    clock: PortId,
    reset: PortId,
    issued: PortId,
    ready: Vec<PortId>,
    launch: Vec<PortId>,
    long_stall: Vec<PortId>,
    grant_valid: PortId,
    grant_warp: PortId,
    grant: Vec<PortId>,
    active: Vec<PortId>,
}

/// Outputs of the scheduler RTL in one cycle.
#[derive(Debug)]
struct SchedOut {
    grant_valid: bool,
    grant_warp: u64,
    grant: Vec<bool>,
    active: Vec<bool>,
}

impl SchedRtl {
    fn new(m: LoadedModel, cfg: &GpuConfig) -> Self {
        let w = cfg.warps as usize;
        let gto = cfg.scheduler == SchedulerPolicy::Gto;
        let two = cfg.scheduler == SchedulerPolicy::TwoLevel;
        SchedRtl {
            clock: port(&m, "clock"),
            reset: port(&m, "reset"),
            issued: port(&m, "issued"),
            ready: vports(&m, "ready", w),
            launch: if gto { vports(&m, "launch", w) } else { vec![] },
            long_stall: if two {
                vports(&m, "long_stall", w)
            } else {
                vec![]
            },
            grant_valid: port(&m, "grant_valid"),
            grant_warp: port(&m, "grant_warp"),
            grant: vports(&m, "grant", w),
            active: if two { vports(&m, "active", w) } else { vec![] },
            warps: w,
            m,
        }
    }

    /// Apply `inp`, read the outputs, clock once.
    fn cycle(&mut self, inp: &SchedulerInputs) -> SchedOut {
        let m = &mut self.m;
        m.set(self.reset, inp.reset.into());
        m.set(self.issued, inp.issued.into());
        for (w, &p) in self.ready.iter().enumerate() {
            m.set(p, flag(&inp.ready, w).into());
        }
        for (w, &p) in self.launch.iter().enumerate() {
            m.set(p, flag(&inp.launch, w).into());
        }
        for (w, &p) in self.long_stall.iter().enumerate() {
            m.set(p, flag(&inp.long_stall, w).into());
        }
        m.eval();
        let out = SchedOut {
            grant_valid: m.get(self.grant_valid) != 0,
            grant_warp: m.get(self.grant_warp),
            grant: self.grant.iter().map(|&p| m.get(p) != 0).collect(),
            active: self.active.iter().map(|&p| m.get(p) != 0).collect(),
        };
        m.tick(self.clock);
        out
    }
}

/// Every difference between the RTL's and the reference's outputs, as
/// `warp <w> / <field>: expected <e>, actual <a>` lines.
fn sched_diff(rtl: &SchedOut, exp: &SchedulerOutputs, warps: usize) -> Vec<String> {
    let mut d = Vec::new();
    if rtl.grant_valid != exp.grant.is_some() {
        d.push(format!(
            "grant_valid: expected {}, actual {}",
            exp.grant.is_some(),
            rtl.grant_valid
        ));
    }
    let want_warp = exp.grant.unwrap_or(0) as u64;
    if rtl.grant_warp != want_warp {
        d.push(format!(
            "grant_warp: expected {want_warp}, actual {}",
            rtl.grant_warp
        ));
    }
    for w in 0..warps {
        let want = exp.grant == Some(w);
        if rtl.grant[w] != want {
            d.push(format!(
                "warp {w} / grant: expected {want}, actual {}",
                rtl.grant[w]
            ));
        }
    }
    for (w, (&a, &e)) in rtl.active.iter().zip(&exp.active).enumerate() {
        if a != e {
            d.push(format!("warp {w} / active: expected {e}, actual {a}"));
        }
    }
    if rtl.active.len() != exp.active.len() {
        d.push(format!(
            "active: expected {} warps, actual {}",
            exp.active.len(),
            rtl.active.len()
        ));
    }
    d
}

fn bits(v: &[bool]) -> String {
    let s: String = v.iter().map(|&b| if b { '1' } else { '0' }).collect();
    if s.is_empty() {
        "-".into()
    } else {
        s
    }
}

fn describe_sched_inputs(inp: &SchedulerInputs) -> String {
    format!(
        "reset={} issued={} ready(w0..)={} launch={} long_stall={}",
        inp.reset as u8,
        inp.issued as u8,
        bits(&inp.ready),
        bits(&inp.launch),
        bits(&inp.long_stall)
    )
}

struct SbRtl {
    m: LoadedModel,
    warps: usize,
    clock: PortId,
    reset: PortId,
    clear: Vec<PortId>,
    chk: [Vec<PortId>; 6],
    ok: Vec<PortId>,
    idle: Vec<PortId>,
    rsv: [PortId; 3],
    rel: [[PortId; 3]; 2],
    /// Varies the values put on register / warp ports whose valid flag is low.
    junk: u64,
}

impl SbRtl {
    fn new(m: LoadedModel, warps: usize) -> Self {
        let chk = [
            "chk_rd",
            "chk_rd_valid",
            "chk_rs1",
            "chk_rs1_valid",
            "chk_rs2",
            "chk_rs2_valid",
        ]
        .map(|n| vports(&m, n, warps));
        let trio = |p: &str| {
            [
                port(&m, &format!("{p}_valid")),
                port(&m, &format!("{p}_warp")),
                port(&m, &format!("{p}_rd")),
            ]
        };
        SbRtl {
            clock: port(&m, "clock"),
            reset: port(&m, "reset"),
            clear: vports(&m, "clear", warps),
            chk,
            ok: vports(&m, "ok", warps),
            idle: vports(&m, "idle", warps),
            rsv: trio("rsv"),
            rel: [trio("rel0"), trio("rel1")],
            junk: 0,
            warps,
            m,
        }
    }

    fn cycle(&mut self, inp: &ScoreboardInputs) -> ScoreboardOutputs {
        let m = &mut self.m;
        self.junk = self
            .junk
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut junk = self.junk;
        let mut junk = move || {
            junk = junk.rotate_left(7);
            junk & 63
        };
        m.set(self.reset, inp.reset.into());
        for w in 0..self.warps {
            m.set(self.clear[w], flag(&inp.clear, w).into());
            let c = inp.check.get(w).copied().unwrap_or_default();
            for (k, op) in [c.rd, c.rs1, c.rs2].into_iter().enumerate() {
                m.set(self.chk[2 * k][w], op.map_or_else(&mut junk, u64::from));
                m.set(self.chk[2 * k + 1][w], op.is_some().into());
            }
        }
        let mut write = |ports: &[PortId; 3], x: Option<RegWrite>| {
            m.set(ports[0], x.is_some().into());
            m.set(ports[1], x.map_or_else(&mut junk, |x| x.warp.into()));
            m.set(ports[2], x.map_or_else(&mut junk, |x| x.rd.into()));
        };
        write(&self.rsv, inp.reserve);
        write(&self.rel[0], inp.release[0]);
        write(&self.rel[1], inp.release[1]);
        m.eval();
        let out = ScoreboardOutputs {
            ok: self.ok.iter().map(|&p| m.get(p) != 0).collect(),
            idle: self.idle.iter().map(|&p| m.get(p) != 0).collect(),
        };
        m.tick(self.clock);
        out
    }
}

fn sb_diff(rtl: &ScoreboardOutputs, exp: &ScoreboardOutputs) -> Vec<String> {
    let mut d = Vec::new();
    for (field, a, e) in [("ok", &rtl.ok, &exp.ok), ("idle", &rtl.idle, &exp.idle)] {
        for (w, (&a, &e)) in a.iter().zip(e).enumerate() {
            if a != e {
                d.push(format!("warp {w} / {field}: expected {e}, actual {a}"));
            }
        }
    }
    d
}

fn describe_sb_inputs(inp: &ScoreboardInputs, sb: &Scoreboard) -> String {
    let op = |o: Option<u8>| o.map_or("-".to_string(), |r| format!("x{r}"));
    let mut s = format!(
        "reset={} clear={} reserve={:?} release0={:?} release1={:?}\n",
        inp.reset as u8,
        bits(&inp.clear),
        inp.reserve,
        inp.release[0],
        inp.release[1]
    );
    for (w, c) in inp.check.iter().enumerate() {
        s.push_str(&format!(
            "  warp {w}: check rd={} rs1={} rs2={}; pending before the cycle {:?}\n",
            op(c.rd),
            op(c.rs1),
            op(c.rs2),
            sb.pending(w)
        ));
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Random co-simulation

fn repro(test: &str, seed: u64) -> String {
    format!(
        "WARPFORGE_SEED={seed} cargo test -p warpforge-testbench --test unit_scheduler {test} -- --exact"
    )
}

/// Random scheduler stimulus: ready density changes every 64 cycles (idle to all-ready), rare
/// launches (sometimes several in a cycle), sticky long stalls, issue taken most of the time,
/// rare resets.
struct SchedStimulus {
    rng: ChaCha8Rng,
    warps: usize,
    density: f64,
    stalled: Vec<bool>,
}

impl SchedStimulus {
    fn next(&mut self, cycle: u64) -> SchedulerInputs {
        let rng = &mut self.rng;
        if cycle.is_multiple_of(64) {
            self.density = [0.0, 0.05, 0.2, 0.5, 0.8, 1.0][rng.gen_range(0..6)];
        }
        for s in &mut self.stalled {
            if rng.gen_bool(0.05) {
                *s = !*s;
            }
        }
        let launch_burst = rng.gen_bool(0.01);
        SchedulerInputs {
            reset: cycle == 0 || rng.gen_bool(0.002),
            ready: (0..self.warps)
                .map(|_| rng.gen_bool(self.density))
                .collect(),
            issued: rng.gen_bool(0.85),
            launch: (0..self.warps)
                .map(|_| rng.gen_bool(if launch_burst { 0.5 } else { 0.01 }))
                .collect(),
            long_stall: self.stalled.clone(),
        }
    }
}

fn cosim_scheduler(test: &str, preset_name: &str, policy: SchedulerPolicy) {
    cosim_scheduler_cfg(test, &with_policy(preset_name, policy), true);
}

/// Co-simulate the scheduler of `cfg`; `full` = also lint / yosys and require that the
/// stimulus reached every warp (and, for two-level, swapped the active set).
fn cosim_scheduler_cfg(test: &str, cfg: &GpuConfig, full: bool) {
    let policy = cfg.scheduler;
    let (mut rtl, report) = scheduler_model(cfg, full);
    let mut reference = Scheduler::new(cfg);
    let seed = unit_seed(test);
    let warps = cfg.warps as usize;
    let mut stim = SchedStimulus {
        rng: ChaCha8Rng::seed_from_u64(seed),
        warps,
        density: 0.5,
        stalled: vec![false; warps],
    };
    let n = unit_cycles();
    let t = Instant::now();
    let mut grants = vec![0u64; warps];
    let mut swaps = 0u64;
    let mut last_active = Vec::new();
    for cycle in 0..n {
        let inp = stim.next(cycle);
        let got = rtl.cycle(&inp);
        let want = reference.step(&inp);
        // Cycle 0 is the first reset: the state before it is the power-on state, not defined.
        if cycle == 0 {
            continue;
        }
        let d = sched_diff(&got, &want, warps);
        if !d.is_empty() {
            panic!(
                "{}: RTL differs from the reference at cycle {cycle} (seed {seed}):\n  {}\n\
                 inputs: {}\nreproduce: {}",
                report.unit,
                d.join("\n  "),
                describe_sched_inputs(&inp),
                repro(test, seed)
            );
        }
        if let Some(g) = want.grant {
            grants[g] += 1;
        }
        if !last_active.is_empty() && last_active != want.active {
            swaps += 1;
        }
        last_active = want.active;
    }
    report.print(t.elapsed(), n);
    if !full {
        return;
    }
    // The stimulus must have exercised every warp (and, for two-level, the swap).
    assert!(
        grants.iter().all(|&g| g > 0),
        "{}: some warp was never granted: {grants:?}",
        report.unit
    );
    if policy == SchedulerPolicy::TwoLevel && cfg.two_level_active < cfg.warps {
        assert!(swaps > 10, "{}: only {swaps} active-set swaps", report.unit);
    }
}

/// Random scoreboard stimulus over a small register pool (so that hazards and full warps are
/// frequent): reservations (sometimes to a warp number the unit does not have), releases that
/// mostly hit pending registers, same-cycle reserve + release of the same register, phases
/// without releases (warps fill up), rare clears and resets.
fn sb_stimulus(
    rng: &mut ChaCha8Rng,
    sb: &Scoreboard,
    cycle: u64,
    pool: u8,
    warps: usize,
) -> ScoreboardInputs {
    let reg = |rng: &mut ChaCha8Rng| rng.gen_range(0..pool);
    let operand = |rng: &mut ChaCha8Rng| {
        if rng.gen_bool(0.75) {
            Some(reg(rng))
        } else {
            None
        }
    };
    let fill_phase = (cycle / 200) % 3 == 1;
    let check = (0..warps)
        .map(|_| CheckRequest {
            rd: operand(rng),
            rs1: operand(rng),
            rs2: operand(rng),
        })
        .collect();
    let any_warp = |rng: &mut ChaCha8Rng| {
        if warps < 64 && rng.gen_bool(0.03) {
            rng.gen_range(warps..64) as u8
        } else {
            rng.gen_range(0..warps) as u8
        }
    };
    let reserve = rng.gen_bool(0.6).then(|| RegWrite {
        warp: any_warp(rng),
        rd: reg(rng),
    });
    let mut release = [None, None];
    for r in &mut release {
        if !fill_phase && rng.gen_bool(0.45) {
            let warp = any_warp(rng);
            let pending = sb.pending(warp as usize % warps);
            let rd = if (warp as usize) < warps && !pending.is_empty() && rng.gen_bool(0.8) {
                pending[rng.gen_range(0..pending.len())]
            } else {
                reg(rng)
            };
            *r = Some(RegWrite { warp, rd });
        }
    }
    if let (Some(rsv), true) = (reserve, rng.gen_bool(0.1)) {
        release[rng.gen_range(0..2)] = Some(rsv);
    }
    ScoreboardInputs {
        reset: cycle == 0 || rng.gen_bool(0.001),
        clear: (0..warps).map(|_| rng.gen_bool(0.002)).collect(),
        check,
        reserve,
        release,
    }
}

fn cosim_scoreboard(test: &str, preset_name: &str) {
    cosim_scoreboard_cfg(test, &preset(preset_name), true);
}

/// Co-simulate the scoreboard of `cfg`; `full` = also lint / yosys and require that the
/// stimulus filled warps and produced both outcomes of the check.
fn cosim_scoreboard_cfg(test: &str, cfg: &GpuConfig, full: bool) {
    let (mut rtl, report) = scoreboard_model(cfg, full);
    let mut reference = Scoreboard::new(cfg);
    let seed = unit_seed(test);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let warps = cfg.warps as usize;
    let n = unit_cycles();
    let t = Instant::now();
    let (mut full_warp_cycles, mut blocked, mut passed) = (0u64, 0u64, 0u64);
    for cycle in 0..n {
        // Register pool: small most of the time, all 32 registers now and then.
        let pool = if (cycle / 500) % 4 == 3 { 32 } else { 8 };
        let inp = sb_stimulus(&mut rng, &reference, cycle, pool, warps);
        let before = (cycle > 0).then(|| describe_sb_inputs(&inp, &reference));
        full_warp_cycles += (0..warps)
            .filter(|&w| reference.pending(w).len() == cfg.scoreboard_entries as usize)
            .count() as u64;
        let got = rtl.cycle(&inp);
        let want = reference.step(&inp);
        if cycle == 0 {
            continue; // power-on state: defined only after the first reset
        }
        let d = sb_diff(&got, &want);
        if !d.is_empty() {
            panic!(
                "{}: RTL differs from the reference at cycle {cycle} (seed {seed}):\n  {}\n\
                 inputs: {}reproduce: {}",
                report.unit,
                d.join("\n  "),
                before.unwrap_or_default(),
                repro(test, seed)
            );
        }
        blocked += want.ok.iter().filter(|&&o| !o).count() as u64;
        passed += want.ok.iter().filter(|&&o| o).count() as u64;
    }
    report.print(t.elapsed(), n);
    if !full {
        return;
    }
    assert!(
        full_warp_cycles > n / 10 && blocked > n && passed > n,
        "{}: weak stimulus: {full_warp_cycles} full warp-cycles, {blocked} blocked and \
         {passed} passed checks",
        report.unit
    );
}

#[test]
fn scheduler_lrr_tiny() {
    cosim_scheduler("scheduler_lrr_tiny", "tiny", SchedulerPolicy::Lrr);
}
#[test]
fn scheduler_lrr_small() {
    cosim_scheduler("scheduler_lrr_small", "small", SchedulerPolicy::Lrr);
}
#[test]
#[ignore = "large preset: opt-in with `cargo test -- --ignored`"]
fn scheduler_lrr_fermi() {
    cosim_scheduler("scheduler_lrr_fermi", "fermi", SchedulerPolicy::Lrr);
}
#[test]
fn scheduler_gto_tiny() {
    cosim_scheduler("scheduler_gto_tiny", "tiny", SchedulerPolicy::Gto);
}
#[test]
fn scheduler_gto_small() {
    cosim_scheduler("scheduler_gto_small", "small", SchedulerPolicy::Gto);
}
#[test]
#[ignore = "large preset: opt-in with `cargo test -- --ignored`"]
fn scheduler_gto_fermi() {
    cosim_scheduler("scheduler_gto_fermi", "fermi", SchedulerPolicy::Gto);
}
#[test]
fn scheduler_two_level_tiny() {
    cosim_scheduler(
        "scheduler_two_level_tiny",
        "tiny",
        SchedulerPolicy::TwoLevel,
    );
}
#[test]
fn scheduler_two_level_small() {
    cosim_scheduler(
        "scheduler_two_level_small",
        "small",
        SchedulerPolicy::TwoLevel,
    );
}
#[test]
#[ignore = "large preset: opt-in with `cargo test -- --ignored`"]
fn scheduler_two_level_fermi() {
    cosim_scheduler(
        "scheduler_two_level_fermi",
        "fermi",
        SchedulerPolicy::TwoLevel,
    );
}
#[test]
fn scoreboard_tiny() {
    cosim_scoreboard("scoreboard_tiny", "tiny");
}
#[test]
fn scoreboard_small() {
    cosim_scoreboard("scoreboard_small", "small");
}
#[test]
#[ignore = "large preset: opt-in with `cargo test -- --ignored`"]
fn scoreboard_fermi() {
    cosim_scoreboard("scoreboard_fermi", "fermi");
}

/// Sizes the presets do not have: 1 warp, 3 warps, 64 warps (the maximum), an active set of 1
/// and one as large as the warp count; a scoreboard with one entry and one with 64 warps.
/// Lint and co-simulation (no yosys, shorter runs).
#[test]
fn edge_sizes() {
    let sized = |warps: u32, policy, active: u32, entries: u32| {
        let mut cfg = preset("tiny");
        cfg.warps = warps;
        cfg.scheduler = policy;
        cfg.two_level_active = active;
        cfg.scoreboard_entries = entries;
        cfg.name = format!("w{warps}-a{active}-e{entries}");
        cfg
    };
    for (w, a) in [(1, 1), (3, 3), (64, 1)] {
        for p in [
            SchedulerPolicy::Lrr,
            SchedulerPolicy::Gto,
            SchedulerPolicy::TwoLevel,
        ] {
            let cfg = sized(w, p, a, 4);
            assert_lint_clean("scheduler", &scheduler_verilog(&cfg));
            cosim_scheduler_cfg("edge_sizes", &cfg, false);
        }
    }
    for (w, e) in [(1, 1), (3, 2), (64, 2)] {
        let cfg = sized(w, SchedulerPolicy::Lrr, 1, e);
        assert_lint_clean("scoreboard", &scoreboard_verilog(&cfg));
        cosim_scoreboard_cfg("edge_sizes", &cfg, false);
    }
}

// ---------------------------------------------------------------------------------------------
// Directed tests (on the RTL; expected values written out, the reference must agree too)

/// Runs the RTL and the reference side by side on directed inputs.
struct SchedBench {
    rtl: SchedRtl,
    reference: Scheduler,
    cycle: u64,
}

impl SchedBench {
    fn new(cfg: &GpuConfig) -> Self {
        let (rtl, _) = scheduler_model(cfg, false);
        let mut b = SchedBench {
            reference: Scheduler::new(cfg),
            rtl,
            cycle: 0,
        };
        b.rtl.cycle(&SchedulerInputs {
            reset: true,
            ..Default::default()
        });
        b
    }

    fn warps(&self) -> usize {
        self.rtl.warps
    }

    fn vec(&self, ws: &[usize]) -> Vec<bool> {
        (0..self.warps()).map(|w| ws.contains(&w)).collect()
    }

    /// One cycle; checks the RTL against the reference and returns the grant.
    fn step(&mut self, inp: SchedulerInputs) -> (Option<usize>, Vec<bool>) {
        let got = self.rtl.cycle(&inp);
        let want = self.reference.step(&inp);
        let d = sched_diff(&got, &want, self.warps());
        assert!(
            d.is_empty(),
            "directed cycle {}: RTL differs from the reference:\n  {}\ninputs: {}",
            self.cycle,
            d.join("\n  "),
            describe_sched_inputs(&inp)
        );
        self.cycle += 1;
        (
            got.grant_valid.then_some(got.grant_warp as usize),
            got.active,
        )
    }

    fn issue(&mut self, ready: &[usize]) -> Option<usize> {
        let ready = self.vec(ready);
        self.step(SchedulerInputs {
            ready,
            issued: true,
            ..Default::default()
        })
        .0
    }
}

#[test]
fn lrr_rotation_order() {
    let mut b = SchedBench::new(&with_policy("small", SchedulerPolicy::Lrr));
    let all: Vec<usize> = (0..8).collect();
    let order: Vec<_> = (0..10).map(|_| b.issue(&all).unwrap()).collect();
    assert_eq!(order, vec![0, 1, 2, 3, 4, 5, 6, 7, 0, 1], "all ready");
    // First ready after the last issued warp (1), wrapping around.
    assert_eq!(b.issue(&[0, 5, 6]), Some(5));
    assert_eq!(b.issue(&[0, 5, 6]), Some(6));
    assert_eq!(b.issue(&[0, 5, 6]), Some(0));
    assert_eq!(b.issue(&[]), None);
    assert_eq!(
        b.issue(&[0]),
        Some(0),
        "the same warp again when it is the only one"
    );
    // Not taken (issued low): the pointer does not move.
    let ready = b.vec(&[3, 4]);
    for _ in 0..3 {
        let (g, _) = b.step(SchedulerInputs {
            ready: ready.clone(),
            ..Default::default()
        });
        assert_eq!(g, Some(3));
    }
    assert_eq!(b.issue(&[3, 4]), Some(3));
    assert_eq!(b.issue(&[3, 4]), Some(4));
    // Reset: back to warp 0 first.
    b.step(SchedulerInputs {
        reset: true,
        ..Default::default()
    });
    assert_eq!(b.issue(&all), Some(0));
}

#[test]
fn gto_greedy_then_oldest() {
    let mut b = SchedBench::new(&with_policy("small", SchedulerPolicy::Gto));
    // After reset the age order is the warp number: greedy on the oldest ready warp.
    assert_eq!(b.issue(&[2, 5]), Some(2));
    assert_eq!(b.issue(&[2, 5]), Some(2), "greedy");
    assert_eq!(b.issue(&[0, 5]), Some(0), "greedy warp not ready: oldest");
    // Launch order 6, 3, then 1 and 7 in the same cycle (1 older than 7); the others keep
    // their reset order and are older.
    for l in [&[6][..], &[3], &[1, 7]] {
        let launch = b.vec(l);
        b.step(SchedulerInputs {
            launch,
            ..Default::default()
        });
    }
    // Age order now: 0 2 4 5 6 3 1 7.
    assert_eq!(b.issue(&[1, 3, 6, 7]), Some(6), "oldest of the ready");
    assert_eq!(b.issue(&[1, 3, 6, 7]), Some(6), "greedy");
    assert_eq!(b.issue(&[1, 3, 7]), Some(3));
    assert_eq!(b.issue(&[1, 7]), Some(1));
    assert_eq!(b.issue(&[7, 1]), Some(1), "greedy");
    assert_eq!(b.issue(&[7]), Some(7));
    assert_eq!(b.issue(&[0, 7]), Some(7), "greedy beats older");
    assert_eq!(b.issue(&[0, 2]), Some(0));
    // A grant not taken does not make the warp greedy.
    let ready = b.vec(&[4, 5]);
    b.step(SchedulerInputs {
        ready,
        ..Default::default()
    });
    assert_eq!(
        b.issue(&[2, 4]),
        Some(2),
        "greedy warp 0 not ready: oldest, not warp 4"
    );
}

#[test]
fn two_level_swap() {
    // small: 8 warps, active set of 4.
    let mut b = SchedBench::new(&with_policy("small", SchedulerPolicy::TwoLevel));
    let act = |b: &SchedBench, ws: &[usize]| b.vec(ws);
    let all: Vec<usize> = (0..8).collect();
    let (g, a) = b.step(SchedulerInputs {
        ready: b.vec(&all),
        issued: true,
        long_stall: b.vec(&[2, 4]),
        ..Default::default()
    });
    assert_eq!(g, Some(0));
    assert_eq!(a, act(&b, &[0, 1, 2, 3]), "reset: warps 0..3 active");
    // Warp 2 left; 4 is stalled, so 5 (the longest-waiting eligible) entered.
    let (g, a) = b.step(SchedulerInputs {
        ready: b.vec(&all),
        issued: true,
        ..Default::default()
    });
    assert_eq!(g, Some(1));
    assert_eq!(a, act(&b, &[0, 1, 3, 5]));
    assert_eq!(b.issue(&all), Some(3));
    assert_eq!(b.issue(&all), Some(5));
    assert_eq!(b.issue(&[2, 4, 6]), None, "pending warps are never granted");
    // Two active warps stall: only the lowest (0) leaves; 4 (waiting since reset) enters.
    let (_, a) = b.step(SchedulerInputs {
        long_stall: b.vec(&[0, 3]),
        ..Default::default()
    });
    assert_eq!(a, act(&b, &[0, 1, 3, 5]));
    let (_, a) = b.step(SchedulerInputs {
        long_stall: b.vec(&[6, 7]),
        ..Default::default()
    });
    assert_eq!(a, act(&b, &[1, 3, 4, 5]));
    // Pending order is now 6 7 2 0: with 6 and 7 stalled, 2 enters for 1.
    let (_, a) = b.step(SchedulerInputs {
        long_stall: b.vec(&[1, 6, 7]),
        ..Default::default()
    });
    assert_eq!(a, act(&b, &[1, 3, 4, 5]));
    let (_, a) = b.step(SchedulerInputs::default());
    assert_eq!(a, act(&b, &[2, 3, 4, 5]));
    // No eligible pending warp: no swap.
    let (_, a) = b.step(SchedulerInputs {
        long_stall: b.vec(&[0, 1, 3, 6, 7]),
        ..Default::default()
    });
    assert_eq!(a, act(&b, &[2, 3, 4, 5]));
    let (_, a) = b.step(SchedulerInputs::default());
    assert_eq!(a, act(&b, &[2, 3, 4, 5]));
}

/// Scoreboard RTL and reference side by side on directed inputs.
struct SbBench {
    rtl: SbRtl,
    reference: Scoreboard,
    cycle: u64,
}

impl SbBench {
    fn new(cfg: &GpuConfig) -> Self {
        let (rtl, _) = scoreboard_model(cfg, false);
        let mut b = SbBench {
            rtl,
            reference: Scoreboard::new(cfg),
            cycle: 0,
        };
        b.rtl.cycle(&ScoreboardInputs {
            reset: true,
            ..Default::default()
        });
        b
    }

    fn step(&mut self, inp: ScoreboardInputs) -> ScoreboardOutputs {
        let before = describe_sb_inputs(&inp, &self.reference);
        let got = self.rtl.cycle(&inp);
        let want = self.reference.step(&inp);
        let d = sb_diff(&got, &want);
        assert!(
            d.is_empty(),
            "directed cycle {}: RTL differs from the reference:\n  {}\ninputs: {before}",
            self.cycle,
            d.join("\n  ")
        );
        self.cycle += 1;
        got
    }

    /// `ok` of `warp` for one instruction (nothing else happens in the cycle).
    fn ok(&mut self, warp: usize, rd: Option<u8>, rs1: Option<u8>, rs2: Option<u8>) -> bool {
        let mut check = vec![CheckRequest::default(); self.rtl.warps];
        check[warp] = CheckRequest { rd, rs1, rs2 };
        self.step(ScoreboardInputs {
            check,
            ..Default::default()
        })
        .ok[warp]
    }

    fn reserve(&mut self, warp: u8, rd: u8) {
        self.step(ScoreboardInputs {
            reserve: Some(RegWrite { warp, rd }),
            ..Default::default()
        });
    }

    fn release(&mut self, warp: u8, rd: u8, port: usize) {
        let mut release = [None, None];
        release[port] = Some(RegWrite { warp, rd });
        self.step(ScoreboardInputs {
            release,
            ..Default::default()
        });
    }
}

#[test]
fn scoreboard_raw_and_waw_blocking() {
    let mut b = SbBench::new(&preset("tiny"));
    assert!(b.ok(1, Some(5), Some(5), Some(5)), "empty scoreboard");
    b.reserve(1, 5);
    assert!(!b.ok(1, None, Some(5), None), "RAW on rs1");
    assert!(!b.ok(1, None, Some(1), Some(5)), "RAW on rs2");
    assert!(!b.ok(1, Some(5), Some(1), Some(2)), "WAW");
    assert!(b.ok(1, Some(6), Some(7), Some(8)), "independent");
    assert!(b.ok(2, Some(5), Some(5), Some(5)), "other warp");
    // Operands with a low valid flag are ignored (the driver puts varying register numbers on
    // the ports of absent operands and ports with a low valid).
    for _ in 0..32 {
        assert!(
            b.ok(1, Some(6), None, None),
            "absent sources, other destination"
        );
    }
    // Release: it takes effect at the edge. On port 0 the hazard check and `idle` still see
    // the register in the release cycle; on port 1 (the early release) the check already
    // ignores it (the SM registers `ok` before the scheduler), `idle` still sees it. From the
    // next cycle on neither does.
    let mut check = vec![CheckRequest::default(); 4];
    check[1] = CheckRequest {
        rd: None,
        rs1: Some(5),
        rs2: None,
    };
    let out = b.step(ScoreboardInputs {
        check: check.clone(),
        release: [Some(RegWrite { warp: 1, rd: 5 }), None],
        ..Default::default()
    });
    assert!(!out.ok[1] && !out.idle[1]);
    assert!(b.ok(1, Some(5), Some(5), None));
    b.reserve(1, 5);
    let out = b.step(ScoreboardInputs {
        check,
        release: [None, Some(RegWrite { warp: 1, rd: 5 })],
        ..Default::default()
    });
    assert!(out.ok[1] && !out.idle[1]);
    assert!(b.ok(1, Some(5), Some(5), None));
    // A release to another warp frees nothing.
    b.reserve(3, 9);
    b.release(2, 9, 0);
    assert!(!b.ok(3, None, None, Some(9)));
    b.release(3, 9, 0);
    assert!(b.ok(3, None, None, Some(9)));
}

#[test]
fn scoreboard_full_entries() {
    let mut b = SbBench::new(&preset("tiny")); // 4 entries per warp
    for rd in 1..=4 {
        b.reserve(0, rd);
    }
    assert!(
        !b.ok(0, Some(10), Some(11), Some(12)),
        "full: a destination needs an entry"
    );
    assert!(
        b.ok(0, None, Some(11), Some(12)),
        "full: no destination, no entry needed"
    );
    assert!(b.ok(0, Some(0), Some(11), None), "full: x0 needs no entry");
    assert!(b.ok(1, Some(10), None, None), "other warp has room");
    b.reserve(0, 9); // dropped: no room
    b.release(0, 2, 1);
    assert!(
        b.ok(0, Some(9), Some(2), None),
        "x9 was never reserved, x2 released"
    );
    // Full, release and reserve in the same cycle: the freed entry is not reused yet.
    b.reserve(0, 2);
    b.step(ScoreboardInputs {
        reserve: Some(RegWrite { warp: 0, rd: 7 }),
        release: [Some(RegWrite { warp: 0, rd: 3 }), None],
        ..Default::default()
    });
    assert!(
        b.ok(0, None, Some(7), None),
        "reservation while full was dropped"
    );
    assert!(b.ok(0, Some(3), None, None), "one entry free again");
}

#[test]
fn scoreboard_same_cycle_rules() {
    let mut b = SbBench::new(&preset("small"));
    // Reserve and release of the same register in one cycle: the new entry stays.
    b.step(ScoreboardInputs {
        reserve: Some(RegWrite { warp: 4, rd: 8 }),
        release: [
            Some(RegWrite { warp: 4, rd: 8 }),
            Some(RegWrite { warp: 4, rd: 8 }),
        ],
        ..Default::default()
    });
    assert!(!b.ok(4, None, Some(8), None));
    // Both release ports in one cycle.
    b.reserve(4, 9);
    b.step(ScoreboardInputs {
        release: [
            Some(RegWrite { warp: 4, rd: 8 }),
            Some(RegWrite { warp: 4, rd: 9 }),
        ],
        ..Default::default()
    });
    assert!(b.ok(4, Some(8), Some(9), None));
    // x0 is never tracked.
    b.reserve(4, 0);
    let out = b.step(ScoreboardInputs::default());
    assert!(out.idle[4]);
    // Clear wins over a same-cycle reservation; reset clears every warp.
    b.reserve(5, 1);
    b.reserve(6, 1);
    let mut clear = vec![false; 8];
    clear[5] = true;
    b.step(ScoreboardInputs {
        clear,
        reserve: Some(RegWrite { warp: 5, rd: 2 }),
        ..Default::default()
    });
    let out = b.step(ScoreboardInputs::default());
    assert!(out.idle[5] && !out.idle[6]);
    b.step(ScoreboardInputs {
        reset: true,
        reserve: Some(RegWrite { warp: 6, rd: 3 }),
        ..Default::default()
    });
    let out = b.step(ScoreboardInputs::default());
    assert!(out.idle.iter().all(|&i| i));
}
