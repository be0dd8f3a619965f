//! Helpers shared by the model's integration tests.
#![allow(dead_code)]

use warpforge_config::GpuConfig;
use warpforge_isa::{csr, CsrOp, Instr, LoadOp, Reg};
use warpforge_loader::from_words;
use warpforge_randprog::asm::Asm;
use warpforge_sim::{Commit, Gpu, RunOutcome};

/// `li rd, v` (lui + addi).
pub fn li(a: &mut Asm, rd: Reg, v: u32) {
    a.li(rd, v);
}

pub fn csrr(a: &mut Asm, rd: Reg, c: u16) {
    a.i(Instr::Csr {
        op: CsrOp::Rs,
        rd,
        src: 0,
        csr: c,
    });
}

/// `lw rd, 4*k(a0)`: parameter word k.
pub fn param(a: &mut Asm, rd: Reg, k: i32) {
    a.i(Instr::Load {
        op: LoadOp::Lw,
        rd,
        rs1: 10,
        imm: 4 * k,
    });
}

/// Prologue: a0 = wf_param.
pub fn prologue(a: &mut Asm) {
    csrr(a, 10, csr::PARAM);
}

/// A GPU with the program loaded, parameter words and buffers placed, launched.
/// Returns the GPU and the address of each buffer.
pub fn launch(
    cfg: &GpuConfig,
    words: Vec<u32>,
    grid: u32,
    block: u32,
    buffers: &[Vec<u32>],
    extra_params: &[u32],
) -> (Gpu, Vec<u32>) {
    let image = from_words(0, words, &[0]).expect("program loads");
    launch_image(cfg, &image, grid, block, buffers, extra_params)
}

pub fn launch_image(
    cfg: &GpuConfig,
    image: &warpforge_loader::KernelImage,
    grid: u32,
    block: u32,
    buffers: &[Vec<u32>],
    extra_params: &[u32],
) -> (Gpu, Vec<u32>) {
    let mut gpu = Gpu::new(cfg, image).expect("gpu");
    let mut addrs = Vec::new();
    for b in buffers {
        let addr = gpu.alloc((b.len() * 4).max(4) as u32).unwrap();
        gpu.write(addr, &bytes(b)).unwrap();
        addrs.push(addr);
    }
    let mut p: Vec<u32> = addrs.clone();
    p.extend_from_slice(extra_params);
    let param = gpu.alloc((p.len() * 4).max(4) as u32).unwrap();
    gpu.write(param, &bytes(&p)).unwrap();
    gpu.launch(grid, block, param).unwrap();
    (gpu, addrs)
}

pub fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

pub fn read_words(gpu: &Gpu, addr: u32, n: usize) -> Vec<u32> {
    gpu.read(addr, n as u32 * 4)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Run standalone, collecting every commit.
pub fn run_collect(gpu: &mut Gpu, max_cycles: u64) -> (RunOutcome, Vec<Commit>) {
    let mut commits = Vec::new();
    let out = gpu.run_with(max_cycles, |c| commits.push(c.clone()));
    (out, commits)
}
