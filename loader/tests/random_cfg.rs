//! Cross-check of the sidecar against a naive set-based post-dominator computation on random
//! single-function programs.

use warpforge_isa::{encode, AluOp, BranchOp, Instr, Reconvergence, SimtOp};
use warpforge_loader::{from_words, LoadError};

/// xorshift64*: deterministic and dependency-free.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Plain { writes_ra: bool },
    Branch(usize),
    Jump(usize),
    Exit,
    Ret,
}

const X: usize = 63; // the virtual exit in the bit sets

fn random_program(rng: &mut Rng, allow_ra_writes: bool) -> Vec<Op> {
    let n = 2 + rng.below(38) as usize;
    let mut ops: Vec<Op> = (0..n)
        .map(|_| match rng.below(100) {
            0..=34 => Op::Plain {
                writes_ra: allow_ra_writes && rng.below(8) == 0,
            },
            35..=64 => Op::Branch(rng.below(n as u64) as usize),
            65..=72 => Op::Jump(rng.below(n as u64) as usize),
            73..=86 => Op::Exit,
            _ => Op::Ret,
        })
        .collect();
    // Never fall off the end.
    ops[n - 1] = match rng.below(3) {
        0 => Op::Exit,
        1 => Op::Ret,
        _ => Op::Jump(rng.below(n as u64) as usize),
    };
    ops
}

fn assemble(ops: &[Op], rng: &mut Rng) -> Vec<u32> {
    ops.iter()
        .enumerate()
        .map(|(i, op)| {
            let off = |t: usize| (t as i32 - i as i32) * 4;
            match *op {
                Op::Plain { writes_ra } => {
                    let rd = if writes_ra { 1 } else { 5 };
                    encode(&Instr::OpImm {
                        op: AluOp::Add,
                        rd,
                        rs1: 5,
                        imm: 1,
                    })
                }
                Op::Branch(t) => {
                    let op = if rng.below(2) == 0 {
                        BranchOp::Beq
                    } else {
                        BranchOp::Bltu
                    };
                    encode(&Instr::Branch {
                        op,
                        rs1: 10,
                        rs2: 11,
                        imm: off(t),
                    })
                }
                Op::Jump(t) => encode(&Instr::Jal { rd: 0, imm: off(t) }),
                Op::Exit => match rng.below(4) {
                    0 => encode(&Instr::Ecall),
                    1 => 0, // illegal
                    _ => encode(&Instr::Simt {
                        op: SimtOp::Exit,
                        rs1: 0,
                    }),
                },
                Op::Ret => encode(&Instr::Jalr {
                    rd: 0,
                    rs1: 1,
                    imm: 0,
                }),
            }
        })
        .collect()
}

fn succs(ops: &[Op], i: usize) -> Vec<usize> {
    match ops[i] {
        Op::Plain { .. } => vec![i + 1],
        Op::Branch(t) => vec![i + 1, t],
        Op::Jump(t) => vec![t],
        Op::Exit | Op::Ret => vec![X],
    }
}

/// The expected sidecar (index → value) or the address of the expected error.
fn expected(ops: &[Op]) -> Result<Vec<Reconvergence>, u32> {
    let n = ops.len();
    // Reachable from the start.
    let mut reach = vec![false; n];
    let mut stack = vec![0];
    reach[0] = true;
    while let Some(i) = stack.pop() {
        for s in succs(ops, i) {
            if s != X && !reach[s] {
                reach[s] = true;
                stack.push(s);
            }
        }
    }
    let nodes: Vec<usize> = (0..n).filter(|&i| reach[i]).collect();
    let can_reach = |i: usize, goal: &dyn Fn(usize) -> bool| {
        let mut seen = vec![false; n];
        let mut stack = vec![i];
        seen[i] = true;
        while let Some(v) = stack.pop() {
            if goal(v) {
                return true;
            }
            for s in succs(ops, v) {
                if s != X && !seen[s] {
                    seen[s] = true;
                    stack.push(s);
                }
            }
        }
        false
    };
    let reaches_exit = |i: usize| can_reach(i, &|v| matches!(ops[v], Op::Exit | Op::Ret));
    let reaches_ret = |i: usize| can_reach(i, &|v| matches!(ops[v], Op::Ret));
    let writes_ra = nodes
        .iter()
        .any(|&i| matches!(ops[i], Op::Plain { writes_ra: true }));

    // Post-dominator sets, greatest fixed point.
    let all: u64 = u64::MAX;
    let mut pdom = vec![all; 64];
    pdom[X] = 1 << X;
    loop {
        let mut changed = false;
        for &i in nodes.iter().rev() {
            let meet = succs(ops, i).iter().fold(all, |acc, &s| acc & pdom[s]);
            let new = meet | (1 << i);
            if new != pdom[i] {
                pdom[i] = new;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }

    let mut sidecar = vec![Reconvergence::None; n];
    for &i in &nodes {
        if !matches!(ops[i], Op::Branch(_)) {
            continue;
        }
        if !reaches_exit(i) {
            return Err(i as u32 * 4);
        }
        let strict = pdom[i] & !(1 << i);
        let d = (0..64)
            .find(|&d| strict & (1 << d) != 0 && pdom[d] == strict)
            .expect("ipdom");
        sidecar[i] = if d != X {
            Reconvergence::At(d as u32 * 4)
        } else if !reaches_ret(i) {
            Reconvergence::Never
        } else if writes_ra {
            return Err(i as u32 * 4);
        } else {
            Reconvergence::AtReturn
        };
    }
    Ok(sidecar)
}

#[test]
fn random_programs_match_naive_post_dominators() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let (mut ok, mut errors, mut kinds) = (0, 0, [0usize; 3]);
    for round in 0..4000 {
        let ops = random_program(&mut rng, round % 2 == 1);
        let words = assemble(&ops, &mut rng);
        let got = from_words(0, words.clone(), &[]);
        match (expected(&ops), got) {
            (Ok(want), Ok(k)) => {
                assert_eq!(k.sidecar, want, "program {ops:?}");
                for r in &want {
                    match r {
                        Reconvergence::At(_) => kinds[0] += 1,
                        Reconvergence::AtReturn => kinds[1] += 1,
                        Reconvergence::Never => kinds[2] += 1,
                        Reconvergence::None => {}
                    }
                }
                ok += 1;
            }
            (Err(addr), Err(LoadError::NoReconvergence { addr: got, .. })) => {
                assert_eq!(got, addr, "program {ops:?}");
                errors += 1;
            }
            (want, got) => panic!("program {ops:?}: expected {want:?}, got {got:?}"),
        }
    }
    // The generator exercises every outcome.
    assert!(ok > 500 && errors > 200, "ok {ok}, errors {errors}");
    assert!(kinds.iter().all(|&k| k > 100), "{kinds:?}");
}
