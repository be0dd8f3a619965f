// Port description read by `verilator::module::ModuleGenerator` in build.rs
// (not compiled as Rust: `module`/`port` are the generator's attributes).
#[module(counter_top)]
pub struct CounterTop {
    #[port(clock)]
    pub clk: bool,
    #[port(reset)]
    pub rst: bool,
    #[port(input)]
    pub en: bool,
    #[port(output)]
    pub count: [bool; 32],
    #[port(input)]
    pub wide_in: [bool; 96],
    #[port(output)]
    pub wide_out: [bool; 96],
    #[port(input)]
    pub a: [bool; 16],
    #[port(input)]
    pub b: [bool; 16],
    #[port(output)]
    pub sum: [bool; 17],
    #[port(input)]
    pub q_in: [bool; 64],
    #[port(output)]
    pub q_out: [bool; 64],
}
