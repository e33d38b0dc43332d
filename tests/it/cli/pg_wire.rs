//! Issue 33, item 2: the database password travels only where it should. A
//! man in the middle is a small fake server speaking just enough of the
//! PostgreSQL wire protocol: it answers the SSLRequest with `N` (no TLS), then
//! asks for the password in clear text, or as MD5. It never receives it, unless
//! the URL allows that method by name (`require_auth`, as libpq names it).
//! Unreadable URLs are named `host:port/db`, never with their password.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::Duration;

use vantage::history::{HistoryLocation, PgTarget, Store};

use crate::cli::stores::off_runtime;
use crate::cli::support::Cli;
use crate::common::*;

const PASSWORD: &str = "s3cret-pw";

/// What the fake server asks for once the startup message is in.
#[derive(Clone, Copy, Debug)]
enum Asks {
    Cleartext,
    Md5,
}

/// A fake server for one connection: every byte it received, and those
/// after it asked for the password, once the client went away.
struct FakeServer {
    port: u16,
    received: std::thread::JoinHandle<(Vec<u8>, Vec<u8>)>,
}

fn fake_server(asks: Asks) -> FakeServer {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let received = std::thread::spawn(move || {
        let (mut socket, _) = listener.accept().unwrap();
        // A guard against a client that hangs, not a timing: the test ends
        // when the client closes.
        socket
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let mut got = Vec::new();
        let mut first = [0u8; 8];
        if socket.read_exact(&mut first).is_err() {
            return (got, Vec::new());
        }
        got.extend_from_slice(&first);
        let ssl_request = first == [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f];
        let startup_len = if ssl_request {
            socket.write_all(b"N").unwrap();
            let mut header = [0u8; 4];
            if socket.read_exact(&mut header).is_err() {
                return (got, Vec::new());
            }
            got.extend_from_slice(&header);
            u32::from_be_bytes(header) as usize - 4
        } else {
            u32::from_be_bytes([first[0], first[1], first[2], first[3]]) as usize - 8
        };
        let mut startup = vec![0u8; startup_len];
        if socket.read_exact(&mut startup).is_err() {
            return (got, Vec::new());
        }
        got.extend_from_slice(&startup);
        let request: Vec<u8> = match asks {
            Asks::Cleartext => vec![b'R', 0, 0, 0, 8, 0, 0, 0, 3],
            Asks::Md5 => vec![b'R', 0, 0, 0, 12, 0, 0, 0, 5, 1, 2, 3, 4],
        };
        socket.write_all(&request).unwrap();
        // Whatever comes now answers the request; one read holds a password
        // message whole (a few bytes), then the harm is done: hang up.
        let mut after = vec![0u8; 4096];
        let n = socket.read(&mut after).unwrap_or(0);
        after.truncate(n);
        got.extend_from_slice(&after);
        (got, after)
    });
    FakeServer { port, received }
}

/// What the fake server saw of one connection.
struct Seen {
    /// What vantage said when it gave up.
    said: String,
    /// Every byte the server received.
    received: Vec<u8>,
    /// The bytes after the server asked for the password.
    answer: Vec<u8>,
}

impl Seen {
    /// A password message (`p`) answered the request.
    fn sent_a_password(&self) -> bool {
        self.answer.first() == Some(&b'p')
    }
}

/// Connects to `url` (a store opened through the library).
fn connect_to(server: FakeServer, url: &str) -> Seen {
    let target = PgTarget::parse(url, None).unwrap();
    let location = HistoryLocation::Database(target);
    let error = off_runtime(|| Store::open_at(&location).err())
        .expect("the fake server never lets vantage in");
    let (received, answer) = server.received.join().unwrap();
    Seen {
        said: error.to_string(),
        received,
        answer,
    }
}

fn holds(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// The default `sslmode` (`prefer` on loopback), and `disable`: a server
/// that refuses TLS and asks for the password in clear text or as MD5 gets
/// neither; the error says what the server asked for and how to allow it.
#[test]
fn a_server_asking_for_a_cleartext_or_md5_password_never_gets_it() {
    for asks in [Asks::Cleartext, Asks::Md5] {
        for query in ["", "?sslmode=disable", "?sslmode=prefer"] {
            let server = fake_server(asks);
            let url = format!(
                "postgres://ada:{PASSWORD}@127.0.0.1:{}/team{query}",
                server.port
            );
            let seen = connect_to(server, &url);
            assert!(
                !holds(&seen.received, PASSWORD.as_bytes()),
                "{asks:?} {query:?}: the server received the password: {:?}",
                String::from_utf8_lossy(&seen.received)
            );
            assert!(
                !seen.sent_a_password(),
                "{asks:?} {query:?}: a password message was sent: {:?}",
                String::from_utf8_lossy(&seen.answer)
            );
            let said = &seen.said;
            assert!(said.contains("require_auth"), "{asks:?} {query:?}: {said}");
            assert!(!said.contains(PASSWORD), "{said}");
        }
    }
}

/// Allowed by name, the method is used: the same fake server receives the
/// password (so the test above can see one when it is sent).
#[test]
fn require_auth_allows_a_weaker_method_by_name() {
    let server = fake_server(Asks::Cleartext);
    let url = format!(
        "postgres://ada:{PASSWORD}@127.0.0.1:{}/team?sslmode=disable&require_auth=scram-sha-256,password",
        server.port
    );
    let seen = connect_to(server, &url);
    assert!(seen.sent_a_password());
    assert!(holds(&seen.answer, PASSWORD.as_bytes()));
    let server = fake_server(Asks::Md5);
    let url = format!(
        "postgres://ada:{PASSWORD}@127.0.0.1:{}/team?sslmode=disable&require_auth=md5",
        server.port
    );
    let seen = connect_to(server, &url);
    assert!(seen.sent_a_password(), "the MD5 answer was sent");
    // A list libpq would refuse is refused before connecting.
    let bad = PgTarget::parse(
        "postgres://ada@127.0.0.1/x?require_auth=password,!md5",
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(bad.contains("require_auth"), "{bad}");
}

/// A host that is not loopback is `verify-full` unless the URL says
/// otherwise; a weaker mode that the URL sets is kept.
#[test]
fn a_remote_host_defaults_to_verify_full() {
    let remote = PgTarget::parse("postgres://ada@db.example/x", None).unwrap();
    assert_eq!(remote.tls, vantage::history::postgres::TlsMode::VerifyFull);
    let local = PgTarget::parse("postgres://ada@127.0.0.1/x", None).unwrap();
    assert_eq!(local.tls, vantage::history::postgres::TlsMode::Prefer);
    let chosen = PgTarget::parse("postgres://ada@db.example/x?sslmode=require", None).unwrap();
    assert_eq!(chosen.tls, vantage::history::postgres::TlsMode::Require);
}

/// The three malformed URLs of the issue, and `postgres:/` with one slash:
/// the command fails, and neither stderr nor any file under the home (the
/// log) holds the password.
#[tokio::test(flavor = "multi_thread")]
async fn a_malformed_url_never_shows_its_password() {
    let cli = Cli::new("http://127.0.0.1:9", ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let urls = [
        (
            "postgres://review:pa/ss@db.example:5432/team?connect_timeout=abc",
            "pa/ss",
        ),
        (
            "postgres://review@db.example:5432/team?password=Xsecret&connect_timeout=abc",
            "Xsecret",
        ),
        (
            "postgres://review:pa?SecretTail@db.example:5432/team?connect_timeout=abc",
            "SecretTail",
        ),
        (
            "postgres://review@db.example:5432/team?password=pa&AmpTail&sslmode=require",
            "AmpTail",
        ),
        ("postgres:/review:pwsecret@db.example/team", "pwsecret"),
    ];
    for (url, password) in urls {
        let run = cli.run(&["reviewed", "list", "--history", url]).await;
        assert_ne!(run.code, 0, "{url}: {}", run.stderr);
        assert!(
            !run.stderr.contains(password),
            "{url}: stderr holds the password: {}",
            run.stderr
        );
        for entry in crate::cli::shared_history::walk(cli.home.path()) {
            let text = std::fs::read(&entry).unwrap_or_default();
            assert!(
                !String::from_utf8_lossy(&text).contains(password),
                "{url}: {} holds the password",
                entry.display()
            );
        }
    }
    // One slash missing is an error, never a file named after the password.
    let one_slash = cli
        .run(&[
            "reviewed",
            "list",
            "--history",
            "postgres:/review:pwsecret@db.example/team",
        ])
        .await;
    assert!(
        one_slash.stderr.contains("postgres://"),
        "{}",
        one_slash.stderr
    );
    // The readable part is named as host:port/db.
    let named = cli
        .run(&[
            "reviewed",
            "list",
            "--history",
            "postgres://review:pa/ss@db.example:5432/team?connect_timeout=abc",
        ])
        .await;
    assert!(
        named.stderr.contains("db.example:5432/team"),
        "{}",
        named.stderr
    );
}

/// A password in `--history` on the command line is visible to every local
/// user: a warning says so and points to the other sources.
#[tokio::test(flavor = "multi_thread")]
async fn a_password_on_the_command_line_is_warned_about() {
    let cli = Cli::new("http://127.0.0.1:9", ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://ada:{PASSWORD}@127.0.0.1:{port}/team?sslmode=disable");
    let run = cli
        .run(&["reviewed", "list", "--history", url.as_str()])
        .await;
    assert!(run.stderr.contains("PGPASSWORD"), "{}", run.stderr);
    assert!(!run.stderr.contains(PASSWORD), "{}", run.stderr);
    let copy = cli.run(&["history", "copy", "--to", url.as_str()]).await;
    assert!(copy.stderr.contains("PGPASSWORD"), "{}", copy.stderr);
    let without = format!("postgres://ada@127.0.0.1:{port}/team?sslmode=disable");
    let quiet = cli
        .run(&["reviewed", "list", "--history", without.as_str()])
        .await;
    assert!(!quiet.stderr.contains("PGPASSWORD"), "{}", quiet.stderr);
}

/// A weaker `sslmode` than `verify-full`, set for a host that is not this
/// machine, is said once on stderr, naming what it gives up.
#[tokio::test(flavor = "multi_thread")]
async fn a_weak_sslmode_off_loopback_is_said_once() {
    let cli = Cli::new("http://127.0.0.1:9", ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let config = cli.config_file("[history]\n");
    let run = cli
        .run(&[
            "--config",
            config.to_str().unwrap(),
            "reviewed",
            "list",
            "--history",
            "postgres://ada@db.invalid:5432/team?sslmode=require&connect_timeout=2",
        ])
        .await;
    assert_ne!(run.code, 0);
    assert_eq!(
        run.stderr.matches("sslmode=require").count(),
        1,
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("not checked"), "{}", run.stderr);
    let local = cli
        .run(&[
            "reviewed",
            "list",
            "--history",
            "postgres://ada@127.0.0.1:9/team?sslmode=disable",
        ])
        .await;
    assert!(
        !local.stderr.contains("man in the middle"),
        "{}",
        local.stderr
    );
}
