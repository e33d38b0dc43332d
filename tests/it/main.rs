//! Every integration test of vantage, in one binary: one link and one build of
//! the shared helpers (`common`), and one PostgreSQL for the whole run
//! (`common::postgres`). Each suite is a module named after what it drives, so
//! a test reads `cli::jobs::…` and `cargo test --test it cli::` runs one suite.

#![forbid(unsafe_code)]

mod common;

/// The real binary's script commands against an in-process reference server.
mod cli;
/// The typed client against the server and against scripted stubs.
mod client;
/// The real binary in a pseudo-terminal, read through vt100.
mod e2e;
/// HTTP against the reference server, from the contract.
mod server;
/// The dashboard's App on ratatui's `TestBackend`.
mod tui;
