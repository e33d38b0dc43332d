//! `vantage members [get USER_ID]`. A list item carries only `user_id` and
//! `type` (api-v1.md), so the table a reviewer reads is filled in: the role
//! from role-filtered lists (or the one `--role` given), the name, e-mail and
//! join date from one member read per row. The other formats write the
//! contract's items as they are, at the cost of the list alone.

use std::collections::{HashMap, HashSet};
use std::pin::pin;

use futures::{StreamExt, TryStreamExt};
use serde::Serialize;
use time::OffsetDateTime;

use super::args::{MembersArgs, MembersCommand};
use super::exit::CliError;
use super::options::Format;
use super::print::{Field, Row, write_list};
use super::progress::Progress;
use super::read::{show_one, start_progress};
use super::views::day;
use super::workspaces::resolve_workspace;
use crate::api::model::{ErrorType, Member, MemberRef, MemberType, Role};
use crate::api::{ApiError, Client, MemberListParams};
use crate::session::Session;

/// One member as the table shows it; `None` where the service did not say.
#[derive(Debug, Clone, Serialize)]
pub struct MemberRow {
    pub user_id: String,
    pub name: Option<String>,
    pub email: Option<String>,
    pub role: Option<Role>,
    #[serde(rename = "type")]
    pub kind: MemberType,
    #[serde(with = "crate::timefmt::serde_rfc3339::option")]
    pub joined_at: Option<OffsetDateTime>,
}

impl MemberRow {
    /// `detail` is `None` when the member left between the list and the read.
    fn new(member: MemberRef, role: Option<Role>, detail: Option<Member>) -> Self {
        let (name, email, joined_at) = detail
            .map(|detail| (detail.name, detail.email, detail.joined_at))
            .unwrap_or_default();
        Self {
            user_id: member.user_id,
            name,
            email,
            role,
            kind: member.kind,
            joined_at,
        }
    }
}

/// Unknown reads `-`, never a blank that looks like an empty value.
fn or_dash(value: Option<&impl ToString>) -> String {
    value.map_or_else(|| "-".to_owned(), ToString::to_string)
}

impl Row for MemberRow {
    const FIELDS: &'static [Field<Self>] = &[
        Field::text("NAME", 12, |member| or_dash(member.name.as_ref())),
        Field::text("E-MAIL", 12, |member| or_dash(member.email.as_ref())),
        Field::fixed("ROLE", |member| or_dash(member.role.as_ref())),
        Field::fixed("TYPE", |member| member.kind.to_string()),
        Field::fixed("JOINED", |member| {
            Some(day(member.joined_at))
                .filter(|day| !day.is_empty())
                .unwrap_or_else(|| "-".to_owned())
        }),
        Field::fixed("USER ID", |member| member.user_id.clone()),
    ];
}

pub async fn run(session: &Session, args: MembersArgs) -> Result<(), CliError> {
    let workspace = &resolve_workspace(session).await?;
    if let Some(MembersCommand::Get { user_id, output }) = args.command {
        let read = session.client.get_member(workspace, &user_id);
        return show_one(session, "member", output.resolve(), read).await;
    }
    let output = args.list.output.resolve();
    let filters = args.filters;
    let params = MemberListParams {
        limit: Some(args.list.page_size),
        query: filters.query,
        role: filters.role,
        sort_by: filters.sort_by,
        sort_order: filters.sort_order,
        scim_managed: filters.scim_managed,
    };
    let (progress, _task) = start_progress(session, "members", output);
    let stream = session.client.members_stream(workspace, params.clone());
    if output.format != Format::Table {
        return write_list(stream, output, args.list.max, &progress).await;
    }
    let limit = args
        .list
        .max
        .map_or(usize::MAX, |max| usize::try_from(max).unwrap_or(usize::MAX));
    let listed: Vec<MemberRef> = stream.take(limit).try_collect().await?;
    progress.items(listed.len() as u64);
    let client = &session.client;
    progress.waiting("members: roles");
    let mut roles = roles_of(client, workspace, &params, &listed).await?;
    progress.waiting("members: names and e-mail");
    let mut rows = Vec::with_capacity(listed.len());
    for member in listed {
        let detail = match client.get_member(workspace, &member.user_id).await {
            Ok(detail) => Some(detail),
            Err(error) if error.kind() == Some(&ErrorType::MemberNotFound) => None,
            Err(error) => {
                progress.clear();
                return Err(error.into());
            }
        };
        let role = roles.remove(&member.user_id);
        rows.push(MemberRow::new(member, role, detail));
    }
    progress.clear();
    let rows = futures::stream::iter(rows.into_iter().map(Ok));
    write_list(rows, output, None, &Progress::hidden()).await
}

/// The role of each of `listed`: the one `--role` names, else learned from one
/// role-filtered list per role asked for (list items carry none), in the
/// contract's order, stopping once every listed member has one. A member of a
/// role this build does not know keeps none.
async fn roles_of(
    client: &Client,
    workspace: &str,
    params: &MemberListParams,
    listed: &[MemberRef],
) -> Result<HashMap<String, Role>, ApiError> {
    let asked = match params.role.as_slice() {
        [] => Role::KNOWN,
        asked => asked,
    };
    if let [only] = asked {
        let ids = listed.iter().map(|member| member.user_id.clone());
        return Ok(ids.map(|id| (id, only.clone())).collect());
    }
    let wanted: HashSet<&str> = listed.iter().map(|m| m.user_id.as_str()).collect();
    let mut roles = HashMap::new();
    for role in asked {
        if roles.len() == wanted.len() {
            break;
        }
        // The same filters, one role, in the service's default order.
        let filtered = MemberListParams {
            role: vec![role.clone()],
            sort_by: None,
            sort_order: None,
            ..params.clone()
        };
        let mut stream = pin!(client.members_stream(workspace, filtered));
        while let Some(member) = stream.try_next().await? {
            if wanted.contains(member.user_id.as_str()) {
                roles.insert(member.user_id, role.clone());
            }
        }
    }
    Ok(roles)
}
