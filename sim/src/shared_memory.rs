//! Reference of the banked shared memory, written from docs/microarch/shared_memory.md (not
//! from any RTL).
//!
//! One per SM: `smem_bytes` of storage in `N = lanes` banks of 32-bit words, word `w` in bank
//! `w mod N`, row `w / N` (book §4.1.1, "Shared Memory Access Operations": one bank per lane,
//! bank conflicts split a warp's access into a conflict-free part and a replayed part, lanes
//! reading one word get it in one pass). Two forms are given:
//!
//! * [`schedule`], a pure function: the ordered list of [`Pass`]es one [`Access`] takes —
//!   which lanes each pass serves and which row each bank reads or writes. It answers *what*.
//! * [`SharedMemory`], the cycle-accurate model: [`SharedMemory::step`] is one clock cycle — it
//!   returns the outputs the unit shows in that cycle (functions of the registers and `reset`
//!   only) and then applies the clock edge. It answers *when* and *which values*, and is meant
//!   for co-simulation against the RTL unit cycle by cycle.
//!
//! The two compute the passes differently on purpose (per bank, the list of its distinct rows
//! in order of first use, against the page's register-level "lowest pending lane of each bank
//! picks the row"), so the tests that compare them check the page's rules against each other.

use crate::coalescer::{size_bytes, size_code};
use warpforge_config::GpuConfig;

/// Width of the opaque id carried from `in_id` to every pass's `out_id`.
pub const ID_BITS: u32 = 16;

/// Cycles from the cycle a pass is selected to the cycle it is shown on `out_*`: select (A → S),
/// bank access (S), bank read register (Q), crossbar and extension (O).
pub const PASS_LATENCY: usize = 4;

/// The two parameters the shared memory depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// `L`: lanes of a warp (a power of two, 1–32); also `N`, the number of banks.
    pub lanes: usize,
    /// Bytes of shared memory of the SM (a power of two, at least `4·L`, at most 1 MiB).
    pub smem_bytes: u32,
}

impl Geometry {
    /// The configuration's `lanes` and `smem_bytes`.
    pub fn new(cfg: &GpuConfig) -> Self {
        Self::with(cfg.lanes as usize, cfg.smem_bytes)
    }

    /// Any valid pair. Panics on a value `GpuConfig::validate` refuses.
    pub fn with(lanes: usize, smem_bytes: u32) -> Self {
        assert!(
            lanes.is_power_of_two() && lanes <= 32,
            "lanes = {lanes}: a power of two from 1 to 32 is needed"
        );
        assert!(
            smem_bytes.is_power_of_two() && smem_bytes >= 4 * lanes as u32 && smem_bytes <= 1 << 20,
            "smem_bytes = {smem_bytes}: a power of two from 4·lanes to 1 MiB is needed"
        );
        Geometry { lanes, smem_bytes }
    }

    /// `N`: banks, one per lane.
    pub fn banks(&self) -> usize {
        self.lanes
    }

    /// `W`: 32-bit words of shared memory.
    pub fn words(&self) -> u32 {
        self.smem_bytes / 4
    }

    /// `R`: rows per bank (words per bank).
    pub fn rows(&self) -> u32 {
        self.words() / self.banks() as u32
    }

    /// `AW = log2(smem_bytes)`: bits of a byte address in shared memory (`in_addr[l]`).
    pub fn addr_bits(&self) -> u32 {
        self.smem_bytes.trailing_zeros()
    }

    /// `LB = log2(N)`: bits of a bank number.
    pub fn bank_bits(&self) -> u32 {
        self.lanes.trailing_zeros()
    }

    /// `RB = log2(R)`: bits of a row number (0 when a bank has one row).
    pub fn row_bits(&self) -> u32 {
        self.rows().trailing_zeros()
    }

    /// Word index of byte address `addr`; bits at and above `AW` are ignored (the address is
    /// taken modulo `smem_bytes`).
    pub fn word_of(&self, addr: u32) -> u32 {
        (addr & (self.smem_bytes - 1)) >> 2
    }

    /// Bank of byte address `addr`: `word mod N`.
    pub fn bank_of(&self, addr: u32) -> usize {
        (self.word_of(addr) % self.banks() as u32) as usize
    }

    /// Row of byte address `addr`: `word / N`.
    pub fn row_of(&self, addr: u32) -> u32 {
        self.word_of(addr) / self.banks() as u32
    }

    /// Byte offset of a lane's access in its word: `addr[1:0]` with the bits below the size
    /// cleared (the LSU never sends a misaligned lane; clearing them keeps every input defined
    /// and every lane inside its word).
    pub fn offset_of(&self, addr: u32, size: u8) -> u32 {
        addr & 3 & !(size_bytes(size) - 1)
    }

    /// Bits `0 … L−1`: the mask bits that exist.
    pub fn lane_mask(&self) -> u32 {
        if self.lanes >= 32 {
            u32::MAX
        } else {
            (1u32 << self.lanes) - 1
        }
    }

    /// Flip-flops per register of the unit (page, "State"); the banks are RAM.
    pub fn flops(&self) -> SmemFlops {
        let (l, n) = (self.lanes as u64, self.banks() as u64);
        let (lb, rb, aw) = (
            u64::from(self.bank_bits()),
            u64::from(self.row_bits()),
            u64::from(self.addr_bits()),
        );
        let id = u64::from(ID_BITS);
        // valid, id, store, size (2), unsigned, last, lanes, banks, and per lane bank + offset.
        let lane_info = 1 + id + 1 + 2 + 1 + 1 + l + n + l * (lb + 2);
        SmemFlops {
            access: 1 + l + id + 1 + 2 + 1 + l * (lb + rb + 2 + 32),
            select: lane_info + 1 + n * rb + l * 32,
            read: lane_info,
            word: lane_info + 32 * n,
            out: 1 + id + 1 + 1 + l + n + 32 * l,
            clear: (aw - 2) + (aw - 1),
            same_flags: l * (l - 1),
        }
    }
}

/// Flip-flops per register (page, "State"). `same_flags` are the RTL's pairwise timing
/// registers ("Hardware and timing paths"), not architectural state, and not in `total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmemFlops {
    /// A, the access register.
    pub access: u64,
    /// S, the selected pass (or clear row).
    pub select: u64,
    /// R, the pass whose bank reads are in flight.
    pub read: u64,
    /// Q, the pass and its registered bank words (`32·N` of them; the block RAMs' output
    /// registers can hold those).
    pub word: u64,
    /// O, the output register.
    pub out: u64,
    /// The clear's word pointer and word count.
    pub clear: u64,
    /// `L(L−1)` pairwise same-bank and same-word flags of the RTL's select.
    pub same_flags: u64,
}

impl SmemFlops {
    pub fn total(&self) -> u64 {
        self.access + self.select + self.read + self.word + self.out + self.clear
    }
}

/// One warp's shared-memory access, as offered on the `in_*` ports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Access {
    /// Opaque, returned with every pass (`in_id`).
    pub id: u16,
    /// Store (else load).
    pub store: bool,
    /// Size code (`in_size`): 0 byte, 1 half, 2 word, 3 taken as 2.
    pub size: u8,
    /// Zero-extend a loaded byte or half (`lbu`, `lhu`); ignored for words and stores.
    pub unsigned: bool,
    /// Bit `l`: lane `l` is active. Bits of lanes ≥ `L` are ignored.
    pub mask: u32,
    /// Byte address in the SM's shared memory per lane (the LSU has added the CTA window's base
    /// and checked range and alignment); a missing lane reads as 0.
    pub addr: Vec<u32>,
    /// Store data per lane in the low `n` bytes; missing lanes read as 0; ignored for loads.
    pub data: Vec<u32>,
}

impl Access {
    /// A load of `size` by the lanes of `mask` (sign-extended unless `unsigned`).
    pub fn load(id: u16, size: u8, unsigned: bool, mask: u32, addr: Vec<u32>) -> Self {
        Access {
            id,
            store: false,
            size,
            unsigned,
            mask,
            addr,
            data: Vec::new(),
        }
    }

    /// A store of `size` by the lanes of `mask`.
    pub fn store(id: u16, size: u8, mask: u32, addr: Vec<u32>, data: Vec<u32>) -> Self {
        Access {
            id,
            store: true,
            size,
            unsigned: false,
            mask,
            addr,
            data,
        }
    }

    fn addr_of(&self, lane: usize) -> u32 {
        self.addr.get(lane).copied().unwrap_or(0)
    }

    fn data_of(&self, lane: usize) -> u32 {
        self.data.get(lane).copied().unwrap_or(0)
    }
}

/// One pass of an access (the pure function's answer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pass {
    /// Bit `l`: lane `l` is served by this pass.
    pub lanes: u32,
    /// Bit `b`: bank `b` is read (load) or written (store) by this pass.
    pub banks: u32,
    /// Per bank (`N` entries): the row it accesses if its bit in `banks` is set, else 0.
    pub rows: Vec<u32>,
}

/// The passes one access takes, in order (page, "What one access becomes"). For every bank,
/// the distinct rows its active lanes touch, in the order of the lowest lane touching each; pass
/// `j` accesses the `j`-th row of every bank that has one and serves every active lane whose
/// word is that row of its bank. So the number of passes is the largest number of distinct rows
/// any bank is asked for (0 for an access without an active lane).
pub fn schedule(g: &Geometry, a: &Access) -> Vec<Pass> {
    let mask = a.mask & g.lane_mask();
    let n = g.banks();
    let mut rows_of_bank: Vec<Vec<u32>> = vec![Vec::new(); n];
    for l in (0..g.lanes).filter(|&l| mask >> l & 1 == 1) {
        let (b, r) = (g.bank_of(a.addr_of(l)), g.row_of(a.addr_of(l)));
        if !rows_of_bank[b].contains(&r) {
            rows_of_bank[b].push(r);
        }
    }
    let count = rows_of_bank.iter().map(Vec::len).max().unwrap_or(0);
    (0..count)
        .map(|j| {
            let mut pass = Pass {
                lanes: 0,
                banks: 0,
                rows: vec![0; n],
            };
            for (b, rows) in rows_of_bank.iter().enumerate() {
                if let Some(&r) = rows.get(j) {
                    pass.banks |= 1 << b;
                    pass.rows[b] = r;
                }
            }
            for l in (0..g.lanes).filter(|&l| mask >> l & 1 == 1) {
                let (b, r) = (g.bank_of(a.addr_of(l)), g.row_of(a.addr_of(l)));
                if rows_of_bank[b].get(j) == Some(&r) {
                    pass.lanes |= 1 << l;
                }
            }
            pass
        })
        .collect()
}

/// The loaded value of a lane: the `n` bytes of `word` from byte `off` on, sign-extended from
/// their top bit unless `unsigned` (words are taken whole).
pub fn extend(word: u32, off: u32, size: u8, unsigned: bool) -> u32 {
    let v = word >> (8 * off);
    match (size_bytes(size), unsigned) {
        (1, false) => v as u8 as i8 as i32 as u32,
        (1, true) => v & 0xFF,
        (2, false) => v as u16 as i16 as i32 as u32,
        (2, true) => v & 0xFFFF,
        _ => word,
    }
}

/// A clear request (`clear_valid` with `clear_base`, `clear_bytes`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clear {
    /// First byte (bits 1:0 ignored, bits ≥ `AW` ignored: taken modulo `smem_bytes`).
    pub base: u32,
    /// Bytes to zero (bits 1:0 ignored; `AW + 1` bits, higher bits ignored).
    pub bytes: u32,
}

/// Cycles a clear keeps the bank ports once started (page, "Clear"): the rows it touches,
/// `⌈(w0 mod N + k) / N⌉` for `k` words from word `w0`; 0 for `k = 0`.
pub fn clear_rows(g: &Geometry, c: &Clear) -> u32 {
    let w0 = g.word_of(c.base);
    let k = (c.bytes & (2 * g.smem_bytes - 1)) >> 2;
    if k == 0 {
        0
    } else {
        (w0 % g.banks() as u32 + k).div_ceil(g.banks() as u32)
    }
}

/// Counters the unit feeds (page, "Counters"), defined on port events; `reset` does not clear
/// them and a reset cycle counts nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SmemStats {
    /// Accepted accesses with at least one active lane.
    pub accesses: u64,
    /// Accepted accesses without an active lane.
    pub empty_accesses: u64,
    /// Active lanes of accepted accesses.
    pub active_lanes: u64,
    /// Passes shown (`out_valid`).
    pub passes: u64,
    /// Passes shown that are not the first of their access: the bank-conflict replays.
    pub replays: u64,
    /// Words accessed: the banks of every pass shown (`popcount(out_banks)`).
    pub bank_words: u64,
    /// Load lanes served by a word that a lower lane of the same pass also reads:
    /// `popcount(out_lanes) − popcount(out_banks)` of load passes.
    pub broadcast_lanes: u64,
    /// The same count for store passes (lanes merged into a word another lane also writes).
    pub merged_store_lanes: u64,
    /// Index `k` (0 … L): accesses that took `k` passes; `k = 0` counted at acceptance (the
    /// empty accesses), `k ≥ 1` when the access's `out_last` pass is shown.
    pub passes_per_access: Vec<u64>,
    /// Clears started (with at least one word).
    pub clears: u64,
    /// Rows written by clears.
    pub clear_rows: u64,
    /// Cycles in which an access's passes waited for a clear (A busy while clearing).
    pub clear_wait_cycles: u64,
}

impl SmemStats {
    /// Zero counters for `lanes` lanes.
    pub fn new(lanes: usize) -> Self {
        SmemStats {
            passes_per_access: vec![0; lanes + 1],
            ..Default::default()
        }
    }

    /// Passes per access with an active lane: 1 = conflict-free, `L` = every lane alone in a
    /// bank's row.
    pub fn mean_passes_per_access(&self) -> f64 {
        if self.accesses == 0 {
            0.0
        } else {
            self.passes as f64 / self.accesses as f64
        }
    }
}

/// Inputs of one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SmemInputs {
    /// Synchronous reset; wins over everything else in the cycle.
    pub reset: bool,
    /// The offered access: `Some` = `in_valid` high with these `in_*` values.
    pub input: Option<Access>,
    /// `Some` = `clear_valid` high with these `clear_*` values.
    pub clear: Option<Clear>,
}

/// One pass as shown on the `out_*` ports while `out_valid` is high (one cycle; no ready).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassResponse {
    /// The access's id.
    pub id: u16,
    /// The access's store flag.
    pub store: bool,
    /// Bit `l`: lane `l` is served by this pass.
    pub lanes: u32,
    /// Trace: bit `b`, bank `b` was accessed by this pass.
    pub banks: u32,
    /// Per lane (`L` entries): the loaded value, extended by size, for a served lane of a load;
    /// 0 otherwise.
    pub data: Vec<u32>,
    /// The last pass of its access (the access is done).
    pub last: bool,
}

/// Outputs of one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SmemOutputs {
    /// `in_ready`: an offered access is accepted in this cycle.
    pub in_ready: bool,
    /// `Some` = `out_valid` high with these `out_*` values.
    pub out: Option<PassResponse>,
    /// `clear_busy`: a clear has rows left to select (its last row is written at the end of
    /// the first cycle with `clear_busy` low); `clear_valid` is taken exactly when it is low.
    pub clear_busy: bool,
}

/// The pass fields that travel down the pipeline after the bank access (registers R, Q).
#[derive(Clone, Debug)]
struct LaneInfo {
    id: u16,
    store: bool,
    size: u8,
    unsigned: bool,
    last: bool,
    lanes: u32,
    banks: u32,
    bank: Vec<usize>,
    off: Vec<u32>,
}

/// Register S: a selected pass (with its rows and the lanes' store data) or a clear row.
#[derive(Clone, Debug)]
enum Selected {
    Pass {
        info: LaneInfo,
        rows: Vec<u32>,
        data: Vec<u32>,
    },
    ClearRow {
        row: u32,
        banks: u32,
    },
}

/// The cycle-accurate shared memory: register A (the access), S (the selected pass), R (bank
/// reads in flight), Q (bank words registered), O (the output), the clear's pointer and count,
/// and the `N` banks.
#[derive(Clone, Debug)]
pub struct SharedMemory {
    g: Geometry,
    // Register A. Invariant: `busy == (pend != 0)`.
    busy: bool,
    pend: u32,
    a_id: u16,
    a_store: bool,
    a_size: u8,
    a_unsigned: bool,
    a_bank: Vec<usize>,
    a_row: Vec<u32>,
    a_off: Vec<u32>,
    a_data: Vec<u32>,
    // The clear: word pointer and words left (`clearing = clr_left != 0`).
    clr_w: u32,
    clr_left: u32,
    // Pipeline (`*_valid` = `Some`).
    s: Option<Selected>,
    r: Option<LaneInfo>,
    q: Option<LaneInfo>,
    o: Option<PassResponse>,
    /// The banks' read outputs (a synchronous read's register: holds the last word read).
    ram_out: Vec<u32>,
    /// Register Q's words.
    q_word: Vec<u32>,
    /// `banks[b][row]`.
    banks: Vec<Vec<u32>>,
    stats: SmemStats,
    /// Passes shown since the last `out_last` (for `replays`, `passes_per_access`).
    shown_in_access: usize,
}

impl SharedMemory {
    /// The unit for `cfg`, idle, every word 0.
    pub fn new(cfg: &GpuConfig) -> Self {
        Self::with_geometry(Geometry::new(cfg))
    }

    /// The unit for any geometry, idle (the state after a reset), every word 0. (The RTL's
    /// contents at power-on are whatever the FPGA loads; the SM clears a CTA's window before
    /// the CTA runs, so nothing reads them.)
    pub fn with_geometry(g: Geometry) -> Self {
        let n = g.banks();
        SharedMemory {
            g,
            busy: false,
            pend: 0,
            a_id: 0,
            a_store: false,
            a_size: 0,
            a_unsigned: false,
            a_bank: vec![0; g.lanes],
            a_row: vec![0; g.lanes],
            a_off: vec![0; g.lanes],
            a_data: vec![0; g.lanes],
            clr_w: 0,
            clr_left: 0,
            s: None,
            r: None,
            q: None,
            o: None,
            ram_out: vec![0; n],
            q_word: vec![0; n],
            banks: vec![vec![0; g.rows() as usize]; n],
            stats: SmemStats::new(g.lanes),
            shown_in_access: 0,
        }
    }

    pub fn geometry(&self) -> &Geometry {
        &self.g
    }

    pub fn stats(&self) -> &SmemStats {
        &self.stats
    }

    /// No access in A, no clear running, nothing in the pipeline.
    pub fn is_idle(&self) -> bool {
        !self.busy
            && self.clr_left == 0
            && self.s.is_none()
            && self.r.is_none()
            && self.q.is_none()
            && self.o.is_none()
    }

    /// Backdoor read of the byte at `addr` (taken modulo `smem_bytes`), for tests and the
    /// co-simulation's final comparison.
    pub fn peek_byte(&self, addr: u32) -> u8 {
        let w = self.g.word_of(addr);
        let n = self.g.banks() as u32;
        (self.banks[(w % n) as usize][(w / n) as usize] >> (8 * (addr & 3))) as u8
    }

    /// Backdoor write of the byte at `addr`, for tests (the RTL has no such port).
    pub fn poke_byte(&mut self, addr: u32, value: u8) {
        let w = self.g.word_of(addr);
        let n = self.g.banks() as u32;
        let word = &mut self.banks[(w % n) as usize][(w / n) as usize];
        let sh = 8 * (addr & 3);
        *word = (*word & !(0xFF << sh)) | u32::from(value) << sh;
    }

    /// The outputs of the current cycle: functions of the registers and `reset` only (no
    /// other input reaches an output in the same cycle).
    pub fn outputs(&self, reset: bool) -> SmemOutputs {
        SmemOutputs {
            in_ready: !self.busy && !reset,
            out: if reset { None } else { self.o.clone() },
            clear_busy: self.clr_left != 0 && !reset,
        }
    }

    /// One clock cycle: this cycle's outputs, then the edge.
    pub fn step(&mut self, inp: &SmemInputs) -> SmemOutputs {
        let clearing = self.clr_left != 0;
        let outputs = self.outputs(inp.reset);

        if inp.reset {
            // Bank contents and payload registers keep their values; no bank is written.
            self.busy = false;
            self.pend = 0;
            self.clr_left = 0;
            self.s = None;
            self.r = None;
            self.q = None;
            self.o = None;
            self.shown_in_access = 0;
            return outputs;
        }

        let acc = outputs.in_ready && inp.input.is_some();
        let sel = self.busy && !clearing;
        let start_clear = inp.clear.is_some() && !clearing;
        self.count(inp, acc, &outputs, clearing);

        // Every next value is computed from the state at the start of the cycle.
        // O ← crossbar and extension of Q.
        let o_next = self.q.as_ref().map(|q| self.crossbar(q));
        // Q ← R, with the banks' read outputs.
        let q_next = self.r.take();
        let q_word_next = self.ram_out.clone();
        // Bank access of the pass (or clear row) in S, at this edge.
        let r_next = match self.s.take() {
            Some(Selected::Pass { info, rows, data }) => {
                if info.store {
                    self.write_pass(&info, &rows, &data);
                } else {
                    for b in (0..self.g.banks()).filter(|&b| info.banks >> b & 1 == 1) {
                        self.ram_out[b] = self.banks[b][rows[b] as usize];
                    }
                }
                Some(info)
            }
            Some(Selected::ClearRow { row, banks }) => {
                for b in (0..self.g.banks()).filter(|&b| banks >> b & 1 == 1) {
                    self.banks[b][row as usize] = 0;
                }
                self.stats.clear_rows += 1;
                None
            }
            None => None,
        };
        // S ← a clear row while clearing, else the next pass of A.
        let s_next = if clearing {
            Some(self.clear_row())
        } else if sel {
            Some(self.select())
        } else {
            None
        };

        self.o = o_next;
        self.q = q_next;
        self.q_word = q_word_next;
        self.r = r_next;
        self.s = s_next;

        // A takes the new access (`acc` excludes `sel`: it needs `!busy`).
        if acc {
            let a = inp.input.as_ref().expect("acc implies an offered access");
            for l in 0..self.g.lanes {
                let addr = a.addr_of(l);
                self.a_bank[l] = self.g.bank_of(addr);
                self.a_row[l] = self.g.row_of(addr);
                self.a_off[l] = self.g.offset_of(addr, a.size);
                self.a_data[l] = a.data_of(l);
            }
            self.pend = a.mask & self.g.lane_mask();
            self.busy = self.pend != 0;
            self.a_id = a.id;
            self.a_store = a.store;
            self.a_size = size_code(a.size);
            self.a_unsigned = a.unsigned;
        }
        // A clear starts (`start_clear` excludes the clear-row step: it needs `!clearing`).
        if start_clear {
            let c = inp.clear.expect("start_clear implies a clear");
            self.clr_w = self.g.word_of(c.base);
            self.clr_left = (c.bytes & (2 * self.g.smem_bytes - 1)) >> 2;
            if self.clr_left != 0 {
                self.stats.clears += 1;
            }
        }
        outputs
    }

    /// Select (A → S): in every bank, the lowest pending lane picks the row; every pending lane
    /// on the word it picked is served. Updates A's pending lanes.
    fn select(&mut self) -> Selected {
        let n = self.g.banks();
        let mut lead: Vec<Option<usize>> = vec![None; n];
        for l in (0..self.g.lanes).filter(|&l| self.pend >> l & 1 == 1) {
            let b = self.a_bank[l];
            if lead[b].is_none() {
                lead[b] = Some(l);
            }
        }
        let mut rows = vec![0; n];
        let mut banks = 0u32;
        for (b, m) in lead.iter().enumerate() {
            if let Some(m) = *m {
                rows[b] = self.a_row[m];
                banks |= 1 << b;
            }
        }
        let hit = (0..self.g.lanes)
            .filter(|&l| {
                self.pend >> l & 1 == 1
                    && lead[self.a_bank[l]].map(|m| self.a_row[m]) == Some(self.a_row[l])
            })
            .fold(0u32, |m, l| m | 1 << l);
        let last = self.pend & !hit == 0;
        self.pend &= !hit;
        self.busy = !last;
        Selected::Pass {
            info: LaneInfo {
                id: self.a_id,
                store: self.a_store,
                size: self.a_size,
                unsigned: self.a_unsigned,
                last,
                lanes: hit,
                banks,
                bank: self.a_bank.clone(),
                off: self.a_off.clone(),
            },
            rows,
            data: self.a_data.clone(),
        }
    }

    /// The clear's next row (S ← clear row): the banks of the words left in the current row.
    fn clear_row(&mut self) -> Selected {
        let n = self.g.banks() as u32;
        let o = self.clr_w % n;
        let m = (n - o).min(self.clr_left);
        let banks = (((1u64 << m) - 1) << o) as u32;
        let row = (self.clr_w / n) % self.g.rows();
        self.clr_w = (self.clr_w + m) % self.g.words();
        self.clr_left -= m;
        Selected::ClearRow { row, banks }
    }

    /// A store pass's bank writes: per bank and byte, the highest served lane of that bank
    /// covering the byte (the form the RTL's multiplexer tree computes); bytes no lane covers
    /// keep their value (byte enables).
    fn write_pass(&mut self, info: &LaneInfo, rows: &[u32], data: &[u32]) {
        let n = size_bytes(info.size);
        for b in (0..self.g.banks()).filter(|&b| info.banks >> b & 1 == 1) {
            let mut word = self.banks[b][rows[b] as usize];
            for k in 0..4u32 {
                let covering = (0..self.g.lanes).rev().find(|&l| {
                    info.lanes >> l & 1 == 1
                        && info.bank[l] == b
                        && info.off[l] <= k
                        && k < info.off[l] + n
                });
                if let Some(l) = covering {
                    let byte = (data[l] >> (8 * (k - info.off[l]))) & 0xFF;
                    word = (word & !(0xFF << (8 * k))) | byte << (8 * k);
                }
            }
            self.banks[b][rows[b] as usize] = word;
        }
    }

    /// The data crossbar and extension (Q → O): each served lane of a load takes its bank's
    /// word; every other lane shows 0.
    fn crossbar(&self, q: &LaneInfo) -> PassResponse {
        let data = (0..self.g.lanes)
            .map(|l| {
                if q.store || q.lanes >> l & 1 == 0 {
                    0
                } else {
                    extend(self.q_word[q.bank[l]], q.off[l], q.size, q.unsigned)
                }
            })
            .collect();
        PassResponse {
            id: q.id,
            store: q.store,
            lanes: q.lanes,
            banks: q.banks,
            data,
            last: q.last,
        }
    }

    /// The counters' events of one (non-reset) cycle.
    fn count(&mut self, inp: &SmemInputs, acc: bool, outputs: &SmemOutputs, clearing: bool) {
        let st = &mut self.stats;
        if let Some(o) = &outputs.out {
            st.passes += 1;
            if self.shown_in_access > 0 {
                st.replays += 1;
            }
            self.shown_in_access += 1;
            let words = u64::from(o.banks.count_ones());
            let extra = u64::from(o.lanes.count_ones()) - words;
            st.bank_words += words;
            if o.store {
                st.merged_store_lanes += extra;
            } else {
                st.broadcast_lanes += extra;
            }
            if o.last {
                let k = self.shown_in_access.min(self.g.lanes);
                st.passes_per_access[k] += 1;
                self.shown_in_access = 0;
            }
        }
        if self.busy && clearing {
            st.clear_wait_cycles += 1;
        }
        if acc {
            let a = inp.input.as_ref().expect("acc implies an offered access");
            let mask = a.mask & self.g.lane_mask();
            if mask == 0 {
                st.empty_accesses += 1;
                st.passes_per_access[0] += 1;
            } else {
                st.accesses += 1;
                st.active_lanes += u64::from(mask.count_ones());
            }
        }
    }
}

#[cfg(test)]
mod tests;
