//! Measures the dashboard from the outside, as a user's terminal sees it: the real
//! binary in a pseudo-terminal, its screen read through a terminal emulator, its
//! CPU time and memory read from `/proc`. Used by `scripts/perf`; prints one JSON
//! object per measurement on stdout.
//!
//! ```text
//! perf_tui first-frame RUNS -- vantage demo
//! perf_tui idle monitor|static SECONDS -- vantage --config FILE
//! perf_tui rss -- vantage --config FILE
//! perf_tui snapshot-frame RUNS -- vantage demo
//! perf_tui palette FILE -- vantage --config FILE
//! perf_tui bulk MARKS SPEND -- vantage --config FILE
//! ```
//!
//! `snapshot-frame` records a snapshot of the demo data in a throwaway history
//! file first, then runs the demo on it with every reply of the service 2 s
//! late (`VANTAGE_DEMO_HISTORY`, `VANTAGE_DEMO_FAULTS`): the time to the first
//! frame that shows the snapshot's insights (the instant start).

mod actions;

use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};

const COLS: u16 = 120;
const ROWS: u16 = 35;
/// How long any one expectation may take.
const DEADLINE: Duration = Duration::from_secs(60);
/// Output separated by a pause longer than this belongs to different bursts.
const BURST_GAP: Duration = Duration::from_millis(500);

type Chunk = (Instant, Vec<u8>);

/// Environment variables every child gets (set once, before the first).
static CHILD_ENV: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();

struct Session {
    _master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn Child + Send + Sync>,
    output: mpsc::Receiver<Chunk>,
    parser: vt100::Parser,
    started: Instant,
    bytes: usize,
}

impl Session {
    fn start(command: &[String]) -> Self {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal");
        // A relative program path is taken from the current directory.
        let program =
            std::fs::canonicalize(&command[0]).unwrap_or_else(|_| command[0].clone().into());
        let mut builder = CommandBuilder::new(program);
        builder.cwd(std::env::current_dir().expect("a current directory"));
        builder.args(&command[1..]);
        builder.env("TERM", "xterm-256color");
        for (name, value) in CHILD_ENV.get().into_iter().flatten() {
            builder.env(name, value);
        }
        let (tx, output) = mpsc::channel();
        let started = Instant::now();
        let child = pair
            .slave
            .spawn_command(builder)
            .expect("the command starts");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("pty reader");
        let writer = pair.master.take_writer().expect("pty writer");
        std::thread::spawn(move || {
            let mut buffer = [0u8; 16384];
            while let Ok(n) = reader.read(&mut buffer) {
                if n == 0 || tx.send((Instant::now(), buffer[..n].to_vec())).is_err() {
                    break;
                }
            }
        });
        Self {
            _master: pair.master,
            writer,
            child,
            output,
            parser: vt100::Parser::new(nonzero(ROWS), nonzero(COLS), 0),
            started,
            bytes: 0,
        }
    }

    fn take(&mut self, chunk: &Chunk) {
        self.bytes += chunk.1.len();
        self.parser.process(&chunk.1);
    }

    fn screen(&self) -> String {
        self.parser.screen().contents()
    }

    /// Reads output until `check` holds for the screen; returns when the chunk
    /// that made it hold arrived.
    fn wait_for(&mut self, what: &str, check: impl Fn(&str) -> bool) -> Instant {
        self.wait_within(DEADLINE, what, check)
    }

    /// [`Session::wait_for`] with its own time limit.
    fn wait_within(
        &mut self,
        limit: Duration,
        what: &str,
        check: impl Fn(&str) -> bool,
    ) -> Instant {
        let deadline = Instant::now() + limit;
        loop {
            match self.output.recv_timeout(Duration::from_millis(100)) {
                Ok(chunk) => {
                    self.take(&chunk);
                    if check(&self.screen()) {
                        return chunk.0;
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) if check(&self.screen()) => {
                    return Instant::now();
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    panic!("the program ended before {what}:\n{}", self.screen())
                }
            }
            if Instant::now() > deadline {
                panic!(
                    "timed out waiting for {what}; the screen shows:\n{}",
                    self.screen()
                );
            }
        }
    }

    /// Reads everything written until the output has been quiet for `quiet`.
    fn settle(&mut self, quiet: Duration) {
        while let Ok(chunk) = self.output.recv_timeout(quiet) {
            self.take(&chunk);
        }
    }

    fn send(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).expect("keys sent");
        self.writer.flush().expect("keys flushed");
    }

    fn pid(&self) -> u32 {
        self.child.process_id().expect("a child pid")
    }

    fn quit(mut self) {
        self.send("q");
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            self.settle(Duration::from_millis(50));
        }
        let _ = self.child.kill();
    }
}

fn nonzero(value: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(value).unwrap_or(std::num::NonZeroU16::MIN)
}

/// utime + stime of the process, all threads, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc/PID/stat");
    // The command name may hold spaces: fields are counted after its ')'.
    let after = &stat[stat.rfind(')').expect("stat has a command name") + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line (1-based).
    let utime: u64 = fields[11].parse().expect("utime");
    let stime: u64 = fields[12].parse().expect("stime");
    utime + stime
}

fn clock_ticks_per_second() -> u64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(100)
}

/// Time on a CPU of the threads alive now, in nanoseconds, from
/// /proc/PID/task/TID/schedstat: finer than the clock ticks of /proc/PID/stat.
fn schedstat_ns(pid: u32) -> std::collections::HashMap<String, u64> {
    let mut threads = std::collections::HashMap::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return threads;
    };
    for task in tasks.flatten() {
        let path = task.path().join("schedstat");
        if let Some(ns) = std::fs::read_to_string(path)
            .ok()
            .and_then(|text| text.split_whitespace().next()?.parse().ok())
        {
            threads.insert(task.file_name().to_string_lossy().into_owned(), ns);
        }
    }
    threads
}

/// CPU nanoseconds used between two schedstat readings; a thread that started
/// meanwhile counts from zero (one that ended meanwhile is lost: see the ticks).
fn schedstat_delta(
    before: &std::collections::HashMap<String, u64>,
    after: &std::collections::HashMap<String, u64>,
) -> u64 {
    after
        .iter()
        .map(|(tid, ns)| ns.saturating_sub(before.get(tid).copied().unwrap_or(0)))
        .sum()
}

/// A line of /proc/PID/status in KiB, e.g. VmRSS.
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc/PID/status");
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a kB field")
}

/// Whether the inventory's detail pane shows visitors in the last 24 h.
fn has_visitors(screen: &str) -> bool {
    screen
        .split("visitors ")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .is_some_and(|first| {
            first != "0" && first.chars().all(|ch| ch.is_ascii_digit() || ch == ',')
        })
}

fn insights_loaded(screen: &str) -> bool {
    screen.contains("Externally published") && screen.contains("updated just now")
}

/// The number before `label` on the screen, e.g. "20,000" in "20,000 loaded".
fn number_before(screen: &str, label: &str) -> Option<u64> {
    let at = screen.find(label)?;
    let digits: String = screen[..at]
        .trim_end()
        .chars()
        .rev()
        .take_while(|ch| ch.is_ascii_digit() || *ch == ',')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

fn first_frame(runs: usize, command: &[String]) {
    let mut times = Vec::new();
    for _ in 0..runs {
        let mut session = Session::start(command);
        let at = session.wait_for("insights numbers", insights_loaded);
        times.push((at - session.started).as_secs_f64() * 1e3);
        session.quit();
    }
    println!(
        "{{\"measure\":\"first_frame\",{}}}",
        summary(&times).trim_matches(['{', '}'])
    );
}

/// `{"median_ms":…,"min_ms":…,"max_ms":…,"runs":…}` of times in milliseconds.
fn summary(times: &[f64]) -> String {
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    format!(
        "{{\"median_ms\":{:.1},\"min_ms\":{:.1},\"max_ms\":{:.1},\"runs\":{}}}",
        sorted[sorted.len() / 2],
        sorted[0],
        sorted[sorted.len() - 1],
        sorted.len()
    )
}

/// Records one snapshot of the demo data, as `vantage snapshot` would, in `path`.
fn prepare_demo_history(path: &std::path::Path) {
    use vantage::history::walk::{self, WalkOptions};
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    runtime.block_on(async {
        let anchor = vantage::server::seed::today_anchor(time::OffsetDateTime::now_utc());
        let fixture = vantage::server::seed::demo_fixture(anchor).expect("the demo data");
        let key = fixture
            .keys
            .iter()
            .find(|key| key.label == "enterprise-admin")
            .expect("the demo key")
            .clone();
        let server = vantage::server::start(vantage::server::ServerConfig::local(fixture))
            .await
            .expect("the reference server");
        let client = vantage::api::Client::new(vantage::api::ClientConfig::new(
            server.base_url(),
            vantage::api::ApiKey::new(key.key.clone()).expect("a key"),
        ))
        .expect("a client");
        let options = WalkOptions {
            detail_requests: 20,
            window: Duration::from_secs(60),
            reserve: None,
        };
        let (capture, _) = walk::capture(
            &client,
            &key.workspace_id,
            None,
            options,
            time::OffsetDateTime::now_utc,
            |_| {},
        )
        .await
        .expect("the walk");
        let mut store = vantage::history::Store::open(path).expect("the history file");
        store
            .record(&capture, vantage::history::Retention::default())
            .expect("recorded");
        server.stop().await;
    });
}

fn snapshot_frame(runs: usize, command: &[String]) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let history = dir.path().join("history.sqlite3");
    prepare_demo_history(&history);
    let _ = CHILD_ENV.set(vec![
        (
            "VANTAGE_DEMO_HISTORY".into(),
            history.to_string_lossy().into_owned(),
        ),
        ("VANTAGE_DEMO_FAULTS".into(), "latency=2000..2000ms".into()),
    ]);
    let mut times = Vec::new();
    for _ in 0..runs {
        let mut session = Session::start(command);
        let at = session.wait_for("the snapshot's insights", |s| {
            s.contains("from snapshot") && s.contains("Externally published")
        });
        times.push((at - session.started).as_secs_f64() * 1e3);
        session.quit();
    }
    println!(
        "{{\"measure\":\"snapshot_frame\",{}}}",
        summary(&times).trim_matches(['{', '}'])
    );
}

fn idle(screen: &str, seconds: u64, command: &[String]) {
    let mut session = Session::start(command);
    session.wait_for("insights numbers", insights_loaded);
    if screen == "monitor" {
        // The monitor shows the project selected in the inventory.
        session.send("2");
        session.wait_for("inventory rows", |s| {
            number_before(s, "loaded").is_some_and(|n| n > 0)
        });
        // A project with visitors in the last 24 h, so its buckets move.
        for _ in 0..50 {
            if has_visitors(&session.screen()) {
                break;
            }
            let before = session.screen();
            session.send("j");
            session.wait_for("the next row", |s| s != before);
        }
        session.send("4");
        session.wait_for("live visitors", |s| {
            s.contains("Live visitors") && s.contains("updated just now") && s.contains("UTC")
        });
    }
    session.settle(Duration::from_secs(2));
    let pid = session.pid();
    let window = Duration::from_secs(seconds);
    let ticks_before = cpu_ticks(pid);
    let sched_before = schedstat_ns(pid);
    let started = Instant::now();
    // Each chunk of output: when, how many bytes, the screen before and after.
    let mut chunks = Vec::new();
    loop {
        let left = window.saturating_sub(started.elapsed());
        if left.is_zero() {
            break;
        }
        match session.output.recv_timeout(left) {
            Ok(chunk) => {
                let before = session.parser.screen().contents_formatted();
                session.take(&chunk);
                let after = session.parser.screen().contents_formatted();
                chunks.push((chunk.0, chunk.1.len(), before, after));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the program ended"),
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    let ticks = cpu_ticks(pid) - ticks_before;
    let sched_seconds = schedstat_delta(&sched_before, &schedstat_ns(pid)) as f64 / 1e9;
    let total: usize = chunks.iter().map(|chunk| chunk.1).sum();
    // Bursts: chunks less than BURST_GAP apart; a burst changed the screen when
    // the screen after its last chunk differs from the one before its first.
    let mut unchanged = Vec::new();
    let mut changed = Vec::new();
    let mut index = 0;
    while index < chunks.len() {
        let mut end = index;
        while end + 1 < chunks.len() && chunks[end + 1].0 - chunks[end].0 <= BURST_GAP {
            end += 1;
        }
        let bytes: usize = chunks[index..=end].iter().map(|chunk| chunk.1).sum();
        if chunks[index].2 == chunks[end].3 {
            unchanged.push(bytes);
        } else {
            changed.push(bytes);
        }
        index = end + 1;
    }
    let cpu_seconds = ticks as f64 / clock_ticks_per_second() as f64;
    // The relative time on screen at the end ("updated 3 min ago"): it aged.
    let label = session
        .screen()
        .split("updated ")
        .nth(1)
        .and_then(|rest| rest.split(['·', '\n']).next())
        .map(|label| label.trim().to_owned())
        .unwrap_or_default();
    println!(
        "{{\"measure\":\"idle\",\"screen\":\"{screen}\",\"updated_label\":{label:?},\"redraws\":{},\"seconds\":{elapsed:.1},\"cpu_seconds\":{cpu_seconds:.3},\"cpu_percent\":{:.4},\"ticks\":{ticks},\"sched_seconds\":{sched_seconds:.4},\"sched_percent\":{:.4},\"bytes\":{total},\"bursts_unchanged\":{:?},\"bursts_changed\":{:?}}}",
        changed.len(),
        cpu_seconds / elapsed * 100.0,
        sched_seconds / elapsed * 100.0,
        unchanged,
        changed
    );
    session.quit();
}

fn rss(command: &[String]) {
    let mut session = Session::start(command);
    session.wait_for("insights numbers", insights_loaded);
    session.send("2");
    session.wait_for("inventory rows", |s| {
        number_before(s, "loaded").is_some_and(|n| n > 0)
    });
    let started = Instant::now();
    let mut loaded;
    loop {
        let screen = session.screen();
        let total = number_before(&screen, "projects").unwrap_or(u64::MAX);
        loaded = number_before(&screen, "loaded").unwrap_or(0);
        if loaded >= total {
            break;
        }
        // The last loaded row asks for the next page.
        session.send("G");
        session.wait_for("the next page", |s| {
            number_before(s, "loaded").unwrap_or(0) > loaded
        });
    }
    let load_seconds = started.elapsed().as_secs_f64();
    session.settle(Duration::from_secs(1));
    let pid = session.pid();
    println!(
        "{{\"measure\":\"rss\",\"rows\":{loaded},\"load_seconds\":{load_seconds:.1},\"vm_rss_kib\":{},\"vm_hwm_kib\":{}}}",
        status_kib(pid, "VmRSS"),
        status_kib(pid, "VmHWM")
    );
    session.quit();
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let split = args
        .iter()
        .position(|arg| arg == "--")
        .expect("usage: see the module docs");
    let (own, command) = (&args[..split], &args[split + 1..]);
    match own
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["first-frame", runs] => first_frame(runs.parse().expect("RUNS"), command),
        ["idle", screen, seconds] => idle(screen, seconds.parse().expect("SECONDS"), command),
        ["rss"] => rss(command),
        ["snapshot-frame", runs] => snapshot_frame(runs.parse().expect("RUNS"), command),
        ["palette", file] => actions::palette(file, command),
        ["bulk", marks, spend] => actions::bulk(
            marks.parse().expect("MARKS"),
            spend.parse().expect("SPEND"),
            command,
        ),
        other => panic!("unknown measurement {other:?}; see the module docs"),
    }
}
