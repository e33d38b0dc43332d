//! Tests of the dashboard without a terminal: the App driven with synthetic or
//! served replies, snapshots on ratatui's TestBackend, and random events.

mod support;

mod answers;
mod bulk_budget;
mod bulk_names;
mod changes;
mod config_readme;
mod contexts;
mod deploy_poll_bounds;
mod edges;
mod filters_views;
mod focus;
mod header;
mod insights;
mod inventory;
mod inventory_bulk;
mod keys_readme;
mod list_exports;
mod lists;
mod local_files;
mod member_fills;
mod monitor;
mod monitor_operators;
mod page_walk;
mod palette;
mod policy;
mod project;
mod project_facts;
mod registry;
mod report;
mod review_marks;
mod robustness_keys;
mod robustness_outage;
mod screens;
mod security_traffic;
mod state;
mod status;
mod team;
mod theme;
mod with_server;
mod workspace_picker;
