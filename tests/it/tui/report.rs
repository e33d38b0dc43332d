//! Issue 37: `:report` in the palette writes the workspace's report with
//! the inventory's current filters as its scope, and says where it went; the
//! operation writes it on the demo, the history read beside the service.

use std::path::PathBuf;

use vantage::api::{ApiKey, Client, ClientConfig};
use vantage::history::{HistoryConfig, HistoryLocation};
use vantage::report::Written;
use vantage::tui::app::REPORT;
use vantage::tui::ops::WriteReport;
use vantage::tui::services::ClientServices;
use vantage::tui::services::{HistoryAccess, WithHistory};

use crate::common::{self, ENTERPRISE_ADMIN, ENTERPRISE_WS};
use crate::tui::bulk_names::{app, draw, inventory, type_text};
use crate::tui::support::{only, run_on};

#[test]
fn report_in_the_palette_scopes_it_to_the_inventorys_filters_and_says_where_it_went() {
    let mut app = app();
    inventory(&mut app, 4);
    type_text(&mut app, ":filter --has-pii true --is-published true\r");
    let effects = type_text(&mut app, ":report\r");
    let fetch = only(&effects, REPORT);
    let WriteReport { request } = fetch.op::<WriteReport>();
    assert_eq!(request.workspace_id, "ws_test");
    assert_eq!(request.live.params, app.inventory.params());
    assert_eq!(request.live.params.has_pii, Some(true));
    assert_eq!(request.live.params.is_published, Some(true));
    let scope = request.live.scope.as_deref().unwrap_or_default();
    assert!(scope.contains("--has-pii true"), "{scope}");
    let name = request.path.file_name().unwrap().to_str().unwrap();
    assert_eq!(name, "vantage-report-ws_test-2026-11-22.html");
    let written = PathBuf::from("/home/reviewer/exports/vantage-report-ws_test-2026-11-22.html");
    app.handle(
        fetch.ok(Written {
            path: written.clone(),
            bytes: 1000,
            projects: 3,
            missing: vec![],
            beyond_fetch: std::time::Duration::ZERO,
        }),
        crate::tui::bulk_names::NOW,
    );
    let screen = draw(&app, 160, 30);
    assert!(
        screen.contains(&format!(
            "report of 3 projects written to {}",
            written.display()
        )),
        "{screen}"
    );
}

#[tokio::test]
async fn the_report_operation_writes_the_file_with_the_history_beside_the_service() {
    let (server, clock) = common::server_with(|config| {
        config.rate_limit = vantage::server::ratelimit::RateLimit {
            limit: 100_000,
            window: time::Duration::seconds(60),
        };
    })
    .await;
    let client = Client::new(ClientConfig::new(
        server.base_url(),
        ApiKey::new(ENTERPRISE_ADMIN).unwrap(),
    ))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let executor = WithHistory::new(
        ClientServices {
            client,
            workspace_id: ENTERPRISE_WS.into(),
            clock,
        },
        HistoryAccess {
            location: HistoryLocation::File(dir.path().join("history.sqlite3")),
            config: HistoryConfig {
                reviewer: Some("alice".into()),
                ..HistoryConfig::default()
            },
            progress: None,
        },
    );
    let mut app = app();
    inventory(&mut app, 1);
    let effects = type_text(&mut app, ":report\r");
    let WriteReport { mut request } = only(&effects, REPORT).op::<WriteReport>().clone();
    request.workspace_id = ENTERPRISE_WS.into();
    request.path = dir.path().join("report.html");
    let written = run_on(&executor, WriteReport { request }).await.unwrap();
    assert_eq!(written.path, dir.path().join("report.html"));
    let page = std::fs::read_to_string(&written.path).unwrap();
    assert!(page.contains("Acme Corp"), "the workspace's name");
    assert!(page.contains("<dt>By</dt><dd>alice</dd>"), "the reviewer");
    assert!(
        page.contains(&server.base_url()),
        "the service as the source"
    );
    assert!(
        written.missing.iter().any(|m| m.contains("no snapshot")),
        "{:?}",
        written.missing
    );
}
