//! Tests derived from the registry of screens (`tui/registry.rs`): every
//! screen is reachable from its tab key, the palette and the help, and every
//! enabled action a screen offers is in its footer (or the footer's `? more`)
//! and in its help. A screen added to the registry is checked with no edit here.

use crossterm::event::{KeyCode, KeyEvent};
use time::OffsetDateTime;
use time::macros::datetime;
use vantage::tui::action::Action;
use vantage::tui::app::{App, Msg};
use vantage::tui::keymap::KeyPress;
use vantage::tui::nav::Tab;
use vantage::tui::registry::SCREENS;

use crate::tui::support::{app, drawn, key, special};

const NOW: OffsetDateTime = datetime!(2026-11-22 12:00 UTC);

fn render(app: &App, width: u16, height: u16) -> Vec<String> {
    let frame = drawn(app, width, height, NOW);
    let buffer = frame.buffer();
    (0..height)
        .map(|y| (0..width).map(|x| buffer[(x, y)].symbol()).collect())
        .collect()
}

/// The key event of a key as help writes it (`7`, `ctrl-d`, `enter`).
fn press(label: &str) -> Msg {
    let press = KeyPress::parse(label).unwrap_or_else(|| panic!("cannot press {label:?}"));
    Msg::Key(KeyEvent::new(press.code, press.modifiers))
}

fn type_text(app: &mut App, text: &str) {
    for ch in text.chars() {
        match ch {
            '\r' => app.handle(special(KeyCode::Enter), NOW),
            ch => app.handle(key(ch), NOW),
        };
    }
}

#[test]
fn every_screen_is_reachable_from_its_tab_key_the_palette_and_the_help() {
    for info in SCREENS {
        let tab = info.id;
        // Its tab key, from elsewhere.
        let mut app = app();
        let away = if tab == Tab::ALL[0] {
            Tab::ALL[1]
        } else {
            Tab::ALL[0]
        };
        app.handle(
            press(&app.settings.keymap.key_for(Action::ShowTab(away))),
            NOW,
        );
        app.handle(
            press(&app.settings.keymap.key_for(Action::ShowTab(tab))),
            NOW,
        );
        assert_eq!(app.tab, tab, "the tab key of {}", info.title);
        // The palette, by its name and by each alias.
        for name in info.names {
            let mut app = crate::tui::support::app();
            app.handle(
                press(&app.settings.keymap.key_for(Action::ShowTab(away))),
                NOW,
            );
            type_text(&mut app, &format!(":{name}\r"));
            assert_eq!(app.tab, tab, "the palette's {name:?}");
        }
        // The help names it beside its key.
        app.handle(press(&app.settings.keymap.key_for(Action::Help)), NOW);
        let key = app.settings.keymap.key_for(Action::ShowTab(tab));
        let help = render(&app, 120, 100);
        let wanted = format!("{key}  screen: {}", info.title);
        assert!(
            help.iter().any(|line| line.contains(&wanted)),
            "{wanted:?} in the help:\n{}",
            help.join("\n")
        );
    }
}

#[test]
fn every_enabled_action_of_every_screen_is_in_its_footer_or_more_and_in_its_help() {
    for tab in Tab::ALL {
        let mut app = app();
        app.start(NOW);
        app.handle(
            press(&app.settings.keymap.key_for(Action::ShowTab(*tab))),
            NOW,
        );
        let actions = app.tab_screen(*tab).actions();
        assert!(!actions.is_empty(), "{tab:?} offers no action");
        for width in [80, 120] {
            let screen = render(&app, width, 35);
            let footer = screen.last().cloned().unwrap_or_default();
            let more = footer.trim_end().ends_with("? more");
            for offered in actions.iter().filter(|offered| offered.enabled()) {
                let shown = offered.hint.is_some_and(|hint| {
                    footer.contains(&format!(
                        "{} {hint}",
                        app.settings.keymap.key_for(offered.action)
                    ))
                });
                assert!(
                    shown || more,
                    "{tab:?} at {width}: {:?} is neither in the footer nor behind `? more`: {footer:?}",
                    offered.action
                );
            }
        }
        app.handle(press(&app.settings.keymap.key_for(Action::Help)), NOW);
        let help = render(&app, 120, 100).join("\n");
        for offered in actions.iter().filter(|offered| offered.enabled()) {
            let keys = app.settings.keymap.keys_for(offered.action).join(" ");
            // The first words of its line, which never wrap at 120.
            let words: String = offered.does.chars().take(30).collect();
            assert!(
                help.contains(&format!("{keys}  {words}")),
                "{tab:?}: {keys} {words:?} in the help:\n{help}"
            );
        }
    }
}

/// Changes, the seventh tab, was missing from the palette's screen names:
/// `:changes` searched for a project so named.
#[test]
fn the_palette_opens_changes_by_name() {
    let mut app = app();
    app.start(NOW);
    type_text(&mut app, ":changes\r");
    assert_eq!(app.tab, Tab::Changes);
}
