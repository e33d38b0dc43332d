//! The real binary's script commands against an in-process reference server:
//! exit codes, errors and exports.

#[path = "../common/mod.rs"]
mod common;
mod support;

mod commands;
mod contexts;
mod export;
mod exporter;
mod exporter_contexts;
mod history;
mod members;
mod review_marks;
mod scans_traffic;
mod warnings;
mod workspaces;
