//! Counters of a run of the functional model.

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Scheduling rounds of the standalone run (0 when driven).
    pub cycles: u64,
    pub warp_instrs: u64,
    /// Sum over warp-instructions of the lanes that executed.
    pub thread_instrs: u64,
    pub divergent_branches: u64,
    pub divergent_calls: u64,
    /// Deepest SIMT stack seen, in entries (the base entry counts).
    pub max_stack_depth: u32,
    /// Barrier releases.
    pub barriers: u64,
    pub ctas_done: u64,
    /// Load and store warp-instructions.
    pub loads: u64,
    pub stores: u64,
}

impl Stats {
    /// Active lanes per issued warp-instruction over the warp width.
    pub fn simd_efficiency(&self, lanes: u32) -> f64 {
        if self.warp_instrs == 0 {
            0.0
        } else {
            self.thread_instrs as f64 / (self.warp_instrs as f64 * lanes as f64)
        }
    }
}
