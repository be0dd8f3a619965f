//! `Coalescer`: one warp's global access becomes one L1 request per distinct line touched by its
//! active lanes, at most one per cycle (docs/microarch/coalescer.md gives every cycle; this RTL
//! is written from that page, independently of its reference `sim/src/coalescer.rs`).
//!
//! Three register stages, as on the page ("State"), plus the timing registers of its "Hardware
//! and timing paths":
//!
//! * **A** (access): `busy`, `a_tag`, `a_store`, `a_size`, per lane `pend`, `a_line`, `a_off`
//!   (the offset with the bits below the size cleared), `a_data`; and the pairwise same-line
//!   flags `same[l][m]` (`l < m`), compared once at acceptance from `in_addr`, so that
//!   selecting a request is a priority pick and an AND-OR, with no compare of line numbers.
//! * **S** (selected request): `s_valid`, `s_tag`, `s_store`, `s_size`, `s_line`, `s_last`, per
//!   lane `s_lanes`, `s_off` and the lane's coverage decoded during select: `s_wsel` (one-hot
//!   word of the line, `B/4` bits), `s_be` (four byte enables), `s_rep` (the store data
//!   replicated: a byte four times, a half twice; zero for a load).
//! * **O** (output): `o_valid` and one register per `out_*` field.
//!
//! Per cycle: **select** (A → S: the lowest pending lane, every pending lane on its line, the
//! line through a one-hot multiplexer; "last request" = every two pending lanes on one line,
//! from the pair flags beside the pick), **merge** (S → O: per line byte the highest served lane
//! covering it, a tree of 2:1 multiplexers whose upper half wins when one of its lanes covers
//! the byte; the byte mask an OR tree), **accept** (input → A). Every output is a flip-flop
//! gated only by `reset`.
//!
//! Widths depend on `line_bytes` (`OB`, `LW = 32 − OB`, `B`, `8·B`), which rust-hdl needs as
//! constants: [`Coalescer`] is generic over them and [`coalescer_verilog`] instantiates the
//! configuration's. The lane count is a run-time parameter (every per-lane port is a `Vec`).
//!
//! Written against rust-hdl 0.46 (../shared/BRIEF.md "RTL rules"): typed constants, per-lane
//! state in [`RegVec`]s, and the bit-level logic (slicing at `OB`, the triangle of lane pairs,
//! the multiplexer tree) in small custom Verilog leaves.

// rust-hdl's `#[hdl_gen]` only translates `for i in a..b` loops with indexing.
#![allow(clippy::needless_range_loop)]

use rust_hdl::prelude::*;
use warpforge_config::GpuConfig;

use crate::one_hot::OneHotMux;
use crate::scoreboard::RegVec;
use crate::{rename_top, verilog_of, HdlError};

/// Width of the opaque tag carried from `in_tag` to every request's `out_tag` (`TW`).
pub const TAG_BITS: usize = 16;

/// Index of the pair of lanes `l < m` in the flat triangle of same-line flags.
pub fn pair_index(l: usize, m: usize) -> usize {
    assert!(l < m, "pair ({l}, {m})");
    m * (m - 1) / 2 + l
}

/// Lanes `l < m` of the pairs, in [`pair_index`] order.
fn pairs(lanes: usize) -> Vec<(usize, usize)> {
    (1..lanes)
        .flat_map(|m| (0..m).map(move |l| (l, m)))
        .collect()
}

/// `{x[n-1], …, x[0]}` of `name$i`.
fn cat(name: &str, n: usize) -> String {
    let parts: Vec<String> = (0..n).rev().map(|i| format!("{name}${i}")).collect();
    format!("{{{}}}", parts.join(", "))
}

/// Accept decode (input → A): per lane the line number `addr >> OB` and the offset with the
/// bits below the size cleared; the size code with 3 taken as 2; whether any lane is active;
/// and for every pair of lanes `l < m` whether their lines are equal (`same[pair_index(l, m)]`).
#[derive(LogicBlock)]
pub struct AcceptDecode<const OB: usize, const LW: usize> {
    pub addr: Vec<Signal<In, Bits<32>>>,
    pub mask: Vec<Signal<In, Bit>>,
    pub size: Signal<In, Bits<2>>,
    pub line: Vec<Signal<Out, Bits<LW>>>,
    pub off: Vec<Signal<Out, Bits<OB>>>,
    pub same: Vec<Signal<Out, Bit>>,
    pub size_c: Signal<Out, Bits<2>>,
    pub any: Signal<Out, Bit>,
}

impl<const OB: usize, const LW: usize> AcceptDecode<OB, LW> {
    pub fn new(lanes: usize) -> Self {
        assert!(OB >= 2 && OB + LW == 32, "AcceptDecode<{OB}, {LW}>");
        AcceptDecode {
            addr: crate::sigs(lanes),
            mask: crate::sigs(lanes),
            size: Default::default(),
            line: crate::sigs(lanes),
            off: crate::sigs(lanes),
            same: crate::sigs(pairs(lanes).len()),
            size_c: Default::default(),
            any: Default::default(),
        }
    }
}

/// Bytes of size code `size` (3 as 2).
fn size_bytes(size: u64) -> u64 {
    match size & 3 {
        0 => 1,
        1 => 2,
        _ => 4,
    }
}

impl<const OB: usize, const LW: usize> Logic for AcceptDecode<OB, LW> {
    fn update(&mut self) {
        let size = self.size.val().index() as u64;
        let n = size_bytes(size);
        for l in 0..self.addr.len() {
            let a = self.addr[l].val().index() as u64;
            self.line[l].next = (a >> OB).into();
            self.off[l].next = ((a & ((1 << OB) - 1)) & !(n - 1)).into();
        }
        for (p, (l, m)) in pairs(self.addr.len()).into_iter().enumerate() {
            self.same[p].next =
                self.addr[l].val().index() >> OB == self.addr[m].val().index() >> OB;
        }
        self.size_c.next = (size.min(2)).into();
        self.any.next = self.mask.iter().any(|m| m.val());
    }

    fn connect(&mut self) {
        for s in &mut self.line {
            s.connect();
        }
        for s in &mut self.off {
            s.connect();
        }
        for s in &mut self.same {
            s.connect();
        }
        self.size_c.connect();
        self.any.connect();
    }

    fn hdl(&self) -> Verilog {
        let lanes = self.addr.len();
        let keep = if OB > 2 {
            format!("{{{{{}{{1'b1}}}}, ~size[1], ~(size[1] | size[0])}}", OB - 2)
        } else {
            "{~size[1], ~(size[1] | size[0])}".to_string()
        };
        let mut t = format!(
            "// Accept decode of {lanes} lanes: line numbers, offsets without the bits below \
             the size, same-line flags of the {} pairs.\n\
             wire [{}:0] keep = {keep};\n\
             always @(*) size_c = {{size[1], size[0] & ~size[1]}};\n\
             always @(*) any = |{};\n",
            self.same.len(),
            OB - 1,
            cat("mask", lanes)
        );
        for l in 0..lanes {
            t.push_str(&format!(
                "always @(*) line${l} = addr${l}[31:{OB}];\n\
                 always @(*) off${l} = addr${l}[{}:0] & keep;\n",
                OB - 1
            ));
        }
        for (p, (l, m)) in pairs(lanes).into_iter().enumerate() {
            t.push_str(&format!(
                "always @(*) same${p} = addr${l}[31:{OB}] == addr${m}[31:{OB}];\n"
            ));
        }
        Verilog::Custom(t)
    }
}

/// Select (A → S): `first` = the lowest pending lane (one-hot); `hit[l]` = lane `l` is pending
/// and on `first`'s line (from the registered pair flags); `last` = no pending lane is left
/// after `hit`, i.e. all pending lanes are on one line: computed from the pairs directly, so
/// that it does not wait for `first` (the path into `busy`).
#[derive(LogicBlock)]
pub struct SelectLanes {
    pub pend: Vec<Signal<In, Bit>>,
    pub same: Vec<Signal<In, Bit>>,
    pub first: Vec<Signal<Out, Bit>>,
    pub hit: Vec<Signal<Out, Bit>>,
    pub last: Signal<Out, Bit>,
}

impl SelectLanes {
    pub fn new(lanes: usize) -> Self {
        assert!(lanes >= 1, "SelectLanes of no lane");
        SelectLanes {
            pend: crate::sigs(lanes),
            same: crate::sigs(pairs(lanes).len()),
            first: crate::sigs(lanes),
            hit: crate::sigs(lanes),
            last: Default::default(),
        }
    }
}

impl Logic for SelectLanes {
    fn update(&mut self) {
        let n = self.pend.len();
        let s = (0..n).find(|&l| self.pend[l].val());
        let mut left = false;
        for l in 0..n {
            self.first[l].next = s == Some(l);
            let hit = self.pend[l].val()
                && match s {
                    Some(s) if s == l => true,
                    Some(s) if s < l => self.same[pair_index(s, l)].val(),
                    _ => false,
                };
            self.hit[l].next = hit;
            left |= self.pend[l].val() && !hit;
        }
        self.last.next = !left;
    }

    fn connect(&mut self) {
        for s in self.first.iter_mut().chain(self.hit.iter_mut()) {
            s.connect();
        }
        self.last.connect();
    }

    fn hdl(&self) -> Verilog {
        let n = self.pend.len();
        let m1 = n - 1;
        let mut t = format!(
            "// Select among {n} lanes: the lowest pending lane f, the pending lanes on its line h.\n\
             wire [{m1}:0] p = {};\nwire [{m1}:0] f;\nwire [{m1}:0] h;\nassign f[0] = p[0];\n",
            cat("pend", n)
        );
        for m in 1..n {
            t.push_str(&format!("assign f[{m}] = p[{m}] & ~(|p[{}:0]);\n", m - 1));
        }
        for l in 0..n {
            let mut terms = vec![format!("f[{l}]")];
            for s in 0..l {
                terms.push(format!("(f[{s}] & same${})", pair_index(s, l)));
            }
            t.push_str(&format!(
                "assign h[{l}] = p[{l}] & ({});\nalways @(*) first${l} = f[{l}];\n\
                 always @(*) hit${l} = h[{l}];\n",
                terms.join(" | ")
            ));
        }
        // The last request: every two pending lanes are on one line (line equality is
        // transitive), an AND tree beside the priority pick instead of after it.
        let mut terms = vec!["1'b1".to_string()];
        for (q, (l, m)) in pairs(n).into_iter().enumerate() {
            terms.push(format!("~(p[{l}] & p[{m}] & ~same${q})"));
        }
        t.push_str(&format!("always @(*) last = &{{{}}};\n", terms.join(", ")));
        Verilog::Custom(t)
    }
}

/// Coverage decode (A → S, beside the select): per lane the one-hot word of the line its
/// access is in (`wsel`, `NW = B/4` bits), the byte enables in that word (`be`) and the store
/// data replicated to every byte position it can land on (`rep`: a byte four times, a half
/// twice, zero for a load), so that line byte `k` takes byte `k mod 4` of `rep`.
#[derive(LogicBlock)]
pub struct LaneDecode<const OB: usize, const NW: usize> {
    pub off: Vec<Signal<In, Bits<OB>>>,
    pub data: Vec<Signal<In, Bits<32>>>,
    /// Size code 0–2 (as kept in A).
    pub size: Signal<In, Bits<2>>,
    pub store: Signal<In, Bit>,
    pub wsel: Vec<Signal<Out, Bits<NW>>>,
    pub be: Vec<Signal<Out, Bits<4>>>,
    pub rep: Vec<Signal<Out, Bits<32>>>,
}

impl<const OB: usize, const NW: usize> LaneDecode<OB, NW> {
    pub fn new(lanes: usize) -> Self {
        assert!(OB >= 2 && NW == 1 << (OB - 2), "LaneDecode<{OB}, {NW}>");
        LaneDecode {
            off: crate::sigs(lanes),
            data: crate::sigs(lanes),
            size: Default::default(),
            store: Default::default(),
            wsel: crate::sigs(lanes),
            be: crate::sigs(lanes),
            rep: crate::sigs(lanes),
        }
    }
}

impl<const OB: usize, const NW: usize> Logic for LaneDecode<OB, NW> {
    fn update(&mut self) {
        let size = self.size.val().index() as u64;
        for l in 0..self.off.len() {
            let off = self.off[l].val().index() as u64;
            let d = self.data[l].val().index() as u64;
            self.wsel[l].next = Bits::<NW>::default().replace_bit((off >> 2) as usize, true);
            let be: u64 = match size {
                0 => 1 << (off & 3),
                1 => 3 << (off & 2),
                _ => 15,
            };
            self.be[l].next = be.into();
            let rep: u64 = match size {
                0 => (d & 0xff) * 0x0101_0101,
                1 => (d & 0xffff) * 0x0001_0001,
                _ => d,
            };
            let rep = if self.store.val() { rep } else { 0 };
            self.rep[l].next = rep.into();
        }
    }

    fn connect(&mut self) {
        for s in &mut self.wsel {
            s.connect();
        }
        for s in &mut self.be {
            s.connect();
        }
        for s in &mut self.rep {
            s.connect();
        }
    }

    fn hdl(&self) -> Verilog {
        let lanes = self.off.len();
        let mut t = format!(
            "// Coverage decode of {lanes} lanes: word of the line, byte enables, replicated \
             store data.\n"
        );
        for l in 0..lanes {
            if NW == 1 {
                t.push_str(&format!("always @(*) wsel${l} = 1'b1;\n"));
            } else {
                t.push_str(&format!(
                    "always @(*) wsel${l} = {{{{{}{{1'b0}}}}, 1'b1}} << off${l}[{}:2];\n",
                    NW - 1,
                    OB - 1
                ));
            }
            t.push_str(&format!(
                "always @(*) be${l} = size[1] ? 4'b1111 : size[0] ? (off${l}[1] ? 4'b1100 : \
                 4'b0011) : (4'b0001 << off${l}[1:0]);\n\
                 always @(*) rep${l} = {{32{{store}}}} & (size[1] ? data${l} : size[0] ? \
                 {{2{{data${l}[15:0]}}}} : {{4{{data${l}[7:0]}}}});\n"
            ));
        }
        Verilog::Custom(t)
    }
}

/// Merge (S → O): `bytes[k]` = some served lane covers line byte `k`; `data` byte `k` = byte
/// `k mod 4` of `rep` of the highest served lane covering `k`, 0 where none does. A binary tree
/// over the lanes (lane `l` is leaf `L + l` of a heap): at every node the upper child wins
/// where it covers the byte.
#[derive(LogicBlock)]
pub struct Merge<const NW: usize, const B: usize, const DB: usize> {
    pub lanes: Vec<Signal<In, Bit>>,
    pub wsel: Vec<Signal<In, Bits<NW>>>,
    pub be: Vec<Signal<In, Bits<4>>>,
    pub rep: Vec<Signal<In, Bits<32>>>,
    pub bytes: Signal<Out, Bits<B>>,
    pub data: Signal<Out, Bits<DB>>,
}

impl<const NW: usize, const B: usize, const DB: usize> Merge<NW, B, DB> {
    pub fn new(lanes: usize) -> Self {
        assert!(
            lanes.is_power_of_two() && B == 4 * NW && DB == 8 * B,
            "Merge<{NW}, {B}, {DB}> of {lanes} lanes"
        );
        Merge {
            lanes: crate::sigs(lanes),
            wsel: crate::sigs(lanes),
            be: crate::sigs(lanes),
            rep: crate::sigs(lanes),
            bytes: Default::default(),
            data: Default::default(),
        }
    }
}

impl<const NW: usize, const B: usize, const DB: usize> Logic for Merge<NW, B, DB> {
    fn update(&mut self) {
        let mut bytes = Bits::<B>::default();
        let mut data = Bits::<DB>::default();
        for k in 0..B {
            for l in 0..self.lanes.len() {
                let covers = self.lanes[l].val()
                    && self.wsel[l].val().get_bit(k / 4)
                    && self.be[l].val().get_bit(k % 4);
                if covers {
                    bytes = bytes.replace_bit(k, true);
                    let byte = self.rep[l].val().index() >> (8 * (k % 4));
                    for b in 0..8 {
                        data = data.replace_bit(8 * k + b, byte >> b & 1 == 1);
                    }
                }
            }
        }
        self.bytes.next = bytes;
        self.data.next = data;
    }

    fn connect(&mut self) {
        self.bytes.connect();
        self.data.connect();
    }

    fn hdl(&self) -> Verilog {
        let n = self.lanes.len();
        let mut t = format!(
            "// Merge of {n} lanes into a line of {B} bytes: per byte the highest covering lane \
             (a tree of 2:1 multiplexers), the byte mask an OR tree.\ngenvar k;\n"
        );
        for node in (1..2 * n).rev() {
            t.push_str(&format!(
                "wire [{}:0] a_{node};\nwire [{}:0] v_{node};\n",
                B - 1,
                DB - 1
            ));
            if node >= n {
                let l = node - n;
                let words = if NW == 1 {
                    format!("{{4{{wsel${l}}}}}")
                } else {
                    let parts: Vec<String> = (0..NW)
                        .rev()
                        .map(|w| format!("{{4{{wsel${l}[{w}]}}}}"))
                        .collect();
                    format!("{{{}}}", parts.join(", "))
                };
                t.push_str(&format!(
                    "assign a_{node} = {{{B}{{lanes${l}}}}} & {{{NW}{{be${l}}}}} & {words};\n\
                     generate for (k = 0; k < {B}; k = k + 1) begin : g_v{node}\n\
                     \x20  assign v_{node}[8*k +: 8] = a_{node}[k] ? rep${l}[8*(k%4) +: 8] : 8'd0;\n\
                     end endgenerate\n"
                ));
            } else {
                let (lo, hi) = (2 * node, 2 * node + 1);
                t.push_str(&format!(
                    "assign a_{node} = a_{hi} | a_{lo};\n\
                     generate for (k = 0; k < {B}; k = k + 1) begin : g_v{node}\n\
                     \x20  assign v_{node}[8*k +: 8] = a_{hi}[k] ? v_{hi}[8*k +: 8] : v_{lo}[8*k +: 8];\n\
                     end endgenerate\n"
                ));
            }
        }
        t.push_str("always @(*) bytes = a_1;\nalways @(*) data = v_1;\n");
        Verilog::Custom(t)
    }
}

/// The coalescer for lines of `B = 2^OB` bytes (`LW = 32 − OB`, `NW = B/4`, `DB = 8·B`).
#[derive(LogicBlock)]
pub struct Coalescer<
    const OB: usize,
    const LW: usize,
    const NW: usize,
    const B: usize,
    const DB: usize,
> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    pub in_tag: Signal<In, Bits<TAG_BITS>>,
    pub in_store: Signal<In, Bit>,
    pub in_size: Signal<In, Bits<2>>,
    pub in_mask: Vec<Signal<In, Bit>>,
    pub in_addr: Vec<Signal<In, Bits<32>>>,
    pub in_data: Vec<Signal<In, Bits<32>>>,
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out_tag: Signal<Out, Bits<TAG_BITS>>,
    pub out_store: Signal<Out, Bit>,
    pub out_size: Signal<Out, Bits<2>>,
    pub out_line: Signal<Out, Bits<LW>>,
    pub out_lanes: Vec<Signal<Out, Bit>>,
    pub out_offset: Vec<Signal<Out, Bits<OB>>>,
    pub out_bytes: Signal<Out, Bits<B>>,
    pub out_data: Signal<Out, Bits<DB>>,
    pub out_last: Signal<Out, Bit>,
    // Register A.
    busy: DFF<Bit>,
    a_tag: DFF<Bits<TAG_BITS>>,
    a_store: DFF<Bit>,
    a_size: DFF<Bits<2>>,
    pend: RegVec<Bit>,
    a_line: RegVec<Bits<LW>>,
    a_off: RegVec<Bits<OB>>,
    a_data: RegVec<Bits<32>>,
    /// `same[pair_index(l, m)]`: lanes `l < m` are on one line.
    same: RegVec<Bit>,
    // Register S.
    s_valid: DFF<Bit>,
    s_tag: DFF<Bits<TAG_BITS>>,
    s_store: DFF<Bit>,
    s_size: DFF<Bits<2>>,
    s_line: DFF<Bits<LW>>,
    s_last: DFF<Bit>,
    s_lanes: RegVec<Bit>,
    s_off: RegVec<Bits<OB>>,
    s_wsel: RegVec<Bits<NW>>,
    s_be: RegVec<Bits<4>>,
    s_rep: RegVec<Bits<32>>,
    // Register O.
    o_valid: DFF<Bit>,
    o_tag: DFF<Bits<TAG_BITS>>,
    o_store: DFF<Bit>,
    o_size: DFF<Bits<2>>,
    o_line: DFF<Bits<LW>>,
    o_last: DFF<Bit>,
    o_lanes: RegVec<Bit>,
    o_off: RegVec<Bits<OB>>,
    o_bytes: DFF<Bits<B>>,
    o_data: DFF<Bits<DB>>,
    // Logic.
    dec_in: AcceptDecode<OB, LW>,
    pick: SelectLanes,
    line_mux: OneHotMux<LW>,
    dec_sel: LaneDecode<OB, NW>,
    merge: Merge<NW, B, DB>,
    ready: Signal<Local, Bit>,
    acc: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    ofree: Signal<Local, Bit>,
    adv: Signal<Local, Bit>,
    sel: Signal<Local, Bit>,
    k_zero_off: Constant<Bits<OB>>,
    _lanes: usize,
    _pairs: usize,
}

impl<const OB: usize, const LW: usize, const NW: usize, const B: usize, const DB: usize>
    Coalescer<OB, LW, NW, B, DB>
{
    /// The unit for `lanes` lanes (a power of two, 1–32).
    pub fn new(lanes: usize) -> Self {
        assert!(
            lanes.is_power_of_two() && lanes <= 32,
            "lanes = {lanes}: a power of two from 1 to 32"
        );
        assert!(
            (2..=10).contains(&OB) && LW == 32 - OB && B == 1 << OB && NW == B / 4 && DB == 8 * B,
            "Coalescer<{OB}, {LW}, {NW}, {B}, {DB}>: inconsistent widths"
        );
        let np = pairs(lanes).len();
        Coalescer {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            in_tag: Default::default(),
            in_store: Default::default(),
            in_size: Default::default(),
            in_mask: crate::sigs(lanes),
            in_addr: crate::sigs(lanes),
            in_data: crate::sigs(lanes),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out_tag: Default::default(),
            out_store: Default::default(),
            out_size: Default::default(),
            out_line: Default::default(),
            out_lanes: crate::sigs(lanes),
            out_offset: crate::sigs(lanes),
            out_bytes: Default::default(),
            out_data: Default::default(),
            out_last: Default::default(),
            busy: Default::default(),
            a_tag: Default::default(),
            a_store: Default::default(),
            a_size: Default::default(),
            pend: RegVec::new(lanes),
            a_line: RegVec::new(lanes),
            a_off: RegVec::new(lanes),
            a_data: RegVec::new(lanes),
            same: RegVec::new(np),
            s_valid: Default::default(),
            s_tag: Default::default(),
            s_store: Default::default(),
            s_size: Default::default(),
            s_line: Default::default(),
            s_last: Default::default(),
            s_lanes: RegVec::new(lanes),
            s_off: RegVec::new(lanes),
            s_wsel: RegVec::new(lanes),
            s_be: RegVec::new(lanes),
            s_rep: RegVec::new(lanes),
            o_valid: Default::default(),
            o_tag: Default::default(),
            o_store: Default::default(),
            o_size: Default::default(),
            o_line: Default::default(),
            o_last: Default::default(),
            o_lanes: RegVec::new(lanes),
            o_off: RegVec::new(lanes),
            o_bytes: Default::default(),
            o_data: Default::default(),
            dec_in: AcceptDecode::new(lanes),
            pick: SelectLanes::new(lanes),
            line_mux: OneHotMux::new(lanes, 1),
            dec_sel: LaneDecode::new(lanes),
            merge: Merge::new(lanes),
            ready: Default::default(),
            acc: Default::default(),
            take: Default::default(),
            ofree: Default::default(),
            adv: Default::default(),
            sel: Default::default(),
            k_zero_off: crate::k(0),
            _lanes: lanes,
            _pairs: np,
        }
    }
}

impl<const OB: usize, const LW: usize, const NW: usize, const B: usize, const DB: usize> Logic
    for Coalescer<OB, LW, NW, B, DB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, busy, a_tag, a_store, a_size, s_valid, s_tag, s_store, s_size, s_line,
            s_last, o_valid, o_tag, o_store, o_size, o_line, o_last, o_bytes, o_data
        );
        self.pend.clock.next = self.clock.val();
        self.a_line.clock.next = self.clock.val();
        self.a_off.clock.next = self.clock.val();
        self.a_data.clock.next = self.clock.val();
        self.same.clock.next = self.clock.val();
        self.s_lanes.clock.next = self.clock.val();
        self.s_off.clock.next = self.clock.val();
        self.s_wsel.clock.next = self.clock.val();
        self.s_be.clock.next = self.clock.val();
        self.s_rep.clock.next = self.clock.val();
        self.o_lanes.clock.next = self.clock.val();
        self.o_off.clock.next = self.clock.val();

        // ---- ports: flip-flops, gated only by reset ----
        self.ready.next = !self.busy.q.val() & !self.reset.val();
        self.in_ready.next = self.ready.val();
        self.out_valid.next = self.o_valid.q.val() & !self.reset.val();
        self.out_tag.next = self.o_tag.q.val();
        self.out_store.next = self.o_store.q.val();
        self.out_size.next = self.o_size.q.val();
        self.out_line.next = self.o_line.q.val();
        self.out_bytes.next = self.o_bytes.q.val();
        self.out_data.next = self.o_data.q.val();
        self.out_last.next = self.o_last.q.val();
        for l in 0..self._lanes {
            self.out_lanes[l].next = self.o_lanes.q[l].val();
            self.out_offset[l].next = self.o_off.q[l].val();
        }

        // ---- enables (page, "Cycle behaviour"); reset wins: no stage moves in its cycle ----
        self.acc.next = self.in_valid.val() & self.ready.val();
        self.take.next = self.o_valid.q.val() & self.out_ready.val();
        self.ofree.next = !self.o_valid.q.val() | self.out_ready.val();
        self.adv.next = self.s_valid.q.val() & self.ofree.val() & !self.reset.val();
        self.sel.next =
            self.busy.q.val() & (!self.s_valid.q.val() | self.adv.val()) & !self.reset.val();

        // ---- the logic blocks ----
        self.dec_in.size.next = self.in_size.val();
        for l in 0..self._lanes {
            self.dec_in.addr[l].next = self.in_addr[l].val();
            self.dec_in.mask[l].next = self.in_mask[l].val();
            self.pick.pend[l].next = self.pend.q[l].val();
            self.line_mux.sel[l].next = self.pick.first[l].val();
            self.line_mux.d[l].next = self.a_line.q[l].val();
            self.dec_sel.off[l].next = self.a_off.q[l].val();
            self.dec_sel.data[l].next = self.a_data.q[l].val();
            self.merge.lanes[l].next = self.s_lanes.q[l].val();
            self.merge.wsel[l].next = self.s_wsel.q[l].val();
            self.merge.be[l].next = self.s_be.q[l].val();
            self.merge.rep[l].next = self.s_rep.q[l].val();
        }
        for p in 0..self._pairs {
            self.pick.same[p].next = self.same.q[p].val();
            self.same.d[p].next = self.same.q[p].val();
        }
        self.dec_sel.size.next = self.a_size.q.val();
        self.dec_sel.store.next = self.a_store.q.val();

        // ---- per-lane registers hold by default ----
        for l in 0..self._lanes {
            self.pend.d[l].next = self.pend.q[l].val();
            self.a_line.d[l].next = self.a_line.q[l].val();
            self.a_off.d[l].next = self.a_off.q[l].val();
            self.a_data.d[l].next = self.a_data.q[l].val();
            self.s_lanes.d[l].next = self.s_lanes.q[l].val();
            self.s_off.d[l].next = self.s_off.q[l].val();
            self.s_wsel.d[l].next = self.s_wsel.q[l].val();
            self.s_be.d[l].next = self.s_be.q[l].val();
            self.s_rep.d[l].next = self.s_rep.q[l].val();
            self.o_lanes.d[l].next = self.o_lanes.q[l].val();
            self.o_off.d[l].next = self.o_off.q[l].val();
        }

        // ---- merge (S → O); else O empties when its request is taken ----
        if self.take.val() {
            self.o_valid.d.next = false;
        }
        if self.adv.val() {
            self.o_valid.d.next = true;
            self.o_tag.d.next = self.s_tag.q.val();
            self.o_store.d.next = self.s_store.q.val();
            self.o_size.d.next = self.s_size.q.val();
            self.o_line.d.next = self.s_line.q.val();
            self.o_last.d.next = self.s_last.q.val();
            self.o_bytes.d.next = self.merge.bytes.val();
            self.o_data.d.next = self.merge.data.val();
            for l in 0..self._lanes {
                self.o_lanes.d[l].next = self.s_lanes.q[l].val();
                self.o_off.d[l].next = self.k_zero_off.val();
                if self.s_lanes.q[l].val() {
                    self.o_off.d[l].next = self.s_off.q[l].val();
                }
            }
        }

        // ---- select (A → S); else S empties when its request moves on ----
        if self.adv.val() {
            self.s_valid.d.next = false;
        }
        if self.sel.val() {
            self.s_valid.d.next = true;
            self.s_tag.d.next = self.a_tag.q.val();
            self.s_store.d.next = self.a_store.q.val();
            self.s_size.d.next = self.a_size.q.val();
            self.s_line.d.next = self.line_mux.q[0].val();
            self.s_last.d.next = self.pick.last.val();
            self.busy.d.next = !self.pick.last.val();
            for l in 0..self._lanes {
                self.s_lanes.d[l].next = self.pick.hit[l].val();
                self.s_off.d[l].next = self.a_off.q[l].val();
                self.s_wsel.d[l].next = self.dec_sel.wsel[l].val();
                self.s_be.d[l].next = self.dec_sel.be[l].val();
                self.s_rep.d[l].next = self.dec_sel.rep[l].val();
                self.pend.d[l].next = self.pend.q[l].val() & !self.pick.hit[l].val();
            }
        }

        // ---- accept (input → A; never in a cycle with select: it needs !busy) ----
        if self.acc.val() {
            self.busy.d.next = self.dec_in.any.val();
            self.a_tag.d.next = self.in_tag.val();
            self.a_store.d.next = self.in_store.val();
            self.a_size.d.next = self.dec_in.size_c.val();
            for l in 0..self._lanes {
                self.pend.d[l].next = self.in_mask[l].val();
                self.a_line.d[l].next = self.dec_in.line[l].val();
                self.a_off.d[l].next = self.dec_in.off[l].val();
                self.a_data.d[l].next = self.in_data[l].val();
            }
            for p in 0..self._pairs {
                self.same.d[p].next = self.dec_in.same[p].val();
            }
        }

        // ---- reset: every stage empty (the data registers are not looked at) ----
        if self.reset.val() {
            self.busy.d.next = false;
            self.s_valid.d.next = false;
            self.o_valid.d.next = false;
            for l in 0..self._lanes {
                self.pend.d[l].next = false;
            }
        }
    }
}

/// Verilog of the coalescer for `cfg` (`lanes`, `line_bytes`), top module named `name`.
pub fn coalescer_verilog(cfg: &GpuConfig, name: &str) -> Result<String, HdlError> {
    fn emit<const OB: usize, const LW: usize, const NW: usize, const B: usize, const DB: usize>(
        lanes: usize,
        name: &str,
    ) -> Result<String, HdlError> {
        let mut uut = Coalescer::<OB, LW, NW, B, DB>::new(lanes);
        Ok(rename_top(&verilog_of("coalescer", &mut uut)?, name))
    }
    let lanes = cfg.lanes as usize;
    if !(lanes.is_power_of_two() && lanes <= 32) {
        return Err(HdlError {
            unit: "coalescer".into(),
            message: format!("lanes = {lanes} is not a power of two up to 32"),
        });
    }
    match cfg.line_bytes {
        4 => emit::<2, 30, 1, 4, 32>(lanes, name),
        8 => emit::<3, 29, 2, 8, 64>(lanes, name),
        16 => emit::<4, 28, 4, 16, 128>(lanes, name),
        32 => emit::<5, 27, 8, 32, 256>(lanes, name),
        64 => emit::<6, 26, 16, 64, 512>(lanes, name),
        128 => emit::<7, 25, 32, 128, 1024>(lanes, name),
        256 => emit::<8, 24, 64, 256, 2048>(lanes, name),
        512 => emit::<9, 23, 128, 512, 4096>(lanes, name),
        1024 => emit::<10, 22, 256, 1024, 8192>(lanes, name),
        n => Err(HdlError {
            unit: "coalescer".into(),
            message: format!("line_bytes = {n} is not a power of two from 4 to 1024"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_a_flat_triangle() {
        let p = pairs(4);
        assert_eq!(p.len(), 6);
        for (i, &(l, m)) in p.iter().enumerate() {
            assert_eq!(pair_index(l, m), i);
        }
        assert_eq!(pairs(32).len(), 496);
        assert!(pairs(1).is_empty());
    }

    #[test]
    fn merge_tree_prefers_the_upper_child() {
        let m = Merge::<4, 16, 128>::new(4);
        let Verilog::Custom(v) = m.hdl() else {
            panic!("a custom leaf")
        };
        // Leaves 4..7, inner nodes 1..3: the upper child wins.
        assert!(v.contains("assign a_7 = {16{lanes$3}} & {4{be$3}}"));
        assert!(v.contains("assign v_1[8*k +: 8] = a_3[k] ? v_3[8*k +: 8] : v_2[8*k +: 8];"));
        assert!(v.contains("always @(*) data = v_1;"));
    }
}
