//! Members' roles. Neither the member list nor the member read carries the
//! role, yet the list can be filtered by one: the rows on screen learn their
//! roles from one listing per role, 100 members a request, in the contract's
//! precedence order (the default list is ordered by role, so the rows on
//! screen are found in the first roles listed). A role a walk of every role
//! did not find is shown as unknown, never as a blank that reads "none".

use super::{MembersScreen, Msg, ROLES};
use crate::api::model::{MemberRef, Page, Role, SortOrder};
use crate::tui::effect::ErrorInfo;
use crate::tui::ops::ListMembers;

use crate::tui::screens::paged::budget_allows;

/// The contract's largest page: one request per 100 members of a role.
pub const ROLE_PAGE: u32 = 100;

/// The roles in the contract's precedence order.
const ORDER: [Role; 5] = [
    Role::Owner,
    Role::Admin,
    Role::Member,
    Role::Collaborator,
    Role::Viewer,
];

/// The walk over the roles for the rows on screen.
#[derive(Debug, Default)]
pub struct RoleWalk {
    /// The role being listed (index into the roles walked) and the cursor of
    /// its next page.
    at: usize,
    cursor: Option<String>,
    pending: Option<u64>,
    /// Every role was listed to its end: a member not found is unknown.
    pub done: bool,
    /// A listing failed: the walk stops (the error log has it); `r` starts over.
    stopped: bool,
    /// Requests made, for the tests and the budget.
    pub requests: usize,
}

/// What the Role column says of a member.
#[derive(Debug, Clone, PartialEq)]
pub enum RoleCell<'a> {
    Known(&'a Role),
    /// Being looked for.
    Pending,
    Unknown,
}

impl MembersScreen {
    /// The roles the walk lists: those of the role filter, else all.
    fn walked_roles(&self) -> Vec<Role> {
        if self.roles.is_empty() {
            ORDER.to_vec()
        } else {
            self.roles.clone()
        }
    }

    /// What the Role column shows for `user_id`.
    pub(super) fn role_cell(&self, user_id: &str) -> RoleCell<'_> {
        match self.known_roles.get(user_id) {
            Some(role) => RoleCell::Known(role),
            None if self.role_walk.done || self.role_walk.stopped => RoleCell::Unknown,
            None => RoleCell::Pending,
        }
    }

    /// Whether a row on screen has no role known yet.
    fn role_missing_on_screen(&self) -> bool {
        let range = self.list.visible_rows();
        self.list.rows[range.start.min(self.list.rows.len())..range.end.min(self.list.rows.len())]
            .iter()
            .any(|row| !self.known_roles.contains_key(&row.user_id))
    }

    /// Asks for the next page of role listings while a row on screen lacks
    /// its role, one request at a time and within the request budget. A list
    /// filtered by one role needs none: its rows have that role.
    pub(super) fn fill_roles(&mut self, cx: &mut crate::tui::effect::Cx) {
        let walk = &self.role_walk;
        if !self.active
            || walk.pending.is_some()
            || walk.done
            || walk.stopped
            || self.roles.len() == 1
            || !budget_allows(self.list.rate())
            || !self.role_missing_on_screen()
        {
            return;
        }
        let roles = self.walked_roles();
        let Some(role) = roles.get(self.role_walk.at).cloned() else {
            self.role_walk.done = true;
            return;
        };
        let mut params = self.params();
        params.limit = Some(ROLE_PAGE);
        params.role = vec![role];
        // Order does not matter to a walk: the service's default is cheapest.
        params.sort_by = None;
        params.sort_order = None::<SortOrder>;
        let cursor = self.role_walk.cursor.clone();
        let listing = ListMembers {
            workspace_id: cx.workspace.to_owned(),
            params,
            cursor,
        };
        self.role_walk.pending = Some(cx.request(ROLES, listing, Msg::Roles));
        self.role_walk.requests += 1;
    }

    /// A role listing's page: its members have that role. True when a row
    /// on screen learned its role or the walk ended.
    pub(super) fn roles_reply(
        &mut self,
        token: u64,
        reply: Result<Page<MemberRef>, ErrorInfo>,
        cx: &mut crate::tui::effect::Cx,
    ) -> bool {
        if self.role_walk.pending != Some(token) {
            return false;
        }
        self.role_walk.pending = None;
        let page = match reply {
            Ok(page) => page,
            _ => {
                self.role_walk.stopped = true;
                return true;
            }
        };
        let roles = self.walked_roles();
        let Some(role) = roles.get(self.role_walk.at).cloned() else {
            return false;
        };
        for member in &page.data {
            self.known_roles
                .insert(member.user_id.clone(), role.clone());
        }
        match page.pagination.next_cursor.clone() {
            Some(cursor) if page.pagination.has_more => self.role_walk.cursor = Some(cursor),
            _ => {
                self.role_walk.at += 1;
                self.role_walk.cursor = None;
                self.role_walk.done = self.role_walk.at >= roles.len();
            }
        }
        self.fill_roles(cx);
        true
    }

    /// The filters changed or the list was refreshed: the walk starts over.
    pub(super) fn restart_roles(&mut self) {
        self.role_walk = RoleWalk::default();
    }
}
