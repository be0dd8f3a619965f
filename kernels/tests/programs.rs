//! Small kernels in `tests/programs/` (not shipped kernels) that check what the ISA documentation
//! promises about the toolchain and the golden model: each is built with `build` and run.

mod common;

use std::path::{Path, PathBuf};

use common::run_on_model;
use warpforge_kernels::build;
use warpforge_sim::{FaultCause, RunOutcome};

fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs")
        .join(name)
}

/// Builds `tests/programs/<name>` into cargo's temporary directory for integration tests (kept
/// between runs, so the build cache is used), shared by the tests, which run in parallel and
/// may build the same program at the same time.
fn build_program(name: &str) -> PathBuf {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("programs");
    build(&program(name), &out).unwrap_or_else(|e| panic!("building {name}: {e}"))
}

#[test]
fn fence_i_builds_and_is_a_no_op() {
    let elf = build_program("fence_i.c");
    let run = run_on_model(&elf, 2, 3, 6);
    assert!(
        run.image.text.contains(&0x0000_100f),
        "no fence.i in the ELF"
    );
    assert_eq!(run.outcome, RunOutcome::Finished);
    assert_eq!(run.out, [101, 102, 103, 104, 105, 106]);
}

#[test]
fn jal_to_the_next_instruction_reads_the_pc() {
    let elf = build_program("read_pc.S");
    let run = run_on_model(&elf, 1, 4, 8);
    assert_eq!(run.outcome, RunOutcome::Finished);
    let kernel = run
        .image
        .functions
        .iter()
        .find(|f| f.name == "kernel")
        .expect("a function named kernel");
    let pc = run.out[2];
    assert!(
        (kernel.start..kernel.end).contains(&pc),
        "pc 0x{pc:08x} is not in kernel"
    );
    const UNTOUCHED: u32 = 0xDEAD_BEEF;
    assert_eq!(
        run.out,
        [UNTOUCHED, UNTOUCHED, pc, pc, UNTOUCHED, UNTOUCHED, pc, pc]
    );
    // The pc read is that of the instruction after the jal.
    let jal = run.image.instr_at(pc - 4).unwrap();
    assert_eq!(jal, 0x0040_02ef, "jal t0, .+4 before 0x{pc:08x}");
}

/// Runs `recursion.c` with `mode` and n = 5 on 2 CTAs of 6 threads (on `tiny`, 4 lanes: a full
/// and a partial warp each).
fn recursion(mode: u32) -> common::Run {
    common::run_on_model_with(&build_program("recursion.c"), 2, 6, 12, &[mode, 5])
}

#[test]
fn uniform_recursion_finishes() {
    let run = recursion(0);
    assert_eq!(run.outcome, RunOutcome::Finished);
    assert_eq!(run.out, [15; 12]);
}

#[test]
fn uniform_recursion_called_from_divergent_code_finishes() {
    let run = recursion(1);
    assert_eq!(run.outcome, RunOutcome::Finished);
    assert_eq!(run.out, [0, 15, 0, 15, 0, 15, 0, 15, 0, 15, 0, 15]);
}

#[test]
fn recursion_to_thread_dependent_depths_faults_at_ret_with_a_hint() {
    let run = recursion(2);
    let RunOutcome::Fault(fault) = run.outcome else {
        panic!("expected a fault, got {:?}", run.outcome);
    };
    assert_eq!(fault.cause, FaultCause::DivergentJump);
    let f = run.image.function_at(fault.pc).unwrap();
    assert_eq!(f.name, "sum_to");
    let instr = run.image.instr_at(fault.pc);
    assert_eq!(instr, Some(0x0000_8067), "the fault is at sum_to's ret");
    let hint = fault
        .hint(instr)
        .expect("a hint for divergent-jump at a ret");
    assert!(hint.contains("recursion"), "{hint}");
    assert!(hint.contains("docs/isa.md §4.1"), "{hint}");
}
