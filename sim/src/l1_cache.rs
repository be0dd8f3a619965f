//! Reference of the L1 data cache and its pending request table (PRT), written from
//! docs/microarch/l1_cache.md (not from any RTL).
//!
//! One per SM (book §4.1.1, Fig. 4.1: arbiter ②, tag unit ③, data array ⑤, data crossbar ⑥,
//! PRT ⑦, fill unit ⑨, write data buffer ⑩). The unit is *line-granular*: a request names one
//! line, a byte mask and (for a store) the bytes in line position; the load/store unit keeps
//! which lanes a request serves and extracts their values from the returned line.
//!
//! The pipeline never stalls on a miss: a request accepted in cycle `t` is decided in stage T
//! (cycle `t + 1`) and answered by exactly one response in cycle `t + 2` — a hit (a load's whole
//! line), `done` (a store), `wait(k)` (a load miss, to be replayed when PRT entry `k` is filled)
//! or `retry(cause)`. Fills from memory take a pipeline slot of their own and answer
//! `filled(k)`.
//!
//! [`L1Cache::step`] is one clock cycle: it returns the outputs the unit shows in that cycle
//! (functions of the registers and `reset` only) and then applies the clock edge, processing the
//! slot in stage T atomically (the page's "spec-level atomicity"). Meant for co-simulation
//! against the RTL cycle by cycle.

use crate::crossbar::{round_robin, LineReq};
use std::collections::VecDeque;
use warpforge_config::GpuConfig;

/// Width of the opaque request id (`req_id`, `resp_id`, and a store's `mem_req_id`).
pub const ID_BITS: u32 = 16;

/// Entries of the outgoing memory queue (`MQ`).
pub const MEMQ_DEPTH: usize = 4;

/// Width of a PRT entry's waiter count.
pub const WAITER_BITS: u32 = 8;

/// The largest waiter count: a load that would merge into an entry holding this many waiters
/// retries with [`RetryCause::MergeFull`].
pub const MAX_WAITERS: u32 = (1 << WAITER_BITS) - 1;

/// Width of `resp_kind` and of `resp_cause`.
pub const KIND_BITS: u32 = 3;

/// The four parameters the L1 depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct L1Geometry {
    /// `S`: sets (a power of two).
    pub sets: usize,
    /// `W`: ways (a power of two, 1–16).
    pub ways: usize,
    /// `B`: line size in bytes (a power of two, 4–1024).
    pub line_bytes: u32,
    /// `P`: PRT entries (1–256, any value).
    pub prt_entries: usize,
}

impl L1Geometry {
    /// The configuration's `l1_sets`, `l1_ways`, `line_bytes` and `prt_entries`.
    pub fn new(cfg: &GpuConfig) -> Self {
        Self::with(
            cfg.l1_sets as usize,
            cfg.l1_ways as usize,
            cfg.line_bytes,
            cfg.prt_entries as usize,
        )
    }

    /// Any valid quadruple. Panics on a value `GpuConfig::validate` refuses.
    pub fn with(sets: usize, ways: usize, line_bytes: u32, prt_entries: usize) -> Self {
        assert!(
            line_bytes.is_power_of_two() && (4..=1024).contains(&line_bytes),
            "line_bytes = {line_bytes}: a power of two from 4 to 1024 is needed"
        );
        let line_bits = 32 - line_bytes.trailing_zeros();
        assert!(
            sets.is_power_of_two() && sets.trailing_zeros() < line_bits,
            "l1_sets = {sets}: a power of two below 2^{line_bits} is needed"
        );
        assert!(
            ways.is_power_of_two() && ways <= 16,
            "l1_ways = {ways}: a power of two from 1 to 16 is needed"
        );
        assert!(
            (1..=256).contains(&prt_entries),
            "prt_entries = {prt_entries}: a value from 1 to 256 is needed"
        );
        L1Geometry {
            sets,
            ways,
            line_bytes,
            prt_entries,
        }
    }

    /// `OB = log2(B)`.
    pub fn offset_bits(&self) -> u32 {
        self.line_bytes.trailing_zeros()
    }

    /// `LW = 32 − OB`: bits of a line number (`req_line`, `mem_req_line`).
    pub fn line_bits(&self) -> u32 {
        32 - self.offset_bits()
    }

    /// The `LW` bits a line number has.
    pub fn line_mask(&self) -> u32 {
        u32::MAX >> self.offset_bits()
    }

    /// `SB = log2(S)`: the low bits of a line number that name its set.
    pub fn set_bits(&self) -> u32 {
        self.sets.trailing_zeros()
    }

    /// `TW = LW − SB`: bits of a tag.
    pub fn tag_bits(&self) -> u32 {
        self.line_bits() - self.set_bits()
    }

    /// `RB = log2(W)`: bits of a set's round-robin pointer (0 when `W = 1`: no pointer).
    pub fn rr_bits(&self) -> u32 {
        self.ways.trailing_zeros()
    }

    /// `WB = max(1, log2 W)`: bits of a way index (a PRT entry's `way`).
    pub fn way_bits(&self) -> u32 {
        self.rr_bits().max(1)
    }

    /// `EW = max(1, ⌈log2 P⌉)`: bits of an entry index (`req_entry`, `resp_entry`, `fill_id`).
    pub fn entry_bits(&self) -> u32 {
        (usize::BITS - (self.prt_entries - 1).leading_zeros()).max(1)
    }

    /// The `EW` bits an entry index has.
    pub fn entry_mask(&self) -> usize {
        (1usize << self.entry_bits()) - 1
    }

    /// Set of line `line` (its low `SB` bits).
    pub fn set_of(&self, line: u32) -> usize {
        line as usize & (self.sets - 1)
    }

    /// Tag of line `line` (its bits above the set).
    pub fn tag_of(&self, line: u32) -> u32 {
        (line & self.line_mask()) >> self.set_bits()
    }

    /// `RW = 1 + LW + B + 8·B + 16`: bits of a memory request (the crossbar's request width).
    pub fn mem_request_bits(&self) -> u32 {
        1 + self.line_bits() + 9 * self.line_bytes + ID_BITS
    }

    /// Bits of the tag array: `S·W·TW`.
    pub fn tag_ram_bits(&self) -> u64 {
        (self.sets * self.ways) as u64 * u64::from(self.tag_bits())
    }

    /// Bits of the data array: `S·W·8·B`.
    pub fn data_ram_bits(&self) -> u64 {
        (self.sets * self.ways) as u64 * 8 * u64::from(self.line_bytes)
    }

    /// Flip-flops of the page's state, by register (page, "State").
    pub fn flops(&self) -> L1Flops {
        let (s, w, p) = (self.sets as u64, self.ways as u64, self.prt_entries as u64);
        let (lw, b, ew) = (
            u64::from(self.line_bits()),
            u64::from(self.line_bytes),
            u64::from(self.entry_bits()),
        );
        let q = MEMQ_DEPTH as u64;
        let qb = u64::from(usize::BITS - MEMQ_DEPTH.leading_zeros()); // count 0 … Q
        let qp = u64::from(MEMQ_DEPTH.trailing_zeros()); // a pointer into Q entries
        L1Flops {
            valid: s * w,
            rr: s * u64::from(self.rr_bits()),
            prt: p * (2 + lw + u64::from(self.way_bits()) + u64::from(WAITER_BITS)),
            memq: q * u64::from(self.mem_request_bits()) + qb + 2 * qp,
            fill_reg: 1 + ew + 8 * b,
            stage_t: 2 + u64::from(ID_BITS) + 1 + lw + b + 8 * b + 1 + ew,
            resp: 1 + u64::from(ID_BITS) + u64::from(KIND_BITS) + ew + u64::from(KIND_BITS) + 2,
        }
    }
}

/// Flip-flops per register of the L1 (page, "State"); the tag and data arrays are RAM and not
/// counted here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct L1Flops {
    /// Valid bits, `S·W`.
    pub valid: u64,
    /// Round-robin pointers, `S·log2 W`.
    pub rr: u64,
    /// PRT: `P·(2 + LW + WB + 8)`.
    pub prt: u64,
    /// Memory queue: `Q·RW` payload, its count and two pointers.
    pub memq: u64,
    /// Fill register `FR`: valid, entry, line.
    pub fill_reg: u64,
    /// Stage-T register: valid, fill flag, id, store, line, bytes, data, waiter, entry.
    pub stage_t: u64,
    /// Response register (without `resp_data`, the data array's read register).
    pub resp: u64,
}

impl L1Flops {
    pub fn total(&self) -> u64 {
        self.valid + self.rr + self.prt + self.memq + self.fill_reg + self.stage_t + self.resp
    }
}

/// Why a request must be re-sent (`resp_cause`), in the order of the page's codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RetryCause {
    /// A load miss found no free PRT entry (the thesis's MSHR hazard).
    PrtFull,
    /// A load miss found every way of its set pending or locked (the thesis's RSV hazard).
    SetPending,
    /// A store to a line with a pending fill.
    LinePending,
    /// A store, or a load miss that would allocate, found the memory queue full (COMQ).
    MemqFull,
    /// A load miss to a pending line whose entry already has [`MAX_WAITERS`] waiters.
    MergeFull,
}

impl RetryCause {
    /// Every cause, by code.
    pub const ALL: [RetryCause; 5] = [
        RetryCause::PrtFull,
        RetryCause::SetPending,
        RetryCause::LinePending,
        RetryCause::MemqFull,
        RetryCause::MergeFull,
    ];

    /// `resp_cause`.
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// The kind of a response (`resp_kind`) with its entry or cause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RespKind {
    /// Code 0: a load hit; `resp_data` is the line.
    Hit,
    /// Code 1: a store was performed in the L1 (if resident) and queued to memory.
    Done,
    /// Code 2: a load miss; replay it when entry `k` is filled (`resp_entry = k`).
    Wait(usize),
    /// Code 3: not performed; re-send it later.
    Retry(RetryCause),
    /// Code 4: entry `k` was filled; replay the loads that waited on it.
    Filled(usize),
}

impl RespKind {
    /// `resp_kind`.
    pub fn code(&self) -> u8 {
        match self {
            RespKind::Hit => 0,
            RespKind::Done => 1,
            RespKind::Wait(_) => 2,
            RespKind::Retry(_) => 3,
            RespKind::Filled(_) => 4,
        }
    }
}

/// One response, as shown on the `resp_*` ports while `resp_valid` is high.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct L1Response {
    /// The request's `req_id`; 0 for `Filled` (the port's value is then undefined).
    pub id: u16,
    pub kind: RespKind,
    /// `resp_data` of a load hit (`B` bytes); `None` for every other kind (undefined there).
    pub data: Option<Vec<u8>>,
    /// `resp_hit`: the request found its line resident (load hit, store hit).
    pub hit: bool,
    /// `resp_alloc`: the request allocated a PRT entry (a `Wait` that is not a merge).
    pub alloc: bool,
}

/// A request as the LSU offers it on `req_*`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct L1Request {
    /// Opaque, returned with the response.
    pub id: u16,
    /// A store (else a load).
    pub store: bool,
    /// Line number (`LW` bits; higher bits do not exist on the port).
    pub line: u32,
    /// `B` entries: byte `k` of the line is written (stores; ignored for loads). Missing = 0.
    pub bytes: Vec<bool>,
    /// `B` bytes of store data in line position. Missing = 0.
    pub data: Vec<u8>,
    /// `Some(k)`: `req_waiter = 1`, `req_entry = k` — the replay of a load told to wait on `k`.
    pub waiter: Option<usize>,
}

impl L1Request {
    /// A load of line `line`.
    pub fn load(id: u16, line: u32) -> Self {
        L1Request {
            id,
            line,
            ..Default::default()
        }
    }

    /// The replay of a load that was told `wait(entry)`.
    pub fn waiter(id: u16, line: u32, entry: usize) -> Self {
        L1Request {
            id,
            line,
            waiter: Some(entry),
            ..Default::default()
        }
    }

    /// A store of `data` into the bytes of `bytes`.
    pub fn store(id: u16, line: u32, bytes: Vec<bool>, data: Vec<u8>) -> Self {
        L1Request {
            id,
            store: true,
            line,
            bytes,
            data,
            waiter: None,
        }
    }

    /// The request as the ports carry it: `LW` line bits, exactly `B` mask bits and data
    /// bytes, an `EW`-bit entry.
    fn normalized(&self, g: &L1Geometry) -> Self {
        let b = g.line_bytes as usize;
        L1Request {
            id: self.id,
            store: self.store,
            line: self.line & g.line_mask(),
            bytes: (0..b)
                .map(|k| self.bytes.get(k).copied().unwrap_or(false))
                .collect(),
            data: (0..b)
                .map(|k| self.data.get(k).copied().unwrap_or(0))
                .collect(),
            waiter: self.waiter.map(|k| k & g.entry_mask()),
        }
    }
}

/// A fill as the memory side offers it on `fill_*`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fill {
    /// `fill_id`: the PRT entry the read was sent for (`EW` bits).
    pub entry: usize,
    /// `fill_data`: the line, `B` bytes. Missing = 0.
    pub data: Vec<u8>,
}

impl Fill {
    fn normalized(&self, g: &L1Geometry) -> Self {
        Fill {
            entry: self.entry & g.entry_mask(),
            data: (0..g.line_bytes as usize)
                .map(|k| self.data.get(k).copied().unwrap_or(0))
                .collect(),
        }
    }
}

/// Inputs of one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct L1Inputs {
    /// Synchronous reset; wins over everything else in the cycle.
    pub reset: bool,
    /// `Some` = `req_valid` high with these `req_*` values.
    pub req: Option<L1Request>,
    /// `mem_req_ready`.
    pub mem_req_ready: bool,
    /// `Some` = `fill_valid` high with these `fill_*` values (always taken).
    pub fill: Option<Fill>,
}

/// Outputs of one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct L1Outputs {
    /// `req_ready`.
    pub req_ready: bool,
    /// `Some` = `resp_valid` high with these `resp_*` values.
    pub resp: Option<L1Response>,
    /// `Some` = `mem_req_valid` high with these `mem_req_*` values (`write`, `line`, `mask` =
    /// `mem_req_bytes`, `data`, `id`).
    pub mem_req: Option<LineReq>,
}

/// State of a PRT entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryState {
    Free,
    /// The read is in the memory queue or in memory; the way is reserved.
    Pending,
    /// The line is in the data array and locked until the last waiter has replayed.
    Filled,
}

/// One PRT entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrtEntry {
    pub state: EntryState,
    /// The line it was allocated for (meaningful unless free).
    pub line: u32,
    /// The way reserved in the line's set.
    pub way: usize,
    /// Loads told to wait on it and not yet replayed (1 … 255 unless free).
    pub waiters: u32,
}

const FREE_ENTRY: PrtEntry = PrtEntry {
    state: EntryState::Free,
    line: 0,
    way: 0,
    waiters: 0,
};

/// The L1's counters (page, "Counters"). Reset cycles count nothing; `reset` does not clear
/// them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct L1Stats {
    /// Non-reset cycles.
    pub cycles: u64,
    /// Requests accepted (`req_valid & req_ready`).
    pub requests: u64,
    /// Loads answered `Hit` (waiter replays included).
    pub load_hits: u64,
    /// Of those, waiter replays (each decremented its entry).
    pub waiter_hits: u64,
    /// Load misses that allocated a PRT entry (one memory read each).
    pub misses: u64,
    /// Load misses merged into the pending entry of their line.
    pub merges: u64,
    /// Stores to a resident line.
    pub store_hits: u64,
    /// Stores to a line not resident (forwarded to memory only).
    pub store_misses: u64,
    /// Retries, indexed by [`RetryCause::code`].
    pub retries: [u64; 5],
    /// Fills processed (an entry went pending → filled).
    pub fills: u64,
    /// Fills for an entry that was not pending (ignored, no response).
    pub stray_fills: u64,
    /// Waiter-flagged loads whose entry was not a filled entry of their line (a pending entry of
    /// their line answers `wait` again; otherwise the load is processed as an ordinary one).
    pub stray_waiters: u64,
    /// Entries freed by their last waiter.
    pub frees: u64,
    /// Memory requests taken (`mem_req_valid & mem_req_ready`).
    pub mem_sent: u64,
    /// Cycles starting with the memory queue full.
    pub memq_full_cycles: u64,
    /// Cycles with `mem_req_valid & !mem_req_ready`.
    pub mem_stall_cycles: u64,
    /// Sum over cycles of the PRT entries not free at the start of the cycle.
    pub prt_occupancy_sum: u64,
    /// Most PRT entries not free at the start of any cycle.
    pub prt_max: u64,
}

impl L1Stats {
    /// Retries of `cause`.
    pub fn retries_of(&self, cause: RetryCause) -> u64 {
        self.retries[cause.code() as usize]
    }

    /// All retries.
    pub fn total_retries(&self) -> u64 {
        self.retries.iter().sum()
    }

    /// Mean PRT entries in use per cycle.
    pub fn mean_prt_occupancy(&self) -> f64 {
        if self.cycles == 0 {
            0.0
        } else {
            self.prt_occupancy_sum as f64 / self.cycles as f64
        }
    }

    /// Hit rate of first-time loads: hits (not counting waiter replays) over the loads decided
    /// as a hit, an allocation or a merge.
    pub fn load_hit_rate(&self) -> f64 {
        let first = self.load_hits - self.waiter_hits;
        let all = first + self.misses + self.merges;
        if all == 0 {
            0.0
        } else {
            first as f64 / all as f64
        }
    }
}

/// What stage T holds: an accepted request or the fill that took the slot.
#[derive(Clone, Debug)]
enum Slot {
    Req(L1Request),
    Fill(Fill),
}

/// The cycle-accurate L1 with its PRT, as on the page.
#[derive(Clone, Debug)]
pub struct L1Cache {
    g: L1Geometry,
    /// Tag array, index `set·W + way`.
    tags: Vec<u32>,
    /// Data array, index `set·W + way`, `B` bytes each.
    data: Vec<Vec<u8>>,
    /// Valid bits, index `set·W + way`.
    valid: Vec<bool>,
    /// Per set: the round-robin victim pointer.
    rr: Vec<usize>,
    prt: Vec<PrtEntry>,
    /// The outgoing memory queue `MQ` (front = head), at most [`MEMQ_DEPTH`].
    memq: VecDeque<LineReq>,
    /// The fill register `FR`.
    fr: Option<Fill>,
    /// The stage-T register.
    t: Option<Slot>,
    /// The response register (with the data array's read register).
    resp: Option<L1Response>,
    stats: L1Stats,
}

impl L1Cache {
    /// The unit for `cfg`, in its reset state (arrays zero, which the page leaves undefined).
    pub fn new(cfg: &GpuConfig) -> Self {
        Self::with_geometry(L1Geometry::new(cfg))
    }

    /// The unit for any geometry, in its reset state.
    pub fn with_geometry(g: L1Geometry) -> Self {
        let lines = g.sets * g.ways;
        L1Cache {
            g,
            tags: vec![0; lines],
            data: vec![vec![0; g.line_bytes as usize]; lines],
            valid: vec![false; lines],
            rr: vec![0; g.sets],
            prt: vec![FREE_ENTRY; g.prt_entries],
            memq: VecDeque::new(),
            fr: None,
            t: None,
            resp: None,
            stats: L1Stats::default(),
        }
    }

    pub fn geometry(&self) -> &L1Geometry {
        &self.g
    }

    pub fn stats(&self) -> &L1Stats {
        &self.stats
    }

    /// PRT entry `k`.
    pub fn entry(&self, k: usize) -> PrtEntry {
        self.prt[k]
    }

    /// Entries not free.
    pub fn entries_in_use(&self) -> usize {
        self.prt
            .iter()
            .filter(|e| e.state != EntryState::Free)
            .count()
    }

    /// Requests in the memory queue.
    pub fn memq_len(&self) -> usize {
        self.memq.len()
    }

    /// The valid bit of `(set, way)`.
    pub fn is_valid(&self, set: usize, way: usize) -> bool {
        self.valid[set * self.g.ways + way]
    }

    /// The line held by `(set, way)` if its valid bit is set.
    pub fn resident_line(&self, set: usize, way: usize) -> Option<u32> {
        let i = set * self.g.ways + way;
        self.valid[i].then(|| (self.tags[i] << self.g.set_bits()) | set as u32)
    }

    /// The data array's line at `(set, way)` (whatever its valid bit).
    pub fn line_data(&self, set: usize, way: usize) -> &[u8] {
        &self.data[set * self.g.ways + way]
    }

    /// The way holding `line` if it is resident.
    pub fn way_of(&self, line: u32) -> Option<usize> {
        let line = line & self.g.line_mask();
        self.hit_way(self.g.set_of(line), self.g.tag_of(line))
    }

    /// Set `set`'s round-robin pointer.
    pub fn rr_pointer(&self, set: usize) -> usize {
        self.rr[set]
    }

    /// The fill register is full (`req_ready` is low in this cycle).
    pub fn fill_register_valid(&self) -> bool {
        self.fr.is_some()
    }

    /// Nothing in flight inside the unit: no slot in T, no response, no fill, an empty queue
    /// and every PRT entry free.
    pub fn is_idle(&self) -> bool {
        self.t.is_none()
            && self.resp.is_none()
            && self.fr.is_none()
            && self.memq.is_empty()
            && self.entries_in_use() == 0
    }

    /// The outputs of the current cycle: functions of the registers and `reset` only (what
    /// [`L1Cache::step`] returns for this cycle, whatever its other inputs).
    pub fn outputs(&self, reset: bool) -> L1Outputs {
        let live = !reset;
        L1Outputs {
            req_ready: live && self.fr.is_none(),
            resp: self.resp.clone().filter(|_| live),
            mem_req: self.memq.front().cloned().filter(|_| live),
        }
    }

    /// One clock cycle: this cycle's outputs, then the edge.
    pub fn step(&mut self, inp: &L1Inputs) -> L1Outputs {
        let out = self.outputs(inp.reset);

        if inp.reset {
            // Tags and data are RAM and keep their contents; nothing reads them without a valid
            // bit or a pending entry.
            self.valid.fill(false);
            self.rr.fill(0);
            self.prt.fill(FREE_ENTRY);
            self.memq.clear();
            self.fr = None;
            self.t = None;
            self.resp = None;
            return out;
        }

        // Counters of the cycle (from the state at its start).
        let in_use = self.entries_in_use() as u64;
        let st = &mut self.stats;
        st.cycles += 1;
        st.prt_occupancy_sum += in_use;
        st.prt_max = st.prt_max.max(in_use);
        if self.memq.len() == MEMQ_DEPTH {
            st.memq_full_cycles += 1;
        }
        let pop = out.mem_req.is_some() && inp.mem_req_ready;
        if out.mem_req.is_some() && !inp.mem_req_ready {
            st.mem_stall_cycles += 1;
        }

        // Stage T: the slot is decided against the state left by every earlier slot; the
        // memory queue's room is its count at the start of the cycle (a pop in this cycle does
        // not make room for this slot).
        let room = self.memq.len() < MEMQ_DEPTH;
        let (resp, push) = match self.t.take() {
            Some(Slot::Fill(f)) => (self.fill(f), None),
            Some(Slot::Req(r)) => {
                let (resp, push) = self.decide(&r, room);
                (Some(resp), push)
            }
            None => (None, None),
        };
        self.resp = resp;

        // The memory queue: pop the head taken in this cycle, append this slot's request.
        if pop {
            self.memq.pop_front();
            self.stats.mem_sent += 1;
        }
        if let Some(p) = push {
            debug_assert!(self.memq.len() < MEMQ_DEPTH);
            self.memq.push_back(p);
        }

        // The slot entering T: the fill register's fill, else an accepted request.
        let accept = out.req_ready && inp.req.is_some();
        self.t = if let Some(f) = self.fr.take() {
            Some(Slot::Fill(f))
        } else if accept {
            self.stats.requests += 1;
            let r = inp.req.as_ref().expect("accept implies a request");
            Some(Slot::Req(r.normalized(&self.g)))
        } else {
            None
        };

        // The fill register takes every offered fill (it was emptied above).
        self.fr = inp.fill.as_ref().map(|f| f.normalized(&self.g));
        out
    }

    fn idx(&self, set: usize, way: usize) -> usize {
        set * self.g.ways + way
    }

    /// The valid way of `set` whose tag is `tag` (at most one: a line is resident once).
    fn hit_way(&self, set: usize, tag: u32) -> Option<usize> {
        (0..self.g.ways).find(|&w| {
            let i = self.idx(set, w);
            self.valid[i] && self.tags[i] == tag
        })
    }

    /// Way `w` of `set` is reserved by an entry in state `state`.
    fn reserved(&self, set: usize, w: usize, state: EntryState) -> bool {
        self.prt
            .iter()
            .any(|e| e.state == state && self.g.set_of(e.line) == set && e.way == w)
    }

    /// A way that is neither pending nor locked may be replaced.
    fn evictable(&self, set: usize, w: usize) -> bool {
        !self.reserved(set, w, EntryState::Pending) && !self.reserved(set, w, EntryState::Filled)
    }

    /// The victim for a miss in `set` and whether it was the round-robin choice (page,
    /// "Victim choice"); `None` = every way pending or locked.
    fn victim(&self, set: usize) -> Option<(usize, bool)> {
        let w = self.g.ways;
        if let Some(v) = (0..w)
            .find(|&v| !self.valid[self.idx(set, v)] && !self.reserved(set, v, EntryState::Pending))
        {
            return Some((v, false));
        }
        round_robin(w, self.rr[set], |v| self.evictable(set, v)).map(|v| (v, true))
    }

    /// The fill slot.
    fn fill(&mut self, f: Fill) -> Option<L1Response> {
        let k = f.entry;
        if k >= self.g.prt_entries || self.prt[k].state != EntryState::Pending {
            self.stats.stray_fills += 1;
            return None;
        }
        let e = self.prt[k];
        let i = self.idx(self.g.set_of(e.line), e.way);
        self.data[i] = f.data;
        self.tags[i] = self.g.tag_of(e.line);
        self.valid[i] = true;
        self.prt[k].state = EntryState::Filled;
        self.stats.fills += 1;
        Some(L1Response {
            id: 0,
            kind: RespKind::Filled(k),
            data: None,
            hit: false,
            alloc: false,
        })
    }

    /// A request slot: the response and the memory request it queues.
    fn decide(&mut self, r: &L1Request, room: bool) -> (L1Response, Option<LineReq>) {
        let g = self.g;
        let set = g.set_of(r.line);
        let hit = self.hit_way(set, g.tag_of(r.line));
        let pending = (0..g.prt_entries)
            .find(|&k| self.prt[k].state == EntryState::Pending && self.prt[k].line == r.line);
        let answer = |kind: RespKind, hit: bool| L1Response {
            id: r.id,
            kind,
            data: None,
            hit,
            alloc: false,
        };
        let retry = |st: &mut L1Stats, cause: RetryCause| {
            st.retries[cause.code() as usize] += 1;
            (answer(RespKind::Retry(cause), false), None)
        };

        if r.store {
            // A store must not reach memory ahead of an outstanding fill of its line.
            if pending.is_some() {
                return retry(&mut self.stats, RetryCause::LinePending);
            }
            if !room {
                return retry(&mut self.stats, RetryCause::MemqFull);
            }
            let write = LineReq {
                write: true,
                line: r.line,
                mask: r.bytes.clone(),
                data: r.data.clone(),
                id: r.id,
            };
            if let Some(w) = hit {
                let i = self.idx(set, w);
                for (k, byte) in self.data[i].iter_mut().enumerate() {
                    if r.bytes[k] {
                        *byte = r.data[k];
                    }
                }
                self.stats.store_hits += 1;
            } else {
                self.stats.store_misses += 1;
            }
            return (answer(RespKind::Done, hit.is_some()), Some(write));
        }

        // A waiter: the replay of a load told to wait on entry k.
        if let Some(k) = r.waiter {
            let e = self.prt.get(k).copied().unwrap_or(FREE_ENTRY);
            if e.state != EntryState::Free && e.line == r.line {
                if e.state == EntryState::Pending {
                    // Replayed too early: it is counted already; wait again.
                    self.stats.stray_waiters += 1;
                    return (answer(RespKind::Wait(k), false), None);
                }
                // Filled: the line is resident in the locked way `e.way` — a guaranteed hit.
                let i = self.idx(set, e.way);
                let line = self.data[i].clone();
                self.prt[k].waiters -= 1;
                if self.prt[k].waiters == 0 {
                    self.prt[k] = FREE_ENTRY;
                    self.stats.frees += 1;
                }
                self.stats.load_hits += 1;
                self.stats.waiter_hits += 1;
                let mut resp = answer(RespKind::Hit, true);
                resp.data = Some(line);
                return (resp, None);
            }
            self.stats.stray_waiters += 1;
        }

        if let Some(w) = hit {
            self.stats.load_hits += 1;
            let mut resp = answer(RespKind::Hit, true);
            resp.data = Some(self.data[self.idx(set, w)].clone());
            return (resp, None);
        }
        if let Some(k) = pending {
            if self.prt[k].waiters >= MAX_WAITERS {
                return retry(&mut self.stats, RetryCause::MergeFull);
            }
            self.prt[k].waiters += 1;
            self.stats.merges += 1;
            return (answer(RespKind::Wait(k), false), None);
        }
        let Some(k) = (0..g.prt_entries).find(|&k| self.prt[k].state == EntryState::Free) else {
            return retry(&mut self.stats, RetryCause::PrtFull);
        };
        let Some((v, by_rr)) = self.victim(set) else {
            return retry(&mut self.stats, RetryCause::SetPending);
        };
        if !room {
            return retry(&mut self.stats, RetryCause::MemqFull);
        }
        if by_rr {
            self.rr[set] = (v + 1) % g.ways;
        }
        let i = self.idx(set, v);
        self.valid[i] = false;
        self.prt[k] = PrtEntry {
            state: EntryState::Pending,
            line: r.line,
            way: v,
            waiters: 1,
        };
        self.stats.misses += 1;
        let read = LineReq {
            write: false,
            line: r.line,
            mask: vec![true; g.line_bytes as usize],
            data: vec![0; g.line_bytes as usize],
            id: k as u16,
        };
        let mut resp = answer(RespKind::Wait(k), false);
        resp.alloc = true;
        (resp, Some(read))
    }

    /// The page's invariants of the state ("Invariants"); `Err` names the first one broken.
    pub fn check_invariants(&self) -> Result<(), String> {
        let g = &self.g;
        if self.memq.len() > MEMQ_DEPTH {
            return Err(format!("memory queue holds {}", self.memq.len()));
        }
        for set in 0..g.sets {
            for a in 0..g.ways {
                for b in a + 1..g.ways {
                    let (i, j) = (self.idx(set, a), self.idx(set, b));
                    if self.valid[i] && self.valid[j] && self.tags[i] == self.tags[j] {
                        return Err(format!("set {set}: ways {a} and {b} hold the same line"));
                    }
                }
            }
            if self.rr[set] >= g.ways {
                return Err(format!("set {set}: pointer {}", self.rr[set]));
            }
        }
        for (k, e) in self.prt.iter().enumerate() {
            if e.state == EntryState::Free {
                continue;
            }
            if e.waiters == 0 || e.waiters > MAX_WAITERS || e.way >= g.ways {
                return Err(format!("entry {k}: {e:?}"));
            }
            let set = g.set_of(e.line);
            let i = self.idx(set, e.way);
            match e.state {
                EntryState::Pending => {
                    if self.valid[i] {
                        return Err(format!("entry {k} pending on a valid way: {e:?}"));
                    }
                    if self.hit_way(set, g.tag_of(e.line)).is_some() {
                        return Err(format!("entry {k} pending on a resident line: {e:?}"));
                    }
                }
                EntryState::Filled => {
                    if !self.valid[i] || self.tags[i] != g.tag_of(e.line) {
                        return Err(format!("entry {k} filled but its line is gone: {e:?}"));
                    }
                }
                EntryState::Free => unreachable!(),
            }
            for (k2, e2) in self.prt.iter().enumerate().skip(k + 1) {
                if e2.state == EntryState::Free {
                    continue;
                }
                if e2.line == e.line {
                    return Err(format!("entries {k} and {k2} hold line {:#x}", e.line));
                }
                if g.set_of(e2.line) == set && e2.way == e.way {
                    return Err(format!("entries {k} and {k2} reserve the same way"));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
