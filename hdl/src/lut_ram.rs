//! `LutRam<W>`: a small memory of `W`-bit words with one synchronous write port and `R`
//! asynchronous read ports, written so that yosys maps it to distributed RAM (on the ECP5:
//! `DPR16X4`, 16 words × 4 bits, one copy per read port) instead of flip-flops and a read
//! multiplexer per port.
//!
//! * Write: with `we`, word `waddr` takes `wdata` at the clock edge.
//! * Read port `r`: `rdata[r]` = word `raddr[r]` as written up to the last edge
//!   (combinational: a write is visible from the next cycle on).
//! * Addresses are `Bits<A>`; only their low `addr_bits` bits are decoded (`2^addr_bits` words).
//!   Words never written read as 0 in simulation (Verilator's initial value); the owner decides
//!   what an unwritten word means.
//! * No reset: the owner keeps validity elsewhere (a memory with a reset loop is not a RAM to
//!   yosys).

use rust_hdl::prelude::*;

/// A RAM of `2^addr_bits` words of `W` bits, addresses of `A` bits, `reads` read ports.
#[derive(LogicBlock)]
pub struct LutRam<const W: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub we: Signal<In, Bit>,
    pub waddr: Signal<In, Bits<A>>,
    pub wdata: Signal<In, Bits<W>>,
    pub raddr: Vec<Signal<In, Bits<A>>>,
    pub rdata: Vec<Signal<Out, Bits<W>>>,
    _addr_bits: usize,
    _sim: Vec<Bits<W>>,
}

impl<const W: usize, const A: usize> LutRam<W, A> {
    /// `2^addr_bits` words (`1 ≤ addr_bits ≤ A`), `reads` read ports.
    pub fn new(addr_bits: usize, reads: usize) -> Self {
        assert!(
            (1..=A).contains(&addr_bits) && reads >= 1 && W >= 1,
            "LutRam<{W}, {A}> of 2^{addr_bits} words, {reads} read ports"
        );
        LutRam {
            clock: Default::default(),
            we: Default::default(),
            waddr: Default::default(),
            wdata: Default::default(),
            raddr: (0..reads).map(|_| Default::default()).collect(),
            rdata: (0..reads).map(|_| Default::default()).collect(),
            _addr_bits: addr_bits,
            _sim: vec![Bits::<W>::default(); 1 << addr_bits],
        }
    }

    fn index(&self, a: Bits<A>) -> usize {
        a.index() & ((1 << self._addr_bits) - 1)
    }
}

impl<const W: usize, const A: usize> Logic for LutRam<W, A> {
    fn update(&mut self) {
        if self.clock.pos_edge() && self.we.val() {
            let a = self.index(self.waddr.val());
            self._sim[a] = self.wdata.val();
        }
        for r in 0..self.raddr.len() {
            let a = self.index(self.raddr[r].val());
            self.rdata[r].next = self._sim[a];
        }
    }

    fn connect(&mut self) {
        for r in &mut self.rdata {
            r.connect();
        }
    }

    fn hdl(&self) -> Verilog {
        let ab = self._addr_bits;
        let addr = |name: &str| {
            if ab == A {
                name.to_string()
            } else {
                format!("{name}[{}:0]", ab - 1)
            }
        };
        let mut unused = vec![];
        let mut reads = String::new();
        let mut ports = vec!["waddr".to_string()];
        ports.extend((0..self.raddr.len()).map(|r| format!("raddr${r}")));
        for r in 0..self.raddr.len() {
            reads.push_str(&format!(
                "always @(*) rdata${r} = ram[{}];\n",
                addr(&format!("raddr${r}"))
            ));
        }
        if ab < A {
            for p in &ports {
                unused.push(format!("{p}[{}:{ab}]", A - 1));
            }
        }
        let unused = if unused.is_empty() {
            String::new()
        } else {
            format!(
                "// Address bits above the RAM's depth.\nwire unused_addr_bits = &{{1'b0, {}}};\n",
                unused.join(", ")
            )
        };
        Verilog::Custom(format!(
            "\
// {n} words x {W} bit, one write port, {r} asynchronous read ports: distributed RAM.
reg [{hi}:0] ram [0:{last}];
{unused}always @(posedge clock) begin
   if (we) begin
      ram[{waddr}] <= wdata;
   end
end
{reads}",
            n = 1usize << ab,
            r = self.raddr.len(),
            hi = W - 1,
            last = (1usize << ab) - 1,
            waddr = addr("waddr"),
        ))
    }
}
