//! What a line typed into the palette means: a screen, a project (by id or by
//! name), a context, or an action. The verbs are listed once, the screens' in
//! the registry and the others in [`VERBS`], for parsing, completion and help alike.

use super::inventory::{self, ViewCommand};
use crate::api::model::{InventorySortBy, SortOrder};
use crate::flags::InventoryFilterArgs;
use crate::tui::action::Action;
use crate::tui::focus::looks_like_id;
use crate::tui::nav::Tab;
use crate::tui::registry::SCREENS;
use crate::tui::screens::inventory::columns::{self, Column};
use crate::tui::theme::ThemeName;

/// A command the palette hands to the App.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Screen(Tab),
    /// A project by id: opened from the loaded rows, or read from the service.
    ProjectId(String),
    /// A project by name: the loaded rows first, then the service's search.
    ProjectName(String),
    /// Switch to a configured context (`:ctx NAME`).
    Context(String),
    Theme(ThemeName),
    /// The inventory's columns; `None` the default set.
    Columns(Option<Vec<Column>>),
    /// `:reviewer NAME`: the inventory keeps the projects NAME marked
    /// reviewed; `:reviewer` alone clears it.
    Reviewer(Option<String>),
    /// Do what the action's key does.
    Act(Action),
    /// The inventory's search and filters, as `vantage inventory`'s flags
    /// (its sort too, when they give one).
    Filter(Box<InventoryFilterArgs>),
    /// The inventory's sort (none: the default order), in a direction or
    /// the field's first one.
    Sort(Option<InventorySortBy>, Option<SortOrder>),
    /// A saved view of the inventory.
    View(ViewCommand),
    /// `:report`: the workspace's report, scoped to the inventory's filters.
    Report,
}

/// What a verb does with its argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerbKind {
    Screen(Tab),
    Act(Action),
    /// Takes a project id or name.
    Project,
    /// Takes a context name.
    Context,
    /// Takes `dark` or `light`.
    Theme,
    /// Takes column names, or `default`.
    Columns,
    /// Takes `vantage inventory`'s filter flags.
    Filter,
    /// Takes a sort field and a direction.
    Sort,
    /// Takes a saved view's name, or `save NAME`, `delete NAME`.
    View,
    /// Takes a reviewer's name, or nothing to clear the filter.
    Reviewer,
    /// Takes nothing: `:report`.
    Report,
}

/// A word the palette knows, with its aliases and what it says in the list.
#[derive(Debug, Clone, Copy)]
pub struct Verb {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub kind: VerbKind,
    pub help: &'static str,
}

/// The verbs besides the screens' names, which come from the registry.
const VERBS: &[Verb] = &[
    Verb {
        name: "project",
        aliases: &["open", "prj"],
        kind: VerbKind::Project,
        help: "open a project: project ID-or-NAME",
    },
    Verb {
        name: "ctx",
        aliases: &["context"],
        kind: VerbKind::Context,
        help: "switch context: ctx NAME",
    },
    Verb {
        name: "theme",
        aliases: &[],
        kind: VerbKind::Theme,
        help: "colours: theme dark|light",
    },
    Verb {
        name: "columns",
        aliases: &["cols"],
        kind: VerbKind::Columns,
        help: "inventory columns: columns name,owner,id,… or default",
    },
    Verb {
        name: "filter",
        aliases: &[],
        kind: VerbKind::Filter,
        help: "filter the inventory with vantage inventory's flags: filter --has-pii true",
    },
    Verb {
        name: "sort",
        aliases: &[],
        kind: VerbKind::Sort,
        help: "sort the inventory: sort FIELD [asc|desc]",
    },
    Verb {
        name: "clear",
        aliases: &[],
        kind: VerbKind::Act(Action::ClearFilters),
        help: "clear the search and every filter (the sort stays)",
    },
    Verb {
        name: "view",
        aliases: &["views"],
        kind: VerbKind::View,
        help: "saved views: view NAME, view save NAME, view delete NAME",
    },
    Verb {
        name: "reviewer",
        aliases: &["by"],
        kind: VerbKind::Reviewer,
        help: "inventory: projects reviewed by NAME (alone: all again)",
    },
    Verb {
        name: "export",
        aliases: &[],
        kind: VerbKind::Act(Action::Export),
        help: "export this view to CSV or JSON",
    },
    Verb {
        name: "report",
        aliases: &[],
        kind: VerbKind::Report,
        help: "write the report (HTML) of the workspace, scoped to the inventory's filters",
    },
    Verb {
        name: "watch",
        aliases: &["pin"],
        kind: VerbKind::Act(Action::Watch),
        help: "pin or unpin the selected project on the monitor",
    },
    Verb {
        name: "freeze",
        aliases: &[],
        kind: VerbKind::Act(Action::Freeze),
        help: "freeze or unfreeze the live monitor",
    },
    Verb {
        name: "refresh",
        aliases: &["reload"],
        kind: VerbKind::Act(Action::Refresh),
        help: "reload this screen",
    },
    Verb {
        name: "back",
        aliases: &[],
        kind: VerbKind::Act(Action::NavBack),
        help: "where you were before",
    },
    Verb {
        name: "forward",
        aliases: &[],
        kind: VerbKind::Act(Action::NavForward),
        help: "forward again after back",
    },
    Verb {
        name: "errors",
        aliases: &["log"],
        kind: VerbKind::Act(Action::ErrorLog),
        help: "the error log",
    },
    Verb {
        name: "help",
        aliases: &["?"],
        kind: VerbKind::Act(Action::Help),
        help: "keys of this screen",
    },
    Verb {
        name: "quit",
        aliases: &["q", "exit"],
        kind: VerbKind::Act(Action::Quit),
        help: "leave vantage",
    },
];

/// Every verb: the screens of the registry in tab order, then the others.
pub fn verbs() -> impl Iterator<Item = Verb> {
    let screens = SCREENS.iter().map(|info| Verb {
        name: info.names[0],
        aliases: &info.names[1..],
        kind: VerbKind::Screen(info.id),
        help: info.about,
    });
    screens.chain(VERBS.iter().copied())
}

fn verb(word: &str) -> Option<Verb> {
    let word = word.to_lowercase();
    verbs().find(|verb| verb.name == word || verb.aliases.contains(&word.as_str()))
}

fn project(text: &str) -> Command {
    if looks_like_id(text) {
        Command::ProjectId(text.to_owned())
    } else {
        Command::ProjectName(text.to_owned())
    }
}

/// What `line` means; `None` when it is blank, or a verb lacks its argument.
/// A line that is no verb is a project: by id when it looks like one.
pub fn parse(line: &str) -> Result<Command, String> {
    let line = line.trim();
    if line.is_empty() {
        return Err("type a screen, a project id or name, or an action".into());
    }
    let (word, rest) = match line.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim()),
        None => (line, ""),
    };
    let Some(known) = verb(word) else {
        return Ok(project(line));
    };
    match (known.kind, rest.is_empty()) {
        (VerbKind::Screen(tab), true) => Ok(Command::Screen(tab)),
        (VerbKind::Act(action), true) => Ok(Command::Act(action)),
        (VerbKind::Project, false) => Ok(project(rest)),
        (VerbKind::Project, true) => Err("project: give an id or a name".into()),
        (VerbKind::Context, false) => Ok(Command::Context(rest.to_owned())),
        (VerbKind::Context, true) => Err("ctx: give a context name".into()),
        (VerbKind::Filter, _) => {
            inventory::parse_filter(rest).map(|args| Command::Filter(Box::new(args)))
        }
        (VerbKind::Sort, _) => {
            inventory::parse_sort(rest).map(|(by, order)| Command::Sort(by, order))
        }
        (VerbKind::View, _) => inventory::parse_view(rest).map(Command::View),
        (VerbKind::Theme, _) => match rest.to_lowercase().as_str() {
            "dark" => Ok(Command::Theme(ThemeName::Dark)),
            "light" => Ok(Command::Theme(ThemeName::Light)),
            _ => Err("theme: dark or light".into()),
        },
        (VerbKind::Columns, _) => columns::parse_list(rest).map(Command::Columns),
        (VerbKind::Report, true) => Ok(Command::Report),
        (VerbKind::Report, false) => {
            Err("report takes nothing: it writes the inventory's current view".into())
        }
        (VerbKind::Reviewer, empty) => Ok(Command::Reviewer((!empty).then(|| rest.to_owned()))),
        // A screen or action word followed by more text is a project's name.
        (VerbKind::Screen(_) | VerbKind::Act(_), false) => Ok(project(line)),
    }
}

/// How well `pattern` matches `text` as a subsequence, ignoring case: higher is
/// better; `None` when some character of the pattern is missing. Consecutive
/// characters, a match at a word's start and a short text score higher.
pub fn fuzzy_score(pattern: &str, text: &str) -> Option<i64> {
    let pattern: Vec<char> = pattern.to_lowercase().chars().collect();
    if pattern.is_empty() {
        return Some(0);
    }
    let text: Vec<char> = text.to_lowercase().chars().collect();
    let mut score = 0i64;
    let mut want = 0;
    let mut last: Option<usize> = None;
    for (index, ch) in text.iter().enumerate() {
        if want < pattern.len() && *ch == pattern[want] {
            score += 1;
            if last.is_some_and(|last| last + 1 == index) {
                score += 5;
            }
            if index == 0 || !text[index - 1].is_alphanumeric() {
                score += 8;
            }
            last = Some(index);
            want += 1;
        }
    }
    (want == pattern.len()).then(|| score * 100 - text.len() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse_to_commands() {
        let name = |text: &str| Command::ProjectName(text.into());
        for (line, command) in [
            ("members", Command::Screen(Tab::Members)),
            (" PII ", Command::Screen(Tab::PersonalData)),
            (
                "prj_00000000002a",
                Command::ProjectId("prj_00000000002a".into()),
            ),
            ("project Invoice finder", name("Invoice finder")),
            ("Invoice finder", name("Invoice finder")),
            ("monitor tiles", name("monitor tiles")),
            ("ctx staging", Command::Context("staging".into())),
            ("theme light", Command::Theme(ThemeName::Light)),
            ("columns default", Command::Columns(None)),
            (
                "cols name,id",
                Command::Columns(Some(vec![Column::NAME, Column::ID])),
            ),
            ("reviewer alice", Command::Reviewer(Some("alice".into()))),
            ("reviewer", Command::Reviewer(None)),
            ("q", Command::Act(Action::Quit)),
            ("changes", Command::Screen(Tab::Changes)),
            ("diff", Command::Screen(Tab::Changes)),
            ("report", Command::Report),
        ] {
            assert_eq!(parse(line), Ok(command), "{line:?}");
        }
        assert!(parse("ctx").is_err());
        assert!(parse("   ").is_err());
        assert!(parse("theme blue").is_err());
        assert!(parse("columns").is_err());
    }

    #[test]
    fn fuzzy_prefers_word_starts_and_runs() {
        assert!(fuzzy_score("inv", "inventory").is_some());
        assert!(fuzzy_score("ivt", "inventory").is_some());
        assert_eq!(fuzzy_score("xyz", "inventory"), None);
        let start = fuzzy_score("mon", "monitor").unwrap();
        let middle = fuzzy_score("mon", "common").unwrap();
        assert!(start > middle);
        assert!(fuzzy_score("if", "Invoice finder") > fuzzy_score("if", "pii finder"));
    }
}
