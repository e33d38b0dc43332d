//! The dashboard's files under a local attacker (issue 22, items 10 and 13):
//! exports, the watch list and the palette's history are written 0600, in
//! directories made 0700, and never through a planted link.

use std::path::Path;
use std::sync::Arc;

use vantage::tui::effect::{ErrorInfo, ExportFormat};
use vantage::tui::ops::{ExportInventory, Exported};
use vantage::tui::request::Operation;

use crate::common::{ENTERPRISE_ADMIN, ENTERPRISE_WS, mode, precious, untouched};

async fn export_to(path: &Path) -> Result<Exported, ErrorInfo> {
    use vantage::api::{ApiKey, Client, ClientConfig};
    use vantage::tui::services::ClientServices;
    use vantage::tui::services::ServiceSource;
    let (server, clock) = crate::common::demo_server().await;
    let client = Client::new(ClientConfig::new(
        server.base_url(),
        ApiKey::new(ENTERPRISE_ADMIN).unwrap(),
    ))
    .unwrap();
    let executor = ClientServices {
        client,
        workspace_id: ENTERPRISE_WS.into(),
        clock,
    };
    let export = ExportInventory {
        params: Default::default(),
        format: ExportFormat::Csv,
        path: path.to_path_buf(),
        loaded: Arc::new(Vec::new()),
        next_cursor: None,
    };
    export.run(&executor.services()).await
}

#[tokio::test]
async fn an_export_is_0600_in_a_0700_dir_and_never_written_through_a_link() {
    let home = tempfile::tempdir().unwrap();
    let exports = home.path().join("exports");
    let path = exports.join("inventory.csv");
    let reply = export_to(&path).await;
    assert!(matches!(reply, Ok(Exported { .. })), "{reply:?}");
    assert_eq!(mode(&exports), 0o700);
    assert_eq!(mode(&path), 0o600);

    let target = precious(home.path());
    let planted = exports.join("planted.csv");
    std::os::unix::fs::symlink(&target, &planted).unwrap();
    let reply = export_to(&planted).await;
    assert!(matches!(reply, Ok(Exported { .. })), "{reply:?}");
    untouched(&target);
    assert!(std::fs::symlink_metadata(&planted).unwrap().is_file());
    assert_eq!(mode(&planted), 0o600);
}

#[test]
fn the_watch_list_is_0600_and_never_written_through_a_planted_temporary_file() {
    use vantage::tui::watchlist::{WatchEntry, load, save};
    let home = tempfile::tempdir().unwrap();
    let target = precious(home.path());
    let path = home.path().join("watchlist.json");
    // Yesterday's temporary name was this process's id: a guessable place.
    let guessed = home
        .path()
        .join(format!(".watchlist.json.{}.tmp", std::process::id()));
    std::os::unix::fs::symlink(&target, &guessed).unwrap();
    let entries = vec![WatchEntry {
        id: "prj_1".into(),
        name: None,
    }];
    save(&path, &entries).unwrap();
    untouched(&target);
    assert_eq!(mode(&path), 0o600);
    assert_eq!(load(&path).unwrap(), entries);
}

#[test]
fn the_palette_history_is_0600_and_never_written_through_a_planted_temporary_file() {
    let home = tempfile::tempdir().unwrap();
    let target = precious(home.path());
    let path = home.path().join("palette_history");
    std::os::unix::fs::symlink(&target, path.with_extension("tmp")).unwrap();
    vantage::tui::ops::save_palette_history(&path, &["refresh".to_owned()]).unwrap();
    untouched(&target);
    assert_eq!(mode(&path), 0o600);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "refresh\n");
}

/// Runs `read` on a thread of its own: a read that blocks (a FIFO with no
/// writer) fails the test instead of hanging it.
fn at_once<T: Send + 'static>(read: impl FnOnce() -> T + Send + 'static) -> T {
    let (sender, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(read());
    });
    received
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the read blocked: a FIFO must be refused at once")
}

/// Issue 33, item 10: the palette's history is read as vantage writes it: a
/// FIFO at its place never blocks the dashboard before its first frame, a
/// link is not followed, and the read is bounded.
#[test]
fn the_palette_history_refuses_a_fifo_a_link_and_a_huge_file_at_once() {
    use vantage::tui::palette::History;

    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("palette_history");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    assert!(at_once(move || History::load(fifo)).entries().is_empty());

    let elsewhere = dir.path().join("elsewhere");
    std::fs::write(&elsewhere, "members\n").unwrap();
    let link = dir.path().join("linked_history");
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    assert!(
        History::load(link).entries().is_empty(),
        "read through a link"
    );

    let huge = dir.path().join("huge_history");
    std::fs::write(&huge, "members\n".repeat(1 << 20)).unwrap();
    assert!(
        History::load(huge).entries().is_empty(),
        "read past the cap"
    );
}

/// Issue 33, item 10: the watch list, likewise: a FIFO is refused at once,
/// and so are a link and a file far larger than any watch list.
#[test]
fn the_watch_list_refuses_a_fifo_a_link_and_a_huge_file_at_once() {
    use vantage::tui::watchlist;

    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("watchlist.json");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let error = at_once(move || watchlist::load(&fifo)).unwrap_err();
    assert!(
        error.to_string().contains("not a regular file (a FIFO)"),
        "{error}"
    );

    let elsewhere = dir.path().join("elsewhere.json");
    std::fs::write(&elsewhere, r#"{"version":1,"projects":[{"id":"prj_1"}]}"#).unwrap();
    let link = dir.path().join("linked.json");
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    let error = watchlist::load(&link).unwrap_err();
    assert!(error.to_string().contains("symbolic link"), "{error}");

    let huge = dir.path().join("huge.json");
    let padding = " ".repeat(1 << 20);
    std::fs::write(&huge, format!("{padding}{{\"version\":1,\"projects\":[]}}")).unwrap();
    let error = watchlist::load(&huge).unwrap_err();
    assert!(error.to_string().contains("larger than"), "{error}");
}
