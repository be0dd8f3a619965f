//! `LoadStoreUnit`: the SM's load/store unit with the SM's shared memory
//! (docs/microarch/load_store_unit.md gives every cycle).
//!
//! One warp-instruction at a time, one lane access at a time:
//!
//! * **accept** (cycle `t`, `in_valid & in_ready`): every lane's address `base + offset` is
//!   computed and every active lane is checked exactly as the golden model does
//!   (`sim/src/execute.rs`): lanes in increasing order, for each lane first the alignment
//!   (half: `addr[0]`, word: `addr[1:0]`), then the region (global
//!   `[0x8000_0000, 0x8000_0000 + gmem_bytes)` first, then the CTA's shared window
//!   `[0x1000_0000, 0x1000_0000 + smem_size)`, anything else — instruction memory included — is
//!   out of range); the per-lane results are registered. In the check cycle `t + 1` the first
//!   faulting lane (from those registers) decides: the instruction is dropped before any access
//!   and `fault_*` pulses in cycle `t + 2`. A non-faulting instruction starts its accesses in
//!   `t + 1`, as if there were no check cycle.
//! * **access** (cycles `t + 1 …`): each cycle the lowest active lane whose access is not yet
//!   performed is served: a global lane offers one request on the memory port (performed when
//!   `mem_req_ready`), a shared lane accesses the shared memory (always performed unless a clear
//!   is running). Global read responses come back in request order; each belongs to the lowest
//!   global load lane still waiting for one.
//! * **completion**: `out_valid` once every access is performed and every loaded value is in its
//!   register, held until `out_ready`; the unit is idle (`in_ready`) from the next cycle on.
//! * **clear** (CTA launch): `clear_valid` zeroes `clear_bytes / 4` words from `clear_base`, one
//!   word per cycle, `clear_busy` while it runs.
//!
//! Shared memory: [`SharedMemory`], four byte-wide synchronous RAMs of `smem_bytes / 4` words
//! (custom Verilog, so the depth follows the configuration); sub-word stores use byte enables.
//!
//! Written against rust-hdl 0.46 (../shared/BRIEF.md "RTL rules"): typed constants for every
//! multi-bit literal, fully parenthesised mixed expressions, compare-and-select instead of
//! indexing by a signal, per-lane state in [`RegVec`]s (one module per vector).

// rust-hdl's `#[hdl_gen]` only translates `for i in a..b` loops with indexing.
#![allow(clippy::needless_range_loop)]

use std::collections::BTreeMap;

use rust_hdl::prelude::*;
use warpforge_config::GpuConfig;
use warpforge_isa::memmap::{GMEM_BASE, SMEM_BASE};
use warpforge_isa::FaultCause;

use crate::mem_port::MemPort;
use crate::one_hot::{OneHotMux, RoundRobinPick};
use crate::register_file::clog2;
use crate::scoreboard::RegVec;
use crate::{rename_top, verilog_of, HdlError};

/// Width of a warp number (defined once, with the scoreboard).
pub use crate::scoreboard::WARP_BITS;
/// Width of a tag on the ports (defined by the tag table).
pub use crate::tag_table::TAG_BITS;
/// `in_size` / `mem_req_size` codes (`funct3[1:0]`).
pub const SIZE_BYTE: u8 = 0;
pub const SIZE_HALF: u8 = 1;
pub const SIZE_WORD: u8 = 2;

/// `log2(n)` of a power of two.
fn log2(n: u32) -> usize {
    assert!(n.is_power_of_two(), "{n} is not a power of two");
    n.trailing_zeros() as usize
}

// ---------------------------------------------------------------------------------------------
// Shared memory

/// The SM's shared memory: four byte-wide single-port RAMs ("byte lanes") of `words` entries;
/// byte `a` of the memory is byte lane `a % 4` of word `a / 4`.
///
/// * `enable` with `write = 0` in cycle `c`: the word at `addr[W+1:2]` (`W = log2(words)`) is
///   read; `rdata` shows it during cycle `c + 1` and holds it until the next read.
/// * `enable` with `write != 0`: the byte lanes whose `write` bit is set take the same byte lanes
///   of `wdata` at the end of cycle `c`; `rdata` keeps its value.
///
/// Address bits outside `[W+1:2]` are ignored (the memory wraps). Contents are not reset.
#[derive(LogicBlock)]
pub struct SharedMemory {
    pub clock: Signal<In, Clock>,
    pub enable: Signal<In, Bit>,
    /// Byte enables (bit `i` = byte lane `i`); all zero = read.
    pub write: Signal<In, Bits<4>>,
    /// Byte address.
    pub addr: Signal<In, Bits<32>>,
    pub wdata: Signal<In, Bits<32>>,
    pub rdata: Signal<Out, Bits<32>>,
    _words: usize,
    _sim: BTreeMap<usize, u32>,
}

impl SharedMemory {
    /// A shared memory of `bytes` bytes (a power of two, at least 4).
    pub fn new(bytes: u32) -> Self {
        assert!(bytes >= 4 && bytes.is_power_of_two());
        SharedMemory {
            clock: Default::default(),
            enable: Default::default(),
            write: Default::default(),
            addr: Default::default(),
            wdata: Default::default(),
            rdata: Default::default(),
            _words: (bytes / 4) as usize,
            _sim: BTreeMap::new(),
        }
    }

    fn word_bits(&self) -> usize {
        log2(self._words as u32)
    }
}

impl Logic for SharedMemory {
    fn update(&mut self) {
        if self.clock.pos_edge() && self.enable.val() {
            let a = (self.addr.val().index() >> 2) & (self._words - 1);
            let we = self.write.val().index();
            if we == 0 {
                let w = self._sim.get(&a).copied().unwrap_or(0);
                self.rdata.next = (w as u64).to_bits();
            } else {
                let old = self._sim.get(&a).copied().unwrap_or(0);
                let new = self.wdata.val().index() as u32;
                let mut m = 0u32;
                for i in 0..4 {
                    if we >> i & 1 == 1 {
                        m |= 0xff << (8 * i);
                    }
                }
                self._sim.insert(a, (old & !m) | (new & m));
            }
        }
    }

    fn connect(&mut self) {
        self.rdata.connect();
    }

    fn hdl(&self) -> Verilog {
        let w = self.word_bits();
        let last = self._words - 1;
        let (word, unused) = if w == 0 {
            ("1'b0".to_string(), "addr[31:0]".to_string())
        } else {
            (
                format!("addr[{}:2]", w + 1),
                if w + 2 < 32 {
                    format!("addr[31:{}], addr[1:0]", w + 2)
                } else {
                    "addr[1:0]".to_string()
                },
            )
        };
        let mut body = String::new();
        for b in 0..4 {
            body.push_str(&format!(
                "      if (write[{b}]) begin\n         ram{b}[{word}] <= wdata[{hi}:{lo}];\n      end\n",
                hi = 8 * b + 7,
                lo = 8 * b
            ));
        }
        Verilog::Custom(format!(
            "\
// Shared memory: 4 byte lanes x {words} words.
reg [7:0] ram0 [0:{last}];
reg [7:0] ram1 [0:{last}];
reg [7:0] ram2 [0:{last}];
reg [7:0] ram3 [0:{last}];
// Address bits outside the word index (byte offset, beyond the memory).
wire unused_addr_bits = &{{1'b0, {unused}}};

always @(posedge clock) begin
   if (enable) begin
{body}      if (write == 4'b0000) begin
         rdata <= {{ram3[{word}], ram2[{word}], ram1[{word}], ram0[{word}]}};
      end
   end
end
",
            words = self._words,
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "shared_memory".into(),
            clock: "clock".into(),
            inputs: vec![
                "enable".into(),
                "write".into(),
                "addr".into(),
                "wdata".into(),
            ],
            outputs: vec!["rdata".into()],
        }]
    }
}

// ---------------------------------------------------------------------------------------------
// Load extension

/// Extracts the loaded byte / half-word from a 32-bit word and extends it.
///
/// `value` = `raw >> (8 * off)`, then: size 0 (byte): bits 7:0, sign-extended unless `unsigned`;
/// size 1 (half): bits 15:0, likewise; size 2 (word): all 32 bits. Combinational.
#[derive(LogicBlock)]
pub struct LoadExtend {
    pub raw: Signal<In, Bits<32>>,
    /// Byte offset of the value inside `raw`.
    pub off: Signal<In, Bits<2>>,
    /// 0 byte, 1 half, 2 word (3 is treated as word).
    pub size: Signal<In, Bits<2>>,
    pub zero_ext: Signal<In, Bit>,
    pub value: Signal<Out, Bits<32>>,
    shifted: Signal<Local, Bits<32>>,
    k_off1: Constant<Bits<2>>,
    k_off2: Constant<Bits<2>>,
    k_off3: Constant<Bits<2>>,
    k_size_byte: Constant<Bits<2>>,
    k_size_half: Constant<Bits<2>>,
    k_byte: Constant<Bits<32>>,
    k_half: Constant<Bits<32>>,
    k_ext_byte: Constant<Bits<32>>,
    k_ext_half: Constant<Bits<32>>,
}

impl Default for LoadExtend {
    fn default() -> Self {
        LoadExtend {
            raw: Default::default(),
            off: Default::default(),
            size: Default::default(),
            zero_ext: Default::default(),
            value: Default::default(),
            shifted: Default::default(),
            k_off1: Constant::new(1u64.to_bits()),
            k_off2: Constant::new(2u64.to_bits()),
            k_off3: Constant::new(3u64.to_bits()),
            k_size_byte: Constant::new(u64::from(SIZE_BYTE).to_bits()),
            k_size_half: Constant::new(u64::from(SIZE_HALF).to_bits()),
            k_byte: Constant::new(0xffu64.to_bits()),
            k_half: Constant::new(0xffffu64.to_bits()),
            k_ext_byte: Constant::new(0xffff_ff00u64.to_bits()),
            k_ext_half: Constant::new(0xffff_0000u64.to_bits()),
        }
    }
}

impl Logic for LoadExtend {
    #[hdl_gen]
    fn update(&mut self) {
        self.shifted.next = self.raw.val();
        if self.off.val() == self.k_off1.val() {
            self.shifted.next = self.raw.val() >> 8;
        }
        if self.off.val() == self.k_off2.val() {
            self.shifted.next = self.raw.val() >> 16;
        }
        if self.off.val() == self.k_off3.val() {
            self.shifted.next = self.raw.val() >> 24;
        }
        self.value.next = self.shifted.val();
        if self.size.val() == self.k_size_byte.val() {
            self.value.next = self.shifted.val() & self.k_byte.val();
            if !self.zero_ext.val() & self.shifted.val().get_bit(7) {
                self.value.next = (self.shifted.val() & self.k_byte.val()) | self.k_ext_byte.val();
            }
        }
        if self.size.val() == self.k_size_half.val() {
            self.value.next = self.shifted.val() & self.k_half.val();
            if !self.zero_ext.val() & self.shifted.val().get_bit(15) {
                self.value.next = (self.shifted.val() & self.k_half.val()) | self.k_ext_half.val();
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The unit

/// The load/store unit of one SM. Ports (`[l]`: one port per lane, `name$l` in the Verilog):
///
/// | port | dir | width | meaning |
/// |---|---|---|---|
/// | `clock`, `reset` | in | 1 | synchronous reset: idle, nothing in flight, no clear running (shared memory kept) |
/// | `in_valid`, `in_ready` | in, out | 1 | instruction handshake; `in_ready` = idle, no clear running, no fault pulse, not reset |
/// | `in_tag`, `in_warp` | in | 8, 6 | returned with the completion / fault |
/// | `in_store`, `in_size`, `in_unsigned` | in | 1, 2, 1 | store; 0 byte, 1 half, 2 word (3 = word); lbu/lhu |
/// | `in_mask[l]`, `in_base[l]`, `in_data[l]` | in | 1, 32, 32 | active lanes, rs1, rs2 |
/// | `in_offset` | in | 32 | sign-extended immediate |
/// | `in_smem_base`, `in_smem_size` | in | 32, 32 | the CTA's region in shared memory (base: bits 1:0 ignored) |
/// | `mem_req_*`, `mem_resp_*` | | | the SM's memory port (docs/microarch/sm.md) |
/// | `out_valid`, `out_ready` | out, in | 1 | completion, held until `out_ready` |
/// | `out_load_valid` | out | 1 | `out_valid` of a load, from a flip-flop |
/// | `out_tag`, `out_warp`, `out_store`, `out_size` | out | 8, 6, 1, 2 | the instruction |
/// | `out_mask[l]`, `out_data[l]`, `out_addr[l]`, `out_sdata[l]` | out | 1, 32, 32, 32 | mask; loaded value; address; store data (0 for inactive lanes) |
/// | `fault_valid`, `fault_tag`, `fault_warp`, `fault_cause`, `fault_lane`, `fault_addr` | out | 1, 8, 6, 4, 8, 32 | one-cycle fault pulse |
/// | `clear_valid`, `clear_base`, `clear_bytes`, `clear_busy` | in, in, in, out | 1, 32, 32, 1 | zero shared memory |
#[derive(LogicBlock)]
pub struct LoadStoreUnit {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // instruction in
    pub in_valid: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    /// The instruction in the unit completes in this cycle (`out_valid & out_ready`), so the
    /// unit is idle in the next one unless it faulted or a clear starts.
    pub finishing: Signal<Out, Bit>,
    pub in_tag: Signal<In, Bits<TAG_BITS>>,
    pub in_warp: Signal<In, Bits<WARP_BITS>>,
    pub in_store: Signal<In, Bit>,
    pub in_size: Signal<In, Bits<2>>,
    pub in_unsigned: Signal<In, Bit>,
    pub in_mask: Vec<Signal<In, Bit>>,
    pub in_base: Vec<Signal<In, Bits<32>>>,
    pub in_offset: Signal<In, Bits<32>>,
    pub in_data: Vec<Signal<In, Bits<32>>>,
    pub in_smem_base: Signal<In, Bits<32>>,
    pub in_smem_size: Signal<In, Bits<32>>,
    // memory port
    pub mem: MemPort,
    // completion
    pub out_valid: Signal<Out, Bit>,
    /// `out_valid` of a load (a register write), straight from a flip-flop.
    pub out_load_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out_tag: Signal<Out, Bits<TAG_BITS>>,
    pub out_warp: Signal<Out, Bits<WARP_BITS>>,
    pub out_store: Signal<Out, Bit>,
    pub out_size: Signal<Out, Bits<2>>,
    pub out_mask: Vec<Signal<Out, Bit>>,
    pub out_data: Vec<Signal<Out, Bits<32>>>,
    pub out_addr: Vec<Signal<Out, Bits<32>>>,
    pub out_sdata: Vec<Signal<Out, Bits<32>>>,
    // fault
    pub fault_valid: Signal<Out, Bit>,
    pub fault_tag: Signal<Out, Bits<TAG_BITS>>,
    pub fault_warp: Signal<Out, Bits<WARP_BITS>>,
    pub fault_cause: Signal<Out, Bits<4>>,
    pub fault_lane: Signal<Out, Bits<8>>,
    pub fault_addr: Signal<Out, Bits<32>>,
    // shared-memory clear
    pub clear_valid: Signal<In, Bit>,
    pub clear_base: Signal<In, Bits<32>>,
    pub clear_bytes: Signal<In, Bits<32>>,
    pub clear_busy: Signal<Out, Bit>,

    // ---- sub-blocks
    sram: SharedMemory,
    gext: LoadExtend,
    sext: LoadExtend,
    // ---- per-lane state
    /// Address of the lane (0 for inactive lanes).
    addr_r: RegVec<Bits<32>>,
    /// `[l*L + m]`: lanes `l` and `m` have the same base register value, so the same address
    /// (one offset for all lanes). Loaded at acceptance; the merge of uniform loads tests it
    /// instead of comparing each lane's address with the selected lane's (a multiplexer and a
    /// 32-bit compare in the cycle, in front of the pending flags).
    same_r: RegVec<Bit>,
    /// Store data truncated to the size (0 for loads and inactive lanes).
    sdata_r: RegVec<Bits<32>>,
    /// Loaded value (0 until loaded; 0 for stores and inactive lanes).
    data_r: RegVec<Bits<32>>,
    mask_r: RegVec<Bit>,
    /// The lane's access is not performed yet.
    pend_r: RegVec<Bit>,
    /// The lane is a global load still waiting for its response.
    rpend_r: RegVec<Bit>,
    /// The lane goes to shared memory.
    shared_r: RegVec<Bit>,
    /// The shared read of the previous cycle was for this lane.
    sread_r: RegVec<Bit>,
    sread2_r: RegVec<Bit>,
    /// A global load lane's request number within its instruction (the request that read
    /// its address: its own, or the one it was merged into).
    rseq_r: RegVec<Bits<5>>,
    /// The lane's checks at accept: it faults; it is misaligned.
    flt_r: RegVec<Bit>,
    mis_r: RegVec<Bit>,
    // ---- instruction state
    busy_q: DFF<Bit>,
    /// A load's completion (`out_valid`, `out_load_valid`) as a register, set at the edge
    /// after which every access is performed, so the writeback's choice and the register
    /// file's write start from a flip-flop, not from the OR of every lane's pending bits (the
    /// placed critical path of `tiny` on 6d86e5a). A store, which writes no register, completes
    /// from its pending bits as before.
    done_q: DFF<Bit>,
    /// Load requests accepted so far for the instruction (the next request's number).
    qseq_q: DFF<Bits<5>>,
    /// Responses received so far (the number of the request the next response answers).
    aseq_q: DFF<Bits<5>>,
    /// The instruction accepted in the previous cycle: its lanes' check results are in
    /// `flt_r`/`mis_r`, and a fault drops it in this cycle (the check cycle) before any access.
    chk_q: DFF<Bit>,
    tag_q: DFF<Bits<TAG_BITS>>,
    warp_q: DFF<Bits<WARP_BITS>>,
    store_q: DFF<Bit>,
    size_q: DFF<Bits<2>>,
    unsigned_q: DFF<Bit>,
    sbase_q: DFF<Bits<32>>,
    /// A shared read was performed in the previous cycle.
    sread_q: DFF<Bit>,
    /// Its byte offset in the word.
    soff_q: DFF<Bits<2>>,
    /// The shared read of two cycles ago: its word (the RAM's output, registered: a block
    /// RAM's output is 5.8 ns late on the ECP5, too late for the extension after it), its
    /// offset, and the lane it is for (`sread2_r`).
    sread2_q: DFF<Bit>,
    sword_q: DFF<Bits<32>>,
    soff2_q: DFF<Bits<2>>,
    // ---- fault pulse
    fault_q: DFF<Bit>,
    ftag_q: DFF<Bits<TAG_BITS>>,
    fwarp_q: DFF<Bits<WARP_BITS>>,
    fcause_q: DFF<Bits<4>>,
    flane_q: DFF<Bits<8>>,
    faddr_q: DFF<Bits<32>>,
    // ---- clear
    clr_ptr_q: DFF<Bits<32>>,
    clr_left_q: DFF<Bits<32>>,
    // ---- accept-cycle logic
    ready: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    sz_half: Signal<Local, Bit>,
    sz_word: Signal<Local, Bit>,
    size_n: Signal<Local, Bits<2>>,
    st_mask: Signal<Local, Bits<32>>,
    /// `in_smem_size` rounded down to a multiple of the access size, its top four bits and the
    /// other 28 (the shared-window check, below).
    sm_down: Signal<Local, Bits<32>>,
    sm_top: Signal<Local, Bits<4>>,
    sm_low: Signal<Local, Bits<28>>,
    addr: Vec<Signal<Local, Bits<32>>>,
    /// `addr - SMEM_BASE`'s top four bits (`SMEM_BASE`'s other bits are 0: the low 28 bits of
    /// the difference are the address's, no 32-bit subtraction in front of the compare).
    off_top: Vec<Signal<Local, Bits<4>>>,
    mis: Vec<Signal<Local, Bit>>,
    glob: Vec<Signal<Local, Bit>>,
    shr: Vec<Signal<Local, Bit>>,
    flt: Vec<Signal<Local, Bit>>,
    ffound: Signal<Local, Bit>,
    /// The instruction in its check cycle faults: dropped.
    drop: Signal<Local, Bit>,
    f_lane: Signal<Local, Bits<8>>,
    f_mis: Signal<Local, Bit>,
    f_addr: Signal<Local, Bits<32>>,
    f_cause: Signal<Local, Bits<4>>,
    // ---- access logic
    sel_oh: Vec<Signal<Local, Bit>>,
    found: Signal<Local, Bit>,
    /// The lowest pending lane, its address and store data, as flat one-hot logic
    /// (hdl/src/one_hot.rs): `if`-chains over the lanes were multiplexer chains.
    lane_pick: RoundRobinPick,
    lane_mux: OneHotMux<32>,
    sel_addr: Signal<Local, Bits<32>>,
    sel_sdata: Signal<Local, Bits<32>>,
    sel_shared: Signal<Local, Bit>,
    /// `[l]`: lane `l` has the selected lane's address (`same_r`).
    same_sel: Vec<Signal<Local, Bit>>,
    gl_go: Signal<Local, Bit>,
    sh_go: Signal<Local, Bit>,
    advance: Signal<Local, Bit>,
    sh_off: Signal<Local, Bits<2>>,
    sh_be: Signal<Local, Bits<4>>,
    sh_wdata: Signal<Local, Bits<32>>,
    rfound: Signal<Local, Bit>,
    /// The sequence numbers' bits: `clog2(lanes)` ones (an instruction makes at most `lanes`
    /// requests), so the counters and the per-lane comparison are that narrow.
    k_seq_mask: Constant<Bits<5>>,
    k_seq_one: Constant<Bits<5>>,
    k_seq_zero: Constant<Bits<5>>,
    /// A global load request is accepted this cycle: every pending global lane with the same
    /// address is served by it.
    merge_go: Signal<Local, Bit>,
    pend_any: Signal<Local, Bit>,
    done: Signal<Local, Bit>,
    /// `out_valid`: a load's registered completion or a store's performed accesses.
    outv: Signal<Local, Bit>,
    /// A global load lane still waits for its response after this cycle.
    rleft: Signal<Local, Bit>,
    clearing: Signal<Local, Bit>,
    // ---- constants
    k_lane: Vec<Constant<Bits<8>>>,
    k_zero32: Constant<Bits<32>>,
    k_one32: Constant<Bits<32>>,
    k_four32: Constant<Bits<32>>,
    /// All bits but bit 0.
    k_not1: Constant<Bits<32>>,
    k_byte: Constant<Bits<32>>,
    k_half: Constant<Bits<32>>,
    k_word: Constant<Bits<32>>,
    k_not3: Constant<Bits<32>>,
    k_gmask: Constant<Bits<32>>,
    k_gbase: Constant<Bits<32>>,
    /// `SMEM_BASE`'s top four bits (the others are 0: checked in `new`).
    k_sbase_top: Constant<Bits<4>>,
    k_size_byte: Constant<Bits<2>>,
    k_size_half: Constant<Bits<2>>,
    k_size_word: Constant<Bits<2>>,
    k_off0: Constant<Bits<2>>,
    k_off1: Constant<Bits<2>>,
    k_off2: Constant<Bits<2>>,
    k_be_none: Constant<Bits<4>>,
    k_be_all: Constant<Bits<4>>,
    k_be_b0: Constant<Bits<4>>,
    k_be_b1: Constant<Bits<4>>,
    k_be_b2: Constant<Bits<4>>,
    k_be_b3: Constant<Bits<4>>,
    k_be_lo: Constant<Bits<4>>,
    k_be_hi: Constant<Bits<4>>,
    k_c_mis_ld: Constant<Bits<4>>,
    k_c_mis_st: Constant<Bits<4>>,
    k_c_oor_ld: Constant<Bits<4>>,
    k_c_oor_st: Constant<Bits<4>>,
    _lanes: usize,
    /// `L * L` (`same_r`).
    _lanes2: usize,
}

fn vec_of<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

fn k32(v: u32) -> Constant<Bits<32>> {
    Constant::new(u64::from(v).to_bits())
}

fn k4(v: u8) -> Constant<Bits<4>> {
    Constant::new(u64::from(v).to_bits())
}

fn k2(v: u8) -> Constant<Bits<2>> {
    Constant::new(u64::from(v).to_bits())
}

impl LoadStoreUnit {
    /// The LSU of `cfg`: `cfg.lanes` lanes (1..=32), `cfg.smem_bytes` of shared memory,
    /// global memory `[0x8000_0000, 0x8000_0000 + cfg.gmem_bytes)`. Panics on a configuration
    /// that `GpuConfig::validate` refuses (lanes, sizes not powers of two).
    pub fn new(cfg: &GpuConfig) -> Self {
        let lanes = cfg.lanes as usize;
        assert!(
            (1..=32).contains(&lanes),
            "load/store unit: lanes must be 1..=32"
        );
        assert!(
            cfg.gmem_bytes.is_power_of_two() && cfg.gmem_bytes <= 1 << 30,
            "load/store unit: gmem_bytes must be a power of two up to 2^30"
        );
        assert!(
            cfg.smem_bytes.is_power_of_two() && cfg.smem_bytes >= 4,
            "load/store unit: smem_bytes must be a power of two of at least 4"
        );
        LoadStoreUnit {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            finishing: Default::default(),
            in_tag: Default::default(),
            in_warp: Default::default(),
            in_store: Default::default(),
            in_size: Default::default(),
            in_unsigned: Default::default(),
            in_mask: vec_of(lanes),
            in_base: vec_of(lanes),
            in_offset: Default::default(),
            in_data: vec_of(lanes),
            in_smem_base: Default::default(),
            in_smem_size: Default::default(),
            mem: Default::default(),
            out_valid: Default::default(),
            out_load_valid: Default::default(),
            out_ready: Default::default(),
            out_tag: Default::default(),
            out_warp: Default::default(),
            out_store: Default::default(),
            out_size: Default::default(),
            out_mask: vec_of(lanes),
            out_data: vec_of(lanes),
            out_addr: vec_of(lanes),
            out_sdata: vec_of(lanes),
            fault_valid: Default::default(),
            fault_tag: Default::default(),
            fault_warp: Default::default(),
            fault_cause: Default::default(),
            fault_lane: Default::default(),
            fault_addr: Default::default(),
            clear_valid: Default::default(),
            clear_base: Default::default(),
            clear_bytes: Default::default(),
            clear_busy: Default::default(),
            sram: SharedMemory::new(cfg.smem_bytes),
            gext: LoadExtend::default(),
            sext: LoadExtend::default(),
            addr_r: RegVec::new(lanes),
            same_r: RegVec::new(lanes * lanes),
            sdata_r: RegVec::new(lanes),
            data_r: RegVec::new(lanes),
            mask_r: RegVec::new(lanes),
            pend_r: RegVec::new(lanes),
            rpend_r: RegVec::new(lanes),
            shared_r: RegVec::new(lanes),
            sread_r: RegVec::new(lanes),
            sread2_r: RegVec::new(lanes),
            rseq_r: RegVec::new(lanes),
            flt_r: RegVec::new(lanes),
            mis_r: RegVec::new(lanes),
            busy_q: Default::default(),
            done_q: Default::default(),
            qseq_q: Default::default(),
            aseq_q: Default::default(),
            chk_q: Default::default(),
            tag_q: Default::default(),
            warp_q: Default::default(),
            store_q: Default::default(),
            size_q: Default::default(),
            unsigned_q: Default::default(),
            sbase_q: Default::default(),
            sread_q: Default::default(),
            soff_q: Default::default(),
            sread2_q: Default::default(),
            sword_q: Default::default(),
            soff2_q: Default::default(),
            fault_q: Default::default(),
            ftag_q: Default::default(),
            fwarp_q: Default::default(),
            fcause_q: Default::default(),
            flane_q: Default::default(),
            faddr_q: Default::default(),
            clr_ptr_q: Default::default(),
            clr_left_q: Default::default(),
            ready: Default::default(),
            accept: Default::default(),
            sz_half: Default::default(),
            sz_word: Default::default(),
            size_n: Default::default(),
            st_mask: Default::default(),
            sm_down: Default::default(),
            sm_top: Default::default(),
            sm_low: Default::default(),
            off_top: vec_of(lanes),
            addr: vec_of(lanes),
            mis: vec_of(lanes),
            glob: vec_of(lanes),
            shr: vec_of(lanes),
            flt: vec_of(lanes),
            ffound: Default::default(),
            drop: Default::default(),
            f_lane: Default::default(),
            f_mis: Default::default(),
            f_addr: Default::default(),
            f_cause: Default::default(),
            sel_oh: vec_of(lanes),
            found: Default::default(),
            lane_pick: RoundRobinPick::new(lanes),
            lane_mux: OneHotMux::new(lanes, 2),
            sel_addr: Default::default(),
            sel_sdata: Default::default(),
            sel_shared: Default::default(),
            same_sel: crate::sigs(lanes),
            gl_go: Default::default(),
            sh_go: Default::default(),
            advance: Default::default(),
            sh_off: Default::default(),
            sh_be: Default::default(),
            sh_wdata: Default::default(),
            rfound: Default::default(),
            k_seq_mask: Constant::new(((1u64 << clog2(lanes).max(1)) - 1).to_bits()),
            k_seq_one: Constant::new(1u64.to_bits()),
            k_seq_zero: Constant::new(0u64.to_bits()),
            merge_go: Default::default(),
            pend_any: Default::default(),
            done: Default::default(),
            outv: Default::default(),
            rleft: Default::default(),
            clearing: Default::default(),
            k_lane: (0..lanes)
                .map(|l| Constant::new((l as u64).to_bits()))
                .collect(),
            k_zero32: k32(0),
            k_one32: k32(1),
            k_four32: k32(4),
            k_not1: k32(!1),
            k_byte: k32(0xff),
            k_half: k32(0xffff),
            k_word: k32(0xffff_ffff),
            k_not3: k32(!3),
            k_gmask: k32(!(cfg.gmem_bytes - 1)),
            k_gbase: k32(GMEM_BASE),
            k_sbase_top: {
                assert_eq!(SMEM_BASE & 0x0fff_ffff, 0, "SMEM_BASE's low 28 bits are 0");
                k4((SMEM_BASE >> 28) as u8)
            },
            k_size_byte: k2(SIZE_BYTE),
            k_size_half: k2(SIZE_HALF),
            k_size_word: k2(SIZE_WORD),
            k_off0: k2(0),
            k_off1: k2(1),
            k_off2: k2(2),
            k_be_none: k4(0b0000),
            k_be_all: k4(0b1111),
            k_be_b0: k4(0b0001),
            k_be_b1: k4(0b0010),
            k_be_b2: k4(0b0100),
            k_be_b3: k4(0b1000),
            k_be_lo: k4(0b0011),
            k_be_hi: k4(0b1100),
            k_c_mis_ld: k4(FaultCause::MisalignedLoad.code()),
            k_c_mis_st: k4(FaultCause::MisalignedStore.code()),
            k_c_oor_ld: k4(FaultCause::OutOfRangeLoad.code()),
            k_c_oor_st: k4(FaultCause::OutOfRangeStore.code()),
            _lanes: lanes,
            _lanes2: lanes * lanes,
        }
    }

    /// Number of lanes.
    pub fn lanes(&self) -> usize {
        self._lanes
    }
}

impl Logic for LoadStoreUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, busy_q, done_q, qseq_q, aseq_q, chk_q, tag_q, warp_q, store_q, size_q,
            unsigned_q, sbase_q, sread_q, soff_q, sread2_q, sword_q, soff2_q, fault_q, ftag_q,
            fwarp_q, fcause_q, flane_q, faddr_q, clr_ptr_q, clr_left_q
        );
        self.sram.clock.next = self.clock.val();
        self.addr_r.clock.next = self.clock.val();
        self.same_r.clock.next = self.clock.val();
        self.sdata_r.clock.next = self.clock.val();
        self.data_r.clock.next = self.clock.val();
        self.mask_r.clock.next = self.clock.val();
        self.pend_r.clock.next = self.clock.val();
        self.rpend_r.clock.next = self.clock.val();
        self.shared_r.clock.next = self.clock.val();
        self.sread_r.clock.next = self.clock.val();
        self.sread2_r.clock.next = self.clock.val();
        self.rseq_r.clock.next = self.clock.val();
        self.flt_r.clock.next = self.clock.val();
        self.mis_r.clock.next = self.clock.val();
        for l in 0..self._lanes {
            self.addr_r.d[l].next = self.addr_r.q[l].val();
            self.sdata_r.d[l].next = self.sdata_r.q[l].val();
            self.data_r.d[l].next = self.data_r.q[l].val();
            self.mask_r.d[l].next = self.mask_r.q[l].val();
            self.pend_r.d[l].next = self.pend_r.q[l].val();
            self.rpend_r.d[l].next = self.rpend_r.q[l].val();
            self.shared_r.d[l].next = self.shared_r.q[l].val();
            self.sread_r.d[l].next = false;
            self.rseq_r.d[l].next = self.rseq_r.q[l].val();
        }
        for j in 0..self._lanes2 {
            self.same_r.d[j].next = self.same_r.q[j].val();
        }

        // ---- accept: addresses and checks (lanes in order; alignment before region) ----
        self.clearing.next = self.clr_left_q.q.val().any();
        self.ready.next =
            !self.busy_q.q.val() & !self.fault_q.q.val() & !self.clearing.val() & !self.reset.val();
        self.accept.next = self.ready.val() & self.in_valid.val();
        self.sz_word.next = self.in_size.val().get_bit(1);
        self.sz_half.next = !self.in_size.val().get_bit(1) & self.in_size.val().get_bit(0);
        self.size_n.next = self.in_size.val();
        self.st_mask.next = self.k_byte.val();
        if self.sz_half.val() {
            self.st_mask.next = self.k_half.val();
        }
        if self.sz_word.val() {
            self.size_n.next = self.k_size_word.val();
            self.st_mask.next = self.k_word.val();
        }
        // Shared window: `off + size <= smem_size` with `off = addr - SMEM_BASE`. For an aligned
        // access (a misaligned lane faults as misaligned whatever its window) `off` is a
        // multiple of `size`, so this is `off < smem_size` rounded down to a multiple of `size`:
        // no subtraction in front of the compare.
        self.sm_down.next = self.in_smem_size.val();
        if self.sz_half.val() {
            self.sm_down.next = self.in_smem_size.val() & self.k_not1.val();
        }
        if self.sz_word.val() {
            self.sm_down.next = self.in_smem_size.val() & self.k_not3.val();
        }
        self.sm_top.next = self.sm_down.val().get_bits::<4>(28);
        self.sm_low.next = self.sm_down.val().get_bits::<28>(0);
        for l in 0..self._lanes {
            self.addr[l].next = self.in_base[l].val() + self.in_offset.val();
            self.mis[l].next = (self.sz_half.val() & self.addr[l].val().get_bit(0))
                | (self.sz_word.val()
                    & (self.addr[l].val().get_bit(0) | self.addr[l].val().get_bit(1)));
            self.glob[l].next = (self.addr[l].val() & self.k_gmask.val()) == self.k_gbase.val();
            // `addr >= SMEM_BASE` and `off < sm_down`, compared as (top four bits, low 28):
            // `SMEM_BASE`'s low bits are 0, so only the top nibble is subtracted.
            self.off_top[l].next = self.addr[l].val().get_bits::<4>(28) - self.k_sbase_top.val();
            self.shr[l].next = !self.glob[l].val()
                & (self.addr[l].val().get_bits::<4>(28) >= self.k_sbase_top.val())
                & ((self.off_top[l].val() < self.sm_top.val())
                    | ((self.off_top[l].val() == self.sm_top.val())
                        & (self.addr[l].val().get_bits::<28>(0) < self.sm_low.val())));
            self.flt[l].next = self.in_mask[l].val()
                & (self.mis[l].val() | !(self.glob[l].val() | self.shr[l].val()));
            self.flt_r.d[l].next = self.flt[l].val();
            self.mis_r.d[l].next = self.mis[l].val();
        }
        // ---- check cycle (t + 1): the first faulting lane, from the registered checks ----
        self.ffound.next = false;
        self.f_lane.next = self.k_lane[0].val();
        self.f_mis.next = false;
        self.f_addr.next = self.k_zero32.val();
        for l in 0..self._lanes {
            if self.flt_r.q[l].val() & !self.ffound.val() {
                self.f_lane.next = self.k_lane[l].val();
                self.f_mis.next = self.mis_r.q[l].val();
                self.f_addr.next = self.addr_r.q[l].val();
            }
            self.ffound.next = self.ffound.val() | self.flt_r.q[l].val();
        }
        self.f_cause.next = self.k_c_oor_ld.val();
        if self.store_q.q.val() {
            self.f_cause.next = self.k_c_oor_st.val();
            if self.f_mis.val() {
                self.f_cause.next = self.k_c_mis_st.val();
            }
        } else if self.f_mis.val() {
            self.f_cause.next = self.k_c_mis_ld.val();
        }
        // The instruction is dropped in its check cycle: no access, no completion.
        self.drop.next = self.chk_q.q.val() & self.ffound.val();
        self.fcause_q.d.next = self.f_cause.val();
        self.flane_q.d.next = self.f_lane.val();
        self.faddr_q.d.next = self.f_addr.val();
        self.ftag_q.d.next = self.tag_q.q.val();
        self.fwarp_q.d.next = self.warp_q.q.val();
        if self.accept.val() {
            self.qseq_q.d.next = self.k_seq_zero.val();
            self.aseq_q.d.next = self.k_seq_zero.val();
            self.tag_q.d.next = self.in_tag.val();
            self.warp_q.d.next = self.in_warp.val();
            self.store_q.d.next = self.in_store.val();
            self.size_q.d.next = self.size_n.val();
            self.unsigned_q.d.next = self.in_unsigned.val();
            self.sbase_q.d.next = self.in_smem_base.val() & self.k_not3.val();
            for l in 0..self._lanes {
                self.mask_r.d[l].next = self.in_mask[l].val();
                self.addr_r.d[l].next = self.k_zero32.val();
                if self.in_mask[l].val() {
                    self.addr_r.d[l].next = self.addr[l].val();
                }
                self.sdata_r.d[l].next = self.k_zero32.val();
                if self.in_mask[l].val() & self.in_store.val() {
                    self.sdata_r.d[l].next = self.in_data[l].val() & self.st_mask.val();
                }
                self.data_r.d[l].next = self.k_zero32.val();
                self.pend_r.d[l].next = self.in_mask[l].val();
                self.rpend_r.d[l].next =
                    self.in_mask[l].val() & !self.in_store.val() & self.glob[l].val();
                self.shared_r.d[l].next = self.shr[l].val();
            }
            // Each pair compared once: the lower triangle, mirrored.
            for nl in self._lanes..(self._lanes + 1) {
                for l in 0..self._lanes {
                    for m in 0..self._lanes {
                        if m < l {
                            self.same_r.d[l * nl + m].next =
                                self.in_base[m].val() == self.in_base[l].val();
                        }
                    }
                }
                for l in 0..self._lanes {
                    for m in 0..self._lanes {
                        if m == l {
                            self.same_r.d[l * nl + m].next = true;
                        }
                        if m > l {
                            self.same_r.d[l * nl + m].next = self.same_r.d[m * nl + l].val();
                        }
                    }
                }
            }
        }
        self.fault_q.d.next = self.drop.val() & !self.reset.val();
        self.chk_q.d.next = self.accept.val();

        // ---- access: the lowest lane not yet performed ----
        for l in 0..self._lanes {
            self.lane_pick.req[l].next = self.pend_r.q[l].val();
            self.lane_pick.from[l].next = false;
        }
        self.found.next = self.lane_pick.any[0].val();
        self.sel_shared.next = false;
        for l in 0..self._lanes {
            self.sel_oh[l].next = self.lane_pick.grant[l].val();
            self.lane_mux.sel[l].next = self.sel_oh[l].val();
            self.lane_mux.d[l * 2].next = self.addr_r.q[l].val();
            self.lane_mux.d[l * 2 + 1].next = self.sdata_r.q[l].val();
            if self.sel_oh[l].val() & self.shared_r.q[l].val() {
                self.sel_shared.next = true;
            }
        }
        self.sel_addr.next = self.lane_mux.q[0].val();
        self.sel_sdata.next = self.lane_mux.q[1].val();
        self.pend_any.next = self.found.val();
        self.gl_go.next =
            self.found.val() & !self.sel_shared.val() & !self.drop.val() & !self.reset.val();
        self.sh_go.next = self.found.val()
            & self.sel_shared.val()
            & !self.clearing.val()
            & !self.drop.val()
            & !self.reset.val();
        self.advance.next = (self.gl_go.val() & self.mem.req_ready.val()) | self.sh_go.val();
        self.merge_go.next = self.gl_go.val() & self.mem.req_ready.val() & !self.store_q.q.val();
        if self.merge_go.val() {
            self.qseq_q.d.next =
                (self.qseq_q.q.val() + self.k_seq_one.val()) & self.k_seq_mask.val();
        }
        for l in 0..self._lanes {
            if self.sel_oh[l].val() & self.advance.val() {
                self.pend_r.d[l].next = false;
            }
            if self.sel_oh[l].val() & self.merge_go.val() {
                self.rseq_r.d[l].next = self.qseq_q.q.val();
            }
            // Loads of one address by several lanes make one request (uniform loads).
            self.same_sel[l].next = false;
            for nl in self._lanes..(self._lanes + 1) {
                for m in 0..self._lanes {
                    if self.sel_oh[m].val() & self.same_r.q[l * nl + m].val() {
                        self.same_sel[l].next = true;
                    }
                }
            }
            if self.merge_go.val()
                & self.pend_r.q[l].val()
                & !self.shared_r.q[l].val()
                & self.same_sel[l].val()
            {
                self.pend_r.d[l].next = false;
                self.rseq_r.d[l].next = self.qseq_q.q.val();
            }
        }
        self.mem.req_valid.next = self.gl_go.val();
        self.mem.req_write.next = self.store_q.q.val();
        self.mem.req_addr.next = self.sel_addr.val();
        self.mem.req_size.next = self.size_q.q.val();
        self.mem.req_data.next = self.sel_sdata.val();

        // ---- global responses: they come in request order, so a response answers the
        // requested lanes whose request number is the count of responses so far (the lowest
        // global load lane still waiting and every waiting lane with its address: they were
        // merged into its request, docs/microarch/load_store_unit.md) ----
        self.rfound.next = false;
        self.rleft.next = false;
        for l in 0..self._lanes {
            self.rfound.next = self.rfound.val() | self.rpend_r.q[l].val();
            // Still waiting after this cycle's response (if any).
            self.rleft.next = self.rleft.val()
                | (self.rpend_r.q[l].val()
                    & !(!self.pend_r.q[l].val()
                        & (self.rseq_r.q[l].val() == self.aseq_q.q.val())
                        & self.mem.resp_valid.val()));
            if self.rpend_r.q[l].val()
                & !self.pend_r.q[l].val()
                & (self.rseq_r.q[l].val() == self.aseq_q.q.val())
                & self.mem.resp_valid.val()
            {
                self.data_r.d[l].next = self.gext.value.val();
                self.rpend_r.d[l].next = false;
            }
        }
        if self.rfound.val() & self.mem.resp_valid.val() {
            self.aseq_q.d.next =
                (self.aseq_q.q.val() + self.k_seq_one.val()) & self.k_seq_mask.val();
        }
        self.gext.raw.next = self.mem.resp_data.val();
        self.gext.off.next = self.k_off0.val();
        self.gext.size.next = self.size_q.q.val();
        self.gext.zero_ext.next = self.unsigned_q.q.val();

        // ---- shared memory: one access per cycle; a clear has the port while it runs ----
        self.sh_off.next = self.sel_addr.val().get_bits::<2>(0);
        self.sh_be.next = self.k_be_all.val();
        self.sh_wdata.next = self.sel_sdata.val();
        if self.size_q.q.val() == self.k_size_byte.val() {
            self.sh_be.next = self.k_be_b3.val();
            if self.sh_off.val() == self.k_off0.val() {
                self.sh_be.next = self.k_be_b0.val();
            }
            if self.sh_off.val() == self.k_off1.val() {
                self.sh_be.next = self.k_be_b1.val();
            }
            if self.sh_off.val() == self.k_off2.val() {
                self.sh_be.next = self.k_be_b2.val();
            }
            self.sh_wdata.next = self.sel_sdata.val()
                | (self.sel_sdata.val() << 8)
                | (self.sel_sdata.val() << 16)
                | (self.sel_sdata.val() << 24);
        }
        if self.size_q.q.val() == self.k_size_half.val() {
            self.sh_be.next = self.k_be_lo.val();
            if self.sh_off.val().get_bit(1) {
                self.sh_be.next = self.k_be_hi.val();
            }
            self.sh_wdata.next = self.sel_sdata.val() | (self.sel_sdata.val() << 16);
        }
        self.sram.enable.next = self.sh_go.val();
        self.sram.write.next = self.k_be_none.val();
        if self.store_q.q.val() {
            self.sram.write.next = self.sh_be.val();
        }
        self.sram.addr.next = self.sel_addr.val() + self.sbase_q.q.val();
        self.sram.wdata.next = self.sh_wdata.val();
        if self.clearing.val() & !self.reset.val() {
            self.sram.enable.next = true;
            self.sram.write.next = self.k_be_all.val();
            self.sram.addr.next = self.clr_ptr_q.q.val();
            self.sram.wdata.next = self.k_zero32.val();
        }
        self.sread_q.d.next = self.sh_go.val() & !self.store_q.q.val();
        self.soff_q.d.next = self.sh_off.val();
        self.sread2_q.d.next = self.sread_q.q.val();
        self.sword_q.d.next = self.sword_q.q.val();
        if self.sread_q.q.val() {
            self.sword_q.d.next = self.sram.rdata.val();
        }
        self.soff2_q.d.next = self.soff_q.q.val();
        for l in 0..self._lanes {
            self.sread_r.d[l].next =
                self.sel_oh[l].val() & self.sh_go.val() & !self.store_q.q.val();
            self.sread2_r.d[l].next = self.sread_r.q[l].val();
            if self.sread2_q.q.val() & self.sread2_r.q[l].val() {
                self.data_r.d[l].next = self.sext.value.val();
            }
        }
        self.sext.raw.next = self.sword_q.q.val();
        self.sext.off.next = self.soff2_q.q.val();
        self.sext.size.next = self.size_q.q.val();
        self.sext.zero_ext.next = self.unsigned_q.q.val();

        // ---- completion ----
        self.done.next = self.busy_q.q.val()
            & !self.pend_any.val()
            & !self.rfound.val()
            & !self.sread_q.q.val()
            & !self.sread2_q.q.val();
        // A load is performed after this cycle when no access is pending now (a lane requested
        // or read now leaves a response or a shared word to wait for), no shared word is on its
        // way (`sread`; `sread2`'s is captured at this edge) and no response is awaited beyond
        // this cycle's: then its completion is offered from the next cycle, as early as the
        // unregistered `performed` would be.
        self.done_q.d.next = self.busy_q.q.val()
            & !self.store_q.q.val()
            & !self.pend_any.val()
            & !self.rleft.val()
            & !self.sread_q.q.val()
            & !(self.done_q.q.val() & self.out_ready.val())
            & !self.drop.val();
        self.outv.next = self.done_q.q.val() | (self.done.val() & self.store_q.q.val());
        if self.accept.val() {
            self.busy_q.d.next = true;
        } else if (self.outv.val() & self.out_ready.val()) | self.drop.val() {
            self.busy_q.d.next = false;
        }
        if self.drop.val() {
            for l in 0..self._lanes {
                self.pend_r.d[l].next = false;
                self.rpend_r.d[l].next = false;
            }
        }
        self.out_valid.next = self.outv.val();
        self.out_load_valid.next = self.done_q.q.val();
        self.out_tag.next = self.tag_q.q.val();
        self.out_warp.next = self.warp_q.q.val();
        self.out_store.next = self.store_q.q.val();
        self.out_size.next = self.size_q.q.val();
        for l in 0..self._lanes {
            self.out_mask[l].next = self.mask_r.q[l].val();
            self.out_data[l].next = self.data_r.q[l].val();
            self.out_addr[l].next = self.addr_r.q[l].val();
            self.out_sdata[l].next = self.sdata_r.q[l].val();
        }
        self.in_ready.next = self.ready.val();
        self.finishing.next = self.outv.val() & self.out_ready.val();
        self.fault_valid.next = self.fault_q.q.val();
        self.fault_tag.next = self.ftag_q.q.val();
        self.fault_warp.next = self.fwarp_q.q.val();
        self.fault_cause.next = self.fcause_q.q.val();
        self.fault_lane.next = self.flane_q.q.val();
        self.fault_addr.next = self.faddr_q.q.val();

        // ---- clear: one word per cycle ----
        if self.clearing.val() {
            self.clr_ptr_q.d.next = self.clr_ptr_q.q.val() + self.k_four32.val();
            self.clr_left_q.d.next = self.clr_left_q.q.val() - self.k_one32.val();
        } else if self.clear_valid.val() {
            self.clr_ptr_q.d.next = self.clear_base.val() & self.k_not3.val();
            self.clr_left_q.d.next = self.clear_bytes.val() >> 2;
        }
        self.clear_busy.next = self.clearing.val();

        // ---- reset ----
        if self.reset.val() {
            self.busy_q.d.next = false;
            self.done_q.d.next = false;
            self.chk_q.d.next = false;
            self.sread_q.d.next = false;
            self.sread2_q.d.next = false;
            self.clr_left_q.d.next = self.k_zero32.val();
            for l in 0..self._lanes {
                self.pend_r.d[l].next = false;
                self.rpend_r.d[l].next = false;
            }
        }
    }
}

/// The Verilog of the load/store unit of `cfg`, top module named `name`.
pub fn load_store_unit_verilog(cfg: &GpuConfig, name: &str) -> Result<String, HdlError> {
    let mut uut = LoadStoreUnit::new(cfg);
    Ok(rename_top(&verilog_of("load_store_unit", &mut uut)?, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emits_verilog_for_presets() {
        for cfg in [GpuConfig::tiny(), GpuConfig::small()] {
            let v = load_store_unit_verilog(&cfg, "lsu").expect("verilog");
            assert!(v.contains("module lsu("));
        }
    }
}
