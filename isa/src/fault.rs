//! Fault causes (docs/isa.md §8) and their codes on the top level's `fault_cause` port
//! (docs/microarch/sm.md). The RTL, the golden model and the testbench all take the codes from
//! here.

use std::fmt;

/// The top level's `fault_lane` when the cause names no lane (docs/isa.md §8: "none"); a
/// cause with no address reports `fault_addr` 0. The checker holds the RTL to both.
pub const NO_LANE: u32 = 0xff;

/// Why a kernel stopped abnormally. The discriminant is the code the RTL reports (0 means no
/// fault).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum FaultCause {
    IllegalInstruction = 1,
    MisalignedFetch = 2,
    OutOfRangeFetch = 3,
    MisalignedLoad = 4,
    MisalignedStore = 5,
    OutOfRangeLoad = 6,
    OutOfRangeStore = 7,
    SimtStackOverflow = 8,
    DivergentJump = 9,
    UnknownReconvergence = 10,
    Ecall = 11,
    Breakpoint = 12,
}

impl FaultCause {
    /// Every cause, in code order.
    pub const ALL: [FaultCause; 12] = [
        FaultCause::IllegalInstruction,
        FaultCause::MisalignedFetch,
        FaultCause::OutOfRangeFetch,
        FaultCause::MisalignedLoad,
        FaultCause::MisalignedStore,
        FaultCause::OutOfRangeLoad,
        FaultCause::OutOfRangeStore,
        FaultCause::SimtStackOverflow,
        FaultCause::DivergentJump,
        FaultCause::UnknownReconvergence,
        FaultCause::Ecall,
        FaultCause::Breakpoint,
    ];

    /// Bits of the `fault_cause` port.
    pub const CODE_BITS: u32 = 4;

    /// The `fault_cause` code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The cause of a `fault_cause` code (`None` for 0 and codes above 12).
    pub fn from_code(code: u32) -> Option<FaultCause> {
        Self::ALL
            .iter()
            .copied()
            .find(|c| u32::from(c.code()) == code)
    }

    pub fn name(self) -> &'static str {
        match self {
            FaultCause::IllegalInstruction => "illegal-instruction",
            FaultCause::MisalignedFetch => "misaligned-fetch",
            FaultCause::OutOfRangeFetch => "out-of-range-fetch",
            FaultCause::MisalignedLoad => "misaligned-load",
            FaultCause::MisalignedStore => "misaligned-store",
            FaultCause::OutOfRangeLoad => "out-of-range-load",
            FaultCause::OutOfRangeStore => "out-of-range-store",
            FaultCause::SimtStackOverflow => "simt-stack-overflow",
            FaultCause::DivergentJump => "divergent-jump",
            FaultCause::UnknownReconvergence => "unknown-reconvergence",
            FaultCause::Ecall => "ecall",
            FaultCause::Breakpoint => "breakpoint",
        }
    }
}

impl fmt::Display for FaultCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_one_to_twelve_in_order_and_round_trip() {
        for (i, c) in FaultCause::ALL.iter().enumerate() {
            assert_eq!(usize::from(c.code()), i + 1, "{c}");
            assert_eq!(FaultCause::from_code(u32::from(c.code())), Some(*c));
            assert!(u32::from(c.code()) < 1 << FaultCause::CODE_BITS);
        }
        assert_eq!(FaultCause::from_code(0), None);
        assert_eq!(FaultCause::from_code(13), None);
    }
}
