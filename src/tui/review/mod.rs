//! The dashboard's door to the local review history (DESIGN.md, "Review
//! history"): what screens ask of it (`request.rs`) and the executor that
//! answers from the history file, beside the API (`executor.rs`).

pub mod executor;
pub mod ops;
pub mod request;
pub mod shown;
pub mod start;
