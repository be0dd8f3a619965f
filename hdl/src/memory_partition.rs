//! `MemoryPartition`: the in-order memory partition behind one partition port of the crossbar
//! (docs/microarch/memory_partition.md gives every cycle; this RTL is written from that page,
//! independently of its reference `sim/src/memory_partition.rs`).
//!
//! Three FIFOs, as on the page ("State"):
//!
//! * **`RQ`**, the request queue, [`REQ_QUEUE_DEPTH`] whole requests: two distributed RAMs
//!   sharing the pointers `rq_wp` / `rq_rp` — `rq_tag` (`{sm, write, id}`) and `rq_body`
//!   (`{line, mask, data}`). Its head (read at the registered `rq_rp`) drives `mem_req_*`.
//! * **`PT`**, the pending tags, [`PENDING_DEPTH`] entries of `{sm, write, id}`: one
//!   distributed RAM, written from `RQ`'s head when the memory takes it, read at `pt_rp`.
//! * **`RB`**, the response buffer, [`RESP_QUEUE_DEPTH`] responses: `rb_tag` (`{sm, write, id}`,
//!   from `PT`'s head) and `rb_data` (the memory's line), read at `rb_rp`; its head drives
//!   `out_*`.
//!
//! Counts `rq_n`, `pt_n`, `rb_n` and the pointers are flip-flops; every queue is written at its
//! write pointer and read asynchronously at a registered read pointer, so no output depends on
//! an input in the same cycle: the readies and valids are comparisons of the counts with
//! constants, gated by `reset` (page, "Cycle behaviour"); `mem_req_*` and `out_*` are RAM words
//! at registered addresses. The inputs reach only the enables (`acc`, `issue`, `ret`, `take`):
//! write enables, pointer and count updates.
//!
//! Why distributed RAM and not flip-flops (page, "Hardware and timing paths"): on the ECP5 a
//! `DPR16X4` holds 16 × 4 bits in the space of about three slices, where `RQ` as flip-flops is
//! 4 × 333 flip-flops (small) plus a 4:1 head multiplexer of about three LUT4 per bit; `PT` is
//! the textbook 16-deep FIFO; `RB` (two entries) is the marginal case, kept in the same form
//! (69 `DPR16X4` on small against 548 flip-flops and a 2:1 multiplexer per bit).
//!
//! Widths depend on `line_bytes` (`LW`, `B`, `8·B`) and on `sms` (`SW`), which rust-hdl needs
//! as constants: [`MemoryPartition`] is generic over them and [`memory_partition_verilog`]
//! instantiates the configuration's. The RAM word of each queue packs its fields (one memory
//! per queue part, so yosys rounds the width to `DPR16X4` columns once): [`Ram3`], a small
//! custom Verilog leaf.

use rust_hdl::prelude::*;
use warpforge_config::GpuConfig;

use crate::lut_ram::LutRam;
use crate::{rename_top, verilog_of, HdlError};

/// `Q`: entries of the request queue (page, "Parameters").
pub const REQ_QUEUE_DEPTH: usize = 4;
/// `K`: entries of the pending-tag queue = most requests outstanding at the memory.
pub const PENDING_DEPTH: usize = 16;
/// `R`: entries of the response buffer.
pub const RESP_QUEUE_DEPTH: usize = 2;
/// Width of a request's `id` (crossbar page).
pub const ID_BITS: usize = 16;
/// Width of `occupancy`: `⌈log2(Q + 1)⌉`.
pub const OCC_BITS: usize = 3;
/// Width of `outstanding`: `⌈log2(K + 1)⌉`.
pub const OUT_BITS: usize = 5;

// The pointer widths of `MemoryPartition` (2, 4, 1 bits: they wrap at the depths) and the
// widths of `occupancy` and `outstanding` are those of these depths.
const _: () = assert!(
    REQ_QUEUE_DEPTH == 4
        && PENDING_DEPTH == 16
        && RESP_QUEUE_DEPTH == 2
        && REQ_QUEUE_DEPTH < 1 << OCC_BITS
        && PENDING_DEPTH < 1 << OUT_BITS
);

/// `SW = max(1, ⌈log2 sms⌉)`: the width of an SM index.
pub fn sm_bits(sms: usize) -> usize {
    (usize::BITS - sms.saturating_sub(1).leading_zeros()).max(1) as usize
}

/// A distributed RAM of `2^A` words, each word the three fields `{d2, d1, d0}` packed into one
/// memory; one synchronous write port (`we`, `waddr`, `wd*`) and one asynchronous read port
/// (`raddr`, `rd*`: the word as written up to the last edge). No reset (a memory with a reset
/// loop is not a RAM to yosys); the owner keeps validity in its counts.
#[derive(LogicBlock)]
pub struct Ram3<const A: usize, T0: Synth, T1: Synth, T2: Synth> {
    pub clock: Signal<In, Clock>,
    pub we: Signal<In, Bit>,
    pub waddr: Signal<In, Bits<A>>,
    pub wd0: Signal<In, T0>,
    pub wd1: Signal<In, T1>,
    pub wd2: Signal<In, T2>,
    pub raddr: Signal<In, Bits<A>>,
    pub rd0: Signal<Out, T0>,
    pub rd1: Signal<Out, T1>,
    pub rd2: Signal<Out, T2>,
    _sim: Vec<(T0, T1, T2)>,
}

impl<const A: usize, T0: Synth, T1: Synth, T2: Synth> Default for Ram3<A, T0, T1, T2> {
    fn default() -> Self {
        assert!((1..=8).contains(&A), "Ram3 of 2^{A} words");
        Ram3 {
            clock: Default::default(),
            we: Default::default(),
            waddr: Default::default(),
            wd0: Default::default(),
            wd1: Default::default(),
            wd2: Default::default(),
            raddr: Default::default(),
            rd0: Default::default(),
            rd1: Default::default(),
            rd2: Default::default(),
            _sim: vec![Default::default(); 1 << A],
        }
    }
}

impl<const A: usize, T0: Synth, T1: Synth, T2: Synth> Logic for Ram3<A, T0, T1, T2> {
    fn update(&mut self) {
        if self.clock.pos_edge() && self.we.val() {
            let a = self.waddr.val().index();
            self._sim[a] = (self.wd0.val(), self.wd1.val(), self.wd2.val());
        }
        let (d0, d1, d2) = self._sim[self.raddr.val().index()];
        self.rd0.next = d0;
        self.rd1.next = d1;
        self.rd2.next = d2;
    }

    fn connect(&mut self) {
        self.rd0.connect();
        self.rd1.connect();
        self.rd2.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(ram3_verilog(A, T0::BITS, T1::BITS, T2::BITS))
    }
}

/// The body of a [`Ram3`] of `2^a` words of fields `w0`, `w1`, `w2` bits.
fn ram3_verilog(a: usize, w0: usize, w1: usize, w2: usize) -> String {
    let w = w0 + w1 + w2;
    format!(
        "\
// {n} words x {w} bit ({{{w2}, {w1}, {w0}}}), one write port, one asynchronous read port: \
distributed RAM.
reg [{hi}:0] ram [0:{last}];
wire [{hi}:0] rword = ram[raddr];
always @(posedge clock) begin
   if (we) begin
      ram[waddr] <= {{wd2, wd1, wd0}};
   end
end
always @(*) rd0 = rword[{h0}:0];
always @(*) rd1 = rword[{h1}:{w0}];
always @(*) rd2 = rword[{hi}:{l2}];
",
        n = 1usize << a,
        hi = w - 1,
        last = (1usize << a) - 1,
        h0 = w0 - 1,
        h1 = w0 + w1 - 1,
        l2 = w0 + w1,
    )
}

/// The memory partition for `SW`-bit SM indices and lines of `B` bytes (`LW = 32 − log2 B`,
/// `DB = 8·B`).
#[derive(LogicBlock)]
pub struct MemoryPartition<const SW: usize, const LW: usize, const B: usize, const DB: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // From the crossbar.
    pub in_valid: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    pub in_sm: Signal<In, Bits<SW>>,
    pub in_write: Signal<In, Bit>,
    pub in_line: Signal<In, Bits<LW>>,
    pub in_mask: Signal<In, Bits<B>>,
    pub in_data: Signal<In, Bits<DB>>,
    pub in_id: Signal<In, Bits<ID_BITS>>,
    // To the crossbar.
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out_sm: Signal<Out, Bits<SW>>,
    pub out_write: Signal<Out, Bit>,
    pub out_id: Signal<Out, Bits<ID_BITS>>,
    pub out_data: Signal<Out, Bits<DB>>,
    // The memory port.
    pub mem_req_valid: Signal<Out, Bit>,
    pub mem_req_ready: Signal<In, Bit>,
    pub mem_req_write: Signal<Out, Bit>,
    pub mem_req_line: Signal<Out, Bits<LW>>,
    pub mem_req_mask: Signal<Out, Bits<B>>,
    pub mem_req_data: Signal<Out, Bits<DB>>,
    pub mem_resp_valid: Signal<In, Bit>,
    pub mem_resp_ready: Signal<Out, Bit>,
    pub mem_resp_data: Signal<In, Bits<DB>>,
    // Counter inputs of the top level.
    pub occupancy: Signal<Out, Bits<OCC_BITS>>,
    pub outstanding: Signal<Out, Bits<OUT_BITS>>,
    // Counts and pointers.
    rq_n: DFF<Bits<OCC_BITS>>,
    rq_wp: DFF<Bits<2>>,
    rq_rp: DFF<Bits<2>>,
    pt_n: DFF<Bits<OUT_BITS>>,
    pt_wp: DFF<Bits<4>>,
    pt_rp: DFF<Bits<4>>,
    rb_n: DFF<Bits<2>>,
    rb_wp: DFF<Bits<1>>,
    rb_rp: DFF<Bits<1>>,
    // The queues' storage.
    rq_tag: Ram3<2, Bits<SW>, Bit, Bits<ID_BITS>>,
    rq_body: Ram3<2, Bits<LW>, Bits<B>, Bits<DB>>,
    pt: Ram3<4, Bits<SW>, Bit, Bits<ID_BITS>>,
    rb_tag: Ram3<1, Bits<SW>, Bit, Bits<ID_BITS>>,
    rb_data: LutRam<DB, 1>,
    // Readies and valids of the cycle (functions of the counts and reset).
    rdy_in: Signal<Local, Bit>,
    v_req: Signal<Local, Bit>,
    rdy_resp: Signal<Local, Bit>,
    v_out: Signal<Local, Bit>,
    // Enables.
    acc: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    ret: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    // Constants.
    k_q: Constant<Bits<OCC_BITS>>,
    k_q0: Constant<Bits<OCC_BITS>>,
    k_q1: Constant<Bits<OCC_BITS>>,
    k_k: Constant<Bits<OUT_BITS>>,
    k_k0: Constant<Bits<OUT_BITS>>,
    k_k1: Constant<Bits<OUT_BITS>>,
    k_r: Constant<Bits<2>>,
    k_r0: Constant<Bits<2>>,
    k_r1: Constant<Bits<2>>,
    k_p2: Constant<Bits<2>>,
    k_p4: Constant<Bits<4>>,
    k_p1: Constant<Bits<1>>,
}

impl<const SW: usize, const LW: usize, const B: usize, const DB: usize> Default
    for MemoryPartition<SW, LW, B, DB>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const SW: usize, const LW: usize, const B: usize, const DB: usize>
    MemoryPartition<SW, LW, B, DB>
{
    pub fn new() -> Self {
        assert!(
            (1..=6).contains(&SW)
                && B.is_power_of_two()
                && (4..=1024).contains(&B)
                && LW == 32 - B.trailing_zeros() as usize
                && DB == 8 * B,
            "MemoryPartition<{SW}, {LW}, {B}, {DB}>: inconsistent widths"
        );
        MemoryPartition {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            in_sm: Default::default(),
            in_write: Default::default(),
            in_line: Default::default(),
            in_mask: Default::default(),
            in_data: Default::default(),
            in_id: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out_sm: Default::default(),
            out_write: Default::default(),
            out_id: Default::default(),
            out_data: Default::default(),
            mem_req_valid: Default::default(),
            mem_req_ready: Default::default(),
            mem_req_write: Default::default(),
            mem_req_line: Default::default(),
            mem_req_mask: Default::default(),
            mem_req_data: Default::default(),
            mem_resp_valid: Default::default(),
            mem_resp_ready: Default::default(),
            mem_resp_data: Default::default(),
            occupancy: Default::default(),
            outstanding: Default::default(),
            rq_n: Default::default(),
            rq_wp: Default::default(),
            rq_rp: Default::default(),
            pt_n: Default::default(),
            pt_wp: Default::default(),
            pt_rp: Default::default(),
            rb_n: Default::default(),
            rb_wp: Default::default(),
            rb_rp: Default::default(),
            rq_tag: Default::default(),
            rq_body: Default::default(),
            pt: Default::default(),
            rb_tag: Default::default(),
            rb_data: LutRam::new(1, 1),
            rdy_in: Default::default(),
            v_req: Default::default(),
            rdy_resp: Default::default(),
            v_out: Default::default(),
            acc: Default::default(),
            issue: Default::default(),
            ret: Default::default(),
            take: Default::default(),
            k_q: crate::k(REQ_QUEUE_DEPTH as u64),
            k_q0: crate::k(0),
            k_q1: crate::k(1),
            k_k: crate::k(PENDING_DEPTH as u64),
            k_k0: crate::k(0),
            k_k1: crate::k(1),
            k_r: crate::k(RESP_QUEUE_DEPTH as u64),
            k_r0: crate::k(0),
            k_r1: crate::k(1),
            k_p2: crate::k(1),
            k_p4: crate::k(1),
            k_p1: crate::k(1),
        }
    }
}

impl<const SW: usize, const LW: usize, const B: usize, const DB: usize> Logic
    for MemoryPartition<SW, LW, B, DB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rq_n, rq_wp, rq_rp, pt_n, pt_wp, pt_rp, rb_n, rb_wp, rb_rp);
        self.rq_tag.clock.next = self.clock.val();
        self.rq_body.clock.next = self.clock.val();
        self.pt.clock.next = self.clock.val();
        self.rb_tag.clock.next = self.clock.val();
        self.rb_data.clock.next = self.clock.val();

        // ---- outputs: functions of the counts and reset only ----
        self.rdy_in.next = (self.rq_n.q.val() != self.k_q.val()) & !self.reset.val();
        self.v_req.next = (self.rq_n.q.val() != self.k_q0.val())
            & (self.pt_n.q.val() != self.k_k.val())
            & !self.reset.val();
        self.rdy_resp.next = (self.pt_n.q.val() != self.k_k0.val())
            & (self.rb_n.q.val() != self.k_r.val())
            & !self.reset.val();
        self.v_out.next = (self.rb_n.q.val() != self.k_r0.val()) & !self.reset.val();
        self.in_ready.next = self.rdy_in.val();
        self.mem_req_valid.next = self.v_req.val();
        self.mem_resp_ready.next = self.rdy_resp.val();
        self.out_valid.next = self.v_out.val();
        self.occupancy.next = self.rq_n.q.val();
        self.outstanding.next = self.pt_n.q.val();

        // RQ's head on the memory port (sm and id stay for PT).
        self.rq_tag.raddr.next = self.rq_rp.q.val();
        self.rq_body.raddr.next = self.rq_rp.q.val();
        self.mem_req_write.next = self.rq_tag.rd1.val();
        self.mem_req_line.next = self.rq_body.rd0.val();
        self.mem_req_mask.next = self.rq_body.rd1.val();
        self.mem_req_data.next = self.rq_body.rd2.val();

        // RB's head to the crossbar.
        self.rb_tag.raddr.next = self.rb_rp.q.val();
        self.rb_data.raddr[0].next = self.rb_rp.q.val();
        self.out_sm.next = self.rb_tag.rd0.val();
        self.out_write.next = self.rb_tag.rd1.val();
        self.out_id.next = self.rb_tag.rd2.val();
        self.out_data.next = self.rb_data.rdata[0].val();

        // ---- enables (0 in a reset cycle: every ready and valid is) ----
        self.acc.next = self.in_valid.val() & self.rdy_in.val();
        self.issue.next = self.v_req.val() & self.mem_req_ready.val();
        self.ret.next = self.rdy_resp.val() & self.mem_resp_valid.val();
        self.take.next = self.v_out.val() & self.out_ready.val();

        // ---- RQ: append the input on acc, pop on issue ----
        self.rq_tag.we.next = self.acc.val();
        self.rq_tag.waddr.next = self.rq_wp.q.val();
        self.rq_tag.wd0.next = self.in_sm.val();
        self.rq_tag.wd1.next = self.in_write.val();
        self.rq_tag.wd2.next = self.in_id.val();
        self.rq_body.we.next = self.acc.val();
        self.rq_body.waddr.next = self.rq_wp.q.val();
        self.rq_body.wd0.next = self.in_line.val();
        self.rq_body.wd1.next = self.in_mask.val();
        self.rq_body.wd2.next = self.in_data.val();

        // ---- PT: append RQ head's {sm, write, id} on issue, pop on ret ----
        self.pt.we.next = self.issue.val();
        self.pt.waddr.next = self.pt_wp.q.val();
        self.pt.wd0.next = self.rq_tag.rd0.val();
        self.pt.wd1.next = self.rq_tag.rd1.val();
        self.pt.wd2.next = self.rq_tag.rd2.val();
        self.pt.raddr.next = self.pt_rp.q.val();

        // ---- RB: append {PT head, mem_resp_data} on ret, pop on take ----
        self.rb_tag.we.next = self.ret.val();
        self.rb_tag.waddr.next = self.rb_wp.q.val();
        self.rb_tag.wd0.next = self.pt.rd0.val();
        self.rb_tag.wd1.next = self.pt.rd1.val();
        self.rb_tag.wd2.next = self.pt.rd2.val();
        self.rb_data.we.next = self.ret.val();
        self.rb_data.waddr.next = self.rb_wp.q.val();
        self.rb_data.wdata.next = self.mem_resp_data.val();

        // ---- pointers ----
        self.rq_wp.d.next = self.rq_wp.q.val();
        self.rq_rp.d.next = self.rq_rp.q.val();
        self.pt_wp.d.next = self.pt_wp.q.val();
        self.pt_rp.d.next = self.pt_rp.q.val();
        self.rb_wp.d.next = self.rb_wp.q.val();
        self.rb_rp.d.next = self.rb_rp.q.val();
        if self.acc.val() {
            self.rq_wp.d.next = self.rq_wp.q.val() + self.k_p2.val();
        }
        if self.issue.val() {
            self.rq_rp.d.next = self.rq_rp.q.val() + self.k_p2.val();
            self.pt_wp.d.next = self.pt_wp.q.val() + self.k_p4.val();
        }
        if self.ret.val() {
            self.pt_rp.d.next = self.pt_rp.q.val() + self.k_p4.val();
            self.rb_wp.d.next = self.rb_wp.q.val() + self.k_p1.val();
        }
        if self.take.val() {
            self.rb_rp.d.next = self.rb_rp.q.val() + self.k_p1.val();
        }

        // ---- counts: pushes minus pops ----
        self.rq_n.d.next = self.rq_n.q.val();
        if self.acc.val() & !self.issue.val() {
            self.rq_n.d.next = self.rq_n.q.val() + self.k_q1.val();
        }
        if !self.acc.val() & self.issue.val() {
            self.rq_n.d.next = self.rq_n.q.val() - self.k_q1.val();
        }
        self.pt_n.d.next = self.pt_n.q.val();
        if self.issue.val() & !self.ret.val() {
            self.pt_n.d.next = self.pt_n.q.val() + self.k_k1.val();
        }
        if !self.issue.val() & self.ret.val() {
            self.pt_n.d.next = self.pt_n.q.val() - self.k_k1.val();
        }
        self.rb_n.d.next = self.rb_n.q.val();
        if self.ret.val() & !self.take.val() {
            self.rb_n.d.next = self.rb_n.q.val() + self.k_r1.val();
        }
        if !self.ret.val() & self.take.val() {
            self.rb_n.d.next = self.rb_n.q.val() - self.k_r1.val();
        }

        // ---- reset wins: every queue empty (the RAMs are not looked at) ----
        if self.reset.val() {
            self.rq_n.d.next = self.k_q0.val();
            self.pt_n.d.next = self.k_k0.val();
            self.rb_n.d.next = self.k_r0.val();
            self.rq_wp.d.next = self.rq_rp.q.val();
            self.pt_wp.d.next = self.pt_rp.q.val();
            self.rb_wp.d.next = self.rb_rp.q.val();
        }
    }
}

/// Verilog of the memory partition with `SW`-bit SM indices and `line_bytes`-byte lines, top
/// module named `name`.
pub fn memory_partition_verilog_with(
    sw: usize,
    line_bytes: u32,
    name: &str,
) -> Result<String, HdlError> {
    fn emit<const SW: usize, const LW: usize, const B: usize, const DB: usize>(
        name: &str,
    ) -> Result<String, HdlError> {
        let mut uut = MemoryPartition::<SW, LW, B, DB>::new();
        Ok(rename_top(&verilog_of("memory partition", &mut uut)?, name))
    }
    fn by_sm<const LW: usize, const B: usize, const DB: usize>(
        sw: usize,
        name: &str,
    ) -> Result<String, HdlError> {
        match sw {
            1 => emit::<1, LW, B, DB>(name),
            2 => emit::<2, LW, B, DB>(name),
            3 => emit::<3, LW, B, DB>(name),
            4 => emit::<4, LW, B, DB>(name),
            5 => emit::<5, LW, B, DB>(name),
            6 => emit::<6, LW, B, DB>(name),
            n => Err(err(format!(
                "an SM index of {n} bits: sms from 1 to 64 is needed"
            ))),
        }
    }
    fn err(message: String) -> HdlError {
        HdlError {
            unit: "memory partition".into(),
            message,
        }
    }
    match line_bytes {
        4 => by_sm::<30, 4, 32>(sw, name),
        8 => by_sm::<29, 8, 64>(sw, name),
        16 => by_sm::<28, 16, 128>(sw, name),
        32 => by_sm::<27, 32, 256>(sw, name),
        64 => by_sm::<26, 64, 512>(sw, name),
        128 => by_sm::<25, 128, 1024>(sw, name),
        256 => by_sm::<24, 256, 2048>(sw, name),
        512 => by_sm::<23, 512, 4096>(sw, name),
        1024 => by_sm::<22, 1024, 8192>(sw, name),
        n => Err(err(format!(
            "line_bytes = {n} is not a power of two from 4 to 1024"
        ))),
    }
}

/// Verilog of the memory partition for `cfg` (`sms`, `line_bytes`), top module named `name`.
pub fn memory_partition_verilog(cfg: &GpuConfig, name: &str) -> Result<String, HdlError> {
    let sms = cfg.sms as usize;
    if !(1..=64).contains(&sms) {
        return Err(HdlError {
            unit: "memory partition".into(),
            message: format!("sms = {sms}: a value from 1 to 64 is needed"),
        });
    }
    memory_partition_verilog_with(sm_bits(sms), cfg.line_bytes, name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sm_index_width_is_the_pages() {
        let w: Vec<usize> = [1, 2, 3, 4, 5, 8, 9, 64]
            .iter()
            .map(|&n| sm_bits(n))
            .collect();
        assert_eq!(w, [1, 1, 2, 2, 3, 3, 4, 6]);
    }

    #[test]
    fn ram_word_packs_the_fields() {
        let v = ram3_verilog(4, 1, 1, 16);
        assert!(v.contains("reg [17:0] ram [0:15];"), "{v}");
        assert!(v.contains("ram[waddr] <= {wd2, wd1, wd0};"), "{v}");
        assert!(v.contains("rd1 = rword[1:1];"), "{v}");
        assert!(v.contains("rd2 = rword[17:2];"), "{v}");
    }
}
