//! The warpforge instruction set: RV32IM plus the SIMT extension in the custom-0 opcode space.
//!
//! This crate is one of the two things the RTL (`hdl/`) and the golden model (`sim/`) share (the
//! other is the configuration). It holds *definitions* only: instruction types, their binary
//! encodings, CSR numbers, the memory map and the reconvergence sidecar format. The behaviour of
//! every instruction is specified in `docs/isa.md` and implemented independently on both sides.

pub mod csr;
mod decode;
mod disasm;
mod encode;
mod fault;
pub mod memmap;

pub use decode::{decode, DecodeError};
pub use disasm::disassemble;
pub use encode::encode;
pub use fault::{FaultCause, NO_LANE};

/// A register number, 0..=31.
pub type Reg = u8;

/// ABI names of the 32 integer registers.
pub const REG_NAMES: [&str; 32] = [
    "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4",
    "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4",
    "t5", "t6",
];

/// Register numbers with ABI meaning.
pub mod reg {
    use super::Reg;
    pub const ZERO: Reg = 0;
    pub const RA: Reg = 1;
    pub const SP: Reg = 2;
    pub const GP: Reg = 3;
    pub const A0: Reg = 10;
}

/// Opcode of the SIMT extension (RISC-V custom-0).
pub const OPCODE_SIMT: u32 = 0x0B;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BranchOp {
    Beq,
    Bne,
    Blt,
    Bge,
    Bltu,
    Bgeu,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoadOp {
    Lb,
    Lh,
    Lw,
    Lbu,
    Lhu,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StoreOp {
    Sb,
    Sh,
    Sw,
}

/// Integer ALU operations (register-register and register-immediate forms).
/// `Sub` exists only in the register form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AluOp {
    Add,
    Sub,
    Sll,
    Slt,
    Sltu,
    Xor,
    Srl,
    Sra,
    Or,
    And,
}

/// The M extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MulDivOp {
    Mul,
    Mulh,
    Mulhsu,
    Mulhu,
    Div,
    Divu,
    Rem,
    Remu,
}

/// Zicsr operations. The `*i` forms take a 5-bit unsigned immediate instead of rs1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CsrOp {
    Rw,
    Rs,
    Rc,
    Rwi,
    Rsi,
    Rci,
}

/// SIMT extension (opcode custom-0 = 0x0B, R-type layout, selected by funct3; funct7 = 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SimtOp {
    /// funct3 = 0: the active threads terminate.
    Exit,
    /// funct3 = 1: CTA-wide barrier.
    Bar,
    /// funct3 = 2: set the active mask from rs1 (value of the lowest active lane).
    Tmc,
}

impl SimtOp {
    pub const fn funct3(self) -> u32 {
        match self {
            SimtOp::Exit => 0,
            SimtOp::Bar => 1,
            SimtOp::Tmc => 2,
        }
    }
}

/// One decoded instruction. Immediates are the architectural, sign-extended values
/// (`Lui`/`Auipc` hold the already-shifted 32-bit value, i.e. `imm & 0xffff_f000`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Instr {
    Lui {
        rd: Reg,
        imm: i32,
    },
    Auipc {
        rd: Reg,
        imm: i32,
    },
    Jal {
        rd: Reg,
        imm: i32,
    },
    Jalr {
        rd: Reg,
        rs1: Reg,
        imm: i32,
    },
    Branch {
        op: BranchOp,
        rs1: Reg,
        rs2: Reg,
        imm: i32,
    },
    Load {
        op: LoadOp,
        rd: Reg,
        rs1: Reg,
        imm: i32,
    },
    Store {
        op: StoreOp,
        rs1: Reg,
        rs2: Reg,
        imm: i32,
    },
    /// Register-immediate ALU op; for shifts `imm` is the shamt (0..=31).
    OpImm {
        op: AluOp,
        rd: Reg,
        rs1: Reg,
        imm: i32,
    },
    Op {
        op: AluOp,
        rd: Reg,
        rs1: Reg,
        rs2: Reg,
    },
    MulDiv {
        op: MulDivOp,
        rd: Reg,
        rs1: Reg,
        rs2: Reg,
    },
    /// `fence` and `fence.i` (both no-ops: memory is ordered per warp).
    Fence,
    Ecall,
    Ebreak,
    /// `src` is rs1 for the register forms and the 5-bit immediate for the `*i` forms.
    Csr {
        op: CsrOp,
        rd: Reg,
        src: u8,
        csr: u16,
    },
    Simt {
        op: SimtOp,
        rs1: Reg,
    },
}

impl Instr {
    /// The register this instruction writes, if any (never 0).
    pub fn dest(&self) -> Option<Reg> {
        let rd = match *self {
            Instr::Lui { rd, .. }
            | Instr::Auipc { rd, .. }
            | Instr::Jal { rd, .. }
            | Instr::Jalr { rd, .. }
            | Instr::Load { rd, .. }
            | Instr::OpImm { rd, .. }
            | Instr::Op { rd, .. }
            | Instr::MulDiv { rd, .. }
            | Instr::Csr { rd, .. } => rd,
            _ => return None,
        };
        (rd != 0).then_some(rd)
    }

    /// Source registers read (0 entries are omitted).
    pub fn sources(&self) -> [Option<Reg>; 2] {
        let nz = |r: Reg| (r != 0).then_some(r);
        match *self {
            Instr::Jalr { rs1, .. } | Instr::Load { rs1, .. } | Instr::OpImm { rs1, .. } => {
                [nz(rs1), None]
            }
            Instr::Branch { rs1, rs2, .. }
            | Instr::Store { rs1, rs2, .. }
            | Instr::Op { rs1, rs2, .. }
            | Instr::MulDiv { rs1, rs2, .. } => [nz(rs1), nz(rs2)],
            Instr::Csr {
                op: CsrOp::Rw | CsrOp::Rs | CsrOp::Rc,
                src,
                ..
            } => [nz(src), None],
            Instr::Simt {
                op: SimtOp::Tmc,
                rs1,
            } => [nz(rs1), None],
            _ => [None, None],
        }
    }

    /// True for `jalr x0, 0(ra)`, the return instruction.
    pub fn is_return(&self) -> bool {
        matches!(
            self,
            Instr::Jalr {
                rd: 0,
                rs1: reg::RA,
                imm: 0
            }
        )
    }
}

/// Where the threads of a divergent conditional branch reconverge: the sidecar stored beside
/// each instruction in instruction memory, computed by the loader (immediate post-dominator).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Reconvergence {
    /// Not a conditional branch.
    #[default]
    None,
    /// Reconverge at this PC.
    At(u32),
    /// The branch's paths only meet at the function's return: reconverge at the return address
    /// held in `ra` when the branch executes (the loader allows this only in functions that
    /// never write `ra`).
    AtReturn,
    /// The paths never meet again (every path ends in `exit`): the split entries are popped when
    /// their threads exit.
    Never,
}

/// Sidecar kinds: bits 1:0 of a sidecar word (the RTL compares them against these).
pub mod sidecar_kind {
    pub const NONE: u32 = 0;
    pub const AT: u32 = 1;
    pub const AT_RETURN: u32 = 2;
    pub const NEVER: u32 = 3;
    /// Bits of the kind field.
    pub const BITS: u32 = 2;
}

impl Reconvergence {
    /// Sidecar word: bits 1:0 are the kind ([`sidecar_kind`]); for `At` bits 31:2 are the word
    /// address (pc >> 2).
    pub fn to_word(self) -> u32 {
        match self {
            Reconvergence::None => sidecar_kind::NONE,
            Reconvergence::At(pc) => (pc & !3) | sidecar_kind::AT,
            Reconvergence::AtReturn => sidecar_kind::AT_RETURN,
            Reconvergence::Never => sidecar_kind::NEVER,
        }
    }

    pub fn from_word(w: u32) -> Self {
        match w & 3 {
            sidecar_kind::NONE => Reconvergence::None,
            sidecar_kind::AT => Reconvergence::At(w & !3),
            sidecar_kind::AT_RETURN => Reconvergence::AtReturn,
            _ => Reconvergence::Never,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sidecar_round_trip() {
        for r in [
            Reconvergence::None,
            Reconvergence::At(0x1234),
            Reconvergence::AtReturn,
            Reconvergence::Never,
        ] {
            assert_eq!(Reconvergence::from_word(r.to_word()), r);
        }
    }
}
