//! decode ∘ encode and encode ∘ decode on random inputs (seeded, so failures reproduce).

mod common;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use warpforge_isa::*;

const SEED: u64 = 0x5eed_0f0a_7ff0_e600;

/// Major opcodes the ISA uses; random words with one of these decode much more often.
const OPCODES: [u32; 12] = [
    0x03, 0x0b, 0x0f, 0x13, 0x17, 0x23, 0x33, 0x37, 0x63, 0x67, 0x6f, 0x73,
];

fn check_word(w: u32) -> Option<Instr> {
    let i = decode(w).ok()?;
    let e = encode(&i);
    assert_eq!(decode(e), Ok(i), "0x{w:08x} -> {i:?} -> 0x{e:08x}");
    if i != Instr::Fence {
        // Every field of every other instruction is significant, so the word comes back.
        assert_eq!(e, w, "0x{w:08x} -> {i:?} -> 0x{e:08x}");
    }
    assert!(!disassemble(w, 0x100).starts_with(".word"), "0x{w:08x}");
    Some(i)
}

#[test]
fn random_words() {
    let mut rng = StdRng::seed_from_u64(SEED);
    let mut decoded = Vec::new();
    let n = 400_000;
    for k in 0..n {
        let mut w: u32 = rng.gen();
        if k % 2 == 1 {
            // Half of them get a used opcode, and some of those funct7 0, 1 or 0x20.
            w = (w & !0x7f) | OPCODES[rng.gen_range(0..OPCODES.len())];
            if rng.gen_bool(0.5) {
                w = (w & 0x01ff_ffff) | [0, 1, 0x20][rng.gen_range(0..3)] << 25;
            }
            if rng.gen_bool(0.1) {
                w &= !(0x1f << 20); // rs2 = 0 (SIMT)
                w &= !(0x1f << 7); // rd = 0 (SIMT)
                if rng.gen_bool(0.5) {
                    w &= !(0x1f << 15); // rs1 = 0 (wf.exit, wf.bar)
                }
            }
        }
        if let Some(i) = check_word(w) {
            decoded.push(i);
        }
    }
    // The random words must actually exercise the decoder.
    assert!(
        decoded.len() > n / 4,
        "only {} of {n} words decoded",
        decoded.len()
    );
    // ecall and ebreak are single words, which random words hardly ever hit.
    decoded.push(check_word(0x0000_0073).unwrap());
    decoded.push(check_word(0x0010_0073).unwrap());
    common::assert_all_kinds(&decoded);
}

fn reg(rng: &mut StdRng) -> Reg {
    rng.gen_range(0..32)
}

fn imm12(rng: &mut StdRng) -> i32 {
    rng.gen_range(-2048..=2047)
}

fn random_instr(rng: &mut StdRng) -> Instr {
    use Instr::*;
    const ALU: [AluOp; 10] = [
        AluOp::Add,
        AluOp::Sub,
        AluOp::Sll,
        AluOp::Slt,
        AluOp::Sltu,
        AluOp::Xor,
        AluOp::Srl,
        AluOp::Sra,
        AluOp::Or,
        AluOp::And,
    ];
    match rng.gen_range(0..15) {
        0 => Lui {
            rd: reg(rng),
            imm: (rng.gen::<u32>() & 0xffff_f000) as i32,
        },
        1 => Auipc {
            rd: reg(rng),
            imm: (rng.gen::<u32>() & 0xffff_f000) as i32,
        },
        2 => Jal {
            rd: reg(rng),
            imm: rng.gen_range(-(1 << 19)..(1 << 19)) * 2,
        },
        3 => Jalr {
            rd: reg(rng),
            rs1: reg(rng),
            imm: imm12(rng),
        },
        4 => {
            let op = [
                BranchOp::Beq,
                BranchOp::Bne,
                BranchOp::Blt,
                BranchOp::Bge,
                BranchOp::Bltu,
                BranchOp::Bgeu,
            ][rng.gen_range(0..6)];
            Branch {
                op,
                rs1: reg(rng),
                rs2: reg(rng),
                imm: rng.gen_range(-2048..2048) * 2,
            }
        }
        5 => {
            let op =
                [LoadOp::Lb, LoadOp::Lh, LoadOp::Lw, LoadOp::Lbu, LoadOp::Lhu][rng.gen_range(0..5)];
            Load {
                op,
                rd: reg(rng),
                rs1: reg(rng),
                imm: imm12(rng),
            }
        }
        6 => {
            let op = [StoreOp::Sb, StoreOp::Sh, StoreOp::Sw][rng.gen_range(0..3)];
            Store {
                op,
                rs1: reg(rng),
                rs2: reg(rng),
                imm: imm12(rng),
            }
        }
        7 => {
            // No `subi`.
            let op = ALU[rng.gen_range(0..ALU.len())];
            let op = if op == AluOp::Sub { AluOp::Add } else { op };
            let imm = match op {
                AluOp::Sll | AluOp::Srl | AluOp::Sra => rng.gen_range(0..32),
                _ => imm12(rng),
            };
            OpImm {
                op,
                rd: reg(rng),
                rs1: reg(rng),
                imm,
            }
        }
        8 => Op {
            op: ALU[rng.gen_range(0..ALU.len())],
            rd: reg(rng),
            rs1: reg(rng),
            rs2: reg(rng),
        },
        9 => {
            let op = [
                MulDivOp::Mul,
                MulDivOp::Mulh,
                MulDivOp::Mulhsu,
                MulDivOp::Mulhu,
                MulDivOp::Div,
                MulDivOp::Divu,
                MulDivOp::Rem,
                MulDivOp::Remu,
            ][rng.gen_range(0..8)];
            MulDiv {
                op,
                rd: reg(rng),
                rs1: reg(rng),
                rs2: reg(rng),
            }
        }
        10 => Fence,
        11 => Ecall,
        12 => Ebreak,
        13 => {
            let op = [
                CsrOp::Rw,
                CsrOp::Rs,
                CsrOp::Rc,
                CsrOp::Rwi,
                CsrOp::Rsi,
                CsrOp::Rci,
            ][rng.gen_range(0..6)];
            Csr {
                op,
                rd: reg(rng),
                src: reg(rng),
                csr: rng.gen_range(0..0x1000),
            }
        }
        _ => match rng.gen_range(0..3) {
            0 => Simt {
                op: SimtOp::Exit,
                rs1: 0,
            },
            1 => Simt {
                op: SimtOp::Bar,
                rs1: 0,
            },
            _ => Simt {
                op: SimtOp::Tmc,
                rs1: reg(rng),
            },
        },
    }
}

#[test]
fn random_instructions() {
    let mut rng = StdRng::seed_from_u64(SEED ^ 1);
    let mut all = Vec::new();
    for _ in 0..200_000 {
        let i = random_instr(&mut rng);
        let w = encode(&i);
        assert_eq!(decode(w), Ok(i), "{i:?} -> 0x{w:08x}");
        assert!(!disassemble(w, 0x100).starts_with(".word"), "{i:?}");
        all.push(i);
    }
    common::assert_all_kinds(&all);
}

/// The extremes of every immediate field.
#[test]
fn immediate_extremes() {
    use Instr::*;
    for i in [
        Lui {
            rd: 31,
            imm: i32::MIN,
        },
        Lui {
            rd: 1,
            imm: 0x7fff_f000,
        },
        Lui { rd: 1, imm: -4096 },
        Auipc {
            rd: 31,
            imm: i32::MIN,
        },
        Jal {
            rd: 31,
            imm: -(1 << 20),
        },
        Jal {
            rd: 31,
            imm: (1 << 20) - 2,
        },
        Jalr {
            rd: 31,
            rs1: 31,
            imm: -2048,
        },
        Jalr {
            rd: 31,
            rs1: 31,
            imm: 2047,
        },
        Branch {
            op: BranchOp::Bgeu,
            rs1: 31,
            rs2: 31,
            imm: -4096,
        },
        Branch {
            op: BranchOp::Bgeu,
            rs1: 31,
            rs2: 31,
            imm: 4094,
        },
        Load {
            op: LoadOp::Lhu,
            rd: 31,
            rs1: 31,
            imm: -2048,
        },
        Store {
            op: StoreOp::Sw,
            rs1: 31,
            rs2: 31,
            imm: 2047,
        },
        Store {
            op: StoreOp::Sb,
            rs1: 31,
            rs2: 31,
            imm: -2048,
        },
        OpImm {
            op: AluOp::Sra,
            rd: 31,
            rs1: 31,
            imm: 31,
        },
        OpImm {
            op: AluOp::And,
            rd: 31,
            rs1: 31,
            imm: -1,
        },
        Csr {
            op: CsrOp::Rci,
            rd: 31,
            src: 31,
            csr: 0xfff,
        },
        Simt {
            op: SimtOp::Tmc,
            rs1: 31,
        },
    ] {
        assert_eq!(decode(encode(&i)), Ok(i), "{i:?}");
    }
}
