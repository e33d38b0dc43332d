//! Switching contexts in the dashboard: the picker on ctrl-x, the context in
//! the header, screens reloaded on the new context, and the old context's
//! replies dropped.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use time::macros::datetime;
use vantage::api::model::{Insights, InsightsSummary, Metric, RiskCounts};
use vantage::tui::app::{App, Msg};
use vantage::tui::effect::{Effect, ErrorInfo, Slot, SwitchedContext};

use crate::tui::support::answer;
use crate::tui::support::{app, drawn, key};
use vantage::tui::app::{CONTEXT, ContextMsg};
use vantage::tui::ops::SwitchContext;
use vantage::tui::request::Job;
use vantage::tui::screens::{insights, members, monitor};

const NOW: time::OffsetDateTime = datetime!(2026-11-22 12:00 UTC);

/// The whole frame at `NOW`, as text: the picker's snapshot is one of the
/// few kept whole, for the header that names the context.
fn screen(app: &App) -> String {
    drawn(app, 100, 24, NOW).full()
}

fn header(app: &App) -> String {
    drawn(app, 100, 24, NOW).header().to_owned()
}

fn ctrl(ch: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(ch), KeyModifiers::CONTROL))
}

fn enter() -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE))
}

fn insights(projects: i64) -> Insights {
    let metric = |value| Metric {
        value,
        delta_30d: 0,
        delta_window: "30 days".into(),
    };
    Insights {
        as_of: None,
        findings: Vec::new(),
        summary: InsightsSummary {
            total_projects: metric(projects),
            externally_published: metric(0),
            workspace_members: metric(1),
            risk: RiskCounts {
                needs_review: 0,
                review_recommended: 0,
                no_review_needed: 0,
            },
        },
    }
}

/// The tokens of the requests in `slot` among `effects`.
fn fetched(effects: &[Effect], slot: Slot) -> Vec<(u64, Job)> {
    effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::Fetch {
                slot: fetched,
                token,
                job,
            } if *fetched == slot => Some((*token, job.clone())),
            _ => None,
        })
        .collect()
}

fn with_contexts() -> (App, u64) {
    let mut app = app();
    app.set_contexts(vec!["prod".into(), "staging".into()], "staging".into());
    let effects = app.start(NOW);
    let started = fetched(&effects, insights::INSIGHTS);
    assert_eq!(started.len(), 1);
    (app, started[0].0)
}

fn switched(name: &str, workspace: &str) -> SwitchedContext {
    SwitchedContext {
        name: name.into(),
        workspace: workspace.into(),
        api_version: "2026-09-11".into(),
        read_only: true,
        watchlist: std::env::temp_dir().join("vantage-test-watchlist-never-written.json"),
        history: None,
    }
}

#[test]
fn switching_contexts_changes_the_header_and_reloads_the_screens() {
    let (mut app, old_insights) = with_contexts();
    assert!(header(&app).contains("context staging"), "{}", header(&app));
    assert!(
        header(&app).contains("workspace ws_test"),
        "{}",
        header(&app)
    );

    // ctrl-x opens the picker on the current context; k moves to prod.
    app.handle(ctrl('x'), NOW);
    let shown = screen(&app);
    assert!(shown.contains("Contexts"), "{shown}");
    assert!(shown.contains("staging (current)"), "{shown}");
    insta::assert_snapshot!("picker_100x24", shown);
    app.handle(key('k'), NOW);
    let effects = app.handle(enter(), NOW);
    let asked = fetched(&effects, CONTEXT);
    assert_eq!(asked.len(), 1, "{effects:?}");
    let (switch_token, request) = asked[0].clone();
    assert_eq!(
        request.operation(),
        Some(&SwitchContext {
            name: "prod".into()
        })
    );
    // Until the launcher answers, the old context stays on screen.
    assert!(header(&app).contains("context staging"));

    let effects = app.handle(
        answer(
            CONTEXT,
            switch_token,
            Ok(switched("prod", "ws_prod")),
            ContextMsg::Switched,
        ),
        NOW,
    );
    let head = header(&app);
    assert!(head.contains("context prod"), "{head}");
    assert!(head.contains("workspace ws_prod"), "{head}");
    assert!(head.contains("READ-ONLY"), "{head}");
    // The screens load again, with tokens the old context never had.
    let reloaded = fetched(&effects, insights::INSIGHTS);
    assert_eq!(reloaded.len(), 1, "{effects:?}");
    let new_insights = reloaded[0].0;
    assert!(new_insights > switch_token);
    assert!(
        fetched(&effects, monitor::WATCHLIST_LOAD).len() == 1,
        "the new context's watch list is read: {effects:?}"
    );

    // The old context's answer arrives late: dropped.
    app.handle(
        answer(
            insights::INSIGHTS,
            old_insights,
            Ok(insights(7)),
            insights::Msg::Loaded,
        ),
        NOW,
    );
    assert!(
        app.insights.data.is_none(),
        "an old context's reply was shown"
    );
    app.handle(
        answer(
            insights::INSIGHTS,
            new_insights,
            Ok(insights(3)),
            insights::Msg::Loaded,
        ),
        NOW,
    );
    let data = app
        .insights
        .data
        .as_ref()
        .expect("the new context's insights");
    assert_eq!(data.summary.total_projects.value, 3);
}

/// The switch's answer carries the new context's history as read for it: the
/// new App has the history on (its marks asked for, `m` works) and takes the
/// snapshot that history says is due; without one, it runs without.
#[test]
fn a_switch_opens_the_history_the_launcher_read_for_the_new_context() {
    use vantage::tui::app::{REVIEW_MARKS, TAKE_SNAPSHOT};
    use vantage::tui::vocab::HistoryStart;
    let (mut app, _) = with_contexts();
    let mut effects = Vec::new();
    app.switch_context("prod", NOW, &mut effects);
    let (token, _) = fetched(&effects, CONTEXT)[0].clone();
    let with_history = SwitchedContext {
        history: Some(HistoryStart::Read {
            seed: None,
            due: true,
        }),
        ..switched("prod", "ws_prod")
    };
    let effects = app.handle(
        answer(CONTEXT, token, Ok(with_history), ContextMsg::Switched),
        NOW,
    );
    assert!(app.review.enabled);
    assert_eq!(fetched(&effects, REVIEW_MARKS).len(), 1, "{effects:?}");
    assert_eq!(fetched(&effects, TAKE_SNAPSHOT).len(), 1, "{effects:?}");

    // Back, with no history: none is asked.
    let mut effects = Vec::new();
    app.switch_context("staging", NOW, &mut effects);
    let (token, _) = fetched(&effects, CONTEXT)[0].clone();
    let effects = app.handle(
        answer(
            CONTEXT,
            token,
            Ok(switched("staging", "ws_test")),
            ContextMsg::Switched,
        ),
        NOW,
    );
    assert!(!app.review.enabled);
    assert!(fetched(&effects, REVIEW_MARKS).is_empty(), "{effects:?}");
}

#[test]
fn a_switch_stays_on_the_tab_it_started_from() {
    let (mut app, _) = with_contexts();
    app.handle(key('3'), NOW);
    let mut effects = Vec::new();
    app.switch_context("prod", NOW, &mut effects);
    let (token, _) = fetched(&effects, CONTEXT)[0].clone();
    let effects = app.handle(
        answer(
            CONTEXT,
            token,
            Ok(switched("prod", "ws_prod")),
            ContextMsg::Switched,
        ),
        NOW,
    );
    assert_eq!(app.tab.index(), 2);
    assert!(
        !fetched(&effects, members::PAGE).is_empty(),
        "the members load again: {effects:?}"
    );
}

#[test]
fn a_failed_or_stale_switch_keeps_the_context_on_screen() {
    let (mut app, _) = with_contexts();
    let mut effects = Vec::new();
    app.switch_context("prod", NOW, &mut effects);
    let (first, _) = fetched(&effects, CONTEXT)[0].clone();
    // Asked again before the answer: the newer request wins.
    let mut effects = Vec::new();
    app.switch_context("prod", NOW, &mut effects);
    let (second, _) = fetched(&effects, CONTEXT)[0].clone();
    let effects = app.handle(
        answer(
            CONTEXT,
            first,
            Ok(switched("prod", "ws_prod")),
            ContextMsg::Switched,
        ),
        NOW,
    );
    assert!(effects.is_empty(), "{effects:?}");
    assert!(header(&app).contains("context staging"));

    let failure = ErrorInfo {
        status: None,
        kind: None,
        detail: None,
        request_id: None,
        summary: "context prod: no API key found".into(),
        gate: None,
        at: NOW,
    };
    app.handle(
        answer(CONTEXT, second, Err(failure), ContextMsg::Switched),
        NOW,
    );
    assert!(header(&app).contains("context staging"));
    assert!(screen(&app).contains("context prod not switched to"));
    assert_eq!(app.errors.len(), 1);
}

#[test]
fn unknown_and_current_contexts_only_say_so() {
    let (mut app, _) = with_contexts();
    let mut effects = Vec::new();
    app.switch_context("qa", NOW, &mut effects);
    assert!(fetched(&effects, CONTEXT).is_empty());
    assert!(screen(&app).contains("no context named qa; known: prod, staging"));
    app.switch_context("staging", NOW, &mut effects);
    assert!(fetched(&effects, CONTEXT).is_empty());
    assert!(screen(&app).contains("already on context staging"));
    // Without contexts (the demo), no context in the header, and ctrl-x says why.
    let mut plain = app_without_contexts();
    assert!(!header(&plain).contains("context"), "{}", header(&plain));
    plain.handle(ctrl('x'), NOW);
    assert!(screen(&plain).contains("no contexts"));
}

fn app_without_contexts() -> App {
    let mut app = app();
    app.start(NOW);
    app
}

#[test]
fn the_palette_switches_contexts_too() {
    let (mut app, _) = with_contexts();
    assert_eq!(app.palette.context_names, ["prod", "staging"]);
    let mut effects = Vec::new();
    for ch in ":ctx prod".chars() {
        effects = app.handle(key(ch), NOW);
    }
    assert!(fetched(&effects, CONTEXT).is_empty());
    let effects = app.handle(enter(), NOW);
    let asked = fetched(&effects, CONTEXT);
    assert_eq!(
        asked
            .iter()
            .filter_map(|(_, request)| request.operation::<SwitchContext>().cloned())
            .collect::<Vec<_>>(),
        [SwitchContext {
            name: "prod".into()
        }]
    );
}

/// Issue 23: one constructor. The App of the new context is built by
/// `App::new` from the old one's settings: the theme switched since (for the
/// terminal's depth), the keys, the refresh, the export directory.
#[test]
fn a_context_switch_builds_the_new_app_from_the_same_settings() {
    use ratatui::style::Color;
    use vantage::tui::app::Identity;
    use vantage::tui::keymap::Keymap;
    use vantage::tui::settings::{AppSettings, RefreshSecs, TuiTable};
    use vantage::tui::theme::{ColorDepth, ThemeName};

    let overrides = [("quit".to_owned(), vec!["x".to_owned()])].into();
    let settings = AppSettings {
        tui: TuiTable {
            refresh_secs: RefreshSecs::fixed(30),
            ..TuiTable::default()
        },
        depth: ColorDepth::Ansi256,
        keymap: Keymap::with_overrides(&overrides).unwrap(),
        export_dir: std::env::temp_dir().join("vantage-test-exports"),
        max_walk_items: 1_000,
        config_file: None,
    };
    let identity = Identity {
        workspace: "ws_test".into(),
        workspace_id: "ws_test".into(),
        plan: None,
        api_version: "2026-09-11".into(),
        read_only: false,
    };
    let mut app = App::new(identity, settings.clone());
    app.set_contexts(vec!["prod".into(), "staging".into()], "staging".into());
    app.start(NOW);
    for ch in ":theme light".chars() {
        app.handle(key(ch), NOW);
    }
    app.handle(enter(), NOW);
    let mut effects = Vec::new();
    app.switch_context("prod", NOW, &mut effects);
    let (token, _) = fetched(&effects, CONTEXT)[0].clone();
    app.handle(
        answer(
            CONTEXT,
            token,
            Ok(switched("prod", "ws_prod")),
            ContextMsg::Switched,
        ),
        NOW,
    );
    assert!(header(&app).contains("context prod"), "{}", header(&app));
    assert_eq!(app.settings.tui.theme, ThemeName::Light);
    assert_eq!(app.settings.depth, ColorDepth::Ansi256);
    assert_eq!(app.theme.depth, ColorDepth::Ansi256);
    // The light header's 24-bit background, fitted to the 256 colours.
    assert!(
        matches!(app.theme.header.bg, Some(Color::Indexed(_))),
        "{:?}",
        app.theme.header
    );
    assert_eq!(app.settings.export_dir, settings.export_dir);
    assert_eq!(app.monitor.refresh_interval(), time::Duration::seconds(30));
    app.handle(key('x'), NOW);
    assert!(app.should_quit, "the [keys] override stays");
}
