//! Decode: one instruction word to the control fields the SM needs (docs/isa.md §3,
//! docs/microarch/sm.md). Purely combinational; the SM instantiates it at issue (its fields
//! for the units travel in the tag table, hdl/src/exec_fields.rs) and in fetch (pre-decode).
//!
//! The RTL decoder is written independently of `warpforge_isa::decode`; the unit test
//! (`testbench/tests/unit_decode.rs`) compares the two on every opcode class and on random words.
//! A CSR access that writes, or an unknown CSR number, is decoded as illegal here (the model
//! finds the same fault when it executes the instruction).

use crate::k;
use rust_hdl::prelude::*;

use crate::multiplier::shift_op_code;
use crate::one_hot::OneHotMux;
use crate::{rename_top, verilog_of, BitPack, HdlError, Unused};
use warpforge_isa::AluOp;

/// Result-producing unit of an instruction (`unit` output).
pub const UNIT_NONE: u64 = 0;
/// ALU (OP, OP-IMM, LUI, AUIPC, the link of JAL/JALR, CSR reads).
pub const UNIT_ALU: u64 = 1;
pub const UNIT_MUL: u64 = 2;
pub const UNIT_DIV: u64 = 3;
/// Load/store unit.
pub const UNIT_LSU: u64 = 4;

/// CSR value lane step (`csr_step` output): the same value in every lane.
pub const STEP_NONE: u64 = 0;
/// value + lane (tid, gtid, laneid).
pub const STEP_LANE: u64 = 1;
/// value - lane × stack_bytes (stack_top).
pub const STEP_STACK: u64 = 2;

/// The decoder.
#[derive(LogicBlock)]
pub struct Decoder {
    pub word: Signal<In, Bits<32>>,
    /// Not an instruction of docs/isa.md (also: a CSR write or an unknown CSR).
    pub illegal: Signal<Out, Bit>,
    pub is_ecall: Signal<Out, Bit>,
    pub is_ebreak: Signal<Out, Bit>,
    /// `UNIT_*`: the unit that produces the result (NONE for branches, jumps without link,
    /// SIMT, fence, ecall/ebreak, illegal).
    pub unit: Signal<Out, Bits<3>>,
    pub is_load: Signal<Out, Bit>,
    pub is_store: Signal<Out, Bit>,
    pub is_branch: Signal<Out, Bit>,
    pub is_jal: Signal<Out, Bit>,
    pub is_jalr: Signal<Out, Bit>,
    pub is_csr: Signal<Out, Bit>,
    pub is_exit: Signal<Out, Bit>,
    pub is_bar: Signal<Out, Bit>,
    pub is_tmc: Signal<Out, Bit>,
    /// The instruction may change the warp's PC or mask (branch, jal, jalr, exit, tmc).
    pub is_control: Signal<Out, Bit>,
    /// ALU function (`{funct7[5], funct3}`, hdl::alu encoding) and branch compare (`funct3`).
    pub alu_op: Signal<Out, Bits<4>>,
    pub cmp: Signal<Out, Bits<3>>,
    /// Multiplier / divider op (`funct3[1:0]`), load/store size (`funct3[1:0]`), unsigned load.
    pub md_op: Signal<Out, Bits<2>>,
    pub mem_size: Signal<Out, Bits<2>>,
    pub mem_unsigned: Signal<Out, Bit>,
    /// ALU operand a is the PC (auipc, jal/jalr link) / zero (lui); otherwise rs1.
    pub a_pc: Signal<Out, Bit>,
    pub a_zero: Signal<Out, Bit>,
    /// ALU operand b is the immediate / the constant 4 (link); otherwise rs2.
    pub b_imm: Signal<Out, Bit>,
    pub b_four: Signal<Out, Bit>,
    pub imm: Signal<Out, Bits<32>>,
    /// Destination (0 when the instruction writes no register).
    pub rd: Signal<Out, Bits<5>>,
    pub rd_valid: Signal<Out, Bit>,
    pub rs1: Signal<Out, Bits<5>>,
    pub rs1_valid: Signal<Out, Bit>,
    pub rs2: Signal<Out, Bits<5>>,
    pub rs2_valid: Signal<Out, Bit>,
    /// CSR number (bits 31:20) and how its value varies per lane (`STEP_*`).
    pub csr: Signal<Out, Bits<12>>,
    pub csr_step: Signal<Out, Bits<2>>,

    opcode: Signal<Local, Bits<7>>,
    f3: Signal<Local, Bits<3>>,
    f7: Signal<Local, Bits<7>>,
    rd_f: Signal<Local, Bits<5>>,
    imm_i: Signal<Local, Bits<32>>,
    imm_s: Signal<Local, Bits<32>>,
    imm_b: Signal<Local, Bits<32>>,
    imm_u: Signal<Local, Bits<32>>,
    imm_j: Signal<Local, Bits<32>>,
    /// The immediate's format by the opcode alone (U, J, B, S; I for every other opcode) and
    /// the choice among the five immediates.
    fmt: Vec<Signal<Local, Bit>>,
    imm_mux: OneHotMux<32>,
    sign: Signal<Local, Bits<32>>,
    csr_known: Signal<Local, Bit>,
    writes_rd: Signal<Local, Bit>,

    k_op_lui: Constant<Bits<7>>,
    k_op_auipc: Constant<Bits<7>>,
    k_op_jal: Constant<Bits<7>>,
    k_op_jalr: Constant<Bits<7>>,
    k_op_branch: Constant<Bits<7>>,
    k_op_load: Constant<Bits<7>>,
    k_op_store: Constant<Bits<7>>,
    k_op_imm: Constant<Bits<7>>,
    k_op_op: Constant<Bits<7>>,
    k_op_fence: Constant<Bits<7>>,
    k_op_system: Constant<Bits<7>>,
    k_op_simt: Constant<Bits<7>>,
    k_f7_zero: Constant<Bits<7>>,
    k_f7_alt: Constant<Bits<7>>,
    k_f7_muldiv: Constant<Bits<7>>,
    k_ecall: Constant<Bits<32>>,
    k_ebreak: Constant<Bits<32>>,
    k_hi20: Constant<Bits<32>>,
    k_m_s_hi: Constant<Bits<32>>,
    k_m_lo5: Constant<Bits<32>>,
    k_m_b11: Constant<Bits<32>>,
    k_m_b10_5: Constant<Bits<32>>,
    k_m_b4_1: Constant<Bits<32>>,
    k_m_j_hi: Constant<Bits<32>>,
    k_m_j19_12: Constant<Bits<32>>,
    k_m_j10_1: Constant<Bits<32>>,
    k_lo2: Constant<Bits<2>>,
    k_alu_add: Constant<Bits<4>>,
    k_alu_f3: Constant<Bits<4>>,
    k_alu_alt: Constant<Bits<4>>,
    /// The multiplier's `op` for `sll`, `srl`, `sra` (`shift_op_code`, defined once there).
    k_md_sll: Constant<Bits<2>>,
    k_md_srl: Constant<Bits<2>>,
    k_md_sra: Constant<Bits<2>>,
    k_zero5: Constant<Bits<5>>,
    k_zero32: Constant<Bits<32>>,
    k_unit: Vec<Constant<Bits<3>>>,
    k_f3: Vec<Constant<Bits<3>>>,
    k_step_none: Constant<Bits<2>>,
    k_step_lane: Constant<Bits<2>>,
    k_step_stack: Constant<Bits<2>>,
    k_csr_cycle: Constant<Bits<12>>,
    k_csr_cycleh: Constant<Bits<12>>,
    k_csr_instret: Constant<Bits<12>>,
    k_csr_instreth: Constant<Bits<12>>,
    k_csr_tid: Constant<Bits<12>>,
    k_csr_gtid: Constant<Bits<12>>,
    k_csr_laneid: Constant<Bits<12>>,
    k_csr_stack_top: Constant<Bits<12>>,
    /// Known warpforge CSRs 0xCC0 ..= 0xCCD: 0xCC and the low nibble ≤ 0xD.
    k_csr_wf_hi: Constant<Bits<8>>,
    k_csr_wf_last: Constant<Bits<4>>,
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder {
    pub fn new() -> Self {
        use warpforge_isa::csr;
        Decoder {
            word: Default::default(),
            illegal: Default::default(),
            is_ecall: Default::default(),
            is_ebreak: Default::default(),
            unit: Default::default(),
            is_load: Default::default(),
            is_store: Default::default(),
            is_branch: Default::default(),
            is_jal: Default::default(),
            is_jalr: Default::default(),
            is_csr: Default::default(),
            is_exit: Default::default(),
            is_bar: Default::default(),
            is_tmc: Default::default(),
            is_control: Default::default(),
            alu_op: Default::default(),
            cmp: Default::default(),
            md_op: Default::default(),
            mem_size: Default::default(),
            mem_unsigned: Default::default(),
            a_pc: Default::default(),
            a_zero: Default::default(),
            b_imm: Default::default(),
            b_four: Default::default(),
            imm: Default::default(),
            rd: Default::default(),
            rd_valid: Default::default(),
            rs1: Default::default(),
            rs1_valid: Default::default(),
            rs2: Default::default(),
            rs2_valid: Default::default(),
            csr: Default::default(),
            csr_step: Default::default(),
            opcode: Default::default(),
            f3: Default::default(),
            f7: Default::default(),
            rd_f: Default::default(),
            imm_i: Default::default(),
            imm_s: Default::default(),
            imm_b: Default::default(),
            imm_u: Default::default(),
            imm_j: Default::default(),
            fmt: (0..5).map(|_| Default::default()).collect(),
            imm_mux: OneHotMux::new(5, 1),
            sign: Default::default(),
            csr_known: Default::default(),
            writes_rd: Default::default(),
            k_op_lui: k(0x37),
            k_op_auipc: k(0x17),
            k_op_jal: k(0x6f),
            k_op_jalr: k(0x67),
            k_op_branch: k(0x63),
            k_op_load: k(0x03),
            k_op_store: k(0x23),
            k_op_imm: k(0x13),
            k_op_op: k(0x33),
            k_op_fence: k(0x0f),
            k_op_system: k(0x73),
            k_op_simt: k(warpforge_isa::OPCODE_SIMT as u64),
            k_f7_zero: k(0),
            k_f7_alt: k(0x20),
            k_f7_muldiv: k(0x01),
            k_ecall: k(0x0000_0073),
            k_ebreak: k(0x0010_0073),
            k_hi20: k(0xffff_f000),
            k_m_s_hi: k(0x0000_0fe0),
            k_m_lo5: k(0x0000_001f),
            k_m_b11: k(0x0000_0800),
            k_m_b10_5: k(0x0000_07e0),
            k_m_b4_1: k(0x0000_001e),
            k_m_j_hi: k(0xfff0_0000),
            k_m_j19_12: k(0x000f_f000),
            k_m_j10_1: k(0x0000_07fe),
            k_lo2: k(3),
            k_alu_add: k(0),
            k_alu_f3: k(7),
            k_alu_alt: k(8),
            k_md_sll: k(u64::from(shift_op_code(AluOp::Sll).unwrap())),
            k_md_srl: k(u64::from(shift_op_code(AluOp::Srl).unwrap())),
            k_md_sra: k(u64::from(shift_op_code(AluOp::Sra).unwrap())),
            k_zero5: k(0),
            k_zero32: k(0),
            k_unit: (0..5).map(k::<3>).collect(),
            k_f3: (0..8).map(k::<3>).collect(),
            k_step_none: k(STEP_NONE),
            k_step_lane: k(STEP_LANE),
            k_step_stack: k(STEP_STACK),
            k_csr_cycle: k(csr::CYCLE as u64),
            k_csr_cycleh: k(csr::CYCLEH as u64),
            k_csr_instret: k(csr::INSTRET as u64),
            k_csr_instreth: k(csr::INSTRETH as u64),
            k_csr_tid: k(csr::TID as u64),
            k_csr_gtid: k(csr::GTID as u64),
            k_csr_laneid: k(csr::LANEID as u64),
            k_csr_stack_top: k(csr::STACK_TOP as u64),
            k_csr_wf_hi: k((csr::TID >> 4) as u64),
            k_csr_wf_last: k((csr::STACK_TOP & 0xf) as u64),
        }
    }
}

impl Logic for Decoder {
    #[hdl_gen]
    fn update(&mut self) {
        // Fields.
        self.opcode.next = self.word.val().get_bits::<7>(0);
        self.rd_f.next = self.word.val().get_bits::<5>(7);
        self.f3.next = self.word.val().get_bits::<3>(12);
        self.rs1.next = self.word.val().get_bits::<5>(15);
        self.rs2.next = self.word.val().get_bits::<5>(20);
        self.f7.next = self.word.val().get_bits::<7>(25);
        self.csr.next = self.word.val().get_bits::<12>(20);
        self.md_op.next = self.word.val().get_bits::<2>(12);
        self.mem_size.next = self.word.val().get_bits::<2>(12);
        self.mem_unsigned.next = self.word.val().get_bit(14);
        self.cmp.next = self.word.val().get_bits::<3>(12);

        // Immediates; the sign is word[31].
        self.sign.next = self.k_zero32.val();
        if self.word.val().get_bit(31) {
            self.sign.next = !self.k_zero32.val();
        }
        self.imm_i.next = (self.word.val() >> 20) | (self.sign.val() & self.k_hi20.val());
        self.imm_s.next = ((self.word.val() >> 20) & self.k_m_s_hi.val())
            | ((self.word.val() >> 7) & self.k_m_lo5.val())
            | (self.sign.val() & self.k_hi20.val());
        self.imm_b.next = (self.sign.val() & self.k_hi20.val())
            | ((self.word.val() << 4) & self.k_m_b11.val())
            | ((self.word.val() >> 20) & self.k_m_b10_5.val())
            | ((self.word.val() >> 7) & self.k_m_b4_1.val());
        self.imm_u.next = self.word.val() & self.k_hi20.val();
        self.imm_j.next = (self.sign.val() & self.k_m_j_hi.val())
            | (self.word.val() & self.k_m_j19_12.val())
            | ((self.word.val() >> 9) & self.k_m_b11.val())
            | ((self.word.val() >> 20) & self.k_m_j10_1.val());

        // CSR numbers this GPU has, and how their values vary per lane.
        self.csr_known.next = false;
        if (self.csr.val() == self.k_csr_cycle.val())
            | (self.csr.val() == self.k_csr_cycleh.val())
            | (self.csr.val() == self.k_csr_instret.val())
            | (self.csr.val() == self.k_csr_instreth.val())
            | ((self.csr.val().get_bits::<8>(4) == self.k_csr_wf_hi.val())
                & (self.csr.val().get_bits::<4>(0) <= self.k_csr_wf_last.val()))
        {
            self.csr_known.next = true;
        }
        self.csr_step.next = self.k_step_none.val();
        if (self.csr.val() == self.k_csr_tid.val())
            | (self.csr.val() == self.k_csr_gtid.val())
            | (self.csr.val() == self.k_csr_laneid.val())
        {
            self.csr_step.next = self.k_step_lane.val();
        }
        if self.csr.val() == self.k_csr_stack_top.val() {
            self.csr_step.next = self.k_step_stack.val();
        }

        // Defaults: an illegal word that does nothing.
        self.illegal.next = true;
        self.is_ecall.next = false;
        self.is_ebreak.next = false;
        self.unit.next = self.k_unit[0].val();
        self.is_load.next = false;
        self.is_store.next = false;
        self.is_branch.next = false;
        self.is_jal.next = false;
        self.is_jalr.next = false;
        self.is_csr.next = false;
        self.is_exit.next = false;
        self.is_bar.next = false;
        self.is_tmc.next = false;
        self.alu_op.next = self.k_alu_add.val();
        self.a_pc.next = false;
        self.a_zero.next = false;
        self.b_imm.next = false;
        self.b_four.next = false;
        self.writes_rd.next = false;
        self.rs1_valid.next = false;
        self.rs2_valid.next = false;

        if self.word.val().get_bits::<2>(0) == self.k_lo2.val() {
            if self.opcode.val() == self.k_op_lui.val() {
                self.illegal.next = false;
                self.unit.next = self.k_unit[1].val();
                self.a_zero.next = true;
                self.b_imm.next = true;
                self.writes_rd.next = true;
            }
            if self.opcode.val() == self.k_op_auipc.val() {
                self.illegal.next = false;
                self.unit.next = self.k_unit[1].val();
                self.a_pc.next = true;
                self.b_imm.next = true;
                self.writes_rd.next = true;
            }
            if self.opcode.val() == self.k_op_jal.val() {
                self.illegal.next = false;
                self.is_jal.next = true;
                self.unit.next = self.k_unit[1].val();
                self.a_pc.next = true;
                self.b_four.next = true;
                self.writes_rd.next = true;
            }
            if (self.opcode.val() == self.k_op_jalr.val()) & (self.f3.val() == self.k_f3[0].val()) {
                self.illegal.next = false;
                self.is_jalr.next = true;
                self.unit.next = self.k_unit[1].val();
                self.a_pc.next = true;
                self.b_four.next = true;
                self.rs1_valid.next = true;
                self.writes_rd.next = true;
            }
            if (self.opcode.val() == self.k_op_branch.val())
                & (self.f3.val() != self.k_f3[2].val())
                & (self.f3.val() != self.k_f3[3].val())
            {
                self.illegal.next = false;
                self.is_branch.next = true;
                self.rs1_valid.next = true;
                self.rs2_valid.next = true;
            }
            if (self.opcode.val() == self.k_op_load.val())
                & ((self.f3.val() <= self.k_f3[2].val())
                    | (self.f3.val() == self.k_f3[4].val())
                    | (self.f3.val() == self.k_f3[5].val()))
            {
                self.illegal.next = false;
                self.is_load.next = true;
                self.unit.next = self.k_unit[4].val();
                self.rs1_valid.next = true;
                self.writes_rd.next = true;
            }
            if (self.opcode.val() == self.k_op_store.val()) & (self.f3.val() <= self.k_f3[2].val())
            {
                self.illegal.next = false;
                self.is_store.next = true;
                self.unit.next = self.k_unit[4].val();
                self.rs1_valid.next = true;
                self.rs2_valid.next = true;
            }
            if self.opcode.val() == self.k_op_imm.val() {
                // Shifts need funct7 0 (srai: 0x20); the other functions take any immediate.
                if ((self.f3.val() != self.k_f3[1].val()) & (self.f3.val() != self.k_f3[5].val()))
                    | (self.f7.val() == self.k_f7_zero.val())
                    | ((self.f3.val() == self.k_f3[5].val())
                        & (self.f7.val() == self.k_f7_alt.val()))
                {
                    self.illegal.next = false;
                    self.unit.next = self.k_unit[1].val();
                    self.b_imm.next = true;
                    self.rs1_valid.next = true;
                    self.writes_rd.next = true;
                    self.alu_op.next = self.word.val().get_bits::<4>(12) & self.k_alu_f3.val();
                    if (self.f3.val() == self.k_f3[5].val())
                        & (self.f7.val() == self.k_f7_alt.val())
                    {
                        self.alu_op.next = (self.word.val().get_bits::<4>(12)
                            & self.k_alu_f3.val())
                            | self.k_alu_alt.val();
                    }
                }
            }
            if self.opcode.val() == self.k_op_op.val() {
                if self.f7.val() == self.k_f7_zero.val() {
                    self.illegal.next = false;
                    self.unit.next = self.k_unit[1].val();
                    self.alu_op.next = self.word.val().get_bits::<4>(12) & self.k_alu_f3.val();
                }
                if (self.f7.val() == self.k_f7_alt.val())
                    & ((self.f3.val() == self.k_f3[0].val())
                        | (self.f3.val() == self.k_f3[5].val()))
                {
                    self.illegal.next = false;
                    self.unit.next = self.k_unit[1].val();
                    self.alu_op.next = (self.word.val().get_bits::<4>(12) & self.k_alu_f3.val())
                        | self.k_alu_alt.val();
                }
                if self.f7.val() == self.k_f7_muldiv.val() {
                    self.illegal.next = false;
                    self.unit.next = self.k_unit[2].val();
                    if self.word.val().get_bit(14) {
                        self.unit.next = self.k_unit[3].val();
                    }
                }
                self.rs1_valid.next = true;
                self.rs2_valid.next = true;
                self.writes_rd.next = true;
            }
            if (self.opcode.val() == self.k_op_fence.val()) & (self.f3.val() <= self.k_f3[1].val())
            {
                self.illegal.next = false;
            }
            if self.opcode.val() == self.k_op_system.val() {
                if self.word.val() == self.k_ecall.val() {
                    self.illegal.next = false;
                    self.is_ecall.next = true;
                }
                if self.word.val() == self.k_ebreak.val() {
                    self.illegal.next = false;
                    self.is_ebreak.next = true;
                }
                // Reads only: csrrs/csrrc with rs1 = x0, csrrsi/csrrci with uimm = 0.
                if self.csr_known.val()
                    & (self.rs1.val() == self.k_zero5.val())
                    & ((self.f3.val() == self.k_f3[2].val())
                        | (self.f3.val() == self.k_f3[3].val())
                        | (self.f3.val() == self.k_f3[6].val())
                        | (self.f3.val() == self.k_f3[7].val()))
                {
                    self.illegal.next = false;
                    self.is_csr.next = true;
                    self.unit.next = self.k_unit[1].val();
                    self.writes_rd.next = true;
                }
            }
            if (self.opcode.val() == self.k_op_simt.val())
                & (self.f7.val() == self.k_f7_zero.val())
                & (self.rd_f.val() == self.k_zero5.val())
                & (self.rs2.val() == self.k_zero5.val())
            {
                if (self.f3.val() == self.k_f3[0].val()) & (self.rs1.val() == self.k_zero5.val()) {
                    self.illegal.next = false;
                    self.is_exit.next = true;
                }
                if (self.f3.val() == self.k_f3[1].val()) & (self.rs1.val() == self.k_zero5.val()) {
                    self.illegal.next = false;
                    self.is_bar.next = true;
                }
                if self.f3.val() == self.k_f3[2].val() {
                    self.illegal.next = false;
                    self.is_tmc.next = true;
                    self.rs1_valid.next = true;
                }
            }
        }

        // Shifts are the multiplier's (a multiplication by a power of two, hdl/src/multiplier.rs):
        // `md_op` is `shift_op_code`'s. `alu_op` keeps {funct7[5], funct3}: its bit 0
        // tells the multiplier the operation is a shift (every multiply has `alu_op` 0).
        if ((self.opcode.val() == self.k_op_imm.val())
            | ((self.opcode.val() == self.k_op_op.val())
                & (self.f7.val() != self.k_f7_muldiv.val())))
            & ((self.f3.val() == self.k_f3[1].val()) | (self.f3.val() == self.k_f3[5].val()))
        {
            self.unit.next = self.k_unit[2].val();
            self.md_op.next = self.k_md_sll.val();
            if self.f3.val() == self.k_f3[5].val() {
                self.md_op.next = self.k_md_srl.val();
                if self.f7.val() == self.k_f7_alt.val() {
                    self.md_op.next = self.k_md_sra.val();
                }
            }
        }

        // The immediate, chosen by the opcode's format alone as a flat one-hot choice (not
        // through the legality checks above): only instructions that have an immediate read
        // it (docs/microarch/sm.md, "Tags"), so what it holds for the others does not matter.
        // Through the checks it was 6 LUT levels, the end of `tiny`'s issue-cycle decode into
        // the tag table (`w_exec`).
        self.fmt[0].next = (self.opcode.val() == self.k_op_lui.val())
            | (self.opcode.val() == self.k_op_auipc.val());
        self.fmt[1].next = self.opcode.val() == self.k_op_jal.val();
        self.fmt[2].next = self.opcode.val() == self.k_op_branch.val();
        self.fmt[3].next = self.opcode.val() == self.k_op_store.val();
        self.fmt[4].next =
            !(self.fmt[0].val() | self.fmt[1].val() | self.fmt[2].val() | self.fmt[3].val());
        for f in 0..5 {
            self.imm_mux.sel[f].next = self.fmt[f].val();
        }
        self.imm_mux.d[0].next = self.imm_u.val();
        self.imm_mux.d[1].next = self.imm_j.val();
        self.imm_mux.d[2].next = self.imm_b.val();
        self.imm_mux.d[3].next = self.imm_s.val();
        self.imm_mux.d[4].next = self.imm_i.val();
        self.imm.next = self.imm_mux.q[0].val();

        // An illegal word reads and writes nothing.
        if self.illegal.val() {
            self.unit.next = self.k_unit[0].val();
            self.writes_rd.next = false;
            self.rs1_valid.next = false;
            self.rs2_valid.next = false;
        }
        self.rd_valid.next = self.writes_rd.val() & (self.rd_f.val() != self.k_zero5.val());
        self.rd.next = self.k_zero5.val();
        if self.rd_valid.val() {
            self.rd.next = self.rd_f.val();
        }
        self.is_control.next = self.is_branch.val()
            | self.is_jal.val()
            | self.is_jalr.val()
            | self.is_exit.val()
            | self.is_tmc.val();
    }
}

/// The Verilog of the decoder, top module named `name`.
pub fn decoder_verilog(name: &str) -> Result<String, HdlError> {
    let mut uut = Decoder::new();
    Ok(rename_top(&verilog_of("decoder", &mut uut)?, name))
}

/// Bits of [`HeadFields::issue_bits`], the decoded flags of an instruction word stored beside it in
/// the instruction memory and the I-buffers (docs/microarch/fetch.md, "Pre-decoded bits").
/// Word 0 packs to 0, so a never-written memory word reads as the decode of word 0.
pub const HEAD_PACKED_BITS: usize = 10;
/// The bit of each flag in [`HeadFields::issue_bits`], in this order: `rd_valid`, `rs1_valid`,
/// `rs2_valid`, `is_bar`, `is_branch`, `to_alu`, `to_mul`, `to_div`, `to_lsu`, `is_control`.
pub const HEAD_PACKED_ORDER: [&str; HEAD_PACKED_BITS] = [
    "rd_valid",
    "rs1_valid",
    "rs2_valid",
    "is_bar",
    "is_branch",
    "to_alu",
    "to_mul",
    "to_div",
    "to_lsu",
    "is_control",
];

/// The fields of an I-buffer head that the issue checks and the issue actions need (scoreboard
/// sources and destination, barrier, branch, the unit route), one per warp: the issue stage
/// takes the granted warp's fields from these instead of decoding after the warp choice.
/// Cheaper than a full [`Decoder`]: it looks at the opcode (and funct7 for the route) only, so
/// for an illegal word it may report sources, a destination or a route the full decoder would
/// not. That only delays the illegal instruction's issue check (it stops the GPU at issue
/// instead of issuing: fetch's `head_stops`); for every legal word the fields equal the full
/// decoder's (`testbench/tests/unit_decode.rs`, `head_fields_match_the_isa_decoder`).
#[derive(LogicBlock)]
pub struct HeadFields {
    pub word: Signal<In, Bits<32>>,
    pub rd: Signal<Out, Bits<5>>,
    pub rd_valid: Signal<Out, Bit>,
    pub rs1: Signal<Out, Bits<5>>,
    pub rs1_valid: Signal<Out, Bit>,
    pub rs2: Signal<Out, Bits<5>>,
    pub rs2_valid: Signal<Out, Bit>,
    pub is_bar: Signal<Out, Bit>,
    pub is_branch: Signal<Out, Bit>,
    /// The route: the result comes from the ALU / multiplier / divider and writes a register;
    /// the instruction goes to the load/store unit; it may change the warp's PC or mask
    /// (branch, jal, jalr, exit, tmc).
    pub to_alu: Signal<Out, Bit>,
    pub to_mul: Signal<Out, Bit>,
    pub to_div: Signal<Out, Bit>,
    pub to_lsu: Signal<Out, Bit>,
    pub is_control: Signal<Out, Bit>,
    /// The ten flags above in [`HEAD_PACKED_ORDER`] (the raw register fields are word bits).
    pub issue_bits: Signal<Out, Bits<HEAD_PACKED_BITS>>,
    pack: BitPack<HEAD_PACKED_BITS>,
    opcode: Signal<Local, Bits<7>>,
    f3: Signal<Local, Bits<3>>,
    muldiv: Signal<Local, Bit>,
    /// A shift (`sll`, `srl`, `sra` and their immediate forms): the multiplier's.
    shift: Signal<Local, Bit>,
    k_f3_shift: Constant<Bits<2>>,
    k_lui: Constant<Bits<7>>,
    k_auipc: Constant<Bits<7>>,
    k_jal: Constant<Bits<7>>,
    k_jalr: Constant<Bits<7>>,
    k_branch: Constant<Bits<7>>,
    k_load: Constant<Bits<7>>,
    k_store: Constant<Bits<7>>,
    k_imm: Constant<Bits<7>>,
    k_op: Constant<Bits<7>>,
    k_system: Constant<Bits<7>>,
    k_simt: Constant<Bits<7>>,
    k_f3_0: Constant<Bits<3>>,
    k_f3_1: Constant<Bits<3>>,
    k_f3_2: Constant<Bits<3>>,
    k_zero5: Constant<Bits<5>>,
    k_f7_zero: Constant<Bits<7>>,
    k_f7_muldiv: Constant<Bits<7>>,
}

impl Default for HeadFields {
    fn default() -> Self {
        Self::new()
    }
}

impl HeadFields {
    pub fn new() -> Self {
        HeadFields {
            word: Default::default(),
            rd: Default::default(),
            rd_valid: Default::default(),
            rs1: Default::default(),
            rs1_valid: Default::default(),
            rs2: Default::default(),
            rs2_valid: Default::default(),
            is_bar: Default::default(),
            is_branch: Default::default(),
            to_alu: Default::default(),
            to_mul: Default::default(),
            to_div: Default::default(),
            to_lsu: Default::default(),
            is_control: Default::default(),
            issue_bits: Default::default(),
            pack: BitPack::new(HEAD_PACKED_BITS),
            opcode: Default::default(),
            f3: Default::default(),
            muldiv: Default::default(),
            shift: Default::default(),
            k_f3_shift: k(1),
            k_lui: k(0x37),
            k_auipc: k(0x17),
            k_jal: k(0x6f),
            k_jalr: k(0x67),
            k_branch: k(0x63),
            k_load: k(0x03),
            k_store: k(0x23),
            k_imm: k(0x13),
            k_op: k(0x33),
            k_system: k(0x73),
            k_simt: k(warpforge_isa::OPCODE_SIMT as u64),
            k_f3_0: k(0),
            k_f3_1: k(1),
            k_f3_2: k(2),
            k_zero5: k(0),
            k_f7_zero: k(0),
            k_f7_muldiv: k(1),
        }
    }
}

impl Logic for HeadFields {
    #[hdl_gen]
    fn update(&mut self) {
        self.opcode.next = self.word.val().get_bits::<7>(0);
        self.f3.next = self.word.val().get_bits::<3>(12);
        self.rd.next = self.word.val().get_bits::<5>(7);
        self.rs1.next = self.word.val().get_bits::<5>(15);
        self.rs2.next = self.word.val().get_bits::<5>(20);
        self.rs1_valid.next = (self.opcode.val() == self.k_jalr.val())
            | (self.opcode.val() == self.k_branch.val())
            | (self.opcode.val() == self.k_load.val())
            | (self.opcode.val() == self.k_store.val())
            | (self.opcode.val() == self.k_imm.val())
            | (self.opcode.val() == self.k_op.val())
            | ((self.opcode.val() == self.k_simt.val()) & (self.f3.val() == self.k_f3_2.val()));
        self.rs2_valid.next = (self.opcode.val() == self.k_branch.val())
            | (self.opcode.val() == self.k_store.val())
            | (self.opcode.val() == self.k_op.val());
        self.rd_valid.next = ((self.opcode.val() == self.k_lui.val())
            | (self.opcode.val() == self.k_auipc.val())
            | (self.opcode.val() == self.k_jal.val())
            | (self.opcode.val() == self.k_jalr.val())
            | (self.opcode.val() == self.k_load.val())
            | (self.opcode.val() == self.k_imm.val())
            | (self.opcode.val() == self.k_op.val())
            | ((self.opcode.val() == self.k_system.val()) & (self.f3.val() != self.k_f3_0.val())))
            & (self.word.val().get_bits::<5>(7) != self.k_zero5.val());
        self.is_bar.next = (self.opcode.val() == self.k_simt.val())
            & (self.f3.val() == self.k_f3_1.val())
            & (self.word.val().get_bits::<7>(25) == self.k_f7_zero.val());
        self.is_branch.next = self.opcode.val() == self.k_branch.val();
        self.muldiv.next = (self.opcode.val() == self.k_op.val())
            & (self.word.val().get_bits::<7>(25) == self.k_f7_muldiv.val());
        self.to_lsu.next =
            (self.opcode.val() == self.k_load.val()) | (self.opcode.val() == self.k_store.val());
        // Shifts are multiplications by a power of two (hdl/src/multiplier.rs): funct3 001 and
        // 101 of OP and OP-IMM.
        self.shift.next = ((self.opcode.val() == self.k_imm.val())
            | (self.opcode.val() == self.k_op.val()))
            & !self.muldiv.val()
            & (self.word.val().get_bits::<2>(12) == self.k_f3_shift.val());
        self.to_alu.next = self.rd_valid.val()
            & (self.opcode.val() != self.k_load.val())
            & !self.muldiv.val()
            & !self.shift.val();
        self.to_mul.next = self.rd_valid.val()
            & ((self.muldiv.val() & !self.word.val().get_bit(14)) | self.shift.val());
        self.to_div.next = self.rd_valid.val() & self.muldiv.val() & self.word.val().get_bit(14);
        self.is_control.next = (self.opcode.val() == self.k_branch.val())
            | (self.opcode.val() == self.k_jal.val())
            | (self.opcode.val() == self.k_jalr.val())
            | ((self.opcode.val() == self.k_simt.val())
                & ((self.f3.val() == self.k_f3_0.val()) | (self.f3.val() == self.k_f3_2.val())));
        // In HEAD_PACKED_ORDER.
        self.pack.d[0].next = self.rd_valid.val();
        self.pack.d[1].next = self.rs1_valid.val();
        self.pack.d[2].next = self.rs2_valid.val();
        self.pack.d[3].next = self.is_bar.val();
        self.pack.d[4].next = self.is_branch.val();
        self.pack.d[5].next = self.to_alu.val();
        self.pack.d[6].next = self.to_mul.val();
        self.pack.d[7].next = self.to_div.val();
        self.pack.d[8].next = self.to_lsu.val();
        self.pack.d[9].next = self.is_control.val();
        self.issue_bits.next = self.pack.q.val();
    }
}

/// [`HeadFields`] read back from a word and its stored [`HeadFields::issue_bits`] flags: wiring
/// only, so the issue checks start from flip-flops (docs/microarch/fetch.md).
#[derive(LogicBlock, Default)]
pub struct StoredHeadFields {
    pub word: Signal<In, Bits<32>>,
    pub issue_bits: Signal<In, Bits<HEAD_PACKED_BITS>>,
    pub rd: Signal<Out, Bits<5>>,
    pub rd_valid: Signal<Out, Bit>,
    pub rs1: Signal<Out, Bits<5>>,
    pub rs1_valid: Signal<Out, Bit>,
    pub rs2: Signal<Out, Bits<5>>,
    pub rs2_valid: Signal<Out, Bit>,
    pub is_bar: Signal<Out, Bit>,
    pub to_alu: Signal<Out, Bit>,
    pub to_mul: Signal<Out, Bit>,
    pub to_div: Signal<Out, Bit>,
    pub to_lsu: Signal<Out, Bit>,
    pub is_control: Signal<Out, Bit>,
    /// The word's other bits (lint sink, removed by synthesis).
    word_rest: Unused<Bits<32>>,
    /// `is_branch` (bit 4): fetch folds it into `head_at_return` when the word enters its
    /// I-buffer, so the issue stage has no use for it (lint sink, removed by synthesis).
    branch_bit: Unused<Bit>,
}

impl Logic for StoredHeadFields {
    #[hdl_gen]
    fn update(&mut self) {
        self.rd.next = self.word.val().get_bits::<5>(7);
        self.rs1.next = self.word.val().get_bits::<5>(15);
        self.rs2.next = self.word.val().get_bits::<5>(20);
        self.word_rest.d[0].next = self.word.val();
        self.rd_valid.next = self.issue_bits.val().get_bit(0);
        self.rs1_valid.next = self.issue_bits.val().get_bit(1);
        self.rs2_valid.next = self.issue_bits.val().get_bit(2);
        self.is_bar.next = self.issue_bits.val().get_bit(3);
        self.branch_bit.d[0].next = self.issue_bits.val().get_bit(4);
        self.to_alu.next = self.issue_bits.val().get_bit(5);
        self.to_mul.next = self.issue_bits.val().get_bit(6);
        self.to_div.next = self.issue_bits.val().get_bit(7);
        self.to_lsu.next = self.issue_bits.val().get_bit(8);
        self.is_control.next = self.issue_bits.val().get_bit(9);
    }
}

/// The Verilog of [`HeadFields`], top module named `name`.
pub fn head_fields_verilog(name: &str) -> Result<String, HdlError> {
    let mut uut = HeadFields::new();
    Ok(rename_top(&verilog_of("head_fields", &mut uut)?, name))
}
