//! Unit co-simulation of the RTL decoder (`hdl/src/decode.rs`) against the ISA crate's decoder
//! (`warpforge_isa::decode`, an independent implementation) plus the model's CSR rules: every
//! field the SM uses, for words of every opcode class and for random words. The Verilog passes
//! `verilator --lint-only -Wall` and yosys.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use warpforge_hdl::alu::{alu_op_code, branch_cmp_code};
use warpforge_hdl::decode::{
    decoder_verilog, head_fields_verilog, HEAD_PACKED_ORDER, STEP_LANE, STEP_NONE, STEP_STACK,
    UNIT_ALU, UNIT_DIV, UNIT_LSU, UNIT_MUL, UNIT_NONE,
};
use warpforge_hdl::multiplier::shift_op_code;
use warpforge_isa::{csr, decode, CsrOp, Instr, MulDivOp, SimtOp};
use warpforge_testbench::unit::{build_unit, lint, yosys_check};

/// The fields the RTL decoder must produce for `w`, derived from `warpforge_isa::decode`.
#[derive(Debug, PartialEq, Eq, Default, Clone)]
struct Fields {
    illegal: bool,
    ecall: bool,
    ebreak: bool,
    unit: u64,
    load: bool,
    store: bool,
    branch: bool,
    jal: bool,
    jalr: bool,
    csr: bool,
    exit: bool,
    bar: bool,
    tmc: bool,
    /// Only for ALU results / branches (don't care otherwise).
    alu_op: Option<u64>,
    /// The multiplier's operation (multiplies; shifts, `shift_op_code`).
    md_op: Option<u64>,
    cmp: Option<u64>,
    imm: Option<u32>,
    rd: u64,
    rs1: Option<u64>,
    rs2: Option<u64>,
    a_pc: bool,
    a_zero: bool,
    b_imm: bool,
    b_four: bool,
    csr_step: Option<u64>,
}

fn known_csr(n: u16) -> bool {
    csr::ALL.iter().any(|&(c, _)| c == n)
}

fn expected(w: u32) -> Fields {
    let mut f = Fields::default();
    let Ok(i) = decode(w) else {
        f.illegal = true;
        return f;
    };
    let rdv = |rd: u8| rd as u64;
    match i {
        Instr::Lui { rd, imm } => {
            f.unit = UNIT_ALU;
            f.rd = rdv(rd);
            f.a_zero = true;
            f.b_imm = true;
            f.imm = Some(imm as u32);
            f.alu_op = Some(0);
        }
        Instr::Auipc { rd, imm } => {
            f.unit = UNIT_ALU;
            f.rd = rdv(rd);
            f.a_pc = true;
            f.b_imm = true;
            f.imm = Some(imm as u32);
            f.alu_op = Some(0);
        }
        Instr::Jal { rd, imm } => {
            f.jal = true;
            f.unit = UNIT_ALU;
            f.rd = rdv(rd);
            f.a_pc = true;
            f.b_four = true;
            f.imm = Some(imm as u32);
            f.alu_op = Some(0);
        }
        Instr::Jalr { rd, rs1, imm } => {
            f.jalr = true;
            f.unit = UNIT_ALU;
            f.rd = rdv(rd);
            f.rs1 = Some(rs1 as u64);
            f.a_pc = true;
            f.b_four = true;
            f.imm = Some(imm as u32);
            f.alu_op = Some(0);
        }
        Instr::Branch { op, rs1, rs2, imm } => {
            f.branch = true;
            f.rs1 = Some(rs1 as u64);
            f.rs2 = Some(rs2 as u64);
            f.imm = Some(imm as u32);
            f.cmp = Some(branch_cmp_code(op) as u64);
        }
        Instr::Load { rd, rs1, imm, .. } => {
            f.load = true;
            f.unit = UNIT_LSU;
            f.rd = rdv(rd);
            f.rs1 = Some(rs1 as u64);
            f.imm = Some(imm as u32);
        }
        Instr::Store { rs1, rs2, imm, .. } => {
            f.store = true;
            f.unit = UNIT_LSU;
            f.rs1 = Some(rs1 as u64);
            f.rs2 = Some(rs2 as u64);
            f.imm = Some(imm as u32);
        }
        Instr::OpImm { op, rd, rs1, imm } => {
            f.unit = UNIT_ALU;
            f.rd = rdv(rd);
            f.rs1 = Some(rs1 as u64);
            f.b_imm = true;
            // Shift immediates: the ALU uses the low 5 bits only.
            f.imm = Some(
                if matches!(
                    op,
                    warpforge_isa::AluOp::Sll
                        | warpforge_isa::AluOp::Srl
                        | warpforge_isa::AluOp::Sra
                ) {
                    (w >> 20) | if w >> 31 != 0 { 0xffff_f000 } else { 0 }
                } else {
                    imm as u32
                },
            );
            f.alu_op = Some(alu_op_code(op) as u64);
            if let Some(code) = shift_op_code(op) {
                f.unit = UNIT_MUL;
                f.md_op = Some(u64::from(code));
            }
        }
        Instr::Op { op, rd, rs1, rs2 } => {
            f.unit = UNIT_ALU;
            f.rd = rdv(rd);
            f.rs1 = Some(rs1 as u64);
            f.rs2 = Some(rs2 as u64);
            f.alu_op = Some(alu_op_code(op) as u64);
            // Shifts are multiplications by a power of two (hdl/src/multiplier.rs).
            if let Some(code) = shift_op_code(op) {
                f.unit = UNIT_MUL;
                f.md_op = Some(u64::from(code));
            }
        }
        Instr::MulDiv { op, rd, rs1, rs2 } => {
            f.unit = match op {
                MulDivOp::Mul | MulDivOp::Mulh | MulDivOp::Mulhsu | MulDivOp::Mulhu => UNIT_MUL,
                _ => UNIT_DIV,
            };
            f.md_op = Some(u64::from(w >> 12 & 3));
            f.rd = rdv(rd);
            f.rs1 = Some(rs1 as u64);
            f.rs2 = Some(rs2 as u64);
        }
        Instr::Fence => {}
        Instr::Ecall => f.ecall = true,
        Instr::Ebreak => f.ebreak = true,
        Instr::Csr {
            op,
            rd,
            src,
            csr: n,
        } => {
            let writes = match op {
                CsrOp::Rw | CsrOp::Rwi => true,
                _ => src != 0,
            };
            if writes || !known_csr(n) {
                return Fields {
                    illegal: true,
                    ..Fields::default()
                };
            }
            f.csr = true;
            f.unit = UNIT_ALU;
            f.rd = rdv(rd);
            f.csr_step = Some(match n {
                csr::TID | csr::GTID | csr::LANEID => STEP_LANE,
                csr::STACK_TOP => STEP_STACK,
                _ => STEP_NONE,
            });
        }
        Instr::Simt { op, rs1 } => match op {
            SimtOp::Exit => f.exit = true,
            SimtOp::Bar => f.bar = true,
            SimtOp::Tmc => {
                f.tmc = true;
                f.rs1 = Some(rs1 as u64);
            }
        },
    }
    f
}

struct Ports {
    ids: Vec<(&'static str, warpforge_testbench::PortId)>,
}

const OUTS: &[&str] = &[
    "illegal",
    "is_ecall",
    "is_ebreak",
    "unit",
    "is_load",
    "is_store",
    "is_branch",
    "is_jal",
    "is_jalr",
    "is_csr",
    "is_exit",
    "is_bar",
    "is_tmc",
    "is_control",
    "alu_op",
    "md_op",
    "cmp",
    "imm",
    "rd",
    "rd_valid",
    "rs1",
    "rs1_valid",
    "rs2",
    "rs2_valid",
    "a_pc",
    "a_zero",
    "b_imm",
    "b_four",
    "csr_step",
];

fn check(
    m: &mut warpforge_testbench::LoadedModel,
    word: warpforge_testbench::PortId,
    p: &Ports,
    w: u32,
) {
    m.set(word, w as u64);
    m.eval();
    let g = |n: &str| m.get(p.ids.iter().find(|(k, _)| *k == n).unwrap().1);
    let e = expected(w);
    let ctx = |what: &str, got: u64, exp: u64| {
        format!(
            "word 0x{w:08x} ({}): {what} = {got:#x}, expected {exp:#x}",
            warpforge_isa::disassemble(w, 0)
        )
    };
    let b = |x: bool| x as u64;
    let cmp = |n: &str, exp: u64| {
        let got = g(n);
        assert_eq!(got, exp, "{}", ctx(n, got, exp));
    };
    cmp("illegal", b(e.illegal));
    if e.illegal {
        cmp("unit", UNIT_NONE);
        cmp("rd_valid", 0);
        cmp("rs1_valid", 0);
        cmp("rs2_valid", 0);
        cmp("is_control", 0);
        return;
    }
    cmp("is_ecall", b(e.ecall));
    cmp("is_ebreak", b(e.ebreak));
    cmp("unit", e.unit);
    cmp("is_load", b(e.load));
    cmp("is_store", b(e.store));
    cmp("is_branch", b(e.branch));
    cmp("is_jal", b(e.jal));
    cmp("is_jalr", b(e.jalr));
    cmp("is_csr", b(e.csr));
    cmp("is_exit", b(e.exit));
    cmp("is_bar", b(e.bar));
    cmp("is_tmc", b(e.tmc));
    cmp("is_control", b(e.branch | e.jal | e.jalr | e.exit | e.tmc));
    cmp("rd", e.rd);
    cmp("rd_valid", b(e.rd != 0));
    cmp("rs1_valid", b(e.rs1.is_some()));
    if let Some(r) = e.rs1 {
        cmp("rs1", r);
    }
    cmp("rs2_valid", b(e.rs2.is_some()));
    if let Some(r) = e.rs2 {
        cmp("rs2", r);
    }
    if let Some(v) = e.alu_op {
        cmp("alu_op", v);
    }
    if let Some(v) = e.md_op {
        cmp("md_op", v);
    }
    if let Some(v) = e.cmp {
        cmp("cmp", v);
    }
    if let Some(v) = e.imm {
        cmp("imm", v as u64);
    }
    if let Some(v) = e.csr_step {
        cmp("csr_step", v);
    }
    if e.unit == UNIT_ALU {
        cmp("a_pc", b(e.a_pc));
        cmp("a_zero", b(e.a_zero));
        cmp("b_imm", b(e.b_imm));
        cmp("b_four", b(e.b_four));
    }
}

#[test]
fn decoder_matches_the_isa_decoder() {
    let v = decoder_verilog("decoder_top").expect("generate");
    let warnings = lint("decoder_top", &v);
    assert!(warnings.is_ok(), "lint: {warnings:?}");
    yosys_check("decoder_top", &v).expect("yosys");
    let mut m = build_unit("decoder_top", &v, false).expect("build");
    let word = m.port("word").unwrap();
    let p = Ports {
        ids: OUTS.iter().map(|n| (*n, m.port(n).unwrap())).collect(),
    };
    let mut n = 0;
    for w in test_words() {
        check(&mut m, word, &p, w);
        n += 1;
    }
    eprintln!("decoder: {n} words agree with warpforge_isa::decode");
}

/// Words of every opcode class with random other fields, fully random words, SIMT and CSR
/// encodings, and a few fixed ones (the same list for both decoders).
fn test_words() -> Vec<u32> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut words = Vec::new();
    // Every opcode with random other fields, plus fully random words.
    let opcodes = [
        0x37, 0x17, 0x6f, 0x67, 0x63, 0x03, 0x23, 0x13, 0x33, 0x0f, 0x73, 0x0b,
    ];
    for _ in 0..40_000 {
        let r: u32 = rng.gen();
        let w = match rng.gen_range(0..8) {
            0 => r,
            // Few distinct funct7 values so the legal encodings are common.
            1 | 2 => {
                (r & !0xfe00_007f)
                    | opcodes[rng.gen_range(0..opcodes.len())]
                    | ([0, 0x20, 1][rng.gen_range(0..3)] << 25)
            }
            3 => {
                // SIMT with zero rd/rs2/funct7.
                (r & 0x0000_7000 & !0x3000_0000) | ((rng.gen_range(0..4) as u32) << 15) | 0x0b
            }
            4 => {
                // CSR reads of known and unknown numbers.
                let (n, _) = csr::ALL[rng.gen_range(0..csr::ALL.len())];
                let num = if rng.gen_bool(0.8) { n as u32 } else { r >> 20 };
                (num << 20)
                    | ((rng.gen_range(0..8) as u32) << 12)
                    | (r & 0x000f_8f80 & if rng.gen_bool(0.7) { 0x0000_0f80 } else { !0 })
                    | 0x73
            }
            _ => (r & !0x7f) | opcodes[rng.gen_range(0..opcodes.len())],
        };
        words.push(w);
    }
    words.extend([
        0x0000_0073u32,
        0x0010_0073,
        0x0000_000b,
        0x0000_100b,
        0x0000_200b,
        0x0000_0013,
    ]);
    words
}

/// The per-warp head decoder (`HeadFields`): for every legal word, its sources, destination,
/// barrier, branch and route equal what `warpforge_isa::decode` says (the issue stage takes
/// them instead of the full decode; an illegal word stops the GPU at issue, so its fields are
/// not used).
#[test]
fn head_fields_match_the_isa_decoder() {
    let v = head_fields_verilog("head_fields_top").expect("generate");
    lint("head_fields_top", &v).expect("lint");
    yosys_check("head_fields_top", &v).expect("yosys");
    let mut m = build_unit("head_fields_top", &v, false).expect("build");
    let word = m.port("word").unwrap();
    let issue_bits = m.port("issue_bits").unwrap();
    let names = [
        "rd",
        "rd_valid",
        "rs1",
        "rs1_valid",
        "rs2",
        "rs2_valid",
        "is_bar",
        "is_branch",
        "to_alu",
        "to_mul",
        "to_div",
        "to_lsu",
        "is_control",
    ];
    let ids: Vec<_> = names.iter().map(|n| (*n, m.port(n).unwrap())).collect();
    let mut legal = 0;
    for w in test_words() {
        let e = expected(w);
        if e.illegal {
            continue;
        }
        legal += 1;
        m.set(word, w as u64);
        m.eval();
        let b = |x: bool| x as u64;
        let rd_valid = e.rd != 0;
        let mut want = vec![
            ("rd_valid", b(rd_valid)),
            ("rs1_valid", b(e.rs1.is_some())),
            ("rs2_valid", b(e.rs2.is_some())),
            ("is_bar", b(e.bar)),
            ("is_branch", b(e.branch)),
            ("to_alu", b(e.unit == UNIT_ALU && rd_valid)),
            ("to_mul", b(e.unit == UNIT_MUL && rd_valid)),
            ("to_div", b(e.unit == UNIT_DIV && rd_valid)),
            ("to_lsu", b(e.unit == UNIT_LSU)),
            ("is_control", b(e.branch | e.jal | e.jalr | e.exit | e.tmc)),
        ];
        if rd_valid {
            want.push(("rd", e.rd));
        }
        if let Some(r) = e.rs1 {
            want.push(("rs1", r));
        }
        if let Some(r) = e.rs2 {
            want.push(("rs2", r));
        }
        for (n, exp) in want {
            let got = m.get(ids.iter().find(|(k, _)| *k == n).unwrap().1);
            assert_eq!(
                got,
                exp,
                "word 0x{w:08x} ({}): head field {n} = {got:#x}, expected {exp:#x}",
                warpforge_isa::disassemble(w, 0)
            );
        }
        // The stored form: each flag at its place in HEAD_PACKED_ORDER.
        let bits = m.get(issue_bits);
        for (i, n) in HEAD_PACKED_ORDER.iter().enumerate() {
            let flag = m.get(ids.iter().find(|(k, _)| k == n).unwrap().1);
            assert_eq!(
                bits >> i & 1,
                flag,
                "word 0x{w:08x}: issue_bits bit {i} ({n})"
            );
        }
    }
    // A never-written instruction-memory word reads 0: its stored fields must be word 0's.
    m.set(word, 0);
    m.eval();
    assert_eq!(m.get(issue_bits), 0, "word 0 packs to 0");
    assert!(legal > 10_000, "only {legal} legal words");
    eprintln!("head fields: {legal} legal words agree with warpforge_isa::decode");
}
