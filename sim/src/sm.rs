//! One SM's architectural state in the functional model: warp slots, resident CTAs, shared
//! memory, the per-SM cycle counter and the loose round-robin pointer of the standalone order.

use crate::simt_stack::SimtStack;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpState {
    /// No CTA on this slot.
    Free,
    /// Can issue.
    Ready,
    /// Waiting at a CTA barrier.
    Barrier,
}

pub struct Warp {
    pub state: WarpState,
    /// Index into `Sm::ctas`.
    pub cta_slot: usize,
    /// Index of this warp within its CTA.
    pub warp_in_cta: u32,
    pub stack: SimtStack,
    /// Registers, `regs[r * lanes + lane]`.
    pub regs: Vec<u32>,
    /// Threads that have not exited.
    pub live: u32,
    /// Warp-instructions issued since the CTA started.
    pub instret: u64,
}

pub struct Cta {
    pub cta_id: u32,
    /// Warp slots of this CTA, CTA warp 0 first.
    pub warps: Vec<usize>,
    /// Warps with live threads.
    pub live_warps: u32,
    /// Warps waiting at the barrier.
    pub waiting: u32,
    pub smem: Vec<u8>,
}

pub struct Sm {
    pub warps: Vec<Warp>,
    pub ctas: Vec<Option<Cta>>,
    pub smem_used: u32,
    pub cycle: u64,
    /// Warp that issued last (standalone loose round-robin).
    pub last_issued: usize,
}

impl Sm {
    pub fn new(warps: u32, lanes: u32, stack_depth: u32) -> Self {
        Sm {
            warps: (0..warps)
                .map(|_| Warp {
                    state: WarpState::Free,
                    cta_slot: 0,
                    warp_in_cta: 0,
                    stack: SimtStack::new(stack_depth),
                    regs: vec![0; 32 * lanes as usize],
                    live: 0,
                    instret: 0,
                })
                .collect(),
            ctas: Vec::new(),
            smem_used: 0,
            cycle: 0,
            last_issued: warps as usize - 1,
        }
    }

    pub fn free_warps(&self) -> usize {
        self.warps
            .iter()
            .filter(|w| w.state == WarpState::Free)
            .count()
    }

    /// First ready warp after `last_issued`, in loose round-robin order.
    #[inline]
    pub fn next_ready(&self) -> Option<usize> {
        let n = self.warps.len();
        (1..=n)
            .map(|i| (self.last_issued + i) % n)
            .find(|&w| self.warps[w].state == WarpState::Ready)
    }
}
