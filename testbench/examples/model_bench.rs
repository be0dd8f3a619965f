//! Measures build times and simulation speed of the test design.
//!
//! ```text
//! cargo run -p warpforge-testbench --release --example model_bench [cache_dir]
//! ```
//!
//! Without `cache_dir` a fresh temporary cache is used, so the first build
//! also compiles the Verilator runtime (fully cold).

use std::path::PathBuf;
use std::time::Instant;

use warpforge_testbench::verilator_model::{build, BuildReport, ModelBuild};

fn show(what: &str, r: &BuildReport) {
    println!(
        "{what:<34} total {:>9.3?}  cache_hit={} verilate {:.3?} runtime {:.3?}{} model {:.3?} link {:.3?}",
        r.total,
        r.cache_hit,
        r.verilate,
        r.runtime_compile,
        if r.runtime_compiled { " (compiled)" } else { "" },
        r.model_compile,
        r.link
    );
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rtl = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/rtl/counter_top.v");
    let (cache_dir, temporary) = match std::env::args().nth(1) {
        Some(d) => (PathBuf::from(d), false),
        None => (
            std::env::temp_dir().join(format!("wf-model-bench-{}", std::process::id())),
            true,
        ),
    };
    let text = std::fs::read_to_string(&rtl)?;
    let src_dir = cache_dir.join("src");
    std::fs::create_dir_all(&src_dir)?;

    let variant = |n: u32| -> Result<ModelBuild, std::io::Error> {
        let p = src_dir.join(format!("v{n}")).join("counter_top.v");
        std::fs::create_dir_all(p.parent().unwrap())?;
        // With a temporary cache, make the variants unique to this process;
        // with a given cache dir, a second run hits the cache.
        let tag = if temporary { std::process::id() } else { 0 };
        std::fs::write(&p, format!("{text}// variant {n} {tag}\n"))?;
        Ok(ModelBuild {
            top: "counter_top".into(),
            verilog_files: vec![p],
            cache_dir: cache_dir.clone(),
            trace: false,
            ..Default::default()
        })
    };

    let m = build(&variant(0)?)?;
    show("first build in this cache", m.build_report());
    let m1 = build(&variant(1)?)?;
    show("new model, runtime cached", m1.build_report());
    let m2 = build(&variant(1)?)?;
    show("same model again (cached)", m2.build_report());
    drop((m1, m2));

    let mut m = m;
    let clk = m.port("clk")?;
    let en = m.port("en")?;
    let count = m.port("count")?;
    m.set(en, 1);
    m.ticks(clk, 1000);

    let n = 20_000_000u64;
    let t = Instant::now();
    m.ticks(clk, n);
    let dt = t.elapsed();
    assert_eq!(m.get(count), n + 1000);
    println!(
        "tick() only:                        {:.1} Mcycles/s ({:.1} ns/cycle, 2 evals/cycle)",
        n as f64 / dt.as_secs_f64() / 1e6,
        dt.as_nanos() as f64 / n as f64
    );

    // Per cycle: drive every input (incl. the 96-bit one), read every output.
    let rst = m.port("rst")?;
    let wide_in = m.port("wide_in")?;
    let wide_out = m.port("wide_out")?;
    let a = m.port("a")?;
    let b = m.port("b")?;
    let sum = m.port("sum")?;
    let q_in = m.port("q_in")?;
    let q_out = m.port("q_out")?;
    let mut x = 0x1234_5678_9abc_def0u64;
    let mut acc = 0u64;
    let mut w = [0u32; 3];
    let n = 10_000_000u64;
    let t = Instant::now();
    for _ in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        m.set(rst, 0);
        m.set(en, x & 1);
        m.set_words(wide_in, &[x as u32, (x >> 32) as u32, x as u32 ^ 0x55]);
        m.set(a, x >> 3);
        m.set(b, x >> 19);
        m.set(q_in, x);
        m.tick(clk);
        m.get_words(wide_out, &mut w);
        acc = acc
            .wrapping_add(m.get(count))
            .wrapping_add(m.get(sum))
            .wrapping_add(m.get(q_out))
            .wrapping_add(u64::from(w[2]));
    }
    let dt = t.elapsed();
    println!(
        "all ports set/get + tick():         {:.1} Mcycles/s ({:.1} ns/cycle) [checksum {acc:x}]",
        n as f64 / dt.as_secs_f64() / 1e6,
        dt.as_nanos() as f64 / n as f64
    );

    if temporary {
        drop(m);
        let _ = std::fs::remove_dir_all(&cache_dir);
    }
    Ok(())
}
