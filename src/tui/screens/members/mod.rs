//! The member directory: search, role and SCIM filters, every sort of the
//! contract, pages loaded as the cursor nears the end. The list gives references
//! only; details are fetched lazily for the rows on screen, a few at a time,
//! and cached by user id.

mod filters;
mod roles;
mod view;

use std::cell::Cell;
use std::collections::HashMap;
use std::ops::Range;

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use time::OffsetDateTime;

use super::paged::{
    DetailPane, PageReply, PageSource, PagedList, budget_allows, reversed, workspace_pages,
};
use super::{Screen, ScreenView};
use crate::api::MemberListParams;
use crate::api::model::Page;
use crate::api::model::{Member, MemberRef, MemberSortBy, Role, SortOrder};
use crate::tui::action::Action;
use crate::tui::effect::{Cx, ErrorInfo, Slot, answered_lane};
use crate::tui::ops::{GetMember, ListMembers};
use crate::tui::screens::actions::{RowWords, ScreenAction, movement};
use crate::tui::screens::filtered::{self, FilteredList};
use crate::tui::widgets::checklist::CheckMenu;
use crate::tui::widgets::menu::Menu;
use crate::tui::widgets::search::SearchBox;

/// References per page: the contract's maximum, to keep requests few.
pub const PAGE_SIZE: u32 = 100;
/// Member details in flight at most; each has its own request lane.
pub const DETAIL_LANES: usize = 4;
/// Height of the detail pane.
const DETAIL_HEIGHT: u16 = 8;
/// While the request budget is low, one detail is asked for this often, so
/// the budget is read anew without spending the reserve.
const PAUSED_PROBE: time::Duration = time::Duration::seconds(20);

/// The screen's requests: the list's pages, the role walk's pages, and a
/// few lanes of member details, so that several load at once without
/// aborting one another (the lane count bounds what is in flight).
pub const PAGE: Slot = Slot::new("members", "page");
pub const ROLES: Slot = Slot::new("members", "roles");
pub const DETAIL: Slot = Slot::new("members", "detail");

/// The answers the screen gets.
#[derive(Debug)]
pub enum Msg {
    Page(Result<Page<MemberRef>, ErrorInfo>),
    Roles(Result<Page<MemberRef>, ErrorInfo>),
    Detail(Result<Member, ErrorInfo>),
}

/// What is known of one member beyond the reference.
#[derive(Debug, Clone, PartialEq)]
pub enum Detail {
    Loaded(Box<Member>),
    /// 404 `member_not_found`: pending, removed or otherwise not active.
    NotActive,
    Failed(ErrorInfo),
}

/// A line of the filter menu: one role (several match any), or SCIM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemberFilter {
    Role(Role),
    Scim,
}

#[derive(Debug)]
pub struct MembersScreen {
    /// The search text as typed; the server ignores terms under 3 characters.
    pub search: String,
    pub roles: Vec<Role>,
    pub sort_by: Option<MemberSortBy>,
    pub sort_order: SortOrder,
    pub scim_managed: Option<bool>,
    search_box: SearchBox,
    /// The references; its viewport is 0 before the first draw: nothing is on
    /// screen, so no detail is fetched.
    pub list: PagedList<MemberRef>,
    pub details: HashMap<String, Detail>,
    /// Roles learned from lists filtered by one role: the member detail does
    /// not carry the role (`roles.rs` lists each role for the rows on screen).
    pub known_roles: HashMap<String, Role>,
    pub role_walk: roles::RoleWalk,
    /// Lane index to the request in it: (token, user id).
    lanes: [Option<(u64, String)>; DETAIL_LANES],
    /// Detail requests made so far.
    pub detail_requests: usize,
    /// Set by a draw that found rows on screen without details and a free lane.
    wants_details: Cell<bool>,
    /// Since when detail fetching waits for the request budget to refill.
    paused_since: Option<OffsetDateTime>,
    /// Whether Members is the screen shown: details are read only then.
    active: bool,
    detail: DetailPane,
    sort_menu: Option<Menu>,
    filters: Option<CheckMenu<MemberFilter>>,
}

impl Default for MembersScreen {
    fn default() -> Self {
        Self {
            search: String::new(),
            roles: Vec::new(),
            sort_by: None,
            sort_order: SortOrder::Desc,
            scim_managed: None,
            search_box: SearchBox::default(),
            list: PagedList::new(PAGE, 0),
            details: HashMap::new(),
            known_roles: HashMap::new(),
            role_walk: roles::RoleWalk::default(),
            lanes: Default::default(),
            detail_requests: 0,
            wants_details: Cell::new(false),
            paused_since: None,
            active: false,
            detail: DetailPane::new(DETAIL_HEIGHT),
            sort_menu: None,
            filters: None,
        }
    }
}

/// The direction a sort starts in: text A to Z, the rest largest or newest first.
fn natural_order(sort_by: Option<&MemberSortBy>) -> SortOrder {
    match sort_by {
        Some(MemberSortBy::DisplayName) => SortOrder::Asc,
        _ => SortOrder::Desc,
    }
}

impl MembersScreen {
    /// The list parameters for the current filters and sort.
    pub fn params(&self) -> MemberListParams {
        MemberListParams {
            limit: Some(PAGE_SIZE),
            query: Some(self.search.trim().to_owned()).filter(|q| !q.is_empty()),
            role: self.roles.clone(),
            sort_by: self.sort_by.clone(),
            // The contract allows a direction only with a sort field.
            sort_order: self.sort_by.as_ref().map(|_| self.sort_order.clone()),
            scim_managed: self.scim_managed,
        }
    }

    /// How the list asks for a page under the current filters.
    fn pages(&self, cx: &Cx) -> impl PageSource<Msg = Msg> + use<> {
        workspace_pages::<ListMembers, _>(cx, self.params(), Msg::Page)
    }

    fn prefetch(&mut self, cx: &mut Cx) {
        let pages = self.pages(cx);
        self.list.prefetch(cx, pages);
    }

    /// The rows on screen, as the next draw will show them.
    pub fn visible_rows(&self) -> Range<usize> {
        self.list.visible_rows()
    }

    /// Members on screen whose detail is neither known nor asked for.
    fn missing_details(&self) -> impl Iterator<Item = &str> {
        self.list.rows[self.visible_rows()]
            .iter()
            .map(|row| row.user_id.as_str())
            .filter(|id| !self.details.contains_key(*id) && !self.in_flight(id))
    }

    fn in_flight(&self, user_id: &str) -> bool {
        self.lanes
            .iter()
            .flatten()
            .any(|(_, id)| id.as_str() == user_id)
    }

    /// Detail requests waiting for a reply.
    pub fn details_in_flight(&self) -> usize {
        self.lanes.iter().flatten().count()
    }

    /// Whether detail fetching waits for the request budget to refill: the
    /// rest of the budget is kept for what the user does next.
    pub fn details_paused(&self) -> bool {
        self.paused_since.is_some()
    }

    /// The request budget as the service last told it; fetching resumes at
    /// once when it has refilled.
    pub fn set_rate(&mut self, remaining: u32, limit: u32) {
        self.list.set_rate(remaining, limit);
        if self.paused_since.is_some() && budget_allows(self.list.rate()) {
            self.paused_since = None;
            self.wants_details.set(true);
        }
    }

    /// Asks for the details of rows on screen, while a lane is free and the
    /// budget allows; on a low budget, only the selected member's (the
    /// user's own look, which the reserve is for). True when it asked.
    fn fetch_details(&mut self, cx: &mut Cx) -> bool {
        // Off screen, no row is looked at: spend nothing on details.
        if !self.active {
            return false;
        }
        self.fill_roles(cx);
        if !budget_allows(self.list.rate()) {
            if self.missing_details().next().is_some() {
                self.paused_since.get_or_insert(cx.now);
            }
            let selected = self.selected_ref().map(|row| row.user_id.clone());
            let wanted =
                selected.filter(|id| !self.details.contains_key(id) && !self.in_flight(id));
            return self.ask_details(wanted.into_iter().collect(), 1, cx);
        }
        self.paused_since = None;
        self.fetch_detail_lanes(DETAIL_LANES, cx)
    }

    /// Asks for the details of rows on screen in up to `lanes` free lanes.
    fn fetch_detail_lanes(&mut self, lanes: usize, cx: &mut Cx) -> bool {
        let missing: Vec<String> = self.missing_details().map(str::to_owned).collect();
        self.ask_details(missing, lanes, cx)
    }

    /// Asks for the details of `user_ids`, in order, in at most `most` free lanes.
    fn ask_details(&mut self, user_ids: Vec<String>, most: usize, cx: &mut Cx) -> bool {
        let free: Vec<usize> = (0..DETAIL_LANES)
            .filter(|lane| self.lanes[*lane].is_none())
            .take(most)
            .collect();
        let asked = !free.is_empty() && !user_ids.is_empty();
        let selected = self.selected_ref().map(|row| row.user_id.clone());
        for (lane, user_id) in free.into_iter().zip(user_ids) {
            let token = cx.request(
                DETAIL.lane(lane as u8),
                GetMember {
                    // The selected member's is the user's own look; the rest fill in.
                    fill: selected.as_ref() != Some(&user_id),
                    user_id: user_id.clone(),
                },
                Msg::Detail,
            );
            self.detail_requests += 1;
            self.lanes[lane] = Some((token, user_id));
        }
        asked
    }

    pub fn selected_ref(&self) -> Option<&MemberRef> {
        self.list.selected_row()
    }
}

impl MembersScreen {
    /// An answer to one of the screen's requests; true when anything changed.
    pub fn update(&mut self, token: u64, msg: Msg, cx: &mut Cx) -> bool {
        match msg {
            Msg::Page(reply) => match self.list.take_reply(PAGE, token, reply, cx) {
                PageReply::Stale => return false,
                PageReply::Ok { reply: page, .. } => {
                    if let [role] = self.roles.as_slice() {
                        for member in &page.data {
                            self.known_roles
                                .insert(member.user_id.clone(), role.clone());
                        }
                    }
                    self.list.append(page.data, page.pagination, cx.now);
                    self.prefetch(cx);
                    // On the way to the end (G) the rows pass by: details
                    // wait for the last page.
                    if !self.list.is_seeking_end() {
                        let _ = self.fetch_details(cx);
                    }
                }
                PageReply::Failed => {}
            },
            Msg::Roles(reply) => return self.roles_reply(token, reply, cx),
            Msg::Detail(reply) => {
                let Some(user_id) = answered_lane(&mut self.lanes, token) else {
                    return false;
                };
                let detail = match reply {
                    Ok(member) => Detail::Loaded(Box::new(member)),
                    Err(error)
                        if error.is_service(crate::api::model::ErrorType::MemberNotFound) =>
                    {
                        Detail::NotActive
                    }
                    Err(error) => Detail::Failed(error),
                };
                self.details.insert(user_id, detail);
                let _ = self.fetch_details(cx);
            }
        }
        true
    }
}

impl Screen for MembersScreen {
    fn title(&self) -> &'static str {
        "Members"
    }

    fn observe_rate(&mut self, remaining: u32, limit: u32, _now: OffsetDateTime) {
        self.set_rate(remaining, limit);
    }

    fn activate(&mut self, cx: &mut Cx) {
        self.active = true;
        if !self.list.started {
            self.reload(cx);
        }
    }

    fn deactivate(&mut self) {
        self.active = false;
        self.wants_details.set(false);
        self.paused_since = None;
    }

    fn captures_keys(&self) -> bool {
        self.search_box.is_open() || self.sort_menu.is_some() || self.filters.is_some()
    }

    fn handle_text_key(&mut self, key: &KeyEvent, cx: &mut Cx) -> bool {
        self.menu_key(key, cx) || self.search_key(key, cx)
    }

    fn wake_at(&self) -> Option<OffsetDateTime> {
        // A draw found rows without details (after a resize, say): at once.
        let now_please = self
            .wants_details
            .get()
            .then_some(OffsetDateTime::UNIX_EPOCH);
        let probe = self.paused_since.map(|since| since + PAUSED_PROBE);
        [self.search_box.deadline(), now_please, probe]
            .into_iter()
            .flatten()
            .min()
    }

    fn wake(&mut self, cx: &mut Cx) -> bool {
        let mut changed = false;
        if self.wants_details.replace(false) {
            // "N details loading" in the head line.
            changed |= self.fetch_details(cx);
        }
        if self
            .paused_since
            .is_some_and(|since| since + PAUSED_PROBE <= cx.now)
        {
            // One detail reads the budget anew; the pause goes on meanwhile.
            self.paused_since = Some(cx.now);
            changed |= self.fetch_detail_lanes(1, cx);
        }
        self.search_due(cx) || changed
    }

    fn handle_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        if self.overlay_action(action, cx) {
            return true;
        }
        let pages = self.pages(cx);
        if self.list.navigate(action, cx, pages) {
            // The details asked for are those of the rows on screen after the
            // move; on the way to the end (G), those of the last page.
            self.list.follow_selection();
            if !self.list.is_seeking_end() {
                let _ = self.fetch_details(cx);
            }
            return true;
        }
        match action {
            Action::Refresh => {
                // Details in flight stay: their lanes are still busy. The rows
                // stay on screen until the first page answers.
                self.details.clear();
                self.known_roles.clear();
                self.restart_roles();
                let pages = self.pages(cx);
                self.list.refresh(cx, pages);
            }
            Action::Filter => self.search_box.open(&self.search),
            Action::Sort => self.open_sort_menu(),
            Action::Toggles => {
                self.filters = Some(
                    CheckMenu::new("Filters", self.filter_lines())
                        .with_hotkeys(filters::filter_hotkeys),
                );
            }
            Action::ReverseSort => {
                if let Some(order) = reversed(self.sort_by.is_some(), &self.sort_order, cx) {
                    self.sort_order = order;
                    self.reload(cx);
                }
            }
            Action::ClearFilters => {
                self.search.clear();
                self.roles.clear();
                self.scim_managed = None;
                // The sort stays (it is not a filter), unless it needs the search.
                if self.sort_by == Some(MemberSortBy::Relevance) {
                    self.sort_by = None;
                }
                self.reload(cx);
            }
            _ => return self.list.row_action(action, &mut self.detail, cx),
        }
        true
    }

    fn last_loaded(&self) -> Option<OffsetDateTime> {
        self.list.loaded_at
    }

    fn export_rows(&self) -> Option<crate::tui::export::ExportRows> {
        Some(crate::tui::export::ExportRows::Members(self.params()))
    }

    fn actions(&self) -> Vec<ScreenAction> {
        let mut actions = movement(RowWords {
            next: "next member (pages load as you near the end)",
            previous: "previous member",
            first: "first member",
            last: "last member: loads the remaining pages within the request budget",
        });
        actions.extend([
            ScreenAction::new(
                Action::Filter,
                "search",
                "search names, usernames and e-mails (terms under 3 characters are ignored)",
            ),
            ScreenAction::new(
                Action::Toggles,
                "roles/SCIM",
                "filters: roles (any of those ticked) and SCIM provisioning",
            ),
            ScreenAction::new(
                Action::Sort,
                "sort",
                "sort by display name, join date, role, or relevance (with a search)",
            ),
            ScreenAction::new(Action::ReverseSort, "reverse", "reverse the sort order"),
            ScreenAction::help_only(
                Action::ClearFilters,
                "clear the search and filters (the sort stays)",
            ),
            ScreenAction::new(
                Action::ToggleDetail,
                "detail",
                "show or hide the detail pane",
            ),
            ScreenAction::help_only(Action::Copy, "copy the user id (OSC 52)"),
            ScreenAction::help_only(Action::Refresh, "reload the list and the details"),
            ScreenAction::help_only(
                Action::Export,
                "export the members of this view to CSV, as `vantage members` writes them",
            ),
        ]);
        actions
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let detail_height = self.detail.height_in(area);
        let [head_area, filter_area, note_area, table_area, detail_area] =
            filtered::areas(area, 1, detail_height);
        self.draw_head(frame, head_area, theme);
        // Short terms are said on the note line below.
        let summary = || self.filter_summary();
        self.search_box
            .draw(frame, filter_area, theme, false, summary);
        self.draw_note(frame, note_area, theme);
        let empty = if self.list.rows.is_empty() {
            // The rows of the first page will fill this area.
            self.list
                .set_viewport(table_area.height.saturating_sub(2).max(1) as usize);
            if self.list.started {
                format!(
                    "No member matches. Press {} to clear the search and filters.",
                    view.keymap.key_for(Action::ClearFilters)
                )
            } else {
                "Members load when this tab opens.".to_owned()
            }
        } else {
            String::new()
        };
        self.list.draw_rows(
            frame,
            [table_area, detail_area],
            (
                "Loading members…",
                Line::from(Span::styled(empty, theme.dim)),
            ),
            theme,
            |frame, area| self.draw_table(frame, area, view),
            |frame, area| self.draw_detail(frame, area, view),
        );
        if let Some(menu) = &self.sort_menu {
            menu.draw_keyed(frame, area, theme, view.keymap, ["choose", "close"]);
        }
        if let Some(filters) = &self.filters {
            filters.draw(frame, area, theme, view.keymap);
        }
    }
}
