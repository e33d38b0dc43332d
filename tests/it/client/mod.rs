//! Integration tests of the typed client: credentials, every operation against
//! the reference server, resilience under injected faults, and scripted stub
//! servers for answers the reference server never gives.

mod support;

mod credentials;
mod hostile;
mod operations;
mod pacing;
mod resilience;
mod scans_traffic;
mod stubs;
mod workspaces;
