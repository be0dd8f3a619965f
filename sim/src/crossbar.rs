//! Reference of the crossbar, written from docs/microarch/crossbar.md (not from any RTL).
//!
//! The crossbar connects `S = sms` SM ports to `P = partitions` memory-partition ports (book
//! §4.2: "The SIMT cores connect to the memory partition units via an on-chip interconnection
//! network … crossbars"; traffic is spread over the partitions by address interleaving). It has
//! two independent networks:
//!
//! * the **request network**: each SM offers at most one line request per cycle; line `n` goes
//!   to partition `n mod P` ([`XbarGeometry::partition_of`]); per partition a round-robin
//!   arbiter picks one SM per cycle, and the crossbar adds the source SM's index;
//! * the **response network**: each partition offers at most one response per cycle, naming its
//!   SM; per SM a round-robin arbiter picks one partition per cycle.
//!
//! [`Crossbar::step`] is one clock cycle: it returns the outputs the unit shows in that cycle
//! (functions of the registers and `reset` only: no input reaches an output combinationally)
//! and then applies the clock edge. Meant for co-simulation against the RTL cycle by cycle.

// Port indices name ports (SM s, partition p) on the page: loops over them read as the page.
#![allow(clippy::needless_range_loop)]

use std::collections::VecDeque;
use warpforge_config::GpuConfig;

/// Width of the opaque request id returned with the response.
pub const ID_BITS: u32 = 16;

/// Entries of each input queue (one per SM port of the request network, one per partition port
/// of the response network): two, so that the ready output is a register and a port still
/// carries one transfer per cycle.
pub const INPUT_QUEUE_DEPTH: usize = 2;

/// The three parameters the crossbar depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XbarGeometry {
    /// `S`: SM ports (1–64, any value).
    pub sms: usize,
    /// `P`: partition ports (a power of two, 1–64).
    pub partitions: usize,
    /// `B`: line size in bytes (a power of two, 4–1024).
    pub line_bytes: u32,
}

impl XbarGeometry {
    /// The configuration's `sms`, `partitions` and `line_bytes`.
    pub fn new(cfg: &GpuConfig) -> Self {
        Self::with(cfg.sms as usize, cfg.partitions as usize, cfg.line_bytes)
    }

    /// Any valid triple. Panics on a value `GpuConfig::validate` refuses.
    pub fn with(sms: usize, partitions: usize, line_bytes: u32) -> Self {
        assert!(
            (1..=64).contains(&sms),
            "sms = {sms}: a value from 1 to 64 is needed"
        );
        assert!(
            partitions.is_power_of_two() && partitions <= 64,
            "partitions = {partitions}: a power of two from 1 to 64 is needed"
        );
        assert!(
            line_bytes.is_power_of_two() && (4..=1024).contains(&line_bytes),
            "line_bytes = {line_bytes}: a power of two from 4 to 1024 is needed"
        );
        XbarGeometry {
            sms,
            partitions,
            line_bytes,
        }
    }

    /// `OB = log2(B)`.
    pub fn offset_bits(&self) -> u32 {
        self.line_bytes.trailing_zeros()
    }

    /// `LW = 32 − OB`: bits of a line number.
    pub fn line_bits(&self) -> u32 {
        32 - self.offset_bits()
    }

    /// The `LW` bits a line number has.
    pub fn line_mask(&self) -> u32 {
        u32::MAX >> self.offset_bits()
    }

    /// `PB = log2(P)`: the low bits of a line number that name its partition.
    pub fn partition_bits(&self) -> u32 {
        self.partitions.trailing_zeros()
    }

    /// `SW = max(1, ⌈log2 S⌉)`: width of an SM index field.
    pub fn sm_bits(&self) -> u32 {
        (usize::BITS - (self.sms - 1).leading_zeros()).max(1)
    }

    /// `PW = max(1, PB)`: width of a partition index field.
    pub fn partition_index_bits(&self) -> u32 {
        self.partition_bits().max(1)
    }

    /// Line interleaving: line `n` lives in partition `n mod P` (its low `PB` bits).
    pub fn partition_of(&self, line: u32) -> usize {
        line as usize & (self.partitions - 1)
    }

    /// `RW = 1 + LW + B + 8·B + 16`: bits of a request as an SM offers it.
    pub fn request_bits(&self) -> u32 {
        1 + self.line_bits() + 9 * self.line_bytes + ID_BITS
    }

    /// `RS = 1 + 16 + 8·B`: bits of a response as an SM receives it.
    pub fn response_bits(&self) -> u32 {
        1 + ID_BITS + 8 * self.line_bytes
    }

    /// Flip-flops of the payload registers (page, "State"): input queues `2·S·RW` and
    /// `2·P·(RS + SW)`, output registers `P·(RW + SW)` and `S·RS`. Valid flags, counts,
    /// pointers and the grant flags come on top.
    pub fn payload_bits(&self) -> u64 {
        let (s, p) = (self.sms as u64, self.partitions as u64);
        let (rw, rs, sw) = (
            u64::from(self.request_bits()),
            u64::from(self.response_bits()),
            u64::from(self.sm_bits()),
        );
        2 * s * rw + p * (rw + sw) + 2 * p * (rs + sw) + s * rs
    }
}

/// A line request as an SM offers it on `sm_req_*`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineReq {
    /// A store (else a load).
    pub write: bool,
    /// Line number (`LW` bits; higher bits do not exist on the port and are dropped).
    pub line: u32,
    /// Byte mask, `B` entries: byte `k` of the line is read / written. Missing entries are 0.
    pub mask: Vec<bool>,
    /// Store data, `B` bytes (byte `k` at line byte `k`). Missing entries are 0.
    pub data: Vec<u8>,
    /// Opaque, returned with the response.
    pub id: u16,
}

impl LineReq {
    /// A load of the whole line.
    pub fn read(g: &XbarGeometry, line: u32, id: u16) -> Self {
        LineReq {
            write: false,
            line,
            mask: vec![true; g.line_bytes as usize],
            data: vec![0; g.line_bytes as usize],
            id,
        }
    }

    /// A store of `data` into the bytes of `mask`.
    pub fn write(line: u32, mask: Vec<bool>, data: Vec<u8>, id: u16) -> Self {
        LineReq {
            write: true,
            line,
            mask,
            data,
            id,
        }
    }

    /// The request as the ports carry it: `LW` line bits, exactly `B` mask bits and data bytes.
    pub fn normalized(&self, g: &XbarGeometry) -> Self {
        let b = g.line_bytes as usize;
        LineReq {
            write: self.write,
            line: self.line & g.line_mask(),
            mask: (0..b)
                .map(|k| self.mask.get(k).copied().unwrap_or(false))
                .collect(),
            data: (0..b)
                .map(|k| self.data.get(k).copied().unwrap_or(0))
                .collect(),
            id: self.id,
        }
    }
}

/// A request on a partition port (`part_req_*`): the SM's request and the SM's index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartReq {
    /// Source SM (`part_req_sm`, `SW` bits).
    pub sm: usize,
    pub req: LineReq,
}

/// A response as an SM receives it on `sm_resp_*`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineResp {
    /// The completion of a store (its data field carries nothing the SM uses).
    pub write: bool,
    /// The request's id.
    pub id: u16,
    /// The line, `B` bytes (a load's data).
    pub data: Vec<u8>,
}

impl LineResp {
    /// The response as the ports carry it: exactly `B` data bytes.
    pub fn normalized(&self, g: &XbarGeometry) -> Self {
        LineResp {
            write: self.write,
            id: self.id,
            data: (0..g.line_bytes as usize)
                .map(|k| self.data.get(k).copied().unwrap_or(0))
                .collect(),
        }
    }
}

/// A response on a partition port (`part_resp_*`): the destination SM and the response.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartResp {
    /// Destination SM (`part_resp_sm`, `SW` bits).
    pub sm: usize,
    pub resp: LineResp,
}

/// Inputs of one cycle. A missing vector entry reads as `None` / `false`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrossbarInputs {
    /// Synchronous reset; wins over everything else in the cycle.
    pub reset: bool,
    /// Per SM: `Some` = `sm_req_valid` high with these `sm_req_*` values.
    pub sm_req: Vec<Option<LineReq>>,
    /// Per SM: `sm_resp_ready`.
    pub sm_resp_ready: Vec<bool>,
    /// Per partition: `part_req_ready`.
    pub part_req_ready: Vec<bool>,
    /// Per partition: `Some` = `part_resp_valid` high with these `part_resp_*` values.
    pub part_resp: Vec<Option<PartResp>>,
}

impl CrossbarInputs {
    /// Nothing offered, every consumer ready.
    pub fn idle(g: &XbarGeometry) -> Self {
        CrossbarInputs {
            reset: false,
            sm_req: vec![None; g.sms],
            sm_resp_ready: vec![true; g.sms],
            part_req_ready: vec![true; g.partitions],
            part_resp: vec![None; g.partitions],
        }
    }
}

/// Outputs of one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrossbarOutputs {
    /// Per SM: `sm_req_ready`.
    pub sm_req_ready: Vec<bool>,
    /// Per SM: `Some` = `sm_resp_valid` high with these `sm_resp_*` values.
    pub sm_resp: Vec<Option<LineResp>>,
    /// Per partition: `Some` = `part_req_valid` high with these `part_req_*` values.
    pub part_req: Vec<Option<PartReq>>,
    /// Per partition: `part_resp_ready`.
    pub part_resp_ready: Vec<bool>,
    /// Per partition: `req_gnt` — the partition's arbiter granted a request in the previous
    /// cycle (the one now in `part_req`, from SM `part_req.sm`).
    pub req_gnt: Vec<bool>,
    /// Per SM: `resp_gnt` / `resp_gnt_part` — the SM's arbiter granted a response in the
    /// previous cycle (the one now in `sm_resp`), from this partition.
    pub resp_gnt: Vec<Option<usize>>,
}

/// Counters of one port (page, "Counters").
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PortCounters {
    /// Handshakes on the port (`valid & ready`).
    pub transfers: u64,
    /// Cycles with `valid & !ready`.
    pub stalls: u64,
    /// Grants: on a queue side (SM request port, partition response port) the port's entries
    /// granted by an arbiter; on an arbiter side (partition request port, SM response port)
    /// the grants its arbiter made.
    pub grants: u64,
}

/// The crossbar's counters. Reset cycles count nothing; `reset` does not clear them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrossbarStats {
    /// Per SM, request input port.
    pub sm_req: Vec<PortCounters>,
    /// Per partition, request output port.
    pub part_req: Vec<PortCounters>,
    /// Per partition, response input port.
    pub part_resp: Vec<PortCounters>,
    /// Per SM, response output port.
    pub sm_resp: Vec<PortCounters>,
    /// Per SM: cycles its request queue had a head that was not granted.
    pub req_waits: Vec<u64>,
    /// Per partition: cycles its response queue had a head that was not granted.
    pub resp_waits: Vec<u64>,
    /// Per partition: cycles in which two or more SMs' heads asked for it.
    pub req_conflicts: Vec<u64>,
    /// Per SM: cycles in which two or more partitions' heads had a response for it.
    pub resp_conflicts: Vec<u64>,
    /// Per partition: responses dropped because they named an SM ≥ `S`.
    pub dropped: Vec<u64>,
    /// Longest wait of one request at the head of its SM's queue: cycles at the head before
    /// the cycle of its grant (0 = granted in its first cycle at the head).
    pub max_req_wait: u64,
    /// Likewise for a response at the head of its partition's queue.
    pub max_resp_wait: u64,
}

impl CrossbarStats {
    fn new(g: &XbarGeometry) -> Self {
        let (s, p) = (g.sms, g.partitions);
        CrossbarStats {
            sm_req: vec![PortCounters::default(); s],
            part_req: vec![PortCounters::default(); p],
            part_resp: vec![PortCounters::default(); p],
            sm_resp: vec![PortCounters::default(); s],
            req_waits: vec![0; s],
            resp_waits: vec![0; p],
            req_conflicts: vec![0; p],
            resp_conflicts: vec![0; s],
            dropped: vec![0; p],
            max_req_wait: 0,
            max_resp_wait: 0,
        }
    }
}

/// The round-robin choice: the first index `i` in the order `ptr, ptr+1, …, n−1, 0, …, ptr−1`
/// with `want(i)`.
pub fn round_robin(n: usize, ptr: usize, want: impl Fn(usize) -> bool) -> Option<usize> {
    (0..n).map(|k| (ptr + k) % n).find(|&i| want(i))
}

/// The cycle-accurate crossbar: per SM an input queue `IQ` and a response output register
/// `RO`, per partition a request output register `OR` and a response input queue `RQ`, and the
/// arbiters' pointers, as on the page.
#[derive(Clone, Debug)]
pub struct Crossbar {
    g: XbarGeometry,
    /// Per SM: the request input queue (front = head), at most [`INPUT_QUEUE_DEPTH`].
    iq: Vec<VecDeque<LineReq>>,
    /// Per SM: cycles the current head has waited (reference only, for `max_req_wait`).
    iq_age: Vec<u64>,
    /// Per partition: the request output register.
    or: Vec<Option<PartReq>>,
    /// Per partition: `OR` was loaded at the last edge (`req_gnt`).
    or_new: Vec<bool>,
    /// Per partition: the request arbiter's pointer (the SM with the highest priority).
    rp: Vec<usize>,
    /// Per partition: the response input queue.
    rq: Vec<VecDeque<PartResp>>,
    rq_age: Vec<u64>,
    /// Per SM: the response output register.
    ro: Vec<Option<LineResp>>,
    /// Per SM: `RO` was loaded at the last edge, from this partition (`resp_gnt`).
    ro_from: Vec<Option<usize>>,
    /// Per SM: the response arbiter's pointer (the partition with the highest priority).
    sp: Vec<usize>,
    stats: CrossbarStats,
}

impl Crossbar {
    /// The unit for `cfg`, idle (the state after a reset).
    pub fn new(cfg: &GpuConfig) -> Self {
        Self::with_geometry(XbarGeometry::new(cfg))
    }

    /// The unit for any geometry, idle.
    pub fn with_geometry(g: XbarGeometry) -> Self {
        let (s, p) = (g.sms, g.partitions);
        Crossbar {
            g,
            iq: vec![VecDeque::new(); s],
            iq_age: vec![0; s],
            or: vec![None; p],
            or_new: vec![false; p],
            rp: vec![0; p],
            rq: vec![VecDeque::new(); p],
            rq_age: vec![0; p],
            ro: vec![None; s],
            ro_from: vec![None; s],
            sp: vec![0; s],
            stats: CrossbarStats::new(&g),
        }
    }

    pub fn geometry(&self) -> &XbarGeometry {
        &self.g
    }

    pub fn stats(&self) -> &CrossbarStats {
        &self.stats
    }

    /// Nothing held anywhere.
    pub fn is_idle(&self) -> bool {
        self.iq.iter().all(VecDeque::is_empty)
            && self.or.iter().all(Option::is_none)
            && self.rq.iter().all(VecDeque::is_empty)
            && self.ro.iter().all(Option::is_none)
    }

    /// Entries in SM `s`'s request input queue (0–2).
    pub fn req_queue_len(&self, s: usize) -> usize {
        self.iq[s].len()
    }

    /// Entries in partition `p`'s response input queue (0–2).
    pub fn resp_queue_len(&self, p: usize) -> usize {
        self.rq[p].len()
    }

    /// The request arbiter pointer of partition `p`.
    pub fn req_pointer(&self, p: usize) -> usize {
        self.rp[p]
    }

    /// The response arbiter pointer of SM `s`.
    pub fn resp_pointer(&self, s: usize) -> usize {
        self.sp[s]
    }

    /// The outputs of the current cycle: functions of the registers and `reset` only (what
    /// [`Crossbar::step`] returns for this cycle, whatever its other inputs). A system model
    /// reads every unit's outputs first, then steps each with the others' outputs.
    pub fn outputs(&self, reset: bool) -> CrossbarOutputs {
        let (ns, np) = (self.g.sms, self.g.partitions);
        let live = !reset;
        CrossbarOutputs {
            sm_req_ready: (0..ns)
                .map(|s| live && self.iq[s].len() < INPUT_QUEUE_DEPTH)
                .collect(),
            sm_resp: (0..ns)
                .map(|s| self.ro[s].clone().filter(|_| live))
                .collect(),
            part_req: (0..np)
                .map(|p| self.or[p].clone().filter(|_| live))
                .collect(),
            part_resp_ready: (0..np)
                .map(|p| live && self.rq[p].len() < INPUT_QUEUE_DEPTH)
                .collect(),
            req_gnt: (0..np).map(|p| live && self.or_new[p]).collect(),
            resp_gnt: (0..ns).map(|s| self.ro_from[s].filter(|_| live)).collect(),
        }
    }

    /// One clock cycle: this cycle's outputs, then the edge.
    pub fn step(&mut self, inp: &CrossbarInputs) -> CrossbarOutputs {
        let g = self.g;
        let (ns, np) = (g.sms, g.partitions);

        let outputs = self.outputs(inp.reset);

        if inp.reset {
            // Data registers keep their values; nothing looks at them without a valid flag.
            for q in &mut self.iq {
                q.clear();
            }
            for q in &mut self.rq {
                q.clear();
            }
            self.iq_age.fill(0);
            self.rq_age.fill(0);
            self.or.fill(None);
            self.or_new.fill(false);
            self.rp.fill(0);
            self.ro.fill(None);
            self.ro_from.fill(None);
            self.sp.fill(0);
            return outputs;
        }

        let sm_req = |s: usize| inp.sm_req.get(s).and_then(Option::as_ref);
        let sm_resp_ready = |s: usize| inp.sm_resp_ready.get(s).copied().unwrap_or(false);
        let part_req_ready = |p: usize| inp.part_req_ready.get(p).copied().unwrap_or(false);
        let part_resp = |p: usize| inp.part_resp.get(p).and_then(Option::as_ref);

        // ---- decisions, all from the state at the start of the cycle ----
        // Request network: the destination of each SM's head.
        let dest: Vec<Option<usize>> = (0..ns)
            .map(|s| self.iq[s].front().map(|r| g.partition_of(r.line)))
            .collect();
        let req_fire: Vec<Option<usize>> = (0..np)
            .map(|p| {
                let ofree = self.or[p].is_none() || part_req_ready(p);
                round_robin(ns, self.rp[p], |s| dest[s] == Some(p)).filter(|_| ofree)
            })
            .collect();
        // Response network: the SM each partition's head names (≥ S: dropped).
        let owner: Vec<Option<usize>> = (0..np).map(|p| self.rq[p].front().map(|r| r.sm)).collect();
        let resp_fire: Vec<Option<usize>> = (0..ns)
            .map(|s| {
                let rfree = self.ro[s].is_none() || sm_resp_ready(s);
                round_robin(np, self.sp[s], |p| owner[p] == Some(s)).filter(|_| rfree)
            })
            .collect();
        let drop: Vec<bool> = owner.iter().map(|o| o.is_some_and(|s| s >= ns)).collect();

        self.count(inp, &outputs, &dest, &req_fire, &owner, &resp_fire, &drop);

        // ---- the edge ----
        // Request output registers and the pops of the granted heads.
        for p in 0..np {
            let taken = self.or[p].is_some() && part_req_ready(p);
            match req_fire[p] {
                Some(s) => {
                    let req = self.iq[s].pop_front().expect("a granted head exists");
                    self.or[p] = Some(PartReq { sm: s, req });
                    self.or_new[p] = true;
                    self.rp[p] = (s + 1) % ns;
                }
                None => {
                    if taken {
                        self.or[p] = None;
                    }
                    self.or_new[p] = false;
                }
            }
        }
        // Request input queues take the offered requests (space checked at the start).
        for s in 0..ns {
            if outputs.sm_req_ready[s] {
                if let Some(r) = sm_req(s) {
                    self.iq[s].push_back(r.normalized(&g));
                }
            }
        }
        // Response output registers and the pops of the granted heads.
        for s in 0..ns {
            let taken = self.ro[s].is_some() && sm_resp_ready(s);
            match resp_fire[s] {
                Some(p) => {
                    let r = self.rq[p].pop_front().expect("a granted head exists");
                    self.ro[s] = Some(r.resp);
                    self.ro_from[s] = Some(p);
                    self.sp[s] = (p + 1) % np;
                }
                None => {
                    if taken {
                        self.ro[s] = None;
                    }
                    self.ro_from[s] = None;
                }
            }
        }
        for p in 0..np {
            if drop[p] {
                self.rq[p].pop_front();
            }
        }
        // Response input queues take the offered responses.
        let sm_mask = (1usize << g.sm_bits()) - 1;
        for p in 0..np {
            if outputs.part_resp_ready[p] {
                if let Some(r) = part_resp(p) {
                    self.rq[p].push_back(PartResp {
                        sm: r.sm & sm_mask,
                        resp: r.resp.normalized(&g),
                    });
                }
            }
        }
        outputs
    }

    /// The counters' events of one (non-reset) cycle, from its decisions.
    #[allow(clippy::too_many_arguments)]
    fn count(
        &mut self,
        inp: &CrossbarInputs,
        out: &CrossbarOutputs,
        dest: &[Option<usize>],
        req_fire: &[Option<usize>],
        owner: &[Option<usize>],
        resp_fire: &[Option<usize>],
        drop: &[bool],
    ) {
        let (ns, np) = (self.g.sms, self.g.partitions);
        let st = &mut self.stats;
        for s in 0..ns {
            let valid = inp.sm_req.get(s).is_some_and(Option::is_some);
            let c = &mut st.sm_req[s];
            if valid && out.sm_req_ready[s] {
                c.transfers += 1;
            }
            if valid && !out.sm_req_ready[s] {
                c.stalls += 1;
            }
            let ready = inp.sm_resp_ready.get(s).copied().unwrap_or(false);
            let c = &mut st.sm_resp[s];
            if out.sm_resp[s].is_some() {
                if ready {
                    c.transfers += 1;
                } else {
                    c.stalls += 1;
                }
            }
            if resp_fire[s].is_some() {
                c.grants += 1;
            }
            if owner.iter().filter(|&&o| o == Some(s)).count() >= 2 {
                st.resp_conflicts[s] += 1;
            }
        }
        for p in 0..np {
            let ready = inp.part_req_ready.get(p).copied().unwrap_or(false);
            let c = &mut st.part_req[p];
            if out.part_req[p].is_some() {
                if ready {
                    c.transfers += 1;
                } else {
                    c.stalls += 1;
                }
            }
            if let Some(s) = req_fire[p] {
                c.grants += 1;
                st.sm_req[s].grants += 1;
            }
            if dest.iter().filter(|&&d| d == Some(p)).count() >= 2 {
                st.req_conflicts[p] += 1;
            }
            let valid = inp.part_resp.get(p).is_some_and(Option::is_some);
            let c = &mut st.part_resp[p];
            if valid && out.part_resp_ready[p] {
                c.transfers += 1;
            }
            if valid && !out.part_resp_ready[p] {
                c.stalls += 1;
            }
            if drop[p] {
                st.dropped[p] += 1;
            }
        }
        for &p in resp_fire.iter().flatten() {
            st.part_resp[p].grants += 1;
        }
        // Head waits: a head granted now ends its wait; one not granted waits another cycle.
        for s in 0..ns {
            if let Some(d) = dest[s] {
                if req_fire[d] == Some(s) {
                    st.max_req_wait = st.max_req_wait.max(self.iq_age[s]);
                    self.iq_age[s] = 0;
                } else {
                    st.req_waits[s] += 1;
                    self.iq_age[s] += 1;
                }
            }
        }
        for p in 0..np {
            match owner[p] {
                Some(s) if s < ns => {
                    if resp_fire[s] == Some(p) {
                        st.max_resp_wait = st.max_resp_wait.max(self.rq_age[p]);
                        self.rq_age[p] = 0;
                    } else {
                        st.resp_waits[p] += 1;
                        self.rq_age[p] += 1;
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests;
