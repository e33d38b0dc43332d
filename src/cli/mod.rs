//! The script commands: exports, reads and mutations, for scripts and CI.

pub mod args;
pub mod commands;
pub mod context;
pub mod docs;
pub mod exit;
pub mod history;
pub mod members;
pub mod options;
pub mod print;
pub mod progress;
pub mod read;
pub mod report;
pub mod scans;
mod stdout;
pub mod traffic;
pub mod views;
pub mod workspaces;

pub use args::ScriptCommand;
pub use commands::run;
