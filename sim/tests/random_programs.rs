//! Seeded random SIMT programs on the golden model, checked against a per-thread scalar
//! interpreter (threads of these programs never communicate, so each thread's effect on memory
//! is independent of warp scheduling and of how divergence is serialized).
//!
//! `WARPFORGE_RANDOM_SEEDS=N` runs N seeds per configuration instead of the default;
//! `WARPFORGE_RANDOM_SEED=S` runs only seed S (the reproduction command a failure prints).

use warpforge_config::GpuConfig;
use warpforge_loader::from_words;
use warpforge_randprog::scalar::run_program;
use warpforge_randprog::{generate, Options, Program};
use warpforge_sim::{Gpu, RunOutcome};

fn env(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|s| s.parse().ok())
}

/// The seeds to run on a configuration.
fn seeds(fraction: u64) -> std::ops::Range<u64> {
    match env("WARPFORGE_RANDOM_SEED") {
        Some(s) => s..s + 1,
        None => 0..(env("WARPFORGE_RANDOM_SEEDS").unwrap_or(300) / fraction).max(1),
    }
}

/// Run `p` on the model and on the scalar reference; panics with the seed on any difference.
fn check(cfg: &GpuConfig, p: &Program) -> u64 {
    let mut image = from_words(p.entry, p.words.clone(), &p.functions)
        .unwrap_or_else(|e| panic!("seed {}: loader refused the program: {e}", p.seed));
    image.shared_bytes = p.shared_bytes;
    let mut gpu = Gpu::new(cfg, &image).unwrap();
    let data = gpu.alloc(p.data.len() as u32 * 4).unwrap();
    let data_bytes: Vec<u8> = p.data.iter().flat_map(|w| w.to_le_bytes()).collect();
    gpu.write(data, &data_bytes).unwrap();
    let out = gpu.alloc(p.output_words() * 4).unwrap();
    let param = gpu.alloc(8).unwrap();
    gpu.write(param, &[data.to_le_bytes(), out.to_le_bytes()].concat())
        .unwrap();
    let mut expected = gpu.global_memory().to_vec();
    gpu.launch(p.grid, p.block, param).unwrap();
    let outcome = gpu.run(1_000_000);
    assert_eq!(
        outcome,
        RunOutcome::Finished,
        "seed {} on {}",
        p.seed,
        cfg.name
    );

    run_program(p, cfg.lanes, param, &mut expected, 1_000_000)
        .unwrap_or_else(|e| panic!("seed {}: scalar reference: {e}", p.seed));
    if expected != gpu.global_memory() {
        let first = expected
            .iter()
            .zip(gpu.global_memory())
            .position(|(a, b)| a != b)
            .unwrap();
        panic!(
            "seed {} on {}: global memory differs from the scalar reference first at offset 0x{first:x} \
             (reproduce: WARPFORGE_RANDOM_SEED={} cargo test -p warpforge-sim --test random_programs)",
            p.seed,
            cfg.name,
            p.seed
        );
    }
    gpu.stats().divergent_branches
}

#[test]
fn random_programs_match_scalar_reference() {
    for cfg in [GpuConfig::tiny(), GpuConfig::small(), GpuConfig::fermi()] {
        let mut divergent = 0;
        let range = seeds(if cfg.name == "fermi" { 5 } else { 1 });
        let n = range.end - range.start;
        for seed in range {
            let p = generate(seed, cfg.lanes, cfg.warps * cfg.lanes, &Options::default());
            divergent += check(&cfg, &p);
        }
        // The generator must really exercise divergence.
        assert!(
            n < 10 || divergent >= n,
            "only {divergent} divergent branches in {n} programs on {}",
            cfg.name
        );
    }
}
