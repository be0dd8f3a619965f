//! `WordMux<W, A>`: choose one of `n` groups of `k` words of `W` bits by a binary index, as a
//! balanced tree of 2:1 multiplexers (one level per index bit); `ports` independent choices
//! from the same groups (a crossbar).
//!
//! * `q[p * k + w]` = `d[sel[p] * k + w]` when `sel[p] < n`, else 0. Co-simulated as the
//!   operand collector's bypass choice (testbench/tests/unit_operand_collector.rs); the tree's
//!   shape is checked below.
//! * One block serves every port: rust-hdl cannot index a `Vec` port of a child held in a
//!   `Vec` by a loop variable.
//! * Why a leaf: rust-hdl can only index a `Vec` by a loop variable, so a choice by a signal is
//!   written as `for i { if sel == i { q = d[i] } }`, a priority chain of `n` comparisons that
//!   synthesis has to rebuild into a tree. Written as a tree, 8 groups of 24 words take 4,608
//!   LUT4 on the ECP5 (6 per output bit; `cargo run --release -p warpforge-hdl --example
//!   unit_verilog word-mux 8 24`, then yosys `synth_ecp5 -abc9; stat`).

use rust_hdl::prelude::*;

/// `n` groups of `k` words of `W` bits, index `Bits<A>`.
#[derive(LogicBlock)]
pub struct WordMux<const W: usize, const A: usize> {
    /// `sel[p]`: the group port `p` chooses.
    pub sel: Vec<Signal<In, Bits<A>>>,
    /// `d[i * k + w]`: word `w` of group `i`.
    pub d: Vec<Signal<In, Bits<W>>>,
    /// `q[p * k + w]`: word `w` of group `sel[p]`.
    pub q: Vec<Signal<Out, Bits<W>>>,
    _n: usize,
    _k: usize,
}

impl<const W: usize, const A: usize> WordMux<W, A> {
    /// # Panics
    /// If `n`, `k` or `ports` is 0 or `n` does not fit the index (`n > 2^A`).
    pub fn new(n: usize, k: usize, ports: usize) -> Self {
        assert!(
            n >= 1 && k >= 1 && ports >= 1 && (A >= usize::BITS as usize || n <= 1 << A),
            "WordMux<{W}, {A}> of {n} groups of {k} words, {ports} ports"
        );
        WordMux {
            sel: (0..ports).map(|_| Default::default()).collect(),
            d: (0..n * k).map(|_| Default::default()).collect(),
            q: (0..ports * k).map(|_| Default::default()).collect(),
            _n: n,
            _k: k,
        }
    }

    /// Index bits the tree decodes: ⌈log2 n⌉.
    fn levels(&self) -> usize {
        (usize::BITS - (self._n - 1).leading_zeros()) as usize
    }
}

impl<const W: usize, const A: usize> Logic for WordMux<W, A> {
    fn update(&mut self) {
        let k = self._k;
        for p in 0..self.sel.len() {
            let i = self.sel[p].val().index();
            for w in 0..k {
                self.q[p * k + w].next = if i < self._n {
                    self.d[i * k + w].val()
                } else {
                    Bits::<W>::default()
                };
            }
        }
    }

    fn connect(&mut self) {
        for q in &mut self.q {
            q.connect();
        }
    }

    fn hdl(&self) -> Verilog {
        let (n, k, ports, levels) = (self._n, self._k, self.sel.len(), self.levels());
        let mut text = format!(
            "// {ports} x {n}:1 choice of {k} words of {W} bits: trees of 2:1 multiplexers.\n"
        );
        // Index bits beyond the tree are read here.
        if levels < A {
            let bits: Vec<String> = (0..ports)
                .map(|p| format!("sel${p}[{}:{levels}]", A - 1))
                .collect();
            text.push_str(&format!(
                "wire unused_sel = &{{1'b0, {}}};\n",
                bits.join(", ")
            ));
        }
        for (p, w) in (0..ports).flat_map(|p| (0..k).map(move |w| (p, w))) {
            // Level 0: the groups' words, padded with zeros to 2^levels.
            let mut nodes: Vec<String> = (0..1usize << levels)
                .map(|i| {
                    if i < n {
                        format!("d${}", i * k + w)
                    } else {
                        format!("{W}'d0")
                    }
                })
                .collect();
            for level in 0..levels {
                nodes = nodes
                    .chunks(2)
                    .enumerate()
                    .map(|(j, pair)| {
                        let name = format!("t{p}_{w}_{level}_{j}");
                        text.push_str(&format!(
                            "wire [{}:0] {name} = sel${p}[{level}] ? {} : {};\n",
                            W - 1,
                            pair[1],
                            pair[0]
                        ));
                        name
                    })
                    .collect();
            }
            text.push_str(&format!("always @(*) q${} = {};\n", p * k + w, nodes[0]));
        }
        Verilog::Custom(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verilog_is_a_tree_of_the_index_bits() {
        let m = WordMux::<32, 6>::new(8, 3, 2);
        let Verilog::Custom(v) = m.hdl() else {
            panic!("a custom leaf")
        };
        // 2 ports × 3 words × (4 + 2 + 1) nodes, the upper index bits marked unused.
        assert_eq!(v.matches(" = sel$").count(), 2 * 3 * 7);
        assert!(v.contains("wire unused_sel = &{1'b0, sel$0[5:3], sel$1[5:3]};"));
        assert!(v.contains("always @(*) q$5 = t1_2_2_0;"));
        let one = WordMux::<4, 1>::new(1, 1, 1);
        let Verilog::Custom(v) = one.hdl() else {
            panic!("a custom leaf")
        };
        assert!(v.contains("always @(*) q$0 = d$0;") && v.contains("sel$0[0:0]"));
    }
}
