//! The real binary's script commands against an in-process reference server:
//! exit codes, errors and exports.
// A test's own notes on stderr are not service text (see src/stderr.rs).
#![allow(clippy::disallowed_macros)]

#[path = "../common/mod.rs"]
mod common;
mod support;

mod commands;
mod contexts;
mod export;
mod exporter;
mod exporter_contexts;
mod history;
mod hostile_stderr;
mod local_files;
mod members;
mod scans_traffic;
mod warnings;
mod workspaces;
