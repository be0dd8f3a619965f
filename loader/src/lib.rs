//! Kernel loader (in progress).
