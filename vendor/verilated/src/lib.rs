pub mod api;
pub mod runtime;
pub mod vcd;

pub use api::*;
