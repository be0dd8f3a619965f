//! The command line as a user meets it: snapshots of its output and its errors.

use std::path::Path;
use std::process::{Command, Output};

fn warpforge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap())
        .output()
        .expect("runs")
}

/// A PATH holding only the RISC-V toolchain (symbolic links to it): Verilator is absent.
fn path_without_verilator(dir: &Path) -> std::ffi::OsString {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let compiler = std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .find(|d| d.join("riscv64-unknown-elf-gcc").is_file())
        .expect("the RISC-V compiler is installed (scripts/setup.sh)");
    for e in std::fs::read_dir(&compiler).unwrap().flatten() {
        let name = e.file_name();
        if name.to_string_lossy().starts_with("riscv64-unknown-elf-") {
            let _ = std::os::unix::fs::symlink(e.path(), bin.join(&name));
        }
    }
    assert!(!bin.join("verilator").exists());
    bin.into_os_string()
}

/// `warpforge` with Verilator absent from PATH and an empty Verilator cache in `dir`: only
/// what it checks before building any RTL can succeed.
fn warpforge_without_verilator(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap())
        .env("PATH", path_without_verilator(dir))
        .env_remove("VERILATOR_ROOT")
        .env("WARPFORGE_VERILATOR_CACHE", dir.join("cache"))
        .output()
        .expect("runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Output with timings and temporary paths replaced.
fn stable(o: &Output) -> String {
    let t = text(o);
    t.lines()
        .map(|l| {
            if l.trim_start().starts_with("model time") {
                "  model time                 [elapsed]".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn config_show_and_list() {
    let o = warpforge(&["config", "show", "tiny"]);
    assert!(o.status.success());
    insta::assert_snapshot!("config_show_tiny", text(&o));
    let o = warpforge(&["config", "list"]);
    insta::assert_snapshot!("config_list", text(&o));
}

#[test]
fn config_errors_name_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "base = \"tiny\"\nlanes = 6\n").unwrap();
    let o = warpforge(&["config", "show", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("`lanes` = 6: must be a power of two"),
        "{}",
        text(&o)
    );
    let o = warpforge(&["config", "show", "huge"]);
    assert!(
        text(&o).contains("unknown preset `huge`; known presets: tiny, small, fermi"),
        "{}",
        text(&o)
    );
    let o = warpforge(&["config", "show", "missing.toml"]);
    assert!(
        text(&o).contains("cannot read configuration file missing.toml"),
        "{}",
        text(&o)
    );
}

#[test]
fn kernels_list() {
    let o = warpforge(&["kernels"]);
    assert!(o.status.success());
    insta::assert_snapshot!("kernels", text(&o));
}

#[test]
fn run_shipped_kernel_with_trace() {
    let o = warpforge(&["run", "vecadd", "--config", "tiny", "--trace", "12"]);
    assert!(o.status.success(), "{}", text(&o));
    insta::assert_snapshot!("run_vecadd_tiny_trace", stable(&o));
}

#[test]
fn run_with_arguments_and_dump() {
    let o = warpforge(&[
        "run",
        "kernels/vecadd.c",
        "--config",
        "tiny",
        "--grid",
        "2",
        "--block",
        "6",
        "--arg",
        "buf:48:iota",
        "--arg",
        "buf:48:iota",
        "--arg",
        "buf:48",
        "--arg",
        "12",
        "--dump",
        "arg2",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains(": 00000000 00000002 00000004 00000006"), "{t}");
    assert!(t.contains(": 00000010 00000012 00000014 00000016"), "{t}");
}

#[test]
fn bad_run_arguments_are_refused_clearly() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["run", "nope.c"],
            "`nope.c` is neither a file nor a shipped kernel",
        ),
        (
            &["run", "kernels/vecadd.c", "--arg", "1"],
            "give the launch shape with --grid CTAS --block THREADS",
        ),
        (
            &[
                "run",
                "kernels/vecadd.c",
                "--grid",
                "1",
                "--block",
                "4",
                "--arg",
                "buf:7",
            ],
            "multiple of 4",
        ),
        (
            &[
                "run",
                "kernels/vecadd.c",
                "--grid",
                "1",
                "--block",
                "4",
                "--arg",
                "x",
            ],
            "neither a number nor buf:",
        ),
        (
            &[
                "run",
                "kernels/vecadd.c",
                "--config",
                "tiny",
                "--grid",
                "1",
                "--block",
                "17",
                "--arg",
                "1",
            ],
            "a CTA of 17 threads does not fit an SM of 4 warps x 4 lanes (at most 16 threads)",
        ),
        (
            &[
                "run",
                "kernels/vecadd.c",
                "--grid",
                "0",
                "--block",
                "4",
                "--arg",
                "1",
            ],
            "at least one CTA",
        ),
        (&["run", "vecadd", "--grid", "3"], "runs its reference case"),
        (
            &[
                "run",
                "vecadd",
                "--config",
                "tiny",
                "--dump",
                "0x10000000:0",
            ],
            "a length of 0 bytes prints nothing",
        ),
        (
            &[
                "run",
                "vecadd",
                "--config",
                "tiny",
                "--dump",
                "0x10000000:x",
            ],
            "--dump 0x10000000:x: the length",
        ),
        (&["run", "Cargo.toml"], "not an ELF"),
    ];
    for (args, msg) in cases {
        let o = warpforge(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(msg), "{args:?}: {}", text(&o));
    }
    // A --dump that cannot be served is refused before the kernel runs: no statistics.
    let o = warpforge(&[
        "run",
        "kernels/vecadd.c",
        "--config",
        "tiny",
        "--grid",
        "1",
        "--block",
        "4",
        "--arg",
        "buf:16",
        "--arg",
        "buf:16",
        "--arg",
        "buf:16",
        "--arg",
        "4",
        "--dump",
        "arg3",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("parameter 3 is a number, not a buffer"), "{t}");
    assert!(
        !t.contains("warp-instructions"),
        "the kernel ran first: {t}"
    );
}

fn write_kernel(dir: &Path, name: &str, body: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, format!("#include \"warpforge.h\"\n{body}\n")).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn a_kernel_that_never_finishes_is_stopped_with_a_report() {
    let dir = tempfile::tempdir().unwrap();
    let k = write_kernel(
        dir.path(),
        "spin.c",
        "WF_KERNEL(arg) { volatile const uint32_t *flag = arg; while (*flag == 0) { } }",
    );
    let o = warpforge(&[
        "run",
        &k,
        "--config",
        "tiny",
        "--grid",
        "1",
        "--block",
        "5",
        "--arg",
        "0",
        "--max-cycles",
        "5000",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let t = text(&o);
    assert!(
        t.contains("timeout: the kernel did not finish within 5000 cycles (0 of 1 CTAs done)"),
        "{t}"
    );
    assert!(t.contains("SM 0 warp 0: pc 0x"), "{t}");
    assert!(t.contains("SM 0 warp 1: pc 0x"), "{t}");
}

#[test]
fn a_faulting_kernel_names_sm_warp_pc_and_cause() {
    let dir = tempfile::tempdir().unwrap();
    let k = write_kernel(
        dir.path(),
        "misaligned.c",
        "WF_KERNEL(arg) { uint32_t *p = (uint32_t *)((uintptr_t)arg + 2 * (wf_tid() == 5)); p[0] = 1; }",
    );
    let o = warpforge(&[
        "run", &k, "--config", "tiny", "--grid", "1", "--block", "8", "--arg", "buf:16",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("fault on SM 0, warp 1, pc 0x"), "{t}");
    assert!(t.contains("<kernel+0x"), "{t}");
    assert!(t.contains("misaligned-store (address 0x"), "{t}");
    assert!(t.contains("in lane 1; instruction: sw"), "{t}");
}

#[test]
fn a_recursion_whose_threads_reach_different_depths_faults_with_a_hint() {
    // Every thread computes sum_to(gtid) recursively: threads at different depths meet at
    // sum_to's ret (docs/isa.md §4.1). The fault line says what usually causes it.
    let o = warpforge(&[
        "run",
        "kernels/tests/programs/recursion.c",
        "--config",
        "tiny",
        "--grid",
        "1",
        "--block",
        "4",
        "--arg",
        "buf:16",
        "--arg",
        "2",
        "--arg",
        "5",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("fault on SM 0, warp 0, pc 0x"), "{t}");
    assert!(t.contains("<sum_to+0x"), "{t}");
    assert!(t.contains("divergent-jump"), "{t}");
    assert!(t.contains("instruction: ret"), "{t}");
    assert!(t.contains("hint: "), "{t}");
    assert!(t.contains("different depths of a recursion"), "{t}");
    assert!(t.contains("docs/isa.md §4.1"), "{t}");
}

#[test]
fn disassembly_shows_reconvergence_points() {
    let o = warpforge(&["disasm", "nested_divergence"]);
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("<kernel>:"), "{t}");
    assert!(t.contains("# reconverge at 0x"), "{t}");
}

#[test]
fn suite_on_tiny_passes() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("suite.json");
    let o = warpforge(&[
        "suite",
        "--config",
        "tiny",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains(" passed, 0 failed"));
    let rows: serde_json::Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    assert!(rows.as_array().unwrap().len() >= 30);
}

// ---------------------------------------------------------------------------------------------
// RTL: gen, cosim, regress

#[test]
fn gen_writes_verilog_file_list_and_config() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rtl");
    let o = warpforge(&["gen", "--config", "tiny", "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    assert!(
        t.starts_with("configuration `tiny` (hash d7d11b7c8663880c): 1 SM x 4 warps x 4 lanes\n"),
        "{t}"
    );
    assert!(t.contains("(top module warpforge_top, "), "{t}");
    let v = std::fs::read_to_string(out.join("warpforge_top.v")).unwrap();
    assert!(v.contains("module warpforge_top"));
    let files = std::fs::read_to_string(out.join("files.f")).unwrap();
    assert_eq!(
        files.trim(),
        std::fs::canonicalize(out.join("warpforge_top.v"))
            .unwrap()
            .to_str()
            .unwrap()
    );
    let cfg = std::fs::read_to_string(out.join("config.toml")).unwrap();
    let o = warpforge(&["config", "show", out.join("config.toml").to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(text(&o), cfg, "config.toml is the resolved configuration");
}

#[test]
fn bad_cosim_and_regress_arguments_are_refused_clearly() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["cosim", "vecadd", "--config", "tiny", "--mem", "fast"],
            "--mem fast: unknown memory setting `fast`; known: zero, long, random",
        ),
        (
            &[
                "cosim",
                "vecadd",
                "--config",
                "tiny",
                "--mem",
                "backpressure=1",
            ],
            "back-pressure 1 must be in [0, 1)",
        ),
        (
            &["cosim", "vecadd", "--config", "tiny", "--case", "99"],
            "`vecadd` has ",
        ),
        (
            &["cosim", "vecadd", "--grid", "3"],
            "give --case N to choose one",
        ),
        (
            &["cosim", "kernels/vecadd.c", "--case", "1"],
            "--case N selects a reference case of a shipped kernel",
        ),
        (
            &["cosim", "nope.c"],
            "`nope.c` is neither a file nor a shipped kernel",
        ),
        (
            &["regress", "--kernels", "vecadd,nope"],
            "`nope` is not a shipped kernel (shipped: vecadd, ",
        ),
        (
            &["regress", "--configs", "huge"],
            "unknown preset `huge`; known presets: tiny, small, fermi",
        ),
        (
            &["regress", "--mem", "zero,slow"],
            "--mem slow: unknown memory setting `slow`",
        ),
    ];
    for (args, msg) in cases {
        let o = warpforge(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(msg), "{args:?}: {}", text(&o));
    }
}

/// Launch shapes the GPU cannot take are refused before the RTL is built: here no Verilator is
/// on PATH and the cache is empty, so only a check made before the build can answer.
#[test]
fn cosim_refuses_a_bad_launch_before_building_the_rtl() {
    let dir = tempfile::tempdir().unwrap();
    let custom = |grid: &'static str, block: &'static str| {
        vec![
            "cosim",
            "kernels/vecadd.c",
            "--config",
            "tiny",
            "--grid",
            grid,
            "--block",
            block,
            "--arg",
            "buf:64",
            "--arg",
            "buf:64",
            "--arg",
            "buf:64",
            "--arg",
            "16",
        ]
    };
    for (args, msg) in [
        (custom("0", "4"), "the grid must have at least one CTA"),
        (
            custom("1", "17"),
            "a CTA of 17 threads does not fit an SM of 4 warps x 4 lanes",
        ),
    ] {
        let o = warpforge_without_verilator(&args, dir.path());
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {t}");
        assert!(t.contains(msg), "{args:?}: {t}");
        assert!(t.contains("--grid"), "names the flags: {t}");
    }
}

/// Without Verilator, the binary still runs and says how to install it (it once failed to
/// build at all: the `verilated` crate's build script required Verilator).
#[test]
fn without_verilator_rtl_commands_say_how_to_install_it() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["cosim", "vecadd", "--config", "tiny"][..],
        &[
            "verify",
            "--config",
            "tiny",
            "--kernels",
            "vecadd",
            "--quick",
            "-o",
            dir.path().join("rtl").to_str().unwrap(),
        ][..],
    ] {
        let o = warpforge_without_verilator(args, dir.path());
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {t}");
        assert!(t.contains("scripts/setup.sh --verilator"), "{args:?}: {t}");
        assert!(!t.contains("panicked"), "{t}");
    }
    // The golden model needs no Verilator.
    let o = warpforge_without_verilator(&["run", "vecadd", "--config", "tiny"], dir.path());
    assert!(o.status.success(), "{}", text(&o));
}

/// The main job: Verilog where the user sees it, the lock-step table, and on a second run every
/// cache reused (Verilog, Verilated model, kernels), said so.
#[test]
fn verify_generates_builds_runs_lockstep_and_reuses_its_caches() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rtl");
    let json = dir.path().join("verify.json");
    let args = [
        "verify",
        "--config",
        "tiny",
        "--kernels",
        "vecadd,divergent_loop",
        "--mem",
        "zero,random",
        "--quick",
        "-o",
        out.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ];
    let o = warpforge(&args);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let verilog = out.join("tiny").join("warpforge_top.v");
    assert!(std::fs::read_to_string(&verilog)
        .unwrap()
        .contains("module warpforge_top"));
    assert!(out.join("tiny").join("files.f").is_file());
    assert!(t.contains("\nkernel ") && t.contains(" result "), "{t}");
    assert!(t.contains("IPC/SM"), "{t}");
    assert!(
        t.contains("4 passed, 0 failed (4 lock-step runs in "),
        "{t}"
    );
    assert!(
        t.contains(&format!("Verilog:     {}", verilog.display())),
        "{t}"
    );
    assert!(t.contains("Next:\n  warpforge cosim "), "{t}");
    assert!(t.contains("--waves "), "{t}");
    let rows: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 4);

    // Again: nothing is generated, Verilated or compiled.
    let o = warpforge(&args);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("from the generator's cache"), "{t}");
    assert!(t.contains("[2/4] Verilated model: from the cache"), "{t}");
    assert!(t.contains("[3/4] kernels: 2 from the cache"), "{t}");
    // cosim reuses the same generated Verilog and model.
    let o = warpforge(&["cosim", "vecadd", "--config", "tiny"]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains("RTL model: Verilog from the cache (") && t.contains("; model from the cache ("),
        "{t}"
    );
    assert!(
        t.contains("IPC per SM") && t.contains("IPC, sum over 1 SM "),
        "{t}"
    );
}

/// The `warpforge cosim` command end to end, with a replay of an idealised GPU in place of the
/// generated RTL (`--verilog`, `warpforge_testbench::lockstep::script`): the case is placed as
/// `run` places it, checked every cycle, and the RTL's memory checked against the Rust
/// reference; a corrupted replay exits 1 with the mismatch report and its repro line.
#[test]
fn cosim_end_to_end_on_a_replayed_rtl() {
    use warpforge_config::GpuConfig;
    use warpforge_kernels::Limits;
    use warpforge_testbench::lockstep::{kernel_start_cycle, script::ideal_script, Launch};

    let cfg = GpuConfig::tiny();
    let k = warpforge_kernels::by_name("vecadd").unwrap();
    let image = warpforge_loader::load_elf_file(&k.elf().unwrap()).unwrap();
    let limits = Limits {
        lanes: cfg.lanes,
        max_block: cfg.warps * cfg.lanes,
        smem_bytes: cfg.smem_bytes,
        sms: cfg.sms,
    };
    let case = k.default_case(&limits, 1);
    let mut gpu = warpforge_sim::Gpu::new(&cfg, &image).unwrap();
    let placed = warpforge::host::place(&mut gpu, &case).unwrap();
    // The case's counter base, as `warpforge cosim` runs it.
    let launch = Launch {
        counter_base: case.counter_base,
        ..Launch::new(case.grid, case.block, placed.param)
    };
    let script = ideal_script(
        &cfg,
        gpu,
        launch,
        kernel_start_cycle(&image, launch.counter_base),
        1_000_000,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("replay.v");
    std::fs::write(&good, script.verilog()).unwrap();
    let json = dir.path().join("cosim.json");
    let o = warpforge(&[
        "cosim",
        "vecadd",
        "--config",
        "tiny",
        "--verilog",
        good.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let stable_cosim = |o: &Output| {
        text(o)
            .lines()
            .map(|l| {
                if l.starts_with("RTL model:") {
                    "RTL model: [build]".to_string()
                } else if l.trim_start().starts_with("simulation time") {
                    "  simulation time            [elapsed]".to_string()
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    insta::assert_snapshot!("cosim_vecadd_tiny_replay", stable_cosim(&o));
    let row: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(row["result"], "pass");
    assert_eq!(row["cycles"], script.done_at.unwrap());

    // One lane value of a writeback in the middle, corrupted.
    let wbs = script.find(|o| o.wb.is_some_and(|w| w.mask & 1 != 0));
    let (kc, s) = wbs[wbs.len() / 2];
    let mut bad_script = script.clone();
    bad_script.cycles[kc as usize][s].wb.as_mut().unwrap().data[0] ^= 0x8000_0000;
    let bad = dir.path().join("bad.v");
    std::fs::write(&bad, bad_script.verilog()).unwrap();
    let o = warpforge(&[
        "cosim",
        "vecadd",
        "--config",
        "tiny",
        "--verilog",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let t = text(&o);
    assert!(
        t.contains(&format!(
            "co-simulation MISMATCH at cycle {} (kernel cycle {kc}), writeback record, SM 0",
            image.text.len() as u64 + kc
        )),
        "{t}"
    );
    assert!(t.contains("    value  0     0x"), "{t}");
    assert!(
        t.contains(&format!(
            "reproduce: warpforge cosim vecadd --config tiny --mem zero --seed 0 --verilog {}",
            bad.display()
        )),
        "{t}"
    );
}

/// `warpforge regress` on the generated RTL (needs the RTL top to pass vecadd on tiny).
#[test]
fn regress_writes_table_json_and_junit() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("regress.json");
    let junit = dir.path().join("regress.xml");
    let o = warpforge(&[
        "regress",
        "--configs",
        "tiny",
        "--mem",
        "zero,random",
        "--kernels",
        "vecadd",
        "--quick",
        "--json",
        json.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.starts_with("kernel  case"),
        "the table comes first on stdout (the progress bar is hidden without a tty): {t}"
    );
    assert!(t.contains("vecadd  grid=3 block=7"), "{t}");
    assert!(t.contains("2 passed, 0 failed (2 runs in "), "{t}");
    let rows: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1]["mem"], "random");
    assert!(rows[0]["cycles"].as_u64().unwrap() > 0);
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains(r#"<testsuite name="tiny/zero" tests="1""#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<testsuite name="tiny/random" tests="1""#),
        "{xml}"
    );
}

#[test]
fn regress_checks_kernel_cycles_against_the_recorded_ones() {
    // A copy of the checked-in expectations with one count off by one: lock-step passes, the
    // timing check fails that run and says how to re-record; --bless-cycles restores it.
    let dir = tempfile::tempdir().unwrap();
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cycles/tiny.json");
    let mut file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&real).unwrap()).unwrap();
    let runs = file["runs"].as_object_mut().unwrap();
    let key = runs
        .keys()
        .find(|k| k.starts_with("vecadd grid=3 block=7 ") && k.contains("/ zero seed 1 /"))
        .expect("tests/cycles/tiny.json has vecadd's representative case")
        .clone();
    let want = runs[&key].as_u64().unwrap();
    runs.insert(key.clone(), (want + 1).into());
    let copy = dir.path().join("tiny.json");
    std::fs::write(&copy, serde_json::to_string_pretty(&file).unwrap()).unwrap();
    let args = |extra: &[&str]| {
        let mut a = vec![
            "regress",
            "--configs",
            "tiny",
            "--mem",
            "zero",
            "--kernels",
            "vecadd",
            "--quick",
            "--cycles-dir",
            dir.path().to_str().unwrap(),
        ];
        a.extend_from_slice(extra);
        warpforge(&a)
    };
    let o = args(&[]);
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(
        t.contains(&format!(
            "the kernel took {want} cycles where {} are expected",
            want + 1
        )),
        "{t}"
    );
    assert!(
        t.contains("--bless-cycles") && t.contains("1 runs checked") && t.contains("1 differ"),
        "{t}"
    );
    let o = args(&["--bless-cycles"]);
    assert!(o.status.success(), "{}", text(&o));
    let again: serde_json::Value = serde_json::from_slice(&std::fs::read(&copy).unwrap()).unwrap();
    assert_eq!(again["runs"][&key].as_u64(), Some(want));
    let o = args(&[]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("0 differ"), "{}", text(&o));
}
