//! Tests of the coalescer reference: the directed counts of issue 13 on 4, 8 and 32 lanes with
//! the presets' line sizes, request contents (sizes, offsets, byte masks, merged store data),
//! the page's timing examples cycle by cycle, back-pressure, reset, the counters, and seeded
//! random properties of both the pure function and the cycle model.

use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet};

/// A line-aligned global address (aligned for every `line_bytes` up to 4096).
const BASE: u32 = 0x8000_1000;

/// Every `lanes` of the presets with every `line_bytes` of the presets.
fn geometries() -> Vec<Geometry> {
    let mut v = Vec::new();
    for lanes in [4, 8, 32] {
        for line_bytes in [16, 32, 128] {
            v.push(Geometry::with(lanes, line_bytes));
        }
    }
    v
}

/// tiny (4 lanes, 16-byte lines), small (8, 32), fermi (32, 128).
fn presets() -> Vec<Geometry> {
    [GpuConfig::tiny(), GpuConfig::small(), GpuConfig::fermi()]
        .iter()
        .map(Geometry::new)
        .collect()
}

/// Distinct store data per lane, every byte different.
fn lane_data(l: usize) -> u32 {
    0xA0B0_C0D0u32.wrapping_add(0x0101_0101 * l as u32)
}

/// Lane `l` at `base + l * stride`, all lanes of `mask`.
fn strided(g: &Geometry, base: u32, stride: u32, size: u8, mask: u32, store: bool) -> Access {
    let addr = (0..g.lanes)
        .map(|l| base.wrapping_add(stride.wrapping_mul(l as u32)))
        .collect();
    let data = (0..g.lanes).map(lane_data).collect();
    Access {
        tag: 0x1234,
        store,
        size,
        mask,
        addr,
        data,
    }
}

/// Lanes `from .. from + count` as a mask.
fn span(from: usize, count: usize) -> u32 {
    (from..from + count).fold(0, |m, l| m | 1 << l)
}

/// The page's rules checked on one access's requests, against an independent formulation
/// (lane-order stores into a byte map; distinct lines as a set).
fn check_requests(g: &Geometry, a: &Access, reqs: &[LineRequest]) {
    let mask = a.mask & g.lane_mask();
    let n = size_bytes(a.size);
    let line = |l: usize| g.line_of(a.addr[l]);
    let active: Vec<usize> = (0..g.lanes).filter(|&l| mask >> l & 1 == 1).collect();
    let lines: BTreeSet<u32> = active.iter().map(|&l| line(l)).collect();
    assert_eq!(
        reqs.len(),
        lines.len(),
        "one request per distinct line: {a:?}"
    );

    // Lane-order stores, as the golden model performs them.
    let mut mem: BTreeMap<u32, u8> = BTreeMap::new();
    for &l in &active {
        let at = (line(l) << g.offset_bits()) + g.offset_of(a.addr[l], a.size);
        for j in 0..n {
            mem.insert(
                at + j,
                (a.data.get(l).copied().unwrap_or(0) >> (8 * j)) as u8,
            );
        }
    }

    let mut served = 0u32;
    let mut seen_lines = BTreeSet::new();
    for (i, r) in reqs.iter().enumerate() {
        assert_eq!(r.tag, a.tag);
        assert_eq!(r.store, a.store);
        assert_eq!(r.size, size_code(a.size));
        assert_eq!(r.last, i + 1 == reqs.len(), "last flag of request {i}");
        assert!(
            seen_lines.insert(r.line),
            "line {:#x} requested twice",
            r.line
        );
        assert_ne!(r.lanes, 0, "a request serves at least one lane");
        assert_eq!(r.lanes & served, 0, "a lane served twice");
        // Order: each request is led by the lowest lane not yet served.
        assert_eq!(
            r.lanes.trailing_zeros(),
            (mask & !served).trailing_zeros(),
            "request {i} is not the lowest pending lane's line"
        );
        served |= r.lanes;
        assert_eq!(r.offset.len(), g.lanes);
        assert_eq!(r.bytes.len(), g.line_bytes as usize);
        assert_eq!(r.data.len(), g.line_bytes as usize);
        let mut union = vec![false; g.line_bytes as usize];
        for l in 0..g.lanes {
            if r.lanes >> l & 1 == 1 {
                assert_eq!(line(l), r.line, "lane {l} served by another line's request");
                let off = g.offset_of(a.addr[l], a.size);
                assert_eq!(r.offset[l], off);
                for j in off..off + n {
                    union[j as usize] = true;
                }
            } else {
                assert_eq!(r.offset[l], 0, "offset of a lane not served");
                assert!(
                    mask >> l & 1 == 0 || line(l) != r.line,
                    "pending lane {l} on the request's line left out"
                );
            }
        }
        assert_eq!(
            r.bytes, union,
            "byte mask = union of the served lanes' bytes"
        );
        for k in 0..g.line_bytes {
            let want = if a.store && r.bytes[k as usize] {
                mem[&(r.line_addr(g) + k)]
            } else {
                0
            };
            assert_eq!(r.data[k as usize], want, "data byte {k} of request {i}");
        }
    }
    assert_eq!(served, mask, "every active lane served, no inactive lane");
}

// ---- the directed counts of issue 13 ----

#[test]
fn unit_stride_aligned_makes_one_request_per_line() {
    for g in geometries() {
        for size in 0..=2u8 {
            let n = size_bytes(size);
            let a = strided(&g, BASE, n, size, g.lane_mask(), false);
            let reqs = coalesce(&g, &a);
            // L·n bytes from a line boundary: ⌈L·n / B⌉ lines (both powers of two).
            let lines = (g.lanes as u32 * n).div_ceil(g.line_bytes) as usize;
            assert_eq!(reqs.len(), lines, "{g:?} size {n}");
            let per_line = (g.line_bytes / n) as usize;
            for (i, r) in reqs.iter().enumerate() {
                assert_eq!(r.line, g.line_of(BASE) + i as u32);
                assert_eq!(
                    r.lanes,
                    span(i * per_line, per_line.min(g.lanes)),
                    "{g:?} size {n} request {i}"
                );
            }
            check_requests(&g, &a, &reqs);
        }
    }
    for g in presets() {
        let a = strided(&g, BASE, 4, 2, g.lane_mask(), false);
        assert_eq!(
            coalesce(&g, &a).len(),
            1,
            "{g:?}: a warp of words is one line"
        );
    }
}

#[test]
fn misaligned_unit_stride_makes_one_more() {
    for g in geometries() {
        for size in 0..=2u8 {
            let n = size_bytes(size);
            let total = g.lanes as u32 * n;
            for o in [n, g.line_bytes / 2, g.line_bytes - n] {
                let a = strided(&g, BASE + o, n, size, g.lane_mask(), true);
                let reqs = coalesce(&g, &a);
                let want = ((o + total - 1) / g.line_bytes + 1) as usize;
                assert_eq!(reqs.len(), want, "{g:?} size {n} offset {o}");
                if total.is_multiple_of(g.line_bytes) {
                    assert_eq!(reqs.len(), (total / g.line_bytes) as usize + 1);
                }
                check_requests(&g, &a, &reqs);
            }
        }
    }
    for g in presets() {
        let a = strided(&g, BASE + 4, 4, 2, g.lane_mask(), false);
        assert_eq!(coalesce(&g, &a).len(), 2, "{g:?}: misaligned warp of words");
    }
}

#[test]
fn stride_of_one_line_makes_one_request_per_active_lane() {
    for g in geometries() {
        for store in [false, true] {
            let a = strided(&g, BASE + 4, g.line_bytes, 2, g.lane_mask(), store);
            let reqs = coalesce(&g, &a);
            assert_eq!(reqs.len(), g.lanes, "{g:?}");
            for (i, r) in reqs.iter().enumerate() {
                assert_eq!(r.lanes, 1 << i, "lane order");
                assert_eq!(r.line, g.line_of(BASE) + i as u32);
                assert_eq!(r.offset[i], 4);
            }
            check_requests(&g, &a, &reqs);
            // Masked lanes make no request: every other lane.
            let mask = 0x5555_5555 & g.lane_mask();
            let a = Access { mask, ..a };
            let reqs = coalesce(&g, &a);
            assert_eq!(reqs.len(), mask.count_ones() as usize);
            assert!(reqs.iter().all(|r| r.lanes & !mask == 0));
            check_requests(&g, &a, &reqs);
        }
    }
}

#[test]
fn all_lanes_one_address_make_one_request() {
    for g in geometries() {
        for size in 0..=2u8 {
            let n = size_bytes(size);
            let at = BASE + g.line_bytes - n;
            let load = strided(&g, at, 0, size, g.lane_mask(), false);
            let reqs = coalesce(&g, &load);
            assert_eq!(reqs.len(), 1);
            assert_eq!(reqs[0].lanes, g.lane_mask());
            assert!(
                reqs[0].data.iter().all(|&b| b == 0),
                "a load carries no data"
            );
            check_requests(&g, &load, &reqs);

            let store = Access {
                store: true,
                ..load
            };
            let reqs = coalesce(&g, &store);
            assert_eq!(reqs.len(), 1);
            // The highest lane's data wins every byte.
            let top = lane_data(g.lanes - 1);
            for j in 0..n {
                let k = (g.line_bytes - n + j) as usize;
                assert!(reqs[0].bytes[k]);
                assert_eq!(reqs[0].data[k], (top >> (8 * j)) as u8);
            }
            assert_eq!(reqs[0].bytes.iter().filter(|&&b| b).count(), n as usize);
            check_requests(&g, &store, &reqs);
        }
    }
}

#[test]
fn masked_lanes_make_no_request() {
    for g in geometries() {
        // No active lane: nothing at all, whatever the addresses.
        let a = strided(&g, BASE, g.line_bytes, 2, 0, true);
        assert!(coalesce(&g, &a).is_empty());
        // Mask bits above the lanes do not exist.
        if g.lanes < 32 {
            let a = Access {
                mask: !g.lane_mask(),
                ..a.clone()
            };
            assert!(coalesce(&g, &a).is_empty());
        }
        // Inactive lanes' addresses are not looked at: lanes of one line plus inactive lanes at
        // wild addresses.
        let mut a = strided(&g, BASE, 0, 2, 0b0101, false);
        for l in [1, 3] {
            a.addr[l] = 0xFFFF_FFFC - l as u32 * 0x1000;
        }
        let reqs = coalesce(&g, &a);
        assert_eq!(reqs.len(), 1);
        assert_eq!(reqs[0].lanes, 0b0101);
        check_requests(&g, &a, &reqs);
        // Unit-stride words whose first line's lanes are all inactive: one request fewer.
        let per_line = (g.line_bytes / 4) as usize;
        if g.lanes > per_line {
            let all = strided(&g, BASE, 4, 2, g.lane_mask(), false);
            let without_first = Access {
                mask: g.lane_mask() & !span(0, per_line),
                ..all.clone()
            };
            assert_eq!(
                coalesce(&g, &without_first).len(),
                coalesce(&g, &all).len() - 1
            );
            check_requests(&g, &without_first, &coalesce(&g, &without_first));
        }
    }
}

// ---- request contents ----

#[test]
fn sizes_give_offsets_and_byte_masks() {
    for g in geometries() {
        for size in 0..=2u8 {
            let n = size_bytes(size);
            let a = strided(&g, BASE, n, size, g.lane_mask(), false);
            let reqs = coalesce(&g, &a);
            let mut by_lane = vec![None; g.lanes];
            for r in &reqs {
                for (l, slot) in by_lane.iter_mut().enumerate() {
                    if r.lanes >> l & 1 == 1 {
                        *slot = Some(r.offset[l]);
                    }
                }
                // A unit-stride access fills each line it touches from its first byte on.
                let filled = r.bytes.iter().filter(|&&b| b).count() as u32;
                assert_eq!(filled, r.lanes.count_ones() * n);
                assert!(r.bytes[..filled as usize].iter().all(|&b| b));
            }
            for (l, off) in by_lane.iter().enumerate() {
                assert_eq!(*off, Some((l as u32 * n) % g.line_bytes), "lane {l}");
            }
            // One lane alone: exactly its n bytes.
            let one = Access {
                mask: 0b10,
                ..a.clone()
            };
            let r = &coalesce(&g, &one)[0];
            let set: Vec<usize> = (0..g.line_bytes as usize).filter(|&k| r.bytes[k]).collect();
            assert_eq!(set, (n as usize..2 * n as usize).collect::<Vec<_>>());
            assert_eq!(r.offset[1], n);
            assert_eq!(r.offset[0], 0);
        }
    }
    // Size code 3 is a word; a misaligned lane (never sent by the LSU) is taken aligned down.
    let g = Geometry::with(4, 16);
    let a = Access::load(7, 3, 0b111, vec![BASE + 6, BASE + 3, BASE + 9, 0]);
    let r = &coalesce(&g, &a)[0];
    assert_eq!(r.size, 2);
    assert_eq!(&r.offset[..3], &[4, 0, 8]);
    let a = Access::load(7, 1, 0b11, vec![BASE + 3, BASE + 15, 0, 0]);
    let r = &coalesce(&g, &a)[0];
    assert_eq!(&r.offset[..2], &[2, 14]);
    assert_eq!(r.bytes.iter().filter(|&&b| b).count(), 4);
}

#[test]
fn stores_merge_bytes_and_the_highest_lane_wins() {
    let g = Geometry::with(4, 16);
    // Bytes: lanes 0 and 2 write byte 0 (lane 2 wins), lane 1 byte 1, lane 3 byte 5. Data bits
    // above the size are ignored.
    let a = Access::store(
        1,
        0,
        0b1111,
        vec![BASE, BASE + 1, BASE, BASE + 5],
        vec![0x1234_56AA, 0xFFFF_FFBB, 0x0000_00CC, 0x7777_77DD],
    );
    let reqs = coalesce(&g, &a);
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    let mut want_bytes = vec![false; 16];
    let mut want_data = vec![0u8; 16];
    for (k, v) in [(0, 0xCC), (1, 0xBB), (5, 0xDD)] {
        want_bytes[k] = true;
        want_data[k] = v;
    }
    assert_eq!(r.bytes, want_bytes);
    assert_eq!(r.data, want_data);
    assert_eq!(r.offset, vec![0, 1, 0, 5]);
    check_requests(&g, &a, &reqs);

    // Halves: lane 3 overwrites lane 0's half at offset 2; lane 1 in another line.
    let a = Access::store(
        2,
        1,
        0b1011,
        vec![BASE + 2, BASE + 16 + 14, 0xdead_beef, BASE + 2],
        vec![0x1111, 0x2222, 0x3333, 0x4455],
    );
    let reqs = coalesce(&g, &a);
    assert_eq!(reqs.len(), 2);
    assert_eq!((reqs[0].lanes, reqs[1].lanes), (0b1001, 0b0010));
    assert_eq!(&reqs[0].data[2..4], &[0x55, 0x44]);
    assert_eq!(&reqs[1].data[14..16], &[0x22, 0x22]);
    assert_eq!(reqs[1].bytes.iter().filter(|&&b| b).count(), 2);
    check_requests(&g, &a, &reqs);

    // Words with a masked lane: only the active lanes' bytes are in the mask (a partial line
    // write, book §4.1.1 "when some threads are masked off").
    let g = Geometry::with(8, 32);
    let a = strided(&g, BASE, 4, 2, 0b1011_0110, true);
    let reqs = coalesce(&g, &a);
    assert_eq!(reqs.len(), 1);
    for w in 0..8 {
        let on = 0b1011_0110u32 >> w & 1 == 1;
        assert!(reqs[0].bytes[4 * w..4 * w + 4].iter().all(|&b| b == on));
        let want = if on {
            lane_data(w).to_le_bytes()
        } else {
            [0; 4]
        };
        assert_eq!(reqs[0].data[4 * w..4 * w + 4], want);
    }
    check_requests(&g, &a, &reqs);
}

// ---- the cycle model ----

/// What one cycle showed.
#[derive(Clone, Debug)]
struct Cycle {
    in_ready: bool,
    /// Index of the access accepted in this cycle.
    accepted: Option<usize>,
    out: Option<LineRequest>,
    taken: bool,
}

/// Offers `accesses` in order (each from the cycle after the previous one's acceptance, or
/// from cycle 0), with `out_ready(c)`, for `cycles` cycles.
fn run(
    c: &mut Coalescer,
    accesses: &[Access],
    out_ready: impl Fn(usize) -> bool,
    cycles: usize,
) -> Vec<Cycle> {
    let mut next = 0;
    (0..cycles)
        .map(|cyc| {
            let inp = CoalescerInputs {
                reset: false,
                input: accesses.get(next).cloned(),
                out_ready: out_ready(cyc),
            };
            let out = c.step(&inp);
            let accepted = (out.in_ready && inp.input.is_some()).then(|| {
                next += 1;
                next - 1
            });
            Cycle {
                in_ready: out.in_ready,
                accepted,
                taken: out.out.is_some() && inp.out_ready,
                out: out.out,
            }
        })
        .collect()
}

/// Cycles in which a request was shown, with the request.
fn shown(trace: &[Cycle]) -> Vec<(usize, LineRequest)> {
    trace
        .iter()
        .enumerate()
        .filter_map(|(c, t)| t.out.clone().map(|r| (c, r)))
        .collect()
}

fn accepted_at(trace: &[Cycle]) -> Vec<usize> {
    trace
        .iter()
        .enumerate()
        .filter_map(|(c, t)| t.accepted.map(|_| c))
        .collect()
}

#[test]
fn requests_come_one_per_cycle_from_the_third_cycle() {
    for g in presets() {
        // Three lanes a line apart: 3 requests.
        let a = strided(&g, BASE, g.line_bytes, 2, 0b111, false);
        let mut c = Coalescer::with_geometry(g);
        let trace = run(&mut c, std::slice::from_ref(&a), |_| true, 10);
        assert_eq!(accepted_at(&trace), vec![0]);
        let s = shown(&trace);
        assert_eq!(s.iter().map(|x| x.0).collect::<Vec<_>>(), vec![3, 4, 5]);
        assert_eq!(
            s.into_iter().map(|x| x.1).collect::<Vec<_>>(),
            coalesce(&g, &a)
        );
        // A is free again at t + k + 1 = 4 (the last request was selected in cycle 3).
        let ready: Vec<bool> = trace.iter().map(|t| t.in_ready).collect();
        assert_eq!(&ready[..6], &[true, false, false, false, true, true]);
        assert!(c.is_idle());
    }
}

#[test]
fn back_to_back_accesses_follow_the_page_example() {
    let g = Geometry::with(8, 32);
    let x = strided(&g, BASE + 16, 4, 2, g.lane_mask(), false); // 2 lines
    let y = strided(&g, BASE, 0, 2, g.lane_mask(), true); // 1 line
    let e = strided(&g, BASE, 4, 2, 0, false); // no active lane
    let z = strided(&g, BASE + 64, 4, 2, 0b1, false); // 1 line
    let accesses = [x.clone(), y.clone(), e, z.clone()];
    let mut c = Coalescer::with_geometry(g);
    let trace = run(&mut c, &accesses, |_| true, 12);
    assert_eq!(accepted_at(&trace), vec![0, 3, 5, 6]);
    let s = shown(&trace);
    assert_eq!(s.iter().map(|x| x.0).collect::<Vec<_>>(), vec![3, 4, 6, 9]);
    let want: Vec<LineRequest> = [x, y, z].iter().flat_map(|a| coalesce(&g, a)).collect();
    assert_eq!(s.into_iter().map(|x| x.1).collect::<Vec<_>>(), want);
    assert!(trace.iter().all(|t| t.out.is_none() || t.taken));

    let st = c.stats();
    assert_eq!((st.accesses, st.empty_accesses, st.requests), (3, 1, 4));
    assert_eq!(st.active_lanes, 8 + 8 + 1);
    assert_eq!(&st.requests_per_access[..3], &[1, 2, 1]);
    assert_eq!(st.stall_cycles, 0);
    assert!((st.mean_requests_per_access() - 4.0 / 3.0).abs() < 1e-12);
}

#[test]
fn back_pressure_holds_the_request_and_the_unit() {
    let g = Geometry::with(4, 16);
    let a = strided(&g, BASE, 16, 2, 0b1101, true); // 3 requests
    let b = strided(&g, BASE, 4, 2, 0b1111, false);
    let mut c = Coalescer::with_geometry(g);
    let trace = run(
        &mut c,
        &[a.clone(), b.clone()],
        |cyc| !(3..=5).contains(&cyc),
        14,
    );
    let reqs = coalesce(&g, &a);
    // Request 0 shown 3 … 6, unchanged, taken in 6; then 7 and 8.
    for (cyc, t) in trace.iter().enumerate().take(7).skip(3) {
        assert_eq!(t.out.as_ref(), Some(&reqs[0]), "cycle {cyc}");
        assert_eq!(t.taken, cyc == 6);
    }
    assert_eq!(trace[7].out.as_ref(), Some(&reqs[1]));
    assert_eq!(trace[8].out.as_ref(), Some(&reqs[2]));
    assert!(trace[7].taken && trace[8].taken);
    // A stays busy until the last request has been selected into S (cycle 6): in_ready in 7.
    let ready: Vec<bool> = trace[..8].iter().map(|t| t.in_ready).collect();
    assert_eq!(
        ready,
        vec![true, false, false, false, false, false, false, true]
    );
    assert_eq!(accepted_at(&trace), vec![0, 7]);
    // The next access: accepted in 7, shown in 10.
    assert_eq!(trace[10].out.as_ref(), Some(&coalesce(&g, &b)[0]));
    assert_eq!(c.stats().stall_cycles, 3);
    assert_eq!(c.stats().requests_per_access[3], 1);
}

#[test]
fn access_without_active_lanes_takes_only_its_accept_cycle() {
    for g in presets() {
        let empty = strided(&g, BASE, 4, 2, 0, false);
        let mut c = Coalescer::with_geometry(g);
        let trace = run(&mut c, &[empty.clone(), empty.clone(), empty], |_| true, 6);
        assert_eq!(accepted_at(&trace), vec![0, 1, 2]);
        assert!(trace.iter().all(|t| t.in_ready && t.out.is_none()));
        assert_eq!(c.stats().empty_accesses, 3);
        assert_eq!(c.stats().requests_per_access[0], 3);
        assert!(c.is_idle());
    }
}

#[test]
fn reset_empties_every_stage() {
    let g = Geometry::with(4, 16);
    let a = strided(&g, BASE, 16, 2, 0b1111, false); // 4 requests
    let mut c = Coalescer::with_geometry(g);
    let trace = run(&mut c, std::slice::from_ref(&a), |_| true, 4);
    assert!(trace[3].out.is_some(), "request 0 shown in cycle 3");
    // Reset in a cycle with a request in O, one in S and lanes pending: no handshake in it.
    let out = c.step(&CoalescerInputs {
        reset: true,
        input: Some(a.clone()),
        out_ready: true,
    });
    assert_eq!(out, CoalescerOutputs::default());
    assert!(c.is_idle());
    let idle = c.step(&CoalescerInputs {
        out_ready: true,
        ..Default::default()
    });
    assert!(idle.in_ready && idle.out.is_none());
    // The one request taken before the reset counts; its access never reaches the histogram.
    assert_eq!(c.stats().requests, 1);
    assert!(c.stats().requests_per_access.iter().all(|&k| k == 0));
    // And the unit works as from new.
    let trace = run(&mut c, std::slice::from_ref(&a), |_| true, 10);
    assert_eq!(
        shown(&trace).iter().map(|x| x.0).collect::<Vec<_>>(),
        vec![3, 4, 5, 6]
    );
    assert_eq!(c.stats().requests_per_access[4], 1);
}

// ---- seeded random properties ----

/// A random access: sizes 0–3, masks from empty to full, addresses from a few nearby lines
/// (so lanes share lines often), sometimes unit-stride, line-stride or one address, rarely
/// misaligned.
fn random_access(rng: &mut ChaCha8Rng, g: &Geometry) -> Access {
    let size = rng.gen_range(0..4u8);
    let n = size_bytes(size);
    let mask = match rng.gen_range(0..8) {
        0 => 0,
        1 => 1 << rng.gen_range(0..g.lanes),
        2 | 3 => g.lane_mask(),
        _ => rng.gen::<u32>() & g.lane_mask(),
    };
    let base_line = g.line_of(BASE) + rng.gen_range(0..64);
    let first = rng.gen_range(0..g.line_bytes / n) * n;
    let misaligned = rng.gen_range(0..8) == 0;
    let pattern = rng.gen_range(0..5);
    let addr = (0..g.lanes as u32)
        .map(|l| {
            let a = match pattern {
                0 => (base_line << g.offset_bits()) + first + l * n,
                1 => (base_line + l) << g.offset_bits() | first,
                2 => (base_line << g.offset_bits()) + first,
                _ => {
                    let line = base_line + rng.gen_range(0..3);
                    (line << g.offset_bits()) + rng.gen_range(0..g.line_bytes / n) * n
                }
            };
            if misaligned {
                a + rng.gen_range(0..n)
            } else {
                a
            }
        })
        .collect();
    Access {
        tag: rng.gen(),
        store: rng.gen(),
        size,
        mask,
        addr,
        data: (0..g.lanes).map(|_| rng.gen()).collect(),
    }
}

#[test]
fn random_accesses_keep_every_rule() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xC0A1_E5CE);
    for case in 0..4000 {
        let gs = geometries();
        let g = gs[case % gs.len()];
        let a = random_access(&mut rng, &g);
        check_requests(&g, &a, &coalesce(&g, &a));
    }
}

/// With `out_ready` always high the page's timing holds exactly: an access of `k ≥ 1`
/// requests accepted in `t` shows request `i` in `t + 3 + i` and frees the input in
/// `t + k + 1`; an empty one in `t + 1`.
#[test]
fn random_streams_follow_the_timing_rule() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for case in 0..120 {
        let g = geometries()[case % 9];
        let accesses: Vec<Access> = (0..20).map(|_| random_access(&mut rng, &g)).collect();
        let mut c = Coalescer::with_geometry(g);
        let trace = run(&mut c, &accesses, |_| true, 20 * (g.lanes + 2) + 8);
        let acc = accepted_at(&trace);
        assert_eq!(acc.len(), accesses.len());
        let mut want_shown = Vec::new();
        for (j, a) in accesses.iter().enumerate() {
            let reqs = coalesce(&g, a);
            let t = acc[j];
            let free = if reqs.is_empty() {
                t + 1
            } else {
                t + reqs.len() + 1
            };
            if j + 1 < accesses.len() {
                assert_eq!(acc[j + 1], free, "case {case}: access {}", j + 1);
            }
            for (i, r) in reqs.into_iter().enumerate() {
                want_shown.push((t + 3 + i, r));
            }
        }
        assert_eq!(shown(&trace), want_shown, "case {case}");
        assert!(c.is_idle());
    }
}

/// Under random `in_valid` and `out_ready`: the requests taken are the pure function's, in
/// acceptance order; a request not taken is shown unchanged in the next cycle; the counters
/// add up.
#[test]
fn random_back_pressure_keeps_order_and_contents() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xBAC4);
    for case in 0..150 {
        let g = geometries()[case % 9];
        let accesses: Vec<Access> = (0..25).map(|_| random_access(&mut rng, &g)).collect();
        let p_valid = [0.3, 1.0][case % 2];
        let p_ready = [0.2, 0.6, 0.95][case % 3];
        let mut c = Coalescer::with_geometry(g);
        let mut next = 0;
        let mut taken = Vec::new();
        let mut held: Option<LineRequest> = None;
        let mut cycles = 0;
        while next < accesses.len() || !c.is_idle() {
            cycles += 1;
            assert!(cycles < 100_000, "case {case}: no progress");
            let offer = next < accesses.len() && rng.gen_bool(p_valid);
            let inp = CoalescerInputs {
                reset: false,
                input: offer.then(|| accesses[next].clone()),
                out_ready: rng.gen_bool(p_ready),
            };
            let out = c.step(&inp);
            if let Some(h) = held.take() {
                assert_eq!(
                    out.out.as_ref(),
                    Some(&h),
                    "case {case}: a held request changed"
                );
            }
            if out.in_ready && offer {
                next += 1;
            }
            if let Some(r) = out.out {
                if inp.out_ready {
                    taken.push(r);
                } else {
                    held = Some(r);
                }
            }
        }
        let want: Vec<LineRequest> = accesses.iter().flat_map(|a| coalesce(&g, a)).collect();
        assert_eq!(taken, want, "case {case}");

        let st = c.stats();
        let empty = accesses
            .iter()
            .filter(|a| a.mask & g.lane_mask() == 0)
            .count() as u64;
        assert_eq!(st.empty_accesses, empty);
        assert_eq!(st.accesses, accesses.len() as u64 - empty);
        assert_eq!(st.requests, want.len() as u64);
        let hist = &st.requests_per_access;
        assert_eq!(hist.iter().sum::<u64>(), accesses.len() as u64);
        let weighted: u64 = hist.iter().enumerate().map(|(k, &v)| k as u64 * v).sum();
        assert_eq!(weighted, st.requests);
        let lanes: u64 = accesses
            .iter()
            .map(|a| u64::from((a.mask & g.lane_mask()).count_ones()))
            .sum();
        assert_eq!(st.active_lanes, lanes);
    }
}
