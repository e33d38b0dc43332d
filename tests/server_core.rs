//! Integration tests of the reference server's core, written from the contract
//! (`api-v1.md`): errors and versioning, the envelope and its headers, scopes and
//! plans, unknown query parameters, project and publish operations, name rules,
//! rate limiting and durability. Every test talks HTTP to a server on 127.0.0.1:0.

mod common;

#[path = "server_core/support.rs"]
mod support;

#[path = "server_core/errors.rs"]
mod errors;

#[path = "server_core/headers.rs"]
mod headers;

#[path = "server_core/access.rs"]
mod access;

#[path = "server_core/projects.rs"]
mod projects;

#[path = "server_core/names.rs"]
mod names;

#[path = "server_core/durability.rs"]
mod durability;
