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

use crate::register_file::clog2;

/// Address bits of a RAM that holds `words` words: `ceil(log2 words)`, at least 1 (a one-word
/// RAM still has an address bit).
pub fn addr_bits_for(words: usize) -> usize {
    clog2(words).max(1)
}

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

/// `LutRamArray<W, A>`: `m` independent distributed RAMs of `2^addr_bits` entries, an entry
/// being `k` words of `W` bits; each RAM has one synchronous write port and one asynchronous
/// read port (the [`LutRam`] rules apply to each). Ports are flat so that a parent indexes
/// them by loop variables: RAM `j` has `we[j]`, `waddr[j]`, `raddr[j]`, and words
/// `wdata[j * k + w]`, `rdata[j * k + w]`.
#[derive(LogicBlock)]
pub struct LutRamArray<const W: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub we: Vec<Signal<In, Bit>>,
    pub waddr: Vec<Signal<In, Bits<A>>>,
    pub wdata: Vec<Signal<In, Bits<W>>>,
    pub raddr: Vec<Signal<In, Bits<A>>>,
    pub rdata: Vec<Signal<Out, Bits<W>>>,
    _addr_bits: usize,
    _k: usize,
    _sim: Vec<Vec<Bits<W>>>,
}

impl<const W: usize, const A: usize> LutRamArray<W, A> {
    /// `rams` RAMs of `2^addr_bits` entries of `words` words (`1 ≤ addr_bits ≤ A`).
    pub fn new(rams: usize, addr_bits: usize, words: usize) -> Self {
        assert!(
            (1..=A).contains(&addr_bits) && rams >= 1 && words >= 1 && W >= 1,
            "LutRamArray<{W}, {A}> of {rams} RAMs of 2^{addr_bits} x {words} words"
        );
        LutRamArray {
            clock: Default::default(),
            we: crate::sigs(rams),
            waddr: crate::sigs(rams),
            wdata: crate::sigs(rams * words),
            raddr: crate::sigs(rams),
            rdata: crate::sigs(rams * words),
            _addr_bits: addr_bits,
            _k: words,
            _sim: vec![vec![Bits::<W>::default(); words << addr_bits]; rams],
        }
    }
}

impl<const W: usize, const A: usize> Logic for LutRamArray<W, A> {
    fn update(&mut self) {
        let (k, mask) = (self._k, (1usize << self._addr_bits) - 1);
        for j in 0..self.we.len() {
            if self.clock.pos_edge() && self.we[j].val() {
                let a = self.waddr[j].val().index() & mask;
                for w in 0..k {
                    self._sim[j][a * k + w] = self.wdata[j * k + w].val();
                }
            }
            let a = self.raddr[j].val().index() & mask;
            for w in 0..k {
                self.rdata[j * k + w].next = self._sim[j][a * k + w];
            }
        }
    }

    fn connect(&mut self) {
        for r in &mut self.rdata {
            r.connect();
        }
    }

    fn hdl(&self) -> Verilog {
        let (ab, k, rams) = (self._addr_bits, self._k, self.we.len());
        let addr = |name: String| {
            if ab == A {
                name
            } else {
                format!("{name}[{}:0]", ab - 1)
            }
        };
        let words = |port: &str, j: usize| {
            let v: Vec<String> = (0..k)
                .rev()
                .map(|w| format!("{port}${}", j * k + w))
                .collect();
            if k == 1 {
                v[0].clone()
            } else {
                format!("{{{}}}", v.join(", "))
            }
        };
        let mut text = format!(
            "// {rams} RAMs of {} entries x {k} words of {W} bit, one write port and one \
             asynchronous read port each: distributed RAM.\n",
            1usize << ab
        );
        if ab < A {
            let bits: Vec<String> = (0..rams)
                .flat_map(|j| {
                    [
                        format!("waddr${j}[{}:{ab}]", A - 1),
                        format!("raddr${j}[{}:{ab}]", A - 1),
                    ]
                })
                .collect();
            text.push_str(&format!(
                "// Address bits above the RAMs' depth.\nwire unused_addr_bits = &{{1'b0, {}}};\n",
                bits.join(", ")
            ));
        }
        for j in 0..rams {
            text.push_str(&format!(
                "reg [{hi}:0] mem{j} [0:{last}];\n\
                 always @(posedge clock) begin\n   if (we${j}) begin\n      mem{j}[{wa}] <= {wd};\n   end\nend\n\
                 always @(*) {rd} = mem{j}[{ra}];\n",
                hi = k * W - 1,
                last = (1usize << ab) - 1,
                wa = addr(format!("waddr${j}")),
                wd = words("wdata", j),
                rd = words("rdata", j),
                ra = addr(format!("raddr${j}")),
            ));
        }
        Verilog::Custom(text)
    }
}
