//! The streaming multiprocessor: fetch, I-buffer, decode, scoreboard, warp scheduler, operand
//! collector with the banked register file, ALU / multiplier / divider, branch unit with the
//! SIMT stacks, load/store unit with shared memory, writeback, barriers, CTA launch, the commit
//! trace and counters. Pipeline, latencies and every arbitration rule: docs/microarch/sm.md.
//! The golden model of the same ISA is `warpforge_sim::sm` / `warpforge_sim::gpu`.

// rust-hdl's `#[hdl_gen]` only translates `for i in a..b` loops with indexing.
#![allow(clippy::needless_range_loop)]

use crate::{k, sigs};
use rust_hdl::prelude::*;
use warpforge_config::{GpuConfig, SchedulerPolicy};
use warpforge_isa::{FaultCause, MulDivOp};

use crate::alu::{Alu, ExecConfigError};
use crate::branch_unit::{BranchUnit, NO_LANE};
use crate::csr_read::CsrRead;
use crate::cta_launch::CtaLaunch;
use crate::decode::{Decoder, StoredHeadFields, HEAD_PACKED_BITS, STEP_LANE, STEP_STACK};
use crate::dispatch_register::DispatchRegister;
use crate::divider::Divider;
use crate::exec_fields::{ExecPack, ExecUnpack};
use crate::fault_capture::FaultCapture;
use crate::fetch::Fetch;
use crate::load_store_unit::LoadStoreUnit;
use crate::lut_ram::{addr_bits_for, LutRamArray};
use crate::mem_port::MemPort;
use crate::multiplier::{mul_op_code, shift_latency, Multiplier};
use crate::one_hot::OneHotMux;
use crate::operand_collector::{OperandCollector, SM_SHAPE};
use crate::perf_counters::PerfCounters;
use crate::reset_tree::ResetTree;
use crate::scheduler::Scheduler;
use crate::scoreboard::{RegVec, Scoreboard};
use crate::simt_stack::SimtStack;
use crate::stack_port::StackPort;
use crate::tag_table::{TagTable, RELEASE_PORTS};
use crate::top::InjectedFault;
use crate::writeback::Writeback;
use crate::{BitPack, Unused, WordPack};

/// One-bit outputs of sub-blocks the SM does not use, besides the per-lane / per-warp / per-bank ones.
const U1_FIXED: usize = 7;

/// The reset tree's copies: one per unit with a reset (16) and the SM's own logic.
const RESET_COPIES: usize = 17;

/// CTA launch states.

#[derive(LogicBlock)]
pub struct Sm<const L: usize> {
    pub clock: Signal<In, Clock>,
    /// From the top level's reset register; through [`ResetTree`] to each unit (docs/microarch/sm.md, "Reset").
    pub reset: Signal<In, Bit>,
    /// One registered copy of the reset per unit, and the last for the SM's own logic.
    rst_tree: ResetTree,
    /// The SM's own copy of the reset.
    rst: Signal<Local, Bit>,

    // ---- control (from the top level)
    pub load_valid: Signal<In, Bit>,
    pub load_addr: Signal<In, Bits<32>>,
    pub load_word: Signal<In, Bits<32>>,
    pub load_recon: Signal<In, Bits<32>>,
    pub k_entry: Signal<In, Bits<32>>,
    pub k_nctaid: Signal<In, Bits<32>>,
    pub k_ntid: Signal<In, Bits<32>>,
    pub k_param: Signal<In, Bits<32>>,
    pub k_shared: Signal<In, Bits<32>>,
    /// Warps per CTA, `ceil(ntid / lanes)`.
    pub k_cta_warps: Signal<In, Bits<32>>,
    pub cycle: Signal<In, Bits<64>>,
    /// This SM's index (the `smid` CSR) and the stack top of its warp 0, lane 0 (each warp's
    /// stack lies below the previous one). Inputs rather than constants so that every SM is the
    /// same module, which the emitted Verilog then holds once.
    pub sm_id: Signal<In, Bits<32>>,
    pub stack_top: Signal<In, Bits<32>>,
    /// The GPU stopped on a fault (this SM's or another's): issue and dispatch stop.
    pub halt: Signal<In, Bit>,
    pub cta_valid: Signal<In, Bit>,
    pub cta_ready: Signal<Out, Bit>,
    pub cta_id: Signal<In, Bits<32>>,
    /// Global thread index of the CTA's thread 0.
    pub cta_gtid0: Signal<In, Bits<32>>,
    /// The SM holds a CTA or is launching one.
    pub busy: Signal<Out, Bit>,
    /// The first fault of this SM (held until reset).
    pub fault: Signal<Out, Bit>,
    pub fault_warp: Signal<Out, Bits<8>>,
    pub fault_pc: Signal<Out, Bits<32>>,
    pub fault_cause: Signal<Out, Bits<4>>,
    pub fault_lane: Signal<Out, Bits<8>>,
    pub fault_addr: Signal<Out, Bits<32>>,

    // ---- memory port
    pub mem: MemPort,

    // ---- trace (verification) and counters
    pub tr_issue_valid: Signal<Out, Bit>,
    pub tr_issue_warp: Signal<Out, Bits<8>>,
    pub tr_issue_pc: Signal<Out, Bits<32>>,
    pub tr_issue_instr: Signal<Out, Bits<32>>,
    pub tr_issue_mask: Signal<Out, Bits<32>>,
    pub tr_issue_tag: Signal<Out, Bits<8>>,
    pub tr_wb_valid: Signal<Out, Bit>,
    pub tr_wb_tag: Signal<Out, Bits<8>>,
    pub tr_wb_rd: Signal<Out, Bits<5>>,
    pub tr_wb_mask: Signal<Out, Bits<32>>,
    /// Lane `l` in bits `32*l+31 ..= 32*l` (a parent cannot index a child's `Vec` port).
    pub tr_wb_data: Signal<Out, Bits<1024>>,
    pub tr_st_valid: Signal<Out, Bit>,
    pub tr_st_tag: Signal<Out, Bits<8>>,
    pub tr_st_size: Signal<Out, Bits<2>>,
    pub tr_st_mask: Signal<Out, Bits<32>>,
    pub tr_st_addr: Signal<Out, Bits<1024>>,
    pub tr_st_data: Signal<Out, Bits<1024>>,
    pub tr_cta_valid: Signal<Out, Bit>,
    pub tr_cta_id: Signal<Out, Bits<32>>,
    pub tr_cta_warps: Signal<Out, Bits<64>>,
    /// The warp scheduler's inputs this cycle, one bit per warp (docs/microarch/sm.md,
    /// "Top-level ports"): `ready`, `launch` (a warp (re)launched: GTO's age) and `long_stall`
    /// (two-level). Lock-step steps the reference scheduler with them and checks its grant.
    pub tr_ready: Signal<Out, Bits<64>>,
    /// The scheduler's grant this cycle (the warp enters the issue stage; its issue record
    /// follows in a later cycle).
    pub tr_grant_valid: Signal<Out, Bit>,
    pub tr_grant_warp: Signal<Out, Bits<8>>,
    pub tr_launch: Signal<Out, Bits<64>>,
    pub tr_long: Signal<Out, Bits<64>>,
    pub ctr_issued: Signal<Out, Bits<32>>,
    pub ctr_idle: Signal<Out, Bits<32>>,
    pub ctr_conflicts: Signal<Out, Bits<32>>,
    /// The value `reset` loads into the counters, and each warp's `instret` at its start (the
    /// top level's `ctr_base`, 0 without the verification ports).
    pub ctr_base: Signal<In, Bits<32>>,
    /// This cycle's counter events (trace): `idle`, and the banks with a conflict (bit `b` =
    /// bank `b`, the collector's flags: the checker adds them up itself).
    pub tr_idle: Signal<Out, Bit>,
    pub tr_conflicts: Signal<Out, Bits<32>>,

    // ---- units
    fetch: Fetch,
    dec_h: Vec<StoredHeadFields>,
    dec_i: Decoder,
    /// The decoded fields the units need, packed at issue into the tag table and unpacked at
    /// dispatch (no second decoder after the collector's choice and the tag read).
    ex_i: ExecPack,
    ex_d: ExecUnpack,
    sb: Scoreboard,
    sched: Scheduler,
    oc: OperandCollector,
    alu: Alu,
    mul: Multiplier,
    div: Divider,
    bu: BranchUnit<L>,
    lsu: LoadStoreUnit,
    dreg: DispatchRegister<L>,
    ctrs: PerfCounters,
    launch: CtaLaunch<L>,
    wb: Writeback,
    csrs: CsrRead,
    tags: TagTable<L>,
    faults: FaultCapture,
    stack: SimtStack<L>,
    /// The stack's registered command port and the redirects delayed with it.
    sport: StackPort<L>,
    pack_wb: WordPack<32, 1024>,
    pack_st_addr: WordPack<32, 1024>,
    pack_st_data: WordPack<32, 1024>,
    pk_gw: WordPack<6, 32>,
    pk_imask: WordPack<L, 32>,
    /// The operand collector's payload: the tag (bits 7..0) and the unit route (15..8).
    pk_tag16: WordPack<8, 16>,
    /// The unit route of the issuing instruction: ALU, MUL, DIV, LSU, BU (bits 0..4).
    pk_route: BitPack<8>,
    pk_g8: WordPack<6, 8>,
    pk_grant8: WordPack<6, 8>,
    pk_fw8: WordPack<6, 8>,
    pk_j16: WordPack<6, 16>,
    pk_wbm: BitPack<32>,
    pk_stm: BitPack<32>,
    pk_take: BitPack<64>,
    pk_ready: BitPack<64>,
    pk_launch: BitPack<64>,
    /// The collector's bank-conflict flags, for `tr_conflicts`.
    pk_conflict: BitPack<32>,
    pk_long: BitPack<64>,
    u1: Unused<Bit>,
    u2: Unused<Bits<2>>,
    u6: Unused<Bits<6>>,
    u8: Unused<Bits<8>>,
    u9: Unused<Bits<9>>,
    u32: Unused<Bits<32>>,
    u_mask: Unused<Bits<L>>,
    /// The SIMT stack's `full[w]`, read by the branch unit only when it can overflow.
    u_full: Unused<Bit>,

    // ---- per-warp state
    w_launched: RegVec<Bit>,
    w_cta: RegVec<Bits<6>>,
    /// Per warp, read only by the issuing warp: its thread id, CTA id and global thread id of
    /// lane 0 (RAMs 0–2, written at launch) and its `instret` (RAM 3, written at issue), in
    /// distributed RAM instead of flip-flops with a 32-bit `W`:1 choice each and an
    /// incrementer per warp. `w_iv`: the warp's `instret` word is valid (cleared at launch,
    /// set at its first issue; an invalid word reads 0), so the RAM has one writer.
    w_words: LutRamArray<32, 6>,
    w_iv: RegVec<Bit>,
    /// `[v*W + j]`: warp `v` belongs to CTA slot `j` (`w_cta` one-hot, loaded with it at
    /// launch): the barrier and CTA-completion checks look per CTA slot instead of comparing
    /// every pair of warps' slot numbers.
    w_in_cta: RegVec<Bit>,
    w_bar: RegVec<Bit>,
    /// Per warp, registered at the end of cycle S − 1: its head passed the scoreboard check
    /// and its own conditions (a barrier's drain, an `AtReturn` branch's idle scoreboard) and
    /// it was not the issue stage's warp. Cycle S ANDs it with the registered state, so the
    /// scoreboard's compares and the scheduler are in different cycles.
    rdy_q: RegVec<Bit>,
    /// `head_valid` one cycle ago: a head that was not there then (pushed into an empty
    /// I-buffer) has no `rdy_q`; it may go when its warp has no write pending at all (no
    /// compare needed), so a warp restarting after a redirect loses no cycle (`alu_mix`).
    hv_q: RegVec<Bit>,
    /// The scoreboard's `idle` one cycle ago. A fresh head (`!hv_q`) reads it instead of this
    /// cycle's `idle`: its warp had an empty I-buffer last cycle, so it reserved nothing then,
    /// and a warp idle then is idle now. The scheduler's readiness then starts at flip-flops
    /// (the head waits one cycle more when its warp's last write was released last cycle).
    idle_q: RegVec<Bit>,
    rdy_d: Vec<Signal<Local, Bit>>,
    /// A branch-unit redirect waiting for the warp's SIMT stack to finish a refill (`busy`).
    w_redir: RegVec<Bit>,
    /// A `jalr` went into the ALU `k + 1` cycles ago (`alu_latency` stages), and the lanes that
    /// execute it (the branch unit's group, registered for E+2; `alu_latency - 2` stages from
    /// E+3): its link is written for those lanes only, at the ALU's writeback.
    jl_flag: RegVec<Bit>,
    jl_group: RegVec<Bits<L>>,
    jl_mask: Signal<Local, Bits<L>>,
    /// Reserved at CTA accept for the CTA being launched.
    w_rsv: RegVec<Bit>,
    // ---- per CTA slot
    c_valid: RegVec<Bit>,
    c_launching: RegVec<Bit>,
    c_base: RegVec<Bits<32>>,
    /// Writeback slots: `slot[k]` = a fixed-latency result arrives `k` cycles from now.
    slot: RegVec<Bit>,
    /// Early scoreboard release of ALU and multiplier results: `rel_*[k]` is released `k`
    /// cycles from now, one cycle before its writeback (the operand collector forwards it).
    rel_valid: RegVec<Bit>,
    rel_warp: RegVec<Bits<6>>,
    rel_rd: RegVec<Bits<5>>,
    /// Tag releases (dispatch without a result, writeback, store completion), registered: the
    /// tag table frees them a cycle after the event, so the writeback choice and the dispatch
    /// decision do not reach the tag table's valid bits in their own cycle.
    trel_v: RegVec<Bit>,
    trel_t: RegVec<Bits<8>>,
    /// The issue stage: the warp the scheduler granted (a cycle or more ago) whose head
    /// instruction issues when a tag and a collector unit are free.
    iss_valid: RegVec<Bit>,
    iss_warp: RegVec<Bits<6>>,
    /// `iss_valid & iss_warp == w`, registered one-hot with them: the readiness excludes the
    /// issue stage's warp without comparing warp numbers.
    iss_oh: RegVec<Bit>,
    /// Per lane: a shift's amount before the dispatch register (the immediate's or `rs2`'s).
    sh_src: Vec<Signal<Local, Bits<5>>>,
    /// Room for one more CTA (warp slots, shared memory), registered.
    room_q: RegVec<Bit>,
    /// The CTA room check's counts and free slot, registered before their multiplies
    /// (docs/microarch/sm.md, "Warp slots"): resident CTAs, free warps, the first free CTA
    /// slot (two cycles deep: `[0]` a cycle old, `[1]` two) and that slot's shared-memory base.
    res_q: RegVec<Bits<8>>,
    /// round4(shared) (16 bits) and whether it reaches 64 KiB, registered: the launch's
    /// shared size is fixed for a kernel, so the room check starts from flip-flops, not from
    /// the launch parameter's adder chain (ECP5 critical path on f63e5a0, docs/fpga.md).
    need_q: RegVec<Bits<16>>,
    /// `round4(shared)`, all 32 bits, registered for the LSU's shared-window check.
    need32_q: RegVec<Bits<32>>,
    need_big_q: RegVec<Bit>,
    /// Per resident-CTA count `k` (0 ..= warps): whether `k + 1` regions of round4(shared)
    /// would exceed the shared memory, registered from `need_q` (stored as "over" so that the
    /// reset value 0 is what a shared size of 0 gives). The room check is then a choice among
    /// flip-flops by `res_q`, not a multiply and a compare (ECP5 critical path on 6285443).
    over_q: RegVec<Bit>,
    free_q: RegVec<Bits<8>>,
    jf_q: RegVec<Bits<6>>,
    base_q: RegVec<Bits<32>>,
    // ---- CTA launch
    // ---- fault and counters

    // ---- combinational
    halted: Signal<Local, Bit>,
    w_busy: Vec<Signal<Local, Bit>>,
    w_live: Vec<Signal<Local, Bit>>,
    /// The warp's stack is empty (not counting a launch's reset waiting in the stack port).
    w_empty: Vec<Signal<Local, Bit>>,
    ready: Vec<Signal<Local, Bit>>,
    tag_free: Signal<Local, Bit>,
    /// The issue stage is free in the next cycle: the scheduler may grant.
    s_open: Signal<Local, Bit>,
    /// The issue stage's instruction issues this cycle.
    i_fire: Signal<Local, Bit>,
    n_tag: Signal<Local, Bits<8>>,
    g: Signal<Local, Bits<6>>,
    gv: Signal<Local, Bit>,
    /// The granted warp's I-buffer head, registered when the grant is taken (the head stays
    /// until the warp issues: only its own issue pops it, and a warp in the issue stage is out
    /// of the scheduler), so the issue cycle decodes flip-flops instead of choosing among the
    /// warps' heads by `g` (ECP5 path `g` → the heads' fields → the collector's request bank).
    iss_word: RegVec<Bits<32>>,
    iss_dec: RegVec<Bits<HEAD_PACKED_BITS>>,
    /// `head_at_return`, `head_ends`, `head_fault`, `head_stops` of the granted warp.
    iss_ret: RegVec<Bit>,
    iss_ends: RegVec<Bit>,
    iss_ffault: RegVec<Bit>,
    iss_stops: RegVec<Bit>,
    head_word_mux: OneHotMux<32>,
    /// The TOS rpc of the dispatch register's warp, for the branch unit's stack compares.
    bu_tos_mux: OneHotMux<32>,
    head_dec_mux: OneHotMux<HEAD_PACKED_BITS>,
    g_ret: Signal<Local, Bit>,
    g_ends: Signal<Local, Bit>,
    g_ffault: Signal<Local, Bit>,
    g_stops: Signal<Local, Bit>,
    dec_iss: StoredHeadFields,
    /// Per warp: ready but for the issue stage's room and the fault flag (the scheduler's input).
    ready_x: Vec<Signal<Local, Bit>>,
    /// The issue stage takes a grant in this cycle (free in the next, no fault), and does.
    s_take: Signal<Local, Bit>,
    grant_taken: Signal<Local, Bit>,
    i_pc: Signal<Local, Bits<32>>,
    i_word: Signal<Local, Bits<32>>,
    i_recon: Signal<Local, Bits<32>>,
    i_ends: Signal<Local, Bit>,
    i_fetch_fault: Signal<Local, Bit>,
    i_mask: Signal<Local, Bits<L>>,
    i_fault: Signal<Local, Bit>,
    i_csr: Signal<Local, Bits<32>>,
    /// The granted warp's head is a conditional branch whose reconvergence is `AtReturn`
    /// (fetch's `head_at_return`): the collector reads `ra` as its third source.
    i_at_return: Signal<Local, Bit>,
    /// The issuing warp's head fields (`dec_iss`, from the head registered at the grant):
    /// sources, destination and route are the fields decoded at the instruction memory's load
    /// (fetch's `head_dec`), not a decode in the issue cycle (`dec_i` still decodes what the
    /// tag table and the CSR read need).
    i_rd: Signal<Local, Bits<5>>,
    i_rd_valid: Signal<Local, Bit>,
    i_rs1: Signal<Local, Bits<5>>,
    i_rs1_valid: Signal<Local, Bit>,
    i_rs2: Signal<Local, Bits<5>>,
    i_rs2_valid: Signal<Local, Bit>,
    i_to_alu: Signal<Local, Bit>,
    i_to_mul: Signal<Local, Bit>,
    i_to_div: Signal<Local, Bit>,
    i_to_lsu: Signal<Local, Bit>,
    i_control: Signal<Local, Bit>,
    /// `dec_i` fields no longer used (lint sinks).
    u3: Unused<Bits<3>>,
    u5: Unused<Bits<5>>,
    i_instret: Signal<Local, Bits<32>>,
    i_tid: Signal<Local, Bits<32>>,
    i_ctaid: Signal<Local, Bits<32>>,
    i_gtid: Signal<Local, Bits<32>>,
    i_stack: Signal<Local, Bits<32>>,
    /// The issuing warp's stack below the SM's `stack_top`.
    i_stack_off: Signal<Local, Bits<32>>,
    td: Signal<Local, Bits<8>>,
    d_pc: Signal<Local, Bits<32>>,
    d_recon: Signal<Local, Bits<32>>,
    d_csr: Signal<Local, Bits<32>>,
    d_mask: Signal<Local, Bits<L>>,
    d_ends: Signal<Local, Bit>,
    e_cta: Signal<Local, Bits<6>>,
    e_smem: Signal<Local, Bits<32>>,
    need_alu: Signal<Local, Bit>,
    need_mul: Signal<Local, Bit>,
    /// The instruction for the multiplier is a shift (payload bit 13).
    mul_shift: Signal<Local, Bit>,
    /// It goes to the multiplier as a multiplication / as a shift.
    need_mult: Signal<Local, Bit>,
    need_shift: Signal<Local, Bit>,
    need_div: Signal<Local, Bit>,
    need_lsu: Signal<Local, Bit>,
    need_bu: Signal<Local, Bit>,
    d_ready: Signal<Local, Bit>,
    d_fire: Signal<Local, Bit>,
    d_done: Signal<Local, Bit>,
    lsu_done: Signal<Local, Bit>,
    wb_valid: Signal<Local, Bit>,
    wb_tag: Signal<Local, Bits<8>>,
    wb_warp: Signal<Local, Bits<6>>,
    wb_rd: Signal<Local, Bits<5>>,
    wb_instr: Signal<Local, Bits<32>>,
    wb_mask: Vec<Signal<Local, Bit>>,
    wb_data: Vec<Signal<Local, Bits<32>>>,
    wb_mask32: Signal<Local, Bits<32>>,
    st_mask32: Signal<Local, Bits<32>>,
    /// Free warp slots below slot `w` (at most 64: 8 bits), and `cta_warps` saturated to 8
    /// bits for the comparisons (a CTA of 255 warps or more never fits).
    free_cnt: Vec<Signal<Local, Bits<8>>>,
    cta_warps8: Signal<Local, Bits<8>>,
    take: Vec<Signal<Local, Bit>>,
    take_mask: Signal<Local, Bits<64>>,
    /// Resident CTAs (at most 64: 8 bits), zero-extended to 16 bits for the shared-memory
    /// product.
    res_cnt: Signal<Local, Bits<8>>,
    /// Some CTA is resident (`busy` reads this OR, not the count's adder chain).
    any_cta: Signal<Local, Bit>,
    j_seen: Vec<Signal<Local, Bit>>,
    j_free: Signal<Local, Bits<6>>,
    smem_need: Signal<Local, Bits<32>>,
    /// `(k + 1) × round4(shared)` for each count `k` of `over_q`.
    regions_bytes: Vec<Signal<Local, Bits<32>>>,
    over_sel: Signal<Local, Bit>,
    j16: Signal<Local, Bits<16>>,
    free_all: Signal<Local, Bits<8>>,
    f_lsu_pc: Signal<Local, Bits<32>>,
    smem_base: Signal<Local, Bits<32>>,
    room: Signal<Local, Bit>,
    cta_go: Signal<Local, Bit>,
    l_go: Signal<Local, Bit>,
    l_seen: Vec<Signal<Local, Bit>>,
    l_warp: Signal<Local, Bits<6>>,
    l_mask: Signal<Local, Bits<L>>,
    l_last: Signal<Local, Bit>,
    bar_ok: Vec<Signal<Local, Bit>>,
    /// Per CTA slot: a warp of it is launched, live and not waiting at the barrier, or the
    /// CTA is still launching (its barrier cannot release); some warp of it is live.
    cta_wait: Vec<Signal<Local, Bit>>,
    cta_live: Vec<Signal<Local, Bit>>,
    redir_want: Vec<Signal<Local, Bit>>,
    cta_done: Vec<Signal<Local, Bit>>,
    any_launched: Signal<Local, Bit>,

    // ---- constants
    k_wid: Vec<Constant<Bits<6>>>,
    /// Resident-CTA counts 0 ..= warps (8 bits, as `res_q`) and the region counts 1 ..= warps + 1.
    k_res8: Vec<Constant<Bits<8>>>,
    k_count16: Vec<Constant<Bits<16>>>,
    k_warp_stack: Vec<Constant<Bits<32>>>,
    k_lane32: Vec<Constant<Bits<32>>>,
    /// Minus each lane's stack offset (two's complement): the ALU adds it to lane 0's
    /// `stack_top`.
    k_lane_stack_neg: Vec<Constant<Bits<32>>>,
    k_step_lane: Constant<Bits<2>>,
    /// The multiplier's op code of `mul` (every other op of a shift shifts right).
    k_md_mul: Constant<Bits<2>>,
    k_step_stack: Constant<Bits<2>>,
    k_zero32: Constant<Bits<32>>,
    k_zero8: Constant<Bits<8>>,
    k_one32: Constant<Bits<32>>,
    k_zero5: Constant<Bits<5>>,
    k_reg_ra: Constant<Bits<5>>,
    k_zero_mask: Constant<Bits<L>>,
    k_four: Constant<Bits<32>>,
    k_smem_bytes: Constant<Bits<32>>,
    k_cause_ill: Constant<Bits<4>>,
    k_cause_oorf: Constant<Bits<4>>,
    k_cause_ecall: Constant<Bits<4>>,
    k_cause_bkpt: Constant<Bits<4>>,
    k_no_lane: Constant<Bits<8>>,
    k_zero16: Constant<Bits<16>>,
    k_one8: Constant<Bits<8>>,
    k_max8: Constant<Bits<8>>,
    k_max8_32: Constant<Bits<32>>,
    k_not3: Constant<Bits<32>>,
    k_three: Constant<Bits<32>>,

    _warps: usize,
    /// 1 when the scheduler is GTO / two-level (their extra ports exist), else 0.
    _gto: usize,
    _two: usize,
    /// 1 when a warp's SIMT stack can overflow (`simt_stack_depth < 2·lanes − 1`, docs/isa.md
    /// §4): only then is the stack's `full` wired to the branch unit's overflow fault.
    _can_overflow: usize,
    _lanes: usize,
    /// `lanes - 1`, and the dispatch register's word of the last lane's `ra` (`3·lanes - 1`).
    _ra_lanes: usize,
    _ra_last: usize,
    _banks: usize,
    _tags: usize,
    _slots: usize,
    _rels: usize,
    _alu_lat: usize,
    /// `alu_latency - 3 .. alu_latency - 2` when `alu_latency ≥ 3`, else an empty range: the
    /// stage of `jl_group` that meets the ALU's writeback.
    _jl_meet_lo: usize,
    _jl_meet_hi: usize,
    /// `alu_latency - 2`, the stages of `jl_group`.
    _jl_stages: usize,
    /// 1 when `jl_group` has a stage (`alu_latency ≥ 3`), else 0.
    _jl_first: usize,
    _mul_lat: usize,
    /// The multiplier's latency for shifts (`multiplier::shift_latency`).
    _shift_lat: usize,
    _div_lat: usize,
}

impl<const L: usize> Sm<L> {
    /// SM `sm` of a GPU with configuration `cfg` (`cfg.lanes` must be `L`).
    pub fn new(
        cfg: &GpuConfig,
        sm: u32,
        inject: Option<InjectedFault>,
    ) -> Result<Self, ExecConfigError> {
        assert_eq!(
            cfg.lanes as usize, L,
            "Sm<{L}> built for lanes = {}",
            cfg.lanes
        );
        let w = cfg.warps as usize;
        let (alu_lat, mul_lat, div_lat) = (
            cfg.alu_latency as usize,
            cfg.mul_latency as usize,
            cfg.div_latency as usize,
        );
        // A result of latency `lat` is written back `lat + 1` cycles after dispatch (one cycle
        // in the dispatch register).
        let slots = alu_lat.max(mul_lat).max(div_lat) + 2;
        let tags = cfg.tags_per_sm() as usize;
        let flip: Vec<u64> = (0..L)
            .map(|l| match inject {
                Some(InjectedFault::AluSubLaneBit { lane, bit })
                    if sm == 0 && lane as usize == l =>
                {
                    1u64 << (bit & 31)
                }
                _ => 0,
            })
            .collect();
        Ok(Sm {
            clock: Default::default(),
            reset: Default::default(),
            rst_tree: ResetTree::new(RESET_COPIES),
            rst: Default::default(),
            load_valid: Default::default(),
            load_addr: Default::default(),
            load_word: Default::default(),
            load_recon: Default::default(),
            k_entry: Default::default(),
            k_nctaid: Default::default(),
            k_ntid: Default::default(),
            k_param: Default::default(),
            k_shared: Default::default(),
            k_cta_warps: Default::default(),
            cycle: Default::default(),
            sm_id: Default::default(),
            stack_top: Default::default(),
            halt: Default::default(),
            cta_valid: Default::default(),
            cta_ready: Default::default(),
            cta_id: Default::default(),
            cta_gtid0: Default::default(),
            busy: Default::default(),
            fault: Default::default(),
            fault_warp: Default::default(),
            fault_pc: Default::default(),
            fault_cause: Default::default(),
            fault_lane: Default::default(),
            fault_addr: Default::default(),
            mem: Default::default(),
            tr_issue_valid: Default::default(),
            tr_issue_warp: Default::default(),
            tr_issue_pc: Default::default(),
            tr_issue_instr: Default::default(),
            tr_issue_mask: Default::default(),
            tr_issue_tag: Default::default(),
            tr_wb_valid: Default::default(),
            tr_wb_tag: Default::default(),
            tr_wb_rd: Default::default(),
            tr_wb_mask: Default::default(),
            tr_wb_data: Default::default(),
            tr_st_valid: Default::default(),
            tr_st_tag: Default::default(),
            tr_st_size: Default::default(),
            tr_st_mask: Default::default(),
            tr_st_addr: Default::default(),
            tr_st_data: Default::default(),
            tr_cta_valid: Default::default(),
            tr_cta_id: Default::default(),
            tr_cta_warps: Default::default(),
            tr_ready: Default::default(),
            tr_grant_valid: Default::default(),
            tr_grant_warp: Default::default(),
            tr_launch: Default::default(),
            tr_long: Default::default(),
            ctr_issued: Default::default(),
            ctr_idle: Default::default(),
            ctr_conflicts: Default::default(),
            ctr_base: Default::default(),
            tr_idle: Default::default(),
            tr_conflicts: Default::default(),
            fetch: Fetch::new(cfg),
            dec_h: (0..w).map(|_| StoredHeadFields::default()).collect(),
            dec_i: Decoder::new(),
            ex_i: ExecPack::default(),
            ex_d: ExecUnpack::default(),
            sb: Scoreboard::new(cfg),
            sched: Scheduler::new(cfg),
            oc: OperandCollector::with_shape(cfg, SM_SHAPE),
            alu: Alu::new(cfg)?,
            mul: Multiplier::new(cfg)?,
            div: Divider::new(cfg)?,
            bu: BranchUnit::new(),
            lsu: LoadStoreUnit::new(cfg),
            dreg: DispatchRegister::new(3),
            ctrs: PerfCounters::new(cfg.rf_banks as usize),
            launch: CtaLaunch::default(),
            wb: Writeback::new(&flip),
            csrs: CsrRead::new(cfg),
            tags: TagTable::new(tags, w, (cfg.imem_bytes - 1) & !3),
            faults: FaultCapture::default(),
            stack: SimtStack::from_config(cfg),
            sport: StackPort::new(w),
            pack_wb: WordPack::new(L),
            pack_st_addr: WordPack::new(L),
            pack_st_data: WordPack::new(L),
            pk_gw: WordPack::new(1),
            pk_imask: WordPack::new(1),
            pk_tag16: WordPack::new(2),
            pk_route: BitPack::new(6),
            pk_g8: WordPack::new(1),
            pk_grant8: WordPack::new(1),
            pk_fw8: WordPack::new(1),
            pk_j16: WordPack::new(1),
            pk_wbm: BitPack::new(L),
            pk_stm: BitPack::new(L),
            pk_take: BitPack::new(w),
            pk_ready: BitPack::new(w),
            pk_launch: BitPack::new(w),
            pk_conflict: BitPack::new(cfg.rf_banks as usize),
            pk_long: BitPack::new(w),
            u1: Unused::new(U1_FIXED + L + w + (cfg.rf_banks as usize) * 2 + 1),
            u2: Unused::new(cfg.rf_banks as usize),
            u6: Unused::new(3 + cfg.rf_banks as usize),
            u8: Unused::new(1),
            u9: Unused::new(w),
            u32: Unused::new(3),
            u_mask: Unused::new(1),
            u_full: Unused::new(w),
            w_launched: RegVec::new(w),
            w_cta: RegVec::new(w),
            w_words: LutRamArray::new(4, addr_bits_for(w), 1),
            w_iv: RegVec::new(w),
            w_in_cta: RegVec::new(w * w),
            w_bar: RegVec::new(w),
            rdy_q: RegVec::new(w),
            hv_q: RegVec::new(w),
            idle_q: RegVec::new(w),
            rdy_d: sigs(w),
            w_redir: RegVec::new(w),
            jl_flag: RegVec::new(alu_lat),
            jl_group: RegVec::new(alu_lat - 2),
            jl_mask: Default::default(),
            w_rsv: RegVec::new(w),
            c_valid: RegVec::new(w),
            c_launching: RegVec::new(w),
            c_base: RegVec::new(w),
            slot: RegVec::new(slots),
            rel_valid: RegVec::new(alu_lat.max(mul_lat)),
            rel_warp: RegVec::new(alu_lat.max(mul_lat)),
            rel_rd: RegVec::new(alu_lat.max(mul_lat)),
            trel_v: RegVec::new(RELEASE_PORTS),
            trel_t: RegVec::new(RELEASE_PORTS),
            iss_valid: RegVec::new(1),
            iss_warp: RegVec::new(1),
            iss_oh: RegVec::new(w),
            sh_src: sigs(L),
            room_q: RegVec::new(1),
            res_q: RegVec::new(1),
            need_q: RegVec::new(1),
            need32_q: RegVec::new(1),
            need_big_q: RegVec::new(1),
            over_q: RegVec::new(w + 1),
            free_q: RegVec::new(1),
            jf_q: RegVec::new(2),
            base_q: RegVec::new(1),
            halted: Default::default(),
            w_busy: sigs(w),
            w_live: sigs(w),
            w_empty: sigs(w),
            ready: sigs(w),
            tag_free: Default::default(),
            s_open: Default::default(),
            i_fire: Default::default(),
            n_tag: Default::default(),
            g: Default::default(),
            gv: Default::default(),
            iss_word: RegVec::new(1),
            iss_dec: RegVec::new(1),
            iss_ret: RegVec::new(1),
            iss_ends: RegVec::new(1),
            iss_ffault: RegVec::new(1),
            iss_stops: RegVec::new(1),
            head_word_mux: OneHotMux::new(w, 1),
            bu_tos_mux: OneHotMux::new(w, 1),
            head_dec_mux: OneHotMux::new(w, 1),
            g_ret: Default::default(),
            g_ends: Default::default(),
            g_ffault: Default::default(),
            g_stops: Default::default(),
            dec_iss: StoredHeadFields::default(),
            ready_x: sigs(w),
            s_take: Default::default(),
            grant_taken: Default::default(),
            i_pc: Default::default(),
            i_word: Default::default(),
            i_recon: Default::default(),
            i_ends: Default::default(),
            i_fetch_fault: Default::default(),
            i_mask: Default::default(),
            i_fault: Default::default(),
            i_csr: Default::default(),
            i_at_return: Default::default(),
            i_rd: Default::default(),
            i_rd_valid: Default::default(),
            i_rs1: Default::default(),
            i_rs1_valid: Default::default(),
            i_rs2: Default::default(),
            i_rs2_valid: Default::default(),
            i_to_alu: Default::default(),
            i_to_mul: Default::default(),
            i_to_div: Default::default(),
            i_to_lsu: Default::default(),
            i_control: Default::default(),
            u3: Unused::new(1),
            u5: Unused::new(2),
            i_instret: Default::default(),
            i_tid: Default::default(),
            i_ctaid: Default::default(),
            i_gtid: Default::default(),
            i_stack: Default::default(),
            i_stack_off: Default::default(),
            td: Default::default(),
            d_pc: Default::default(),
            d_recon: Default::default(),
            d_csr: Default::default(),
            d_mask: Default::default(),
            d_ends: Default::default(),
            e_cta: Default::default(),
            e_smem: Default::default(),
            need_alu: Default::default(),
            need_mul: Default::default(),
            mul_shift: Default::default(),
            need_mult: Default::default(),
            need_shift: Default::default(),
            need_div: Default::default(),
            need_lsu: Default::default(),
            need_bu: Default::default(),
            d_ready: Default::default(),
            d_fire: Default::default(),
            d_done: Default::default(),
            lsu_done: Default::default(),
            wb_valid: Default::default(),
            wb_tag: Default::default(),
            wb_warp: Default::default(),
            wb_rd: Default::default(),
            wb_instr: Default::default(),
            wb_mask: sigs(L),
            wb_data: sigs(L),
            wb_mask32: Default::default(),
            st_mask32: Default::default(),
            free_cnt: sigs(w + 1),
            take: sigs(w),
            take_mask: Default::default(),
            res_cnt: Default::default(),
            any_cta: Default::default(),
            j_seen: sigs(w),
            j_free: Default::default(),
            smem_need: Default::default(),
            regions_bytes: (0..=w).map(|_| Default::default()).collect(),
            over_sel: Default::default(),
            j16: Default::default(),
            free_all: Default::default(),
            cta_warps8: Default::default(),
            f_lsu_pc: Default::default(),
            smem_base: Default::default(),
            room: Default::default(),
            cta_go: Default::default(),
            l_go: Default::default(),
            l_seen: sigs(w),
            l_warp: Default::default(),
            l_mask: Default::default(),
            l_last: Default::default(),
            bar_ok: sigs(w),
            cta_wait: sigs(w),
            cta_live: sigs(w),
            redir_want: sigs(w),
            cta_done: sigs(w),
            any_launched: Default::default(),
            k_wid: (0..w as u64).map(k::<6>).collect(),
            k_res8: (0..=w as u64).map(k::<8>).collect(),
            k_count16: (1..=w as u64 + 1).map(k::<16>).collect(),
            k_warp_stack: (0..cfg.warps as u64)
                .map(|wi| k::<32>((wi * (cfg.lanes * cfg.stack_bytes) as u64) & 0xffff_ffff))
                .collect(),
            k_lane32: (0..L as u64).map(k::<32>).collect(),
            k_lane_stack_neg: (0..L as u64)
                .map(|l| k::<32>((l * cfg.stack_bytes as u64).wrapping_neg() & 0xffff_ffff))
                .collect(),
            k_step_lane: k(STEP_LANE),
            k_md_mul: k(u64::from(
                mul_op_code(MulDivOp::Mul).expect("mul has a code"),
            )),
            k_step_stack: k(STEP_STACK),
            k_zero32: k(0),
            k_zero8: k(0),
            k_one32: k(1),
            k_zero5: k(0),
            k_reg_ra: k(1),
            k_zero_mask: k(0),
            k_four: k(4),
            k_smem_bytes: k(cfg.smem_bytes as u64),
            // 0xCC0 + i
            k_cause_ill: k(FaultCause::IllegalInstruction.code().into()),
            k_cause_oorf: k(FaultCause::OutOfRangeFetch.code().into()),
            k_cause_ecall: k(FaultCause::Ecall.code().into()),
            k_cause_bkpt: k(FaultCause::Breakpoint.code().into()),
            k_no_lane: k(NO_LANE),
            k_zero16: k(0),
            k_one8: k(1),
            k_max8: k(255),
            k_max8_32: k(255),
            k_not3: k(0xffff_fffc),
            k_three: k(3),
            _warps: w,
            _gto: usize::from(cfg.scheduler == SchedulerPolicy::Gto),
            _two: usize::from(cfg.scheduler == SchedulerPolicy::TwoLevel),
            _can_overflow: usize::from(cfg.simt_stack_depth < 2 * cfg.lanes - 1),
            _lanes: L,
            _ra_lanes: L - 1,
            _ra_last: 3 * L - 1,
            _banks: cfg.rf_banks as usize,
            _tags: tags,
            _slots: slots,
            _rels: alu_lat.max(mul_lat),
            _alu_lat: alu_lat,
            _jl_meet_lo: alu_lat.saturating_sub(3),
            _jl_meet_hi: if alu_lat >= 3 { alu_lat - 2 } else { 0 },
            _jl_stages: alu_lat - 2,
            _jl_first: (alu_lat - 2).min(1),
            _mul_lat: mul_lat,
            _shift_lat: shift_latency(mul_lat),
            _div_lat: div_lat,
        })
    }
}

impl<const L: usize> Logic for Sm<L> {
    #[hdl_gen]
    fn update(&mut self) {
        // ---------------- clocks and resets
        self.rst_tree.clock.next = self.clock.val();
        self.rst_tree.reset.next = self.reset.val();
        self.rst.next = self.rst_tree.q[16].val();
        self.fetch.clock.next = self.clock.val();
        self.sb.clock.next = self.clock.val();
        self.sched.clock.next = self.clock.val();
        self.oc.clock.next = self.clock.val();
        self.alu.clock.next = self.clock.val();
        self.mul.clock.next = self.clock.val();
        self.div.clock.next = self.clock.val();
        self.bu.clock.next = self.clock.val();
        self.lsu.clock.next = self.clock.val();
        self.dreg.clock.next = self.clock.val();
        self.dreg.reset.next = self.rst_tree.q[0].val();
        self.stack.clock.next = self.clock.val();
        self.sport.clock.next = self.clock.val();
        self.sport.reset.next = self.rst_tree.q[1].val();
        self.w_launched.clock.next = self.clock.val();
        self.w_cta.clock.next = self.clock.val();
        self.w_words.clock.next = self.clock.val();
        self.w_iv.clock.next = self.clock.val();
        self.w_in_cta.clock.next = self.clock.val();
        self.w_bar.clock.next = self.clock.val();
        self.rdy_q.clock.next = self.clock.val();
        self.hv_q.clock.next = self.clock.val();
        self.idle_q.clock.next = self.clock.val();
        self.w_redir.clock.next = self.clock.val();
        self.jl_flag.clock.next = self.clock.val();
        self.jl_group.clock.next = self.clock.val();
        self.w_rsv.clock.next = self.clock.val();
        self.c_valid.clock.next = self.clock.val();
        self.c_launching.clock.next = self.clock.val();
        self.c_base.clock.next = self.clock.val();
        self.slot.clock.next = self.clock.val();
        self.rel_valid.clock.next = self.clock.val();
        self.rel_warp.clock.next = self.clock.val();
        self.rel_rd.clock.next = self.clock.val();
        self.trel_v.clock.next = self.clock.val();
        self.trel_t.clock.next = self.clock.val();
        self.iss_valid.clock.next = self.clock.val();
        self.iss_warp.clock.next = self.clock.val();
        self.iss_oh.clock.next = self.clock.val();
        self.room_q.clock.next = self.clock.val();
        self.res_q.clock.next = self.clock.val();
        self.need_q.clock.next = self.clock.val();
        self.need32_q.clock.next = self.clock.val();
        self.need_big_q.clock.next = self.clock.val();
        self.iss_word.clock.next = self.clock.val();
        self.iss_dec.clock.next = self.clock.val();
        self.iss_ret.clock.next = self.clock.val();
        self.iss_ends.clock.next = self.clock.val();
        self.iss_ffault.clock.next = self.clock.val();
        self.iss_stops.clock.next = self.clock.val();
        self.over_q.clock.next = self.clock.val();
        self.free_q.clock.next = self.clock.val();
        self.jf_q.clock.next = self.clock.val();
        self.base_q.clock.next = self.clock.val();
        self.fetch.reset.next = self.rst_tree.q[2].val();
        self.sb.reset.next = self.rst_tree.q[3].val();
        self.sched.reset.next = self.rst_tree.q[4].val();
        self.oc.reset.next = self.rst_tree.q[5].val();
        self.alu.reset.next = self.rst_tree.q[6].val();
        self.mul.reset.next = self.rst_tree.q[7].val();
        self.div.reset.next = self.rst_tree.q[8].val();
        self.bu.reset.next = self.rst_tree.q[9].val();
        self.lsu.reset.next = self.rst_tree.q[10].val();
        self.stack.rst.next = self.rst_tree.q[11].val();

        // The LSU's memory port is the SM's.
        MemPort::link(&mut self.mem, &mut self.lsu.mem);

        self.ctrs.clock.next = self.clock.val();
        self.ctrs.reset.next = self.rst_tree.q[12].val();

        self.faults.clock.next = self.clock.val();
        self.launch.clock.next = self.clock.val();
        self.launch.reset.next = self.rst_tree.q[13].val();
        self.tags.clock.next = self.clock.val();
        self.tags.reset.next = self.rst_tree.q[14].val();
        self.faults.reset.next = self.rst_tree.q[15].val();
        self.halted.next = self.faults.valid.val() | self.halt.val();
        self.pk_gw.d[0].next = self.iss_warp.q[0].val();
        self.pk_fw8.d[0].next = self.faults.warp.val();

        for nl in self._lanes..(self._lanes + 1) {
            for nw2 in self._warps..(self._warps + 1) {
                for nb in self._banks..(self._banks + 1) {
                    // ---------------- tags held per warp, lowest free tag (hdl/src/tag_table.rs)
                    for w in 0..self._warps {
                        self.w_busy[w].next = self.tags.busy[w].val();
                    }
                    self.n_tag.next = self.tags.free_tag.val();
                    self.tag_free.next = self.tags.any_free.val();
                    self.pk_tag16.d[0].next = self.n_tag.val();

                    // ---------------- CTA launch
                    self.free_cnt[0].next = self.k_zero8.val();
                    self.cta_warps8.next = self.k_cta_warps.val().get_bits::<8>(0);
                    if self.k_cta_warps.val() > self.k_max8_32.val() {
                        self.cta_warps8.next = self.k_max8.val();
                    }
                    self.take_mask.next = self.pk_take.q.val();
                    self.l_seen[0].next = false;
                    for w in 0..(self._warps - 1) {
                        self.l_seen[w + 1].next = self.l_seen[w].val() | self.w_rsv.q[w].val();
                    }
                    self.l_warp.next = self.k_wid[0].val();
                    for w in 0..self._warps {
                        // Free: not launched and not reserved for a CTA being launched (so the
                        // registered room never counts a slot twice).
                        self.take[w].next = !self.w_launched.q[w].val()
                            & !self.w_rsv.q[w].val()
                            & (self.free_cnt[w].val() < self.cta_warps8.val());
                        self.free_cnt[w + 1].next = self.free_cnt[w].val();
                        if !self.w_launched.q[w].val() & !self.w_rsv.q[w].val() {
                            self.free_cnt[w + 1].next = self.free_cnt[w].val() + self.k_one8.val();
                        }
                        self.pk_take.d[w].next = self.take[w].val();
                        if self.w_rsv.q[w].val() & !self.l_seen[w].val() {
                            self.l_warp.next = self.k_wid[w].val();
                        }
                    }
                    for nw in self._warps..(self._warps + 1) {
                        self.free_all.next = self.free_cnt[nw].val();
                    }
                    self.res_cnt.next = self.k_zero8.val();
                    self.any_cta.next = false;
                    self.j_seen[0].next = false;
                    for j in 0..(self._warps - 1) {
                        self.j_seen[j + 1].next = self.j_seen[j].val() | !self.c_valid.q[j].val();
                    }
                    self.j_free.next = self.k_wid[0].val();
                    for j in 0..self._warps {
                        if self.c_valid.q[j].val() {
                            self.res_cnt.next = self.res_cnt.val() + self.k_one8.val();
                            self.any_cta.next = true;
                        }
                        if !self.c_valid.q[j].val() & !self.j_seen[j].val() {
                            self.j_free.next = self.k_wid[j].val();
                        }
                    }
                    self.jf_q.d[0].next = self.j_free.val();
                    self.jf_q.d[1].next = self.jf_q.q[0].val();
                    self.pk_j16.d[0].next = self.jf_q.q[0].val();
                    // Regions of round4(shared) bytes; room while (resident + 1) regions fit.
                    self.smem_need.next =
                        (self.k_shared.val() + self.k_three.val()) & self.k_not3.val();
                    self.need_q.d[0].next = self.smem_need.val().get_bits::<16>(0);
                    self.need32_q.d[0].next = self.smem_need.val();
                    self.need_big_q.d[0].next =
                        self.smem_need.val().get_bits::<16>(16) != self.k_zero16.val();
                    self.res_q.d[0].next = self.res_cnt.val();
                    self.free_q.d[0].next = self.free_all.val();
                    // (k + 1) regions against the shared memory for every count k, a cycle
                    // after `need_q` (the shared size is fixed while CTAs are resident);
                    // 64 KiB or more: only as the SM's only CTA (the host's launch check keeps
                    // it within `smem_bytes`, so no compare for k = 0 then).
                    for k in 0..(self._warps + 1) {
                        self.regions_bytes[k].next =
                            self.k_count16[k].val() * self.need_q.q[0].val();
                        self.over_q.d[k].next =
                            self.regions_bytes[k].val() > self.k_smem_bytes.val();
                        if self.need_big_q.q[0].val() {
                            self.over_q.d[k].next = k != 0;
                        }
                    }
                    self.j16.next = self.pk_j16.q.val();
                    self.base_q.d[0].next = self.j16.val() * self.need_q.q[0].val();
                    self.smem_base.next = self.base_q.q[0].val();
                    // Warp slots and shared memory for one more CTA, from the state two cycles
                    // back (the counts are registered, then the compare and the choice of the
                    // count's flag: neither stays in the cycle that decides dispatch). An
                    // accepted CTA keeps the launch sequencer busy for at least three cycles,
                    // longer than the registers lag, so it cannot be accepted twice or given a
                    // taken slot. A count above `warps` cannot occur (one warp per CTA at least).
                    self.over_sel.next = true;
                    for k in 0..(self._warps + 1) {
                        if self.res_q.q[0].val() == self.k_res8[k].val() {
                            self.over_sel.next = self.over_q.q[k].val();
                        }
                    }
                    self.room_q.d[0].next =
                        (self.free_q.q[0].val() >= self.cta_warps8.val()) & !self.over_sel.val();
                    self.room.next = self.launch.idle.val()
                        & self.room_q.q[0].val()
                        & self.lsu.in_ready.val()
                        & !self.dreg.e_to_lsu.val()
                        & !self.halted.val()
                        & !self.rst.val();
                    self.cta_ready.next = self.room.val();
                    self.cta_go.next = self.cta_valid.val() & self.room.val();
                    self.lsu.clear_valid.next = self.cta_go.val();
                    self.lsu.clear_base.next = self.smem_base.val();
                    self.lsu.clear_bytes.next = self.smem_need.val();
                    self.tr_cta_valid.next = self.cta_go.val();
                    self.tr_cta_id.next = self.cta_id.val();
                    self.tr_cta_warps.next = self.take_mask.val();
                    self.tr_launch.next = self.pk_launch.q.val();

                    // ---------------- schedule (cycle S): per-warp readiness, the scheduler's
                    // grant into the issue stage; issue (cycle I >= S + 1) when a tag and a
                    // collector unit are free. The split keeps the scoreboard check and the
                    // scheduler out of the cycle that decodes, reads CSRs and allocates.
                    self.i_fire.next = self.iss_valid.q[0].val()
                        & self.tag_free.val()
                        & self.oc.issue_ready.val()
                        & !self.halted.val();
                    self.s_open.next = !self.iss_valid.q[0].val() | self.i_fire.val();
                    for w in 0..self._warps {
                        self.dec_h[w].word.next = self.fetch.head_word[w].val();
                        self.dec_h[w].issue_bits.next = self.fetch.head_dec[w].val();
                        self.sb.chk_rd[w].next = self.dec_h[w].rd.val();
                        self.sb.chk_rd_valid[w].next = self.dec_h[w].rd_valid.val();
                        self.sb.chk_rs1[w].next = self.dec_h[w].rs1.val();
                        self.sb.chk_rs1_valid[w].next = self.dec_h[w].rs1_valid.val();
                        self.sb.chk_rs2[w].next = self.dec_h[w].rs2.val();
                        self.sb.chk_rs2_valid[w].next = self.dec_h[w].rs2_valid.val();
                        self.rdy_d[w].next = self.fetch.head_valid[w].val()
                            & self.sb.ok[w].val()
                            & !self.iss_oh.q[w].val();
                        // A barrier waits until the warp's earlier instructions have completed.
                        if self.dec_h[w].is_bar.val() & self.w_busy[w].val() {
                            self.rdy_d[w].next = false;
                        }
                        // AtReturn reads x1 as a third source: wait until nothing is pending.
                        if self.fetch.head_at_return[w].val() & !self.sb.idle[w].val() {
                            self.rdy_d[w].next = false;
                        }
                        self.rdy_q.d[w].next = self.rdy_d[w].val() & !self.rst.val();
                        self.hv_q.d[w].next = self.fetch.head_valid[w].val() & !self.rst.val();
                        self.idle_q.d[w].next = self.sb.idle[w].val();
                        // Ready but for the issue stage's room (`s_open`): the scheduler
                        // picks among these, and its grant is taken only when the stage is
                        // free (`sched.issued`), so `i_fire` (the tag table's and the
                        // collector's free flags, the fault flag) is not in front of the pick.
                        self.ready_x[w].next = (self.rdy_q.q[w].val()
                            | (!self.hv_q.q[w].val()
                                & self.idle_q.q[w].val()
                                & !self.dec_h[w].is_bar.val()))
                            & self.fetch.head_valid[w].val()
                            & self.w_launched.q[w].val()
                            & !self.w_bar.q[w].val()
                            & !self.iss_oh.q[w].val();
                        self.ready[w].next =
                            self.ready_x[w].val() & !self.halted.val() & self.s_open.val();
                        self.sched.ready[w].next = self.ready_x[w].val();
                        self.pk_ready.d[w].next = self.ready[w].val();
                        self.pk_long.d[w].next = !self.w_launched.q[w].val()
                            | self.w_bar.q[w].val()
                            | !self.fetch.head_valid[w].val();
                        for _z in 0..self._two {
                            self.sched.long_stall[w].next = self.pk_long.d[w].val();
                        }
                    }
                    self.tr_ready.next = self.pk_ready.q.val();
                    self.tr_long.next = self.pk_long.q.val();
                    // The grant is taken when the issue stage is free and the SM has not
                    // faulted (the readiness above, without those two terms, is what the
                    // scheduler saw); the trace records the grant taken.
                    self.s_take.next = self.s_open.val() & !self.halted.val();
                    self.grant_taken.next = self.sched.grant_valid.val() & self.s_take.val();
                    self.sched.issued.next = self.s_take.val();
                    self.pk_grant8.d[0].next = self.k_wid[0].val();
                    if self.grant_taken.val() {
                        self.pk_grant8.d[0].next = self.sched.grant_warp.val();
                    }
                    self.tr_grant_valid.next = self.grant_taken.val();
                    self.tr_grant_warp.next = self.pk_grant8.q.val();
                    self.iss_valid.d[0].next = ((self.iss_valid.q[0].val() & !self.i_fire.val())
                        | self.grant_taken.val())
                        & !self.rst.val();
                    self.iss_warp.d[0].next = self.iss_warp.q[0].val();
                    for w in 0..self._warps {
                        self.iss_oh.d[w].next = self.iss_oh.q[w].val() & !self.i_fire.val();
                        if self.grant_taken.val() {
                            self.iss_oh.d[w].next = self.sched.grant[w].val();
                        }
                        if self.rst.val() {
                            self.iss_oh.d[w].next = false;
                        }
                    }
                    self.g_ret.next = false;
                    self.g_ends.next = false;
                    self.g_ffault.next = false;
                    self.g_stops.next = false;
                    for w in 0..self._warps {
                        self.head_word_mux.sel[w].next = self.sched.grant[w].val();
                        self.head_word_mux.d[w].next = self.fetch.head_word[w].val();
                        self.head_dec_mux.sel[w].next = self.sched.grant[w].val();
                        self.head_dec_mux.d[w].next = self.fetch.head_dec[w].val();
                        self.g_ret.next = self.g_ret.val()
                            | (self.sched.grant[w].val() & self.fetch.head_at_return[w].val());
                        self.g_ends.next = self.g_ends.val()
                            | (self.sched.grant[w].val() & self.fetch.head_ends[w].val());
                        self.g_ffault.next = self.g_ffault.val()
                            | (self.sched.grant[w].val() & self.fetch.head_fault[w].val());
                        self.g_stops.next = self.g_stops.val()
                            | (self.sched.grant[w].val() & self.fetch.head_stops[w].val());
                    }
                    self.iss_word.d[0].next = self.iss_word.q[0].val();
                    self.iss_dec.d[0].next = self.iss_dec.q[0].val();
                    self.iss_ret.d[0].next = self.iss_ret.q[0].val();
                    self.iss_ends.d[0].next = self.iss_ends.q[0].val();
                    self.iss_ffault.d[0].next = self.iss_ffault.q[0].val();
                    self.iss_stops.d[0].next = self.iss_stops.q[0].val();
                    if self.grant_taken.val() {
                        self.iss_warp.d[0].next = self.sched.grant_warp.val();
                        self.iss_word.d[0].next = self.head_word_mux.q[0].val();
                        self.iss_dec.d[0].next = self.head_dec_mux.q[0].val();
                        self.iss_ret.d[0].next = self.g_ret.val();
                        self.iss_ends.d[0].next = self.g_ends.val();
                        self.iss_ffault.d[0].next = self.g_ffault.val();
                        self.iss_stops.d[0].next = self.g_stops.val();
                    }
                    self.gv.next = self.i_fire.val();
                    self.g.next = self.iss_warp.q[0].val();
                    self.pk_g8.d[0].next = self.g.val();

                    // The granted warp's head, registered when the grant was taken.
                    self.dec_iss.word.next = self.iss_word.q[0].val();
                    self.dec_iss.issue_bits.next = self.iss_dec.q[0].val();
                    self.i_word.next = self.iss_word.q[0].val();
                    self.i_rd.next = self.dec_iss.rd.val();
                    self.i_rd_valid.next = self.dec_iss.rd_valid.val();
                    self.i_rs1.next = self.dec_iss.rs1.val();
                    self.i_rs1_valid.next = self.dec_iss.rs1_valid.val();
                    self.i_rs2.next = self.dec_iss.rs2.val();
                    self.i_rs2_valid.next = self.dec_iss.rs2_valid.val();
                    self.i_to_alu.next = self.dec_iss.to_alu.val();
                    self.i_to_mul.next = self.dec_iss.to_mul.val();
                    self.i_to_div.next = self.dec_iss.to_div.val();
                    self.i_to_lsu.next = self.dec_iss.to_lsu.val();
                    self.i_control.next = self.dec_iss.is_control.val();
                    self.i_at_return.next = self.iss_ret.q[0].val();
                    self.i_ends.next = self.iss_ends.q[0].val();
                    self.i_fetch_fault.next = self.iss_ffault.q[0].val();
                    self.i_fault.next = self.iss_stops.q[0].val();
                    // The issuing warp's head PC and sidecar word: fetch's ring RAM read port.
                    self.fetch.read_warp.next = self.g.val();
                    self.i_pc.next = self.fetch.read_pc.val();
                    self.i_recon.next = self.fetch.read_recon.val();
                    self.i_mask.next = self.k_zero_mask.val();
                    // A warp's count starts at `ctr_base` (0 without the verification ports;
                    // lock-step starts it just below the wrap, so every bit of the CSR path
                    // toggles in a short run).
                    self.i_instret.next = self.ctr_base.val();
                    self.i_tid.next = self.k_zero32.val();
                    self.i_ctaid.next = self.k_zero32.val();
                    self.i_gtid.next = self.k_zero32.val();
                    self.i_stack_off.next = self.k_zero32.val();
                    for w in 0..self._warps {
                        if self.g.val() == self.k_wid[w].val() {
                            self.i_mask.next = self.stack.tos_mask[w].val();
                            if self.w_iv.q[w].val() {
                                self.i_instret.next = self.w_words.rdata[3].val();
                            }
                            self.i_stack_off.next = self.k_warp_stack[w].val();
                        }
                    }
                    self.i_tid.next = self.w_words.rdata[0].val();
                    self.i_ctaid.next = self.w_words.rdata[1].val();
                    self.i_gtid.next = self.w_words.rdata[2].val();
                    for r in 0..4 {
                        self.w_words.raddr[r].next = self.g.val();
                    }
                    self.w_words.we[3].next = self.gv.val();
                    self.w_words.waddr[3].next = self.g.val();
                    self.w_words.wdata[3].next = self.i_instret.val() + self.k_one32.val();
                    self.i_stack.next = self.stack_top.val() - self.i_stack_off.val();
                    self.dec_i.word.next = self.i_word.val();
                    self.pk_imask.d[0].next = self.i_mask.val();
                    // Whether the head stops the GPU (illegal, ecall, ebreak, out-of-range
                    // fetch) was decoded when it entered its I-buffer: one flip-flop per warp
                    // here, not the decoder after the warp choice. The cause is taken from this
                    // cycle's decode (fault capture, below).

                    // CSR value at issue (lane 0; tid, gtid, laneid, stack_top step per lane).
                    // CSR read (hdl/src/csr_read.rs).
                    self.csrs.csr.next = self.dec_i.csr.val();
                    self.csrs.cycle.next = self.cycle.val();
                    self.csrs.instret.next = self.i_instret.val();
                    self.csrs.tid.next = self.i_tid.val();
                    self.csrs.ctaid.next = self.i_ctaid.val();
                    self.csrs.gtid.next = self.i_gtid.val();
                    self.csrs.ntid.next = self.k_ntid.val();
                    self.csrs.nctaid.next = self.k_nctaid.val();
                    self.csrs.param.next = self.k_param.val();
                    self.csrs.warpid.next = self.pk_gw.q.val();
                    self.csrs.smid.next = self.sm_id.val();
                    self.csrs.tmask.next = self.pk_imask.q.val();
                    self.csrs.stack.next = self.i_stack.val();
                    self.i_csr.next = self.csrs.value.val();

                    // Issue actions.
                    self.fetch.pop.next = self.gv.val();
                    self.fetch.pop_warp.next = self.g.val();
                    // An illegal head stops the GPU (`i_fault`) before any of this takes effect,
                    // so the head decoders' fields (equal to the full decode for legal words)
                    // are enough.
                    self.sb.rsv_valid.next =
                        self.gv.val() & !self.i_fault.val() & self.i_rd_valid.val();
                    self.sb.rsv_warp.next = self.g.val();
                    self.sb.rsv_rd.next = self.i_rd.val();
                    self.oc.issue_valid.next = self.gv.val() & !self.i_fault.val();
                    self.oc.issue_warp.next = self.g.val();
                    self.oc.issue_src[0].next = self.i_rs1.val();
                    self.oc.issue_need[0].next = self.i_rs1_valid.val();
                    self.oc.issue_src[1].next = self.i_rs2.val();
                    self.oc.issue_need[1].next = self.i_rs2_valid.val();
                    self.oc.issue_src[2].next = self.k_reg_ra.val();
                    self.oc.issue_need[2].next = self.i_at_return.val();
                    // The unit route travels with the tag in the collector's payload, so the
                    // dispatch checks need no decode.
                    self.pk_route.d[0].next = self.i_to_alu.val();
                    self.pk_route.d[1].next = self.i_to_mul.val();
                    self.pk_route.d[2].next = self.i_to_div.val();
                    self.pk_route.d[3].next = self.i_to_lsu.val();
                    self.pk_route.d[4].next = self.i_control.val() | self.i_ends.val();
                    // A shift in the multiplier (a multiplication has `funct7` 0000001, a
                    // shift bit 25 clear): its result comes after `shift_latency` cycles.
                    self.pk_route.d[5].next = self.i_to_mul.val() & !self.i_word.val().get_bit(25);
                    self.pk_tag16.d[1].next = self.pk_route.q.val();
                    self.oc.issue_payload.next = self.pk_tag16.q.val();

                    self.tr_issue_valid.next = self.gv.val();
                    self.tr_issue_warp.next = self.pk_g8.q.val();
                    self.tr_issue_pc.next = self.i_pc.val();
                    self.tr_issue_instr.next = self.i_word.val();
                    self.tr_issue_mask.next = self.pk_imask.q.val();
                    self.tr_issue_tag.next = self.n_tag.val();

                    // ---------------- dispatch (cycle D): operand collector handshake, tag-table
                    // read, decode, into the dispatch register
                    self.td.next = self.oc.disp_payload.val().get_bits::<8>(0);
                    self.tags.disp_tag.next = self.td.val();
                    self.d_pc.next = self.tags.disp_pc.val();
                    self.ex_d.d.next = self.tags.disp_exec.val();
                    self.d_recon.next = self.tags.disp_recon.val();
                    self.d_csr.next = self.tags.disp_csr.val();
                    self.d_mask.next = self.tags.disp_mask.val();
                    self.d_ends.next = self.tags.disp_ends.val();
                    self.need_alu.next = self.oc.disp_payload.val().get_bit(8);
                    self.need_mul.next = self.oc.disp_payload.val().get_bit(9);
                    self.mul_shift.next = self.oc.disp_payload.val().get_bit(13);
                    self.need_mult.next = self.need_mul.val() & !self.mul_shift.val();
                    self.need_shift.next = self.need_mul.val() & self.mul_shift.val();
                    self.need_div.next = self.oc.disp_payload.val().get_bit(10);
                    self.need_lsu.next = self.oc.disp_payload.val().get_bit(11);
                    self.need_bu.next = self.oc.disp_payload.val().get_bit(12);
                    // The unit takes the instruction in D + 1, from the dispatch register: its
                    // writeback slot is one cycle further ahead, and a unit is busy while the
                    // register holds an instruction for it.
                    self.d_ready.next = !self.halted.val();
                    for na in self._alu_lat..(self._alu_lat + 1) {
                        if self.need_alu.val() & self.slot.q[na + 1].val() {
                            self.d_ready.next = false;
                        }
                    }
                    for nm in self._mul_lat..(self._mul_lat + 1) {
                        if self.need_mult.val() & self.slot.q[nm + 1].val() {
                            self.d_ready.next = false;
                        }
                    }
                    for ns in self._shift_lat..(self._shift_lat + 1) {
                        if self.need_shift.val() & self.slot.q[ns + 1].val() {
                            self.d_ready.next = false;
                        }
                    }
                    for nd in self._div_lat..(self._div_lat + 1) {
                        if self.need_div.val()
                            & (self.slot.q[nd + 1].val()
                                | !self.div.in_ready.val()
                                | self.dreg.e_to_div.val())
                        {
                            self.d_ready.next = false;
                        }
                    }
                    // The load/store and branch units take the next instruction in the cycle
                    // after they finish one, as they would without the register.
                    if self.need_lsu.val()
                        & (!self.lsu.in_ready.val() | self.dreg.e_to_lsu.val() | self.cta_go.val())
                        & !self.lsu.finishing.val()
                    {
                        self.d_ready.next = false;
                    }
                    if self.need_bu.val()
                        & (!self.bu.in_ready.val() | self.dreg.e_to_bu.val())
                        & !self.bu.finishing.val()
                    {
                        self.d_ready.next = false;
                    }
                    self.oc.disp_ready.next = self.d_ready.val();
                    self.d_fire.next = self.oc.disp_valid.val() & self.d_ready.val();
                    self.d_done.next = self.d_fire.val()
                        & !self.need_alu.val()
                        & !self.need_mul.val()
                        & !self.need_div.val()
                        & !self.need_lsu.val();

                    // Writeback slots.
                    for s in 0..(self._slots - 1) {
                        self.slot.d[s].next = self.slot.q[s + 1].val();
                    }
                    for ns in (self._slots - 1)..self._slots {
                        self.slot.d[ns].next = false;
                    }
                    for na in self._alu_lat..(self._alu_lat + 1) {
                        if self.d_fire.val() & self.need_alu.val() {
                            self.slot.d[na].next = true;
                        }
                    }
                    for nm in self._mul_lat..(self._mul_lat + 1) {
                        if self.d_fire.val() & self.need_mult.val() {
                            self.slot.d[nm].next = true;
                        }
                    }
                    for ns in self._shift_lat..(self._shift_lat + 1) {
                        if self.d_fire.val() & self.need_shift.val() {
                            self.slot.d[ns].next = true;
                        }
                    }
                    for nd in self._div_lat..(self._div_lat + 1) {
                        if self.d_fire.val() & self.need_div.val() {
                            self.slot.d[nd].next = true;
                        }
                    }
                    if self.rst.val() {
                        for s in 0..self._slots {
                            self.slot.d[s].next = false;
                        }
                    }

                    // Early release: an ALU or multiplier result frees its scoreboard entry in the
                    // cycle before its writeback (D + lat), so a dependent instruction issues
                    // then and collects the value from the writeback (operand forwarding).
                    for r in 0..(self._rels - 1) {
                        self.rel_valid.d[r].next = self.rel_valid.q[r + 1].val();
                        self.rel_warp.d[r].next = self.rel_warp.q[r + 1].val();
                        self.rel_rd.d[r].next = self.rel_rd.q[r + 1].val();
                    }
                    for nr in (self._rels - 1)..self._rels {
                        self.rel_valid.d[nr].next = false;
                        self.rel_warp.d[nr].next = self.rel_warp.q[nr].val();
                        self.rel_rd.d[nr].next = self.rel_rd.q[nr].val();
                    }
                    for na in self._alu_lat..(self._alu_lat + 1) {
                        if self.d_fire.val() & self.need_alu.val() {
                            self.rel_valid.d[na - 1].next = true;
                            self.rel_warp.d[na - 1].next = self.oc.disp_warp.val();
                            self.rel_rd.d[na - 1].next = self.ex_d.rd.val();
                        }
                    }
                    for nm in self._mul_lat..(self._mul_lat + 1) {
                        if self.d_fire.val() & self.need_mult.val() {
                            self.rel_valid.d[nm - 1].next = true;
                            self.rel_warp.d[nm - 1].next = self.oc.disp_warp.val();
                            self.rel_rd.d[nm - 1].next = self.ex_d.rd.val();
                        }
                    }
                    for ns in self._shift_lat..(self._shift_lat + 1) {
                        if self.d_fire.val() & self.need_shift.val() {
                            self.rel_valid.d[ns - 1].next = true;
                            self.rel_warp.d[ns - 1].next = self.oc.disp_warp.val();
                            self.rel_rd.d[ns - 1].next = self.ex_d.rd.val();
                        }
                    }
                    if self.rst.val() {
                        for r in 0..self._rels {
                            self.rel_valid.d[r].next = false;
                        }
                    }

                    // Dispatch register (hdl/src/dispatch_register.rs).
                    self.dreg.d_to_alu.next = self.d_fire.val() & self.need_alu.val();
                    self.dreg.d_to_mul.next = self.d_fire.val() & self.need_mul.val();
                    self.dreg.d_to_div.next = self.d_fire.val() & self.need_div.val();
                    self.dreg.d_to_lsu.next = self.d_fire.val() & self.need_lsu.val();
                    self.dreg.d_to_bu.next = self.d_fire.val() & self.need_bu.val();
                    self.dreg.d_tag.next = self.td.val();
                    self.dreg.d_warp.next = self.oc.disp_warp.val();
                    self.dreg.d_pc.next = self.d_pc.val();
                    self.dreg.d_mask.next = self.d_mask.val();
                    self.dreg.d_csr.next = self.d_csr.val();
                    self.dreg.d_recon.next = self.d_recon.val();
                    self.dreg.d_alu_op.next = self.ex_d.alu_op.val();
                    self.dreg.d_cmp.next = self.ex_d.cmp.val();
                    self.dreg.d_md_op.next = self.ex_d.md_op.val();
                    self.dreg.d_mem_size.next = self.ex_d.mem_size.val();
                    self.dreg.d_csr_step.next = self.ex_d.csr_step.val();
                    self.dreg.d_imm.next = self.ex_d.imm.val();
                    self.dreg.d_a_pc.next = self.ex_d.a_pc.val();
                    self.dreg.d_a_zero.next = self.ex_d.a_zero.val();
                    self.dreg.d_b_imm.next = self.ex_d.b_imm.val();
                    self.dreg.d_b_four.next = self.ex_d.b_four.val();
                    self.dreg.d_is_csr.next = self.ex_d.is_csr.val();
                    self.dreg.d_is_store.next = self.ex_d.is_store.val();
                    self.dreg.d_mem_unsigned.next = self.ex_d.mem_unsigned.val();
                    self.dreg.d_is_jalr.next = self.ex_d.is_jalr.val();
                    self.dreg.d_is_branch.next = self.ex_d.is_branch.val();
                    self.dreg.d_is_jal.next = self.ex_d.is_jal.val();
                    self.dreg.d_is_exit.next = self.ex_d.is_exit.val();
                    self.dreg.d_is_tmc.next = self.ex_d.is_tmc.val();
                    self.dreg.d_rd_valid.next = self.ex_d.rd_valid.val();
                    for i in 0..(3 * self._lanes) {
                        self.dreg.d_data[i].next = self.oc.disp_data[i].val();
                    }
                    // A shift's exponent (hdl/src/multiplier.rs, which decodes the power of two
                    // from it): the amount, the immediate's or `rs2`'s low five bits, inverted
                    // (31 − amount) for a right shift, whose multiplier op is not `mul`. Each
                    // bit one LUT: the data bit, the immediate's, `b_imm`, the direction.
                    for l in 0..self._lanes {
                        self.sh_src[l].next = self.oc.disp_data[nl + l].val().get_bits::<5>(0);
                        if self.ex_d.b_imm.val() {
                            self.sh_src[l].next = self.ex_d.imm.val().get_bits::<5>(0);
                        }
                        self.dreg.d_sh_expo[l].next = self.sh_src[l].val();
                        if self.ex_d.md_op.val() != self.k_md_mul.val() {
                            self.dreg.d_sh_expo[l].next = !self.sh_src[l].val();
                        }
                    }

                    // ---------------- execution units (cycle D + 1), from the dispatch register;
                    // nothing enters a unit once the GPU has stopped on a fault
                    self.alu.in_valid.next = self.dreg.e_to_alu.val() & !self.halted.val();
                    self.alu.in_op.next = self.dreg.e_alu_op.val();
                    self.alu.in_cmp.next = self.dreg.e_cmp.val();
                    self.alu.in_tag.next = self.dreg.e_tag.val();
                    self.mul.in_valid.next = self.dreg.e_to_mul.val() & !self.halted.val();
                    self.mul.in_op.next = self.dreg.e_md_op.val();
                    // A shift has its ALU function in `alu_op` ({funct7[5], funct3}: bit 0 set,
                    // 001 or 101); a multiplication has `alu_op` 0.
                    self.mul.in_shift.next = self.dreg.e_alu_op.val().get_bit(0);
                    self.mul.in_tag.next = self.dreg.e_tag.val();
                    self.div.in_valid.next = self.dreg.e_to_div.val() & !self.halted.val();
                    self.div.in_op.next = self.dreg.e_md_op.val();
                    self.div.in_tag.next = self.dreg.e_tag.val();
                    for l in 0..self._lanes {
                        // A jalr's link is computed for every active lane; the lanes that do
                        // not execute it now are masked at the ALU's writeback (`jl_*`).
                        self.alu.in_mask[l].next = self.dreg.e_mask.val().get_bit(l);
                        self.alu.in_a[l].next = self.dreg.e_alu_data[l].val();
                        if self.dreg.e_a_pc.val() {
                            self.alu.in_a[l].next = self.dreg.e_pc.val();
                        }
                        if self.dreg.e_a_zero.val() {
                            self.alu.in_a[l].next = self.k_zero32.val();
                        }
                        if self.dreg.e_is_csr.val() {
                            self.alu.in_a[l].next = self.dreg.e_csr.val();
                        }
                        self.alu.in_b[l].next = self.dreg.e_alu_data[nl + l].val();
                        if self.dreg.e_b_imm.val() {
                            self.alu.in_b[l].next = self.dreg.e_imm.val();
                        }
                        if self.dreg.e_b_four.val() {
                            self.alu.in_b[l].next = self.k_four.val();
                        }
                        // A CSR read is an ALU add: lane 0's value plus the lane's step (the
                        // lane number, or minus the lane's stack offset), so the per-lane CSR
                        // values need no adders of their own.
                        if self.dreg.e_is_csr.val() {
                            self.alu.in_b[l].next = self.k_zero32.val();
                            if self.dreg.e_csr_step.val() == self.k_step_lane.val() {
                                self.alu.in_b[l].next = self.k_lane32[l].val();
                            }
                            if self.dreg.e_csr_step.val() == self.k_step_stack.val() {
                                self.alu.in_b[l].next = self.k_lane_stack_neg[l].val();
                            }
                        }
                        self.mul.in_mask[l].next = self.dreg.e_mask.val().get_bit(l);
                        self.mul.in_a[l].next = self.dreg.e_mul_data[l].val();
                        self.mul.in_b[l].next = self.dreg.e_mul_data[nl + l].val();
                        self.mul.in_expo[l].next = self.dreg.e_sh_expo[l].val();
                        self.div.in_mask[l].next = self.dreg.e_mask.val().get_bit(l);
                        self.div.in_a[l].next = self.dreg.e_div_data[l].val();
                        self.div.in_b[l].next = self.dreg.e_div_data[nl + l].val();
                        self.lsu.in_mask[l].next = self.dreg.e_mask.val().get_bit(l);
                        self.lsu.in_base[l].next = self.dreg.e_lsu_data[l].val();
                        self.lsu.in_data[l].next = self.dreg.e_lsu_data[nl + l].val();
                        self.bu.in_a[l].next = self.dreg.e_bu_data[l].val();
                        self.bu.in_b[l].next = self.dreg.e_bu_data[nl + l].val();
                    }
                    // `ra` of lanes 0 … L-2 (the branch unit never uses the last lane's).
                    for l in 0..self._ra_lanes {
                        self.bu.in_ra[l].next = self.dreg.e_bu_data[nl + nl + l].val();
                    }
                    for j in self._ra_last..(self._ra_last + 1) {
                        self.u32.d[2].next = self.dreg.e_bu_data[j].val();
                    }
                    self.lsu.in_valid.next = self.dreg.e_to_lsu.val() & !self.halted.val();
                    self.lsu.in_tag.next = self.dreg.e_tag.val();
                    self.lsu.in_warp.next = self.dreg.e_warp.val();
                    self.lsu.in_store.next = self.dreg.e_is_store.val();
                    self.lsu.in_size.next = self.dreg.e_mem_size.val();
                    self.lsu.in_unsigned.next = self.dreg.e_mem_unsigned.val();
                    self.lsu.in_offset.next = self.dreg.e_imm.val();
                    // The CTA's shared-memory base, looked up from the dispatch register's warp
                    // (its CTA slot and the slot's base do not change while it has an
                    // instruction in flight), not in the dispatch cycle.
                    self.e_cta.next = self.launch.slot.val();
                    for w in 0..self._warps {
                        if self.dreg.e_warp.val() == self.k_wid[w].val() {
                            self.e_cta.next = self.w_cta.q[w].val();
                        }
                    }
                    self.e_smem.next = self.k_zero32.val();
                    for j in 0..self._warps {
                        if self.e_cta.val() == self.k_wid[j].val() {
                            self.e_smem.next = self.c_base.q[j].val();
                        }
                    }
                    self.lsu.in_smem_base.next = self.e_smem.val();
                    // Registered (the shared size is fixed while a kernel runs): the parameter's
                    // rounding is not in front of the LSU's window check.
                    self.lsu.in_smem_size.next = self.need32_q.q[0].val();
                    self.bu.in_valid.next = self.dreg.e_to_bu.val() & !self.halted.val();
                    self.bu.in_warp.next = self.dreg.e_warp.val();
                    for w in 0..self._warps {
                        self.bu_tos_mux.sel[w].next = self.dreg.e_warp.val() == self.k_wid[w].val();
                        self.bu_tos_mux.d[w].next = self.stack.tos_rpc[w].val();
                    }
                    self.bu.in_tos_rpc.next = self.bu_tos_mux.q[0].val();
                    self.bu.in_pc.next = self.dreg.e_pc.val();
                    self.bu.in_imm.next = self.dreg.e_imm.val();
                    self.bu.in_cmp.next = self.dreg.e_cmp.val();
                    self.bu.in_recon.next = self.dreg.e_recon.val();
                    self.bu.in_mask.next = self.dreg.e_mask.val();
                    self.bu.in_branch.next = self.dreg.e_is_branch.val();
                    self.bu.in_jal.next = self.dreg.e_is_jal.val();
                    self.bu.in_jalr.next = self.dreg.e_is_jalr.val();
                    self.bu.in_rd_zero.next = !self.dreg.e_rd_valid.val();
                    self.bu.in_exit.next = self.dreg.e_is_exit.val();
                    self.bu.in_tmc.next = self.dreg.e_is_tmc.val();
                    self.bu.stack_full.next = false;
                    for w in 0..self._warps {
                        self.u_full.d[w].next = self.stack.full[w].val();
                    }
                    for _z in 0..self._can_overflow {
                        for w in 0..self._warps {
                            if self.bu.cmd_warp.val() == self.k_wid[w].val() {
                                self.bu.stack_full.next = self.stack.full[w].val();
                            }
                        }
                    }

                    // ---------------- writeback (hdl/src/writeback.rs)
                    // The jalr link mask (`jl_*`): flag stages from E; the branch unit's group
                    // is registered for E+2, its copies (`jl_group`) for E+3 on.
                    self.jl_flag.d[0].next = self.dreg.e_to_alu.val()
                        & self.dreg.e_is_jalr.val()
                        & !self.halted.val()
                        & !self.rst.val();
                    for k in 1..self._alu_lat {
                        self.jl_flag.d[k].next = self.jl_flag.q[k - 1].val() & !self.rst.val();
                    }
                    for k in 0..self._jl_first {
                        self.jl_group.d[k].next = self.bu.jalr_group.val();
                    }
                    for k in 1..self._jl_stages {
                        self.jl_group.d[k].next = self.jl_group.q[k - 1].val();
                    }
                    self.jl_mask.next = self.bu.jalr_group.val();
                    for k in self._jl_meet_lo..self._jl_meet_hi {
                        self.jl_mask.next = self.jl_group.q[k].val();
                    }
                    self.wb.alu_valid.next = self.alu.out_valid.val();
                    self.wb.alu_tag.next = self.alu.out_tag.val();
                    self.wb.mul_valid.next = self.mul.out_valid.val();
                    self.wb.mul_tag.next = self.mul.out_tag.val();
                    self.wb.div_valid.next = self.div.out_valid.val();
                    self.wb.div_tag.next = self.div.out_tag.val();
                    self.wb.lsu_valid.next = self.lsu.out_valid.val();
                    self.wb.lsu_load_valid.next = self.lsu.out_load_valid.val();
                    self.wb.lsu_store.next = self.lsu.out_store.val();
                    self.wb.lsu_tag.next = self.lsu.out_tag.val();
                    self.lsu.out_ready.next = self.wb.lsu_ready.val();
                    self.lsu_done.next = self.wb.lsu_done.val();
                    self.wb_valid.next = self.wb.valid.val();
                    self.wb_tag.next = self.wb.tag.val();
                    self.tags.wb_tag.next = self.wb_tag.val();
                    self.wb.clock.next = self.clock.val();
                    self.wb.fx_next_warp.next = self.rel_warp.q[0].val();
                    self.wb.fx_next_rd.next = self.rel_rd.q[0].val();
                    self.wb.disp_div.next = self.d_fire.val() & self.need_div.val();
                    self.wb.disp_lsu.next = self.d_fire.val() & self.need_lsu.val();
                    self.wb.disp_warp.next = self.oc.disp_warp.val();
                    self.wb.disp_rd.next = self.ex_d.rd.val();
                    self.wb_warp.next = self.wb.warp.val();
                    self.wb_rd.next = self.wb.rd.val();
                    self.wb_instr.next = self.tags.wb_instr.val();
                    self.wb.instr.next = self.wb_instr.val();
                    self.wb_mask32.next = self.pk_wbm.q.val();
                    self.st_mask32.next = self.pk_stm.q.val();
                    self.tr_wb_data.next = self.pack_wb.q.val();
                    self.tr_st_addr.next = self.pack_st_addr.q.val();
                    self.tr_st_data.next = self.pack_st_data.q.val();
                    for l in 0..self._lanes {
                        self.wb.alu_mask[l].next = self.alu.out_mask[l].val();
                        self.wb.alu_result[l].next = self.alu.out_result[l].val();
                        for last in (self._alu_lat - 1)..self._alu_lat {
                            if self.jl_flag.q[last].val() & !self.jl_mask.val().get_bit(l) {
                                self.wb.alu_mask[l].next = false;
                                self.wb.alu_result[l].next = self.k_zero32.val();
                            }
                        }
                        self.wb.mul_mask[l].next = self.mul.out_mask[l].val();
                        self.wb.mul_result[l].next = self.mul.out_result[l].val();
                        self.wb.div_mask[l].next = self.div.out_mask[l].val();
                        self.wb.div_result[l].next = self.div.out_result[l].val();
                        self.wb.lsu_mask[l].next = self.lsu.out_mask[l].val();
                        self.wb.lsu_data[l].next = self.lsu.out_data[l].val();
                        self.wb_mask[l].next = self.wb.mask[l].val();
                        self.wb_data[l].next = self.wb.data[l].val();
                        self.pk_wbm.d[l].next = self.wb_mask[l].val();
                        self.pk_stm.d[l].next = self.lsu.out_mask[l].val();
                        self.oc.wb_mask[l].next = self.wb_mask[l].val();
                        self.oc.wb_data[l].next = self.wb_data[l].val();
                        self.pack_wb.d[l].next = self.wb_data[l].val();
                        self.pack_st_addr.d[l].next = self.lsu.out_addr[l].val();
                        self.pack_st_data.d[l].next = self.lsu.out_sdata[l].val();
                    }
                    self.oc.wb_valid.next =
                        self.wb_valid.val() & (self.wb_rd.val() != self.k_zero5.val());
                    self.oc.wb_warp.next = self.wb_warp.val();
                    self.oc.wb_rd.next = self.wb_rd.val();
                    // Releases take effect at the scoreboard's edge, so each is presented the
                    // cycle before the issue check may ignore the register: divider and load
                    // results in their writeback cycle (free from the next), ALU and
                    // multiplier results as they enter the head of `rel` (free from the cycle
                    // before their writeback, as the forwarding-era early release).
                    self.sb.rel0_valid.next = self.wb_valid.val()
                        & (self.wb_rd.val() != self.k_zero5.val())
                        & !self.alu.out_valid.val()
                        & !self.mul.out_valid.val()
                        & !self.rst.val();
                    self.sb.rel0_warp.next = self.wb_warp.val();
                    self.sb.rel0_rd.next = self.wb_rd.val();
                    self.sb.rel1_valid.next = self.rel_valid.d[0].val();
                    self.sb.rel1_warp.next = self.rel_warp.d[0].val();
                    self.sb.rel1_rd.next = self.rel_rd.d[0].val();
                    self.tr_wb_valid.next =
                        self.wb_valid.val() & (self.wb_rd.val() != self.k_zero5.val());
                    self.tr_wb_tag.next = self.wb_tag.val();
                    self.tr_wb_rd.next = self.wb_rd.val();
                    self.tr_wb_mask.next = self.wb_mask32.val();
                    self.tr_st_valid.next = self.lsu_done.val() & self.lsu.out_store.val();
                    self.tr_st_tag.next = self.lsu.out_tag.val();
                    self.tr_st_size.next = self.lsu.out_size.val();
                    self.tr_st_mask.next = self.st_mask32.val();

                    // ---------------- tag table: release, allocation
                    self.trel_v.d[0].next = self.d_done.val() & !self.rst.val();
                    self.trel_t.d[0].next = self.td.val();
                    self.trel_v.d[1].next = self.wb_valid.val() & !self.rst.val();
                    self.trel_t.d[1].next = self.wb_tag.val();
                    self.trel_v.d[2].next =
                        self.lsu_done.val() & self.lsu.out_store.val() & !self.rst.val();
                    self.trel_t.d[2].next = self.lsu.out_tag.val();
                    for p in 0..RELEASE_PORTS {
                        self.tags.rel_valid[p].next = self.trel_v.q[p].val();
                        self.tags.rel_tag[p].next = self.trel_t.q[p].val();
                    }
                    self.tags.alloc_valid.next = self.gv.val() & !self.i_fault.val();
                    self.tags.alloc_warp.next = self.g.val();
                    self.tags.alloc_pc.next = self.i_pc.val();
                    self.tags.alloc_instr.next = self.i_word.val();
                    self.ex_i.imm.next = self.dec_i.imm.val();
                    self.ex_i.alu_op.next = self.dec_i.alu_op.val();
                    self.ex_i.cmp.next = self.dec_i.cmp.val();
                    self.ex_i.md_op.next = self.dec_i.md_op.val();
                    self.ex_i.mem_size.next = self.dec_i.mem_size.val();
                    self.ex_i.csr_step.next = self.dec_i.csr_step.val();
                    self.ex_i.rd.next = self.dec_i.rd.val();
                    self.ex_i.rd_valid.next = self.dec_i.rd_valid.val();
                    self.ex_i.a_pc.next = self.dec_i.a_pc.val();
                    self.ex_i.a_zero.next = self.dec_i.a_zero.val();
                    self.ex_i.b_imm.next = self.dec_i.b_imm.val();
                    self.ex_i.b_four.next = self.dec_i.b_four.val();
                    self.ex_i.is_csr.next = self.dec_i.is_csr.val();
                    self.ex_i.is_store.next = self.dec_i.is_store.val();
                    self.ex_i.mem_unsigned.next = self.dec_i.mem_unsigned.val();
                    self.ex_i.is_jalr.next = self.dec_i.is_jalr.val();
                    self.ex_i.is_branch.next = self.dec_i.is_branch.val();
                    self.ex_i.is_jal.next = self.dec_i.is_jal.val();
                    self.ex_i.is_exit.next = self.dec_i.is_exit.val();
                    self.ex_i.is_tmc.next = self.dec_i.is_tmc.val();
                    self.tags.alloc_exec.next = self.ex_i.q.val();
                    self.tags.alloc_recon.next = self.i_recon.val();
                    self.tags.alloc_csr.next = self.i_csr.val();
                    self.tags.alloc_mask.next = self.i_mask.val();
                    self.tags.alloc_ends.next = self.i_ends.val();

                    // ---------------- SIMT stack: branch unit first, CTA launch when it is idle;
                    // the command is registered in `sport` (hdl/src/stack_port.rs)
                    self.sport.branch.op.next = self.bu.cmd_op.val();
                    self.sport.branch.warp.next = self.bu.cmd_warp.val();
                    self.sport.branch.rpc.next = self.bu.cmd_rpc.val();
                    self.sport.branch.pc_a.next = self.bu.cmd_pc_a.val();
                    self.sport.branch.mask_a.next = self.bu.cmd_mask_a.val();
                    self.sport.branch.pc_b.next = self.bu.cmd_pc_b.val();
                    self.sport.branch.mask_b.next = self.bu.cmd_mask_b.val();
                    self.sport.branch.eq_a.next = self.bu.cmd_eq_a.val();
                    self.sport.branch.eq_b.next = self.bu.cmd_eq_b.val();
                    self.sport.branch.eq_o.next = self.bu.cmd_eq_o.val();
                    self.sport.branch.eq_s.next = self.bu.cmd_eq_s.val();
                    self.sport.bu_redirect_valid.next = self.bu.redirect_valid.val();
                    self.sport.bu_redirect_warp.next = self.bu.redirect_warp.val();
                    self.sport.launch_redirect_valid.next = self.launch.redirect_valid.val();
                    self.sport.launch_redirect_warp.next = self.launch.redirect_warp.val();
                    self.stack.cmd_op.next = self.sport.cmd_op.val();
                    self.stack.cmd_warp.next = self.sport.cmd_warp.val();
                    for w in 0..self._warps {
                        self.stack.cmd_sel[w].next = self.sport.cmd_sel[w].val();
                    }
                    self.stack.cmd_rpc.next = self.sport.cmd_rpc.val();
                    self.stack.cmd_pc_a.next = self.sport.cmd_pc_a.val();
                    self.stack.cmd_mask_a.next = self.sport.cmd_mask_a.val();
                    self.stack.cmd_pc_b.next = self.sport.cmd_pc_b.val();
                    self.stack.cmd_mask_b.next = self.sport.cmd_mask_b.val();
                    self.stack.cmd_eq_a.next = self.sport.cmd_eq_a.val();
                    self.stack.cmd_eq_b.next = self.sport.cmd_eq_b.val();
                    self.stack.cmd_eq_o.next = self.sport.cmd_eq_o.val();
                    self.stack.cmd_eq_s.next = self.sport.cmd_eq_s.val();
                    self.stack.dbg_warp.next = self.k_wid[0].val();
                    self.stack.dbg_entry.next = self.k_zero8.val();

                    // CTA launch sequencer (hdl/src/cta_launch.rs).
                    self.launch.accept.next = self.cta_go.val();
                    self.launch.cta_id.next = self.cta_id.val();
                    self.launch.cta_gtid0.next = self.cta_gtid0.val();
                    self.launch.cta_slot.next = self.jf_q.q[1].val();
                    self.launch.ntid.next = self.k_ntid.val();
                    self.launch.cta_warps.next = self.cta_warps8.val();
                    self.launch.clear_busy.next = self.lsu.clear_busy.val();
                    // The stack's command port is free for a CTA launch while the branch unit
                    // holds no instruction (a registered flag: the unit's command logic stays
                    // out of the launch decision).
                    self.launch.stack_free.next = self.bu.in_ready.val();
                    self.launch.halted.next = self.halted.val();
                    self.launch.warp.next = self.l_warp.val();
                    self.l_go.next = self.launch.go.val();
                    self.l_mask.next = self.launch.mask.val();
                    self.l_last.next = self.launch.last.val();
                    self.sport.launch_go.next = self.l_go.val();
                    self.sport.launch_warp.next = self.l_warp.val();
                    self.sport.launch_mask.next = self.l_mask.val();
                    self.sport.launch_pc.next = self.k_entry.val();

                    // ---------------- redirects into fetch
                    for w in 0..self._warps {
                        self.fetch.tos_rpc[w].next = self.stack.tos_rpc[w].val();
                        self.fetch.redirect_pc[w].next = self.stack.tos_pc[w].val();
                        // After a pop that reads the new top from RAM, the stack is busy: the
                        // redirect waits for it.
                        self.redir_want[w].next = (self.sport.bu_redirect_valid_q.val()
                            & (self.sport.bu_redirect_warp_q.val() == self.k_wid[w].val()))
                            | self.w_redir.q[w].val();
                        self.w_redir.d[w].next =
                            self.redir_want[w].val() & self.stack.busy[w].val() & !self.rst.val();
                        self.fetch.redirect[w].next = (self.redir_want[w].val()
                            & !self.stack.busy[w].val()
                            & !self.stack.empty[w].val())
                            | (self.sport.launch_redirect_valid_q.val()
                                & (self.sport.launch_redirect_warp_q.val() == self.k_wid[w].val()));
                    }
                    self.fetch.load_valid.next = self.load_valid.val();
                    self.fetch.load_addr.next = self.load_addr.val();
                    self.fetch.load_word.next = self.load_word.val();
                    self.fetch.load_recon.next = self.load_recon.val();

                    // ---------------- warps: liveness, barriers, CTA completion
                    self.any_launched.next = false;
                    for w in 0..self._warps {
                        // A launched warp whose reset waits in the stack port has an empty
                        // stack for that cycle.
                        self.w_empty[w].next = self.stack.empty[w].val()
                            & !(self.sport.reset_pending.val()
                                & (self.sport.cmd_warp.val() == self.k_wid[w].val()));
                    }
                    for w in 0..self._warps {
                        self.w_live[w].next = self.w_launched.q[w].val()
                            & (!self.w_empty[w].val() | self.w_busy[w].val());
                        if self.w_launched.q[w].val() {
                            self.any_launched.next = true;
                        }
                    }
                    for nw in self._warps..(self._warps + 1) {
                        for j in 0..self._warps {
                            self.cta_wait[j].next = self.c_launching.q[j].val();
                            self.cta_live[j].next = false;
                            for v in 0..self._warps {
                                if self.w_in_cta.q[v * nw + j].val() {
                                    if self.w_launched.q[v].val()
                                        & !self.w_empty[v].val()
                                        & !self.w_bar.q[v].val()
                                    {
                                        self.cta_wait[j].next = true;
                                    }
                                    if self.w_live[v].val() {
                                        self.cta_live[j].next = true;
                                    }
                                }
                            }
                            self.cta_done[j].next = self.c_valid.q[j].val()
                                & !self.c_launching.q[j].val()
                                & !self.cta_live[j].val();
                        }
                        for w in 0..self._warps {
                            self.bar_ok[w].next = self.w_bar.q[w].val();
                            for j in 0..self._warps {
                                if self.w_in_cta.q[w * nw + j].val() & self.cta_wait[j].val() {
                                    self.bar_ok[w].next = false;
                                }
                            }
                        }
                    }
                    // A launch writes the warp's ids (read at its issues, many cycles later).
                    for r in 0..3 {
                        self.w_words.we[r].next = self.l_go.val();
                        self.w_words.waddr[r].next = self.l_warp.val();
                    }
                    self.w_words.wdata[0].next = self.launch.tid.val();
                    self.w_words.wdata[1].next = self.launch.cta.val();
                    self.w_words.wdata[2].next = self.launch.gtid.val();
                    for nw in self._warps..(self._warps + 1) {
                        for w in 0..self._warps {
                            for j in 0..self._warps {
                                self.w_in_cta.d[w * nw + j].next =
                                    self.w_in_cta.q[w * nw + j].val();
                                if self.l_go.val() & (self.l_warp.val() == self.k_wid[w].val()) {
                                    self.w_in_cta.d[w * nw + j].next =
                                        self.launch.slot.val() == self.k_wid[j].val();
                                }
                            }
                        }
                    }
                    for w in 0..self._warps {
                        self.w_launched.d[w].next = self.w_launched.q[w].val();
                        self.w_cta.d[w].next = self.w_cta.q[w].val();
                        self.w_bar.d[w].next = self.w_bar.q[w].val() & !self.bar_ok[w].val();
                        self.w_iv.d[w].next = self.w_iv.q[w].val();
                        self.w_rsv.d[w].next = (self.w_rsv.q[w].val()
                            | (self.cta_go.val() & self.take[w].val()))
                            & !(self.l_go.val() & (self.l_warp.val() == self.k_wid[w].val()))
                            & !self.rst.val();
                        for _z in 0..self._gto {
                            self.sched.launch[w].next = false;
                        }
                        self.pk_launch.d[w].next = false;
                        self.sb.clear[w].next = false;
                        if self.gv.val() & (self.g.val() == self.k_wid[w].val()) {
                            self.w_iv.d[w].next = true;
                            if self.dec_iss.is_bar.val() & !self.i_fault.val() {
                                self.w_bar.d[w].next = true;
                            }
                        }
                        // A warp's slot is free once its threads have exited and its last instruction has
                        // completed (docs/isa.md §6; the model frees it the same way).
                        if self.w_launched.q[w].val() & !self.w_live[w].val() {
                            self.w_launched.d[w].next = false;
                        }
                        if self.l_go.val() & (self.l_warp.val() == self.k_wid[w].val()) {
                            self.w_launched.d[w].next = true;
                            self.w_cta.d[w].next = self.launch.slot.val();
                            self.w_iv.d[w].next = false;
                            self.w_bar.d[w].next = false;
                            for _z in 0..self._gto {
                                self.sched.launch[w].next = true;
                            }
                            self.pk_launch.d[w].next = true;
                            self.sb.clear[w].next = true;
                        }
                        if self.rst.val() {
                            self.w_launched.d[w].next = false;
                            self.w_bar.d[w].next = false;
                        }
                    }
                    for j in 0..self._warps {
                        self.c_valid.d[j].next = self.c_valid.q[j].val() & !self.cta_done[j].val();
                        self.c_launching.d[j].next = self.c_launching.q[j].val();
                        self.c_base.d[j].next = self.c_base.q[j].val();
                        if self.cta_go.val() & (self.jf_q.q[1].val() == self.k_wid[j].val()) {
                            self.c_valid.d[j].next = true;
                            self.c_launching.d[j].next = true;
                            self.c_base.d[j].next = self.smem_base.val();
                        }
                        if self.l_go.val()
                            & self.l_last.val()
                            & (self.launch.slot.val() == self.k_wid[j].val())
                        {
                            self.c_launching.d[j].next = false;
                        }
                        if self.rst.val() {
                            self.c_valid.d[j].next = false;
                            self.c_launching.d[j].next = false;
                        }
                    }
                    self.busy.next =
                        self.any_launched.val() | !self.launch.idle.val() | self.any_cta.val();

                    // ---------------- faults into the capture (hdl/src/fault_capture.rs)
                    self.tags.fault_tag.next = self.lsu.fault_tag.val();
                    self.f_lsu_pc.next = self.tags.fault_pc.val();
                    // Issue: an illegal instruction, ecall, ebreak or a fetch beyond instruction
                    // memory (the last wins, as the cause of the head instruction).
                    self.faults.issue.valid.next = self.gv.val() & self.i_fault.val();
                    self.faults.issue.warp.next = self.g.val();
                    self.faults.issue.pc.next = self.i_pc.val();
                    self.faults.issue.lane.next = self.k_no_lane.val();
                    self.faults.issue.addr.next = self.k_zero32.val();
                    self.faults.issue.cause.next = self.k_cause_ill.val();
                    if self.dec_i.is_ecall.val() {
                        self.faults.issue.cause.next = self.k_cause_ecall.val();
                    }
                    if self.dec_i.is_ebreak.val() {
                        self.faults.issue.cause.next = self.k_cause_bkpt.val();
                    }
                    if self.i_fetch_fault.val() {
                        self.faults.issue.cause.next = self.k_cause_oorf.val();
                        self.faults.issue.addr.next = self.i_pc.val();
                    }
                    self.faults.branch.valid.next = self.bu.fault_valid.val();
                    self.faults.branch.warp.next = self.bu.fault_warp.val();
                    self.faults.branch.pc.next = self.bu.fault_pc.val();
                    self.faults.branch.cause.next = self.bu.fault_cause.val();
                    self.faults.branch.lane.next = self.bu.fault_lane.val();
                    self.faults.branch.addr.next = self.bu.fault_addr.val();
                    self.faults.lsu.valid.next = self.lsu.fault_valid.val();
                    self.faults.lsu.warp.next = self.lsu.fault_warp.val();
                    self.faults.lsu.pc.next = self.f_lsu_pc.val();
                    self.faults.lsu.cause.next = self.lsu.fault_cause.val();
                    self.faults.lsu.lane.next = self.lsu.fault_lane.val();
                    self.faults.lsu.addr.next = self.lsu.fault_addr.val();
                    self.fault.next = self.faults.valid.val();
                    self.fault_warp.next = self.pk_fw8.q.val();
                    self.fault_pc.next = self.faults.pc.val();
                    self.fault_cause.next = self.faults.cause.val();
                    self.fault_lane.next = self.faults.lane.val();
                    self.fault_addr.next = self.faults.addr.val();

                    // ---------------- outputs of sub-blocks this SM does not use
                    self.u1.d[0].next = self.dec_i.is_load.val();
                    self.u1.d[1].next = self.fetch.ev_fetch.val();
                    self.u1.d[2].next = self.oc.ev_alloc.val();
                    self.u1.d[3].next = self.stack.dbg_valid.val() ^ self.stack.dbg_eq.val();
                    self.u1.d[4].next = self.stack.overflow.val();
                    // (`rel`'s head valid bit: the scoreboard takes the release from its input.)
                    self.u1.d[5].next = self.slot.q[0].val() ^ self.rel_valid.q[0].val();
                    self.u1.d[6].next = (self.dec_i.illegal.val() & self.d_ends.val())
                        ^ (self.dec_i.rs1_valid.val() & self.dec_i.rs2_valid.val())
                        ^ self.dec_i.is_control.val()
                        ^ self.dec_i.is_bar.val();
                    self.u3.d[0].next = self.dec_i.unit.val();
                    self.u5.d[0].next = self.dec_i.rs1.val();
                    self.u5.d[1].next = self.dec_i.rs2.val();
                    for l in 0..self._lanes {
                        self.u1.d[7 + l].next = self.alu.out_taken[l].val();
                    }
                    for w in 0..self._warps {
                        // The heads' route fields: the issue stage takes them from the
                        // head registered at the grant (`dec_iss`).
                        self.u1.d[7 + nl + w].next = self.dec_h[w].to_alu.val()
                            ^ self.dec_h[w].to_mul.val()
                            ^ self.dec_h[w].to_div.val()
                            ^ self.dec_h[w].to_lsu.val()
                            ^ self.dec_h[w].is_control.val();
                    }
                    for b in 0..self._banks {
                        self.u1.d[7 + nl + nw2 + b].next = self.oc.ev_grant[b].val();
                        self.u1.d[7 + nl + nw2 + nb + b].next = self.oc.ev_write[b].val();
                        self.u2.d[b].next = self.oc.ev_grant_src[b].val();
                        self.u6.d[2 + b].next = self.oc.ev_grant_cu[b].val();
                    }
                    self.u1.d[7 + nl + nw2 + nb + nb].next =
                        self.dec_i.is_ecall.val() & self.dec_i.is_ebreak.val();
                    self.u6.d[0].next = self.fetch.ev_fetch_warp.val();
                    self.u6.d[2 + nb].next = self.lsu.out_warp.val();
                    self.u6.d[1].next = self.oc.disp_cu.val() ^ self.oc.ev_alloc_cu.val();
                    self.u8.d[0].next = self.oc.disp_payload.val().get_bits::<8>(8);
                    for w in 0..self._warps {
                        self.u9.d[w].next = self.stack.depth[w].val();
                    }
                    self.u32.d[0].next = self.stack.dbg_pc.val();
                    self.u32.d[1].next = self.stack.dbg_rpc.val();
                    self.u_mask.d[0].next = self.stack.dbg_mask.val();

                    // ---------------- counters
                    self.ctrs.issued.next = self.gv.val();
                    self.ctrs.idle.next =
                        self.any_launched.val() & !self.gv.val() & !self.halted.val();
                    self.ctrs.base.next = self.ctr_base.val();
                    self.tr_idle.next = self.ctrs.idle.val();
                    self.tr_conflicts.next = self.pk_conflict.q.val();
                    self.ctr_issued.next = self.ctrs.ctr_issued.val();
                    self.ctr_idle.next = self.ctrs.ctr_idle.val();
                    self.ctr_conflicts.next = self.ctrs.ctr_conflicts.val();
                    for b in 0..self._banks {
                        self.ctrs.conflict[b].next = self.oc.ev_conflict[b].val();
                        self.pk_conflict.d[b].next = self.oc.ev_conflict[b].val();
                    }
                }
            }
        }
    }
}
