//! `vantage members [get USER_ID]`. A list item carries only `user_id` and
//! `type` (api-v1.md), so the table and CSV a reviewer reads are filled in
//! (`Client::fill_members`): the role from role-filtered lists (or the one
//! `--role` given), the name, e-mail and join date from one member read per
//! row, in the columns of `formats::members::MemberRow`, the dashboard's.
//! JSON and JSON lines write the contract's items as they are, at the cost
//! of the list alone.

use futures::{StreamExt, TryStreamExt};

use super::args::{MembersArgs, MembersCommand};
use super::exit::CliError;
use super::options::Format;
use super::print::write_list;
use super::progress::Progress;
use super::read::{show_one, start_progress};
use super::workspaces::resolve_workspace;
use crate::api::model::MemberRef;
use crate::api::{FilledMember, MemberListParams};
use crate::formats::members::MemberRow;
use crate::session::Session;

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
    // The table and CSV are for people: the columns a reviewer reads
    // (`MemberRow`, as the dashboard's table and its export). JSON keeps
    // the contract's items.
    if !matches!(output.format, Format::Table | Format::Csv) {
        return write_list(stream, output, args.list.max, &progress).await;
    }
    let limit = args
        .list
        .max
        .map_or(usize::MAX, |max| usize::try_from(max).unwrap_or(usize::MAX));
    let listed: Vec<MemberRef> = stream.take(limit).try_collect().await?;
    progress.items(listed.len() as u64);
    progress.waiting("members: roles, names and e-mail");
    let filled = session
        .client
        .fill_members(workspace, &params, listed)
        .await;
    progress.clear();
    let rows = filled?.into_iter().map(|filled| {
        let FilledMember {
            member,
            role,
            detail,
        } = filled;
        MemberRow::new(member, role, detail)
    });
    let rows = futures::stream::iter(rows.map(Ok));
    write_list(rows, output, None, &Progress::hidden()).await
}
