//! Tests of the crossbar reference: the page's latencies cycle by cycle, line interleaving,
//! round-robin order and tie-break, the wait bound under full contention, back-pressure,
//! head-of-line blocking, response routing, reset, dropped responses, the register budget, and
//! seeded random properties (every request and response delivered exactly once, to the right
//! port, per-SM order kept, the wait bounds, the counters).

use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

fn geo(s: usize, p: usize, b: u32) -> XbarGeometry {
    XbarGeometry::with(s, p, b)
}

/// tiny (1 SM, 1 partition, 16-byte lines), small (2, 2, 32), fermi (4, 4, 128).
fn presets() -> Vec<XbarGeometry> {
    [GpuConfig::tiny(), GpuConfig::small(), GpuConfig::fermi()]
        .iter()
        .map(XbarGeometry::new)
        .collect()
}

/// The presets and a few odd shapes: a non-power-of-two SM count, more partitions than SMs,
/// the largest crossbar.
fn shapes() -> Vec<XbarGeometry> {
    let mut v = presets();
    v.extend([geo(3, 2, 32), geo(2, 8, 4), geo(5, 1, 16), geo(64, 64, 4)]);
    v
}

/// Request `n` of SM `s` to `line`: id `n`, a mask and data that name both.
fn req(g: &XbarGeometry, s: usize, n: usize, line: u32, write: bool) -> LineReq {
    let b = g.line_bytes as usize;
    LineReq {
        write,
        line,
        mask: (0..b).map(|k| !(k + n + s).is_multiple_of(3)).collect(),
        data: (0..b)
            .map(|k| (s * 31 + n * 7 + k) as u8)
            .map(|x| if write { x } else { 0 })
            .collect(),
        id: n as u16,
    }
}

/// Response `n` for SM `sm` from partition `p`.
fn resp(g: &XbarGeometry, p: usize, sm: usize, n: usize, write: bool) -> PartResp {
    PartResp {
        sm,
        resp: LineResp {
            write,
            id: n as u16,
            data: (0..g.line_bytes as usize)
                .map(|k| (p * 53 + sm * 11 + n * 3 + k) as u8)
                .collect(),
        },
    }
}

/// The first line ≥ `from` that lives in partition `p`.
fn line_in(g: &XbarGeometry, p: usize, from: u32) -> u32 {
    (from..).find(|&l| g.partition_of(l) == p).unwrap()
}

/// Drives a crossbar: per SM a list of requests to offer (the front offered while `sm_valid`),
/// per partition a list of responses; records every handshake and grant, and checks on every
/// cycle that an output not taken is shown unchanged in the next cycle.
struct Driver {
    x: Crossbar,
    g: XbarGeometry,
    cycle: usize,
    to_send: Vec<VecDeque<LineReq>>,
    to_return: Vec<VecDeque<PartResp>>,
    /// Per SM: (cycle accepted, request).
    accepted: Vec<Vec<(usize, LineReq)>>,
    /// Per partition: (cycle taken, request).
    delivered: Vec<Vec<(usize, PartReq)>>,
    /// Per partition: (cycle accepted, response).
    resp_accepted: Vec<Vec<(usize, PartResp)>>,
    /// Per SM: (cycle taken, response).
    resp_delivered: Vec<Vec<(usize, LineResp)>>,
    /// (cycle of the grant, partition, SM), from `req_gnt` one cycle later.
    req_grants: Vec<(usize, usize, usize)>,
    /// (cycle of the grant, SM, partition), from `resp_gnt` one cycle later.
    resp_grants: Vec<(usize, usize, usize)>,
    /// Outputs of every cycle.
    outs: Vec<CrossbarOutputs>,
    held_req: Vec<Option<PartReq>>,
    held_resp: Vec<Option<LineResp>>,
    /// Stall cycles seen at the ports: SM request, partition request, partition response, SM
    /// response.
    stalls: [Vec<u64>; 4],
}

impl Driver {
    fn new(g: XbarGeometry) -> Self {
        let (s, p) = (g.sms, g.partitions);
        Driver {
            x: Crossbar::with_geometry(g),
            g,
            cycle: 0,
            to_send: vec![VecDeque::new(); s],
            to_return: vec![VecDeque::new(); p],
            accepted: vec![Vec::new(); s],
            delivered: vec![Vec::new(); p],
            resp_accepted: vec![Vec::new(); p],
            resp_delivered: vec![Vec::new(); s],
            req_grants: Vec::new(),
            resp_grants: Vec::new(),
            outs: Vec::new(),
            held_req: vec![None; p],
            held_resp: vec![None; s],
            stalls: [vec![0; s], vec![0; p], vec![0; p], vec![0; s]],
        }
    }

    /// One cycle with these valid gates and readies.
    fn cycle_with(
        &mut self,
        sm_valid: &dyn Fn(usize) -> bool,
        part_valid: &dyn Fn(usize) -> bool,
        part_req_ready: &dyn Fn(usize) -> bool,
        sm_resp_ready: &dyn Fn(usize) -> bool,
    ) -> CrossbarOutputs {
        let (ns, np) = (self.g.sms, self.g.partitions);
        let c = self.cycle;
        let inp = CrossbarInputs {
            reset: false,
            sm_req: (0..ns)
                .map(|s| self.to_send[s].front().cloned().filter(|_| sm_valid(s)))
                .collect(),
            sm_resp_ready: (0..ns).map(sm_resp_ready).collect(),
            part_req_ready: (0..np).map(part_req_ready).collect(),
            part_resp: (0..np)
                .map(|p| self.to_return[p].front().cloned().filter(|_| part_valid(p)))
                .collect(),
        };
        let out = self.x.step(&inp);
        for s in 0..ns {
            if let Some(r) = &inp.sm_req[s] {
                if out.sm_req_ready[s] {
                    self.accepted[s].push((c, r.clone()));
                    self.to_send[s].pop_front();
                } else {
                    self.stalls[0][s] += 1;
                }
            }
            if let Some(h) = self.held_resp[s].take() {
                assert_eq!(
                    out.sm_resp[s].as_ref(),
                    Some(&h),
                    "cycle {c}: SM {s}'s held response changed"
                );
            }
            if let Some(r) = &out.sm_resp[s] {
                if inp.sm_resp_ready[s] {
                    self.resp_delivered[s].push((c, r.clone()));
                } else {
                    self.held_resp[s] = Some(r.clone());
                    self.stalls[3][s] += 1;
                }
            }
            if let Some(p) = out.resp_gnt[s] {
                assert!(out.sm_resp[s].is_some(), "a grant loads RO");
                self.resp_grants.push((c - 1, s, p));
            }
        }
        for p in 0..np {
            if let Some(r) = &inp.part_resp[p] {
                if out.part_resp_ready[p] {
                    self.resp_accepted[p].push((c, r.clone()));
                    self.to_return[p].pop_front();
                } else {
                    self.stalls[2][p] += 1;
                }
            }
            if let Some(h) = self.held_req[p].take() {
                assert_eq!(
                    out.part_req[p].as_ref(),
                    Some(&h),
                    "cycle {c}: partition {p}'s held request changed"
                );
            }
            if let Some(r) = &out.part_req[p] {
                if inp.part_req_ready[p] {
                    self.delivered[p].push((c, r.clone()));
                } else {
                    self.held_req[p] = Some(r.clone());
                    self.stalls[1][p] += 1;
                }
            }
            if out.req_gnt[p] {
                let r = out.part_req[p].as_ref().expect("a grant loads OR");
                self.req_grants.push((c - 1, p, r.sm));
            }
        }
        self.outs.push(out.clone());
        self.cycle += 1;
        out
    }

    /// One cycle, everything offered, every consumer ready.
    fn cycle(&mut self) -> CrossbarOutputs {
        self.cycle_with(&|_| true, &|_| true, &|_| true, &|_| true)
    }

    fn run(&mut self, cycles: usize) {
        for _ in 0..cycles {
            self.cycle();
        }
    }

    fn pending(&self) -> bool {
        self.to_send.iter().any(|q| !q.is_empty())
            || self.to_return.iter().any(|q| !q.is_empty())
            || !self.x.is_idle()
    }
}

// ---- latency and throughput ----

#[test]
fn a_lone_request_and_a_lone_response_take_two_cycles() {
    for g in shapes() {
        // Every SM to every partition (a sample of them on the 64 × 64 crossbar).
        let step = if g.sms > 8 { 21 } else { 1 };
        for s in (0..g.sms).step_by(step) {
            for p in (0..g.partitions).step_by(step) {
                let mut d = Driver::new(g);
                let line = line_in(&g, p, 0x0012_3450 + s as u32 * 1000);
                let r = req(&g, s, 7, line, s % 2 == 0);
                d.to_send[s].push_back(r.clone());
                let back = resp(&g, p, s, 9, p % 2 == 1);
                d.to_return[p].push_back(back.clone());
                d.run(5);
                assert_eq!(d.accepted[s], vec![(0, r.clone())]);
                // Accepted in 0, granted in 1, shown (and taken) in 2.
                assert_eq!(
                    d.delivered[p],
                    vec![(2, PartReq { sm: s, req: r })],
                    "{g:?}"
                );
                assert_eq!(d.req_grants, vec![(1, p, s)]);
                assert!(d.outs[2].req_gnt[p]);
                assert_eq!(d.resp_accepted[p].len(), 1);
                assert_eq!(d.resp_delivered[s], vec![(2, back.resp)], "{g:?}");
                assert_eq!(d.resp_grants, vec![(1, s, p)]);
                assert_eq!(d.outs[2].resp_gnt[s], Some(p));
                // Nothing shows anywhere else.
                for (c, o) in d.outs.iter().enumerate() {
                    let shown = o.part_req.iter().filter(|x| x.is_some()).count()
                        + o.sm_resp.iter().filter(|x| x.is_some()).count();
                    assert_eq!(shown, if c == 2 { 2 } else { 0 }, "cycle {c}");
                }
                assert!(d.x.is_idle());
                assert_eq!(d.x.req_pointer(p), (s + 1) % g.sms);
                assert_eq!(d.x.resp_pointer(s), (p + 1) % g.partitions);
            }
        }
    }
}

#[test]
fn degenerate_crossbar_is_a_two_stage_pipe() {
    let g = geo(1, 1, 16);
    let mut d = Driver::new(g);
    for n in 0..10 {
        d.to_send[0].push_back(req(&g, 0, n, 100 + n as u32, n % 3 == 0));
        d.to_return[0].push_back(resp(&g, 0, 0, n, n % 2 == 0));
    }
    d.run(14);
    // One per cycle in, one per cycle out, two cycles apart, in order.
    let acc: Vec<usize> = d.accepted[0].iter().map(|x| x.0).collect();
    assert_eq!(acc, (0..10).collect::<Vec<_>>());
    let del: Vec<(usize, u16)> = d.delivered[0].iter().map(|x| (x.0, x.1.req.id)).collect();
    assert_eq!(del, (0..10).map(|n| (n + 2, n as u16)).collect::<Vec<_>>());
    let back: Vec<(usize, u16)> = d.resp_delivered[0].iter().map(|x| (x.0, x.1.id)).collect();
    assert_eq!(back, (0..10).map(|n| (n + 2, n as u16)).collect::<Vec<_>>());
    assert!(d
        .outs
        .iter()
        .all(|o| o.sm_req_ready[0] && o.part_resp_ready[0]));
    assert_eq!(d.x.stats().req_conflicts, vec![0]);
    assert_eq!(d.x.stats().max_req_wait, 0);
}

#[test]
fn disjoint_traffic_moves_one_request_per_port_per_cycle() {
    // SM s → partition (s + 1) mod P, partition p → SM (p + 2) mod S: no two share a port.
    let g = geo(4, 4, 32);
    let mut d = Driver::new(g);
    for s in 0..4 {
        for n in 0..20 {
            let line = line_in(&g, (s + 1) % 4, 64 * n as u32);
            d.to_send[s].push_back(req(&g, s, n, line, false));
        }
    }
    for p in 0..4 {
        for n in 0..20 {
            d.to_return[p].push_back(resp(&g, p, (p + 2) % 4, n, false));
        }
    }
    d.run(24);
    for s in 0..4 {
        let acc: Vec<usize> = d.accepted[s].iter().map(|x| x.0).collect();
        assert_eq!(acc, (0..20).collect::<Vec<_>>());
        let p = (s + 1) % 4;
        let del: Vec<(usize, usize, u16)> = d.delivered[p]
            .iter()
            .map(|x| (x.0, x.1.sm, x.1.req.id))
            .collect();
        assert_eq!(
            del,
            (0..20).map(|n| (n + 2, s, n as u16)).collect::<Vec<_>>()
        );
    }
    for p in 0..4 {
        let sm = (p + 2) % 4;
        let got: Vec<(usize, u16)> = d.resp_delivered[sm].iter().map(|x| (x.0, x.1.id)).collect();
        assert_eq!(got, (0..20).map(|n| (n + 2, n as u16)).collect::<Vec<_>>());
    }
    assert!(d
        .x
        .stats()
        .sm_req
        .iter()
        .all(|c| c.stalls == 0 && c.grants == 20));
}

// ---- interleaving ----

#[test]
fn line_interleaving_picks_line_mod_p() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x11E);
    for p in [1usize, 2, 4, 8, 64] {
        for b in [4u32, 32, 1024] {
            let g = geo(2, p, b);
            assert_eq!(g.partition_bits(), p.trailing_zeros());
            for _ in 0..50 {
                let line = rng.gen::<u32>() & g.line_mask();
                assert_eq!(g.partition_of(line), line as usize % p);
            }
            // Consecutive lines go to consecutive partitions, wrapping.
            let mut d = Driver::new(g);
            for n in 0..2 * p {
                d.to_send[n % 2].push_back(req(&g, n % 2, n, 0x4000 + n as u32, true));
            }
            d.run(4 * p + 8);
            for (q, got) in d.delivered.iter().enumerate() {
                let lines: Vec<u32> = got.iter().map(|x| x.1.req.line).collect();
                assert_eq!(lines, vec![0x4000 + q as u32, 0x4000 + (q + p) as u32]);
                assert!(lines.iter().all(|&l| l as usize % p == q));
            }
        }
    }
    // Bits of a line number above LW do not exist: they are dropped at the port.
    let g = geo(1, 4, 1024);
    let mut d = Driver::new(g);
    d.to_send[0].push_back(req(&g, 0, 0, 0xFFFF_FFF3, false));
    d.run(3);
    assert_eq!(d.delivered[3][0].1.req.line, 0x003F_FFF3);
}

// ---- arbitration ----

#[test]
fn two_sms_to_one_partition_alternate() {
    let g = geo(2, 2, 32);
    let mut d = Driver::new(g);
    for s in 0..2 {
        for n in 0..12 {
            d.to_send[s].push_back(req(&g, s, n, line_in(&g, 0, 8 * n as u32), n % 2 == 1));
        }
    }
    d.run(30);
    // Grants from cycle 1 on: 0, 1, 0, 1, … (after reset the pointer is at SM 0).
    let order: Vec<(usize, usize)> = d.req_grants.iter().map(|&(c, _, s)| (c, s)).collect();
    assert_eq!(order, (0..24).map(|k| (k + 1, k % 2)).collect::<Vec<_>>());
    // Shown and taken from cycle 2, one per cycle, alternating, each SM in its order.
    for (k, (c, r)) in d.delivered[0].iter().enumerate() {
        assert_eq!((*c, r.sm, r.req.id), (k + 2, k % 2, (k / 2) as u16));
    }
    // Each SM's queue fills: accepted 0, 1, then every second cycle.
    let acc0: Vec<usize> = d.accepted[0].iter().map(|x| x.0).collect();
    let acc1: Vec<usize> = d.accepted[1].iter().map(|x| x.0).collect();
    assert_eq!(&acc0[..6], &[0, 1, 2, 4, 6, 8]);
    assert_eq!(&acc1[..6], &[0, 1, 3, 5, 7, 9]);
    let st = d.x.stats();
    assert_eq!(st.part_req[0].grants, 24);
    assert_eq!(st.part_req[1].grants, 0);
    assert_eq!(st.max_req_wait, 1);
    assert!(st.req_conflicts[0] >= 20);
    for s in 0..2 {
        assert_eq!(st.sm_req[s].stalls, d.stalls[0][s]);
        assert!(
            st.sm_req[s].stalls >= 8,
            "the SM sees its queue full half the time"
        );
    }
}

#[test]
fn the_pointer_moves_past_the_winner() {
    let g = geo(4, 1, 16);
    let mut d = Driver::new(g);
    // Only SM 2 asks: granted in cycle 1, the pointer moves to 3.
    d.to_send[2].push_back(req(&g, 2, 0, 5, false));
    d.run(3);
    assert_eq!(d.x.req_pointer(0), 3);
    // Now SMs 0, 1 and 3 ask in the same cycle: 3 first (the pointer), then 0, then 1.
    for s in [0, 1, 3] {
        d.to_send[s].push_back(req(&g, s, 1, 6, false));
    }
    d.run(6);
    let order: Vec<usize> = d.req_grants.iter().map(|x| x.2).collect();
    assert_eq!(order, vec![2, 3, 0, 1]);
    assert_eq!(d.x.req_pointer(0), 2);
    // A pointer that does not move without a grant: SM 1 alone holds... none pending now.
    assert!(d.x.is_idle());
    // Same rule on the response side: partitions 2 then 0, 1, 3.
    let g = geo(1, 4, 16);
    let mut d = Driver::new(g);
    d.to_return[2].push_back(resp(&g, 2, 0, 0, false));
    d.run(3);
    assert_eq!(d.x.resp_pointer(0), 3);
    for p in [0, 1, 3] {
        d.to_return[p].push_back(resp(&g, p, 0, 1, false));
    }
    d.run(6);
    let order: Vec<usize> = d.resp_grants.iter().map(|x| x.2).collect();
    assert_eq!(order, vec![2, 3, 0, 1]);
}

#[test]
fn round_robin_function() {
    let want = |set: &'static [usize]| move |i: usize| set.contains(&i);
    assert_eq!(round_robin(4, 0, want(&[1, 3])), Some(1));
    assert_eq!(round_robin(4, 2, want(&[1, 3])), Some(3));
    assert_eq!(round_robin(4, 3, want(&[1, 3])), Some(3));
    assert_eq!(round_robin(4, 0, want(&[])), None);
    assert_eq!(round_robin(5, 4, want(&[0, 2])), Some(0));
    assert_eq!(round_robin(1, 0, want(&[0])), Some(0));
}

/// All SMs send to one partition all the time: each is granted exactly once in every `S`
/// consecutive grants, no head waits more than `S − 1` cycles, and a request reaches the
/// partition at most `2·S + 1` cycles after its acceptance.
#[test]
fn full_contention_serves_every_sm_once_per_s_cycles() {
    for g in [geo(3, 2, 32), geo(4, 4, 128), geo(8, 1, 16), geo(64, 2, 4)] {
        let n_each = 6;
        let target = g.partitions - 1;
        let mut d = Driver::new(g);
        for s in 0..g.sms {
            for n in 0..n_each {
                let line = line_in(&g, target, 0x100 * (s * n_each + n) as u32);
                d.to_send[s].push_back(req(&g, s, n, line, false));
            }
        }
        let total = g.sms * n_each;
        d.run(total + 4);
        let grants: Vec<(usize, usize)> = d.req_grants.iter().map(|&(c, _, s)| (c, s)).collect();
        assert_eq!(grants.len(), total, "{g:?}");
        // One grant per cycle from cycle 1, SMs in cyclic order 0, 1, …, S−1, 0, …
        for (k, &(c, s)) in grants.iter().enumerate() {
            assert_eq!((c, s), (k + 1, k % g.sms), "{g:?} grant {k}");
        }
        let st = d.x.stats();
        assert_eq!(st.max_req_wait, g.sms as u64 - 1, "{g:?}");
        for s in 0..g.sms {
            for (n, &(acc, _)) in d.accepted[s].iter().enumerate() {
                let (got, r) = d.delivered[target]
                    .iter()
                    .find(|x| x.1.sm == s && x.1.req.id == n as u16)
                    .unwrap();
                assert_eq!(r.sm, s);
                assert!(
                    *got <= acc + 2 * g.sms + 1,
                    "{g:?} SM {s} request {n}: {acc} → {got}"
                );
            }
        }
    }
}

// ---- back-pressure ----

#[test]
fn back_pressure_holds_the_request_and_fills_the_queues() {
    let g = geo(2, 1, 16);
    let mut d = Driver::new(g);
    for s in 0..2 {
        for n in 0..5 {
            d.to_send[s].push_back(req(&g, s, n, 10 * n as u32 + s as u32, true));
        }
    }
    // The partition refuses in cycles 0 … 7.
    for _ in 0..8 {
        d.cycle_with(&|_| true, &|_| true, &|_| false, &|_| true);
    }
    // OR holds SM 0's first request from cycle 2 on (the driver checks it unchanged); each SM
    // queue holds two more: SM 0 accepted 0, 1, 2, SM 1 accepted 0, 1; then ready low.
    let first = d.outs[2].part_req[0].clone().unwrap();
    assert_eq!((first.sm, first.req.id), (0, 0));
    for c in 2..8 {
        assert_eq!(d.outs[c].part_req[0].as_ref(), Some(&first));
    }
    let acc: Vec<Vec<usize>> = d
        .accepted
        .iter()
        .map(|a| a.iter().map(|x| x.0).collect())
        .collect();
    assert_eq!(acc, vec![vec![0, 1, 2], vec![0, 1]]);
    assert_eq!(d.outs[7].sm_req_ready, vec![false, false]);
    assert_eq!((d.x.req_queue_len(0), d.x.req_queue_len(1)), (2, 2));
    assert_eq!(d.x.stats().part_req[0].stalls, 6);
    assert_eq!(d.x.stats().sm_req[0].stalls, 5);
    assert_eq!(d.x.stats().sm_req[1].stalls, 6);
    // Released: everything arrives, once, each SM in its order, alternating from SM 1 (the
    // pointer moved past SM 0 at the first grant).
    while d.pending() {
        d.cycle();
    }
    let got: Vec<(usize, u16)> = d.delivered[0]
        .iter()
        .map(|x| (x.1.sm, x.1.req.id))
        .collect();
    assert_eq!(got[0], (0, 0));
    assert_eq!(got[1], (1, 0));
    assert_eq!(got[2], (0, 1));
    for s in 0..2 {
        let ids: Vec<u16> = got.iter().filter(|x| x.0 == s).map(|x| x.1).collect();
        assert_eq!(ids, vec![0, 1, 2, 3, 4]);
    }
    assert_eq!(d.delivered[0][0].0, 8, "taken in the first ready cycle");
}

#[test]
fn response_back_pressure_holds_the_response() {
    let g = geo(2, 2, 16);
    let mut d = Driver::new(g);
    for p in 0..2 {
        for n in 0..4 {
            d.to_return[p].push_back(resp(&g, p, 1, n, n == 2));
        }
    }
    for _ in 0..6 {
        d.cycle_with(&|_| true, &|_| true, &|_| true, &|s| s != 1);
    }
    let first = d.outs[2].sm_resp[1].clone().unwrap();
    assert_eq!(d.outs[2].resp_gnt[1], Some(0));
    for c in 2..6 {
        assert_eq!(d.outs[c].sm_resp[1].as_ref(), Some(&first));
        assert!(
            c == 2 || d.outs[c].resp_gnt[1].is_none(),
            "no new grant while held"
        );
    }
    // Each partition's queue took two, then part_resp_ready fell.
    assert_eq!(d.resp_accepted[0].len(), 3, "one left for RO, two queued");
    assert_eq!(d.resp_accepted[1].len(), 2);
    assert_eq!(d.outs[5].part_resp_ready, vec![false, false]);
    while d.pending() {
        d.cycle();
    }
    // Partitions alternate for SM 1: 0, 1, 0, 1, …; each partition's responses in order.
    let got: Vec<u16> = d.resp_delivered[1].iter().map(|x| x.1.id).collect();
    assert_eq!(got, vec![0, 0, 1, 1, 2, 2, 3, 3]);
    let from: Vec<usize> = d.resp_grants.iter().map(|x| x.2).collect();
    assert_eq!(from, vec![0, 1, 0, 1, 0, 1, 0, 1]);
    assert_eq!(d.x.stats().sm_resp[1].stalls, 4);
    assert!(d.resp_delivered[0].is_empty());
}

#[test]
fn a_blocked_head_blocks_its_sm_only() {
    // SM 0: first to partition 0 (which refuses), then to partition 1. SM 1: to partition 1.
    let g = geo(2, 2, 16);
    let mut d = Driver::new(g);
    d.to_send[0].push_back(req(&g, 0, 0, 0, false));
    d.to_send[0].push_back(req(&g, 0, 1, 2, false));
    d.to_send[0].push_back(req(&g, 0, 2, 1, false));
    d.to_send[1].push_back(req(&g, 1, 0, 3, false));
    for _ in 0..10 {
        d.cycle_with(&|_| true, &|_| true, &|p| p != 0, &|_| true);
    }
    // SM 0's first request waits in OR[0]; its second (to partition 0 too) waits at the head
    // of its queue, so its third (to partition 1) cannot pass it; SM 1 is not held up.
    assert_eq!(d.delivered[1].len(), 1);
    assert_eq!((d.delivered[1][0].0, d.delivered[1][0].1.sm), (2, 1));
    assert_eq!(d.x.req_queue_len(0), 2);
    while d.pending() {
        d.cycle();
    }
    let got: Vec<(usize, u16)> = d.delivered[1]
        .iter()
        .map(|x| (x.1.sm, x.1.req.id))
        .collect();
    assert_eq!(got, vec![(1, 0), (0, 2)]);
    assert_eq!(
        d.delivered[0]
            .iter()
            .map(|x| x.1.req.id)
            .collect::<Vec<_>>(),
        vec![0, 1]
    );
}

// ---- reset, dropped responses, registers ----

#[test]
fn reset_empties_every_register_and_pointer() {
    let g = geo(3, 2, 32);
    let mut d = Driver::new(g);
    for s in 0..3 {
        for n in 0..4 {
            d.to_send[s].push_back(req(&g, s, n, n as u32, false));
        }
    }
    for p in 0..2 {
        for n in 0..4 {
            d.to_return[p].push_back(resp(&g, p, n % 3, n, false));
        }
    }
    for _ in 0..4 {
        d.cycle_with(&|_| true, &|_| true, &|_| false, &|_| false);
    }
    assert!(!d.x.is_idle());
    let before = d.x.stats().clone();
    let inp = CrossbarInputs {
        reset: true,
        sm_req: vec![Some(req(&g, 0, 9, 0, true)); 3],
        part_resp: vec![Some(resp(&g, 0, 0, 9, false)); 2],
        ..CrossbarInputs::idle(&g)
    };
    let out = d.x.step(&inp);
    assert_eq!(out.sm_req_ready, vec![false; 3]);
    assert_eq!(out.part_resp_ready, vec![false; 2]);
    assert!(out.part_req.iter().all(Option::is_none));
    assert!(out.sm_resp.iter().all(Option::is_none));
    assert!(!out.req_gnt.iter().any(|&x| x) && out.resp_gnt.iter().all(Option::is_none));
    assert!(d.x.is_idle());
    assert_eq!(
        d.x.stats(),
        &before,
        "a reset cycle counts nothing, clears nothing"
    );
    for p in 0..2 {
        assert_eq!(d.x.req_pointer(p), 0);
    }
    for s in 0..3 {
        assert_eq!(d.x.resp_pointer(s), 0);
    }
    // As from new: a lone request takes two cycles again.
    let mut fresh = Driver {
        x: d.x.clone(),
        ..Driver::new(g)
    };
    fresh.to_send[2].push_back(req(&g, 2, 0, 1, false));
    fresh.run(3);
    assert_eq!(fresh.delivered[1][0].0, 2);
}

#[test]
fn a_response_for_no_sm_is_dropped() {
    let g = geo(3, 1, 16); // SW = 2: index 3 exists on the port but names no SM.
    assert_eq!(g.sm_bits(), 2);
    let mut d = Driver::new(g);
    d.to_return[0].push_back(resp(&g, 0, 3, 0, false));
    d.to_return[0].push_back(resp(&g, 0, 2, 1, false));
    d.run(5);
    // The bad response is at the head in cycle 1 and removed at its edge; the good one is at
    // the head in cycle 2 and shown in 3.
    assert_eq!(d.x.stats().dropped, vec![1]);
    assert_eq!(d.resp_delivered[2].len(), 1);
    assert_eq!(
        (d.resp_delivered[2][0].0, d.resp_delivered[2][0].1.id),
        (3, 1)
    );
    assert!(d.resp_delivered[0].is_empty() && d.resp_delivered[1].is_empty());
    // Bits above SW do not exist: SM index 5 on a 2-bit field is SM 1.
    let mut d = Driver::new(g);
    d.to_return[0].push_back(resp(&g, 0, 5, 4, false));
    d.run(3);
    assert_eq!(d.resp_delivered[1].len(), 1);
}

#[test]
fn outputs_depend_only_on_the_registers() {
    // From any reachable state, two different input sets give the same outputs.
    let mut rng = ChaCha8Rng::seed_from_u64(0x0DE9);
    for g in shapes() {
        let mut x = Crossbar::with_geometry(g);
        for _ in 0..60 {
            let a = random_inputs(&mut rng, &g, 0.7, 0.5, 0.6);
            let b = random_inputs(&mut rng, &g, 0.7, 0.5, 0.6);
            let out_a = x.clone().step(&a);
            let out_b = x.clone().step(&b);
            assert_eq!(out_a, out_b, "{g:?}");
            x.step(&a);
        }
    }
}

#[test]
fn payload_registers_of_the_presets() {
    let bits: Vec<(u32, u32, u64)> = presets()
        .iter()
        .map(|g| (g.request_bits(), g.response_bits(), g.payload_bits()))
        .collect();
    assert_eq!(
        bits,
        vec![(189, 145, 1_005), (332, 273, 3_636), (1_194, 1_041, 26_844)]
    );
    assert_eq!(geo(64, 64, 4).sm_bits(), 6);
    assert_eq!(geo(1, 1, 4).sm_bits(), 1);
    assert_eq!(geo(2, 1, 4).sm_bits(), 1);
    assert_eq!(geo(3, 1, 4).sm_bits(), 2);
    assert_eq!(geo(1, 1, 4).partition_index_bits(), 1);
    assert_eq!(geo(1, 64, 4).partition_index_bits(), 6);
}

// ---- seeded random properties ----

fn random_inputs(
    rng: &mut ChaCha8Rng,
    g: &XbarGeometry,
    p_valid: f64,
    p_ready: f64,
    p_resp: f64,
) -> CrossbarInputs {
    CrossbarInputs {
        reset: false,
        sm_req: (0..g.sms)
            .map(|s| {
                rng.gen_bool(p_valid).then(|| {
                    req(
                        g,
                        s,
                        rng.gen_range(0..100),
                        rng.gen_range(0..256),
                        rng.gen(),
                    )
                })
            })
            .collect(),
        sm_resp_ready: (0..g.sms).map(|_| rng.gen_bool(p_ready)).collect(),
        part_req_ready: (0..g.partitions).map(|_| rng.gen_bool(p_ready)).collect(),
        part_resp: (0..g.partitions)
            .map(|p| {
                rng.gen_bool(p_resp).then(|| {
                    resp(
                        g,
                        p,
                        rng.gen_range(0..g.sms),
                        rng.gen_range(0..100),
                        rng.gen(),
                    )
                })
            })
            .collect(),
    }
}

/// Every request and response delivered exactly once, unchanged, at the right port; per-SM
/// (per-partition) order kept; the wait bound: while a head waits, its arbiter grants others
/// at most `S − 1` (`P − 1`) times; the counters equal what the ports showed.
#[test]
fn random_traffic_keeps_every_rule() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5EED_0C0B);
    let mut cases: Vec<XbarGeometry> = shapes();
    for _ in 0..24 {
        let s = rng.gen_range(1..=9);
        let p = 1 << rng.gen_range(0..4);
        let b = 4 << rng.gen_range(0..4);
        cases.push(geo(s, p, b));
    }
    for (case, g) in cases.into_iter().enumerate() {
        let n_each = if g.sms * g.partitions > 256 { 20 } else { 60 };
        let mut d = Driver::new(g);
        // Requests: lines from a few hot partitions (contention) and anywhere.
        let hot = rng.gen_range(0..g.partitions);
        for s in 0..g.sms {
            for n in 0..n_each {
                let line = if rng.gen_bool(0.5) {
                    line_in(&g, hot, rng.gen_range(0..1 << 20))
                } else {
                    rng.gen::<u32>() & g.line_mask()
                };
                d.to_send[s].push_back(req(&g, s, n, line, rng.gen()));
            }
        }
        // Responses: numbered per (partition, SM) to check order.
        let mut count = vec![vec![0usize; g.sms]; g.partitions];
        for p in 0..g.partitions {
            for _ in 0..n_each {
                let sm = if rng.gen_bool(0.5) {
                    0
                } else {
                    rng.gen_range(0..g.sms)
                };
                let n = count[p][sm];
                count[p][sm] += 1;
                d.to_return[p].push_back(resp(&g, p, sm, n, rng.gen()));
            }
        }
        let sent: Vec<Vec<LineReq>> = d
            .to_send
            .iter()
            .map(|q| q.iter().cloned().collect())
            .collect();
        let returned: Vec<Vec<PartResp>> = d
            .to_return
            .iter()
            .map(|q| q.iter().cloned().collect())
            .collect();
        let p_valid = [0.4, 0.9, 1.0][case % 3];
        let p_ready = [0.3, 0.7, 1.0][case % 3];
        let mut guard = 0;
        while d.pending() {
            let vs: Vec<bool> = (0..g.sms).map(|_| rng.gen_bool(p_valid)).collect();
            let vp: Vec<bool> = (0..g.partitions).map(|_| rng.gen_bool(p_valid)).collect();
            let rp: Vec<bool> = (0..g.partitions).map(|_| rng.gen_bool(p_ready)).collect();
            let rs: Vec<bool> = (0..g.sms).map(|_| rng.gen_bool(p_ready)).collect();
            d.cycle_with(&|s| vs[s], &|p| vp[p], &|p| rp[p], &|s| rs[s]);
            guard += 1;
            assert!(guard < 200_000, "case {case}: no progress");
        }
        d.cycle(); // the last grant flags show one cycle late

        // Requests: exactly once, unchanged, at partition line mod P, per-SM order kept.
        for s in 0..g.sms {
            let mut got: Vec<(usize, usize, LineReq)> = Vec::new();
            for (p, list) in d.delivered.iter().enumerate() {
                for (c, r) in list.iter().filter(|x| x.1.sm == s) {
                    assert_eq!(p, g.partition_of(r.req.line), "case {case}");
                    got.push((*c, p, r.req.clone()));
                }
            }
            got.sort_by_key(|x| x.0);
            let want: Vec<LineReq> = sent[s].iter().map(|r| r.normalized(&g)).collect();
            assert_eq!(got.len(), want.len(), "case {case} SM {s}");
            // Delivery order may differ between partitions, never within one.
            for p in 0..g.partitions {
                let a: Vec<&LineReq> = got.iter().filter(|x| x.1 == p).map(|x| &x.2).collect();
                let b: Vec<&LineReq> = want
                    .iter()
                    .filter(|r| g.partition_of(r.line) == p)
                    .collect();
                assert_eq!(a, b, "case {case} SM {s} partition {p}");
            }
            // Grants of SM s come in its acceptance order.
            let granted: Vec<usize> = d
                .req_grants
                .iter()
                .filter(|x| x.2 == s)
                .map(|x| x.0)
                .collect();
            assert_eq!(granted.len(), want.len());
            // The wait bound: while request i is the head (from the cycle after its acceptance
            // and after the previous grant), its partition grants others at most S − 1 times.
            for (i, &gc) in granted.iter().enumerate() {
                let acc = d.accepted[s][i].0;
                let from = (acc + 1).max(if i > 0 { granted[i - 1] + 1 } else { 0 });
                assert!(gc >= from, "case {case}: granted before it was the head");
                let p = g.partition_of(d.accepted[s][i].1.line);
                let others = d
                    .req_grants
                    .iter()
                    .filter(|&&(c, q, w)| q == p && w != s && (from..gc).contains(&c))
                    .count();
                assert!(others < g.sms, "case {case}: SM {s} waited {others} grants");
            }
        }
        // Responses: exactly once, at their SM, each partition's order kept, same wait bound.
        for s in 0..g.sms {
            let got = &d.resp_delivered[s];
            // RO is one register: SM s's k-th grant is its k-th delivered response.
            let sources: Vec<usize> = d
                .resp_grants
                .iter()
                .filter(|x| x.1 == s)
                .map(|x| x.2)
                .collect();
            assert_eq!(sources.len(), got.len(), "case {case}");
            for p in 0..g.partitions {
                let from_p: Vec<LineResp> = sources
                    .iter()
                    .zip(got.iter())
                    .filter(|(q, _)| **q == p)
                    .map(|(_, r)| r.1.clone())
                    .collect();
                let want: Vec<LineResp> = returned[p]
                    .iter()
                    .filter(|r| r.sm == s)
                    .map(|r| r.resp.normalized(&g))
                    .collect();
                assert_eq!(from_p, want, "case {case}: SM {s} from partition {p}");
            }
        }
        for p in 0..g.partitions {
            let granted: Vec<(usize, usize)> = d
                .resp_grants
                .iter()
                .filter(|x| x.2 == p)
                .map(|x| (x.0, x.1))
                .collect();
            assert_eq!(granted.len(), returned[p].len());
            for (i, &(gc, s)) in granted.iter().enumerate() {
                let acc = d.resp_accepted[p][i].0;
                assert_eq!(
                    d.resp_accepted[p][i].1.sm, s,
                    "case {case}: in order per partition"
                );
                let from = (acc + 1).max(if i > 0 { granted[i - 1].0 + 1 } else { 0 });
                let others = d
                    .resp_grants
                    .iter()
                    .filter(|&&(c, w, q)| w == s && q != p && (from..gc).contains(&c))
                    .count();
                assert!(
                    others < g.partitions,
                    "case {case}: partition {p} waited {others}"
                );
            }
        }
        // Counters = what the ports showed.
        let st = d.x.stats();
        for s in 0..g.sms {
            assert_eq!(st.sm_req[s].transfers, sent[s].len() as u64);
            assert_eq!(st.sm_req[s].grants, sent[s].len() as u64);
            assert_eq!(st.sm_req[s].stalls, d.stalls[0][s], "case {case}");
            assert_eq!(st.sm_resp[s].transfers, d.resp_delivered[s].len() as u64);
            assert_eq!(st.sm_resp[s].grants, d.resp_delivered[s].len() as u64);
            assert_eq!(st.sm_resp[s].stalls, d.stalls[3][s]);
        }
        for p in 0..g.partitions {
            assert_eq!(st.part_req[p].transfers, d.delivered[p].len() as u64);
            assert_eq!(st.part_req[p].grants, d.delivered[p].len() as u64);
            assert_eq!(st.part_req[p].stalls, d.stalls[1][p]);
            assert_eq!(st.part_resp[p].transfers, returned[p].len() as u64);
            assert_eq!(st.part_resp[p].grants, returned[p].len() as u64);
            assert_eq!(st.part_resp[p].stalls, d.stalls[2][p]);
        }
        assert!(st.dropped.iter().all(|&x| x == 0));
        if p_ready == 1.0 {
            // Every consumer always ready: the wait bounds hold in cycles.
            assert!(st.max_req_wait < g.sms as u64, "case {case}");
            assert!(st.max_resp_wait < g.partitions as u64, "case {case}");
        }
    }
}
