//! Tests of the dashboard without a terminal: the App driven with synthetic or
//! served replies, snapshots on ratatui's TestBackend, and random events.

mod support;

mod analytics;
mod answers;
mod bulk_budget;
mod bulk_names;
mod changes;
mod config_readme;
mod contexts;
mod deploy_poll_bounds;
mod filters_views;
mod focus;
mod header;
mod hostile_text;
mod insights;
mod inventory;
mod inventory_bulk;
mod inventory_query;
mod keys_readme;
mod list_exports;
mod local_files;
mod member_fills;
mod members;
mod monitor;
mod monitor_operators;
mod page_walk;
mod palette;
mod personal_data;
mod policy;
mod project;
mod project_facts;
mod registry;
mod report;
mod review_marks;
mod reviewer_filter;
mod robustness_keys;
mod robustness_outage;
mod security_traffic;
mod served_demo;
mod shared_history;
mod state;
mod status;
mod theme;
mod workspace_picker;
