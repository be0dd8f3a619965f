//! Kernels (in progress).
