// warpforge patch: `api` and `vcd` link against the static runtime the build script compiles,
// which only the `static-runtime` feature (default) builds.
#[cfg(feature = "static-runtime")]
pub mod api;
pub mod runtime;
#[cfg(feature = "static-runtime")]
pub mod vcd;

#[cfg(feature = "static-runtime")]
pub use api::*;
