//! The whole FPGA flow (wrapper, yosys `synth_ecp5`, nextpnr-ecp5, the parsed report, the cache)
//! on one generated unit, the warp scheduler of `tiny`: small enough for CI (about a minute on
//! one core). Needs yosys and nextpnr-ecp5: `scripts/setup.sh --yosys --nextpnr`.
//!
//! The same on the whole GPU of `tiny` is opt-in (`--ignored`, 10–40 minutes):
//! `cargo test --release -p warpforge --test synth_flow -- --ignored`.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use warpforge::synth::{self, Design, Fit, Flow, Placer, Router, Target};
use warpforge_config::GpuConfig;

fn flow(out: &Path, cache: &Path, estimate: bool, seed: u64) -> Flow {
    Flow {
        target: Target::Ecp5_85f,
        estimate,
        seed,
        router: Router::Router1,
        placer: Placer::Static,
        freq_mhz: 100.0,
        threads: 1,
        out_dir: out.to_path_buf(),
        cache_dir: Some(cache.to_path_buf()),
        heartbeat: Duration::from_secs(60),
    }
}

fn scheduler() -> Design {
    let cfg = GpuConfig::preset("tiny").unwrap();
    let verilog = warpforge_hdl::scheduler::scheduler_verilog(&cfg, "scheduler")
        .unwrap_or_else(|e| panic!("{e}"));
    Design {
        label: "scheduler (tiny)".into(),
        id: format!("scheduler of config {}", cfg.hash_hex()),
        verilog,
        top: "scheduler".into(),
        clock: "clock".into(),
        reset: Some("reset".into()),
    }
}

#[test]
fn a_generated_unit_places_routes_and_is_then_cached() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let design = scheduler();
    let f = flow(&dir.path().join("run"), &cache, false, 1);
    let t0 = Instant::now();
    let first = synth::run(&design, &f, &|m| eprintln!("{m}")).unwrap_or_else(|e| panic!("{e:#}"));
    eprintln!("first run: {:.1} s", t0.elapsed().as_secs_f64());
    let r = &first.report;
    eprint!("{}", synth::table(r, first.cached));
    assert!(!first.cached);
    assert_eq!(r.fit, Fit::Fits);
    let used = |n: &str| r.resource(n).unwrap_or_else(|| panic!("no {n}")).used;
    // The scheduler's logic survives the wrapper: more than the wrapper's own LUTs.
    assert!(
        used("LUT4") > r.wrapper.luts_approx as u64,
        "LUT4 {} vs wrapper {}",
        used("LUT4"),
        r.wrapper.luts_approx
    );
    assert!(used("FF") >= r.wrapper.ffs as u64);
    // Device totals as nextpnr reports them for the LFE5U-85F.
    assert_eq!(r.resource("LUT4").unwrap().available, Some(83_640));
    assert_eq!(r.resource("FF").unwrap().available, Some(83_640));
    assert_eq!(r.resource("DP16KD").unwrap().available, Some(208));
    assert_eq!(r.resource("MULT18X18D").unwrap().available, Some(156));
    // One clock, with an Fmax, and a register-to-register critical path inside the unit.
    assert_eq!(r.clocks.len(), 1, "{:?}", r.clocks);
    assert!(r.clocks[0].fmax_mhz > 10.0, "{:?}", r.clocks);
    let p = r.critical_path.as_ref().expect("a critical path");
    assert!(p.delay_ns > 0.0 && (p.logic_ns + p.routing_ns - p.delay_ns).abs() < 1e-6);
    assert!(
        p.units.iter().any(|u| u.starts_with("scheduler")),
        "the critical path crosses the scheduler: {:?}",
        p.units
    );
    assert!(
        (1000.0 / p.delay_ns - r.clocks[0].fmax_mhz).abs() / r.clocks[0].fmax_mhz < 0.05,
        "Fmax {} MHz is 1 / the critical path's {} ns",
        r.clocks[0].fmax_mhz,
        p.delay_ns
    );
    assert_eq!(r.steps.len(), 2);
    assert!(r
        .steps
        .iter()
        .all(|s| s.peak_rss_mb > 10.0 && s.wall_s > 0.0));
    // The JSON beside the outputs is the report.
    let json: synth::SynthReport =
        serde_json::from_str(&std::fs::read_to_string(&first.json).unwrap()).unwrap();
    assert_eq!(&json, r);
    assert!(dir.path().join("run/nextpnr.log").is_file());
    assert!(dir.path().join("run/flow.sh").is_file());

    // The same run again: from the cache, at once, the same report.
    let t1 = Instant::now();
    let again = synth::run(&design, &f, &|_| {}).unwrap();
    assert!(again.cached);
    assert!(t1.elapsed() < Duration::from_secs(10));
    assert_eq!(&again.report, r);
    assert!(synth::table(&again.report, true).contains("(cached"));

    // With an empty cache but the same run directory, the tools' outputs there are read again
    // (a changed report layout needs no new place and route): the same measured steps.
    let fresh = Flow {
        cache_dir: Some(dir.path().join("cache2")),
        ..f.clone()
    };
    let t2 = Instant::now();
    let reread = synth::run(&design, &fresh, &|_| {}).unwrap();
    assert!(!reread.cached);
    assert!(t2.elapsed() < Duration::from_secs(10));
    assert_eq!(reread.report.steps, r.steps);
    assert_eq!(reread.report.resources, r.resources);
    assert_eq!(reread.report.critical_path, r.critical_path);
    // With the cache off, the tools run again (new measurements).
    let off = Flow {
        cache_dir: None,
        ..f.clone()
    };
    let rerun = synth::run(&design, &off, &|_| {}).unwrap();
    assert!(!rerun.cached);
    assert_ne!(rerun.report.steps, r.steps);
    assert_eq!(
        rerun.report.resources, r.resources,
        "the flow is deterministic"
    );
}

#[test]
fn the_cache_key_follows_seed_clock_verilog_and_tool_versions() {
    let dir = tempfile::tempdir().unwrap();
    let design = scheduler();
    let tools: std::collections::BTreeMap<String, String> = [
        ("yosys".to_string(), "Yosys 0.23".to_string()),
        ("nextpnr-ecp5".to_string(), "nextpnr-0.11.1".to_string()),
    ]
    .into();
    let f = flow(dir.path(), dir.path(), false, 1);
    let key = |d: &Design, f: &Flow, t: &std::collections::BTreeMap<String, String>| {
        synth::cache_key(d, f, t).unwrap().0
    };
    let base = key(&design, &f, &tools);
    assert_eq!(base, key(&design, &f, &tools), "deterministic");
    assert_ne!(
        base,
        key(&design, &flow(dir.path(), dir.path(), false, 2), &tools)
    );
    assert_ne!(
        base,
        key(
            &design,
            &Flow {
                freq_mhz: 50.0,
                ..f.clone()
            },
            &tools
        )
    );
    assert_ne!(
        base,
        key(
            &design,
            &Flow {
                router: Router::Router2,
                ..f.clone()
            },
            &tools
        ),
        "the router is in the key"
    );
    assert_ne!(
        base,
        key(
            &design,
            &Flow {
                placer: Placer::Heap,
                ..f.clone()
            },
            &tools
        ),
        "the placer is in the key"
    );
    assert_ne!(
        base,
        key(&design, &flow(dir.path(), dir.path(), true, 1), &tools)
    );
    let mut newer = tools.clone();
    newer.insert("yosys".into(), "Yosys 0.40".into());
    assert_ne!(base, key(&design, &f, &newer));
    let edited = Design {
        verilog: design
            .verilog
            .replacen("endmodule", "// edited\nendmodule", 1),
        ..design.clone()
    };
    assert_ne!(base, key(&edited, &f, &tools));
    let text = synth::cache_key(&design, &f, &tools).unwrap().1;
    for field in [
        "generator",
        "verilog",
        "wrapper",
        "tool yosys",
        "tool nextpnr-ecp5",
        "seed 1",
    ] {
        assert!(text.contains(field), "{field} in {text}");
    }
    // A design without outputs is refused before any tool runs.
    let e = synth::cache_key(
        &Design {
            verilog: "module scheduler(clock); input wire clock; endmodule".into(),
            reset: None,
            ..design.clone()
        },
        &f,
        &tools,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("has no outputs"), "{e}");
}

/// `--estimate` of module `top` (clock `clock`, reset `reset`) in `verilog`, run in `dir`.
fn estimate_of(top: &str, verilog: &str, dir: &Path) -> synth::Outcome {
    let design = Design {
        label: top.into(),
        id: top.into(),
        verilog: verilog.into(),
        top: top.into(),
        clock: "clock".into(),
        reset: Some("reset".into()),
    };
    synth::run(
        &design,
        &flow(&dir.join("run"), &dir.join("cache"), true, 1),
        &|_| {},
    )
    .unwrap_or_else(|e| panic!("{e:#}"))
}

#[test]
fn the_estimate_counts_luts_flip_flops_memories_and_multipliers() {
    let dir = tempfile::tempdir().unwrap();
    // A design with a memory and a multiplier, wrapped like the GPU.
    let v = "module est(clock, reset, a, we, q, p);\n\
        input wire clock; input wire reset; input wire [15:0] a; input wire we;\n\
        output reg [15:0] q; output reg [31:0] p;\n\
        reg [15:0] m [0:63];\n\
        always @(posedge clock) begin if (we) m[a[5:0]] <= a; q <= m[a[11:6]]; p <= reset ? 32'h0 : a * q; end\n\
        endmodule\n";
    let out = estimate_of("est", v, dir.path());
    let r = &out.report;
    eprint!("{}", synth::table(r, false));
    assert!(r.estimate && r.fit == Fit::NotPlaced && r.clocks.is_empty());
    let used = |n: &str| r.resource(n).unwrap().used;
    assert_eq!(used("memories"), 1);
    assert!(r
        .resource("memories")
        .unwrap()
        .note
        .starts_with("1,024 bits"));
    assert_eq!(used("multipliers"), 1);
    // p (32) + the wrapper's flip-flops; `q` became the memory's registered read port and the
    // memory is not counted as flip-flops.
    assert_eq!(used("FF"), 32 + r.wrapper.ffs as u64);
    assert!(used("LUT4") > r.wrapper.luts_approx as u64);
    assert!(synth::table(r, false).contains("estimate"));
    assert!(out.json.ends_with("estimate.json"));
}

/// The SM's operand copies (hdl/src/dispatch_register.rs) are identical registers, one per
/// unit; both scripts keep them apart where `opt_merge` would make one of them. A design shaped
/// like the SM's: an instance `dreg` holding two copies `alu_data` and `mul_data` of one input
/// (merged, they would be 8 flip-flops, and the wrapper's XOR registers of `a` and `b` would
/// merge too).
#[test]
fn the_operand_copies_survive_synthesis_as_separate_flip_flops() {
    let dir = tempfile::tempdir().unwrap();
    let v = "module copy(clock, d$0, q$0);\n\
        input wire clock; input wire [7:0] d$0; output reg [7:0] q$0;\n\
        always @(posedge clock) q$0 <= d$0;\nendmodule\n\
        module pair(clock, d, a, b);\n\
        input wire clock; input wire [7:0] d; output wire [7:0] a; output wire [7:0] b;\n\
        copy alu_data(.clock(clock), .d$0(d), .q$0(a));\n\
        copy mul_data(.clock(clock), .d$0(d), .q$0(b));\nendmodule\n\
        module copies(clock, reset, d, a, b);\n\
        input wire clock; input wire reset; input wire [7:0] d;\n\
        output wire [7:0] a; output wire [7:0] b;\n\
        pair dreg(.clock(clock), .d(reset ? 8'h0 : d), .a(a), .b(b));\nendmodule\n";
    let out = estimate_of("copies", v, dir.path());
    let r = &out.report;
    // The two copies and the wrapper's.
    assert_eq!(
        r.resource("FF").unwrap().used,
        16 + r.wrapper.ffs as u64,
        "{}",
        synth::table(r, false)
    );
}

/// The whole GPU of `tiny` through the command line (10–40 minutes, ~1 GB).
#[test]
#[ignore]
fn tiny_places_and_routes_on_the_ecp5_85f() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args([
            "synth",
            "--config",
            "tiny",
            "--target",
            "ecp5-85f",
            "--no-cache",
            "-o",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success());
    let r: synth::SynthReport =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(r.fit, Fit::Fits);
    let lut4 = r.resource("LUT4").unwrap().used;
    assert!((5_000..83_640).contains(&lut4), "LUT4 {lut4}");
    assert!(r.resource("DP16KD").unwrap().used > 0);
    assert!(r.clocks[0].fmax_mhz > 1.0);
    let p = r.critical_path.as_ref().unwrap();
    assert!(p.units.iter().any(|u| u.starts_with("sm")), "{:?}", p.units);
    assert!(stdout.contains("Fmax"));
}
