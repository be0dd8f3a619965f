//! Fetch: instruction memory with its reconvergence sidecar, the per-warp fetch PCs and the
//! per-warp instruction buffers (I-buffers) of one SM (docs/microarch/fetch.md,
//! docs/microarch/sm.md "Fetch blocks").
//!
//! In short (the page gives every cycle):
//!
//! * two synchronous-read RAMs of `imem_bytes / 4` words (instruction word and sidecar), written
//!   through the load port, read at most once per cycle by fetch ([`InstrMem`], custom Verilog so
//!   that its depth follows the configuration);
//! * per warp `w`: fetch PC `fpc[w]`, `enabled[w]` (fetching), `inflight[w]` (a read issued last
//!   cycle), and an I-buffer of `E = ibuffer_depth` entries {pc, word, sidecar, fault, ends};
//! * cycle `c`: the first eligible warp (enabled, nothing in flight, I-buffer not full) in
//!   round-robin order after the warp chosen last is chosen and both RAMs are read at its fetch
//!   PC; cycle `c + 1`: the word arrives with the flags pre-decoded at its load (does it end
//!   the fetch block, does it stop the GPU?), is pushed
//!   into the warp's I-buffer, the fetch PC advances by 4, and a block-ending instruction stops
//!   the warp until the next `redirect`;
//! * the I-buffer heads (`head_*`) come straight from flip-flops; `pop` removes one head per
//!   cycle; the PC and sidecar word of one warp's head (`read_warp`) come from distributed RAM
//!   (`read_pc`, `read_recon`).
//!
//! State is held in [`RegVec`]s (one Verilog module per vector, not per flip-flop). Each
//! I-buffer is a shift register with a thermometer valid vector: entry 0 is the head, a pop
//! shifts the entries down, a push writes the first entry that is free after the pop. The PCs
//! and sidecar words are a ring per warp in one RAM (written at the push, never moved).
//!
//! Written against rust-hdl 0.46 (../shared/BRIEF.md "RTL rules"): flattened 2-D vectors
//! (`index = w * E + i`, with `E` bound by a one-iteration loop because an index expression may
//! only contain loop variables and numbers), typed constants for every multi-bit literal, fully
//! parenthesised mixed expressions, compare-and-select instead of indexing by a signal.

// rust-hdl's `#[hdl_gen]` only translates `for i in a..b` loops with indexing.
#![allow(clippy::needless_range_loop)]

use std::collections::BTreeMap;

use rust_hdl::prelude::*;
use warpforge_config::GpuConfig;
use warpforge_isa::sidecar_kind;

use crate::decode::{Decoder, HeadFields, HEAD_PACKED_BITS};
use crate::lut_ram::{addr_bits_for, LutRamArray};
use crate::one_hot::{OneHotMux, RoundRobinPick};
use crate::register_file::clog2;
use crate::scoreboard::RegVec;
pub use crate::scoreboard::{WarpId, WARP_BITS};
use crate::{rename_top, verilog_of, BitPack, HdlError, Unused};

/// Opcodes (`word[6:0]`) that never end a fetch block by themselves: LUI, AUIPC, OP, OP-IMM,
/// LOAD, STORE, MISC-MEM, SYSTEM. Every other opcode (BRANCH, JAL, JALR, custom-0 and the
/// illegal ones) ends it.
pub const PLAIN_OPCODES: [u8; 8] = [0x37, 0x17, 0x33, 0x13, 0x03, 0x23, 0x0f, 0x73];

/// The pre-decoded bits stored with each instruction word (decoded when it is loaded, so that
/// the block RAM's output only feeds flip-flops): bit 0 set if issuing the word does *not*
/// stop the GPU, bit 1 set if its opcode does *not* end a fetch block (inverted so that a
/// never-written word, read as 0, carries word 0's decode: it stops and ends), bits 2.. the
/// issue fields [`HeadFields::issue_bits`] (0 for word 0).
pub const PRE_BITS: usize = 2 + HEAD_PACKED_BITS;

/// Ring addresses: 64 warps × 16 entries.
const RING_BITS: usize = 10;

/// Instruction memory and reconvergence sidecar: two `2^abits` × 32-bit RAMs with one shared
/// synchronous read port (addressed by a byte PC: word `read_pc[abits+1:2]`) and one shared
/// write port (addressed by a word index: `write_index[abits-1:0]`). A read and a write of the
/// same word in one cycle read undefined data on the FPGA (the old contents in simulation). The
/// read outputs hold while `read_enable` is
/// low. Contents are not reset. Range checks are the caller's: the address bits above the memory
/// are ignored here.
#[derive(LogicBlock)]
pub struct InstrMem {
    pub clock: Signal<In, Clock>,
    pub read_enable: Signal<In, Bit>,
    pub read_pc: Signal<In, Bits<32>>,
    pub read_word: Signal<Out, Bits<32>>,
    pub read_recon: Signal<Out, Bits<32>>,
    /// The word's pre-decoded bits, stored beside it ([`PRE_BITS`]).
    pub read_pre: Signal<Out, Bits<PRE_BITS>>,
    pub write_enable: Signal<In, Bit>,
    pub write_index: Signal<In, Bits<32>>,
    pub write_word: Signal<In, Bits<32>>,
    pub write_recon: Signal<In, Bits<32>>,
    pub write_pre: Signal<In, Bits<PRE_BITS>>,
    _abits: usize,
    _sim: BTreeMap<usize, (Bits<32>, Bits<32>, Bits<PRE_BITS>)>,
}

impl InstrMem {
    /// A memory of `2^abits` words (`abits` 1..=30).
    pub fn new(abits: usize) -> Self {
        assert!(
            (1..=30).contains(&abits),
            "instruction memory: 1..=30 address bits"
        );
        InstrMem {
            clock: Default::default(),
            read_enable: Default::default(),
            read_pc: Default::default(),
            read_word: Default::default(),
            read_recon: Default::default(),
            read_pre: Default::default(),
            write_enable: Default::default(),
            write_index: Default::default(),
            write_word: Default::default(),
            write_recon: Default::default(),
            write_pre: Default::default(),
            _abits: abits,
            _sim: BTreeMap::new(),
        }
    }
}

impl Logic for InstrMem {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let mask = (1usize << self._abits) - 1;
            if self.read_enable.val() {
                let a = (self.read_pc.val().index() >> 2) & mask;
                let (w, r, f) = self._sim.get(&a).copied().unwrap_or_default();
                self.read_word.next = w;
                self.read_recon.next = r;
                self.read_pre.next = f;
            }
            if self.write_enable.val() {
                let a = self.write_index.val().index() & mask;
                self._sim.insert(
                    a,
                    (
                        self.write_word.val(),
                        self.write_recon.val(),
                        self.write_pre.val(),
                    ),
                );
            }
        }
    }

    fn connect(&mut self) {
        self.read_word.connect();
        self.read_recon.connect();
        self.read_pre.connect();
    }

    fn hdl(&self) -> Verilog {
        let ab = self._abits;
        let mut unused = vec!["read_pc[1:0]".to_string()];
        if ab + 2 < 32 {
            unused.insert(0, format!("read_pc[31:{}]", ab + 2));
        }
        if ab < 32 {
            unused.push(format!("write_index[31:{ab}]"));
        }
        Verilog::Custom(format!(
            "\
// {words} words x 32 bit instruction memory and its reconvergence sidecar.
// No read-write collision logic: a read and a write of one word in one cycle read undefined
// data (the SM loads the kernel before it starts any warp; docs/microarch/fetch.md, rule 5).
// Without the attribute yosys delays the write port a cycle and compares its address with the
// read's: flip-flops and LUTs per RAM, 3 LUT levels after the read address (docs/fpga.md).
// A word and its pre-decoded bits share one array (docs/microarch/fetch.md, \"Pre-decoded
// bits\"); never-written words read 0, the pre-decoded bits of word 0.
(* no_rw_check *) reg [{wtop}:0] words [0:{last}];
(* no_rw_check *) reg [31:0] recons [0:{last}];
// Address bits above the memory (range-checked by the parent) and the byte offset.
wire unused_addr_bits = &{{1'b0, {unused}}};

always @(posedge clock) begin
   if (read_enable) begin
      {{read_pre, read_word}} <= words[read_pc[{rhi}:2]];
      read_recon <= recons[read_pc[{rhi}:2]];
   end
   if (write_enable) begin
      words[write_index[{whi}:0]] <= {{write_pre, write_word}};
      recons[write_index[{whi}:0]] <= write_recon;
   end
end
",
            words = 1usize << ab,
            wtop = 31 + PRE_BITS,
            last = (1usize << ab) - 1,
            unused = unused.join(", "),
            rhi = ab + 1,
            whi = ab - 1,
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "instr_mem".into(),
            clock: "clock".into(),
            inputs: vec![
                "read_enable".into(),
                "read_pc".into(),
                "write_enable".into(),
                "write_index".into(),
                "write_word".into(),
                "write_recon".into(),
                "write_pre".into(),
            ],
            outputs: vec!["read_word".into(), "read_recon".into(), "read_pre".into()],
        }]
    }
}

/// `n` default values (one signal per warp or per I-buffer entry).
fn vec_of<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

/// Fetch, instruction memory and I-buffers of one SM. Per-warp ports are `Vec`s indexed by warp
/// number (Verilog `head_word$3`, Verilator C++ `head_word__0243`).
#[derive(LogicBlock)]
pub struct Fetch {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: every warp stops fetching, nothing in flight, every I-buffer empty,
    /// round-robin pointer back to warp 0 (memory contents and fetch PCs are kept).
    pub reset: Signal<In, Bit>,
    /// Instruction memory load: word `load_addr` (word index) ← `load_word`, sidecar ←
    /// `load_recon`, at the edge; ignored when `load_addr` ≥ `imem_bytes / 4`.
    pub load_valid: Signal<In, Bit>,
    pub load_addr: Signal<In, Bits<32>>,
    pub load_word: Signal<In, Bits<32>>,
    pub load_recon: Signal<In, Bits<32>>,
    /// Per warp: at the edge `fpc[w] ← redirect_pc[w]` and the warp (re)starts fetching.
    pub redirect: Vec<Signal<In, Bit>>,
    pub redirect_pc: Vec<Signal<In, Bits<32>>>,
    /// Per warp: the TOS RPC of the warp's SIMT stack (ends-block rule `pc + 4 == tos_rpc`), taken
    /// in the cycle the word is read (the SM's does not change while the warp fetches).
    pub tos_rpc: Vec<Signal<In, Bits<32>>>,
    /// Per warp: the I-buffer head (all from flip-flops; stale when `head_valid` is low).
    pub head_valid: Vec<Signal<Out, Bit>>,
    pub head_word: Vec<Signal<Out, Bits<32>>>,
    /// The head's issue fields ([`HeadFields::issue_bits`] of `head_word`, decoded at the load).
    pub head_dec: Vec<Signal<Out, Bits<HEAD_PACKED_BITS>>>,
    /// The head's sidecar kind is `AtReturn` (the issue check of a branch at a return needs
    /// it for every warp; no other kind is asked for, so one bit per entry is kept).
    pub head_at_return: Vec<Signal<Out, Bit>>,
    /// The PC and sidecar word of warp `read_warp`'s head (combinational, from distributed
    /// RAM: only the issuing warp's are needed; stale when that head is not valid).
    pub read_warp: Signal<In, WarpId>,
    pub read_pc: Signal<Out, Bits<32>>,
    pub read_recon: Signal<Out, Bits<32>>,
    /// The fetch PC was outside instruction memory (out-of-range-fetch); word and sidecar read 0.
    pub head_fault: Vec<Signal<Out, Bit>>,
    /// This instruction ended its fetch block.
    pub head_ends: Vec<Signal<Out, Bit>>,
    /// Issuing this instruction stops the GPU on a fault: an out-of-range fetch, or a word that
    /// decodes as illegal (docs/isa.md: also a CSR write or an unknown CSR), `ecall` or
    /// `ebreak`. Decoded when the word arrives, so the issue stage's go/no-go is one flip-flop
    /// per warp instead of a decode after the warp choice (docs/microarch/fetch.md).
    pub head_stops: Vec<Signal<Out, Bit>>,
    /// Remove the head of I-buffer `pop_warp` at the edge (ignored when that head is not valid
    /// or `pop_warp` ≥ warps).
    pub pop: Signal<In, Bit>,
    pub pop_warp: Signal<In, WarpId>,
    /// A fetch (memory read) is issued this cycle, for warp `ev_fetch_warp` (0 when none).
    pub ev_fetch: Signal<Out, Bit>,
    pub ev_fetch_warp: Signal<Out, WarpId>,

    imem: InstrMem,
    /// Per warp: fetch PC, fetching, read issued in the previous cycle (one-hot or none).
    fpc: RegVec<Bits<32>>,
    en: RegVec<Bit>,
    fl: RegVec<Bit>,
    /// Per warp, one-hot or none: the candidate, the warp whose fetch PC is read this cycle
    /// (chosen at the end of the previous cycle).
    cand: RegVec<Bit>,
    /// Length 1: the warp of the last candidate before `cand` (W-1 after reset); the
    /// round-robin pointer is `cand`'s warp, or this when there is no candidate.
    last: RegVec<WarpId>,
    /// Length 1: PC and out-of-range flag of the read in flight.
    rd_pc: RegVec<Bits<32>>,
    rd_fault: RegVec<Bit>,
    /// The read word's `pc + 4 == tos_rpc` (the block ends before the reconvergence point),
    /// compared in the read cycle from the read PC and the warp's TOS RPC then, registered:
    /// in the push cycle the adder and the compare were in front of `en` (ECP5 critical path
    /// on db9ed23, 13.0 ns). The SM's TOS RPC of a warp does not change while it fetches.
    rd_at_rpc: RegVec<Bit>,
    sel_pc4: Signal<Local, Bits<32>>,
    /// I-buffers, entry `i` of warp `w` at `w * E + i` (entry 0 = head); `bv` is a thermometer
    /// code (`bv[i+1]` ⇒ `bv[i]`).
    bv: RegVec<Bit>,
    bword: RegVec<Bits<32>>,
    bret: RegVec<Bit>,
    bfault: RegVec<Bit>,
    bends: RegVec<Bit>,
    bstops: RegVec<Bit>,
    /// Every entry's PC and sidecar word (words 0 and 1) in distributed RAM at `w·E2 + slot`
    /// (`E2` = `E` rounded up to a power of two): a ring per warp, the head at slot `hp[w]`,
    /// the next push at slot `tp[w]`. Written once per entry at its push, so it needs no
    /// shifting multiplexers, and read only for one warp (`read_warp`).
    ring: LutRamArray<32, RING_BITS>,
    hp: RegVec<Bits<RING_BITS>>,
    tp: RegVec<Bits<RING_BITS>>,
    /// Decode the word being loaded for its [`PRE_BITS`] in the instruction memory
    /// (`head_stops`, the opcode part of `head_ends`, `head_dec`).
    pre: Decoder,
    pre_h: HeadFields,
    load_pack: BitPack<PRE_BITS>,
    /// I-buffer entries' issue fields, and the arriving word's (0 for a fault fetch).
    bdec: RegVec<Bits<HEAD_PACKED_BITS>>,
    in_dec: Signal<Local, Bits<HEAD_PACKED_BITS>>,
    zero_dec: Constant<Bits<HEAD_PACKED_BITS>>,
    in_stops: Signal<Local, Bit>,
    /// The arriving word is a conditional branch (its pre-decoded `is_branch`, bit 4 of
    /// `HEAD_PACKED_ORDER`) whose sidecar kind is `AtReturn`: the one question the SM asks of
    /// a head's branch flag, answered here so the I-buffers' copies of that flag go unread.
    in_at_return: Signal<Local, Bit>,
    kind_at_return: Constant<Bits<2>>,
    /// The decoder's other fields (lint: read, then removed by synthesis).
    pre_unused1: Unused<Bit>,
    pre_unused2: Unused<Bits<2>>,
    pre_unused3: Unused<Bits<3>>,
    pre_unused4: Unused<Bits<4>>,
    pre_unused5: Unused<Bits<5>>,
    pre_unused12: Unused<Bits<12>>,
    pre_unused32: Unused<Bits<32>>,
    pre_h_unused5: Unused<Bits<5>>,
    pre_h_unused10: Unused<Bits<HEAD_PACKED_BITS>>,
    /// The candidate choices' "any" (the candidate register is one-hot or zero already) and
    /// `before[0]` (always 0).
    rr_any_unused: Unused<Bit>,

    wid: Vec<Constant<WarpId>>,
    /// `w · E2`: warp `w`'s first ring slot.
    ring_base: Vec<Constant<Bits<RING_BITS>>>,
    /// `E − 1` and 0, for the ring pointers.
    slot_last: Constant<Bits<RING_BITS>>,
    slot_zero: Constant<Bits<RING_BITS>>,
    slot_one: Constant<Bits<RING_BITS>>,
    /// The slot bits a ring index uses (`E2 - 1`): the increment is masked to them, so the
    /// index's upper bits are constant 0 and synthesis removes them.
    slot_mask: Constant<Bits<RING_BITS>>,
    last_init: Constant<WarpId>,
    zero32: Constant<Bits<32>>,
    four: Constant<Bits<32>>,
    /// The PC bits at and above the instruction memory's size (a power of two): a PC is in the
    /// memory when they are all zero.
    pc_high: Constant<Bits<32>>,
    /// The bits of a sidecar word that can be non-zero: a reconvergence PC lies in the text
    /// (below `imem_bytes`), so the read masks the rest to constant 0 and the units after it
    /// (issue, branch unit) lose those bits in synthesis.
    recon_bits: Constant<Bits<32>>,
    /// `imem_bytes / 4` (load range).
    word_limit: Constant<Bits<32>>,
    /// [`PLAIN_OPCODES`].
    plain_op: Vec<Constant<Bits<7>>>,

    // Combinational locals.
    /// `[w]`: warp `w` may be the next cycle's candidate if there is no pop this cycle
    /// (`elig`), and if there is one (`elig_p`). The pop (the SM's issue) comes late, so the
    /// choice is made for both and the pop picks one: it is not in front of the round-robin.
    elig: Vec<Signal<Local, Bit>>,
    elig_p: Vec<Signal<Local, Bit>>,
    room_p: Vec<Signal<Local, Bit>>,
    /// `[w]`: a pop this cycle would be warp `w`'s.
    pop_at: Vec<Signal<Local, Bit>>,
    /// There is a candidate; `[w]`: some warp below `w` is the candidate.
    cand_any: Signal<Local, Bit>,
    before: Vec<Signal<Local, Bit>>,
    /// `[w]`: warp `w`'s I-buffer has room next cycle (this cycle's push and pop counted).
    room: Vec<Signal<Local, Bit>>,
    /// `[w]`: warp `w`'s read is in flight next cycle.
    fl_n: Vec<Signal<Local, Bit>>,
    /// `E ≥ 2`; and `max(E, 2) − 2`, the entry that must be free when a push arrives.
    two_plus: Constant<Bit>,
    _room2: usize,
    /// `[w]`: warp `w` is fetched this cycle (its candidate, still fetching).
    pick: Vec<Signal<Local, Bit>>,
    found: Signal<Local, Bit>,
    sel: Signal<Local, WarpId>,
    sel_pc: Signal<Local, Bits<32>>,
    /// The chosen warp's PC is outside the instruction memory.
    out_of_range: Signal<Local, Bit>,
    /// The warp choice (`[w]` without a pop, `[W + w]` with one), and the chosen warp's number
    /// and PC, as flat one-hot logic.
    rr_pick: RoundRobinPick,
    sel_mux: OneHotMux<WARP_BITS>,
    pc_mux: OneHotMux<32>,
    tos_mux: OneHotMux<32>,
    /// `[w]`: warp `w`'s fetch PC is in the instruction memory (checked on the registers, in
    /// parallel with the warp choice, instead of a comparison after the chosen PC).
    pc_ok: Vec<Signal<Local, Bit>>,
    in_word: Signal<Local, Bits<32>>,
    in_recon: Signal<Local, Bits<32>>,
    opcode: Signal<Local, Bits<7>>,
    plain: Signal<Local, Bit>,
    pc4: Signal<Local, Bits<32>>,
    tos_sel: Signal<Local, Bits<32>>,
    ends: Signal<Local, Bit>,
    popw: Vec<Signal<Local, Bit>>,
    /// Valid vector after this cycle's pop (`w * E + i`).
    pv: Vec<Signal<Local, Bit>>,
    /// Per warp: the push of this cycle is placed (or there is none).
    pdone: Vec<Signal<Local, Bit>>,

    _warps: usize,
    _depth: usize,
    /// `E - 1`.
    _depth_m1: usize,
    _one: usize,
}

impl Fetch {
    /// The fetch unit of `cfg`: `cfg.warps` warps, I-buffers of `cfg.ibuffer_depth` entries,
    /// `cfg.imem_bytes / 4` words of instruction memory.
    pub fn new(cfg: &GpuConfig) -> Self {
        Self::with_size(
            cfg.warps as usize,
            cfg.ibuffer_depth as usize,
            cfg.imem_bytes as usize,
        )
    }

    /// A fetch unit for `warps` warps (1..=64), I-buffers of `depth` entries (≥ 1) and
    /// `imem_bytes` bytes of instruction memory (a power of two, 8 ..= 2^31).
    pub fn with_size(warps: usize, depth: usize, imem_bytes: usize) -> Self {
        assert!(
            (1..=1 << WARP_BITS).contains(&warps),
            "fetch: warps must be 1..=64"
        );
        assert!(depth >= 1, "fetch: the I-buffer needs at least one entry");
        assert!(
            imem_bytes.is_power_of_two() && (8..=1 << 31).contains(&imem_bytes),
            "fetch: imem_bytes must be a power of two in 8..=2^31"
        );
        let abits = clog2(imem_bytes / 4);
        let n = warps * depth;
        Fetch {
            clock: Default::default(),
            reset: Default::default(),
            load_valid: Default::default(),
            load_addr: Default::default(),
            load_word: Default::default(),
            load_recon: Default::default(),
            redirect: vec_of(warps),
            redirect_pc: vec_of(warps),
            tos_rpc: vec_of(warps),
            head_valid: vec_of(warps),
            head_word: vec_of(warps),
            head_dec: vec_of(warps),
            head_at_return: vec_of(warps),
            read_warp: Default::default(),
            read_pc: Default::default(),
            read_recon: Default::default(),
            head_fault: vec_of(warps),
            head_ends: vec_of(warps),
            head_stops: vec_of(warps),
            pop: Default::default(),
            pop_warp: Default::default(),
            ev_fetch: Default::default(),
            ev_fetch_warp: Default::default(),
            imem: InstrMem::new(abits),
            fpc: RegVec::new(warps),
            en: RegVec::new(warps),
            fl: RegVec::new(warps),
            cand: RegVec::new(warps),
            last: RegVec::new(1),
            rd_pc: RegVec::new(1),
            rd_fault: RegVec::new(1),
            rd_at_rpc: RegVec::new(1),
            sel_pc4: Default::default(),
            bv: RegVec::new(n),
            bword: RegVec::new(n),
            bret: RegVec::new(n),
            ring: LutRamArray::new(1, addr_bits_for(warps * depth.next_power_of_two()), 2),
            hp: RegVec::new(warps),
            tp: RegVec::new(warps),
            bfault: RegVec::new(n),
            bstops: RegVec::new(n),
            pre: Decoder::default(),
            pre_h: HeadFields::new(),
            load_pack: BitPack::new(PRE_BITS),
            bdec: RegVec::new(n),
            in_dec: Default::default(),
            zero_dec: Constant::new(0u64.into()),
            in_stops: Default::default(),
            in_at_return: Default::default(),
            kind_at_return: Constant::new(u64::from(sidecar_kind::AT_RETURN).into()),
            pre_unused1: Unused::new(18),
            pre_unused2: Unused::new(3),
            pre_unused3: Unused::new(2),
            pre_unused4: Unused::new(1),
            pre_unused5: Unused::new(3),
            pre_unused12: Unused::new(1),
            pre_unused32: Unused::new(1),
            pre_h_unused5: Unused::new(3),
            pre_h_unused10: Unused::new(1),
            rr_any_unused: Unused::new(3),
            bends: RegVec::new(n),
            wid: (0..warps)
                .map(|w| Constant::new((w as u64).into()))
                .collect(),
            ring_base: (0..warps)
                .map(|w| Constant::new(((w * depth.next_power_of_two()) as u64).into()))
                .collect(),
            slot_last: Constant::new(((depth - 1) as u64).into()),
            slot_zero: Constant::new(0u64.into()),
            slot_one: Constant::new(1u64.into()),
            slot_mask: Constant::new(((depth.next_power_of_two() - 1) as u64).into()),
            last_init: Constant::new(((warps - 1) as u64).into()),
            zero32: Constant::new(0u64.into()),
            four: Constant::new(4u64.into()),
            pc_high: Constant::new((!(imem_bytes as u64 - 1) & 0xffff_ffff).into()),
            recon_bits: Constant::new((imem_bytes as u64 - 1).into()),
            word_limit: Constant::new(((imem_bytes / 4) as u64).into()),
            plain_op: PLAIN_OPCODES
                .iter()
                .map(|&o| Constant::new((o as u64).into()))
                .collect(),
            elig: vec_of(warps),
            elig_p: vec_of(warps),
            room_p: vec_of(warps),
            pop_at: vec_of(warps),
            cand_any: Default::default(),
            before: vec_of(warps),
            room: vec_of(warps),
            fl_n: vec_of(warps),
            two_plus: Constant::new(depth >= 2),
            _room2: depth.max(2) - 2,
            pick: vec_of(warps),
            found: Default::default(),
            sel: Default::default(),
            sel_pc: Default::default(),
            out_of_range: Default::default(),
            rr_pick: RoundRobinPick::groups(2, warps),
            sel_mux: OneHotMux::new(warps, 1),
            pc_mux: OneHotMux::new(warps, 1),
            tos_mux: OneHotMux::new(warps, 1),
            pc_ok: crate::sigs(warps),
            in_word: Default::default(),
            in_recon: Default::default(),
            opcode: Default::default(),
            plain: Default::default(),
            pc4: Default::default(),
            tos_sel: Default::default(),
            ends: Default::default(),
            popw: vec_of(warps),
            pv: vec_of(n),
            pdone: vec_of(warps),
            _warps: warps,
            _depth: depth,
            _depth_m1: depth - 1,
            _one: 1,
        }
    }
}

impl Logic for Fetch {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- clocks ----
        self.imem.clock.next = self.clock.val();
        self.fpc.clock.next = self.clock.val();
        self.en.clock.next = self.clock.val();
        self.fl.clock.next = self.clock.val();
        self.cand.clock.next = self.clock.val();
        self.last.clock.next = self.clock.val();
        self.rd_pc.clock.next = self.clock.val();
        self.rd_fault.clock.next = self.clock.val();
        self.rd_at_rpc.clock.next = self.clock.val();
        self.bv.clock.next = self.clock.val();
        self.bword.clock.next = self.clock.val();
        self.bdec.clock.next = self.clock.val();
        self.bret.clock.next = self.clock.val();
        self.ring.clock.next = self.clock.val();
        self.hp.clock.next = self.clock.val();
        self.tp.clock.next = self.clock.val();
        self.bfault.clock.next = self.clock.val();
        self.bstops.clock.next = self.clock.val();
        self.bends.clock.next = self.clock.val();

        // ---- instruction memory load ----
        self.imem.write_enable.next =
            self.load_valid.val() & (self.load_addr.val() < self.word_limit.val());
        self.imem.write_index.next = self.load_addr.val();
        self.imem.write_word.next = self.load_word.val();
        self.imem.write_recon.next = self.load_recon.val();
        // Pre-decode at the load, not at the fetch: the block RAM's output (5.8 ns after the
        // clock on the ECP5) then feeds only the push into the I-buffer.
        self.pre.word.next = self.load_word.val();
        self.opcode.next = self.load_word.val().get_bits::<7>(0);
        self.plain.next = (self.opcode.val() == self.plain_op[0].val())
            | (self.opcode.val() == self.plain_op[1].val())
            | (self.opcode.val() == self.plain_op[2].val())
            | (self.opcode.val() == self.plain_op[3].val())
            | (self.opcode.val() == self.plain_op[4].val())
            | (self.opcode.val() == self.plain_op[5].val())
            | (self.opcode.val() == self.plain_op[6].val())
            | (self.opcode.val() == self.plain_op[7].val());
        self.load_pack.d[0].next =
            !(self.pre.illegal.val() | self.pre.is_ecall.val() | self.pre.is_ebreak.val());
        self.load_pack.d[1].next = self.plain.val();
        self.pre_h.word.next = self.load_word.val();
        self.load_pack.d[2].next = self.pre_h.rd_valid.val();
        self.load_pack.d[3].next = self.pre_h.rs1_valid.val();
        self.load_pack.d[4].next = self.pre_h.rs2_valid.val();
        self.load_pack.d[5].next = self.pre_h.is_bar.val();
        self.load_pack.d[6].next = self.pre_h.is_branch.val();
        self.load_pack.d[7].next = self.pre_h.to_alu.val();
        self.load_pack.d[8].next = self.pre_h.to_mul.val();
        self.load_pack.d[9].next = self.pre_h.to_div.val();
        self.load_pack.d[10].next = self.pre_h.to_lsu.val();
        self.load_pack.d[11].next = self.pre_h.is_control.val();
        self.imem.write_pre.next = self.load_pack.q.val();
        self.pre_h_unused5.d[0].next = self.pre_h.rd.val();
        self.pre_h_unused5.d[1].next = self.pre_h.rs1.val();
        self.pre_h_unused5.d[2].next = self.pre_h.rs2.val();
        self.pre_h_unused10.d[0].next = self.pre_h.issue_bits.val();

        // ---- cycle c: read the candidate's fetch PC (chosen at the end of c - 1) ----
        // The candidate is a register, so the memory's address is one one-hot multiplexer
        // after flip-flops; the read enable is constant (an unrequested word is never pushed).
        // A candidate whose warp stopped at the edge (its block ended, or reset) is dropped.
        self.found.next = false;
        self.out_of_range.next = false;
        for w in 0..self._warps {
            self.pick[w].next = self.cand.q[w].val() & self.en.q[w].val();
            if self.pick[w].val() {
                self.found.next = true;
            }
            self.pc_ok[w].next = (self.fpc.q[w].val() & self.pc_high.val()) == self.zero32.val();
            self.sel_mux.sel[w].next = self.pick[w].val();
            self.sel_mux.d[w].next = self.wid[w].val();
            self.pc_mux.sel[w].next = self.cand.q[w].val();
            self.pc_mux.d[w].next = self.fpc.q[w].val();
            if self.cand.q[w].val() & !self.pc_ok[w].val() {
                self.out_of_range.next = true;
            }
        }
        self.sel.next = self.sel_mux.q[0].val();
        self.sel_pc.next = self.pc_mux.q[0].val();
        self.imem.read_enable.next = true;
        self.imem.read_pc.next = self.sel_pc.val();
        self.ev_fetch.next = self.found.val();
        self.ev_fetch_warp.next = self.sel.val();
        self.rd_pc.d[0].next = self.sel_pc.val();
        self.rd_fault.d[0].next = self.out_of_range.val();
        for w in 0..self._warps {
            self.tos_mux.sel[w].next = self.cand.q[w].val();
            self.tos_mux.d[w].next = self.tos_rpc[w].val();
        }
        self.tos_sel.next = self.tos_mux.q[0].val();
        self.sel_pc4.next = self.sel_pc.val() + self.four.val();
        self.rd_at_rpc.d[0].next = self.sel_pc4.val() == self.tos_sel.val();

        // ---- end of cycle c: choose the candidate of c + 1 (round-robin after `last`) ----
        // Eligible next cycle: fetching after this edge (a redirect starts it; an arriving
        // block end is not looked at: such a candidate is dropped next cycle), no read in
        // flight after this edge, and room after this cycle's push and pop.
        for e in self._depth..(self._depth + 1) {
            for w in 0..self._warps {
                self.room[w].next = !self.bv.q[w * e + e - 1].val();
                // This cycle's push takes an entry: room needs two free (none when E = 1).
                for k in self._room2..(self._room2 + 1) {
                    if self.fl.q[w].val() {
                        self.room[w].next = !self.bv.q[w * e + k].val() & self.two_plus.val();
                    }
                }
                // A pop this cycle frees one.
                self.pop_at[w].next =
                    (self.pop_warp.val() == self.wid[w].val()) & self.bv.q[w * e].val();
                self.popw[w].next = self.pop.val() & self.pop_at[w].val();
                self.room_p[w].next = self.room[w].val();
                if self.pop_at[w].val() {
                    self.room_p[w].next = !self.bv.q[w * e + e - 1].val();
                    if !self.fl.q[w].val() {
                        self.room_p[w].next = true;
                    }
                }
                self.fl_n[w].next =
                    self.pick[w].val() & (!self.redirect[w].val()) & (!self.reset.val());
                self.elig[w].next = (self.en.q[w].val() | self.redirect[w].val())
                    & (!self.reset.val())
                    & (!self.fl_n[w].val())
                    & self.room[w].val();
                self.elig_p[w].next = (self.en.q[w].val() | self.redirect[w].val())
                    & (!self.reset.val())
                    & (!self.fl_n[w].val())
                    & self.room_p[w].val();
            }
        }
        for nw in self._warps..(self._warps + 1) {
            for w in 0..self._warps {
                self.rr_pick.req[w].next = self.elig[w].val();
                self.rr_pick.req[nw + w].next = self.elig_p[w].val();
                self.rr_pick.from[w].next = false;
                self.rr_pick.from[nw + w].next = false;
            }
        }
        // The round-robin pointer is this cycle's candidate, or `last` (the one before it)
        // when there is none: "after the pointer" is a prefix OR of the one-hot candidate,
        // or a compare with `last`, both on flip-flops (not the choice's output). Warp 0 is
        // never after the pointer (the loop starts at 1 so that no comparison is constant,
        // which Verilator's -Wall reports).
        self.cand_any.next = false;
        for w in 0..self._warps {
            self.before[w].next = self.cand_any.val();
            if self.cand.q[w].val() {
                self.cand_any.next = true;
            }
        }
        for nw in self._warps..(self._warps + 1) {
            for w in self._one..self._warps {
                self.rr_pick.from[w].next = self.wid[w].val() > self.last.q[0].val();
                self.rr_pick.from[nw + w].next = self.wid[w].val() > self.last.q[0].val();
                if self.cand_any.val() {
                    self.rr_pick.from[w].next = self.before[w].val();
                    self.rr_pick.from[nw + w].next = self.before[w].val();
                }
            }
        }
        self.rr_any_unused.d[0].next = self.rr_pick.any[0].val();
        self.rr_any_unused.d[1].next = self.before[0].val();
        self.rr_any_unused.d[2].next = self.rr_pick.any[1].val();
        self.last.d[0].next = self.last.q[0].val();
        for nw in self._warps..(self._warps + 1) {
            for w in 0..self._warps {
                self.cand.d[w].next = self.rr_pick.grant[w].val();
                if self.pop.val() {
                    self.cand.d[w].next = self.rr_pick.grant[nw + w].val();
                }
            }
        }
        for w in 0..self._warps {
            if self.cand.q[w].val() {
                self.last.d[0].next = self.wid[w].val();
            }
        }
        if self.reset.val() {
            self.last.d[0].next = self.last_init.val();
        }

        // ---- cycle c+1: the word arrives and is classified ----
        self.in_word.next = self.imem.read_word.val();
        self.in_recon.next = self.imem.read_recon.val();
        self.in_dec.next = self.imem.read_pre.val().get_bits::<HEAD_PACKED_BITS>(2);
        if self.rd_fault.q[0].val() {
            self.in_word.next = self.zero32.val();
            self.in_recon.next = self.zero32.val();
            self.in_dec.next = self.zero_dec.val();
        }
        self.in_stops.next = self.rd_fault.q[0].val() | !self.imem.read_pre.val().get_bit(0);
        self.in_at_return.next = (self.in_recon.val().get_bits::<2>(0)
            == self.kind_at_return.val())
            & self.in_dec.val().get_bit(4);
        self.pre_unused1.d[0].next = self.pre.is_load.val();
        self.pre_unused1.d[1].next = self.pre.is_store.val();
        self.pre_unused1.d[2].next = self.pre.is_branch.val();
        self.pre_unused1.d[3].next = self.pre.is_jal.val();
        self.pre_unused1.d[4].next = self.pre.is_jalr.val();
        self.pre_unused1.d[5].next = self.pre.is_csr.val();
        self.pre_unused1.d[6].next = self.pre.is_exit.val();
        self.pre_unused1.d[7].next = self.pre.is_bar.val();
        self.pre_unused1.d[8].next = self.pre.is_tmc.val();
        self.pre_unused1.d[9].next = self.pre.is_control.val();
        self.pre_unused1.d[10].next = self.pre.mem_unsigned.val();
        self.pre_unused1.d[11].next = self.pre.a_pc.val();
        self.pre_unused1.d[12].next = self.pre.a_zero.val();
        self.pre_unused1.d[13].next = self.pre.b_imm.val();
        self.pre_unused1.d[14].next = self.pre.b_four.val();
        self.pre_unused1.d[15].next = self.pre.rd_valid.val();
        self.pre_unused1.d[16].next = self.pre.rs1_valid.val();
        self.pre_unused1.d[17].next = self.pre.rs2_valid.val();
        self.pre_unused2.d[0].next = self.pre.md_op.val();
        self.pre_unused2.d[1].next = self.pre.mem_size.val();
        self.pre_unused2.d[2].next = self.pre.csr_step.val();
        self.pre_unused3.d[0].next = self.pre.unit.val();
        self.pre_unused3.d[1].next = self.pre.cmp.val();
        self.pre_unused4.d[0].next = self.pre.alu_op.val();
        self.pre_unused5.d[0].next = self.pre.rd.val();
        self.pre_unused5.d[1].next = self.pre.rs1.val();
        self.pre_unused5.d[2].next = self.pre.rs2.val();
        self.pre_unused12.d[0].next = self.pre.csr.val();
        self.pre_unused32.d[0].next = self.pre.imm.val();
        self.pc4.next = self.rd_pc.q[0].val() + self.four.val();
        self.ends.next = (!self.imem.read_pre.val().get_bit(1))
            | self.rd_fault.q[0].val()
            | self.rd_at_rpc.q[0].val();

        // ---- per warp: fetch PC, enable, in-flight flag ----
        for w in 0..self._warps {
            self.fpc.d[w].next = self.fpc.q[w].val();
            self.en.d[w].next = self.en.q[w].val();
            if self.fl.q[w].val() {
                self.fpc.d[w].next = self.pc4.val();
                if self.ends.val() {
                    self.en.d[w].next = false;
                }
            }
            if self.redirect[w].val() {
                self.fpc.d[w].next = self.redirect_pc[w].val();
                self.en.d[w].next = true;
            }
            // A redirect of the chosen warp cancels its read.
            self.fl.d[w].next = self.fl_n[w].val();
            if self.reset.val() {
                self.en.d[w].next = false;
            }
        }

        // ---- I-buffers: pop (shift down), then push into the first free entry ----
        for e in self._depth..(self._depth + 1) {
            for w in 0..self._warps {
                for i in 0..self._depth {
                    self.pv[w * e + i].next = self.bv.q[w * e + i].val();
                    self.bword.d[w * e + i].next = self.bword.q[w * e + i].val();
                    self.bdec.d[w * e + i].next = self.bdec.q[w * e + i].val();
                    self.bret.d[w * e + i].next = self.bret.q[w * e + i].val();
                    self.bfault.d[w * e + i].next = self.bfault.q[w * e + i].val();
                    self.bstops.d[w * e + i].next = self.bstops.q[w * e + i].val();
                    self.bends.d[w * e + i].next = self.bends.q[w * e + i].val();
                }
                if self.popw[w].val() {
                    for i in 0..self._depth_m1 {
                        self.pv[w * e + i].next = self.bv.q[w * e + i + 1].val();
                        self.bword.d[w * e + i].next = self.bword.q[w * e + i + 1].val();
                        self.bdec.d[w * e + i].next = self.bdec.q[w * e + i + 1].val();
                        self.bret.d[w * e + i].next = self.bret.q[w * e + i + 1].val();
                        self.bfault.d[w * e + i].next = self.bfault.q[w * e + i + 1].val();
                        self.bstops.d[w * e + i].next = self.bstops.q[w * e + i + 1].val();
                        self.bends.d[w * e + i].next = self.bends.q[w * e + i + 1].val();
                    }
                    self.pv[w * e + e - 1].next = false;
                }
                self.pdone[w].next = !self.fl.q[w].val();
                for i in 0..self._depth {
                    self.bv.d[w * e + i].next = self.pv[w * e + i].val();
                    if (!self.pdone[w].val()) & (!self.pv[w * e + i].val()) {
                        self.bv.d[w * e + i].next = true;
                        self.bword.d[w * e + i].next = self.in_word.val();
                        self.bdec.d[w * e + i].next = self.in_dec.val();
                        self.bret.d[w * e + i].next = self.in_at_return.val();
                        self.bfault.d[w * e + i].next = self.rd_fault.q[0].val();
                        self.bstops.d[w * e + i].next = self.in_stops.val();
                        self.bends.d[w * e + i].next = self.ends.val();
                        self.pdone[w].next = true;
                    }
                    if self.reset.val() {
                        self.bv.d[w * e + i].next = false;
                    }
                }
                self.head_valid[w].next = self.bv.q[w * e].val();
                self.head_word[w].next = self.bword.q[w * e].val();
                self.head_dec[w].next = self.bdec.q[w * e].val();
                self.head_at_return[w].next = self.bret.q[w * e].val();
                self.head_fault[w].next = self.bfault.q[w * e].val();
                self.head_ends[w].next = self.bends.q[w * e].val();
                self.head_stops[w].next = self.bstops.q[w * e].val();
            }
        }

        // ---- the ring of PCs and sidecar words: written at the push, read for one warp ----
        self.ring.we[0].next = false;
        self.ring.waddr[0].next = self.slot_zero.val();
        self.ring.wdata[0].next = self.rd_pc.q[0].val();
        self.ring.wdata[1].next = self.in_recon.val();
        self.ring.raddr[0].next = self.slot_zero.val();
        for w in 0..self._warps {
            self.hp.d[w].next = self.hp.q[w].val();
            self.tp.d[w].next = self.tp.q[w].val();
            if self.popw[w].val() {
                self.hp.d[w].next =
                    (self.hp.q[w].val() + self.slot_one.val()) & self.slot_mask.val();
                if self.hp.q[w].val() == self.slot_last.val() {
                    self.hp.d[w].next = self.slot_zero.val();
                }
            }
            if self.fl.q[w].val() {
                self.ring.we[0].next = true;
                self.ring.waddr[0].next = self.ring_base[w].val() | self.tp.q[w].val();
                self.tp.d[w].next =
                    (self.tp.q[w].val() + self.slot_one.val()) & self.slot_mask.val();
                if self.tp.q[w].val() == self.slot_last.val() {
                    self.tp.d[w].next = self.slot_zero.val();
                }
            }
            if self.reset.val() {
                self.hp.d[w].next = self.slot_zero.val();
                self.tp.d[w].next = self.slot_zero.val();
            }
            if self.read_warp.val() == self.wid[w].val() {
                self.ring.raddr[0].next = self.ring_base[w].val() | self.hp.q[w].val();
            }
        }
        self.read_pc.next = self.ring.rdata[0].val();
        self.read_recon.next = self.ring.rdata[1].val() & self.recon_bits.val();
    }
}

/// The Verilog of the fetch unit of `cfg`, top module named `name`.
pub fn fetch_verilog(cfg: &GpuConfig, name: &str) -> Result<String, HdlError> {
    let mut uut = Fetch::new(cfg);
    Ok(rename_top(&verilog_of("fetch", &mut uut)?, name))
}
