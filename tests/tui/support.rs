//! Helpers shared by the dashboard's state-model tests.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use vantage::tui::app::{App, Identity, Msg};
use vantage::tui::effect::{Effect, Request, Slot};
use vantage::tui::screens::inventory::bulk::RowOutcome;
use vantage::tui::settings::{AppSettings, TuiSettings};
use vantage::tui::theme::{ColorDepth, ThemeName};

/// The default keys and refresh, `theme` on a terminal of `depth` colours,
/// exports to the temporary directory.
pub fn settings(theme: ThemeName, depth: ColorDepth) -> AppSettings {
    let tui = TuiSettings {
        theme,
        ..TuiSettings::default()
    };
    AppSettings::new(&tui, depth, std::env::temp_dir())
}

/// A fresh App on a workspace without a plan, in the dark theme.
pub fn app() -> App {
    app_with_theme(ThemeName::Dark, ColorDepth::TrueColor)
}

/// A fresh App on a workspace without a plan, in `theme` for `depth`.
pub fn app_with_theme(theme: ThemeName, depth: ColorDepth) -> App {
    App::new(
        Identity {
            workspace: "ws_test".into(),
            plan: None,
            api_version: "2026-09-11".into(),
            read_only: false,
        },
        settings(theme, depth),
    )
}

/// A plain character key.
pub fn key(ch: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(ch), KeyModifiers::NONE))
}

/// A key without a character (Enter, Esc, arrows …), no modifiers.
pub fn special(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// The requests among effects: (slot, token, request).
pub fn fetches(effects: &[Effect]) -> Vec<(Slot, u64, Request)> {
    effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::Fetch {
                slot,
                token,
                request,
            } => Some((*slot, *token, (**request).clone())),
            _ => None,
        })
        .collect()
}

/// The requests among effects for one slot: (token, request).
pub fn fetches_for(effects: &[Effect], wanted: Slot) -> Vec<(u64, Request)> {
    fetches(effects)
        .into_iter()
        .filter(|(slot, ..)| *slot == wanted)
        .map(|(_, token, request)| (token, request))
        .collect()
}

/// How each row of the last bulk run ended, in row order.
pub fn bulk_outcomes(app: &App) -> Vec<RowOutcome> {
    app.inventory
        .bulk
        .results()
        .into_iter()
        .map(|(_, outcome)| outcome)
        .collect()
}
