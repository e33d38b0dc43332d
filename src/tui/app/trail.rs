//! Where you are, and where you were: breadcrumbs for the header, and back and
//! forward (`[`/`]`) across tabs and projects, like a browser's.

use super::App;
use crate::tui::effect::Turn;
use crate::tui::focus::{ProjectOpen, ProjectRef};
use crate::tui::nav::{ProjectNav, Tab};
use crate::tui::screens::inventory::InventoryView;

/// Most places kept each way.
const TRAIL_LIMIT: usize = 50;

/// Which way `[` and `]` walk the trail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Way {
    Back,
    Forward,
}

/// A place the dashboard showed: a tab, the inventory with its filters and
/// sort (a jump from insights clears them; back shows them again), or a
/// project's screen.
#[derive(Debug, Clone, PartialEq)]
pub enum Location {
    /// A tab, with the project it showed when it is about the one in focus
    /// (Monitor, Analytics, Personal data): back shows that project again.
    Tab(Tab, Option<ProjectRef>),
    Inventory(Box<InventoryView>),
    Project(Box<ProjectOpen>),
}

impl Location {
    fn same_place(&self, other: &Location) -> bool {
        match (self, other) {
            (Location::Tab(a, _), Location::Tab(b, _)) => a == b,
            // A filter changed on the inventory is no visit of its own.
            (Location::Inventory(_), Location::Inventory(_)) => true,
            (Location::Project(a), Location::Project(b)) => a.project.id == b.project.id,
            _ => false,
        }
    }
}

/// The places before and after the current one.
#[derive(Debug, Default)]
pub struct Trail {
    back: Vec<Location>,
    forward: Vec<Location>,
    /// Set while back or forward moves, so the move is not recorded as a visit.
    traveling: bool,
}

impl Trail {
    /// A message moved from `before` to `after`: remember where it was.
    pub fn record(&mut self, before: Location, after: Location) {
        if std::mem::take(&mut self.traveling) || before.same_place(&after) {
            return;
        }
        push_bounded(&mut self.back, before);
        self.forward.clear();
    }

    /// How many places lie behind and ahead.
    pub fn depth(&self) -> (usize, usize) {
        (self.back.len(), self.forward.len())
    }
}

fn push_bounded(places: &mut Vec<Location>, place: Location) {
    places.push(place);
    if places.len() > TRAIL_LIMIT {
        places.remove(0);
    }
}

impl App {
    /// Where the dashboard is now.
    pub fn location(&self) -> Location {
        match &self.project {
            Some(project) if self.tab == Tab::Inventory => {
                // The row is found again on the way back (loaded, or searched
                // for), so its source and age are told anew.
                Location::Project(Box::new(ProjectOpen::by_ref(project.project_ref())))
            }
            _ if self.tab == Tab::Inventory => Location::Inventory(Box::new(self.inventory.view())),
            _ => Location::Tab(
                self.tab,
                self.focused_project()
                    .filter(|_| self.tab_screen(self.tab).about_focused_project())
                    .cloned(),
            ),
        }
    }

    /// How many places `[` and `]` can reach.
    pub fn trail_depth(&self) -> (usize, usize) {
        self.trail.depth()
    }

    /// `Inventory › Invoice finder`: the tab, then the project it shows. A
    /// project screen names the tab `esc` returns to (`Changes › Ledger`).
    pub fn breadcrumbs(&self) -> Vec<String> {
        let tab = match &self.project {
            Some(_) if self.tab == Tab::Inventory => self.project_origin(),
            _ => self.tab,
        };
        let mut crumbs = vec![tab.title().to_owned()];
        let named = |project: ProjectRef| project.name.unwrap_or(project.id);
        let project = if self.tab == Tab::Inventory {
            self.project
                .as_ref()
                .map(|project| named(project.project_ref()))
        } else if self.tab_screen(self.tab).about_focused_project() {
            self.focused_project().cloned().map(named)
        } else {
            None
        };
        crumbs.extend(project);
        crumbs
    }

    /// `[` (back) or `]` (forward): the place that way. True when it moved.
    pub(super) fn travel(&mut self, way: Way, turn: &mut Turn<'_>) -> bool {
        let here = self.location();
        let trail = &mut self.trail;
        let (from, to, word) = match way {
            Way::Back => (&mut trail.back, &mut trail.forward, "back"),
            Way::Forward => (&mut trail.forward, &mut trail.back, "forward"),
        };
        let Some(place) = from.pop() else {
            self.status.notice = Some((format!("nothing to go {word} to"), turn.now));
            return true;
        };
        push_bounded(to, here);
        self.trail.traveling = true;
        match place {
            Location::Tab(tab, project) => {
                // The project it showed is in focus again, then the tab shows it.
                if project.is_some() {
                    self.focus.project = project;
                }
                self.show_tab(tab, turn);
            }
            Location::Inventory(view) => {
                self.show_tab(Tab::Inventory, turn);
                let mut cx = turn.cx(&mut self.next_token);
                self.inventory.restore_view(*view, &mut cx);
            }
            Location::Project(item) => self.navigate_project(ProjectNav::Open(item), turn),
        }
        true
    }

    /// A tab as the palette or the trail names it: the inventory is its list,
    /// so a project view open there closes.
    pub(super) fn show_tab(&mut self, tab: Tab, turn: &mut Turn<'_>) {
        if tab == Tab::Inventory && self.project.take().is_some() {
            self.select_focus_in_inventory();
        }
        self.switch_tab(tab, turn);
    }
}
