//! Launch shapes, inputs and plain-Rust references of the shipped kernels.
//!
//! Every reference is a straightforward loop over the threads mirroring the C source, with
//! 32-bit wrapping arithmetic where the C uses `uint32_t`.

// The references index the way the C does (`c[i] = a[i] + b[i]`), on purpose.
#![allow(clippy::needless_range_loop)]

use crate::{
    words_to_bytes, Buffer, Case, ExpectedFault, FaultAddr, KernelSpec, Limits, Param,
    COUNTER_BASE, SENTINEL,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Tile edge of `matmul_tiled.c` (`MATMUL_T`).
pub const MATMUL_T: u32 = 4;
/// Tile edge of `transpose_tiled.c` (`TRANSPOSE_T`).
pub const TRANSPOSE_T: u32 = 4;
/// Shared array of `reduce.c` (`REDUCE_MAX_BLOCK` words).
pub const REDUCE_MAX_BLOCK: u32 = 1024;
/// Rounds of `alu_mix` in its cases: long enough that the loop dominates the start-up code.
pub const ALU_MIX_ROUNDS: u32 = 24;
/// Trip-count bound used by the `trip_count` cases.
pub const TRIP_MAX_STEPS: u32 = 50;

pub(crate) static ALL: &[KernelSpec] = &[
    KernelSpec {
        name: "vecadd",
        source: "vecadd.c",
        about: "c[i] = a[i] + b[i]",
        shape: "any grid and block; threads with gtid >= n idle",
        shared_bytes: 0,
        cases: vecadd_cases,
    },
    KernelSpec {
        name: "saxpy",
        source: "saxpy.c",
        about: "integer saxpy: y[i] = a * x[i] + y[i]",
        shape: "any grid and block; threads with gtid >= n idle",
        shared_bytes: 0,
        cases: saxpy_cases,
    },
    KernelSpec {
        name: "reduce",
        source: "reduce.c",
        about: "per-CTA shared-memory tree reduction: out[ctaid] = sum of the CTA's elements",
        shape: "block <= 1024, any grid",
        shared_bytes: REDUCE_MAX_BLOCK * 4,
        cases: reduce_cases,
    },
    KernelSpec {
        name: "divergent_loop",
        source: "divergent_loop.c",
        about: "do-while loop with nested branches of Aamodt et al. Fig. 3.2 (x, y, z counters)",
        shape: "any grid and block; threads with gtid >= nthreads idle",
        shared_bytes: 0,
        cases: divergent_loop_cases,
    },
    KernelSpec {
        name: "nested_divergence",
        source: "nested_divergence.c",
        about: "nested if of Sarangi Fig. 6.17: c = x > 0 ? (y == 0 ? a+3 : a)^2 : 9",
        shape: "any grid and block; threads with gtid >= n idle",
        shared_bytes: 0,
        cases: nested_divergence_cases,
    },
    KernelSpec {
        name: "trip_count",
        source: "trip_count.c",
        about: "per-thread trip count: Collatz steps of in[i], at most max_steps",
        shape: "any grid and block; threads with gtid >= n idle",
        shared_bytes: 0,
        cases: trip_count_cases,
    },
    KernelSpec {
        name: "matmul_tiled",
        source: "matmul_tiled.c",
        about: "C = A x B (N x N) with 4x4 shared-memory tiles",
        shape: "block >= 16 (T*T, T = 4; threads >= 16 idle), grid = ceil(N/4)^2",
        shared_bytes: 2 * MATMUL_T * MATMUL_T * 4,
        cases: matmul_tiled_cases,
    },
    KernelSpec {
        name: "transpose_naive",
        source: "transpose_naive.c",
        about: "out = transpose(in), rows x cols, one element per thread",
        shape: "any grid and block; grid*block >= rows*cols",
        shared_bytes: 0,
        cases: transpose_naive_cases,
    },
    KernelSpec {
        name: "transpose_tiled",
        source: "transpose_tiled.c",
        about: "out = transpose(in), rows x cols, through a 4x4 shared-memory tile",
        shape: "block >= 16 (T*T, T = 4; threads >= 16 idle), grid = ceil(rows/4)*ceil(cols/4)",
        shared_bytes: TRANSPOSE_T * (TRANSPOSE_T + 1) * 4,
        cases: transpose_tiled_cases,
    },
    KernelSpec {
        name: "divergent_call",
        source: "divergent_call.c",
        about: "calls from divergent code: (v&1 ? f : g)(v), and table[v%3](v) through a pointer",
        shape: "any grid and block; threads with gtid >= n idle",
        shared_bytes: 0,
        cases: divergent_call_cases,
    },
    KernelSpec {
        name: "alu_mix",
        source: "alu_mix.c",
        about:
            "ALU-bound: out[i] = rounds of xorshift32 plus the round number on seed ^ i*0x9E3779B9",
        shape: "any grid and block; threads with gtid >= n idle",
        shared_bytes: 0,
        cases: alu_mix_cases,
    },
    KernelSpec {
        name: "csr_all",
        source: "csr_all.c",
        about: "every CSR read by every thread (tmask also on both sides of a divergent branch)",
        shape: "grid*block threads, all resident at once",
        shared_bytes: 0,
        cases: csr_all_cases,
    },
    KernelSpec {
        name: "isa_ops",
        source: "isa_ops.c",
        about: "every RV32IM operation (shifts, mulh*, div/rem, byte/half loads and stores, branches) on edge operands",
        shape: "any grid and block; threads with gtid >= n idle",
        shared_bytes: ISA_OPS_SHARED_WORDS * 4,
        cases: isa_ops_cases,
    },
    KernelSpec {
        name: "hazards",
        source: "hazards.c",
        about: "RAW (rs1, rs2) and WAW hazards behind ALU, multiplier, divider and loads in dense asm chains: a missed hazard is a wrong value",
        shape: "any grid and block; threads with gtid >= n idle",
        shared_bytes: 0,
        cases: hazards_cases,
    },
    KernelSpec {
        name: "sb_full",
        source: "sb_full.c",
        about: "a full scoreboard (divu, lw, divu, lw pending), then an independent addi at the head of a 48-add chain: issued a cycle late, the kernel ends a cycle late",
        shape: "any grid and block; threads with gtid >= n idle",
        shared_bytes: 0,
        cases: sb_full_cases,
    },
    KernelSpec {
        name: "sb_full_addi",
        source: "sb_full_addi.c",
        about: "sb_full with a short addi as the fourth pending write (divu, lw, divu, addi): the scoreboard full while a collector is free, then an independent addi ahead of 48 dependent adds",
        shape: "any grid and block",
        shared_bytes: 0,
        cases: sb_full_addi_cases,
    },
    KernelSpec {
        name: "sb_entries",
        source: "sb_entries.c",
        about: "four pending writes (divu, lw, divu, lw) in every entry, each read as rs2 and rs1 and overwritten while pending, with two register sets whose numbers are complements entry by entry",
        shape: "any grid and block",
        shared_bytes: 0,
        cases: sb_entries_cases,
    },
    KernelSpec {
        name: "divergent_return",
        source: "divergent_return.c",
        about: "reconvergence at the return (ra) of a leaf called from both sides of a divergent branch",
        shape: "any grid and block; threads with gtid >= n idle",
        shared_bytes: 0,
        cases: divergent_return_cases,
    },
    KernelSpec {
        name: "high_pc",
        source: "high_pc.c",
        about: "divergence, reconvergence and a divergent return at PCs with bits 10-13 set (code at 0x3C00)",
        shape: "any grid and block; threads with gtid >= n idle; needs 16 KiB of instruction memory",
        shared_bytes: 0,
        cases: high_pc_cases,
    },
    KernelSpec {
        name: "entry_top",
        source: "entry_top.c",
        about: "the entry point at 0x3FFC, the last word of 16 KiB of instruction memory (every PC bit 2-13 set), which calls its own copy of crt0's start-up code just below",
        shape: "any grid and block; needs 16 KiB of instruction memory",
        shared_bytes: 0,
        cases: entry_top_cases,
    },
    KernelSpec {
        name: "cta_ids",
        source: "cta_ids.c",
        about: "ctaid and gtid near the top of their range: CTAs numbered from bases with alternating bits and just below 2^32 (co-simulation's CTA base)",
        shape: "any grid and block",
        shared_bytes: 0,
        cases: cta_ids_cases,
    },
    KernelSpec {
        name: "return_lanes",
        source: "return_lanes.c",
        about: "AtReturn reconvergence with the lowest active lane at every lane 1..lanes-2, from 40 call sites whose return addresses set every bit 2-9",
        shape: "any grid and block; threads with gtid >= n idle",
        shared_bytes: 0,
        cases: return_lanes_cases,
    },
    KernelSpec {
        name: "tmc_masks",
        source: "tmc_masks.c",
        about: "wf.tmc with masks that end some lanes and keep others (5, 3, 0: the whole warp), inside a divergent side, and with the lowest active lane not lane 0",
        shape: "any grid and block",
        shared_bytes: 0,
        cases: tmc_masks_cases,
    },
    KernelSpec {
        name: "deep_divergence",
        source: "deep_divergence.c",
        about: "branches and indirect calls nested 15 deep, each leaving one lane behind: every warp's SIMT stack down to its deepest levels",
        shape: "any grid and block",
        shared_bytes: 0,
        cases: deep_divergence_cases,
    },
    KernelSpec {
        name: "cta_shared",
        source: "cta_shared.c",
        about: "many CTAs resident per SM, each writing and reading its own 64-word shared window across barriers",
        shape: "block <= 64, any grid",
        shared_bytes: CTA_SHARED_WORDS * 4,
        cases: cta_shared_cases,
    },
    KernelSpec {
        name: "cta_shared_w5",
        source: "cta_shared_w5.c",
        about: "cta_shared with 5-word (20-byte) windows: CTA slot bases with their low bits set",
        shape: "block <= 64, any grid",
        shared_bytes: CTA_SHARED_W5_WORDS * 4,
        cases: cta_shared_w5_cases,
    },
    KernelSpec {
        name: "cta_shared_w12",
        source: "cta_shared_w12.c",
        about: "cta_shared with 12-word (48-byte) windows: CTA slot bases with bits 4 and 5 set",
        shape: "block <= 64, any grid",
        shared_bytes: CTA_SHARED_W12_WORDS * 4,
        cases: cta_shared_w12_cases,
    },
    KernelSpec {
        name: "cta_slots",
        source: "cta_slots.c",
        about: "CTAs whose warps end at random, different times: new CTAs launch beside CTAs still holding their slot, so CTAs reach the high CTA slots with their warps in many warp slots; barriers across and within CTAs",
        shape: "block = 2 lanes, lanes + 1 or lanes - 1 threads, grid 12 per SM and two warp slots",
        shared_bytes: CTA_SLOTS_WORDS * 4,
        cases: cta_slots_cases,
    },
    KernelSpec {
        name: "barrier_slots",
        source: "barrier_slots.c",
        about: "one CTA per SM over every warp slot; in round r warp r is late to the barrier",
        shape: "block = a full SM (or one less), any grid",
        shared_bytes: 256 * 4,
        cases: barrier_slots_cases,
    },
    KernelSpec {
        name: "barrier_late_cta",
        source: "barrier_late_cta.c",
        about: "a barrier in the last CTA, launched on the warp slots its predecessors' early-exiting warps freed (tiny: CTA slot 2, warp slots {1,3} or {0,2})",
        shape: "block = 2 warps (or one lane less), grid = warps per SM / 2 + 1",
        shared_bytes: 0,
        cases: barrier_late_cta_cases,
    },
    KernelSpec {
        name: "huge_grid",
        source: "huge_grid.c",
        about: "grids of 2^31 CTAs and more: CTA 0 reads the launch CSRs, then a breakpoint stops the run",
        shape: "any block; the grid is the case's (up to 2^32 - 1 CTAs)",
        shared_bytes: 0,
        cases: huge_grid_cases,
    },
    KernelSpec {
        name: "fault_sys",
        source: "fault_sys.c",
        about: "faults on purpose: slli with imm[5]=1, custom-0 funct3=3, ecall, ebreak",
        shape: FAULT_SHAPE,
        shared_bytes: 0,
        cases: fault_sys_cases,
    },
    KernelSpec {
        name: "fault_decode",
        source: "fault_decode.c",
        about: "faults on purpose: load funct3 3 and 6, store funct3 3, branch funct3 2, jalr funct3 1, sll funct7 0x20, opcode 0x7f (illegal-instruction)",
        shape: FAULT_SHAPE,
        shared_bytes: 0,
        cases: fault_decode_cases,
    },
    KernelSpec {
        name: "fault_csr",
        source: "fault_csr.c",
        about: "faults on purpose: csrrw, csrrs rs1!=0, csrrci uimm!=0, unknown CSRs 0xCCE, 0xC01",
        shape: FAULT_SHAPE,
        shared_bytes: 0,
        cases: fault_csr_cases,
    },
    KernelSpec {
        name: "fault_mem",
        source: "fault_mem.c",
        about: "faults on purpose: misaligned lw/sh, out-of-range lw (imem), sw (shared), lbu",
        shape: FAULT_SHAPE,
        shared_bytes: 64,
        cases: fault_mem_cases,
    },
    KernelSpec {
        name: "shared_bounds",
        source: "shared_bounds.c",
        about: "faults on purpose: sw/lbu just past a 36-byte shared window (limit bits 2-4 are 0), the victim in every lane in turn (out-of-range-store/-load)",
        shape: "grid 2, block = a full SM less one thread; the victim is lane v of CTA v % 2, warp (v / 2) % full warps",
        shared_bytes: 36,
        cases: shared_bounds_cases,
    },
    KernelSpec {
        name: "fault_ctrl",
        source: "fault_ctrl.c",
        about: "faults on purpose: misaligned jal/jalr target, fetch out of range, divergent ret, unanalysed divergent branch",
        shape: FAULT_SHAPE,
        shared_bytes: 0,
        cases: fault_ctrl_cases,
    },
    KernelSpec {
        name: "fault_hipc",
        source: "fault_hipc.c",
        about: "faults on purpose at high PCs: misaligned jal, misaligned lw, ebreak, each at two PCs whose bits 2-13 are complementary (0x1554/0x2AA8, 0x1454/0x2BA8, 0x1354/0x2CA8)",
        shape: FAULT_SHAPE,
        shared_bytes: 0,
        cases: fault_hipc_cases,
    },
    KernelSpec {
        name: "wild_targets",
        source: "wild_targets.c",
        about: "faults on purpose: a multi-lane jalr whose lanes' rs1 differ in bit 0, and an AtReturn reconvergence at ra, both to PCs far outside the text (out-of-range-fetch)",
        shape: "grid 2, block = a full SM less one thread; the victim warp's lanes from the victim up",
        shared_bytes: 0,
        cases: wild_targets_cases,
    },
    KernelSpec {
        name: "wild_ctrl",
        source: "wild_ctrl.c",
        about: "faults on purpose: a misaligned jalr target far out, a divergent branch whose target wraps below 0, an AtReturn reconvergence at a high bit plus an in-text return",
        shape: "grid 2, block = a full SM less one thread; the victim warp's lanes from the victim up",
        shared_bytes: 0,
        cases: wild_ctrl_cases,
    },
    KernelSpec {
        name: "fetch_race",
        source: "fetch_race.c",
        about: "faults on purpose: one warp jumps to 0xAAAAAAA8 after a few loop rounds while the other warps keep fetching (out-of-range-fetch)",
        shape: "grid 2, block = a full SM (or one thread less); the jumper is a warp of CTA 0",
        shared_bytes: 0,
        cases: fetch_race_cases,
    },
];

// ---- helpers ---------------------------------------------------------------------------------

/// Launch shape of the `fault_*` kernels.
const FAULT_SHAPE: &str =
    "grid 2, block = a full SM less one thread; the victim is thread lanes+2 of CTA 1";

/// The RNG of case `index` of `kernel` for `seed`.
fn rng_for(seed: u64, kernel: &str, index: usize) -> ChaCha8Rng {
    let k = crate::toolchain::fnv1a(kernel.as_bytes());
    ChaCha8Rng::seed_from_u64(
        seed ^ k.rotate_left(17) ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
    )
}

fn input(name: &'static str, words: &[u32]) -> Buffer {
    Buffer {
        name,
        init: words_to_bytes(words),
        expected: None,
    }
}

/// An output buffer of `expected.len()` words, initialised with [`SENTINEL`].
fn output(name: &'static str, expected: &[u32]) -> Buffer {
    Buffer {
        name,
        init: words_to_bytes(&vec![SENTINEL; expected.len()]),
        expected: Some(words_to_bytes(expected)),
    }
}

/// A case that expects no fault, whose parameters are its buffers in order and then `words`.
fn data_case(
    kernel: &'static str,
    label: String,
    (grid, block): (u32, u32),
    buffers: Vec<Buffer>,
    words: &[u32],
) -> Case {
    let params = (0..buffers.len())
        .map(Param::Buffer)
        .chain(words.iter().map(|&w| Param::Word(w)))
        .collect();
    Case {
        kernel,
        label,
        grid,
        block,
        buffers,
        params,
        cta_base: 0,
        counter_base: COUNTER_BASE,
        expected_fault: None,
    }
}

fn inout(name: &'static str, init: &[u32], expected: &[u32]) -> Buffer {
    Buffer {
        name,
        init: words_to_bytes(init),
        expected: Some(words_to_bytes(expected)),
    }
}

fn ceil_div(a: u32, b: u32) -> u32 {
    a.div_ceil(b)
}

/// A block size that is not a multiple of `lanes` (a partial last warp), near `want`, within
/// `1..=max_block`. Equal to `want` clamped if `lanes` is 1.
fn partial(limits: &Limits, want: u32) -> u32 {
    let lanes = limits.lanes.max(1);
    let mut b = want.clamp(1, limits.max_block.max(1));
    if lanes > 1 && b.is_multiple_of(lanes) {
        b = if b > 1 { b - 1 } else { b + 1 };
    }
    b.min(limits.max_block.max(1))
}

/// `(grid, block, n)` of the four shapes used by the one-element-per-thread kernels:
/// one full warp; a partial block over 3 CTAs with idle tail threads; two full-SM CTAs; and
/// 7 CTAs of about half an SM with a partial last warp and idle tail threads.
fn shapes_1d(limits: &Limits) -> Vec<(u32, u32, u32)> {
    if limits.max_block == 0 || limits.lanes == 0 {
        return Vec::new();
    }
    let m = limits.max_block;
    let l = limits.lanes.min(m);
    let p = partial(limits, limits.lanes + limits.lanes / 2 + 1);
    let h = partial(limits, m / 2 + 1);
    vec![
        (1, l, l),
        (3, p, 3 * p - p.min(2)),
        (2, m, 2 * m),
        (7, h, 7 * h - h.min(5)),
    ]
}

fn label_1d(grid: u32, block: u32, n: u32) -> String {
    format!("grid={grid} block={block} n={n}")
}

/// A word of varied magnitude: small, medium and full-range values.
fn varied(rng: &mut ChaCha8Rng) -> u32 {
    let shift = rng.gen_range(0..32);
    rng.gen::<u32>() >> shift
}

// ---- vecadd ----------------------------------------------------------------------------------

/// c[i] = a[i] + b[i] for i < n.
pub fn vecadd_ref(a: &[u32], b: &[u32], n: usize) -> Vec<u32> {
    let mut c = vec![0u32; n];
    for i in 0..n {
        c[i] = a[i].wrapping_add(b[i]);
    }
    c
}

fn vecadd_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    let mut shapes = shapes_1d(limits);
    // A large grid: global thread ids up to bit 11 or more (160 full CTAs, the last one
    // partial), so the bits of `gtid` above a small grid's reach every launch register and
    // per-warp word (a bit 7 tied to 0 there passed every other case; issue 11).
    if !shapes.is_empty() {
        let m = limits.max_block;
        shapes.push((160, m, 160 * m - m / 2));
    }
    shapes
        .into_iter()
        .enumerate()
        .map(|(idx, (grid, block, n))| {
            let mut rng = rng_for(seed, "vecadd", idx);
            let a: Vec<u32> = (0..n).map(|_| varied(&mut rng)).collect();
            let b: Vec<u32> = (0..n).map(|_| varied(&mut rng)).collect();
            let c = vecadd_ref(&a, &b, n as usize);
            Case {
                kernel: "vecadd",
                label: label_1d(grid, block, n),
                grid,
                block,
                buffers: vec![input("a", &a), input("b", &b), output("c", &c)],
                params: vec![
                    Param::Buffer(0),
                    Param::Buffer(1),
                    Param::Buffer(2),
                    Param::Word(n),
                ],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: None,
            }
        })
        .collect()
}

// ---- saxpy -----------------------------------------------------------------------------------

/// y[i] = a * x[i] + y[i] for i < n (returns the new y).
pub fn saxpy_ref(a: u32, x: &[u32], y: &[u32], n: usize) -> Vec<u32> {
    let mut out = y.to_vec();
    for i in 0..n {
        out[i] = a.wrapping_mul(x[i]).wrapping_add(y[i]);
    }
    out
}

fn saxpy_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    shapes_1d(limits)
        .into_iter()
        .enumerate()
        .map(|(idx, (grid, block, n))| {
            let mut rng = rng_for(seed, "saxpy", idx);
            let a = varied(&mut rng);
            let x: Vec<u32> = (0..n).map(|_| varied(&mut rng)).collect();
            let y: Vec<u32> = (0..n).map(|_| varied(&mut rng)).collect();
            let y_out = saxpy_ref(a, &x, &y, n as usize);
            Case {
                kernel: "saxpy",
                label: format!("{} a={a}", label_1d(grid, block, n)),
                grid,
                block,
                buffers: vec![input("x", &x), inout("y", &y, &y_out)],
                params: vec![
                    Param::Word(a),
                    Param::Buffer(0),
                    Param::Buffer(1),
                    Param::Word(n),
                ],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: None,
            }
        })
        .collect()
}

// ---- reduce ----------------------------------------------------------------------------------

/// out[c] = sum of input[c*block + t] for t < block with c*block + t < n, for c < grid.
pub fn reduce_ref(input: &[u32], n: usize, grid: usize, block: usize) -> Vec<u32> {
    let mut out = vec![0u32; grid];
    for (c, slot) in out.iter_mut().enumerate() {
        let mut sum = 0u32;
        for t in 0..block {
            let g = c * block + t;
            if g < n {
                sum = sum.wrapping_add(input[g]);
            }
        }
        *slot = sum;
    }
    out
}

fn reduce_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    if limits.smem_bytes < REDUCE_MAX_BLOCK * 4 || limits.max_block == 0 || limits.lanes == 0 {
        return Vec::new();
    }
    let lim = Limits {
        max_block: limits.max_block.min(REDUCE_MAX_BLOCK),
        ..*limits
    };
    let m = lim.max_block;
    let l = lim.lanes.min(m);
    let p = partial(&lim, lim.lanes + lim.lanes / 2 + 1);
    let h = partial(&lim, m / 2 + 1);
    // (grid, block, n): the last CTA of the third shape has no element at all (sum 0).
    let shapes = [
        (1, l, l),
        (3, p, 3 * p - p.min(2)),
        (3, m, 2 * m - 1),
        (5, h, 5 * h),
    ];
    shapes
        .into_iter()
        .enumerate()
        .map(|(idx, (grid, block, n))| {
            let mut rng = rng_for(seed, "reduce", idx);
            let input_words: Vec<u32> = (0..n).map(|_| varied(&mut rng)).collect();
            let out = reduce_ref(&input_words, n as usize, grid as usize, block as usize);
            Case {
                kernel: "reduce",
                label: label_1d(grid, block, n),
                grid,
                block,
                buffers: vec![input("in", &input_words), output("out", &out)],
                params: vec![Param::Buffer(0), Param::Buffer(1), Param::Word(n)],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: None,
            }
        })
        .collect()
}

// ---- divergent_loop --------------------------------------------------------------------------

/// The loop of Aamodt et al. Fig. 3.2 for threads `0..nthreads`; returns (x, y, z) per thread.
pub fn divergent_loop_ref(
    data1: &[u32],
    data2: &[u32],
    row: usize,
    nthreads: usize,
) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut xs = vec![0u32; nthreads];
    let mut ys = vec![0u32; nthreads];
    let mut zs = vec![0u32; nthreads];
    for tid in 0..nthreads {
        let (mut x, mut y, mut z) = (0u32, 0u32, 0u32);
        let mut i = 0;
        loop {
            let t2 = tid * row + i;
            let t3 = data1[t2];
            if t3 != 0 {
                let t5 = data2[t2];
                if t5 != 0 {
                    x = x.wrapping_add(1);
                } else {
                    y = y.wrapping_add(2);
                }
            } else {
                z = z.wrapping_add(3);
            }
            i += 1;
            if i >= row {
                break;
            }
        }
        xs[tid] = x;
        ys[tid] = y;
        zs[tid] = z;
    }
    (xs, ys, zs)
}

fn divergent_loop_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    shapes_1d(limits)
        .into_iter()
        .enumerate()
        .map(|(idx, (grid, block, nthreads))| {
            let mut rng = rng_for(seed, "divergent_loop", idx);
            let row = 4 + idx as u32; // N: 4..=7 iterations per thread
            let len = (nthreads * row) as usize;
            let zero_or_not = |rng: &mut ChaCha8Rng| {
                if rng.gen_bool(0.4) {
                    0
                } else {
                    rng.gen_range(1..=99)
                }
            };
            let data1: Vec<u32> = (0..len).map(|_| zero_or_not(&mut rng)).collect();
            let data2: Vec<u32> = (0..len).map(|_| zero_or_not(&mut rng)).collect();
            let (x, y, z) = divergent_loop_ref(&data1, &data2, row as usize, nthreads as usize);
            Case {
                kernel: "divergent_loop",
                label: format!("{} N={row}", label_1d(grid, block, nthreads)),
                grid,
                block,
                buffers: vec![
                    input("data1", &data1),
                    input("data2", &data2),
                    output("out_x", &x),
                    output("out_y", &y),
                    output("out_z", &z),
                ],
                params: vec![
                    Param::Buffer(0),
                    Param::Buffer(1),
                    Param::Buffer(2),
                    Param::Buffer(3),
                    Param::Buffer(4),
                    Param::Word(row),
                    Param::Word(nthreads),
                ],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: None,
            }
        })
        .collect()
}

// ---- nested_divergence -----------------------------------------------------------------------

/// Sarangi Fig. 6.17 per thread: b = a; if x > 0 { if y == 0 { b = a + 3 } c = b*b } else
/// { d = 3; c = d*d }.
pub fn nested_divergence_ref(x: &[i32], y: &[i32], a: &[i32], n: usize) -> Vec<u32> {
    let mut out = vec![0u32; n];
    for i in 0..n {
        let a_i = a[i] as u32;
        let mut b = a_i;
        let c;
        if x[i] > 0 {
            if y[i] == 0 {
                b = a_i.wrapping_add(3);
            }
            c = b.wrapping_mul(b);
        } else {
            let d = 3u32;
            c = d * d;
        }
        out[i] = c;
    }
    out
}

fn nested_divergence_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    shapes_1d(limits)
        .into_iter()
        .enumerate()
        .map(|(idx, (grid, block, n))| {
            let mut rng = rng_for(seed, "nested_divergence", idx);
            let x: Vec<i32> = (0..n).map(|_| rng.gen_range(-3..=3)).collect();
            let y: Vec<i32> = (0..n).map(|_| rng.gen_range(0..=2)).collect();
            let a: Vec<i32> = (0..n).map(|_| rng.gen_range(-1000..=1000)).collect();
            let out = nested_divergence_ref(&x, &y, &a, n as usize);
            let as_words = |v: &[i32]| v.iter().map(|&e| e as u32).collect::<Vec<u32>>();
            Case {
                kernel: "nested_divergence",
                label: label_1d(grid, block, n),
                grid,
                block,
                buffers: vec![
                    input("x", &as_words(&x)),
                    input("y", &as_words(&y)),
                    input("a", &as_words(&a)),
                    output("out", &out),
                ],
                params: vec![
                    Param::Buffer(0),
                    Param::Buffer(1),
                    Param::Buffer(2),
                    Param::Buffer(3),
                    Param::Word(n),
                ],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: None,
            }
        })
        .collect()
}

// ---- trip_count ------------------------------------------------------------------------------

/// Collatz steps of each input until 1, at most `max_steps`.
pub fn trip_count_ref(input: &[u32], n: usize, max_steps: u32) -> Vec<u32> {
    let mut out = vec![0u32; n];
    for i in 0..n {
        let mut v = input[i];
        let mut steps = 0u32;
        while v != 1 && steps < max_steps {
            if v & 1 != 0 {
                v = v.wrapping_mul(3).wrapping_add(1);
            } else {
                v >>= 1;
            }
            steps += 1;
        }
        out[i] = steps;
    }
    out
}

fn trip_count_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    shapes_1d(limits)
        .into_iter()
        .enumerate()
        .map(|(idx, (grid, block, n))| {
            let mut rng = rng_for(seed, "trip_count", idx);
            // 0 never reaches 1 (runs max_steps times), 1 runs 0 times, 27 needs 111 steps.
            let input_words: Vec<u32> = (0..n).map(|_| rng.gen_range(0..=60)).collect();
            let out = trip_count_ref(&input_words, n as usize, TRIP_MAX_STEPS);
            Case {
                kernel: "trip_count",
                label: format!("{} max_steps={TRIP_MAX_STEPS}", label_1d(grid, block, n)),
                grid,
                block,
                buffers: vec![input("in", &input_words), output("out", &out)],
                params: vec![
                    Param::Buffer(0),
                    Param::Buffer(1),
                    Param::Word(n),
                    Param::Word(TRIP_MAX_STEPS),
                ],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: None,
            }
        })
        .collect()
}

// ---- matmul_tiled ----------------------------------------------------------------------------

/// C = A x B, n x n row-major, wrapping.
pub fn matmul_ref(a: &[u32], b: &[u32], n: usize) -> Vec<u32> {
    let mut c = vec![0u32; n * n];
    for row in 0..n {
        for col in 0..n {
            let mut sum = 0u32;
            for k in 0..n {
                sum = sum.wrapping_add(a[row * n + k].wrapping_mul(b[k * n + col]));
            }
            c[row * n + col] = sum;
        }
    }
    c
}

/// Blocks for the tiled kernels: exactly T*T, and (if it fits) a larger partial block whose
/// extra threads idle: T*T + 3, or lanes + 8 when a warp holds more than T*T threads (so one
/// warp has both working and idle threads around the barriers).
fn tiled_blocks(limits: &Limits, t: u32) -> (Option<u32>, Option<u32>) {
    let base = t * t;
    if limits.max_block < base {
        return (None, None);
    }
    let extra = if limits.lanes > base {
        limits.lanes + 8
    } else {
        base + 3
    };
    (
        Some(base),
        (extra <= limits.max_block && extra % limits.lanes.max(1) != 0).then_some(extra),
    )
}

fn matmul_tiled_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    let t = MATMUL_T;
    let (Some(base), extra) = tiled_blocks(limits, t) else {
        return Vec::new();
    };
    if limits.smem_bytes < 2 * t * t * 4 {
        return Vec::new();
    }
    let mut shapes = vec![(4, base), (8, base), (6, base), (13, base)];
    if let Some(e) = extra {
        shapes.push((7, e));
    }
    shapes
        .into_iter()
        .enumerate()
        .map(|(idx, (n, block))| {
            let mut rng = rng_for(seed, "matmul_tiled", idx);
            let len = (n * n) as usize;
            let a: Vec<u32> = (0..len).map(|_| rng.gen_range(-8i32..=8) as u32).collect();
            let b: Vec<u32> = (0..len).map(|_| rng.gen_range(-8i32..=8) as u32).collect();
            let c = matmul_ref(&a, &b, n as usize);
            let grid = ceil_div(n, t) * ceil_div(n, t);
            Case {
                kernel: "matmul_tiled",
                label: format!("grid={grid} block={block} N={n}"),
                grid,
                block,
                buffers: vec![input("A", &a), input("B", &b), output("C", &c)],
                params: vec![
                    Param::Buffer(0),
                    Param::Buffer(1),
                    Param::Buffer(2),
                    Param::Word(n),
                ],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: None,
            }
        })
        .collect()
}

// ---- transpose -------------------------------------------------------------------------------

/// out[c][r] = in[r][c]; `input` is rows x cols row-major, the result cols x rows.
pub fn transpose_ref(input: &[u32], rows: usize, cols: usize) -> Vec<u32> {
    let mut out = vec![0u32; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = input[r * cols + c];
        }
    }
    out
}

fn transpose_case(
    kernel: &'static str,
    seed: u64,
    idx: usize,
    grid: u32,
    block: u32,
    rows: u32,
    cols: u32,
) -> Case {
    let mut rng = rng_for(seed, kernel, idx);
    let input_words: Vec<u32> = (0..rows * cols).map(|_| rng.gen()).collect();
    let out = transpose_ref(&input_words, rows as usize, cols as usize);
    Case {
        kernel,
        label: format!("grid={grid} block={block} rows={rows} cols={cols}"),
        grid,
        block,
        buffers: vec![input("in", &input_words), output("out", &out)],
        params: vec![
            Param::Buffer(0),
            Param::Buffer(1),
            Param::Word(rows),
            Param::Word(cols),
        ],
        cta_base: 0,
        counter_base: COUNTER_BASE,
        expected_fault: None,
    }
}

fn transpose_naive_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    shapes_1d(limits)
        .into_iter()
        .enumerate()
        .map(|(idx, (_, block, n))| {
            // A rows x cols matrix with at most n elements (rows small, so that rows
            // and cols differ), covered by ceil(rows*cols / block) CTAs.
            let rows = [2u32, 3, 5, 7][idx].min(n);
            let cols = (n / rows).max(1);
            let grid = ceil_div(rows * cols, block);
            transpose_case("transpose_naive", seed, idx, grid, block, rows, cols)
        })
        .collect()
}

fn transpose_tiled_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    let t = TRANSPOSE_T;
    let (Some(base), extra) = tiled_blocks(limits, t) else {
        return Vec::new();
    };
    if limits.smem_bytes < t * (t + 1) * 4 {
        return Vec::new();
    }
    let mut shapes = vec![(4, 4, base), (8, 12, base), (5, 7, base), (13, 6, base)];
    if let Some(e) = extra {
        shapes.push((9, 10, e));
    }
    shapes
        .into_iter()
        .enumerate()
        .map(|(idx, (rows, cols, block))| {
            let grid = ceil_div(rows, t) * ceil_div(cols, t);
            transpose_case("transpose_tiled", seed, idx, grid, block, rows, cols)
        })
        .collect()
}

// ---- divergent_call --------------------------------------------------------------------------

/// `f` of divergent_call.c.
pub fn divergent_call_f(v: u32) -> u32 {
    let mut s = 0u32;
    let mut k = 0u32;
    while k <= (v & 15) {
        s = s.wrapping_mul(3).wrapping_add(k ^ v);
        k += 1;
    }
    s
}

/// `g` of divergent_call.c.
pub fn divergent_call_g(v: u32) -> u32 {
    v.wrapping_mul(7).wrapping_add(1)
}

/// `h` of divergent_call.c.
pub fn divergent_call_h(v: u32) -> u32 {
    let mut v = v;
    let mut r = 0u32;
    while v != 0 {
        r += v & 3;
        v >>= 2;
    }
    r
}

/// (out_direct, out_indirect) of divergent_call.c.
pub fn divergent_call_ref(input: &[u32], n: usize) -> (Vec<u32>, Vec<u32>) {
    let table: [fn(u32) -> u32; 3] = [divergent_call_f, divergent_call_g, divergent_call_h];
    let mut direct = vec![0u32; n];
    let mut indirect = vec![0u32; n];
    for i in 0..n {
        let v = input[i];
        direct[i] = if v & 1 != 0 {
            divergent_call_f(v)
        } else {
            divergent_call_g(v)
        };
        indirect[i] = table[(v % 3) as usize](v);
    }
    (direct, indirect)
}

fn divergent_call_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    shapes_1d(limits)
        .into_iter()
        .enumerate()
        .map(|(idx, (grid, block, n))| {
            let mut rng = rng_for(seed, "divergent_call", idx);
            let input_words: Vec<u32> = (0..n).map(|_| varied(&mut rng)).collect();
            let (direct, indirect) = divergent_call_ref(&input_words, n as usize);
            Case {
                kernel: "divergent_call",
                label: label_1d(grid, block, n),
                grid,
                block,
                buffers: vec![
                    input("in", &input_words),
                    output("out_direct", &direct),
                    output("out_indirect", &indirect),
                ],
                params: vec![
                    Param::Buffer(0),
                    Param::Buffer(1),
                    Param::Buffer(2),
                    Param::Word(n),
                ],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: None,
            }
        })
        .collect()
}

// ---- alu_mix ---------------------------------------------------------------------------------

/// out[i] = `rounds` rounds of x ^= x << 13; x ^= x >> 17; x ^= x << 5; x += r on
/// x = seed ^ i * 0x9E3779B9, for i < n.
pub fn alu_mix_ref(seed: u32, n: usize, rounds: u32) -> Vec<u32> {
    (0..n as u32)
        .map(|i| {
            let mut x = seed ^ i.wrapping_mul(0x9E37_79B9);
            for r in 0..rounds {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x = x.wrapping_add(r);
            }
            x
        })
        .collect()
}

fn alu_mix_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    shapes_1d(limits)
        .into_iter()
        .enumerate()
        .map(|(idx, (grid, block, n))| {
            let mut rng = rng_for(seed, "alu_mix", idx);
            let mix_seed = rng.gen::<u32>();
            let out = alu_mix_ref(mix_seed, n as usize, ALU_MIX_ROUNDS);
            data_case(
                "alu_mix",
                format!("{} rounds={ALU_MIX_ROUNDS}", label_1d(grid, block, n)),
                (grid, block),
                vec![output("out", &out)],
                &[n, ALU_MIX_ROUNDS, mix_seed],
            )
        })
        .collect()
}

// ---- csr_all ---------------------------------------------------------------------------------

/// Words per thread of `csr_all`'s `out`.
pub const CSR_ALL_WORDS: u32 = 16;

/// `out` of csr_all.c.
pub fn csr_all_ref(limits: &Limits, grid: u32, block: u32) -> Vec<u32> {
    let lanes = limits.lanes;
    let warps = limits.max_block / lanes;
    let mut out = Vec::with_capacity((grid * block * CSR_ALL_WORDS) as usize);
    for c in 0..grid {
        for t in 0..block {
            let lane = t % lanes;
            let w = t / lanes;
            let present = (block - w * lanes).min(lanes);
            let mask = if present >= 32 {
                u32::MAX
            } else {
                (1u32 << present) - 1
            };
            let side = if lane & 1 == 1 {
                mask & 0xAAAA_AAAA
            } else {
                (mask & 0x5555_5555) | 0x8000_0000
            };
            out.extend_from_slice(&[
                t,
                c,
                block,
                grid,
                c * block + t,
                lane,
                1,
                1,
                lanes,
                warps,
                limits.sms,
                mask,
                side,
                1,
                3,
                0,
            ]);
        }
    }
    out
}

fn csr_all_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    let lanes = limits.lanes;
    let warps = limits.max_block / lanes.max(1);
    if lanes < 2 || warps < 2 || limits.sms == 0 {
        return Vec::new();
    }
    // (block, grid): every CTA resident at once (grid <= sms * CTAs per SM), so that several
    // share an SM and the warp slots above 0 and SMs above 0 are used.
    let fit = |block: u32| limits.sms * (warps / block.div_ceil(lanes));
    let b1 = lanes;
    let b2 = partial(limits, lanes + lanes / 2 + 1);
    let b3 = partial(limits, limits.max_block);
    let shapes = [
        (b1, fit(b1).min(6)),
        (b2, fit(b2).min(5)),
        (b3, fit(b3).min(3)),
    ];
    shapes
        .iter()
        .enumerate()
        .map(|(idx, &(block, grid))| {
            let n = grid * block;
            let out = csr_all_ref(limits, grid, block);
            // Unchecked words start random, so every seed gives other buffers.
            let mut rng = rng_for(seed, "csr_all", idx);
            let raw: Vec<u32> = (0..7 * n).map(|_| rng.gen()).collect();
            Case {
                kernel: "csr_all",
                label: format!("grid={grid} block={block}"),
                grid,
                block,
                buffers: vec![
                    output("out", &out),
                    Buffer {
                        name: "raw",
                        init: words_to_bytes(&raw),
                        expected: None,
                    },
                ],
                params: vec![Param::Buffer(0), Param::Buffer(1)],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: None,
            }
        })
        .collect()
}

// ---- isa_ops ---------------------------------------------------------------------------------

/// Words per thread of `isa_ops`'s `out` (`ISA_OPS_WORDS` in isa_ops.c).
pub const ISA_OPS_WORDS: u32 = 54;

/// Words of `isa_ops`'s static shared array (`ISA_OPS_SHARED_WORDS` in isa_ops.c).
pub const ISA_OPS_SHARED_WORDS: u32 = 64;

/// Operands every `isa_ops` case pairs with each other (thread `g < 100` takes
/// `(ISA_EDGES[g % 10], ISA_EDGES[g / 10])`).
pub const ISA_EDGES: [u32; 10] = [
    0,
    1,
    0xffff_ffff,
    0x8000_0000,
    0x7fff_ffff,
    31,
    32,
    33,
    0x1234_5678,
    0xffff_fffe,
];

/// The results of isa_ops.c for operands `a`, `b`.
pub fn isa_ops_ref(a: u32, b: u32) -> [u32; ISA_OPS_WORDS as usize] {
    let (sa, sb) = (a as i32, b as i32);
    let sh = b & 31;
    let div = if b == 0 {
        u32::MAX
    } else {
        sa.wrapping_div(sb) as u32
    };
    let rem = if b == 0 {
        a
    } else {
        sa.wrapping_rem(sb) as u32
    };
    let mulhsu = ((i64::from(sa) * b as i64) >> 32) as u32;
    let b_in = a & 0xff | (b & 0xff) << 8 | (b & 0xffff) << 16;
    let sh51 = b & 0xff | a & 0xff00 | (b & 0xffff) << 16;
    let sh52 = sh51 & 0xffff | (b & 0xff) << 16 | (b & 0xff) << 24;
    let sh53 = sh52 & 0xffff_0000 | b & 0xff | (b & 0xff) << 8;
    [
        a.wrapping_add(b),
        a.wrapping_sub(b),
        a << sh,
        u32::from(sa < sb),
        u32::from(a < b),
        a ^ b,
        a >> sh,
        (sa >> sh) as u32,
        a | b,
        a & b,
        a.wrapping_mul(b),
        ((i64::from(sa) * i64::from(sb)) >> 32) as u32,
        mulhsu,
        ((u64::from(a) * u64::from(b)) >> 32) as u32,
        div,
        a.checked_div(b).unwrap_or(u32::MAX),
        rem,
        a.checked_rem(b).unwrap_or(a),
        a.wrapping_sub(2048),
        u32::from(sa < -1),
        u32::from(a < u32::MAX),
        !a,
        a | 0x555,
        a & 0xffff_ff00,
        a,
        a << 1,
        a << 31,
        a,
        a >> 1,
        a >> 31,
        a,
        (sa >> 1) as u32,
        (sa >> 31) as u32,
        a.wrapping_add(0xffff_f000),
        (a >> 24) as u8 as i8 as i32 as u32,
        (a >> 8) & 0xff,
        (a >> 16) as u16 as i16 as i32 as u32,
        a & 0xffff,
        b_in,
        u32::from(a == b),
        u32::from(a != b),
        u32::from(sa < sb),
        u32::from(sa >= sb),
        u32::from(a < b),
        u32::from(a >= b),
        b,
        (b >> 16) as u16 as i16 as i32 as u32,
        // 47..53: in shared memory, at the offsets 34..38 leave out.
        a as u8 as i8 as i32 as u32,
        (a >> 16) & 0xff,
        a as u16 as i16 as i32 as u32,
        a >> 16,
        sh51,
        sh52,
        sh53,
    ]
}

fn isa_ops_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    let mut shapes = shapes_1d(limits);
    if shapes.is_empty() {
        return Vec::new();
    }
    // The last shape covers all 100 edge pairs.
    let h = partial(limits, limits.max_block / 2 + 1);
    let grid = 104u32.div_ceil(h).max(2);
    shapes[3] = (grid, h, grid * h - h.min(3));
    // A fifth case: equal full-width operands in every lane, `x` in the first warp and `!x` in
    // the second, so each bit of both branch operands is 1 in some lane's equal pair and 0 in
    // another's (issue 11: `tiny` m5 on 67bd937, lane 3's second branch operand with bit 10
    // flipped where bit 29 is set, passed every run: the equal edge pairs never met lane 3).
    let wide = limits.max_block.min(2 * limits.lanes);
    shapes.push((1, wide, wide));
    shapes
        .into_iter()
        .enumerate()
        .map(|(idx, (grid, block, n))| {
            let mut rng = rng_for(seed, "isa_ops", idx);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let equal: Vec<u32> = if idx == 4 {
                (0..limits.lanes).map(|_| rng.gen()).collect()
            } else {
                Vec::new()
            };
            for g in 0..n as usize {
                if idx == 4 {
                    let lane = g % limits.lanes as usize;
                    let x = equal[lane] ^ if g < limits.lanes as usize { 0 } else { !0 };
                    a.push(x);
                    b.push(x);
                } else if g < 100 && idx != 0 {
                    a.push(ISA_EDGES[g % 10]);
                    b.push(ISA_EDGES[g / 10]);
                } else {
                    a.push(varied(&mut rng));
                    b.push(if rng.gen_bool(0.2) {
                        0
                    } else {
                        varied(&mut rng)
                    });
                }
            }
            let out: Vec<u32> = a
                .iter()
                .zip(&b)
                .flat_map(|(&x, &y)| isa_ops_ref(x, y))
                .collect();
            let scratch: Vec<u32> = (0..n).map(|_| rng.gen()).collect();
            // Word 45 stores b last.
            let scratch_after: Vec<u32> = b.clone();
            Case {
                kernel: "isa_ops",
                label: label_1d(grid, block, n),
                grid,
                block,
                buffers: vec![
                    input("a", &a),
                    input("b", &b),
                    inout("scratch", &scratch, &scratch_after),
                    output("out", &out),
                ],
                params: vec![
                    Param::Buffer(0),
                    Param::Buffer(1),
                    Param::Buffer(2),
                    Param::Buffer(3),
                    Param::Word(n),
                ],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: None,
            }
        })
        .collect()
}

// ---- hazards ---------------------------------------------------------------------------------

/// Words per thread of `hazards`'s `out` (`HAZARDS_WORDS` in hazards.c).
pub const HAZARDS_WORDS: u32 = 13;

/// `out` of hazards.c for one thread: operands `x`, `y` and its memory words `w0`, `w1`, `w3`.
pub fn hazards_ref(x: u32, y: u32, w0: u32, w1: u32, w3: u32) -> [u32; HAZARDS_WORDS as usize] {
    let divu = x.checked_div(y).unwrap_or(u32::MAX);
    let rem = |a: u32, b: u32| {
        if b == 0 {
            a
        } else {
            (a as i32).wrapping_rem(b as i32) as u32
        }
    };
    let alu = {
        let t0 = x.wrapping_add(y);
        let t1 = y.wrapping_sub(t0);
        let t2 = t1 ^ x;
        x << (t2 & 31)
    };
    let mul = {
        let t0 = x.wrapping_mul(y);
        let t1 = y.wrapping_add(t0);
        let t2 = ((i64::from(t1 as i32) * i64::from(x as i32)) >> 32) as u32;
        t2.wrapping_sub(y)
    };
    let div = {
        let t1 = x.wrapping_add(divu);
        rem(t1, y) ^ t1
    };
    let waw = divu
        .wrapping_add(x.wrapping_add(7))
        .wrapping_add(y.wrapping_add(5))
        .wrapping_add(x.wrapping_sub(3));
    let producers = [divu, x.wrapping_mul(y), w1, x.wrapping_add(y)];
    let rs2 = producers.iter().fold(0, |a, p| a ^ x.wrapping_add(*p));
    let rs1 = producers.iter().fold(0, |a, p| a ^ p.wrapping_sub(x));
    [
        alu,
        mul,
        div,
        w1.wrapping_sub(x.wrapping_add(w0)),
        w3,
        waw,
        rs2,
        rs2,
        rs1,
        rs1,
        u32::from(w0 == x),
        ((0xE8000 ^ x.wrapping_add(29)).wrapping_add(x.wrapping_mul(16))).wrapping_add(divu),
        divu.wrapping_add(w1),
    ]
}

fn hazards_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    shapes_1d(limits)
        .into_iter()
        .enumerate()
        .map(|(idx, (grid, block, n))| {
            let mut rng = rng_for(seed, "hazards", idx);
            let x: Vec<u32> = (0..n).map(|_| varied(&mut rng)).collect();
            let y: Vec<u32> = (0..n)
                .map(|_| {
                    if rng.gen_bool(0.1) {
                        0
                    } else {
                        varied(&mut rng)
                    }
                })
                .collect();
            let mut mem = Vec::with_capacity(4 * n as usize);
            for &xi in &x {
                let w0 = if rng.gen_bool(0.5) { xi } else { rng.gen() };
                mem.extend_from_slice(&[w0, rng.gen(), rng.gen(), rng.gen()]);
            }
            let out: Vec<u32> = (0..n as usize)
                .flat_map(|i| hazards_ref(x[i], y[i], mem[4 * i], mem[4 * i + 1], mem[4 * i + 3]))
                .collect();
            Case {
                kernel: "hazards",
                label: label_1d(grid, block, n),
                grid,
                block,
                buffers: vec![
                    input("mem", &mem),
                    input("x", &x),
                    input("y", &y),
                    output("out", &out),
                ],
                params: vec![
                    Param::Buffer(0),
                    Param::Buffer(1),
                    Param::Buffer(2),
                    Param::Buffer(3),
                    Param::Word(n),
                ],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: None,
            }
        })
        .collect()
}

// ---- sb_full ---------------------------------------------------------------------------------

/// Dependent adds after the independent `addi` of sb_full.c (`SB_FULL_CHAIN`).
pub const SB_FULL_CHAIN: u32 = 48;

/// `out` of sb_full.c for one thread: operands `x`, `y` and its memory words `w0`, `w1`.
pub fn sb_full_ref(x: u32, y: u32, w0: u32, w1: u32) -> u32 {
    let chain = x
        .wrapping_add(1)
        .wrapping_add(x.wrapping_mul(SB_FULL_CHAIN));
    x.checked_div(y)
        .unwrap_or(u32::MAX)
        .wrapping_add(w0)
        .wrapping_add(y.checked_div(x).unwrap_or(u32::MAX))
        .wrapping_add(w1)
        .wrapping_add(chain)
}

/// The one-element-per-thread shapes. An issue slot the scoreboard loses shows only in the
/// kernel's cycle count (docs/verification.md, "Timing"); the one-warp case shows it alone.
fn sb_full_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    shapes_1d(limits)
        .into_iter()
        .enumerate()
        .map(|(idx, (grid, block, n))| {
            let mut rng = rng_for(seed, "sb_full", idx);
            let x: Vec<u32> = (0..n).map(|_| varied(&mut rng)).collect();
            let y: Vec<u32> = (0..n)
                .map(|_| {
                    if rng.gen_bool(0.1) {
                        0
                    } else {
                        varied(&mut rng)
                    }
                })
                .collect();
            let mem: Vec<u32> = (0..2 * n).map(|_| rng.gen()).collect();
            let out: Vec<u32> = (0..n as usize)
                .map(|i| sb_full_ref(x[i], y[i], mem[2 * i], mem[2 * i + 1]))
                .collect();
            Case {
                kernel: "sb_full",
                label: label_1d(grid, block, n),
                grid,
                block,
                buffers: vec![
                    input("mem", &mem),
                    input("x", &x),
                    input("y", &y),
                    output("out", &out),
                ],
                params: vec![
                    Param::Buffer(0),
                    Param::Buffer(1),
                    Param::Buffer(2),
                    Param::Buffer(3),
                    Param::Word(n),
                ],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: None,
            }
        })
        .collect()
}

// ---- sb_full_addi ----------------------------------------------------------------------------

/// `out` of sb_full_addi.c for thread `g` with memory word `w` (x = 7 g + 100, y = g + 3).
pub fn sb_full_addi_ref(g: u32, w: u32) -> u32 {
    let x = g.wrapping_mul(7).wrapping_add(100);
    let y = g.wrapping_add(3);
    let div = |a: u32, b: u32| a.checked_div(b).unwrap_or(u32::MAX);
    div(x, y)
        .wrapping_add(w)
        .wrapping_add(div(y, x))
        .wrapping_add(x.wrapping_add(3))
        .wrapping_add(
            x.wrapping_add(1)
                .wrapping_add(x.wrapping_mul(SB_FULL_CHAIN)),
        )
}

/// Grid 2 with blocks of 2 and 4 warps (the shapes that showed m78 under `random` memory) and
/// 3 CTAs of a partial block. Like sb_full, a lost or early issue slot shows only in the
/// kernel's cycle count.
fn sb_full_addi_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    scoreboard_cases("sb_full_addi", limits, seed, 1, |g, w| {
        sb_full_addi_ref(g, w[0])
    })
}

/// The cases of a scoreboard kernel with parameters (mem, out): `words` random words of `mem`
/// per thread and `out[g] = reference(g, its words)`, in three shapes: grid 2 with blocks of 2
/// and 4 warps, 3 CTAs of a partial block.
fn scoreboard_cases(
    kernel: &'static str,
    limits: &Limits,
    seed: u64,
    words: u32,
    reference: impl Fn(u32, &[u32]) -> u32,
) -> Vec<Case> {
    let l = limits.lanes;
    let m = limits.max_block;
    if l == 0 || m == 0 {
        return Vec::new();
    }
    let shapes = [
        (2, (2 * l).min(m)),
        (2, (4 * l).min(m)),
        (3, partial(limits, 3 * l + 1)),
    ];
    shapes
        .iter()
        .enumerate()
        .map(|(idx, &(grid, block))| {
            let mut rng = rng_for(seed, kernel, idx);
            let n = grid * block;
            let mem: Vec<u32> = (0..words * n).map(|_| rng.gen()).collect();
            let out: Vec<u32> = mem
                .chunks(words as usize)
                .zip(0..)
                .map(|(w, g)| reference(g, w))
                .collect();
            Case {
                kernel,
                label: format!("grid={grid} block={block}"),
                grid,
                block,
                buffers: vec![input("mem", &mem), output("out", &out)],
                params: vec![Param::Buffer(0), Param::Buffer(1)],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: None,
            }
        })
        .collect()
}

// ---- sb_entries ------------------------------------------------------------------------------

/// `out` of sb_entries.c for thread `g` with memory words `w0`, `w1` (x = 7 g + 100,
/// y = g + 3): 3 register sets × 4 entries × (rs2, rs1, rd) rounds.
pub fn sb_entries_ref(g: u32, w0: u32, w1: u32) -> u32 {
    let x = g.wrapping_mul(7).wrapping_add(100);
    let y = g.wrapping_add(3);
    let div = |a: u32, b: u32| a.checked_div(b).unwrap_or(u32::MAX);
    let mut acc = 0u32;
    for _set in 0..3 {
        for k in 0..4 {
            for form in 0..3 {
                // The rd form overwrites the k-th write with 1; the readers keep nothing.
                let mut vals = [div(x, y), w0, div(y, x), w1];
                if form == 2 {
                    vals[k] = 1;
                }
                acc = vals.iter().fold(acc, |a, &v| a.wrapping_add(v));
            }
        }
    }
    acc
}

/// The shapes of sb_full_addi: grid 2 with blocks of 2 and 4 warps, 3 CTAs of a partial block.
fn sb_entries_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    scoreboard_cases("sb_entries", limits, seed, 2, |g, w| {
        sb_entries_ref(g, w[0], w[1])
    })
}

// ---- divergent_return ------------------------------------------------------------------------

/// `dr_pick` of divergent_return.c.
pub fn dr_pick(x: u32) -> u32 {
    if x & 1 == 1 {
        (x << 3).wrapping_add(101)
    } else {
        (x >> 1) ^ 0x55
    }
}

/// out of divergent_return.c.
pub fn divergent_return_ref(input: &[u32], n: usize, rounds: u32) -> Vec<u32> {
    input[..n]
        .iter()
        .map(|&v| {
            let mut acc = v;
            for i in 0..rounds {
                let u = v.wrapping_add(i);
                if u % 3 != 0 {
                    acc = acc.wrapping_add(dr_pick(u).wrapping_add(1));
                } else {
                    acc ^= dr_pick(u ^ 0xff).wrapping_mul(3);
                }
                acc = acc.wrapping_add(dr_pick(acc));
            }
            acc
        })
        .collect()
}

/// Rounds of the `divergent_return` cases.
pub const DIVERGENT_RETURN_ROUNDS: u32 = 6;

fn divergent_return_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    in_out_rounds_cases(
        "divergent_return",
        limits,
        seed,
        DIVERGENT_RETURN_ROUNDS,
        divergent_return_ref,
    )
}

/// The cases of a kernel with parameters `in, out, n, rounds` over the 1-D shapes: random
/// `in`, `out` from `reference(in, n, rounds)`.
fn in_out_rounds_cases(
    kernel: &'static str,
    limits: &Limits,
    seed: u64,
    rounds: u32,
    reference: fn(&[u32], usize, u32) -> Vec<u32>,
) -> Vec<Case> {
    shapes_1d(limits)
        .into_iter()
        .enumerate()
        .map(|(idx, (grid, block, n))| {
            let mut rng = rng_for(seed, kernel, idx);
            let values: Vec<u32> = (0..n).map(|_| rng.gen()).collect();
            let out = reference(&values, n as usize, rounds);
            Case {
                kernel,
                label: label_1d(grid, block, n),
                grid,
                block,
                buffers: vec![input("in", &values), output("out", &out)],
                params: vec![
                    Param::Buffer(0),
                    Param::Buffer(1),
                    Param::Word(n),
                    Param::Word(rounds),
                ],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: None,
            }
        })
        .collect()
}

// ---- high_pc ---------------------------------------------------------------------------------

/// out of high_pc.c.
pub fn high_pc_ref(input: &[u32], n: usize, rounds: u32) -> Vec<u32> {
    let leaf = |y: u32| {
        if y & 2 != 0 {
            y.wrapping_add(7)
        } else {
            y ^ 0x33
        }
    };
    let far = |x: u32| {
        leaf(if x & 1 != 0 {
            (x << 3).wrapping_add(101)
        } else {
            (x >> 1) ^ 0x55
        })
    };
    input[..n]
        .iter()
        .map(|&v| {
            let mut acc = v;
            for i in 0..rounds {
                let u = v.wrapping_add(i);
                if u % 3 != 0 {
                    acc = acc.wrapping_add(far(u).wrapping_add(1));
                } else {
                    acc ^= far(u ^ 0xff).wrapping_mul(3);
                }
            }
            acc
        })
        .collect()
}

/// Loop trips of high_pc.
pub const HIGH_PC_ROUNDS: u32 = 4;

fn high_pc_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    in_out_rounds_cases("high_pc", limits, seed, HIGH_PC_ROUNDS, high_pc_ref)
}

// ---- entry_top -------------------------------------------------------------------------------

/// out of entry_top.c.
pub fn entry_top_ref(input: &[u32], block: u32) -> Vec<u32> {
    (0..)
        .zip(input)
        .map(|(g, &x): (u32, _)| {
            x ^ g.wrapping_mul(0x9E37_79B9) ^ ((g / block) << 16) ^ (g % block)
        })
        .collect()
}

fn entry_top_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    shapes_1d(limits)
        .into_iter()
        .enumerate()
        .map(|(idx, (grid, block, _))| {
            let mut rng = rng_for(seed, "entry_top", idx);
            let words: Vec<u32> = (0..grid * block).map(|_| rng.gen()).collect();
            let out = entry_top_ref(&words, block);
            Case {
                kernel: "entry_top",
                label: format!("grid={grid} block={block}"),
                grid,
                block,
                buffers: vec![input("in", &words), output("out", &out)],
                params: vec![Param::Buffer(0), Param::Buffer(1)],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: None,
            }
        })
        .collect()
}

// ---- cta_ids ---------------------------------------------------------------------------------

/// out of cta_ids.c: `(ctaid, gtid)` of each thread, CTAs numbered from `base`.
pub fn cta_ids_ref(grid: u32, block: u32, base: u32) -> Vec<u32> {
    (0..grid)
        .flat_map(|k| {
            let c = base.wrapping_add(k);
            (0..block).flat_map(move |t| [c, c.wrapping_mul(block).wrapping_add(t)])
        })
        .collect()
}

fn cta_ids_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    shapes_1d(limits)
        .into_iter()
        .enumerate()
        .map(|(idx, (grid, block, _))| {
            // Alternating bits both ways, the wrap past 2^32 - 1, and one base of the seed.
            let base = match idx {
                0 => 0xAAAA_AAAA,
                1 => 0x5555_5555,
                2 => 0u32.wrapping_sub(grid / 2 + 1),
                _ => rng_for(seed, "cta_ids", idx).gen(),
            };
            Case {
                kernel: "cta_ids",
                label: format!("grid={grid} block={block} base={base:#010x}"),
                grid,
                block,
                buffers: vec![output("out", &cta_ids_ref(grid, block, base))],
                params: vec![Param::Buffer(0), Param::Word(base)],
                cta_base: base,
                counter_base: COUNTER_BASE,
                expected_fault: None,
            }
        })
        .collect()
}

// ---- return_lanes ----------------------------------------------------------------------------

/// Calls `rl_chain` of return_lanes.c makes (its `jal`s).
pub const RETURN_LANES_CALLS: u32 = 40;

/// `rl_chain` of return_lanes.c: calls `i = 0..40`, `rl_first` when `i % 3 == 2`, else
/// `rl_leaf`.
pub fn return_lanes_chain(x: u32) -> u32 {
    (0..RETURN_LANES_CALLS).fold(x, |x, i| match (i % 3 == 2, x & 1 == 1) {
        (false, true) => x.wrapping_add(3),
        (false, false) => x ^ 0x55,
        (true, true) => x.wrapping_add(0x101),
        (true, false) => x ^ 0x3c3,
    })
}

/// out of return_lanes.c: thread `g` is lane `(g % block) % lanes`.
pub fn return_lanes_ref(input: &[u32], n: usize, block: u32, lanes: u32) -> Vec<u32> {
    (0..n)
        .map(|g| {
            let lane = (g as u32 % block) % lanes;
            let mut x = (input[g] & !1) | (lane & 1);
            for k in 1..lanes.saturating_sub(1) {
                if lane >= k {
                    x = return_lanes_chain(x);
                }
            }
            x
        })
        .collect()
}

/// The one-element-per-thread shapes; the third (two CTAs of a full SM) has every warp slot of
/// the SM busy, so the collector units read `ra` from the register-file banks.
fn return_lanes_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    shapes_1d(limits)
        .into_iter()
        .enumerate()
        .map(|(idx, (grid, block, n))| {
            let mut rng = rng_for(seed, "return_lanes", idx);
            let values: Vec<u32> = (0..n).map(|_| rng.gen()).collect();
            let out = return_lanes_ref(&values, n as usize, block, limits.lanes);
            Case {
                kernel: "return_lanes",
                label: label_1d(grid, block, n),
                grid,
                block,
                buffers: vec![input("in", &values), output("out", &out)],
                params: vec![Param::Buffer(0), Param::Buffer(1), Param::Word(n)],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: None,
            }
        })
        .collect()
}

// ---- tmc_masks -------------------------------------------------------------------------------

/// The first tmc's mask of warp `k` (counted over the grid) of tmc_masks' cases, as a nibble
/// repeated over the 32 lanes: 5 ends lane 1, 3 keeps it, 0 ends the whole warp, and the ones
/// without lane 0 leave a lowest active lane above 0 for the later tmcs.
pub const TMC_MASKS_FIRST: [u32; 12] = [5, 3, 0, 0xe, 0xa, 0xc, 0x6, 0xb, 0xd, 0x7, 0x9, 0xf];

/// `out` of tmc_masks.c: per thread the tag of the last step it lived through (0x7e570000,
/// 0x7e571000 after the first tmc, 0x7e572000 after the one in the divergent side, 0x7e573000
/// after the last) xor its gtid.
pub fn tmc_masks_ref(
    m1: &[u32],
    m2: &[u32],
    m3: &[u32],
    grid: u32,
    block: u32,
    lanes: u32,
) -> Vec<u32> {
    let mut out: Vec<u32> = (0..grid * block).map(|g| g ^ 0x7e57_0000).collect();
    for c in 0..grid {
        for w0 in (0..block).step_by(lanes as usize) {
            let first = c * block + w0;
            let warp: Vec<u32> = (first..first + lanes.min(block - w0)).collect();
            // tmc: the mask of the lowest active thread; a thread lives on if its lane's bit is set.
            let tmc = |active: &[u32], m: &[u32]| -> Vec<u32> {
                match active.first() {
                    None => Vec::new(),
                    Some(&lo) => {
                        let mask = m[lo as usize];
                        active
                            .iter()
                            .copied()
                            .filter(|&g| mask >> ((g - first) % 32) & 1 == 1)
                            .collect()
                    }
                }
            };
            let a = tmc(&warp, m1);
            for &g in &a {
                out[g as usize] = g ^ 0x7e57_1000;
            }
            let side: Vec<u32> = a
                .iter()
                .copied()
                .filter(|&g| m2[g as usize] >> 31 == 1)
                .collect();
            let kept = tmc(&side, m2);
            for &g in &kept {
                out[g as usize] = g ^ 0x7e57_2000;
            }
            let mut b: Vec<u32> = a
                .iter()
                .copied()
                .filter(|&g| m2[g as usize] >> 31 == 0 || kept.contains(&g))
                .collect();
            b.sort_unstable();
            for &g in &tmc(&b, m3) {
                out[g as usize] = g ^ 0x7e57_3000;
            }
        }
    }
    out
}

/// One full warp, a partial block over 3 CTAs, two full-SM CTAs and 7 CTAs of about half an
/// SM (every thread runs; `n` of the shapes unused). The lowest lane of warp `k` (over the grid)
/// carries `TMC_MASKS_FIRST[k % 12]` as its first mask, the other lanes random words (only the
/// lowest active lane's mask counts); the side's condition (`m2` bit 31) and the later masks
/// are random.
fn tmc_masks_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    let lanes = limits.lanes;
    let case = |label: String, grid: u32, block: u32, m1: Vec<u32>, m2: Vec<u32>, m3: Vec<u32>| {
        let out = tmc_masks_ref(&m1, &m2, &m3, grid, block, lanes);
        data_case(
            "tmc_masks",
            label,
            (grid, block),
            vec![
                input("m1", &m1),
                input("m2", &m2),
                input("m3", &m3),
                output("out", &out),
            ],
            &[],
        )
    };
    // Every warp slot of every SM: all lanes but one (`stay`) take the divergent side and end
    // there, so the reconvergence entry read back from the SIMT stack's RAM must lose them
    // through each slot's live mask (a live bit stuck at 1 in one slot and lane let an ended
    // thread run on: tiny's m59 on bd4877c).
    let mut cases = Vec::new();
    if lanes >= 2 && limits.max_block >= lanes {
        let block = limits.max_block / lanes * lanes;
        let grid = limits.sms.max(1);
        let total = grid * block;
        for (name, stay) in [("lane0", 0), ("top", lanes - 1)] {
            let m2 = (0..total)
                .map(|g| if g % lanes == stay { 0 } else { 0x8000_0000 })
                .collect();
            cases.push(case(
                format!("side-exit-all-but-{name} grid={grid} block={block}"),
                grid,
                block,
                vec![u32::MAX; total as usize],
                m2,
                vec![u32::MAX; total as usize],
            ));
        }
    }
    cases.extend(
        shapes_1d(limits)
            .into_iter()
            .enumerate()
            .map(|(idx, (grid, block, _))| {
                let mut rng = rng_for(seed, "tmc_masks", idx);
                let total = grid * block;
                let warps_per_cta = block.div_ceil(lanes);
                let m1: Vec<u32> = (0..total)
                    .map(|g| {
                        let (c, t) = (g / block, g % block);
                        if t % lanes == 0 {
                            let k = (c * warps_per_cta + t / lanes) as usize;
                            TMC_MASKS_FIRST[k % TMC_MASKS_FIRST.len()].wrapping_mul(0x1111_1111)
                        } else {
                            rng.gen()
                        }
                    })
                    .collect();
                let m2: Vec<u32> = (0..total).map(|_| rng.gen()).collect();
                let m3: Vec<u32> = (0..total).map(|_| rng.gen()).collect();
                case(
                    format!("grid={grid} block={block}"),
                    grid,
                    block,
                    m1,
                    m2,
                    m3,
                )
            }),
    );
    cases
}

// ---- deep_divergence -------------------------------------------------------------------------

/// Nesting depth of deep_divergence.c.
pub const DEEP_DIVERGENCE_LEVELS: u32 = 15;

/// out of deep_divergence.c: per thread, `rank` levels deep into the branch nest from `init`,
/// then `crank` levels deep into the call nest.
pub fn deep_divergence_ref(rank: &[u32], crank: &[u32], init: &[u32]) -> Vec<u32> {
    fn branch(k: u32, r: u32, acc: u32) -> u32 {
        if k == DEEP_DIVERGENCE_LEVELS || r <= k {
            return acc;
        }
        let acc = acc.wrapping_mul(3).wrapping_add(k);
        branch(k + 1, r, acc.wrapping_add(acc / (k + 3))) ^ ((k + 1) << 8)
    }
    fn call(k: u32, r: u32, acc: u32) -> u32 {
        let mut acc = acc.wrapping_mul(3).wrapping_add(k);
        if k + 1 < DEEP_DIVERGENCE_LEVELS {
            if r > k {
                acc = call(k + 1, r, acc);
            }
            acc ^= (k + 1) << 8;
        }
        acc
    }
    rank.iter()
        .zip(crank)
        .zip(init)
        .map(|((&r, &c), &a)| call(0, c, branch(0, r, a)))
        .collect()
}

fn deep_divergence_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    let lanes = limits.lanes;
    if lanes == 0 || limits.max_block == 0 {
        return Vec::new();
    }
    // Every warp slot of every SM, then the usual shapes (partial warps among them).
    let mut shapes = vec![(limits.sms.max(1), limits.max_block, 0)];
    for s in shapes_1d(limits) {
        if !shapes.iter().any(|t| (t.0, t.1) == (s.0, s.1)) {
            shapes.push(s);
        }
    }
    shapes
        .into_iter()
        .enumerate()
        .map(|(idx, (grid, block, _))| {
            let mut rng = rng_for(seed, "deep_divergence", idx);
            // Per warp a random permutation of the ranks 0 … L−1, its first lanes used; the
            // first case's call ranks fall from lane 0 (L − 1 … 0), the deepest call nest.
            let mut ranks = |falling: bool| {
                let mut rank = Vec::new();
                for _cta in 0..grid {
                    for w in 0..block.div_ceil(lanes) {
                        let mut perm: Vec<u32> = (0..lanes).rev().collect();
                        if !falling {
                            for i in (1..perm.len()).rev() {
                                perm.swap(i, rng.gen_range(0..=i));
                            }
                        }
                        let n = lanes.min(block - w * lanes);
                        rank.extend_from_slice(&perm[..n as usize]);
                    }
                }
                rank
            };
            let rank = ranks(false);
            let crank = ranks(idx == 0);
            let init: Vec<u32> = rank.iter().map(|_| rng.gen()).collect();
            data_case(
                "deep_divergence",
                format!("grid={grid} block={block}"),
                (grid, block),
                vec![
                    input("rank", &rank),
                    input("crank", &crank),
                    input("init", &init),
                    output("out", &deep_divergence_ref(&rank, &crank, &init)),
                ],
                &[],
            )
        })
        .collect()
}

// ---- cta_shared ------------------------------------------------------------------------------

/// Shared words of one `cta_shared` CTA (`CTA_SHARED_WORDS`).
pub const CTA_SHARED_WORDS: u32 = 64;

/// Shared words of one `cta_shared_w5` and one `cta_shared_w12` CTA: 20 and 48 bytes, so that
/// the CTA slots' shared bases (slot × 20, slot × 48) set and clear the low base bits that
/// 64-word windows leave 0.
pub const CTA_SHARED_W5_WORDS: u32 = 5;
pub const CTA_SHARED_W12_WORDS: u32 = 12;

/// (out, window) of cta_shared.c built with `n` shared words (`CTA_SHARED_WORDS`).
pub fn cta_shared_ref(grid: u32, block: u32, rounds: u32, n: u32) -> (Vec<u32>, Vec<u32>) {
    let mut out = Vec::new();
    let mut window = Vec::new();
    for c in 0..grid {
        for t in 0..block {
            let mut d = t + 1000;
            for _ in 0..3 {
                d = d / 3 + 777;
            }
            let mut acc = 0u32;
            for r in 0..rounds {
                acc = acc.wrapping_add(d & 1);
                acc = acc.wrapping_add((c << 20) ^ (r << 12) ^ ((t + 1) % n));
            }
            out.push(acc);
        }
        let last = rounds.saturating_sub(1);
        for j in 0..n {
            window.push(if rounds == 0 {
                0
            } else {
                (c << 20) ^ (last << 12) ^ ((j + n - last % n) % n)
            });
        }
    }
    (out, window)
}

/// Words of `cta_slots.c`'s shared window (`CTA_SLOTS_WORDS`).
const CTA_SLOTS_WORDS: u32 = 128;

/// `cta_slots.c`'s `out` for a grid of `grid` CTAs of `block` threads on `lanes`-wide warps.
fn cta_slots_ref(grid: u32, block: u32, lanes: u32) -> Vec<u32> {
    let word = |c: u32, t: u32| (c << 16) ^ (t << 8) ^ 0x5A;
    (0..grid)
        .flat_map(|c| {
            (0..block).map(move |t| {
                let v = word(c, (t + lanes) % block);
                if t / lanes != (block - 1) / lanes {
                    v
                } else {
                    v ^ word(c, t) ^ 0xFFFF_0000
                }
            })
        })
        .collect()
}

/// Three shapes: two full warps, a one-thread second warp, and one partial warp (only one-warp
/// CTAs can fill every CTA slot), with random waits per CTA so that CTAs end out of launch
/// order (issue 11: small's warp 3 in CTA slot 7 was never reached).
fn cta_slots_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    let lanes = limits.lanes;
    if lanes < 2 || limits.max_block < 2 * lanes || 2 * lanes > 64 || limits.sms == 0 {
        return Vec::new();
    }
    let grid = 12 * limits.sms * (limits.max_block / lanes / 2).max(1);
    [2 * lanes, lanes + 1, lanes - 1]
        .iter()
        .enumerate()
        .map(|(idx, &block)| {
            let mut rng = rng_for(seed, "cta_slots", idx);
            let spin: Vec<u32> = (0..grid).map(|_| rng.gen_range(0..24)).collect();
            Case {
                kernel: "cta_slots",
                label: format!("grid={grid} block={block}"),
                grid,
                block,
                buffers: vec![
                    output("out", &cta_slots_ref(grid, block, lanes)),
                    input("spin", &spin),
                ],
                params: vec![Param::Buffer(0), Param::Buffer(1)],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: None,
            }
        })
        .collect()
}

fn cta_shared_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    cta_shared_sized("cta_shared", CTA_SHARED_WORDS, limits, seed)
}

fn cta_shared_w5_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    cta_shared_sized("cta_shared_w5", CTA_SHARED_W5_WORDS, limits, seed)
}

fn cta_shared_w12_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    cta_shared_sized("cta_shared_w12", CTA_SHARED_W12_WORDS, limits, seed)
}

/// cta_shared.c's cases for its build with `words` shared words (kernel `kernel`).
fn cta_shared_sized(kernel: &'static str, words: u32, limits: &Limits, seed: u64) -> Vec<Case> {
    let lanes = limits.lanes;
    let warps = limits.max_block / lanes.max(1);
    if lanes < 2 || warps < 1 || limits.smem_bytes < words * 4 || limits.sms == 0 {
        return Vec::new();
    }
    let resident = limits.sms * warps; // one-warp CTAs that fit at once (warp slots)
    let b2 = partial(limits, lanes + 1).min(64);
    let shapes = [
        (resident.min(64), lanes.min(64)),
        ((resident / 2).clamp(2, 32), b2),
        ((2 * resident).min(64), partial(limits, lanes - 1).min(64)),
    ];
    let rounds = 3;
    shapes
        .iter()
        .enumerate()
        .map(|(idx, &(grid, block))| {
            let (out, window) = cta_shared_ref(grid, block, rounds, words);
            let mut rng = rng_for(seed, kernel, idx);
            let init: Vec<u32> = (0..window.len()).map(|_| rng.gen()).collect();
            data_case(
                kernel,
                format!("grid={grid} block={block}"),
                (grid, block),
                vec![output("out", &out), inout("window", &init, &window)],
                &[rounds],
            )
        })
        .collect()
}

// ---- barrier_slots ---------------------------------------------------------------------------

/// out of barrier_slots.c.
pub fn barrier_slots_ref(lanes: u32, grid: u32, block: u32) -> Vec<u32> {
    let nw = block.div_ceil(lanes);
    let delay = |r: u32| {
        let mut d = r + 0x12345;
        for _ in 0..4 {
            d = d / 3 + 0x1000;
        }
        d
    };
    let mut out = Vec::new();
    for _c in 0..grid {
        for t in 0..block {
            let lane = t % lanes;
            let mut acc = 0u32;
            for r in 0..nw {
                let partner = (lane + 1) % lanes;
                let writer = r * lanes + partner;
                if writer < block {
                    acc = acc
                        .wrapping_mul(31)
                        .wrapping_add((r << 16) ^ writer ^ delay(r));
                }
            }
            out.push(acc);
        }
    }
    out
}

fn barrier_slots_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    if limits.lanes < 2 || limits.smem_bytes < 1024 || limits.sms == 0 {
        return Vec::new();
    }
    let m = limits.max_block;
    let shapes = [
        (limits.sms, m),
        (2 * limits.sms, partial(limits, m)),
        (limits.sms + 1, m),
    ];
    shapes
        .iter()
        .enumerate()
        .map(|(idx, &(grid, block))| {
            let out = barrier_slots_ref(limits.lanes, grid, block);
            let mut rng = rng_for(seed, "barrier_slots", idx);
            let init: Vec<u32> = (0..out.len()).map(|_| rng.gen()).collect();
            Case {
                kernel: "barrier_slots",
                label: format!("grid={grid} block={block}"),
                grid,
                block,
                buffers: vec![inout("out", &init, &out)],
                params: vec![Param::Buffer(0)],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: None,
            }
        })
        .collect()
}

// ---- barrier_late_cta ------------------------------------------------------------------------

/// Rounds of the early CTAs' spinning warp and of the last CTA's late warp in barrier_late_cta.
pub const BARRIER_LATE_SPIN: u32 = 300;
pub const BARRIER_LATE_DELAY: u32 = 60;

/// out of barrier_late_cta.c.
pub fn barrier_late_cta_ref(
    lanes: u32,
    grid: u32,
    block: u32,
    exit_warp: u32,
    delay_warp: u32,
) -> Vec<u32> {
    let mut out = Vec::new();
    for c in 0..grid {
        for t in 0..block {
            let w = t / lanes;
            let mut acc = t + 1;
            if c + 1 < grid {
                if w != exit_warp {
                    for i in 0..BARRIER_LATE_SPIN {
                        acc = acc.wrapping_mul(3).wrapping_add(i);
                    }
                }
            } else {
                if w == delay_warp {
                    for i in 0..BARRIER_LATE_DELAY {
                        acc = acc.wrapping_mul(5).wrapping_add(i);
                    }
                }
                acc = acc.wrapping_add(7);
            }
            out.push(acc);
        }
    }
    out
}

/// Two-warp CTAs, one more than half the SM's warp slots: the early CTAs' warp `exit_warp`
/// exits at once, so the last CTA gets the odd (exit_warp 1) or the even (0) warp slots, and its
/// warp `delay_warp` is late to the barrier; all four pairs, and a partial second warp.
fn barrier_late_cta_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    let lanes = limits.lanes;
    if lanes < 2 || limits.max_block < 4 * lanes {
        return Vec::new();
    }
    let pairs = limits.max_block / lanes / 2;
    let grid = pairs + 1;
    let full = 2 * lanes;
    let shapes = [
        (grid, full, 1, 1),
        (grid, full, 1, 0),
        (grid, full, 0, 1),
        (grid, full, 0, 0),
        (grid, full - 1, 1, 0),
        // Enough CTAs that, on two SMs, the CTAs launched on freed slots take them again,
        // until a late CTA lands in a high CTA slot with its first warp in warp slot 0 (on
        // `small`, CTA slot 6 with warp slot 0 late at the barrier: m6 of its seed-1 sample on
        // 0d585dd, that warp's "waiting" term lost, passed every other case).
        (2 * (pairs + pairs / 2) + 1, full, 0, 0),
    ];
    shapes
        .iter()
        .enumerate()
        .map(|(idx, &(grid, block, exit_warp, delay_warp))| {
            let out = barrier_late_cta_ref(lanes, grid, block, exit_warp, delay_warp);
            let mut rng = rng_for(seed, "barrier_late_cta", idx);
            let init: Vec<u32> = (0..out.len()).map(|_| rng.gen()).collect();
            Case {
                kernel: "barrier_late_cta",
                label: format!(
                    "grid={grid} block={block} exit_warp={exit_warp} delay_warp={delay_warp}"
                ),
                grid,
                block,
                buffers: vec![inout("out", &init, &out)],
                params: vec![
                    Param::Buffer(0),
                    Param::Word(BARRIER_LATE_SPIN),
                    Param::Word(BARRIER_LATE_DELAY),
                    Param::Word(exit_warp),
                    Param::Word(delay_warp),
                ],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: None,
            }
        })
        .collect()
}

// ---- fault_* ---------------------------------------------------------------------------------

/// The fault a victim (global thread index, lane) must raise; SM and warp are filled in by
/// [`fault_cases`].
type FaultOfVictim<'a> = &'a dyn Fn(u32, u32) -> ExpectedFault;

/// The cases of a `fault_*` kernel: four per `(which, expected fault)`, all of shape grid 2 and
/// block = a full SM less one thread (a partial last warp). CTA 0 fills SM 0, so CTA 1 runs
/// on SM 1 when there are two SMs (else on SM 0 once CTA 0 is done), on warp slots from 0.
/// The victim is thread `lanes + 2` of CTA 1 (warp slot 1, lane 2; SM 1 when there are two)
/// in the first case, the last lane of warp slot `W - 2` of CTA 0 (SM 0) in the second,
/// thread 0 of CTA 1 (warp slot 0, lane 0) in the third and lane 1 of CTA 0's last, partial
/// warp (slot `W - 1`) in the fourth, so the fault record's SM takes two values and its warp
/// and lane four (every warp slot and lane of `tiny`). `fault` gets the victim's
/// global thread index and lane and returns the fault it must raise (SM and warp filled in
/// here).
fn fault_cases(
    kernel: &'static str,
    limits: &Limits,
    seed: u64,
    faults: &[(&str, FaultOfVictim)],
) -> Vec<Case> {
    let Some((grid, block, slots)) = victim_shape(limits) else {
        return Vec::new();
    };
    // (CTA, thread in it, SM, label suffix, seed offset)
    let victims = [
        (1, limits.lanes + 2, u32::from(limits.sms >= 2), "", 0),
        (
            0,
            (slots - 2) * limits.lanes + limits.lanes - 1,
            0,
            " victim=cta0",
            32,
        ),
        // Lanes 0 and 1 and the first and last warp slots: with only the two above, the fault
        // record's lane bit 1 was 1 in every case, and a unit's first-lane choice could lose
        // lane 0's or lane 1's number unseen (issue 11).
        (1, 0, u32::from(limits.sms >= 2), " victim=lane0", 64),
        (0, (slots - 1) * limits.lanes + 1, 0, " victim=lane1", 96),
    ];
    let mut cases = Vec::new();
    for (vcta, vtid, sm, suffix, salt) in victims {
        for (which, (what, fault)) in faults.iter().enumerate() {
            let mut rng = rng_for(seed, kernel, which + salt);
            let init: Vec<u32> = (0..grid * block).map(|_| rng.gen()).collect();
            let mut f = fault(vcta * block + vtid, vtid % limits.lanes);
            f.sm = sm;
            f.warp = vtid / limits.lanes;
            cases.push(victim_case(
                kernel,
                format!("{what} grid={grid} block={block}{suffix}"),
                (grid, block),
                &init,
                [which as u32, vcta, vtid],
                f,
            ));
        }
    }
    cases
}

/// The launch of the fault kernels' victim cases: 2 CTAs of the largest partial block, and its
/// warp slots; `None` on a GPU too small for the victims (fewer than 4 lanes or 2 warps + 1).
fn victim_shape(limits: &Limits) -> Option<(u32, u32, u32)> {
    if limits.lanes < 4 || limits.max_block < 2 * limits.lanes + 1 {
        return None;
    }
    let block = partial(limits, limits.max_block);
    Some((2, block, block.div_ceil(limits.lanes)))
}

/// A case of a kernel with `fault_kernel.h`'s parameter block (`out`, `which`, `victim_cta`,
/// `victim_tid`): `out` starts as `init` and is not compared (the run must stop on `fault`).
fn victim_case(
    kernel: &'static str,
    label: String,
    (grid, block): (u32, u32),
    init: &[u32],
    [which, vcta, vtid]: [u32; 3],
    fault: ExpectedFault,
) -> Case {
    Case {
        expected_fault: Some(fault),
        ..data_case(
            kernel,
            label,
            (grid, block),
            vec![inout("out", init, init)],
            &[which, vcta, vtid],
        )
    }
}

/// An expected fault at the start of function `pc` (SM and warp are set by [`fault_cases`]).
fn fault_at(cause: &'static str, pc: &'static str) -> ExpectedFault {
    ExpectedFault {
        cause,
        sm: 0,
        warp: 0,
        pc: FaultAddr::Function(pc, 0),
        lane: None,
        addr: None,
    }
}

/// Grids no run could finish (docs/verification.md, the kernel table): all 32 bits of `nctaid`
/// set, only bit 31 with bit 0, and every bit but those two. The breakpoint in CTA 0 ends each
/// run within a few hundred cycles.
fn huge_grid_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    let block = partial(limits, 2 * limits.lanes + 1);
    [0xffff_ffffu32, 0x8000_0001, 0x7fff_fffe]
        .iter()
        .enumerate()
        .map(|(i, &grid)| {
            let mut rng = rng_for(seed, "huge_grid", i);
            let init: Vec<u32> = (0..block).map(|_| rng.gen()).collect();
            Case {
                kernel: "huge_grid",
                label: format!("grid=0x{grid:08x} block={block}"),
                grid,
                block,
                buffers: vec![inout("out", &init, &init)],
                params: vec![Param::Buffer(0)],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: Some(fault_at("breakpoint", "wf_fault_ebreak")),
            }
        })
        .collect()
}

fn fault_sys_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    fault_cases(
        "fault_sys",
        limits,
        seed,
        &[
            ("slli-imm5", &|_, _| {
                fault_at("illegal-instruction", "wf_fault_slli32")
            }),
            ("simt-funct3", &|_, _| {
                fault_at("illegal-instruction", "wf_fault_simt3")
            }),
            ("ecall", &|_, _| fault_at("ecall", "wf_fault_ecall")),
            ("ebreak", &|_, _| fault_at("breakpoint", "wf_fault_ebreak")),
        ],
    )
}

fn fault_decode_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    let illegal = |f: &'static str| fault_at("illegal-instruction", f);
    let mut cases = fault_cases(
        "fault_decode",
        limits,
        seed,
        &[
            ("load-funct3-3", &|_, _| illegal("fd_ld")),
            ("load-funct3-6", &|_, _| illegal("fd_lwu")),
            ("store-funct3-3", &|_, _| illegal("fd_sd")),
            ("branch-funct3-2", &|_, _| illegal("fd_br2")),
            ("jalr-funct3-1", &|_, _| illegal("fd_jalr1")),
            ("sll-funct7-20", &|_, _| illegal("fd_sll20")),
            ("opcode-7f", &|_, _| illegal("fd_op7f")),
        ],
    );
    // One victim per encoding, the victims in turn (fault_sys already varies the fault
    // record's SM, warp and lane over all four for each of its causes).
    let n = 7;
    let mut i = 0;
    cases.retain(|_| {
        let keep = (i / n) == (i % n) % 4;
        i += 1;
        keep
    });
    cases.extend(late_illegal_cases(limits, seed));
    cases
}

/// fault_decode's case 7 (`fd_late`: the illegal word lands in an I-buffer's second entry) in
/// every warp slot of CTA 0 and CTA 1 (SM 0 and SM 1 on two-SM presets), in lane `slot % lanes`.
fn late_illegal_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    let Some((grid, block, slots)) = victim_shape(limits) else {
        return Vec::new();
    };
    let mut cases = Vec::new();
    for vcta in 0..grid {
        for w in 0..slots {
            let vtid = (w * limits.lanes + w % limits.lanes).min(block - 1);
            let mut rng = rng_for(seed, "fault_decode", 128 + (vcta * slots + w) as usize);
            let init: Vec<u32> = (0..grid * block).map(|_| rng.gen()).collect();
            cases.push(victim_case(
                "fault_decode",
                format!("late-illegal cta={vcta} slot={w} grid={grid} block={block}"),
                (grid, block),
                &init,
                [7, vcta, vtid],
                ExpectedFault {
                    sm: if limits.sms >= 2 { vcta } else { 0 },
                    warp: vtid / limits.lanes,
                    pc: FaultAddr::Function("fd_late", 12),
                    ..fault_at("illegal-instruction", "fd_late")
                },
            ));
        }
    }
    cases
}

fn fault_csr_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    let mut cases = fault_cases(
        "fault_csr",
        limits,
        seed,
        &[
            ("csrrw-x0", &|_, _| {
                fault_at("illegal-instruction", "wf_fault_csrrw")
            }),
            ("csrrs-rs1", &|_, _| {
                fault_at("illegal-instruction", "wf_fault_csrrs")
            }),
            ("csrrci-uimm", &|_, _| {
                fault_at("illegal-instruction", "wf_fault_csrrci")
            }),
            ("csr-0xcce", &|_, _| {
                fault_at("illegal-instruction", "wf_fault_csr_cce")
            }),
            ("csr-0xc01", &|_, _| {
                fault_at("illegal-instruction", "wf_fault_csr_c01")
            }),
        ],
    );
    // Unknown CSR numbers one bit of the upper eight away from the warpforge range (which 5 …
    // 11, fault_csr.c), each once, the first victim (CTA 1, lane 2 of warp 1).
    const NEAR: [&str; 7] = [
        "wf_fault_csr_near_cd0",
        "wf_fault_csr_near_ce0",
        "wf_fault_csr_near_c40",
        "wf_fault_csr_near_dc0",
        "wf_fault_csr_near_ec0",
        "wf_fault_csr_near_8c0",
        "wf_fault_csr_near_4c0",
    ];
    if let Some(first) = cases.first().cloned() {
        for (k, f) in NEAR.iter().enumerate() {
            let which = 5 + k as u32;
            let mut case = first.clone();
            let shape = first.label.split_once(' ').map_or("", |(_, s)| s);
            case.label = format!("csr-0x{} {shape}", &f[f.len() - 3..]);
            case.params[1] = Param::Word(which);
            case.expected_fault = first.expected_fault.map(|e| ExpectedFault {
                pc: FaultAddr::Function(f, 0),
                ..e
            });
            cases.push(case);
        }
    }
    cases
}

fn fault_mem_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    let at = |cause, pc, addr, lane| ExpectedFault {
        lane: Some(lane),
        addr: Some(addr),
        ..fault_at(cause, pc)
    };
    fault_cases(
        "fault_mem",
        limits,
        seed,
        &[
            ("lw-misaligned", &|v, lane| {
                at(
                    "misaligned-load",
                    "wf_fault_lw",
                    FaultAddr::Buffer(0, 4 * v + 2),
                    lane,
                )
            }),
            ("sh-misaligned", &|v, lane| {
                at(
                    "misaligned-store",
                    "wf_fault_sh",
                    FaultAddr::Buffer(0, 4 * v + 1),
                    lane,
                )
            }),
            ("lw-imem", &|_, lane| {
                at(
                    "out-of-range-load",
                    "wf_fault_lw",
                    FaultAddr::Abs(0x100),
                    lane,
                )
            }),
            ("sw-past-shared", &|_, lane| {
                at(
                    "out-of-range-store",
                    "wf_fault_sw",
                    FaultAddr::Abs(0x1000_0040),
                    lane,
                )
            }),
            ("lbu-below-global", &|_, lane| {
                at(
                    "out-of-range-load",
                    "wf_fault_lbu",
                    FaultAddr::Abs(0x7fff_ffff),
                    lane,
                )
            }),
        ],
    )
}

/// One case per lane `v`: the victim is lane `v` of a full warp of CTA `v % 2` (SM 1 for CTA 1
/// on two-SM presets), which stores a word (even `v`) or loads a byte (odd `v`) at the end of
/// its CTA's 36-byte window alone in its warp, so lane `v`'s own limit check is the one that
/// must raise the fault (issue 11: small's lane 5 limit bit 4). The block is a full SM less one
/// thread, as [`fault_cases`]'s, so CTA 1 runs on SM 1 or after CTA 0 in the same warp slots.
fn shared_bounds_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    let lanes = limits.lanes;
    if lanes < 2 || limits.max_block < 2 * lanes + 1 {
        return Vec::new();
    }
    let block = partial(limits, limits.max_block);
    let full_warps = block / lanes;
    (0..lanes)
        .map(|v| {
            let vcta = v % 2;
            let warp = (v / 2) % full_warps;
            let vtid = warp * lanes + v;
            let which = v % 2;
            let mut rng = rng_for(seed, "shared_bounds", v as usize);
            let init: Vec<u32> = (0..2 * block).map(|_| rng.gen()).collect();
            let (what, cause, pc) = if which == 0 {
                ("sw", "out-of-range-store", "wf_fault_sw")
            } else {
                ("lbu", "out-of-range-load", "wf_fault_lbu")
            };
            victim_case(
                "shared_bounds",
                format!(
                    "{what}-past-window grid=2 block={block} victim=cta{vcta}-warp{warp}-lane{v}"
                ),
                (2, block),
                &init,
                [which, vcta, vtid],
                ExpectedFault {
                    sm: vcta * u32::from(limits.sms >= 2),
                    warp,
                    lane: Some(v),
                    addr: Some(FaultAddr::Abs(0x1000_0024)),
                    ..fault_at(cause, pc)
                },
            )
        })
        .collect()
}

fn fault_ctrl_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    let mut cases = fault_cases(
        "fault_ctrl",
        limits,
        seed,
        &[
            ("jal-misaligned", &|_, _| ExpectedFault {
                addr: Some(FaultAddr::Function("wf_fault_jal", 6)),
                ..fault_at("misaligned-fetch", "wf_fault_jal")
            }),
            ("jalr-misaligned", &|_, lane| ExpectedFault {
                lane: Some(lane),
                addr: Some(FaultAddr::Function("wf_fault_jalr", 2)),
                ..fault_at("misaligned-fetch", "wf_fault_jalr")
            }),
            ("fetch-out-of-range", &|_, _| ExpectedFault {
                pc: FaultAddr::Abs(0x0100_0000),
                addr: Some(FaultAddr::Abs(0x0100_0000)),
                ..fault_at("out-of-range-fetch", "wf_fault_jalr")
            }),
            // The `ret` of wf_fault_divret: 9 instructions in (two `la`s are 2 each); lane 2 is
            // the lowest whose target differs, whoever the victim is.
            ("ret-divergent", &|_, _| ExpectedFault {
                pc: FaultAddr::Function("wf_fault_divret", 0x24),
                lane: Some(2),
                ..fault_at("divergent-jump", "wf_fault_divret")
            }),
            // The `bnez` 3 instructions into wf_fault_unrec (reached at +4).
            ("branch-unanalysed", &|_, _| ExpectedFault {
                pc: FaultAddr::Function("wf_fault_unrec", 12),
                ..fault_at("unknown-reconvergence", "wf_fault_unrec")
            }),
            // A jal 1 MiB back from near 0: the target wraps (bits 20-31 set).
            ("jal-back-out-of-range", &|_, _| {
                let at = FaultAddr::Function("wf_fault_jalback", 0u32.wrapping_sub(0x10_0000));
                ExpectedFault {
                    pc: at,
                    addr: Some(at),
                    ..fault_at("out-of-range-fetch", "wf_fault_jalback")
                }
            }),
            // The same, 2 bytes further: misaligned, so the branch unit reports it with the
            // wrapped target (bits 20-31 set) as the fault address.
            ("jal-back-misaligned", &|_, _| ExpectedFault {
                addr: Some(FaultAddr::Function(
                    "wf_fault_jalbackm",
                    0u32.wrapping_sub(0x10_0000 - 2),
                )),
                ..fault_at("misaligned-fetch", "wf_fault_jalbackm")
            }),
        ],
    );
    cases.extend(wild_fetch_cases(limits, seed));
    cases.extend(divergent_return_lane_cases(limits, seed));
    cases
}

/// fault_ctrl's `which` 16 + s: a divergent `ret` whose lanes below `s` return elsewhere than
/// the others, for every split s = 1 … L−1, so divergent-jump reports every lane 1 … L−1 (the
/// lowest lane whose target differs from lane 0's). The victim warp moves through the slots.
fn divergent_return_lane_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    let lanes = limits.lanes;
    if lanes < 2 || limits.max_block < lanes {
        return Vec::new();
    }
    let block = limits.max_block / lanes * lanes;
    let warps = block / lanes;
    let grid = 1;
    (1..lanes)
        .map(|split| {
            let w = split % warps;
            let mut rng = rng_for(seed, "fault_ctrl", 1024 + split as usize);
            let init: Vec<u32> = (0..grid * block).map(|_| rng.gen()).collect();
            victim_case(
                "fault_ctrl",
                format!("ret-divergent-lane{split} slot={w} grid={grid} block={block}"),
                (grid, block),
                &init,
                [16 + split, 0, w * lanes],
                ExpectedFault {
                    warp: w,
                    pc: FaultAddr::Function("wf_fault_divret_at", 0x24),
                    lane: Some(split),
                    ..fault_at("divergent-jump", "wf_fault_divret_at")
                },
            )
        })
        .collect()
}

/// Each fault source at two PCs whose bits 2-13 are complementary (fault_hipc.c).
fn fault_hipc_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    let jal = |f: &'static str| ExpectedFault {
        addr: Some(FaultAddr::Function(f, 6)),
        ..fault_at("misaligned-fetch", f)
    };
    let lw = |f: &'static str, v: u32, lane: u32| ExpectedFault {
        lane: Some(lane),
        addr: Some(FaultAddr::Buffer(0, 4 * v + 2)),
        ..fault_at("misaligned-load", f)
    };
    fault_cases(
        "fault_hipc",
        limits,
        seed,
        &[
            ("jal-misaligned-1554", &|_, _| jal("hp_jal_lo")),
            ("jal-misaligned-2aa8", &|_, _| jal("hp_jal_hi")),
            ("lw-misaligned-1454", &|v, lane| lw("hp_lw_lo", v, lane)),
            ("lw-misaligned-2ba8", &|v, lane| lw("hp_lw_hi", v, lane)),
            ("ebreak-1354", &|_, _| fault_at("breakpoint", "hp_brk_lo")),
            ("ebreak-2ca8", &|_, _| fault_at("breakpoint", "hp_brk_hi")),
        ],
    )
}

/// Targets of fault_ctrl's cases 7 and 8: every PC bit 2..31 is 1 in one and 0 in the other.
const WILD_TARGETS: [(u32, &str); 2] = [(0xAAAA_AAA8, "aaaa"), (0x5555_5554, "5555")];

/// fault_ctrl cases 7 and 8 once per warp slot: a `jalr` to a wild target in one thread of
/// slot `w`, so the fetch PC registers of every slot carry every PC bit as 1 and as 0 to the
/// fault record (the other cases fault only in slot 1).
fn wild_fetch_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    let Some((grid, block, slots)) = victim_shape(limits) else {
        return Vec::new();
    };
    let mut cases = Vec::new();
    for (which, (target, name)) in WILD_TARGETS.iter().enumerate() {
        for w in 0..slots {
            let vtid = (w * limits.lanes + 2).min(block - 1);
            let mut rng = rng_for(seed, "fault_ctrl", 16 + which * 64 + w as usize);
            let init: Vec<u32> = (0..grid * block).map(|_| rng.gen()).collect();
            cases.push(victim_case(
                "fault_ctrl",
                format!("fetch-out-of-range-{name} slot={w} grid={grid} block={block}"),
                (grid, block),
                &init,
                [7 + which as u32, 1, vtid],
                ExpectedFault {
                    sm: u32::from(limits.sms >= 2),
                    warp: vtid / limits.lanes,
                    pc: FaultAddr::Abs(*target),
                    addr: Some(FaultAddr::Abs(*target)),
                    ..fault_at("out-of-range-fetch", "wf_fault_jalr")
                },
            ));
        }
    }
    cases
}

/// The cases of wild_targets.c: `(label, which, value, victim, wild PC)`. `which` 0 and 1 are the
/// `jalr` (lanes of parity `which` take `value`, the others `value - 1`: one target, `value -
/// 1`), 2 the `AtReturn` return to `ra = value`. Each victim is the lowest active lane of the
/// faulting warp (its lanes from the victim up run the probe). The branch unit groups the lanes
/// whose rs1 equals the lowest active lane's or `a_adj`: that rs1 - 1 when it is odd (`dec`
/// cases), + 1 when it is even (`inc`), for the even imm 0.
/// * `jalr-00020001-dec`: lane 0 of CTA 1's warp 1; bit 17 set, 23 clear (a mutant flipping
///   `a_adj`'s bit 23 with bit 17 on the `- 1` path split the group: link mask 0x5, not 0xf);
/// * `jalr-aaaaaaa9-dec`, `-inc`: lane `lanes - 2` of CTA 1's warp 0; lane 1 of CTA 0's warp
///   W-2;
/// * `jalr-55555555-dec`, `-inc`: lane 1 of CTA 0's last, partial warp; lane 0 of CTA 1's
///   warp 1;
/// * `ret-00100040`: the whole of CTA 1's warp 1; RPC bits 6 and 20 set (a mutant flipping
///   the RPC's bit 6 with bit 20 sent the first side to the wild PC alone);
/// * `ret-aaaaaaa8`: lanes `lanes - 2` and up of CTA 1's warp 0;
/// * `ret-55555554`: lanes 1 and up of CTA 0's warp W-2;
/// * `ret-55555555`, `ret-aaaaaaa9`: an odd `ra`, so the return (to `ra & !1`) misses the RPC
///   and the first side fetches the wild PC alone: the RPC's bit 0, 0 in every other run, is
///   1 in the branch unit, the stack's RAM and its top.
///
/// Between them each of the wild PC's bits 2-31 is 1 and 0 on both `a_adj` paths and in the
/// RPC, and the fault record's SM (on two-SM presets), warp and the lowest lane take several
/// values.
fn wild_targets_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    /// (CTA, thread index in it, SM).
    type Victim = (u32, u32, u32);
    let lanes = limits.lanes;
    if lanes < 4 || limits.max_block < 2 * lanes + 1 {
        return Vec::new();
    }
    let block = partial(limits, limits.max_block);
    let grid = 2;
    let slots = block.div_ceil(lanes);
    let sm1 = u32::from(limits.sms >= 2);
    // CTA 0 fills SM 0, so CTA 1 runs on SM 1 if there is one.
    let v_w1 = (1, lanes, sm1);
    let v_w0_high = (1, lanes - 2, sm1);
    let v_wm2 = (0, (slots - 2) * lanes + 1, 0);
    let v_last = (0, (slots - 1) * lanes + 1, 0);
    let list: [(&str, u32, u32, Victim, u32); 16] = [
        ("jalr-00020001-dec", 0, 0x0002_0001, v_w1, 0x0002_0000),
        ("jalr-aaaaaaa9-dec", 0, 0xAAAA_AAA9, v_w0_high, 0xAAAA_AAA8),
        ("jalr-aaaaaaa9-inc", 0, 0xAAAA_AAA9, v_wm2, 0xAAAA_AAA8),
        ("jalr-55555555-dec", 1, 0x5555_5555, v_last, 0x5555_5554),
        ("jalr-55555555-inc", 1, 0x5555_5555, v_w1, 0x5555_5554),
        ("ret-00100040", 2, 0x0010_0040, v_w1, 0x0010_0040),
        ("ret-aaaaaaa8", 2, 0xAAAA_AAA8, v_w0_high, 0xAAAA_AAA8),
        ("ret-55555554", 2, 0x5555_5554, v_wm2, 0x5555_5554),
        // ra odd: `ret` jumps to ra & !1, which misses the RPC (ra), so the first side fetches
        // the wild PC alone and the other side never runs: the RPC's bit 0 is 1 only here.
        ("ret-55555555", 2, 0x5555_5555, v_w1, 0x5555_5554),
        ("ret-aaaaaaa9", 2, 0xAAAA_AAA9, v_wm2, 0xAAAA_AAA8),
        // A refilled AtReturn entry (`which` 3) with ra's bits 2-31 both ways in each of warp
        // slots 0, 1 and 2 of SM 0 (whole warps): the stack's per-warp refill logic.
        (
            "ret-refill-aaaaaaa8",
            3,
            0xAAAA_AAA8,
            (0, 0, 0),
            0xAAAA_AAA8,
        ),
        (
            "ret-refill-55555554",
            3,
            0x5555_5554,
            (0, 0, 0),
            0x5555_5554,
        ),
        (
            "ret-refill-aaaaaaa8",
            3,
            0xAAAA_AAA8,
            (0, lanes, 0),
            0xAAAA_AAA8,
        ),
        (
            "ret-refill-55555554",
            3,
            0x5555_5554,
            (0, lanes, 0),
            0x5555_5554,
        ),
        (
            "ret-refill-aaaaaaa8",
            3,
            0xAAAA_AAA8,
            (0, 2 * lanes, 0),
            0xAAAA_AAA8,
        ),
        (
            "ret-refill-55555554",
            3,
            0x5555_5554,
            (0, 2 * lanes, 0),
            0x5555_5554,
        ),
    ];
    // Every lane that can be the lowest active one of a divergent return (0 … lanes-2) once
    // with each of the two complementary addresses, in SM 0's full warps in turn: the RPC is
    // the lowest active lane's `ra`, and each lane's copy of it has its own operand RAM bits,
    // dispatch-register bits and bypass path (small's m59, m69 and m79 of its seed-1 sample on
    // 837fe20, lane 3's `ra` bits 22, 24 and 26, passed every run: lanes 0, 1 and 6 only).
    let full_warps = block / lanes;
    let sweep: Vec<(String, u32)> = (0..lanes - 1)
        .flat_map(|v| [(v, 0xAAAA_AAA8u32), (v, 0x5555_5554)])
        .filter(|&(v, value)| {
            !(v == lanes - 2 && value == 0xAAAA_AAA8 || v == 1 && value == 0x5555_5554)
        })
        .map(|(v, value)| (format!("ret-{value:08x}-lane{v}"), v))
        .collect();
    let sweep_cases = sweep.iter().map(|(what, v)| {
        let value = if what.contains("aaaaaaa8") {
            0xAAAA_AAA8
        } else {
            0x5555_5554
        };
        let warp = v % full_warps;
        (what.as_str(), 2, value, (0, warp * lanes + v, 0), value)
    });
    list.iter()
        .copied()
        .chain(sweep_cases)
        .enumerate()
        // The refill cases need a whole warp (both inner sides) at the victim.
        .filter(|(_, (_, which, _, victim, _))| *which != 3 || victim.1 + lanes <= block)
        .map(|(i, (what, which, value, victim, pc))| {
            let fault = |warp, _| ExpectedFault {
                cause: "out-of-range-fetch",
                sm: victim.2,
                warp,
                pc: FaultAddr::Abs(pc),
                lane: None,
                addr: Some(FaultAddr::Abs(pc)),
            };
            wild_case(
                "wild_targets",
                seed,
                i,
                (grid, block, lanes),
                what,
                which,
                value,
                victim,
                fault,
            )
        })
        .collect()
}

/// One case of `wild_targets` or `wild_ctrl` (same parameters: out, which, victim CTA, victim
/// thread, value): random `out`, the victim `(cta, tid, sm)`, the expected fault from the
/// victim's warp and lane.
#[allow(clippy::too_many_arguments)]
fn wild_case(
    kernel: &'static str,
    seed: u64,
    index: usize,
    (grid, block, lanes): (u32, u32, u32),
    what: &str,
    which: u32,
    value: u32,
    (cta, tid, _sm): (u32, u32, u32),
    fault: impl Fn(u32, u32) -> ExpectedFault,
) -> Case {
    let mut rng = rng_for(seed, kernel, index);
    let init: Vec<u32> = (0..grid * block).map(|_| rng.gen()).collect();
    let (warp, lane) = (tid / lanes, tid % lanes);
    Case {
        kernel,
        label: format!("{what} grid={grid} block={block} cta={cta} warp={warp} lane={lane}"),
        grid,
        block,
        buffers: vec![inout("out", &init, &init)],
        params: vec![
            Param::Buffer(0),
            Param::Word(which),
            Param::Word(cta),
            Param::Word(tid),
            Param::Word(value),
        ],
        cta_base: 0,
        counter_base: COUNTER_BASE,
        expected_fault: Some(fault(warp, lane)),
    }
}

/// wild_ctrl's `jalr ra, 2(a0)` (`which` 0), 4 bytes into wc_jmis.
const WC_JMIS: FaultAddr = FaultAddr::Function("wc_jmis", 4);
/// The target of wild_ctrl's `beq` 16 bytes into wc_wrap (`which` 1): 4 KiB back, below 0.
const WC_WRAP: FaultAddr = FaultAddr::Function("wc_wrap", 16u32.wrapping_sub(4096));

/// `value` + wild_ctrl's wc_hleaf's first `ret` (16 bytes in; `which` 2).
fn wc_hit(value: u32) -> FaultAddr {
    FaultAddr::Function("wc_hleaf", 16 + value)
}

/// The cases of wild_ctrl.c (victims as in [`wild_targets_cases`]; each the lowest active lane
/// of its warp, which runs the probe from it up):
/// * `jalr-misaligned-55555556`, `-aaaaaaaa` (`which` 0): lane 0 of CTA 1's warp 1; lane 1
///   of CTA 0's warp W-2. Every bit 2-31 of the fault address is 1 in one and 0 in the other
///   (m16: bit 13 flipped with bit 20 reported 0x55557556);
/// * `branch-wrap-minority`, `-tie` (`which` 1): the whole of CTA 1's warp 1 (the last lane
///   alone takes it); lanes `lanes - 2` and up of CTA 1's warp 0 (one of two: on `tiny` a tie);
/// * `ret-hit-00040000` (`which` 2): the whole of CTA 0's warp 2 (warp slot 2: m12 of fetch's
///   RPC compare in that slot cost 7 cycles), and 0x00004000 (warp 1 of CTA 1) and 0x80000000
///   (the last, partial warp of CTA 0) for bits 14 and 31 in other slots.
fn wild_ctrl_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    /// (CTA, thread index in it, SM).
    type Victim = (u32, u32, u32);
    let lanes = limits.lanes;
    if lanes < 4 || limits.max_block < 3 * lanes + 1 {
        return Vec::new();
    }
    let block = partial(limits, limits.max_block);
    let grid = 2;
    let slots = block.div_ceil(lanes);
    let sm1 = u32::from(limits.sms >= 2);
    let v_w1 = (1, lanes, sm1);
    let v_w0_high = (1, lanes - 2, sm1);
    let v_wm2 = (0, (slots - 2) * lanes + 1, 0);
    let v_w2 = (0, 2 * lanes, 0);
    let v_last = (0, (slots - 1) * lanes + 1, 0);
    let fetch = "out-of-range-fetch";
    let misaligned = "misaligned-fetch";
    // (label, which, value, victim, cause, pc, lane reported, address)
    type Row<'a> = (
        &'a str,
        u32,
        u32,
        Victim,
        &'a str,
        FaultAddr,
        bool,
        FaultAddr,
    );
    let abs = FaultAddr::Abs;
    let list: [Row; 7] = [
        (
            "jalr-misaligned-55555556",
            0,
            0x5555_5554,
            v_w1,
            misaligned,
            WC_JMIS,
            true,
            abs(0x5555_5556),
        ),
        (
            "jalr-misaligned-aaaaaaaa",
            0,
            0xAAAA_AAA8,
            v_wm2,
            misaligned,
            WC_JMIS,
            true,
            abs(0xAAAA_AAAA),
        ),
        (
            "branch-wrap-minority",
            1,
            0,
            v_w1,
            fetch,
            WC_WRAP,
            false,
            WC_WRAP,
        ),
        (
            "branch-wrap-tie",
            1,
            0,
            v_w0_high,
            fetch,
            WC_WRAP,
            false,
            WC_WRAP,
        ),
        (
            "ret-hit-00040000",
            2,
            0x0004_0000,
            v_w2,
            fetch,
            wc_hit(0x4_0000),
            false,
            wc_hit(0x4_0000),
        ),
        (
            "ret-hit-00004000",
            2,
            0x0000_4000,
            v_w1,
            fetch,
            wc_hit(0x4000),
            false,
            wc_hit(0x4000),
        ),
        (
            "ret-hit-80000000",
            2,
            0x8000_0000,
            v_last,
            fetch,
            wc_hit(0x8000_0000),
            false,
            wc_hit(0x8000_0000),
        ),
    ];
    list.iter()
        .enumerate()
        .map(
            |(i, &(what, which, value, victim, cause, pc, has_lane, addr))| {
                let fault = |warp, lane| ExpectedFault {
                    cause,
                    sm: victim.2,
                    warp,
                    pc,
                    lane: has_lane.then_some(lane),
                    addr: Some(addr),
                };
                wild_case(
                    "wild_ctrl",
                    seed,
                    i,
                    (grid, block, lanes),
                    what,
                    which,
                    value,
                    victim,
                    fault,
                )
            },
        )
        .collect()
}

/// The wild PC of fetch_race's jump (bit 29 set; every even bit 3-31).
pub const FETCH_RACE_TARGET: u32 = 0xAAAA_AAA8;
/// Rounds of fetch_race's loop in the warps that do not jump.
pub const FETCH_RACE_LONG: u32 = 100;

/// Rounds before the jump in warp slot 2: on `tiny` m128 showed with 1, 6 and 9 under `zero`
/// memory and 2, 6 and 13 under `random` (seed 1); which rounds lose the fetch arbitration
/// depends on the exact timing, so the cases sweep them.
pub const FETCH_RACE_ROUNDS: [u32; 5] = [1, 2, 6, 9, 13];

/// fetch_race.c: warp slot 2 of SM 0 jumps after each of [`FETCH_RACE_ROUNDS`] (block = a
/// full SM), and every other warp slot (up to 8) after 6 (block = a full SM less one thread),
/// each expecting out-of-range-fetch at the target. Grid 2: CTA 0 fills SM 0.
fn fetch_race_cases(limits: &Limits, seed: u64) -> Vec<Case> {
    let lanes = limits.lanes;
    let block = limits.max_block;
    if lanes == 0 || block < 3 * lanes {
        return Vec::new();
    }
    let grid = 2;
    let slots = (block / lanes).min(8);
    // (jumper, rounds, block): the other slots' runs with a partial last warp.
    let mut runs: Vec<(u32, u32, u32)> = FETCH_RACE_ROUNDS.iter().map(|&s| (2, s, block)).collect();
    runs.extend(
        (0..slots)
            .filter(|&w| w != 2)
            .map(|w| (w, 6, partial(limits, block))),
    );
    runs.iter()
        .enumerate()
        .map(|(idx, &(jumper, shrt, block))| {
            let mut rng = rng_for(seed, "fetch_race", idx);
            let init: Vec<u32> = (0..grid * block).map(|_| rng.gen()).collect();
            Case {
                kernel: "fetch_race",
                label: format!("grid={grid} block={block} jumper={jumper} short={shrt}"),
                grid,
                block,
                buffers: vec![inout("out", &init, &init)],
                params: vec![
                    Param::Buffer(0),
                    Param::Word(FETCH_RACE_TARGET),
                    Param::Word(shrt),
                    Param::Word(FETCH_RACE_LONG),
                    Param::Word(jumper),
                ],
                cta_base: 0,
                counter_base: COUNTER_BASE,
                expected_fault: Some(ExpectedFault {
                    cause: "out-of-range-fetch",
                    sm: 0,
                    warp: jumper,
                    pc: FaultAddr::Abs(FETCH_RACE_TARGET),
                    lane: None,
                    addr: Some(FaultAddr::Abs(FETCH_RACE_TARGET)),
                }),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_on_known_values() {
        assert_eq!(vecadd_ref(&[1, u32::MAX], &[2, 2], 2), vec![3, 1]);
        assert_eq!(saxpy_ref(3, &[2, 5], &[1, 1], 1), vec![7, 1]);
        assert_eq!(reduce_ref(&[1, 2, 3, 4, 5], 5, 3, 2), vec![3, 7, 5]);
        assert_eq!(reduce_ref(&[1, 2, 3], 3, 3, 2), vec![3, 3, 0]);
        // Fig. 3.2 with N = 2: thread 0 sees (1,1),(0,_) -> x=1, z=3; thread 1 (2,0),(3,4) -> y=2, x=1.
        let (x, y, z) = divergent_loop_ref(&[1, 0, 2, 3], &[1, 9, 0, 4], 2, 2);
        assert_eq!((x, y, z), (vec![1, 1], vec![0, 2], vec![3, 0]));
        assert_eq!(
            nested_divergence_ref(&[1, 1, 0, -5], &[0, 1, 0, 0], &[2, 2, 7, 7], 4),
            vec![25, 4, 9, 9]
        );
        assert_eq!(
            trip_count_ref(&[1, 2, 3, 0, 27], 5, 50),
            vec![0, 1, 7, 50, 50]
        );
        assert_eq!(
            matmul_ref(&[1, 2, 3, 4], &[5, 6, 7, 8], 2),
            vec![19, 22, 43, 50]
        );
        assert_eq!(
            transpose_ref(&[1, 2, 3, 4, 5, 6], 2, 3),
            vec![1, 4, 2, 5, 3, 6]
        );
        // Marsaglia's xorshift32 of 1 is 270369; round 0 adds nothing.
        assert_eq!(alu_mix_ref(1, 1, 1), vec![270_369]);
        assert_eq!(alu_mix_ref(5, 2, 0), vec![5, 5 ^ 0x9E37_79B9]);
        assert_eq!(divergent_call_g(2), 15);
        assert_eq!(divergent_call_h(0b1110), 2 + 3);
        // f(16): v & 15 = 0, one iteration: s = 0*3 + (0 ^ 16).
        assert_eq!(divergent_call_f(16), 16);
        // f(1): k = 0, 1: s = 1, then 1*3 + (1^1) = 3.
        assert_eq!(divergent_call_f(1), 3);
        let (d, ind) = divergent_call_ref(&[1, 2, 3], 3);
        assert_eq!(d, vec![3, 15, divergent_call_f(3)]);
        assert_eq!(
            ind,
            vec![
                divergent_call_g(1),
                divergent_call_h(2),
                divergent_call_f(3)
            ]
        );
        // 7/3 + 10 + 3/7 + 20 + (7 + 1 + 48*7); y = 0: x/0 is all ones.
        assert_eq!(sb_full_ref(7, 3, 10, 20), 2 + 10 + 20 + 344);
        assert_eq!(sb_full_ref(5, 0, 0, 0), u32::MAX.wrapping_add(6 + 240));
        // 40 calls (leaf, leaf, first, ...), worked out by hand-written script.
        assert_eq!(return_lanes_chain(6), 0x1b48);
        assert_eq!(return_lanes_chain(9), 0x13f);
        // Two lanes: no call (k runs over 1..=lanes-2); four: lane l calls the chain l times
        // (at most twice), with its parity in bit 0.
        assert_eq!(return_lanes_ref(&[7, 7], 2, 2, 2), vec![6, 7]);
        let r = return_lanes_ref(&[8, 8, 8, 8], 4, 4, 4);
        let c = return_lanes_chain;
        assert_eq!(r, vec![8, c(9), c(c(8)), c(c(9))]);
        // tmc 5 keeps lanes 0 and 2; lane 2 alone takes the side and its own mask ends it;
        // lane 0's last mask keeps it.
        assert_eq!(
            tmc_masks_ref(
                &[5, 0, 0, 0],
                &[0, 0, 0x8000_0000, 0],
                &[1, 0, 0, 0],
                1,
                4,
                4
            ),
            vec![0x7e57_3000, 0x7e57_0001, 0x7e57_1002, 0x7e57_0003]
        );
        // x = 100, y = 3: 33 + w + 0 + 103 + (101 + 48*100).
        assert_eq!(sb_full_addi_ref(0, 7), 33 + 7 + 103 + 4901);
    }

    #[test]
    fn partial_blocks_are_partial() {
        for lanes in [2u32, 4, 8, 16, 32] {
            for max_block in [lanes, 2 * lanes, 16 * lanes, 48 * lanes] {
                let l = Limits {
                    lanes,
                    max_block,
                    smem_bytes: 4096,
                    sms: 1,
                };
                for want in [1, lanes, lanes + 1, max_block, max_block / 2 + 1] {
                    let b = partial(&l, want);
                    assert!(b >= 1 && b <= max_block, "{l:?} {want} -> {b}");
                    assert_ne!(b % lanes, 0, "{l:?} {want} -> {b}");
                }
            }
        }
    }
}
