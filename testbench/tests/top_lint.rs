//! The generated GPU top level (`hdl/src/top.rs`) passes `verilator --lint-only -Wall` with no
//! warning and yosys `hierarchy -check; proc; synth`: tiny by default, small's yosys with
//! `WARPFORGE_FULL=1`, fermi (lint only) with `--ignored`. fermi is 58 MB of Verilog (lint:
//! ~2 min, 3 GB); generic `synth` would map its over 10 Mbit of register file, instruction and shared
//! memory to flip-flops, which no machine of ours finishes — a vendor flow maps them to RAM.

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
    check("small", std::env::var_os("WARPFORGE_FULL").is_some());
}

#[test]
#[ignore = "fermi: ~2 min and 3 GB; run with --ignored"]
fn top_fermi_lint() {
    check("fermi", false);
}
