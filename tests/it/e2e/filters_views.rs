//! End to end (issue 27): the task "needs review, published, audience
//! public, with personal data, sorted by open PII" in the real dashboard on
//! the reference server, through the filter menu's hotkeys (8 keys) and
//! through one palette line; each time the rows listed are those `vantage
//! inventory` prints for the same flags. Then the filter is saved as a view,
//! which a restart and a context switch keep.

use crate::e2e::contexts::{ACME_KEY, GLOBEX_KEY, demo_with_config};

/// The demo's read-only key of the same workspace (`vantage serve
/// --print-credentials`).
const ACME_READ_ONLY_KEY: &str = "vtg_demo_enterprise_readonly";
use crate::e2e::support::Session;

const FLAGS: &str = "--review-priority needs_review --is-published true \
                     --publish-audience public --has-pii true --sort-by open_pii_finding_count";

/// The filter line of the inventory, as it reads with the task's filters.
const SUMMARY: &str = "priority needs_review · published · audience public · with personal data · sort open_pii_finding_count ↓";

/// The projects' names `vantage inventory FLAGS` prints, in its order. It
/// reads with the workspace's read-only key: the service limits each key on
/// its own, so the command the task is checked against spends nothing of the
/// dashboard's window (two processes on one key share one budget, and
/// neither sees the other's spending until its next answer).
fn command_names(config: &str) -> Vec<String> {
    let own = std::path::Path::new(config).with_file_name("command.toml");
    let text = std::fs::read_to_string(config).expect("the config file");
    std::fs::write(&own, text.replace(ACME_KEY, ACME_READ_ONLY_KEY)).expect("a config");
    let own = own.to_str().expect("a UTF-8 path").to_owned();
    let mut args = vec!["--config", &own, "inventory"];
    args.extend(FLAGS.split_whitespace());
    args.extend(["--format", "json"]);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vantage"))
        .args(&args)
        .env_remove("SERVICE_API_KEY")
        .env_remove("VANTAGE_CONTEXT")
        .output()
        .expect("vantage inventory runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let items: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("JSON");
    items
        .iter()
        .map(|item| item["name"].as_str().unwrap_or("(unnamed)").to_owned())
        .collect()
}

/// Whether the inventory shows exactly `names`: their count, and each (its
/// first 12 characters: a narrow column cuts the rest) in the command's order.
fn lists(screen: &str, names: &[String]) -> bool {
    let count = match names.len() {
        1 => "1 project ".to_owned(),
        n => format!("{n} projects"),
    };
    let mut after = 0;
    let in_order = names.iter().all(|name| {
        let start: String = name.chars().take(12).collect();
        match screen[after..].find(&start) {
            Some(at) => {
                after += at + start.len();
                true
            }
            None => false,
        }
    });
    screen.contains(&count) && in_order
}

/// Sends one key and waits for `then` on the screen.
fn key(tui: &mut Session, key: &str, then: &str) -> String {
    tui.send(key);
    tui.wait_text(then)
}

/// Waits until the switch to `context` is done (the header names it).
fn switched(tui: &mut Session, context: &str) {
    let header = format!("context {context}");
    tui.wait_for(&header, |s| {
        s.contains(&header) && !s.contains("connecting")
    });
}

/// Waits until the inventory shows the task's filters and the rows of
/// `names` (a frame may still be arriving: the check is polled).
fn shows_rows(tui: &mut Session, names: &[String]) {
    tui.wait_for("the rows vantage inventory printed", |s| {
        s.contains(SUMMARY) && !s.contains("loading…") && lists(s, names)
    });
}

#[test]
fn the_task_through_the_menus_hotkeys_and_one_palette_line_matches_the_command() {
    let (runtime, running, _dir, config) = demo_with_config(|base_url| {
        format!(
            "current_context = \"acme\"\n\n\
             [contexts.acme]\nbase_url = \"{base_url}\"\napi_key = \"{ACME_KEY}\"\nworkspace_id = \"ws_acme\"\n\n\
             [contexts.globex]\nbase_url = \"{base_url}\"\napi_key_env = \"GLOBEX_KEY\"\nworkspace_id = \"ws_globex\"\n\n\
             [history]\nsnapshot_max_age = \"off\"\n"
        )
    });
    // No first-launch background snapshot: it spends about 64 of the demo's
    // 120 requests a minute, keeping the reserve, and this task's twenty-odd
    // filter and sort changes are more than the reserve: they then meet the
    // window's end (the pacer waits for it rather than send into a 429), so
    // whether the rows came in time depended on where the window fell (1 run
    // in 8 to 12 failed, waiting 49 s for the rate limit). The snapshot
    // beside a reviewer's keys is walked in `tui::review_marks` on an
    // injected clock.
    let names = command_names(&config);
    assert!(!names.is_empty(), "the demo data has projects for the task");
    let env = [("GLOBEX_KEY", GLOBEX_KEY)];
    let mut tui = Session::start_with_env(&["--config", &config], &env, 160, 45);
    tui.wait_text("Finding types");
    tui.send("2");
    tui.wait_for("the inventory", |s| {
        s.contains("64 projects") && s.contains("1/64")
    });

    // The filter menu's hotkeys: t n p a i esc, then the sort menu's: s i.
    let mut presses = 0;
    for (press, then) in [
        ("t", "n [ ] priority needs_review"),
        ("n", "n [x] priority needs_review"),
        ("p", "published: yes"),
        ("a", "a [x] audience public"),
        ("i", "has personal data: yes"),
    ] {
        key(&mut tui, press, then);
        presses += 1;
    }
    tui.send("\u{1b}");
    presses += 1;
    tui.wait_for("the menu closed", |s| {
        !s.contains("[x] priority needs_review")
    });
    key(&mut tui, "s", "i open_pii_finding_count");
    tui.send("i");
    presses += 2;
    assert!(presses <= 12, "{presses} keys");
    shows_rows(&mut tui, &names);

    // A reviewer filter on top, then all cleared by `c` (the reviewer's
    // too), then one palette line of the command's own flags.
    key(&mut tui, ":", "tab completes");
    tui.send("reviewer nobody\r");
    tui.wait_text("reviewed by nobody");
    tui.send("c");
    key(&mut tui, ":", "tab completes");
    tui.send("sort default\r");
    tui.wait_for("no filters", |s| {
        s.contains("no filters · sort default") && s.contains("64 projects")
    });
    key(&mut tui, ":", "tab completes");
    tui.send(&format!("filter {FLAGS}\r"));
    shows_rows(&mut tui, &names);

    // Kept as a view, in the config file.
    key(&mut tui, ":", "tab completes");
    tui.send("view save triage\r");
    tui.wait_text("view triage saved in");
    tui.send("q");
    assert!(tui.wait_exit().success());
    let written = std::fs::read_to_string(&config).expect("the config file");
    assert!(written.contains("[views.acme.triage]"), "{written}");
    assert!(
        written.starts_with("current_context = \"acme\""),
        "{written}"
    );

    // A restart: the palette offers the view, and it brings the rows back.
    let mut tui = Session::start_with_env(&["--config", &config], &env, 160, 45);
    tui.wait_text("Finding types");
    key(&mut tui, ":", "tab completes");
    tui.send("view ");
    tui.wait_text("view triage");
    tui.send("triage\r");
    shows_rows(&mut tui, &names);

    // Another context has none; back on acme, it is there again.
    key(&mut tui, ":", "tab completes");
    tui.send("ctx globex\r");
    switched(&mut tui, "globex");
    key(&mut tui, ":", "tab completes");
    tui.send("view triage\r");
    tui.wait_text("no view named triage");
    key(&mut tui, ":", "tab completes");
    tui.send("ctx acme\r");
    switched(&mut tui, "acme");
    key(&mut tui, ":", "tab completes");
    tui.send("view triage\r");
    shows_rows(&mut tui, &names);
    tui.send("q");
    assert!(tui.wait_exit().success());
    runtime.block_on(running.stop());
}
