//! A real PostgreSQL for the shared-history tests: started once per test
//! run (one binary) on a free loopback port in a temporary directory (`initdb`, then
//! `postgres`), with a fresh database per test. PostgreSQL refuses to run as
//! root: as root (CI, this machine) the server runs as `nobody` through
//! `setpriv`. It is stopped when the tests end: a watchdog process (`sh`) waits
//! for this test process to go, however it goes, then stops the server and
//! removes its directory (a thread's death signal would fire when the short
//! lived test thread that started it ended).
//!
//! PostgreSQL missing is a failure, never a skip: `.ci/run` installs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The user the server runs as when the tests run as root.
const UNPRIVILEGED: &str = "nobody";
const SUPERUSER: &str = "vantage";

pub struct PgServer {
    pub port: u16,
    /// The temporary directory (data and socket), removed by the watchdog.
    pub dir: PathBuf,
    pub pid: u32,
    /// The server and its watchdog: they outlive this process's statics, and
    /// the watchdog, not a `wait`, ends them.
    _processes: [std::process::Child; 2],
}

static SERVER: OnceLock<PgServer> = OnceLock::new();
static DATABASES: AtomicU32 = AtomicU32::new(0);

/// Where `initdb` and `postgres` are: `VANTAGE_PG_BIN`, Debian's
/// `/usr/lib/postgresql/N/bin` (the newest), or the PATH.
fn bin_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("VANTAGE_PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path().join("bin"))
        .filter(|bin| bin.join("initdb").exists())
        .collect();
    versions.sort();
    if let Some(newest) = versions.pop() {
        return Some(newest);
    }
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .find(|dir| dir.join("initdb").exists() && dir.join("postgres").exists())
    })
}

fn is_root() -> bool {
    nix::unistd::Uid::effective().is_root()
}

/// `program` run as the unprivileged user when we are root.
fn command_as_server_user(program: &Path) -> Command {
    if is_root() {
        let mut command = Command::new("setpriv");
        command
            .args([
                "--reuid",
                UNPRIVILEGED,
                "--regid",
                "nogroup",
                "--clear-groups",
                "--",
            ])
            .arg(program);
        command
    } else {
        Command::new(program)
    }
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
    listener.local_addr().expect("its address").port()
}

fn start() -> PgServer {
    let bin = bin_dir().unwrap_or_else(|| {
        panic!(
            "PostgreSQL is not installed (no initdb in /usr/lib/postgresql/*/bin or on the PATH): \
             the shared-history tests need it (Debian: apt-get install postgresql; .ci/run installs it)"
        )
    });
    let dir = tempfile::Builder::new()
        .prefix("vantage-pg-")
        .tempdir()
        .expect("a temporary directory")
        .keep();
    if is_root() {
        let user = nix::unistd::User::from_name(UNPRIVILEGED)
            .ok()
            .flatten()
            .unwrap_or_else(|| panic!("no user {UNPRIVILEGED} to run PostgreSQL as"));
        nix::unistd::chown(&dir, Some(user.uid), Some(user.gid)).expect("chown the directory");
    }
    let data = dir.join("data");
    let initdb = command_as_server_user(&bin.join("initdb"))
        .arg("-D")
        .arg(&data)
        .args([
            "-U",
            SUPERUSER,
            "--auth=trust",
            "--locale=C",
            "-E",
            "UTF8",
            "--no-sync",
        ])
        .stdout(Stdio::null())
        .output()
        .expect("run initdb");
    assert!(
        initdb.status.success(),
        "initdb failed: {}",
        String::from_utf8_lossy(&initdb.stderr)
    );
    let port = free_port();
    // TLS for the sslmode tests: a certificate of its own for localhost and
    // 127.0.0.1, which the tests trust through sslrootcert.
    let certified =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
            .expect("a test certificate");
    std::fs::write(dir.join("server.crt"), certified.cert.pem()).expect("write the certificate");
    std::fs::write(
        dir.join("server.key"),
        certified.signing_key.serialize_pem(),
    )
    .expect("write the key");
    let log = std::fs::File::create(dir.join("server.log")).expect("the server log");
    for file in ["server.log", "server.crt", "server.key"] {
        let path = dir.join(file);
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o600))
            .expect("0600");
        if is_root()
            && let Some(user) = nix::unistd::User::from_name(UNPRIVILEGED).ok().flatten()
        {
            nix::unistd::chown(&path, Some(user.uid), Some(user.gid)).expect("chown");
        }
    }
    let server = command_as_server_user(&bin.join("postgres"))
        .arg("-D")
        .arg(&data)
        .args(["-p", &port.to_string(), "-k"])
        .arg(&dir)
        .args([
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            "fsync=off",
            "-c",
            "synchronous_commit=off",
            "-c",
            "full_page_writes=off",
            "-c",
            "max_connections=100",
            "-c",
            "ssl=on",
        ])
        .arg("-c")
        .arg(format!(
            "ssl_cert_file={}",
            dir.join("server.crt").display()
        ))
        .arg("-c")
        .arg(format!("ssl_key_file={}", dir.join("server.key").display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("start postgres");
    let pid = server.id();
    let watchdog = watch(pid, &dir);
    let server = PgServer {
        port,
        dir,
        pid,
        _processes: [server, watchdog],
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match postgres::Client::connect(&server.admin_url(), postgres::NoTls) {
            Ok(_) => break,
            Err(error) if Instant::now() < deadline => {
                let _ = error;
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(error) => panic!(
                "PostgreSQL did not start within 30 s: {error}; its log: {}",
                std::fs::read_to_string(server.dir.join("server.log")).unwrap_or_default()
            ),
        }
    }
    server
}

/// A watchdog that outlives nothing: when this process is gone, it stops the
/// server (`SIGQUIT`: at once) and removes the directory.
fn watch(server_pid: u32, dir: &Path) -> std::process::Child {
    let me = std::process::id();
    let script = format!(
        "while kill -0 {me} 2>/dev/null; do sleep 0.2; done; \
         kill -QUIT {server_pid} 2>/dev/null; \
         for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 {server_pid} 2>/dev/null || break; sleep 0.2; done; \
         kill -KILL {server_pid} 2>/dev/null; rm -rf '{}'",
        dir.display()
    );
    Command::new("sh")
        .args(["-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the PostgreSQL watchdog")
}

impl PgServer {
    /// The server's certificate (PEM), for `sslrootcert`.
    pub fn certificate(&self) -> PathBuf {
        self.dir.join("server.crt")
    }

    pub fn url(&self, database: &str) -> String {
        format!(
            "postgres://{SUPERUSER}@127.0.0.1:{}/{database}?sslmode=disable",
            self.port
        )
    }

    fn admin_url(&self) -> String {
        self.url("postgres")
    }
}

/// The server of this test run (one binary, `tests/it`), started on first use.
pub fn server() -> &'static PgServer {
    // Off any tokio runtime: the blocking driver runs its own.
    SERVER.get_or_init(|| std::thread::spawn(start).join().expect("start PostgreSQL"))
}

/// A fresh, empty database on the shared server; its URL.
pub fn fresh_database() -> String {
    let server = server();
    let name = format!(
        "t{}_{}",
        std::process::id(),
        DATABASES.fetch_add(1, Ordering::Relaxed)
    );
    let admin_url = server.admin_url();
    let create = format!("CREATE DATABASE {name} TEMPLATE template0");
    std::thread::spawn(move || {
        let mut admin =
            postgres::Client::connect(&admin_url, postgres::NoTls).expect("the admin database");
        admin
            .batch_execute(&create)
            .expect("create a test database");
    })
    .join()
    .expect("create a test database");
    server.url(&name)
}
