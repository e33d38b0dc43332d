//! vantage: a terminal dashboard, a typed client, script commands and a reference
//! server for the Project and Workspace Management API v1.

pub mod accept;
pub mod api;
pub mod build_info;
pub mod cli;
pub mod clock;
pub mod config;
pub mod demo;
pub mod doctor;
pub mod exporter;
pub mod flags;
pub mod formats;
pub mod hash;
pub mod history;
pub mod hostile;
pub mod logging;
pub mod paths;
pub mod report;
pub mod rng;
pub mod safe_file;
pub mod server;
pub mod session;
pub mod stderr;
pub mod text;
pub mod timefmt;
pub mod tui;
