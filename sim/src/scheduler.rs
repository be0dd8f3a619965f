//! Cycle-accurate reference of the warp scheduler (docs/microarch/scheduler.md, "Scheduler").
//!
//! Written from the documented policies, not from the RTL: GTO age is a launch time stamp per
//! warp (ties broken by warp number), the two-level pending set is a FIFO queue. The RTL uses
//! order matrices instead. [`Scheduler::step`] is one clock cycle: it returns the outputs shown
//! during the cycle and then applies the clock edge.

use std::collections::VecDeque;

use warpforge_config::{GpuConfig, SchedulerPolicy};

/// Inputs of one cycle. Per-warp vectors may be shorter than the number of warps (missing
/// entries are false); `launch` is only used by GTO, `long_stall` only by two-level.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SchedulerInputs {
    /// Synchronous reset.
    pub reset: bool,
    /// Per warp: can issue this cycle.
    pub ready: Vec<bool>,
    /// The grant of this cycle was taken.
    pub issued: bool,
    /// GTO: per warp, (re)launched this cycle.
    pub launch: Vec<bool>,
    /// Two-level: per warp, waiting for a long-latency event.
    pub long_stall: Vec<bool>,
}

/// Outputs of one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SchedulerOutputs {
    /// The granted warp, if any.
    pub grant: Option<usize>,
    /// Two-level: per warp, member of the active set (empty for the other policies).
    pub active: Vec<bool>,
}

/// The warp scheduler of one SM.
#[derive(Clone, Debug)]
pub struct Scheduler {
    policy: SchedulerPolicy,
    warps: usize,
    active_size: usize,
    /// Last issued warp (after reset: the last warp, so that LRR starts at warp 0).
    last: usize,
    /// GTO: whether a warp has issued since reset.
    greedy: bool,
    /// GTO: the cycle of each warp's last launch (0 = never); older = smaller, ties: lower number.
    launched_at: Vec<u64>,
    /// Cycles since the model was created (launch time stamps).
    now: u64,
    /// Two-level: active-set membership.
    active: Vec<bool>,
    /// Two-level: pending warps, longest-waiting first.
    pending: VecDeque<usize>,
}

impl Scheduler {
    /// The scheduler of `cfg` in its reset state.
    pub fn new(cfg: &GpuConfig) -> Self {
        Self::with_policy(
            cfg.warps as usize,
            cfg.scheduler,
            cfg.two_level_active as usize,
        )
    }

    /// A scheduler for `warps` warps; `active_size` is the two-level active-set size (clamped
    /// to `warps`).
    pub fn with_policy(warps: usize, policy: SchedulerPolicy, active_size: usize) -> Self {
        assert!(warps >= 1 && active_size >= 1);
        let mut s = Scheduler {
            policy,
            warps,
            active_size: active_size.min(warps),
            last: 0,
            greedy: false,
            launched_at: vec![0; warps],
            now: 0,
            active: vec![false; warps],
            pending: VecDeque::new(),
        };
        s.reset();
        s
    }

    fn reset(&mut self) {
        self.last = self.warps - 1;
        self.greedy = false;
        self.launched_at.iter_mut().for_each(|t| *t = 0);
        for (w, a) in self.active.iter_mut().enumerate() {
            *a = w < self.active_size;
        }
        self.pending = (self.active_size..self.warps).collect();
    }

    /// The policy.
    pub fn policy(&self) -> SchedulerPolicy {
        self.policy
    }

    /// Two-level: the pending warps, longest-waiting first.
    pub fn pending(&self) -> impl Iterator<Item = usize> + '_ {
        self.pending.iter().copied()
    }

    /// The warp that would be granted now for `ready`.
    pub fn pick(&self, ready: &[bool]) -> Option<usize> {
        let ready = |w: usize| ready.get(w).copied().unwrap_or(false);
        match self.policy {
            SchedulerPolicy::Lrr => self.round_robin(ready),
            SchedulerPolicy::TwoLevel => self.round_robin(|w| ready(w) && self.active[w]),
            SchedulerPolicy::Gto => {
                if self.greedy && ready(self.last) {
                    Some(self.last)
                } else {
                    (0..self.warps)
                        .filter(|&w| ready(w))
                        .min_by_key(|&w| (self.launched_at[w], w))
                }
            }
        }
    }

    /// First eligible warp after `last`, wrapping around.
    fn round_robin(&self, eligible: impl Fn(usize) -> bool) -> Option<usize> {
        (1..=self.warps)
            .map(|k| (self.last + k) % self.warps)
            .find(|&w| eligible(w))
    }

    /// One clock cycle.
    pub fn step(&mut self, inp: &SchedulerInputs) -> SchedulerOutputs {
        let flag = |v: &[bool], w: usize| v.get(w).copied().unwrap_or(false);
        let grant = self.pick(&inp.ready);
        let out = SchedulerOutputs {
            grant,
            active: if self.policy == SchedulerPolicy::TwoLevel {
                self.active.clone()
            } else {
                Vec::new()
            },
        };
        self.now += 1;
        if inp.reset {
            self.reset();
            return out;
        }
        if let (Some(g), true) = (grant, inp.issued) {
            self.last = g;
            self.greedy = true;
        }
        match self.policy {
            SchedulerPolicy::Lrr => {}
            SchedulerPolicy::Gto => {
                for w in 0..self.warps {
                    if flag(&inp.launch, w) {
                        self.launched_at[w] = self.now;
                    }
                }
            }
            SchedulerPolicy::TwoLevel => {
                let leaving = (0..self.warps).find(|&w| self.active[w] && flag(&inp.long_stall, w));
                let entering = self.pending.iter().position(|&w| !flag(&inp.long_stall, w));
                if let (Some(d), Some(pos)) = (leaving, entering) {
                    let p = self.pending.remove(pos).expect("position is in range");
                    self.active[p] = true;
                    self.active[d] = false;
                    self.pending.push_back(d);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ready(bits: &[usize], warps: usize) -> Vec<bool> {
        (0..warps).map(|w| bits.contains(&w)).collect()
    }

    fn issue(s: &mut Scheduler, r: &[usize], warps: usize) -> Option<usize> {
        s.step(&SchedulerInputs {
            ready: ready(r, warps),
            issued: true,
            ..Default::default()
        })
        .grant
    }

    #[test]
    fn lrr_rotates() {
        let mut s = Scheduler::with_policy(4, SchedulerPolicy::Lrr, 1);
        let all = [0, 1, 2, 3];
        let got: Vec<_> = (0..6).map(|_| issue(&mut s, &all, 4).unwrap()).collect();
        assert_eq!(got, vec![0, 1, 2, 3, 0, 1]);
        assert_eq!(issue(&mut s, &[0, 3], 4), Some(3));
        assert_eq!(issue(&mut s, &[0, 3], 4), Some(0));
        assert_eq!(issue(&mut s, &[], 4), None);
        // Not taken: the pointer stays.
        let out = s.step(&SchedulerInputs {
            ready: ready(&[1, 2], 4),
            ..Default::default()
        });
        assert_eq!(out.grant, Some(1));
        assert_eq!(issue(&mut s, &[1, 2], 4), Some(1));
    }

    #[test]
    fn gto_greedy_then_oldest() {
        let mut s = Scheduler::with_policy(4, SchedulerPolicy::Gto, 1);
        // Launch order 2, 0, then 3 and 1 together (1 older than 3).
        let launch = |s: &mut Scheduler, l: &[usize]| {
            s.step(&SchedulerInputs {
                launch: ready(l, 4),
                ..Default::default()
            });
        };
        launch(&mut s, &[2]);
        launch(&mut s, &[0]);
        launch(&mut s, &[1, 3]);
        assert_eq!(issue(&mut s, &[0, 1, 2, 3], 4), Some(2), "oldest");
        assert_eq!(issue(&mut s, &[0, 1, 2, 3], 4), Some(2), "greedy");
        assert_eq!(issue(&mut s, &[0, 1, 3], 4), Some(0), "oldest ready");
        assert_eq!(issue(&mut s, &[0, 1, 2, 3], 4), Some(0), "greedy again");
        assert_eq!(issue(&mut s, &[1, 2, 3], 4), Some(2));
        assert_eq!(issue(&mut s, &[1, 3], 4), Some(1));
    }

    #[test]
    fn two_level_swaps_on_long_stall() {
        let mut s = Scheduler::with_policy(4, SchedulerPolicy::TwoLevel, 2);
        let out = s.step(&SchedulerInputs {
            ready: ready(&[0, 1, 2, 3], 4),
            long_stall: ready(&[1, 2], 4),
            ..Default::default()
        });
        assert_eq!(out.grant, Some(0));
        assert_eq!(out.active, vec![true, true, false, false]);
        // Warp 1 left, warp 3 (2 is stalled) entered.
        assert_eq!(s.active, vec![true, false, false, true]);
        assert_eq!(s.pending().collect::<Vec<_>>(), vec![2, 1]);
        assert_eq!(issue(&mut s, &[0, 1, 2, 3], 4), Some(0));
        assert_eq!(issue(&mut s, &[0, 1, 2, 3], 4), Some(3));
        assert_eq!(issue(&mut s, &[1, 2], 4), None);
    }
}
