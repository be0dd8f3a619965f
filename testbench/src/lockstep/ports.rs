//! The top-level ports of `warpforge_top` (docs/microarch/sm.md, "Top-level ports"), resolved
//! once per model, with their directions and widths checked against the spec.

use warpforge_hdl::mem_port::{top_mem_port_name, MEM_PORT_FIELDS};

use crate::verilator_model::{LoadedModel, PortDir, PortId};

/// Ports of the control interface.
pub(crate) struct ControlPorts {
    pub clock: PortId,
    pub reset: PortId,
    pub imem_we: PortId,
    pub imem_addr: PortId,
    pub imem_word: PortId,
    pub imem_recon: PortId,
    pub launch_entry: PortId,
    pub launch_nctaid: PortId,
    pub launch_ntid: PortId,
    pub launch_param: PortId,
    pub launch_shared: PortId,
    pub start: PortId,
    pub busy: PortId,
    pub done: PortId,
    pub fault: PortId,
    pub fault_sm: PortId,
    pub fault_warp: PortId,
    pub fault_pc: PortId,
    pub fault_cause: PortId,
    pub fault_lane: PortId,
    pub fault_addr: PortId,
    pub cycle_count: PortId,
    pub ctr_base: PortId,
    pub cta_base: PortId,
    pub gtid_base: PortId,
}

/// The per-lane values of a record: one 32-bit port per lane (`name$(s*L+l)`, the layout of
/// docs/microarch/sm.md), or one wide port per SM (`name$s`, lane `l` in bits `32l+31..32l`).
pub(crate) enum LanePorts {
    PerLane(Vec<PortId>),
    Packed(PortId),
}

impl LanePorts {
    /// Read lanes `0..out.len()` into `out`.
    #[inline]
    pub fn read(&self, m: &LoadedModel, out: &mut [u32]) {
        match self {
            LanePorts::PerLane(ps) => {
                for (o, &p) in out.iter_mut().zip(ps) {
                    *o = m.get(p) as u32;
                }
            }
            LanePorts::Packed(p) => m.get_words(*p, out),
        }
    }
}

/// Ports of one SM (memory port, trace port, counters).
pub(crate) struct SmPorts {
    pub mem_req_valid: PortId,
    pub mem_req_ready: PortId,
    pub mem_req_write: PortId,
    pub mem_req_addr: PortId,
    pub mem_req_size: PortId,
    pub mem_req_data: PortId,
    pub mem_resp_valid: PortId,
    pub mem_resp_data: PortId,
    pub tr_issue_valid: PortId,
    pub tr_issue_warp: PortId,
    pub tr_issue_pc: PortId,
    pub tr_issue_instr: PortId,
    pub tr_issue_mask: PortId,
    pub tr_issue_tag: PortId,
    pub tr_wb_valid: PortId,
    pub tr_wb_tag: PortId,
    pub tr_wb_rd: PortId,
    pub tr_wb_mask: PortId,
    pub tr_wb_data: LanePorts,
    pub tr_st_valid: PortId,
    pub tr_st_tag: PortId,
    pub tr_st_size: PortId,
    pub tr_st_mask: PortId,
    pub tr_st_addr: LanePorts,
    pub tr_st_data: LanePorts,
    pub tr_cta_valid: PortId,
    pub tr_cta_id: PortId,
    pub tr_cta_warps: PortId,
    pub tr_ready: PortId,
    pub tr_launch: PortId,
    pub tr_long: PortId,
    pub tr_grant_valid: PortId,
    pub tr_grant_warp: PortId,
    pub ctr_issued: PortId,
    pub ctr_idle: PortId,
    pub ctr_conflicts: PortId,
    pub tr_idle: PortId,
    pub tr_conflicts: PortId,
}

pub(crate) struct TopPorts {
    pub ctl: ControlPorts,
    pub sm: Vec<SmPorts>,
}

/// Collects every problem with the model's ports, so one error lists them all.
struct Resolver<'a> {
    m: &'a LoadedModel,
    problems: Vec<String>,
    /// Returned for ports that are missing (never used: resolution fails).
    dummy: PortId,
}

impl Resolver<'_> {
    fn check(&mut self, name: &str, p: PortId, dir: PortDir, width: u32) -> PortId {
        let info = self.m.port_info(p);
        if info.dir != dir {
            self.problems.push(format!(
                "port `{name}` is {:?}, the spec says {dir:?}",
                info.dir
            ));
        }
        if info.width != width {
            self.problems.push(format!(
                "port `{name}` is {} bits wide, the spec says {width}",
                info.width
            ));
        }
        p
    }

    /// A scalar port `name`.
    fn one(&mut self, name: &str, dir: PortDir, width: u32) -> PortId {
        match self.m.port(name) {
            Ok(p) => self.check(name, p, dir, width),
            Err(_) => {
                self.problems.push(format!("no port `{name}`"));
                self.dummy
            }
        }
    }

    /// Element `i` of `count` of a rust-hdl vector port: `name$i` in Verilog, `name__024i` in
    /// Verilator's C++; a vector of one element may also be a plain `name`.
    fn elem(&mut self, name: &str, i: usize, count: usize, dir: PortDir, width: u32) -> PortId {
        let mut tries = vec![format!("{name}__024{i}"), format!("{name}${i}")];
        if count == 1 {
            tries.push(name.to_string());
        }
        for t in &tries {
            if let Ok(p) = self.m.port(t) {
                return self.check(&format!("{name}${i}"), p, dir, width);
            }
        }
        self.problems.push(format!("no port `{name}${i}`"));
        self.dummy
    }
}

impl Resolver<'_> {
    /// Field `field` of SM `s`'s memory port (`mem$s$field` in Verilog, `mem__024s__024field`
    /// in Verilator's C++); its direction and width come from the interface's declaration.
    fn mem(&mut self, s: usize, field: &str) -> PortId {
        let name = top_mem_port_name(s, field);
        let Some(f) = MEM_PORT_FIELDS.iter().find(|f| f.name == field) else {
            self.problems
                .push(format!("`{field}` is not a field of the memory port"));
            return self.dummy;
        };
        let dir = if f.input {
            PortDir::Input
        } else {
            PortDir::Output
        };
        for t in [name.replace('$', "__024"), name.clone()] {
            if let Ok(p) = self.m.port(&t) {
                return self.check(&name, p, dir, f.width);
            }
        }
        self.problems.push(format!("no port `{name}`"));
        self.dummy
    }

    /// The lane values of SM `s`: per-lane 32-bit ports `name$(s*lanes+l)`, or one packed
    /// port `name$s` of at least `32 * lanes` bits (told apart by the width of the port).
    fn lanes(&mut self, name: &str, s: usize, sms: usize, lanes: usize) -> LanePorts {
        let packed = [format!("{name}__024{s}"), format!("{name}${s}")]
            .into_iter()
            .chain((sms == 1).then(|| name.to_string()))
            .find_map(|t| self.m.port(&t).ok())
            .filter(|&p| self.m.port_info(p).width > 32);
        if let Some(p) = packed {
            let info = self.m.port_info(p);
            if info.dir != PortDir::Output {
                self.problems.push(format!(
                    "port `{name}${s}` is {:?}, the spec says Output",
                    info.dir
                ));
            }
            if info.width < 32 * lanes as u32 || !info.width.is_multiple_of(32) {
                self.problems.push(format!(
                    "port `{name}${s}` is {} bits wide: packed lane values need a multiple of 32 bits, at least 32 x {lanes}",
                    info.width
                ));
            }
            return LanePorts::Packed(p);
        }
        let n = sms * lanes;
        LanePorts::PerLane(
            (0..lanes)
                .map(|l| self.elem(name, s * lanes + l, n, PortDir::Output, 32))
                .collect(),
        )
    }
}

impl TopPorts {
    /// Resolve every port for `sms` SMs of `lanes` lanes; the error lists every missing port
    /// and every direction or width that differs from docs/microarch/sm.md.
    pub fn resolve(m: &LoadedModel, sms: usize, lanes: usize) -> Result<TopPorts, String> {
        use PortDir::{Input as I, Output as O};
        let Some(first) = m.ports().first() else {
            return Err("the model has no ports".into());
        };
        let dummy = m.port(&first.name).map_err(|e| e.to_string())?;
        let mut r = Resolver {
            m,
            problems: Vec::new(),
            dummy,
        };
        let ctl = ControlPorts {
            clock: r.one("clock", I, 1),
            reset: r.one("reset", I, 1),
            imem_we: r.one("imem_we", I, 1),
            imem_addr: r.one("imem_addr", I, 32),
            imem_word: r.one("imem_word", I, 32),
            imem_recon: r.one("imem_recon", I, 32),
            launch_entry: r.one("launch_entry", I, 32),
            launch_nctaid: r.one("launch_nctaid", I, 32),
            launch_ntid: r.one("launch_ntid", I, 32),
            launch_param: r.one("launch_param", I, 32),
            launch_shared: r.one("launch_shared", I, 32),
            start: r.one("start", I, 1),
            busy: r.one("busy", O, 1),
            done: r.one("done", O, 1),
            fault: r.one("fault", O, 1),
            fault_sm: r.one("fault_sm", O, 8),
            fault_warp: r.one("fault_warp", O, 8),
            fault_pc: r.one("fault_pc", O, 32),
            fault_cause: r.one("fault_cause", O, 4),
            fault_lane: r.one("fault_lane", O, 8),
            fault_addr: r.one("fault_addr", O, 32),
            cycle_count: r.one("cycle_count", O, 64),
            ctr_base: r.elem("ctr_base", 0, 1, I, 64),
            cta_base: r.elem("cta_base", 0, 1, I, 32),
            gtid_base: r.elem("gtid_base", 0, 1, I, 32),
        };
        let mut sm = Vec::with_capacity(sms);
        // Set below, from the memory port's declaration.
        let dummy = r.dummy;
        for s in 0..sms {
            let mut e = |name: &str, dir, width| r.elem(name, s, sms, dir, width);
            let p = SmPorts {
                mem_req_valid: dummy,
                mem_req_ready: dummy,
                mem_req_write: dummy,
                mem_req_addr: dummy,
                mem_req_size: dummy,
                mem_req_data: dummy,
                mem_resp_valid: dummy,
                mem_resp_data: dummy,
                tr_issue_valid: e("tr_issue_valid", O, 1),
                tr_issue_warp: e("tr_issue_warp", O, 8),
                tr_issue_pc: e("tr_issue_pc", O, 32),
                tr_issue_instr: e("tr_issue_instr", O, 32),
                tr_issue_mask: e("tr_issue_mask", O, 32),
                tr_issue_tag: e("tr_issue_tag", O, 8),
                tr_wb_valid: e("tr_wb_valid", O, 1),
                tr_wb_tag: e("tr_wb_tag", O, 8),
                tr_wb_rd: e("tr_wb_rd", O, 5),
                tr_wb_mask: e("tr_wb_mask", O, 32),
                tr_wb_data: LanePorts::PerLane(Vec::new()),
                tr_st_valid: e("tr_st_valid", O, 1),
                tr_st_tag: e("tr_st_tag", O, 8),
                tr_st_size: e("tr_st_size", O, 2),
                tr_st_mask: e("tr_st_mask", O, 32),
                tr_st_addr: LanePorts::PerLane(Vec::new()),
                tr_st_data: LanePorts::PerLane(Vec::new()),
                tr_cta_valid: e("tr_cta_valid", O, 1),
                tr_cta_id: e("tr_cta_id", O, 32),
                tr_cta_warps: e("tr_cta_warps", O, 64),
                tr_ready: e("tr_ready", O, 64),
                tr_launch: e("tr_launch", O, 64),
                tr_long: e("tr_long", O, 64),
                tr_grant_valid: e("tr_grant_valid", O, 1),
                tr_grant_warp: e("tr_grant_warp", O, 8),
                ctr_issued: e("ctr_issued", O, 32),
                ctr_idle: e("ctr_idle", O, 32),
                ctr_conflicts: e("ctr_conflicts", O, 32),
                tr_idle: e("tr_idle", O, 1),
                tr_conflicts: e("tr_conflicts", O, 32),
            };
            sm.push(p);
        }
        for (s, p) in sm.iter_mut().enumerate() {
            let mut m = |field: &str| r.mem(s, field);
            p.mem_req_valid = m("req_valid");
            p.mem_req_ready = m("req_ready");
            p.mem_req_write = m("req_write");
            p.mem_req_addr = m("req_addr");
            p.mem_req_size = m("req_size");
            p.mem_req_data = m("req_data");
            p.mem_resp_valid = m("resp_valid");
            p.mem_resp_data = m("resp_data");
            p.tr_wb_data = r.lanes("tr_wb_data", s, sms, lanes);
            p.tr_st_addr = r.lanes("tr_st_addr", s, sms, lanes);
            p.tr_st_data = r.lanes("tr_st_data", s, sms, lanes);
        }
        if r.problems.is_empty() {
            Ok(TopPorts { ctl, sm })
        } else {
            Err(format!(
                "the generated top level does not match the port list of docs/microarch/sm.md:\n  {}",
                r.problems.join("\n  ")
            ))
        }
    }
}
