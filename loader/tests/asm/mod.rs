//! A tiny label-resolving assembler over `warpforge_isa::encode`, for building test programs.

#![allow(dead_code)]

use std::collections::HashMap;

use warpforge_isa::{encode, reg, AluOp, BranchOp, Instr, Reg, SimtOp, StoreOp};

pub const ZERO: Reg = 0;
pub const RA: Reg = reg::RA;
pub const SP: Reg = reg::SP;
pub const T0: Reg = 5;
pub const A0: Reg = 10;
pub const A1: Reg = 11;
pub const A2: Reg = 12;
pub const A5: Reg = 15;

enum Fixup {
    Branch { op: BranchOp, rs1: Reg, rs2: Reg },
    Jal { rd: Reg },
}

#[derive(Default)]
pub struct Asm {
    words: Vec<u32>,
    labels: HashMap<String, u32>,
    fixups: Vec<(usize, String, Fixup)>,
}

impl Asm {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn pc(&self) -> u32 {
        self.words.len() as u32 * 4
    }

    /// Defines `name` at the current address.
    pub fn label(&mut self, name: &str) -> &mut Self {
        let pc = self.pc();
        assert!(
            self.labels.insert(name.into(), pc).is_none(),
            "label {name} defined twice"
        );
        self
    }

    pub fn addr(&self, name: &str) -> u32 {
        self.labels[name]
    }

    pub fn word(&mut self, w: u32) -> &mut Self {
        self.words.push(w);
        self
    }

    pub fn i(&mut self, instr: Instr) -> &mut Self {
        self.word(encode(&instr))
    }

    /// `addi rd, rs1, imm` (a filler instruction).
    pub fn addi(&mut self, rd: Reg, rs1: Reg, imm: i32) -> &mut Self {
        self.i(Instr::OpImm {
            op: AluOp::Add,
            rd,
            rs1,
            imm,
        })
    }

    pub fn nop(&mut self) -> &mut Self {
        self.addi(ZERO, ZERO, 0)
    }

    pub fn sw(&mut self, rs2: Reg, imm: i32, rs1: Reg) -> &mut Self {
        self.i(Instr::Store {
            op: StoreOp::Sw,
            rs1,
            rs2,
            imm,
        })
    }

    pub fn branch(&mut self, op: BranchOp, rs1: Reg, rs2: Reg, target: &str) -> &mut Self {
        self.fixups.push((
            self.words.len(),
            target.into(),
            Fixup::Branch { op, rs1, rs2 },
        ));
        self.word(0)
    }

    pub fn beq(&mut self, rs1: Reg, rs2: Reg, target: &str) -> &mut Self {
        self.branch(BranchOp::Beq, rs1, rs2, target)
    }

    pub fn bne(&mut self, rs1: Reg, rs2: Reg, target: &str) -> &mut Self {
        self.branch(BranchOp::Bne, rs1, rs2, target)
    }

    pub fn blt(&mut self, rs1: Reg, rs2: Reg, target: &str) -> &mut Self {
        self.branch(BranchOp::Blt, rs1, rs2, target)
    }

    pub fn jal(&mut self, rd: Reg, target: &str) -> &mut Self {
        self.fixups
            .push((self.words.len(), target.into(), Fixup::Jal { rd }));
        self.word(0)
    }

    /// `j target` = `jal x0, target`.
    pub fn j(&mut self, target: &str) -> &mut Self {
        self.jal(ZERO, target)
    }

    /// `call target` = `jal ra, target`.
    pub fn call(&mut self, target: &str) -> &mut Self {
        self.jal(RA, target)
    }

    pub fn jalr(&mut self, rd: Reg, rs1: Reg, imm: i32) -> &mut Self {
        self.i(Instr::Jalr { rd, rs1, imm })
    }

    pub fn ret(&mut self) -> &mut Self {
        self.jalr(ZERO, RA, 0)
    }

    /// `wf.exit`.
    pub fn exit(&mut self) -> &mut Self {
        self.i(Instr::Simt {
            op: SimtOp::Exit,
            rs1: 0,
        })
    }

    pub fn finish(&self) -> Vec<u32> {
        let mut words = self.words.clone();
        for (at, target, fixup) in &self.fixups {
            let pc = *at as u32 * 4;
            let t = *self
                .labels
                .get(target)
                .unwrap_or_else(|| panic!("no label {target}"));
            let imm = t.wrapping_sub(pc) as i32;
            words[*at] = encode(&match *fixup {
                Fixup::Branch { op, rs1, rs2 } => Instr::Branch { op, rs1, rs2, imm },
                Fixup::Jal { rd } => Instr::Jal { rd, imm },
            });
        }
        words
    }
}
