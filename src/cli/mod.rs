//! The script commands: exports, reads and mutations, for scripts and CI.

pub mod args;
pub mod commands;
pub mod docs;
pub mod exit;
pub mod history;
pub mod print;
pub mod progress;
pub mod views;

pub use args::ScriptCommand;
pub use commands::run;
