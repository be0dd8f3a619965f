//! CSR numbers. Every warpforge CSR is read-only and lives in the user read-only space
//! (0xC00–0xCFF): a write (`csrrw`, `csrrwi`, or `csrrs`/`csrrc`/`csrrsi`/`csrrci` with a non-zero
//! source) or an unknown number is an illegal-instruction fault. Values are per lane.

/// Cycles of this SM since reset (low / high word).
pub const CYCLE: u16 = 0xC00;
pub const CYCLEH: u16 = 0xC80;
/// Warp-instructions this warp has issued since its CTA started (low / high word).
pub const INSTRET: u16 = 0xC02;
pub const INSTRETH: u16 = 0xC82;
/// Thread index within the CTA.
pub const TID: u16 = 0xCC0;
/// CTA index within the grid.
pub const CTAID: u16 = 0xCC1;
/// Threads per CTA (block size).
pub const NTID: u16 = 0xCC2;
/// CTAs in the grid (grid size).
pub const NCTAID: u16 = 0xCC3;
/// Global thread index, `ctaid * ntid + tid`.
pub const GTID: u16 = 0xCC4;
/// Lane of this thread within its warp.
pub const LANEID: u16 = 0xCC5;
/// Hardware warp slot of this warp within its SM.
pub const WARPID: u16 = 0xCC6;
/// Index of this SM.
pub const SMID: u16 = 0xCC7;
/// Lanes per warp.
pub const NLANES: u16 = 0xCC8;
/// Warp slots per SM.
pub const NWARPS: u16 = 0xCC9;
/// SMs in the GPU.
pub const NSMS: u16 = 0xCCA;
/// The warp's active mask (bit i = lane i) at this instruction.
pub const TMASK: u16 = 0xCCB;
/// Address of the kernel parameter buffer.
pub const PARAM: u16 = 0xCCC;
/// Initial stack pointer of this thread (top of its stack, exclusive).
pub const STACK_TOP: u16 = 0xCCD;

/// Every CSR with its assembler name, in number order.
pub const ALL: &[(u16, &str)] = &[
    (CYCLE, "cycle"),
    (INSTRET, "instret"),
    (CYCLEH, "cycleh"),
    (INSTRETH, "instreth"),
    (TID, "wf_tid"),
    (CTAID, "wf_ctaid"),
    (NTID, "wf_ntid"),
    (NCTAID, "wf_nctaid"),
    (GTID, "wf_gtid"),
    (LANEID, "wf_laneid"),
    (WARPID, "wf_warpid"),
    (SMID, "wf_smid"),
    (NLANES, "wf_nlanes"),
    (NWARPS, "wf_nwarps"),
    (NSMS, "wf_nsms"),
    (TMASK, "wf_tmask"),
    (PARAM, "wf_param"),
    (STACK_TOP, "wf_stack_top"),
];

/// Assembler name of a CSR number, if it is one of ours.
pub fn name(csr: u16) -> Option<&'static str> {
    ALL.iter().find(|(n, _)| *n == csr).map(|(_, s)| *s)
}
