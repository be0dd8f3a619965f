//! Reference of the coalescer, written from docs/microarch/coalescer.md (not from any RTL).
//!
//! The coalescer turns one warp's global access into one request per distinct line touched by
//! its active lanes (book §4.1.1 and Fig. 4.1: the load/store unit "applies the coalescing
//! rules" and the L1 serves "a single cache block per cycle"). Two forms are given:
//!
//! * [`coalesce`], a pure function: the ordered list of [`LineRequest`]s one [`Access`] makes.
//!   It answers *what* is requested (counts, order, lanes, byte masks, merged store data).
//! * [`Coalescer`], the cycle-accurate model: [`Coalescer::step`] is one clock cycle — it
//!   returns the outputs the unit shows in that cycle (a function of the state at the start
//!   of the cycle and of `reset`) and then applies the clock edge. It answers *when*, and is
//!   meant for co-simulation against the RTL unit cycle by cycle.
//!
//! The two compute the requests differently on purpose (grouping lanes by line and storing
//! them in lane order, against the page's register-level select and "highest covering lane"
//! merge), so the tests that compare them check the page's rules against each other.

use warpforge_config::GpuConfig;

/// Width of the opaque tag carried from `in_tag` to every request's `out_tag`.
pub const TAG_BITS: u32 = 16;

/// Bytes of an access of size code `size` (the 2-bit `in_size`: 0 byte, 1 half, 2 word; 3 is
/// taken as a word, as in the load/store unit; higher bits are ignored).
pub fn size_bytes(size: u8) -> u32 {
    match size & 3 {
        0 => 1,
        1 => 2,
        _ => 4,
    }
}

/// The size code as the unit keeps and reports it (`out_size`): 0, 1 or 2.
pub fn size_code(size: u8) -> u8 {
    (size & 3).min(2)
}

/// The two parameters the coalescer depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// `L`: lanes of a warp (a power of two, 1–32).
    pub lanes: usize,
    /// `B`: line size in bytes (a power of two, 4–1024).
    pub line_bytes: u32,
}

impl Geometry {
    /// The configuration's `lanes` and `line_bytes`.
    pub fn new(cfg: &GpuConfig) -> Self {
        Self::with(cfg.lanes as usize, cfg.line_bytes)
    }

    /// Any valid pair. Panics on a value `GpuConfig::validate` refuses, since the page's widths
    /// (`OB = log2(B)`, one lane never crossing a line) need it.
    pub fn with(lanes: usize, line_bytes: u32) -> Self {
        assert!(
            lanes.is_power_of_two() && lanes <= 32,
            "lanes = {lanes}: a power of two from 1 to 32 is needed"
        );
        assert!(
            line_bytes.is_power_of_two() && (4..=1024).contains(&line_bytes),
            "line_bytes = {line_bytes}: a power of two from 4 to 1024 is needed"
        );
        Geometry { lanes, line_bytes }
    }

    /// `OB`: bits of a byte offset within a line (`out_offset[l]`'s width).
    pub fn offset_bits(&self) -> u32 {
        self.line_bytes.trailing_zeros()
    }

    /// `LW = 32 − OB`: bits of a line number (`out_line`'s width).
    pub fn line_bits(&self) -> u32 {
        32 - self.offset_bits()
    }

    /// Line number of byte address `addr`.
    pub fn line_of(&self, addr: u32) -> u32 {
        addr >> self.offset_bits()
    }

    /// A lane's byte offset in its line: the address's offset with the bits below the size
    /// cleared (the LSU never sends a misaligned lane; clearing them keeps every input defined
    /// and every lane inside its line).
    pub fn offset_of(&self, addr: u32, size: u8) -> u32 {
        (addr & (self.line_bytes - 1)) & !(size_bytes(size) - 1)
    }

    /// Bits `0 … L−1`: the mask bits that exist.
    pub fn lane_mask(&self) -> u32 {
        if self.lanes >= 32 {
            u32::MAX
        } else {
            (1u32 << self.lanes) - 1
        }
    }
}

/// One warp's global access, as offered on the `in_*` ports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Access {
    /// Opaque, returned with every request (`in_tag`).
    pub tag: u16,
    /// Store (else load).
    pub store: bool,
    /// Size code (`in_size`): 0 byte, 1 half, 2 word, 3 taken as 2.
    pub size: u8,
    /// Bit `l`: lane `l` is active. Bits of lanes ≥ `L` are ignored.
    pub mask: u32,
    /// Byte address per lane; a missing lane reads as 0 (it only matters if active).
    pub addr: Vec<u32>,
    /// Store data per lane in the low `n` bytes; missing lanes read as 0; ignored for loads.
    pub data: Vec<u32>,
}

impl Access {
    /// A load of `size` by the lanes of `mask`.
    pub fn load(tag: u16, size: u8, mask: u32, addr: Vec<u32>) -> Self {
        Access {
            tag,
            store: false,
            size,
            mask,
            addr,
            data: Vec::new(),
        }
    }

    /// A store of `size` by the lanes of `mask`.
    pub fn store(tag: u16, size: u8, mask: u32, addr: Vec<u32>, data: Vec<u32>) -> Self {
        Access {
            tag,
            store: true,
            size,
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

/// One line request, as shown on the `out_*` ports while `out_valid` is high.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineRequest {
    /// The access's tag.
    pub tag: u16,
    /// The access's store flag.
    pub store: bool,
    /// The access's size code, 3 reported as 2.
    pub size: u8,
    /// Line number (`LW` bits): the line's first byte is `line << OB`.
    pub line: u32,
    /// Bit `l`: lane `l` is served by this request.
    pub lanes: u32,
    /// Per lane (`L` entries): the lane's byte offset in the line if served, else 0.
    pub offset: Vec<u32>,
    /// Per line byte (`B` entries): read / written by some served lane.
    pub bytes: Vec<bool>,
    /// Per line byte (`B` entries): the store byte that lands there (highest served lane
    /// covering it); 0 where `bytes` is false and for loads.
    pub data: Vec<u8>,
    /// The last request of its access.
    pub last: bool,
}

impl LineRequest {
    /// Byte address of the line's first byte.
    pub fn line_addr(&self, g: &Geometry) -> u32 {
        self.line << g.offset_bits()
    }
}

/// The requests one access makes, in the order the unit shows them (page, "What one access
/// becomes"): one per distinct line of the active lanes, ordered by the lowest active lane on
/// each line; empty for an access without active lanes.
pub fn coalesce(g: &Geometry, a: &Access) -> Vec<LineRequest> {
    let mask = a.mask & g.lane_mask();
    // Group the active lanes by line, in the order of each line's first (lowest) lane: the
    // same order as "serve the lowest pending lane's line, repeat".
    let mut groups: Vec<(u32, u32)> = Vec::new();
    for l in (0..g.lanes).filter(|&l| mask >> l & 1 == 1) {
        let line = g.line_of(a.addr_of(l));
        match groups.iter_mut().find(|(x, _)| *x == line) {
            Some(group) => group.1 |= 1 << l,
            None => groups.push((line, 1 << l)),
        }
    }
    let n = size_bytes(a.size);
    let count = groups.len();
    groups
        .into_iter()
        .enumerate()
        .map(|(i, (line, lanes))| {
            let mut offset = vec![0; g.lanes];
            let mut bytes = vec![false; g.line_bytes as usize];
            let mut data = vec![0u8; g.line_bytes as usize];
            // Perform the served lanes one after another in lane order, as the golden model
            // stores them: a higher lane overwrites a byte a lower one wrote.
            for l in (0..g.lanes).filter(|&l| lanes >> l & 1 == 1) {
                let off = g.offset_of(a.addr_of(l), a.size);
                offset[l] = off;
                for j in 0..n {
                    let k = (off + j) as usize;
                    bytes[k] = true;
                    if a.store {
                        data[k] = (a.data_of(l) >> (8 * j)) as u8;
                    }
                }
            }
            LineRequest {
                tag: a.tag,
                store: a.store,
                size: size_code(a.size),
                line,
                lanes,
                offset,
                bytes,
                data,
                last: i + 1 == count,
            }
        })
        .collect()
}

/// Counters the coalescer feeds (page, "Counters"). They are defined on port events, so a
/// monitor of the RTL's ports counts the same; `reset` does not clear them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CoalescerStats {
    /// Accepted accesses with at least one active lane.
    pub accesses: u64,
    /// Accepted accesses without an active lane.
    pub empty_accesses: u64,
    /// Active lanes of accepted accesses.
    pub active_lanes: u64,
    /// Requests taken (`out_valid & out_ready`).
    pub requests: u64,
    /// Index `k` (0 … L): accesses that made `k` requests. `k = 0` is counted at acceptance,
    /// `k ≥ 1` when the access's last request is taken.
    pub requests_per_access: Vec<u64>,
    /// Cycles with `out_valid & !out_ready`.
    pub stall_cycles: u64,
}

impl CoalescerStats {
    /// Zero counters for `lanes` lanes.
    pub fn new(lanes: usize) -> Self {
        CoalescerStats {
            requests_per_access: vec![0; lanes + 1],
            ..Default::default()
        }
    }

    /// Requests per access with an active lane: 1 = fully coalesced, `L` = no two active lanes
    /// share a line. Counts requests of accesses still in flight too.
    pub fn mean_requests_per_access(&self) -> f64 {
        if self.accesses == 0 {
            0.0
        } else {
            self.requests as f64 / self.accesses as f64
        }
    }

    /// Active lanes served per request.
    pub fn lanes_per_request(&self) -> f64 {
        if self.requests == 0 {
            0.0
        } else {
            self.active_lanes as f64 / self.requests as f64
        }
    }
}

/// Inputs of one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CoalescerInputs {
    /// Synchronous reset; wins over everything else in the cycle.
    pub reset: bool,
    /// The offered access: `Some` = `in_valid` high with these `in_*` values.
    pub input: Option<Access>,
    /// `out_ready`.
    pub out_ready: bool,
}

/// Outputs of one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CoalescerOutputs {
    /// `in_ready`: an offered access is accepted in this cycle.
    pub in_ready: bool,
    /// `Some` = `out_valid` high with these `out_*` values; with `out_ready` it is taken.
    pub out: Option<LineRequest>,
}

/// Register S: the request selected from A, with its own copy of the lanes' offsets and data
/// so that A can take the next access while S still holds this one's last request.
#[derive(Clone, Debug)]
struct Selected {
    tag: u16,
    store: bool,
    size: u8,
    line: u32,
    lanes: u32,
    last: bool,
    off: Vec<u32>,
    data: Vec<u32>,
}

/// The cycle-accurate coalescer: registers A (the access), S (the selected request) and O (the
/// output), as on the page.
#[derive(Clone, Debug)]
pub struct Coalescer {
    g: Geometry,
    // Register A. Invariant: `busy == (pend != 0)`.
    busy: bool,
    pend: u32,
    a_tag: u16,
    a_store: bool,
    a_size: u8,
    a_line: Vec<u32>,
    a_off: Vec<u32>,
    a_data: Vec<u32>,
    // Register S (`s_valid` = `Some`).
    s: Option<Selected>,
    // Register O (`o_valid` = `Some`).
    o: Option<LineRequest>,
    stats: CoalescerStats,
    /// Requests taken since the last taken `out_last` (for `requests_per_access`).
    taken_in_access: usize,
}

impl Coalescer {
    /// The unit for `cfg`, idle (the state after a reset).
    pub fn new(cfg: &GpuConfig) -> Self {
        Self::with_geometry(Geometry::new(cfg))
    }

    /// The unit for any geometry, idle (the state after a reset).
    pub fn with_geometry(g: Geometry) -> Self {
        Coalescer {
            g,
            busy: false,
            pend: 0,
            a_tag: 0,
            a_store: false,
            a_size: 0,
            a_line: vec![0; g.lanes],
            a_off: vec![0; g.lanes],
            a_data: vec![0; g.lanes],
            s: None,
            o: None,
            stats: CoalescerStats::new(g.lanes),
            taken_in_access: 0,
        }
    }

    pub fn geometry(&self) -> &Geometry {
        &self.g
    }

    pub fn stats(&self) -> &CoalescerStats {
        &self.stats
    }

    /// No access in A and no request in S or O.
    pub fn is_idle(&self) -> bool {
        !self.busy && self.s.is_none() && self.o.is_none()
    }

    /// One clock cycle: this cycle's outputs, then the edge.
    pub fn step(&mut self, inp: &CoalescerInputs) -> CoalescerOutputs {
        // Outputs: from the registers, gated by reset only.
        let in_ready = !self.busy && !inp.reset;
        let out_valid = self.o.is_some() && !inp.reset;
        let outputs = CoalescerOutputs {
            in_ready,
            out: if out_valid { self.o.clone() } else { None },
        };

        if inp.reset {
            // Data registers keep their values: nothing looks at them without a valid flag.
            self.busy = false;
            self.pend = 0;
            self.s = None;
            self.o = None;
            self.taken_in_access = 0;
            return outputs;
        }

        let acc = in_ready && inp.input.is_some();
        let take = out_valid && inp.out_ready;
        let ofree = self.o.is_none() || inp.out_ready;
        let adv = self.s.is_some() && ofree;
        let sel = self.busy && (self.s.is_none() || adv);

        self.count(inp, acc, take, out_valid);

        // Every next value is computed from the state at the start of the cycle.
        let merged = if adv {
            self.s.as_ref().map(|s| self.merge(s))
        } else {
            None
        };
        let selected = if sel { Some(self.select()) } else { None };

        // O.
        if adv {
            self.o = merged;
        } else if take {
            self.o = None;
        }
        // S and A's pending lanes.
        if let Some((s, hit)) = selected {
            self.pend &= !hit;
            self.busy = !s.last;
            self.s = Some(s);
        } else if adv {
            self.s = None;
        }
        // A takes the new access (`acc` excludes `sel`: it needs `!busy`).
        if acc {
            let a = inp.input.as_ref().expect("acc implies an offered access");
            for l in 0..self.g.lanes {
                let addr = a.addr_of(l);
                self.a_line[l] = self.g.line_of(addr);
                self.a_off[l] = self.g.offset_of(addr, a.size);
                self.a_data[l] = a.data_of(l);
            }
            self.pend = a.mask & self.g.lane_mask();
            self.busy = self.pend != 0;
            self.a_tag = a.tag;
            self.a_store = a.store;
            self.a_size = size_code(a.size);
        }
        outputs
    }

    /// Select (A → S): the lowest pending lane's line; every pending lane on it is served.
    /// Returns S's next value and the served lanes (`hit`).
    fn select(&self) -> (Selected, u32) {
        let s = self.pend.trailing_zeros() as usize;
        let line = self.a_line[s];
        let hit = (0..self.g.lanes)
            .filter(|&l| self.pend >> l & 1 == 1 && self.a_line[l] == line)
            .fold(0u32, |m, l| m | 1 << l);
        let sel = Selected {
            tag: self.a_tag,
            store: self.a_store,
            size: self.a_size,
            line,
            lanes: hit,
            last: self.pend & !hit == 0,
            off: self.a_off.clone(),
            data: self.a_data.clone(),
        };
        (sel, hit)
    }

    /// Merge (S → O): byte masks and data per line byte, from the highest served lane that
    /// covers the byte (the form the RTL's multiplexer tree computes).
    fn merge(&self, s: &Selected) -> LineRequest {
        let n = size_bytes(s.size);
        let served = |l: usize| s.lanes >> l & 1 == 1;
        let covers = |l: usize, k: u32| served(l) && s.off[l] <= k && k < s.off[l] + n;
        let b = self.g.line_bytes;
        let bytes: Vec<bool> = (0..b)
            .map(|k| (0..self.g.lanes).any(|l| covers(l, k)))
            .collect();
        let data: Vec<u8> = (0..b)
            .map(|k| {
                if !s.store {
                    return 0;
                }
                (0..self.g.lanes)
                    .rev()
                    .find(|&l| covers(l, k))
                    .map_or(0, |l| (s.data[l] >> (8 * (k - s.off[l]))) as u8)
            })
            .collect();
        LineRequest {
            tag: s.tag,
            store: s.store,
            size: s.size,
            line: s.line,
            lanes: s.lanes,
            offset: (0..self.g.lanes)
                .map(|l| if served(l) { s.off[l] } else { 0 })
                .collect(),
            bytes,
            data,
            last: s.last,
        }
    }

    /// The counters' events of one (non-reset) cycle.
    fn count(&mut self, inp: &CoalescerInputs, acc: bool, take: bool, out_valid: bool) {
        let st = &mut self.stats;
        if out_valid && !inp.out_ready {
            st.stall_cycles += 1;
        }
        if take {
            st.requests += 1;
            self.taken_in_access += 1;
            if self.o.as_ref().is_some_and(|o| o.last) {
                let k = self.taken_in_access.min(self.g.lanes);
                st.requests_per_access[k] += 1;
                self.taken_in_access = 0;
            }
        }
        if acc {
            let a = inp.input.as_ref().expect("acc implies an offered access");
            let mask = a.mask & self.g.lane_mask();
            if mask == 0 {
                st.empty_accesses += 1;
                st.requests_per_access[0] += 1;
            } else {
                st.accesses += 1;
                st.active_lanes += u64::from(mask.count_ones());
            }
        }
    }
}

#[cfg(test)]
mod tests;
