//! The SIMT stack walks of the seeds, reproduced step by step on the golden model:
//! book Figs 3.2–3.4 (Aamodt, Fung, Rogers §3.1.1) and Sarangi Figs 6.16 and 6.17.

mod common;

use common::*;
use warpforge_config::GpuConfig;
use warpforge_isa::{csr, AluOp, BranchOp, Instr, LoadOp, MulDivOp, SimtOp, StoreOp};
use warpforge_randprog::asm::{Asm, Label};
use warpforge_sim::{RunOutcome, StackEntry, RPC_NONE};

/// A mask written as in the figures: leftmost character is thread 0.
fn fig(s: &str) -> u32 {
    s.chars()
        .enumerate()
        .map(|(i, c)| if c == '1' { 1 << i } else { 0 })
        .sum()
}

fn e(rpc: u32, pc: u32, mask: &str) -> StackEntry {
    StackEntry {
        rpc,
        pc,
        mask: fig(mask),
    }
}

const T0: u8 = 5;
const T1: u8 = 6;
const T2: u8 = 7;

/// Book Fig. 3.3 as RV32: the do-while loop with two nested branches, blocks A–G.
struct Fig33 {
    words: Vec<u32>,
    blocks: Vec<(char, u32)>,
    branch1: u32,
    branch2: u32,
}

fn fig33() -> Fig33 {
    let mut a = Asm::new();
    let (s1, s2, s3, a1, a2, x, y, z) = (9, 18, 19, 11, 12, 13, 14, 15);
    prologue(&mut a);
    param(&mut a, s2, 0); // data1
    param(&mut a, s3, 1); // data2
    param(&mut a, a1, 3); // N
    csrr(&mut a, s1, csr::TID);
    let (la, lb, lc, ld, le, lf, lg, lx) = (
        a.label(),
        a.label(),
        a.label(),
        a.label(),
        a.label(),
        a.label(),
        a.label(),
        a.label(),
    );
    a.place(la);
    a.i(Instr::MulDiv {
        op: MulDivOp::Mul,
        rd: T0,
        rs1: s1,
        rs2: a1,
    });
    a.i(Instr::Op {
        op: AluOp::Add,
        rd: T0,
        rs1: T0,
        rs2: a2,
    });
    a.i(Instr::OpImm {
        op: AluOp::Sll,
        rd: T0,
        rs1: T0,
        imm: 2,
    });
    a.i(Instr::Op {
        op: AluOp::Add,
        rd: T1,
        rs1: s2,
        rs2: T0,
    });
    a.i(Instr::Load {
        op: LoadOp::Lw,
        rd: T2,
        rs1: T1,
        imm: 0,
    });
    let branch1 = a.pc();
    a.branch(BranchOp::Beq, T2, 0, lf); // @p1 bra F
    a.place(lb);
    a.i(Instr::Op {
        op: AluOp::Add,
        rd: T1,
        rs1: s3,
        rs2: T0,
    });
    a.i(Instr::Load {
        op: LoadOp::Lw,
        rd: T2,
        rs1: T1,
        imm: 0,
    });
    let branch2 = a.pc();
    a.branch(BranchOp::Beq, T2, 0, ld); // @p2 bra D
    a.place(lc);
    a.i(Instr::OpImm {
        op: AluOp::Add,
        rd: x,
        rs1: x,
        imm: 1,
    });
    a.jal(0, le);
    a.place(ld);
    a.i(Instr::OpImm {
        op: AluOp::Add,
        rd: y,
        rs1: y,
        imm: 2,
    });
    a.place(le);
    a.jal(0, lg);
    a.place(lf);
    a.i(Instr::OpImm {
        op: AluOp::Add,
        rd: z,
        rs1: z,
        imm: 3,
    });
    a.place(lg);
    a.i(Instr::OpImm {
        op: AluOp::Add,
        rd: a2,
        rs1: a2,
        imm: 1,
    });
    a.branch(BranchOp::Blt, a2, a1, la);
    a.place(lx);
    param(&mut a, T1, 2); // out
    a.i(Instr::OpImm {
        op: AluOp::Add,
        rd: T2,
        rs1: 0,
        imm: 12,
    });
    a.i(Instr::MulDiv {
        op: MulDivOp::Mul,
        rd: T2,
        rs1: s1,
        rs2: T2,
    });
    a.i(Instr::Op {
        op: AluOp::Add,
        rd: T1,
        rs1: T1,
        rs2: T2,
    });
    for (k, r) in [x, y, z].into_iter().enumerate() {
        a.i(Instr::Store {
            op: StoreOp::Sw,
            rs1: T1,
            rs2: r,
            imm: 4 * k as i32,
        });
    }
    a.i(Instr::Simt {
        op: SimtOp::Exit,
        rs1: 0,
    });
    let blocks: Vec<(char, Label)> = vec![
        ('A', la),
        ('B', lb),
        ('C', lc),
        ('D', ld),
        ('E', le),
        ('F', lf),
        ('G', lg),
        ('X', lx),
    ];
    Fig33 {
        words: a.finish(),
        blocks: blocks.into_iter().map(|(c, l)| (c, a.addr(l))).collect(),
        branch1,
        branch2,
    }
}

impl Fig33 {
    fn block_of(&self, pc: u32) -> char {
        self.blocks
            .iter()
            .rev()
            .find(|(_, start)| pc >= *start)
            .map_or('-', |(c, _)| *c)
    }
    fn at(&self, c: char) -> u32 {
        self.blocks.iter().find(|(b, _)| *b == c).unwrap().1
    }
}

#[test]
fn book_figure_3_4_stack_walk() {
    let f = fig33();
    let cfg = GpuConfig::tiny(); // 4 lanes, as in the figure
                                 // Iteration 0 follows the figure: threads 0-2 take B, thread 3 takes F; in B thread 0
                                 // goes to C and threads 1-2 to D. Iteration 1 is uniform (all threads through B and C).
    let n = 2;
    let data1 = vec![5, 1, 6, 1, 7, 1, 0, 1]; // [tid*N + i]
    let data2 = vec![9, 1, 0, 1, 0, 1, 0, 1];
    let (mut gpu, bufs) = launch(
        &cfg,
        f.words.clone(),
        1,
        4,
        &[data1, data2, vec![0; 12]],
        &[n],
    );

    let mut trace: Vec<(char, u32)> = Vec::new();
    let mut stack_after_branch = Vec::new();
    while !gpu.is_finished() {
        let c = gpu.step(0, 0).unwrap().clone();
        assert!(c.fault.is_none(), "{:?}", c.fault);
        let b = f.block_of(c.pc);
        if b != '-' && trace.last() != Some(&(b, c.mask)) {
            trace.push((b, c.mask));
        }
        if c.pc == f.branch1 || c.pc == f.branch2 {
            stack_after_branch.push(gpu.warp_stack(0, 0).to_vec());
        }
    }
    let (g, e_, b_) = (f.at('G'), f.at('E'), f.at('B'));
    // After the branch at the end of A (Fig. 3.4(c), but with the larger side pushed first as in
    // Fig. 3.4(d): the book's own rule): TOS is F (one thread), below it B (three threads).
    assert_eq!(
        stack_after_branch[0],
        vec![
            e(RPC_NONE, g, "1111"),
            e(g, b_, "1110"),
            e(g, f.at('F'), "0001")
        ]
    );
    // After the branch at the end of B (Fig. 3.4(d)): the entry of B becomes the reconvergence
    // entry (i) with next PC = E; D (two threads) is pushed first (ii), C (one thread) on top (iii).
    // F has already run and reconverged, so its entry is gone.
    assert_eq!(
        stack_after_branch[1],
        vec![
            e(RPC_NONE, g, "1111"),
            e(g, e_, "1110"),
            e(e_, f.at('D'), "0110"),
            e(e_, f.at('C'), "1000")
        ]
    );
    // Iteration 1 is uniform: the stack is back to its base entry after each branch.
    for s in &stack_after_branch[2..] {
        assert_eq!(s.len(), 1, "{s:?}");
    }
    let expected: Vec<(char, u32)> = [
        ('A', "1111"),
        ('F', "0001"),
        ('B', "1110"),
        ('C', "1000"),
        ('D', "0110"),
        ('E', "1110"),
        ('G', "1111"),
        ('A', "1111"),
        ('B', "1111"),
        ('C', "1111"),
        ('E', "1111"),
        ('G', "1111"),
        ('X', "1111"),
    ]
    .iter()
    .map(|&(b, m)| (b, fig(m)))
    .collect();
    assert_eq!(trace, expected);
    // x, y, z per thread.
    let out = read_words(&gpu, bufs[2], 12);
    assert_eq!(out, vec![2, 0, 0, 1, 2, 0, 1, 2, 0, 1, 0, 3]);
    assert_eq!(gpu.stats().divergent_branches, 2);
    assert_eq!(gpu.stats().max_stack_depth, 4);
}

/// Runs a two-level if/else program and returns, per source line label, the union of the masks
/// that executed instructions of that line.
fn line_masks(
    words: Vec<u32>,
    lines: &[(u32, u32)],
    xs: Vec<u32>,
    ys: Vec<u32>,
) -> (Vec<u32>, Vec<Vec<StackEntry>>) {
    let cfg = GpuConfig::tiny();
    let threads = xs.len() as u32;
    let (mut gpu, _) = launch(&cfg, words, 1, threads, &[xs, ys, vec![0; 4]], &[]);
    let mut masks = vec![0u32; lines.len()];
    let mut stacks = vec![Vec::new(); lines.len()];
    while !gpu.is_finished() {
        let before = gpu.warp_stack(0, 0).to_vec();
        let c = gpu.step(0, 0).unwrap().clone();
        assert!(c.fault.is_none(), "{:?}", c.fault);
        for (k, &(lo, hi)) in lines.iter().enumerate() {
            if c.pc >= lo && c.pc < hi {
                masks[k] |= c.mask;
                stacks[k] = before.clone();
            }
        }
    }
    (masks, stacks)
}

#[test]
fn sarangi_figure_6_16_predicated_if_else() {
    // if (x > 0) { a = 1; b = a + 3; c = b * b; } else { d = 3; c = d * d; }  x = c;
    let mut a = Asm::new();
    let (x, av, b, c, d) = (11, 12, 13, 14, 15);
    prologue(&mut a);
    param(&mut a, 18, 0);
    csrr(&mut a, 9, csr::TID);
    a.i(Instr::OpImm {
        op: AluOp::Sll,
        rd: T0,
        rs1: 9,
        imm: 2,
    });
    a.i(Instr::Op {
        op: AluOp::Add,
        rd: T0,
        rs1: 18,
        rs2: T0,
    });
    a.i(Instr::Load {
        op: LoadOp::Lw,
        rd: x,
        rs1: T0,
        imm: 0,
    });
    let els = a.label();
    let end = a.label();
    let l1 = a.pc();
    a.branch(BranchOp::Bge, 0, x, els); // if (x > 0)
    let l2 = a.pc();
    a.i(Instr::OpImm {
        op: AluOp::Add,
        rd: av,
        rs1: 0,
        imm: 1,
    }); // a = 1
    a.i(Instr::OpImm {
        op: AluOp::Add,
        rd: b,
        rs1: av,
        imm: 3,
    }); // b = a + 3
    a.i(Instr::MulDiv {
        op: MulDivOp::Mul,
        rd: c,
        rs1: b,
        rs2: b,
    }); // c = b * b
    a.jal(0, end);
    a.place(els);
    let l6 = a.pc();
    a.i(Instr::OpImm {
        op: AluOp::Add,
        rd: d,
        rs1: 0,
        imm: 3,
    }); // d = 3
    a.i(Instr::MulDiv {
        op: MulDivOp::Mul,
        rd: c,
        rs1: d,
        rs2: d,
    }); // c = d * d
    a.place(end);
    let l9 = a.pc();
    a.i(Instr::OpImm {
        op: AluOp::Add,
        rd: x,
        rs1: c,
        imm: 0,
    }); // x = c
    let l10 = a.pc();
    a.i(Instr::Store {
        op: StoreOp::Sw,
        rs1: T0,
        rs2: x,
        imm: 0,
    });
    a.i(Instr::Simt {
        op: SimtOp::Exit,
        rs1: 0,
    });
    let lines = [(l1, l2), (l2, l6 - 4), (l6, l9), (l9, l10)];
    // Thread 1 (lane 0) has x > 0, thread 2 (lane 1) does not.
    let (m, _) = line_masks(a.finish(), &lines, vec![5, (-1i32) as u32], vec![0, 0]);
    // Figure 6.16: ✓✓ / ✓✗ ✓✗ ✓✗ / ✗✓ ✗✓ / ✓✓
    assert_eq!(m, vec![fig("11"), fig("10"), fig("01"), fig("11")]);
}

#[test]
fn sarangi_figure_6_17_nested_stack() {
    // if (x > 0) { if (y == 0) { b = a + 3; } c = b * b; } else { d = 3; c = d * d; }  x = c;
    let mut a = Asm::new();
    let (x, y, av, b, c, d) = (11, 16, 12, 13, 14, 15);
    prologue(&mut a);
    param(&mut a, 18, 0);
    param(&mut a, 19, 1);
    csrr(&mut a, 9, csr::TID);
    a.i(Instr::OpImm {
        op: AluOp::Sll,
        rd: T0,
        rs1: 9,
        imm: 2,
    });
    a.i(Instr::Op {
        op: AluOp::Add,
        rd: T1,
        rs1: 18,
        rs2: T0,
    });
    a.i(Instr::Load {
        op: LoadOp::Lw,
        rd: x,
        rs1: T1,
        imm: 0,
    });
    a.i(Instr::Op {
        op: AluOp::Add,
        rd: T1,
        rs1: 19,
        rs2: T0,
    });
    a.i(Instr::Load {
        op: LoadOp::Lw,
        rd: y,
        rs1: T1,
        imm: 0,
    });
    a.i(Instr::OpImm {
        op: AluOp::Add,
        rd: av,
        rs1: 0,
        imm: 7,
    });
    let (els, end, skip) = (a.label(), a.label(), a.label());
    let l1 = a.pc();
    a.branch(BranchOp::Bge, 0, x, els); // if (x > 0)
    let l2 = a.pc();
    a.branch(BranchOp::Bne, y, 0, skip); // if (y == 0)
    let l3 = a.pc();
    a.i(Instr::OpImm {
        op: AluOp::Add,
        rd: b,
        rs1: av,
        imm: 3,
    }); // b = a + 3
    a.place(skip);
    let l5 = a.pc();
    a.i(Instr::MulDiv {
        op: MulDivOp::Mul,
        rd: c,
        rs1: b,
        rs2: b,
    }); // c = b * b
    a.jal(0, end);
    a.place(els);
    let l7 = a.pc();
    a.i(Instr::OpImm {
        op: AluOp::Add,
        rd: d,
        rs1: 0,
        imm: 3,
    }); // d = 3
    a.i(Instr::MulDiv {
        op: MulDivOp::Mul,
        rd: c,
        rs1: d,
        rs2: d,
    }); // c = d * d
    a.place(end);
    let l10 = a.pc();
    a.i(Instr::OpImm {
        op: AluOp::Add,
        rd: x,
        rs1: c,
        imm: 0,
    }); // x = c
    let l11 = a.pc();
    a.i(Instr::Store {
        op: StoreOp::Sw,
        rs1: T1,
        rs2: x,
        imm: 0,
    });
    a.i(Instr::Simt {
        op: SimtOp::Exit,
        rs1: 0,
    });
    let lines = [
        (l1, l2),
        (l2, l3),
        (l3, l5),
        (l5, l5 + 4),
        (l7, l10),
        (l10, l11),
    ];
    // Threads 1A (lane 0): x > 0, y == 0; 1B (lane 1): x > 0, y != 0; 2 (lane 2): x <= 0.
    let (m, stacks) = line_masks(a.finish(), &lines, vec![1, 1, 0], vec![0, 4, 0]);
    // Figure 6.17: outer if 111; inner if 110; b = a + 3 100 (stack bits 11/10/00);
    // c = b * b 110; else part 001; x = c 111.
    assert_eq!(
        m,
        vec![
            fig("111"),
            fig("110"),
            fig("100"),
            fig("110"),
            fig("001"),
            fig("111")
        ]
    );
    // While b = a + 3 executes, the stack nests exactly as the figure's predicate bits: the
    // outer reconvergence entry, the inner reconvergence entry (1A and 1B), and 1A on top.
    assert_eq!(
        stacks[2],
        vec![e(RPC_NONE, l10, "111"), e(l10, l5, "110"), e(l5, l3, "100")]
    );
}

#[test]
fn fig33_runs_standalone_to_completion() {
    let f = fig33();
    for cfg in [GpuConfig::tiny(), GpuConfig::small()] {
        let (mut gpu, bufs) = launch(
            &cfg,
            f.words.clone(),
            1,
            4,
            &[
                vec![5, 1, 6, 1, 7, 1, 0, 1],
                vec![9, 1, 0, 1, 0, 1, 0, 1],
                vec![0; 12],
            ],
            &[2],
        );
        assert_eq!(gpu.run(10_000), RunOutcome::Finished);
        assert_eq!(
            read_words(&gpu, bufs[2], 12),
            vec![2, 0, 0, 1, 2, 0, 1, 2, 0, 1, 0, 3]
        );
    }
}
