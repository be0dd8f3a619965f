//! The generated GPU top level (`hdl/src/top.rs`) passes `verilator --lint-only -Wall` with no
//! warning and yosys: in CI, `tiny`'s synthesis top (without trace ports) through `prep; check
//! -assert` (no combinational loop, multiple driver or undriven wire) and its co-simulation top
//! (with them) through the front end (`hierarchy -check; proc`): the two differ only in the trace
//! ports, checked below. A whole generic `synth` of `tiny` is minutes of CI: with
//! `WARPFORGE_FULL=1` both tops get it (a generic `synth` of a synthesis top runs in CI anyway,
//! in the sweep test's estimate of a cut `tiny`, gen/tests/sweep.rs). small's yosys with
//! `WARPFORGE_FULL=1` (6–10 min, 2.4 GB); fermi with `--ignored` (lint: 45 s, 1.6 GB), and its
//! yosys with `--ignored` and `WARPFORGE_FULL=1` (60 min, 9.4 GB: generic `synth` maps each SM's
//! register file and 1.5 Mbit of instruction and shared memory to flip-flops, where a vendor flow
//! maps them to RAM).

use std::time::Instant;

use warpforge_config::GpuConfig;
use warpforge_hdl::top::{top_verilog, TopOptions, TracePorts, TOP_NAME};
use warpforge_testbench::unit::{
    full_tests, lint, yosys_check, yosys_front_check, yosys_prep_check,
};

/// How much of yosys a check runs.
#[derive(Clone, Copy, PartialEq)]
enum Yosys {
    None,
    /// `hierarchy -check; proc`.
    Front,
    /// `hierarchy -check; proc; prep; check -assert`.
    Prep,
    /// `hierarchy -check; proc; synth`.
    Synth,
}

/// `full` with `WARPFORGE_FULL=1`, else `short`.
fn full_or(full: Yosys, short: Yosys) -> Yosys {
    if full_tests() {
        full
    } else {
        short
    }
}

fn check(preset: &str, yosys: Yosys) {
    check_with(preset, yosys, TracePorts::On);
}

fn check_with(preset: &str, yosys: Yosys, trace: TracePorts) {
    let cfg = GpuConfig::preset(preset).unwrap();
    let t = Instant::now();
    let opts = TopOptions {
        trace,
        ..TopOptions::default()
    };
    let v = top_verilog(&cfg, &opts).expect("generate");
    let gen = t.elapsed();
    let t = Instant::now();
    if let Err(e) = lint(TOP_NAME, &v) {
        panic!("{preset}: lint warnings:\n{}", &e[..e.len().min(6000)]);
    }
    let lint_time = t.elapsed();
    let t = Instant::now();
    match yosys {
        Yosys::None => {}
        Yosys::Front => yosys_front_check(TOP_NAME, &v).expect("yosys front end"),
        Yosys::Prep => yosys_prep_check(TOP_NAME, &v).expect("yosys prep"),
        Yosys::Synth => yosys_check(TOP_NAME, &v).expect("yosys"),
    }
    eprintln!(
        "{preset}: {} bytes of Verilog, generate {gen:.1?}, lint {lint_time:.1?}, yosys {:.1?}",
        v.len(),
        t.elapsed()
    );
}

#[test]
fn top_tiny_lint_and_yosys() {
    check("tiny", full_or(Yosys::Synth, Yosys::Front));
}

/// The ports of the top module, from its header `module warpforge_top(a,b,...);`.
fn ports(verilog: &str) -> Vec<String> {
    let start = verilog
        .find(&format!("module {TOP_NAME}("))
        .expect("top module")
        + TOP_NAME.len()
        + 8;
    let end = start + verilog[start..].find(')').expect("header");
    verilog[start..end]
        .split(',')
        .map(|p| p.trim().to_string())
        .collect()
}

#[test]
fn top_tiny_without_trace_ports_lint_and_yosys() {
    check_with("tiny", full_or(Yosys::Synth, Yosys::Prep), TracePorts::Off);
}

/// Synthesis's top (TracePorts::Off) differs from co-simulation's only in the verification
/// ports: the trace ports (`tr_*`), the counters' reset value (`ctr_base$0`) and the CTA
/// numbering's base (`cta_base$0`, `gtid_base$0`).
const VERIFICATION_INPUTS: [&str; 3] = ["ctr_base$0", "cta_base$0", "gtid_base$0"];

#[test]
fn trace_ports_are_the_only_difference() {
    for preset in ["tiny", "small"] {
        let cfg = GpuConfig::preset(preset).unwrap();
        let on = ports(&top_verilog(&cfg, &TopOptions::default()).expect("generate"));
        let off_opts = TopOptions {
            trace: TracePorts::Off,
            ..TopOptions::default()
        };
        let off = ports(&top_verilog(&cfg, &off_opts).expect("generate"));
        let without_trace: Vec<&String> = on
            .iter()
            .filter(|p| !p.starts_with("tr_") && !VERIFICATION_INPUTS.contains(&p.as_str()))
            .collect();
        for v in VERIFICATION_INPUTS {
            assert!(on.iter().any(|p| p == v), "{preset}: {on:?}");
        }
        assert!(
            on.len() > off.len() + 20,
            "{preset}: {} ports with trace, {} without",
            on.len(),
            off.len()
        );
        assert_eq!(off.iter().collect::<Vec<_>>(), without_trace, "{preset}");
        assert!(
            off.iter().any(|p| p.starts_with("mem$0$"))
                && off.iter().any(|p| p.starts_with("ctr_"))
        );
    }
}

#[test]
fn top_small_lint() {
    check("small", full_or(Yosys::Synth, Yosys::None));
}

#[test]
#[ignore = "fermi: lint ~1 min and 1.6 GB, yosys (WARPFORGE_FULL=1) 1 h and 9.4 GB; run with --ignored"]
fn top_fermi_lint() {
    check("fermi", full_or(Yosys::Synth, Yosys::None));
}
