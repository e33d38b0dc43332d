//! Issue 27: filters in a few keys. The filter and sort menus' hotkeys and
//! `/` jump, the palette's `:filter`/`:sort`/`:clear` through `vantage
//! inventory`'s own flags, sorts that start where users expect, and saved
//! views that survive a restart and a context switch.

use crossterm::event::KeyCode;
use vantage::api::InventoryParams;
use vantage::api::model::{InventorySortBy, SortOrder};
use vantage::config::{LoadedConfig, SavedView};
use vantage::flags::{InventoryFilterArgs, split_words};
use vantage::tui::app::{App, SavedViews};
use vantage::tui::effect::{Effect, SwitchedContext};
use vantage::tui::ops::SaveView;

use crate::tui::inventory_query::{inventory_requests, inventory_with};
use crate::tui::support::{NOW, screen, special, text};
use crate::tui::support::{app, key};

/// The flags of the task, as `vantage inventory` takes them.
const TASK: &str = "--review-priority needs_review --is-published true \
                    --publish-audience public --has-pii true --sort-by open_pii_finding_count";

/// What `vantage inventory TASK` asks the service for (a page of 100).
fn command_params(flags: &str) -> InventoryParams {
    let words = split_words(flags).expect("words");
    let mut params = InventoryFilterArgs::parse_words(&words)
        .expect("the command's flags")
        .params(Some(100));
    // The command leaves the direction to the service's default: descending.
    params.sort_order.get_or_insert(SortOrder::Desc);
    params
}

fn last_params(effects: &[Effect]) -> InventoryParams {
    let requests = inventory_requests(effects);
    requests
        .last()
        .expect("an inventory page request")
        .1
        .clone()
}

/// Types `:` + `line` + Enter.
fn palette(app: &mut App, line: &str) -> Vec<Effect> {
    app.handle(key(':'), NOW);
    for ch in line.chars() {
        app.handle(key(ch), NOW);
    }
    app.handle(special(KeyCode::Enter), NOW)
}

/// The keys of `keys`, one message each; the effects of the last.
fn press(app: &mut App, keys: Vec<vantage::tui::app::Msg>) -> Vec<Effect> {
    let mut last = Vec::new();
    for msg in keys {
        last = app.handle(msg, NOW);
    }
    last
}

#[test]
fn the_task_takes_eight_keys_through_the_menus_hotkeys() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    let keys = vec![
        key('t'),              // the filter menu
        key('n'),              // priority needs_review
        key('p'),              // published: yes
        key('a'),              // audience public
        key('i'),              // has personal data: yes
        special(KeyCode::Esc), // close
        key('s'),              // the sort menu
        key('i'),              // open_pii_finding_count, highest first
    ];
    assert!(keys.len() <= 12, "the issue's budget");
    let effects = press(&mut app, keys);
    assert_eq!(last_params(&effects), command_params(TASK));
    let shown = text(&screen(&app, 120, 30));
    assert!(
        shown.contains(
            "priority needs_review · published · audience public · with personal data · sort open_pii_finding_count ↓"
        ),
        "{shown}"
    );
}

#[test]
fn the_menus_show_their_hotkeys_and_slash_jumps_by_text() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    app.handle(key('t'), NOW);
    let menu = text(&screen(&app, 100, 30));
    assert!(menu.contains("n [ ] priority needs_review"), "{menu}");
    assert!(menu.contains("i has personal data: any"), "{menu}");
    // `/` then text jumps to the first line holding it; enter toggles it.
    for ch in "/connect".chars() {
        app.handle(key(ch), NOW);
    }
    assert!(text(&screen(&app, 100, 30)).contains("/connect"));
    let effects = app.handle(special(KeyCode::Enter), NOW);
    assert_eq!(last_params(&effects).has_connectors, Some(true));
    // The menu stays open for more; t closes it as it opened it.
    app.handle(key('t'), NOW);
    assert!(!text(&screen(&app, 100, 30)).contains("priority needs_review"));

    app.handle(key('s'), NOW);
    let sort = text(&screen(&app, 100, 30));
    assert!(
        sort.contains("n name") && sort.contains("v visitors_7d"),
        "{sort}"
    );
    let effects = app.handle(key('v'), NOW);
    let params = last_params(&effects);
    assert_eq!(params.sort_by, Some(InventorySortBy::Visitors7d));
    assert_eq!(params.sort_order, Some(SortOrder::Desc));
}

/// Issue 27: `sort name` started Z→A (`sort name ↓`).
#[test]
fn a_sort_by_name_starts_a_to_z_and_counts_start_highest() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    // name is the fourth line of the sort menu (default, relevance,
    // review_priority, name), reached as before the hotkeys: j j j enter.
    let effects = press(
        &mut app,
        vec![
            key('s'),
            key('j'),
            key('j'),
            key('j'),
            special(KeyCode::Enter),
        ],
    );
    let params = last_params(&effects);
    assert_eq!(params.sort_by, Some(InventorySortBy::Name));
    assert_eq!(params.sort_order, Some(SortOrder::Asc), "A→Z first");
    assert!(text(&screen(&app, 120, 30)).contains("sort name ↑"));
    // S reverses; a new field starts in its own first direction again.
    let effects = app.handle(key('S'), NOW);
    assert_eq!(last_params(&effects).sort_order, Some(SortOrder::Desc));
    let effects = palette(&mut app, "sort last_edited_at");
    assert_eq!(last_params(&effects).sort_order, Some(SortOrder::Desc));
    let effects = palette(&mut app, "sort name");
    assert_eq!(last_params(&effects).sort_order, Some(SortOrder::Asc));
    let effects = palette(&mut app, "sort name desc");
    assert_eq!(last_params(&effects).sort_order, Some(SortOrder::Desc));
    assert!(text(&screen(&app, 120, 30)).contains("sort name ↓"));
}

#[test]
fn one_palette_line_of_the_commands_flags_does_the_task() {
    let mut app = app();
    app.start(NOW);
    // From another screen: the line shows the inventory, filtered.
    let effects = palette(&mut app, &format!("filter {TASK}"));
    assert_eq!(last_params(&effects), command_params(TASK));
    assert!(text(&screen(&app, 120, 30)).contains("sort open_pii_finding_count ↓"));
    // A later :filter replaces the filters and keeps the sort.
    let effects = palette(&mut app, "filter --visibility restricted,workspace_view");
    let params = last_params(&effects);
    assert_eq!(params.visibility.len(), 2);
    assert!(params.review_priority.is_empty() && params.has_pii.is_none());
    assert_eq!(params.sort_by, Some(InventorySortBy::OpenPiiFindingCount));
    // :clear clears the filters, the sort stays.
    let effects = palette(&mut app, "clear");
    let params = last_params(&effects);
    assert!(params.visibility.is_empty());
    assert_eq!(params.sort_by, Some(InventorySortBy::OpenPiiFindingCount));
}

#[test]
fn a_bad_flag_or_value_is_named_and_nothing_runs() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    for (line, named) in [
        ("filter --has-pii maybe", "maybe"),
        ("filter --has-pi true", "--has-pi"),
        ("filter --review-priority urgent", "urgent"),
        ("sort visits", "visits"),
    ] {
        let effects = palette(&mut app, line);
        assert!(inventory_requests(&effects).is_empty(), "{line}");
        let shown = text(&screen(&app, 160, 30));
        assert!(shown.contains(named), "{line}: {shown}");
        app.handle(special(KeyCode::Esc), NOW);
    }
    // What the contract refuses is refused before asking.
    let effects = palette(
        &mut app,
        "filter --is-published false --publish-audience public",
    );
    assert!(inventory_requests(&effects).is_empty());
    assert!(text(&screen(&app, 120, 30)).contains("--publish-audience needs"));
}

#[test]
fn tab_completes_flags_and_their_values() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    app.handle(key(':'), NOW);
    for ch in "filter --has-p".chars() {
        app.handle(key(ch), NOW);
    }
    app.handle(special(KeyCode::Tab), NOW);
    assert_eq!(app.palette.value(), "filter --has-pii ");
    app.handle(key('t'), NOW);
    app.handle(special(KeyCode::Tab), NOW);
    assert_eq!(app.palette.value(), "filter --has-pii true");
    let effects = app.handle(special(KeyCode::Enter), NOW);
    assert_eq!(last_params(&effects).has_pii, Some(true));
}

/// The view-file write among `effects`.
fn saved_view(effects: &[Effect]) -> (std::path::PathBuf, String, String, Option<SavedView>) {
    let save = crate::tui::support::first_in(effects, vantage::tui::app::SAVE_VIEW)
        .expect("a view written")
        .op::<SaveView>()
        .clone();
    let SaveView {
        path,
        context,
        name,
        view,
    } = save;
    (path, context, name, view)
}

/// Carries out a view write as the executor does.
fn write(effects: &[Effect]) {
    let (path, context, name, view) = saved_view(effects);
    vantage::config::write_view(&path, &context, &name, view.as_ref()).expect("written");
}

fn views_from(path: &std::path::Path) -> SavedViews {
    let config = LoadedConfig::load(Some(path)).expect("the config file reads");
    SavedViews {
        path: Some(path.to_path_buf()),
        by_context: config.file.views.clone(),
    }
}

fn switched(app: &mut App, name: &str) {
    let effects = palette(app, &format!("ctx {name}"));
    let switch = crate::tui::support::only(&effects, vantage::tui::app::CONTEXT);
    app.handle(
        switch.ok(SwitchedContext {
            name: name.into(),
            workspace: "ws_test".into(),
            api_version: "2026-09-11".into(),
            read_only: false,
            watchlist: std::env::temp_dir().join("vantage-test-watchlist-never-written.json"),
            history: None,
        }),
        NOW,
    );
}

#[test]
fn a_saved_view_survives_a_restart_and_a_context_switch() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let mine = "# my settings\n[tui]\ntheme = \"dark\"\n";
    std::fs::write(&path, mine).unwrap();
    let with_contexts = |path: &std::path::Path| {
        let mut app = app();
        app.set_contexts(vec!["prod".into(), "staging".into()], "prod".into());
        app.set_views(views_from(path));
        inventory_with(&mut app, 3, 3);
        app
    };

    let mut app = with_contexts(&path);
    palette(&mut app, &format!("filter {TASK}"));
    let effects = palette(&mut app, "view save triage");
    let (_, context, name, view) = saved_view(&effects);
    assert_eq!((context.as_str(), name.as_str()), ("prod", "triage"));
    let flags = view.as_ref().expect("saved, not deleted").flags.clone();
    assert!(flags.contains("--sort-order desc"), "{flags}");
    write(&effects);
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.starts_with(mine), "{written}");
    assert!(written.contains("[views.prod.triage]"), "{written}");

    // A restart reads the file: the view is offered and brings it all back.
    let mut app = with_contexts(&path);
    app.handle(key(':'), NOW);
    for ch in "view ".chars() {
        app.handle(key(ch), NOW);
    }
    assert!(
        text(&screen(&app, 120, 30)).contains("view triage"),
        "the palette lists it"
    );
    app.handle(special(KeyCode::Esc), NOW);
    let effects = palette(&mut app, "view triage");
    assert_eq!(last_params(&effects), command_params(TASK));

    // Another context has views of its own; back on prod, triage is there.
    switched(&mut app, "staging");
    assert!(app.palette.view_names.is_empty());
    palette(&mut app, "view triage");
    assert!(text(&screen(&app, 120, 30)).contains("no view named triage"));
    switched(&mut app, "prod");
    assert_eq!(app.palette.view_names, ["triage"]);
    let effects = palette(&mut app, "view triage");
    assert_eq!(last_params(&effects), command_params(TASK));

    // Deleted: gone from the file, the rest of it as written.
    let effects = palette(&mut app, "view delete triage");
    write(&effects);
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(
        !written.contains("triage") && written.starts_with(mine),
        "{written}"
    );
    assert!(app.palette.view_names.is_empty());
}

#[test]
fn a_hand_written_view_with_a_bad_flag_says_which() {
    let mut app = app();
    app.set_views(SavedViews {
        path: None,
        by_context: [(
            "demo".to_owned(),
            [
                (
                    "mine".to_owned(),
                    SavedView {
                        flags: "--has-pii perhaps".into(),
                        columns: None,
                    },
                ),
                // A key no `:view` can name, with a terminal escape: never shown.
                ("x\u{1b}[2J".to_owned(), SavedView::default()),
            ]
            .into(),
        )]
        .into(),
    });
    assert_eq!(app.palette.view_names, ["mine"]);
    inventory_with(&mut app, 3, 3);
    let effects = palette(&mut app, "view mine");
    assert!(inventory_requests(&effects).is_empty());
    let shown = text(&screen(&app, 160, 30));
    assert!(
        shown.contains("view mine:") && shown.contains("perhaps"),
        "{shown}"
    );
}

/// Issue 27: a saved view keeps the columns chosen with `:columns`, and
/// brings them back after a restart.
#[test]
fn a_saved_view_keeps_and_restores_the_columns() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "").unwrap();
    let with_contexts = |path: &std::path::Path| {
        let mut app = app();
        app.set_contexts(vec!["prod".into()], "prod".into());
        app.set_views(views_from(path));
        inventory_with(&mut app, 3, 3);
        app
    };
    let mut app = with_contexts(&path);
    palette(&mut app, "columns name,id,owner");
    let effects = palette(&mut app, "view save narrow");
    let (_, _, _, view) = saved_view(&effects);
    assert_eq!(
        view.as_ref().and_then(|view| view.columns.clone()),
        Some(vec!["name".to_owned(), "id".to_owned(), "owner".to_owned()])
    );
    write(&effects);

    let mut app = with_contexts(&path);
    assert_eq!(
        app.inventory.columns(),
        None,
        "a fresh start shows the default set"
    );
    palette(&mut app, "view narrow");
    let names: Vec<&str> = app
        .inventory
        .columns()
        .expect("the view's columns")
        .iter()
        .map(|column| column.name())
        .collect();
    assert_eq!(names, ["name", "id", "owner"]);
}
