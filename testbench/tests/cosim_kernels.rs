//! Every shipped kernel on the generated RTL, in lock-step with the golden model.
//!
//! Default set: each kernel's default case × `tiny` and `small` × the memory presets `zero`,
//! `long`, `random` (one test per configuration and memory setting; each runs every kernel and
//! reports all failures). `WARPFORGE_FULL=1` runs every case of every kernel instead.
//! Besides the lock-step checks (every commit, and global memory equal to the model's at the
//! end), each output buffer the RTL left must equal the kernel's Rust reference.
//!
//! Needs Verilator, the RISC-V compiler and the RTL top (`warpforge_hdl::top`). The first run
//! Verilates each configuration once (cached in `target/verilator-cache`).

mod cosim_common;

use cosim_common::{full, kernel_image, limits, place_case};
use warpforge_config::GpuConfig;
use warpforge_kernels::{check_fault, FaultRecord};
use warpforge_testbench::lockstep::{cosim, CosimOptions, CosimOutcome};
use warpforge_testbench::memory_model::MemorySettings;

fn run_all(cfg: GpuConfig, mem: MemorySettings) {
    let mut failures = Vec::new();
    let mut runs = 0;
    for k in warpforge_kernels::all() {
        let image = kernel_image(k);
        let cases = if full() {
            k.cases(&limits(&cfg), 1)
        } else {
            vec![k.default_case(&limits(&cfg), 1)]
        };
        for (i, case) in cases.iter().enumerate() {
            runs += 1;
            let (gpu, launch, addrs) = place_case(&cfg, &image, case);
            let case_arg = if full() {
                format!("--case {i}")
            } else {
                String::new()
            };
            let opts = CosimOptions {
                mem: mem.clone(),
                repro: format!(
                    "cargo run --release -- cosim {} --config {} {case_arg} --mem {} --seed {}",
                    k.name, cfg.name, mem.name, mem.seed
                ),
                ..Default::default()
            };
            let expected = case
                .expected_fault
                .map(|e| e.resolve(|name| image.function_start(name), &addrs));
            match cosim(&cfg, &image, gpu, launch, &opts) {
                Ok(r) => {
                    let fault = match &r.outcome {
                        CosimOutcome::Finished => None,
                        CosimOutcome::Fault(f) => Some(FaultRecord {
                            cause: f.cause.name().to_string(),
                            sm: f.sm,
                            warp: f.warp,
                            pc: f.pc,
                            lane: f.lane,
                            addr: f.addr,
                        }),
                    };
                    if let Err(why) = check_fault(expected.as_ref(), fault.as_ref()) {
                        failures.push(format!("{} {}: {why}", k.name, case.label));
                        continue;
                    }
                    if fault.is_some() {
                        continue;
                    }
                    for (b, &a) in case.buffers.iter().zip(&addrs) {
                        if let Some(exp) = &b.expected {
                            if r.read(a, exp.len() as u32) != Some(&exp[..]) {
                                failures.push(format!(
                                    "{} {}: buffer `{}` differs from the Rust reference",
                                    k.name, case.label, b.name
                                ));
                            }
                        }
                    }
                }
                Err(e) => failures.push(format!("{} {}:\n{e}", k.name, case.label)),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} kernel runs failed on `{}` with memory {}:\n\n{}",
        failures.len(),
        cfg.name,
        mem,
        failures.join("\n\n")
    );
}

#[test]
fn tiny_zero() {
    run_all(GpuConfig::tiny(), MemorySettings::zero());
}

#[test]
fn tiny_long() {
    run_all(GpuConfig::tiny(), MemorySettings::long());
}

#[test]
fn tiny_random() {
    run_all(GpuConfig::tiny(), MemorySettings::random().with_seed(1));
}

/// `tiny` with two lane dividers instead of four (`div_latency` 67: every divide in two rounds,
/// hdl/src/divider.rs): the kernels whose index arithmetic divides (isa_ops, hazards, reduce,
/// transpose, barrier_slots, …) in lock-step through the SM's writeback slot 67 cycles ahead.
#[test]
fn tiny_two_round_divider_zero() {
    let mut cfg = GpuConfig::tiny();
    cfg.name = "tiny_div67".into();
    cfg.div_latency = 67;
    run_all(cfg, MemorySettings::zero());
}

#[test]
fn small_zero() {
    run_all(GpuConfig::small(), MemorySettings::zero());
}

#[test]
fn small_long() {
    run_all(GpuConfig::small(), MemorySettings::long());
}

#[test]
fn small_random() {
    run_all(GpuConfig::small(), MemorySettings::random().with_seed(1));
}

/// The issue-rate goal (docs/microarch/sm.md "Throughput"): the ALU-bound kernel with every warp
/// slot occupied — case 2, one CTA of `warps × lanes` threads per SM — issues at least 0.9
/// warp-instructions per cycle on each SM of `small`. The RTL's counters are exact and the run
/// is deterministic, so this is a regression guard, not a timing test.
#[test]
fn alu_bound_kernel_issue_rate_on_small() {
    let cfg = GpuConfig::small();
    let k = warpforge_kernels::by_name("alu_mix").expect("alu_mix is shipped");
    let case = &k.cases(&limits(&cfg), 1)[2];
    assert_eq!(
        (case.grid, case.block),
        (cfg.sms, cfg.warps * cfg.lanes),
        "case 2 fills every SM"
    );
    let image = kernel_image(k);
    let (gpu, launch, _) = place_case(&cfg, &image, case);
    let r = cosim(&cfg, &image, gpu, launch, &CosimOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.outcome, CosimOutcome::Finished);
    for (s, sm) in r.sms.iter().enumerate() {
        let ipc = sm.issued as f64 / r.cycles as f64;
        eprintln!(
            "SM {s}: {} issued in {} cycles, IPC {ipc:.3}",
            sm.issued, r.cycles
        );
        assert!(ipc >= 0.9, "SM {s}: IPC {ipc:.3} < 0.9");
    }
}
