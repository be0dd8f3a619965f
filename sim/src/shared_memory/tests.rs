//! Tests of the shared-memory reference: the directed pass counts of issue 13 on 1 to 32 lanes
//! (conflict-free, broadcast, N-way and 2-way conflicts, masked lanes), the thesis's Fig. 5.4
//! replay on four lanes, byte and half stores merging into a word, load extension, the clear's
//! timing and extent, back-pressure, reset, the page's timing examples cycle by cycle, the
//! counters, and seeded random streams against a flat byte memory.

use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;

/// tiny (4 lanes, 4 KiB), small (8, 16 KiB), fermi (32, 64 KiB).
fn presets() -> Vec<Geometry> {
    [GpuConfig::tiny(), GpuConfig::small(), GpuConfig::fermi()]
        .iter()
        .map(Geometry::new)
        .collect()
}

/// The presets and a few corners: one lane (one bank), banks of a single row, 8 and 32 lanes
/// with little memory.
fn geometries() -> Vec<Geometry> {
    let mut v = presets();
    for (lanes, smem) in [(1, 64), (2, 16), (4, 16), (8, 1024), (32, 128), (32, 4096)] {
        v.push(Geometry::with(lanes, smem));
    }
    v
}

/// Distinct store data per lane, every byte different.
fn lane_data(l: usize) -> u32 {
    0xA0B0_C0D0u32.wrapping_add(0x0101_0101 * l as u32)
}

/// The initial contents used by the tests: byte `a` holds `pattern(a)`.
fn pattern(a: u32) -> u8 {
    (a.wrapping_mul(0x9E37_79B1) >> 13) as u8 ^ (a as u8)
}

/// Lane `l` at `base + l * stride` (modulo the memory), all lanes of `mask`.
fn strided(g: &Geometry, base: u32, stride: u32, size: u8, mask: u32, store: bool) -> Access {
    let addr = (0..g.lanes)
        .map(|l| base.wrapping_add(stride.wrapping_mul(l as u32)) & (g.smem_bytes - 1))
        .collect();
    Access {
        id: 0x5A5A,
        store,
        size,
        unsigned: false,
        mask,
        addr,
        data: (0..g.lanes).map(lane_data).collect(),
    }
}

fn span(from: usize, count: usize) -> u32 {
    (from..from + count).fold(0, |m, l| m | 1 << l)
}

/// The functional model the unit must equal: a flat byte array, lanes performed one after
/// another in lane order (the golden model's order, sim/src/execute.rs), accesses in acceptance
/// order.
#[derive(Clone)]
struct Flat {
    bytes: Vec<u8>,
}

impl Flat {
    fn new(g: &Geometry) -> Self {
        Flat {
            bytes: (0..g.smem_bytes).map(pattern).collect(),
        }
    }

    /// Performs `a`; returns the loaded value of every lane (0 for inactive lanes and stores).
    fn perform(&mut self, g: &Geometry, a: &Access) -> Vec<u32> {
        let n = size_bytes(a.size);
        let mut out = vec![0; g.lanes];
        for l in (0..g.lanes).filter(|&l| a.mask >> l & 1 == 1) {
            let at = (a.addr[l] & (g.smem_bytes - 1) & !(n - 1)) as usize;
            if a.store {
                for j in 0..n as usize {
                    self.bytes[at + j] = (a.data[l] >> (8 * j)) as u8;
                }
            } else {
                let raw =
                    (0..n as usize).fold(0u32, |v, j| v | u32::from(self.bytes[at + j]) << (8 * j));
                out[l] = match (n, a.unsigned) {
                    (1, false) => raw as u8 as i8 as i32 as u32,
                    (2, false) => raw as u16 as i16 as i32 as u32,
                    _ => raw,
                };
            }
        }
        out
    }

    fn clear(&mut self, g: &Geometry, c: &Clear) {
        let w0 = g.word_of(c.base);
        let k = (c.bytes & (2 * g.smem_bytes - 1)) >> 2;
        for i in 0..k {
            let w = ((w0 + i) % g.words()) as usize;
            self.bytes[4 * w..4 * w + 4].fill(0);
        }
    }
}

/// A unit holding the test pattern.
fn unit(g: Geometry) -> SharedMemory {
    let mut sm = SharedMemory::with_geometry(g);
    for a in 0..g.smem_bytes {
        sm.poke_byte(a, pattern(a));
    }
    sm
}

/// What one cycle showed.
#[derive(Clone, Debug)]
struct Cycle {
    in_ready: bool,
    /// Index of the access accepted in this cycle.
    accepted: Option<usize>,
    out: Option<PassResponse>,
    clear_busy: bool,
}

/// Offers `accesses` in order (each from the cycle after the previous one's acceptance, or from
/// cycle 0) and the clears at their cycles, for `cycles` cycles.
fn run(
    sm: &mut SharedMemory,
    accesses: &[Access],
    clears: &[(usize, Clear)],
    cycles: usize,
) -> Vec<Cycle> {
    let mut next = 0;
    (0..cycles)
        .map(|cyc| {
            let inp = SmemInputs {
                reset: false,
                input: accesses.get(next).cloned(),
                clear: clears.iter().find(|(c, _)| *c == cyc).map(|(_, c)| *c),
            };
            let out = sm.step(&inp);
            let accepted = (out.in_ready && inp.input.is_some()).then(|| {
                next += 1;
                next - 1
            });
            Cycle {
                in_ready: out.in_ready,
                accepted,
                out: out.out,
                clear_busy: out.clear_busy,
            }
        })
        .collect()
}

fn shown(trace: &[Cycle]) -> Vec<(usize, PassResponse)> {
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

fn cycles_of(trace: &[Cycle], f: impl Fn(&Cycle) -> bool) -> Vec<usize> {
    trace
        .iter()
        .enumerate()
        .filter_map(|(c, t)| f(t).then_some(c))
        .collect()
}

/// The largest number of distinct rows one bank is asked for: the page's pass count, computed
/// here from sets.
fn max_rows_per_bank(g: &Geometry, a: &Access) -> usize {
    let mut rows: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); g.banks()];
    for l in (0..g.lanes).filter(|&l| (a.mask & g.lane_mask()) >> l & 1 == 1) {
        rows[g.bank_of(a.addr[l])].insert(g.row_of(a.addr[l]));
    }
    rows.iter().map(BTreeSet::len).max().unwrap_or(0)
}

/// Runs `accesses` back to back (an access offered whenever `in_ready` is high, no clear) on a
/// unit holding the pattern and checks the page's rules exactly: access `j` accepted in `t_j`
/// shows pass `i` in `t_j + 5 + i`; the next access is accepted in `t_j + P_j + 1` (`t_j + 1`
/// for an empty one); the passes are `schedule`'s, their count the largest number of distinct
/// rows of a bank; every active lane is served once and a load's values equal the flat memory's;
/// the final contents equal it too. Returns the trace and the unit.
fn check_stream(g: Geometry, accesses: &[Access]) -> (Vec<Cycle>, SharedMemory) {
    let mut sm = unit(g);
    let mut flat = Flat::new(&g);
    let total: usize = accesses.iter().map(|a| schedule(&g, a).len() + 1).sum();
    let trace = run(&mut sm, accesses, &[], total + 8);
    let acc = accepted_at(&trace);
    assert_eq!(
        acc.len(),
        accesses.len(),
        "{g:?}: not every access accepted"
    );
    let mut want = Vec::new();
    for (j, a) in accesses.iter().enumerate() {
        let passes = schedule(&g, a);
        assert_eq!(passes.len(), max_rows_per_bank(&g, a), "{g:?} access {j}");
        let t = acc[j];
        if j + 1 < accesses.len() {
            assert_eq!(
                acc[j + 1],
                t + passes.len() + 1,
                "{g:?}: access {} accepted",
                j + 1
            );
        }
        let values = flat.perform(&g, a);
        let mut served = 0u32;
        for (i, p) in passes.iter().enumerate() {
            assert_eq!(p.lanes & served, 0, "{g:?}: a lane served twice");
            served |= p.lanes;
            let data = (0..g.lanes)
                .map(|l| {
                    if !a.store && p.lanes >> l & 1 == 1 {
                        values[l]
                    } else {
                        0
                    }
                })
                .collect();
            want.push((
                t + 5 + i,
                PassResponse {
                    id: a.id,
                    store: a.store,
                    lanes: p.lanes,
                    banks: p.banks,
                    data,
                    last: i + 1 == passes.len(),
                },
            ));
        }
        assert_eq!(
            served,
            a.mask & g.lane_mask(),
            "{g:?}: every active lane served once"
        );
    }
    assert_eq!(shown(&trace), want, "{g:?}");
    assert!(sm.is_idle());
    for a in 0..g.smem_bytes {
        assert_eq!(
            sm.peek_byte(a),
            flat.bytes[a as usize],
            "{g:?}: byte {a:#x} at the end"
        );
    }
    (trace, sm)
}

// ---- the directed pass counts of issue 13 ----

#[test]
fn conflict_free_unit_stride_takes_one_pass() {
    for g in geometries() {
        for size in 0..=2u8 {
            let n = size_bytes(size);
            for base in [0, 12 & (g.smem_bytes - 1), g.smem_bytes - 4] {
                for store in [false, true] {
                    let a = strided(&g, base, n, size, g.lane_mask(), store);
                    let passes = schedule(&g, &a);
                    assert_eq!(passes.len(), 1, "{g:?} size {n} base {base:#x}");
                    assert_eq!(passes[0].lanes, g.lane_mask());
                    // L·n bytes from a word boundary: ⌈L·n/4⌉ consecutive words, one per bank.
                    let words = (g.lanes as u32 * n).div_ceil(4);
                    assert_eq!(passes[0].banks.count_ones(), words);
                    let (trace, sm) = check_stream(g, std::slice::from_ref(&a));
                    let s = shown(&trace);
                    assert_eq!(s.len(), 1);
                    assert_eq!(s[0].0, 5, "one pass: shown five cycles after acceptance");
                    assert!(s[0].1.last);
                    assert_eq!(sm.stats().replays, 0);
                }
            }
        }
    }
}

#[test]
fn all_lanes_on_one_word_take_one_pass_by_broadcast() {
    for g in geometries() {
        let at = 4 * (g.words() - 1);
        // Every lane loads the same word: one bank read, L − 1 broadcast lanes.
        let a = strided(&g, at, 0, 2, g.lane_mask(), false);
        let (trace, sm) = check_stream(g, std::slice::from_ref(&a));
        let s = shown(&trace);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].1.banks.count_ones(), 1);
        let word = u32::from_le_bytes([0, 1, 2, 3].map(|j| pattern(at + j)));
        assert!(s[0].1.data.iter().all(|&v| v == word), "{g:?}");
        assert_eq!(sm.stats().broadcast_lanes, g.lanes as u64 - 1);
        assert_eq!(sm.stats().passes_per_access[1], 1);

        // Lanes reading different bytes and halves of one word are one pass too.
        for size in [0u8, 1] {
            let n = size_bytes(size);
            let mut a = strided(&g, at, 0, size, g.lane_mask(), false);
            for l in 0..g.lanes {
                a.addr[l] = at + (l as u32 * n) % 4;
            }
            assert_eq!(schedule(&g, &a).len(), 1);
            check_stream(g, &[a]);
        }

        // All lanes storing to one word: one pass, one bank written, the highest lane's data.
        let s = strided(&g, at, 0, 2, g.lane_mask(), true);
        let (trace, sm) = check_stream(g, std::slice::from_ref(&s));
        assert_eq!(shown(&trace).len(), 1);
        assert_eq!(
            (0..4).map(|j| sm.peek_byte(at + j)).collect::<Vec<_>>(),
            lane_data(g.lanes - 1).to_le_bytes().to_vec()
        );
        assert_eq!(sm.stats().merged_store_lanes, g.lanes as u64 - 1);
    }
}

#[test]
fn lanes_in_one_bank_on_different_rows_take_one_pass_each() {
    for g in geometries()
        .into_iter()
        .filter(|g| g.rows() >= g.lanes as u32)
    {
        for store in [false, true] {
            // Stride of one row (4·N bytes): every lane in bank 0, lane l in row l.
            let a = strided(&g, 0, 4 * g.banks() as u32, 2, g.lane_mask(), store);
            let passes = schedule(&g, &a);
            assert_eq!(passes.len(), g.lanes, "{g:?}: N-way conflict");
            for (i, p) in passes.iter().enumerate() {
                assert_eq!(p.lanes, 1 << i, "lane order");
                assert_eq!(p.banks, 1);
                assert_eq!(p.rows[0], i as u32);
            }
            let (trace, sm) = check_stream(g, std::slice::from_ref(&a));
            let at: Vec<usize> = shown(&trace).iter().map(|x| x.0).collect();
            assert_eq!(
                at,
                (5..5 + g.lanes).collect::<Vec<_>>(),
                "one pass per cycle"
            );
            let st = sm.stats();
            assert_eq!(
                (st.passes, st.replays),
                (g.lanes as u64, g.lanes as u64 - 1)
            );
            assert_eq!(st.passes_per_access[g.lanes], 1);
            // Only the active lanes conflict: k active lanes, k passes.
            let mask = 0x8000_0421 & g.lane_mask();
            let a = Access { mask, ..a };
            assert_eq!(schedule(&g, &a).len(), mask.count_ones() as usize);
            check_stream(g, &[a]);
        }
    }
}

#[test]
fn two_way_conflict_takes_two_passes() {
    for g in geometries()
        .into_iter()
        .filter(|g| g.lanes >= 2 && g.rows() >= 2)
    {
        let half = g.lanes / 2;
        // Stride of two words: lanes l and l + L/2 share bank 2l mod N on rows 0 and 1.
        let a = strided(&g, 0, 8, 2, g.lane_mask(), false);
        let passes = schedule(&g, &a);
        assert_eq!(passes.len(), 2, "{g:?}");
        assert_eq!(passes[0].lanes, span(0, half));
        assert_eq!(passes[1].lanes, span(half, half));
        let (trace, sm) = check_stream(g, std::slice::from_ref(&a));
        assert_eq!(
            shown(&trace).iter().map(|x| x.0).collect::<Vec<_>>(),
            vec![5, 6]
        );
        assert_eq!(sm.stats().replays, 1);

        // One conflicting pair in an otherwise conflict-free access: the replay serves only the
        // higher lane of the pair.
        let mut b = strided(&g, 0, 4, 2, g.lane_mask(), true);
        b.addr[1] = 4 * g.banks() as u32; // bank 0, row 1: against lane 0 (bank 0, row 0)
        let passes = schedule(&g, &b);
        assert_eq!(passes.len(), 2);
        assert_eq!(passes[0].lanes, g.lane_mask() & !0b10);
        assert_eq!(passes[1].lanes, 0b10);
        assert_eq!(passes[1].banks, 1);
        check_stream(g, &[b]);
    }
}

#[test]
fn masked_lanes_are_never_served() {
    for g in geometries() {
        // No active lane: accepted, no pass, the input free again in the next cycle.
        let empty = strided(&g, 0, 4 * g.banks() as u32, 2, 0, true);
        let mut sm = unit(g);
        let trace = run(&mut sm, &[empty.clone(), empty.clone()], &[], 8);
        assert_eq!(accepted_at(&trace), vec![0, 1]);
        assert!(trace.iter().all(|t| t.in_ready && t.out.is_none()));
        assert_eq!(sm.stats().empty_accesses, 2);
        assert_eq!(sm.stats().passes_per_access[0], 2);
        assert!(sm.is_idle());
        // Mask bits above the lanes do not exist.
        if g.lanes < 32 {
            let above = Access {
                mask: !g.lane_mask(),
                ..empty.clone()
            };
            assert!(schedule(&g, &above).is_empty());
        }
        // Inactive lanes on other rows of an active lane's bank add no pass and are not served.
        let mut a = strided(&g, 0, 4, 2, 0b1, false);
        for l in 1..g.lanes {
            a.addr[l] = 4 * g.banks() as u32 * (l as u32 % g.rows()); // bank 0, other rows
        }
        let passes = schedule(&g, &a);
        assert_eq!(passes.len(), 1);
        assert_eq!(passes[0].lanes, 1);
        let (trace, _) = check_stream(g, std::slice::from_ref(&a));
        let s = shown(&trace);
        assert!(
            s[0].1.data[1..].iter().all(|&v| v == 0),
            "masked lanes show 0"
        );
    }
}

/// Turner's thesis, §5.3 and Fig. 5.4 (`shared/seeds/001_6af9b3a7aa7a35ca.txt`), on the
/// 4-wide SIMT of the figure: instruction A is issued with all four threads active; "Only two
/// of the four threads in instruction A have completed" (a BANK hazard: "some of the threads in
/// instruction A made forward progress"), the completed threads leave its private active mask
/// and A is replayed; then "the remaining threads in instruction A have completed … and
/// instruction A was freed". C runs with "only the first two threads" active. Here A's lanes 0,
/// 2 and 1, 3 share banks 0 and 1 on rows 0 and 1; each pass's `out_lanes` is the thesis's
/// completion signal.
#[test]
fn thesis_fig_5_4_replay_on_four_lanes() {
    let g = Geometry::new(&GpuConfig::tiny());
    assert_eq!((g.lanes, g.banks()), (4, 4));
    let a = Access::load(0xA, 2, false, 0b1111, vec![0x000, 0x004, 0x010, 0x014]);
    let c = Access::load(0xC, 2, false, 0b0011, vec![0x020, 0x024, 0x000, 0x000]);
    assert_eq!(
        (0..4)
            .map(|l| (g.bank_of(a.addr[l]), g.row_of(a.addr[l])))
            .collect::<Vec<_>>(),
        vec![(0, 0), (1, 0), (0, 1), (1, 1)]
    );
    let (trace, sm) = check_stream(g, &[a, c]);
    assert_eq!(accepted_at(&trace), vec![0, 3]);
    let s = shown(&trace);
    // The private active mask of A: 1111, then 1100 after the first pass, then empty.
    let mut pam = 0b1111u32;
    assert_eq!(
        (s[0].0, s[0].1.id, s[0].1.lanes, s[0].1.last),
        (5, 0xA, 0b0011, false)
    );
    pam &= !s[0].1.lanes;
    assert_eq!(pam, 0b1100, "two of four threads completed; A is replayed");
    assert_eq!(
        (s[1].0, s[1].1.id, s[1].1.lanes, s[1].1.last),
        (6, 0xA, 0b1100, true)
    );
    pam &= !s[1].1.lanes;
    assert_eq!(pam, 0, "the remaining threads completed; A is freed");
    // C: the first two threads, conflict-free, one pass. (The figure's C first made no progress
    // at all, an MSHR, COMQ or RSV hazard; a shared access always serves its lowest pending
    // lane: "The BANK hazard is the only hazard a shared memory operation may encounter".)
    assert_eq!(
        (s[2].0, s[2].1.id, s[2].1.lanes, s[2].1.last),
        (8, 0xC, 0b0011, true)
    );
    let st = sm.stats();
    assert_eq!((st.accesses, st.passes, st.replays), (2, 3, 1));
    assert_eq!(&st.passes_per_access[..3], &[0, 1, 1]);
}

// ---- values ----

#[test]
fn byte_and_half_stores_merge_into_one_word() {
    let g = Geometry::new(&GpuConfig::tiny());
    let w = 0x40; // word 16: bank 0, row 4
                  // Four bytes of one word from four lanes: one pass, one bank written, every byte merged.
    let bytes = Access::store(
        1,
        0,
        0b1111,
        vec![w + 3, w + 1, w, w + 2],
        vec![0x11, 0x22, 0x33, 0x44],
    );
    // Lanes 0 and 2 write byte 1 (lane 2 wins); lane 1 byte 0; lane 3 masked.
    let overlap = Access::store(
        2,
        0,
        0b0111,
        vec![w + 1, w, w + 1, w + 3],
        vec![0xAA, 0xBB, 0xCC, 0xDD],
    );
    // Halves: lane 3 overwrites lane 0's upper half; lane 1 writes the lower half; lane 2 in
    // another bank. Data bits above the size are ignored.
    let halves = Access::store(
        3,
        1,
        0b1111,
        vec![w + 2, w, w + 4, w + 2],
        vec![0xFFFF_1234, 0x0000_5678, 0x9ABC, 0x7777_DEF0],
    );
    // Each after `bytes` (0x1144_2233: lane 2's 0x33 at byte 0, lane 1's 0x22 at byte 1, …).
    for (a, word) in [
        (&bytes, 0x1144_2233u32),
        (&overlap, 0x1144_CCBB),
        (&halves, 0xDEF0_5678),
    ] {
        let passes = schedule(&g, a);
        assert_eq!(passes.len(), 1, "store {}: one pass", a.id);
        assert_eq!(passes[0].lanes, a.mask);
        let (trace, sm) = check_stream(g, &[bytes.clone(), a.clone()]);
        let now = u32::from_le_bytes([0, 1, 2, 3].map(|j| sm.peek_byte(w + j)));
        assert_eq!(now, word, "store {}", a.id);
        assert_eq!(shown(&trace).len(), 2);
    }
    // The merged count: `overlap` has three lanes on one word.
    let (_, sm) = check_stream(g, &[overlap]);
    assert_eq!(sm.stats().merged_store_lanes, 2);
    // Reading the merged word back through the unit.
    let load = Access::load(4, 2, false, 0b1, vec![w]);
    let (trace, _) = check_stream(g, &[bytes, halves, load]);
    assert_eq!(shown(&trace).last().unwrap().1.data[0], 0xDEF0_5678);
}

#[test]
fn loads_extend_by_size() {
    let g = Geometry::new(&GpuConfig::small());
    let w = 0x100;
    let word = 0x80F1_7F82u32;
    let store = Access::store(1, 2, 0b1, vec![w], vec![word]);
    let addr = [w, w + 1, w + 2, w + 3];
    let want: [(u8, bool, [u32; 4]); 5] = [
        (0, false, [0xFFFF_FF82, 0x7F, 0xFFFF_FFF1, 0xFFFF_FF80]),
        (0, true, [0x82, 0x7F, 0xF1, 0x80]),
        (1, false, [0x7F82, 0x7F82, 0xFFFF_80F1, 0xFFFF_80F1]),
        (1, true, [0x7F82, 0x7F82, 0x80F1, 0x80F1]),
        (3, true, [word; 4]),
    ];
    for (size, unsigned, v) in want {
        let load = Access::load(2, size, unsigned, 0b1111, addr.to_vec());
        let (trace, _) = check_stream(g, &[store.clone(), load]);
        let out = &shown(&trace)[1].1;
        assert_eq!(&out.data[..4], &v, "size {size} unsigned {unsigned}");
        assert!(out.data[4..].iter().all(|&x| x == 0));
    }
    // A misaligned lane (never sent by the LSU) is taken aligned down.
    let load = Access::load(2, 1, true, 0b1, vec![w + 3]);
    let (trace, _) = check_stream(g, &[store, load]);
    assert_eq!(shown(&trace)[1].1.data[0], 0x80F1);
}

#[test]
fn a_load_right_after_a_store_sees_it() {
    for g in presets() {
        let s = strided(&g, 0x40, 4 * g.banks() as u32, 2, g.lane_mask(), true);
        let l = Access {
            store: false,
            ..s.clone()
        };
        let (trace, _) = check_stream(g, &[s, l]);
        let out = shown(&trace);
        assert_eq!(out.len(), 2 * g.lanes);
        for (i, (_, p)) in out[g.lanes..].iter().enumerate() {
            assert_eq!(p.data[i], lane_data(i));
        }
    }
}

// ---- clear ----

#[test]
fn clear_zeroes_rows_across_banks_in_exact_cycles() {
    let g = Geometry::new(&GpuConfig::tiny()); // N = 4, R = 256
    let word = |sm: &SharedMemory, w: u32| {
        u32::from_le_bytes([0, 1, 2, 3].map(|j| sm.peek_byte(4 * w + j)))
    };
    let full = |sm: &mut SharedMemory| {
        for a in 0..g.smem_bytes {
            sm.poke_byte(a, 0xFF);
        }
    };

    // A row-aligned window of 40 bytes (words 64 … 73): 3 rows, zeroed at the ends of cycles
    // 2, 3, 4; clear_busy in cycles 1 … 4.
    let c = Clear {
        base: 0x100,
        bytes: 40,
    };
    assert_eq!(clear_rows(&g, &c), 3);
    let mut sm = SharedMemory::with_geometry(g);
    full(&mut sm);
    let mut busy = Vec::new();
    for cyc in 0..7 {
        let out = sm.step(&SmemInputs {
            clear: (cyc == 0).then_some(c),
            ..Default::default()
        });
        busy.push(out.clear_busy);
        let zeroed: Vec<bool> = (62..76).map(|w| word(&sm, w) == 0).collect();
        let upto = match cyc {
            0 | 1 => 64,
            2 => 68,
            3 => 72,
            _ => 74,
        };
        let want: Vec<bool> = (62..76).map(|w| (64..upto).contains(&w)).collect();
        assert_eq!(zeroed, want, "after cycle {cyc}");
    }
    assert_eq!(busy, vec![false, true, true, true, false, false, false]);
    assert_eq!((sm.stats().clears, sm.stats().clear_rows), (1, 3));

    // Not row-aligned: words 3 … 8 are rows 0 (bank 3), 1 (all), 2 (bank 0): 3 rows.
    let c = Clear {
        base: 12,
        bytes: 24,
    };
    assert_eq!(clear_rows(&g, &c), 3);
    let mut sm = SharedMemory::with_geometry(g);
    full(&mut sm);
    let trace = run(
        &mut sm,
        &[],
        &[(0, c), (1, Clear { base: 0, bytes: 64 })],
        8,
    );
    assert_eq!(
        cycles_of(&trace, |t| t.clear_busy),
        vec![1, 2, 3],
        "the second clear is ignored"
    );
    for w in 0..12 {
        assert_eq!(word(&sm, w) == 0, (3..9).contains(&w), "word {w}");
    }
    assert_eq!(sm.stats().clear_rows, 3);

    // Sizes are words: bits 1:0 ignored; 0 words does nothing.
    for bytes in [0, 3] {
        let mut sm = SharedMemory::with_geometry(g);
        full(&mut sm);
        let trace = run(&mut sm, &[], &[(0, Clear { base: 0x20, bytes })], 4);
        assert!(trace.iter().all(|t| !t.clear_busy));
        assert!((0..g.words()).all(|w| word(&sm, w) == u32::MAX));
        assert_eq!(sm.stats().clears, 0);
    }

    // Wrapping past the end: words W−2, W−1, 0, 1 are rows R−1 (banks 2, 3) and 0 (banks 0, 1).
    let c = Clear {
        base: g.smem_bytes - 8,
        bytes: 16,
    };
    assert_eq!(clear_rows(&g, &c), 2);
    let mut sm = SharedMemory::with_geometry(g);
    full(&mut sm);
    let trace = run(&mut sm, &[], &[(0, c)], 5);
    assert_eq!(cycles_of(&trace, |t| t.clear_busy), vec![1, 2]);
    for w in (0..4).chain(g.words() - 4..g.words()) {
        assert_eq!(word(&sm, w) == 0, w < 2 || w >= g.words() - 2, "word {w}");
    }

    // All of tiny's shared memory: 256 rows, clear_busy in cycles 1 … 256.
    let mut sm = SharedMemory::with_geometry(g);
    full(&mut sm);
    let trace = run(
        &mut sm,
        &[],
        &[(
            0,
            Clear {
                base: 0,
                bytes: g.smem_bytes,
            },
        )],
        260,
    );
    assert_eq!(
        cycles_of(&trace, |t| t.clear_busy),
        (1..=256).collect::<Vec<_>>()
    );
    assert!((0..g.words()).all(|w| word(&sm, w) == 0));

    // An access accepted with the clear waits for it: the clear's 3 rows, then the pass, shown
    // in 5 + 3; it reads zeros. Its passes wait while clearing (counted).
    let c = Clear {
        base: 0x100,
        bytes: 40,
    };
    let load = strided(&g, 0x100, 4, 2, 0b1111, false);
    let mut sm = unit(g);
    let trace = run(&mut sm, std::slice::from_ref(&load), &[(0, c)], 12);
    let s = shown(&trace);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].0, 8);
    assert_eq!(s[0].1.data, vec![0; 4]);
    assert_eq!(sm.stats().clear_wait_cycles, 3);
    assert_eq!(accepted_at(&trace), vec![0]);

    // A clear started while an access has passes left splits it (the SM never does this): the
    // passes selected before the clear's cycle read the old words, the later ones zeros.
    let x = strided(&g, 0, 16, 2, 0b1111, false); // bank 0, rows 0 … 3: passes in 1, 2, 3, 4
    let mut sm = unit(g);
    let trace = run(
        &mut sm,
        std::slice::from_ref(&x),
        &[(2, Clear { base: 0, bytes: 64 })],
        16,
    );
    let s = shown(&trace);
    // Passes 0, 1 selected in 1, 2; the clear's 4 rows in 3 … 6; passes 2, 3 in 7, 8.
    assert_eq!(
        s.iter().map(|x| x.0).collect::<Vec<_>>(),
        vec![5, 6, 11, 12]
    );
    let old = |a: u32| u32::from_le_bytes([0, 1, 2, 3].map(|j| pattern(a + j)));
    assert_eq!(s[0].1.data[0], old(0));
    assert_eq!(s[1].1.data[1], old(16));
    assert_eq!((s[2].1.data[2], s[3].1.data[3]), (0, 0));
}

// ---- timing, back-pressure, reset ----

#[test]
fn back_to_back_accesses_follow_the_page_example() {
    let g = Geometry::new(&GpuConfig::small());
    let x = strided(&g, 0, 8, 2, g.lane_mask(), false); // 2 passes
    let y = strided(&g, 0x200, 0, 2, g.lane_mask(), true); // 1 pass (one word)
    let e = strided(&g, 0, 4, 2, 0, false); // no active lane
    let z = strided(&g, 0x300, 4, 0, 0b1, false); // 1 pass
    let (trace, sm) = check_stream(g, &[x, y, e, z]);
    assert_eq!(accepted_at(&trace), vec![0, 3, 5, 6]);
    assert_eq!(
        shown(&trace).iter().map(|x| x.0).collect::<Vec<_>>(),
        vec![5, 6, 8, 11]
    );
    let ready = cycles_of(&trace, |t| t.in_ready);
    assert_eq!(&ready[..4], &[0, 3, 5, 6]);
    let st = sm.stats();
    assert_eq!(
        (st.accesses, st.empty_accesses, st.passes, st.replays),
        (3, 1, 4, 1)
    );
    assert_eq!(st.active_lanes, 8 + 8 + 1);
    assert_eq!(&st.passes_per_access[..3], &[1, 2, 1]);
    assert_eq!(st.bank_words, 8 + 1 + 1);
    assert_eq!(st.merged_store_lanes, 7);
    assert!((st.mean_passes_per_access() - 4.0 / 3.0).abs() < 1e-12);
}

#[test]
fn back_pressure_holds_the_offered_access() {
    let g = Geometry::new(&GpuConfig::tiny());
    let x = strided(&g, 0, 16, 2, 0b1111, true); // 4 passes (bank 0, rows 0 … 3)
    let y = strided(&g, 0, 16, 2, 0b1111, false); // reads them back: 4 passes
    let mut sm = unit(g);
    // y is offered from cycle 1 on and held (the harness offers the same access until taken).
    let trace = run(&mut sm, &[x, y], &[], 16);
    assert_eq!(
        cycles_of(&trace, |t| t.in_ready)[..2],
        [0, 5],
        "in_ready low while x has passes left to select"
    );
    assert_eq!(accepted_at(&trace), vec![0, 5]);
    let s = shown(&trace);
    assert_eq!(
        s.iter().map(|x| x.0).collect::<Vec<_>>(),
        vec![5, 6, 7, 8, 10, 11, 12, 13]
    );
    for (i, (_, p)) in s[4..].iter().enumerate() {
        assert_eq!(p.data[i], lane_data(i), "y reads x's stores");
    }
    // A clear does not lower in_ready: an access is accepted while clearing and waits.
    let mut sm = unit(g);
    sm.step(&SmemInputs {
        clear: Some(Clear {
            base: 0,
            bytes: 160,
        }),
        ..Default::default()
    });
    let z = strided(&g, 0x400, 4, 2, 0b1111, false);
    let trace = run(&mut sm, &[z], &[], 20); // trace[i] is cycle i + 1
    assert!(trace[0].clear_busy && trace[0].in_ready);
    assert_eq!(
        accepted_at(&trace),
        vec![0],
        "accepted in cycle 1, while clearing"
    );
    // 160 bytes = 10 rows: clear_busy in cycles 1 … 10, the pass selected in 11, shown in 15.
    assert_eq!(
        cycles_of(&trace, |t| t.clear_busy),
        (0..10).collect::<Vec<_>>()
    );
    assert_eq!(cycles_of(&trace, |t| t.out.is_some()), vec![14]);
    assert_eq!(sm.stats().clear_wait_cycles, 9);
}

#[test]
fn reset_empties_the_pipeline_and_keeps_the_memory() {
    let g = Geometry::new(&GpuConfig::tiny());
    let x = strided(&g, 0, 16, 2, 0b1111, true); // 4 passes: writes at the ends of 2, 3, 4, 5
    let mut sm = unit(g);
    run(&mut sm, std::slice::from_ref(&x), &[], 3);
    // Cycle 3: reset, with an access offered and a clear; pass 1 is in S, pass 2 not selected.
    let out = sm.step(&SmemInputs {
        reset: true,
        input: Some(x.clone()),
        clear: Some(Clear { base: 0, bytes: 64 }),
    });
    assert_eq!(
        out,
        SmemOutputs::default(),
        "nothing is shown or accepted in a reset cycle"
    );
    assert!(sm.is_idle());
    // Lane 0's store was written (end of cycle 2); lane 1's, in S during the reset, was not.
    assert_eq!(sm.peek_byte(0), lane_data(0) as u8);
    assert_eq!(sm.peek_byte(16), pattern(16));
    assert_eq!(sm.peek_byte(32), pattern(32));
    let st = sm.stats().clone();
    assert_eq!((st.accesses, st.passes, st.clears), (1, 0, 0));
    // The unit works as from new; the memory is kept.
    let y = strided(&g, 0, 16, 2, 0b1111, false);
    let trace = run(&mut sm, &[y], &[], 12);
    let s = shown(&trace);
    assert_eq!(s.iter().map(|x| x.0).collect::<Vec<_>>(), vec![5, 6, 7, 8]);
    assert_eq!(s[0].1.data[0], lane_data(0));
    assert_eq!(
        s[1].1.data[1],
        u32::from_le_bytes([16, 17, 18, 19].map(pattern))
    );
    assert_eq!(
        sm.stats().passes_per_access[4],
        1,
        "the reset access never completed"
    );
}

#[test]
fn outputs_depend_only_on_registers_and_reset() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x0D0E);
    for g in presets() {
        let mut sm = unit(g);
        for id in 0..200u16 {
            let a = random_access(&mut rng, &g, id);
            let inp = SmemInputs {
                reset: false,
                input: rng.gen_bool(0.7).then(|| a.clone()),
                clear: rng.gen_bool(0.05).then(|| Clear {
                    base: rng.gen(),
                    bytes: rng.gen_range(0..64),
                }),
            };
            let other = SmemInputs {
                reset: false,
                input: if inp.input.is_some() { None } else { Some(a) },
                clear: if inp.clear.is_some() {
                    None
                } else {
                    Some(Clear { base: 0, bytes: 64 })
                },
            };
            let mut twin = sm.clone();
            let want = sm.outputs(false);
            assert_eq!(sm.step(&inp), want);
            assert_eq!(twin.step(&other), want);
        }
    }
}

#[test]
fn flip_flop_counts_of_the_presets() {
    // (A, S, R, Q, O, clear, total, the RTL's pairwise flags) per preset.
    let f: Vec<[u64; 8]> = presets()
        .iter()
        .map(|g| {
            let f = g.flops();
            [
                f.access,
                f.select,
                f.read,
                f.word,
                f.out,
                f.clear,
                f.total(),
                f.same_flags,
            ]
        })
        .collect();
    assert_eq!(
        f,
        vec![
            [201, 207, 46, 174, 155, 21, 804, 12],
            [397, 407, 78, 334, 291, 25, 1532, 56],
            [1589, 1623, 310, 1334, 1107, 29, 5992, 992],
        ]
    );
    let g = presets();
    assert_eq!(
        g.iter()
            .map(|g| (g.banks(), g.rows(), g.addr_bits(), g.row_bits()))
            .collect::<Vec<_>>(),
        vec![(4, 256, 12, 8), (8, 512, 14, 9), (32, 512, 16, 9)]
    );
}

// ---- seeded random ----

/// A random access: sizes 0–3, masks from empty to full, addresses as unit stride, a stride of
/// a few words, one word, lanes on a few rows of a few banks, or anywhere; rarely misaligned.
fn random_access(rng: &mut ChaCha8Rng, g: &Geometry, id: u16) -> Access {
    let size = rng.gen_range(0..4u8);
    let n = size_bytes(size);
    let mask = match rng.gen_range(0..8) {
        0 => 0,
        1 => 1 << rng.gen_range(0..g.lanes),
        2 | 3 => g.lane_mask(),
        _ => rng.gen::<u32>() & g.lane_mask(),
    };
    let base = rng.gen_range(0..g.words()) * 4 + rng.gen_range(0..4 / n) * n;
    let stride_words = rng.gen_range(1..=2 * g.banks() as u32 + 1);
    let rows = rng.gen_range(1..=4u32).min(g.rows());
    let pattern = rng.gen_range(0..6);
    let misaligned = rng.gen_range(0..10) == 0;
    let addr = (0..g.lanes as u32)
        .map(|l| {
            let a = match pattern {
                0 => base + l * n,
                1 => base + 4 * l * stride_words,
                2 => base,
                3 | 4 => {
                    let w = rng.gen_range(0..rows) * g.banks() as u32
                        + rng.gen_range(0..g.banks() as u32);
                    4 * w + rng.gen_range(0..4 / n) * n
                }
                _ => rng.gen_range(0..g.smem_bytes / n) * n,
            };
            let a = if misaligned {
                a + rng.gen_range(0..n)
            } else {
                a
            };
            a & (g.smem_bytes - 1)
        })
        .collect();
    Access {
        id,
        store: rng.gen_bool(0.4),
        size,
        unsigned: rng.gen(),
        mask,
        addr,
        data: (0..g.lanes).map(|_| rng.gen()).collect(),
    }
}

/// The pure function against its rules: every active lane served exactly once, each pass
/// serving in every bank one row only, the lowest pending lane always served, the count the
/// largest number of distinct rows of a bank.
#[test]
fn random_schedules_keep_every_rule() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5EED_0B4C);
    for case in 0..6000 {
        let gs = geometries();
        let g = gs[case % gs.len()];
        let a = random_access(&mut rng, &g, case as u16);
        let passes = schedule(&g, &a);
        assert_eq!(passes.len(), max_rows_per_bank(&g, &a), "case {case}");
        let mask = a.mask & g.lane_mask();
        let mut pending = mask;
        for p in &passes {
            assert_eq!(
                p.lanes & !pending,
                0,
                "case {case}: lane served twice or inactive"
            );
            assert_eq!(
                p.lanes.trailing_zeros(),
                pending.trailing_zeros(),
                "case {case}: progress"
            );
            for l in (0..g.lanes).filter(|&l| pending >> l & 1 == 1) {
                let b = g.bank_of(a.addr[l]);
                let on_row = p.banks >> b & 1 == 1 && p.rows[b] == g.row_of(a.addr[l]);
                assert_eq!(p.lanes >> l & 1 == 1, on_row, "case {case}: lane {l}");
            }
            // A bank's row is its lowest pending lane's.
            for b in (0..g.banks()).filter(|&b| p.banks >> b & 1 == 1) {
                let lead = (0..g.lanes)
                    .find(|&l| pending >> l & 1 == 1 && g.bank_of(a.addr[l]) == b)
                    .expect("an accessed bank has a pending lane");
                assert_eq!(p.rows[b], g.row_of(a.addr[lead]));
            }
            pending &= !p.lanes;
        }
        assert_eq!(pending, 0, "case {case}");
    }
}

/// Back-to-back streams: exact timing, passes, values and final contents (`check_stream`).
#[test]
fn random_streams_follow_the_timing_rule_and_the_flat_memory() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    for case in 0..90 {
        let g = geometries()[case % 9];
        let accesses: Vec<Access> = (0..30).map(|i| random_access(&mut rng, &g, i)).collect();
        check_stream(g, &accesses);
    }
}

/// Random `in_valid` and clears (started while no access is in A, as the SM does): every load
/// returns what a flat byte memory returns with the same store and clear order, every pass
/// exactly once and in order, at least five cycles after its access's acceptance, the pass count
/// of each access the largest number of distinct rows of a bank; the contents equal the flat
/// memory's at the end; the counters add up.
#[test]
fn random_traffic_with_clears_matches_a_flat_memory() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xF1A7);
    let mut total = SmemStats::new(32);
    for case in 0..120 {
        let g = geometries()[case % 9];
        let accesses: Vec<Access> = (0..40).map(|i| random_access(&mut rng, &g, i)).collect();
        let p_valid = [0.3, 0.8, 1.0][case % 3];
        let p_clear = [0.0, 0.05, 0.2][case % 3];
        let mut sm = unit(g);
        let mut flat = Flat::new(&g);
        let mut expected: Vec<Vec<PassResponse>> = Vec::new(); // per accepted access
        let mut accepted_cycle = Vec::new();
        let mut got: Vec<(usize, PassResponse)> = Vec::new();
        let (mut next, mut cycle, mut clears) = (0, 0usize, 0u64);
        while next < accesses.len() || !sm.is_idle() {
            cycle += 1;
            assert!(cycle < 100_000, "case {case}: no progress");
            let ready = sm.outputs(false).in_ready;
            let clear = (ready && rng.gen_bool(p_clear)).then(|| Clear {
                base: rng.gen_range(0..g.smem_bytes),
                bytes: rng.gen_range(0..=g.smem_bytes / 2),
            });
            let offer = next < accesses.len() && rng.gen_bool(p_valid);
            let inp = SmemInputs {
                reset: false,
                input: offer.then(|| accesses[next].clone()),
                clear,
            };
            let clearing_before = sm.outputs(false).clear_busy;
            let out = sm.step(&inp);
            // The flat model: a clear started now comes before an access accepted now.
            if let Some(c) = clear {
                if !clearing_before && c.bytes >> 2 != 0 {
                    flat.clear(&g, &c);
                    clears += 1;
                }
            }
            if out.in_ready && offer {
                let a = &accesses[next];
                let values = flat.perform(&g, a);
                let passes = schedule(&g, a);
                assert_eq!(passes.len(), max_rows_per_bank(&g, a));
                expected.push(
                    passes
                        .iter()
                        .enumerate()
                        .map(|(i, p)| PassResponse {
                            id: a.id,
                            store: a.store,
                            lanes: p.lanes,
                            banks: p.banks,
                            data: (0..g.lanes)
                                .map(|l| {
                                    if !a.store && p.lanes >> l & 1 == 1 {
                                        values[l]
                                    } else {
                                        0
                                    }
                                })
                                .collect(),
                            last: i + 1 == passes.len(),
                        })
                        .collect(),
                );
                accepted_cycle.push(cycle);
                next += 1;
            }
            if let Some(p) = out.out {
                got.push((cycle, p));
            }
        }
        let want: Vec<PassResponse> = expected.iter().flatten().cloned().collect();
        assert_eq!(
            got.iter().map(|x| x.1.clone()).collect::<Vec<_>>(),
            want,
            "case {case}"
        );
        // Timing bounds: a pass is never shown before acceptance + 5, and passes of one
        // access come in consecutive cycles unless a clear came between.
        let mut k = 0;
        for (j, passes) in expected.iter().enumerate() {
            for i in 0..passes.len() {
                assert!(
                    got[k].0 >= accepted_cycle[j] + 5 + i,
                    "case {case}: too early"
                );
                if i > 0 {
                    assert_eq!(
                        got[k].0,
                        got[k - 1].0 + 1,
                        "case {case}: one pass per cycle"
                    );
                }
                k += 1;
            }
        }
        for a in 0..g.smem_bytes {
            assert_eq!(
                sm.peek_byte(a),
                flat.bytes[a as usize],
                "case {case}: byte {a:#x}"
            );
        }
        let st = sm.stats();
        let empty = accesses
            .iter()
            .filter(|a| a.mask & g.lane_mask() == 0)
            .count() as u64;
        assert_eq!((st.accesses, st.empty_accesses), (40 - empty, empty));
        assert_eq!(st.passes, want.len() as u64);
        assert_eq!(st.replays, st.passes - st.accesses);
        assert_eq!(st.passes_per_access.iter().sum::<u64>(), 40);
        let weighted: u64 = st
            .passes_per_access
            .iter()
            .enumerate()
            .map(|(k, &v)| k as u64 * v)
            .sum();
        assert_eq!(weighted, st.passes);
        let lanes: u64 = want.iter().map(|p| u64::from(p.lanes.count_ones())).sum();
        assert_eq!(
            st.bank_words + st.broadcast_lanes + st.merged_store_lanes,
            lanes
        );
        assert_eq!(st.clears, clears);
        total.replays += st.replays;
        total.broadcast_lanes += st.broadcast_lanes;
        total.merged_store_lanes += st.merged_store_lanes;
        total.clears += st.clears;
        total.clear_wait_cycles += st.clear_wait_cycles;
    }
    // The traffic reached every case: conflicts, broadcasts, merged stores, clears, and
    // accesses waiting for a clear.
    assert!(total.replays > 1000, "{total:?}");
    assert!(
        total.broadcast_lanes > 1000 && total.merged_store_lanes > 500,
        "{total:?}"
    );
    assert!(
        total.clears > 50 && total.clear_wait_cycles > 50,
        "{total:?}"
    );
}
