//! Functions, control-flow graphs and reconvergence points (docs/loader.md §3–§4).
//!
//! 1. Discovery: from the entry and the given function starts, everything reachable is walked
//!    (calls included); the targets of reachable calls (`jal ra`, except to `pc + 4`) become
//!    function starts too. `jal rd≠x0, pc + 4` reads the pc and falls through; `jal`
//!    with another link register is a jump that writes `rd`, allowed within the function.
//! 2. Every function gets a CFG at instruction granularity, with a virtual exit node that all
//!    exits (`ret`, `wf.exit`, `ecall`, `ebreak`, undecodable words, control transfers out of
//!    the text, which fault when fetched) lead to.
//! 3. Post-dominators: Cooper–Harvey–Kennedy's iterative dominator algorithm on the reverse
//!    CFG, rooted at the virtual exit. The immediate post-dominator of each conditional branch
//!    gives its sidecar entry.

use std::collections::BTreeMap;

use warpforge_isa::memmap::IMEM_BASE;
use warpforge_isa::{decode, reg, Instr, Reconvergence, SimtOp, REG_NAMES};

use crate::{describe, Function, LoadError};

/// A function start known before the analysis (ELF `STT_FUNC` symbol, or given to
/// `from_words`). `size` is the symbol's size, `None` or `Some(0)` if unknown.
#[derive(Clone, Debug)]
pub(crate) struct Symbol {
    pub name: Option<String>,
    pub start: u32,
    pub size: Option<u32>,
}

/// How control leaves one instruction.
#[derive(Clone, Copy, Debug)]
enum Flow {
    /// Continues at pc + 4.
    Next,
    /// Conditional branch: pc + 4, and the target unless it is misaligned (then the branch
    /// faults when taken, so there is no taken edge).
    Branch(Option<u32>),
    /// `jal x0`: the target only.
    Jump(u32),
    /// `jal rd, target` with `rd` neither `x0` nor `ra` (and `target ≠ pc + 4`): a jump that
    /// also writes `pc + 4` to `rd`. Not a call (only `jal ra` is); allowed inside the function.
    LinkedJump { rd: u8, target: u32 },
    /// `jal ra` (with its target) or `jalr rd≠0` (indirect call): continues at pc + 4.
    Call(Option<u32>),
    /// `jalr x0, 0(ra)`.
    Ret,
    /// Any other `jalr x0`: refused.
    IndirectJump { rs1: u8, imm: i32 },
    /// `wf.exit`, `ecall`, `ebreak`, an undecodable word or a jump to a misaligned target
    /// (which faults): no successor inside the function.
    Stop,
}

fn flow(instr: Option<Instr>, pc: u32) -> Flow {
    let target = |imm: i32| pc.wrapping_add(imm as u32);
    match instr {
        None
        | Some(
            Instr::Ecall
            | Instr::Ebreak
            | Instr::Simt {
                op: SimtOp::Exit, ..
            },
        ) => Flow::Stop,
        Some(Instr::Branch { imm, .. }) => {
            let t = target(imm);
            Flow::Branch((t % 4 == 0).then_some(t))
        }
        Some(Instr::Jal { rd, imm }) => {
            let t = target(imm);
            if t % 4 != 0 {
                Flow::Stop
            } else if rd == 0 {
                Flow::Jump(t)
            } else if t == pc.wrapping_add(4) {
                // `jal rd, 1f; 1:` reads the pc: it writes pc + 4 to rd and falls through.
                Flow::Next
            } else if rd == reg::RA {
                Flow::Call(Some(t))
            } else {
                Flow::LinkedJump { rd, target: t }
            }
        }
        Some(i @ Instr::Jalr { rd: 0, rs1, imm }) => {
            if i.is_return() {
                Flow::Ret
            } else {
                Flow::IndirectJump { rs1, imm }
            }
        }
        Some(Instr::Jalr { .. }) => Flow::Call(None),
        Some(_) => Flow::Next,
    }
}

/// The text as decoded instructions, indexed by word.
struct Text {
    instrs: Vec<Option<Instr>>,
}

impl Text {
    fn index(&self, pc: u32) -> Option<usize> {
        let off = pc.checked_sub(IMEM_BASE)?;
        let i = (off / 4) as usize;
        (off % 4 == 0 && i < self.instrs.len()).then_some(i)
    }

    fn end(&self) -> u32 {
        IMEM_BASE.wrapping_add((self.instrs.len() as u32).wrapping_mul(4))
    }

    fn flow(&self, pc: u32) -> Flow {
        flow(self.instrs[self.index(pc).expect("pc in text")], pc)
    }
}

/// Finds the functions and computes the sidecar of `words`. `symbols` are the known function
/// starts (those outside the text are ignored); `labels` name other addresses (used for the
/// entry and call targets that are not among `symbols`).
pub(crate) fn analyse(
    words: &[u32],
    entry: u32,
    symbols: Vec<Symbol>,
    labels: &[(u32, String)],
) -> Result<(Vec<Function>, Vec<Reconvergence>), LoadError> {
    let text = Text {
        instrs: words.iter().map(|&w| decode(w).ok()).collect(),
    };
    if text.index(entry).is_none() {
        return Err(LoadError::EntryOutsideText {
            entry,
            text_end: text.end(),
        });
    }
    let symbols: Vec<Symbol> = symbols
        .into_iter()
        .filter(|s| text.index(s.start).is_some())
        .collect();

    let calls = call_targets(&text, entry, &symbols);
    let functions = function_list(&text, entry, symbols, &calls, labels);

    let mut sidecar = vec![Reconvergence::None; words.len()];
    for f in &functions {
        analyse_function(&text, f, &functions, &mut sidecar)?;
    }
    Ok((functions, sidecar))
}

/// Step 1: the targets of every call (`jal ra` to anywhere but `pc + 4`) reachable from the
/// entry or a known function.
fn call_targets(text: &Text, entry: u32, symbols: &[Symbol]) -> Vec<u32> {
    let mut seen = vec![false; text.instrs.len()];
    let mut stack = Vec::new();
    let mut calls = Vec::new();
    let mut push = |pc: u32, stack: &mut Vec<u32>| {
        if let Some(i) = text.index(pc) {
            if !seen[i] {
                seen[i] = true;
                stack.push(pc);
            }
        }
    };
    push(entry, &mut stack);
    for s in symbols {
        push(s.start, &mut stack);
    }
    while let Some(pc) = stack.pop() {
        let next = pc.wrapping_add(4);
        match text.flow(pc) {
            Flow::Next | Flow::Call(None) | Flow::Branch(None) => push(next, &mut stack),
            Flow::Branch(Some(t)) => {
                push(next, &mut stack);
                push(t, &mut stack);
            }
            Flow::Jump(t) | Flow::LinkedJump { target: t, .. } => push(t, &mut stack),
            Flow::Call(Some(t)) => {
                if text.index(t).is_some() {
                    calls.push(t);
                }
                push(t, &mut stack);
                push(next, &mut stack);
            }
            Flow::Ret | Flow::IndirectJump { .. } | Flow::Stop => {}
        }
    }
    calls
}

/// Step 1b: symbols + entry + call targets, sorted, non-overlapping.
fn function_list(
    text: &Text,
    entry: u32,
    symbols: Vec<Symbol>,
    calls: &[u32],
    labels: &[(u32, String)],
) -> Vec<Function> {
    struct Start {
        name: Option<String>,
        size: u32,
    }
    let mut starts: BTreeMap<u32, Start> = BTreeMap::new();
    for s in symbols {
        let size = s.size.unwrap_or(0);
        match starts.get_mut(&s.start) {
            None => {
                starts.insert(s.start, Start { name: s.name, size });
            }
            Some(e) => {
                if e.name.is_none() {
                    e.name = s.name;
                }
                e.size = e.size.max(size);
            }
        }
    }
    for &pc in std::iter::once(&entry).chain(calls) {
        starts.entry(pc).or_insert(Start {
            name: None,
            size: 0,
        });
    }
    let text_end = text.end();
    let list: Vec<(u32, Start)> = starts.into_iter().collect();
    let mut functions = Vec::with_capacity(list.len());
    for (i, (start, s)) in list.iter().enumerate() {
        let next = list.get(i + 1).map_or(text_end, |(n, _)| *n);
        let end = if s.size > 0 {
            start.saturating_add(s.size).min(next)
        } else {
            next
        };
        let name = s
            .name
            .clone()
            .or_else(|| {
                labels
                    .iter()
                    .find(|(a, _)| a == start)
                    .map(|(_, n)| n.clone())
            })
            .unwrap_or_else(|| format!("fn_{start:08x}"));
        functions.push(Function {
            name,
            start: *start,
            end,
        });
    }
    functions
}

const NONE: u32 = u32::MAX;
/// Node 0 of every function graph: the virtual exit.
const EXIT: u32 = 0;

struct Node {
    pc: u32,
    /// Up to two successors (`NONE` = absent); `EXIT` for exits.
    succ: [u32; 2],
    is_branch: bool,
    is_ret: bool,
    writes_ra: bool,
}

/// Steps 2 and 3 for one function: writes the sidecar of its reachable conditional branches.
fn analyse_function(
    text: &Text,
    f: &Function,
    functions: &[Function],
    sidecar: &mut [Reconvergence],
) -> Result<(), LoadError> {
    let location = |pc: u32| describe(functions, pc);
    let slots = ((f.end - f.start) / 4) as usize;
    let slot = |pc: u32| -> Option<usize> {
        (pc >= f.start && pc < f.end && pc & 3 == 0).then(|| ((pc - f.start) / 4) as usize)
    };

    // --- CFG of the instructions reachable from the start --------------------------------
    let mut node_of = vec![NONE; slots];
    let mut nodes = vec![Node {
        pc: NONE,
        succ: [NONE; 2],
        is_branch: false,
        is_ret: false,
        writes_ra: false,
    }];
    // The error at the lowest address wins, so that reports are stable.
    let mut error: Option<(u32, LoadError)> = None;
    let mut note = |e: LoadError, pc: u32| {
        if error.as_ref().is_none_or(|(p, _)| pc < *p) {
            error = Some((pc, e));
        }
    };
    // Instruction nodes are numbered from 1 in discovery order.
    node_of[slot(f.start).expect("function start in its range")] = 1;
    nodes.push(Node {
        pc: f.start,
        succ: [NONE; 2],
        is_branch: false,
        is_ret: false,
        writes_ra: false,
    });
    let mut stack = vec![1u32];
    while let Some(v) = stack.pop() {
        let pc = nodes[v as usize].pc;
        let instr = text.instrs[text.index(pc).expect("function inside text")];
        let next = pc.wrapping_add(4);
        // Successor pcs and how to describe leaving the function through each.
        let mut targets: [(u32, &'static str); 2] = [(NONE, ""); 2];
        let mut to_exit = false;
        let fl = flow(instr, pc);
        match fl {
            Flow::Next | Flow::Call(_) => targets[0] = (next, "execution"),
            Flow::Branch(t) => {
                nodes[v as usize].is_branch = true;
                targets[0] = (next, "execution");
                if let Some(t) = t {
                    if t != next {
                        targets[1] = (t, "the branch");
                    }
                }
            }
            Flow::Jump(t) | Flow::LinkedJump { target: t, .. } => {
                if slot(t).is_some() || text.index(t).is_none() {
                    targets[0] = (t, "the jump");
                } else if let Flow::LinkedJump { rd, .. } = fl {
                    note(
                        LoadError::LinkedJump {
                            addr: pc,
                            target: t,
                            rd,
                            reg: REG_NAMES[rd as usize],
                            function: f.name.clone(),
                            location: location(pc),
                            target_location: location(t),
                        },
                        pc,
                    );
                } else {
                    note(
                        LoadError::TailJump {
                            addr: pc,
                            target: t,
                            function: f.name.clone(),
                            location: location(pc),
                            target_location: location(t),
                        },
                        pc,
                    );
                }
            }
            Flow::Ret => {
                nodes[v as usize].is_ret = true;
                to_exit = true;
            }
            Flow::Stop => to_exit = true,
            Flow::IndirectJump { rs1, imm } => note(
                LoadError::IndirectJump {
                    addr: pc,
                    function: f.name.clone(),
                    location: location(pc),
                    reg: REG_NAMES[rs1 as usize],
                    offset: imm,
                },
                pc,
            ),
        }
        nodes[v as usize].writes_ra = instr.and_then(|i| i.dest()) == Some(reg::RA);
        if to_exit {
            nodes[v as usize].succ[0] = EXIT;
        }
        for (k, &(t, what)) in targets.iter().enumerate() {
            if t == NONE {
                continue;
            }
            if text.index(t).is_none() {
                // Outside the text: the fetch faults (out-of-range-fetch), the path ends.
                nodes[v as usize].succ[k] = EXIT;
                continue;
            }
            let Some(s) = slot(t) else {
                note(
                    LoadError::LeavesFunction {
                        addr: pc,
                        target: t,
                        function: f.name.clone(),
                        location: location(pc),
                        start: f.start,
                        end: f.end,
                        what,
                    },
                    pc,
                );
                continue;
            };
            if node_of[s] == NONE {
                node_of[s] = nodes.len() as u32;
                nodes.push(Node {
                    pc: t,
                    succ: [NONE; 2],
                    is_branch: false,
                    is_ret: false,
                    writes_ra: false,
                });
                stack.push(node_of[s]);
            }
            nodes[v as usize].succ[k] = node_of[s];
        }
    }
    if let Some((_, e)) = error {
        return Err(e);
    }
    let n = nodes.len();

    // --- Reverse graph: predecessors of every node (the exit's are the exits) ------------
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (v, node) in nodes.iter().enumerate().skip(1) {
        for &s in node.succ.iter().filter(|&&s| s != NONE) {
            preds[s as usize].push(v as u32);
        }
    }

    // Postorder of the reverse graph from the virtual exit (iterative DFS).
    let mut po = vec![NONE; n];
    let mut order: Vec<u32> = Vec::with_capacity(n);
    let mut visited = vec![false; n];
    let mut dfs: Vec<(u32, usize)> = vec![(EXIT, 0)];
    visited[EXIT as usize] = true;
    while let Some((v, i)) = dfs.last_mut() {
        let v = *v;
        if let Some(&w) = preds[v as usize].get(*i) {
            *i += 1;
            if !visited[w as usize] {
                visited[w as usize] = true;
                dfs.push((w, 0));
            }
        } else {
            po[v as usize] = order.len() as u32;
            order.push(v);
            dfs.pop();
        }
    }

    // Cooper, Harvey, Kennedy: "A Simple, Fast Dominance Algorithm" on the reverse graph.
    // ipdom[v] = immediate post-dominator of v (EXIT for the virtual exit itself).
    let mut ipdom = vec![NONE; n];
    ipdom[EXIT as usize] = EXIT;
    let intersect = |ipdom: &[u32], mut a: u32, mut b: u32| {
        while a != b {
            while po[a as usize] < po[b as usize] {
                a = ipdom[a as usize];
            }
            while po[b as usize] < po[a as usize] {
                b = ipdom[b as usize];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &v in order.iter().rev().skip(1) {
            // Predecessors in the reverse graph = successors in the CFG.
            let mut new = NONE;
            for &s in nodes[v as usize].succ.iter() {
                if s == NONE || ipdom[s as usize] == NONE {
                    continue;
                }
                new = if new == NONE {
                    s
                } else {
                    intersect(&ipdom, s, new)
                };
            }
            if ipdom[v as usize] != new {
                ipdom[v as usize] = new;
                changed = true;
            }
        }
    }

    // Which nodes can reach a `ret`.
    let mut reaches_ret = vec![false; n];
    let mut work: Vec<u32> = (1..n as u32)
        .filter(|&v| nodes[v as usize].is_ret)
        .collect();
    for &v in &work {
        reaches_ret[v as usize] = true;
    }
    while let Some(v) = work.pop() {
        for &p in &preds[v as usize] {
            if !reaches_ret[p as usize] {
                reaches_ret[p as usize] = true;
                work.push(p);
            }
        }
    }
    let ra_writer = nodes
        .iter()
        .skip(1)
        .filter(|n| n.writes_ra)
        .map(|n| n.pc)
        .min();

    // --- Sidecar for every reachable conditional branch, in address order --------------
    let mut branches: Vec<u32> = (1..n as u32)
        .filter(|&v| nodes[v as usize].is_branch)
        .collect();
    branches.sort_by_key(|&v| nodes[v as usize].pc);
    for v in branches {
        let pc = nodes[v as usize].pc;
        let fail = |reason: String| LoadError::NoReconvergence {
            addr: pc,
            function: f.name.clone(),
            location: location(pc),
            reason,
        };
        let r = match ipdom[v as usize] {
            NONE => {
                return Err(fail(
                    "no path from this branch reaches the end of the function (ret, wf.exit, \
                     ecall or ebreak): it only leads into an endless loop"
                        .into(),
                ))
            }
            EXIT if !reaches_ret[v as usize] => Reconvergence::Never,
            EXIT => match ra_writer {
                None => Reconvergence::AtReturn,
                Some(w) => {
                    return Err(fail(format!(
                        "its paths only meet when the function returns, through different \
                         return instructions, and {} saves ra (it writes ra at {}), so the \
                         return address is not known when the branch executes; make the paths \
                         join before returning (gcc: -fno-shrink-wrap \
                         --param=max-grow-copy-bb-insns=0, as the kernel build uses), or make \
                         the function a leaf",
                        f.name,
                        location(w)
                    )))
                }
            },
            d => Reconvergence::At(nodes[d as usize].pc),
        };
        sidecar[text.index(pc).expect("branch in text")] = r;
    }
    Ok(())
}
