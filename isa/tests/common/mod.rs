//! Helpers shared by the integration tests.

#![allow(dead_code)]

use warpforge_isa::*;

/// A name for the instruction's variant and operation, e.g. `Branch::Bltu`, `Ecall`.
/// The match is exhaustive, so a new `Instr` variant does not compile until it is listed here
/// (and then in [`ALL_KINDS`]).
pub fn kind(i: &Instr) -> String {
    match *i {
        Instr::Lui { .. } => "Lui".into(),
        Instr::Auipc { .. } => "Auipc".into(),
        Instr::Jal { .. } => "Jal".into(),
        Instr::Jalr { .. } => "Jalr".into(),
        Instr::Branch { op, .. } => format!("Branch::{op:?}"),
        Instr::Load { op, .. } => format!("Load::{op:?}"),
        Instr::Store { op, .. } => format!("Store::{op:?}"),
        Instr::OpImm { op, .. } => format!("OpImm::{op:?}"),
        Instr::Op { op, .. } => format!("Op::{op:?}"),
        Instr::MulDiv { op, .. } => format!("MulDiv::{op:?}"),
        Instr::Fence => "Fence".into(),
        Instr::Ecall => "Ecall".into(),
        Instr::Ebreak => "Ebreak".into(),
        Instr::Csr { op, .. } => format!("Csr::{op:?}"),
        Instr::Simt { op, .. } => format!("Simt::{op:?}"),
    }
}

/// Every instruction of the ISA, as named by [`kind`] (`OpImm::Sub` does not exist).
pub const ALL_KINDS: &[&str] = &[
    "Lui",
    "Auipc",
    "Jal",
    "Jalr",
    "Branch::Beq",
    "Branch::Bne",
    "Branch::Blt",
    "Branch::Bge",
    "Branch::Bltu",
    "Branch::Bgeu",
    "Load::Lb",
    "Load::Lh",
    "Load::Lw",
    "Load::Lbu",
    "Load::Lhu",
    "Store::Sb",
    "Store::Sh",
    "Store::Sw",
    "OpImm::Add",
    "OpImm::Sll",
    "OpImm::Slt",
    "OpImm::Sltu",
    "OpImm::Xor",
    "OpImm::Srl",
    "OpImm::Sra",
    "OpImm::Or",
    "OpImm::And",
    "Op::Add",
    "Op::Sub",
    "Op::Sll",
    "Op::Slt",
    "Op::Sltu",
    "Op::Xor",
    "Op::Srl",
    "Op::Sra",
    "Op::Or",
    "Op::And",
    "MulDiv::Mul",
    "MulDiv::Mulh",
    "MulDiv::Mulhsu",
    "MulDiv::Mulhu",
    "MulDiv::Div",
    "MulDiv::Divu",
    "MulDiv::Rem",
    "MulDiv::Remu",
    "Fence",
    "Ecall",
    "Ebreak",
    "Csr::Rw",
    "Csr::Rs",
    "Csr::Rc",
    "Csr::Rwi",
    "Csr::Rsi",
    "Csr::Rci",
    "Simt::Exit",
    "Simt::Bar",
    "Simt::Tmc",
];

/// Panics unless `seen` covers every entry of [`ALL_KINDS`].
pub fn assert_all_kinds<'a>(seen: impl IntoIterator<Item = &'a Instr>) {
    let seen: std::collections::BTreeSet<String> = seen.into_iter().map(kind).collect();
    let missing: Vec<_> = ALL_KINDS.iter().filter(|k| !seen.contains(**k)).collect();
    assert!(missing.is_empty(), "instructions not covered: {missing:?}");
}

/// ABI register names, written out independently of `warpforge_isa::REG_NAMES`.
pub fn abi_reg(name: &str) -> Option<Reg> {
    const NAMES: [&str; 32] = [
        "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4",
        "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4",
        "t5", "t6",
    ];
    if name == "fp" {
        return Some(8);
    }
    NAMES.iter().position(|n| *n == name).map(|p| p as Reg)
}

/// `xN` or an ABI name.
pub fn any_reg(name: &str) -> Option<Reg> {
    if let Some(n) = name.strip_prefix('x') {
        if let Ok(n) = n.parse::<u8>() {
            return (n < 32).then_some(n);
        }
    }
    abi_reg(name)
}
