//! Library half of the `warpforge` command: the host side of a launch on the golden model and
//! the CLI's reports, shared with the end-to-end tests.

pub mod host;
pub mod report;
