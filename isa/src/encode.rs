//! [`Instr`] → binary: the inverse of [`crate::decode`] for every instruction it accepts.
//! Used by the random-program generator, directed tests and the assembler helpers.

use crate::*;

fn r(op: u32, rd: Reg, f3: u32, rs1: Reg, rs2: Reg, f7: u32) -> u32 {
    op | (rd as u32) << 7 | f3 << 12 | (rs1 as u32) << 15 | (rs2 as u32) << 20 | f7 << 25
}
fn i(op: u32, rd: Reg, f3: u32, rs1: Reg, imm: i32) -> u32 {
    op | (rd as u32) << 7 | f3 << 12 | (rs1 as u32) << 15 | ((imm as u32) & 0xfff) << 20
}
fn s(op: u32, f3: u32, rs1: Reg, rs2: Reg, imm: i32) -> u32 {
    let imm = imm as u32;
    op | (imm & 0x1f) << 7
        | f3 << 12
        | (rs1 as u32) << 15
        | (rs2 as u32) << 20
        | (imm >> 5 & 0x7f) << 25
}
fn b(f3: u32, rs1: Reg, rs2: Reg, imm: i32) -> u32 {
    let imm = imm as u32;
    0x63 | (imm >> 11 & 1) << 7
        | (imm >> 1 & 0xf) << 8
        | f3 << 12
        | (rs1 as u32) << 15
        | (rs2 as u32) << 20
        | (imm >> 5 & 0x3f) << 25
        | (imm >> 12 & 1) << 31
}
fn j(rd: Reg, imm: i32) -> u32 {
    let imm = imm as u32;
    0x6f | (rd as u32) << 7
        | (imm >> 12 & 0xff) << 12
        | (imm >> 11 & 1) << 20
        | (imm >> 1 & 0x3ff) << 21
        | (imm >> 20 & 1) << 31
}

/// Encode one instruction. Immediates out of the field's range are truncated to it, as an
/// assembler's `.insn` would; callers that build programs keep them in range.
pub fn encode(instr: &Instr) -> u32 {
    match *instr {
        Instr::Lui { rd, imm } => 0x37 | (rd as u32) << 7 | (imm as u32 & 0xffff_f000),
        Instr::Auipc { rd, imm } => 0x17 | (rd as u32) << 7 | (imm as u32 & 0xffff_f000),
        Instr::Jal { rd, imm } => j(rd, imm),
        Instr::Jalr { rd, rs1, imm } => i(0x67, rd, 0, rs1, imm),
        Instr::Branch { op, rs1, rs2, imm } => {
            let f3 = match op {
                BranchOp::Beq => 0,
                BranchOp::Bne => 1,
                BranchOp::Blt => 4,
                BranchOp::Bge => 5,
                BranchOp::Bltu => 6,
                BranchOp::Bgeu => 7,
            };
            b(f3, rs1, rs2, imm)
        }
        Instr::Load { op, rd, rs1, imm } => {
            let f3 = match op {
                LoadOp::Lb => 0,
                LoadOp::Lh => 1,
                LoadOp::Lw => 2,
                LoadOp::Lbu => 4,
                LoadOp::Lhu => 5,
            };
            i(0x03, rd, f3, rs1, imm)
        }
        Instr::Store { op, rs1, rs2, imm } => {
            let f3 = match op {
                StoreOp::Sb => 0,
                StoreOp::Sh => 1,
                StoreOp::Sw => 2,
            };
            s(0x23, f3, rs1, rs2, imm)
        }
        Instr::OpImm { op, rd, rs1, imm } => match op {
            AluOp::Add => i(0x13, rd, 0, rs1, imm),
            AluOp::Slt => i(0x13, rd, 2, rs1, imm),
            AluOp::Sltu => i(0x13, rd, 3, rs1, imm),
            AluOp::Xor => i(0x13, rd, 4, rs1, imm),
            AluOp::Or => i(0x13, rd, 6, rs1, imm),
            AluOp::And => i(0x13, rd, 7, rs1, imm),
            AluOp::Sll => r(0x13, rd, 1, rs1, (imm & 31) as Reg, 0),
            AluOp::Srl => r(0x13, rd, 5, rs1, (imm & 31) as Reg, 0),
            AluOp::Sra => r(0x13, rd, 5, rs1, (imm & 31) as Reg, 0x20),
            // There is no `subi`: encode as `addi` of the negated immediate.
            AluOp::Sub => i(0x13, rd, 0, rs1, imm.wrapping_neg()),
        },
        Instr::Op { op, rd, rs1, rs2 } => {
            let (f3, f7) = match op {
                AluOp::Add => (0, 0),
                AluOp::Sub => (0, 0x20),
                AluOp::Sll => (1, 0),
                AluOp::Slt => (2, 0),
                AluOp::Sltu => (3, 0),
                AluOp::Xor => (4, 0),
                AluOp::Srl => (5, 0),
                AluOp::Sra => (5, 0x20),
                AluOp::Or => (6, 0),
                AluOp::And => (7, 0),
            };
            r(0x33, rd, f3, rs1, rs2, f7)
        }
        Instr::MulDiv { op, rd, rs1, rs2 } => {
            let f3 = match op {
                MulDivOp::Mul => 0,
                MulDivOp::Mulh => 1,
                MulDivOp::Mulhsu => 2,
                MulDivOp::Mulhu => 3,
                MulDivOp::Div => 4,
                MulDivOp::Divu => 5,
                MulDivOp::Rem => 6,
                MulDivOp::Remu => 7,
            };
            r(0x33, rd, f3, rs1, rs2, 1)
        }
        Instr::Fence => 0x0ff0_000f,
        Instr::Ecall => 0x0000_0073,
        Instr::Ebreak => 0x0010_0073,
        Instr::Csr { op, rd, src, csr } => {
            let f3 = match op {
                CsrOp::Rw => 1,
                CsrOp::Rs => 2,
                CsrOp::Rc => 3,
                CsrOp::Rwi => 5,
                CsrOp::Rsi => 6,
                CsrOp::Rci => 7,
            };
            0x73 | (rd as u32) << 7
                | f3 << 12
                | ((src & 31) as u32) << 15
                | (csr as u32 & 0xfff) << 20
        }
        Instr::Simt { op, rs1 } => r(OPCODE_SIMT, 0, op.funct3(), rs1, 0, 0),
    }
}
