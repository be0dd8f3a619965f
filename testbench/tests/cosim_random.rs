//! Seeded random SIMT programs (`warpforge_randprog`: divergence, loops, calls, early exits,
//! barriers, global and shared memory) on the generated RTL in lock-step with the golden
//! model; the final global memory must also equal the per-thread scalar reference.
//!
//! Default: a few seeds on `tiny` (memory `random`) and `small` (memory `zero`).
//! `WARPFORGE_RANDOM_SEEDS=N` runs N seeds per configuration; `WARPFORGE_RANDOM_SEED=S` runs
//! only seed S (the command a failure prints).

mod cosim_common;

use cosim_common::{env_u64, random_setup};
use warpforge_config::GpuConfig;
use warpforge_randprog::{generate, Options};
use warpforge_testbench::lockstep::{cosim, CosimOptions, CosimOutcome};
use warpforge_testbench::memory_model::MemorySettings;

fn seeds(default: u64) -> std::ops::Range<u64> {
    match env_u64("WARPFORGE_RANDOM_SEED") {
        Some(s) => s..s + 1,
        None => 0..env_u64("WARPFORGE_RANDOM_SEEDS").unwrap_or(default).max(1),
    }
}

fn run(cfg: GpuConfig, mem: MemorySettings, default_seeds: u64) {
    let test = format!("{}_{}", cfg.name, mem.name);
    for seed in seeds(default_seeds) {
        let p = generate(seed, cfg.lanes, cfg.warps * cfg.lanes, &Options::default());
        let s = random_setup(&cfg, &p);
        let repro = format!(
            "WARPFORGE_RANDOM_SEED={seed} cargo test -p warpforge-testbench --test cosim_random -- {test}"
        );
        let opts = CosimOptions {
            mem: mem.clone().with_seed(seed),
            repro: repro.clone(),
            ..Default::default()
        };
        let r = cosim(&cfg, &s.image, s.gpu, s.launch, &opts)
            .unwrap_or_else(|e| panic!("random program seed {seed} on {}:\n{e}", cfg.name));
        assert_eq!(
            r.outcome,
            CosimOutcome::Finished,
            "seed {seed} on {} (reproduce: {repro})",
            cfg.name
        );
        if let Some(off) = s
            .expected
            .iter()
            .zip(&r.global_memory)
            .position(|(a, b)| a != b)
        {
            panic!(
                "seed {seed} on {}: the RTL's global memory differs from the scalar reference first at offset 0x{off:x} (reproduce: {repro})",
                cfg.name
            );
        }
    }
}

#[test]
fn tiny_random() {
    run(GpuConfig::tiny(), MemorySettings::random(), 4);
}

#[test]
fn small_zero() {
    run(GpuConfig::small(), MemorySettings::zero(), 3);
}
