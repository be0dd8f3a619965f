//! Tests of the memory-partition reference: the page's latencies cycle by cycle against a line
//! memory that follows the page's memory-port protocol, the full request queue, the pending-tag
//! (credit) limit, response back-pressure, store completions, reset, and seeded random
//! properties; then the crossbar, the partitions and the memory together (round trip
//! `7 + L`, per-SM order end to end).

use super::*;
use crate::crossbar::{Crossbar, CrossbarInputs, LineReq};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

fn geo(s: usize, p: usize, b: u32) -> XbarGeometry {
    XbarGeometry::with(s, p, b)
}

/// The initial content of line `n`, byte `k`.
fn initial(n: u32, k: usize) -> u8 {
    (n.wrapping_mul(13) as usize + k * 7 + 1) as u8
}

/// The memory side as the page asks the testbench's model to be: whole lines; a request is
/// taken in a cycle with valid and ready; a read samples the line and a write applies its
/// masked bytes at acceptance; every request gets one response, in request order, driven from
/// `c + 1 + latency` (latency = `latency + uniform(0..=jitter)`) and held until taken; a write's
/// response carries zeros; `ready` is low with probability `p_busy` in each cycle.
struct LineMemory {
    store: LineStore,
    latency: u64,
    jitter: u64,
    p_busy: f64,
    rng: ChaCha8Rng,
    queue: VecDeque<(u64, Vec<u8>)>,
    ready: bool,
    /// The response shown in the current cycle.
    shown: Option<Vec<u8>>,
    /// Requests accepted: (cycle, request).
    accepted: Vec<(u64, MemLineReq)>,
}

impl LineMemory {
    fn new(b: u32, latency: u64, jitter: u64, p_busy: f64, seed: u64) -> Self {
        LineMemory {
            store: LineStore::new(b as usize, initial),
            latency,
            jitter,
            p_busy,
            rng: ChaCha8Rng::seed_from_u64(seed),
            queue: VecDeque::new(),
            ready: true,
            shown: None,
            accepted: Vec::new(),
        }
    }

    fn line(&self, n: u32) -> Vec<u8> {
        self.store.line(n)
    }

    /// Start of cycle `c`: this cycle's `mem_req_ready` and response.
    fn begin(&mut self, c: u64) {
        self.ready = !(self.p_busy > 0.0 && self.rng.gen_bool(self.p_busy));
        self.shown = self
            .queue
            .front()
            .filter(|(due, _)| *due <= c)
            .map(|x| x.1.clone());
    }

    /// End of cycle `c`: the handshakes with the partition's outputs of the cycle.
    fn end(&mut self, c: u64, out: &PartitionOutputs) {
        if self.shown.is_some() && out.mem_resp_ready {
            self.queue.pop_front();
        }
        if let Some(r) = &out.mem_req {
            if self.ready {
                let data = self.store.perform(r.write, r.line, &r.mask, &r.data);
                let lat = self.latency
                    + if self.jitter > 0 {
                        self.rng.gen_range(0..=self.jitter)
                    } else {
                        0
                    };
                self.queue.push_back((c + 1 + lat, data));
                self.accepted.push((c, r.clone()));
            }
        }
    }
}

/// Request `n` from SM `sm`: id `n`, a mask and data that name it.
fn preq(g: &XbarGeometry, sm: usize, n: usize, line: u32, write: bool) -> PartReq {
    let b = g.line_bytes as usize;
    PartReq {
        sm,
        req: LineReq {
            write,
            line,
            mask: (0..b).map(|k| (k * 5 + n) % 4 != 1).collect(),
            data: (0..b)
                .map(|k| if write { (0x80 + n * 3 + k) as u8 } else { 0 })
                .collect(),
            id: n as u16,
        },
    }
}

/// A partition, its memory and a source of requests; records every handshake and checks that
/// an output not taken is shown unchanged in the next cycle.
struct Bench {
    part: MemoryPartition,
    mem: LineMemory,
    cycle: u64,
    to_send: VecDeque<PartReq>,
    accepted: Vec<(u64, PartReq)>,
    responses: Vec<(u64, PartResp)>,
    outs: Vec<PartitionOutputs>,
    held_out: Option<PartResp>,
    held_req: Option<MemLineReq>,
}

impl Bench {
    fn new(p: PartitionParams, mem: LineMemory) -> Self {
        Bench {
            part: MemoryPartition::with_params(p),
            mem,
            cycle: 0,
            to_send: VecDeque::new(),
            accepted: Vec::new(),
            responses: Vec::new(),
            outs: Vec::new(),
            held_out: None,
            held_req: None,
        }
    }

    /// One cycle: the memory's `ready` forced low if `mem_hold`.
    fn cycle_with(&mut self, valid: bool, out_ready: bool, mem_hold: bool) -> PartitionOutputs {
        let c = self.cycle;
        self.mem.begin(c);
        if mem_hold {
            self.mem.ready = false;
        }
        let inp = PartitionInputs {
            reset: false,
            input: self.to_send.front().cloned().filter(|_| valid),
            out_ready,
            mem_req_ready: self.mem.ready,
            mem_resp: self.mem.shown.clone(),
        };
        let out = self.part.step(&inp);
        if let Some(h) = self.held_out.take() {
            assert_eq!(
                out.out.as_ref(),
                Some(&h),
                "cycle {c}: a held response changed"
            );
        }
        if let Some(h) = self.held_req.take() {
            assert_eq!(
                out.mem_req.as_ref(),
                Some(&h),
                "cycle {c}: a held memory request changed"
            );
        }
        if let Some(r) = &inp.input {
            if out.in_ready {
                self.accepted.push((c, r.clone()));
                self.to_send.pop_front();
            }
        }
        if let Some(r) = &out.out {
            if out_ready {
                self.responses.push((c, r.clone()));
            } else {
                self.held_out = Some(r.clone());
            }
        }
        if let Some(r) = &out.mem_req {
            if !self.mem.ready {
                self.held_req = Some(r.clone());
            }
        }
        assert!(out.occupancy <= self.part.params().queue_depth);
        assert!(out.outstanding <= self.part.params().pending_depth);
        self.mem.end(c, &out);
        self.outs.push(out.clone());
        self.cycle += 1;
        out
    }

    fn cycle(&mut self) -> PartitionOutputs {
        self.cycle_with(true, true, false)
    }

    fn run(&mut self, n: usize) {
        for _ in 0..n {
            self.cycle();
        }
    }

    fn issued_at(&self) -> Vec<u64> {
        self.mem.accepted.iter().map(|x| x.0).collect()
    }

    fn answered_at(&self) -> Vec<u64> {
        self.responses.iter().map(|x| x.0).collect()
    }
}

fn small() -> PartitionParams {
    PartitionParams::new(&GpuConfig::small())
}

// ---- latency and throughput ----

#[test]
fn a_request_is_answered_three_cycles_plus_the_memory_latency_later() {
    for latency in [0u64, 1, 5, 100] {
        for cfg in [GpuConfig::tiny(), GpuConfig::small(), GpuConfig::fermi()] {
            let p = PartitionParams::new(&cfg);
            let g = p.geometry;
            let mut b = Bench::new(p, LineMemory::new(g.line_bytes, latency, 0, 0.0, 1));
            let store = preq(&g, g.sms - 1, 3, 0x123, true);
            let load = preq(&g, 0, 4, 0x123, false);
            b.to_send.push_back(store.clone());
            b.run(1);
            b.run(latency as usize + 4);
            b.to_send.push_back(load.clone());
            let t1 = b.cycle;
            b.run(latency as usize + 5);
            // Accepted in t, on the memory port in t + 1 (taken), answered by the memory from
            // t + 2 + L, shown to the crossbar in t + 3 + L.
            assert_eq!(
                b.accepted.iter().map(|x| x.0).collect::<Vec<_>>(),
                vec![0, t1]
            );
            assert_eq!(b.issued_at(), vec![1, t1 + 1]);
            assert_eq!(b.answered_at(), vec![3 + latency, t1 + 3 + latency]);
            // The store: a completion with the request's tag and no data; the memory has its
            // masked bytes.
            let done = &b.responses[0].1;
            assert_eq!(
                (done.sm, done.resp.id, done.resp.write),
                (g.sms - 1, 3, true)
            );
            assert!(done.resp.data.iter().all(|&x| x == 0));
            let line = b.mem.line(0x123);
            for k in 0..g.line_bytes as usize {
                let want = if store.req.mask[k] {
                    store.req.data[k]
                } else {
                    initial(0x123, k)
                };
                assert_eq!(line[k], want);
            }
            // The load after it sees the stored bytes.
            let data = &b.responses[1].1;
            assert_eq!((data.sm, data.resp.id, data.resp.write), (0, 4, false));
            assert_eq!(data.resp.data, line);
            // The memory port carried the request without sm and id.
            assert_eq!(b.mem.accepted[0].1.mask, store.req.mask);
            assert_eq!(b.mem.accepted[0].1.data, store.req.data);
            assert_eq!(
                (b.mem.accepted[0].1.line, b.mem.accepted[0].1.write),
                (0x123, true)
            );
            assert!(b.part.is_idle());
            let st = b.part.stats();
            assert_eq!((st.reads, st.writes, st.issued, st.responses), (1, 1, 2, 2));
        }
    }
}

#[test]
fn a_stream_moves_one_request_per_cycle() {
    for latency in [0u64, 3, 14] {
        let g = small().geometry;
        let mut b = Bench::new(small(), LineMemory::new(g.line_bytes, latency, 0, 0.0, 1));
        for n in 0..30 {
            b.to_send
                .push_back(preq(&g, n % 2, n, 2 * n as u32, n % 3 == 0));
        }
        b.run(34 + latency as usize);
        let acc: Vec<u64> = b.accepted.iter().map(|x| x.0).collect();
        assert_eq!(acc, (0..30).collect::<Vec<_>>());
        assert_eq!(b.issued_at(), (1..31).collect::<Vec<_>>());
        assert_eq!(
            b.answered_at(),
            (0..30).map(|n| n + 3 + latency).collect::<Vec<_>>()
        );
        // The queue holds one request, the memory L + 1 (K = 16 ≥ L + 2: no credit stall).
        for c in 1..30 {
            assert_eq!(b.outs[c].occupancy, 1, "cycle {c}");
        }
        for c in (2 + latency as usize)..30 {
            assert_eq!(b.outs[c].outstanding, latency as usize + 1, "cycle {c}");
        }
        let st = b.part.stats();
        assert_eq!(st.credit_stalls, 0);
        assert_eq!(st.max_outstanding(), latency as usize + 1);
        assert_eq!(st.max_occupancy(), 1);
        let ids: Vec<u16> = b.responses.iter().map(|x| x.1.resp.id).collect();
        assert_eq!(ids, (0..30).collect::<Vec<u16>>());
    }
}

// ---- full queues ----

#[test]
fn a_full_queue_refuses_and_holds_its_head() {
    let g = small().geometry;
    let mut b = Bench::new(small(), LineMemory::new(g.line_bytes, 0, 0, 0.0, 1));
    for n in 0..8 {
        b.to_send.push_back(preq(&g, 1, n, 7 + 2 * n as u32, false));
    }
    // The memory refuses in cycles 0 … 9.
    for c in 0..16 {
        b.cycle_with(true, true, c < 10);
    }
    let acc: Vec<u64> = b.accepted.iter().map(|x| x.0).collect();
    assert_eq!(acc, vec![0, 1, 2, 3, 11, 12, 13, 14]);
    for c in 4..=10 {
        assert!(!b.outs[c].in_ready, "cycle {c}");
        assert_eq!(b.outs[c].occupancy, REQ_QUEUE_DEPTH);
    }
    // The head is shown from cycle 1 and held until the memory takes it in 10.
    for c in 1..=10 {
        assert_eq!(b.outs[c].mem_req.as_ref().unwrap().line, 7, "cycle {c}");
    }
    assert_eq!(b.issued_at(), vec![10, 11, 12, 13, 14, 15]);
    let st = b.part.stats();
    assert_eq!(st.in_stalls, 7);
    assert_eq!(st.mem_req_stalls, 9);
    assert_eq!(st.max_occupancy(), 4);
    assert_eq!(st.occupancy_cycles[4], 7);
}

#[test]
fn pending_tags_bound_the_requests_outstanding() {
    // K = 16 and a memory latency of 100: 16 requests every L + 2 = 102 cycles.
    let g = small().geometry;
    let mut b = Bench::new(small(), LineMemory::new(g.line_bytes, 100, 0, 0.0, 1));
    for n in 0..40 {
        b.to_send.push_back(preq(&g, 0, n, n as u32, false));
    }
    b.run(330);
    let want: Vec<u64> = (0..40u64).map(|n| 1 + (n / 16) * 102 + n % 16).collect();
    assert_eq!(b.issued_at(), want);
    let st = b.part.stats();
    assert_eq!(st.max_outstanding(), PENDING_DEPTH);
    assert!(st.credit_stalls >= 2 * 86);
    assert_eq!(b.responses.len(), 40);
    // L = 5: K ≥ L + 2 = 7 keeps one request per cycle; K = 6 issues 6 in every 7 cycles.
    for k in [7u64, 6] {
        let p = small().with_depths(REQ_QUEUE_DEPTH, k as usize);
        let mut b = Bench::new(p, LineMemory::new(g.line_bytes, 5, 0, 0.0, 1));
        for n in 0..70 {
            b.to_send.push_back(preq(&g, 0, n, n as u32, false));
        }
        b.run(100);
        let want: Vec<u64> = (0..70u64).map(|n| 1 + (n / k) * 7 + n % k).collect();
        assert_eq!(b.issued_at(), want, "K = {k}");
        // At most L + 1 = 6 are outstanding even when K allows more.
        assert_eq!(b.part.stats().max_outstanding(), 6);
        assert_eq!(b.part.stats().credit_stalls, if k == 7 { 0 } else { 11 });
    }
}

#[test]
fn response_back_pressure_fills_the_buffer_then_the_memory_waits() {
    let g = small().geometry;
    let mut b = Bench::new(small(), LineMemory::new(g.line_bytes, 0, 0, 0.0, 1));
    for n in 0..4 {
        b.to_send.push_back(preq(&g, 0, n, 40 + n as u32, false));
    }
    // The crossbar refuses responses in cycles 0 … 11.
    for c in 0..18 {
        b.cycle_with(true, c >= 12, false);
    }
    // Memory answers from 2, 3, 4, 5; the buffer takes two (2, 3), then mem_resp_ready is low
    // until the buffer drains at 12: the third is taken in 13, the fourth in 14.
    assert!(b.outs[3].out.is_some());
    for c in 4..=12 {
        assert!(!b.outs[c].mem_resp_ready, "cycle {c}");
    }
    assert!(b.outs[13].mem_resp_ready);
    assert_eq!(b.answered_at(), vec![12, 13, 14, 15]);
    let ids: Vec<u16> = b.responses.iter().map(|x| x.1.resp.id).collect();
    assert_eq!(ids, vec![0, 1, 2, 3]);
    let st = b.part.stats();
    assert_eq!(st.out_stalls, 9);
    assert_eq!(st.mem_resp_stalls, 9);
}

#[test]
fn a_response_with_nothing_pending_is_not_taken() {
    let g = small().geometry;
    let mut part = MemoryPartition::with_params(small());
    let out = part.step(&PartitionInputs {
        mem_resp: Some(vec![1; g.line_bytes as usize]),
        out_ready: true,
        mem_req_ready: true,
        ..Default::default()
    });
    assert!(!out.mem_resp_ready);
    assert!(part.is_idle());
    assert_eq!(part.stats().mem_resp_stalls, 1);
    assert_eq!(part.stats().mem_responses, 0);
}

// ---- reset, registers ----

#[test]
fn reset_forgets_every_request() {
    let g = small().geometry;
    let mut b = Bench::new(small(), LineMemory::new(g.line_bytes, 10, 0, 0.0, 1));
    for n in 0..6 {
        b.to_send.push_back(preq(&g, 0, n, n as u32, n == 0));
    }
    b.run(4);
    assert!(b.outs[3].outstanding > 0 && b.outs[3].occupancy > 0);
    let before = b.part.stats().clone();
    let (occ, outst) = (
        b.part.outputs(false).occupancy,
        b.part.outputs(false).outstanding,
    );
    let out = b.part.step(&PartitionInputs {
        reset: true,
        input: Some(preq(&g, 0, 9, 9, false)),
        out_ready: true,
        mem_req_ready: true,
        mem_resp: Some(vec![0; g.line_bytes as usize]),
    });
    assert!(!out.in_ready && out.out.is_none() && out.mem_req.is_none() && !out.mem_resp_ready);
    assert_eq!(
        (out.occupancy, out.outstanding),
        (occ, outst),
        "the counts are not gated"
    );
    assert!(b.part.is_idle());
    assert_eq!(b.part.stats(), &before);
    // The memory's late answers are never taken: nothing is pending any more.
    let after = b.part.step(&PartitionInputs {
        mem_resp: Some(vec![0; g.line_bytes as usize]),
        out_ready: true,
        ..Default::default()
    });
    assert!(!after.mem_resp_ready && after.in_ready);
}

#[test]
fn outputs_depend_only_on_the_registers() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xAB);
    let g = small().geometry;
    let mut part = MemoryPartition::with_params(small().with_depths(3, 2));
    let random = |rng: &mut ChaCha8Rng| PartitionInputs {
        reset: false,
        input: rng.gen_bool(0.7).then(|| {
            preq(
                &g,
                rng.gen_range(0..2),
                rng.gen_range(0..99),
                rng.gen_range(0..9),
                rng.gen(),
            )
        }),
        out_ready: rng.gen_bool(0.5),
        mem_req_ready: rng.gen_bool(0.5),
        mem_resp: rng
            .gen_bool(0.5)
            .then(|| vec![rng.gen(); g.line_bytes as usize]),
    };
    for _ in 0..300 {
        let a = random(&mut rng);
        let b = random(&mut rng);
        let out = part.clone().step(&a);
        assert_eq!(out, part.clone().step(&b));
        assert_eq!(out, part.outputs(false));
        part.step(&a);
    }
}

#[test]
fn payload_registers_of_the_presets() {
    let bits: Vec<u64> = [GpuConfig::tiny(), GpuConfig::small(), GpuConfig::fermi()]
        .iter()
        .map(|c| PartitionParams::new(c).payload_bits())
        .collect();
    assert_eq!(bits, vec![1_340, 2_168, 7_174]);
}

// ---- seeded random properties ----

/// Every accepted request answered exactly once, in acceptance order, with its tag; loads see
/// every earlier request's writes (in-order memory); the counts stay within their depths; the
/// counters add up.
#[test]
fn random_traffic_answers_every_request_once_in_order() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x9A27);
    for case in 0..60 {
        let g = geo(
            rng.gen_range(1..=8),
            1 << rng.gen_range(0..3),
            4 << rng.gen_range(0..5),
        );
        let p = PartitionParams::with_geometry(g)
            .with_depths([1, 2, 4][case % 3], [1, 3, 16][(case / 3) % 3]);
        let mem = LineMemory::new(
            g.line_bytes,
            rng.gen_range(0..20),
            [0, 0, 30][case % 3],
            [0.0, 0.3, 0.7][(case / 2) % 3],
            case as u64,
        );
        let mut b = Bench::new(p, mem);
        let n_req = 150;
        for n in 0..n_req {
            b.to_send.push_back(preq(
                &g,
                rng.gen_range(0..g.sms),
                n,
                rng.gen_range(0..6),
                rng.gen(),
            ));
        }
        let p_valid = [1.0, 0.5][case % 2];
        let p_out = [1.0, 0.6, 0.2][(case / 5) % 3];
        let mut guard = 0;
        while !b.to_send.is_empty() || !b.part.is_idle() {
            let v = rng.gen_bool(p_valid);
            let r = rng.gen_bool(p_out);
            b.cycle_with(v, r, false);
            guard += 1;
            assert!(guard < 100_000, "case {case}: no progress");
        }
        assert_eq!(b.accepted.len(), n_req);
        assert_eq!(b.responses.len(), n_req);
        // A shadow memory in acceptance order.
        let mut shadow = LineStore::new(g.line_bytes as usize, initial);
        for ((_, q), (_, r)) in b.accepted.iter().zip(&b.responses) {
            assert_eq!(
                (r.sm, r.resp.id, r.resp.write),
                (q.sm, q.req.id, q.req.write),
                "case {case}"
            );
            let data = shadow.perform(q.req.write, q.req.line, &q.req.mask, &q.req.data);
            if q.req.write {
                assert!(r.resp.data.iter().all(|&x| x == 0));
            } else {
                assert_eq!(r.resp.data, data, "case {case}: load {}", q.req.id);
            }
        }
        // The memory saw the requests in acceptance order, unchanged.
        let seen: Vec<&MemLineReq> = b.mem.accepted.iter().map(|x| &x.1).collect();
        assert_eq!(seen.len(), n_req);
        for (m, (_, q)) in seen.iter().zip(&b.accepted) {
            assert_eq!(
                (m.write, m.line, &m.mask, &m.data),
                (q.req.write, q.req.line, &q.req.mask, &q.req.data)
            );
        }
        let st = b.part.stats();
        let cycles = b.cycle;
        assert_eq!(st.reads + st.writes, n_req as u64);
        assert_eq!(st.issued, n_req as u64);
        assert_eq!(st.mem_responses, n_req as u64);
        assert_eq!(st.responses, n_req as u64);
        assert_eq!(st.occupancy_cycles.iter().sum::<u64>(), cycles);
        assert_eq!(st.outstanding_cycles.iter().sum::<u64>(), cycles);
        assert!(st.max_occupancy() <= p.queue_depth);
        assert!(st.max_outstanding() <= p.pending_depth);
        assert!(st.mean_occupancy() <= p.queue_depth as f64);
    }
}

// ---- the crossbar, the partitions and the memory together ----

/// A GPU's memory side: the crossbar, `P` partitions, one line memory per partition.
struct System {
    g: XbarGeometry,
    x: Crossbar,
    parts: Vec<MemoryPartition>,
    mems: Vec<LineMemory>,
    cycle: u64,
    to_send: Vec<VecDeque<LineReq>>,
    /// Per SM: (cycle accepted, request).
    accepted: Vec<Vec<(u64, LineReq)>>,
    /// Per SM: (cycle taken, response).
    answers: Vec<Vec<(u64, LineResp)>>,
}

impl System {
    fn new(g: XbarGeometry, latency: u64, jitter: u64, p_busy: f64) -> Self {
        System {
            g,
            x: Crossbar::with_geometry(g),
            parts: (0..g.partitions)
                .map(|_| MemoryPartition::with_params(PartitionParams::with_geometry(g)))
                .collect(),
            mems: (0..g.partitions)
                .map(|p| LineMemory::new(g.line_bytes, latency, jitter, p_busy, 77 + p as u64))
                .collect(),
            cycle: 0,
            to_send: vec![VecDeque::new(); g.sms],
            accepted: vec![Vec::new(); g.sms],
            answers: vec![Vec::new(); g.sms],
        }
    }

    /// One cycle: every unit's outputs first (functions of its registers), then every edge.
    fn cycle(&mut self, sm_valid: &dyn Fn(usize) -> bool, sm_ready: &dyn Fn(usize) -> bool) {
        let c = self.cycle;
        let (ns, np) = (self.g.sms, self.g.partitions);
        let xo = self.x.outputs(false);
        let po: Vec<PartitionOutputs> = self.parts.iter().map(|p| p.outputs(false)).collect();
        for m in &mut self.mems {
            m.begin(c);
        }
        let xin = CrossbarInputs {
            reset: false,
            sm_req: (0..ns)
                .map(|s| self.to_send[s].front().cloned().filter(|_| sm_valid(s)))
                .collect(),
            sm_resp_ready: (0..ns).map(sm_ready).collect(),
            part_req_ready: po.iter().map(|o| o.in_ready).collect(),
            part_resp: po.iter().map(|o| o.out.clone()).collect(),
        };
        assert_eq!(self.x.step(&xin), xo);
        for s in 0..ns {
            if let Some(r) = &xin.sm_req[s] {
                if xo.sm_req_ready[s] {
                    self.accepted[s].push((c, r.clone()));
                    self.to_send[s].pop_front();
                }
            }
            if let Some(r) = &xo.sm_resp[s] {
                if xin.sm_resp_ready[s] {
                    self.answers[s].push((c, r.clone()));
                }
            }
        }
        for p in 0..np {
            let inp = PartitionInputs {
                reset: false,
                input: xo.part_req[p].clone(),
                out_ready: xo.part_resp_ready[p],
                mem_req_ready: self.mems[p].ready,
                mem_resp: self.mems[p].shown.clone(),
            };
            assert_eq!(self.parts[p].step(&inp), po[p]);
            self.mems[p].end(c, &po[p]);
        }
        self.cycle += 1;
    }

    fn busy(&self) -> bool {
        self.to_send.iter().any(|q| !q.is_empty())
            || !self.x.is_idle()
            || self.parts.iter().any(|p| !p.is_idle())
            || self.mems.iter().any(|m| !m.queue.is_empty())
    }
}

#[test]
fn a_round_trip_takes_seven_cycles_plus_the_memory_latency() {
    for cfg in [GpuConfig::tiny(), GpuConfig::small(), GpuConfig::fermi()] {
        let g = XbarGeometry::new(&cfg);
        for latency in [0u64, 3, 100] {
            for s in 0..g.sms {
                for p in 0..g.partitions {
                    let mut sys = System::new(g, latency, 0, 0.0);
                    let line = 0x2000 + p as u32;
                    sys.to_send[s].push_back(LineReq::read(&g, line, 0xBEEF));
                    for _ in 0..latency + 9 {
                        sys.cycle(&|_| true, &|_| true);
                    }
                    assert_eq!(sys.accepted[s][0].0, 0);
                    assert_eq!(
                        sys.mems[p].accepted.len(),
                        1,
                        "line {line} in partition {p}"
                    );
                    assert_eq!(sys.mems[p].accepted[0].0, 3, "on the memory port in t + 3");
                    let (c, r) = &sys.answers[s][0];
                    assert_eq!(*c, 7 + latency, "{} SM {s} partition {p}", cfg.name);
                    assert_eq!(r.id, 0xBEEF);
                    assert!(!r.write);
                    assert_eq!(r.data, sys.mems[p].line(line));
                    assert!(!sys.busy());
                }
            }
        }
    }
}

/// Random loads and stores from every SM through the whole memory side, with random memory
/// latency and back-pressure and random SM readiness: every request answered exactly once at
/// its SM; an SM's load of a line only it writes sees its own latest store (per-SM order is
/// kept from the SM port to the memory); the memory ends with every SM's last stores.
#[test]
fn random_system_traffic_keeps_each_sms_order() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5157);
    for case in 0..24 {
        let g = match case % 4 {
            0 => XbarGeometry::new(&GpuConfig::small()),
            1 => XbarGeometry::new(&GpuConfig::fermi()),
            2 => geo(3, 2, 16),
            _ => geo(
                rng.gen_range(1..=6),
                1 << rng.gen_range(0..4),
                4 << rng.gen_range(0..4),
            ),
        };
        let mut sys = System::new(
            g,
            rng.gen_range(0..30),
            [0, 20][case % 2],
            [0.0, 0.3][(case / 2) % 2],
        );
        let bb = g.line_bytes as usize;
        // SM s owns the lines n with (n / P) mod S = s (in every partition).
        let owned = |s: usize, k: u32| -> u32 {
            let (ns, np) = (g.sms as u32, g.partitions as u32);
            let block = k / np * ns + s as u32;
            block * np + k % np
        };
        let mut shadow = vec![LineStore::new(bb, initial); g.sms];
        let mut expect: Vec<Vec<Option<Vec<u8>>>> = vec![Vec::new(); g.sms];
        for s in 0..g.sms {
            for n in 0..80 {
                let line = owned(s, rng.gen_range(0..3 * g.partitions as u32));
                let write = rng.gen_bool(0.4);
                let r = if write {
                    let mask: Vec<bool> = (0..bb).map(|_| rng.gen()).collect();
                    let data: Vec<u8> = (0..bb).map(|_| rng.gen()).collect();
                    shadow[s].perform(true, line, &mask, &data);
                    expect[s].push(None);
                    LineReq::write(line, mask, data, n as u16)
                } else {
                    expect[s].push(Some(shadow[s].line(line)));
                    LineReq::read(&g, line, n as u16)
                };
                sys.to_send[s].push_back(r);
            }
        }
        let p_sm = [1.0, 0.5][case % 2];
        let mut guard = 0;
        while sys.busy() {
            let v: Vec<bool> = (0..g.sms).map(|_| rng.gen_bool(p_sm)).collect();
            let r: Vec<bool> = (0..g.sms).map(|_| rng.gen_bool(p_sm)).collect();
            sys.cycle(&|s| v[s], &|s| r[s]);
            guard += 1;
            assert!(guard < 200_000, "case {case}: no progress");
        }
        for s in 0..g.sms {
            let mut got: Vec<Option<&LineResp>> = vec![None; expect[s].len()];
            for (_, r) in &sys.answers[s] {
                let slot = &mut got[r.id as usize];
                assert!(
                    slot.is_none(),
                    "case {case}: SM {s} answered twice for {}",
                    r.id
                );
                *slot = Some(r);
            }
            for (n, want) in expect[s].iter().enumerate() {
                let r =
                    got[n].unwrap_or_else(|| panic!("case {case}: SM {s} request {n} unanswered"));
                match want {
                    None => assert!(r.write, "case {case}"),
                    Some(data) => {
                        assert!(!r.write);
                        assert_eq!(&r.data, data, "case {case}: SM {s} load {n}");
                    }
                }
            }
            for (line, data) in shadow[s].written() {
                let p = g.partition_of(line);
                assert_eq!(
                    sys.mems[p].line(line),
                    data,
                    "case {case}: final line {line:#x}"
                );
            }
        }
        // Each partition's memory saw only its own lines.
        for (p, m) in sys.mems.iter().enumerate() {
            assert!(m.accepted.iter().all(|(_, r)| g.partition_of(r.line) == p));
        }
    }
}
