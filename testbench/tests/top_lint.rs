//! The generated GPU top level (`hdl/src/top.rs`) passes `verilator --lint-only -Wall` with no
//! warning and yosys `hierarchy -check; proc; synth`: tiny by default, small's yosys with
//! `WARPFORGE_FULL=1` (6–10 min, 2.4 GB); fermi with `--ignored` (lint: 45 s, 1.6 GB), and its
//! yosys with `--ignored` and `WARPFORGE_FULL=1` (60 min, 9.4 GB: generic `synth` maps each SM's
//! register file and 1.5 Mbit of instruction and shared memory to flip-flops, where a vendor flow
//! maps them to RAM).

use std::time::Instant;

use warpforge_config::GpuConfig;
use warpforge_hdl::top::{top_verilog, TopOptions, TOP_NAME};
use warpforge_testbench::unit::{lint, yosys_check};

fn check(preset: &str, yosys: bool) {
    let cfg = GpuConfig::preset(preset).unwrap();
    let t = Instant::now();
    let v = top_verilog(&cfg, &TopOptions::default()).expect("generate");
    let gen = t.elapsed();
    let t = Instant::now();
    if let Err(e) = lint(TOP_NAME, &v) {
        panic!("{preset}: lint warnings:\n{}", &e[..e.len().min(6000)]);
    }
    let lint_time = t.elapsed();
    let t = Instant::now();
    if yosys {
        yosys_check(TOP_NAME, &v).expect("yosys");
    }
    eprintln!(
        "{preset}: {} bytes of Verilog, generate {gen:.1?}, lint {lint_time:.1?}, yosys {:.1?}",
        v.len(),
        t.elapsed()
    );
}

#[test]
fn top_tiny_lint_and_yosys() {
    check("tiny", true);
}

#[test]
fn top_small_lint() {
    check("small", warpforge_testbench::unit::full_tests());
}

#[test]
#[ignore = "fermi: lint ~1 min and 1.6 GB, yosys (WARPFORGE_FULL=1) 1 h and 9.4 GB; run with --ignored"]
fn top_fermi_lint() {
    check("fermi", warpforge_testbench::unit::full_tests());
}
