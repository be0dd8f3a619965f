//! Cycle-accurate reference of the scoreboard unit (docs/microarch/scheduler.md, "Scoreboard").
//!
//! Written from the documented behaviour, not from the RTL: a warp's pending writes are kept
//! as a list of register numbers with a capacity (the RTL keeps fixed entry slots; which slot an
//! entry occupies is not observable). [`Scoreboard::step`] is one clock cycle: it returns the
//! outputs the unit shows during the cycle (a function of the state at the start of the cycle
//! and of this cycle's check inputs) and then applies the clock edge.

use warpforge_config::GpuConfig;

/// The head instruction of one warp as seen by the check port. `None` = the operand is absent
/// (its valid flag is low).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckRequest {
    pub rd: Option<u8>,
    pub rs1: Option<u8>,
    pub rs2: Option<u8>,
}

/// A reserve or release request: warp number and register number (as on the 6-bit / 5-bit
/// ports; a warp number the unit does not have selects nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegWrite {
    pub warp: u8,
    pub rd: u8,
}

/// Inputs of one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScoreboardInputs {
    /// Synchronous reset.
    pub reset: bool,
    /// Per warp: free all of the warp's entries (CTA launch). Missing warps: false.
    pub clear: Vec<bool>,
    /// Per warp: the check port. Missing warps: nothing to check.
    pub check: Vec<CheckRequest>,
    /// The reserve port (issue).
    pub reserve: Option<RegWrite>,
    /// The two release ports (writeback).
    pub release: [Option<RegWrite>; 2],
}

/// Outputs of one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScoreboardOutputs {
    /// Per warp: no RAW or WAW hazard, and an entry for the destination if one is needed, in
    /// the state after this cycle's release on port 1 (the early release: the SM registers
    /// `ok` before its scheduler, so it reads the state of the next cycle).
    pub ok: Vec<bool>,
    /// Per warp: no pending write.
    pub idle: Vec<bool>,
}

/// The scoreboard of one SM.
#[derive(Clone, Debug)]
pub struct Scoreboard {
    entries: usize,
    /// Per warp: the destination registers with a pending write (at most `entries`).
    pending: Vec<Vec<u8>>,
}

impl Scoreboard {
    /// `cfg.warps` warps of `cfg.scoreboard_entries` entries, all free.
    pub fn new(cfg: &GpuConfig) -> Self {
        Self::with_size(cfg.warps as usize, cfg.scoreboard_entries as usize)
    }

    /// `warps` warps of `entries` entries, all free.
    pub fn with_size(warps: usize, entries: usize) -> Self {
        Scoreboard {
            entries,
            pending: vec![Vec::new(); warps],
        }
    }

    /// Number of warps.
    pub fn warps(&self) -> usize {
        self.pending.len()
    }

    /// Registers with a pending write of `warp`, oldest reservation first.
    pub fn pending(&self, warp: usize) -> &[u8] {
        &self.pending[warp]
    }

    /// Whether `warp`'s instruction `req` may issue in the current state (the state at the
    /// start of the cycle) without the pending write of register `released`, if any.
    pub fn check(&self, warp: usize, req: &CheckRequest, released: Option<u8>) -> bool {
        let p: Vec<u8> = self.pending[warp]
            .iter()
            .copied()
            .filter(|&r| Some(r) != released)
            .collect();
        let busy = |r: Option<u8>| r.is_some_and(|r| p.contains(&(r & 31)));
        let needs_entry = req.rd.is_some_and(|r| r & 31 != 0);
        let raw = busy(req.rs1) || busy(req.rs2);
        let waw = needs_entry && busy(req.rd);
        let no_room = needs_entry && p.len() >= self.entries;
        !(raw || waw || no_room)
    }

    /// One clock cycle.
    pub fn step(&mut self, inp: &ScoreboardInputs) -> ScoreboardOutputs {
        let warps = self.warps();
        let out = ScoreboardOutputs {
            ok: (0..warps)
                .map(|w| {
                    let released = inp.release[1]
                        .filter(|x| x.warp as usize == w)
                        .map(|x| x.rd & 31);
                    self.check(w, &inp.check.get(w).copied().unwrap_or_default(), released)
                })
                .collect(),
            idle: self.pending.iter().map(Vec::is_empty).collect(),
        };

        if inp.reset {
            self.pending.iter_mut().for_each(Vec::clear);
            return out;
        }
        for (w, pend) in self.pending.iter_mut().enumerate() {
            if inp.clear.get(w).copied().unwrap_or(false) {
                pend.clear();
                continue;
            }
            let aimed =
                |x: &Option<RegWrite>| x.filter(|x| x.warp as usize == w).map(|x| x.rd & 31);
            // Room is judged on the state at the start of the cycle: an entry released in
            // this cycle is not reused in the same cycle.
            let room = pend.len() < self.entries;
            for rel in inp.release.iter().filter_map(aimed) {
                pend.retain(|&r| r != rel);
            }
            // A reservation made in this cycle is not affected by this cycle's releases.
            if let Some(rd) = aimed(&inp.reserve) {
                if rd != 0 && room {
                    pend.push(rd);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chk(rd: Option<u8>, rs1: Option<u8>, rs2: Option<u8>) -> CheckRequest {
        CheckRequest { rd, rs1, rs2 }
    }

    fn idle_step(sb: &mut Scoreboard) -> ScoreboardOutputs {
        sb.step(&ScoreboardInputs::default())
    }

    fn reserve(sb: &mut Scoreboard, warp: u8, rd: u8) {
        sb.step(&ScoreboardInputs {
            reserve: Some(RegWrite { warp, rd }),
            ..Default::default()
        });
    }

    #[test]
    fn raw_and_waw_block_until_release() {
        let mut sb = Scoreboard::with_size(2, 4);
        reserve(&mut sb, 1, 5);
        assert_eq!(sb.pending(1), &[5]);
        assert!(!sb.check(1, &chk(None, Some(5), None), None), "RAW on rs1");
        assert!(!sb.check(1, &chk(None, None, Some(5)), None), "RAW on rs2");
        assert!(!sb.check(1, &chk(Some(5), None, None), None), "WAW");
        assert!(sb.check(1, &chk(Some(6), Some(7), Some(8)), None));
        assert!(
            sb.check(0, &chk(Some(5), Some(5), Some(5)), None),
            "other warp"
        );
        // Release: it takes effect at the edge; in the release cycle the hazard checks and
        // `idle` still see the register.
        let out = sb.step(&ScoreboardInputs {
            check: vec![CheckRequest::default(), chk(None, Some(5), None)],
            release: [Some(RegWrite { warp: 1, rd: 5 }), None],
            ..Default::default()
        });
        assert_eq!(out.ok, vec![true, false]);
        assert_eq!(out.idle, vec![true, false]);
        assert!(sb.check(1, &chk(None, Some(5), None), None));
        assert!(idle_step(&mut sb).idle.iter().all(|&i| i));
    }

    #[test]
    fn ok_sees_the_early_release_of_its_cycle() {
        let mut sb = Scoreboard::with_size(2, 1);
        reserve(&mut sb, 0, 5);
        // Port 1 (early release) frees the register for `ok` in its own cycle (RAW and room),
        // `idle` and the other port only from the next cycle; other warps are not affected.
        let req = chk(Some(6), Some(5), None);
        let out = sb.step(&ScoreboardInputs {
            check: vec![req, req],
            release: [None, Some(RegWrite { warp: 0, rd: 5 })],
            ..Default::default()
        });
        assert_eq!(out.ok, vec![true, true]);
        assert_eq!(out.idle, vec![false, true]);
        reserve(&mut sb, 0, 5);
        let out = sb.step(&ScoreboardInputs {
            check: vec![req, req],
            release: [Some(RegWrite { warp: 0, rd: 5 }), None],
            ..Default::default()
        });
        assert_eq!(out.ok, vec![false, true]);
        assert!(sb.check(0, &req, None));
        // A release of another register of the warp frees nothing the check needs.
        reserve(&mut sb, 0, 5);
        let out = sb.step(&ScoreboardInputs {
            check: vec![chk(None, Some(5), None)],
            release: [None, Some(RegWrite { warp: 0, rd: 7 })],
            ..Default::default()
        });
        assert!(!out.ok[0]);
    }

    #[test]
    fn full_blocks_only_instructions_with_a_destination() {
        let mut sb = Scoreboard::with_size(1, 2);
        reserve(&mut sb, 0, 1);
        reserve(&mut sb, 0, 2);
        reserve(&mut sb, 0, 3); // no room: dropped
        assert_eq!(sb.pending(0), &[1, 2]);
        assert!(!sb.check(0, &chk(Some(9), None, None), None));
        assert!(
            sb.check(0, &chk(Some(0), Some(9), None), None),
            "x0 needs no entry"
        );
        assert!(sb.check(0, &chk(None, Some(9), Some(10)), None));
        // Release and reserve in the same cycle while full: the reservation is dropped.
        sb.step(&ScoreboardInputs {
            reserve: Some(RegWrite { warp: 0, rd: 7 }),
            release: [Some(RegWrite { warp: 0, rd: 1 }), None],
            ..Default::default()
        });
        assert_eq!(sb.pending(0), &[2]);
    }

    #[test]
    fn same_cycle_release_does_not_free_new_reservation() {
        let mut sb = Scoreboard::with_size(1, 4);
        sb.step(&ScoreboardInputs {
            reserve: Some(RegWrite { warp: 0, rd: 4 }),
            release: [Some(RegWrite { warp: 0, rd: 4 }), None],
            ..Default::default()
        });
        assert_eq!(sb.pending(0), &[4]);
    }

    #[test]
    fn x0_clear_and_reset() {
        let mut sb = Scoreboard::with_size(2, 2);
        reserve(&mut sb, 0, 0);
        assert!(sb.pending(0).is_empty(), "x0 is never tracked");
        reserve(&mut sb, 0, 3);
        reserve(&mut sb, 1, 3);
        reserve(&mut sb, 9, 3); // no warp 9
        sb.step(&ScoreboardInputs {
            clear: vec![true, false],
            reserve: Some(RegWrite { warp: 0, rd: 4 }),
            ..Default::default()
        });
        assert!(sb.pending(0).is_empty(), "clear wins over reserve");
        assert_eq!(sb.pending(1), &[3]);
        sb.step(&ScoreboardInputs {
            reset: true,
            reserve: Some(RegWrite { warp: 1, rd: 4 }),
            ..Default::default()
        });
        assert!(sb.pending(1).is_empty());
    }
}
