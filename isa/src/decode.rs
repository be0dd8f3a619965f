//! Binary → [`Instr`]. Anything not listed in docs/isa.md is a [`DecodeError`], which the model
//! and the RTL both turn into an illegal-instruction fault.

use crate::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal instruction 0x{0:08x}")]
pub struct DecodeError(pub u32);

fn rd(w: u32) -> Reg {
    ((w >> 7) & 31) as Reg
}
fn rs1(w: u32) -> Reg {
    ((w >> 15) & 31) as Reg
}
fn rs2(w: u32) -> Reg {
    ((w >> 20) & 31) as Reg
}
fn funct3(w: u32) -> u32 {
    (w >> 12) & 7
}
fn funct7(w: u32) -> u32 {
    w >> 25
}
fn imm_i(w: u32) -> i32 {
    (w as i32) >> 20
}
fn imm_s(w: u32) -> i32 {
    (((w & 0xfe00_0000) as i32) >> 20) | ((w >> 7) & 0x1f) as i32
}
fn imm_b(w: u32) -> i32 {
    (((w & 0x8000_0000) as i32) >> 19)
        | ((w & 0x80) << 4) as i32
        | ((w >> 20) & 0x7e0) as i32
        | ((w >> 7) & 0x1e) as i32
}
fn imm_u(w: u32) -> i32 {
    (w & 0xffff_f000) as i32
}
fn imm_j(w: u32) -> i32 {
    (((w & 0x8000_0000) as i32) >> 11)
        | (w & 0xff000) as i32
        | ((w >> 9) & 0x800) as i32
        | ((w >> 20) & 0x7fe) as i32
}

/// Decode one instruction word.
pub fn decode(w: u32) -> Result<Instr, DecodeError> {
    let bad = Err(DecodeError(w));
    if w & 3 != 3 {
        return bad; // compressed encodings are not part of the ISA
    }
    let i = match w & 0x7f {
        0x37 => Instr::Lui {
            rd: rd(w),
            imm: imm_u(w),
        },
        0x17 => Instr::Auipc {
            rd: rd(w),
            imm: imm_u(w),
        },
        0x6f => Instr::Jal {
            rd: rd(w),
            imm: imm_j(w),
        },
        0x67 if funct3(w) == 0 => Instr::Jalr {
            rd: rd(w),
            rs1: rs1(w),
            imm: imm_i(w),
        },
        0x63 => {
            let op = match funct3(w) {
                0 => BranchOp::Beq,
                1 => BranchOp::Bne,
                4 => BranchOp::Blt,
                5 => BranchOp::Bge,
                6 => BranchOp::Bltu,
                7 => BranchOp::Bgeu,
                _ => return bad,
            };
            Instr::Branch {
                op,
                rs1: rs1(w),
                rs2: rs2(w),
                imm: imm_b(w),
            }
        }
        0x03 => {
            let op = match funct3(w) {
                0 => LoadOp::Lb,
                1 => LoadOp::Lh,
                2 => LoadOp::Lw,
                4 => LoadOp::Lbu,
                5 => LoadOp::Lhu,
                _ => return bad,
            };
            Instr::Load {
                op,
                rd: rd(w),
                rs1: rs1(w),
                imm: imm_i(w),
            }
        }
        0x23 => {
            let op = match funct3(w) {
                0 => StoreOp::Sb,
                1 => StoreOp::Sh,
                2 => StoreOp::Sw,
                _ => return bad,
            };
            Instr::Store {
                op,
                rs1: rs1(w),
                rs2: rs2(w),
                imm: imm_s(w),
            }
        }
        0x13 => {
            let (op, imm) = match (funct3(w), funct7(w)) {
                (0, _) => (AluOp::Add, imm_i(w)),
                (2, _) => (AluOp::Slt, imm_i(w)),
                (3, _) => (AluOp::Sltu, imm_i(w)),
                (4, _) => (AluOp::Xor, imm_i(w)),
                (6, _) => (AluOp::Or, imm_i(w)),
                (7, _) => (AluOp::And, imm_i(w)),
                (1, 0) => (AluOp::Sll, rs2(w) as i32),
                (5, 0) => (AluOp::Srl, rs2(w) as i32),
                (5, 0x20) => (AluOp::Sra, rs2(w) as i32),
                _ => return bad,
            };
            Instr::OpImm {
                op,
                rd: rd(w),
                rs1: rs1(w),
                imm,
            }
        }
        0x33 => {
            let (rd, rs1, rs2) = (rd(w), rs1(w), rs2(w));
            match (funct7(w), funct3(w)) {
                (1, f3) => {
                    let op = [
                        MulDivOp::Mul,
                        MulDivOp::Mulh,
                        MulDivOp::Mulhsu,
                        MulDivOp::Mulhu,
                        MulDivOp::Div,
                        MulDivOp::Divu,
                        MulDivOp::Rem,
                        MulDivOp::Remu,
                    ][f3 as usize];
                    Instr::MulDiv { op, rd, rs1, rs2 }
                }
                (0, f3) => {
                    let op = [
                        AluOp::Add,
                        AluOp::Sll,
                        AluOp::Slt,
                        AluOp::Sltu,
                        AluOp::Xor,
                        AluOp::Srl,
                        AluOp::Or,
                        AluOp::And,
                    ][f3 as usize];
                    Instr::Op { op, rd, rs1, rs2 }
                }
                (0x20, 0) => Instr::Op {
                    op: AluOp::Sub,
                    rd,
                    rs1,
                    rs2,
                },
                (0x20, 5) => Instr::Op {
                    op: AluOp::Sra,
                    rd,
                    rs1,
                    rs2,
                },
                _ => return bad,
            }
        }
        // fence (funct3 0) and fence.i (funct3 1): fields other than funct3 are ignored.
        0x0f if funct3(w) <= 1 => Instr::Fence,
        0x73 => {
            let f3 = funct3(w);
            if f3 == 0 {
                match w {
                    0x0000_0073 => Instr::Ecall,
                    0x0010_0073 => Instr::Ebreak,
                    _ => return bad,
                }
            } else {
                let op = match f3 {
                    1 => CsrOp::Rw,
                    2 => CsrOp::Rs,
                    3 => CsrOp::Rc,
                    5 => CsrOp::Rwi,
                    6 => CsrOp::Rsi,
                    7 => CsrOp::Rci,
                    _ => return bad,
                };
                Instr::Csr {
                    op,
                    rd: rd(w),
                    src: rs1(w),
                    csr: (w >> 20) as u16,
                }
            }
        }
        OPCODE_SIMT => {
            if funct7(w) != 0 || rd(w) != 0 || rs2(w) != 0 {
                return bad;
            }
            let op = match funct3(w) {
                0 => SimtOp::Exit,
                1 => SimtOp::Bar,
                2 => SimtOp::Tmc,
                _ => return bad,
            };
            let r = rs1(w);
            if op != SimtOp::Tmc && r != 0 {
                return bad;
            }
            Instr::Simt { op, rs1: r }
        }
        _ => return bad,
    };
    Ok(i)
}
