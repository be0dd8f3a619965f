//! Seeded random SIMT programs: valid, terminating, with divergence, loops, calls, early exits,
//! barriers and global/shared memory — and a per-thread scalar reference of their results.
//!
//! Threads of a generated program never communicate (each touches only its own slice of the data
//! buffer and of shared memory), so the final contents of the output buffer are the same however
//! warps are scheduled and however divergence is serialized. [`scalar::run_thread`] executes one
//! thread alone, as a plain RV32IM interpreter with no SIMT machinery: the SIMT model and the RTL
//! must both produce its result for every thread.

pub mod asm;
pub mod scalar;

use asm::{Asm, Label};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use warpforge_isa::{
    csr, memmap, AluOp, BranchOp, CsrOp, Instr, LoadOp, MulDivOp, Reg, SimtOp, StoreOp,
};

/// Words of each thread's private data slice (global memory).
pub const DATA_WORDS: u32 = 16;
/// Words of each thread's private shared-memory slice.
pub const SHARED_WORDS: u32 = 4;

/// Registers with fixed roles in generated programs.
pub mod role {
    use warpforge_isa::Reg;
    /// Base of this thread's data slice.
    pub const DATA: Reg = 8;
    /// Base of this thread's shared slice.
    pub const SHARED: Reg = 9;
    /// Parameter buffer address.
    pub const PARAM: Reg = 10;
    /// Loop counters and limits, two nesting levels: (counter, limit).
    pub const LOOPS: [(Reg, Reg); 2] = [(28, 29), (30, 31)];
}

/// Registers the random body reads and writes; their final values are the program's output.
pub const POOL: [Reg; 18] = [
    5, 6, 7, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
];

/// Shape knobs of the generator.
#[derive(Clone, Debug)]
pub struct Options {
    /// Body statements at the top level.
    pub statements: usize,
    /// Maximum nesting of if/loop.
    pub max_depth: usize,
    /// Leaf functions called from the body.
    pub functions: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            statements: 24,
            max_depth: 3,
            functions: 2,
        }
    }
}

/// A generated program and its launch.
#[derive(Clone, Debug)]
pub struct Program {
    pub seed: u64,
    pub words: Vec<u32>,
    pub entry: u32,
    /// Entry addresses of every function (main first).
    pub functions: Vec<u32>,
    /// Bytes of shared memory per CTA the program uses.
    pub shared_bytes: u32,
    pub grid: u32,
    pub block: u32,
    /// Initial contents of the data buffer (`DATA_WORDS` words per thread).
    pub data: Vec<u32>,
}

impl Program {
    pub fn threads(&self) -> u32 {
        self.grid * self.block
    }

    /// Words of the output buffer (one per pool register per thread).
    pub fn output_words(&self) -> u32 {
        self.threads() * POOL.len() as u32
    }
}

struct Gen {
    rng: ChaCha8Rng,
    asm: Asm,
    opts: Options,
    function_labels: Vec<Label>,
    block: u32,
}

impl Gen {
    fn label(&mut self) -> Label {
        self.asm.label()
    }
    fn emit(&mut self, i: Instr) {
        self.asm.i(i);
    }
    fn pool(&mut self) -> Reg {
        POOL[self.rng.gen_range(0..POOL.len())]
    }
    /// A register to read: pool, or the fixed ones that carry thread identity.
    fn src(&mut self) -> Reg {
        match self.rng.gen_range(0..10) {
            0 => 0,
            1 => role::DATA,
            _ => self.pool(),
        }
    }
    fn imm12(&mut self) -> i32 {
        match self.rng.gen_range(0..4) {
            0 => self.rng.gen_range(-2048..2048),
            1 => self.rng.gen_range(-4..5),
            _ => self.rng.gen_range(0..64),
        }
    }

    fn alu(&mut self) {
        let rd = self.pool();
        let rs1 = self.src();
        let choice = self.rng.gen_range(0..100);
        let i = if choice < 35 {
            let ops = [
                AluOp::Add,
                AluOp::Sub,
                AluOp::Sll,
                AluOp::Slt,
                AluOp::Sltu,
                AluOp::Xor,
                AluOp::Srl,
                AluOp::Sra,
                AluOp::Or,
                AluOp::And,
            ];
            let op = ops[self.rng.gen_range(0..ops.len())];
            Instr::Op {
                op,
                rd,
                rs1,
                rs2: self.src(),
            }
        } else if choice < 70 {
            let ops = [
                AluOp::Add,
                AluOp::Slt,
                AluOp::Sltu,
                AluOp::Xor,
                AluOp::Or,
                AluOp::And,
                AluOp::Sll,
                AluOp::Srl,
                AluOp::Sra,
            ];
            let op = ops[self.rng.gen_range(0..ops.len())];
            let imm = match op {
                AluOp::Sll | AluOp::Srl | AluOp::Sra => self.rng.gen_range(0..32),
                _ => self.imm12(),
            };
            Instr::OpImm { op, rd, rs1, imm }
        } else if choice < 85 {
            let ops = [
                MulDivOp::Mul,
                MulDivOp::Mulh,
                MulDivOp::Mulhsu,
                MulDivOp::Mulhu,
                MulDivOp::Div,
                MulDivOp::Divu,
                MulDivOp::Rem,
                MulDivOp::Remu,
            ];
            let op = ops[self.rng.gen_range(0..ops.len())];
            Instr::MulDiv {
                op,
                rd,
                rs1,
                rs2: self.src(),
            }
        } else if choice < 92 {
            Instr::Lui {
                rd,
                imm: (self.rng.gen::<u32>() & 0xffff_f000) as i32,
            }
        } else if choice < 95 {
            Instr::Auipc {
                rd,
                imm: (self.rng.gen_range(0..16u32) << 12) as i32,
            }
        } else {
            let csrs = [csr::TID, csr::GTID, csr::LANEID, csr::CTAID, csr::NTID];
            Instr::Csr {
                op: CsrOp::Rs,
                rd,
                src: 0,
                csr: csrs[self.rng.gen_range(0..csrs.len())],
            }
        };
        self.emit(i);
    }

    fn memory(&mut self) {
        let shared = self.rng.gen_bool(0.25);
        let (base, words) = if shared {
            (role::SHARED, SHARED_WORDS)
        } else {
            (role::DATA, DATA_WORDS)
        };
        let size: u32 = [1, 2, 4, 4][self.rng.gen_range(0..4)];
        let off = self.rng.gen_range(0..words * 4 / size) * size;
        if self.rng.gen_bool(0.5) {
            let op = match size {
                1 => [LoadOp::Lb, LoadOp::Lbu][self.rng.gen_range(0..2)],
                2 => [LoadOp::Lh, LoadOp::Lhu][self.rng.gen_range(0..2)],
                _ => LoadOp::Lw,
            };
            let rd = self.pool();
            self.emit(Instr::Load {
                op,
                rd,
                rs1: base,
                imm: off as i32,
            });
        } else {
            let op = match size {
                1 => StoreOp::Sb,
                2 => StoreOp::Sh,
                _ => StoreOp::Sw,
            };
            let rs2 = self.src();
            self.emit(Instr::Store {
                op,
                rs1: base,
                rs2,
                imm: off as i32,
            });
        }
    }

    /// A dense dependency chain: 3-6 instructions, each reading the previous one's result
    /// straight away (as rs1 or rs2, at random) behind ALU, multiplier, divider and load
    /// latencies, sometimes starting from a load from the thread's data slice and storing its
    /// end there; then, sometimes, a write-after-write (a divide or load, overwritten at once
    /// by an ALU write). An RTL that misses a hazard reads a stale register: a wrong value
    /// in the output, not only other timing.
    fn chain(&mut self) {
        let mut prev = self.pool();
        if self.rng.gen_bool(0.5) {
            let off = self.rng.gen_range(0..DATA_WORDS) * 4;
            self.emit(Instr::Load {
                op: LoadOp::Lw,
                rd: prev,
                rs1: role::DATA,
                imm: off as i32,
            });
        }
        for _ in 0..self.rng.gen_range(3..7) {
            let rd = self.pool();
            let other = self.src();
            let (rs1, rs2) = if self.rng.gen_bool(0.5) {
                (prev, other)
            } else {
                (other, prev)
            };
            let i = match self.rng.gen_range(0..4) {
                0 => {
                    let ops = [AluOp::Add, AluOp::Sub, AluOp::Xor, AluOp::Sll, AluOp::Sra];
                    Instr::Op {
                        op: ops[self.rng.gen_range(0..ops.len())],
                        rd,
                        rs1,
                        rs2,
                    }
                }
                1 => {
                    let ops = [MulDivOp::Mul, MulDivOp::Mulhu, MulDivOp::Mulh];
                    Instr::MulDiv {
                        op: ops[self.rng.gen_range(0..ops.len())],
                        rd,
                        rs1,
                        rs2,
                    }
                }
                2 => {
                    let ops = [MulDivOp::Div, MulDivOp::Remu];
                    Instr::MulDiv {
                        op: ops[self.rng.gen_range(0..ops.len())],
                        rd,
                        rs1,
                        rs2,
                    }
                }
                _ => Instr::OpImm {
                    op: AluOp::Add,
                    rd,
                    rs1: prev,
                    imm: self.imm12(),
                },
            };
            self.emit(i);
            prev = rd;
        }
        if self.rng.gen_bool(0.5) {
            let off = self.rng.gen_range(0..DATA_WORDS) * 4;
            self.emit(Instr::Store {
                op: StoreOp::Sw,
                rs1: role::DATA,
                rs2: prev,
                imm: off as i32,
            });
        }
        if self.rng.gen_bool(0.4) {
            let rd = self.pool();
            let long = if self.rng.gen_bool(0.5) {
                Instr::MulDiv {
                    op: MulDivOp::Divu,
                    rd,
                    rs1: self.src(),
                    rs2: self.src(),
                }
            } else {
                Instr::Load {
                    op: LoadOp::Lw,
                    rd,
                    rs1: role::DATA,
                    imm: (self.rng.gen_range(0..DATA_WORDS) * 4) as i32,
                }
            };
            self.emit(long);
            let imm = self.imm12();
            let rs1 = self.src();
            self.emit(Instr::OpImm {
                op: AluOp::Xor,
                rd,
                rs1,
                imm,
            });
        }
    }

    fn condition(&mut self) -> (BranchOp, Reg, Reg) {
        let ops = [
            BranchOp::Beq,
            BranchOp::Bne,
            BranchOp::Blt,
            BranchOp::Bge,
            BranchOp::Bltu,
            BranchOp::Bgeu,
        ];
        // Compare a low bit field of a pool register with zero or another register, so both
        // directions are likely and lanes tend to disagree.
        let t = self.pool();
        let bit = self.rng.gen_range(0..4);
        self.emit(Instr::OpImm {
            op: AluOp::Srl,
            rd: t,
            rs1: t,
            imm: bit,
        });
        self.emit(Instr::OpImm {
            op: AluOp::And,
            rd: t,
            rs1: t,
            imm: 3,
        });
        let other = if self.rng.gen_bool(0.5) {
            0
        } else {
            self.pool()
        };
        (ops[self.rng.gen_range(0..ops.len())], t, other)
    }

    fn statements(&mut self, n: usize, depth: usize, loop_level: usize, in_function: bool) {
        for _ in 0..n {
            let r = self.rng.gen_range(0..100);
            if r < 30 {
                self.alu();
            } else if r < 40 {
                self.chain();
            } else if r < 58 {
                self.memory();
            } else if r < 72 && depth < self.opts.max_depth {
                // if / if-else
                let (op, a, b) = self.condition();
                let else_l = self.label();
                let end_l = self.label();
                self.asm.branch(op, a, b, else_l);
                let k = self.rng.gen_range(1..5);
                self.statements(k, depth + 1, loop_level, in_function);
                if self.rng.gen_bool(0.6) {
                    self.asm.jal(0, end_l);
                    self.asm.place(else_l);
                    let k = self.rng.gen_range(1..5);
                    self.statements(k, depth + 1, loop_level, in_function);
                    self.asm.place(end_l);
                } else {
                    self.asm.place(else_l);
                }
            } else if r < 80 && depth < self.opts.max_depth && loop_level < role::LOOPS.len() {
                // Bounded loop with a per-thread trip count of 1..=4.
                let (cnt, lim) = role::LOOPS[loop_level];
                let src = self.pool();
                self.emit(Instr::OpImm {
                    op: AluOp::And,
                    rd: lim,
                    rs1: src,
                    imm: 3,
                });
                self.emit(Instr::OpImm {
                    op: AluOp::Add,
                    rd: lim,
                    rs1: lim,
                    imm: 1,
                });
                self.emit(Instr::OpImm {
                    op: AluOp::Add,
                    rd: cnt,
                    rs1: 0,
                    imm: 0,
                });
                let top = self.label();
                self.asm.place(top);
                let k = self.rng.gen_range(1..4);
                self.statements(k, depth + 1, loop_level + 1, in_function);
                self.emit(Instr::OpImm {
                    op: AluOp::Add,
                    rd: cnt,
                    rs1: cnt,
                    imm: 1,
                });
                self.asm.branch(BranchOp::Blt, cnt, lim, top);
            } else if r < 86 && !in_function && !self.function_labels.is_empty() {
                let f = self.function_labels[self.rng.gen_range(0..self.function_labels.len())];
                self.asm.jal(1, f);
            } else if r < 89 && !in_function && depth > 0 && loop_level == 0 {
                // Some threads leave early: inside an `if`, never in a loop (a branch whose paths only
                // meet at the exit reconverges `Never`, and in a loop that would grow the stack).
                self.emit(Instr::Simt {
                    op: SimtOp::Exit,
                    rs1: 0,
                });
            } else if r < 92 && !in_function && depth == 0 && loop_level == 0 {
                self.emit(Instr::Simt {
                    op: SimtOp::Bar,
                    rs1: 0,
                });
            } else {
                self.alu();
            }
        }
    }

    fn function(&mut self, label: Label) {
        self.asm.place(label);
        let k = self.rng.gen_range(2..6);
        self.statements(k, 1, role::LOOPS.len(), true);
        if self.rng.gen_bool(0.6) {
            // Early return: two `ret`s, so the loader must reconverge at the return address.
            let (op, a, b) = self.condition();
            let skip = self.label();
            self.asm.branch(op, a, b, skip);
            self.emit(Instr::Jalr {
                rd: 0,
                rs1: 1,
                imm: 0,
            });
            self.asm.place(skip);
            let k = self.rng.gen_range(1..4);
            self.statements(k, 1, role::LOOPS.len(), true);
        }
        self.emit(Instr::Jalr {
            rd: 0,
            rs1: 1,
            imm: 0,
        });
    }
}

/// Generate the program of `seed` for warps of `lanes` threads and SMs of up to `max_block`
/// threads.
pub fn generate(seed: u64, lanes: u32, max_block: u32, opts: &Options) -> Program {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Blocks of 1..=3 warps with a partial last warp half of the time; 1..=3 CTAs.
    let warps = rng.gen_range(1..=3u32).min(max_block / lanes).max(1);
    let mut block = warps * lanes;
    if rng.gen_bool(0.5) && block > 1 {
        block -= rng.gen_range(1..lanes.max(2)).min(block - 1);
    }
    let grid = rng.gen_range(1..=3);
    let mut g = Gen {
        rng,
        asm: Asm::new(),
        opts: opts.clone(),
        function_labels: Vec::new(),
        block,
    };
    g.function_labels = (0..opts.functions).map(|_| g.label()).collect();

    // Prologue: a0 = params; s0 = data + gtid * DATA_WORDS*4; s1 = SMEM + tid * SHARED_WORDS*4;
    // pool registers start from the thread's data words and ids.
    g.emit(Instr::Csr {
        op: CsrOp::Rs,
        rd: role::PARAM,
        src: 0,
        csr: csr::PARAM,
    });
    g.emit(Instr::Load {
        op: LoadOp::Lw,
        rd: role::DATA,
        rs1: role::PARAM,
        imm: 0,
    });
    g.emit(Instr::Csr {
        op: CsrOp::Rs,
        rd: 5,
        src: 0,
        csr: csr::GTID,
    });
    g.emit(Instr::OpImm {
        op: AluOp::Sll,
        rd: 6,
        rs1: 5,
        imm: (DATA_WORDS * 4).trailing_zeros() as i32,
    });
    g.emit(Instr::Op {
        op: AluOp::Add,
        rd: role::DATA,
        rs1: role::DATA,
        rs2: 6,
    });
    g.emit(Instr::Csr {
        op: CsrOp::Rs,
        rd: 7,
        src: 0,
        csr: csr::TID,
    });
    g.emit(Instr::OpImm {
        op: AluOp::Sll,
        rd: role::SHARED,
        rs1: 7,
        imm: (SHARED_WORDS * 4).trailing_zeros() as i32,
    });
    g.asm.li(11, memmap::SMEM_BASE);
    g.emit(Instr::Op {
        op: AluOp::Add,
        rd: role::SHARED,
        rs1: role::SHARED,
        rs2: 11,
    });
    for (i, &r) in POOL.iter().enumerate().skip(3) {
        let w = (i as u32 % DATA_WORDS) * 4;
        g.emit(Instr::Load {
            op: LoadOp::Lw,
            rd: r,
            rs1: role::DATA,
            imm: w as i32,
        });
    }
    let n = g.opts.statements;
    g.statements(n, 0, 0, false);
    // Epilogue: out[gtid * POOL.len() + i] = pool[i]; then exit.
    g.emit(Instr::Load {
        op: LoadOp::Lw,
        rd: 28,
        rs1: role::PARAM,
        imm: 4,
    });
    g.emit(Instr::Csr {
        op: CsrOp::Rs,
        rd: 29,
        src: 0,
        csr: csr::GTID,
    });
    g.emit(Instr::OpImm {
        op: AluOp::Add,
        rd: 30,
        rs1: 0,
        imm: POOL.len() as i32 * 4,
    });
    g.emit(Instr::MulDiv {
        op: MulDivOp::Mul,
        rd: 29,
        rs1: 29,
        rs2: 30,
    });
    g.emit(Instr::Op {
        op: AluOp::Add,
        rd: 28,
        rs1: 28,
        rs2: 29,
    });
    for (i, &r) in POOL.iter().enumerate() {
        g.emit(Instr::Store {
            op: StoreOp::Sw,
            rs1: 28,
            rs2: r,
            imm: i as i32 * 4,
        });
    }
    g.emit(Instr::Simt {
        op: SimtOp::Exit,
        rs1: 0,
    });
    for f in g.function_labels.clone() {
        g.function(f);
    }

    let words = g.asm.finish();
    let functions = std::iter::once(0)
        .chain(g.function_labels.iter().map(|&l| g.asm.addr(l)))
        .collect();
    let threads = grid * g.block;
    let data = (0..threads * DATA_WORDS).map(|_| g.rng.gen()).collect();
    Program {
        seed,
        words,
        entry: 0,
        functions,
        shared_bytes: g.block * SHARED_WORDS * 4,
        grid,
        block: g.block,
        data,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_per_seed() {
        let a = generate(7, 4, 16, &Options::default());
        let b = generate(7, 4, 16, &Options::default());
        assert_eq!(a.words, b.words);
        assert_eq!(a.data, b.data);
        let c = generate(8, 4, 16, &Options::default());
        assert_ne!(a.words, c.words);
    }

    #[test]
    fn every_word_decodes() {
        for seed in 0..50 {
            let p = generate(seed, 8, 64, &Options::default());
            for &w in &p.words {
                warpforge_isa::decode(w).unwrap();
            }
            assert!(p.block >= 1 && p.block <= 64);
        }
    }
}
