//! The script commands: exports, reads and mutations, for scripts and CI.

pub(crate) mod analytics;
pub(crate) mod args;
pub(crate) mod check;
pub(crate) mod commands;
pub(crate) mod context;
pub mod docs;
pub(crate) mod exit;
pub(crate) mod history;
pub(crate) mod members;
pub(crate) mod options;
pub(crate) mod print;
pub(crate) mod progress;
pub(crate) mod read;
pub(crate) mod report;
pub(crate) mod scans;
mod stdout;
pub(crate) mod traffic;
pub(crate) mod views;
pub(crate) mod workspaces;

pub use args::ScriptCommand;
pub use commands::run;
