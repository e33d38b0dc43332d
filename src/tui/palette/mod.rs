//! The command palette on `:` (k9s): a screen by name, a project by id or by
//! name, a context, an action. A fuzzy match lists the candidates under the
//! input, Tab completes, ↑/↓ walk the history (kept in the data dir), Esc
//! closes. The palette only reads keys and says which [`Command`] to run; the
//! App runs it (`app/commands.rs`).

pub(crate) mod command;
pub(crate) mod history;
pub(crate) mod inventory;
pub(crate) mod view;

use crossterm::event::{KeyCode, KeyEvent};

pub use command::{Command, VerbKind, verbs};
pub use history::History;

use crate::api::model::InventoryItem;
use crate::tui::widgets::input::TextField;

/// Most candidates listed under the input.
pub const CANDIDATE_LIMIT: usize = 8;

/// One line of the list under the input: what Tab puts in the field, and what
/// it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub text: String,
    pub help: String,
}

/// What a key did to the palette.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The input, the list or the message changed.
    Changed,
    Closed,
    Run(Command),
}

/// The palette: closed, or open with what is typed.
#[derive(Debug, Default)]
pub struct Palette {
    field: Option<TextField>,
    history: History,
    /// While walking the history with ↑/↓: how far back (1 = the newest).
    browsing: usize,
    /// The candidate Tab completed last, so the next Tab takes the one after.
    completed: Option<usize>,
    /// What was typed before Tab replaced it, so the list stays put while Tab cycles.
    completed_from: Option<String>,
    /// Why the last Enter ran nothing.
    pub message: Option<String>,
    /// The names `:ctx` completes; filled by whoever knows the contexts.
    pub context_names: Vec<String>,
    /// The saved views `:view` completes, of the context on screen.
    pub view_names: Vec<String>,
    /// The finding type ids `:filter --finding-type-id` completes.
    pub finding_type_ids: Vec<String>,
    /// A project name the service is searched for, with the search's token:
    /// its project opens when the search answers.
    pub pending_jump: Option<(String, u64)>,
    /// The projects the last search for a name found, offered as candidates
    /// beside the loaded rows when several matched.
    pub found: Vec<InventoryItem>,
    /// A project line run but not yet known to exist: it goes into the
    /// history once its project loads, never after a 404.
    unconfirmed: Option<String>,
}

impl Palette {
    pub fn with_history(history: History) -> Self {
        Self {
            history,
            ..Self::default()
        }
    }

    pub fn is_open(&self) -> bool {
        self.field.is_some()
    }

    pub fn open(&mut self) {
        self.field = Some(TextField::default());
        self.browsing = 0;
        self.completed = None;
        self.completed_from = None;
        self.message = None;
    }

    pub fn close(&mut self) {
        self.field = None;
    }

    /// What is typed.
    pub fn value(&self) -> &str {
        self.field.as_ref().map_or("", TextField::value)
    }

    pub fn field(&self) -> Option<&TextField> {
        self.field.as_ref()
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    fn set_value(&mut self, value: &str) {
        self.field = Some(TextField::new(value));
    }

    /// Opens the palette on `value`, saying `message` (a name that matched
    /// several projects: the list under it offers them).
    pub fn reopen(&mut self, value: &str, message: String) {
        self.open();
        self.set_value(value);
        self.message = Some(message);
    }

    /// The project line run last, once its project loaded (`true`: it goes
    /// into the history) or failed to (`false`: it is forgotten). Returns
    /// whether the history changed.
    pub fn confirm_project(&mut self, loaded: bool) -> bool {
        match self.unconfirmed.take() {
            Some(line) if loaded => {
                self.history.push(&line);
                true
            }
            _ => false,
        }
    }

    /// A project line whose project was never asked for (no match): forgotten.
    pub fn forget_unconfirmed(&mut self) {
        self.unconfirmed = None;
    }

    /// The candidate Enter takes: the one Tab completed, or else the best one
    /// while the line is a project (an id prefix or a name), as k9s and VS
    /// Code palettes do. A screen, an action or a verb with its argument runs
    /// as typed.
    pub fn highlighted(&self, candidates: &[Candidate]) -> Option<usize> {
        if self.completed.is_some() {
            return self.completed;
        }
        let line = self.value().trim();
        let is_project = matches!(
            command::parse(&expand_prefix(line)),
            Ok(Command::ProjectId(_) | Command::ProjectName(_))
        );
        (is_project && !candidates.is_empty()).then_some(0)
    }

    /// A key while the palette is open. `projects` are the loaded inventory
    /// rows, which names and ids complete from.
    pub fn handle_key(&mut self, key: &KeyEvent, projects: &[InventoryItem]) -> Outcome {
        match key.code {
            KeyCode::Esc => {
                self.close();
                Outcome::Closed
            }
            KeyCode::Enter => {
                let candidates = self.candidates(projects);
                match self.highlighted(&candidates) {
                    // A verb that takes an argument is completed, not run.
                    Some(at) if candidates[at].text.ends_with(' ') => {
                        self.set_value(&candidates[at].text);
                        self.completed = None;
                        self.completed_from = None;
                        Outcome::Changed
                    }
                    Some(at) => self.submit(candidates[at].text.clone()),
                    None => self.submit(self.value().to_owned()),
                }
            }
            KeyCode::Tab | KeyCode::BackTab => {
                let candidates = self.candidates(projects);
                if candidates.is_empty() {
                    return Outcome::Changed;
                }
                let count = candidates.len();
                let next = match (self.completed, key.code) {
                    (None, KeyCode::BackTab) => count - 1,
                    (None, _) => 0,
                    (Some(at), KeyCode::BackTab) => (at + count - 1) % count,
                    (Some(at), _) => (at + 1) % count,
                };
                // Completing keeps the candidates of what was typed.
                let typed = self
                    .completed_from
                    .take()
                    .unwrap_or_else(|| self.value().to_owned());
                self.set_value(&candidates[next].text);
                self.completed_from = Some(typed);
                self.completed = Some(next);
                Outcome::Changed
            }
            KeyCode::Up | KeyCode::Down => {
                let entries = self.history.entries();
                let back = if key.code == KeyCode::Up {
                    (self.browsing + 1).min(entries.len())
                } else {
                    self.browsing.saturating_sub(1)
                };
                self.browsing = back;
                let value = match back {
                    0 => String::new(),
                    back => entries[entries.len() - back].clone(),
                };
                self.set_value(&value);
                self.completed = None;
                self.completed_from = None;
                Outcome::Changed
            }
            _ => {
                let Some(field) = &mut self.field else {
                    return Outcome::Closed;
                };
                field.handle_key(key);
                self.completed = None;
                self.completed_from = None;
                self.message = None;
                Outcome::Changed
            }
        }
    }

    /// Enter: the command `line`, kept in the history (a project's once it
    /// loads); or why there is none.
    fn submit(&mut self, line: String) -> Outcome {
        let line = line.trim().to_owned();
        if line.is_empty() {
            self.close();
            return Outcome::Closed;
        }
        match command::parse(&expand_prefix(&line)) {
            Ok(command) => {
                self.unconfirmed = None;
                match command {
                    Command::ProjectId(_) | Command::ProjectName(_) => {
                        self.unconfirmed = Some(line);
                    }
                    _ => self.history.push(&line),
                }
                self.found.clear();
                self.close();
                Outcome::Run(command)
            }
            Err(why) => {
                self.message = Some(why);
                Outcome::Changed
            }
        }
    }

    /// The candidates for what is typed, best first: the history and the verbs
    /// while nothing is typed; then verbs, contexts and loaded projects that
    /// match, fuzzily.
    pub fn candidates(&self, projects: &[InventoryItem]) -> Vec<Candidate> {
        let typed = self
            .completed_from
            .as_deref()
            .unwrap_or(self.value())
            .trim();
        if typed.is_empty() {
            let recent = self
                .history
                .entries()
                .iter()
                .rev()
                .take(3)
                .map(|entry| Candidate {
                    text: entry.clone(),
                    help: "recent".into(),
                });
            let verbs = verbs()
                .filter(|verb| self.offers(verb))
                .map(|verb| verb_candidate(&verb));
            return recent.chain(verbs).take(CANDIDATE_LIMIT).collect();
        }
        let (word, rest) = match typed.split_once(char::is_whitespace) {
            Some((word, rest)) => (word.to_lowercase(), rest.trim()),
            None => (typed.to_lowercase(), ""),
        };
        let is = |names: &[&str]| names.contains(&word.as_str());
        // After the verb, as typed: a trailing blank asks for the next word.
        let args = self
            .completed_from
            .as_deref()
            .unwrap_or(self.value())
            .trim_start()
            .split_once(char::is_whitespace)
            .map_or("", |(_, args)| args.trim_start());
        if is(&["filter"]) {
            return take(inventory::filter_candidates(args, &self.finding_type_ids));
        }
        if is(&["sort"]) {
            return take(inventory::sort_candidates(args));
        }
        if is(&["view", "views"]) {
            return take(inventory::view_candidates(args, &self.view_names));
        }
        let mut scored: Vec<(i64, Candidate)> = Vec::new();
        if is(&["columns", "cols"]) {
            scored.extend(column_candidates(rest));
        } else if is(&["ctx", "context"]) {
            for name in &self.context_names {
                if let Some(score) = command::fuzzy_score(rest, name) {
                    scored.push((
                        score,
                        Candidate {
                            text: format!("ctx {name}"),
                            help: "context".into(),
                        },
                    ));
                }
            }
        } else {
            let pattern = if is(&["project", "open", "prj"]) {
                rest
            } else {
                for verb in verbs().filter(|verb| self.offers(verb)) {
                    let best = std::iter::once(verb.name)
                        .chain(verb.aliases.iter().copied())
                        .filter_map(|name| command::fuzzy_score(typed, name))
                        .max();
                    if let Some(score) = best {
                        // A verb beats a project at equal match.
                        scored.push((score + 50, verb_candidate(&verb)));
                    }
                }
                typed
            };
            let found = self
                .found
                .iter()
                .filter(|item| !projects.iter().any(|row| row.id == item.id));
            for item in projects.iter().chain(found) {
                let by_name = item
                    .name
                    .as_deref()
                    .and_then(|name| command::fuzzy_score(pattern, name));
                let by_id = item
                    .id
                    .starts_with(pattern)
                    .then_some(10_000 - item.id.len() as i64);
                if let Some(score) = by_name.max(by_id) {
                    scored.push((score, project_candidate(item)));
                }
            }
        }
        // Stable: equal scores keep the list's order.
        scored.sort_by_key(|scored| std::cmp::Reverse(scored.0));
        scored
            .into_iter()
            .map(|(_, candidate)| candidate)
            .take(CANDIDATE_LIMIT)
            .collect()
    }

    /// Which candidate Tab completed last.
    pub fn completed(&self) -> Option<usize> {
        self.completed
    }

    /// Whether the list offers `verb`: `ctx` only when contexts are configured.
    fn offers(&self, verb: &command::Verb) -> bool {
        verb.kind != VerbKind::Context || !self.context_names.is_empty()
    }
}

/// A single word that starts exactly one verb's name means that verb (`memb`).
fn expand_prefix(line: &str) -> String {
    if line.contains(char::is_whitespace) || crate::tui::focus::looks_like_id(line) {
        return line.to_owned();
    }
    let lower = line.to_lowercase();
    let matching: Vec<command::Verb> = verbs()
        .filter(|verb| verb.name.starts_with(&lower))
        .collect();
    match matching.as_slice() {
        [only] if matches!(only.kind, VerbKind::Screen(_) | VerbKind::Act(_)) => {
            only.name.to_owned()
        }
        _ => line.to_owned(),
    }
}

/// The first candidates, as many as the list shows.
fn take(candidates: Vec<Candidate>) -> Vec<Candidate> {
    candidates.into_iter().take(CANDIDATE_LIMIT).collect()
}

fn verb_candidate(verb: &command::Verb) -> Candidate {
    let text = match verb.kind {
        VerbKind::Project => "project ",
        VerbKind::Context => "ctx ",
        VerbKind::Theme => "theme ",
        VerbKind::Columns => "columns ",
        VerbKind::Filter => "filter ",
        VerbKind::Sort => "sort ",
        VerbKind::View => "view ",
        _ => verb.name,
    };
    Candidate {
        text: text.to_owned(),
        help: verb.help.to_owned(),
    }
}

/// `columns` completes the name being typed after the ones given.
fn column_candidates(typed: &str) -> Vec<(i64, Candidate)> {
    use crate::tui::screens::inventory::columns::Column;
    let (given, last) = match typed.rfind(',') {
        Some(at) => (&typed[..=at], typed[at + 1..].trim()),
        None => ("", typed),
    };
    let default = given.is_empty().then_some("default");
    default
        .into_iter()
        .chain(Column::all().map(Column::name))
        .filter_map(|name| {
            let score = command::fuzzy_score(last, name)?;
            let candidate = Candidate {
                text: format!("columns {given}{name}"),
                help: "inventory column".into(),
            };
            Some((score, candidate))
        })
        .collect()
}

/// A loaded project: Tab puts its id in the field (unambiguous), the list shows
/// its name.
fn project_candidate(item: &InventoryItem) -> Candidate {
    Candidate {
        text: item.id.clone(),
        help: format!(
            "project {}",
            crate::text::fit(item.name.as_deref().unwrap_or("(unnamed)"), 60)
        ),
    }
}
