//! Execution of one warp-instruction: the semantics of docs/isa.md §3–§4 for the active lanes.

use warpforge_config::GpuConfig;
use warpforge_isa::{
    csr, decode, memmap, reg, CsrOp, Instr, LoadOp, Reconvergence, SimtOp, StoreOp,
};
use warpforge_loader::KernelImage;

use crate::alu::{alu, branch_taken, muldiv};
use crate::commit::{Commit, Fault, FaultCause, StoreRecord, MAX_LANES};
use crate::memory::{read_le, write_le, GlobalMemory};
use crate::simt_stack::RPC_NONE;
use crate::sm::Warp;
use crate::stats::Stats;

/// Instruction memory, decoded once.
pub struct Program {
    words: Vec<u32>,
    decoded: Vec<Option<Instr>>,
    sidecar: Vec<Reconvergence>,
}

impl Program {
    pub fn new(image: &KernelImage) -> Self {
        Program {
            words: image.text.clone(),
            decoded: image.text.iter().map(|&w| decode(w).ok()).collect(),
            sidecar: image.sidecar.clone(),
        }
    }

    pub fn reconvergence(&self, pc: u32) -> Reconvergence {
        self.sidecar
            .get((pc / 4) as usize)
            .copied()
            .unwrap_or_default()
    }
}

/// What the warp does after the instruction, for the SM's bookkeeping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    None,
    /// The warp arrived at a CTA barrier.
    Barrier,
    /// The warp's last threads exited.
    Finished,
}

/// Per-instruction values that come from outside the warp.
pub struct Context<'a> {
    pub cfg: &'a GpuConfig,
    pub sm: u32,
    pub warp: u32,
    pub cycle: u64,
    pub cta_id: u32,
    pub ntid: u32,
    pub nctaid: u32,
    pub param: u32,
    /// Added to the warp's `instret` (low word, wrapping; [`crate::Gpu::set_instret_base`]).
    pub instret_base: u32,
}

/// Where a data address goes.
enum Target {
    Global(usize),
    Shared(usize),
}

#[inline]
fn resolve(addr: u32, size: u32, gmem: &GlobalMemory, smem_len: usize) -> Option<Target> {
    if let Some(off) = gmem.offset(addr, size) {
        return Some(Target::Global(off));
    }
    let off = addr.wrapping_sub(memmap::SMEM_BASE) as usize;
    (addr >= memmap::SMEM_BASE && off + size as usize <= smem_len).then_some(Target::Shared(off))
}

#[inline]
fn lanes_of(mask: u32) -> impl Iterator<Item = usize> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}

/// Execute the next instruction of `warp` (top of its SIMT stack), filling `c`.
/// On a fault `c.fault` is set and nothing else changed.
pub fn execute(
    ctx: &Context,
    prog: &Program,
    warp: &mut Warp,
    smem: &mut [u8],
    gmem: &mut GlobalMemory,
    c: &mut Commit,
    stats: &mut Stats,
) -> Event {
    let lanes = ctx.cfg.lanes as usize;
    let top = *warp.stack.top().expect("a ready warp has a stack entry");
    let (pc, mask) = (top.pc, top.mask);
    c.pc = pc;
    c.mask = mask;
    c.dest = None;
    c.store = None;
    c.fault = None;
    c.instr = 0;
    let first_lane = mask.trailing_zeros() as usize;
    let fault = |c: &mut Commit, cause: FaultCause, lane: Option<usize>, addr: Option<u32>| {
        c.fault = Some(Fault {
            sm: ctx.sm,
            warp: ctx.warp,
            pc,
            cause,
            lane: lane.map(|l| l as u32),
            addr,
        });
        Event::None
    };

    let idx = (pc / 4) as usize;
    if idx >= prog.words.len() {
        return fault(c, FaultCause::OutOfRangeFetch, None, Some(pc));
    }
    c.instr = prog.words[idx];
    let Some(instr) = prog.decoded[idx] else {
        return fault(c, FaultCause::IllegalInstruction, None, None);
    };

    let regs = &mut warp.regs;
    let rd_of = |r: u8, lane: usize| regs_index(r, lane, lanes);
    let mut next = pc.wrapping_add(4);

    macro_rules! write_lanes {
        ($rd:expr, $m:expr, |$lane:ident| $val:expr) => {{
            let rd = $rd;
            if rd != 0 {
                c.dest = Some(rd);
                for $lane in lanes_of($m) {
                    let v = $val;
                    c.values[$lane] = v;
                    regs[rd_of(rd, $lane)] = v;
                }
            }
        }};
    }

    match instr {
        Instr::Lui { rd, imm } => write_lanes!(rd, mask, |_l| imm as u32),
        Instr::Auipc { rd, imm } => {
            let v = pc.wrapping_add(imm as u32);
            write_lanes!(rd, mask, |_l| v)
        }
        Instr::Jal { rd, imm } => {
            let target = pc.wrapping_add(imm as u32);
            if target % 4 != 0 {
                return fault(c, FaultCause::MisalignedFetch, None, Some(target));
            }
            write_lanes!(rd, mask, |_l| pc.wrapping_add(4));
            next = target;
        }
        Instr::Jalr { rd, rs1, imm } => {
            let target_of = |l: usize| regs[rd_of(rs1, l)].wrapping_add(imm as u32) & !1;
            let target = target_of(first_lane);
            let group = lanes_of(mask)
                .filter(|&l| target_of(l) == target)
                .fold(0u32, |m, l| m | 1 << l);
            if target % 4 != 0 {
                return fault(
                    c,
                    FaultCause::MisalignedFetch,
                    Some(first_lane),
                    Some(target),
                );
            }
            if group != mask {
                if rd == 0 {
                    let lane = lanes_of(mask).find(|&l| target_of(l) != target);
                    return fault(c, FaultCause::DivergentJump, lane, None);
                }
                // Divergent indirect call: the lowest lane's group goes now, the rest re-executes
                // this jalr later; all reconverge after the call (docs/isa.md §4).
                let ret = pc.wrapping_add(4);
                if warp
                    .stack
                    .split(ret, (pc, mask & !group), (target, group))
                    .is_err()
                {
                    return fault(c, FaultCause::SimtStackOverflow, None, None);
                }
                stats.divergent_calls += 1;
                c.mask = group;
                write_lanes!(rd, group, |_l| ret);
                warp.stack.settle();
                return Event::None;
            }
            write_lanes!(rd, mask, |_l| pc.wrapping_add(4));
            next = target;
        }
        Instr::Branch { op, rs1, rs2, imm } => {
            let taken = lanes_of(mask)
                .filter(|&l| branch_taken(op, regs[rd_of(rs1, l)], regs[rd_of(rs2, l)]))
                .fold(0u32, |m, l| m | 1 << l);
            let target = pc.wrapping_add(imm as u32);
            if taken != 0 && target % 4 != 0 {
                return fault(c, FaultCause::MisalignedFetch, None, Some(target));
            }
            if taken == mask {
                next = target;
            } else if taken != 0 {
                let rpc = match prog.reconvergence(pc) {
                    Reconvergence::At(r) => r,
                    Reconvergence::AtReturn => regs[rd_of(reg::RA, first_lane)],
                    Reconvergence::Never => RPC_NONE,
                    Reconvergence::None => {
                        return fault(c, FaultCause::UnknownReconvergence, None, None)
                    }
                };
                let not_taken = mask & !taken;
                let nt = (pc.wrapping_add(4), not_taken);
                let tk = (target, taken);
                // The larger side is pushed first so the smaller executes first; on a tie the
                // taken side executes first.
                let (first, second) = if taken.count_ones() > not_taken.count_ones() {
                    (tk, nt)
                } else {
                    (nt, tk)
                };
                if warp.stack.split(rpc, first, second).is_err() {
                    return fault(c, FaultCause::SimtStackOverflow, None, None);
                }
                stats.divergent_branches += 1;
                warp.stack.settle();
                return Event::None;
            }
        }
        Instr::Load { op, rd, rs1, imm } => {
            let (size, signed) = match op {
                LoadOp::Lb => (1, true),
                LoadOp::Lh => (2, true),
                LoadOp::Lw => (4, false),
                LoadOp::Lbu => (1, false),
                LoadOp::Lhu => (2, false),
            };
            let mut vals = [0u32; MAX_LANES];
            for l in lanes_of(mask) {
                let addr = regs[rd_of(rs1, l)].wrapping_add(imm as u32);
                if !addr.is_multiple_of(size) {
                    return fault(c, FaultCause::MisalignedLoad, Some(l), Some(addr));
                }
                let raw = match resolve(addr, size, gmem, smem.len()) {
                    Some(Target::Global(off)) => read_le(gmem.bytes(), off, size),
                    Some(Target::Shared(off)) => read_le(smem, off, size),
                    None => return fault(c, FaultCause::OutOfRangeLoad, Some(l), Some(addr)),
                };
                vals[l] = match (size, signed) {
                    (1, true) => raw as u8 as i8 as i32 as u32,
                    (2, true) => raw as u16 as i16 as i32 as u32,
                    _ => raw,
                };
            }
            stats.loads += 1;
            write_lanes!(rd, mask, |l| vals[l]);
        }
        Instr::Store { op, rs1, rs2, imm } => {
            let size = match op {
                StoreOp::Sb => 1,
                StoreOp::Sh => 2,
                StoreOp::Sw => 4,
            };
            let mut rec = StoreRecord {
                size: size as u8,
                mask,
                addr: [0; MAX_LANES],
                data: [0; MAX_LANES],
            };
            let mut targets = [0usize; MAX_LANES];
            let mut shared = 0u32;
            for l in lanes_of(mask) {
                let addr = regs[rd_of(rs1, l)].wrapping_add(imm as u32);
                if !addr.is_multiple_of(size) {
                    return fault(c, FaultCause::MisalignedStore, Some(l), Some(addr));
                }
                targets[l] = match resolve(addr, size, gmem, smem.len()) {
                    Some(Target::Global(off)) => off,
                    Some(Target::Shared(off)) => {
                        shared |= 1 << l;
                        off
                    }
                    None => return fault(c, FaultCause::OutOfRangeStore, Some(l), Some(addr)),
                };
                rec.addr[l] = addr;
                let v = regs[rd_of(rs2, l)];
                rec.data[l] = if size == 4 {
                    v
                } else {
                    v & ((1 << (8 * size)) - 1)
                };
            }
            // Lanes write in increasing order: for one address the highest lane's data stays.
            for l in lanes_of(mask) {
                if shared >> l & 1 != 0 {
                    write_le(smem, targets[l], size, rec.data[l]);
                } else {
                    write_le(gmem.bytes_mut(), targets[l], size, rec.data[l]);
                }
            }
            stats.stores += 1;
            c.store = Some(rec);
        }
        Instr::OpImm { op, rd, rs1, imm } => {
            write_lanes!(rd, mask, |l| alu(op, regs[rd_of(rs1, l)], imm as u32))
        }
        Instr::Op { op, rd, rs1, rs2 } => {
            write_lanes!(rd, mask, |l| alu(
                op,
                regs[rd_of(rs1, l)],
                regs[rd_of(rs2, l)]
            ))
        }
        Instr::MulDiv { op, rd, rs1, rs2 } => {
            write_lanes!(rd, mask, |l| muldiv(
                op,
                regs[rd_of(rs1, l)],
                regs[rd_of(rs2, l)]
            ))
        }
        Instr::Fence => {}
        Instr::Ecall => return fault(c, FaultCause::Ecall, None, None),
        Instr::Ebreak => return fault(c, FaultCause::Breakpoint, None, None),
        Instr::Csr { op, rd, src, csr } => {
            let writes = match op {
                CsrOp::Rw | CsrOp::Rwi => true,
                CsrOp::Rs | CsrOp::Rc | CsrOp::Rsi | CsrOp::Rci => src != 0,
            };
            if writes {
                return fault(c, FaultCause::IllegalInstruction, None, None);
            }
            let cfg = ctx.cfg;
            let warp_base_tid = warp.warp_in_cta * cfg.lanes;
            let value = |l: usize| -> Option<u32> {
                let l32 = l as u32;
                let tid = warp_base_tid + l32;
                Some(match csr {
                    csr::CYCLE => ctx.cycle as u32,
                    csr::CYCLEH => (ctx.cycle >> 32) as u32,
                    csr::INSTRET => (warp.instret as u32).wrapping_add(ctx.instret_base),
                    csr::INSTRETH => (warp.instret >> 32) as u32,
                    csr::TID => tid,
                    csr::CTAID => ctx.cta_id,
                    csr::NTID => ctx.ntid,
                    csr::NCTAID => ctx.nctaid,
                    csr::GTID => ctx.cta_id.wrapping_mul(ctx.ntid).wrapping_add(tid),
                    csr::LANEID => l32,
                    csr::WARPID => ctx.warp,
                    csr::SMID => ctx.sm,
                    csr::NLANES => cfg.lanes,
                    csr::NWARPS => cfg.warps,
                    csr::NSMS => cfg.sms,
                    csr::TMASK => mask,
                    csr::PARAM => ctx.param,
                    csr::STACK_TOP => memmap::stack_top(
                        cfg.gmem_bytes,
                        cfg.stack_bytes,
                        (ctx.sm * cfg.warps + ctx.warp) * cfg.lanes + l32,
                    ),
                    _ => return None,
                })
            };
            if value(first_lane).is_none() {
                return fault(c, FaultCause::IllegalInstruction, None, None);
            }
            let mut vals = [0u32; MAX_LANES];
            for l in lanes_of(mask) {
                vals[l] = value(l).unwrap_or(0);
            }
            write_lanes!(rd, mask, |l| vals[l]);
        }
        Instr::Simt { op, rs1 } => match op {
            SimtOp::Exit => {
                warp.live &= !mask;
                warp.stack.exit(mask);
                warp.stack.settle();
                return if warp.stack.is_empty() {
                    Event::Finished
                } else {
                    Event::None
                };
            }
            SimtOp::Bar => {
                warp.stack.set_pc(next);
                warp.stack.settle();
                return Event::Barrier;
            }
            SimtOp::Tmc => {
                // Active threads whose bit is clear terminate, exactly as by wf.exit.
                let keep = regs[rd_of(rs1, first_lane)] & mask;
                let ending = mask & !keep;
                warp.live &= !ending;
                warp.stack.exit(ending);
                if keep == 0 {
                    warp.stack.settle();
                    return if warp.stack.is_empty() {
                        Event::Finished
                    } else {
                        Event::None
                    };
                }
            }
        },
    }
    warp.stack.set_pc(next);
    warp.stack.settle();
    Event::None
}

#[inline]
fn regs_index(r: u8, lane: usize, lanes: usize) -> usize {
    r as usize * lanes + lane
}
