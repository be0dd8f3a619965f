//! Tests of the L1 reference: the page's directed scenarios with exact cycles and responses
//! (hit latency; miss → wait → fill → filled → waiter replay → entry freed; two misses to one
//! line; a set with every way pending; a full PRT while hits go on; stores hit, miss and to a
//! pending line; a full memory queue; locked lines and the round-robin victim; the fill
//! register's slot; reset), the state widths of the presets, and a seeded random test of a
//! single requester against a flat memory with the page's invariants checked every cycle.

use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, HashMap};

fn tiny() -> L1Geometry {
    L1Geometry::new(&GpuConfig::tiny())
}

fn small() -> L1Geometry {
    L1Geometry::new(&GpuConfig::small())
}

/// `B` distinct bytes for `line` (`salt` makes another version).
fn pattern(g: &L1Geometry, line: u32, salt: u8) -> Vec<u8> {
    (0..g.line_bytes)
        .map(|k| {
            (line as u8)
                .wrapping_mul(31)
                .wrapping_add(k as u8)
                .wrapping_add(salt)
        })
        .collect()
}

/// A byte mask of `B` bits with the given bytes set.
fn mask(g: &L1Geometry, bytes: &[usize]) -> Vec<bool> {
    (0..g.line_bytes as usize)
        .map(|k| bytes.contains(&k))
        .collect()
}

/// The L1 with a cycle counter; every step checks the invariants.
struct Bench {
    l1: L1Cache,
    /// The number of the next cycle (0 = the first cycle after the initial reset).
    now: u64,
    /// `mem_req_ready` of the following steps.
    ready: bool,
}

impl Bench {
    fn new(g: L1Geometry) -> Self {
        let mut l1 = L1Cache::with_geometry(g);
        let out = l1.step(&L1Inputs {
            reset: true,
            ..Default::default()
        });
        assert_eq!(out, L1Outputs::default(), "a reset cycle shows nothing");
        Bench {
            l1,
            now: 0,
            ready: true,
        }
    }

    fn g(&self) -> L1Geometry {
        *self.l1.geometry()
    }

    fn step(&mut self, req: Option<L1Request>, fill: Option<Fill>) -> L1Outputs {
        let out = self.l1.step(&L1Inputs {
            reset: false,
            req,
            mem_req_ready: self.ready,
            fill,
        });
        if let Err(e) = self.l1.check_invariants() {
            panic!("cycle {}: {e}", self.now);
        }
        self.now += 1;
        out
    }

    fn req(&mut self, r: L1Request) -> L1Outputs {
        let out = self.step(Some(r), None);
        assert!(
            out.req_ready,
            "cycle {}: the request is accepted",
            self.now - 1
        );
        out
    }

    fn fill(&mut self, entry: usize, data: Vec<u8>) -> L1Outputs {
        self.step(None, Some(Fill { entry, data }))
    }

    fn idle(&mut self) -> L1Outputs {
        self.step(None, None)
    }

    /// Idle cycles until (and including) the one that shows a response; returns its cycle.
    fn until_resp(&mut self) -> (u64, L1Response) {
        for _ in 0..10 {
            let out = self.idle();
            if let Some(r) = out.resp {
                return (self.now - 1, r);
            }
        }
        panic!("no response");
    }

    /// Makes `line` resident with `data` (miss, fill, waiter replay) and returns the entry it
    /// used. Leaves the L1 with no slot in flight.
    fn make_resident(&mut self, line: u32, data: Vec<u8>) -> usize {
        self.req(L1Request::load(0x700, line));
        let (_, r) = self.until_resp();
        let RespKind::Wait(k) = r.kind else {
            panic!("line {line:#x} missed: {r:?}");
        };
        assert!(r.alloc);
        self.fill(k, data.clone());
        let (_, r) = self.until_resp();
        assert_eq!(r.kind, RespKind::Filled(k));
        self.req(L1Request::waiter(0x701, line, k));
        let (_, r) = self.until_resp();
        assert_eq!(r.kind, RespKind::Hit);
        assert_eq!(r.data, Some(data));
        assert_eq!(self.l1.entry(k).state, EntryState::Free);
        k
    }
}

fn wait(id: u16, k: usize, alloc: bool) -> L1Response {
    L1Response {
        id,
        kind: RespKind::Wait(k),
        data: None,
        hit: false,
        alloc,
    }
}

fn retry(id: u16, cause: RetryCause) -> L1Response {
    L1Response {
        id,
        kind: RespKind::Retry(cause),
        data: None,
        hit: false,
        alloc: false,
    }
}

fn hit(id: u16, data: Vec<u8>) -> L1Response {
    L1Response {
        id,
        kind: RespKind::Hit,
        data: Some(data),
        hit: true,
        alloc: false,
    }
}

fn done(id: u16, was_hit: bool) -> L1Response {
    L1Response {
        id,
        kind: RespKind::Done,
        data: None,
        hit: was_hit,
        alloc: false,
    }
}

fn filled(k: usize) -> L1Response {
    L1Response {
        id: 0,
        kind: RespKind::Filled(k),
        data: None,
        hit: false,
        alloc: false,
    }
}

fn read(g: &L1Geometry, line: u32, k: usize) -> LineReq {
    LineReq {
        write: false,
        line,
        mask: vec![true; g.line_bytes as usize],
        data: vec![0; g.line_bytes as usize],
        id: k as u16,
    }
}

#[test]
fn preset_widths_and_state_bits() {
    // (geometry, LW, TW, EW, RW, tag RAM, data RAM, flip-flops) — the page's "State" table.
    let cases = [
        (tiny(), 28, 25, 2, 189, 400, 2_048, 1_295),
        (small(), 27, 22, 3, 332, 2_816, 32_768, 2_465),
        (
            L1Geometry::new(&GpuConfig::fermi()),
            25,
            20,
            5,
            1_194,
            2_560,
            131_072,
            8_421,
        ),
    ];
    for (g, lw, tw, ew, rw, tag, data, flops) in cases {
        assert_eq!(g.line_bits(), lw, "{g:?}");
        assert_eq!(g.tag_bits(), tw, "{g:?}");
        assert_eq!(g.entry_bits(), ew, "{g:?}");
        assert_eq!(g.mem_request_bits(), rw, "{g:?}");
        assert_eq!(g.tag_ram_bits(), tag, "{g:?}");
        assert_eq!(g.data_ram_bits(), data, "{g:?}");
        assert_eq!(g.flops().total(), flops, "{g:?}: {:?}", g.flops());
    }
    let t = tiny().flops();
    assert_eq!(
        (t.valid, t.rr, t.prt, t.memq, t.fill_reg, t.stage_t, t.resp),
        (16, 8, 156, 763, 131, 194, 27)
    );
    // Degenerate sizes: one way (no pointer), one entry, a non-power-of-two PRT.
    let g = L1Geometry::with(1, 1, 4, 1);
    assert_eq!((g.rr_bits(), g.way_bits(), g.entry_bits()), (0, 1, 1));
    assert_eq!((g.set_bits(), g.tag_bits()), (0, 30));
    assert_eq!(L1Geometry::with(4, 2, 32, 6).entry_bits(), 3);
    assert_eq!(L1Geometry::with(4, 2, 32, 256).entry_bits(), 8);
    // Set and tag split a line number.
    let g = tiny();
    assert_eq!(
        (g.set_of(0x0234_567B), g.tag_of(0x0234_567B)),
        (3, 0x0234_567B >> 3)
    );
    assert_eq!(
        g.tag_of(0xFFFF_FFFF),
        (1 << 25) - 1,
        "only the LW bits count"
    );
}

#[test]
fn miss_wait_fill_filled_replay_hit_frees_entry() {
    let mut b = Bench::new(tiny());
    let g = b.g();
    let x = 0x10; // set 0
    let d = pattern(&g, x, 0);

    // t0: a load miss is accepted; nothing shows in t1; wait(0) in t2, the read in MQ from t2.
    let out = b.req(L1Request::load(1, x));
    assert!(out.resp.is_none() && out.mem_req.is_none());
    let out = b.idle();
    assert!(out.resp.is_none() && out.mem_req.is_none() && out.req_ready);
    let out = b.idle();
    assert_eq!(out.resp, Some(wait(1, 0, true)));
    assert_eq!(out.mem_req, Some(read(&g, x, 0)), "taken in t2");
    let e = b.l1.entry(0);
    assert_eq!(
        (e.state, e.line, e.way, e.waiters),
        (EntryState::Pending, x, 0, 1)
    );
    assert!(!b.l1.is_valid(0, 0));
    let out = b.idle(); // t3
    assert!(out.resp.is_none() && out.mem_req.is_none());
    assert_eq!(b.l1.memq_len(), 0);
    b.idle(); // t4

    // t5: the fill arrives; t6: the fill register takes the slot (req_ready low, a request
    // offered in t6 is not accepted); t7: the fill is in T; t8: filled(0).
    let out = b.fill(0, d.clone());
    assert!(out.req_ready);
    assert!(b.l1.fill_register_valid());
    let out = b.step(Some(L1Request::load(9, 0x33)), None); // t6
    assert!(!out.req_ready, "the fill register holds the slot");
    let out = b.idle(); // t7
    assert!(out.req_ready && out.resp.is_none());
    assert_eq!(b.l1.entry(0).state, EntryState::Filled);
    assert_eq!(b.l1.resident_line(0, 0), Some(x));
    let out = b.step(Some(L1Request::waiter(1, x, 0)), None); // t8: replay at once
    assert_eq!(
        out.resp,
        Some(filled(0)),
        "the request offered in t6 got no answer in t8"
    );
    assert!(out.req_ready);
    let out = b.idle(); // t9: the waiter is in T
    assert!(out.resp.is_none());
    assert_eq!(
        b.l1.entry(0).state,
        EntryState::Free,
        "freed at the edge of t9"
    );
    let out = b.idle(); // t10
    assert_eq!(out.resp, Some(hit(1, d.clone())));

    // Hit latency: a load accepted in t11 is answered in t13.
    assert_eq!(b.now, 11);
    b.req(L1Request::load(2, x));
    assert!(b.idle().resp.is_none());
    assert_eq!(b.idle().resp, Some(hit(2, d.clone())));
    // Back to back: hits in consecutive cycles, each two cycles after its acceptance.
    let mut shown = Vec::new();
    for i in 0..4u16 {
        shown.push(b.req(L1Request::load(10 + i, x)).resp);
    }
    shown.push(b.idle().resp);
    shown.push(b.idle().resp);
    assert_eq!(&shown[..2], &[None, None]);
    for i in 0..4u16 {
        assert_eq!(shown[2 + i as usize], Some(hit(10 + i, d.clone())));
    }

    let st = b.l1.stats();
    assert_eq!(
        (
            st.requests,
            st.load_hits,
            st.waiter_hits,
            st.misses,
            st.fills,
            st.frees
        ),
        (7, 6, 1, 1, 1, 1)
    );
    assert_eq!(st.mem_sent, 1);
    assert!(b.l1.is_idle());
}

#[test]
fn two_misses_to_one_line_merge_into_one_memory_request() {
    let mut b = Bench::new(tiny());
    let g = b.g();
    let x = 0x2A; // set 2
    let d = pattern(&g, x, 5);
    b.req(L1Request::load(1, x)); // t0
    b.req(L1Request::load(2, x)); // t1
    let out = b.idle(); // t2
    assert_eq!(out.resp, Some(wait(1, 0, true)));
    assert_eq!(out.mem_req, Some(read(&g, x, 0)));
    let out = b.fill(0, d.clone()); // t3: the merge answers, no second read
    assert_eq!(out.resp, Some(wait(2, 0, false)));
    assert!(out.mem_req.is_none());
    assert_eq!(b.l1.entry(0).waiters, 2);
    b.idle(); // t4 FR
    b.idle(); // t5 T
    let out = b.req(L1Request::waiter(1, x, 0)); // t6
    assert_eq!(out.resp, Some(filled(0)));
    let out = b.req(L1Request::waiter(2, x, 0)); // t7
    assert!(out.resp.is_none());
    let e = b.l1.entry(0);
    assert_eq!(
        (e.state, e.waiters),
        (EntryState::Filled, 1),
        "one waiter left"
    );
    let out = b.idle(); // t8
    assert_eq!(out.resp, Some(hit(1, d.clone())));
    assert_eq!(b.l1.entry(0).state, EntryState::Free);
    let out = b.idle(); // t9
    assert_eq!(out.resp, Some(hit(2, d.clone())));
    let st = b.l1.stats();
    assert_eq!(
        (st.misses, st.merges, st.waiter_hits, st.frees),
        (1, 1, 2, 1)
    );
    assert_eq!(st.mem_sent, 1, "one memory request for two misses");
}

#[test]
fn set_with_every_way_pending_retries_while_another_set_allocates() {
    let mut b = Bench::new(tiny());
    let g = b.g();
    // Set 0 has two ways: lines 0x00 and 0x08 take them; 0x10 (set 0) retries; 0x01 (set 1)
    // allocates.
    b.req(L1Request::load(1, 0x00)); // t0
    b.req(L1Request::load(2, 0x08)); // t1
    let o2 = b.req(L1Request::load(3, 0x10)); // t2
    let o3 = b.req(L1Request::load(4, 0x01)); // t3
    let o4 = b.idle();
    let o5 = b.idle();
    assert_eq!(o2.resp, Some(wait(1, 0, true)));
    assert_eq!(o3.resp, Some(wait(2, 1, true)));
    assert_eq!(o4.resp, Some(retry(3, RetryCause::SetPending)));
    assert_eq!(o5.resp, Some(wait(4, 2, true)));
    assert_eq!(o2.mem_req, Some(read(&g, 0x00, 0)));
    assert_eq!(o3.mem_req, Some(read(&g, 0x08, 1)));
    assert!(o4.mem_req.is_none());
    assert_eq!(o5.mem_req, Some(read(&g, 0x01, 2)));
    assert_eq!(
        (b.l1.entry(0).way, b.l1.entry(1).way, b.l1.entry(2).way),
        (0, 1, 0)
    );
    assert_eq!(
        b.l1.rr_pointer(0),
        0,
        "invalid ways are taken without moving the pointer"
    );

    // Fill entry 0: way 0 is locked now, way 1 still pending: 0x10 still retries.
    b.fill(0, pattern(&g, 0x00, 0));
    b.until_resp();
    b.req(L1Request::load(3, 0x10));
    assert_eq!(b.until_resp().1, retry(3, RetryCause::SetPending));
    // The waiter replays and frees entry 0: way 0 becomes the round-robin victim.
    b.req(L1Request::waiter(1, 0x00, 0));
    assert_eq!(b.until_resp().1.kind, RespKind::Hit);
    b.req(L1Request::load(3, 0x10));
    let (_, r) = b.until_resp();
    assert_eq!(r, wait(3, 0, true));
    assert_eq!(b.l1.entry(0).way, 0);
    assert_eq!(b.l1.rr_pointer(0), 1);
    assert_eq!(b.l1.way_of(0x00), None, "0x00 was evicted");
    assert_eq!(b.l1.stats().retries_of(RetryCause::SetPending), 2);
}

#[test]
fn full_prt_retries_while_hits_go_on() {
    let mut b = Bench::new(tiny());
    let g = b.g();
    let y = 0x07; // set 7
    let dy = pattern(&g, y, 9);
    b.make_resident(y, dy.clone());
    // Cycles 0–3 (relative): four misses to sets 0–3 take the four entries; then a miss
    // (retry), a hit, a miss (retry), a hit.
    let reqs = [
        L1Request::load(0, 0),
        L1Request::load(1, 1),
        L1Request::load(2, 2),
        L1Request::load(3, 3),
        L1Request::load(10, 0x04),
        L1Request::load(11, y),
        L1Request::load(12, 0x05),
        L1Request::load(13, y),
    ];
    let mut resp = BTreeMap::new();
    for (i, r) in reqs.iter().enumerate() {
        if let Some(x) = b.req(r.clone()).resp {
            resp.insert(i as u64, x);
        }
    }
    for i in 8..10 {
        if let Some(x) = b.idle().resp {
            resp.insert(i, x);
        }
    }
    let expect = [
        (2, wait(0, 0, true)),
        (3, wait(1, 1, true)),
        (4, wait(2, 2, true)),
        (5, wait(3, 3, true)),
        (6, retry(10, RetryCause::PrtFull)),
        (7, hit(11, dy.clone())),
        (8, retry(12, RetryCause::PrtFull)),
        (9, hit(13, dy.clone())),
    ];
    assert_eq!(resp, expect.into_iter().collect::<BTreeMap<_, _>>());
    assert_eq!(b.l1.entries_in_use(), 4);

    // Entry 2 is filled and its waiter replays: entry 2 is free, and 0x04 allocates it.
    b.fill(2, pattern(&g, 2, 0));
    assert_eq!(b.until_resp().1, filled(2));
    b.req(L1Request::waiter(2, 2, 2));
    b.req(L1Request::load(10, 0x04));
    assert_eq!(b.until_resp().1.kind, RespKind::Hit);
    assert_eq!(b.until_resp().1, wait(10, 2, true));
    let st = b.l1.stats();
    assert_eq!(st.retries_of(RetryCause::PrtFull), 2);
    assert_eq!(st.prt_max, 4);
}

#[test]
fn store_hit_updates_the_line_and_queues_a_write() {
    let mut b = Bench::new(tiny());
    let g = b.g();
    let x = 0x33;
    let d = pattern(&g, x, 1);
    b.make_resident(x, d.clone());
    let bytes = mask(&g, &[1, 2, 3, 9]);
    let sdata: Vec<u8> = (0..16).map(|k| 0xE0 + k as u8).collect();
    // t: store; t+1: load of the same line, answered with the stored bytes merged.
    b.req(L1Request::store(7, x, bytes.clone(), sdata.clone()));
    b.req(L1Request::load(8, x));
    let out = b.idle();
    assert_eq!(out.resp, Some(done(7, true)));
    assert_eq!(
        out.mem_req,
        Some(LineReq {
            write: true,
            line: x,
            mask: bytes.clone(),
            data: sdata.clone(),
            id: 7,
        }),
        "the write carries the store's id, mask and data"
    );
    let merged: Vec<u8> = (0..16)
        .map(|k| if bytes[k] { sdata[k] } else { d[k] })
        .collect();
    let out = b.idle();
    assert_eq!(out.resp, Some(hit(8, merged.clone())));
    let set = g.set_of(x);
    let w = b.l1.way_of(x).expect("still resident");
    assert_eq!(b.l1.line_data(set, w), &merged[..]);
    let st = b.l1.stats();
    assert_eq!((st.store_hits, st.store_misses), (1, 0));
}

#[test]
fn store_miss_queues_the_write_only_and_a_later_miss_reads_behind_it() {
    let mut b = Bench::new(tiny());
    let g = b.g();
    let z = 0x45;
    let bytes = mask(&g, &[0, 15]);
    let sdata = vec![0x5A; 16];
    b.ready = false;
    b.req(L1Request::store(3, z, bytes.clone(), sdata.clone())); // t0
    b.req(L1Request::load(4, z)); // t1
    let out = b.idle(); // t2
    assert_eq!(out.resp, Some(done(3, false)));
    let write = LineReq {
        write: true,
        line: z,
        mask: bytes.clone(),
        data: sdata.clone(),
        id: 3,
    };
    assert_eq!(out.mem_req, Some(write.clone()), "shown, not taken");
    assert_eq!(b.l1.way_of(z), None, "no write allocation");
    let out = b.idle(); // t3
    assert_eq!(out.resp, Some(wait(4, 0, true)));
    assert_eq!(b.l1.memq_len(), 2);
    // The queue keeps the order: the write first, then the read.
    b.ready = true;
    let out = b.idle();
    assert_eq!(out.mem_req, Some(write));
    let out = b.idle();
    assert_eq!(out.mem_req, Some(read(&g, z, 0)));
    assert!(b.idle().mem_req.is_none());
    assert_eq!(b.l1.stats().mem_stall_cycles, 2);
    assert_eq!((b.l1.stats().store_hits, b.l1.stats().store_misses), (0, 1));
}

#[test]
fn store_to_a_pending_line_retries_then_hits_the_filled_line() {
    let mut b = Bench::new(tiny());
    let g = b.g();
    let x = 0x21;
    let d = pattern(&g, x, 2);
    let bytes = mask(&g, &[4, 5]);
    let sdata = vec![0xC3; 16];
    b.req(L1Request::load(1, x)); // t0
    b.req(L1Request::store(2, x, bytes.clone(), sdata.clone())); // t1
    let out = b.idle(); // t2
    assert_eq!(out.resp, Some(wait(1, 0, true)));
    let out = b.idle(); // t3
    assert_eq!(out.resp, Some(retry(2, RetryCause::LinePending)));
    assert!(out.mem_req.is_none(), "nothing queued for the store");
    assert_eq!(b.l1.memq_len(), 0);
    // Fill; the store is re-sent: it hits the filled (locked) line; the waiter sees it.
    b.fill(0, d.clone());
    assert_eq!(b.until_resp().1, filled(0));
    b.req(L1Request::store(2, x, bytes.clone(), sdata.clone()));
    b.req(L1Request::waiter(1, x, 0));
    let out = b.idle();
    assert_eq!(out.resp, Some(done(2, true)));
    assert_eq!(
        out.mem_req.map(|m| (m.write, m.line, m.id)),
        Some((true, x, 2))
    );
    let merged: Vec<u8> = (0..16)
        .map(|k| if bytes[k] { 0xC3 } else { d[k] })
        .collect();
    assert_eq!(b.idle().resp, Some(hit(1, merged)));
    assert_eq!(b.l1.entry(0).state, EntryState::Free);
    assert_eq!(b.l1.stats().retries_of(RetryCause::LinePending), 1);
}

#[test]
fn full_memory_queue_retries_stores_and_misses_but_not_hits() {
    let mut b = Bench::new(tiny());
    let g = b.g();
    let y = 0x0F;
    let dy = pattern(&g, y, 3);
    b.make_resident(y, dy.clone());
    let full_before = b.l1.stats().memq_full_cycles;
    b.ready = false;
    let t = b.now;
    let st = |i: u32| L1Request::store(i as u16, 0x100 + i, mask(&g, &[0]), vec![i as u8; 16]);
    let mut outs = Vec::new();
    for i in 0..5 {
        outs.push(b.req(st(i))); // t … t+4: stores to lines not resident
    }
    outs.push(b.req(L1Request::load(20, 0x200))); // t+5: a miss that could allocate
    outs.push(b.req(L1Request::load(21, y))); // t+6: a hit
    outs.push(b.idle()); // t+7
    b.ready = true;
    outs.push(b.idle()); // t+8
    for _ in 0..5 {
        outs.push(b.idle()); // t+9 … t+13
    }
    let resp: Vec<Option<L1Response>> = outs.iter().map(|o| o.resp.clone()).collect();
    assert_eq!(resp[0], None);
    assert_eq!(resp[1], None);
    for i in 0..4 {
        assert_eq!(resp[2 + i], Some(done(i as u16, false)), "store {i}");
    }
    assert_eq!(resp[6], Some(retry(4, RetryCause::MemqFull)));
    assert_eq!(resp[7], Some(retry(20, RetryCause::MemqFull)));
    assert_eq!(resp[8], Some(hit(21, dy)));
    assert_eq!(
        b.l1.entries_in_use(),
        0,
        "the retried miss allocated nothing"
    );
    // The queue drains in order from t+8, one per cycle.
    let sent: Vec<(u64, u32)> = outs
        .iter()
        .enumerate()
        .filter(|(i, o)| *i >= 8 && o.mem_req.is_some())
        .map(|(i, o)| (t + i as u64, o.mem_req.as_ref().unwrap().line))
        .collect();
    assert_eq!(
        sent,
        vec![
            (t + 8, 0x100),
            (t + 9, 0x101),
            (t + 10, 0x102),
            (t + 11, 0x103)
        ]
    );
    // Full at the start of t+5 … t+8.
    assert_eq!(b.l1.stats().memq_full_cycles - full_before, 4);
    assert_eq!(b.l1.stats().retries_of(RetryCause::MemqFull), 2);
}

#[test]
fn a_locked_line_is_never_the_victim() {
    let mut b = Bench::new(tiny());
    let g = b.g();
    let (a, bb, c, d) = (0x00, 0x08, 0x10, 0x18); // all set 0
                                                  // A: missed and filled, its waiter not replayed: way 0 locked.
    b.req(L1Request::load(1, a));
    assert_eq!(b.until_resp().1, wait(1, 0, true));
    b.fill(0, pattern(&g, a, 0));
    assert_eq!(b.until_resp().1, filled(0));
    // B: takes way 1 (invalid), filled and replayed: resident, unlocked.
    b.make_resident(bb, pattern(&g, bb, 0));
    assert_eq!(b.l1.way_of(bb), Some(1));
    // C: no invalid way; round robin from 0 skips the locked way 0 and evicts B.
    b.req(L1Request::load(3, c));
    assert_eq!(b.until_resp().1, wait(3, 1, true));
    assert_eq!(b.l1.entry(1).way, 1);
    assert_eq!(b.l1.way_of(bb), None, "B evicted");
    assert_eq!(b.l1.way_of(a), Some(0), "A kept");
    assert_eq!(b.l1.rr_pointer(0), 0, "pointer = victim + 1 mod W");
    // D: way 0 locked, way 1 pending.
    b.req(L1Request::load(4, d));
    assert_eq!(b.until_resp().1, retry(4, RetryCause::SetPending));
    // A's waiter still hits (guaranteed), frees entry 0 and unlocks way 0.
    b.req(L1Request::waiter(1, a, 0));
    assert_eq!(b.until_resp().1, hit(1, pattern(&g, a, 0)));
    b.req(L1Request::load(4, d));
    assert_eq!(b.until_resp().1, wait(4, 0, true));
    assert_eq!(b.l1.entry(0).way, 0, "now A's way");
    assert_eq!(b.l1.rr_pointer(0), 1);
}

#[test]
fn round_robin_victims_skip_reserved_ways() {
    let mut b = Bench::new(small()); // 32 sets × 4 ways
    let g = b.g();
    let line = |i: u32| 5 + 32 * i; // set 5
    for i in 0..4 {
        b.make_resident(line(i), pattern(&g, line(i), 0));
        assert_eq!(
            b.l1.way_of(line(i)),
            Some(i as usize),
            "invalid ways in order"
        );
    }
    assert_eq!(b.l1.rr_pointer(5), 0);
    // Each further miss evicts the way at the pointer: 0, 1, 2, 3, 0.
    for (n, want) in [0usize, 1, 2, 3, 0].into_iter().enumerate() {
        let l = line(10 + n as u32);
        let victim_line = b.l1.resident_line(5, want);
        b.make_resident(l, pattern(&g, l, 1));
        assert_eq!(b.l1.way_of(l), Some(want), "miss {n}");
        assert!(victim_line.is_some_and(|v| b.l1.way_of(v).is_none()));
        assert_eq!(b.l1.rr_pointer(5), (want + 1) % 4);
    }
    // Pointer at 1; lock way 1 (fill without replay) — the next misses take 2, then 3.
    let locked = line(20);
    b.req(L1Request::load(1, locked));
    let (_, r) = b.until_resp();
    assert_eq!(r.kind.code(), 2);
    let RespKind::Wait(k) = r.kind else {
        unreachable!()
    };
    assert_eq!(b.l1.entry(k).way, 1);
    b.fill(k, pattern(&g, locked, 0));
    b.until_resp();
    for want in [2usize, 3, 0, 2] {
        let l = line(30 + want as u32 + b.now as u32 * 8);
        b.make_resident(l, pattern(&g, l, 2));
        assert_eq!(b.l1.way_of(l), Some(want));
    }
    assert_eq!(b.l1.way_of(locked), Some(1), "the locked line survived");
}

#[test]
fn fill_register_takes_the_slot_and_fills_come_back_to_back() {
    let mut b = Bench::new(tiny());
    let g = b.g();
    b.req(L1Request::load(1, 0x01));
    b.req(L1Request::load(2, 0x02));
    b.idle();
    b.idle(); // both entries pending
    let c = b.now;
    let o0 = b.fill(0, pattern(&g, 1, 0)); // c
    let o1 = b.step(
        Some(L1Request::load(3, 0x03)),
        Some(Fill {
            entry: 1,
            data: pattern(&g, 2, 0),
        }),
    ); // c+1
    let o2 = b.step(Some(L1Request::load(3, 0x03)), None); // c+2
    let o3 = b.step(Some(L1Request::load(3, 0x03)), None); // c+3
    let o4 = b.idle(); // c+4
    let o5 = b.idle(); // c+5
    assert!(o0.req_ready && !o1.req_ready && !o2.req_ready && o3.req_ready);
    assert_eq!(o3.resp, Some(filled(0)), "fill at c → filled at c+3");
    assert_eq!(o4.resp, Some(filled(1)));
    assert_eq!(
        o5.resp,
        Some(wait(3, 2, true)),
        "accepted in c+3, answered c+5"
    );
    assert_eq!(b.now, c + 6);
    assert_eq!(
        b.l1.stats().requests,
        3,
        "the offers of c+1 and c+2 were not accepted"
    );
}

#[test]
fn outputs_do_not_depend_on_inputs_of_the_same_cycle() {
    let g = tiny();
    let mut b = Bench::new(g);
    b.ready = false;
    b.req(L1Request::load(1, 0x01));
    b.req(L1Request::store(2, 0x02, mask(&g, &[0]), vec![1; 16]));
    b.fill(0, pattern(&g, 1, 0));
    // From this state, very different inputs give the same outputs.
    let inputs = [
        L1Inputs::default(),
        L1Inputs {
            reset: false,
            req: Some(L1Request::load(9, 0x55)),
            mem_req_ready: true,
            fill: Some(Fill {
                entry: 3,
                data: vec![7; 16],
            }),
        },
        L1Inputs {
            reset: false,
            req: Some(L1Request::store(9, 0x01, vec![true; 16], vec![0; 16])),
            mem_req_ready: false,
            fill: None,
        },
    ];
    for _ in 0..4 {
        let outs: Vec<L1Outputs> = inputs.iter().map(|i| b.l1.clone().step(i)).collect();
        assert!(outs.iter().all(|o| *o == outs[0]), "{outs:?}");
        assert_eq!(outs[0], b.l1.outputs(false));
        b.idle();
    }
}

#[test]
fn merge_full_after_255_waiters() {
    let mut b = Bench::new(tiny());
    let g = b.g();
    let x = 0x66;
    for i in 0..256u16 {
        b.req(L1Request::load(i, x));
    }
    b.idle();
    b.idle();
    let e = b.l1.entry(0);
    assert_eq!((e.state, e.waiters), (EntryState::Pending, MAX_WAITERS));
    let st = b.l1.stats();
    assert_eq!((st.misses, st.merges), (1, 254));
    assert_eq!(st.retries_of(RetryCause::MergeFull), 1);
    b.fill(0, pattern(&g, x, 0));
    b.until_resp();
    for i in 0..255u16 {
        b.req(L1Request::waiter(i, x, 0));
    }
    b.idle();
    b.idle();
    assert_eq!(b.l1.entry(0).state, EntryState::Free);
    assert_eq!(b.l1.stats().waiter_hits, 255);
}

#[test]
fn stray_waiters_and_fills_are_defined() {
    let mut b = Bench::new(tiny());
    let g = b.g();
    let x = 0x09;
    b.req(L1Request::load(1, x));
    assert_eq!(b.until_resp().1, wait(1, 0, true));
    // Replayed before the fill: wait again, not counted twice.
    b.req(L1Request::waiter(1, x, 0));
    assert_eq!(b.until_resp().1, wait(1, 0, false));
    assert_eq!(b.l1.entry(0).waiters, 1);
    // A waiter naming a free entry is an ordinary load (here a miss that allocates entry 1).
    b.req(L1Request::waiter(2, 0x0A, 3));
    assert_eq!(b.until_resp().1, wait(2, 1, true));
    // A fill for a free entry does nothing and is not answered.
    b.fill(2, vec![0xFF; 16]);
    for _ in 0..4 {
        assert!(b.idle().resp.is_none());
    }
    assert_eq!(b.l1.entry(2).state, EntryState::Free);
    // Fill entry 0; a waiter naming entry 0 with another line is an ordinary load.
    b.fill(0, pattern(&g, x, 0));
    assert_eq!(b.until_resp().1, filled(0));
    b.req(L1Request::waiter(4, 0x0B, 0));
    assert_eq!(b.until_resp().1, wait(4, 2, true));
    assert_eq!(b.l1.entry(0).waiters, 1, "entry 0 untouched");
    let st = b.l1.stats();
    assert_eq!((st.stray_waiters, st.stray_fills, st.fills), (3, 1, 1));
}

#[test]
fn reset_clears_valid_prt_queue_pointers_and_fill_register() {
    let mut b = Bench::new(tiny());
    let g = b.g();
    let y = 0x08; // set 0, way 0
    b.make_resident(y, pattern(&g, y, 0));
    b.make_resident(0x10, pattern(&g, 0x10, 0)); // set 0 way 1
    b.make_resident(0x18, pattern(&g, 0x18, 0)); // evicts way 0, pointer 1
    assert_eq!(b.l1.rr_pointer(0), 1);
    b.ready = false;
    b.req(L1Request::load(1, 0x31)); // pending entry 0
    b.req(L1Request::store(2, 0x32, mask(&g, &[1]), vec![2; 16]));
    b.req(L1Request::load(3, 0x18)); // in T at the reset
    b.fill(0, pattern(&g, 0x31, 0)); // in FR at the reset
    assert!(b.l1.fill_register_valid() && b.l1.memq_len() == 2);
    let requests = b.l1.stats().requests;
    let out = b.l1.step(&L1Inputs {
        reset: true,
        req: Some(L1Request::load(4, 0x18)),
        mem_req_ready: true,
        fill: Some(Fill {
            entry: 1,
            data: vec![0; 16],
        }),
    });
    assert_eq!(out, L1Outputs::default(), "nothing shows in a reset cycle");
    assert!(b.l1.is_idle());
    for set in 0..g.sets {
        assert_eq!(b.l1.rr_pointer(set), 0);
        for w in 0..g.ways {
            assert!(!b.l1.is_valid(set, w));
        }
    }
    assert_eq!(b.l1.stats().requests, requests, "counters survive a reset");
    b.ready = true;
    // The line resident before the reset misses; entry 0 is free again.
    b.req(L1Request::load(5, 0x18));
    let (_, r) = b.until_resp();
    assert_eq!(r, wait(5, 0, true));
    // A late fill for an entry from before the reset (entry 1 is free) is ignored.
    b.fill(1, vec![0; 16]);
    for _ in 0..4 {
        assert!(b.idle().resp.is_none());
    }
    assert_eq!(b.l1.stats().stray_fills, 1);
}

// ---------------------------------------------------------------------------------------------
// Random: one requester (an LSU that follows the page's protocol) against a flat memory.

/// The memory side: performs requests when the L1's queue head is taken (writes applied, reads
/// snapshot), returns fills after a random delay in any order, one per cycle.
struct Memory {
    lines: HashMap<u32, Vec<u8>>,
    /// (cycle from which it may be delivered, fill).
    fills: Vec<(u64, Fill)>,
}

impl Memory {
    fn line(&self, g: &L1Geometry, line: u32) -> Vec<u8> {
        self.lines
            .get(&line)
            .cloned()
            .unwrap_or_else(|| pattern(g, line, 0x5C))
    }
}

/// Writes `data[k]` over `line[k]` where `mask[k]` is set.
fn write_bytes(line: &mut [u8], mask: &[bool], data: &[u8]) {
    for ((byte, &m), &d) in line.iter_mut().zip(mask).zip(data) {
        if m {
            *byte = d;
        }
    }
}

/// What the random test counts across every case, to show it reached every path.
#[derive(Default)]
struct Reach {
    causes: [u64; 5],
    merges: u64,
    store_hits: u64,
    evictions_of_valid: u64,
}

fn random_case(g: L1Geometry, seed: u64, cycles: u64, reach: &mut Reach) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut l1 = L1Cache::with_geometry(g);
    l1.step(&L1Inputs {
        reset: true,
        ..Default::default()
    });
    let b = g.line_bytes as usize;

    // A pool of lines crowded into a few sets, with small and large tags.
    let sets_used = g.sets.min(3) as u32;
    let tag_max = (1u32 << g.tag_bits()) - 1;
    let mut pool = Vec::new();
    for s in 0..sets_used {
        for t in (0..g.ways as u32 + 2).chain([tag_max, tag_max - 1]) {
            pool.push((t << g.set_bits()) | s);
        }
    }
    pool.sort_unstable();
    pool.dedup();

    let mut mem = Memory {
        lines: HashMap::new(),
        fills: Vec::new(),
    };
    // The flat memory: every store applied in the order the L1 decided it.
    let mut flat: HashMap<u32, Vec<u8>> = HashMap::new();
    let flat_line = |flat: &HashMap<u32, Vec<u8>>, line: u32| {
        flat.get(&line)
            .cloned()
            .unwrap_or_else(|| pattern(&g, line, 0x5C))
    };

    let p_new = rng.gen_range(0.3..1.0);
    let p_ready = rng.gen_range(0.2..1.0);
    let max_lat = rng.gen_range(0..40u64);
    let mut next_id: u16 = 0;
    let mut to_retry: Vec<(u64, L1Request)> = Vec::new();
    let mut waiting: HashMap<usize, Vec<L1Request>> = HashMap::new();
    let mut replay: Vec<L1Request> = Vec::new();
    // Cycle in which each accepted request must be answered.
    let mut answer_at: HashMap<u64, L1Request> = HashMap::new();
    let mut finished: u64 = 0; // requests answered hit or done
    let mut issued: u64 = 0;
    // Outstanding reads per entry (at most one).
    let mut reading: HashMap<usize, u32> = HashMap::new();
    let mut prev_valid: Vec<Option<u32>> = vec![None; g.sets * g.ways];

    let limit = cycles + 20_000;
    let mut now: u64 = 0;
    loop {
        let traffic = now < cycles;
        let outstanding = !to_retry.is_empty()
            || !waiting.is_empty()
            || !replay.is_empty()
            || !answer_at.is_empty();
        if !traffic && !outstanding && mem.fills.is_empty() && l1.is_idle() {
            break;
        }
        assert!(now < limit, "seed {seed} {g:?}: no progress (deadlock?)");

        // Choose the offer: waiter replays first, then due retries, then new requests.
        let offer: Option<(usize, L1Request)> = if !replay.is_empty() {
            Some((0, replay[0].clone()))
        } else if let Some(i) = to_retry.iter().position(|(due, _)| *due <= now) {
            Some((1 + i, to_retry[i].1.clone()))
        } else if traffic && rng.gen_bool(p_new) {
            let line = pool[rng.gen_range(0..pool.len())];
            let id = next_id;
            next_id = next_id.wrapping_add(1);
            let r = if rng.gen_bool(0.35) {
                let bytes: Vec<bool> = (0..b).map(|_| rng.gen_bool(0.3)).collect();
                let data: Vec<u8> = (0..b).map(|_| rng.gen()).collect();
                L1Request::store(id, line, bytes, data)
            } else {
                L1Request::load(id, line)
            };
            Some((usize::MAX, r))
        } else {
            None
        };
        // A fill, if one is due (any due one: the memory side may reorder).
        let due: Vec<usize> = (0..mem.fills.len())
            .filter(|&i| mem.fills[i].0 <= now)
            .collect();
        let fill = if !due.is_empty() && rng.gen_bool(0.7) {
            Some(mem.fills.swap_remove(due[rng.gen_range(0..due.len())]).1)
        } else {
            None
        };
        let inp = L1Inputs {
            reset: false,
            req: offer.as_ref().map(|(_, r)| r.clone()),
            mem_req_ready: rng.gen_bool(p_ready),
            fill,
        };
        if now.is_multiple_of(7) {
            // No input reaches an output in the same cycle.
            let quiet = l1.clone().step(&L1Inputs::default());
            let busy = l1.clone().step(&inp);
            assert_eq!(quiet, busy, "seed {seed} cycle {now}");
        }
        let out = l1.step(&inp);
        if let Err(e) = l1.check_invariants() {
            panic!("seed {seed} {g:?} cycle {now}: {e}");
        }

        // The offer was accepted: remove it from its source, expect its answer in now + 2.
        if let Some((src, r)) = offer {
            if out.req_ready {
                match src {
                    0 => {
                        replay.remove(0);
                    }
                    usize::MAX => issued += 1,
                    i => {
                        to_retry.remove(i - 1);
                    }
                }
                answer_at.insert(now + 2, r);
            }
        }

        // The response of this cycle.
        let expected = answer_at.remove(&now);
        match out.resp {
            None => assert!(
                expected.is_none(),
                "seed {seed} cycle {now}: missing response"
            ),
            Some(resp) => {
                if let RespKind::Filled(k) = resp.kind {
                    assert!(
                        expected.is_none(),
                        "seed {seed} cycle {now}: filled in a request's cycle"
                    );
                    let w = waiting
                        .remove(&k)
                        .expect("filled(k) for an entry with waiters");
                    assert_eq!(w.len() as u32, l1.entry(k).waiters);
                    replay.extend(w);
                } else {
                    let r = expected.unwrap_or_else(|| {
                        panic!("seed {seed} cycle {now}: a response without a request: {resp:?}")
                    });
                    assert_eq!(resp.id, r.id, "seed {seed} cycle {now}");
                    if r.waiter.is_some() {
                        assert_eq!(resp.kind, RespKind::Hit, "a waiter's replay always hits");
                    }
                    match resp.kind {
                        RespKind::Hit => {
                            assert!(!r.store && resp.hit);
                            assert_eq!(
                                resp.data,
                                Some(flat_line(&flat, r.line)),
                                "seed {seed} cycle {now}: load of {:#x}",
                                r.line
                            );
                            finished += 1;
                        }
                        RespKind::Done => {
                            assert!(r.store);
                            let mut line = flat_line(&flat, r.line);
                            write_bytes(&mut line, &r.bytes, &r.data);
                            flat.insert(r.line, line);
                            if resp.hit {
                                reach.store_hits += 1;
                            }
                            finished += 1;
                        }
                        RespKind::Wait(k) => {
                            assert!(!r.store && r.waiter.is_none());
                            assert_eq!(l1.entry(k).line, r.line);
                            if !resp.alloc {
                                reach.merges += 1;
                            }
                            let mut w = r.clone();
                            w.waiter = Some(k);
                            waiting.entry(k).or_default().push(w);
                        }
                        RespKind::Retry(cause) => {
                            reach.causes[cause.code() as usize] += 1;
                            let due = now + rng.gen_range(1..=8);
                            to_retry.push((due, r));
                        }
                        RespKind::Filled(_) => unreachable!(),
                    }
                }
            }
        }
        assert!(answer_at.keys().all(|&c| c > now));

        // The memory takes the queue's head.
        if let Some(m) = out.mem_req.filter(|_| inp.mem_req_ready) {
            if m.write {
                let mut line = mem.line(&g, m.line);
                write_bytes(&mut line, &m.mask, &m.data);
                mem.lines.insert(m.line, line);
            } else {
                let k = m.id as usize;
                assert!(k < g.prt_entries);
                assert_eq!(l1.entry(k).state, EntryState::Pending);
                assert_eq!(l1.entry(k).line, m.line);
                assert!(reading.insert(k, m.line).is_none(), "one read per entry");
                let at = now + 1 + rng.gen_range(0..=max_lat);
                mem.fills.push((
                    at,
                    Fill {
                        entry: k,
                        data: mem.line(&g, m.line),
                    },
                ));
            }
        }
        if let Some(f) = &inp.fill {
            assert!(
                reading.remove(&f.entry).is_some(),
                "a fill only for a read sent"
            );
        }

        // Count evictions of valid lines (for `reach`).
        for set in 0..g.sets {
            for w in 0..g.ways {
                let now_line = l1.resident_line(set, w);
                if prev_valid[set * g.ways + w].is_some() && now_line.is_none() {
                    reach.evictions_of_valid += 1;
                }
                prev_valid[set * g.ways + w] = now_line;
            }
        }
        now += 1;
    }

    // Everything answered exactly once; every entry freed; memory = the flat memory.
    assert_eq!(finished, issued, "seed {seed}: every request finished once");
    let st = l1.stats();
    assert_eq!(st.misses, st.fills, "seed {seed}: every allocation filled");
    assert_eq!(st.fills, st.frees, "seed {seed}: every filled entry freed");
    assert_eq!((st.stray_fills, st.stray_waiters), (0, 0));
    assert_eq!(l1.entries_in_use(), 0);
    assert_eq!(
        st.requests,
        st.load_hits + st.misses + st.merges + st.store_hits + st.store_misses + st.total_retries(),
        "seed {seed}: one decision per request"
    );
    for (line, data) in &flat {
        assert_eq!(
            &mem.line(&g, *line),
            data,
            "seed {seed}: memory line {line:#x}"
        );
    }
}

#[test]
fn random_single_requester_against_flat_memory() {
    let geometries = [
        tiny(),
        small(),
        L1Geometry::new(&GpuConfig::fermi()),
        L1Geometry::with(1, 1, 4, 1),
        L1Geometry::with(2, 1, 16, 3),
        L1Geometry::with(4, 4, 8, 2),
        L1Geometry::with(16, 8, 4, 6),
        L1Geometry::with(8, 2, 64, 16),
    ];
    let mut reach = Reach::default();
    for (i, g) in geometries.iter().enumerate() {
        for s in 0..6u64 {
            random_case(*g, 0x11CA_0000 + 16 * i as u64 + s, 3_000, &mut reach);
        }
    }
    // The traffic reached every path but merge_full (exercised by its own test).
    for cause in [
        RetryCause::PrtFull,
        RetryCause::SetPending,
        RetryCause::LinePending,
        RetryCause::MemqFull,
    ] {
        assert!(
            reach.causes[cause.code() as usize] > 0,
            "{cause:?} never seen"
        );
    }
    assert!(reach.merges > 0 && reach.store_hits > 0 && reach.evictions_of_valid > 0);
    eprintln!(
        "causes {:?} merges {} store hits {} evictions {}",
        reach.causes, reach.merges, reach.store_hits, reach.evictions_of_valid
    );
}
