//! The real binary's script commands against an in-process reference server:
//! exit codes, errors and exports.
// A test's own notes on stderr are not service text (see src/stderr.rs).
#![allow(clippy::disallowed_macros)]

mod support;

mod commands;
mod contexts;
mod credentials;
mod doctor;
mod export;
mod exporter;
mod exporter_connections;
mod exporter_contexts;
mod exporter_conventions;
mod exporter_escapes;
mod exporter_health;
mod exporter_outage;
mod exporter_policy;
mod exporter_polling;
mod exporter_rules;
mod exporter_web;
mod history;
mod history_migration;
mod history_project_state;
mod history_ranges;
mod history_wal;
mod hostile_stderr;
mod install;
mod jobs;
mod list_exports;
mod local_files;
mod members;
mod page_walks;
mod pg_wire;
mod policy_check;
mod proxy;
mod publish;
mod report;
mod report_browser;
mod report_feeds;
mod review_audit;
mod review_marks;
mod scans_traffic;
mod shared_history;
mod shared_history_damage;
mod shared_history_thread;
mod shared_history_waits;
mod stdout_files;
mod stores;
mod version;
mod waiver_log;
mod warnings;
mod workspaces;
