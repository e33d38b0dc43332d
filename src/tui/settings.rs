//! The dashboard's tables of the config file, `[tui]` and `[keys]`, read into
//! serde structs. A misspelt key or a value of the wrong kind is refused with
//! the file, the table and the key named, before the terminal is taken over.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::PathBuf;

use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};

use super::keymap::{Keymap, KeymapError};
use super::theme::{ColorDepth, Theme, ThemeName};
use crate::config::LoadedConfig;
use crate::config::keys::{Bounded, declare_keys};

/// `[tui] refresh_secs` and `--refresh`: 1 s to an hour.
pub type RefreshSecs = Bounded<1, 3600>;

declare_keys! {
    /// The `[tui]` table, one key a line (ARCHITECTURE.md: how to add a
    /// config key). Each doc line is README's line for the key.
    pub struct TuiTable {
        /// the dashboard's colours; `NO_COLOR` always wins
        theme: ThemeName = ThemeName::Dark,
        /// seconds between refreshes of the live monitor (`--refresh` wins)
        refresh_secs: RefreshSecs = Bounded::fixed(10),
    }
}

/// What the dashboard takes from the config file.
#[derive(Debug, Clone, Default)]
pub struct TuiSettings {
    /// `[tui]`, each key read and checked (`refresh_secs` after `--refresh`).
    pub tui: TuiTable,
    /// The default keys with the `[keys]` overrides applied.
    pub keymap: Keymap,
    /// The config file's `max_walk_items`: the most items one walk over a
    /// list's pages reads, the dashboard's lists included.
    pub max_walk_items: Option<u64>,
    /// The config file, beside which the policies of `policies/` are read
    /// (as `vantage check` reads them); `None`: the built-in pack alone.
    pub config_file: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum TuiSettingsError {
    /// `at` is where in the file, e.g. `[tui] refresh_secs`.
    #[error("config file {path}: {at}: {reason}")]
    Invalid {
        path: String,
        at: String,
        reason: String,
    },
    #[error("config file {path}: {source}")]
    Keymap {
        path: String,
        #[source]
        source: KeymapError,
    },
}

/// The two tables, as the file spells them.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct DashboardTables {
    tui: TuiTable,
    /// Action name to its keys; only the overrides.
    keys: BTreeMap<String, KeyList>,
}

/// `quit = "q"` or `quit = ["q", "ctrl-c"]`.
#[derive(Debug)]
struct KeyList(Vec<String>);

impl<'de> Deserialize<'de> for KeyList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeysVisitor;

        impl<'de> Visitor<'de> for KeysVisitor {
            type Value = KeyList;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key or a list of keys, e.g. \"q\" or [\"q\", \"ctrl-c\"]")
            }

            fn visit_str<E: de::Error>(self, key: &str) -> Result<KeyList, E> {
                Ok(KeyList(vec![key.to_owned()]))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<KeyList, A::Error> {
                let mut keys = Vec::new();
                while let Some(key) = seq.next_element::<String>()? {
                    keys.push(key);
                }
                Ok(KeyList(keys))
            }
        }

        deserializer.deserialize_any(KeysVisitor)
    }
}

impl TuiSettings {
    pub fn from_config(config: &LoadedConfig) -> Result<Self, TuiSettingsError> {
        let path = config.path.as_ref().map_or_else(
            || "the config file".to_owned(),
            |path| path.display().to_string(),
        );
        // Only the dashboard's tables: the other sections have other readers.
        let tables: toml::Table = ["tui", "keys"]
            .into_iter()
            .filter_map(|name| Some((name.to_owned(), config.file.other.get(name)?.clone())))
            .collect();
        let tables: DashboardTables = serde_path_to_error::deserialize(toml::Value::Table(tables))
            .map_err(|error| TuiSettingsError::Invalid {
                path: path.clone(),
                at: table_and_key(&error.path().to_string()),
                reason: error.inner().message().trim().to_owned(),
            })?;
        let overrides: HashMap<String, Vec<String>> = tables
            .keys
            .into_iter()
            .map(|(action, keys)| (action, keys.0))
            .collect();
        let keymap = Keymap::with_overrides(&overrides)
            .map_err(|source| TuiSettingsError::Keymap { path, source })?;
        Ok(Self {
            tui: tables.tui,
            keymap,
            max_walk_items: config.file.max_walk_items,
            config_file: config.path.clone().or_else(crate::paths::config_file),
        })
    }
}

impl TuiSettings {
    /// The command line's `--refresh` over the config file's `refresh_secs`.
    pub fn with_refresh(mut self, flag: Option<RefreshSecs>) -> Self {
        if let Some(secs) = flag {
            self.tui.refresh_secs = secs;
        }
        self
    }
}

/// What an [`App`](super::app::App) is built from, the same in every context:
/// the user's choices (`[tui]`, `[keys]`, `--refresh`, `:theme`) and the
/// terminal's colours. `App::new` takes it, and a context switch builds the
/// new App from the old one's.
#[derive(Debug, Clone)]
pub struct AppSettings {
    /// `[tui]` (`theme` the one `:theme` chose since, `refresh_secs` after
    /// `--refresh`): a new key reaches the App with no more plumbing.
    pub tui: TuiTable,
    /// The terminal's colours: every theme is built for them.
    pub depth: ColorDepth,
    pub keymap: Keymap,
    /// Where `ctrl-s` writes its exports.
    pub export_dir: PathBuf,
    /// The most items one walk of a list reads (`max_walk_items`).
    pub max_walk_items: u64,
    /// The config file, beside which `policies/` is read.
    pub config_file: Option<PathBuf>,
}

impl AppSettings {
    pub fn new(settings: &TuiSettings, depth: ColorDepth, export_dir: PathBuf) -> Self {
        Self {
            tui: settings.tui.clone(),
            depth,
            keymap: settings.keymap.clone(),
            export_dir,
            max_walk_items: settings
                .max_walk_items
                .unwrap_or(crate::api::page::DEFAULT_MAX_WALK_ITEMS),
            config_file: settings.config_file.clone(),
        }
    }

    /// The theme, for the terminal's depth: the one way the dashboard builds
    /// one, so a 16-colour terminal gets 16-colour codes whatever was switched.
    pub fn theme(&self) -> Theme {
        Theme::for_terminal(self.tui.theme, self.depth)
    }
}

/// `--refresh`: seconds (`5`, `5s`) or minutes (`2m`), within the range
/// `refresh_secs` allows (htop's `-d` takes a plain number; a unit reads better).
pub fn parse_refresh(text: &str) -> Result<RefreshSecs, String> {
    let text = text.trim();
    let (number, unit) = match text.strip_suffix('s') {
        Some(number) => (number, 1),
        None => match text.strip_suffix('m') {
            Some(number) => (number, 60),
            None => (text, 1),
        },
    };
    number
        .parse::<u64>()
        .ok()
        .and_then(|number| number.checked_mul(unit))
        .and_then(RefreshSecs::new)
        .ok_or_else(|| {
            format!(
                "{text:?} is not a refresh interval: give seconds or minutes from {} s to {} min, e.g. 5s or 2m",
                RefreshSecs::MIN,
                RefreshSecs::MAX / 60
            )
        })
}

/// `tui.refresh_secs` as the file spells it: `[tui] refresh_secs`.
fn table_and_key(path: &str) -> String {
    match path.split_once('.') {
        Some((table, key)) => format!("[{table}] {key}"),
        None => format!("[{path}]"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::FileConfig;
    use crate::tui::action::Action;

    fn settings(toml_text: &str) -> Result<TuiSettings, TuiSettingsError> {
        let file: FileConfig = toml::from_str(toml_text).unwrap();
        TuiSettings::from_config(&LoadedConfig {
            file,
            path: Some("/home/u/.config/vantage/config.toml".into()),
            exists: true,
        })
    }

    /// Why `toml_text` is refused, as the user reads it.
    fn refusal(toml_text: &str) -> String {
        settings(toml_text).unwrap_err().to_string()
    }

    /// `shown` says every one of `parts`.
    fn assert_says(shown: &str, parts: &[&str]) {
        for part in parts {
            assert!(shown.contains(part), "{part:?} is not in: {shown}");
        }
    }

    #[test]
    fn the_refresh_flag_takes_seconds_or_minutes_and_wins_over_the_file() {
        let secs = |text| parse_refresh(text).map(RefreshSecs::get);
        assert_eq!(secs("5s"), Ok(5));
        assert_eq!(secs("5"), Ok(5));
        assert_eq!(secs("2m"), Ok(120));
        for bad in ["0s", "", "s", "5h", "-1", "61m", "1.5s"] {
            let refused = parse_refresh(bad).unwrap_err();
            assert!(refused.contains("e.g. 5s"), "{bad}: {refused}");
        }
        let file = settings("[tui]\nrefresh_secs = 30\n").unwrap();
        let flag = parse_refresh("5").ok();
        assert_eq!(file.clone().with_refresh(None).tui.refresh_secs.get(), 30);
        assert_eq!(file.with_refresh(flag).tui.refresh_secs.get(), 5);
    }

    #[test]
    fn refresh_secs_is_read_and_checked() {
        assert_eq!(settings("").unwrap().tui.refresh_secs.get(), 10);
        let read = settings("[tui]\nrefresh_secs = 30\n").unwrap();
        assert_eq!(read.tui.refresh_secs.get(), 30);
        for bad in ["0", "3601", "\"10\"", "2.5", "-1"] {
            let error = settings(&format!("[tui]\nrefresh_secs = {bad}\n")).unwrap_err();
            assert!(
                error.to_string().starts_with(
                    "config file /home/u/.config/vantage/config.toml: [tui] refresh_secs: "
                ),
                "{bad}: {error}"
            );
        }
        let error = settings("[tui]\nrefresh_secs = 0\n").unwrap_err();
        assert!(
            error
                .to_string()
                .ends_with("invalid value: integer `0`, expected a whole number from 1 to 3600"),
            "{error}"
        );
    }

    #[test]
    fn the_theme_is_dark_or_light() {
        assert_eq!(settings("").unwrap().tui.theme, ThemeName::Dark);
        let light = settings("[tui]\ntheme = \"light\"\n").unwrap();
        assert_eq!(light.tui.theme, ThemeName::Light);
        assert_says(
            &refusal("[tui]\ntheme = \"blue\"\n"),
            &["[tui] theme: unknown variant `blue`", "`dark`", "`light`"],
        );
    }

    #[test]
    fn a_misspelt_key_is_named() {
        assert_says(
            &refusal("[tui]\nthme = \"light\"\n"),
            &["[tui] thme: unknown field `thme`, expected `theme` or `refresh_secs`"],
        );
        assert_says(
            &refusal("tui = 5\n"),
            &["[tui]: invalid type", "expected a table"],
        );
    }

    #[test]
    fn keys_take_one_key_or_a_list() {
        let read = settings("[keys]\nquit = \"x\"\nrefresh = [\"f5\", \"ctrl-r\"]\n").unwrap();
        let press = |code| crossterm::event::KeyEvent::from(code);
        use crossterm::event::KeyCode;
        assert_eq!(
            read.keymap.action(&press(KeyCode::Char('x'))),
            Some(Action::Quit)
        );
        assert_eq!(
            read.keymap.action(&press(KeyCode::F(5))),
            Some(Action::Refresh)
        );
        for (text, named) in [
            ("[keys]\nquit = 5\n", "[keys] quit: invalid type"),
            (
                "[keys]\nquit = [\"q\", 5]\n",
                "[keys] quit[1]: invalid type: integer `5`",
            ),
            (
                "[keys]\nfly = \"f\"\n",
                "config.toml: [keys] fly: no such action; the actions are quit, back, ",
            ),
        ] {
            assert_says(&refusal(text), &[named]);
        }
    }

    #[test]
    fn other_sections_are_left_to_their_readers() {
        assert!(settings("[exporter]\nlisten = \"127.0.0.1:0\"\n").is_ok());
    }
}
