//! The shared miter of `mutate`'s in-context proof (docs/mutation.md, "Equivalence in
//! context"): the GPU with and without one mutation, where only the logic the mutation can
//! reach is duplicated.
//!
//! A miter of two whole copies (yosys `miter -equiv` of gold and gate) leaves ABC to rediscover
//! that thousands of register pairs are equal before it can look at the few that are not; on
//! `tiny` it did not within minutes. Here the design is bit-blasted once with every mutation
//! behind its own control input (`wf_alive_<i>`, as for "dead in context"), and the miter of
//! mutation `i` is built from that one AIG: rail A has every control at 0 (the original GPU),
//! rail B only control `i` at 1. Both rails are built into one structurally hashed graph, so a
//! gate whose inputs are the same in both rails is one gate. A register is shared while its
//! next state is the same literal in both rails, assuming the same of every shared register:
//! the greatest such set (found by splitting registers until none is left to split) is
//! correct by induction, since both rails start from the same initial values. What is left
//! is the miter output (some compared output differs between the rails) over the shared
//! logic and the two copies of the mutation's reach, cut down to the output's cone.
//!
//! The AIGER format (binary `aig`, as yosys's `write_aiger` and ABC read it) is read and
//! written here: the transformation needs the graph itself, not only a parser.

use std::collections::HashMap;

use anyhow::{anyhow, bail, Result};

/// An and-inverter graph as AIGER numbers it: variable 0 is the constant, then the inputs,
/// the latches and the and gates; a literal is `2 * variable + negated`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Aig {
    pub inputs: usize,
    /// Each latch's next-state literal and initial value (0 or 1).
    pub latches: Vec<(u32, u32)>,
    pub outputs: Vec<u32>,
    /// The and gates `(rhs0, rhs1)`, variable `1 + inputs + latches + k` for gate `k`.
    pub ands: Vec<(u32, u32)>,
}

fn header_numbers(line: &str, magic: &str) -> Result<Vec<usize>> {
    let mut words = line.split_whitespace();
    if words.next() != Some(magic) {
        bail!("not an AIGER file (`{magic}` header expected, found `{line}`)");
    }
    let n: Vec<usize> = words
        .map(|w| w.parse().map_err(|_| anyhow!("bad AIGER header `{line}`")))
        .collect::<Result<_>>()?;
    if n.len() < 5 {
        bail!("bad AIGER header `{line}`");
    }
    if n[5..].iter().any(|&x| x != 0) {
        bail!("AIGER bad-state, constraint or fairness sections are not supported (`{line}`)");
    }
    Ok(n)
}

impl Aig {
    fn first_and(&self) -> u32 {
        (1 + self.inputs + self.latches.len()) as u32
    }

    /// Read the binary format (`aig M I L O A`); latches may carry an initial value.
    pub fn read_binary(bytes: &[u8]) -> Result<Aig> {
        let mut pos = 0;
        let mut line = || -> Result<&str> {
            let end = bytes[pos..]
                .iter()
                .position(|&b| b == b'\n')
                .ok_or_else(|| anyhow!("AIGER file ends inside its header"))?;
            let l = std::str::from_utf8(&bytes[pos..pos + end])?;
            pos += end + 1;
            Ok(l)
        };
        let n = header_numbers(line()?, "aig")?;
        let (m, i, l, o, a) = (n[0], n[1], n[2], n[3], n[4]);
        if m != i + l + a {
            bail!("AIGER header: M = {m} is not I + L + A");
        }
        let mut aig = Aig {
            inputs: i,
            ..Default::default()
        };
        for _ in 0..l {
            let w: Vec<u32> = line()?
                .split_whitespace()
                .map(|x| x.parse().map_err(|_| anyhow!("bad AIGER latch line")))
                .collect::<Result<_>>()?;
            match w[..] {
                [next] => aig.latches.push((next, 0)),
                [next, init] if init <= 1 => aig.latches.push((next, init)),
                _ => bail!("unsupported AIGER latch line {w:?} (an uninitialised latch?)"),
            }
        }
        for _ in 0..o {
            let w = line()?;
            aig.outputs.push(
                w.trim()
                    .parse()
                    .map_err(|_| anyhow!("bad AIGER output `{w}`"))?,
            );
        }
        let mut delta = || -> Result<u32> {
            let mut x: u32 = 0;
            let mut shift = 0;
            loop {
                let b = *bytes
                    .get(pos)
                    .ok_or_else(|| anyhow!("AIGER file ends inside its and gates"))?;
                pos += 1;
                x |= u32::from(b & 0x7f) << shift;
                if b & 0x80 == 0 {
                    return Ok(x);
                }
                shift += 7;
            }
        };
        let first = aig.first_and();
        for k in 0..a as u32 {
            let lhs = 2 * (first + k);
            let d0 = delta()?;
            let d1 = delta()?;
            let rhs0 = lhs
                .checked_sub(d0)
                .ok_or_else(|| anyhow!("bad AIGER and gate"))?;
            let rhs1 = rhs0
                .checked_sub(d1)
                .ok_or_else(|| anyhow!("bad AIGER and gate"))?;
            aig.ands.push((rhs0, rhs1));
        }
        Ok(aig)
    }

    /// The binary format, latches with their initial values.
    pub fn write_binary(&self) -> Vec<u8> {
        let (i, l, o, a) = (
            self.inputs,
            self.latches.len(),
            self.outputs.len(),
            self.ands.len(),
        );
        let mut out = format!("aig {} {i} {l} {o} {a}\n", i + l + a).into_bytes();
        for &(next, init) in &self.latches {
            out.extend(format!("{next} {init}\n").bytes());
        }
        for &lit in &self.outputs {
            out.extend(format!("{lit}\n").bytes());
        }
        let first = self.first_and();
        for (k, &(r0, r1)) in self.ands.iter().enumerate() {
            let lhs = 2 * (first + k as u32);
            let (r0, r1) = if r0 >= r1 { (r0, r1) } else { (r1, r0) };
            for mut d in [lhs - r0, r0 - r1] {
                while d >= 0x80 {
                    out.push((d & 0x7f) as u8 | 0x80);
                    d >>= 7;
                }
                out.push(d as u8);
            }
        }
        out
    }
}

/// A node of the graph being built: leaves (inputs, latches) and hashed and gates. Literal
/// `2 * node + negated`; node 0 is the constant false.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Node {
    False,
    Input(usize),
    Latch(usize),
    And(u32, u32),
}

#[derive(Default)]
struct Builder {
    nodes: Vec<Node>,
    hash: HashMap<(u32, u32), u32>,
}

impl Builder {
    fn new() -> Builder {
        Builder {
            nodes: vec![Node::False],
            hash: HashMap::new(),
        }
    }
    fn leaf(&mut self, n: Node) -> u32 {
        self.nodes.push(n);
        2 * (self.nodes.len() as u32 - 1)
    }
    fn and(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = if a >= b { (a, b) } else { (b, a) };
        if b == 0 || a == b ^ 1 {
            return 0;
        }
        if b == 1 || a == b {
            return a;
        }
        if let Some(&l) = self.hash.get(&(a, b)) {
            return l;
        }
        let l = self.leaf(Node::And(a, b));
        self.hash.insert((a, b), l);
        l
    }
    fn or(&mut self, a: u32, b: u32) -> u32 {
        self.and(a ^ 1, b ^ 1) ^ 1
    }
    fn xor(&mut self, a: u32, b: u32) -> u32 {
        let both = self.and(a, b);
        let neither = self.and(a ^ 1, b ^ 1);
        self.and(both ^ 1, neither ^ 1)
    }
}

/// A memory the proof cuts (`gen/src/formal_memcut.v`): its read data are free inputs, its
/// writes compared outputs. `read[i]`: the input that is bit `i` of the read data (every read
/// port's word in turn); `write[j]`: the output literal that is bit `j` of the write data
/// where enabled (every write port's word in turn); `width`: the word's bits, so bit `i` is in
/// column `i % width`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CutMemory {
    pub read: Vec<usize>,
    pub write: Vec<u32>,
    pub width: usize,
}

/// What three-valued simulation finds constant in every reachable state of one rail.
struct Constants {
    /// Per latch: its value, `None` when it is not constant.
    latch: Vec<Option<u32>>,
    /// Per input: a cut memory's read-data bit in a column every write leaves 0.
    zero_input: Vec<bool>,
}

/// The latches that hold one value in every reachable state of the graph with the given
/// inputs fixed (`fixed[i]`: `Some(value)`, else free), and the cut memories' columns that
/// stay 0: three-valued simulation from the initial values (memories start at 0, as in the
/// co-simulation and in the FPGA's RAMs), every free input unknown, until nothing changes. A
/// latch still known then is constant (its next state is that value whenever every latch and
/// column known so far has its value, which holds from the initial state on); a column is 0
/// when every write port writes 0 in it whenever that holds (the stored PCs' bits above the
/// instruction memory, the bits a mask clears), so its read data are 0 too.
fn constants(aig: &Aig, fixed: &[Option<u32>], memories: &[CutMemory]) -> Constants {
    // Three values per variable: Some(0), Some(1), None (unknown).
    let first = aig.first_and() as usize;
    let mut latch: Vec<Option<u32>> = aig.latches.iter().map(|&(_, init)| Some(init)).collect();
    let mut zero_column: Vec<Vec<bool>> = memories.iter().map(|m| vec![true; m.width]).collect();
    let mut val: Vec<Option<u32>> = vec![None; first + aig.ands.len()];
    val[0] = Some(0);
    for (i, f) in fixed.iter().enumerate() {
        val[1 + i] = *f;
    }
    let get = |val: &Vec<Option<u32>>, lit: u32| val[(lit / 2) as usize].map(|v| v ^ (lit & 1));
    loop {
        for (j, v) in latch.iter().enumerate() {
            val[1 + aig.inputs + j] = *v;
        }
        for (m, zero) in memories.iter().zip(&zero_column) {
            for (i, &input) in m.read.iter().enumerate() {
                if fixed[input].is_none() {
                    val[1 + input] = zero[i % m.width].then_some(0);
                }
            }
        }
        for (k, &(r0, r1)) in aig.ands.iter().enumerate() {
            val[first + k] = match (get(&val, r0), get(&val, r1)) {
                (Some(0), _) | (_, Some(0)) => Some(0),
                (Some(1), Some(1)) => Some(1),
                _ => None,
            };
        }
        let mut changed = false;
        for (j, &(next, _)) in aig.latches.iter().enumerate() {
            if latch[j].is_some() && get(&val, next) != latch[j] {
                latch[j] = None;
                changed = true;
            }
        }
        for (m, zero) in memories.iter().zip(zero_column.iter_mut()) {
            for (j, &w) in m.write.iter().enumerate() {
                if zero[j % m.width] && get(&val, w) != Some(0) {
                    zero[j % m.width] = false;
                    changed = true;
                }
            }
        }
        if !changed {
            let mut zero_input = vec![false; aig.inputs];
            for (m, zero) in memories.iter().zip(&zero_column) {
                for (i, &input) in m.read.iter().enumerate() {
                    zero_input[input] = fixed[input].is_none() && zero[i % m.width];
                }
            }
            return Constants { latch, zero_input };
        }
    }
}

/// The miter of one mutation, ready for a model checker.
#[derive(Debug)]
pub struct SharedMiter {
    /// One output: high in a cycle where a compared output differs between the rails. `None`
    /// when no output can differ by construction (the rails' outputs are the same literals).
    pub aig: Option<Aig>,
    /// For each input of `aig`, the input of the original AIG it is.
    pub input_of: Vec<usize>,
    /// Latches of the original AIG the mutation can reach (two copies each) and all of them.
    pub split_latches: usize,
    /// Latches of the original AIG constant in both rails (three-valued simulation).
    pub constants: usize,
    /// Cut memories' read-data bits that are 0 in a rail (a column its writes leave 0).
    pub zero_reads: usize,
    /// For each latch of the original AIG, the round of the fixed point that found it reached
    /// (0 for latches that are not): the order in which the mutation's reach spread.
    pub reached_in_round: Vec<u32>,
    pub latches: usize,
}

/// The miter of the mutation behind control input `on` (`controls`: every mutation's control
/// input, each 0 in rail A; in rail B only `on` is 1; `memories`: the cut memories).
///
/// A read-data bit in a column one rail's writes leave 0 is 0 in both rails: the rails' memories
/// hold the same contents until their writes first differ, and the miter's output rises in
/// that cycle, before any read can see the difference.
pub fn shared_miter(
    aig: &Aig,
    controls: &[usize],
    on: usize,
    memories: &[CutMemory],
) -> Result<SharedMiter> {
    for m in memories {
        if m.width == 0
            || m.read.len() % m.width != 0
            || m.write.len() % m.width != 0
            || m.read.iter().any(|&i| i >= aig.inputs)
        {
            bail!("a cut memory that does not fit the graph: {m:?}");
        }
    }
    if !controls.contains(&on) {
        bail!("input {on} is not one of the mutation controls");
    }
    let mut control = vec![None; aig.inputs];
    for &c in controls {
        *control
            .get_mut(c)
            .ok_or_else(|| anyhow!("control input {c} out of range"))? = Some(u32::from(c == on));
    }
    let l = aig.latches.len();
    let first = aig.first_and() as usize;
    // Registers that never leave their initial value in a rail (a bit above the
    // configuration's range) are that constant there: a mutation that only changes such a bit's
    // next state where it cannot take effect reaches nothing.
    let fixed_a: Vec<Option<u32>> = control.iter().map(|c| c.map(|_| 0)).collect();
    let rail_a = constants(aig, &fixed_a, memories);
    let rail_b = constants(aig, &control, memories);
    let (const_a, const_b) = (rail_a.latch, rail_b.latch);
    let zero_input: Vec<bool> = (0..aig.inputs)
        .map(|i| rail_a.zero_input[i] || rail_b.zero_input[i])
        .collect();
    let zero_reads = zero_input.iter().filter(|&&z| z).count();
    let constants = (0..l)
        .filter(|&j| const_a[j].is_some() && const_b[j].is_some())
        .count();
    let mut split = vec![false; l];
    let mut round_of = vec![0u32; l];
    let mut round = 0;
    loop {
        round += 1;
        let mut b = Builder::new();
        // lit[v] = (rail A, rail B) of variable v of the original graph.
        let mut lit: Vec<(u32, u32)> = Vec::with_capacity(first + aig.ands.len());
        lit.push((0, 0));
        for (i, c) in control.iter().enumerate() {
            lit.push(match c {
                Some(v) => (0, *v),
                None if zero_input[i] => (0, 0),
                None => {
                    let x = b.leaf(Node::Input(i));
                    (x, x)
                }
            });
        }
        for (j, &s) in split.iter().enumerate() {
            lit.push(match (const_a[j], const_b[j]) {
                (Some(a), Some(bb)) => (a, bb),
                _ => {
                    let x = b.leaf(Node::Latch(2 * j));
                    if s {
                        (x, b.leaf(Node::Latch(2 * j + 1)))
                    } else {
                        (x, x)
                    }
                }
            });
        }
        let map = |lit: &Vec<(u32, u32)>, x: u32| {
            let (a, bb) = lit[(x / 2) as usize];
            (a ^ (x & 1), bb ^ (x & 1))
        };
        for &(r0, r1) in &aig.ands {
            let (a0, b0) = map(&lit, r0);
            let (a1, b1) = map(&lit, r1);
            let a = b.and(a0, a1);
            let bb = b.and(b0, b1);
            lit.push((a, bb));
        }
        let mut grew = false;
        for (j, &(next, _)) in aig.latches.iter().enumerate() {
            let (a, bb) = map(&lit, next);
            let constant = const_a[j].is_some() && const_b[j].is_some();
            if !split[j] && !constant && a != bb {
                split[j] = true;
                round_of[j] = round;
                grew = true;
            }
        }
        if grew {
            continue;
        }
        // The fixed point: the miter output and the cone it needs.
        let mut bad = 0;
        for &o in &aig.outputs {
            let (a, bb) = map(&lit, o);
            if a != bb {
                let x = b.xor(a, bb);
                bad = b.or(bad, x);
            }
        }
        let split_latches = split.iter().filter(|&&s| s).count();
        if bad == 0 {
            return Ok(SharedMiter {
                aig: None,
                input_of: vec![],
                split_latches,
                latches: l,
                constants,
                zero_reads,
                reached_in_round: round_of,
            });
        }
        // Each latch node's next state in the new graph.
        let mut latch_next: HashMap<usize, u32> = HashMap::new();
        for (j, &(next, _)) in aig.latches.iter().enumerate() {
            let (a, bb) = map(&lit, next);
            latch_next.insert(2 * j, a);
            if split[j] {
                latch_next.insert(2 * j + 1, bb);
            }
        }
        let mut m = cone(&b, bad, &latch_next, aig, split_latches);
        m.reached_in_round = round_of;
        m.constants = constants;
        m.zero_reads = zero_reads;
        return Ok(m);
    }
}

/// The cone of `bad` (through latches' next states) renumbered as an AIGER graph.
fn cone(
    b: &Builder,
    bad: u32,
    latch_next: &HashMap<usize, u32>,
    aig: &Aig,
    split_latches: usize,
) -> SharedMiter {
    let n = b.nodes.len();
    let mut used = vec![false; n];
    let mut stack = vec![(bad / 2) as usize];
    while let Some(v) = stack.pop() {
        if used[v] {
            continue;
        }
        used[v] = true;
        match b.nodes[v] {
            Node::And(x, y) => {
                stack.push((x / 2) as usize);
                stack.push((y / 2) as usize);
            }
            Node::Latch(k) => stack.push((latch_next[&k] / 2) as usize),
            _ => {}
        }
    }
    // AIGER's order: inputs, then latches, then and gates (each in creation order, which is
    // topological for the gates).
    let (mut inputs, mut latches, mut and_nodes) = (Vec::new(), Vec::new(), Vec::new());
    for (v, node) in b.nodes.iter().enumerate().filter(|&(v, _)| used[v]) {
        match node {
            Node::Input(_) => inputs.push(v),
            Node::Latch(_) => latches.push(v),
            Node::And(..) => and_nodes.push(v),
            Node::False => {}
        }
    }
    let mut new_var = vec![0u32; n];
    for (k, &v) in inputs.iter().chain(&latches).chain(&and_nodes).enumerate() {
        new_var[v] = k as u32 + 1;
    }
    let input_of: Vec<usize> = inputs
        .iter()
        .map(|&v| match b.nodes[v] {
            Node::Input(i) => i,
            _ => unreachable!(),
        })
        .collect();
    let latch_nodes: Vec<usize> = latches
        .iter()
        .map(|&v| match b.nodes[v] {
            Node::Latch(k) => k,
            _ => unreachable!(),
        })
        .collect();
    let relit = |x: u32| 2 * new_var[(x / 2) as usize] + (x & 1);
    let out = Aig {
        inputs: input_of.len(),
        latches: latch_nodes
            .iter()
            .map(|&k| (relit(latch_next[&k]), aig.latches[k / 2].1))
            .collect(),
        outputs: vec![relit(bad)],
        ands: and_nodes
            .iter()
            .map(|&v| match b.nodes[v] {
                Node::And(x, y) => (relit(x), relit(y)),
                _ => unreachable!(),
            })
            .collect(),
    };
    SharedMiter {
        aig: Some(out),
        input_of,
        split_latches,
        latches: aig.latches.len(),
        constants: 0,
        zero_reads: 0,
        reached_in_round: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inputs: 1 = data, 2 = control of a mutation that inverts the data before register 1;
    /// register 2 holds a constant (its own value). Outputs: register 1, register 2.
    fn small() -> Aig {
        // vars: 1 in, 2 ctl, 3 latch r1, 4 latch r2, 5 = in & !ctl, 6 = !in & ctl,
        // 7 = !5 & !6 (so lit 15 = in xor ctl)
        Aig {
            inputs: 2,
            latches: vec![(15, 0), (8, 0)],
            outputs: vec![6, 8],
            ands: vec![(5, 2), (4, 3), (13, 11)],
        }
    }

    #[test]
    fn binary_round_trip() {
        let a = small();
        let bytes = a.write_binary();
        assert!(bytes.starts_with(b"aig 7 2 2 2 3\n15 0\n8 0\n6\n8\n"));
        assert_eq!(Aig::read_binary(&bytes).unwrap(), a);
        assert!(Aig::read_binary(b"aag 0 0 0 0 0\n").is_err());
    }

    #[test]
    fn only_the_reach_of_the_mutation_is_duplicated() {
        let m = shared_miter(&small(), &[1], 1, &[]).unwrap();
        // r1 differs between the rails (two copies), r2 is shared and out of the cone.
        assert_eq!((m.split_latches, m.latches), (1, 2));
        let aig = m.aig.expect("the outputs can differ");
        assert_eq!(aig.latches.len(), 2);
        assert_eq!(aig.inputs, 1);
        assert_eq!(m.input_of, vec![0]);
        assert_eq!(aig.outputs.len(), 1);
    }

    #[test]
    fn the_reach_spreads_register_by_register() {
        // r2 <= r1: reached a round after r1; outputs r2 only.
        let mut a = small();
        a.latches[1].0 = 6;
        a.outputs = vec![8];
        let m = shared_miter(&a, &[1], 1, &[]).unwrap();
        assert_eq!(m.reached_in_round, vec![1, 2]);
        let aig = m.aig.unwrap();
        assert_eq!(
            (aig.inputs, aig.latches.len()),
            (1, 4),
            "two copies of each"
        );
    }

    #[test]
    fn a_register_that_never_leaves_its_initial_value_is_that_constant() {
        // r2 <= r2 & in (stays 0 from its initial 0); the mutation flips r1's data only when
        // r2 is 1: no reach at all. Without the constant, r1 would be split.
        // vars: 1 in, 2 ctl, 3 r1, 4 r2, 5 = r2 & in, 6 = ctl & r2, 7 = in & !6, 8 = !in & 6,
        // 9 = !7 & !8 (lit 19 = in xor (ctl & r2))
        let a = Aig {
            inputs: 2,
            latches: vec![(19, 0), (10, 0)],
            outputs: vec![6],
            ands: vec![(8, 2), (8, 4), (13, 2), (12, 3), (17, 15)],
        };
        let m = shared_miter(&a, &[1], 1, &[]).unwrap();
        assert!(m.aig.is_none(), "{m:?}");
        assert_eq!(m.split_latches, 0);
        // r2 free to become 1 (r2 <= in): the mutation reaches r1.
        let mut b = a.clone();
        b.latches[1].0 = 2;
        assert_eq!(shared_miter(&b, &[1], 1, &[]).unwrap().split_latches, 1);
    }

    #[test]
    fn a_memory_column_every_write_leaves_zero_reads_zero() {
        // Inputs: in, ctl, a cut memory's read bit `rd`. The memory's one write is `r2 & in`,
        // with r2 <= r2 & in (constant 0): the column stays 0, so `rd` is 0 and the mutation
        // (r1 <= in xor (ctl & rd)) reaches nothing. With the write `in`, `rd` is free.
        // vars: 1 in, 2 ctl, 3 rd, 4 r1, 5 r2, 6 = r2 & in, 7 = ctl & rd, 8 = in & !7,
        // 9 = !in & 7, 10 = !8 & !9 (lit 21 = in xor 7)
        let a = Aig {
            inputs: 3,
            latches: vec![(21, 0), (12, 0)],
            outputs: vec![8],
            ands: vec![(10, 2), (4, 6), (2, 15), (3, 14), (17, 19)],
        };
        let mem = CutMemory {
            read: vec![2],
            write: vec![12],
            width: 1,
        };
        let m = shared_miter(&a, &[1], 1, std::slice::from_ref(&mem)).unwrap();
        assert!(m.aig.is_none(), "{m:?}");
        assert_eq!((m.split_latches, m.zero_reads), (0, 1));
        // Without the memory's description the read bit is free and r1 is reached.
        assert_eq!(shared_miter(&a, &[1], 1, &[]).unwrap().split_latches, 1);
        // A write of the free input leaves the column free.
        let free = CutMemory {
            write: vec![2],
            ..mem.clone()
        };
        let m = shared_miter(&a, &[1], 1, &[free]).unwrap();
        assert_eq!((m.split_latches, m.zero_reads), (1, 0));
        // A description that does not fit the graph is refused.
        let bad = CutMemory {
            read: vec![7],
            ..mem
        };
        assert!(shared_miter(&a, &[1], 1, &[bad]).is_err());
    }

    #[test]
    fn a_mutation_nothing_reads_leaves_no_miter() {
        // The control feeds a gate no output and no latch reads.
        let mut a = small();
        a.latches[0].0 = 2; // r1 <= in
        let m = shared_miter(&a, &[1], 1, &[]).unwrap();
        assert!(m.aig.is_none());
        assert_eq!(m.split_latches, 0);
        assert!(shared_miter(&a, &[1], 0, &[]).is_err());
    }
}
