//! The global-memory port: one request channel (valid/ready) and one response channel (valid
//! only; the GPU always takes a response). Declared once here and used by the load/store unit,
//! the SM and the top level; the testbench builds its port map from [`MEM_PORT_FIELDS`]. The
//! protocol is in docs/microarch/sm.md ("Memory port") and testbench/src/memory_model.rs.

use rust_hdl::prelude::*;

/// The memory port of one SM, seen from the GPU (requests out, responses in).
#[derive(LogicInterface, Default)]
pub struct MemPort {
    /// A request is offered.
    pub req_valid: Signal<Out, Bit>,
    /// The memory takes the request offered in this cycle.
    pub req_ready: Signal<In, Bit>,
    /// Store (1) or load (0).
    pub req_write: Signal<Out, Bit>,
    /// Byte address.
    pub req_addr: Signal<Out, Bits<32>>,
    /// 0 byte, 1 half-word, 2 word.
    pub req_size: Signal<Out, Bits<2>>,
    /// Store data in the low bits.
    pub req_data: Signal<Out, Bits<32>>,
    /// A load's data is returned in this cycle (loads answer in request order).
    pub resp_valid: Signal<In, Bit>,
    /// The loaded bytes in the low bits.
    pub resp_data: Signal<In, Bits<32>>,
}

/// Name of the port bundle in every module that has one.
pub const MEM_PORT: &str = "mem";

/// One field of [`MemPort`]: its name, whether it is an input of the GPU, and its width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemPortField {
    pub name: &'static str,
    pub input: bool,
    pub width: u32,
}

const fn field(name: &'static str, input: bool, width: u32) -> MemPortField {
    MemPortField { name, input, width }
}

/// The fields of [`MemPort`] in declaration order (a test checks them against the struct).
pub const MEM_PORT_FIELDS: [MemPortField; 8] = [
    field("req_valid", false, 1),
    field("req_ready", true, 1),
    field("req_write", false, 1),
    field("req_addr", false, 32),
    field("req_size", false, 2),
    field("req_data", false, 32),
    field("resp_valid", true, 1),
    field("resp_data", true, 32),
];

/// The Verilog name of field `field` of the memory port of a module with one port
/// (`mem$req_valid`).
pub fn mem_port_name(field: &str) -> String {
    format!("{MEM_PORT}${field}")
}

/// The Verilog name of field `field` of SM `sm`'s memory port on the top level
/// (`mem$0$req_valid`).
pub fn top_mem_port_name(sm: usize, field: &str) -> String {
    format!("{MEM_PORT}${sm}${field}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// rust-hdl's Verilog of a module with a `MemPort` declares exactly [`MEM_PORT_FIELDS`].
    #[test]
    fn field_table_matches_the_interface() {
        #[derive(LogicBlock, Default)]
        struct Loop {
            mem: MemPort,
        }
        impl Logic for Loop {
            #[hdl_gen]
            fn update(&mut self) {
                self.mem.req_valid.next = self.mem.resp_valid.val();
                self.mem.req_write.next = self.mem.req_ready.val();
                self.mem.req_addr.next = self.mem.resp_data.val();
                self.mem.req_size.next = self.mem.resp_data.val().get_bits::<2>(0);
                self.mem.req_data.next = self.mem.resp_data.val();
            }
        }
        let mut uut = Loop::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        for f in MEM_PORT_FIELDS {
            let dir = if f.input { "input wire" } else { "output reg" };
            let range = if f.width == 1 {
                String::new()
            } else {
                format!("[{}:0] ", f.width - 1)
            };
            let decl = format!("{dir}  {range}{};", mem_port_name(f.name));
            assert!(v.contains(&decl), "no `{decl}` in\n{v}");
        }
        assert_eq!(
            v.matches("input wire").count() + v.matches("output reg").count(),
            8,
            "{v}"
        );
    }
}
