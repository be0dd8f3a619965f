//! `warpforge sweep`: the `--vary` and `--shard` options and their errors, the cartesian
//! product and its shards, the outputs (CSV, JSON, table, plots) of placed points including
//! one that does not fit, and a real sweep of two points of `tiny` with the yosys estimate and
//! `vecadd` in lock-step co-simulation: interrupted by a kill after its first point, resumed
//! without redoing it, its outputs combined across shards, and rerun from scratch when a flow
//! option changes. Needs yosys and Verilator (the real sweep, about a minute and a half on two
//! idle cores).

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use warpforge::sweep::plan::{self, Shard, Vary};
use warpforge::sweep::{
    output, KernelResult, Param, PointResult, ResourceUse, Summary, SynthSummary,
};
use warpforge_config::{GpuConfig, SchedulerPolicy};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn sweep_cmd(args: &[&str], dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_warpforge"));
    c.arg("sweep")
        .args(args)
        .arg("-o")
        .arg(dir.join("out"))
        .env("WARPFORGE_SYNTH_CACHE", dir.join("synth-cache"))
        .current_dir(workspace());
    c
}

fn sweep(args: &[&str], dir: &Path) -> Output {
    sweep_cmd(args, dir).output().expect("warpforge runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn vary(s: &str) -> Vary {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e:#}"))
}

fn err<T: std::fmt::Debug>(r: anyhow::Result<T>) -> String {
    format!("{:#}", r.expect_err("an error"))
}

#[test]
fn vary_lists_parse_and_errors_name_the_field_and_the_fix() {
    assert_eq!(
        vary("lanes=4, 8,16"),
        Vary {
            field: "lanes".into(),
            values: vec!["4".into(), "8".into(), "16".into()]
        }
    );
    for (bad, says) in [
        ("lanes", "expected FIELD=V1,V2"),
        ("=4,8", "field name is missing"),
        ("lanes=4,,8", "empty value"),
        ("lanes=", "empty value"),
        ("lanes=4,8,", "empty value"),
    ] {
        let e = err(bad.parse::<Vary>());
        assert!(e.contains(&format!("--vary {bad}")), "{bad}: {e}");
        assert!(
            e.contains(says) && e.contains("--vary lanes=4,8,16"),
            "{bad}: {e}"
        );
    }

    let tiny = GpuConfig::tiny();
    let axes = plan::axes(&tiny, &[vary("lanes=2,4"), vary("scheduler=lrr,two-level")]).unwrap();
    assert_eq!(
        axes[0].values,
        vec![toml::Value::Integer(2), toml::Value::Integer(4)]
    );
    assert_eq!(axes[1].labels, vec!["lrr", "two-level"]);
    for (vs, says) in [
        (
            vec!["lanez=4"],
            vec![
                "unknown configuration field `lanez`",
                "did you mean `lanes`",
                "rf_banks",
            ],
        ),
        (
            vec!["lanes=4,eight"],
            vec!["--vary lanes=4,eight", "`eight` is not a whole number"],
        ),
        (vec!["lanes=4,04"], vec!["`04` is listed twice"]),
        (
            vec!["lanes=4", "lanes=8"],
            vec!["--vary lanes is given twice", "one list"],
        ),
        (
            vec!["scheduler=fifo"],
            vec!["`fifo` is not a value of `scheduler`", "two-level"],
        ),
        (vec!["warps=-1"], vec!["`-1` is not a value of `warps`"]),
        (vec!["name=x"], vec!["`name` is the configuration's label"]),
    ] {
        let v: Vec<Vary> = vs.iter().map(|s| vary(s)).collect();
        let e = err(plan::axes(&tiny, &v));
        for s in says {
            assert!(e.contains(s), "{vs:?}: `{s}` not in: {e}");
        }
    }
}

#[test]
fn the_product_is_cartesian_in_vary_order_and_every_point_is_validated_whole() {
    let tiny = GpuConfig::tiny();
    let axes = plan::axes(&tiny, &[vary("lanes=2,4"), vary("collectors=1,2,3")]).unwrap();
    let pts = plan::points(&tiny, &axes);
    assert_eq!(plan::product_len(&axes), 6);
    let ids: Vec<&str> = pts.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "lanes=2,collectors=1",
            "lanes=2,collectors=2",
            "lanes=2,collectors=3",
            "lanes=4,collectors=1",
            "lanes=4,collectors=2",
            "lanes=4,collectors=3"
        ]
    );
    for (i, p) in pts.iter().enumerate() {
        assert_eq!(p.index, i);
        let c = p.config.as_ref().unwrap();
        assert_eq!(c.lanes, [2, 4][i / 3]);
        assert_eq!(c.collectors, [1, 2, 3][i % 3]);
        // Everything else is the base's.
        assert_eq!(
            (c.warps, c.rf_banks, &c.name),
            (tiny.warps, tiny.rf_banks, &tiny.name)
        );
        assert_eq!(p.params[0], ("lanes".to_string(), c.lanes.to_string()));
    }

    // A point is checked with all its fields set: `two_level_active = 8` is only valid once
    // `warps = 8` is set too (tiny has 4 warps), whatever the order of the lists.
    let axes = plan::axes(
        &tiny,
        &[
            vary("two_level_active=2,8"),
            vary("scheduler=two-level"),
            vary("warps=4,8"),
        ],
    )
    .unwrap();
    let pts = plan::points(&tiny, &axes);
    let valid: Vec<(&str, bool)> = pts
        .iter()
        .map(|p| (p.id.as_str(), p.config.is_ok()))
        .collect();
    assert_eq!(
        valid,
        [
            ("two_level_active=2,scheduler=two-level,warps=4", true),
            ("two_level_active=2,scheduler=two-level,warps=8", true),
            ("two_level_active=8,scheduler=two-level,warps=4", false),
            ("two_level_active=8,scheduler=two-level,warps=8", true),
        ]
    );
    let e = pts[2].config.as_ref().unwrap_err();
    assert!(
        e.contains("`two_level_active` = 8") && e.contains("`warps` (4)"),
        "{e}"
    );
    assert_eq!(
        pts[3].config.as_ref().unwrap().scheduler,
        SchedulerPolicy::TwoLevel
    );
}

#[test]
fn shards_parse_and_partition_the_points() {
    assert_eq!("2/3".parse::<Shard>().unwrap(), Shard { k: 2, n: 3 });
    for (bad, says) in [
        ("0/2", "K must be between 1 and N = 2"),
        ("3/2", "K must be between 1 and N = 2"),
        ("1/0", "N must be at least 1"),
        ("2", "expected K/N"),
        ("a/2", "K `a` is not a whole number"),
        ("1/x", "N `x` is not a whole number"),
        ("-1/2", "not a whole number"),
    ] {
        let e = err(bad.parse::<Shard>());
        assert!(
            e.contains(&format!("--shard {bad}")) && e.contains(says),
            "{bad}: {e}"
        );
        assert!(e.contains("--shard 1/4"), "{bad}: the fix is shown: {e}");
    }
    for n in 1..=5 {
        let mut owner = [0usize; 23];
        for k in 1..=n {
            let s = Shard { k, n };
            for (i, o) in owner.iter_mut().enumerate() {
                if s.contains(i) {
                    assert_eq!(*o, 0, "point {i} in two shards of {n}");
                    *o = k;
                    assert_eq!(i % n, k - 1);
                }
            }
        }
        assert!(
            owner.iter().all(|&k| k > 0),
            "every point in a shard of {n}"
        );
    }
}

#[test]
fn bad_options_stop_before_any_work_naming_the_flag_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["--config", "tiny"],
            &["give at least one --vary", "--vary lanes=4,8,16"],
        ),
        (
            &["--config", "tiny", "--vary", "lanez=4"],
            &["unknown configuration field `lanez`"],
        ),
        (
            &["--config", "tiny", "--vary", "lanes=4", "--shard", "3/2"],
            &["--shard 3/2"],
        ),
        (
            &[
                "--config", "tiny", "--vary", "lanes=4", "--kernel", "nosuch",
            ],
            &["--kernel nosuch", "vecadd", "--kernel none"],
        ),
        (
            &["--config", "tiny", "--vary", "lanes=4", "--mem", "slow"],
            &["--mem slow"],
        ),
        (
            &["--config", "tiny", "--vary", "lanes=4", "--jobs", "0"],
            &["--jobs 0"],
        ),
        (
            &["--config", "tiny", "--vary", "lanes=4", "--freq", "0"],
            &["--freq 0", "MHz"],
        ),
        (
            &["--config", "tiny", "--vary", "lanes=4", "--target", "ice40"],
            &["--target ice40", "ecp5-85f"],
        ),
        // Every invalid point listed, with the rule and the two ways out.
        (
            &["--config", "tiny", "--vary", "lanes=3,4,6"],
            &[
                "2 of the 3 points are not valid",
                "lanes=3: invalid configuration: `lanes` = 3",
                "lanes=6:",
                "--skip-invalid",
            ],
        ),
        // A configuration the RTL generator refuses (the divider needs 34 cycles or more).
        (
            &[
                "--config",
                "tiny",
                "--vary",
                "div_latency=4,34",
                "--kernel",
                "none",
            ],
            &[
                "RTL of 1 point cannot be generated",
                "div_latency=4",
                "must be between 34 and 1057",
                "--skip-invalid",
            ],
        ),
    ];
    for (args, says) in cases {
        let t0 = Instant::now();
        let o = sweep(args, dir.path());
        let e = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        for s in *says {
            assert!(e.contains(s), "{args:?}: `{s}` not in: {e}");
        }
        assert!(
            !dir.path().join("out").exists(),
            "{args:?}: nothing is written"
        );
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "{args:?}: before any long work"
        );
    }
    // A missing tool is named with its setup command before any work.
    let o = sweep_cmd(
        &["--config", "tiny", "--vary", "lanes=4", "--estimate"],
        dir.path(),
    )
    .env("WARPFORGE_YOSYS", "/nonexistent/yosys")
    .output()
    .unwrap();
    let e = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("/nonexistent/yosys") && e.contains("scripts/setup.sh --yosys"),
        "{e}"
    );
    assert!(!dir.path().join("out").exists());
}

/// A placed point of the ECP5-85F as the sweep keeps it.
fn placed(index: usize, lanes: u32, lut4: u64, fmax: Option<f64>, cycles: u64) -> PointResult {
    let res = |name: &str, used: u64, available: u64| ResourceUse {
        name: name.into(),
        used,
        available: Some(available),
        percent: Some(100.0 * used as f64 / available as f64),
        note: String::new(),
    };
    let fits = fmax.is_some();
    let overflow = (!fits).then(|| {
        format!(
            "needs {lut4} LUT4 of 83640: {:.0} %",
            100.0 * lut4 as f64 / 83640.0
        )
    });
    let mut p = PointResult {
        schema: warpforge::sweep::SCHEMA,
        index,
        id: format!("lanes={lanes},collectors=2"),
        params: vec![
            Param {
                field: "lanes".into(),
                value: lanes.to_string(),
            },
            Param {
                field: "collectors".into(),
                value: "2".into(),
            },
        ],
        config_hash: format!("{index:016x}"),
        sms: 2,
        lanes,
        synth: SynthSummary {
            mode: "place-and-route".into(),
            estimate: false,
            fit: if fits { "fits" } else { "does not fit" }.into(),
            overflow,
            overflows: Vec::new(),
            resources: vec![
                res("LUT4", lut4, 83_640),
                res("CCU2C", lut4 / 12, 41_820),
                res("FF", lut4 / 2, 83_640),
                res("LUT-RAM", 256, 10_455),
                res("DP16KD", 20, 208),
                res("MULT18X18D", 18, 156),
            ],
            fmax_mhz: fmax,
            freq_target_mhz: 100.0,
            fmax_met: fmax.map(|f| f >= 100.0),
            critical_path_ns: fmax.map(|f| 1000.0 / f),
            critical_path_units: vec!["sm$0.oc".into()],
            tool_seconds: BTreeMap::from([("yosys".into(), 120.0), ("nextpnr".into(), 480.0)]),
            tool_cpu_seconds: 590.0,
            peak_rss_mb: 900.0,
            cached: false,
            cache_key: "k".into(),
            verilog_sha256: "v".into(),
            tools: BTreeMap::new(),
            report: "report.json".into(),
        },
        kernel: Some(KernelResult {
            kernel: "vecadd".into(),
            case: "grid=3 block=13 n=37".into(),
            config: String::new(),
            mem: "zero".into(),
            result: "pass".into(),
            cycles: Some(cycles),
            ipc: Some(0.5),
            ipc_per_sm: Some(0.25),
            issued: Some(cycles / 2),
            idle: Some(1),
            bank_conflicts: Some(0),
            sim_seconds: Some(0.01),
            repro: String::new(),
            details: String::new(),
        }),
        time_us: None,
        luts_per_lane: None,
        elapsed_s: 600.0,
        finished_unix: 0,
        key: format!("key{index}"),
        key_text: String::new(),
    };
    p.derive();
    p
}

#[test]
fn outputs_of_placed_points_derive_time_and_keep_a_point_that_does_not_fit() {
    let points = vec![
        placed(0, 4, 30_000, Some(40.0), 800),
        placed(1, 8, 52_000, Some(32.5), 650),
        placed(2, 16, 120_000, None, 500),
    ];
    // time = cycles / Fmax (µs); LUT4 per lane = LUT4 / (SMs x lanes).
    assert_eq!(points[0].time_us, Some(20.0));
    assert_eq!(points[1].time_us, Some(20.0));
    assert_eq!(points[2].time_us, None);
    assert_eq!(points[0].luts_per_lane, Some(30_000.0 / 8.0));
    let s = Summary {
        schema: warpforge::sweep::SCHEMA,
        config: "small".into(),
        base_name: "small".into(),
        base_hash: "0".into(),
        vary: vec![
            ("lanes".into(), vec!["4".into(), "8".into(), "16".into()]),
            ("collectors".into(), vec!["2".into()]),
        ],
        target: "ecp5-85f".into(),
        device: "Lattice ECP5-85F".into(),
        mode: "place-and-route".into(),
        estimate: false,
        seed: 1,
        freq_target_mhz: 100.0,
        kernel: Some("vecadd (grid=3 block=13 n=37) on memory zero".into()),
        points_total: 3,
        finished: 3,
        missing: Vec::new(),
        skipped: Vec::new(),
        errors: Vec::new(),
        points,
    };
    // Kept under target/tmp to be looked at.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sweep-placed");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (files, note) = output::write_all(&dir, &s).unwrap();
    assert_eq!(note, None, "a font is installed here");

    let csv = std::fs::read_to_string(dir.join("sweep.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 4, "{csv}");
    let head: Vec<&str> = lines[0].split(',').collect();
    for col in [
        "index",
        "id",
        "lanes",
        "collectors",
        "fit",
        "LUT4",
        "LUT4_pct",
        "CCU2C",
        "CCU2C_pct",
        "FF",
        "LUT-RAM",
        "DP16KD",
        "DP16KD_pct",
        "MULT18X18D",
        "fmax_mhz",
        "cycles",
        "ipc",
        "time_us",
        "luts_per_lane",
        "yosys_s",
        "nextpnr_s",
        "overflow",
    ] {
        assert!(head.contains(&col), "no column {col}: {}", lines[0]);
    }
    let cell = |row: usize, col: &str| -> String {
        // The id is quoted (it has commas): split after it.
        let line = lines[row];
        let (first, rest) = line.split_once("\",").unwrap();
        let mut cells: Vec<String> = first.split(",\"").map(String::from).collect();
        cells.extend(rest.split(',').map(String::from));
        cells[head.iter().position(|h| *h == col).unwrap()].clone()
    };
    assert_eq!(cell(1, "id"), "lanes=4,collectors=2");
    assert_eq!(cell(1, "LUT4"), "30000");
    assert_eq!(cell(1, "LUT4_pct"), "35.87");
    assert_eq!(cell(1, "fmax_mhz"), "40.00");
    assert_eq!(cell(1, "time_us"), "20.000");
    assert_eq!(cell(1, "luts_per_lane"), "3750.0");
    assert_eq!(cell(1, "fit"), "fits");
    assert_eq!(cell(3, "fit"), "does not fit");
    assert_eq!(cell(3, "fmax_mhz"), "");
    assert_eq!(cell(3, "time_us"), "");
    assert_eq!(cell(3, "cycles"), "500");
    assert!(
        lines[3].contains("needs 120000 LUT4 of 83640: 143 %"),
        "{}",
        lines[3]
    );

    let back: Summary =
        serde_json::from_str(&std::fs::read_to_string(dir.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(back, s);

    let t = output::table(&s);
    assert!(
        t.contains("Fmax MHz") && t.contains("time us") && t.contains("no fit"),
        "{t}"
    );
    assert!(
        t.contains("lanes=16,collectors=2 does not fit: needs 120000 LUT4"),
        "{t}"
    );
    assert!(t.contains("3 of 3 points finished"), "{t}");

    for name in ["lut4-fmax", "resources", "luts-per-lane"] {
        let png = dir.join(format!("{name}.png"));
        let svg = dir.join(format!("{name}.svg"));
        assert!(files.contains(&png) && files.contains(&svg), "{files:?}");
        let bytes = std::fs::read(&png).unwrap();
        assert!(
            bytes.starts_with(b"\x89PNG") && bytes.len() > 10_000,
            "{name}.png"
        );
        let svg = std::fs::read_to_string(&svg).unwrap();
        assert!(svg.contains("<svg") && svg.contains("<text"), "{name}.svg");
    }
    let svg = std::fs::read_to_string(dir.join("lut4-fmax.svg")).unwrap();
    assert!(svg.contains("LUT4 against Fmax"), "the title");
    assert!(
        svg.contains("lanes=4,collectors=2") && svg.contains("lanes=8,collectors=2"),
        "every placed point is labelled"
    );
    assert!(
        svg.contains("1 not placed (do not fit): not shown"),
        "the title says what is missing"
    );
    let svg = std::fs::read_to_string(dir.join("resources.svg")).unwrap();
    for t in [
        "LUT4 vs lanes",
        "DP16KD vs collectors",
        "MULT18X18D vs lanes",
    ] {
        assert!(svg.contains(t), "resources.svg has no panel `{t}`");
    }
}

fn point_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join("out/points"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| {
                    p.extension().is_some_and(|x| x == "json")
                        && !p.file_name().unwrap().to_string_lossy().starts_with('.')
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn kill_group(child: &std::process::Child) {
    // The sweep and the tools it started (yosys, the Verilator build) are one process group:
    // the child's own, made for it below.
    // SAFETY: kill(2) with the negated id of the process group this test created.
    unsafe {
        libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL);
    }
}

/// The real sweep: `tiny` cut down so that the yosys estimate takes half a minute (one warp of
/// two lanes, the smallest stacks and buffers) with two values of `collectors`.
#[test]
fn an_estimate_sweep_resumes_after_a_kill_and_its_outputs_combine() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cfg = d.join("tiny-cut.toml");
    std::fs::write(
        &cfg,
        "base = \"tiny\"\nwarps = 1\nlanes = 2\nsimt_stack_depth = 2\nibuffer_depth = 1\n\
         scoreboard_entries = 2\nsmem_bytes = 64\nimem_bytes = 1024\nmul_latency = 1\n",
    )
    .unwrap();
    let cfg = cfg.to_str().unwrap().to_string();
    let args: Vec<&str> = vec![
        "--config",
        &cfg,
        "--vary",
        "collectors=1,2",
        "--estimate",
        "--kernel",
        "vecadd",
    ];

    // 1. Killed once its first point is written.
    let t0 = Instant::now();
    let log = d.join("first-run.log");
    let mut child = sweep_cmd(&args, d)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .process_group(0)
        .spawn()
        .unwrap();
    let first = loop {
        if let Some(st) = child.try_wait().unwrap() {
            panic!(
                "the sweep ended ({st}) before it was killed: {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        if let Some(f) = point_files(d).first() {
            break f.clone();
        }
        assert!(
            t0.elapsed() < Duration::from_secs(600),
            "no point finished in 10 minutes"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    kill_group(&child);
    let status = child.wait().unwrap();
    eprintln!(
        "first point after {:.1} s; killed",
        t0.elapsed().as_secs_f64()
    );
    assert!(!status.success());
    assert_eq!(
        point_files(d),
        vec![first.clone()],
        "killed during the second point"
    );
    assert!(
        !d.join("out/sweep.csv").exists(),
        "the outputs come at the end"
    );
    let first_text = std::fs::read_to_string(&first).unwrap();
    let first_time = std::fs::metadata(&first).unwrap().modified().unwrap();
    let p0: PointResult = serde_json::from_str(&first_text).unwrap();
    assert_eq!(
        p0.id, "collectors=1",
        "the points run in order with --jobs 1"
    );

    // 2. Rerun: the finished point is read, the other one run.
    let t1 = Instant::now();
    let o = sweep(&args, d);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    eprintln!("rerun: {:.1} s\n{out}", t1.elapsed().as_secs_f64());
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("1 cached, 1 to run"), "{out}");
    assert_eq!(
        err.matches("sweep: done ").count(),
        1,
        "one point ran: {err}"
    );
    assert!(err.contains("sweep: done collectors=2:"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&first).unwrap(),
        first_text,
        "not rewritten"
    );
    assert_eq!(
        std::fs::metadata(&first).unwrap().modified().unwrap(),
        first_time
    );
    assert_eq!(point_files(d).len(), 2);

    // Every point in every output.
    let s: Summary =
        serde_json::from_str(&std::fs::read_to_string(d.join("out/sweep.json")).unwrap()).unwrap();
    assert_eq!((s.points_total, s.finished), (2, 2));
    assert!(s.missing.is_empty() && s.errors.is_empty() && s.estimate);
    assert_eq!(
        s.vary,
        vec![(
            "collectors".to_string(),
            vec!["1".to_string(), "2".to_string()]
        )]
    );
    for (i, p) in s.points.iter().enumerate() {
        assert_eq!(
            (p.index, p.id.as_str()),
            (i, ["collectors=1", "collectors=2"][i])
        );
        assert_eq!(p.params[0].value, ["1", "2"][i]);
        assert_eq!(p.synth.fit, "not placed");
        assert_eq!(p.synth.fmax_mhz, None);
        assert!(p.synth.tool_seconds["yosys"] > 0.0);
        let lut4 = p.synth.resource("LUT4").unwrap();
        assert!(lut4.used > 1_000 && lut4.percent.unwrap() > 1.0, "{lut4:?}");
        assert!(p.synth.resource("FF").unwrap().used > 500);
        assert_eq!(p.luts_per_lane, Some(lut4.used as f64 / 2.0));
        let k = p.kernel.as_ref().unwrap();
        assert_eq!(
            (k.kernel.as_str(), k.result.as_str()),
            ("vecadd", "pass"),
            "{}",
            k.details
        );
        assert!(k.cycles.unwrap() > 0 && k.ipc.unwrap() > 0.0, "{k:?}");
        assert_eq!(p.time_us, None, "no Fmax in the estimate");
    }
    assert_eq!(
        s.points[0],
        PointResult { index: 0, ..p0 },
        "the JSON has the point file"
    );
    // The same kernel case on every point, so that their cycles compare.
    assert_eq!(
        s.points[0].kernel.as_ref().unwrap().case,
        s.points[1].kernel.as_ref().unwrap().case
    );

    let csv = std::fs::read_to_string(d.join("out/sweep.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(
        lines[0].starts_with("index,id,collectors,fit,LUT4,LUT4_pct,FF,FF_pct,"),
        "{csv}"
    );
    assert!(
        lines[1].starts_with("0,collectors=1,1,not placed,"),
        "{csv}"
    );
    assert!(
        lines[2].starts_with("1,collectors=2,2,not placed,"),
        "{csv}"
    );
    assert!(lines[1].contains(",vecadd,pass,"), "{csv}");
    assert!(
        out.contains("collectors=1")
            && out.contains("memories")
            && out.contains("2 of 2 points finished"),
        "{out}"
    );
    for name in ["lut4-fmax", "resources", "luts-per-lane"] {
        let png = std::fs::read(d.join(format!("out/{name}.png"))).unwrap();
        assert!(
            png.starts_with(b"\x89PNG") && png.len() > 10_000,
            "{name}.png"
        );
        let svg = std::fs::read_to_string(d.join(format!("out/{name}.svg"))).unwrap();
        assert!(svg.contains("collectors"), "{name}.svg");
    }
    let svg = std::fs::read_to_string(d.join("out/lut4-fmax.svg")).unwrap();
    assert!(
        svg.contains("estimate: no Fmax"),
        "the title says Fmax is missing"
    );

    // 3. One shard of the finished sweep: nothing to run, and its outputs still have the
    // other shard's point.
    let mut shard = args.clone();
    shard.extend(["--shard", "1/2"]);
    let o = sweep(&shard, d);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains("shard 1/2: 1 of the points; 1 cached, 0 to run"),
        "{out}"
    );
    let csv2 = std::fs::read_to_string(d.join("out/sweep.csv")).unwrap();
    assert_eq!(csv2, csv, "the outputs combine every finished point");

    // 4. Another memory model is another kernel run: no point is reused (the synthesis
    // reports come from the synthesis cache, so this is quick).
    let mut long = args.clone();
    long.extend(["--mem", "long"]);
    let o = sweep(&long, d);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}\n{}", text(&o.stderr));
    assert!(
        out.contains("0 cached, 2 to run (2 other point files"),
        "{out}"
    );
    let s: Summary =
        serde_json::from_str(&std::fs::read_to_string(d.join("out/sweep.json")).unwrap()).unwrap();
    for p in &s.points {
        assert!(p.synth.cached, "the synthesis report came from its cache");
        let k = p.kernel.as_ref().unwrap();
        assert_eq!((k.mem.as_str(), k.result.as_str()), ("long", "pass"));
    }
    assert!(
        s.points[0].kernel.as_ref().unwrap().cycles > p0_cycles(&first_text),
        "long-latency memory takes more cycles"
    );
    assert_eq!(point_files(d).len(), 4);
    eprintln!("whole test: {:.1} s", t0.elapsed().as_secs_f64());
}

fn p0_cycles(json: &str) -> Option<u64> {
    serde_json::from_str::<PointResult>(json)
        .unwrap()
        .kernel
        .and_then(|k| k.cycles)
}
