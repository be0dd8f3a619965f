//! End-to-end tests of the run-time Verilator model path.

mod common;

use std::fs;
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use warpforge_testbench::verilator_model::{
    build, BuildError, ModelBuild, PortDir, PortError, TraceError,
};

use common::*;

#[test]
fn counter_matches_reference_model() {
    let mut m = build(&counter_build(false)).expect("build counter_top");
    assert!(!m.verilator_version().is_empty());

    let names: Vec<_> = m
        .ports()
        .iter()
        .map(|p| (p.name.as_str(), p.dir, p.width))
        .collect();
    assert!(names.contains(&("clk", PortDir::Input, 1)));
    assert!(names.contains(&("count", PortDir::Output, 32)));
    assert!(names.contains(&("wide_in", PortDir::Input, 96)));
    assert!(names.contains(&("wide_out", PortDir::Output, 96)));
    assert!(names.contains(&("sum", PortDir::Output, 17)));
    assert!(names.contains(&("q_out", PortDir::Output, 64)));

    let clk = m.port("clk").unwrap();
    let rst = m.port("rst").unwrap();
    let en = m.port("en").unwrap();
    let count = m.port("count").unwrap();
    let wide_in = m.port("wide_in").unwrap();
    let wide_out = m.port("wide_out").unwrap();
    let a = m.port("a").unwrap();
    let b = m.port("b").unwrap();
    let sum = m.port("sum").unwrap();
    let q_in = m.port("q_in").unwrap();
    let q_out = m.port("q_out").unwrap();

    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0001);
    let mut reference = CounterRef::default();

    // Reset first.
    m.set(rst, 1);
    m.tick(clk);
    reference.posedge(true, false);
    assert_eq!(m.get(count), 0);

    let mut out = [0u32; 3];
    for cycle in 0..500 {
        let r = rng.gen_ratio(1, 40);
        let e = rng.gen_bool(0.7);
        let w: [u32; 3] = rng.gen();
        let (av, bv): (u16, u16) = (rng.gen(), rng.gen());
        let q: u64 = rng.gen();

        m.set(rst, u64::from(r));
        m.set(en, u64::from(e));
        m.set_words(wide_in, &w);
        m.set(a, u64::from(av));
        m.set(b, u64::from(bv));
        m.set(q_in, q);
        m.eval();

        // Combinational outputs.
        m.get_words(wide_out, &mut out);
        assert_eq!(out, wide_ref(w), "wide_out, cycle {cycle}");
        assert_eq!(
            m.get(sum),
            u64::from(av) + u64::from(bv),
            "sum, cycle {cycle}"
        );
        assert_eq!(m.get(q_out), !q, "q_out, cycle {cycle}");
        // Low 64 bits of a wide port through the u64 accessor.
        assert_eq!(
            m.get(wide_out),
            u64::from(out[0]) | (u64::from(out[1]) << 32)
        );

        m.tick(clk);
        reference.posedge(r, e);
        assert_eq!(
            m.get(count),
            u64::from(reference.count),
            "count, cycle {cycle}"
        );
    }
    assert!(reference.count > 10, "enable too rare to be a useful test");

    // Name-based convenience API agrees with the handles.
    m.set_input("wide_in", &[1, 2, 3]).unwrap();
    m.eval();
    assert_eq!(
        m.get_output("wide_out").unwrap(),
        wide_ref([1, 2, 3]).to_vec()
    );
    assert_eq!(m.get_output("count").unwrap(), vec![reference.count]);
}

#[test]
fn inputs_are_masked_to_port_width() {
    let mut m = build(&counter_build(false)).unwrap();
    let a = m.port("a").unwrap();
    let b = m.port("b").unwrap();
    let sum = m.port("sum").unwrap();
    let wide_in = m.port("wide_in").unwrap();
    let wide_out = m.port("wide_out").unwrap();
    m.set(a, 0xffff_0001); // upper bits must be dropped
    m.set(b, 1);
    m.set_words(wide_in, &[0, 0, 0, 0xffff]); // extra word ignored
    m.eval();
    assert_eq!(m.get(sum), 2);
    let mut out = [0u32; 4];
    m.get_words(wide_out, &mut out);
    assert_eq!(out, [WIDE_KEY[0], WIDE_KEY[1], WIDE_KEY[2], 0]);
    // A u64 write to a wide port clears the upper words.
    m.set(wide_in, u64::MAX);
    m.eval();
    let mut out = [0u32; 3];
    m.get_words(wide_out, &mut out);
    assert_eq!(out, wide_ref([u32::MAX, u32::MAX, 0]));
}

#[test]
fn instances_are_independent() {
    let mut m1 = build(&counter_build(false)).unwrap();
    let mut m2 = m1.new_instance();
    let clk = m1.port("clk").unwrap();
    let en = m1.port("en").unwrap();
    let count = m1.port("count").unwrap();
    m1.set(en, 1);
    m1.ticks(clk, 7);
    m2.set(en, 1);
    m2.ticks(clk, 3);
    assert_eq!(m1.get(count), 7);
    assert_eq!(m2.get(count), 3);
    assert_eq!(m1.time(), 70);
    assert!(!m1.got_finish());
}

#[test]
fn port_errors() {
    let mut m = build(&counter_build(false)).unwrap();
    assert_eq!(m.port("nope"), Err(PortError::Unknown("nope".into())));
    assert_eq!(
        m.set_input("count", &[1]),
        Err(PortError::NotInput("count".into()))
    );
    assert!(m.get_output("nope").is_err());
}

#[test]
#[should_panic(expected = "port count is an output")]
fn writing_an_output_panics() {
    let mut m = build(&counter_build(false)).unwrap();
    let count = m.port("count").unwrap();
    m.set(count, 1);
}

#[test]
fn second_build_is_cached_and_does_not_recompile() {
    // A variant of the design unique to this run, so that the first build
    // is cold (the Verilator runtime may come from an earlier run).
    let dir = scratch_dir("cache");
    let nonce = nonce();
    let text = fs::read_to_string(rtl("counter_top.v")).unwrap() + &format!("// nonce {nonce}\n");
    let src1 = dir.join("a").join("counter_top.v");
    let src2 = dir.join("b").join("counter_top.v");
    let src3 = dir.join("c").join("renamed.v");
    for s in [&src1, &src2, &src3] {
        fs::create_dir_all(s.parent().unwrap()).unwrap();
        fs::write(s, &text).unwrap();
    }
    let mk = |src: &std::path::Path| ModelBuild {
        top: "counter_top".into(),
        verilog_files: vec![src.to_path_buf()],
        cache_dir: cache_dir(),
        trace: false,
        ..Default::default()
    };

    let t = Instant::now();
    let m1 = build(&mk(&src1)).expect("cold build");
    let cold = t.elapsed();
    let r1 = m1.build_report().clone();
    assert!(!r1.cache_hit);
    let lib = m1.library_path().to_path_buf();
    let mtime = fs::metadata(&lib).unwrap().modified().unwrap();

    // Same text in another directory: must hit the cache.
    let t = Instant::now();
    let m2 = build(&mk(&src2)).expect("cached build");
    let warm = t.elapsed();
    let r2 = m2.build_report().clone();
    assert!(r2.cache_hit, "second build was not a cache hit");
    assert_eq!(m2.library_path(), lib);
    assert_eq!(
        fs::metadata(&lib).unwrap().modified().unwrap(),
        mtime,
        "library was rewritten"
    );
    assert!(
        warm < cold,
        "cached build ({warm:?}) not faster than cold ({cold:?})"
    );
    eprintln!(
        "cold build {cold:?} (verilate {:?}, runtime {:?}{}, model {:?}, link {:?}); cached build {warm:?}",
        r1.verilate,
        r1.runtime_compile,
        if r1.runtime_compiled { " compiled" } else { " cached" },
        r1.model_compile,
        r1.link
    );

    // Same text under another file name: the same model.
    let m4 = build(&mk(&src3)).expect("renamed build");
    assert!(
        m4.build_report().cache_hit,
        "the same Verilog under another file name was rebuilt"
    );
    assert_eq!(m4.library_path(), lib);
    drop(m4);

    // A different option is a different model.
    let mut traced = mk(&src1);
    traced.verilator_args = vec!["-Wno-fatal".into()];
    let m3 = build(&traced).unwrap();
    assert_ne!(m3.library_path(), lib);

    let dirs = [
        lib.parent().unwrap().to_path_buf(),
        m3.library_path().parent().unwrap().to_path_buf(),
    ];
    drop((m1, m2, m3));
    for d in dirs {
        let _ = fs::remove_dir_all(d);
    }
    let _ = fs::remove_dir_all(dir);
}

#[test]
fn vcd_trace_contains_signals() {
    let dir = scratch_dir("vcd");
    let vcd = dir.join("counter.vcd");
    let mut m = build(&counter_build(true)).expect("build with trace");
    assert!(m.has_trace());
    let clk = m.port("clk").unwrap();
    let en = m.port("en").unwrap();
    let wide_in = m.port("wide_in").unwrap();
    m.open_trace(&vcd).expect("open trace");
    assert!(m.is_tracing());
    m.set(en, 1);
    m.set_words(wide_in, &[0x1234_5678, 0, 0]);
    m.ticks(clk, 20);
    m.close_trace();
    assert!(!m.is_tracing());

    let text = fs::read_to_string(&vcd).expect("read vcd");
    for needle in [
        "$enddefinitions",
        "$var",
        " clk ",
        " count ",
        " wide_in ",
        " wide_out ",
        " sum ",
        "#10",
        "#200",
    ] {
        assert!(
            text.contains(needle),
            "VCD lacks {needle:?}:\n{}",
            &text[..text.len().min(2000)]
        );
    }

    // Tracing needs a model built with trace = true.
    let mut plain = build(&counter_build(false)).unwrap();
    assert!(matches!(
        plain.open_trace(dir.join("x.vcd")),
        Err(TraceError::NotEnabled)
    ));
    let _ = fs::remove_dir_all(dir);
}

#[test]
fn verilog_syntax_error_is_reported() {
    let dir = scratch_dir("syntax");
    let src = dir.join("broken.v");
    fs::write(
        &src,
        "module broken(input wire a, output wire y);\n  assign y = a +;\nendmodule\n",
    )
    .unwrap();
    let err = build(&ModelBuild {
        top: "broken".into(),
        verilog_files: vec![src],
        cache_dir: cache_dir(),
        ..Default::default()
    })
    .expect_err("syntax error must fail the build");
    match &err {
        BuildError::Verilate { top, message } => {
            assert_eq!(top, "broken");
            assert!(message.contains("%Error"), "{message}");
            assert!(message.contains("syntax error"), "{message}");
            assert!(message.contains("broken.v:2"), "{message}");
        }
        other => panic!("expected BuildError::Verilate, got {other:?}"),
    }
    assert!(err.to_string().contains("syntax error"));
    let _ = fs::remove_dir_all(dir);
}

#[test]
fn invalid_builds_are_rejected() {
    let e = build(&ModelBuild {
        top: "x y".into(),
        verilog_files: vec![rtl("counter_top.v")],
        cache_dir: cache_dir(),
        ..Default::default()
    })
    .unwrap_err();
    assert!(matches!(e, BuildError::Invalid(_)));
    let e = build(&ModelBuild {
        top: "counter_top".into(),
        verilog_files: vec![rtl("does_not_exist.v")],
        cache_dir: cache_dir(),
        ..Default::default()
    })
    .unwrap_err();
    assert!(matches!(e, BuildError::Io { .. }));
}

#[test]
fn throughput_smoke() {
    let mut m = build(&counter_build(false)).unwrap();
    let clk = m.port("clk").unwrap();
    let en = m.port("en").unwrap();
    let count = m.port("count").unwrap();
    m.set(en, 1);
    let n = 200_000u64;
    let t = Instant::now();
    m.ticks(clk, n);
    let dt = t.elapsed();
    assert_eq!(m.get(count), n);
    eprintln!(
        "counter_top: {:.2} Mcycles/s",
        n as f64 / dt.as_secs_f64() / 1e6
    );
}

#[test]
fn finish_and_stop_do_not_end_the_process() {
    let mut m = build(&ModelBuild {
        top: "finish_top".into(),
        verilog_files: vec![rtl("finish_top.v")],
        cache_dir: cache_dir(),
        ..Default::default()
    })
    .expect("build finish_top");
    let clk = m.port("clk").unwrap();
    let stop_en = m.port("stop_en").unwrap();
    let cnt = m.port("cnt").unwrap();

    // A second instance, created first, must not receive the first one's
    // $finish (Verilator's runtime uses the thread's context).
    let mut other = m.new_instance();
    m.ticks(clk, 5);
    assert!(!m.got_finish());
    m.tick(clk);
    assert!(m.got_finish(), "no $finish after 6 cycles");
    assert!(!m.got_error());
    // Verilator's default runtime calls exit(0) on a second $finish.
    m.ticks(clk, 300);
    assert_eq!(m.get(cnt), 306 % 256);
    assert!(!other.got_finish());

    other.set(stop_en, 1);
    other.ticks(clk, 3);
    assert!(other.got_error(), "$stop not recorded");
    assert!(other.got_finish());
    other.ticks(clk, 2);
    assert_eq!(other.get(cnt), 5);
}

#[test]
fn design_time_follows_tick() {
    let mut m = build(&ModelBuild {
        top: "time_top".into(),
        verilog_files: vec![rtl("time_top.v")],
        cache_dir: cache_dir(),
        ..Default::default()
    })
    .expect("build time_top");
    let clk = m.port("clk").unwrap();
    let t = m.port("t").unwrap();
    m.ticks(clk, 3);
    // Third rising edge at 2 * (2 * HALF_PERIOD) + HALF_PERIOD.
    assert_eq!(m.get(t), 25);
    assert_eq!(m.time(), 30);
    m.set_time(1000);
    m.tick(clk);
    assert_eq!(m.get(t), 1005);
}

/// Builds a design unique to this call in the shared cache and prints whether the Verilator
/// runtime had to be compiled. Run as a child process by
/// `runtime_cache_ignores_unrelated_environment`.
#[test]
#[ignore = "helper of runtime_cache_ignores_unrelated_environment"]
fn child_build_reports_runtime() {
    let dir = scratch_dir("child");
    let nonce = std::env::var("WARPFORGE_TEST_NONCE").unwrap_or_default();
    let src = dir.join("counter_top.v");
    let text = fs::read_to_string(rtl("counter_top.v")).unwrap() + &format!("// child {nonce}\n");
    fs::write(&src, text).unwrap();
    let m = build(&ModelBuild {
        top: "counter_top".into(),
        verilog_files: vec![src],
        cache_dir: cache_dir(),
        ..Default::default()
    })
    .expect("child build");
    println!("RUNTIME_COMPILED={}", m.build_report().runtime_compiled);
    let model_dir = m.library_path().parent().unwrap().to_path_buf();
    drop(m);
    let _ = fs::remove_dir_all(model_dir);
    let _ = fs::remove_dir_all(dir);
}

#[test]
fn runtime_cache_ignores_unrelated_environment() {
    // The runtime of this cache exists once any model has been built.
    drop(build(&counter_build(false)).unwrap());
    let nonce = nonce();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_build_reports_runtime",
            "--ignored",
            "--nocapture",
        ])
        .env("WARPFORGE_TEST_NONCE", &nonce)
        .env("WARPFORGE_SOME_UNRELATED_VARIABLE", &nonce)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "child failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("RUNTIME_COMPILED=false"),
        "an unrelated environment variable rebuilt the Verilator runtime: {stdout}"
    );
}

/// A string unique to this call (process id and time), to make a design no cache has seen.
fn nonce() -> String {
    format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}
