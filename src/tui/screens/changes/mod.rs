//! The Changes screen: what changed between two snapshots of the review
//! history (the newest two, or two the user picks), the most serious kinds
//! first, filterable by kind. `Enter` opens the project screen for a project
//! change. The history is read through the executor, never from here.

mod view;

use time::OffsetDateTime;

use super::paged::{ListOperation, ListPage};
use super::paged::{PageReply, PageSource, PagedList, Pages};
use super::{Screen, ScreenView};
use crate::api::model::Pagination;
use crate::api::page::PageWalk;
use crate::history::{Change, ChangeKind, SnapshotInfo};
use crate::tui::action::Action;
use crate::tui::effect::{Cx, ErrorInfo, Slot, answers};
use crate::tui::focus::{ProjectOpen, ProjectRef};
use crate::tui::nav::{Nav, ProjectNav};
use crate::tui::review::ops::{DiffSnapshots, ListSnapshots};
use crate::tui::screens::actions::ScreenAction;
use crate::tui::vocab::ChangeSet;
use crate::tui::widgets::display::utc_datetime;
use crate::tui::widgets::menu::{self, Menu};

/// The diff between the pair of snapshots (one "page": all of it).
pub const CHANGES: Slot = Slot::new("changes", "changes");
/// The snapshots, for the picker.
pub const SNAPSHOTS: Slot = Slot::new("changes", "snapshots");

/// The answers the Changes screen gets.
#[derive(Debug)]
pub enum Msg {
    Changes(Result<ChangeSet, ErrorInfo>),
    Snapshots(Result<Vec<SnapshotInfo>, ErrorInfo>),
}

/// The diff is the local history's, not a walk of the service's pages.
impl ListOperation for DiffSnapshots {
    fn walk(&self) -> Option<PageWalk> {
        None
    }
}

impl ListPage for ChangeSet {
    fn shape(&self) -> Option<(usize, &Pagination, Option<i64>)> {
        None
    }
}

/// Which popup is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Picker {
    Kind,
    /// The older snapshot of the pair.
    Before,
    /// The newer one, once the older (its id) is picked.
    After(i64),
}

#[derive(Debug)]
pub struct ChangesScreen {
    /// The rows on screen: the changes of the filtered kind, most serious first.
    pub list: PagedList<Change>,
    /// Every change between the two snapshots.
    all: Vec<Change>,
    pub kind_filter: Option<ChangeKind>,
    /// The two snapshots compared, once loaded (`None`: fewer than two exist).
    pub before: Option<SnapshotInfo>,
    pub after: Option<SnapshotInfo>,
    /// The pair the user picked; `None` is the newest two.
    pub between: Option<(i64, i64)>,
    snapshots: Vec<SnapshotInfo>,
    snapshots_pending: Option<u64>,
    picker: Option<(Picker, Menu)>,
    /// Set when a snapshot landed while another tab was shown: reload on return.
    stale: bool,
}

impl Default for ChangesScreen {
    fn default() -> Self {
        Self {
            list: PagedList::new(CHANGES, 20),
            all: Vec::new(),
            kind_filter: None,
            before: None,
            after: None,
            between: None,
            snapshots: Vec::new(),
            snapshots_pending: None,
            picker: None,
            stale: false,
        }
    }
}

/// Whether a change is about a project (so `Enter` can open it).
pub fn is_project_change(kind: &ChangeKind) -> bool {
    !matches!(
        kind,
        ChangeKind::MemberJoined | ChangeKind::MemberLeft | ChangeKind::RoleChanged
    )
}

impl ChangesScreen {
    /// The diff is one page, whatever the cursor.
    fn pages(between: Option<(i64, i64)>) -> impl PageSource<Msg = Msg> {
        Pages::new(move |_| DiffSnapshots { between }, Msg::Changes)
    }

    fn reload(&mut self, cx: &mut Cx) {
        self.stale = false;
        self.list.reload(cx, Self::pages(self.between));
    }

    /// A snapshot was recorded: the newest pair changed.
    pub fn snapshot_landed(&mut self, visible: bool, cx: &mut Cx) {
        if !self.list.started {
            return;
        }
        if visible {
            self.reload(cx);
        } else {
            self.stale = true;
        }
    }

    /// The kinds present, most serious first, with their counts.
    pub fn kind_counts(&self) -> Vec<(ChangeKind, usize)> {
        let mut counts: Vec<(ChangeKind, usize)> = Vec::new();
        for change in &self.all {
            match counts.last_mut() {
                Some((kind, count)) if *kind == change.kind => *count += 1,
                _ => counts.push((change.kind.clone(), 1)),
            }
        }
        counts
    }

    /// Puts the rows of the filtered kind on screen, keeping the selection near.
    fn apply_filter(&mut self) {
        self.list.rows = match &self.kind_filter {
            Some(kind) => self
                .all
                .iter()
                .filter(|change| &change.kind == kind)
                .cloned()
                .collect(),
            None => self.all.clone(),
        };
        self.list.select(0);
    }

    /// Takes a diff as the history answered it.
    pub fn show(&mut self, set: ChangeSet, now: OffsetDateTime) {
        let mut changes = set.changes;
        // Grouped by kind, the most serious first (the diff already orders them).
        changes.sort_by_key(|change| change.kind.seriousness_rank());
        self.all = changes;
        self.before = set.before;
        self.after = set.after;
        if self
            .kind_filter
            .as_ref()
            .is_some_and(|kind| !self.all.iter().any(|change| &change.kind == kind))
        {
            self.kind_filter = None;
        }
        self.list.rows.clear();
        self.list.append(
            Vec::new(),
            Pagination {
                has_more: false,
                next_cursor: None,
            },
            now,
        );
        self.apply_filter();
    }

    fn open_kind_picker(&mut self) {
        let counts = self.kind_counts();
        let mut items = vec![format!("all kinds ({})", self.all.len())];
        items.extend(
            counts
                .iter()
                .map(|(kind, count)| format!("{} ({count})", kind.as_str())),
        );
        let selected = self
            .kind_filter
            .as_ref()
            .and_then(|kind| counts.iter().position(|(k, _)| k == kind))
            .map_or(0, |index| index + 1);
        self.picker = Some((Picker::Kind, Menu::new("Show kind", items, selected)));
    }

    fn snapshot_items(snapshots: &[SnapshotInfo]) -> Vec<String> {
        snapshots
            .iter()
            .map(|info| {
                format!(
                    "#{}  {}  {} projects, {} members",
                    info.id,
                    utc_datetime(info.taken_at),
                    info.projects,
                    info.members
                )
            })
            .collect()
    }

    fn open_snapshot_picker(&mut self, cx: &mut Cx) {
        if self.snapshots.len() < 2 {
            self.snapshots_pending = Some(cx.request(SNAPSHOTS, ListSnapshots, Msg::Snapshots));
            return;
        }
        // Newest first; the older of the pair is picked first.
        let newest_first: Vec<SnapshotInfo> =
            self.snapshots.iter().rev().skip(1).cloned().collect();
        let selected = self
            .before
            .as_ref()
            .and_then(|before| newest_first.iter().position(|info| info.id == before.id))
            .unwrap_or(0);
        self.picker = Some((
            Picker::Before,
            Menu::new(
                "Compare from (older snapshot)",
                Self::snapshot_items(&newest_first),
                selected,
            ),
        ));
    }

    fn picked(&mut self, picker: Picker, index: usize, cx: &mut Cx) {
        self.picker = None;
        match picker {
            Picker::Kind => {
                self.kind_filter = index
                    .checked_sub(1)
                    .and_then(|index| self.kind_counts().get(index).map(|(kind, _)| kind.clone()));
                self.apply_filter();
            }
            Picker::Before => {
                let newest_first: Vec<&SnapshotInfo> =
                    self.snapshots.iter().rev().skip(1).collect();
                let Some(before) = newest_first.get(index).map(|info| info.id) else {
                    return;
                };
                let newer: Vec<SnapshotInfo> = self
                    .snapshots
                    .iter()
                    .rev()
                    .filter(|info| info.id > before)
                    .cloned()
                    .collect();
                self.picker = Some((
                    Picker::After(before),
                    Menu::new(
                        "Compare to (newer snapshot)",
                        Self::snapshot_items(&newer),
                        0,
                    ),
                ));
            }
            Picker::After(before) => {
                let newer: Vec<&SnapshotInfo> = self
                    .snapshots
                    .iter()
                    .rev()
                    .filter(|info| info.id > before)
                    .collect();
                let Some(after) = newer.get(index).map(|info| info.id) else {
                    return;
                };
                let newest = self.snapshots.last().map(|info| info.id);
                let previous = self.snapshots.iter().rev().nth(1).map(|info| info.id);
                // The newest pair is the default: it follows new snapshots.
                self.between = if Some(after) == newest && Some(before) == previous {
                    None
                } else {
                    Some((before, after))
                };
                self.reload(cx);
            }
        }
    }

    /// `Enter` on a project change: the project screen, on what the change knows.
    fn open_selected(&self, cx: &mut Cx) {
        let Some(change) = self.list.selected_row() else {
            return;
        };
        if !is_project_change(&change.kind) {
            cx.notify("a member change: open the members tab (3) to see them".into());
            return;
        }
        if change.kind == ChangeKind::ProjectRemoved {
            cx.notify("the project is gone from the newer snapshot".into());
            return;
        }
        // The change knows the id and name; the project screen finds the
        // rest (the loaded row, or a search), never zeros made up here.
        let project = ProjectRef {
            id: change.id.clone(),
            name: change.name.clone(),
        };
        cx.navigate(Nav::Project(ProjectNav::Open(Box::new(
            ProjectOpen::by_ref(project),
        ))));
    }

    /// An answer to one of the screen's requests. True when anything changed.
    pub fn update(&mut self, token: u64, msg: Msg, cx: &mut Cx) -> bool {
        match msg {
            Msg::Snapshots(reply) => {
                if !answers(&mut self.snapshots_pending, token) {
                    return false;
                }
                match reply {
                    Ok(snapshots) => {
                        self.snapshots = snapshots;
                        if self.snapshots.len() < 2 {
                            cx.notify("the history holds fewer than two snapshots".into());
                        } else {
                            self.open_snapshot_picker(cx);
                        }
                    }
                    Err(error) => cx.notify(format!("cannot list snapshots: {}", error.summary)),
                }
                true
            }
            Msg::Changes(reply) => {
                match self.list.take_reply(CHANGES, token, reply, cx) {
                    PageReply::Stale => return false,
                    PageReply::Ok { reply: set, .. } => {
                        self.show(set, cx.now);
                        // The picker's list is stale once a snapshot may have landed.
                        self.snapshots.clear();
                    }
                    PageReply::Failed => {}
                }
                true
            }
        }
    }
}

impl Screen for ChangesScreen {
    fn title(&self) -> &'static str {
        "Changes"
    }

    fn activate(&mut self, cx: &mut Cx) {
        if !self.list.started || self.stale {
            self.reload(cx);
        }
    }

    fn captures_keys(&self) -> bool {
        self.picker.is_some()
    }

    fn handle_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        if self.picker.is_some() {
            if let Some((picker, index)) = menu::choose(&mut self.picker, action) {
                self.picked(picker, index, cx);
            }
            return true;
        }
        if self.list.navigate(action, cx, Self::pages(self.between)) {
            return true;
        }
        match action {
            Action::Open => self.open_selected(cx),
            Action::Filter | Action::Toggles => self.open_kind_picker(),
            Action::Range => self.open_snapshot_picker(cx),
            Action::Refresh => self.reload(cx),
            Action::ClearFilters => {
                self.kind_filter = None;
                self.apply_filter();
                if self.between.take().is_some() {
                    self.reload(cx);
                }
            }
            Action::Copy => cx.copy(self.list.selected_row().map(|change| change.id.as_str())),
            _ => return false,
        }
        true
    }

    fn last_loaded(&self) -> Option<OffsetDateTime> {
        self.list.loaded_at
    }

    /// The changes on screen: those of the filtered kind, all loaded.
    fn export_rows(&self) -> Option<crate::tui::export::ExportRows> {
        self.after.as_ref()?;
        Some(crate::tui::export::ExportRows::Changes(
            std::sync::Arc::new(self.list.rows.clone()),
        ))
    }

    fn actions(&self) -> Vec<ScreenAction> {
        vec![
            ScreenAction::help_only(Action::Up, "move up"),
            ScreenAction::help_only(Action::Down, "move down"),
            ScreenAction::new(
                Action::Open,
                "open project",
                "open the project of a project change",
            ),
            ScreenAction::new(Action::Filter, "kind", "show one kind of change"),
            ScreenAction::new(
                Action::Range,
                "pick snapshots",
                "pick the two snapshots to compare",
            ),
            ScreenAction::new(
                Action::ClearFilters,
                "newest two",
                "all kinds, the newest two snapshots",
            ),
            ScreenAction::help_only(Action::Refresh, "read the history again"),
            ScreenAction::help_only(Action::Copy, "copy the project's or member's id"),
            ScreenAction::help_only(
                Action::Export,
                "export these changes to CSV, as `vantage changes` writes them",
            ),
        ]
    }

    fn draw(&self, frame: &mut ratatui::Frame, area: ratatui::layout::Rect, view: &ScreenView) {
        view::draw(self, frame, area, view);
    }
}
