//! The script commands: exports, reads and mutations, for scripts and CI.

pub mod args;
pub mod commands;
pub mod docs;
pub mod exit;
pub mod print;
pub mod progress;
pub mod views;

pub use args::ScriptCommand;
pub use commands::run;
// The session moved out so the dashboard need not import the commands; these
// names keep `super::Session` in the commands' files working.
pub use crate::session::{GlobalArgs, Session, SessionError};
