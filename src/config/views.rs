//! Saved views of the dashboard's inventory, per context, in the config file:
//!
//! ```toml
//! [views.prod.triage]
//! flags = "--review-priority needs_review --is-published true --publish-audience public --has-pii true --sort-by open_pii_finding_count --sort-order desc"
//! columns = ["priority", "name", "owner", "pii"]
//! ```
//!
//! `flags` are `vantage inventory`'s own (the dashboard reads them with the
//! same declaration, `crate::flags`), so a view and a command line copy into
//! each other; `columns` is optional. `views.default` holds the default
//! context's, `views.demo` those of `vantage demo`. The dashboard writes one
//! view at a time and keeps every other byte of the file as written.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{LoadedConfig, SettingsError};

/// The longest view name.
pub const VIEW_NAME_MAX: usize = 40;

/// One saved view.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SavedView {
    /// `vantage inventory`'s filter and sort flags, as one line.
    #[serde(default)]
    pub flags: String,
    /// The inventory's columns, by name; none: as the dashboard chooses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<Vec<String>>,
}

/// The views of every context: `views.CONTEXT.NAME`.
pub type ViewsByContext = BTreeMap<String, BTreeMap<String, SavedView>>;

impl LoadedConfig {
    /// The saved views of `context`, by name.
    pub fn views(&self, context: &str) -> BTreeMap<String, SavedView> {
        self.file.views.get(context).cloned().unwrap_or_default()
    }
}

/// Whether `name` may name a view: 1 to [`VIEW_NAME_MAX`] letters, digits,
/// `-` and `_` (a TOML key without quotes, and one word in the palette).
pub fn check_view_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.chars().count() > VIEW_NAME_MAX {
        return Err(format!("a view name has 1 to {VIEW_NAME_MAX} characters"));
    }
    if !name
        .chars()
        .all(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '_')
    {
        return Err("a view name has letters, digits, - and _ only".into());
    }
    Ok(())
}

/// The config file's text with view `name` of `context` set to `view` (or
/// removed, with `None`); every other byte stays as written. A new view is
/// added at the end of the file.
pub fn set_view(
    text: &str,
    context: &str,
    name: &str,
    view: Option<&SavedView>,
) -> Result<String, String> {
    let parse = |text: &str| -> Result<toml_edit::DocumentMut, String> {
        text.parse()
            .map_err(|error: toml_edit::TomlError| error.message().trim().to_owned())
    };
    let mut document = parse(text)?;
    let exists = document
        .get("views")
        .and_then(|views| views.get(context))
        .and_then(|views| views.get(name))
        .is_some();
    if let (Some(view), false) = (view, exists) {
        // Appended whole, so comments stay where they were; unless the file
        // keeps its views in a way a table cannot follow (inline tables).
        let mut alone = toml_edit::DocumentMut::new();
        edit(&mut alone, context, name, Some(view))?;
        let separator = match text {
            "" => "",
            text if text.ends_with("\n\n") => "",
            text if text.ends_with('\n') => "\n",
            _ => "\n\n",
        };
        let appended = format!("{text}{separator}{alone}");
        if parse(&appended).is_ok() {
            return Ok(appended);
        }
    }
    edit(&mut document, context, name, view)?;
    Ok(document.to_string())
}

/// Sets (or removes) `views.CONTEXT.NAME` in `document`.
fn edit(
    document: &mut toml_edit::DocumentMut,
    context: &str,
    name: &str,
    view: Option<&SavedView>,
) -> Result<(), String> {
    let table = |item: &mut toml_edit::Item, what: &str| -> Result<(), String> {
        if item.is_none() {
            let mut fresh = toml_edit::Table::new();
            fresh.set_implicit(true);
            *item = toml_edit::Item::Table(fresh);
        }
        if item.is_table_like() {
            Ok(())
        } else {
            Err(format!("{what} is not a table"))
        }
    };
    let views = &mut document["views"];
    table(views, "views")?;
    let of_context = &mut views[context];
    table(of_context, &format!("views.{context}"))?;
    let Some(of_context) = of_context.as_table_like_mut() else {
        return Err(format!("views.{context} is not a table"));
    };
    match view {
        None => {
            of_context.remove(name);
        }
        Some(view) => {
            let mut entry = toml_edit::Table::new();
            entry["flags"] = toml_edit::value(view.flags.as_str());
            if let Some(columns) = &view.columns {
                let list: toml_edit::Array = columns.iter().map(String::as_str).collect();
                entry["columns"] = toml_edit::value(list);
            }
            of_context.insert(name, toml_edit::Item::Table(entry));
        }
    }
    Ok(())
}

/// Saves (or with `None` deletes) view `name` of `context` in the config
/// file at `path`, made if missing; see [`super::rewrite`].
pub fn write_view(
    path: &Path,
    context: &str,
    name: &str,
    view: Option<&SavedView>,
) -> Result<(), SettingsError> {
    super::rewrite(path, "views", true, |text| {
        set_view(text, context, name, view)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn triage() -> SavedView {
        SavedView {
            flags: "--has-pii true --sort-by name --sort-order asc".into(),
            columns: Some(vec!["name".into(), "pii".into()]),
        }
    }

    #[test]
    fn a_view_is_added_and_the_rest_stays_as_written() {
        let text = "# mine\ncurrent_context = \"prod\"  # usual\n\n[contexts.prod]\nbase_url = \"https://x\"\n\n[tui]\ntheme = \"light\"\n";
        let out = set_view(text, "prod", "triage", Some(&triage())).unwrap();
        assert!(out.starts_with(text), "{out}");
        assert!(
            out.ends_with(
                "[views.prod.triage]\nflags = \"--has-pii true --sort-by name --sort-order asc\"\ncolumns = [\"name\", \"pii\"]\n"
            ),
            "{out}"
        );
        let file = crate::config::parse(&out, Path::new("c.toml")).unwrap();
        assert_eq!(file.views["prod"]["triage"], triage());
        assert_eq!(file.contexts["prod"].base_url.as_deref(), Some("https://x"));
        // Saved again: replaced, not added twice; another context's views stay.
        let other = set_view(&out, "staging", "triage", Some(&SavedView::default())).unwrap();
        let replaced = SavedView {
            flags: "--has-pii false".into(),
            columns: None,
        };
        let again = set_view(&other, "prod", "triage", Some(&replaced)).unwrap();
        let file = crate::config::parse(&again, Path::new("c.toml")).unwrap();
        assert_eq!(file.views["prod"]["triage"], replaced);
        assert_eq!(file.views["staging"].len(), 1);
        assert_eq!(again.matches("[views.prod.triage]").count(), 1, "{again}");
        // Deleted: gone, the others stay.
        let deleted = set_view(&again, "prod", "triage", None).unwrap();
        let file = crate::config::parse(&deleted, Path::new("c.toml")).unwrap();
        assert!(
            !file
                .views
                .get("prod")
                .is_some_and(|v| v.contains_key("triage"))
        );
        assert!(deleted.contains("# mine") && deleted.contains("theme = \"light\""));
    }

    #[test]
    fn a_hand_written_view_reads_and_a_wrong_one_is_named() {
        let text = "[views.default.mine]\nflags = \"--is-published true\"\n";
        let file = crate::config::parse(text, Path::new("c.toml")).unwrap();
        assert_eq!(file.views["default"]["mine"].flags, "--is-published true");
        let typo = "[views.default.mine]\nflag = \"--is-published true\"\n";
        let shown = crate::config::parse(typo, Path::new("c.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            shown.contains("line 2") && shown.contains("flag"),
            "{shown}"
        );
        assert!(set_view("views = 3\n", "default", "x", Some(&triage())).is_err());
        // Views kept as inline tables: the new one goes in among them.
        let inline = "[views]\ndefault = { old = { flags = \"\" } }\n";
        let out = set_view(inline, "default", "x", Some(&triage())).unwrap();
        let file = crate::config::parse(&out, Path::new("c.toml")).unwrap();
        assert_eq!(file.views["default"].len(), 2, "{out}");
    }

    #[test]
    fn names_are_one_plain_word() {
        assert!(check_view_name("pii-triage_2").is_ok());
        for bad in ["", "two words", "a.b", "ünï", &"x".repeat(41)] {
            assert!(check_view_name(bad).is_err(), "{bad:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn the_file_is_rewritten_in_place_keeping_its_mode_or_made_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "# keep me\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_view(&path, "default", "mine", Some(&triage())).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("# keep me\n") && text.contains("[views.default.mine]"));
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        // No file yet: made, readable by its owner alone.
        let fresh = dir.path().join("sub").join("config.toml");
        write_view(&fresh, "demo", "mine", Some(&triage())).unwrap();
        let mode = std::fs::metadata(&fresh).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(
            std::fs::read_to_string(&fresh)
                .unwrap()
                .contains("[views.demo.mine]")
        );
    }
}
