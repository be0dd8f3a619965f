//! Helpers shared by the kernel crate's integration tests: temporary directories and running a
//! built kernel on the golden model.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use warpforge_config::GpuConfig;
use warpforge_loader::KernelImage;
use warpforge_sim::{Gpu, RunOutcome};

/// A fresh, empty directory under the system temp dir, unique to this process and `name`.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "warpforge-kernels-test-{}-{name}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// What a run of a kernel on the golden model left behind.
pub struct Run {
    pub image: KernelImage,
    pub outcome: RunOutcome,
    /// The output buffer after the run.
    pub out: Vec<u32>,
}

/// Runs the kernel `elf` on the `tiny` preset with `grid` CTAs of `block` threads. The
/// parameter buffer holds one word, the address of an output buffer of `out_words` words that
/// starts filled with 0xDEADBEEF.
pub fn run_on_model(elf: &Path, grid: u32, block: u32, out_words: usize) -> Run {
    run_on_model_with(elf, grid, block, out_words, &[])
}

/// [`run_on_model`] with `params` after the output buffer's address in the parameter buffer.
pub fn run_on_model_with(
    elf: &Path,
    grid: u32,
    block: u32,
    out_words: usize,
    params: &[u32],
) -> Run {
    let image = warpforge_loader::load_elf_file(elf)
        .unwrap_or_else(|e| panic!("loading {}: {e}", elf.display()));
    let cfg = GpuConfig::tiny();
    let mut gpu = Gpu::new(&cfg, &image).expect("the kernel fits the tiny preset");
    let out = gpu.alloc(out_words as u32 * 4).unwrap();
    let fill: Vec<u8> = std::iter::repeat_n(0xDEAD_BEEFu32.to_le_bytes(), out_words)
        .flatten()
        .collect();
    gpu.write(out, &fill).unwrap();
    let words: Vec<u8> = std::iter::once(out)
        .chain(params.iter().copied())
        .flat_map(u32::to_le_bytes)
        .collect();
    let param = gpu.alloc(words.len() as u32).unwrap();
    gpu.write(param, &words).unwrap();
    gpu.launch(grid, block, param).unwrap();
    let outcome = gpu.run(1_000_000);
    let out = gpu
        .read(out, out_words as u32 * 4)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    Run {
        image,
        outcome,
        out,
    }
}
