//! The real binary's script commands against an in-process reference server:
//! exit codes, errors and exports.

#[path = "../common/mod.rs"]
mod common;
mod support;

mod commands;
mod export;
mod exporter;
mod history;
