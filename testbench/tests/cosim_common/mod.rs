//! Helpers shared by the co-simulation tests (`cosim_*.rs`): setting up the model for a
//! shipped kernel's case or a random program, exactly as `warpforge run` / the model's own
//! tests do, and environment knobs.
#![allow(dead_code)]

use warpforge_config::GpuConfig;
use warpforge_kernels::{Case, KernelSpec, Limits};
use warpforge_loader::{from_words, KernelImage};
use warpforge_randprog::scalar::run_program;
use warpforge_randprog::Program;
use warpforge_sim::Gpu;
use warpforge_testbench::lockstep::Launch;

/// A numeric environment variable.
pub fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|s| s.trim().parse().ok())
}

/// `WARPFORGE_FULL=1`: run the opt-in, longer sets.
pub fn full() -> bool {
    warpforge_testbench::unit::full_tests()
}

pub fn limits(cfg: &GpuConfig) -> Limits {
    Limits {
        lanes: cfg.lanes,
        max_block: cfg.warps * cfg.lanes,
        smem_bytes: cfg.smem_bytes,
        sms: cfg.sms,
    }
}

/// A model with `case` placed like `warpforge::host::place` (every buffer allocated and filled
/// in order, then the parameter buffer), and the buffer addresses.
pub fn place_case(cfg: &GpuConfig, image: &KernelImage, case: &Case) -> (Gpu, Launch, Vec<u32>) {
    let mut gpu = Gpu::new(cfg, image).expect("model");
    let mut addrs = Vec::new();
    for b in &case.buffers {
        let a = gpu.alloc(b.init.len() as u32).expect("buffer fits");
        gpu.write(a, &b.init).unwrap();
        addrs.push(a);
    }
    let (bytes, offset) = case.param_allocation();
    let param = gpu.alloc(bytes).expect("parameters fit") + offset;
    gpu.write(param, &case.param_bytes(&addrs)).unwrap();
    (
        gpu,
        Launch {
            grid: case.grid,
            block: case.block,
            param,
            cta_base: case.cta_base,
            counter_base: case.counter_base,
        },
        addrs,
    )
}

/// The shipped kernel's image (built with the RISC-V toolchain, cached).
pub fn kernel_image(k: &KernelSpec) -> KernelImage {
    let elf = k
        .elf()
        .unwrap_or_else(|e| panic!("building kernel {}: {e}", k.name));
    warpforge_loader::load_elf_file(&elf).unwrap_or_else(|e| panic!("loading {}: {e}", k.name))
}

/// A random program's image, and a model with its data, output and parameter buffers.
pub struct RandomSetup {
    pub image: KernelImage,
    pub gpu: Gpu,
    pub launch: Launch,
    /// Global memory the program must leave, per the per-thread scalar reference.
    pub expected: Vec<u8>,
}

pub fn random_setup(cfg: &GpuConfig, p: &Program) -> RandomSetup {
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
    run_program(p, cfg.lanes, param, &mut expected, 1_000_000)
        .unwrap_or_else(|e| panic!("seed {}: scalar reference: {e}", p.seed));
    RandomSetup {
        image,
        gpu,
        launch: Launch::new(p.grid, p.block, param),
        expected,
    }
}
