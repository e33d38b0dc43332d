//! The dashboard's side of the review history (DESIGN.md, "Review history"):
//! its operations (`ops.rs`, answered by the history door in
//! `services/history.rs`), how a mark is shown (`shown.rs`), and what a
//! context's first frame reads of it (`start.rs`).

pub mod ops;
pub(crate) mod shown;
pub(crate) mod start;
