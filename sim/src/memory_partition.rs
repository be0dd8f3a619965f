//! Reference of the memory partition, written from docs/microarch/memory_partition.md (not
//! from any RTL).
//!
//! One partition sits behind each partition port of the crossbar (book §4.3: a memory partition
//! unit holds an L2 slice, the ROP unit for atomics and a memory access scheduler; the baseline
//! here is the in-order part of it: "each slice … processes incoming requests in order",
//! §4.3.1). It has three queues:
//!
//! * `RQ`, the **request queue** ([`REQ_QUEUE_DEPTH`] whole requests), in front of one memory
//!   port of the GPU's top level that moves whole lines;
//! * `PT`, the **pending tags** ([`PENDING_DEPTH`] entries of `{sm, id, write}`), one per
//!   request the memory has accepted and not yet answered; it pairs the memory's in-order
//!   responses with their requests and bounds the requests outstanding at the memory;
//! * `RB`, the **response buffer** ([`RESP_QUEUE_DEPTH`] responses) in front of the crossbar.
//!
//! Every request gets exactly one response, loads with the line, stores with a completion,
//! both from the memory's response (page, "Store completions").
//!
//! [`MemoryPartition::step`] is one clock cycle: the outputs of the cycle (functions of the
//! registers and `reset` only), then the edge.

// Port indices name ports (SM s, partition p) on the page: loops over them read as the page.
#![allow(clippy::needless_range_loop)]

use std::collections::{HashMap, VecDeque};
use warpforge_config::GpuConfig;

pub use crate::crossbar::{LineResp, PartReq, PartResp, XbarGeometry};

/// Entries of the request queue `RQ`.
pub const REQ_QUEUE_DEPTH: usize = 4;
/// Entries of the pending-tag queue `PT`: the most requests outstanding at the memory.
pub const PENDING_DEPTH: usize = 16;
/// Entries of the response buffer `RB` (two: a registered `mem_resp_ready` at one response
/// per cycle).
pub const RESP_QUEUE_DEPTH: usize = 2;

/// A line request on the memory port (`mem_req_*`): the crossbar's request without `sm` and
/// `id`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemLineReq {
    pub write: bool,
    /// Line number (`LW` bits): bytes `line << OB … (line << OB) + B − 1`.
    pub line: u32,
    /// `B` entries: bytes written (stores) or wanted (loads).
    pub mask: Vec<bool>,
    /// `B` bytes of store data (as the SM sent it; 0 for the L1's loads).
    pub data: Vec<u8>,
}

/// The parameters of one partition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartitionParams {
    /// `S`, `P`, `B` (the partition uses `B` and the width `SW` of the SM index).
    pub geometry: XbarGeometry,
    /// `Q`: entries of `RQ` (1 or more; the GPU uses [`REQ_QUEUE_DEPTH`]).
    pub queue_depth: usize,
    /// `K`: entries of `PT` (1 or more; the GPU uses [`PENDING_DEPTH`]).
    pub pending_depth: usize,
}

impl PartitionParams {
    /// The configuration's partition, with the GPU's depths.
    pub fn new(cfg: &GpuConfig) -> Self {
        Self::with_geometry(XbarGeometry::new(cfg))
    }

    /// Any geometry, with the GPU's depths.
    pub fn with_geometry(geometry: XbarGeometry) -> Self {
        PartitionParams {
            geometry,
            queue_depth: REQ_QUEUE_DEPTH,
            pending_depth: PENDING_DEPTH,
        }
    }

    /// Flip-flops (or LUT-RAM bits) of the payload (page, "State"): `RQ` `Q·(SW + RW)`, `PT`
    /// `K·(SW + 17)`, `RB` `2·(SW + RS)`. Counts and pointers come on top.
    pub fn payload_bits(&self) -> u64 {
        let g = &self.geometry;
        let sw = u64::from(g.sm_bits());
        self.queue_depth as u64 * (sw + u64::from(g.request_bits()))
            + self.pending_depth as u64 * (sw + 1 + u64::from(crate::crossbar::ID_BITS))
            + RESP_QUEUE_DEPTH as u64 * (sw + u64::from(g.response_bits()))
    }

    /// Other depths (tests of full queues and of the credit limit).
    pub fn with_depths(mut self, queue_depth: usize, pending_depth: usize) -> Self {
        assert!(
            queue_depth >= 1 && pending_depth >= 1,
            "depths are at least 1"
        );
        self.queue_depth = queue_depth;
        self.pending_depth = pending_depth;
        self
    }
}

/// Inputs of one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartitionInputs {
    /// Synchronous reset; wins over everything else in the cycle.
    pub reset: bool,
    /// `Some` = `in_valid` high with these `in_*` values (from the crossbar's `part_req`).
    pub input: Option<PartReq>,
    /// `out_ready` (the crossbar's `part_resp_ready`).
    pub out_ready: bool,
    /// `mem_req_ready`, from the memory.
    pub mem_req_ready: bool,
    /// `Some` = `mem_resp_valid` high with this `mem_resp_data` (`B` bytes).
    pub mem_resp: Option<Vec<u8>>,
}

/// Outputs of one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartitionOutputs {
    /// `in_ready`.
    pub in_ready: bool,
    /// `Some` = `out_valid` high with these `out_*` values.
    pub out: Option<PartResp>,
    /// `Some` = `mem_req_valid` high with these `mem_req_*` values.
    pub mem_req: Option<MemLineReq>,
    /// `mem_resp_ready`.
    pub mem_resp_ready: bool,
    /// `occupancy`: entries in `RQ` at the start of the cycle (not gated by reset).
    pub occupancy: usize,
    /// `outstanding`: entries in `PT` at the start of the cycle (not gated by reset).
    pub outstanding: usize,
}

/// The partition's counters (page, "Counters"). Reset cycles count nothing; `reset` does not
/// clear them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartitionStats {
    /// Loads accepted from the crossbar.
    pub reads: u64,
    /// Stores accepted from the crossbar.
    pub writes: u64,
    /// Cycles with `in_valid & !in_ready` (the queue full).
    pub in_stalls: u64,
    /// Requests the memory took (`mem_req_valid & mem_req_ready`).
    pub issued: u64,
    /// Cycles with `mem_req_valid & !mem_req_ready` (the memory refused).
    pub mem_req_stalls: u64,
    /// Cycles with a request in `RQ` held back because `PT` was full.
    pub credit_stalls: u64,
    /// Memory responses taken (`mem_resp_valid & mem_resp_ready`).
    pub mem_responses: u64,
    /// Cycles with `mem_resp_valid & !mem_resp_ready`.
    pub mem_resp_stalls: u64,
    /// Responses the crossbar took (`out_valid & out_ready`).
    pub responses: u64,
    /// Cycles with `out_valid & !out_ready`.
    pub out_stalls: u64,
    /// Index `k` (0 … Q): cycles with `k` entries in `RQ`.
    pub occupancy_cycles: Vec<u64>,
    /// Index `k` (0 … K): cycles with `k` entries in `PT`.
    pub outstanding_cycles: Vec<u64>,
}

impl PartitionStats {
    fn new(p: &PartitionParams) -> Self {
        PartitionStats {
            occupancy_cycles: vec![0; p.queue_depth + 1],
            outstanding_cycles: vec![0; p.pending_depth + 1],
            ..Default::default()
        }
    }

    /// Mean entries in the request queue over the counted cycles.
    pub fn mean_occupancy(&self) -> f64 {
        mean(&self.occupancy_cycles)
    }

    /// Mean requests outstanding at the memory over the counted cycles.
    pub fn mean_outstanding(&self) -> f64 {
        mean(&self.outstanding_cycles)
    }

    /// Most entries the request queue held in a counted cycle.
    pub fn max_occupancy(&self) -> usize {
        self.occupancy_cycles
            .iter()
            .rposition(|&c| c > 0)
            .unwrap_or(0)
    }

    /// Most requests outstanding at the memory in a counted cycle.
    pub fn max_outstanding(&self) -> usize {
        self.outstanding_cycles
            .iter()
            .rposition(|&c| c > 0)
            .unwrap_or(0)
    }
}

fn mean(hist: &[u64]) -> f64 {
    let cycles: u64 = hist.iter().sum();
    if cycles == 0 {
        return 0.0;
    }
    let weighted: u64 = hist.iter().enumerate().map(|(k, &c)| k as u64 * c).sum();
    weighted as f64 / cycles as f64
}

/// What `PT` keeps of a request the memory has taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tag {
    sm: usize,
    id: u16,
    write: bool,
}

/// The cycle-accurate memory partition: `RQ`, `PT` and `RB` as on the page.
#[derive(Clone, Debug)]
pub struct MemoryPartition {
    p: PartitionParams,
    rq: VecDeque<PartReq>,
    pt: VecDeque<Tag>,
    rb: VecDeque<PartResp>,
    stats: PartitionStats,
}

impl MemoryPartition {
    /// A partition for `cfg`, idle (the state after a reset).
    pub fn new(cfg: &GpuConfig) -> Self {
        Self::with_params(PartitionParams::new(cfg))
    }

    /// A partition with any parameters, idle.
    pub fn with_params(p: PartitionParams) -> Self {
        MemoryPartition {
            p,
            rq: VecDeque::new(),
            pt: VecDeque::new(),
            rb: VecDeque::new(),
            stats: PartitionStats::new(&p),
        }
    }

    pub fn params(&self) -> &PartitionParams {
        &self.p
    }

    pub fn stats(&self) -> &PartitionStats {
        &self.stats
    }

    /// No request queued, none outstanding, no response buffered.
    pub fn is_idle(&self) -> bool {
        self.rq.is_empty() && self.pt.is_empty() && self.rb.is_empty()
    }

    /// The outputs of the current cycle: functions of the registers and `reset` only (what
    /// [`MemoryPartition::step`] returns for this cycle, whatever its other inputs).
    pub fn outputs(&self, reset: bool) -> PartitionOutputs {
        let live = !reset;
        let can_issue = !self.rq.is_empty() && self.pt.len() < self.p.pending_depth;
        PartitionOutputs {
            in_ready: live && self.rq.len() < self.p.queue_depth,
            out: self.rb.front().cloned().filter(|_| live),
            mem_req: self
                .rq
                .front()
                .filter(|_| live && can_issue)
                .map(|r| MemLineReq {
                    write: r.req.write,
                    line: r.req.line,
                    mask: r.req.mask.clone(),
                    data: r.req.data.clone(),
                }),
            mem_resp_ready: live && !self.pt.is_empty() && self.rb.len() < RESP_QUEUE_DEPTH,
            occupancy: self.rq.len(),
            outstanding: self.pt.len(),
        }
    }

    /// One clock cycle: this cycle's outputs, then the edge.
    pub fn step(&mut self, inp: &PartitionInputs) -> PartitionOutputs {
        let g = self.p.geometry;
        let outputs = self.outputs(inp.reset);

        if inp.reset {
            self.rq.clear();
            self.pt.clear();
            self.rb.clear();
            return outputs;
        }

        let acc = outputs.in_ready && inp.input.is_some();
        let issue = outputs.mem_req.is_some() && inp.mem_req_ready;
        let ret = outputs.mem_resp_ready && inp.mem_resp.is_some();
        let take = outputs.out.is_some() && inp.out_ready;

        // Counters.
        let st = &mut self.stats;
        if let Some(r) = inp.input.as_ref() {
            if acc {
                if r.req.write {
                    st.writes += 1;
                } else {
                    st.reads += 1;
                }
            } else {
                st.in_stalls += 1;
            }
        }
        if outputs.mem_req.is_some() {
            if issue {
                st.issued += 1;
            } else {
                st.mem_req_stalls += 1;
            }
        } else if !self.rq.is_empty() {
            st.credit_stalls += 1;
        }
        if inp.mem_resp.is_some() {
            if ret {
                st.mem_responses += 1;
            } else {
                st.mem_resp_stalls += 1;
            }
        }
        if outputs.out.is_some() {
            if take {
                st.responses += 1;
            } else {
                st.out_stalls += 1;
            }
        }
        st.occupancy_cycles[self.rq.len()] += 1;
        st.outstanding_cycles[self.pt.len()] += 1;

        // The edge.
        if take {
            self.rb.pop_front();
        }
        if ret {
            let tag = self
                .pt
                .pop_front()
                .expect("mem_resp_ready needs a pending tag");
            let data = inp.mem_resp.as_ref().expect("ret needs a response");
            self.rb.push_back(PartResp {
                sm: tag.sm,
                resp: LineResp {
                    write: tag.write,
                    id: tag.id,
                    data: data.clone(),
                }
                .normalized(&g),
            });
        }
        if issue {
            let r = self.rq.pop_front().expect("issue needs a head");
            self.pt.push_back(Tag {
                sm: r.sm,
                id: r.req.id,
                write: r.req.write,
            });
        }
        if acc {
            let r = inp.input.as_ref().expect("acc needs a request");
            let sm_mask = (1usize << g.sm_bits()) - 1;
            self.rq.push_back(PartReq {
                sm: r.sm & sm_mask,
                req: r.req.normalized(&g),
            });
        }
        outputs
    }
}

/// Global memory as whole lines, as a partition's memory port sees it (the page's "The memory
/// port"): a read returns the line, a write stores its masked bytes and is answered with zeros.
/// A line never written reads `initial(line, byte)` (a test's fill pattern). The storage of the
/// memory models around the reference and the RTL; their timing is each model's own.
#[derive(Clone, Debug)]
pub struct LineStore {
    line_bytes: usize,
    initial: fn(u32, usize) -> u8,
    lines: HashMap<u32, Vec<u8>>,
}

impl LineStore {
    pub fn new(line_bytes: usize, initial: fn(u32, usize) -> u8) -> Self {
        LineStore {
            line_bytes,
            initial,
            lines: HashMap::new(),
        }
    }

    /// Line `n` as it is now.
    pub fn line(&self, n: u32) -> Vec<u8> {
        self.lines
            .get(&n)
            .cloned()
            .unwrap_or_else(|| (0..self.line_bytes).map(|k| (self.initial)(n, k)).collect())
    }

    /// The lines written so far, with their contents, in no particular order.
    pub fn written(&self) -> impl Iterator<Item = (u32, &[u8])> {
        self.lines.iter().map(|(&n, l)| (n, l.as_slice()))
    }

    /// Perform one request on line `line`: a write stores the bytes of `data` whose `mask` bit is
    /// set (missing entries are 0) and returns zeros; a read returns the line.
    pub fn perform(&mut self, write: bool, line: u32, mask: &[bool], data: &[u8]) -> Vec<u8> {
        if !write {
            return self.line(line);
        }
        let mut l = self.line(line);
        for (k, byte) in l.iter_mut().enumerate() {
            if mask.get(k).copied().unwrap_or(false) {
                *byte = data.get(k).copied().unwrap_or(0);
            }
        }
        self.lines.insert(line, l);
        vec![0; self.line_bytes]
    }
}

#[cfg(test)]
mod tests;
