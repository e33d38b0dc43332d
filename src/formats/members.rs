//! A member as every list of members shows it: the one declaration of its
//! columns (name, e-mail, role, type, joined, user id). `vantage members`
//! writes its table and CSV from it, the dashboard's Members table takes its
//! columns and cells from it, and its `ctrl-s` export writes the same CSV.

use serde::Serialize;
use time::OffsetDateTime;

use super::row::{Field, Row};
use crate::api::model::{Member, MemberRef, MemberType, Role};

/// One member as shown; `None` where the service did not say. The fields are
/// in the columns' order, so a CSV's columns are the table's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemberRow {
    pub name: Option<String>,
    pub email: Option<String>,
    pub role: Option<Role>,
    #[serde(rename = "type")]
    pub kind: MemberType,
    #[serde(with = "crate::timefmt::serde_rfc3339::option")]
    pub joined_at: Option<OffsetDateTime>,
    pub user_id: String,
}

impl MemberRow {
    /// `detail` is `None` when the member left between the list and the
    /// read (or its read is not in yet).
    pub fn new(member: MemberRef, role: Option<Role>, detail: Option<Member>) -> Self {
        let (name, email, joined_at) = detail
            .map(|detail| (detail.name, detail.email, detail.joined_at))
            .unwrap_or_default();
        Self {
            name,
            email,
            role,
            kind: member.kind,
            joined_at,
            user_id: member.user_id,
        }
    }
}

/// Unknown reads `-`, never a blank that looks like an empty value.
fn or_dash(value: Option<&impl ToString>) -> String {
    value.map_or_else(|| "-".to_owned(), ToString::to_string)
}

/// `2026-11-22` (UTC), or `-`.
pub fn joined_day(at: Option<OffsetDateTime>) -> String {
    at.map_or_else(
        || "-".to_owned(),
        |at| crate::timefmt::utc(at, crate::timefmt::DATE),
    )
}

/// The member columns' positions in [`MemberRow::FIELDS`], for a screen that
/// draws some of them its own way (a detail still loading).
pub mod column {
    pub const NAME: usize = 0;
    pub const EMAIL: usize = 1;
    pub const ROLE: usize = 2;
    pub const TYPE: usize = 3;
    pub const JOINED: usize = 4;
    pub const USER_ID: usize = 5;
}

impl Row for MemberRow {
    const FIELDS: &'static [Field<Self>] = &[
        Field::text("NAME", 12, |member| or_dash(member.name.as_ref())),
        Field::text("E-MAIL", 12, |member| or_dash(member.email.as_ref())),
        Field::fixed("ROLE", |member| or_dash(member.role.as_ref())),
        Field::fixed("TYPE", |member| member.kind.to_string()),
        Field::fixed("JOINED", |member| joined_day(member.joined_at)),
        Field::fixed("USER ID", |member| member.user_id.clone()),
    ];
}

/// The contract's list item as it is (`--format json` of a list not filled
/// in); tables of members show [`MemberRow`], filled in.
impl Row for MemberRef {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("USER ID", |member| member.user_id.clone()),
        Field::fixed("TYPE", |member| member.kind.to_string()),
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_column_positions_name_their_fields() {
        let titles: Vec<&str> = MemberRow::FIELDS.iter().map(|f| f.column.title).collect();
        assert_eq!(titles[column::NAME], "NAME");
        assert_eq!(titles[column::EMAIL], "E-MAIL");
        assert_eq!(titles[column::ROLE], "ROLE");
        assert_eq!(titles[column::TYPE], "TYPE");
        assert_eq!(titles[column::JOINED], "JOINED");
        assert_eq!(titles[column::USER_ID], "USER ID");
    }
}
