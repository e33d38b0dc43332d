//! Tests of the dashboard without a terminal: the App driven with synthetic or
//! served replies, snapshots on ratatui's TestBackend, and random events.

#[path = "../common/mod.rs"]
mod common;
mod support;

mod project;
mod robustness_keys;
mod robustness_outage;
mod screens;
mod state;
mod triage;
mod with_server;
