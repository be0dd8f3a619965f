//! Co-simulation catches a deliberate RTL bug exactly where it first shows.
//!
//! The RTL is built with `InjectedFault::AluSubLaneBit { lane: 1, bit: 0 }` (every `sub` the ALU
//! of SM 0 executes returns lane 1's result with bit 0 inverted). A clean run of a random
//! program records the first writeback of a `sub` with lane 1 active (cycle, warp, tag); the
//! faulty run must stop with a mismatch in exactly that cycle, on that warp and tag, whose only
//! differing field is lane 1's value, off by bit 0 — and with a VCD of the window around it.

mod cosim_common;

use cosim_common::random_setup;
use warpforge_config::GpuConfig;
use warpforge_hdl::top::InjectedFault;
use warpforge_isa::{decode, AluOp, Instr};
use warpforge_randprog::{generate, Options};
use warpforge_testbench::lockstep::{
    cosim_observed, CosimError, CosimOptions, CosimOutcome, EventKind, RecordKind,
};

/// The first seed whose program has a `sub` with a destination register.
fn program_with_sub(cfg: &GpuConfig) -> warpforge_randprog::Program {
    (0..200)
        .map(|seed| generate(seed, cfg.lanes, cfg.warps * cfg.lanes, &Options::default()))
        .find(|p| {
            p.words
                .iter()
                .any(|&w| matches!(decode(w), Ok(Instr::Op { op: AluOp::Sub, rd, .. }) if rd != 0))
        })
        .expect("a random program with sub")
}

#[test]
fn injected_alu_fault_is_caught_at_the_first_sub_writeback_with_lane_1() {
    let cfg = GpuConfig::tiny();
    let p = program_with_sub(&cfg);

    // Clean run: where does the first sub with lane 1 active write back?
    let s = random_setup(&cfg, &p);
    let mut first = None;
    let repro = "cargo test -p warpforge-testbench --test cosim_fault_injection";
    let clean = cosim_observed(
        &cfg,
        &s.image,
        s.gpu,
        s.launch,
        &CosimOptions {
            repro: repro.into(),
            ..Default::default()
        },
        &mut |e| {
            let is_sub = matches!(decode(e.instr), Ok(Instr::Op { op: AluOp::Sub, .. }));
            if first.is_none()
                && is_sub
                && e.sm == 0
                && e.mask & 0b10 != 0
                && matches!(e.kind, EventKind::Writeback { .. })
            {
                first = Some((e.cycle, e.warp, e.tag, e.values[1]));
            }
        },
    )
    .unwrap_or_else(|e| panic!("clean run of seed {}:\n{e}", p.seed));
    assert_eq!(clean.outcome, CosimOutcome::Finished);
    let (cycle, warp, tag, value) = first.unwrap_or_else(|| {
        panic!(
            "seed {}: no sub wrote back with lane 1 active; pick another program",
            p.seed
        )
    });

    // Faulty run.
    let vcd_dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cosim-fault-vcd");
    let _ = std::fs::remove_dir_all(&vcd_dir);
    let s = random_setup(&cfg, &p);
    let opts = CosimOptions {
        inject: Some(InjectedFault::AluSubLaneBit { lane: 1, bit: 0 }),
        vcd_on_failure: Some(vcd_dir.clone()),
        repro: repro.into(),
        ..Default::default()
    };
    let err = cosim_observed(&cfg, &s.image, s.gpu, s.launch, &opts, &mut |_| {})
        .expect_err("the injected fault must be caught");
    let CosimError::Mismatch(m) = &err else {
        panic!("expected a mismatch, got:\n{err}");
    };
    assert_eq!(m.kind, RecordKind::Writeback, "{m}");
    assert_eq!(
        (m.cycle, m.sm, m.warp, m.tag),
        (cycle, Some(0), Some(warp), Some(tag)),
        "{m}"
    );
    assert_eq!(m.fields.len(), 1, "{m}");
    let f = m.field("value", Some(1)).expect("lane 1's value differs");
    assert_eq!(f.expected.as_u64(), Some(u64::from(value)), "{m}");
    assert_eq!(f.actual.as_u64(), Some(u64::from(value ^ 1)), "{m}");
    let text = m.to_string();
    assert!(text.contains("sub "), "{text}");
    let vcd = m
        .context
        .vcd
        .as_ref()
        .unwrap_or_else(|| panic!("no VCD:\n{text}"));
    let dump = std::fs::read_to_string(vcd).unwrap();
    assert!(dump.contains("$enddefinitions"), "{}", vcd.display());
}
