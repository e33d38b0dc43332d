//! vantage: a terminal dashboard, a typed client, script commands and a reference
//! server for the Project and Workspace Management API v1.

pub mod api;
pub mod cli;
pub mod clock;
pub mod config;
pub mod history;
pub mod hostile;
pub mod logging;
pub mod output;
pub mod server;
pub mod text;
pub mod tui;
