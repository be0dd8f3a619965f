//! Banked register file (book §3.3, Figs 3.13 and 3.16).
//!
//! `rf_banks` = B single-ported banks. Every bank entry is one warp-register: `lanes` × 32 bit.
//! Register `r` of warp `w` lives in
//!
//! * bank `r % B` with [`RfLayout::Naive`] (book Fig. 3.13),
//! * bank `(r + w) % B` with [`RfLayout::Swizzled`] (book Fig. 3.16),
//!
//! at entry (row) `w * (32 / B) + r / B` of that bank, i.e. at RAM address
//! `{w[WB-1:0], r[4:log2 B]}` with `WB = ceil(log2(warps))`. For a fixed warp the map
//! `r -> (bank, r / B)` is one-to-one in both layouts, so a bank holds `32 / B` registers of
//! every warp.
//!
//! Storage: one [`BankRam`] per (bank, lane), a `2^(WB + 5 - log2 B)` × 32-bit memory with one
//! synchronous read port and one write port (yosys infers a block RAM or distributed RAM).
//!
//! Timing:
//! * read: `read_enable[b]`, `read_warp[b]`, `read_reg[b]` in cycle `c` → `read_data[b*L + l]`
//!   valid during cycle `c + 1` (one cycle latency), and only then: the lane RAMs read their
//!   address at every edge, so the output does not hold while `read_enable[b]` is low (no
//!   caller reads it later; a hold was logic that could not matter: issue 11, `small` m76 on
//!   785eabf). `read_enable` only qualifies the `write_first` bypass.
//! * write: `write_enable`, `write_warp`, `write_reg`, `write_mask[l]`, `write_data[l]` in cycle
//!   `c` → the RAM is updated at the end of cycle `c`; a read presented in cycle `c + 1` or
//!   later returns the new value. Lanes whose mask bit is 0 keep their value.
//! * a read and a write of the *same register* in the same cycle: with `write_first`
//!   ([`RegisterFile::with_ports`]) the read returns the written lanes (and the old value of
//!   the others): the write data and a per-lane hit are registered and chosen after the RAM.
//!   Without it the caller never reads the bank it writes (single-ported use: the operand
//!   collector's `WritePort::Shared`). Either way a lane RAM's own collision result is never
//!   used, so the RAMs carry yosys's `no_rw_check` (no emulation logic: without it yosys
//!   delays each RAM's write a cycle and compares its address with the read's, about 33
//!   flip-flops and a comparator per RAM).
//! * x0: the caller never reads or writes register 0: the operand collector supplies 0 for an
//!   x0 source itself and drops writebacks to x0 (docs/microarch/operand_collector.md). The
//!   file has no x0 logic of its own (a zero-read path here drove nothing anyone used: a
//!   mutation of it passed every kernel, issue 11).
//!
//! The register contents are not reset (RAM); after reset every register is undefined until
//! written.

use std::collections::BTreeMap;

use rust_hdl::prelude::*;
use warpforge_config::{GpuConfig, RfLayout};

/// Width of a warp number (defined once, with the scoreboard).
pub use crate::scoreboard::WARP_BITS;
/// Width of a register number (32 architectural registers).
pub const REG_BITS: usize = 5;
/// Width of a bank number (`rf_banks` ≤ 32).
pub const BANK_BITS: usize = 5;

/// `ceil(log2(n))` (0 for n ≤ 1).
pub fn clog2(n: usize) -> usize {
    let mut b = 0;
    while (1usize << b) < n {
        b += 1;
    }
    b
}

/// The register-to-bank map and RAM geometry of a configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RfGeometry {
    pub warps: usize,
    pub lanes: usize,
    pub banks: usize,
    pub swizzled: bool,
    /// log2(banks): the low register bits that select the bank (naive layout).
    pub bank_bits: usize,
    /// Warp-id bits of a RAM address: ceil(log2(warps)).
    pub warp_addr_bits: usize,
    /// Register bits of a RAM address: 5 - log2(banks).
    pub row_bits: usize,
}

impl RfGeometry {
    pub fn new(cfg: &GpuConfig) -> Self {
        let banks = cfg.rf_banks as usize;
        let bank_bits = clog2(banks);
        RfGeometry {
            warps: cfg.warps as usize,
            lanes: cfg.lanes as usize,
            banks,
            swizzled: cfg.rf_layout == RfLayout::Swizzled,
            bank_bits,
            warp_addr_bits: clog2(cfg.warps as usize),
            row_bits: REG_BITS - bank_bits,
        }
    }

    /// Bank of register `reg` of warp `warp`.
    pub fn bank(&self, warp: usize, reg: usize) -> usize {
        if self.swizzled {
            (reg + warp) % self.banks
        } else {
            reg % self.banks
        }
    }

    /// Entry of register `reg` of warp `warp` inside its bank.
    pub fn row(&self, warp: usize, reg: usize) -> usize {
        (warp << self.row_bits) | (reg >> self.bank_bits)
    }

    /// RAM address bits (at least 1).
    pub fn addr_bits(&self) -> usize {
        (self.warp_addr_bits + self.row_bits).max(1)
    }

    /// Entries per bank RAM.
    pub fn depth(&self) -> usize {
        1 << self.addr_bits()
    }

    /// The mask applied to `reg + warp` (swizzled) or `reg` (naive) to get the bank.
    fn bank_mask(&self) -> u64 {
        (self.banks - 1) as u64
    }

    /// The mask applied to the warp id before it is added to the register number.
    fn swizzle_mask(&self) -> u64 {
        if self.swizzled {
            (1 << BANK_BITS) - 1
        } else {
            0
        }
    }
}

/// One bank's storage for one lane: `depth` × 32 bit, one synchronous read port, one write
/// port. Written as a custom Verilog block so that its depth follows the configuration (rust-hdl's
/// `RAM<D, N>` fixes the address width at compile time). The address is
/// `{warp[WB-1:0], reg[4:log2 B]}`; the other warp/register bits are not needed here.
#[derive(LogicBlock)]
pub struct BankRam {
    pub clock: Signal<In, Clock>,
    pub read_warp: Signal<In, Bits<WARP_BITS>>,
    pub read_reg: Signal<In, Bits<REG_BITS>>,
    pub read_data: Signal<Out, Bits<32>>,
    pub write_enable: Signal<In, bool>,
    pub write_warp: Signal<In, Bits<WARP_BITS>>,
    pub write_reg: Signal<In, Bits<REG_BITS>>,
    pub write_data: Signal<In, Bits<32>>,
    _geo: RfGeometry,
    _sim: BTreeMap<usize, Bits<32>>,
}

impl BankRam {
    pub fn new(geo: RfGeometry) -> Self {
        BankRam {
            clock: Default::default(),
            read_warp: Default::default(),
            read_reg: Default::default(),
            read_data: Default::default(),
            write_enable: Default::default(),
            write_warp: Default::default(),
            write_reg: Default::default(),
            write_data: Default::default(),
            _geo: geo,
            _sim: BTreeMap::new(),
        }
    }

    fn address(&self, warp: Bits<WARP_BITS>, reg: Bits<REG_BITS>) -> usize {
        let g = &self._geo;
        let w = (warp.index()) & ((1 << g.warp_addr_bits) - 1);
        (w << g.row_bits) | (reg.index() >> g.bank_bits)
    }

    /// Verilog expression of the RAM address from a warp and a register port.
    fn address_verilog(&self, warp: &str, reg: &str) -> String {
        let g = &self._geo;
        let mut parts = vec![];
        if g.warp_addr_bits > 0 {
            parts.push(format!("{warp}[{}:0]", g.warp_addr_bits - 1));
        }
        if g.row_bits > 0 {
            parts.push(format!("{reg}[{}:{}]", REG_BITS - 1, g.bank_bits));
        }
        let a = g.addr_bits();
        match parts.len() {
            0 => "1'b0".to_string(),
            1 if g.warp_addr_bits + g.row_bits == a => parts.remove(0),
            _ => {
                let used = g.warp_addr_bits + g.row_bits;
                if used < a {
                    parts.insert(0, format!("{}'b0", a - used));
                }
                format!("{{{}}}", parts.join(", "))
            }
        }
    }

    /// The bits of the address ports this RAM does not use, for Verilator's `*unused*` rule.
    fn unused_verilog(&self, warp: &str, reg: &str) -> Vec<String> {
        let g = &self._geo;
        let mut v = vec![];
        if g.warp_addr_bits < WARP_BITS {
            v.push(format!("{warp}[{}:{}]", WARP_BITS - 1, g.warp_addr_bits));
        }
        if g.bank_bits > 0 {
            v.push(format!("{reg}[{}:0]", g.bank_bits - 1));
        }
        v
    }
}

impl Logic for BankRam {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let a = self.address(self.read_warp.val(), self.read_reg.val());
            self.read_data.next = self._sim.get(&a).copied().unwrap_or_default();
            if self.write_enable.val() {
                let a = self.address(self.write_warp.val(), self.write_reg.val());
                self._sim.insert(a, self.write_data.val());
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let depth = self._geo.depth();
        let mut unused = self.unused_verilog("read_warp", "read_reg");
        unused.extend(self.unused_verilog("write_warp", "write_reg"));
        let unused = if unused.is_empty() {
            String::new()
        } else {
            format!(
                "// Address bits this bank does not decode (bank select, warps beyond `warps`).\n\
                 wire unused_addr_bits = &{{1'b0, {}}};\n",
                unused.join(", ")
            )
        };
        Verilog::Custom(format!(
            "\
// {depth} entries x 32 bit: one lane of one register-file bank. No read-write collision
// logic (`no_rw_check`): a read of the entry written in the same cycle is replaced by the
// registered write data (`write_first`) or never made (the shared write port). The read
// port reads at every edge: its data are used only in the cycle after a read.
(* no_rw_check *) reg [31:0] ram [0:{last}];
{unused}
always @(posedge clock) begin
   read_data <= ram[{raddr}];
   if (write_enable) begin
      ram[{waddr}] <= write_data;
   end
end
",
            last = depth - 1,
            raddr = self.address_verilog("read_warp", "read_reg"),
            waddr = self.address_verilog("write_warp", "write_reg"),
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "bank_ram".into(),
            clock: "clock".into(),
            inputs: vec![
                "read_warp".into(),
                "read_reg".into(),
                "write_enable".into(),
                "write_warp".into(),
                "write_reg".into(),
                "write_data".into(),
            ],
            outputs: vec!["read_data".into()],
        }]
    }
}

/// The banked register file: B banks × `lanes` [`BankRam`]s, one read port per bank, one
/// (lane-masked) write port that goes to the bank of its register. See the module docs for the
/// layout and timing.
#[derive(LogicBlock)]
pub struct RegisterFile {
    pub clock: Signal<In, Clock>,
    /// Per bank: read register `read_reg[b]` of warp `read_warp[b]` from bank `b` (the caller
    /// guarantees that the register lives in bank `b`). `read_enable[b]` exists only with
    /// `write_first` (it qualifies the bypass); the banks read at every edge.
    pub read_enable: Vec<Signal<In, bool>>,
    pub read_warp: Vec<Signal<In, Bits<WARP_BITS>>>,
    pub read_reg: Vec<Signal<In, Bits<REG_BITS>>>,
    /// `read_data[b * lanes + l]`: lane `l` of bank `b`, one cycle after the read.
    pub read_data: Vec<Signal<Out, Bits<32>>>,
    /// The write port (the caller guarantees no read of the same bank in the same cycle).
    pub write_enable: Signal<In, bool>,
    pub write_warp: Signal<In, Bits<WARP_BITS>>,
    pub write_reg: Signal<In, Bits<REG_BITS>>,
    pub write_mask: Vec<Signal<In, bool>>,
    pub write_data: Vec<Signal<In, Bits<32>>>,
    /// Per (bank, lane) storage, index `b * lanes + l`.
    ram: Vec<BankRam>,
    /// (write-first only) `[b * L + l]`: the read of bank `b` in the last cycle was of the
    /// register written then, and lane `l` was written: `read_data` is `write_q[l]`.
    read_hit: Vec<DFF<bool>>,
    /// (write-first only) the write data of the last cycle, per lane.
    write_q: Vec<DFF<Bits<32>>>,
    /// (write-first only) per bank: this cycle's read is of the register written this cycle.
    same_reg: Vec<Signal<Local, bool>>,
    write_bank: Signal<Local, Bits<BANK_BITS>>,
    write_go: Signal<Local, bool>,
    bank_mask: Constant<Bits<BANK_BITS>>,
    swizzle_mask: Constant<Bits<BANK_BITS>>,
    /// `k_bank[b]` = b.
    k_bank: Vec<Constant<Bits<BANK_BITS>>>,
    _banks: usize,
    _lanes: usize,
    /// 1 with `write_first`, else 0 (a compile-time conditional of the generated logic).
    _wf: usize,
}

impl RegisterFile {
    pub fn new(cfg: &GpuConfig) -> Self {
        Self::with_geometry(RfGeometry::new(cfg))
    }

    /// Without write-first bypass: the user never reads and writes one bank in one cycle.
    pub fn with_geometry(geo: RfGeometry) -> Self {
        Self::with_ports(geo, false)
    }

    /// `write_first`: a read of the register written in the same cycle returns the written
    /// lanes (module docs).
    pub fn with_ports(geo: RfGeometry, write_first: bool) -> Self {
        let (nb, nl) = (geo.banks, geo.lanes);
        let wf = usize::from(write_first);
        RegisterFile {
            clock: Default::default(),
            read_enable: (0..nb * wf).map(|_| Default::default()).collect(),
            read_warp: (0..nb).map(|_| Default::default()).collect(),
            read_reg: (0..nb).map(|_| Default::default()).collect(),
            read_data: (0..nb * nl).map(|_| Default::default()).collect(),
            write_enable: Default::default(),
            write_warp: Default::default(),
            write_reg: Default::default(),
            write_mask: (0..nl).map(|_| Default::default()).collect(),
            write_data: (0..nl).map(|_| Default::default()).collect(),
            ram: (0..nb * nl).map(|_| BankRam::new(geo)).collect(),
            read_hit: (0..nb * nl * wf).map(|_| Default::default()).collect(),
            write_q: (0..nl * wf).map(|_| Default::default()).collect(),
            same_reg: (0..nb * wf).map(|_| Default::default()).collect(),
            write_bank: Default::default(),
            write_go: Default::default(),
            bank_mask: Constant::new(geo.bank_mask().into()),
            swizzle_mask: Constant::new(geo.swizzle_mask().into()),
            k_bank: (0..nb).map(|b| Constant::new((b as u64).into())).collect(),
            _banks: nb,
            _lanes: nl,
            _wf: wf,
        }
    }
}

impl Logic for RegisterFile {
    #[hdl_gen]
    fn update(&mut self) {
        // Bank of the written register.
        self.write_bank.next = (self.write_reg.val()
            + (self.write_warp.val().get_bits::<5>(0) & self.swizzle_mask.val()))
            & self.bank_mask.val();
        self.write_go.next = self.write_enable.val();
        for _z in 0..self._wf {
            for nl in self._lanes..(self._lanes + 1) {
                for l in 0..self._lanes {
                    self.write_q[l].clock.next = self.clock.val();
                    self.write_q[l].d.next = self.write_data[l].val();
                }
                for b in 0..self._banks {
                    self.same_reg[b].next = self.read_enable[b].val()
                        && self.write_go.val()
                        && (self.read_warp[b].val() == self.write_warp.val())
                        && (self.read_reg[b].val() == self.write_reg.val());
                    for l in 0..self._lanes {
                        self.read_hit[b * nl + l].clock.next = self.clock.val();
                        self.read_hit[b * nl + l].d.next =
                            self.same_reg[b].val() && self.write_mask[l].val();
                    }
                }
            }
        }
        for b in 0..self._banks {
            for nl in self._lanes..(self._lanes + 1) {
                for l in 0..self._lanes {
                    self.ram[b * nl + l].clock.next = self.clock.val();
                    self.ram[b * nl + l].read_warp.next = self.read_warp[b].val();
                    self.ram[b * nl + l].read_reg.next = self.read_reg[b].val();
                    self.ram[b * nl + l].write_warp.next = self.write_warp.val();
                    self.ram[b * nl + l].write_reg.next = self.write_reg.val();
                    self.ram[b * nl + l].write_data.next = self.write_data[l].val();
                    self.ram[b * nl + l].write_enable.next = self.write_go.val()
                        && (self.write_bank.val() == self.k_bank[b].val())
                        && self.write_mask[l].val();
                    self.read_data[b * nl + l].next = self.ram[b * nl + l].read_data.val();
                    for _z in 0..self._wf {
                        if self.read_hit[b * nl + l].q.val() {
                            self.read_data[b * nl + l].next = self.write_q[l].q.val();
                        }
                    }
                }
            }
        }
    }
}
