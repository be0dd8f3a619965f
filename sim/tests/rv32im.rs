//! Directed tests of every RV32IM instruction on the golden model, with the edge cases of
//! docs/isa.md §3.1 (division by zero, signed overflow, shift amounts, x0, sign extension), and
//! every fault of §8. Expected values are written out by hand from the RISC-V specification.

mod common;

use common::*;
use warpforge_config::GpuConfig;
use warpforge_isa::{
    csr, encode, AluOp, BranchOp, CsrOp, Instr, LoadOp, MulDivOp, SimtOp, StoreOp,
};
use warpforge_randprog::asm::Asm;
use warpforge_sim::{FaultCause, RunOutcome};

const OUT: u8 = 8; // s0: output buffer
const A: u8 = 5;
const B: u8 = 6;
const R: u8 = 7;

/// A program that evaluates many one-instruction cases, storing each result to out[k].
struct Cases {
    asm: Asm,
    expected: Vec<u32>,
    names: Vec<String>,
}

impl Cases {
    fn new() -> Self {
        let mut asm = Asm::new();
        prologue(&mut asm);
        param(&mut asm, OUT, 0);
        Cases {
            asm,
            expected: Vec::new(),
            names: Vec::new(),
        }
    }

    fn store_result(&mut self, name: String, expected: u32) {
        let k = self.expected.len() as i32;
        self.asm.i(Instr::Store {
            op: StoreOp::Sw,
            rs1: OUT,
            rs2: R,
            imm: 4 * k,
        });
        self.expected.push(expected);
        self.names.push(name);
    }

    fn rr(&mut self, op: AluOp, a: u32, b: u32, expected: u32) {
        li(&mut self.asm, A, a);
        li(&mut self.asm, B, b);
        self.asm.i(Instr::Op {
            op,
            rd: R,
            rs1: A,
            rs2: B,
        });
        self.store_result(format!("{op:?} {a:#x}, {b:#x}"), expected);
    }

    fn ri(&mut self, op: AluOp, a: u32, imm: i32, expected: u32) {
        li(&mut self.asm, A, a);
        self.asm.i(Instr::OpImm {
            op,
            rd: R,
            rs1: A,
            imm,
        });
        self.store_result(format!("{op:?}i {a:#x}, {imm}"), expected);
    }

    fn md(&mut self, op: MulDivOp, a: u32, b: u32, expected: u32) {
        li(&mut self.asm, A, a);
        li(&mut self.asm, B, b);
        self.asm.i(Instr::MulDiv {
            op,
            rd: R,
            rs1: A,
            rs2: B,
        });
        self.store_result(format!("{op:?} {a:#x}, {b:#x}"), expected);
    }

    fn run(mut self, cfg: &GpuConfig) {
        self.asm.i(Instr::Simt {
            op: SimtOp::Exit,
            rs1: 0,
        });
        let n = self.expected.len();
        let (mut gpu, bufs) = launch(cfg, self.asm.finish(), 1, 1, &[vec![0; n]], &[]);
        assert_eq!(gpu.run(100_000), RunOutcome::Finished);
        let got = read_words(&gpu, bufs[0], n);
        for ((g, e), name) in got.iter().zip(&self.expected).zip(&self.names) {
            assert_eq!(g, e, "{name}: got {g:#x}, expected {e:#x}");
        }
    }
}

const NEG: fn(i32) -> u32 = |v| v as u32;

#[test]
fn alu_register_register() {
    let mut c = Cases::new();
    c.rr(AluOp::Add, 5, NEG(-3), 2);
    c.rr(AluOp::Add, 0x7fff_ffff, 1, 0x8000_0000);
    c.rr(AluOp::Sub, 3, 5, 0xffff_fffe);
    c.rr(AluOp::Sub, 0x8000_0000, 1, 0x7fff_ffff);
    c.rr(AluOp::Sll, 1, 31, 0x8000_0000);
    c.rr(AluOp::Sll, 1, 33, 2); // only rs2[4:0]
    c.rr(AluOp::Slt, NEG(-1), 1, 1);
    c.rr(AluOp::Slt, 1, NEG(-1), 0);
    c.rr(AluOp::Sltu, 0xffff_ffff, 1, 0);
    c.rr(AluOp::Sltu, 1, 0xffff_ffff, 1);
    c.rr(AluOp::Xor, 0xf0f0, 0xff00, 0x0ff0);
    c.rr(AluOp::Srl, 0x8000_0000, 31, 1);
    c.rr(AluOp::Srl, 0x8000_0000, 36, 0x0800_0000);
    c.rr(AluOp::Sra, 0x8000_0000, 4, 0xf800_0000);
    c.rr(AluOp::Sra, 0x4000_0000, 0xffff_ffe1, 0x2000_0000); // amount 1
    c.rr(AluOp::Or, 0xf0f0, 0x0f0f, 0xffff);
    c.rr(AluOp::And, 0xf0f0, 0xff00, 0xf000);
    c.run(&GpuConfig::tiny());
}

#[test]
fn alu_register_immediate() {
    let mut c = Cases::new();
    c.ri(AluOp::Add, 10, -1, 9);
    c.ri(AluOp::Add, 0, -2048, NEG(-2048));
    c.ri(AluOp::Add, 0, 2047, 2047);
    c.ri(AluOp::Slt, NEG(-5), -4, 1);
    c.ri(AluOp::Slt, 5, -4, 0);
    c.ri(AluOp::Sltu, 5, -1, 1); // immediate sign-extended, then compared unsigned
    c.ri(AluOp::Sltu, 0xffff_ffff, -1, 0);
    c.ri(AluOp::Xor, 0x1234, -1, !0x1234);
    c.ri(AluOp::Or, 0x1000, 0x0ff, 0x10ff);
    c.ri(AluOp::And, 0xffff_ffff, -16, 0xffff_fff0);
    c.ri(AluOp::Sll, 3, 31, 0x8000_0000);
    c.ri(AluOp::Srl, 0xffff_ffff, 28, 0xf);
    c.ri(AluOp::Sra, 0x8000_0000, 31, 0xffff_ffff);
    c.ri(AluOp::Sra, 0x7000_0000, 0, 0x7000_0000);
    c.run(&GpuConfig::tiny());
}

#[test]
fn multiply_divide_edge_cases() {
    let mut c = Cases::new();
    c.md(MulDivOp::Mul, 3, NEG(-4), NEG(-12));
    c.md(MulDivOp::Mul, 0xffff_ffff, 0xffff_ffff, 1);
    c.md(MulDivOp::Mul, 0x0001_0000, 0x0001_0000, 0);
    c.md(MulDivOp::Mulh, NEG(-1), NEG(-1), 0);
    c.md(MulDivOp::Mulh, 0x8000_0000, 0x8000_0000, 0x4000_0000);
    c.md(MulDivOp::Mulh, 0x8000_0000, 1, 0xffff_ffff);
    c.md(MulDivOp::Mulhsu, NEG(-1), 0xffff_ffff, 0xffff_ffff);
    c.md(MulDivOp::Mulhsu, 2, 0x8000_0000, 1);
    c.md(MulDivOp::Mulhu, 0xffff_ffff, 0xffff_ffff, 0xffff_fffe);
    c.md(MulDivOp::Div, 7, NEG(-2), NEG(-3)); // rounds toward zero
    c.md(MulDivOp::Div, NEG(-7), 2, NEG(-3));
    c.md(MulDivOp::Div, 5, 0, 0xffff_ffff); // by zero: all ones
    c.md(MulDivOp::Div, 0x8000_0000, NEG(-1), 0x8000_0000); // overflow
    c.md(MulDivOp::Divu, 7, 2, 3);
    c.md(MulDivOp::Divu, 0xffff_fffe, 0xffff_ffff, 0);
    c.md(MulDivOp::Divu, 5, 0, 0xffff_ffff);
    c.md(MulDivOp::Rem, 7, NEG(-2), 1);
    c.md(MulDivOp::Rem, NEG(-7), 2, NEG(-1)); // sign of the dividend
    c.md(MulDivOp::Rem, 5, 0, 5); // by zero: the dividend
    c.md(MulDivOp::Rem, 0x8000_0000, NEG(-1), 0); // overflow
    c.md(MulDivOp::Remu, 7, 2, 1);
    c.md(MulDivOp::Remu, 0xffff_fff5, 0, 0xffff_fff5);
    c.run(&GpuConfig::tiny());
}

#[test]
fn upper_immediates_jumps_and_x0() {
    let mut c = Cases::new();
    c.asm.i(Instr::Lui {
        rd: R,
        imm: 0x1234_5000,
    });
    c.store_result("lui".into(), 0x1234_5000);
    let pc = c.asm.pc();
    c.asm.i(Instr::Auipc { rd: R, imm: 0x2000 });
    c.store_result("auipc".into(), pc + 0x2000);
    let pc = c.asm.pc();
    c.asm.i(Instr::Auipc {
        rd: R,
        imm: 0xfffff000u32 as i32,
    });
    c.store_result("auipc negative".into(), pc.wrapping_sub(0x1000));
    // x0 ignores writes.
    c.asm.i(Instr::OpImm {
        op: AluOp::Add,
        rd: 0,
        rs1: 0,
        imm: 5,
    });
    c.asm.i(Instr::Op {
        op: AluOp::Add,
        rd: R,
        rs1: 0,
        rs2: 0,
    });
    c.store_result("x0 stays zero".into(), 0);
    // jal links pc+4 and skips one instruction.
    let jal_pc = c.asm.pc();
    c.asm.i(Instr::Jal { rd: R, imm: 8 });
    c.asm.i(Instr::Ebreak); // skipped
    c.store_result("jal link".into(), jal_pc + 4);
    // jalr clears bit 0 of the target: target = (A + 1) & !1.
    let target_pc = c.asm.pc() + 16;
    li(&mut c.asm, A, target_pc);
    let jalr_pc = c.asm.pc();
    c.asm.i(Instr::Jalr {
        rd: R,
        rs1: A,
        imm: 1,
    });
    c.asm.i(Instr::Ebreak); // skipped
    assert_eq!(c.asm.pc(), target_pc);
    c.store_result("jalr link".into(), jalr_pc + 4);
    c.run(&GpuConfig::tiny());
}

#[test]
fn branches_both_ways() {
    let mut c = Cases::new();
    let cases: [(BranchOp, u32, u32, bool); 12] = [
        (BranchOp::Beq, 3, 3, true),
        (BranchOp::Beq, 3, 4, false),
        (BranchOp::Bne, 3, 4, true),
        (BranchOp::Bne, 3, 3, false),
        (BranchOp::Blt, NEG(-1), 0, true),
        (BranchOp::Blt, 0, NEG(-1), false),
        (BranchOp::Bge, 0, NEG(-1), true),
        (BranchOp::Bge, NEG(-2), NEG(-1), false),
        (BranchOp::Bltu, 0, 0xffff_ffff, true),
        (BranchOp::Bltu, 0xffff_ffff, 0, false),
        (BranchOp::Bgeu, 0xffff_ffff, 0, true),
        (BranchOp::Bgeu, 3, 3, true),
    ];
    for (op, a, b, taken) in cases {
        li(&mut c.asm, A, a);
        li(&mut c.asm, B, b);
        let t = c.asm.label();
        let end = c.asm.label();
        c.asm.branch(op, A, B, t);
        c.asm.i(Instr::OpImm {
            op: AluOp::Add,
            rd: R,
            rs1: 0,
            imm: 0,
        });
        c.asm.jal(0, end);
        c.asm.place(t);
        c.asm.i(Instr::OpImm {
            op: AluOp::Add,
            rd: R,
            rs1: 0,
            imm: 1,
        });
        c.asm.place(end);
        c.store_result(format!("{op:?} {a:#x} {b:#x}"), taken as u32);
    }
    c.run(&GpuConfig::tiny());
}

#[test]
fn loads_and_stores_sizes_and_sign_extension() {
    let cfg = GpuConfig::tiny();
    let mut a = Asm::new();
    prologue(&mut a);
    param(&mut a, 18, 0); // input word
    param(&mut a, OUT, 1);
    let loads = [
        (LoadOp::Lb, 3, 0xffff_ff8b),
        (LoadOp::Lbu, 3, 0x8b),
        (LoadOp::Lb, 0, 0x0d),
        (LoadOp::Lh, 2, 0xffff_8bad),
        (LoadOp::Lhu, 2, 0x8bad),
        (LoadOp::Lh, 0, 0xffff_f00d),
        (LoadOp::Lw, 0, 0x8bad_f00d),
    ];
    for (k, &(op, off, _)) in loads.iter().enumerate() {
        a.i(Instr::Load {
            op,
            rd: R,
            rs1: 18,
            imm: off,
        });
        a.i(Instr::Store {
            op: StoreOp::Sw,
            rs1: OUT,
            rs2: R,
            imm: 4 * k as i32,
        });
    }
    // Partial stores into a zero word: sb at byte 1, sh at half 1.
    let base = 4 * loads.len() as i32;
    li(&mut a, R, 0x1234_56aa);
    a.i(Instr::Store {
        op: StoreOp::Sb,
        rs1: OUT,
        rs2: R,
        imm: base + 1,
    });
    a.i(Instr::Store {
        op: StoreOp::Sh,
        rs1: OUT,
        rs2: R,
        imm: base + 6,
    });
    a.i(Instr::Simt {
        op: SimtOp::Exit,
        rs1: 0,
    });
    let (mut gpu, bufs) = launch(
        &cfg,
        a.finish(),
        1,
        1,
        &[vec![0x8bad_f00d], vec![0; loads.len() + 2]],
        &[],
    );
    assert_eq!(gpu.run(10_000), RunOutcome::Finished);
    let got = read_words(&gpu, bufs[1], loads.len() + 2);
    for (k, &(op, off, exp)) in loads.iter().enumerate() {
        assert_eq!(got[k], exp, "{op:?} at +{off}");
    }
    assert_eq!(got[loads.len()], 0x0000_aa00, "sb");
    assert_eq!(got[loads.len() + 1], 0x56aa_0000, "sh");
}

#[test]
fn csrs_per_lane() {
    // block of 6 on 4 lanes: warp 1 is partial (lanes 0-1); grid of 2.
    let cfg = GpuConfig::tiny();
    let ids = [
        csr::TID,
        csr::CTAID,
        csr::NTID,
        csr::NCTAID,
        csr::GTID,
        csr::LANEID,
        csr::WARPID,
        csr::SMID,
        csr::NLANES,
        csr::NWARPS,
        csr::NSMS,
        csr::TMASK,
        csr::STACK_TOP,
        csr::INSTRET,
    ];
    let mut a = Asm::new();
    prologue(&mut a);
    param(&mut a, OUT, 0);
    csrr(&mut a, 9, csr::GTID);
    a.i(Instr::OpImm {
        op: AluOp::Add,
        rd: A,
        rs1: 0,
        imm: 4 * ids.len() as i32,
    });
    a.i(Instr::MulDiv {
        op: MulDivOp::Mul,
        rd: A,
        rs1: 9,
        rs2: A,
    });
    a.i(Instr::Op {
        op: AluOp::Add,
        rd: OUT,
        rs1: OUT,
        rs2: A,
    });
    for (k, &c) in ids.iter().enumerate() {
        csrr(&mut a, R, c);
        a.i(Instr::Store {
            op: StoreOp::Sw,
            rs1: OUT,
            rs2: R,
            imm: 4 * k as i32,
        });
    }
    a.i(Instr::Simt {
        op: SimtOp::Exit,
        rs1: 0,
    });
    let n = 12 * ids.len();
    let words = a.finish();
    // With the RTL's counter base (co-simulation): `instret` starts there, wrapping.
    let base = 0xFFFF_FFF8u32;
    let (mut gpu, bufs) = launch(&cfg, words.clone(), 2, 6, &[vec![0; n]], &[]);
    gpu.set_instret_base(base);
    assert_eq!(gpu.run(10_000), RunOutcome::Finished);
    let got = read_words(&gpu, bufs[0], n);
    let instret = 6 + 2 * (ids.len() as u32 - 1);
    for g in 0..12 {
        assert_eq!(
            got[g * ids.len() + ids.len() - 1],
            instret.wrapping_add(base)
        );
    }
    let (mut gpu, bufs) = launch(&cfg, words, 2, 6, &[vec![0; n]], &[]);
    assert_eq!(gpu.run(10_000), RunOutcome::Finished);
    let got = read_words(&gpu, bufs[0], n);
    for cta in 0..2u32 {
        for tid in 0..6u32 {
            let g = cta * 6 + tid;
            let row = &got[g as usize * ids.len()..][..ids.len()];
            // Both CTAs fit the 4 warp slots of the SM at once: CTA 0 on slots 0-1, CTA 1 on 2-3.
            let warp = cta * 2 + tid / 4;
            let lane = tid % 4;
            let slot = warp * 4 + lane;
            let tmask = if tid / 4 == 1 { 0b0011 } else { 0b1111 };
            let stack_top = 0x8000_0000u32 + cfg.gmem_bytes - slot * cfg.stack_bytes;
            // instret: 6 instructions before the CSR loop + 2 per CSR before this one.
            let instret = 6 + 2 * (ids.len() as u32 - 1);
            assert_eq!(
                row,
                &[tid, cta, 6, 2, g, lane, warp, 0, 4, 4, 1, tmask, stack_top, instret],
                "thread {g}"
            );
        }
    }
}

/// Run `words` with `block` threads on `cfg` and return the fault.
fn fault_of(cfg: &GpuConfig, words: Vec<u32>, block: u32) -> warpforge_sim::Fault {
    let (mut gpu, _) = launch(cfg, words, 1, block, &[vec![0; 16]], &[]);
    match gpu.run(10_000) {
        RunOutcome::Fault(f) => f,
        other => panic!("expected a fault, got {other:?}"),
    }
}

fn program(body: impl FnOnce(&mut Asm)) -> Vec<u32> {
    let mut a = Asm::new();
    prologue(&mut a);
    param(&mut a, OUT, 0);
    body(&mut a);
    a.i(Instr::Simt {
        op: SimtOp::Exit,
        rs1: 0,
    });
    a.finish()
}

#[test]
fn faults_name_sm_warp_pc_and_cause() {
    let cfg = GpuConfig::tiny();
    let at = 8; // first instruction after the 2-instruction prologue
    let cases: Vec<(Vec<u32>, FaultCause, Option<u32>)> = vec![
        (
            program(|a| {
                a.i(Instr::Load {
                    op: LoadOp::Lw,
                    rd: R,
                    rs1: OUT,
                    imm: 2,
                });
            }),
            FaultCause::MisalignedLoad,
            None,
        ),
        (
            program(|a| {
                a.i(Instr::Load {
                    op: LoadOp::Lh,
                    rd: R,
                    rs1: OUT,
                    imm: 1,
                });
            }),
            FaultCause::MisalignedLoad,
            None,
        ),
        (
            program(|a| {
                a.i(Instr::Store {
                    op: StoreOp::Sw,
                    rs1: OUT,
                    rs2: 0,
                    imm: 1,
                });
            }),
            FaultCause::MisalignedStore,
            None,
        ),
        (
            program(|a| {
                a.i(Instr::Store {
                    op: StoreOp::Sh,
                    rs1: OUT,
                    rs2: 0,
                    imm: 3,
                });
            }),
            FaultCause::MisalignedStore,
            None,
        ),
        // Instruction memory is not data memory.
        (
            program(|a| {
                a.i(Instr::Load {
                    op: LoadOp::Lw,
                    rd: R,
                    rs1: 0,
                    imm: 0,
                });
            }),
            FaultCause::OutOfRangeLoad,
            Some(0),
        ),
        (
            program(|a| {
                a.i(Instr::Store {
                    op: StoreOp::Sw,
                    rs1: 0,
                    rs2: 0,
                    imm: 0x100,
                });
            }),
            FaultCause::OutOfRangeStore,
            Some(0x100),
        ),
        // The shared window holds nothing for a kernel without shared variables.
        (
            program(|a| {
                a.i(Instr::Lui {
                    rd: A,
                    imm: 0x1000_0000,
                });
                a.i(Instr::Load {
                    op: LoadOp::Lw,
                    rd: R,
                    rs1: A,
                    imm: 0,
                });
            }),
            FaultCause::OutOfRangeLoad,
            Some(0x1000_0000),
        ),
        (
            program(|a| {
                a.i(Instr::Jal { rd: 0, imm: 6 });
            }),
            FaultCause::MisalignedFetch,
            Some(at + 6),
        ),
        (
            program(|a| {
                a.i(Instr::OpImm {
                    op: AluOp::Add,
                    rd: A,
                    rs1: 0,
                    imm: 0x102,
                });
                a.i(Instr::Jalr {
                    rd: 1,
                    rs1: A,
                    imm: 0,
                });
            }),
            FaultCause::MisalignedFetch,
            Some(0x102),
        ),
        (
            program(|a| {
                a.i(Instr::Lui {
                    rd: A,
                    imm: 0x0010_0000,
                });
                a.i(Instr::Jalr {
                    rd: 1,
                    rs1: A,
                    imm: 0,
                });
            }),
            FaultCause::OutOfRangeFetch,
            Some(0x0010_0000),
        ),
        (
            program(|a| {
                a.i(Instr::Csr {
                    op: CsrOp::Rw,
                    rd: R,
                    src: A,
                    csr: csr::TID,
                });
            }),
            FaultCause::IllegalInstruction,
            None,
        ),
        (
            program(|a| {
                a.i(Instr::Csr {
                    op: CsrOp::Rsi,
                    rd: R,
                    src: 1,
                    csr: csr::TID,
                });
            }),
            FaultCause::IllegalInstruction,
            None,
        ),
        (
            program(|a| {
                a.i(Instr::Csr {
                    op: CsrOp::Rs,
                    rd: R,
                    src: 0,
                    csr: 0x300,
                });
            }),
            FaultCause::IllegalInstruction,
            None,
        ),
        (
            program(|a| {
                a.i(Instr::Ecall);
            }),
            FaultCause::Ecall,
            None,
        ),
        (
            program(|a| {
                a.i(Instr::Ebreak);
            }),
            FaultCause::Breakpoint,
            None,
        ),
    ];
    for (k, (words, cause, addr)) in cases.into_iter().enumerate() {
        let f = fault_of(&cfg, words, 1);
        assert_eq!((f.sm, f.warp, f.cause), (0, 0, cause), "case {k}: {f}");
        let expected_pc = if cause == FaultCause::OutOfRangeFetch {
            0x0010_0000
        } else {
            f.pc
        };
        assert_eq!(f.pc, expected_pc);
        if let Some(a) = addr {
            assert_eq!(f.addr, Some(a), "case {k}: {f}");
        }
        assert!(f.to_string().contains(cause.name()), "{f}");
    }
    // An undecodable word.
    let mut words = program(|a| {
        a.i(Instr::Fence);
    });
    words[2] = 0x0000_0000;
    let f = fault_of(&cfg, words, 1);
    assert_eq!((f.cause, f.pc), (FaultCause::IllegalInstruction, 8));
}

#[test]
fn misaligned_access_reports_lowest_faulting_lane_and_has_no_effect() {
    // Lanes 0-1 store aligned, lane 2 misaligned: nothing is written, lane 2 is reported.
    let cfg = GpuConfig::tiny();
    let words = program(|a| {
        csrr(a, 9, csr::TID);
        a.i(Instr::OpImm {
            op: AluOp::Sll,
            rd: A,
            rs1: 9,
            imm: 2,
        });
        a.i(Instr::OpImm {
            op: AluOp::Add,
            rd: B,
            rs1: 0,
            imm: 2,
        });
        let skip = a.label();
        a.branch(BranchOp::Bne, 9, B, skip);
        a.i(Instr::OpImm {
            op: AluOp::Add,
            rd: A,
            rs1: A,
            imm: 1,
        });
        a.place(skip);
        a.i(Instr::Op {
            op: AluOp::Add,
            rd: A,
            rs1: A,
            rs2: OUT,
        });
        a.i(Instr::OpImm {
            op: AluOp::Add,
            rd: R,
            rs1: 0,
            imm: 7,
        });
        a.i(Instr::Store {
            op: StoreOp::Sw,
            rs1: A,
            rs2: R,
            imm: 0,
        });
    });
    let (mut gpu, bufs) = launch(&cfg, words, 1, 4, &[vec![0; 4]], &[]);
    let RunOutcome::Fault(f) = gpu.run(1000) else {
        panic!()
    };
    assert_eq!((f.cause, f.lane), (FaultCause::MisalignedStore, Some(2)));
    assert_eq!(f.addr, Some(bufs[0] + 9));
    assert_eq!(read_words(&gpu, bufs[0], 4), vec![0; 4]);
}

#[test]
fn simt_stack_overflow_is_a_fault() {
    // Nested divergent ifs on lane bits: depth 1 + 2 per level.
    // An if without else grows the stack by one entry per level (the side that jumps straight
    // to the reconvergence point pops at once), but both pushes must fit when the branch executes.
    let mut cfg = GpuConfig::tiny();
    cfg.simt_stack_depth = 3;
    let words = program(|a| {
        csrr(a, 9, csr::LANEID);
        let mut ends = Vec::new();
        for bit in 0..2 {
            a.i(Instr::OpImm {
                op: AluOp::Srl,
                rd: A,
                rs1: 9,
                imm: bit,
            });
            a.i(Instr::OpImm {
                op: AluOp::And,
                rd: A,
                rs1: A,
                imm: 1,
            });
            let end = a.label();
            a.branch(BranchOp::Beq, A, 0, end);
            ends.push(end);
        }
        for end in ends.into_iter().rev() {
            a.i(Instr::OpImm {
                op: AluOp::Add,
                rd: R,
                rs1: R,
                imm: 1,
            });
            a.place(end);
        }
    });
    let f = fault_of(&cfg, words.clone(), 4);
    assert_eq!(f.cause, FaultCause::SimtStackOverflow);
    cfg.simt_stack_depth = 4;
    let (mut gpu, _) = launch(&cfg, words, 1, 4, &[vec![0; 4]], &[]);
    assert_eq!(gpu.run(1000), RunOutcome::Finished);
}

#[test]
fn divergent_indirect_jump_faults_but_divergent_call_splits() {
    let cfg = GpuConfig::tiny();
    // Function table: f0 returns 10, f1 returns 20. Lane parity picks the function.
    let build = |link: bool| {
        let mut a = Asm::new();
        prologue(&mut a);
        param(&mut a, OUT, 0);
        csrr(&mut a, 9, csr::TID);
        let (f0, f1) = (a.label(), a.label());
        // A = f0 + (tid & 1) * 8
        a.i(Instr::OpImm {
            op: AluOp::And,
            rd: A,
            rs1: 9,
            imm: 1,
        });
        a.i(Instr::OpImm {
            op: AluOp::Sll,
            rd: A,
            rs1: A,
            imm: 3,
        });
        a.i(Instr::OpImm {
            op: AluOp::Add,
            rd: A,
            rs1: A,
            imm: 4 * 14,
        });
        a.i(Instr::Jalr {
            rd: if link { 1 } else { 0 },
            rs1: A,
            imm: 0,
        });
        a.i(Instr::OpImm {
            op: AluOp::Sll,
            rd: B,
            rs1: 9,
            imm: 2,
        });
        a.i(Instr::Op {
            op: AluOp::Add,
            rd: B,
            rs1: B,
            rs2: OUT,
        });
        a.i(Instr::Store {
            op: StoreOp::Sw,
            rs1: B,
            rs2: R,
            imm: 0,
        });
        a.i(Instr::Simt {
            op: SimtOp::Exit,
            rs1: 0,
        });
        a.i(Instr::Ebreak);
        a.i(Instr::Ebreak);
        a.i(Instr::Ebreak);
        a.place(f0);
        a.i(Instr::OpImm {
            op: AluOp::Add,
            rd: R,
            rs1: 0,
            imm: 10,
        });
        a.i(Instr::Jalr {
            rd: 0,
            rs1: 1,
            imm: 0,
        });
        a.place(f1);
        a.i(Instr::OpImm {
            op: AluOp::Add,
            rd: R,
            rs1: 0,
            imm: 20,
        });
        a.i(Instr::Jalr {
            rd: 0,
            rs1: 1,
            imm: 0,
        });
        let (f0a, f1a) = (a.addr(f0), a.addr(f1));
        assert_eq!(f0a, 4 * 14);
        (a.finish(), f0a, f1a)
    };
    let (words, f0a, f1a) = build(true);
    assert_eq!(f1a - f0a, 8);
    let image = warpforge_loader::from_words(0, words, &[0, f0a, f1a]).unwrap();
    let (mut gpu, bufs) = launch_image(&cfg, &image, 1, 4, &[vec![0; 4]], &[]);
    let (out, commits) = run_collect(&mut gpu, 1000);
    assert_eq!(out, RunOutcome::Finished);
    assert_eq!(read_words(&gpu, bufs[0], 4), vec![10, 20, 10, 20]);
    assert_eq!(gpu.stats().divergent_calls, 1);
    // The call executes twice: even lanes first (lane 0's target), then the odd lanes.
    let jalr_word = encode(&Instr::Jalr {
        rd: 1,
        rs1: A,
        imm: 0,
    });
    let calls: Vec<u32> = commits
        .iter()
        .filter(|c| c.instr == jalr_word)
        .map(|c| c.mask)
        .collect();
    assert_eq!(calls, vec![0b0101, 0b1010]);
    // Everything after the call runs converged again.
    let last = commits.last().unwrap();
    assert_eq!(last.mask, 0b1111);

    // The same with rd = x0 is an indirect jump: the loader refuses it.
    let (words, f0a, f1a) = build(false);
    let err = warpforge_loader::from_words(0, words, &[0, f0a, f1a]).unwrap_err();
    assert!(err.to_string().contains("indirect jump"), "{err}");
}

#[test]
fn exit_and_tmc_change_masks() {
    let cfg = GpuConfig::tiny();
    // Lanes 2-3 exit inside a divergent if; `wf.tmc 0b1110` then ends lane 0 (active, bit
    // clear) and keeps lane 1; lane 1 stores the active mask it sees.
    let words = program(|a| {
        csrr(a, 9, csr::TID);
        a.i(Instr::OpImm {
            op: AluOp::Add,
            rd: A,
            rs1: 0,
            imm: 2,
        });
        let keep = a.label();
        a.branch(BranchOp::Blt, 9, A, keep);
        a.i(Instr::Simt {
            op: SimtOp::Exit,
            rs1: 0,
        });
        a.place(keep);
        a.i(Instr::OpImm {
            op: AluOp::Add,
            rd: B,
            rs1: 0,
            imm: 0b1110,
        });
        a.i(Instr::Simt {
            op: SimtOp::Tmc,
            rs1: B,
        });
        csrr(a, R, csr::TMASK);
        a.i(Instr::OpImm {
            op: AluOp::Sll,
            rd: A,
            rs1: 9,
            imm: 2,
        });
        a.i(Instr::Op {
            op: AluOp::Add,
            rd: A,
            rs1: A,
            rs2: OUT,
        });
        a.i(Instr::Store {
            op: StoreOp::Sw,
            rs1: A,
            rs2: R,
            imm: 0,
        });
    });
    let (mut gpu, bufs) = launch(&cfg, words, 1, 4, &[vec![0; 4]], &[]);
    assert_eq!(gpu.run(1000), RunOutcome::Finished);
    // Lanes 0, 2 and 3 have terminated: only lane 1 stored.
    assert_eq!(read_words(&gpu, bufs[0], 4), vec![0, 0b0010, 0, 0]);
}

#[test]
fn driven_step_refuses_warps_that_cannot_issue() {
    let cfg = GpuConfig::tiny();
    let words = program(|a| {
        a.i(Instr::Simt {
            op: SimtOp::Bar,
            rs1: 0,
        });
    });
    let (mut gpu, _) = launch(&cfg, words, 1, 8, &[vec![0; 4]], &[]);
    assert!(gpu.step(0, 3).unwrap_err().to_string().contains("no CTA"));
    assert!(gpu.step(1, 0).is_err());
    for _ in 0..2 {
        gpu.step(0, 0).unwrap();
    }
    gpu.step(0, 0).unwrap(); // bar
    let e = gpu.step(0, 0).unwrap_err();
    assert!(e.to_string().contains("barrier"), "{e}");
    let ready: Vec<u32> = gpu.ready_warps(0).collect();
    assert_eq!(ready, vec![1]);
}
