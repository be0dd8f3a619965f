//! A scripted stand-in for the RTL, to test the lock-step runner itself.
//!
//! [`ideal_script`] plays an idealised GPU: it drives its own copy of the golden model in
//! driven mode (CTA dispatch, one issue per SM per cycle, tags, writebacks 3+ cycles after
//! issue, stores with their memory writes one lane per cycle) and records, per kernel cycle,
//! exactly the trace-port and memory-port outputs an RTL that behaves like that would show.
//! [`Script::verilog`] turns such a script into a `warpforge_top` with the real top level's
//! ports (docs/microarch/sm.md) that replays it, so the whole runner (Verilator build, port
//! names and widths, clocking, memory model, checks, reports, VCD re-run) can be exercised
//! before — and independently of — the real RTL. Editing one record of a script gives a
//! deliberately wrong "RTL" whose first mismatch is known.
//!
//! Limits of the replay: it ignores its inputs except `clock`, `reset` and `start`; memory
//! requests are scripted, so they are correct only with a memory that is always ready
//! (`MemorySettings::zero()`); global stores are sent to memory one lane per cycle, loads are
//! not sent at all (the checker never sees their requests, only their writebacks).

use std::collections::VecDeque;
use std::fmt::Write as _;

use warpforge_config::GpuConfig;
use warpforge_sim::scheduler::{Scheduler, SchedulerInputs};
use warpforge_sim::{Fault, Gpu};

use warpforge_hdl::mem_port::top_mem_port_name;
use warpforge_hdl::reset_tree::RESET_LATENCY;

use super::Launch;
use crate::memory_model::MemRequest;

/// Issue record (`tr_issue_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IssueRec {
    pub warp: u32,
    pub pc: u32,
    pub instr: u32,
    /// TOS mask at issue.
    pub mask: u32,
    pub tag: u32,
}

/// The lanes of `mask`, the others 0: what the RTL's trace ports carry (every unit gives 0 for
/// an inactive lane).
fn active_only(mut v: [u32; 32], mask: u32) -> [u32; 32] {
    for (l, x) in v.iter_mut().enumerate() {
        if mask >> l & 1 == 0 {
            *x = 0;
        }
    }
    v
}

/// Writeback record (`tr_wb_*`); `data[l]` for lane `l`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WbRec {
    pub tag: u32,
    pub rd: u8,
    pub mask: u32,
    pub data: [u32; 32],
}

/// Store record (`tr_st_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StRec {
    pub tag: u32,
    /// The port's size code: 0 byte, 1 half, 2 word.
    pub size: u8,
    pub mask: u32,
    pub addr: [u32; 32],
    pub data: [u32; 32],
}

/// CTA launch record (`tr_cta_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CtaRec {
    pub id: u32,
    /// Warp slots taken (bit `w` = slot `w`).
    pub warps: u64,
}

/// The top-level fault report (`fault_*`), `cause` as the port's code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtlFault {
    pub sm: u32,
    pub warp: u32,
    pub pc: u32,
    pub cause: u32,
    pub lane: u32,
    pub addr: u32,
}

impl RtlFault {
    /// The port values for a model fault (`NO_LANE` and address 0 where the model has none, as
    /// the RTL drives them).
    pub fn of(f: &Fault) -> RtlFault {
        RtlFault {
            sm: f.sm,
            warp: f.warp,
            pc: f.pc,
            cause: u32::from(f.cause.code()),
            lane: f.lane.unwrap_or(warpforge_isa::NO_LANE),
            addr: f.addr.unwrap_or(0),
        }
    }
}

/// The warp scheduler's inputs (`tr_ready`, `tr_launch`, `tr_long`), bit `w` = warp `w`, and
/// its grant (`tr_grant_valid`, `tr_grant_warp`): the warp entering the issue stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedRec {
    pub ready: u64,
    pub launch: u64,
    pub long: u64,
    pub grant: Option<u32>,
}

/// The outputs of one SM in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScriptSm {
    pub sched: SchedRec,
    pub issue: Option<IssueRec>,
    pub wb: Option<WbRec>,
    pub st: Option<StRec>,
    pub cta: Option<CtaRec>,
    /// A memory request shown with `mem_req_valid` (assumed accepted).
    pub mem: Option<MemRequest>,
    /// `tr_idle`: no issue while a warp launched in an earlier cycle lives.
    pub idle: bool,
}

/// A replayable run: outputs per kernel cycle (index 0 is the start pulse).
#[derive(Clone, Debug)]
pub struct Script {
    pub sms: usize,
    pub lanes: usize,
    pub cycles: Vec<Vec<ScriptSm>>,
    /// Kernel cycle from which `done` is high.
    pub done_at: Option<u64>,
    /// Kernel cycle from which `fault` is high, and the report.
    pub fault_at: Option<(u64, RtlFault)>,
    /// The report from the cycle after `fault_at` on (`None`: held as it was; a test's
    /// corruption otherwise).
    pub fault_after: Option<RtlFault>,
    /// `cycle_count` in kernel cycle 0 (the replay counts from reset, like the real top).
    pub cycle_base: u64,
}

/// The first cycle from `from` whose SM `s` has no record `taken` says is there.
fn free_slot(
    cycles: &mut Vec<Vec<ScriptSm>>,
    from: usize,
    s: usize,
    taken: fn(&ScriptSm) -> bool,
) -> usize {
    let sms = cycles[0].len();
    let mut kk = from;
    loop {
        while cycles.len() <= kk {
            cycles.push(vec![ScriptSm::default(); sms]);
        }
        if !taken(&cycles[kk][s]) {
            return kk;
        }
        kk += 1;
    }
}

fn lowest_free(busy: u32, tags: u32) -> Option<u32> {
    (0..tags).find(|t| busy >> t & 1 == 0)
}

/// Play an idealised GPU on `model` (memory set up, not launched) and record its outputs.
/// `cycle_base` is the `cycle_count` of kernel cycle 0: for a replay after
/// [`super::cosim`]'s reset and instruction load it is [`super::kernel_start_cycle`].
pub fn ideal_script(
    cfg: &GpuConfig,
    mut model: Gpu,
    launch: Launch,
    cycle_base: u64,
    max_cycles: u64,
) -> Result<Script, String> {
    let sms = cfg.sms as usize;
    let lanes = cfg.lanes as usize;
    // As the real top: `instret` from the counter base's low word.
    model.set_instret_base(launch.counter_base as u32);
    model.set_cta_base(launch.cta_base);
    model
        .launch_driven(launch.grid, launch.block, launch.param)
        .map_err(|e| e.to_string())?;
    let mut cycles: Vec<Vec<ScriptSm>> = vec![vec![ScriptSm::default(); sms]];
    let mut busy = vec![0u32; sms];
    // `[sm][tag]`: the warp of a pending register write. A warp with one does not issue (a
    // scoreboard of one entry: never a hazard, as the checker requires).
    let mut writing: Vec<Vec<Option<u32>>> = vec![vec![None; 256]; sms];
    // The script grants like the RTL's scheduler must: the reference policy over the warps the
    // model can issue (all of them waiting "long" when not ready, for two-level).
    let mut schedulers: Vec<Scheduler> = (0..sms).map(|_| Scheduler::new(cfg)).collect();
    let all_warps = u64::MAX >> (64 - cfg.warps);
    let mut memq: Vec<VecDeque<MemRequest>> = vec![VecDeque::new(); sms];
    // Per SM: warp slots launched in an earlier cycle (for `idle`).
    let mut launched = vec![0u64; sms];
    let mut fault_at = None;
    let mut done_at = None;
    let mut k = 1usize;
    loop {
        if k as u64 > max_cycles {
            return Err(format!(
                "the ideal GPU did not finish in {max_cycles} cycles"
            ));
        }
        while cycles.len() <= k {
            cycles.push(vec![ScriptSm::default(); sms]);
        }
        for s in 0..sms {
            let o = cycles[k][s];
            if let Some(r) = o.wb {
                busy[s] &= !(1 << r.tag);
                writing[s][r.tag as usize] = None;
            }
            if let Some(r) = o.st {
                busy[s] &= !(1 << r.tag);
            }
        }
        if fault_at.is_none() {
            for (s, o) in cycles[k].iter_mut().enumerate() {
                if let Ok((id, warps)) = model.dispatch_cta(s as u32) {
                    o.cta = Some(CtaRec { id, warps });
                    o.sched.launch = warps;
                }
            }
            'sms: for s in 0..sms {
                let tag = lowest_free(busy[s], cfg.tags_per_sm());
                let ready = if tag.is_some() {
                    model
                        .ready_warps(s as u32)
                        .filter(|w| !writing[s].contains(&Some(*w)))
                        .fold(0u64, |m, w| m | 1 << w)
                } else {
                    0
                };
                let o = &mut cycles[k][s].sched;
                o.ready = ready;
                o.long = all_warps & !ready;
                let flags =
                    |v: u64| -> Vec<bool> { (0..cfg.warps).map(|w| v >> w & 1 != 0).collect() };
                let grant = schedulers[s].pick(&flags(ready));
                schedulers[s].step(&SchedulerInputs {
                    reset: false,
                    ready: flags(ready),
                    issued: grant.is_some(),
                    launch: flags(o.launch),
                    long_stall: flags(o.long),
                });
                let (Some(tag), Some(w)) = (tag, grant) else {
                    continue;
                };
                let w = w as u32;
                cycles[k][s].sched.grant = Some(w);
                let mask = model.warp_stack(s as u32, w).last().map_or(0, |e| e.mask);
                model.set_cycle(s as u32, cycle_base.wrapping_add(k as u64));
                let c = model.step(s as u32, w).map_err(|e| e.to_string())?.clone();
                cycles[k][s].issue = Some(IssueRec {
                    warp: w,
                    pc: c.pc,
                    instr: c.instr,
                    mask,
                    tag,
                });
                if let Some(f) = c.fault {
                    fault_at = Some(((k + 3) as u64, RtlFault::of(&f)));
                    break 'sms;
                }
                if let Some(rd) = c.dest {
                    busy[s] |= 1 << tag;
                    writing[s][tag as usize] = Some(w);
                    let kk = free_slot(&mut cycles, k + 3, s, |o| o.wb.is_some());
                    cycles[kk][s].wb = Some(WbRec {
                        tag,
                        rd,
                        mask: c.mask,
                        data: active_only(c.values, c.mask),
                    });
                }
                if let Some(st) = &c.store {
                    busy[s] |= 1 << tag;
                    let kk = free_slot(&mut cycles, k + 3, s, |o| o.st.is_some());
                    let size = st.size.trailing_zeros() as u8;
                    cycles[kk][s].st = Some(StRec {
                        tag,
                        size,
                        mask: st.mask,
                        addr: active_only(st.addr, st.mask),
                        data: active_only(st.data, st.mask),
                    });
                    // Global stores go to the memory port, lane by lane; shared ones stay in
                    // the SM.
                    for l in (0..lanes).filter(|&l| {
                        st.mask >> l & 1 != 0 && st.addr[l] >= warpforge_isa::memmap::GMEM_BASE
                    }) {
                        memq[s].push_back(MemRequest {
                            write: true,
                            addr: st.addr[l],
                            size,
                            data: st.data[l],
                        });
                    }
                }
            }
        }
        for (s, o) in cycles[k].iter_mut().enumerate() {
            o.mem = memq[s].pop_front();
            // Until a fault halts the SMs, a cycle without an issue is idle while a warp the
            // SM launched before lives.
            let placed = o.cta.map_or(0, |c| c.warps);
            launched[s] &= !placed;
            o.idle = o.issue.is_none()
                && fault_at.is_none()
                && (0..cfg.warps)
                    .any(|w| launched[s] >> w & 1 != 0 && model.warp_cta(s as u32, w).is_some());
            launched[s] |= o.sched.launch;
        }
        let drained = memq.iter().all(VecDeque::is_empty) && cycles.len() <= k + 1;
        if let Some((at, _)) = fault_at {
            if k as u64 >= at {
                break;
            }
        } else if model.is_finished() && drained {
            done_at = Some(k as u64 + 1);
            break;
        }
        k += 1;
    }
    // A slot not yet launched waits long in every cycle, also in those the scheduler loop above
    // did not play (the start pulse, after a fault, up to the end the checker sees).
    let end = done_at
        .or(fault_at.map(|(at, _)| at + super::FAULT_HOLD_CYCLES))
        .unwrap_or(0);
    while (cycles.len() as u64) <= end {
        cycles.push(vec![ScriptSm::default(); sms]);
    }
    let mut ever = vec![0u64; sms];
    for c in &mut cycles {
        for (s, o) in c.iter_mut().enumerate() {
            ever[s] |= o.sched.launch;
            o.sched.long |= all_warps & !ever[s];
        }
    }
    Ok(Script {
        sms,
        lanes,
        cycles,
        done_at,
        fault_at,
        fault_after: None,
        cycle_base,
    })
}

impl Script {
    /// The outputs of SM `sm` in kernel cycle `k` (empty past the end).
    pub fn at(&self, k: u64, sm: usize) -> ScriptSm {
        self.cycles
            .get(k as usize)
            .map(|c| c[sm])
            .unwrap_or_default()
    }

    /// Kernel cycles of the script (records and memory requests).
    pub fn len(&self) -> u64 {
        self.cycles.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.cycles.is_empty()
    }

    /// Every cycle with a record of `pick` on any SM: (kernel cycle, SM).
    pub fn find(&self, pick: impl Fn(&ScriptSm) -> bool) -> Vec<(u64, usize)> {
        let mut v = Vec::new();
        for (k, c) in self.cycles.iter().enumerate() {
            for (s, o) in c.iter().enumerate() {
                if pick(o) {
                    v.push((k as u64, s));
                }
            }
        }
        v
    }

    /// A Verilog module `warpforge_top` with the real top level's ports that replays the
    /// script: a kernel-cycle counter started by `start`, `cycle_count` counting from reset,
    /// and one `case` over the kernel cycle driving the trace and memory-request outputs.
    pub fn verilog(&self) -> String {
        self.verilog_with(false)
    }

    /// [`Script::verilog`]; with `packed`, the lane values of each SM are one 1024-bit port
    /// (`tr_wb_data$s`, lane `l` in bits `32l+31..32l`) instead of one port per lane.
    pub fn verilog_with(&self, packed: bool) -> String {
        let (sms, lanes) = (self.sms, self.lanes);
        let mut v = String::new();
        v.push_str(
            "// Generated by warpforge_testbench::lockstep::script: a replay of a scripted run.\n",
        );
        v.push_str("/* verilator lint_off UNUSEDSIGNAL */\n");
        v.push_str("module warpforge_top (\n");
        let mut ports: Vec<String> = Vec::new();
        let mut p = |dir: &str, w: u32, name: String| {
            let range = if w > 1 {
                format!("[{}:0] ", w - 1)
            } else {
                String::new()
            };
            ports.push(format!("    {dir} {range}{name}"));
        };
        for (n, w) in [
            ("clock", 1),
            ("reset", 1),
            ("imem_we", 1),
            ("imem_addr", 32),
            ("imem_word", 32),
            ("imem_recon", 32),
            ("launch_entry", 32),
            ("launch_nctaid", 32),
            ("launch_ntid", 32),
            ("launch_param", 32),
            ("launch_shared", 32),
            ("start", 1),
        ] {
            p("input wire", w, n.into());
        }
        p("input wire", 64, "ctr_base$0".into());
        p("input wire", 32, "cta_base$0".into());
        p("input wire", 32, "gtid_base$0".into());
        for (n, w) in [
            ("busy", 1),
            ("done", 1),
            ("fault", 1),
            ("fault_sm", 8),
            ("fault_warp", 8),
            ("fault_pc", 32),
            ("fault_cause", 4),
            ("fault_lane", 8),
            ("fault_addr", 32),
            ("cycle_count", 64),
        ] {
            p("output wire", w, n.into());
        }
        let sm_out: [(&str, u32); 32] = [
            ("mem_req_valid", 1),
            ("mem_req_write", 1),
            ("mem_req_addr", 32),
            ("mem_req_size", 2),
            ("mem_req_data", 32),
            ("tr_issue_valid", 1),
            ("tr_issue_warp", 8),
            ("tr_issue_pc", 32),
            ("tr_issue_instr", 32),
            ("tr_issue_mask", 32),
            ("tr_issue_tag", 8),
            ("tr_wb_valid", 1),
            ("tr_wb_tag", 8),
            ("tr_wb_rd", 5),
            ("tr_wb_mask", 32),
            ("tr_st_valid", 1),
            ("tr_st_tag", 8),
            ("tr_st_size", 2),
            ("tr_st_mask", 32),
            ("tr_cta_valid", 1),
            ("tr_cta_id", 32),
            ("tr_cta_warps", 64),
            ("tr_ready", 64),
            ("tr_launch", 64),
            ("tr_long", 64),
            ("tr_grant_valid", 1),
            ("tr_grant_warp", 8),
            ("ctr_issued", 32),
            ("ctr_idle", 32),
            ("ctr_conflicts", 32),
            ("tr_idle", 1),
            ("tr_conflicts", 32),
        ];
        let mut regs: Vec<String> = Vec::new();
        for s in 0..sms {
            p("input wire", 1, sm_port("mem_req_ready", s));
            p("input wire", 1, sm_port("mem_resp_valid", s));
            p("input wire", 32, sm_port("mem_resp_data", s));
            for &(n, w) in &sm_out {
                if n.starts_with("ctr_") || n == "tr_conflicts" {
                    p("output wire", w, sm_port(n, s));
                } else {
                    p("output reg", w, sm_port(n, s));
                    regs.push(sm_port(n, s));
                }
            }
        }
        let (lane_ports, lane_width) = if packed {
            (sms, 1024)
        } else {
            (sms * lanes, 32)
        };
        for i in 0..lane_ports {
            for n in ["tr_wb_data", "tr_st_addr", "tr_st_data"] {
                p("output reg", lane_width, format!("{n}${i}"));
                regs.push(format!("{n}${i}"));
            }
        }
        v.push_str(&ports.join(",\n"));
        v.push_str("\n);\n");
        let done_at = self.done_at.unwrap_or(u64::from(u32::MAX));
        let (fault_at, f) = self.fault_at.unwrap_or((
            u64::from(u32::MAX),
            RtlFault {
                sm: 0,
                warp: 0,
                pc: 0,
                cause: 0,
                lane: 0,
                addr: 0,
            },
        ));
        let g = self.fault_after.unwrap_or(f);
        let _ = write!(
            v,
            "    // The reset tree of the real top: the pin reaches the logic {lat} cycles late.
    reg [{lat_m1}:0] rst_pipe;
    always @(posedge clock) rst_pipe <= {{rst_pipe[{lat_m2}:0], reset}};
    wire rst = rst_pipe[{lat_m1}];
    reg [63:0] cyc;
    reg running;
    reg [31:0] k;
    always @(posedge clock) begin
        if (rst) begin
            cyc <= ctr_base$0;
            running <= 1'b0;
            k <= 32'd0;
        end else begin
            cyc <= cyc + 64'd1;
            if (start) begin
                running <= 1'b1;
                k <= 32'd1;
            end else if (running) begin
                k <= k + 32'd1;
            end
        end
    end
    assign cycle_count = cyc;
    assign done = running && k >= 32'd{done_at};
    assign fault = running && k >= 32'd{fault_at};
    assign busy = running && !done && !fault;
    wire held = k > 32'd{fault_at};
    assign fault_sm = held ? 8'd{} : 8'd{};
    assign fault_warp = held ? 8'd{} : 8'd{};
    assign fault_pc = held ? 32'h{:08x} : 32'h{:08x};
    assign fault_cause = held ? 4'd{} : 4'd{};
    assign fault_lane = held ? 8'd{} : 8'd{};
    assign fault_addr = held ? 32'h{:08x} : 32'h{:08x};
",
            g.sm,
            f.sm,
            g.warp,
            f.warp,
            g.pc,
            f.pc,
            g.cause,
            f.cause,
            g.lane,
            f.lane,
            g.addr,
            f.addr,
            lat = RESET_LATENCY,
            lat_m1 = RESET_LATENCY - 1,
            lat_m2 = RESET_LATENCY - 2,
        );
        for s in 0..sms {
            // Counters from `ctr_base`: issue records and idle cycles so far; no conflicts.
            let _ = write!(
                v,
                "    reg [31:0] issued${s};
    reg [31:0] idles${s};
    reg [31:0] base${s};
    always @(posedge clock) begin
        if (rst) begin
            issued${s} <= ctr_base$0[31:0];
            idles${s} <= ctr_base$0[31:0];
            base${s} <= ctr_base$0[31:0];
        end else begin
            if (tr_issue_valid${s}) issued${s} <= issued${s} + 32'd1;
            if (tr_idle${s}) idles${s} <= idles${s} + 32'd1;
        end
    end
    assign ctr_issued${s} = issued${s};
    assign ctr_idle${s} = idles${s};
    assign ctr_conflicts${s} = base${s};
    assign tr_conflicts${s} = 32'd0;
"
            );
        }
        v.push_str("    always @(*) begin\n");
        // `tr_long` outside the script (the start pulse, before `start`): the first cycle's,
        // every slot not launched.
        let idle_long: Vec<u64> = (0..sms)
            .map(|s| self.cycles.first().map_or(0, |c| c[s].sched.long))
            .collect();
        for r in &regs {
            let _ = writeln!(v, "        {r} = 0;");
        }
        for (s, l) in idle_long.iter().enumerate() {
            let _ = writeln!(v, "        {} = 64'h{l:016x};", sm_port("tr_long", s));
        }
        v.push_str("        if (running) begin\n            case (k)\n");
        for (k, c) in self.cycles.iter().enumerate() {
            let mut body = String::new();
            for (s, o) in c.iter().enumerate() {
                let mut set = |n: &str, val: String| {
                    let _ = writeln!(body, "                    {} = {val};", sm_port(n, s));
                };
                if o.idle {
                    set("tr_idle", "1'b1".into());
                }
                if let Some(r) = o.issue {
                    set("tr_issue_valid", "1'b1".into());
                    set("tr_issue_warp", format!("8'd{}", r.warp));
                    set("tr_issue_pc", format!("32'h{:08x}", r.pc));
                    set("tr_issue_instr", format!("32'h{:08x}", r.instr));
                    set("tr_issue_mask", format!("32'h{:08x}", r.mask));
                    set("tr_issue_tag", format!("8'd{}", r.tag));
                }
                if let Some(r) = o.wb {
                    set("tr_wb_valid", "1'b1".into());
                    set("tr_wb_tag", format!("8'd{}", r.tag));
                    set("tr_wb_rd", format!("5'd{}", r.rd));
                    set("tr_wb_mask", format!("32'h{:08x}", r.mask));
                }
                if let Some(r) = o.st {
                    set("tr_st_valid", "1'b1".into());
                    set("tr_st_tag", format!("8'd{}", r.tag));
                    set("tr_st_size", format!("2'd{}", r.size));
                    set("tr_st_mask", format!("32'h{:08x}", r.mask));
                }
                for (n, v, idle) in [
                    ("tr_ready", o.sched.ready, 0),
                    ("tr_launch", o.sched.launch, 0),
                    ("tr_long", o.sched.long, idle_long[s]),
                ] {
                    if v != idle {
                        set(n, format!("64'h{v:016x}"));
                    }
                }
                if let Some(w) = o.sched.grant {
                    set("tr_grant_valid", "1'b1".into());
                    set("tr_grant_warp", format!("8'd{w}"));
                }
                if let Some(r) = o.cta {
                    set("tr_cta_valid", "1'b1".into());
                    set("tr_cta_id", format!("32'd{}", r.id));
                    set("tr_cta_warps", format!("64'h{:016x}", r.warps));
                }
                if let Some(r) = o.mem {
                    set("mem_req_valid", "1'b1".into());
                    set("mem_req_write", format!("1'b{}", u8::from(r.write)));
                    set("mem_req_addr", format!("32'h{:08x}", r.addr));
                    set("mem_req_size", format!("2'd{}", r.size));
                    set("mem_req_data", format!("32'h{:08x}", r.data));
                }
                for l in 0..lanes {
                    let i = s * lanes + l;
                    let mut lane = |n: &str, val: u32| {
                        let _ = if packed {
                            writeln!(
                                body,
                                "                    {n}${s}[{}:{}] = 32'h{val:08x};",
                                32 * l + 31,
                                32 * l
                            )
                        } else {
                            writeln!(body, "                    {n}${i} = 32'h{val:08x};")
                        };
                    };
                    if let Some(r) = o.wb {
                        lane("tr_wb_data", r.data[l]);
                    }
                    if let Some(r) = o.st {
                        lane("tr_st_addr", r.addr[l]);
                        lane("tr_st_data", r.data[l]);
                    }
                }
            }
            if !body.is_empty() {
                let _ = write!(
                    v,
                    "                32'd{k}: begin\n{body}                end\n"
                );
            }
        }
        v.push_str(
            "                default: ;\n            endcase\n        end\n    end\nendmodule\n",
        );
        v
    }
}

/// The top-level name of SM `s`'s port `name`: `name$s`, and `mem$s$field` for the memory port's
/// `mem_field` (its bundle, `warpforge_hdl::mem_port`).
fn sm_port(name: &str, s: usize) -> String {
    match name.strip_prefix("mem_") {
        Some(field) => top_mem_port_name(s, field),
        None => format!("{name}${s}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowest_free_tag() {
        assert_eq!(lowest_free(0, 16), Some(0));
        assert_eq!(lowest_free(0b1011, 16), Some(2));
        assert_eq!(lowest_free(0xffff, 16), None);
        assert_eq!(lowest_free(0b111, 3), None);
    }
}
