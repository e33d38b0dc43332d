//! Keys to actions: vim and arrow defaults, with overrides from the config file's
//! `[keys]` table, which lists only what changes (e.g. `quit = ["q", "ctrl-c"]`).

use std::collections::HashMap;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::Action;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum KeymapError {
    #[error("[keys] {0}: no such action; the actions are {names}", names = action_names())]
    UnknownAction(String),
    #[error(
        "[keys] {action}: cannot read key {key:?} (examples: \"q\", \"ctrl-d\", \"shift-tab\", \"enter\", \"f5\")"
    )]
    BadKey { action: String, key: String },
    #[error("[keys] {first} and {second} are both bound to {key:?}; give each its own key")]
    Conflict {
        key: String,
        first: String,
        second: String,
    },
    #[error(
        "[keys] {action} takes {key:?}, the only key of {lost}; bind {lost} to another key too"
    )]
    TakesLastKey {
        action: String,
        key: String,
        lost: String,
    },
}

fn action_names() -> String {
    Action::all()
        .map(|action| action.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where a text written without the keymap (a notice from a screen) names an
/// action's key: [`key_of`] writes the place, [`Keymap::fill`] puts the bound
/// key there. Private-use characters, so no other text holds them.
const KEY_OPEN: char = '\u{E000}';
const KEY_CLOSE: char = '\u{E001}';

/// The key of `action`, in a text the App shows later (`Keymap::fill`):
/// never a letter written into the text, so a remapped key keeps it right.
pub fn key_of(action: Action) -> String {
    format!("{KEY_OPEN}{}{KEY_CLOSE}", action.name())
}

/// A key with its modifiers, normalised so that lookups match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyPress {
    pub code: KeyCode,
    pub modifiers: KeyModifiers,
}

impl KeyPress {
    pub fn from_event(event: &KeyEvent) -> Self {
        let mut modifiers = event.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT);
        let code = match event.code {
            // Shift is already in the character; BackTab is its own key.
            KeyCode::Char(ch) if event.modifiers.contains(KeyModifiers::CONTROL) => {
                KeyCode::Char(ch.to_ascii_lowercase())
            }
            KeyCode::BackTab => KeyCode::BackTab,
            other => other,
        };
        if matches!(code, KeyCode::BackTab) {
            modifiers = KeyModifiers::NONE;
        }
        Self { code, modifiers }
    }

    pub fn parse(text: &str) -> Option<Self> {
        let mut modifiers = KeyModifiers::NONE;
        let mut rest = text;
        loop {
            if let Some(after) = rest.strip_prefix("ctrl-") {
                modifiers |= KeyModifiers::CONTROL;
                rest = after;
            } else if let Some(after) = rest.strip_prefix("alt-") {
                modifiers |= KeyModifiers::ALT;
                rest = after;
            } else {
                break;
            }
        }
        let code = match rest {
            "enter" => KeyCode::Enter,
            "esc" => KeyCode::Esc,
            "tab" => KeyCode::Tab,
            "shift-tab" | "backtab" => KeyCode::BackTab,
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "pageup" => KeyCode::PageUp,
            "pagedown" => KeyCode::PageDown,
            "space" => KeyCode::Char(' '),
            "backspace" => KeyCode::Backspace,
            "delete" => KeyCode::Delete,
            f if f.starts_with('f') && f.len() > 1 => KeyCode::F(f[1..].parse().ok()?),
            single => {
                let mut chars = single.chars();
                let ch = chars.next()?;
                if chars.next().is_some() {
                    return None;
                }
                KeyCode::Char(if modifiers.contains(KeyModifiers::CONTROL) {
                    ch.to_ascii_lowercase()
                } else {
                    ch
                })
            }
        };
        Some(Self { code, modifiers })
    }

    /// How help screens and the footer write the key.
    pub fn label(&self) -> String {
        let mut out = String::new();
        if self.modifiers.contains(KeyModifiers::CONTROL) {
            out.push_str("ctrl-");
        }
        if self.modifiers.contains(KeyModifiers::ALT) {
            out.push_str("alt-");
        }
        match self.code {
            KeyCode::Char(' ') => out.push_str("space"),
            KeyCode::Char(ch) => out.push(ch),
            KeyCode::Enter => out.push_str("enter"),
            KeyCode::Esc => out.push_str("esc"),
            KeyCode::Tab => out.push_str("tab"),
            KeyCode::BackTab => out.push_str("shift-tab"),
            KeyCode::Up => out.push('↑'),
            KeyCode::Down => out.push('↓'),
            KeyCode::Left => out.push('←'),
            KeyCode::Right => out.push('→'),
            KeyCode::Home => out.push_str("home"),
            KeyCode::End => out.push_str("end"),
            KeyCode::PageUp => out.push_str("pgup"),
            KeyCode::PageDown => out.push_str("pgdn"),
            KeyCode::F(n) => out.push_str(&format!("f{n}")),
            _ => out.push('?'),
        }
        out
    }
}

/// The default keys; each tab's, its digit, come from the registry (`default_keys`).
const DEFAULTS: &[(Action, &[&str])] = &[
    (Action::Quit, &["q", "ctrl-c"]),
    (Action::Back, &["esc"]),
    (Action::Help, &["?"]),
    (Action::ErrorLog, &["!"]),
    (Action::NextTab, &["tab"]),
    (Action::PrevTab, &["shift-tab"]),
    (Action::Up, &["k", "up"]),
    (Action::Down, &["j", "down"]),
    (Action::Top, &["g", "home"]),
    (Action::Bottom, &["G", "end"]),
    (Action::PageUp, &["ctrl-u", "pageup"]),
    (Action::PageDown, &["ctrl-d", "pagedown"]),
    (Action::Open, &["enter"]),
    (Action::Filter, &["/"]),
    (Action::Sort, &["s"]),
    (Action::ReverseSort, &["S"]),
    (Action::Refresh, &["r", "f5"]),
    (Action::Copy, &["y"]),
    (Action::Export, &["ctrl-s"]),
    (Action::ToggleDetail, &["d"]),
    // Shares `d` with the detail pane, so that rebinding one leaves the other.
    (Action::Scans, &["d"]),
    (Action::PriorityFilter, &["p"]),
    (Action::Toggles, &["t"]),
    (Action::ClearFilters, &["c"]),
    (Action::Rename, &["e"]),
    (Action::Visibility, &["v"]),
    (Action::Unpublish, &["u"]),
    // Shares `p` with the priority filter: each screen takes the action it knows.
    (Action::Publish, &["p"]),
    (Action::Delete, &["D"]),
    (Action::Freeze, &["f"]),
    (Action::Watch, &["w"]),
    (Action::Range, &["R"]),
    (Action::Contexts, &["ctrl-x"]),
    (Action::Audience, &["a"]),
    (Action::EmbedUrl, &["E"]),
    (Action::Palette, &[":"]),
    (Action::Mark, &["space"]),
    (Action::MarkAll, &["A"]),
    (Action::ClearMarks, &["C"]),
    (Action::NavBack, &["["]),
    (Action::NavForward, &["]"]),
    (Action::MarkReviewed, &["m"]),
    (Action::ReviewFilter, &["M"]),
];

/// A key may mean several actions, in the order bound (e.g. `p`: the priority
/// filter of the lists, publish on the project screen); each screen takes the
/// first one it knows.
#[derive(Debug, Clone)]
pub struct Keymap {
    bindings: HashMap<KeyPress, Vec<Action>>,
}

/// The default keys of `action`: a tab's is its digit in the registry's order.
fn default_keys(action: Action) -> Vec<String> {
    match action {
        Action::ShowTab(tab) => vec![tab.digit().to_string()],
        action => DEFAULTS
            .iter()
            .find(|(bound, _)| *bound == action)
            .map_or_else(Vec::new, |(_, keys)| {
                keys.iter().map(|key| (*key).to_owned()).collect()
            }),
    }
}

impl Default for Keymap {
    fn default() -> Self {
        let mut bindings: HashMap<KeyPress, Vec<Action>> = HashMap::new();
        for action in Action::all() {
            for key in default_keys(action) {
                if let Some(press) = KeyPress::parse(&key) {
                    bindings.entry(press).or_default().push(action);
                }
            }
        }
        Self { bindings }
    }
}

impl Keymap {
    /// Defaults with `overrides` applied: an action listed there gets exactly the
    /// keys given, and those keys leave any other action.
    pub fn with_overrides(overrides: &HashMap<String, Vec<String>>) -> Result<Self, KeymapError> {
        let mut map = Self::default();
        // Which override took each key, to refuse a second one on it.
        let mut claimed: HashMap<KeyPress, (&str, Action)> = HashMap::new();
        let mut names: Vec<&String> = overrides.keys().collect();
        names.sort();
        for name in names {
            let action =
                Action::from_name(name).ok_or_else(|| KeymapError::UnknownAction(name.clone()))?;
            let mut presses = Vec::new();
            for key in &overrides[name] {
                presses.push(KeyPress::parse(key).ok_or_else(|| KeymapError::BadKey {
                    action: name.clone(),
                    key: key.clone(),
                })?);
            }
            for bound in map.bindings.values_mut() {
                bound.retain(|other| *other != action);
            }
            for (press, key) in presses.into_iter().zip(&overrides[name]) {
                // Two overrides on one key: refused, naming both.
                if let Some((other, _)) = claimed.get(&press) {
                    return Err(KeymapError::Conflict {
                        key: key.clone(),
                        first: (*other).to_owned(),
                        second: name.clone(),
                    });
                }
                claimed.insert(press, (name.as_str(), action));
                map.bindings.insert(press, vec![action]);
            }
            map.bindings.retain(|_, bound| !bound.is_empty());
        }
        // A default action left without any key would read as a blank in help.
        for lost in Action::all() {
            if !map.keys_for(lost).is_empty() || overrides.contains_key(lost.name()) {
                continue;
            }
            if let Some((key, taker)) = default_keys(lost).into_iter().find_map(|key| {
                let press = KeyPress::parse(&key)?;
                claimed.get(&press).map(|(taker, _)| (key, *taker))
            }) {
                return Err(KeymapError::TakesLastKey {
                    action: taker.to_owned(),
                    key,
                    lost: lost.name().to_owned(),
                });
            }
        }
        Ok(map)
    }

    /// The first action of the key.
    pub fn action(&self, event: &KeyEvent) -> Option<Action> {
        self.actions(event).first().copied()
    }

    /// Every action of the key, in the order bound.
    pub fn actions(&self, event: &KeyEvent) -> &[Action] {
        self.bindings
            .get(&KeyPress::from_event(event))
            .map_or(&[], Vec::as_slice)
    }

    /// The keys bound to `action`, shortest first, for hints and help.
    pub fn keys_for(&self, action: Action) -> Vec<String> {
        let mut keys: Vec<String> = self
            .bindings
            .iter()
            .filter(|(_, bound)| bound.contains(&action))
            .map(|(press, _)| press.label())
            .collect();
        keys.sort_by_key(|label| (label.chars().count(), label.clone()));
        keys
    }

    /// Every (key, action) pair bound, keys written as help shows them
    /// (`ctrl-d`, `↑`, `pgup`), sorted: what README's key table must list.
    pub fn bindings(&self) -> Vec<(String, Action)> {
        let mut pairs: Vec<(String, Action)> = self
            .bindings
            .iter()
            .flat_map(|(press, actions)| actions.iter().map(|action| (press.label(), *action)))
            .collect();
        pairs.sort_by(|a, b| (a.1.name(), &a.0).cmp(&(b.1.name(), &b.0)));
        pairs
    }

    /// `text` with each place [`key_of`] wrote holding the key bound now.
    pub fn fill(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find(KEY_OPEN) {
            out.push_str(&rest[..start]);
            let after = &rest[start + KEY_OPEN.len_utf8()..];
            let Some(end) = after.find(KEY_CLOSE) else {
                rest = after;
                continue;
            };
            match Action::from_name(&after[..end]) {
                Some(action) => out.push_str(&self.key_for(action)),
                None => out.push_str(&after[..end]),
            }
            rest = &after[end + KEY_CLOSE.len_utf8()..];
        }
        out.push_str(rest);
        out
    }

    /// A popup's line of keys, each the one bound: `enter choose · esc close`.
    pub fn prompt(&self, parts: &[(Action, &str)]) -> String {
        parts
            .iter()
            .map(|(action, what)| format!("{} {what}", self.key_for(*action)))
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// The first key of `action`, or "-" when unbound.
    pub fn key_for(&self, action: Action) -> String {
        self.keys_for(action)
            .into_iter()
            .next()
            .unwrap_or_else(|| "-".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    #[test]
    fn defaults_include_vim_and_arrows() {
        let map = Keymap::default();
        for (code, modifiers, action) in [
            (KeyCode::Char('j'), KeyModifiers::NONE, Action::Down),
            (KeyCode::Down, KeyModifiers::NONE, Action::Down),
            (KeyCode::Char('G'), KeyModifiers::SHIFT, Action::Bottom),
            (KeyCode::Char('d'), KeyModifiers::CONTROL, Action::PageDown),
            (KeyCode::BackTab, KeyModifiers::SHIFT, Action::PrevTab),
            (KeyCode::Char('S'), KeyModifiers::SHIFT, Action::ReverseSort),
        ] {
            assert_eq!(
                map.action(&key(code, modifiers)),
                Some(action),
                "{code:?} {modifiers:?}"
            );
        }
    }

    #[test]
    fn overrides_replace_only_what_they_name() {
        let overrides = HashMap::from([("quit".to_owned(), vec!["x".to_owned()])]);
        let map = Keymap::with_overrides(&overrides).unwrap();
        assert_eq!(
            map.action(&key(KeyCode::Char('x'), KeyModifiers::NONE)),
            Some(Action::Quit)
        );
        assert_eq!(
            map.action(&key(KeyCode::Char('q'), KeyModifiers::NONE)),
            None
        );
        assert_eq!(
            map.action(&key(KeyCode::Char('j'), KeyModifiers::NONE)),
            Some(Action::Down)
        );
    }

    #[test]
    fn a_shared_key_keeps_every_action_in_order() {
        let map = Keymap::default();
        let p = key(KeyCode::Char('p'), KeyModifiers::NONE);
        assert_eq!(map.actions(&p), &[Action::PriorityFilter, Action::Publish]);
        assert_eq!(map.action(&p), Some(Action::PriorityFilter));
        assert_eq!(map.key_for(Action::Publish), "p");
        // An override takes the key for itself alone.
        let overrides = HashMap::from([("publish".to_owned(), vec!["P".to_owned()])]);
        let map = Keymap::with_overrides(&overrides).unwrap();
        assert_eq!(map.actions(&p), &[Action::PriorityFilter]);
        let shifted = key(KeyCode::Char('P'), KeyModifiers::SHIFT);
        assert_eq!(map.actions(&shifted), &[Action::Publish]);
    }

    #[test]
    fn rebinding_the_detail_pane_leaves_the_scans_on_d() {
        let d = key(KeyCode::Char('d'), KeyModifiers::NONE);
        assert_eq!(
            Keymap::default().actions(&d),
            &[Action::ToggleDetail, Action::Scans]
        );
        let overrides = HashMap::from([("toggle_detail".to_owned(), vec!["x".to_owned()])]);
        let map = Keymap::with_overrides(&overrides).unwrap();
        assert_eq!(map.actions(&d), &[Action::Scans]);
        let overrides = HashMap::from([("scans".to_owned(), vec!["x".to_owned()])]);
        let map = Keymap::with_overrides(&overrides).unwrap();
        assert_eq!(map.actions(&d), &[Action::ToggleDetail]);
    }

    #[test]
    fn tab_keys_keep_their_config_names() {
        use crate::tui::nav::Tab;
        let seven = key(KeyCode::Char('7'), KeyModifiers::NONE);
        assert_eq!(
            Keymap::default().action(&seven),
            Some(Action::ShowTab(Tab::Changes))
        );
        let overrides = HashMap::from([("tab2".to_owned(), vec!["f2".to_owned()])]);
        let map = Keymap::with_overrides(&overrides).unwrap();
        assert_eq!(map.key_for(Action::ShowTab(Tab::Inventory)), "f2");
    }

    #[test]
    fn a_notice_names_the_key_bound_now() {
        let text = format!("frozen: press {} to resume", key_of(Action::Freeze));
        assert_eq!(Keymap::default().fill(&text), "frozen: press f to resume");
        let overrides = HashMap::from([("freeze".to_owned(), vec!["F".to_owned()])]);
        let map = Keymap::with_overrides(&overrides).unwrap();
        assert_eq!(map.fill(&text), "frozen: press F to resume");
    }

    #[test]
    fn bad_overrides_are_named() {
        let unknown = HashMap::from([("fly".to_owned(), vec!["x".to_owned()])]);
        assert_eq!(
            Keymap::with_overrides(&unknown).unwrap_err(),
            KeymapError::UnknownAction("fly".into())
        );
        let bad = HashMap::from([("quit".to_owned(), vec!["ctrl-".to_owned()])]);
        assert!(matches!(
            Keymap::with_overrides(&bad),
            Err(KeymapError::BadKey { .. })
        ));
    }

    #[test]
    fn conflicting_overrides_are_refused_naming_both_actions() {
        let both = HashMap::from([
            ("quit".to_owned(), vec!["x".to_owned()]),
            ("help".to_owned(), vec!["x".to_owned()]),
        ]);
        let error = Keymap::with_overrides(&both).unwrap_err();
        assert_eq!(
            error,
            KeymapError::Conflict {
                key: "x".into(),
                first: "help".into(),
                second: "quit".into(),
            }
        );
        assert!(
            error
                .to_string()
                .contains("help and quit are both bound to \"x\"")
        );
        // Taking the only key of another action leaves it blank: refused too.
        let steals = HashMap::from([("quit".to_owned(), vec!["?".to_owned()])]);
        let error = Keymap::with_overrides(&steals).unwrap_err();
        assert!(
            matches!(&error, KeymapError::TakesLastKey { action, lost, .. } if action == "quit" && lost == "help"),
            "{error}"
        );
    }
}
