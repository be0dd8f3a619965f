//! Golden model (in progress).
