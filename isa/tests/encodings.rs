//! Known-good encodings of every instruction, from the RISC-V Unprivileged ISA (20191213)
//! encoding tables, with each word checked against GNU as 2.40
//! (`riscv64-unknown-elf-gcc -march=rv32im_zicsr_zifencei -mabi=ilp32 -c`, `.option norelax`;
//! the SIMT words with `.insn r 0x0B, F3, 0, x0, RS1, x0`).
//!
//! Branch and jump offsets are written as `.+N` / `.-N` (relative to the instruction).

mod common;

use warpforge_isa::*;

use AluOp::*;
use Instr::*;

/// (GNU as source, word, decoded instruction).
const KNOWN: &[(&str, u32, Instr)] = &[
    // ---- U-type
    (
        "lui a5,0x12345",
        0x123457b7,
        Lui {
            rd: 15,
            imm: 0x1234_5000,
        },
    ),
    ("lui t6,0xfffff", 0xffffffb7, Lui { rd: 31, imm: -4096 }),
    (
        "lui zero,0x80000",
        0x80000037,
        Lui {
            rd: 0,
            imm: i32::MIN,
        },
    ),
    ("auipc ra,0x0", 0x00000097, Auipc { rd: 1, imm: 0 }),
    (
        "auipc gp,0xabcde",
        0xabcde197,
        Auipc {
            rd: 3,
            imm: 0xabcd_e000_u32 as i32,
        },
    ),
    // ---- jal: positive, negative, both extremes, imm[11] and imm[19:12] alone
    ("jal ra,.+0x100", 0x100000ef, Jal { rd: 1, imm: 0x100 }),
    ("jal zero,.-4", 0xffdff06f, Jal { rd: 0, imm: -4 }),
    (
        "jal zero,.-0x100000",
        0x8000006f,
        Jal {
            rd: 0,
            imm: -0x10_0000,
        },
    ),
    (
        "jal a0,.+0xffffe",
        0x7ffff56f,
        Jal {
            rd: 10,
            imm: 0xf_fffe,
        },
    ),
    ("jal ra,.-2048", 0x801ff0ef, Jal { rd: 1, imm: -2048 }),
    ("jal s0,.+2048", 0x0010046f, Jal { rd: 8, imm: 2048 }),
    ("jal t0,.+0x1000", 0x000012ef, Jal { rd: 5, imm: 0x1000 }),
    // ---- jalr
    (
        "jalr zero,0(ra)",
        0x00008067,
        Jalr {
            rd: 0,
            rs1: 1,
            imm: 0,
        },
    ),
    (
        "jalr ra,-2048(a5)",
        0x800780e7,
        Jalr {
            rd: 1,
            rs1: 15,
            imm: -2048,
        },
    ),
    (
        "jalr t0,2047(t1)",
        0x7ff302e7,
        Jalr {
            rd: 5,
            rs1: 6,
            imm: 2047,
        },
    ),
    // ---- branches: forward, backward, both extremes, imm[11] alone
    (
        "beq a0,a1,.+0x40",
        0x04b50063,
        Branch {
            op: BranchOp::Beq,
            rs1: 10,
            rs2: 11,
            imm: 0x40,
        },
    ),
    (
        "beq a0,a1,.-8",
        0xfeb50ce3,
        Branch {
            op: BranchOp::Beq,
            rs1: 10,
            rs2: 11,
            imm: -8,
        },
    ),
    (
        "bne s0,s1,.+4094",
        0x7e941fe3,
        Branch {
            op: BranchOp::Bne,
            rs1: 8,
            rs2: 9,
            imm: 4094,
        },
    ),
    (
        "blt t0,t1,.-4096",
        0x8062c063,
        Branch {
            op: BranchOp::Blt,
            rs1: 5,
            rs2: 6,
            imm: -4096,
        },
    ),
    (
        "bge a2,zero,.+2048",
        0x000650e3,
        Branch {
            op: BranchOp::Bge,
            rs1: 12,
            rs2: 0,
            imm: 2048,
        },
    ),
    (
        "bltu zero,a3,.-2",
        0xfed06fe3,
        Branch {
            op: BranchOp::Bltu,
            rs1: 0,
            rs2: 13,
            imm: -2,
        },
    ),
    (
        "bgeu t6,t5,.+0",
        0x01eff063,
        Branch {
            op: BranchOp::Bgeu,
            rs1: 31,
            rs2: 30,
            imm: 0,
        },
    ),
    // ---- loads
    (
        "lb a0,-1(a1)",
        0xfff58503,
        Load {
            op: LoadOp::Lb,
            rd: 10,
            rs1: 11,
            imm: -1,
        },
    ),
    (
        "lh t0,-2048(sp)",
        0x80011283,
        Load {
            op: LoadOp::Lh,
            rd: 5,
            rs1: 2,
            imm: -2048,
        },
    ),
    (
        "lw a5,8(sp)",
        0x00812783,
        Load {
            op: LoadOp::Lw,
            rd: 15,
            rs1: 2,
            imm: 8,
        },
    ),
    (
        "lbu s1,2047(gp)",
        0x7ff1c483,
        Load {
            op: LoadOp::Lbu,
            rd: 9,
            rs1: 3,
            imm: 2047,
        },
    ),
    (
        "lhu t6,2(t5)",
        0x002f5f83,
        Load {
            op: LoadOp::Lhu,
            rd: 31,
            rs1: 30,
            imm: 2,
        },
    ),
    // ---- stores
    (
        "sb a0,-1(a1)",
        0xfea58fa3,
        Store {
            op: StoreOp::Sb,
            rs1: 11,
            rs2: 10,
            imm: -1,
        },
    ),
    (
        "sh t0,2047(sp)",
        0x7e511fa3,
        Store {
            op: StoreOp::Sh,
            rs1: 2,
            rs2: 5,
            imm: 2047,
        },
    ),
    (
        "sw a5,0(a4)",
        0x00f72023,
        Store {
            op: StoreOp::Sw,
            rs1: 14,
            rs2: 15,
            imm: 0,
        },
    ),
    (
        "sw ra,-2048(sp)",
        0x80112023,
        Store {
            op: StoreOp::Sw,
            rs1: 2,
            rs2: 1,
            imm: -2048,
        },
    ),
    // ---- register-immediate
    (
        "addi a0,a0,1",
        0x00150513,
        OpImm {
            op: Add,
            rd: 10,
            rs1: 10,
            imm: 1,
        },
    ),
    (
        "slti t0,t1,-1",
        0xfff32293,
        OpImm {
            op: Slt,
            rd: 5,
            rs1: 6,
            imm: -1,
        },
    ),
    (
        "sltiu a2,a3,2047",
        0x7ff6b613,
        OpImm {
            op: Sltu,
            rd: 12,
            rs1: 13,
            imm: 2047,
        },
    ),
    (
        "xori a4,a5,-2048",
        0x8007c713,
        OpImm {
            op: Xor,
            rd: 14,
            rs1: 15,
            imm: -2048,
        },
    ),
    (
        "ori s0,s1,0x555",
        0x5554e413,
        OpImm {
            op: Or,
            rd: 8,
            rs1: 9,
            imm: 0x555,
        },
    ),
    (
        "andi t6,t5,-256",
        0xf00f7f93,
        OpImm {
            op: And,
            rd: 31,
            rs1: 30,
            imm: -256,
        },
    ),
    (
        "slli a0,a0,31",
        0x01f51513,
        OpImm {
            op: Sll,
            rd: 10,
            rs1: 10,
            imm: 31,
        },
    ),
    (
        "srli a1,a2,1",
        0x00165593,
        OpImm {
            op: Srl,
            rd: 11,
            rs1: 12,
            imm: 1,
        },
    ),
    (
        "srai a0,a1,7",
        0x4075d513,
        OpImm {
            op: Sra,
            rd: 10,
            rs1: 11,
            imm: 7,
        },
    ),
    (
        "srai t3,t4,31",
        0x41fede13,
        OpImm {
            op: Sra,
            rd: 28,
            rs1: 29,
            imm: 31,
        },
    ),
    // ---- register-register
    (
        "add a0,a1,a2",
        0x00c58533,
        Op {
            op: Add,
            rd: 10,
            rs1: 11,
            rs2: 12,
        },
    ),
    (
        "sub s2,s3,s4",
        0x41498933,
        Op {
            op: Sub,
            rd: 18,
            rs1: 19,
            rs2: 20,
        },
    ),
    (
        "sll t0,t1,t2",
        0x007312b3,
        Op {
            op: Sll,
            rd: 5,
            rs1: 6,
            rs2: 7,
        },
    ),
    (
        "slt a3,a4,a5",
        0x00f726b3,
        Op {
            op: Slt,
            rd: 13,
            rs1: 14,
            rs2: 15,
        },
    ),
    (
        "sltu t6,zero,t6",
        0x01f03fb3,
        Op {
            op: Sltu,
            rd: 31,
            rs1: 0,
            rs2: 31,
        },
    ),
    (
        "xor ra,sp,gp",
        0x003140b3,
        Op {
            op: Xor,
            rd: 1,
            rs1: 2,
            rs2: 3,
        },
    ),
    (
        "srl t4,t5,t6",
        0x01ff5eb3,
        Op {
            op: Srl,
            rd: 29,
            rs1: 30,
            rs2: 31,
        },
    ),
    (
        "sra a6,a7,s2",
        0x4128d833,
        Op {
            op: Sra,
            rd: 16,
            rs1: 17,
            rs2: 18,
        },
    ),
    (
        "or s3,s4,s5",
        0x015a69b3,
        Op {
            op: Or,
            rd: 19,
            rs1: 20,
            rs2: 21,
        },
    ),
    (
        "and s6,s7,s8",
        0x018bfb33,
        Op {
            op: And,
            rd: 22,
            rs1: 23,
            rs2: 24,
        },
    ),
    // ---- M
    (
        "mul a0,a1,a2",
        0x02c58533,
        MulDiv {
            op: MulDivOp::Mul,
            rd: 10,
            rs1: 11,
            rs2: 12,
        },
    ),
    (
        "mulh a3,a4,a5",
        0x02f716b3,
        MulDiv {
            op: MulDivOp::Mulh,
            rd: 13,
            rs1: 14,
            rs2: 15,
        },
    ),
    (
        "mulhsu a6,a7,s2",
        0x0328a833,
        MulDiv {
            op: MulDivOp::Mulhsu,
            rd: 16,
            rs1: 17,
            rs2: 18,
        },
    ),
    (
        "mulhu t0,t1,t2",
        0x027332b3,
        MulDiv {
            op: MulDivOp::Mulhu,
            rd: 5,
            rs1: 6,
            rs2: 7,
        },
    ),
    (
        "div s0,s1,a0",
        0x02a4c433,
        MulDiv {
            op: MulDivOp::Div,
            rd: 8,
            rs1: 9,
            rs2: 10,
        },
    ),
    (
        "divu t6,t5,t4",
        0x03df5fb3,
        MulDiv {
            op: MulDivOp::Divu,
            rd: 31,
            rs1: 30,
            rs2: 29,
        },
    ),
    (
        "rem a0,zero,a1",
        0x02b06533,
        MulDiv {
            op: MulDivOp::Rem,
            rd: 10,
            rs1: 0,
            rs2: 11,
        },
    ),
    (
        "remu t3,t4,t5",
        0x03eefe33,
        MulDiv {
            op: MulDivOp::Remu,
            rd: 28,
            rs1: 29,
            rs2: 30,
        },
    ),
    // ---- fence and system (`fence` = `fence iorw,iorw` is what `encode(&Fence)` produces)
    ("fence", 0x0ff0000f, Fence),
    ("ecall", 0x00000073, Ecall),
    ("ebreak", 0x00100073, Ebreak),
    // ---- Zicsr
    (
        "csrrw a0,0xcc0,a1",
        0xcc059573,
        Csr {
            op: CsrOp::Rw,
            rd: 10,
            src: 11,
            csr: 0xcc0,
        },
    ),
    (
        "csrrs a0,0xcc0,zero",
        0xcc002573,
        Csr {
            op: CsrOp::Rs,
            rd: 10,
            src: 0,
            csr: 0xcc0,
        },
    ),
    (
        "csrrc t0,0xccd,t1",
        0xccd332f3,
        Csr {
            op: CsrOp::Rc,
            rd: 5,
            src: 6,
            csr: 0xccd,
        },
    ),
    (
        "csrrwi a1,0xcc1,31",
        0xcc1fd5f3,
        Csr {
            op: CsrOp::Rwi,
            rd: 11,
            src: 31,
            csr: 0xcc1,
        },
    ),
    (
        "csrrsi zero,0xc00,1",
        0xc000e073,
        Csr {
            op: CsrOp::Rsi,
            rd: 0,
            src: 1,
            csr: 0xc00,
        },
    ),
    (
        "csrrci t6,0xfff,16",
        0xfff87ff3,
        Csr {
            op: CsrOp::Rci,
            rd: 31,
            src: 16,
            csr: 0xfff,
        },
    ),
    // ---- SIMT
    (
        ".insn r 0x0B, 0, 0, x0, x0, x0",
        0x0000000b,
        Simt {
            op: SimtOp::Exit,
            rs1: 0,
        },
    ),
    (
        ".insn r 0x0B, 1, 0, x0, x0, x0",
        0x0000100b,
        Simt {
            op: SimtOp::Bar,
            rs1: 0,
        },
    ),
    (
        ".insn r 0x0B, 2, 0, x0, a0, x0",
        0x0005200b,
        Simt {
            op: SimtOp::Tmc,
            rs1: 10,
        },
    ),
    (
        ".insn r 0x0B, 2, 0, x0, x31, x0",
        0x000fa00b,
        Simt {
            op: SimtOp::Tmc,
            rs1: 31,
        },
    ),
];

#[test]
fn decode_known_words() {
    for &(asm, word, instr) in KNOWN {
        assert_eq!(decode(word), Ok(instr), "{asm} = 0x{word:08x}");
    }
}

#[test]
fn encode_known_instructions() {
    for &(asm, word, instr) in KNOWN {
        assert_eq!(
            encode(&instr),
            word,
            "{asm}: got 0x{:08x}, want 0x{word:08x}",
            encode(&instr)
        );
    }
}

#[test]
fn known_table_covers_every_instruction() {
    common::assert_all_kinds(KNOWN.iter().map(|(_, _, i)| i));
}

/// Fences with other fields (predecessor/successor sets, `fence.tso`, `fence.i`, and the fields
/// the ISA says are ignored) all decode to `Fence`.
#[test]
fn fence_variants() {
    for (asm, word) in [
        ("fence iorw,iorw", 0x0ff0000f),
        ("fence rw,rw", 0x0330000f),
        ("fence r,w", 0x0210000f),
        ("fence i,o", 0x0840000f),
        ("fence.tso", 0x8330000f),
        ("fence.i", 0x0000100f),
        (
            "fence with rd=a0, rs1=a1 (reserved fields, ignored)",
            0x0ff5850f,
        ),
        ("fence.i with imm=0xfff, rd, rs1 (ignored)", 0xfff5950f),
    ] {
        assert_eq!(decode(word), Ok(Fence), "{asm} = 0x{word:08x}");
    }
}

/// Hand-derived from the spec's field layout, independent of GNU as: the B- and J-type
/// immediate scrambles, one immediate bit at a time.
#[test]
fn branch_and_jump_immediate_bits() {
    // B-type: imm[12] -> bit 31, imm[10:5] -> 30:25, imm[4:1] -> 11:8, imm[11] -> 7.
    let b_pos = |k: u32| match k {
        12 => 31,
        11 => 7,
        5..=10 => k + 20,
        1..=4 => k + 7,
        _ => unreachable!(),
    };
    for k in 1..=12u32 {
        let w = 0x63 | 1 << b_pos(k);
        // imm[12] is the sign bit.
        let imm = if k == 12 { -4096 } else { 1 << k };
        assert_eq!(
            decode(w),
            Ok(Branch {
                op: BranchOp::Beq,
                rs1: 0,
                rs2: 0,
                imm
            }),
            "bit {k}"
        );
        assert_eq!(
            encode(&Branch {
                op: BranchOp::Beq,
                rs1: 0,
                rs2: 0,
                imm
            }),
            w,
            "bit {k}"
        );
    }
    // J-type: imm[20] -> 31, imm[10:1] -> 30:21, imm[11] -> 20, imm[19:12] -> 19:12.
    let j_pos = |k: u32| match k {
        20 => 31,
        11 => 20,
        12..=19 => k,
        1..=10 => k + 20,
        _ => unreachable!(),
    };
    for k in 1..=20u32 {
        let w = 0x6f | 1 << j_pos(k);
        let imm = if k == 20 { -(1 << 20) } else { 1 << k };
        assert_eq!(decode(w), Ok(Jal { rd: 0, imm }), "bit {k}");
        assert_eq!(encode(&Jal { rd: 0, imm }), w, "bit {k}");
    }
    // S-type: imm[11:5] -> 31:25, imm[4:0] -> 11:7.
    for k in 0..=11u32 {
        let w = 0x2023 | 1 << if k >= 5 { k + 20 } else { k + 7 };
        let imm = if k == 11 { -2048 } else { 1 << k };
        assert_eq!(
            decode(w),
            Ok(Store {
                op: StoreOp::Sw,
                rs1: 0,
                rs2: 0,
                imm
            }),
            "bit {k}"
        );
        assert_eq!(
            encode(&Store {
                op: StoreOp::Sw,
                rs1: 0,
                rs2: 0,
                imm
            }),
            w,
            "bit {k}"
        );
    }
}

/// `encode` has no `subi`: `OpImm { op: Sub }` is encoded as `addi` of the negated immediate.
#[test]
fn opimm_sub_encodes_as_addi() {
    let w = encode(&OpImm {
        op: Sub,
        rd: 10,
        rs1: 11,
        imm: 5,
    });
    assert_eq!(
        decode(w),
        Ok(OpImm {
            op: Add,
            rd: 10,
            rs1: 11,
            imm: -5
        })
    );
}
