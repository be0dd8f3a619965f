//! What the model reports for every executed warp-instruction, and what a fault is.
//! The RTL's trace port carries the same fields; the co-simulation compares them.

use std::fmt;

/// Largest warp the records hold (configuration `lanes` ≤ 32).
pub const MAX_LANES: usize = 32;

/// One warp-instruction as executed by the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Commit {
    pub sm: u32,
    pub warp: u32,
    pub pc: u32,
    /// The instruction word (0 when the fetch itself faulted).
    pub instr: u32,
    /// Lanes that executed the instruction (bit i = lane i).
    pub mask: u32,
    /// Register written, if any (never x0).
    pub dest: Option<u8>,
    /// Value written to `dest` by each lane in `mask`.
    pub values: [u32; MAX_LANES],
    /// Store performed by the instruction.
    pub store: Option<StoreRecord>,
    /// Fault raised by the instruction (it then had no effect).
    pub fault: Option<Fault>,
}

impl Commit {
    pub(crate) fn new(sm: u32, warp: u32, pc: u32) -> Self {
        Commit {
            sm,
            warp,
            pc,
            instr: 0,
            mask: 0,
            dest: None,
            values: [0; MAX_LANES],
            store: None,
            fault: None,
        }
    }
}

/// A store of one warp-instruction: per lane address and data (data already truncated to the
/// access size), for the lanes in `mask`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreRecord {
    /// Access size in bytes: 1, 2 or 4.
    pub size: u8,
    pub mask: u32,
    pub addr: [u32; MAX_LANES],
    pub data: [u32; MAX_LANES],
}

pub use warpforge_isa::FaultCause;

/// A fault: SM, warp, PC and cause, plus the faulting lane and address where there is one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    pub sm: u32,
    pub warp: u32,
    pub pc: u32,
    pub cause: FaultCause,
    /// Lowest faulting lane, for per-lane causes.
    pub lane: Option<u32>,
    /// Faulting data or target address.
    pub addr: Option<u32>,
}

/// The hint of a `divergent-jump` at a `ret` (see [`Fault::hint`]).
pub const RECURSION_HINT: &str = "the active threads return to different addresses: threads at \
     different depths of a recursion met at this ret, because the threads of the warp disagree \
     about a recursive call (e.g. a recursion depth that depends on the thread). Recursion \
     reconverges only when every active thread makes the same calls: see docs/isa.md §4.1";

impl Fault {
    /// What usually causes this fault and where the rule is documented, for reports to users;
    /// `instr` is the faulting instruction word, if there is one. `divergent-jump` at a `ret`
    /// gets [`RECURSION_HINT`]; other faults have none.
    pub fn hint(&self, instr: Option<u32>) -> Option<&'static str> {
        let at_ret = instr
            .and_then(|w| warpforge_isa::decode(w).ok())
            .is_some_and(|i| i.is_return());
        (self.cause == FaultCause::DivergentJump && at_ret).then_some(RECURSION_HINT)
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "fault on SM {}, warp {}, pc 0x{:08x}: {}",
            self.sm, self.warp, self.pc, self.cause
        )?;
        if let Some(a) = self.addr {
            write!(f, " (address 0x{a:08x})")?;
        }
        if let Some(l) = self.lane {
            write!(f, " in lane {l}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divergent_jump_at_a_ret_hints_at_recursion() {
        let fault = |cause| Fault {
            sm: 0,
            warp: 0,
            pc: 0x40,
            cause,
            lane: Some(1),
            addr: None,
        };
        const RET: u32 = 0x0000_8067; // jalr x0, 0(ra)
        const JR_A5: u32 = 0x0007_8067; // jalr x0, 0(a5)
        let hint = fault(FaultCause::DivergentJump).hint(Some(RET)).unwrap();
        assert!(hint.contains("recursion") && hint.contains("docs/isa.md §4.1"));
        assert_eq!(fault(FaultCause::DivergentJump).hint(Some(JR_A5)), None);
        assert_eq!(fault(FaultCause::DivergentJump).hint(None), None);
        assert_eq!(fault(FaultCause::MisalignedLoad).hint(Some(RET)), None);
    }
}
