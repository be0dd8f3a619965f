//! A tiny label-resolving assembler over [`Instr`], for directed tests and generated programs.

use warpforge_isa::{encode, AluOp, BranchOp, Instr, Reg};

/// A forward-referencable position in the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Label(usize);

#[derive(Clone, Copy)]
enum Item {
    I(Instr),
    Branch(BranchOp, Reg, Reg, Label),
    Jal(Reg, Label),
}

/// Instructions with symbolic branch and jump targets; [`Asm::finish`] resolves them.
#[derive(Default)]
pub struct Asm {
    items: Vec<Item>,
    labels: Vec<Option<u32>>,
}

impl Asm {
    pub fn new() -> Self {
        Self::default()
    }

    /// Address of the next instruction.
    pub fn pc(&self) -> u32 {
        self.items.len() as u32 * 4
    }

    /// A new, not yet placed label.
    pub fn label(&mut self) -> Label {
        self.labels.push(None);
        Label(self.labels.len() - 1)
    }

    /// Place `l` at the next instruction.
    pub fn place(&mut self, l: Label) {
        assert!(self.labels[l.0].is_none(), "label placed twice");
        self.labels[l.0] = Some(self.pc());
    }

    /// A label placed here.
    pub fn here(&mut self) -> Label {
        let l = self.label();
        self.place(l);
        l
    }

    /// `li rd, value` as `lui` + `addi`.
    pub fn li(&mut self, rd: Reg, value: u32) -> &mut Self {
        let lo = ((value as i32) << 20) >> 20;
        let hi = value.wrapping_sub(lo as u32);
        self.i(Instr::Lui { rd, imm: hi as i32 });
        self.i(Instr::OpImm {
            op: AluOp::Add,
            rd,
            rs1: rd,
            imm: lo,
        })
    }

    pub fn i(&mut self, i: Instr) -> &mut Self {
        self.items.push(Item::I(i));
        self
    }

    pub fn branch(&mut self, op: BranchOp, rs1: Reg, rs2: Reg, to: Label) -> &mut Self {
        self.items.push(Item::Branch(op, rs1, rs2, to));
        self
    }

    /// `jal rd, to` (`rd = 0` is a plain jump, `rd = 1` a call).
    pub fn jal(&mut self, rd: Reg, to: Label) -> &mut Self {
        self.items.push(Item::Jal(rd, to));
        self
    }

    /// Address of a placed label.
    pub fn addr(&self, l: Label) -> u32 {
        self.labels[l.0].expect("label not placed")
    }

    /// The encoded words.
    pub fn finish(&self) -> Vec<u32> {
        self.items
            .iter()
            .enumerate()
            .map(|(k, it)| {
                let pc = k as u32 * 4;
                let rel = |l: &Label| self.addr(*l).wrapping_sub(pc) as i32;
                encode(&match it {
                    Item::I(i) => *i,
                    Item::Branch(op, rs1, rs2, l) => Instr::Branch {
                        op: *op,
                        rs1: *rs1,
                        rs2: *rs2,
                        imm: rel(l),
                    },
                    Item::Jal(rd, l) => Instr::Jal {
                        rd: *rd,
                        imm: rel(l),
                    },
                })
            })
            .collect()
    }
}
