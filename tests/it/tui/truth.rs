//! Issue 24: nothing on screen is made up. One project in focus that every
//! project screen shows by name, facts that say where they come from, an id
//! search that answers as the service does, and colours a 16-colour terminal
//! reads.

use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::{CrosstermBackend, TestBackend};
use serde_json::json;
use vantage::api::model::{InventoryItem, InventoryPage, Project};
use vantage::tui::app::App;
use vantage::tui::nav::Tab;
use vantage::tui::sgr16::Sgr16;
use vantage::tui::theme::{ColorDepth, ThemeName};

use crate::common::items::inventory_item;
use crate::tui::changes::{change_set, changes_app};
use crate::tui::lists::inventory_with;
use crate::tui::screens::{NOW, screen, text};
use crate::tui::support::{Fetch, answer, app, app_with_theme, asked_in, key, only, special};
use crate::tui::support::{answer_inventory_page, inventory_pages};
use vantage::tui::ops::{ListInventory, ListMembers, ListPii};
use vantage::tui::screens::{inventory, members, pii, project};

/// A project that needs review, scanned, visited and connected: the facts a
/// made-up row would show as zeros, `never` and `none`.
fn rich_item(id: &str, name: &str) -> InventoryItem {
    serde_json::from_value(inventory_item(json!({
        "id": id, "name": name, "visibility": "workspace_view",
        "connectors": ["resend", "twilio"],
        "edit_count": 12, "message_count": 40, "edits_24h": 1, "edits_7d": 5, "edits_30d": 9,
        "visitors_24h": 1200, "visitors_7d": 8911, "visitors_30d": 20000,
        "last_security_scan_at": "2026-11-21T10:00:00Z"
    })))
    .unwrap()
}

fn page_of(items: Vec<InventoryItem>) -> InventoryPage {
    let total = items.len();
    serde_json::from_value(json!({
        "data": items,
        "pagination": {"has_more": false, "next_cursor": null},
        "total": total, "as_of": null, "activity_as_of": null, "applied_finding": null
    }))
    .unwrap()
}

fn project(id: &str, name: &str) -> Project {
    serde_json::from_value(json!({
        "id": id, "name": name, "workspace_id": "ws_test", "is_published": true,
        "publish_audience": "public", "visibility": "workspace_view"
    }))
    .unwrap()
}

/// Types `:` + `command` + Enter into the palette.
fn palette(app: &mut App, command: &str) -> Vec<vantage::tui::effect::Effect> {
    app.handle(key(':'), NOW);
    for ch in command.chars() {
        app.handle(key(ch), NOW);
    }
    app.handle(special(KeyCode::Enter), NOW)
}

/// The project screen's read of the project, answered with `name`.
fn answer_project_read(
    app: &mut App,
    effects: &[vantage::tui::effect::Effect],
    id: &str,
    name: &str,
) -> Vec<vantage::tui::effect::Effect> {
    let read = asked_in(effects, project::PROJECT)
        .pop()
        .expect("the project is read");
    app.handle(read.ok(project(id, name)), NOW)
}

#[test]
fn a_project_opened_by_id_is_the_one_tabs_4_5_and_6_show_by_name() {
    let mut app = app();
    // The inventory's cursor is on another project, Project 0.
    inventory_with(&mut app, 3, 3);
    let effects = palette(&mut app, "prj_c599a0ae18ae");
    answer_project_read(&mut app, &effects, "prj_c599a0ae18ae", "Support studio 17");
    let header = |app: &App| {
        text(&screen(app, 120, 35))
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        header(&app).contains("Support studio 17"),
        "{}",
        header(&app)
    );

    let effects = app.handle(key('6'), NOW);
    let shown = text(&screen(&app, 120, 35));
    assert!(
        shown.contains("Personal data in Support studio 17") && !shown.contains("Project 0"),
        "{shown}"
    );
    let fetch = only(&effects, pii::PAGE);
    assert_eq!(fetch.op::<ListPii>().project_id, "prj_c599a0ae18ae");

    app.handle(key('5'), NOW);
    let shown = text(&screen(&app, 120, 35));
    assert!(shown.contains("Visitors of Support studio 17"), "{shown}");

    app.handle(key('4'), NOW);
    assert!(
        header(&app).contains("Monitor › Support studio 17"),
        "{}",
        header(&app)
    );
    assert_eq!(
        app.monitor.shown().first().map(|p| p.id.as_str()),
        Some("prj_c599a0ae18ae")
    );
}

#[test]
fn a_move_of_the_inventory_cursor_moves_the_focus() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    app.handle(key('j'), NOW);
    app.handle(key('6'), NOW);
    assert!(text(&screen(&app, 120, 35)).contains("Personal data in Project 1"));
}

#[test]
fn esc_from_a_project_opened_from_changes_lands_on_changes() {
    let mut app = changes_app(change_set());
    // The fourth row: a project change (Budget tracker).
    for _ in 0..3 {
        app.handle(key('j'), NOW);
    }
    app.handle(special(KeyCode::Enter), NOW);
    assert!(app.project.is_some());
    app.handle(special(KeyCode::Esc), NOW);
    assert_eq!(app.tab, Tab::Changes);
    assert!(app.project.is_none());
}

#[test]
fn two_from_a_projects_personal_data_lands_on_the_list_at_that_project() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    app.handle(key('j'), NOW);
    app.handle(key('j'), NOW);
    app.handle(special(KeyCode::Enter), NOW);
    // Its scans pane, then its personal data, then the inventory.
    app.handle(key('d'), NOW);
    app.handle(key('6'), NOW);
    assert!(text(&screen(&app, 120, 35)).contains("Personal data in Project 2"));
    app.handle(key('2'), NOW);
    assert_eq!(app.tab, Tab::Inventory);
    assert!(
        app.project.is_none(),
        "the list, not the project's scans pane"
    );
    assert_eq!(app.inventory.list.selected, 2);
}

#[test]
fn a_project_opened_by_id_finds_its_facts_and_never_shows_made_up_ones() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    let effects = palette(&mut app, "prj_10befad0e55d");
    let before_read = text(&screen(&app, 120, 35));
    let searched = answer_project_read(&mut app, &effects, "prj_10befad0e55d", "Clinic manager 86");
    let shown = text(&screen(&app, 120, 35));
    for made_up in [
        "0 / 0 / 0",
        "Last scan      never",
        "Connectors     none",
        "? unknown",
    ] {
        assert!(
            !before_read.contains(made_up),
            "{made_up} before the read: {before_read}"
        );
        assert!(
            !shown.contains(made_up),
            "{made_up} while searching: {shown}"
        );
    }
    assert!(shown.contains("searching the inventory by name"), "{shown}");
    let search = asked_in(&searched, project::FACTS)
        .pop()
        .expect("the inventory is searched for its name");
    let ListInventory { params, .. } = search.op::<ListInventory>();
    assert_eq!(params.query.as_deref(), Some("Clinic manager 86"));
    // Two projects share the name in part; the id picks the row.
    let found = page_of(vec![
        rich_item("prj_00000000086a", "Clinic manager 860"),
        rich_item("prj_10befad0e55d", "Clinic manager 86"),
    ]);
    app.handle(search.ok(found), NOW);
    let terminal = screen(&app, 120, 35);
    let shown = text(&terminal);
    assert!(
        shown.contains("needs review")
            && shown.contains("8,911")
            && shown.contains("resend, twilio")
            && shown.contains("from a search by name (1 request)"),
        "{shown}"
    );
    insta::assert_snapshot!("truth_project_by_id_120x35", terminal.backend());
}

#[test]
fn a_project_whose_row_is_not_found_says_not_loaded_and_the_key() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    let effects = palette(&mut app, "prj_10befad0e55d");
    let searched = answer_project_read(&mut app, &effects, "prj_10befad0e55d", "Clinic manager 86");
    let search = asked_in(&searched, project::FACTS).pop().expect("searched");
    app.handle(search.ok(page_of(vec![])), NOW);
    let shown = text(&screen(&app, 120, 35));
    assert!(
        shown.contains("not loaded")
            && shown.contains("a search by name did not find it")
            && shown.contains("r searches again")
            && !shown.contains("never"),
        "{shown}"
    );
    // `r` searches again.
    let effects = app.handle(key('r'), NOW);
    assert!(!asked_in(&effects, project::PROJECT).is_empty());
}

#[test]
fn a_project_opened_from_changes_shows_its_loaded_row_not_zeros() {
    let mut app = changes_app(change_set());
    // The inventory has the project's row loaded, as the service sent it.
    let effects = app.handle(key('2'), NOW);
    let (token, _) = inventory_pages(&effects).pop().expect("a page");
    let row = rich_item("prj_0002", "Budget tracker");
    app.handle(answer_inventory_page(token, page_of(vec![row])), NOW);
    app.handle(key('7'), NOW);
    for _ in 0..3 {
        app.handle(key('j'), NOW);
    }
    app.handle(special(KeyCode::Enter), NOW);
    let shown = text(&screen(&app, 120, 35));
    assert!(
        shown.contains("needs review")
            && shown.contains("8,911")
            && shown.contains("from the inventory list")
            && !shown.contains("unscored")
            && !shown.contains("never"),
        "{shown}"
    );
}

#[test]
fn an_id_search_never_shows_a_row_the_filters_exclude() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    app.handle(key('/'), NOW);
    for ch in "prj_10befad0e55d".chars() {
        app.handle(key(ch), NOW);
    }
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let (search, _) = inventory_pages(&effects).pop().expect("the search");
    let lookup = asked_in(&effects, inventory::ID_LOOKUP)
        .pop()
        .expect("the id")
        .token;
    let effects = app.handle(
        answer(
            inventory::ID_LOOKUP,
            lookup,
            Ok(project("prj_10befad0e55d", "Clinic manager 86")),
            inventory::Msg::IdProject,
        ),
        NOW,
    );
    app.handle(answer_inventory_page(search, page_of(vec![])), NOW);
    let by_name = asked_in(&effects, inventory::ID_LOOKUP)
        .pop()
        .expect("by name")
        .token;
    // The filters exclude it: the service's search under them does not return it.
    app.handle(
        answer(
            inventory::ID_LOOKUP,
            by_name,
            Ok(page_of(vec![])),
            inventory::Msg::IdRow,
        ),
        NOW,
    );
    assert!(app.inventory.list.rows.is_empty(), "no made-up row");
    let shown = text(&screen(&app, 120, 35));
    assert!(
        shown.contains("prj_10befad0e55d: not under these filters")
            && shown.contains(":prj_10befad0e55d opens it"),
        "{shown}"
    );
    // The search ends: what it found out goes with it.
    app.handle(key('c'), NOW);
    let shown = text(&screen(&app, 120, 35));
    assert!(!shown.contains("not under these filters"), "{shown}");
}

#[test]
fn one_kind_of_change_is_singular() {
    let mut set = change_set();
    set.changes.truncate(1);
    let app = changes_app(set);
    let shown = text(&screen(&app, 120, 35));
    assert!(shown.contains("· 1 kind changed"), "{shown}");
}

/// Every byte the App's frame sends to a terminal of `depth` colours.
fn frame_bytes(app: &App, sixteen: bool) -> String {
    let mut bytes = Vec::new();
    {
        let backend = CrosstermBackend::new(Sgr16::new(&mut bytes, sixteen));
        let mut terminal = Terminal::with_options(
            backend,
            ratatui::TerminalOptions {
                viewport: ratatui::Viewport::Fixed(ratatui::layout::Rect::new(0, 0, 120, 35)),
            },
        )
        .unwrap();
        terminal.draw(|frame| app.draw(frame, NOW)).unwrap();
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn assert_sixteen_colour_bytes(bytes: &str) {
    for form in ["38;5;", "48;5;", "38;2;", "48;2;"] {
        assert!(!bytes.contains(form), "{form} sent to a 16-colour terminal");
    }
}

#[test]
fn a_16_colour_terminal_gets_only_16_colour_codes_and_a_reversed_selection() {
    let depth = ColorDepth::detect(None, Some("xterm"), None);
    assert_eq!(depth, ColorDepth::Ansi16);
    let mut app = app_with_theme(ThemeName::Dark, depth);
    inventory_with(&mut app, 3, 3);
    let bytes = frame_bytes(&app, true);
    assert_sixteen_colour_bytes(&bytes);
    assert!(
        bytes.contains("\u{1b}[7m"),
        "the selected row is in reverse video"
    );
    // A theme switched later is built for the terminal's depth too.
    palette(&mut app, "theme light");
    palette(&mut app, "theme dark");
    assert_eq!(app.theme.depth, ColorDepth::Ansi16);
    assert_sixteen_colour_bytes(&frame_bytes(&app, true));
}

#[test]
fn the_selected_row_differs_in_more_than_colour_in_every_theme_and_depth() {
    use ratatui::style::Modifier;
    for name in [ThemeName::Dark, ThemeName::Light] {
        for depth in [
            ColorDepth::TrueColor,
            ColorDepth::Ansi256,
            ColorDepth::Ansi16,
            ColorDepth::None,
        ] {
            let mut app = app_with_theme(name, depth);
            inventory_with(&mut app, 3, 3);
            let terminal: Terminal<TestBackend> = screen(&app, 120, 35);
            let buffer = terminal.backend().buffer();
            // The body only: the header and tabs have reversed parts of their own.
            let reversed_rows: Vec<u16> = (2..buffer.area.height - 2)
                .filter(|&y| {
                    (0..buffer.area.width).any(|x| {
                        buffer[(x, y)].modifier.contains(Modifier::REVERSED)
                            && buffer[(x, y)].symbol() == "P"
                    })
                })
                .collect();
            assert_eq!(
                reversed_rows.len(),
                1,
                "{name:?} {depth:?}: one reversed row, the selection"
            );
        }
    }
}

/// A page of member references: the users `ids`, and whether more follow.
fn members_of(
    ids: &[usize],
    more: bool,
) -> vantage::api::model::Page<vantage::api::model::MemberRef> {
    serde_json::from_value(json!({
        "data": ids.iter().map(|n| json!({"user_id": crate::tui::screens::user_id(*n), "type": "user"})).collect::<Vec<_>>(),
        "pagination": {"has_more": more, "next_cursor": if more { Some("more") } else { None }},
    }))
    .unwrap()
}

/// Members (`3`) drawn, its first page answered with the users `ids`: the
/// effects of that answer.
fn members_on_screen(app: &mut App, ids: &[usize]) -> Vec<vantage::tui::effect::Effect> {
    app.start(NOW);
    let effects = app.handle(key('3'), NOW);
    let token = asked_in(&effects, members::PAGE)
        .pop()
        .expect("the first page")
        .token;
    screen(app, 120, 35);
    app.handle(
        answer(
            members::PAGE,
            token,
            Ok(members_of(ids, false)),
            members::Msg::Page,
        ),
        NOW,
    )
}

#[test]
fn members_roles_are_filled_for_the_rows_on_screen_one_listing_per_role() {
    use vantage::api::model::Role;
    let mut app = app();
    let mut effects = members_on_screen(&mut app, &[0, 1, 2]);
    // Owners, then admins (two pages of them), then members: each listing
    // answers until every row on screen knows its role, and no further.
    let answers: [(Role, &[usize], bool); 4] = [
        (Role::Owner, &[0], false),
        (Role::Admin, &[7], true),
        (Role::Admin, &[1], false),
        (Role::Member, &[2, 9], false),
    ];
    for (role, ids, more) in answers {
        let listing = asked_in(&effects, members::ROLES)
            .pop()
            .unwrap_or_else(|| panic!("a listing of {role:?}"));
        let (token, params) = (listing.token, &listing.op::<ListMembers>().params);
        assert_eq!(params.role, vec![role]);
        assert_eq!(params.limit, Some(100));
        effects = app.handle(
            answer(
                members::ROLES,
                token,
                Ok(members_of(ids, more)),
                members::Msg::Roles,
            ),
            NOW,
        );
    }
    assert!(
        asked_in(&effects, members::ROLES).is_empty(),
        "every row on screen knows its role: no more listings"
    );
    assert_eq!(app.members.role_walk.requests, 4);
    let shown = text(&screen(&app, 120, 35));
    for role in ["owner", "admin", "member"] {
        assert!(shown.contains(role), "{role}: {shown}");
    }
}

#[test]
fn a_role_no_listing_found_is_shown_as_unknown() {
    let mut app = app();
    let mut effects = members_on_screen(&mut app, &[0]);
    // Every role is listed; none holds the member (it left meanwhile).
    while let Some(Fetch { token, .. }) = asked_in(&effects, members::ROLES).pop() {
        effects = app.handle(
            answer(
                members::ROLES,
                token,
                Ok(members_of(&[], false)),
                members::Msg::Roles,
            ),
            NOW,
        );
    }
    assert_eq!(app.members.role_walk.requests, 5, "one listing per role");
    let shown = text(&screen(&app, 120, 35));
    assert!(shown.contains("unknown"), "{shown}");
}

#[test]
fn a_project_found_by_the_palettes_search_says_so_not_the_inventory_list() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    let effects = palette(&mut app, "Booking log 3");
    let search = only(&effects, vantage::tui::app::PALETTE_JUMP);
    let found = page_of(vec![rich_item("prj_54e5c98533fc", "Booking log 3")]);
    app.handle(search.ok(found), NOW);
    let shown = text(&screen(&app, 120, 35));
    assert!(
        shown.contains("from a search by name") && !shown.contains("from the inventory list"),
        "{shown}"
    );
    assert!(
        !shown.contains("searching the service"),
        "the search's notice ended with it"
    );
}

#[test]
fn an_unknown_pii_count_reads_at_least_one_under_the_has_pii_filter() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    let shown = text(&screen(&app, 120, 35));
    assert!(shown.contains("PII ? not sent"), "the legend: {shown}");
    // The rows a `has_pii=true` list holds have at least one finding each.
    app.inventory.query.has_pii = Some(true);
    let shown = text(&screen(&app, 120, 35));
    let row = shown
        .lines()
        .find(|line| line.contains("Project 0"))
        .expect("the first row");
    assert!(row.contains("≥1"), "{row}");
    assert!(
        shown.contains("PII ≥1 not sent, the filter proves one"),
        "{shown}"
    );
}

#[test]
fn marked_all_does_not_outlive_the_marks() {
    let mut app = app();
    crate::tui::lists::rate(&mut app, 100, 120);
    inventory_with(&mut app, 100, 187);
    // `A` loads the rest of the view, then says it marked it all.
    let effects = app.handle(key('A'), NOW);
    let (token, _) = inventory_pages(&effects).pop().expect("the next page");
    app.handle(
        answer_inventory_page(token, crate::tui::state::page(100..187, 187, false)),
        NOW,
    );
    assert!(text(&screen(&app, 120, 35)).contains("marked all 187"));
    app.handle(key('C'), NOW);
    let shown = text(&screen(&app, 120, 35));
    assert!(
        !shown.contains("marked all") && shown.contains("marks cleared"),
        "{shown}"
    );
}
