//! The measurements of things a user does: the palette's jump to a project, and
//! a bulk visibility change under the rate limit.

use std::time::{Duration, Instant, SystemTime};

use time::OffsetDateTime;

use super::{Session, insights_loaded, number_before, summary};

/// `palette FILE -- vantage …`: for each `id<TAB>name` line of FILE, `:` + the
/// id + Enter on the insights screen, timed from the Enter to the first frame
/// that shows the project's name (the project is not a loaded row: the
/// dashboard reads it from the service). Back to insights through the palette
/// between runs.
pub fn palette(file: &str, command: &[String]) {
    let text = std::fs::read_to_string(file).expect("the projects file");
    let projects: Vec<(&str, &str)> = text
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .collect();
    let mut session = Session::start(command);
    session.wait_for("insights numbers", insights_loaded);
    session.settle(Duration::from_millis(500));
    let mut times = Vec::new();
    for (id, name) in projects {
        // What the project screen shows of the name (it may be cut short).
        let shown: String = name.chars().take(16).collect();
        assert!(
            !session.screen().contains(&shown),
            "{shown:?} is on screen before the jump"
        );
        session.send(":");
        session.send(id);
        session.wait_for("the typed id", |s| s.contains(id));
        session.settle(Duration::from_millis(200));
        let sent = Instant::now();
        session.send("\r");
        let at = session.wait_for("the project's name", |s| s.contains(&shown));
        times.push((at - sent).as_secs_f64() * 1e3);
        session.settle(Duration::from_millis(200));
        session.send(":insights\r");
        session.wait_for("the insights screen", |s| {
            insights_loaded(s) && !s.contains(&shown)
        });
        session.settle(Duration::from_millis(200));
    }
    println!(
        "{{\"measure\":\"palette\",{}}}",
        summary(&times).trim_matches(['{', '}'])
    );
    session.quit();
}

/// One attempt the dashboard's client logged (`VANTAGE_LOG=debug`).
#[derive(Debug, Clone)]
struct Attempt {
    sent: OffsetDateTime,
    elapsed: Duration,
    status: String,
    method: String,
}

/// The attempts of the dashboard's log, from its `RequestDone` lines:
/// `TIME DEBUG …: METHOD PATH -> STATUS in N ms`.
fn logged_attempts(log: &str) -> Vec<Attempt> {
    let format = time::format_description::well_known::Rfc3339;
    let mut attempts: Vec<Attempt> = log
        .lines()
        .filter_map(|line| {
            let (at, rest) = line.split_once(' ')?;
            let done = OffsetDateTime::parse(at.trim(), &format).ok()?;
            let (request, outcome) = rest.rsplit_once(" -> ")?;
            let method = request.rsplit(": ").next()?.split(' ').next()?.to_owned();
            let (status, millis) = outcome.split_once(" in ")?;
            let millis: u64 = millis.split(' ').next()?.parse().ok()?;
            let elapsed = Duration::from_millis(millis);
            Some(Attempt {
                sent: done - elapsed,
                elapsed,
                status: status.to_owned(),
                method,
            })
        })
        .collect();
    attempts.sort_by_key(|attempt| attempt.sent);
    attempts
}

/// The earliest the attempts from `first` on could all have finished, one
/// after the other, each taking the time it took, under a sliding window of
/// `limit` requests per `window` that also counts the attempts before `first`.
fn minimum_end(
    attempts: &[Attempt],
    first: usize,
    start: OffsetDateTime,
    limit: usize,
    window: Duration,
) -> OffsetDateTime {
    let mut sent: Vec<OffsetDateTime> = attempts[..first].iter().map(|a| a.sent).collect();
    let mut free_at = start;
    for attempt in &attempts[first..] {
        let mut at = free_at;
        if sent.len() >= limit {
            at = at.max(sent[sent.len() - limit] + window);
        }
        sent.push(at);
        free_at = at + attempt.elapsed;
    }
    free_at
}

fn now_utc() -> OffsetDateTime {
    OffsetDateTime::from(SystemTime::now())
}

/// `bulk MARKS SPEND -- vantage …` against a server at the default 120/60
/// limit, with `VANTAGE_LOG=debug`: marks MARKS rows of the inventory, spends
/// SPEND requests of the same key (as other work of the user would, so the
/// window binds), then sets their visibility in bulk. Reports the 429s the
/// client saw and the wall time against the limit's minimum.
pub fn bulk(marks: usize, spend: usize, command: &[String]) {
    let log_path = vantage::paths::data_dir().join("vantage.log");
    let _ = std::fs::remove_file(&log_path);
    let mut session = Session::start(command);
    session.wait_for("insights numbers", insights_loaded);
    session.send("2");
    session.wait_for("inventory rows", |s| {
        number_before(s, "loaded").is_some_and(|n| n > 0)
    });
    while number_before(&session.screen(), "loaded").unwrap_or(0) < marks as u64 {
        let loaded = number_before(&session.screen(), "loaded").unwrap_or(0);
        session.send("G");
        session.wait_for("the next page", |s| {
            number_before(s, "loaded").unwrap_or(0) > loaded
        });
    }
    session.send("g");
    session.settle(Duration::from_millis(300));
    session.send(&" ".repeat(marks));
    let wanted = format!("{marks} marked");
    session.wait_for("the marks", |s| s.contains(&wanted));
    session.send("v");
    session.wait_for("the visibility menu", |s| s.contains("Visibility of"));
    // The second entry, workspace_view.
    session.send("j\r");
    session.wait_for("the confirm", |s| !s.contains("Visibility of"));
    spend_requests(spend);
    let started_at = now_utc();
    let started = Instant::now();
    session.send("y");
    // The window may hold the change back for up to a minute.
    let done = session.wait_within(Duration::from_secs(300), "the bulk change's report", |s| {
        s.contains(" ok, ") && s.contains(" failed")
    });
    let wall = (done - started).as_secs_f64();
    session.settle(Duration::from_secs(1));
    session.quit();
    let log = std::fs::read_to_string(&log_path).expect("the dashboard's log (VANTAGE_LOG=debug)");
    let attempts = logged_attempts(&log);
    let first = attempts
        .iter()
        .position(|a| a.sent >= started_at)
        .unwrap_or(attempts.len());
    let bulk = &attempts[first..];
    let patches = bulk.iter().filter(|a| a.method == "PATCH").count();
    let too_many = attempts.iter().filter(|a| a.status == "429").count();
    let minimum = minimum_end(&attempts, first, started_at, 120, Duration::from_secs(60));
    let minimum = (minimum - started_at).as_seconds_f64();
    let in_window = attempts[..first]
        .iter()
        .filter(|a| a.sent + Duration::from_secs(60) > started_at)
        .count();
    println!(
        "{{\"measure\":\"bulk\",\"marks\":{marks},\"spent\":{spend},\"in_window_before\":{in_window},\"requests\":{},\"patches\":{patches},\"429s\":{too_many},\"wall_seconds\":{wall:.2},\"minimum_seconds\":{minimum:.2}}}",
        bulk.len()
    );
}

/// Spends `count` requests of the dashboard's key (`SERVICE_API_KEY`) on the
/// service of its config, one after the other, and logs them as the dashboard
/// does, so the minimum counts them.
fn spend_requests(count: usize) {
    if count == 0 {
        return;
    }
    let key = std::env::var("SERVICE_API_KEY").expect("SERVICE_API_KEY");
    let base = std::env::var("PERF_BASE_URL").expect("PERF_BASE_URL");
    let workspace = std::env::var("PERF_WORKSPACE").expect("PERF_WORKSPACE");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let lines = runtime.block_on(async {
        let client = vantage::api::Client::new(vantage::api::ClientConfig::new(
            base,
            vantage::api::ApiKey::new(key).expect("a key"),
        ))
        .expect("a client");
        let mut lines = String::new();
        for _ in 0..count {
            let sent = now_utc();
            let begun = Instant::now();
            let status = match client.get_workspace(&workspace).await {
                Ok(_) => "200".to_owned(),
                Err(error) => error.to_string(),
            };
            let elapsed = begun.elapsed();
            let done = sent + elapsed;
            let at = done
                .format(&time::format_description::well_known::Rfc3339)
                .expect("a time");
            lines.push_str(&format!(
                "{at} DEBUG perf_tui: GET /v1/workspaces/{workspace} -> {status} in {} ms\n",
                elapsed.as_millis()
            ));
        }
        lines
    });
    let log_path = vantage::paths::data_dir().join("vantage.log");
    let mut log = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(log_path)
        .expect("the log");
    std::io::Write::write_all(&mut log, lines.as_bytes()).expect("logged");
}
