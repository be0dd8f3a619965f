//! The build cache is keyed on every file the compiler reads: a kernel that `#include`s another
//! `.c` or `.S` file (as riscv-tests do with `../rv64ui/*.S`) is rebuilt when that file changes,
//! and an unchanged kernel is not rebuilt.

mod common;

use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

use common::{run_on_model, temp_dir};
use warpforge_kernels::build;
use warpforge_sim::RunOutcome;

const C_KERNEL: &str = r#"#include "warpforge.h"
#include "value.c"
WF_KERNEL(p)
{
    uint32_t *out = *(uint32_t *const *)p;
    if (wf_gtid() == 0)
        out[0] = value();
}
"#;

/// An assembly kernel: `kernel(params)` stores VALUE (from the included file) to `out[0]`.
const S_KERNEL: &str = r#"#include "value.S"
    .text
    .globl kernel
    .type kernel, @function
kernel:
    lw t0, 0(a0)
    li t1, VALUE
    sw t1, 0(t0)
    ret
    .size kernel, . - kernel
"#;

fn c_value(v: u32) -> String {
    format!("static uint32_t value(void) {{ return {v}; }}\n")
}

fn s_value(v: u32) -> String {
    format!("#define VALUE {v}\n")
}

/// Runs the kernel on one thread and returns what it stored.
fn stored(elf: &Path) -> u32 {
    let run = run_on_model(elf, 1, 1, 1);
    assert_eq!(run.outcome, RunOutcome::Finished, "{}", elf.display());
    run.out[0]
}

fn mtime(p: &Path) -> SystemTime {
    fs::metadata(p).unwrap().modified().unwrap()
}

fn check_included_file_changes(
    name: &str,
    kernel: &str,
    kernel_text: &str,
    included: &str,
    value: fn(u32) -> String,
) {
    let dir = temp_dir(name);
    let src = dir.join("src");
    let out = dir.join("out");
    fs::create_dir_all(&src).unwrap();
    let source = src.join(kernel);
    fs::write(&source, kernel_text).unwrap();
    fs::write(src.join(included), value(11)).unwrap();

    let first = build(&source, &out).unwrap();
    assert_eq!(stored(&first), 11);
    let built_at = mtime(&first);

    // Unchanged inputs: the same file, not rebuilt.
    std::thread::sleep(Duration::from_millis(50));
    let again = build(&source, &out).unwrap();
    assert_eq!(again, first);
    assert_eq!(mtime(&again), built_at, "an unchanged kernel was rebuilt");

    // The included file changes: a new ELF that does the new thing.
    fs::write(src.join(included), value(42)).unwrap();
    let second = build(&source, &out).unwrap();
    assert_ne!(
        second, first,
        "{included} changed but build returned the old ELF"
    );
    assert_eq!(stored(&second), 42);

    // Back to the first contents: the first ELF again, untouched.
    fs::write(src.join(included), value(11)).unwrap();
    let third = build(&source, &out).unwrap();
    assert_eq!(third, first);
    assert_eq!(mtime(&third), built_at);

    // Nothing but ELFs (and the hidden dependency manifests) is left in the output directory.
    for entry in fs::read_dir(&out).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            name.ends_with(".elf") || name == ".deps",
            "unexpected file {name} in the output directory"
        );
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_changed_included_c_file_rebuilds_the_kernel() {
    check_included_file_changes("include-c", "kernel.c", C_KERNEL, "value.c", c_value);
}

#[test]
fn a_changed_included_s_file_rebuilds_the_kernel() {
    check_included_file_changes("include-s", "kernel.S", S_KERNEL, "value.S", s_value);
}

#[test]
fn a_deleted_dependency_asks_gcc_again() {
    let dir = temp_dir("deleted-dep");
    let source = dir.join("kernel.c");
    fs::write(&source, C_KERNEL).unwrap();
    fs::write(dir.join("value.c"), c_value(5)).unwrap();
    let out = dir.join("out");
    let first = build(&source, &out).unwrap();
    assert_eq!(stored(&first), 5);

    // The kernel no longer includes value.c, which is gone: the manifest's list cannot be
    // hashed, so the build asks gcc for the new list instead of failing on the missing file.
    fs::write(
        &source,
        C_KERNEL.replace(
            "#include \"value.c\"\n",
            "static uint32_t value(void) { return 6; }\n",
        ),
    )
    .unwrap();
    fs::remove_file(dir.join("value.c")).unwrap();
    let second = build(&source, &out).unwrap();
    assert_ne!(second, first);
    assert_eq!(stored(&second), 6);
    let _ = fs::remove_dir_all(&dir);
}
