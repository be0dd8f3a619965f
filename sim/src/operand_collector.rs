//! Cycle-accurate reference of the operand collector and its banked register file
//! (book §3.3.1), written from docs/microarch/operand_collector.md.
//!
//! One [`OperandCollector::step`] is one clock cycle: it takes that cycle's inputs and returns
//! that cycle's outputs (issue ready, dispatch, allocation and per-bank events), then advances
//! the state to the next cycle. The RTL (`warpforge_hdl::operand_collector`) is checked against
//! it on every cycle.
//!
//! The model keeps values per architectural register, not per bank entry: a source read
//! granted in cycle `c` takes the register's value *before* `c`'s writeback (with a shared
//! write port no read is granted in the written bank, so this is the value before it as well;
//! with a dedicated write port it is the read-first rule).

use warpforge_config::{GpuConfig, RfLayout};

/// How many sources a collector unit may read per cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadPolicy {
    /// Only the lowest-numbered source still to be read requests its bank (one read per
    /// collector unit per cycle).
    InOrder,
    /// Every source still to be read requests its bank.
    Parallel,
}

/// How the writeback reaches a bank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WritePort {
    /// The writeback takes its bank for the cycle (no read granted there).
    Shared,
    /// Every bank has its own write port: reads ignore the writeback, and a read of the
    /// register written in the same cycle sees its old value (read-first). No forwarding.
    Dedicated,
}

/// Shape of the unit beyond the GPU configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OcShape {
    /// Source operands per instruction (1..=3).
    pub sources: usize,
    pub policy: ReadPolicy,
    pub write_port: WritePort,
}

impl Default for OcShape {
    fn default() -> Self {
        OcShape {
            sources: 2,
            policy: ReadPolicy::InOrder,
            write_port: WritePort::Shared,
        }
    }
}

/// Most sources per instruction.
pub const MAX_SOURCES: usize = 3;

/// The issue port for one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IssueIn {
    pub valid: bool,
    pub warp: u32,
    /// Register number of each source (entries beyond `sources` are ignored).
    pub src: [u8; MAX_SOURCES],
    /// Whether each source is read.
    pub need: [bool; MAX_SOURCES],
    pub payload: u16,
}

/// The writeback port for one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WritebackIn {
    pub valid: bool,
    pub warp: u32,
    pub rd: u8,
    /// Bit `l`: lane `l` is written.
    pub mask: u32,
    /// One value per lane (missing lanes are 0).
    pub data: Vec<u32>,
}

/// All inputs of one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OcInputs {
    pub reset: bool,
    pub issue: IssueIn,
    pub wb: WritebackIn,
    pub disp_ready: bool,
}

/// The instruction offered on the dispatch port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dispatch {
    /// Collector unit it leaves from.
    pub cu: usize,
    pub warp: u32,
    pub payload: u16,
    /// `data[s][l]`: lane `l` of source `s`; 0 for x0 and for sources not needed.
    pub data: Vec<Vec<u32>>,
    /// `disp_ready` was high: the instruction left (the CU is free next cycle).
    pub accepted: bool,
}

/// What one bank did in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BankEvent {
    /// A read was granted: (collector unit, source index).
    pub grant: Option<(usize, usize)>,
    /// Some read request to this bank was denied.
    pub conflict: bool,
    /// The writeback port wrote this bank.
    pub write: bool,
}

/// All outputs of one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OcOutputs {
    pub issue_ready: bool,
    /// The collector unit allocated to the issued instruction.
    pub alloc: Option<usize>,
    pub dispatch: Option<Dispatch>,
    /// One entry per bank.
    pub banks: Vec<BankEvent>,
}

#[derive(Clone, Debug, Default)]
struct Source {
    reg: u8,
    /// Not yet granted a read.
    pending: bool,
    data: Vec<u32>,
}

#[derive(Clone, Debug, Default)]
struct Collector {
    busy: bool,
    /// Allocation order (larger = younger).
    seq: u64,
    warp: u32,
    payload: u16,
    srcs: Vec<Source>,
}

/// The reference model.
#[derive(Clone, Debug)]
pub struct OperandCollector {
    warps: usize,
    lanes: usize,
    banks: usize,
    layout: RfLayout,
    shape: OcShape,
    /// `regs[(warp * 32 + reg) * lanes + lane]`.
    regs: Vec<u32>,
    cus: Vec<Collector>,
    /// Per bank: the collector unit with the highest priority next.
    bank_ptr: Vec<usize>,
    /// The collector unit with the highest dispatch priority at the next choice.
    disp_ptr: usize,
    /// This cycle's offer, chosen at the end of the previous cycle (rule 6).
    offer: Option<usize>,
    /// Allocations so far.
    seq: u64,
}

impl OperandCollector {
    /// # Panics
    /// If `shape.sources` is not 1..=3.
    pub fn new(cfg: &GpuConfig, shape: OcShape) -> Self {
        assert!(
            (1..=MAX_SOURCES).contains(&shape.sources),
            "sources must be 1..=3"
        );
        let warps = cfg.warps as usize;
        let lanes = cfg.lanes as usize;
        let c = cfg.collectors as usize;
        OperandCollector {
            warps,
            lanes,
            banks: cfg.rf_banks as usize,
            layout: cfg.rf_layout,
            shape,
            regs: vec![0; warps * 32 * lanes],
            cus: vec![Collector::default(); c],
            bank_ptr: vec![0; cfg.rf_banks as usize],
            disp_ptr: 0,
            offer: None,
            seq: 0,
        }
    }

    /// Bank holding register `reg` of warp `warp`.
    pub fn bank_of(&self, warp: u32, reg: u8) -> usize {
        match self.layout {
            RfLayout::Naive => reg as usize % self.banks,
            RfLayout::Swizzled => (reg as usize + warp as usize) % self.banks,
        }
    }

    /// The current value of a register (x0 reads 0).
    pub fn register(&self, warp: u32, reg: u8) -> Vec<u32> {
        if reg == 0 {
            return vec![0; self.lanes];
        }
        let base = (warp as usize * 32 + reg as usize) * self.lanes;
        self.regs[base..base + self.lanes].to_vec()
    }

    /// Number of collector units.
    pub fn collectors(&self) -> usize {
        self.cus.len()
    }

    /// Whether collector unit `cu` holds an instruction.
    pub fn busy(&self, cu: usize) -> bool {
        self.cus[cu].busy
    }

    /// Warp and source register numbers of the instruction in collector unit `cu`.
    pub fn holding(&self, cu: usize) -> Option<(u32, Vec<u8>)> {
        let c = &self.cus[cu];
        c.busy
            .then(|| (c.warp, c.srcs.iter().map(|s| s.reg).collect()))
    }

    /// One clock cycle.
    pub fn step(&mut self, inp: &OcInputs) -> OcOutputs {
        let nb = self.banks;
        let nc = self.cus.len();
        let mut out = OcOutputs {
            banks: vec![BankEvent::default(); nb],
            ..Default::default()
        };
        if inp.reset {
            for cu in &mut self.cus {
                cu.busy = false;
            }
            self.bank_ptr.iter_mut().for_each(|p| *p = 0);
            self.disp_ptr = 0;
            self.offer = None;
            return out;
        }

        // Writeback: a write to x0 does nothing and does not use its bank.
        let wb = &inp.wb;
        let written_bank = (wb.valid && wb.rd != 0).then(|| self.bank_of(wb.warp, wb.rd));
        if let Some(b) = written_bank {
            out.banks[b].write = true;
        }
        // The bank whose port the writeback takes (none with a dedicated write port).
        let blocked_bank = written_bank.filter(|_| self.shape.write_port == WritePort::Shared);

        // Read requests of this cycle: (cu, source) per bank.
        let mut requests: Vec<Vec<(usize, usize)>> = vec![Vec::new(); nb];
        for (i, cu) in self.cus.iter().enumerate() {
            if !cu.busy {
                continue;
            }
            for (s, src) in cu.srcs.iter().enumerate() {
                if src.pending {
                    requests[self.bank_of(cu.warp, src.reg)].push((i, s));
                    if self.shape.policy == ReadPolicy::InOrder {
                        break;
                    }
                }
            }
        }

        // Units busy now with no older instruction of their warp in the collector now (program
        // order per warp, which rules out write-after-read hazards): the candidates for the
        // next cycle's offer once their sources are read (below).
        let was_busy: Vec<bool> = self.cus.iter().map(|c| c.busy).collect();
        let oldest: Vec<bool> = self
            .cus
            .iter()
            .map(|c| {
                !self
                    .cus
                    .iter()
                    .any(|o| o.busy && o.warp == c.warp && o.seq < c.seq)
            })
            .collect();
        let free: Vec<bool> = self.cus.iter().map(|c| !c.busy).collect();

        // Per-bank arbitration: a shared-port writeback owns its bank; otherwise round-robin
        // over collector units from the bank's pointer, lowest source first within a unit.
        for (b, reqs) in requests.iter().enumerate() {
            if reqs.is_empty() {
                continue;
            }
            if blocked_bank == Some(b) {
                out.banks[b].conflict = true;
                continue;
            }
            let start = self.bank_ptr[b];
            let winner = (0..nc)
                .map(|k| (start + k) % nc)
                .find_map(|i| {
                    reqs.iter()
                        .filter(|&&(ci, _)| ci == i)
                        .map(|&(_, s)| s)
                        .min()
                        .map(|s| (i, s))
                })
                .expect("a request exists");
            out.banks[b].grant = Some(winner);
            out.banks[b].conflict = reqs.len() > 1;
            self.bank_ptr[b] = (winner.0 + 1) % nc;
        }

        // Dispatch: the unit chosen at the end of the previous cycle, unless it left then.
        if let Some(i) = self.offer.filter(|&i| was_busy[i]) {
            let cu = &self.cus[i];
            let mut data: Vec<Vec<u32>> = cu.srcs.iter().map(|s| s.data.clone()).collect();
            data.resize(self.shape.sources, vec![0; self.lanes]);
            out.dispatch = Some(Dispatch {
                cu: i,
                warp: cu.warp,
                payload: cu.payload,
                data,
                accepted: inp.disp_ready,
            });
            if inp.disp_ready {
                self.cus[i].busy = false;
            }
        }

        // Forwarding (below) considers the sources pending at the start of the cycle.
        let was_pending: Vec<Vec<bool>> = self
            .cus
            .iter()
            .map(|c| c.srcs.iter().map(|s| s.pending).collect())
            .collect();

        // The grants, then the write: a grant reads the register as it was before this
        // cycle's writeback (read-first; a shared port never grants a read of the written bank).
        for ev in &out.banks {
            if let Some((i, s)) = ev.grant {
                let (warp, reg) = (self.cus[i].warp, self.cus[i].srcs[s].reg);
                let value = self.register(warp, reg);
                let src = &mut self.cus[i].srcs[s];
                src.pending = false;
                src.data = value;
            }
        }

        if written_bank.is_some() {
            assert!(
                (wb.warp as usize) < self.warps,
                "writeback to warp {} of {}",
                wb.warp,
                self.warps
            );
            let base = (wb.warp as usize * 32 + wb.rd as usize) * self.lanes;
            for l in 0..self.lanes {
                if wb.mask >> l & 1 == 1 {
                    self.regs[base + l] = wb.data.get(l).copied().unwrap_or(0);
                }
            }
        }
        // Forwarding (shared write port only): a source pending at the start of the cycle, of a
        // unit busy then, whose register this cycle's writeback writes in every lane is
        // collected from the writeback (its bank is the writeback's, so it was not granted this
        // cycle); per source index, only the lowest-numbered such unit (one write port per
        // source's forward store).
        let full = if self.lanes >= 32 {
            u32::MAX
        } else {
            (1u32 << self.lanes) - 1
        };
        if self.shape.write_port == WritePort::Shared
            && written_bank.is_some()
            && wb.mask & full == full
        {
            let mut taken = [false; MAX_SOURCES];
            for (i, cu) in self.cus.iter_mut().enumerate() {
                if !cu.busy || free[i] || cu.warp != wb.warp {
                    continue;
                }
                for (s, src) in cu.srcs.iter_mut().enumerate() {
                    if was_pending[i][s] && src.reg == wb.rd && !taken[s] {
                        taken[s] = true;
                        src.pending = false;
                        src.data = (0..self.lanes)
                            .map(|l| wb.data.get(l).copied().unwrap_or(0))
                            .collect();
                    }
                }
            }
        }

        // The next cycle's offer: round-robin from the dispatch pointer over the units busy now
        // whose sources are all read by the end of this cycle, with no older instruction of
        // their warp in the collector now (the unit offered now counts: the choice does not
        // wait for `disp_ready`). The unit offered now is a candidate too (last in the order:
        // the pointer is past it) whether or not it was accepted; if it was, nothing is
        // offered. The pointer moves past the chosen unit: a refused instruction does not hold
        // back the others (no head-of-line blocking).
        let cus = &self.cus;
        self.offer = (0..nc)
            .map(|k| (self.disp_ptr + k) % nc)
            .find(|&i| was_busy[i] && oldest[i] && cus[i].srcs.iter().all(|s| !s.pending));
        if let Some(i) = self.offer {
            self.disp_ptr = (i + 1) % nc;
        }

        // Allocation: the lowest-numbered unit that was free at the start of the cycle.
        out.issue_ready = free.iter().any(|&f| f);
        if inp.issue.valid && out.issue_ready {
            let i = free.iter().position(|&f| f).expect("a free unit");
            let is = &inp.issue;
            let lanes = self.lanes;
            self.seq += 1;
            self.cus[i] = Collector {
                busy: true,
                seq: self.seq,
                warp: is.warp,
                payload: is.payload,
                srcs: (0..self.shape.sources)
                    .map(|s| Source {
                        reg: is.src[s],
                        pending: is.need[s] && is.src[s] != 0,
                        data: vec![0; lanes],
                    })
                    .collect(),
            };
            out.alloc = Some(i);
        }

        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(layout: RfLayout, collectors: u32) -> GpuConfig {
        let mut c = GpuConfig::tiny();
        c.rf_banks = 4;
        c.warps = 4;
        c.rf_layout = layout;
        c.collectors = collectors;
        c
    }

    /// Issue `srcs` for `warp` (all needed).
    fn issue(warp: u32, srcs: &[u8], payload: u16) -> IssueIn {
        let mut is = IssueIn {
            valid: true,
            warp,
            payload,
            ..Default::default()
        };
        for (s, &r) in srcs.iter().enumerate() {
            is.src[s] = r;
            is.need[s] = true;
        }
        is
    }

    #[test]
    fn layouts_map_like_the_book() {
        let naive = OperandCollector::new(&cfg(RfLayout::Naive, 2), OcShape::default());
        let swz = OperandCollector::new(&cfg(RfLayout::Swizzled, 2), OcShape::default());
        // Fig. 3.13: w1:r5 in bank 1; Fig. 3.16: w1:r3 in bank 0, w1:r0 in bank 1.
        assert_eq!(naive.bank_of(1, 5), 1);
        assert_eq!(swz.bank_of(1, 3), 0);
        assert_eq!(swz.bank_of(1, 0), 1);
        // Fig. 3.17 subscripts.
        assert_eq!(swz.bank_of(0, 7), 3);
        assert_eq!(swz.bank_of(3, 5), 0);
    }

    #[test]
    fn write_then_read_returns_written_lanes_and_x0_is_zero() {
        let c = cfg(RfLayout::Swizzled, 2);
        let mut oc = OperandCollector::new(&c, OcShape::default());
        let lanes = c.lanes as usize;
        let data: Vec<u32> = (0..lanes as u32).map(|l| 0x100 + l).collect();
        let mut inp = OcInputs {
            wb: WritebackIn {
                valid: true,
                warp: 2,
                rd: 7,
                mask: 0b0101,
                data: data.clone(),
            },
            disp_ready: true,
            ..Default::default()
        };
        oc.step(&inp);
        inp.wb.valid = false;
        inp.issue = issue(2, &[7, 0], 0xabcd);
        let o = oc.step(&inp);
        assert_eq!(o.alloc, Some(0));
        inp.issue.valid = false;
        let o = oc.step(&inp);
        assert_eq!(o.banks[oc.bank_of(2, 7)].grant, Some((0, 0)));
        assert!(o.dispatch.is_none());
        let o = oc.step(&inp);
        let d = o
            .dispatch
            .expect("dispatched one cycle after the last read");
        assert_eq!(d.payload, 0xabcd);
        assert_eq!(d.data[0], vec![0x100, 0, 0x102, 0]);
        assert_eq!(d.data[1], vec![0; 4]);
    }

    /// An instruction issued the cycle before its source's writeback: a full-mask write is
    /// forwarded into the collector unit (complete one cycle later, no bank read); a partial
    /// write is not, and the source is read from the bank once the write has happened.
    #[test]
    fn writeback_is_forwarded_into_a_waiting_collector_only_with_every_lane() {
        let c = cfg(RfLayout::Swizzled, 2);
        let lanes = c.lanes as usize;
        let full = (1u32 << lanes) - 1;
        for (mask, forwarded) in [(full, true), (0b0110, false)] {
            let mut oc = OperandCollector::new(&c, OcShape::default());
            let data: Vec<u32> = (0..lanes as u32).map(|l| 0x500 + l).collect();
            // Cycle 0: issue a reader of w1:r5 (the old value is 0).
            let mut inp = OcInputs {
                issue: issue(1, &[5], 7),
                disp_ready: true,
                ..Default::default()
            };
            assert_eq!(oc.step(&inp).alloc, Some(0));
            // Cycle 1: the CU is busy and requests bank(1, 5); the writeback owns that bank.
            inp.issue.valid = false;
            inp.wb = WritebackIn {
                valid: true,
                warp: 1,
                rd: 5,
                mask,
                data: data.clone(),
            };
            let o = oc.step(&inp);
            assert!(o.banks[oc.bank_of(1, 5)].write);
            assert_eq!(o.banks[oc.bank_of(1, 5)].grant, None);
            inp.wb.valid = false;
            let o = oc.step(&inp);
            if forwarded {
                let d = o
                    .dispatch
                    .expect("complete the cycle after the forwarded write");
                assert_eq!(d.data[0], data);
            } else {
                assert!(o.dispatch.is_none());
                assert_eq!(o.banks[oc.bank_of(1, 5)].grant, Some((0, 0)));
                let d = oc
                    .step(&inp)
                    .dispatch
                    .expect("one cycle after the bank read");
                let want: Vec<u32> = (0..lanes)
                    .map(|l| if mask >> l & 1 == 1 { data[l] } else { 0 })
                    .collect();
                assert_eq!(d.data[0], want);
            }
        }
    }

    #[test]
    fn full_collectors_and_blocked_dispatch() {
        let c = cfg(RfLayout::Naive, 2);
        let mut oc = OperandCollector::new(&c, OcShape::default());
        let mut inp = OcInputs {
            issue: issue(0, &[1, 2], 1),
            ..Default::default()
        };
        assert_eq!(oc.step(&inp).alloc, Some(0));
        inp.issue.payload = 2;
        assert_eq!(oc.step(&inp).alloc, Some(1));
        for _ in 0..6 {
            let o = oc.step(&inp);
            assert!(!o.issue_ready && o.alloc.is_none());
        }
        // Both complete; blocked dispatch keeps offering the same unit.
        let o = oc.step(&inp);
        assert_eq!(
            o.dispatch.as_ref().map(|d| (d.cu, d.accepted)),
            Some((0, false))
        );
        inp.disp_ready = true;
        let o = oc.step(&inp);
        assert_eq!(o.dispatch.map(|d| (d.cu, d.accepted)), Some((0, true)));
        // Unit 1 holds the younger instruction of the same warp: it was not a candidate while
        // unit 0 was here (the offer is chosen a cycle ahead), so it is offered a cycle later.
        let o = oc.step(&inp);
        assert_eq!(o.dispatch.map(|d| d.cu), None);
        // Unit 0 was freed a cycle earlier: ready, allocated.
        assert_eq!(o.alloc, Some(0));
        let o = oc.step(&inp);
        assert_eq!(o.dispatch.map(|d| d.cu), Some(1));
    }

    /// Dedicated write port: a read granted in the cycle of a write to its register returns
    /// the old value of every lane (read-first); the written bank still grants its read (no
    /// conflict), and a read after the write sees the written lanes.
    #[test]
    fn dedicated_write_port_is_read_first() {
        let c = cfg(RfLayout::Naive, 2);
        let shape = OcShape {
            write_port: WritePort::Dedicated,
            ..OcShape::default()
        };
        let mut oc = OperandCollector::new(&c, shape);
        let lanes = c.lanes as usize;
        let wb = |rd: u8, mask: u32, v: u32| WritebackIn {
            valid: true,
            warp: 1,
            rd,
            mask,
            data: (0..lanes as u32).map(|l| v + l).collect(),
        };
        // r5 := 100 + lane, every lane.
        oc.step(&OcInputs {
            wb: wb(5, u32::MAX, 100),
            ..Default::default()
        });
        // Issue a reader of r5 (and x0); it requests bank 1 in the next cycle.
        let o = oc.step(&OcInputs {
            issue: issue(1, &[5, 0], 7),
            ..Default::default()
        });
        assert_eq!(o.alloc, Some(0));
        // The cycle of its read: lanes 0 and 2 of r5 are written.
        let o = oc.step(&OcInputs {
            wb: wb(5, 0b101, 500),
            disp_ready: true,
            ..Default::default()
        });
        assert_eq!(
            o.banks[1].grant,
            Some((0, 0)),
            "the written bank still grants"
        );
        assert!(o.banks[1].write && !o.banks[1].conflict);
        let o = oc.step(&OcInputs {
            disp_ready: true,
            ..Default::default()
        });
        let d = o.dispatch.expect("dispatched the cycle after its read");
        let old: Vec<u32> = (0..lanes as u32).map(|l| 100 + l).collect();
        assert_eq!(d.data[0], old);
        assert_eq!(d.data[1], vec![0; lanes]);
        // A read after the write: the written lanes' new values, the others' old ones.
        oc.step(&OcInputs {
            issue: issue(1, &[5, 0], 8),
            disp_ready: true,
            ..Default::default()
        });
        let d = (0..4)
            .find_map(|_| {
                oc.step(&OcInputs {
                    disp_ready: true,
                    ..Default::default()
                })
                .dispatch
            })
            .expect("the second reader is dispatched");
        let want: Vec<u32> = (0..lanes as u32)
            .map(|l| {
                if l % 2 == 0 && l < 3 {
                    500 + l
                } else {
                    100 + l
                }
            })
            .collect();
        assert_eq!(d.data[0], want);
    }

    /// Book Fig. 3.17 on the reference model alone (the RTL test checks both).
    #[test]
    fn figure_3_17_schedule() {
        let c = cfg(RfLayout::Swizzled, 4);
        let shape = OcShape {
            sources: 3,
            policy: ReadPolicy::InOrder,
            write_port: WritePort::Shared,
        };
        let mut oc = OperandCollector::new(&c, shape);
        // i1: add r1, r2, r5 (w1, w2, w3); i2: mad r4, r3, r7, r1 (w0).
        let prog = [
            (1, vec![2u8, 5], 1u8),
            (2, vec![2, 5], 1),
            (3, vec![2, 5], 1),
            (0, vec![3, 7, 1], 4),
        ];
        let mut next = 0;
        let mut wb_at: Vec<(u64, u32, u8)> = vec![];
        let mut sched: Vec<Vec<String>> = vec![];
        for cycle in 0..9u64 {
            let mut inp = OcInputs {
                disp_ready: true,
                ..Default::default()
            };
            if next < prog.len() {
                inp.issue = issue(prog[next].0, &prog[next].1, next as u16);
            }
            if let Some(&(_, w, rd)) = wb_at.iter().find(|x| x.0 == cycle) {
                inp.wb = WritebackIn {
                    valid: true,
                    warp: w,
                    rd,
                    mask: 0xf,
                    data: vec![cycle as u32; 4],
                };
            }
            let holding: Vec<_> = (0..oc.collectors()).map(|i| oc.holding(i)).collect();
            let o = oc.step(&inp);
            if o.alloc.is_some() {
                next += 1;
            }
            if let Some(d) = &o.dispatch {
                let (w, _, rd) = prog[d.payload as usize].clone();
                wb_at.push((cycle + 1, w, rd));
            }
            let row: Vec<String> = o
                .banks
                .iter()
                .map(|e| {
                    if e.write {
                        format!("w{}:r{}(wb)", inp.wb.warp, inp.wb.rd)
                    } else if let Some((i, s)) = e.grant {
                        let (w, regs) = holding[i].clone().unwrap();
                        format!("w{}:r{}", w, regs[s])
                    } else {
                        String::new()
                    }
                })
                .collect();
            sched.push(row);
        }
        let expect = |c: usize, b: usize| sched[c][b].clone();
        assert_eq!(expect(1, 3), "w1:r2");
        assert_eq!(expect(2, 0), "w2:r2");
        assert_eq!(expect(2, 2), "w1:r5");
        assert_eq!(expect(3, 1), "w3:r2");
        assert_eq!(expect(3, 3), "w2:r5");
        assert_eq!(expect(4, 0), "w3:r5");
        assert_eq!(expect(4, 2), "w1:r1(wb)");
        assert_eq!(expect(4, 3), "w0:r3");
        assert_eq!(expect(5, 3), "w2:r1(wb)");
        assert_eq!(expect(6, 0), "w3:r1(wb)");
        assert_eq!(expect(6, 3), "w0:r7");
        assert_eq!(expect(7, 1), "w0:r1");
    }
}
