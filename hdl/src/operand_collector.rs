//! Operand collector (book §3.3.1, Figs 3.15 and 3.17) in front of the banked
//! [`RegisterFile`].
//!
//! The unit holds `collectors` = C collector units (CUs). An instruction enters through the
//! *issue* port into a free CU, the CU reads its source registers from the register-file banks
//! through per-bank arbiters, and once every source is collected the instruction leaves
//! through the *dispatch* port with its operands and its opaque payload. Results come back
//! through the *writeback* port, which owns its bank for the cycle ([`WritePort::Shared`]) or
//! writes it through a port of its own ([`WritePort::Dedicated`], the SM's).
//!
//! The exact cycle behaviour is specified in docs/microarch/operand_collector.md; the
//! independent reference model is `warpforge_sim::operand_collector`. In short, for cycle `c`
//! (all decisions are combinational functions of the state at the start of `c` and of the
//! inputs of `c`; state changes at the end of `c`):
//!
//! * **Issue**: `issue_ready` = some CU is free (a CU freed by a dispatch in `c` counts from
//!   `c + 1`). `issue_valid && issue_ready` allocates the *lowest-numbered* free CU. A source
//!   is *pending* when its `needed` flag is set and it is not x0; x0 and unneeded sources are 0
//!   without a bank read.
//! * **Requests**: from `c + 1` on, a busy CU requests the bank of its pending sources — with
//!   [`ReadPolicy::InOrder`] only its lowest-numbered pending source (one read per CU per
//!   cycle, as in the book's Fig. 3.17), with [`ReadPolicy::Parallel`] all of them (every
//!   source has its own crossbar port, as in the staging registers of Fig. 3.12/3.14).
//! * **Writeback priority** (`Shared`): a valid writeback to a register other than x0 occupies
//!   its bank in `c`; no read is granted there. With `Dedicated` the writeback is not part of
//!   the arbitration, and a read of the register written in `c` returns its old value
//!   (read-first: the bank RAM's own order).
//! * **Per-bank arbitration**: every other bank grants one request: round-robin over CUs,
//!   starting at the bank's pointer `rr[b]` (the CU after the last one granted by that bank;
//!   0 after reset), and within a CU the lowest-numbered source. `conflict[b]` = some request
//!   to bank `b` was not granted in `c`.
//! * **Read latency**: a source granted in `c` is delivered from the bank in `c + 1`; a CU is
//!   *complete* in the first cycle in which none of its sources is pending, i.e. one cycle after
//!   its last grant (the arriving operand is bypassed straight to the dispatch port), and may
//!   be offered then if it was chosen in `c`.
//! * **Forwarding** (`Shared` only): a pending source of a CU that is busy at the start of `c`
//!   whose register (same warp) is written in `c` by a writeback that writes *every* lane is
//!   collected from the writeback: not pending from `c + 1`, its value the written one (no
//!   bank read; the bank is the writeback's in `c`). With a partial mask it stays pending and is read
//!   from the bank later (the unwritten lanes keep their values there). Per source index only
//!   the lowest-numbered such CU is served (one write port per forward store). This lets the
//!   SM release a fixed-latency result's scoreboard entry one cycle before its writeback; with
//!   `Dedicated` the dependent instruction's read comes after the write cycle anyway, and
//!   forwarding, measured to change no cycle of any shipped kernel, is left out with its RAMs.
//! * **Storage**: collected operands live in distributed RAM, one per (source, bank) plus (with
//!   `Shared`) one per source for forwarded values, addressed by the CU; the dispatch reads them at the
//!   dispatched CU (docs/microarch/operand_collector.md, "Operand storage").
//! * **Dispatch**: one output, its CU chosen at the end of the previous cycle and registered.
//!   The candidates in `c` are the CUs busy now whose sources are all read by the end of `c`
//!   and with no older instruction of their warp in another CU now (per-warp issue order; the
//!   CU offered in `c` counts, whether or not it leaves); round-robin starting at the pointer
//!   `dptr`, which moves past the chosen CU. In `c + 1` the chosen CU is offered unless it was
//!   the one offered and accepted in `c`. A refused instruction (its unit or writeback slot is
//!   taken) does not hold back complete instructions for other units: it is offered again
//!   when the pointer comes back to it. The dispatched CU is free from the next cycle.
//! * **Reset** (synchronous): all CUs free, pointers 0. While `reset` is high the unit does
//!   nothing: no allocation, grant, dispatch or register write; all outputs are 0. (A read
//!   granted in the cycle before reset still lands in its CU's operand RAM in the first reset
//!   cycle; the CU is free by then and nothing reads it.)
//!
//! No WAR hazard: the scoreboard stops RAW and WAW; an operand read into a CU is held there; and
//! because instructions of one warp leave in issue order, a younger instruction that writes a
//! register can only be dispatched, executed and written back after every older instruction of
//! its warp has read all its sources (docs/microarch/operand_collector.md).

use rust_hdl::prelude::*;
use warpforge_config::GpuConfig;

use crate::lut_ram::{addr_bits_for, LutRamArray};
use crate::one_hot::{OneHotMux, RoundRobinPick};
use crate::register_file::{RegisterFile, RfGeometry, BANK_BITS, REG_BITS, WARP_BITS};
use crate::word_mux::WordMux;

/// Width of the opaque payload carried from issue to dispatch.
pub const PAYLOAD_BITS: usize = 16;
/// Width of a collector-unit index (`collectors` ≤ 64).
pub const CU_BITS: usize = 6;
/// Width of a source-operand index (≤ 3 sources).
pub const SRC_BITS: usize = 2;
/// Most source operands an instruction may have (FMA-style `rs3`).
pub const MAX_SOURCES: usize = 3;

/// How many sources a collector unit may read per cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadPolicy {
    /// One source per CU per cycle, lowest-numbered pending source first (book Fig. 3.17,
    /// GPGPU-Sim's operand collector). One B:1 crossbar port per CU.
    InOrder,
    /// Every pending source requests its bank every cycle (one crossbar port per source, the
    /// staging registers of book Figs 3.12 and 3.14).
    Parallel,
}

/// How the writeback reaches a register-file bank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WritePort {
    /// The bank has one port: a writeback takes it for the cycle and no read is granted there
    /// (single-ported SRAM banks, the book's Figs 3.14 and 3.17).
    Shared,
    /// Each bank has a read port and its own write port (distributed RAM on an FPGA): reads
    /// are granted regardless of the writeback, and a read of the register written in the
    /// same cycle returns its old value (read-first). The writeback does not enter the read
    /// arbitration, and nothing is forwarded.
    Dedicated,
}

/// Structural parameters of the unit that are not GPU configuration fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OcShape {
    /// Source operands per instruction, 1..=3 (RV32IM needs 2).
    pub sources: usize,
    pub policy: ReadPolicy,
    pub write_port: WritePort,
}

impl Default for OcShape {
    /// Two sources (RV32IM), one read per CU per cycle, single-ported banks (the book).
    fn default() -> Self {
        OcShape {
            sources: 2,
            policy: ReadPolicy::InOrder,
            write_port: WritePort::Shared,
        }
    }
}

/// The shape the SM uses: `rs1`, `rs2` and `ra` (a branch whose reconvergence point is the
/// return address reads it; docs/isa.md), one read per collector unit per cycle, and a write
/// port per bank, so that the writeback's choice is not in front of every bank's read
/// arbitration (docs/microarch/operand_collector.md, "Write port").
pub const SM_SHAPE: OcShape = OcShape {
    sources: 3,
    policy: ReadPolicy::InOrder,
    write_port: WritePort::Dedicated,
};

/// The operand collector with its register file. Vectors of ports are indexed as documented
/// per field (`L` = lanes, `S` = sources, `B` = banks).
#[derive(LogicBlock)]
pub struct OperandCollector {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset to idle.
    pub reset: Signal<In, bool>,

    // ---- issue port
    pub issue_valid: Signal<In, bool>,
    pub issue_ready: Signal<Out, bool>,
    pub issue_warp: Signal<In, Bits<WARP_BITS>>,
    /// `issue_src[s]`: register number of source `s`.
    pub issue_src: Vec<Signal<In, Bits<REG_BITS>>>,
    /// `issue_need[s]`: the instruction reads source `s`.
    pub issue_need: Vec<Signal<In, bool>>,
    pub issue_payload: Signal<In, Bits<PAYLOAD_BITS>>,

    // ---- writeback port (always accepted; with `Shared`, priority over reads of its bank)
    pub wb_valid: Signal<In, bool>,
    pub wb_warp: Signal<In, Bits<WARP_BITS>>,
    pub wb_rd: Signal<In, Bits<REG_BITS>>,
    /// `wb_mask[l]`: lane `l` is written.
    pub wb_mask: Vec<Signal<In, bool>>,
    /// `wb_data[l]`.
    pub wb_data: Vec<Signal<In, Bits<32>>>,

    // ---- dispatch port
    pub disp_valid: Signal<Out, bool>,
    pub disp_ready: Signal<In, bool>,
    /// The CU being dispatched.
    pub disp_cu: Signal<Out, Bits<CU_BITS>>,
    pub disp_warp: Signal<Out, Bits<WARP_BITS>>,
    pub disp_payload: Signal<Out, Bits<PAYLOAD_BITS>>,
    /// `disp_data[s * L + l]`: lane `l` of source `s` (0 for x0 and unneeded sources).
    pub disp_data: Vec<Signal<Out, Bits<32>>>,

    // ---- per-cycle events (verification and statistics); 0 when not happening
    /// A CU was allocated by the issue port this cycle, and which.
    pub ev_alloc: Signal<Out, bool>,
    pub ev_alloc_cu: Signal<Out, Bits<CU_BITS>>,
    /// Per bank: a read was granted, to which CU and which of its sources.
    pub ev_grant: Vec<Signal<Out, bool>>,
    pub ev_grant_cu: Vec<Signal<Out, Bits<CU_BITS>>>,
    pub ev_grant_src: Vec<Signal<Out, Bits<SRC_BITS>>>,
    /// Per bank: some read request to the bank was denied this cycle.
    pub ev_conflict: Vec<Signal<Out, bool>>,
    /// Per bank: the bank is written by the writeback port this cycle.
    pub ev_write: Vec<Signal<Out, bool>>,

    rf: RegisterFile,
    /// (Registered requests: `InOrder` with `Dedicated`) the writeback, registered: the
    /// register file is written a cycle after the port presents it, so its RAMs' write
    /// enables, addresses and data start from these flip-flops, not from the SM's choice among
    /// its units (docs/microarch/operand_collector.md, "Delayed write"). A read granted in the
    /// cycle of that delayed write (of the register it writes) takes its lanes from `wq2_data`
    /// (`rhit`), so the port's timing is unchanged.
    wq_v: Vec<DFF<bool>>,
    wq_warp: Vec<DFF<Bits<WARP_BITS>>>,
    wq_rd: Vec<DFF<Bits<REG_BITS>>>,
    wq_mask: Vec<DFF<bool>>,
    wq_data: Vec<DFF<Bits<32>>>,
    wq2_data: Vec<DFF<Bits<32>>>,
    /// `[b*L + l]`: bank `b`'s read of the last cycle was of the register written then, and
    /// lane `l` was written.
    rhit: Vec<DFF<bool>>,
    /// `[i]`: CU i's request is of the register the delayed write writes now.
    whit: Vec<Signal<Local, bool>>,
    /// `[b*L + l]`: the bank's read data, with the delayed write's lanes.
    rdata: Vec<Signal<Local, Bits<32>>>,
    /// Operand storage (docs/microarch/operand_collector.md, "Operand storage"): RAM
    /// `s*(B+1) + b` holds, at the CU's index, the lanes of source `s` read from bank `b`; RAM
    /// `s*(B+1) + B` those collected from a writeback. Each RAM has one writer per cycle (its
    /// bank, or the forward of source `s`) and one reader (dispatch), so it is distributed RAM
    /// instead of a flip-flop per operand bit behind a crossbar.
    rams: LutRamArray<32, CU_BITS>,
    /// `[p]`: the lanes of bank `o_pbank[p]` (operands arriving in their dispatch cycle).
    byp_mux: WordMux<32, BANK_BITS>,

    // ---- state: per CU `i`, per source `k = i*S + s`, per operand lane `(i*S + s)*L + l`
    cu_valid: Vec<DFF<bool>>,
    cu_warp: Vec<DFF<Bits<WARP_BITS>>>,
    cu_payload: Vec<DFF<Bits<PAYLOAD_BITS>>>,
    cu_reg: Vec<DFF<Bits<REG_BITS>>>,
    /// Source still to be granted a bank read.
    cu_pend: Vec<DFF<bool>>,
    /// Source collected from a writeback: its value is in the forward RAM of `s`.
    cu_fwd: Vec<DFF<bool>>,
    /// Source dispatched as 0 (x0 or not needed).
    cu_zero: Vec<DFF<bool>>,
    /// Per bank: the read granted in the previous cycle (to CU `g_cu`, source `g_src`), whose
    /// data the bank delivers now and the operand RAM stores at the end of this cycle.
    g_v: Vec<DFF<bool>>,
    g_cu: Vec<DFF<Bits<CU_BITS>>>,
    g_src: Vec<DFF<Bits<SRC_BITS>>>,
    /// `[i*C + j]`: CU j holds an older instruction of CU i's warp (per-warp dispatch order).
    cu_dep: Vec<DFF<bool>>,
    /// Per-bank round-robin pointers as masks: `rr_from[b*C + i]` = CU i is after the last CU
    /// bank b granted (all 0 after reset and after a grant to the last CU: every CU is then
    /// "at or after the pointer" 0, the same choice). A registered mask instead of a pointer
    /// and a compare per CU in front of the arbitration.
    rr_from: Vec<DFF<bool>>,
    /// (InOrder with a dedicated write port) per CU, its request as registers: it has a pending
    /// source (`q_v`), the lowest one's index, bank and register number. The arbitration starts
    /// from these flip-flops instead of finding the lowest pending source and adding the
    /// swizzle in the cycle, and the read address is a `C`:1 choice instead of `C·S`:1. Next
    /// state: the second pending source when this one is granted (precomputed, `sec_*`), the
    /// first needed source on allocation.
    q_v: Vec<DFF<bool>>,
    q_src: Vec<DFF<Bits<SRC_BITS>>>,
    q_bank: Vec<DFF<Bits<BANK_BITS>>>,
    q_reg: Vec<DFF<Bits<REG_BITS>>>,
    sec_v: Vec<Signal<Local, bool>>,
    sec_src: Vec<Signal<Local, Bits<SRC_BITS>>>,
    sec_bank: Vec<Signal<Local, Bits<BANK_BITS>>>,
    sec_reg: Vec<Signal<Local, Bits<REG_BITS>>>,
    /// `[i]`: CU i was granted its request this cycle.
    granted: Vec<Signal<Local, bool>>,
    /// `[i]` (registered requests only): CU i is busy and has no older instruction of its warp
    /// in another CU; `[i]` with no source pending (`e_done`), with one pending, the request
    /// (`e_last`). A candidate for the next offer is `e_done | e_last & granted`, so that only
    /// the grant, not the pending flags, is in front of the dispatch choice.
    e_done: Vec<Signal<Local, bool>>,
    e_last: Vec<Signal<Local, bool>>,
    /// The issued instruction's first needed source (the request of a CU allocated now).
    a_first_v: Vec<Signal<Local, bool>>,
    a_first_src: Vec<Signal<Local, Bits<SRC_BITS>>>,
    a_first_reg: Vec<Signal<Local, Bits<REG_BITS>>>,
    a_first_bank: Vec<Signal<Local, Bits<BANK_BITS>>>,
    /// `[s]`: the bank of the issued instruction's source `s`, computed for every source in
    /// parallel and then chosen, instead of choosing the register and then adding the swizzle
    /// (`tiny`'s placed critical path on ca8d4f7 ended there).
    a_bank: Vec<Signal<Local, Bits<BANK_BITS>>>,
    /// Dispatch round-robin pointer as a mask: `d_from[i]` = CU i is after the one chosen
    /// last (as `rr_from`).
    d_from: Vec<DFF<bool>>,
    /// The offer of this cycle, chosen in the previous one (docs/microarch/operand_collector.md,
    /// rule 6): valid, its CU, warp and payload, and per source `[s]` whether it arrives from
    /// its bank now (granted in the previous cycle), its bank, whether it was forwarded, and
    /// whether it dispatches as 0; `[p]` the bank each crossbar port bypasses. All registers,
    /// so the operand RAMs' read address and every per-bit choice start from flip-flops.
    o_v: DFF<bool>,
    o_cu: DFF<Bits<CU_BITS>>,
    o_warp: DFF<Bits<WARP_BITS>>,
    o_payload: DFF<Bits<PAYLOAD_BITS>>,
    o_arr: Vec<DFF<bool>>,
    o_ob: Vec<DFF<Bits<BANK_BITS>>>,
    o_fw: Vec<DFF<bool>>,
    o_zero: Vec<DFF<bool>>,
    o_pbank: Vec<DFF<Bits<BANK_BITS>>>,

    // ---- combinational
    wb_go: Signal<Local, bool>,
    /// (Shared only, `[0]`) the writeback writes every lane (so it can be forwarded into a
    /// collector unit).
    wb_full: Vec<Signal<Local, bool>>,
    /// Per bank: the writeback writes this bank.
    wbank: Vec<Signal<Local, bool>>,
    wb_bank: Signal<Local, Bits<BANK_BITS>>,
    seen: Vec<Signal<Local, bool>>,
    obank: Vec<Signal<Local, Bits<BANK_BITS>>>,
    req: Vec<Signal<Local, bool>>,
    /// `[b*C + i]`: CU i requests bank b, with source `cusrc`.
    cureq: Vec<Signal<Local, bool>>,
    cusrc: Vec<Signal<Local, Bits<SRC_BITS>>>,
    any_req: Vec<Signal<Local, bool>>,
    two_req: Vec<Signal<Local, bool>>,
    /// Per bank: the round-robin choice among the requesting CUs, `[b*C + i]` (flat logic:
    /// hdl/src/one_hot.rs), and `gmask[b*C + i]`: CU i is granted bank b.
    arb: RoundRobinPick,
    gmask: Vec<Signal<Local, bool>>,
    /// Per bank, by the granted CU: its index (`[b]`), the
    /// source it reads, its warp, the register (`[b*C*S + i*S + s]` selects).
    gm_cu: OneHotMux<CU_BITS>,
    gm_src: OneHotMux<SRC_BITS>,
    gm_warp: OneHotMux<WARP_BITS>,
    gm_reg: OneHotMux<REG_BITS>,
    wblock: Vec<Signal<Local, bool>>,
    bgrant: Vec<Signal<Local, bool>>,
    gcu: Vec<Signal<Local, Bits<CU_BITS>>>,
    gsrc: Vec<Signal<Local, Bits<SRC_BITS>>>,
    gr: Vec<Signal<Local, bool>>,
    /// `[i * S + s]`: source `s` of CU `i` is collected from this cycle's writeback.
    fwd: Vec<Signal<Local, bool>>,
    /// `[i*S + s]`: the forward of source `s` this cycle goes to CU `i` (the lowest-numbered
    /// CU that forwards source `s`: the forward RAM of `s` has one write port).
    f_take: Vec<Signal<Local, bool>>,
    f_seen: Vec<Signal<Local, bool>>,
    /// The bypassed lanes of the offered CU's crossbar ports `[p*L + l]`.
    d_byp: Vec<Signal<Local, Bits<32>>>,
    /// (Requests found in the cycle only) `[i]`: CU i will be complete in the next cycle (busy
    /// now, and no source pending after this cycle's grants and forwards).
    complete: Vec<Signal<Local, bool>>,
    /// (Requests found in the cycle only) `[i*S + s]`: source `s` of CU `i` is still pending
    /// after this cycle.
    stays: Vec<Signal<Local, bool>>,
    /// Complete next cycle and no older instruction of the same warp in another CU now: a
    /// candidate for the next cycle's offer.
    elig: Vec<Signal<Local, bool>>,
    fire_cu: Vec<Signal<Local, bool>>,
    /// The offered CU is still busy (it was not accepted in the previous cycle).
    d_any: Signal<Local, bool>,
    /// The next cycle's offer: some candidate, the first at or after `dptr`, the first overall,
    /// the choice.
    n_any: Signal<Local, bool>,
    /// The next cycle's offer as a one-hot choice (the first candidate at or after `dptr`, else
    /// the first; CU 0 when there is none, whose fields are then loaded but not offered).
    n_pick: RoundRobinPick,
    n_oh: Vec<Signal<Local, bool>>,
    /// By the chosen CU: its index, warp, payload, the
    /// sources' banks (`[s]`), and the crossbar ports' banks (InOrder: `[i*S + s]` selects).
    om_cu: OneHotMux<CU_BITS>,
    om_warp: OneHotMux<WARP_BITS>,
    om_payload: OneHotMux<PAYLOAD_BITS>,
    om_bank: OneHotMux<BANK_BITS>,
    om_pbank: OneHotMux<BANK_BITS>,
    d_fire: Signal<Local, bool>,
    /// `issue_ready` from flip-flops (it is in front of the SM's issue, `i_fire`): after the
    /// edge every CU is busy but for one dispatched now (`cu_full`), a CU was dispatched now
    /// (`fired`). "Full" so that its power-up 0 agrees with the idle unit's.
    cu_full: DFF<bool>,
    fired: DFF<bool>,
    full_n: Signal<Local, bool>,
    a_found: Signal<Local, bool>,
    a_sel: Signal<Local, Bits<CU_BITS>>,
    a_go: Signal<Local, bool>,
    alloc_cu: Vec<Signal<Local, bool>>,

    // ---- constants
    /// (`[0]`, requests found in the cycle only) the Parallel policy.
    k_parallel: Vec<Constant<bool>>,
    /// The writeback takes its bank's port (`WritePort::Shared`).
    k_shared: Constant<bool>,
    bank_mask: Constant<Bits<BANK_BITS>>,
    swizzle_mask: Constant<Bits<BANK_BITS>>,
    reg_zero: Constant<Bits<REG_BITS>>,
    data_zero: Constant<Bits<32>>,
    /// `k_cu[i]` = i.
    k_cu: Vec<Constant<Bits<CU_BITS>>>,
    k_src: Vec<Constant<Bits<SRC_BITS>>>,
    k_bank: Vec<Constant<Bits<BANK_BITS>>>,

    _c: usize,
    _s: usize,
    _l: usize,
    _b: usize,
    /// Flat loop bounds for the bypass multiplexer's ports: `B*L`, `P*L`.
    _bl: usize,
    _pl: usize,
    /// `B + 1` (banks and the forward RAM per source) and `S*(B+1)` (operand RAMs).
    _b1: usize,
    _m: usize,
    /// Crossbar ports per CU (1 InOrder, S Parallel).
    _p: usize,
    /// 1 with Parallel (port index = source index), 0 with InOrder (port 0).
    _ps: usize,
    _inorder: usize,
    _parallel: usize,
    /// 1 with `WritePort::Shared` (forwarding and its RAMs exist), else 0.
    _shared: usize,
    /// 1 when requests are registers (`InOrder` and `Dedicated`: one grant per CU per cycle and
    /// no forwarding, so a CU's next request is its second pending source or itself), else 0;
    /// `_comb` = 1 − `_qreq` (requests found from the pending flags in the cycle).
    _qreq: usize,
    _comb: usize,
}

/// A constant of any width.
fn k<const N: usize>(v: usize) -> Constant<Bits<N>> {
    Constant::new((v as u64).into())
}

fn sigs<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

impl OperandCollector {
    /// The unit for a configuration with the default shape (2 sources, in-order reads).
    pub fn new(cfg: &GpuConfig) -> Self {
        Self::with_shape(cfg, OcShape::default())
    }

    /// # Panics
    /// If `shape.sources` is not 1..=3 (configurations are validated elsewhere).
    pub fn with_shape(cfg: &GpuConfig, shape: OcShape) -> Self {
        let geo = RfGeometry::new(cfg);
        let (c, s, l, b) = (cfg.collectors as usize, shape.sources, geo.lanes, geo.banks);
        assert!(
            (1..=MAX_SOURCES).contains(&s),
            "operand collector: sources must be 1..=3, got {s}"
        );
        let parallel = shape.policy == ReadPolicy::Parallel;
        let p = if parallel { s } else { 1 };
        let shared = shape.write_port == WritePort::Shared;
        // Operand RAMs per source: one per bank, plus the forward RAM with a shared port.
        let b1 = b + usize::from(shared);
        let fw = if shared { c * s } else { 0 };
        let qreq = !parallel && !shared;
        let qc = if qreq { c } else { 0 };
        let q1 = usize::from(qreq);
        OperandCollector {
            clock: Default::default(),
            reset: Default::default(),
            issue_valid: Default::default(),
            issue_ready: Default::default(),
            issue_warp: Default::default(),
            issue_src: sigs(s),
            issue_need: sigs(s),
            issue_payload: Default::default(),
            wb_valid: Default::default(),
            wb_warp: Default::default(),
            wb_rd: Default::default(),
            wb_mask: sigs(l),
            wb_data: sigs(l),
            disp_valid: Default::default(),
            disp_ready: Default::default(),
            disp_cu: Default::default(),
            disp_warp: Default::default(),
            disp_payload: Default::default(),
            disp_data: sigs(s * l),
            ev_alloc: Default::default(),
            ev_alloc_cu: Default::default(),
            ev_grant: sigs(b),
            ev_grant_cu: sigs(b),
            ev_grant_src: sigs(b),
            ev_conflict: sigs(b),
            ev_write: sigs(b),
            rf: RegisterFile::with_geometry(geo),
            wq_v: sigs(q1),
            wq_warp: sigs(q1),
            wq_rd: sigs(q1),
            wq_mask: sigs(q1 * l),
            wq_data: sigs(q1 * l),
            wq2_data: sigs(q1 * l),
            rhit: sigs(q1 * b * l),
            whit: sigs(qc),
            rdata: sigs(b * l),
            rams: LutRamArray::new(s * b1, addr_bits_for(c), l),
            byp_mux: WordMux::new(b, l, p),
            cu_valid: sigs(c),
            cu_warp: sigs(c),
            cu_payload: sigs(c),
            cu_reg: sigs(c * s),
            cu_pend: sigs(c * s),
            cu_fwd: sigs(fw),
            cu_zero: sigs(c * s),
            g_v: sigs(b),
            g_cu: sigs(b),
            g_src: sigs(b),
            cu_dep: sigs(c * c),
            rr_from: sigs(b * c),
            q_v: sigs(qc),
            q_src: sigs(qc),
            q_bank: sigs(qc),
            q_reg: sigs(qc),
            sec_v: sigs(qc),
            sec_src: sigs(qc),
            sec_bank: sigs(qc),
            sec_reg: sigs(qc),
            granted: sigs(qc),
            e_done: sigs(qc),
            e_last: sigs(qc),
            a_first_v: sigs(q1),
            a_first_src: sigs(q1),
            a_first_reg: sigs(q1),
            a_first_bank: sigs(q1),
            a_bank: sigs(q1 * s),
            d_from: sigs(c),
            wb_go: Default::default(),
            wb_full: sigs(usize::from(shared)),
            wbank: sigs(b),
            wb_bank: Default::default(),
            seen: sigs(if qreq { 0 } else { c }),
            obank: sigs(c * s),
            req: sigs(if qreq { 0 } else { c * s }),
            cureq: sigs(b * c),
            cusrc: sigs(b * c),
            any_req: sigs(b),
            two_req: sigs(b),
            arb: RoundRobinPick::groups(b, c),
            gmask: sigs(b * c),
            gm_cu: OneHotMux::groups(b, c, 1),
            gm_src: OneHotMux::groups(b, c, 1),
            gm_warp: OneHotMux::groups(b, c, 1),
            gm_reg: OneHotMux::groups(b, c * s, 1),
            wblock: sigs(b),
            bgrant: sigs(b),
            gcu: sigs(b),
            gsrc: sigs(b),
            gr: sigs(c * s),
            fwd: sigs(fw),
            f_take: sigs(fw),
            f_seen: sigs(if shared { s } else { 0 }),
            o_v: Default::default(),
            o_cu: Default::default(),
            o_warp: Default::default(),
            o_payload: Default::default(),
            o_arr: sigs(s),
            o_ob: sigs(s),
            o_fw: sigs(if shared { s } else { 0 }),
            o_zero: sigs(s),
            o_pbank: sigs(p),
            d_byp: sigs(p * l),
            complete: sigs(if qreq { 0 } else { c }),
            stays: sigs(if qreq { 0 } else { c * s }),
            elig: sigs(c),
            fire_cu: sigs(c),
            d_any: Default::default(),
            n_any: Default::default(),
            n_pick: RoundRobinPick::new(c),
            n_oh: sigs(c),
            om_cu: OneHotMux::new(c, 1),
            om_warp: OneHotMux::new(c, 1),
            om_payload: OneHotMux::new(c, 1),
            om_bank: OneHotMux::new(c, s),
            om_pbank: if parallel {
                OneHotMux::new(c, s)
            } else {
                OneHotMux::new(c * s, 1)
            },
            d_fire: Default::default(),
            cu_full: Default::default(),
            fired: Default::default(),
            full_n: Default::default(),
            a_found: Default::default(),
            a_sel: Default::default(),
            a_go: Default::default(),
            alloc_cu: sigs(c),
            k_parallel: (0..1 - q1).map(|_| Constant::new(parallel)).collect(),
            k_shared: Constant::new(shared),
            bank_mask: k(b - 1),
            swizzle_mask: k(if geo.swizzled {
                (1 << BANK_BITS) - 1
            } else {
                0
            }),
            reg_zero: k(0),
            data_zero: k(0),
            k_cu: (0..c).map(k).collect(),
            k_src: (0..s).map(k).collect(),
            k_bank: (0..b).map(k).collect(),
            _c: c,
            _s: s,
            _l: l,
            _b: b,
            _bl: b * l,
            _pl: p * l,
            _b1: b1,
            _m: s * b1,
            _p: p,
            _ps: usize::from(parallel),
            _inorder: usize::from(!parallel),
            _parallel: usize::from(parallel),
            _shared: usize::from(shared),
            _qreq: q1,
            _comb: 1 - q1,
        }
    }
}

impl Logic for OperandCollector {
    // Index arithmetic inside `[...]` may only use loop variables (rust-hdl evaluates it at
    // Verilog generation time), so the dimensions are bound to single-iteration loops:
    // nc = C, ns = S, nl = L, ps = 0/1. Loops over `0.._inorder` / `0.._parallel`
    // are compile-time conditionals.
    #[hdl_gen]
    fn update(&mut self) {
        for nc in self._c..(self._c + 1) {
            for ns in self._s..(self._s + 1) {
                for nl in self._l..(self._l + 1) {
                    for ps in self._ps..(self._ps + 1) {
                        for nb in self._b..(self._b + 1) {
                            for nb1 in self._b1..(self._b1 + 1) {
                                // ---------------- clocks, register file write port
                                self.rf.clock.next = self.clock.val();
                                self.o_v.clock.next = self.clock.val();
                                self.o_cu.clock.next = self.clock.val();
                                self.o_warp.clock.next = self.clock.val();
                                self.o_payload.clock.next = self.clock.val();
                                for s in 0..self._s {
                                    self.o_arr[s].clock.next = self.clock.val();
                                    self.o_ob[s].clock.next = self.clock.val();
                                    self.o_zero[s].clock.next = self.clock.val();
                                }
                                for _z in 0..self._shared {
                                    for s in 0..self._s {
                                        self.o_fw[s].clock.next = self.clock.val();
                                    }
                                }
                                for p in 0..self._p {
                                    self.o_pbank[p].clock.next = self.clock.val();
                                }
                                for i in 0..self._c {
                                    self.d_from[i].clock.next = self.clock.val();
                                    self.cu_valid[i].clock.next = self.clock.val();
                                    self.cu_warp[i].clock.next = self.clock.val();
                                    self.cu_payload[i].clock.next = self.clock.val();
                                    for j in 0..self._c {
                                        self.cu_dep[i * nc + j].clock.next = self.clock.val();
                                    }
                                    for s in 0..self._s {
                                        self.cu_reg[i * ns + s].clock.next = self.clock.val();
                                        self.cu_pend[i * ns + s].clock.next = self.clock.val();
                                        self.cu_zero[i * ns + s].clock.next = self.clock.val();
                                    }
                                }
                                for _z in 0..self._shared {
                                    for i in 0..self._c {
                                        for s in 0..self._s {
                                            self.cu_fwd[i * ns + s].clock.next = self.clock.val();
                                        }
                                    }
                                }
                                for _z in 0..self._qreq {
                                    for i in 0..self._c {
                                        self.q_v[i].clock.next = self.clock.val();
                                        self.q_src[i].clock.next = self.clock.val();
                                        self.q_bank[i].clock.next = self.clock.val();
                                        self.q_reg[i].clock.next = self.clock.val();
                                    }
                                }
                                self.rams.clock.next = self.clock.val();
                                for b in 0..self._b {
                                    for i in 0..self._c {
                                        self.rr_from[b * nc + i].clock.next = self.clock.val();
                                    }
                                    self.g_v[b].clock.next = self.clock.val();
                                    self.g_cu[b].clock.next = self.clock.val();
                                    self.g_src[b].clock.next = self.clock.val();
                                }
                                for _z in 0..self._comb {
                                    self.rf.write_enable.next =
                                        self.wb_valid.val() && !self.reset.val();
                                    self.rf.write_warp.next = self.wb_warp.val();
                                    self.rf.write_reg.next = self.wb_rd.val();
                                    for l in 0..self._l {
                                        self.rf.write_mask[l].next = self.wb_mask[l].val();
                                        self.rf.write_data[l].next = self.wb_data[l].val();
                                    }
                                }
                                // The delayed write: presented in `c`, written at the end of
                                // `c + 1` (a write from before a reset still lands).
                                for z in 0..self._qreq {
                                    self.wq_v[z].clock.next = self.clock.val();
                                    self.wq_warp[z].clock.next = self.clock.val();
                                    self.wq_rd[z].clock.next = self.clock.val();
                                    self.wq_v[z].d.next = self.wb_valid.val() && !self.reset.val();
                                    self.wq_warp[z].d.next = self.wb_warp.val();
                                    self.wq_rd[z].d.next = self.wb_rd.val();
                                    self.rf.write_enable.next = self.wq_v[z].q.val();
                                    self.rf.write_warp.next = self.wq_warp[z].q.val();
                                    self.rf.write_reg.next = self.wq_rd[z].q.val();
                                    for l in 0..self._l {
                                        self.wq_mask[l].clock.next = self.clock.val();
                                        self.wq_data[l].clock.next = self.clock.val();
                                        self.wq2_data[l].clock.next = self.clock.val();
                                        self.wq_mask[l].d.next = self.wb_mask[l].val();
                                        self.wq_data[l].d.next = self.wb_data[l].val();
                                        self.wq2_data[l].d.next = self.wq_data[l].q.val();
                                        self.rf.write_mask[l].next = self.wq_mask[l].q.val();
                                        self.rf.write_data[l].next = self.wq_data[l].q.val();
                                    }
                                }
                                self.wb_go.next = self.wb_valid.val()
                                    && !self.reset.val()
                                    && (self.wb_rd.val() != self.reg_zero.val());
                                for z in 0..self._shared {
                                    self.wb_full[z].next = true;
                                    for l in 0..self._l {
                                        if !self.wb_mask[l].val() {
                                            self.wb_full[z].next = false;
                                        }
                                    }
                                }
                                self.wb_bank.next = (self.wb_rd.val()
                                    + (self.wb_warp.val().get_bits::<5>(0)
                                        & self.swizzle_mask.val()))
                                    & self.bank_mask.val();

                                // ---------------- requests
                                for i in 0..self._c {
                                    for s in 0..self._s {
                                        self.obank[i * ns + s].next =
                                            (self.cu_reg[i * ns + s].q.val()
                                                + (self.cu_warp[i].q.val().get_bits::<5>(0)
                                                    & self.swizzle_mask.val()))
                                                & self.bank_mask.val();
                                    }
                                }
                                for z in 0..self._comb {
                                    for i in 0..self._c {
                                        self.seen[i].next = false;
                                        for s in 0..self._s {
                                            self.req[i * ns + s].next = self.cu_valid[i].q.val()
                                                && self.cu_pend[i * ns + s].q.val()
                                                && (self.k_parallel[z].val()
                                                    || !self.seen[i].val());
                                            if self.cu_pend[i * ns + s].q.val() {
                                                self.seen[i].next = true;
                                            }
                                        }
                                    }
                                }
                                // The second pending source of each CU (its request after
                                // a grant of the first), from flip-flops.
                                for _z in 0..self._qreq {
                                    for i in 0..self._c {
                                        self.sec_v[i].next = false;
                                        self.sec_src[i].next = self.k_src[0].val();
                                        self.sec_bank[i].next = self.k_bank[0].val();
                                        self.sec_reg[i].next = self.reg_zero.val();
                                        for s in 0..self._s {
                                            if self.cu_pend[i * ns + s].q.val()
                                                && (self.q_src[i].q.val() != self.k_src[s].val())
                                                && !self.sec_v[i].val()
                                            {
                                                self.sec_v[i].next = true;
                                                self.sec_src[i].next = self.k_src[s].val();
                                                self.sec_bank[i].next =
                                                    self.obank[i * ns + s].val();
                                                self.sec_reg[i].next =
                                                    self.cu_reg[i * ns + s].q.val();
                                            }
                                        }
                                    }
                                }
                                for b in 0..self._b {
                                    self.any_req[b].next = false;
                                    self.two_req[b].next = false;
                                    for i in 0..self._c {
                                        self.cureq[b * nc + i].next = false;
                                        self.cusrc[b * nc + i].next = self.k_src[0].val();
                                    }
                                    for _z in 0..self._qreq {
                                        for i in 0..self._c {
                                            if self.q_v[i].q.val()
                                                && (self.q_bank[i].q.val() == self.k_bank[b].val())
                                            {
                                                if self.any_req[b].val() {
                                                    self.two_req[b].next = true;
                                                }
                                                self.any_req[b].next = true;
                                                self.cusrc[b * nc + i].next = self.q_src[i].q.val();
                                                self.cureq[b * nc + i].next = true;
                                            }
                                        }
                                    }
                                    for _z in 0..self._comb {
                                        for i in 0..self._c {
                                            for s in 0..self._s {
                                                if self.req[i * ns + s].val()
                                                    && (self.obank[i * ns + s].val()
                                                        == self.k_bank[b].val())
                                                {
                                                    if self.any_req[b].val() {
                                                        self.two_req[b].next = true;
                                                    }
                                                    self.any_req[b].next = true;
                                                    if !self.cureq[b * nc + i].val() {
                                                        self.cusrc[b * nc + i].next =
                                                            self.k_src[s].val();
                                                    }
                                                    self.cureq[b * nc + i].next = true;
                                                }
                                            }
                                        }
                                    }

                                    // ---------------- per-bank arbitration
                                    self.wbank[b].next = self.wb_go.val()
                                        && (self.wb_bank.val() == self.k_bank[b].val());
                                    self.wblock[b].next =
                                        self.wbank[b].val() && self.k_shared.val();
                                    for i in 0..self._c {
                                        self.arb.req[b * nc + i].next =
                                            self.cureq[b * nc + i].val();
                                        self.arb.from[b * nc + i].next =
                                            self.rr_from[b * nc + i].q.val();
                                    }
                                    self.bgrant[b].next =
                                        self.arb.any[b].val() && !self.wblock[b].val();
                                    for i in 0..self._c {
                                        self.gmask[b * nc + i].next = self.arb.grant[b * nc + i]
                                            .val()
                                            && self.bgrant[b].val();
                                        self.gm_cu.sel[b * nc + i].next =
                                            self.gmask[b * nc + i].val();
                                        self.gm_cu.d[b * nc + i].next = self.k_cu[i].val();
                                        self.gm_src.sel[b * nc + i].next =
                                            self.gmask[b * nc + i].val();
                                        self.gm_src.d[b * nc + i].next =
                                            self.cusrc[b * nc + i].val();
                                        self.gm_warp.sel[b * nc + i].next =
                                            self.gmask[b * nc + i].val();
                                        self.gm_warp.d[b * nc + i].next = self.cu_warp[i].q.val();
                                        for s in 0..self._s {
                                            self.gm_reg.sel[(b * nc + i) * ns + s].next = false;
                                            self.gm_reg.d[(b * nc + i) * ns + s].next =
                                                self.cu_reg[i * ns + s].q.val();
                                        }
                                    }
                                    for _z in 0..self._comb {
                                        for i in 0..self._c {
                                            for s in 0..self._s {
                                                self.gm_reg.sel[(b * nc + i) * ns + s].next =
                                                    self.gmask[b * nc + i].val()
                                                        && (self.cusrc[b * nc + i].val()
                                                            == self.k_src[s].val());
                                            }
                                        }
                                    }
                                    for _z in 0..self._qreq {
                                        for i in 0..self._c {
                                            self.gm_reg.sel[(b * nc + i) * ns].next =
                                                self.gmask[b * nc + i].val();
                                            self.gm_reg.d[(b * nc + i) * ns].next =
                                                self.q_reg[i].q.val();
                                        }
                                    }
                                    // With no grant these are 0 (CU 0, source 0); the read
                                    // port is then disabled and its output holds.
                                    self.gcu[b].next = self.gm_cu.q[b].val();
                                    self.gsrc[b].next = self.gm_src.q[b].val();
                                    self.rf.read_warp[b].next = self.gm_warp.q[b].val();
                                    self.rf.read_reg[b].next = self.gm_reg.q[b].val();
                                    // The pointer moves past the granted CU: CU i is after
                                    // it when a CU below i was granted.
                                    for i in 0..self._c {
                                        self.rr_from[b * nc + i].d.next =
                                            self.rr_from[b * nc + i].q.val();
                                        if self.bgrant[b].val() {
                                            self.rr_from[b * nc + i].d.next = false;
                                            for g in 0..self._c {
                                                if g < i && self.gmask[b * nc + g].val() {
                                                    self.rr_from[b * nc + i].d.next = true;
                                                }
                                            }
                                        }
                                        if self.reset.val() {
                                            self.rr_from[b * nc + i].d.next = false;
                                        }
                                    }
                                    // Reset gates the events and every state update at
                                    // their end (a high-fanout net), not the requests.
                                    self.ev_grant[b].next =
                                        self.bgrant[b].val() && !self.reset.val();
                                    self.ev_grant_cu[b].next = self.gcu[b].val();
                                    self.ev_grant_src[b].next = self.gsrc[b].val();
                                    if self.reset.val() {
                                        self.ev_grant_cu[b].next = self.k_cu[0].val();
                                        self.ev_grant_src[b].next = self.k_src[0].val();
                                    }
                                    self.ev_conflict[b].next = (self.two_req[b].val()
                                        || (self.any_req[b].val() && self.wblock[b].val()))
                                        && !self.reset.val();
                                    self.ev_write[b].next = self.wbank[b].val();
                                }

                                // ---------------- grants per source, crossbar, operand values
                                for i in 0..self._c {
                                    for s in 0..self._s {
                                        self.gr[i * ns + s].next = false;
                                        for b in 0..self._b {
                                            if self.gmask[b * nc + i].val()
                                                && (self.cusrc[b * nc + i].val()
                                                    == self.k_src[s].val())
                                            {
                                                self.gr[i * ns + s].next = true;
                                            }
                                        }
                                    }
                                }
                                for _z in 0..self._qreq {
                                    for i in 0..self._c {
                                        // The CU requests one bank: its request is granted.
                                        self.granted[i].next = false;
                                        for b in 0..self._b {
                                            if self.gmask[b * nc + i].val() {
                                                self.granted[i].next = true;
                                            }
                                        }
                                    }
                                }
                                // The banks' read data; a read of the register the delayed
                                // write wrote in the last cycle (after the RAM read it) takes
                                // the written lanes.
                                for j in 0..self._bl {
                                    self.rdata[j].next = self.rf.read_data[j].val();
                                }
                                for z in 0..self._qreq {
                                    for i in 0..self._c {
                                        self.whit[i].next = self.wq_v[z].q.val()
                                            && (self.cu_warp[i].q.val() == self.wq_warp[z].q.val())
                                            && (self.q_reg[i].q.val() == self.wq_rd[z].q.val());
                                    }
                                    for b in 0..self._b {
                                        for l in 0..self._l {
                                            self.rhit[b * nl + l].clock.next = self.clock.val();
                                            self.rhit[b * nl + l].d.next = false;
                                            for i in 0..self._c {
                                                if self.gmask[b * nc + i].val()
                                                    && self.whit[i].val()
                                                    && self.wq_mask[l].q.val()
                                                {
                                                    self.rhit[b * nl + l].d.next = true;
                                                }
                                            }
                                            if self.rhit[b * nl + l].q.val() {
                                                self.rdata[b * nl + l].next =
                                                    self.wq2_data[l].q.val();
                                            }
                                        }
                                    }
                                }
                                for j in 0..self._bl {
                                    self.byp_mux.d[j].next = self.rdata[j].val();
                                }

                                // ---------------- forwarding (Shared write port only; one
                                // CU per source index)
                                for z in 0..self._shared {
                                    for s in 0..self._s {
                                        self.f_seen[s].next = false;
                                    }
                                    for i in 0..self._c {
                                        for s in 0..self._s {
                                            // A pending source of a busy unit that this
                                            // cycle's full-mask writeback writes is
                                            // collected from it.
                                            self.fwd[i * ns + s].next = self.wb_go.val()
                                                && self.wb_full[z].val()
                                                && self.cu_valid[i].q.val()
                                                && self.cu_pend[i * ns + s].q.val()
                                                && (self.cu_warp[i].q.val() == self.wb_warp.val())
                                                && (self.cu_reg[i * ns + s].q.val()
                                                    == self.wb_rd.val());
                                            self.f_take[i * ns + s].next =
                                                self.fwd[i * ns + s].val() && !self.f_seen[s].val();
                                            if self.fwd[i * ns + s].val() {
                                                self.f_seen[s].next = true;
                                            }
                                        }
                                    }
                                }

                                // ---------------- operand RAM writes
                                for b in 0..self._b {
                                    self.g_v[b].d.next = self.bgrant[b].val() && !self.reset.val();
                                    self.g_cu[b].d.next = self.gcu[b].val();
                                    self.g_src[b].d.next = self.gsrc[b].val();
                                }
                                for s in 0..self._s {
                                    for b in 0..self._b {
                                        // No reset term: `g_v` is cleared by reset, and what a
                                        // free unit's operand RAM holds is never read.
                                        self.rams.we[s * nb1 + b].next = self.g_v[b].q.val()
                                            && (self.g_src[b].q.val() == self.k_src[s].val());
                                        self.rams.waddr[s * nb1 + b].next = self.g_cu[b].q.val();
                                        for l in 0..self._l {
                                            self.rams.wdata[(s * nb1 + b) * nl + l].next =
                                                self.rdata[b * nl + l].val();
                                        }
                                    }
                                    for _z in 0..self._shared {
                                        self.rams.we[s * nb1 + nb].next = self.f_seen[s].val();
                                        self.rams.waddr[s * nb1 + nb].next = self.k_cu[0].val();
                                        for i in 0..self._c {
                                            if self.f_take[i * ns + s].val() {
                                                self.rams.waddr[s * nb1 + nb].next =
                                                    self.k_cu[i].val();
                                            }
                                        }
                                        for l in 0..self._l {
                                            self.rams.wdata[(s * nb1 + nb) * nl + l].next =
                                                self.wb_data[l].val();
                                        }
                                    }
                                }
                                // ---------------- dispatch: this cycle's offer (chosen in
                                // the previous cycle, registered) and the next cycle's choice
                                // This cycle's offer: the registered choice, unless that
                                // unit left in the previous cycle (offered and accepted:
                                // the choice could not know). Reset gates the dispatch at
                                // its end (`disp_valid`, `d_fire`): it is a high-fanout net.
                                self.d_any.next = false;
                                for i in 0..self._c {
                                    if (self.o_cu.q.val() == self.k_cu[i].val())
                                        && self.cu_valid[i].q.val()
                                    {
                                        self.d_any.next = self.o_v.q.val();
                                    }
                                }
                                for _z in 0..self._comb {
                                    for i in 0..self._c {
                                        // Complete from the next cycle: busy now (an allocation
                                        // of this cycle is not a candidate), and every source
                                        // read by the end of this cycle.
                                        self.complete[i].next = self.cu_valid[i].q.val();
                                        for s in 0..self._s {
                                            self.stays[i * ns + s].next =
                                                self.cu_pend[i * ns + s].q.val()
                                                    && !self.gr[i * ns + s].val();
                                            for _z in 0..self._shared {
                                                if self.f_take[i * ns + s].val() {
                                                    self.stays[i * ns + s].next = false;
                                                }
                                            }
                                            if self.stays[i * ns + s].val() {
                                                self.complete[i].next = false;
                                            }
                                        }
                                    }
                                    for i in 0..self._c {
                                        // An older unit of the warp blocks a candidate, also the
                                        // one offered now: whether it leaves is known only at
                                        // the end of the cycle (guessing that it does cost
                                        // `alu_mix` 1.4 % of its cycles: a refused older unit
                                        // was then offered a cycle later).
                                        self.elig[i].next = self.complete[i].val();
                                        for j in 0..self._c {
                                            // A unit is never older than itself: the diagonal
                                            // flags are 0 and not read.
                                            if j != i && self.cu_dep[i * nc + j].q.val() {
                                                self.elig[i].next = false;
                                            }
                                        }
                                    }
                                }
                                // With registered requests the same candidates from flags
                                // known at the start of the cycle and the grant: a CU's
                                // request is its lowest pending source, so it completes now
                                // when none is pending (`q_v` = 0) or its request is granted
                                // and no second source is pending.
                                for _z in 0..self._qreq {
                                    for i in 0..self._c {
                                        self.e_done[i].next =
                                            self.cu_valid[i].q.val() && !self.q_v[i].q.val();
                                        self.e_last[i].next = self.cu_valid[i].q.val()
                                            && self.q_v[i].q.val()
                                            && !self.sec_v[i].val();
                                        for j in 0..self._c {
                                            if j != i && self.cu_dep[i * nc + j].q.val() {
                                                self.e_done[i].next = false;
                                                self.e_last[i].next = false;
                                            }
                                        }
                                        self.elig[i].next = self.e_done[i].val()
                                            || (self.e_last[i].val() && self.granted[i].val());
                                    }
                                }
                                for i in 0..self._c {
                                    self.n_pick.req[i].next = self.elig[i].val();
                                    self.n_pick.from[i].next = self.d_from[i].q.val();
                                    self.n_oh[i].next = self.n_pick.grant[i].val();
                                }
                                self.n_any.next = self.n_pick.any[0].val();
                                // No candidate: CU 0's fields are loaded (and not offered).
                                self.n_oh[0].next =
                                    self.n_pick.grant[0].val() || !self.n_pick.any[0].val();
                                for i in 0..self._c {
                                    self.om_cu.sel[i].next = self.n_oh[i].val();
                                    self.om_cu.d[i].next = self.k_cu[i].val();
                                    self.om_warp.sel[i].next = self.n_oh[i].val();
                                    self.om_warp.d[i].next = self.cu_warp[i].q.val();
                                    self.om_payload.sel[i].next = self.n_oh[i].val();
                                    self.om_payload.d[i].next = self.cu_payload[i].q.val();
                                    self.om_bank.sel[i].next = self.n_oh[i].val();
                                    for s in 0..self._s {
                                        self.om_bank.d[i * ns + s].next =
                                            self.obank[i * ns + s].val();
                                    }
                                }
                                // The pointer moves past the chosen CU (as `rr_from`).
                                for i in 0..self._c {
                                    self.d_from[i].d.next = self.d_from[i].q.val();
                                    if self.n_any.val() {
                                        self.d_from[i].d.next = false;
                                        for g in 0..self._c {
                                            if g < i && self.n_oh[g].val() {
                                                self.d_from[i].d.next = true;
                                            }
                                        }
                                    }
                                    if self.reset.val() {
                                        self.d_from[i].d.next = false;
                                    }
                                }
                                self.o_v.d.next = self.n_any.val() && !self.reset.val();
                                self.o_cu.d.next = self.om_cu.q[0].val();
                                self.o_warp.d.next = self.om_warp.q[0].val();
                                self.o_payload.d.next = self.om_payload.q[0].val();
                                for s in 0..self._s {
                                    self.o_ob[s].d.next = self.om_bank.q[s].val();
                                    self.o_arr[s].d.next = false;
                                    self.o_zero[s].d.next = false;
                                    for i in 0..self._c {
                                        for _z in 0..self._comb {
                                            if self.n_oh[i].val() && self.gr[i * ns + s].val() {
                                                self.o_arr[s].d.next = true;
                                            }
                                        }
                                        // With registered requests a chosen CU with a request
                                        // was chosen because it is granted now (a candidate
                                        // with a request is `e_last & granted`): the request
                                        // registers say which source arrives, not the grant.
                                        for _z in 0..self._qreq {
                                            if self.n_oh[i].val()
                                                && self.q_v[i].q.val()
                                                && (self.q_src[i].q.val() == self.k_src[s].val())
                                            {
                                                self.o_arr[s].d.next = true;
                                            }
                                        }
                                        if self.n_oh[i].val() && self.cu_zero[i * ns + s].q.val() {
                                            self.o_zero[s].d.next = true;
                                        }
                                    }
                                }
                                // The crossbar port's bank: (InOrder) the one that grants the
                                // chosen unit now, (Parallel) each source's.
                                for _z in 0..self._inorder {
                                    for i in 0..self._c {
                                        for s in 0..self._s {
                                            self.om_pbank.sel[i * ns + s].next =
                                                self.n_oh[i].val() && self.gr[i * ns + s].val();
                                            self.om_pbank.d[i * ns + s].next =
                                                self.obank[i * ns + s].val();
                                        }
                                    }
                                    // (Registered requests) the chosen CU's request bank: the
                                    // bank that grants it now if it arrives (`o_arr`), else
                                    // not used.
                                    for _q in 0..self._qreq {
                                        for i in 0..self._c {
                                            for s in 0..self._s {
                                                self.om_pbank.sel[i * ns + s].next = false;
                                            }
                                            self.om_pbank.sel[i * ns].next = self.n_oh[i].val();
                                            self.om_pbank.d[i * ns].next = self.q_bank[i].q.val();
                                        }
                                    }
                                    self.o_pbank[0].d.next = self.om_pbank.q[0].val();
                                }
                                for _z in 0..self._parallel {
                                    for i in 0..self._c {
                                        self.om_pbank.sel[i].next = self.n_oh[i].val();
                                        for s in 0..self._s {
                                            self.om_pbank.d[i * ns + s].next =
                                                self.obank[i * ns + s].val();
                                        }
                                    }
                                    for s in 0..self._s {
                                        self.o_pbank[s].d.next = self.om_pbank.q[s].val();
                                    }
                                }
                                for _z in 0..self._shared {
                                    for s in 0..self._s {
                                        self.o_fw[s].d.next = false;
                                        for i in 0..self._c {
                                            if self.n_oh[i].val()
                                                && (self.cu_fwd[i * ns + s].q.val()
                                                    || self.f_take[i * ns + s].val())
                                            {
                                                self.o_fw[s].d.next = true;
                                            }
                                        }
                                    }
                                }

                                self.d_fire.next =
                                    self.d_any.val() && self.disp_ready.val() && !self.reset.val();
                                self.disp_valid.next = self.d_any.val() && !self.reset.val();
                                self.disp_cu.next = self.o_cu.q.val();
                                self.disp_warp.next = self.o_warp.q.val();
                                self.disp_payload.next = self.o_payload.q.val();
                                for j in 0..self._m {
                                    self.rams.raddr[j].next = self.o_cu.q.val();
                                }
                                for p in 0..self._p {
                                    self.byp_mux.sel[p].next = self.o_pbank[p].q.val();
                                }
                                for j in 0..self._pl {
                                    self.d_byp[j].next = self.byp_mux.q[j].val();
                                }
                                for s in 0..self._s {
                                    for l in 0..self._l {
                                        self.disp_data[s * nl + l].next = self.data_zero.val();
                                    }
                                    if !self.o_zero[s].q.val() {
                                        for b in 0..self._b {
                                            if self.o_ob[s].q.val() == self.k_bank[b].val() {
                                                for l in 0..self._l {
                                                    self.disp_data[s * nl + l].next =
                                                        self.rams.rdata[(s * nb1 + b) * nl + l]
                                                            .val();
                                                }
                                            }
                                        }
                                        for _z in 0..self._shared {
                                            if self.o_fw[s].q.val() {
                                                for l in 0..self._l {
                                                    self.disp_data[s * nl + l].next =
                                                        self.rams.rdata[(s * nb1 + nb) * nl + l]
                                                            .val();
                                                }
                                            }
                                        }
                                        if self.o_arr[s].q.val() {
                                            for l in 0..self._l {
                                                self.disp_data[s * nl + l].next =
                                                    self.d_byp[s * ps * nl + l].val();
                                            }
                                        }
                                    }
                                }

                                // ---------------- allocation
                                self.a_found.next = false;
                                self.a_sel.next = self.k_cu[0].val();
                                for i in 0..self._c {
                                    if !self.cu_valid[i].q.val() && !self.a_found.val() {
                                        self.a_sel.next = self.k_cu[i].val();
                                        self.a_found.next = true;
                                    }
                                }
                                // Some CU is free: one that was free and not allocated at the
                                // last edge, or the one dispatched then (the same as `a_found`).
                                self.issue_ready.next = (!self.cu_full.q.val()
                                    || self.fired.q.val())
                                    && !self.reset.val();
                                self.a_go.next = self.issue_valid.val()
                                    && self.a_found.val()
                                    && !self.reset.val();
                                self.ev_alloc.next = self.a_go.val();
                                self.ev_alloc_cu.next = self.k_cu[0].val();
                                if self.a_go.val() {
                                    self.ev_alloc_cu.next = self.a_sel.val();
                                }

                                // ---------------- request registers (first needed source of
                                // an allocation; the second pending source after a grant)
                                for z in 0..self._qreq {
                                    self.a_first_v[z].next = false;
                                    self.a_first_src[z].next = self.k_src[0].val();
                                    self.a_first_reg[z].next = self.reg_zero.val();
                                    self.a_first_bank[z].next = self.k_bank[0].val();
                                    for s in 0..self._s {
                                        self.a_bank[s].next = (self.issue_src[s].val()
                                            + (self.issue_warp.val().get_bits::<5>(0)
                                                & self.swizzle_mask.val()))
                                            & self.bank_mask.val();
                                        if self.issue_need[s].val()
                                            && (self.issue_src[s].val() != self.reg_zero.val())
                                            && !self.a_first_v[z].val()
                                        {
                                            self.a_first_v[z].next = true;
                                            self.a_first_src[z].next = self.k_src[s].val();
                                            self.a_first_reg[z].next = self.issue_src[s].val();
                                            self.a_first_bank[z].next = self.a_bank[s].val();
                                        }
                                    }
                                }

                                // ---------------- CU state
                                for i in 0..self._c {
                                    self.alloc_cu[i].next =
                                        self.a_go.val() && (self.a_sel.val() == self.k_cu[i].val());
                                    self.fire_cu[i].next = self.d_fire.val()
                                        && (self.o_cu.q.val() == self.k_cu[i].val());
                                }
                                for i in 0..self._c {
                                    for j in 0..self._c {
                                        self.cu_dep[i * nc + j].d.next =
                                            self.cu_dep[i * nc + j].q.val()
                                                && !self.fire_cu[j].val();
                                        if self.alloc_cu[i].val() {
                                            self.cu_dep[i * nc + j].d.next =
                                                self.cu_valid[j].q.val()
                                                    && (self.cu_warp[j].q.val()
                                                        == self.issue_warp.val())
                                                    && !self.fire_cu[j].val();
                                        }
                                        if self.reset.val() || j == i {
                                            self.cu_dep[i * nc + j].d.next = false;
                                        }
                                    }
                                }
                                for z in 0..self._qreq {
                                    for i in 0..self._c {
                                        self.q_v[i].d.next = self.q_v[i].q.val();
                                        self.q_src[i].d.next = self.q_src[i].q.val();
                                        self.q_bank[i].d.next = self.q_bank[i].q.val();
                                        self.q_reg[i].d.next = self.q_reg[i].q.val();
                                        if self.granted[i].val() {
                                            self.q_v[i].d.next = self.sec_v[i].val();
                                            self.q_src[i].d.next = self.sec_src[i].val();
                                            self.q_bank[i].d.next = self.sec_bank[i].val();
                                            self.q_reg[i].d.next = self.sec_reg[i].val();
                                        }
                                        if self.alloc_cu[i].val() {
                                            self.q_v[i].d.next = self.a_first_v[z].val();
                                            self.q_src[i].d.next = self.a_first_src[z].val();
                                            self.q_bank[i].d.next = self.a_first_bank[z].val();
                                            self.q_reg[i].d.next = self.a_first_reg[z].val();
                                        }
                                        if self.reset.val() {
                                            self.q_v[i].d.next = false;
                                        }
                                    }
                                }
                                for i in 0..self._c {
                                    self.cu_valid[i].d.next = self.cu_valid[i].q.val();
                                    self.cu_warp[i].d.next = self.cu_warp[i].q.val();
                                    self.cu_payload[i].d.next = self.cu_payload[i].q.val();
                                    if self.fire_cu[i].val() {
                                        self.cu_valid[i].d.next = false;
                                    }
                                    if self.alloc_cu[i].val() {
                                        self.cu_valid[i].d.next = true;
                                        self.cu_warp[i].d.next = self.issue_warp.val();
                                        self.cu_payload[i].d.next = self.issue_payload.val();
                                    }
                                    if self.reset.val() {
                                        self.cu_valid[i].d.next = false;
                                    }
                                    for s in 0..self._s {
                                        self.cu_reg[i * ns + s].d.next =
                                            self.cu_reg[i * ns + s].q.val();
                                        self.cu_pend[i * ns + s].d.next =
                                            self.cu_pend[i * ns + s].q.val()
                                                && !self.gr[i * ns + s].val();
                                        for _z in 0..self._shared {
                                            if self.f_take[i * ns + s].val() {
                                                self.cu_pend[i * ns + s].d.next = false;
                                            }
                                            self.cu_fwd[i * ns + s].d.next =
                                                self.cu_fwd[i * ns + s].q.val()
                                                    || self.f_take[i * ns + s].val();
                                            if self.alloc_cu[i].val() {
                                                self.cu_fwd[i * ns + s].d.next = false;
                                            }
                                        }
                                        self.cu_zero[i * ns + s].d.next =
                                            self.cu_zero[i * ns + s].q.val();
                                        if self.alloc_cu[i].val() {
                                            self.cu_reg[i * ns + s].d.next =
                                                self.issue_src[s].val();
                                            self.cu_pend[i * ns + s].d.next = self.issue_need[s]
                                                .val()
                                                && (self.issue_src[s].val() != self.reg_zero.val());
                                            self.cu_zero[i * ns + s].d.next = !self.issue_need[s]
                                                .val()
                                                || (self.issue_src[s].val() == self.reg_zero.val());
                                        }
                                        if self.reset.val() {
                                            self.cu_pend[i * ns + s].d.next = false;
                                        }
                                    }
                                }
                                self.cu_full.clock.next = self.clock.val();
                                self.fired.clock.next = self.clock.val();
                                self.full_n.next = !self.reset.val();
                                for i in 0..self._c {
                                    if !self.cu_valid[i].q.val() && !self.alloc_cu[i].val() {
                                        self.full_n.next = false;
                                    }
                                }
                                self.cu_full.d.next = self.full_n.val();
                                self.fired.d.next = self.d_fire.val();
                            }
                        }
                    }
                }
            }
        }
    }
}
