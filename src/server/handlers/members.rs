//! Operations 8 and 9: one workspace member, and the member list. Both read the
//! eventually consistent view and show active memberships only.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use uuid::Uuid;

use super::PathParams;
use super::child_list::{ChildList, FromQuery};
use crate::api::model::{ErrorType, Member, MemberRef, MemberSortBy, MemberType, Role, SortOrder};
use crate::server::ServerState;
use crate::server::context::{Ctx, Validation};
use crate::server::errors::HttpError;
use crate::server::paging::{KeyPart, SortKey};
use crate::server::search::{Field, TextQuery};
use crate::server::store::{Data, MembershipRec};

#[derive(Deserialize)]
pub struct MemberPath {
    workspace_id: String,
    user_id: String,
}

/// Operation 8. Order of checks: the `user_id` format (400) comes before the
/// workspace (404), following the documented order "validation before
/// resource"; a malformed id says nothing about any workspace.
pub async fn get(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams(path): PathParams<MemberPath>,
) -> Result<Json<Member>, HttpError> {
    let user_id = match Uuid::parse_str(&path.user_id) {
        Ok(id) if !id.is_nil() => id,
        _ => {
            return Err(HttpError::invalid(
                "path.user_id",
                "user_id must be a nonzero UUID, as returned by the member list",
            ));
        }
    };
    ctx.own_workspace(&path.workspace_id)?;
    app.store.read_eventual(|data| {
        // Compared as UUIDs, so any spelling of the id (case, braces) finds it.
        let membership = data
            .active_members(&path.workspace_id)
            .find(|m| Uuid::parse_str(&m.user_id).is_ok_and(|id| id == user_id))
            .ok_or_else(member_not_found)?;
        let user = data.users.get(&membership.user_id);
        Ok(Json(Member {
            user_id: membership.user_id.clone(),
            workspace_id: membership.workspace_id.clone(),
            kind: MemberType::User,
            email: user.and_then(|u| u.email.clone()),
            name: membership.display_name.clone(),
            joined_at: membership.joined_at,
            invited_at: membership.invited_at,
        }))
    })
}

fn member_not_found() -> HttpError {
    HttpError::not_found(ErrorType::MemberNotFound, "Member not found")
        .detail("no active member of this workspace has this user id")
}

/// The filters and sort of one member list request.
pub struct ListRequest {
    text: TextQuery,
    roles: Vec<Role>,
    scim_managed: Option<bool>,
    sort_by: Option<MemberSortBy>,
    descending: bool,
}

/// Operation 9: the active members of a workspace.
pub struct MemberList;

impl ChildList for MemberList {
    type Parent = String;
    type Request = ListRequest;
    type Item = MemberRef;
    const EVENTUAL: bool = true;

    fn path(workspace_id: &String) -> String {
        format!("/v1/workspaces/{workspace_id}/members")
    }

    fn items(
        data: &Data,
        ctx: &Ctx,
        workspace_id: &String,
        request: &ListRequest,
    ) -> Result<Vec<(SortKey, MemberRef)>, HttpError> {
        ctx.own_workspace(workspace_id)?;
        let mut matcher = request.text.matcher();
        Ok(data
            .active_members(workspace_id)
            .filter(|m| request.roles.is_empty() || request.roles.contains(&m.role))
            .filter(|m| {
                request
                    .scim_managed
                    .is_none_or(|scim| m.scim_managed == scim)
            })
            .filter_map(|m| {
                let user = data.users.get(&m.user_id);
                // Display name, username and e-mail weigh the same.
                let score = matcher.score(&[
                    Field::raw(m.display_name.as_deref(), 1),
                    Field::raw(user.and_then(|u| u.username.as_deref()), 1),
                    Field::raw(user.and_then(|u| u.email.as_deref()), 1),
                ])?;
                let score = i64::from(score);
                let reference = MemberRef {
                    user_id: m.user_id.clone(),
                    kind: MemberType::User,
                };
                Some((sort_key(data, m, request, score), reference))
            })
            .collect())
    }
}

impl FromQuery for ListRequest {
    fn from_query(ctx: &Ctx) -> Result<ListRequest, HttpError> {
        let query = &ctx.query;
        let mut validation = Validation::default();
        let raw_query = validation.check(ctx.query.one("query")).flatten();
        let text = validation.check(TextQuery::parse(
            raw_query.unwrap_or_default(),
            "query.query",
        ));
        let roles = validation.check(query.enums("role"));
        let sort_by = validation.check(query.one_enum("sort_by")).flatten();
        let sort_order = validation.check(query.one_enum("sort_order")).flatten();
        let scim_managed = validation.check(query.boolean("scim_managed")).flatten();
        if sort_order.is_some() && query.all("sort_by").next().is_none() {
            validation.push("query.sort_order", "sort_order requires sort_by");
        }
        // A query of only short terms still counts: relevance then ties everywhere.
        let has_query = raw_query.is_some_and(|q| !q.trim().is_empty());
        if sort_by == Some(MemberSortBy::Relevance) && !has_query {
            validation.push("query.sort_by", "sort_by=relevance requires query");
        }
        validation.finish()?;
        Ok(ListRequest {
            text: text.unwrap_or_default(),
            roles: roles.unwrap_or_default(),
            scim_managed,
            sort_by,
            descending: sort_order != Some(SortOrder::Asc),
        })
    }
}

/// The total order of the list (contract, operation 9):
/// - no `sort_by`: best match first when the query has terms, then role
///   precedence, then most recently joined (our choice: the default order also
///   breaks ties between equally good matches);
/// - `display_name`, falling back to the e-mail; members with neither first
///   ascending, last descending; compared case-insensitively;
/// - `joined_at`, falling back to the invitation time (neither sorts as oldest);
/// - `role` by precedence: descending (the default) puts owners first;
/// - `relevance`: score, ties by most recent join in both directions.
///
/// Remaining ties break by membership id, ascending in both directions.
fn sort_key(data: &Data, m: &MembershipRec, request: &ListRequest, score: i64) -> SortKey {
    let descending = request.descending;
    let joined = joined_millis(m);
    let mut key = match &request.sort_by {
        None => {
            let mut key = Vec::with_capacity(4);
            if !request.text.is_blank() {
                key.push(KeyPart::desc_int(score));
            }
            key.push(KeyPart::asc_int(i64::from(m.role.precedence())));
            key.push(KeyPart::desc_int(joined));
            key
        }
        Some(MemberSortBy::DisplayName) => {
            let name = sort_name(data, m);
            vec![
                KeyPart::int(i64::from(name.is_some()), descending),
                KeyPart::text(name.unwrap_or_default(), descending),
            ]
        }
        Some(MemberSortBy::JoinedAt) => vec![KeyPart::int(joined, descending)],
        Some(MemberSortBy::Role) => {
            vec![KeyPart::int(-i64::from(m.role.precedence()), descending)]
        }
        Some(MemberSortBy::Relevance) => {
            vec![KeyPart::int(score, descending), KeyPart::desc_int(joined)]
        }
        // Validation admits only known values; the id alone still orders totally.
        Some(MemberSortBy::Unknown(_)) => Vec::new(),
    };
    key.push(KeyPart::asc_text(&m.id));
    key
}

/// Join time, else invitation time, in milliseconds; neither sorts as oldest.
fn joined_millis(m: &MembershipRec) -> i64 {
    m.joined_at
        .or(m.invited_at)
        .map_or(i64::MIN, super::pii::unix_millis)
}

/// The display name, else the e-mail, lowercased; `None` when neither is set.
fn sort_name(data: &Data, m: &MembershipRec) -> Option<String> {
    let non_blank = |s: &Option<String>| s.clone().filter(|s| !s.trim().is_empty());
    non_blank(&m.display_name)
        .or_else(|| data.users.get(&m.user_id).and_then(|u| non_blank(&u.email)))
        .map(|name| name.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(query: &str, fields: [Option<&str>; 3]) -> Option<u32> {
        let text = TextQuery::parse(query, "query.query").unwrap();
        let fields = fields.map(|field| Field::raw(field, 1));
        text.matcher().score(&fields)
    }

    #[test]
    fn member_search_needs_every_term_and_ranks_better_matches_higher() {
        let member = [Some("Ada Lovelace"), Some("ada.lovelace7"), None];
        assert_eq!(score("ada lovelace", member), Some(4));
        assert_eq!(score("ada.lovelace7", member), Some(3));
        assert_eq!(score("velace", member), Some(1));
        assert_eq!(score("ada hopper", member), None);
        assert_eq!(score("ad x", member), Some(0), "short terms are ignored");
    }
}
