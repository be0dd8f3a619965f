//! End-to-end tests of warpforge live in this package's `tests` directory beside this file:
//! `kernels.rs` runs every shipped kernel's reference cases on every preset.
