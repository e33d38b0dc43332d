//! Policies as code: Rego modules evaluated in-process (`regorus`) over one
//! documented input document, with the built-in pack, a test runner for
//! `test_` rules, and waivers applied to what they find.
//!
//! `input.rs` the document and its JSON Schema; `gather.rs` builds it from
//! live reads or a snapshot; `engine.rs` compiles policies and evaluates
//! them, the document handed to the engine as its own values
//! (`rego_value.rs`, no JSON text between); `clock_ext.rs` the time
//! built-ins on the evaluation's clock; `pack.rs` the built-in pack;
//! `files.rs` reads policy files and folders; `rego_test.rs` runs `test_`
//! rules; `outcome.rs` applies waivers; `evaluation.rs` one evaluation
//! whole, what the commands and the dashboard share.
//!
//! Imports `api` (the wire types it converts) and `history` (snapshots,
//! marks, waivers); the commands and the dashboard import it.

pub mod clock_ext;
pub mod engine;
pub mod evaluation;
pub mod files;
pub mod gather;
pub mod input;
pub mod outcome;
pub mod pack;
pub mod regex_ext;
pub mod rego_test;
pub mod rego_value;

pub use engine::{Policy, PolicyMeta, PolicySet, PolicySource, Rule, Severity, Verdict};
pub use evaluation::{Counts, Evaluation, evaluate};
pub use input::PolicyInput;
pub use outcome::{Finding, FindingStatus, apply_waivers};

/// What can go wrong with policies.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// A policy that does not compile, or lacks what a policy needs.
    #[error("{origin}:{line}: {reason}")]
    Invalid {
        origin: String,
        line: usize,
        reason: String,
    },
    /// A policy that yielded a violation (or an `unknown` entry) of the
    /// wrong shape; `line` is its rule's.
    #[error("{origin}:{line}: malformed {entry}: {reason}")]
    Malformed {
        origin: String,
        line: usize,
        /// `violation` or `` `unknown` entry ``.
        entry: &'static str,
        reason: String,
    },
    #[error("--policy {path}: no .rego file there")]
    NoPolicyFile { path: String },
    #[error("no policy has the id {id:?} (known: {known})")]
    UnknownPolicy { id: String, known: String },
    #[error("cannot read policy {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("the policy input: {reason}")]
    Input { reason: String },
    #[error("the Rego engine: {0}")]
    Engine(String),
}

#[cfg(test)]
mod pack_tests;
