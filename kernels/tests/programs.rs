//! Small kernels in `tests/programs/` (not shipped kernels) that check what the ISA documentation
//! promises about the toolchain and the golden model: each is built with `build` and run.

mod common;

use std::path::{Path, PathBuf};

use common::{run_on_model, temp_dir};
use warpforge_kernels::build;
use warpforge_sim::RunOutcome;

fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs")
        .join(name)
}

/// Builds `tests/programs/<name>` into a fresh directory.
fn build_program(name: &str) -> PathBuf {
    let out = temp_dir(&format!("programs-{name}"));
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
