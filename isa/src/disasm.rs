//! Disassembly in GNU objdump's style (ABI register names).
//!
//! Operands are separated by `,` without spaces, as objdump prints them. Branch and jump targets
//! are absolute (`pc + imm`) in hex, `lui`/`auipc` show the upper immediate (`imm >> 12`) in hex,
//! shift amounts are hex and all other immediates decimal; CSRs are shown by name when
//! [`csr::name`] knows them, else in hex.
//!
//! A fixed, small set of objdump's pseudo-instructions is used, always when it applies:
//!
//! | printed | for |
//! |---|---|
//! | `nop` | `addi zero,zero,0` |
//! | `li rd,imm` | `addi rd,zero,imm` |
//! | `mv rd,rs` | `addi rd,rs,0` |
//! | `j target` | `jal zero,target` |
//! | `ret` | `jalr zero,0(ra)` |
//! | `csrr rd,csr` | `csrrs rd,csr,zero` |
//! | `fence` | `fence iorw,iorw` |
//!
//! Everything else (including branches against `zero`, `rdcycle`, `neg`, ...) is printed in its
//! base form. Words that do not decode are printed as `.word 0x........`.

use crate::*;

/// Disassemble one instruction word located at `pc` (branch targets are shown absolute).
pub fn disassemble(word: u32, pc: u32) -> String {
    match decode(word) {
        Ok(i) => format_instr(&i, word, pc),
        Err(_) => format!(".word 0x{word:08x}"),
    }
}

fn reg(r: Reg) -> &'static str {
    REG_NAMES[r as usize & 31]
}

fn csr_name(csr: u16) -> String {
    match csr::name(csr) {
        Some(n) => n.to_string(),
        None => format!("0x{csr:x}"),
    }
}

fn branch_name(op: BranchOp) -> &'static str {
    match op {
        BranchOp::Beq => "beq",
        BranchOp::Bne => "bne",
        BranchOp::Blt => "blt",
        BranchOp::Bge => "bge",
        BranchOp::Bltu => "bltu",
        BranchOp::Bgeu => "bgeu",
    }
}

fn load_name(op: LoadOp) -> &'static str {
    match op {
        LoadOp::Lb => "lb",
        LoadOp::Lh => "lh",
        LoadOp::Lw => "lw",
        LoadOp::Lbu => "lbu",
        LoadOp::Lhu => "lhu",
    }
}

fn store_name(op: StoreOp) -> &'static str {
    match op {
        StoreOp::Sb => "sb",
        StoreOp::Sh => "sh",
        StoreOp::Sw => "sw",
    }
}

fn alu_name(op: AluOp) -> &'static str {
    match op {
        AluOp::Add => "add",
        AluOp::Sub => "sub",
        AluOp::Sll => "sll",
        AluOp::Slt => "slt",
        AluOp::Sltu => "sltu",
        AluOp::Xor => "xor",
        AluOp::Srl => "srl",
        AluOp::Sra => "sra",
        AluOp::Or => "or",
        AluOp::And => "and",
    }
}

/// Immediate form (`OpImm`); there is no `subi`.
fn alu_imm_name(op: AluOp) -> &'static str {
    match op {
        AluOp::Add => "addi",
        AluOp::Sub => "subi",
        AluOp::Sll => "slli",
        AluOp::Slt => "slti",
        AluOp::Sltu => "sltiu",
        AluOp::Xor => "xori",
        AluOp::Srl => "srli",
        AluOp::Sra => "srai",
        AluOp::Or => "ori",
        AluOp::And => "andi",
    }
}

fn muldiv_name(op: MulDivOp) -> &'static str {
    match op {
        MulDivOp::Mul => "mul",
        MulDivOp::Mulh => "mulh",
        MulDivOp::Mulhsu => "mulhsu",
        MulDivOp::Mulhu => "mulhu",
        MulDivOp::Div => "div",
        MulDivOp::Divu => "divu",
        MulDivOp::Rem => "rem",
        MulDivOp::Remu => "remu",
    }
}

fn csr_op_name(op: CsrOp) -> &'static str {
    match op {
        CsrOp::Rw => "csrrw",
        CsrOp::Rs => "csrrs",
        CsrOp::Rc => "csrrc",
        CsrOp::Rwi => "csrrwi",
        CsrOp::Rsi => "csrrsi",
        CsrOp::Rci => "csrrci",
    }
}

/// `fence` operands: the predecessor / successor sets of the word (`Instr::Fence` keeps no
/// fields), in objdump's spelling.
fn fence_text(word: u32) -> String {
    fn set(bits: u32) -> String {
        if bits & 0xf == 0 {
            return "0".to_string();
        }
        "iorw"
            .chars()
            .enumerate()
            .filter(|&(k, _)| bits & (8 >> k) != 0)
            .map(|(_, c)| c)
            .collect()
    }
    let (pred, succ) = ((word >> 24) & 0xf, (word >> 20) & 0xf);
    if (word >> 12) & 7 == 1 {
        "fence.i".to_string()
    } else if word >> 28 == 0x8 && pred == 0x3 && succ == 0x3 {
        "fence.tso".to_string()
    } else if pred == 0xf && succ == 0xf {
        "fence".to_string()
    } else {
        format!("fence {},{}", set(pred), set(succ))
    }
}

fn format_instr(i: &Instr, word: u32, pc: u32) -> String {
    let target = |imm: i32| pc.wrapping_add(imm as u32);
    match *i {
        Instr::Lui { rd, imm } => format!("lui {},0x{:x}", reg(rd), imm as u32 >> 12),
        Instr::Auipc { rd, imm } => format!("auipc {},0x{:x}", reg(rd), imm as u32 >> 12),
        Instr::Jal { rd: 0, imm } => format!("j 0x{:x}", target(imm)),
        Instr::Jal { rd, imm } => format!("jal {},0x{:x}", reg(rd), target(imm)),
        Instr::Jalr {
            rd: 0,
            rs1: reg::RA,
            imm: 0,
        } => "ret".to_string(),
        Instr::Jalr { rd, rs1, imm } => format!("jalr {},{}({})", reg(rd), imm, reg(rs1)),
        Instr::Branch { op, rs1, rs2, imm } => {
            format!(
                "{} {},{},0x{:x}",
                branch_name(op),
                reg(rs1),
                reg(rs2),
                target(imm)
            )
        }
        Instr::Load { op, rd, rs1, imm } => {
            format!("{} {},{}({})", load_name(op), reg(rd), imm, reg(rs1))
        }
        Instr::Store { op, rs1, rs2, imm } => {
            format!("{} {},{}({})", store_name(op), reg(rs2), imm, reg(rs1))
        }
        Instr::OpImm {
            op: AluOp::Add,
            rd: 0,
            rs1: 0,
            imm: 0,
        } => "nop".to_string(),
        Instr::OpImm {
            op: AluOp::Add,
            rd,
            rs1: 0,
            imm,
        } => format!("li {},{}", reg(rd), imm),
        Instr::OpImm {
            op: AluOp::Add,
            rd,
            rs1,
            imm: 0,
        } => format!("mv {},{}", reg(rd), reg(rs1)),
        Instr::OpImm {
            op: op @ (AluOp::Sll | AluOp::Srl | AluOp::Sra),
            rd,
            rs1,
            imm,
        } => {
            format!("{} {},{},0x{:x}", alu_imm_name(op), reg(rd), reg(rs1), imm)
        }
        Instr::OpImm { op, rd, rs1, imm } => {
            format!("{} {},{},{}", alu_imm_name(op), reg(rd), reg(rs1), imm)
        }
        Instr::Op { op, rd, rs1, rs2 } => {
            format!("{} {},{},{}", alu_name(op), reg(rd), reg(rs1), reg(rs2))
        }
        Instr::MulDiv { op, rd, rs1, rs2 } => {
            format!("{} {},{},{}", muldiv_name(op), reg(rd), reg(rs1), reg(rs2))
        }
        Instr::Fence => fence_text(word),
        Instr::Ecall => "ecall".to_string(),
        Instr::Ebreak => "ebreak".to_string(),
        Instr::Csr {
            op: CsrOp::Rs,
            rd,
            src: 0,
            csr,
        } => {
            format!("csrr {},{}", reg(rd), csr_name(csr))
        }
        Instr::Csr {
            op: op @ (CsrOp::Rw | CsrOp::Rs | CsrOp::Rc),
            rd,
            src,
            csr,
        } => {
            format!(
                "{} {},{},{}",
                csr_op_name(op),
                reg(rd),
                csr_name(csr),
                reg(src)
            )
        }
        Instr::Csr { op, rd, src, csr } => {
            format!("{} {},{},{}", csr_op_name(op), reg(rd), csr_name(csr), src)
        }
        Instr::Simt {
            op: SimtOp::Exit, ..
        } => "wf.exit".to_string(),
        Instr::Simt {
            op: SimtOp::Bar, ..
        } => "wf.bar".to_string(),
        Instr::Simt {
            op: SimtOp::Tmc,
            rs1,
        } => format!("wf.tmc {}", reg(rs1)),
    }
}

#[cfg(test)]
mod tests {
    use super::disassemble;

    /// (pc, word, text). Words from GNU as; the texts follow objdump's default output
    /// (`riscv64-unknown-elf-objdump -d`) except where the module doc says otherwise.
    const CASES: &[(u32, u32, &str)] = &[
        // U-type
        (0, 0x123457b7, "lui a5,0x12345"),
        (0, 0xffffffb7, "lui t6,0xfffff"),
        (0, 0x80000037, "lui zero,0x80000"),
        (0, 0x00000097, "auipc ra,0x0"),
        (0, 0xabcde197, "auipc gp,0xabcde"),
        // jal / jalr
        (0x14, 0x100000ef, "jal ra,0x114"),
        (0x18, 0xffdff06f, "j 0x14"),
        (0x1c, 0x8000006f, "j 0xfff0001c"),
        (0x20, 0x7ffff56f, "jal a0,0x10001e"),
        (0x24, 0x801ff0ef, "jal ra,0xfffff824"),
        (0x0, 0x8000006f, "j 0xfff00000"),
        (0x0, 0x00008067, "ret"),
        (0x0, 0x00008167, "jalr sp,0(ra)"),
        (0x0, 0x00048067, "jalr zero,0(s1)"),
        (0x0, 0x800780e7, "jalr ra,-2048(a5)"),
        (0x0, 0x7ff302e7, "jalr t0,2047(t1)"),
        // branches
        (0x3c, 0x04b50063, "beq a0,a1,0x7c"),
        (0x40, 0xfeb50ce3, "beq a0,a1,0x38"),
        (0x44, 0x7e941fe3, "bne s0,s1,0x1042"),
        (0x48, 0x8062c063, "blt t0,t1,0xfffff048"),
        (0x4c, 0x000650e3, "bge a2,zero,0x84c"),
        (0x50, 0xfed06fe3, "bltu zero,a3,0x4e"),
        (0x54, 0x01eff063, "bgeu t6,t5,0x54"),
        // loads / stores
        (0, 0xfff58503, "lb a0,-1(a1)"),
        (0, 0x80011283, "lh t0,-2048(sp)"),
        (0, 0x00812783, "lw a5,8(sp)"),
        (0, 0x7ff1c483, "lbu s1,2047(gp)"),
        (0, 0x002f5f83, "lhu t6,2(t5)"),
        (0, 0xfea58fa3, "sb a0,-1(a1)"),
        (0, 0x7e511fa3, "sh t0,2047(sp)"),
        (0, 0x00f72023, "sw a5,0(a4)"),
        (0, 0x80112023, "sw ra,-2048(sp)"),
        // register-immediate
        (0, 0x00000013, "nop"),
        (0, 0x00150513, "addi a0,a0,1"),
        (0, 0x00500513, "li a0,5"),
        (0, 0x80000593, "li a1,-2048"),
        (0, 0x00000513, "li a0,0"),
        (0, 0x00060593, "mv a1,a2"),
        (0, 0x00010413, "mv s0,sp"),
        (0, 0xff010113, "addi sp,sp,-16"),
        (0, 0xfff32293, "slti t0,t1,-1"),
        (0, 0x7ff6b613, "sltiu a2,a3,2047"),
        (0, 0x8007c713, "xori a4,a5,-2048"),
        (0, 0x5554e413, "ori s0,s1,1365"),
        (0, 0xf00f7f93, "andi t6,t5,-256"),
        (0, 0x01f51513, "slli a0,a0,0x1f"),
        (0, 0x00165593, "srli a1,a2,0x1"),
        (0, 0x4075d513, "srai a0,a1,0x7"),
        (0, 0x41fede13, "srai t3,t4,0x1f"),
        // register-register
        (0, 0x00c58533, "add a0,a1,a2"),
        (0, 0x41498933, "sub s2,s3,s4"),
        (0, 0x007312b3, "sll t0,t1,t2"),
        (0, 0x00f726b3, "slt a3,a4,a5"),
        (0, 0x01f03fb3, "sltu t6,zero,t6"),
        (0, 0x003140b3, "xor ra,sp,gp"),
        (0, 0x01ff5eb3, "srl t4,t5,t6"),
        (0, 0x4128d833, "sra a6,a7,s2"),
        (0, 0x015a69b3, "or s3,s4,s5"),
        (0, 0x018bfb33, "and s6,s7,s8"),
        // M
        (0, 0x02c58533, "mul a0,a1,a2"),
        (0, 0x02f716b3, "mulh a3,a4,a5"),
        (0, 0x0328a833, "mulhsu a6,a7,s2"),
        (0, 0x027332b3, "mulhu t0,t1,t2"),
        (0, 0x02a4c433, "div s0,s1,a0"),
        (0, 0x03df5fb3, "divu t6,t5,t4"),
        (0, 0x02b06533, "rem a0,zero,a1"),
        (0, 0x03eefe33, "remu t3,t4,t5"),
        // fences and system
        (0, 0x0ff0000f, "fence"),
        (0, 0x0210000f, "fence r,w"),
        (0, 0x0840000f, "fence i,o"),
        (0, 0x0330000f, "fence rw,rw"),
        (0, 0x8330000f, "fence.tso"),
        (0, 0x0000100f, "fence.i"),
        (0, 0x00000073, "ecall"),
        (0, 0x00100073, "ebreak"),
        // Zicsr
        (0, 0xcc059573, "csrrw a0,wf_tid,a1"),
        (0, 0xcc002573, "csrr a0,wf_tid"),
        (0, 0xc00022f3, "csrr t0,cycle"),
        (0, 0xccc02573, "csrr a0,wf_param"),
        (0, 0xcc05a573, "csrrs a0,wf_tid,a1"),
        (0, 0x7c002573, "csrr a0,0x7c0"),
        (0, 0xccd332f3, "csrrc t0,wf_stack_top,t1"),
        (0, 0xcc1fd5f3, "csrrwi a1,wf_ctaid,31"),
        (0, 0xc000e073, "csrrsi zero,cycle,1"),
        (0, 0xfff87ff3, "csrrci t6,0xfff,16"),
        // SIMT
        (0, 0x0000000b, "wf.exit"),
        (0, 0x0000100b, "wf.bar"),
        (0, 0x0005200b, "wf.tmc a0"),
        (0, 0x000fa00b, "wf.tmc t6"),
        // undecodable
        (0, 0x00000000, ".word 0x00000000"),
        (0, 0xffffffff, ".word 0xffffffff"),
        (0, 0x00004505, ".word 0x00004505"),
        (0, 0x02051513, ".word 0x02051513"),
        (0, 0x0005000b, ".word 0x0005000b"),
        (0, 0x0000300b, ".word 0x0000300b"),
    ];

    #[test]
    fn objdump_style() {
        for &(pc, word, text) in CASES {
            assert_eq!(
                disassemble(word, pc),
                text,
                "word 0x{word:08x} at pc 0x{pc:x}"
            );
        }
    }

    #[test]
    fn every_decodable_word_has_a_real_mnemonic() {
        // Sweep the opcode/funct3/funct7 space with a few register patterns: whatever decodes
        // must not print as `.word`, and nothing may panic.
        for op in (0..128u32).filter(|o| o & 3 == 3) {
            for f3 in 0..8u32 {
                for f7 in [0u32, 1, 0x20, 0x7f] {
                    for regs in [0u32, 0x000a_5a80, 0x01ff_ff80] {
                        let w = op | f3 << 12 | f7 << 25 | regs;
                        let text = disassemble(w, 0x1000);
                        assert_eq!(
                            text.starts_with(".word"),
                            crate::decode(w).is_err(),
                            "0x{w:08x}: {text}"
                        );
                    }
                }
            }
        }
    }
}
