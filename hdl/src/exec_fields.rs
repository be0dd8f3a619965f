//! The decoded fields an instruction carries from issue to dispatch, packed into one word
//! (docs/microarch/sm.md, "Tags").
//!
//! The issue stage decodes every instruction anyway (sources, destination, unit); the tag
//! table keeps the fields the execution units need, so dispatch reads them from a RAM instead
//! of decoding the instruction word again after the operand collector's choice and the
//! tag-table read (that decoder was the deepest part of `tiny`'s critical path on 2f68068).
//!
//! [`ExecPack`] packs the fields into `Bits<EXEC_BITS>`, [`ExecUnpack`] takes them apart; both
//! follow the one layout [`EXEC_LAYOUT`] (least significant field first).

use rust_hdl::prelude::*;

/// Field names and widths, least significant first.
pub const EXEC_LAYOUT: [(&str, usize); 20] = [
    ("imm", 32),
    ("alu_op", 4),
    ("cmp", 3),
    ("md_op", 2),
    ("mem_size", 2),
    ("csr_step", 2),
    ("rd", 5),
    ("rd_valid", 1),
    ("a_pc", 1),
    ("a_zero", 1),
    ("b_imm", 1),
    ("b_four", 1),
    ("is_csr", 1),
    ("is_store", 1),
    ("mem_unsigned", 1),
    ("is_jalr", 1),
    ("is_branch", 1),
    ("is_jal", 1),
    ("is_exit", 1),
    ("is_tmc", 1),
];

/// Bits of the packed word: the sum of [`EXEC_LAYOUT`]'s widths (checked by a test).
pub const EXEC_BITS: usize = 63;

/// `(name, lsb, width)` of every field.
fn placed() -> Vec<(&'static str, usize, usize)> {
    let mut at = 0;
    EXEC_LAYOUT
        .into_iter()
        .map(|(n, w)| {
            let f = (n, at, w);
            at += w;
            f
        })
        .collect()
}

/// The fields as typed signals, declared once for both directions.
macro_rules! exec_block {
    ($name:ident, $dir:ident, $pdir:ident, $port:ident) => {
        #[derive(LogicBlock, Default)]
        pub struct $name {
            pub imm: Signal<$dir, Bits<32>>,
            pub alu_op: Signal<$dir, Bits<4>>,
            pub cmp: Signal<$dir, Bits<3>>,
            pub md_op: Signal<$dir, Bits<2>>,
            pub mem_size: Signal<$dir, Bits<2>>,
            pub csr_step: Signal<$dir, Bits<2>>,
            pub rd: Signal<$dir, Bits<5>>,
            pub rd_valid: Signal<$dir, Bit>,
            pub a_pc: Signal<$dir, Bit>,
            pub a_zero: Signal<$dir, Bit>,
            pub b_imm: Signal<$dir, Bit>,
            pub b_four: Signal<$dir, Bit>,
            pub is_csr: Signal<$dir, Bit>,
            pub is_store: Signal<$dir, Bit>,
            pub mem_unsigned: Signal<$dir, Bit>,
            pub is_jalr: Signal<$dir, Bit>,
            pub is_branch: Signal<$dir, Bit>,
            pub is_jal: Signal<$dir, Bit>,
            pub is_exit: Signal<$dir, Bit>,
            pub is_tmc: Signal<$dir, Bit>,
            /// The packed word.
            pub $port: Signal<$pdir, Bits<EXEC_BITS>>,
        }
    };
}

exec_block!(ExecPack, In, Out, q);
exec_block!(ExecUnpack, Out, In, d);

/// Every field's value, in layout order, as `u64` (the simulation models of both blocks).
macro_rules! field_values {
    ($s:expr, $acc:ident) => {
        [
            $s.imm.$acc().index() as u64,
            $s.alu_op.$acc().index() as u64,
            $s.cmp.$acc().index() as u64,
            $s.md_op.$acc().index() as u64,
            $s.mem_size.$acc().index() as u64,
            $s.csr_step.$acc().index() as u64,
            $s.rd.$acc().index() as u64,
            u64::from($s.rd_valid.$acc()),
            u64::from($s.a_pc.$acc()),
            u64::from($s.a_zero.$acc()),
            u64::from($s.b_imm.$acc()),
            u64::from($s.b_four.$acc()),
            u64::from($s.is_csr.$acc()),
            u64::from($s.is_store.$acc()),
            u64::from($s.mem_unsigned.$acc()),
            u64::from($s.is_jalr.$acc()),
            u64::from($s.is_branch.$acc()),
            u64::from($s.is_jal.$acc()),
            u64::from($s.is_exit.$acc()),
            u64::from($s.is_tmc.$acc()),
        ]
    };
}

impl Logic for ExecPack {
    fn update(&mut self) {
        let mut v = 0u64;
        for ((_, lsb, _), x) in placed().into_iter().zip(field_values!(self, val)) {
            v |= x << lsb;
        }
        self.q.next = v.into();
    }

    fn connect(&mut self) {
        self.q.connect();
    }

    fn hdl(&self) -> Verilog {
        let parts: Vec<&str> = placed().iter().rev().map(|f| f.0).collect();
        Verilog::Custom(format!("always @(*) q = {{{}}};\n", parts.join(", ")))
    }
}

impl Logic for ExecUnpack {
    fn update(&mut self) {
        let d = self.d.val().index() as u64;
        let f = |name: &str| {
            let (_, lsb, w) = placed().into_iter().find(|f| f.0 == name).expect("field");
            (d >> lsb) & ((1u64 << w) - 1)
        };
        self.imm.next = f("imm").into();
        self.alu_op.next = f("alu_op").into();
        self.cmp.next = f("cmp").into();
        self.md_op.next = f("md_op").into();
        self.mem_size.next = f("mem_size").into();
        self.csr_step.next = f("csr_step").into();
        self.rd.next = f("rd").into();
        self.rd_valid.next = f("rd_valid") == 1;
        self.a_pc.next = f("a_pc") == 1;
        self.a_zero.next = f("a_zero") == 1;
        self.b_imm.next = f("b_imm") == 1;
        self.b_four.next = f("b_four") == 1;
        self.is_csr.next = f("is_csr") == 1;
        self.is_store.next = f("is_store") == 1;
        self.mem_unsigned.next = f("mem_unsigned") == 1;
        self.is_jalr.next = f("is_jalr") == 1;
        self.is_branch.next = f("is_branch") == 1;
        self.is_jal.next = f("is_jal") == 1;
        self.is_exit.next = f("is_exit") == 1;
        self.is_tmc.next = f("is_tmc") == 1;
    }

    fn connect(&mut self) {
        self.imm.connect();
        self.alu_op.connect();
        self.cmp.connect();
        self.md_op.connect();
        self.mem_size.connect();
        self.csr_step.connect();
        self.rd.connect();
        self.rd_valid.connect();
        self.a_pc.connect();
        self.a_zero.connect();
        self.b_imm.connect();
        self.b_four.connect();
        self.is_csr.connect();
        self.is_store.connect();
        self.mem_unsigned.connect();
        self.is_jalr.connect();
        self.is_branch.connect();
        self.is_jal.connect();
        self.is_exit.connect();
        self.is_tmc.connect();
    }

    fn hdl(&self) -> Verilog {
        let mut s = String::from("always @(*) begin\n");
        for (name, lsb, w) in placed() {
            if w == 1 {
                s += &format!("   {name} = d[{lsb}];\n");
            } else {
                s += &format!("   {name} = d[{}:{lsb}];\n", lsb + w - 1);
            }
        }
        s += "end\n";
        Verilog::Custom(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_fills_the_word() {
        assert_eq!(EXEC_LAYOUT.iter().map(|f| f.1).sum::<usize>(), EXEC_BITS);
        let names: Vec<_> = EXEC_LAYOUT.iter().map(|f| f.0).collect();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "field names are unique");
    }
}
