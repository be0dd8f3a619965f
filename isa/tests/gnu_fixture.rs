//! Cross-check against the GNU toolchain, without needing it at test time.
//!
//! `fixtures/all.S` (every instruction, written by hand) was assembled by GNU as and
//! disassembled by `objdump -d -M no-aliases,numeric`; `fixtures/regen.sh` writes the result to
//! `fixtures/all.expected` (`address word objdump-text` per line), which is checked in. For
//! every line this test
//!
//! 1. parses objdump's text into an [`Instr`] (its own parser, sharing nothing with the crate),
//!    and requires `decode(word)` to be exactly that and `encode` to give the word back;
//! 2. requires [`disassemble`] to say the same as objdump once our pseudo-instructions are
//!    expanded and names are made numeric.
//!
//! objdump prints the SIMT words as `.4byte`; for those the fields come from the
//! `.insn r 0x0B, F3, F7, RD, RS1, RS2` lines of `all.S`, in order.

mod common;

use common::any_reg;
use warpforge_isa::*;

const EXPECTED: &str = include_str!("fixtures/all.expected");
const SOURCE: &str = include_str!("fixtures/all.S");

struct Line<'a> {
    addr: u32,
    word: u32,
    /// objdump's text, its `# ...` comment removed.
    text: &'a str,
}

fn lines() -> Vec<Line<'static>> {
    EXPECTED
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut it = l.splitn(3, ' ');
            let addr = u32::from_str_radix(it.next().unwrap(), 16).unwrap();
            let word = u32::from_str_radix(it.next().unwrap(), 16).unwrap();
            let text = it.next().unwrap_or_else(|| panic!("no text: {l}"));
            let text = text.split(" # ").next().unwrap().trim();
            Line { addr, word, text }
        })
        .collect()
}

fn reg(s: &str) -> Reg {
    let n = s
        .strip_prefix('x')
        .unwrap_or_else(|| panic!("register {s:?}"));
    let n: Reg = n.parse().unwrap();
    assert!(n < 32);
    n
}

/// A decimal or `0x` hex integer, possibly negative.
fn int(s: &str) -> i64 {
    let (neg, s) = match s.strip_prefix('-') {
        Some(s) => (true, s),
        None => (false, s),
    };
    let v = match s.strip_prefix("0x") {
        Some(h) => i64::from_str_radix(h, 16),
        None => s.parse(),
    }
    .unwrap_or_else(|e| panic!("integer {s:?}: {e}"));
    if neg {
        -v
    } else {
        v
    }
}

/// `imm(xN)`.
fn mem(s: &str) -> (i32, Reg) {
    let (imm, r) = s
        .strip_suffix(')')
        .and_then(|s| s.split_once('('))
        .expect(s);
    (int(imm) as i32, reg(r))
}

/// objdump's branch/jump target `7c <label+0x4>`: absolute, hex without `0x`.
fn target(s: &str, addr: u32) -> i32 {
    let t = s.split(' ').next().unwrap();
    u32::from_str_radix(t, 16).unwrap().wrapping_sub(addr) as i32
}

fn csr_num(s: &str) -> u16 {
    match s {
        "cycle" => 0xc00,
        "instret" => 0xc02,
        "cycleh" => 0xc80,
        "instreth" => 0xc82,
        _ => {
            let v = int(s);
            assert!(s.starts_with("0x") && (0..0x1000).contains(&v), "CSR {s:?}");
            v as u16
        }
    }
}

/// objdump's fence set: letters of `iorw`, bits 3..0.
fn fence_set(s: &str) -> u32 {
    s.chars()
        .map(|c| match c {
            'i' => 8,
            'o' => 4,
            'r' => 2,
            'w' => 1,
            _ => panic!("fence set {s:?}"),
        })
        .sum()
}

/// The instruction objdump's no-aliases, numeric text describes.
fn parse_objdump(text: &str, addr: u32, word: u32) -> Instr {
    use Instr::*;
    let (mn, ops) = text.split_once(' ').unwrap_or((text, ""));
    let o: Vec<&str> = if ops.is_empty() {
        vec![]
    } else {
        ops.split(',').collect()
    };
    let n = |k: usize| assert_eq!(o.len(), k, "{text}: operand count");
    let branch = |op| {
        n(3);
        Branch {
            op,
            rs1: reg(o[0]),
            rs2: reg(o[1]),
            imm: target(o[2], addr),
        }
    };
    let load = |op| {
        n(2);
        let (imm, rs1) = mem(o[1]);
        Load {
            op,
            rd: reg(o[0]),
            rs1,
            imm,
        }
    };
    let store = |op| {
        n(2);
        let (imm, rs1) = mem(o[1]);
        Store {
            op,
            rs1,
            rs2: reg(o[0]),
            imm,
        }
    };
    let op_imm = |op| {
        n(3);
        OpImm {
            op,
            rd: reg(o[0]),
            rs1: reg(o[1]),
            imm: int(o[2]) as i32,
        }
    };
    let op_reg = |op| {
        n(3);
        Op {
            op,
            rd: reg(o[0]),
            rs1: reg(o[1]),
            rs2: reg(o[2]),
        }
    };
    let muldiv = |op| {
        n(3);
        MulDiv {
            op,
            rd: reg(o[0]),
            rs1: reg(o[1]),
            rs2: reg(o[2]),
        }
    };
    let csr_r = |op| {
        n(3);
        Csr {
            op,
            rd: reg(o[0]),
            src: reg(o[2]),
            csr: csr_num(o[1]),
        }
    };
    let csr_i = |op| {
        n(3);
        let imm = int(o[2]);
        assert!((0..32).contains(&imm), "{text}");
        Csr {
            op,
            rd: reg(o[0]),
            src: imm as u8,
            csr: csr_num(o[1]),
        }
    };
    match mn {
        "lui" | "auipc" => {
            n(2);
            let up = int(o[1]);
            assert!(
                o[1].starts_with("0x") && (0..1 << 20).contains(&up),
                "{text}"
            );
            let imm = (up << 12) as u32 as i32;
            let rd = reg(o[0]);
            if mn == "lui" {
                Lui { rd, imm }
            } else {
                Auipc { rd, imm }
            }
        }
        "jal" => {
            n(2);
            Jal {
                rd: reg(o[0]),
                imm: target(o[1], addr),
            }
        }
        "jalr" => {
            n(2);
            let (imm, rs1) = mem(o[1]);
            Jalr {
                rd: reg(o[0]),
                rs1,
                imm,
            }
        }
        "beq" => branch(BranchOp::Beq),
        "bne" => branch(BranchOp::Bne),
        "blt" => branch(BranchOp::Blt),
        "bge" => branch(BranchOp::Bge),
        "bltu" => branch(BranchOp::Bltu),
        "bgeu" => branch(BranchOp::Bgeu),
        "lb" => load(LoadOp::Lb),
        "lh" => load(LoadOp::Lh),
        "lw" => load(LoadOp::Lw),
        "lbu" => load(LoadOp::Lbu),
        "lhu" => load(LoadOp::Lhu),
        "sb" => store(StoreOp::Sb),
        "sh" => store(StoreOp::Sh),
        "sw" => store(StoreOp::Sw),
        "addi" => op_imm(AluOp::Add),
        "slti" => op_imm(AluOp::Slt),
        "sltiu" => op_imm(AluOp::Sltu),
        "xori" => op_imm(AluOp::Xor),
        "ori" => op_imm(AluOp::Or),
        "andi" => op_imm(AluOp::And),
        "slli" => op_imm(AluOp::Sll),
        "srli" => op_imm(AluOp::Srl),
        "srai" => op_imm(AluOp::Sra),
        "add" => op_reg(AluOp::Add),
        "sub" => op_reg(AluOp::Sub),
        "sll" => op_reg(AluOp::Sll),
        "slt" => op_reg(AluOp::Slt),
        "sltu" => op_reg(AluOp::Sltu),
        "xor" => op_reg(AluOp::Xor),
        "srl" => op_reg(AluOp::Srl),
        "sra" => op_reg(AluOp::Sra),
        "or" => op_reg(AluOp::Or),
        "and" => op_reg(AluOp::And),
        "mul" => muldiv(MulDivOp::Mul),
        "mulh" => muldiv(MulDivOp::Mulh),
        "mulhsu" => muldiv(MulDivOp::Mulhsu),
        "mulhu" => muldiv(MulDivOp::Mulhu),
        "div" => muldiv(MulDivOp::Div),
        "divu" => muldiv(MulDivOp::Divu),
        "rem" => muldiv(MulDivOp::Rem),
        "remu" => muldiv(MulDivOp::Remu),
        "fence" => {
            // decode ignores the fields; check that objdump agrees with the word anyway.
            n(2);
            assert_eq!((word >> 24) & 0xf, fence_set(o[0]), "{text}");
            assert_eq!((word >> 20) & 0xf, fence_set(o[1]), "{text}");
            assert_eq!((word >> 12) & 7, 0, "{text}");
            Fence
        }
        "fence.tso" => {
            n(0);
            assert_eq!(word >> 20, 0x833, "{text}");
            Fence
        }
        "fence.i" => {
            n(0);
            assert_eq!((word >> 12) & 7, 1, "{text}");
            Fence
        }
        "ecall" => {
            n(0);
            Ecall
        }
        "ebreak" => {
            n(0);
            Ebreak
        }
        "csrrw" => csr_r(CsrOp::Rw),
        "csrrs" => csr_r(CsrOp::Rs),
        "csrrc" => csr_r(CsrOp::Rc),
        "csrrwi" => csr_i(CsrOp::Rwi),
        "csrrsi" => csr_i(CsrOp::Rsi),
        "csrrci" => csr_i(CsrOp::Rci),
        _ => panic!("unknown mnemonic in {text:?}"),
    }
}

/// Our disassembly rewritten in objdump's no-aliases, numeric spelling: pseudo-instructions
/// expanded, ABI register names as `xN`, CSR names as hex, branch targets without `0x`.
fn normalize_ours(text: &str) -> String {
    let (mn, ops) = text.split_once(' ').unwrap_or((text, ""));
    let o: Vec<String> = if ops.is_empty() {
        vec![]
    } else {
        ops.split(',').map(str::to_string).collect()
    };
    let (mn, mut o) = match mn {
        "nop" => ("addi", vec!["zero".into(), "zero".into(), "0".into()]),
        "li" => ("addi", vec![o[0].clone(), "zero".into(), o[1].clone()]),
        "mv" => ("addi", vec![o[0].clone(), o[1].clone(), "0".into()]),
        "j" => ("jal", vec!["zero".into(), o[0].clone()]),
        "ret" => ("jalr", vec!["zero".into(), "0(ra)".into()]),
        "csrr" => ("csrrs", vec![o[0].clone(), o[1].clone(), "zero".into()]),
        "fence" if o.is_empty() => ("fence", vec!["iorw".into(), "iorw".into()]),
        _ => (mn, o),
    };
    if mn == "jal" || mn.starts_with('b') {
        let last = o.last_mut().expect(text);
        *last = last.strip_prefix("0x").expect(text).to_string();
    }
    let numeric = |tok: &str| -> String {
        if let Some(r) = common::abi_reg(tok) {
            format!("x{r}")
        } else if let Some((n, _)) = csr::ALL.iter().find(|(_, name)| *name == tok) {
            format!("0x{n:x}")
        } else {
            tok.to_string()
        }
    };
    let ops: Vec<String> = o
        .iter()
        .map(
            |op| match op.strip_suffix(')').and_then(|s| s.split_once('(')) {
                Some((imm, r)) => format!("{imm}({})", numeric(r)),
                None => numeric(op),
            },
        )
        .collect();
    if ops.is_empty() {
        mn.to_string()
    } else {
        format!("{mn} {}", ops.join(","))
    }
}

/// objdump's text with its branch-target labels dropped and standard CSR names as hex.
fn normalize_objdump(text: &str) -> String {
    let text = text.split(" <").next().unwrap();
    let (mn, ops) = text.split_once(' ').unwrap_or((text, ""));
    if ops.is_empty() {
        return mn.to_string();
    }
    let ops: Vec<String> = ops
        .split(',')
        .map(|op| match op {
            "cycle" | "instret" | "cycleh" | "instreth" => format!("0x{:x}", csr_num(op)),
            _ => op.to_string(),
        })
        .collect();
    format!("{mn} {}", ops.join(","))
}

/// `.insn r OPCODE, F3, F7, RD, RS1, RS2` lines of all.S, as (f3, f7, rd, rs1, rs2).
fn simt_sources() -> Vec<(u32, u32, u32, u32, u32)> {
    SOURCE
        .lines()
        .map(|l| l.split("//").next().unwrap().trim())
        .filter_map(|l| l.strip_prefix(".insn"))
        .map(|l| {
            let l = l.trim().strip_prefix("r ").expect("only .insn r is used");
            let f: Vec<&str> = l.split(',').map(str::trim).collect();
            assert_eq!(f.len(), 6, "{l}");
            assert_eq!(int(&f[0].to_lowercase()), OPCODE_SIMT as i64, "{l}");
            let r = |s: &str| any_reg(s).unwrap_or_else(|| panic!("register {s:?}")) as u32;
            (
                int(f[1]) as u32,
                int(f[2]) as u32,
                r(f[3]),
                r(f[4]),
                r(f[5]),
            )
        })
        .collect()
}

/// What docs/isa.md §3.3 says the fields mean.
fn simt_expected(f3: u32, f7: u32, rd: u32, rs1: u32, rs2: u32) -> Option<Instr> {
    if f7 != 0 || rd != 0 || rs2 != 0 {
        return None;
    }
    match (f3, rs1) {
        (0, 0) => Some(Instr::Simt {
            op: SimtOp::Exit,
            rs1: 0,
        }),
        (1, 0) => Some(Instr::Simt {
            op: SimtOp::Bar,
            rs1: 0,
        }),
        (2, r) => Some(Instr::Simt {
            op: SimtOp::Tmc,
            rs1: r as Reg,
        }),
        _ => None,
    }
}

#[test]
fn fixture_matches_decode_encode_and_disassemble() {
    let lines = lines();
    assert!(
        lines.len() > 250,
        "fixture has only {} instructions",
        lines.len()
    );
    let mut simt = simt_sources().into_iter();
    let mut seen = Vec::new();
    let mut simt_lines = 0;
    for Line { addr, word, text } in lines {
        let ctx = format!("{addr:08x} {word:08x} {text}");
        if let Some(raw) = text.strip_prefix(".4byte ") {
            assert_eq!(int(raw) as u32, word, "{ctx}");
            let (f3, f7, rd, rs1, rs2) = simt.next().expect("more .4byte lines than .insn lines");
            let fields = OPCODE_SIMT | rd << 7 | f3 << 12 | rs1 << 15 | rs2 << 20 | f7 << 25;
            assert_eq!(
                fields, word,
                "{ctx}: .insn lines of all.S out of step with the fixture"
            );
            simt_lines += 1;
            match simt_expected(f3, f7, rd, rs1, rs2) {
                Some(i) => {
                    assert_eq!(decode(word), Ok(i), "{ctx}");
                    assert_eq!(encode(&i), word, "{ctx}");
                    let want = match i {
                        Instr::Simt {
                            op: SimtOp::Exit, ..
                        } => "wf.exit".to_string(),
                        Instr::Simt {
                            op: SimtOp::Bar, ..
                        } => "wf.bar".to_string(),
                        _ => format!("wf.tmc {}", REG_NAMES[rs1 as usize]),
                    };
                    assert_eq!(disassemble(word, addr), want, "{ctx}");
                    seen.push(i);
                }
                None => {
                    assert_eq!(decode(word), Err(DecodeError(word)), "{ctx}");
                    assert_eq!(
                        disassemble(word, addr),
                        format!(".word 0x{word:08x}"),
                        "{ctx}"
                    );
                }
            }
            continue;
        }
        let want = parse_objdump(text, addr, word);
        assert_eq!(decode(word), Ok(want), "{ctx}");
        if want != Instr::Fence {
            assert_eq!(encode(&want), word, "{ctx}");
        }
        let ours = disassemble(word, addr);
        assert_eq!(
            normalize_ours(&ours),
            normalize_objdump(text),
            "{ctx}: we print {ours:?}"
        );
        seen.push(want);
    }
    assert!(
        simt.next().is_none(),
        "more .insn lines in all.S than .4byte lines in the fixture"
    );
    assert!(simt_lines >= 3);
    common::assert_all_kinds(&seen);
}

#[test]
fn fixture_is_in_step_with_source() {
    // A cheap staleness check: every mnemonic written in all.S appears in the fixture.
    let fixture: std::collections::BTreeSet<&str> = lines()
        .iter()
        .map(|l| l.text.split(' ').next().unwrap())
        .collect();
    for l in SOURCE.lines() {
        let l = l.split("//").next().unwrap().trim();
        let Some(mn) = l.split_whitespace().next() else {
            continue;
        };
        if mn.starts_with('.') || mn.ends_with(':') {
            continue;
        }
        assert!(
            fixture.contains(mn),
            "{mn} is in all.S but not in all.expected: run regen.sh"
        );
    }
}
