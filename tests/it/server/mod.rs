//! Integration tests of the reference server, written from the contract
//! (`api-v1.md`). Every test talks HTTP to a server on 127.0.0.1:0; the
//! conformance cases that need the command line run the built binary.
// A test's own notes on stderr are not service text (see src/stderr.rs).
#![allow(clippy::disallowed_macros)]

mod support;

// The core: errors and versioning, the envelope and its headers, scopes and
// plans, unknown query parameters, project and publish operations, name rules,
// rate limiting and durability.
mod access;
mod durability;
mod errors;
mod headers;
mod names;
mod projects;

// One file per group of operations, and the conformance review's regressions.
mod analytics_pii;
mod conformance;
mod inventory_writes;
mod members;
mod scans_traffic;
mod security_center;
mod serve_log;
mod workspaces;
