//! Shared helpers of the integration tests: an in-process reference server on
//! 127.0.0.1:0 and the demo fixture's keys.
#![allow(dead_code)]

pub mod hostile_service;
pub mod items;
pub mod postgres;

use time::OffsetDateTime;
use time::macros::datetime;
use vantage::clock::Clock;
use vantage::server::store::Fixture;
use vantage::server::{RunningServer, ServerConfig, seed, start};

/// The instant every test's manual clock starts at.
pub const T0: OffsetDateTime = datetime!(2026-11-22 12:00:00 UTC);

pub const ENTERPRISE_ADMIN: &str = "vtg_demo_enterprise_admin";
pub const ENTERPRISE_READONLY: &str = "vtg_demo_enterprise_readonly";
pub const PROJECTS_READ: &str = "vtg_demo_projects_read";
pub const WORKSPACES_READ: &str = "vtg_demo_workspaces_read";
pub const BUSINESS_ADMIN: &str = "vtg_demo_business_admin";
pub const PRO_ADMIN: &str = "vtg_demo_pro_admin";

pub const ENTERPRISE_WS: &str = "ws_acme";
pub const BUSINESS_WS: &str = "ws_globex";
pub const PRO_WS: &str = "ws_initech";

/// The demo fixture anchored at the start of T0's day.
pub fn demo() -> Fixture {
    seed::demo_fixture(seed::today_anchor(T0)).expect("demo fixture")
}

/// A server on the demo fixture with a manual clock at T0.
pub async fn demo_server() -> (RunningServer, Clock) {
    server_with(|_| {}).await
}

/// A server on the demo fixture, with the config adjusted by `adjust`.
pub async fn server_with(adjust: impl FnOnce(&mut ServerConfig)) -> (RunningServer, Clock) {
    let clock = Clock::manual(T0);
    let mut config = ServerConfig::local(demo());
    config.clock = clock.clone();
    adjust(&mut config);
    let clock = config.clock.clone();
    (start(config).await.expect("server starts"), clock)
}

/// A project id of a workspace in the demo fixture.
pub fn first_project(fixture: &Fixture, workspace_id: &str) -> String {
    fixture
        .projects
        .iter()
        .find(|p| p.wire.workspace_id == workspace_id)
        .map(|p| p.wire.id.clone())
        .expect("workspace has a project")
}

pub fn http() -> reqwest::Client {
    reqwest::Client::builder().build().expect("http client")
}

/// A file's permission bits.
#[cfg(unix)]
pub fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// A file of the user's that a planted link points at (`~/.bashrc`), 0644.
#[cfg(unix)]
pub fn precious(dir: &std::path::Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("precious.txt");
    std::fs::write(&path, "export PATH=/usr/bin\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    path
}

/// The target of a planted link keeps its mode and its bytes.
#[cfg(unix)]
pub fn untouched(path: &std::path::Path) {
    assert_eq!(
        std::fs::read_to_string(path).unwrap(),
        "export PATH=/usr/bin\n"
    );
    assert_eq!(mode(path), 0o644, "{} changed mode", path.display());
}
