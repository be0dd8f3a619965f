//! One-hot choices as flat logic: [`RoundRobinPick`] (the first request at or after a pointer,
//! else the first) and [`OneHotMux`] (the word of the one selected input).
//!
//! * Why leaves: rust-hdl can only index a `Vec` by a loop variable, so a choice is written as
//!   `for i { if x[i] & !found { pick = i; found = true } }` and a selection by it as
//!   `for i { if pick[i] { q = d[i] } }`. Both become chains of 2:1 multiplexers, one per
//!   input, and ABC cannot rebalance the second: it does not know that the selects are one-hot.
//!   On `small` the fetch unit's warp choice and PC selection were such a chain, 16 LUT levels
//!   deep before the instruction memory's address (scripts/logic_depth.py, docs/fpga.md). Here
//!   the first-one is `x[i] & ~|x[i-1:0]` and the choice an AND-OR, which synthesis builds as
//!   balanced trees: two or three LUT levels for eight inputs.
//! * The same choice as the chains (co-simulated wherever they are used: the fetch unit's unit
//!   bench and every kernel's lock-step); the tests below check the text and the Rust model.

use rust_hdl::prelude::*;

/// The first requester at or after a pointer, else the first requester: `grant` is one-hot (all
/// zero when nothing is requested), `any` says whether anything is.
///
/// The pointer comes as a mask: `from[i]` is 1 for the positions that come first (at or after
/// the pointer, or strictly after the last winner: the caller's rule).
///
/// One block makes `groups` independent choices (`req[g * n + i]`, `from[g * n + i]`,
/// `grant[g * n + i]`, `any[g]`): rust-hdl cannot index a `Vec` port of a child held in a `Vec`.
#[derive(LogicBlock)]
pub struct RoundRobinPick {
    pub req: Vec<Signal<In, Bit>>,
    pub from: Vec<Signal<In, Bit>>,
    pub grant: Vec<Signal<Out, Bit>>,
    pub any: Vec<Signal<Out, Bit>>,
    _n: usize,
}

impl RoundRobinPick {
    /// A choice among `n` (≥ 1) requesters.
    pub fn new(n: usize) -> Self {
        Self::groups(1, n)
    }

    /// `groups` choices among `n` (≥ 1) requesters each (no ports at all for 0 groups: a
    /// parent whose configuration needs no choice).
    pub fn groups(groups: usize, n: usize) -> Self {
        assert!(n >= 1, "RoundRobinPick of {groups} x {n}");
        RoundRobinPick {
            req: crate::sigs(groups * n),
            from: crate::sigs(groups * n),
            grant: crate::sigs(groups * n),
            any: crate::sigs(groups),
            _n: n,
        }
    }
}

/// The winner of a [`RoundRobinPick`]: the first `i` with `req[i] && from[i]`, else the first
/// with `req[i]`.
pub fn round_robin_winner(req: &[bool], from: &[bool]) -> Option<usize> {
    let first_from = (0..req.len()).find(|&i| req[i] && from[i]);
    first_from.or_else(|| req.iter().position(|&r| r))
}

impl Logic for RoundRobinPick {
    fn update(&mut self) {
        let n = self._n;
        for g in 0..self.any.len() {
            let req: Vec<bool> = (0..n).map(|i| self.req[g * n + i].val()).collect();
            let from: Vec<bool> = (0..n).map(|i| self.from[g * n + i].val()).collect();
            let winner = round_robin_winner(&req, &from);
            for i in 0..n {
                self.grant[g * n + i].next = winner == Some(i);
            }
            self.any[g].next = winner.is_some();
        }
    }

    fn connect(&mut self) {
        for g in &mut self.grant {
            g.connect();
        }
        for a in &mut self.any {
            a.connect();
        }
    }

    fn hdl(&self) -> Verilog {
        let n = self._n;
        let m = n - 1;
        let mut text = format!(
            "// {} round-robin choice(s) of {n}: the first request at or after the pointer, else \
             the first.\n",
            self.any.len()
        );
        for g in 0..self.any.len() {
            let cat = |name: &str| -> String {
                let parts: Vec<String> = (0..n)
                    .rev()
                    .map(|i| format!("{name}${}", g * n + i))
                    .collect();
                format!("{{{}}}", parts.join(", "))
            };
            text.push_str(&format!(
                "wire [{m}:0] r{g} = {};\nwire [{m}:0] h{g} = r{g} & {};\n\
                 wire [{m}:0] x{g} = (|h{g}) ? h{g} : r{g};\nalways @(*) any${g} = |r{g};\n\
                 always @(*) grant${} = x{g}[0];\n",
                cat("req"),
                cat("from"),
                g * n
            ));
            for i in 1..n {
                text.push_str(&format!(
                    "always @(*) grant${} = x{g}[{i}] & ~(|x{g}[{}:0]);\n",
                    g * n + i,
                    i - 1
                ));
            }
        }
        Verilog::Custom(text)
    }
}

/// `k` words chosen by a one-hot select: `q[w]` = `d[i * k + w]` for the `i` with `sel[i]` set,
/// 0 when none is (and the OR of the chosen words when several are: the caller keeps the
/// selects one-hot).
///
/// One block makes `groups` independent choices: `sel[g * n + i]`, `d[(g * n + i) * k + w]`,
/// `q[g * k + w]` (rust-hdl cannot index a `Vec` port of a child held in a `Vec`).
#[derive(LogicBlock)]
pub struct OneHotMux<const W: usize> {
    pub sel: Vec<Signal<In, Bit>>,
    /// `d[(g * n + i) * k + w]`: word `w` of input `i` of choice `g`.
    pub d: Vec<Signal<In, Bits<W>>>,
    pub q: Vec<Signal<Out, Bits<W>>>,
    _n: usize,
    _k: usize,
}

impl<const W: usize> OneHotMux<W> {
    /// A choice among `n` (≥ 1) inputs of `k` (≥ 1) words each.
    pub fn new(n: usize, k: usize) -> Self {
        Self::groups(1, n, k)
    }

    /// `groups` (≥ 1) choices among `n` (≥ 1) inputs of `k` (≥ 1) words each.
    pub fn groups(groups: usize, n: usize, k: usize) -> Self {
        assert!(
            groups >= 1 && n >= 1 && k >= 1,
            "OneHotMux of {groups} x {n} x {k}"
        );
        OneHotMux {
            sel: crate::sigs(groups * n),
            d: crate::sigs(groups * n * k),
            q: crate::sigs(groups * k),
            _n: n,
            _k: k,
        }
    }
}

impl<const W: usize> Logic for OneHotMux<W> {
    fn update(&mut self) {
        let (n, k) = (self._n, self._k);
        for g in 0..self.q.len() / k {
            for w in 0..k {
                let mut v = Bits::<W>::default();
                for i in 0..n {
                    if self.sel[g * n + i].val() {
                        v = v | self.d[(g * n + i) * k + w].val();
                    }
                }
                self.q[g * k + w].next = v;
            }
        }
    }

    fn connect(&mut self) {
        for q in &mut self.q {
            q.connect();
        }
    }

    fn hdl(&self) -> Verilog {
        let (n, k) = (self._n, self._k);
        let groups = self.q.len() / k;
        let mut text =
            format!("// {groups} one-hot choice(s) of {n} inputs of {k} words of {W} bits.\n");
        for g in 0..groups {
            for w in 0..k {
                let terms: Vec<String> = (0..n)
                    .map(|i| format!("({{{W}{{sel${}}}}} & d${})", g * n + i, (g * n + i) * k + w))
                    .collect();
                text.push_str(&format!(
                    "always @(*) q${} = {};\n",
                    g * k + w,
                    terms.join(" | ")
                ));
            }
        }
        Verilog::Custom(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_robin_prefers_the_positions_after_the_pointer() {
        // Requests 0 and 2; positions 2.. come first: 2 wins. Nothing from there: 0 wins.
        let t = [true, false, true, false];
        assert_eq!(round_robin_winner(&t, &[false, false, true, true]), Some(2));
        assert_eq!(
            round_robin_winner(&t, &[false, false, false, true]),
            Some(0)
        );
        assert_eq!(round_robin_winner(&[false; 4], &[true; 4]), None);
    }

    #[test]
    fn verilog_is_flat() {
        let p = RoundRobinPick::new(3);
        let Verilog::Custom(v) = p.hdl() else {
            panic!("a custom leaf")
        };
        assert!(v.contains("wire [2:0] r0 = {req$2, req$1, req$0};"));
        assert!(v.contains("always @(*) grant$2 = x0[2] & ~(|x0[1:0]);"));
        let p = RoundRobinPick::groups(2, 2);
        let Verilog::Custom(v) = p.hdl() else {
            panic!("a custom leaf")
        };
        assert!(v.contains("wire [1:0] h1 = r1 & {from$3, from$2};"));
        assert!(v.contains("always @(*) grant$3 = x1[1] & ~(|x1[0:0]);"));
        let m = OneHotMux::<8>::new(2, 2);
        let Verilog::Custom(v) = m.hdl() else {
            panic!("a custom leaf")
        };
        assert!(v.contains("always @(*) q$1 = ({8{sel$0}} & d$1) | ({8{sel$1}} & d$3);"));
    }
}
