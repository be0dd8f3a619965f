//! Disassembly in GNU objdump's style (ABI register names).

use crate::*;

/// Disassemble one instruction word located at `pc` (branch targets are shown absolute).
pub fn disassemble(word: u32, pc: u32) -> String {
    match decode(word) {
        Ok(i) => format_instr(&i, pc),
        Err(_) => format!(".word 0x{word:08x}"),
    }
}

fn format_instr(_i: &Instr, _pc: u32) -> String {
    todo!("disassembler")
}
