//! Encodings outside the ISA are decode errors (illegal-instruction faults), carrying the word.

use warpforge_isa::*;

fn assert_illegal(what: &str, w: u32) {
    assert_eq!(
        decode(w),
        Err(DecodeError(w)),
        "{what}: 0x{w:08x} must not decode"
    );
    assert_eq!(disassemble(w, 0), format!(".word 0x{w:08x}"), "{what}");
}

#[test]
fn compressed_and_long_encodings() {
    for (what, w) in [
        ("zero word (c.illegal)", 0x0000_0000),
        ("c.li a0,1", 0x0000_4505),
        ("c.ret", 0x0000_8082),
        ("c.nop", 0x0000_0001),
        (
            "c.addi4spn in the low half, addi in the high half",
            0x0015_0040,
        ),
        ("low bits 01 of an addi", 0x0015_0511),
        ("low bits 10 of an addi", 0x0015_0512),
        ("low bits 00 of an addi", 0x0015_0510),
        ("48-bit prefix", 0x0000_001f),
        ("64-bit prefix", 0x0000_003f),
        ("all ones (>= 192-bit prefix)", 0xffff_ffff),
    ] {
        assert_illegal(what, w);
    }
}

#[test]
fn opcodes_not_in_the_isa() {
    // Every major opcode (bits 1:0 = 11) that RV32IM + Zicsr + SIMT does not use.
    let used = [
        0x03, 0x0b, 0x0f, 0x13, 0x17, 0x23, 0x33, 0x37, 0x63, 0x67, 0x6f, 0x73,
    ];
    for op in (0..0x80u32).filter(|o| o & 3 == 3 && !used.contains(o)) {
        // AMO, FP loads/stores/ops, OP-32/OP-IMM-32 (RV64), custom-1..3, reserved, ...
        for rest in [0u32, 0x0005_2500, 0xffff_ff80] {
            assert_illegal("unused opcode", op | rest);
        }
    }
}

#[test]
fn bad_funct3() {
    for (what, w) in [
        ("jalr funct3=1", 0x0000_9067),
        ("jalr funct3=7", 0x0000_f067),
        ("branch funct3=2", 0x00b5_2063),
        ("branch funct3=3", 0x00b5_3063),
        ("load funct3=3 (ld)", 0x0081_3783),
        ("load funct3=6 (lwu)", 0x0081_6783),
        ("load funct3=7", 0x0081_7783),
        ("store funct3=3 (sd)", 0x00f7_3023),
        ("store funct3=4", 0x00f7_4023),
        ("store funct3=7", 0x00f7_7023),
        ("misc-mem funct3=2 (cbo.*)", 0x0000_200f),
        ("misc-mem funct3=7", 0x0000_700f),
        ("system funct3=4", 0xcc00_4573),
    ] {
        assert_illegal(what, w);
    }
}

#[test]
fn bad_funct7() {
    for (what, w) in [
        // OP with funct7 other than 0, 1, 0x20 / 0x20 with a funct3 other than sub/sra.
        ("add funct7=0x02", 0x04c5_8533),
        ("add funct7=0x40", 0x80c5_8533),
        ("add funct7=0x7f", 0xfec5_8533),
        ("sll funct7=0x20", 0x4073_12b3),
        ("slt funct7=0x20", 0x40f7_26b3),
        ("sltu funct7=0x20", 0x41f0_3fb3),
        ("xor funct7=0x20 (xnor, Zbb)", 0x4031_40b3),
        ("or funct7=0x20 (orn, Zbb)", 0x415a_69b3),
        ("and funct7=0x20 (andn, Zbb)", 0x418b_fb33),
        ("czero.eqz (funct7=0x07)", 0x0ec5_d533),
        ("min (funct7=0x05, Zbb)", 0x0ac5_c533),
        // OP-IMM shifts with a funct7 other than 0 / 0x20 (srai only).
        ("slli funct7=0x20", 0x41f5_1513),
        ("slli funct7=0x01", 0x03f5_1513),
        ("srli funct7=0x10", 0x2016_5593),
        ("srai funct7=0x21", 0x4275_d513),
        ("bseti (funct7=0x14, Zbs)", 0x2815_1513),
    ] {
        assert_illegal(what, w);
    }
}

/// RV32: shift amounts are 5 bits; `imm[5] = 1` (bit 25) is illegal (docs/isa.md §3.1).
#[test]
fn shift_immediate_bit5() {
    for (what, w) in [
        ("slli a0,a0,32", 0x0205_1513),
        ("slli a0,a0,63", 0x03f5_1513),
        ("srli a0,a0,32", 0x0205_5513),
        ("srai a0,a0,32", 0x4205_5513),
        ("srai a0,a0,63", 0x43f5_5513),
    ] {
        assert_illegal(what, w);
    }
}

#[test]
fn system_other_than_ecall_ebreak_and_csr() {
    for (what, w) in [
        ("ecall with rd=a0", 0x0000_0573),
        ("ecall with rs1=a0", 0x0005_0073),
        ("ebreak with rd=ra", 0x0010_00f3),
        ("uret", 0x0020_0073),
        ("sret", 0x1020_0073),
        ("mret", 0x3020_0073),
        ("wfi", 0x1050_0073),
        ("sfence.vma", 0x1200_0073),
        ("imm=3", 0x0030_0073),
    ] {
        assert_illegal(what, w);
    }
}

/// The SIMT opcode (custom-0): funct7 = 0, rd = 0, rs2 = 0, funct3 <= 2, and rs1 = 0 except for
/// `wf.tmc` (docs/isa.md §3.3).
#[test]
fn simt_field_checks() {
    let simt = |f3: u32, f7: u32, rd: u32, rs1: u32, rs2: u32| {
        OPCODE_SIMT | rd << 7 | f3 << 12 | rs1 << 15 | rs2 << 20 | f7 << 25
    };
    // Sanity: the legal forms.
    assert_eq!(
        decode(simt(0, 0, 0, 0, 0)),
        Ok(Instr::Simt {
            op: SimtOp::Exit,
            rs1: 0
        })
    );
    assert_eq!(
        decode(simt(1, 0, 0, 0, 0)),
        Ok(Instr::Simt {
            op: SimtOp::Bar,
            rs1: 0
        })
    );
    assert_eq!(
        decode(simt(2, 0, 0, 10, 0)),
        Ok(Instr::Simt {
            op: SimtOp::Tmc,
            rs1: 10
        })
    );
    for f3 in 0..8 {
        for (what, f7, rd, rs1, rs2) in [
            ("rd != 0", 0, 1, 0, 0),
            ("rd = 31", 0, 31, 10, 0),
            ("rs2 != 0", 0, 0, 0, 1),
            ("rs2 = 31", 0, 0, 10, 31),
            ("funct7 = 1", 1, 0, 0, 0),
            ("funct7 = 0x20", 0x20, 0, 10, 0),
            ("funct7 = 0x40", 0x40, 0, 0, 0),
        ] {
            assert_illegal(
                &format!("SIMT funct3={f3} {what}"),
                simt(f3, f7, rd, rs1, rs2),
            );
        }
        if f3 > 2 {
            for rs1 in [0, 10, 31] {
                assert_illegal(&format!("SIMT funct3={f3}"), simt(f3, 0, 0, rs1, 0));
            }
        }
    }
    for rs1 in [1, 10, 31] {
        assert_illegal("wf.exit with rs1 != 0", simt(0, 0, 0, rs1, 0));
        assert_illegal("wf.bar with rs1 != 0", simt(1, 0, 0, rs1, 0));
    }
    // The words from GNU as for `.insn r 0x0B, ...` (see fixtures/all.S).
    for (what, w) in [
        (".insn r 0x0B, 0, 0, x0, a0, x0", 0x0005_000b),
        (".insn r 0x0B, 1, 0, x0, x1, x0", 0x0000_900b),
        (".insn r 0x0B, 0, 0, x1, x0, x0", 0x0000_008b),
        (".insn r 0x0B, 1, 0, x0, x0, x31", 0x01f0_100b),
        (".insn r 0x0B, 2, 1, x0, a0, x0", 0x0205_200b),
        (".insn r 0x0B, 3, 0, x0, a0, x0", 0x0005_300b),
    ] {
        assert_illegal(what, w);
    }
}
