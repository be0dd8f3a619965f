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
#[derive(LogicBlock)]
pub struct RoundRobinPick {
    pub req: Vec<Signal<In, Bit>>,
    pub from: Vec<Signal<In, Bit>>,
    pub grant: Vec<Signal<Out, Bit>>,
    pub any: Signal<Out, Bit>,
}

impl RoundRobinPick {
    /// A choice among `n` (≥ 1) requesters.
    pub fn new(n: usize) -> Self {
        assert!(n >= 1, "a RoundRobinPick of no requesters");
        RoundRobinPick {
            req: crate::sigs(n),
            from: crate::sigs(n),
            grant: crate::sigs(n),
            any: Default::default(),
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
        let req: Vec<bool> = self.req.iter().map(|r| r.val()).collect();
        let from: Vec<bool> = self.from.iter().map(|r| r.val()).collect();
        let winner = round_robin_winner(&req, &from);
        for (i, g) in self.grant.iter_mut().enumerate() {
            g.next = winner == Some(i);
        }
        self.any.next = winner.is_some();
    }

    fn connect(&mut self) {
        for g in &mut self.grant {
            g.connect();
        }
        self.any.connect();
    }

    fn hdl(&self) -> Verilog {
        let n = self.req.len();
        let cat = |name: &str| -> String {
            let parts: Vec<String> = (0..n).rev().map(|i| format!("{name}${i}")).collect();
            format!("{{{}}}", parts.join(", "))
        };
        let mut text = format!(
            "// Round-robin choice of {n}: the first request at or after the pointer, else the \
             first.\nwire [{m}:0] r = {};\nwire [{m}:0] h = r & {};\nwire [{m}:0] x = (|h) ? h : r;\n",
            cat("req"),
            cat("from"),
            m = n - 1
        );
        text.push_str("always @(*) any = |r;\n");
        text.push_str("always @(*) grant$0 = x[0];\n");
        for i in 1..n {
            text.push_str(&format!(
                "always @(*) grant${i} = x[{i}] & ~(|x[{}:0]);\n",
                i - 1
            ));
        }
        Verilog::Custom(text)
    }
}

/// `k` words chosen by a one-hot select: `q[w]` = `d[i * k + w]` for the `i` with `sel[i]` set,
/// 0 when none is (and the OR of the chosen words when several are: the caller keeps the
/// selects one-hot).
#[derive(LogicBlock)]
pub struct OneHotMux<const W: usize> {
    pub sel: Vec<Signal<In, Bit>>,
    /// `d[i * k + w]`: word `w` of input `i`.
    pub d: Vec<Signal<In, Bits<W>>>,
    pub q: Vec<Signal<Out, Bits<W>>>,
}

impl<const W: usize> OneHotMux<W> {
    /// A choice among `n` (≥ 1) inputs of `k` (≥ 1) words each.
    pub fn new(n: usize, k: usize) -> Self {
        assert!(n >= 1 && k >= 1, "OneHotMux of {n} inputs of {k} words");
        OneHotMux {
            sel: crate::sigs(n),
            d: crate::sigs(n * k),
            q: crate::sigs(k),
        }
    }
}

impl<const W: usize> Logic for OneHotMux<W> {
    fn update(&mut self) {
        let k = self.q.len();
        for w in 0..k {
            let mut v = Bits::<W>::default();
            for (i, s) in self.sel.iter().enumerate() {
                if s.val() {
                    v = v | self.d[i * k + w].val();
                }
            }
            self.q[w].next = v;
        }
    }

    fn connect(&mut self) {
        for q in &mut self.q {
            q.connect();
        }
    }

    fn hdl(&self) -> Verilog {
        let (n, k) = (self.sel.len(), self.q.len());
        let mut text = format!("// One-hot choice of {n} inputs of {k} words of {W} bits.\n");
        for w in 0..k {
            let terms: Vec<String> = (0..n)
                .map(|i| format!("({{{W}{{sel${i}}}}} & d${})", i * k + w))
                .collect();
            text.push_str(&format!("always @(*) q${w} = {};\n", terms.join(" | ")));
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
        assert!(v.contains("wire [2:0] r = {req$2, req$1, req$0};"));
        assert!(v.contains("always @(*) grant$2 = x[2] & ~(|x[1:0]);"));
        let m = OneHotMux::<8>::new(2, 2);
        let Verilog::Custom(v) = m.hdl() else {
            panic!("a custom leaf")
        };
        assert!(v.contains("always @(*) q$1 = ({8{sel$0}} & d$1) | ({8{sel$1}} & d$3);"));
    }
}
