//! The per-warp SIMT reconvergence stack (book §3.1.1, Fig. 3.4; docs/isa.md §4).

/// RPC of an entry that never reconverges (the base entry, `Reconvergence::Never`):
/// odd, so it never equals a PC.
pub const RPC_NONE: u32 = u32::MAX;

/// One entry: reconvergence PC, next PC, active mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackEntry {
    pub rpc: u32,
    pub pc: u32,
    pub mask: u32,
}

/// The stack, bottom first. Empty when the warp has finished.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimtStack {
    entries: Vec<StackEntry>,
    depth: usize,
}

/// A divergent split needs more entries than the configured depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overflow;

impl SimtStack {
    pub fn new(depth: u32) -> Self {
        SimtStack {
            entries: Vec::with_capacity(depth as usize),
            depth: depth as usize,
        }
    }

    /// Start a warp: one base entry.
    pub fn reset(&mut self, pc: u32, mask: u32) {
        self.entries.clear();
        self.entries.push(StackEntry {
            rpc: RPC_NONE,
            pc,
            mask,
        });
    }

    pub fn entries(&self) -> &[StackEntry] {
        &self.entries
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn top(&self) -> Option<&StackEntry> {
        self.entries.last()
    }

    /// Set the next PC of the top entry (a uniform instruction).
    pub fn set_pc(&mut self, pc: u32) {
        if let Some(t) = self.entries.last_mut() {
            t.pc = pc;
        }
    }

    /// A divergent split: the top entry becomes the reconvergence entry (next PC = `rpc`), then
    /// `first` and `second` (pc, mask) are pushed in that order with RPC = `rpc`, so `second`
    /// executes first.
    pub fn split(
        &mut self,
        rpc: u32,
        first: (u32, u32),
        second: (u32, u32),
    ) -> Result<(), Overflow> {
        if self.entries.len() + 2 > self.depth {
            return Err(Overflow);
        }
        self.set_pc(rpc);
        for (pc, mask) in [first, second] {
            self.entries.push(StackEntry { rpc, pc, mask });
        }
        Ok(())
    }

    /// Threads in `mask` exit: they leave every entry.
    pub fn exit(&mut self, mask: u32) {
        for e in &mut self.entries {
            e.mask &= !mask;
        }
    }

    /// Pop every top entry that has reconverged (PC = RPC) or has no threads left.
    pub fn settle(&mut self) {
        while let Some(t) = self.entries.last() {
            if t.pc == t.rpc || t.mask == 0 {
                self.entries.pop();
            } else {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_and_reconverge() {
        let mut s = SimtStack::new(4);
        s.reset(0, 0b1111);
        s.set_pc(8);
        s.split(40, (12, 0b1110), (100, 0b0001)).unwrap();
        assert_eq!(
            s.top(),
            Some(&StackEntry {
                rpc: 40,
                pc: 100,
                mask: 1
            })
        );
        s.set_pc(40);
        s.settle();
        assert_eq!(
            s.top(),
            Some(&StackEntry {
                rpc: 40,
                pc: 12,
                mask: 0b1110
            })
        );
        s.set_pc(40);
        s.settle();
        assert_eq!(
            s.top(),
            Some(&StackEntry {
                rpc: RPC_NONE,
                pc: 40,
                mask: 0b1111
            })
        );
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn overflow_leaves_stack_unchanged() {
        let mut s = SimtStack::new(2);
        s.reset(0, 3);
        let before = s.clone();
        assert_eq!(s.split(8, (4, 1), (12, 2)), Err(Overflow));
        assert_eq!(s, before);
    }

    #[test]
    fn exit_pops_empty_entries() {
        let mut s = SimtStack::new(4);
        s.reset(0, 0b11);
        s.split(RPC_NONE, (4, 0b01), (8, 0b10)).unwrap();
        s.exit(0b10);
        s.settle();
        assert_eq!(
            s.top(),
            Some(&StackEntry {
                rpc: RPC_NONE,
                pc: 4,
                mask: 0b01
            })
        );
        s.exit(0b01);
        s.settle();
        assert!(s.is_empty());
    }
}
