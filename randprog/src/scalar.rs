//! One thread alone: a plain RV32IM interpreter with no SIMT stack, no warps and no scheduling.
//! It is deliberately independent of the golden model (`sim/`): for programs whose threads do
//! not communicate, every thread's effect on memory must equal what this computes.

use warpforge_isa::{
    csr, decode, memmap, AluOp, BranchOp, CsrOp, Instr, LoadOp, MulDivOp, SimtOp, StoreOp,
};

/// Identity of the thread, as its CSRs report it.
#[derive(Clone, Copy, Debug)]
pub struct ThreadIds {
    pub tid: u32,
    pub ctaid: u32,
    pub ntid: u32,
    pub lanes: u32,
    pub param: u32,
}

/// Why a scalar run stopped early.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScalarError {
    #[error("pc 0x{0:08x}: not an instruction this interpreter runs")]
    Unsupported(u32),
    #[error("pc 0x{pc:08x}: access to 0x{addr:08x} outside memory or misaligned")]
    Memory { pc: u32, addr: u32 },
    #[error("no exit after {0} instructions")]
    TooLong(u64),
}

/// Run every thread of `p` (CTA by CTA, thread by thread, each CTA with zeroed shared memory)
/// on `gmem`, the global memory the program starts from, with parameter block `param`. For the
/// generator's programs, whose threads do not communicate, the result is what any correct GPU
/// leaves in global memory.
pub fn run_program(
    p: &crate::Program,
    lanes: u32,
    param: u32,
    gmem: &mut [u8],
    max_steps: u64,
) -> Result<(), ScalarError> {
    for cta in 0..p.grid {
        let mut smem = vec![0u8; p.shared_bytes as usize];
        for tid in 0..p.block {
            let ids = ThreadIds {
                tid,
                ctaid: cta,
                ntid: p.block,
                lanes,
                param,
            };
            run_thread(&p.words, p.entry, ids, gmem, &mut smem, max_steps)?;
        }
    }
    Ok(())
}

/// Run one thread from `entry` until `wf.exit`. `gmem` is global memory from `GMEM_BASE`,
/// `smem` the shared memory of the thread's CTA.
pub fn run_thread(
    words: &[u32],
    entry: u32,
    ids: ThreadIds,
    gmem: &mut [u8],
    smem: &mut [u8],
    max_steps: u64,
) -> Result<u64, ScalarError> {
    let mut x = [0u32; 32];
    let mut pc = entry;
    for step in 0..max_steps {
        let w = *words
            .get((pc / 4) as usize)
            .ok_or(ScalarError::Unsupported(pc))?;
        let i = decode(w).map_err(|_| ScalarError::Unsupported(pc))?;
        let mut next = pc.wrapping_add(4);
        let set = |x: &mut [u32; 32], r: u8, v: u32| {
            if r != 0 {
                x[r as usize] = v;
            }
        };
        match i {
            Instr::Lui { rd, imm } => set(&mut x, rd, imm as u32),
            Instr::Auipc { rd, imm } => set(&mut x, rd, pc.wrapping_add(imm as u32)),
            Instr::Jal { rd, imm } => {
                set(&mut x, rd, next);
                next = pc.wrapping_add(imm as u32);
            }
            Instr::Jalr { rd, rs1, imm } => {
                let t = x[rs1 as usize].wrapping_add(imm as u32) & !1;
                set(&mut x, rd, next);
                next = t;
            }
            Instr::Branch { op, rs1, rs2, imm } => {
                let (a, b) = (x[rs1 as usize], x[rs2 as usize]);
                let taken = match op {
                    BranchOp::Beq => a == b,
                    BranchOp::Bne => a != b,
                    BranchOp::Blt => (a as i32) < (b as i32),
                    BranchOp::Bge => (a as i32) >= (b as i32),
                    BranchOp::Bltu => a < b,
                    BranchOp::Bgeu => a >= b,
                };
                if taken {
                    next = pc.wrapping_add(imm as u32);
                }
            }
            Instr::Load { op, rd, rs1, imm } => {
                let addr = x[rs1 as usize].wrapping_add(imm as u32);
                let size = match op {
                    LoadOp::Lb | LoadOp::Lbu => 1,
                    LoadOp::Lh | LoadOp::Lhu => 2,
                    LoadOp::Lw => 4,
                };
                let bytes =
                    slice(gmem, smem, addr, size).ok_or(ScalarError::Memory { pc, addr })?;
                let mut buf = [0u8; 4];
                buf[..size].copy_from_slice(bytes);
                let raw = u32::from_le_bytes(buf);
                let v = match op {
                    LoadOp::Lb => raw as i8 as i32 as u32,
                    LoadOp::Lh => raw as i16 as i32 as u32,
                    _ => raw,
                };
                set(&mut x, rd, v);
            }
            Instr::Store { op, rs1, rs2, imm } => {
                let addr = x[rs1 as usize].wrapping_add(imm as u32);
                let size = match op {
                    StoreOp::Sb => 1,
                    StoreOp::Sh => 2,
                    StoreOp::Sw => 4,
                };
                let v = x[rs2 as usize].to_le_bytes();
                let bytes =
                    slice(gmem, smem, addr, size).ok_or(ScalarError::Memory { pc, addr })?;
                bytes.copy_from_slice(&v[..size]);
            }
            Instr::OpImm { op, rd, rs1, imm } => {
                let v = alu(op, x[rs1 as usize], imm as u32);
                set(&mut x, rd, v)
            }
            Instr::Op { op, rd, rs1, rs2 } => {
                let v = alu(op, x[rs1 as usize], x[rs2 as usize]);
                set(&mut x, rd, v)
            }
            Instr::MulDiv { op, rd, rs1, rs2 } => {
                let (a, b) = (x[rs1 as usize], x[rs2 as usize]);
                let v = match op {
                    MulDivOp::Mul => (a as u64 * b as u64) as u32,
                    MulDivOp::Mulh => ((a as i32 as i128 * b as i32 as i128) >> 32) as u32,
                    MulDivOp::Mulhsu => ((a as i32 as i128 * b as i128) >> 32) as u32,
                    MulDivOp::Mulhu => ((a as u128 * b as u128) >> 32) as u32,
                    MulDivOp::Div if b == 0 => 0xffff_ffff,
                    MulDivOp::Div if a == 0x8000_0000 && b == 0xffff_ffff => a,
                    MulDivOp::Div => ((a as i32) / (b as i32)) as u32,
                    MulDivOp::Divu if b == 0 => 0xffff_ffff,
                    MulDivOp::Divu => a / b,
                    MulDivOp::Rem if b == 0 => a,
                    MulDivOp::Rem if a == 0x8000_0000 && b == 0xffff_ffff => 0,
                    MulDivOp::Rem => ((a as i32) % (b as i32)) as u32,
                    MulDivOp::Remu if b == 0 => a,
                    MulDivOp::Remu => a % b,
                };
                set(&mut x, rd, v);
            }
            Instr::Csr {
                op: CsrOp::Rs,
                rd,
                src: 0,
                csr,
            } => {
                let v = match csr {
                    csr::TID => ids.tid,
                    csr::CTAID => ids.ctaid,
                    csr::NTID => ids.ntid,
                    csr::GTID => ids.ctaid * ids.ntid + ids.tid,
                    csr::LANEID => ids.tid % ids.lanes,
                    csr::PARAM => ids.param,
                    _ => return Err(ScalarError::Unsupported(pc)),
                };
                set(&mut x, rd, v);
            }
            Instr::Simt {
                op: SimtOp::Exit, ..
            } => return Ok(step + 1),
            Instr::Simt {
                op: SimtOp::Bar, ..
            }
            | Instr::Fence => {}
            _ => return Err(ScalarError::Unsupported(pc)),
        }
        pc = next;
    }
    Err(ScalarError::TooLong(max_steps))
}

fn alu(op: AluOp, a: u32, b: u32) -> u32 {
    let sh = b % 32;
    match op {
        AluOp::Add => a.wrapping_add(b),
        AluOp::Sub => a.wrapping_sub(b),
        AluOp::Sll => a.wrapping_shl(sh),
        AluOp::Slt => u32::from((a as i32) < (b as i32)),
        AluOp::Sltu => u32::from(a < b),
        AluOp::Xor => a ^ b,
        AluOp::Srl => a.wrapping_shr(sh),
        AluOp::Sra => (a as i32).wrapping_shr(sh) as u32,
        AluOp::Or => a | b,
        AluOp::And => a & b,
    }
}

fn slice<'a>(
    gmem: &'a mut [u8],
    smem: &'a mut [u8],
    addr: u32,
    size: usize,
) -> Option<&'a mut [u8]> {
    if !addr.is_multiple_of(size as u32) {
        return None;
    }
    let (mem, off) = if addr >= memmap::GMEM_BASE {
        (gmem, (addr - memmap::GMEM_BASE) as usize)
    } else if addr >= memmap::SMEM_BASE {
        (smem, (addr - memmap::SMEM_BASE) as usize)
    } else {
        return None;
    };
    mem.get_mut(off..off + size)
}
